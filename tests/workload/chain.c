/*
 * Call chains for the stack tests: main -> a -> b -> hot three times for
 * every main -> a -> c -> hot, and main -> sys -> getppid(2) in a loop
 * (kernel frames under user ones).  Built with -fno-omit-frame-pointer.
 *
 *	chain SECONDS [sys]
 *
 * -DWORKLOAD_TAG='"name"' makes a binary with its own build-id (hot.c's
 * way), for tests that run beside test_callchain.sh.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE	__attribute__((noinline))

volatile unsigned long sink;

#ifdef WORKLOAD_TAG
const char dcpi_workload_tag[] = WORKLOAD_TAG;
#endif

NOINLINE void
done(unsigned long x)
{
	sink = x;
}

/* Not a leaf: GCC sets up no frame pointer in a leaf function, whatever
 * -fno-omit-frame-pointer says, and its caller would vanish from the
 * chains (as it does from perf's). */
NOINLINE void
hot(void)
{
	unsigned long i, x = sink;

	for (i = 0; i < 20000; i++)
		x += i * i ^ (x >> 3);
	done(x);
}

NOINLINE void b(void) { hot(); __asm__ volatile("" ::: "memory"); }
NOINLINE void c(void) { hot(); __asm__ volatile("" ::: "memory"); }

static double
cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

NOINLINE void
a(double secs)
{
	double t0 = cpu();

	while (cpu() - t0 < secs) {
		b();
		b();
		b();
		c();
	}
}

NOINLINE void
sys(double secs)
{
	double t0 = cpu();
	int i;

	while (cpu() - t0 < secs)
		for (i = 0; i < 1000; i++)
			sink += (unsigned long)getppid();
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;

	if (argc > 2 && strcmp(argv[2], "sys") == 0)
		sys(secs);
	else
		a(secs);
	return 0;
}
