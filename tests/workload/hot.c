/*
 * A workload with nearly all of its time in one known function,
 * dcpi_workload_hot().  Built as a PIE (tests/workload/hot) and, with
 * -DHOT_IN_LIB, as a program whose hot function sits in a shared library.
 * Usage: hot SECONDS  (busy for about that much CPU time, then exits)
 */
#include <stdlib.h>
#include <time.h>

#ifdef HOT_IN_LIB
unsigned long dcpi_workload_hot(unsigned long n);
#else
#ifndef HOT_LIB_ONLY
static
#endif
unsigned long dcpi_workload_hot(unsigned long n) __attribute__((noinline));
unsigned long
dcpi_workload_hot(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i * i ^ (x >> 3);
	return x;
}
#endif

#ifndef HOT_LIB_ONLY
int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	struct timespec t0, t;
	unsigned long sink = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		sink += dcpi_workload_hot(1000000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return sink == 42;
}
#endif
