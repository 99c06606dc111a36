/*
 * A short-lived program: about MS (argument, default 2) milliseconds of CPU
 * in ctiny_hot, then exit.  -DWORKLOAD_TAG='"name"' gives a copy its own
 * build-id.
 */
#include <stdlib.h>

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

	return (int)(ctiny_hot((unsigned long)(ms * 700000)) & 1);
}
