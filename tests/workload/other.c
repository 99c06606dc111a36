/*
 * Workload B for the analysis tests: like hot.c, nearly all of its time in
 * one known function, dcpi_workload_other(), so that a diff between an
 * epoch running hot and one running this shows one falling, the other
 * rising.  Usage: other SECONDS
 */
#include <stdlib.h>
#include <time.h>

unsigned long dcpi_workload_other(unsigned long n) __attribute__((noinline));
unsigned long
dcpi_workload_other(unsigned long n)
{
	volatile unsigned long x = 1;
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 2654435761UL + (i >> 2);
	return x;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	struct timespec t0, t;
	unsigned long sink = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		sink += dcpi_workload_other(1000000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return sink == 42;
}
