/*
 * A short-lived program: about MS (argument, default 2) milliseconds of CPU
 * in ctiny_hot, then exit.  -DWORKLOAD_TAG='"name"' gives a copy its own
 * build-id.  A second argument: a file whose appearance it waits for
 * first, asleep.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef WORKLOAD_TAG
const char dcpi_workload_tag[] = WORKLOAD_TAG;
#endif

unsigned long ctiny_hot(unsigned long n) __attribute__((noinline));
unsigned long
ctiny_hot(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i * i ^ (x >> 3);
	return x;
}

int
main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 2;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (argc > 2 && access(argv[2], F_OK) != 0)
		nanosleep(&ts, NULL);
	return (int)(ctiny_hot((unsigned long)(ms * 700000)) & 1);
}
