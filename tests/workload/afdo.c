/*
 * The workload of test_export_afdo.sh: CPU time for about SECONDS
 * (argv[1], default 2) of its own, nearly all of it in mix(), whose loop
 * calls the inlined helper step() and, through a pointer, the out-of-line
 * kernel_a() three times for each call of kernel_b().  Built with clang
 * -O2 -g: the AutoFDO export must find mix first, step inlined in it, and
 * kernel_a and kernel_b as the targets of the indirect call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long
step(unsigned long x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

__attribute__((noinline)) unsigned long
kernel_a(unsigned long x)
{
	for (int i = 0; i < 100; i++) {
		x ^= x >> 11;
		x *= 6364136223846793005UL;
	}
	return x;
}

__attribute__((noinline)) unsigned long
kernel_b(unsigned long x)
{
	for (int i = 0; i < 100; i++) {
		x ^= x >> 13;
		x *= 2862933555777941757UL;
	}
	return x;
}

unsigned long (*volatile kernels[4])(unsigned long) = {
	kernel_a, kernel_a, kernel_a, kernel_b
};

__attribute__((noinline)) unsigned long
mix(unsigned long x, long n)
{
	for (long i = 0; i < n; i++) {
		for (int j = 0; j < 400; j++)
			x = step(x + (unsigned long)j);
		x = kernels[i & 3](x);
	}
	return x;
}

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	unsigned long x = 88172645463325252UL;

	while (cpu_seconds() < secs)
		x = mix(x, 2000);
	sink = x;
	printf("%lu\n", x & 0xff);
	return 0;
}
