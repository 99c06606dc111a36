/*
 * A short-lived program: MS (argument, default 2) milliseconds of CPU in
 * ctiny_hot, by its own CPU clock (a fixed count of iterations took half
 * the time the tests counted on, or twice, as machines and their load
 * differ), then exit.  -DWORKLOAD_TAG='"name"' gives a copy its own
 * build-id.  A second argument: a file whose appearance it waits for
 * first, asleep.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef WORKLOAD_TAG
const char dcpi_workload_tag[] = WORKLOAD_TAG;
#endif

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The clock is read every 65,536 iterations (some 100 us): its samples,
 * in libc and the kernel, are a few in a thousand, and none in this
 * image outside ctiny_hot. */
unsigned long ctiny_hot(double ms) __attribute__((noinline));
unsigned long
ctiny_hot(double ms)
{
	volatile unsigned long x = 0;
	unsigned long i = 0;
	double end = cpu_ms() + ms;

	do {
		for (unsigned long j = 0; j < 65536; j++, i++)
			x += i * i ^ (x >> 3);
	} while (cpu_ms() < end);
	return x;
}

int
main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 2;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (argc > 2 && access(argv[2], F_OK) != 0)
		nanosleep(&ts, NULL);
	return (int)(ctiny_hot(ms) & 1);
}
