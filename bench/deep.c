/*
 * A stack DEPTH calls deep, built -O2 without frame pointers, busy at its
 * bottom for SECONDS of CPU: deep DEPTH SECONDS.  For the call chains'
 * walks at depths 8, 16 and 32 (bench/bpf_walk_cost.sh): every sample's
 * stack is deeper than the walk goes.
 */
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Not a tail call, not folded into a loop: each level a frame of its own. */
__attribute__((noinline, noipa)) static double
level(int n, double end)
{
	double x = n;

	if (n > 0) {
		x += level(n - 1, end);
		__asm__ volatile("" : : "r"(x) : "memory");
		return x;
	}
	while (cpu_now() < end) {
		int i;

		for (i = 0; i < 100000; i++)
			x = x * 1.0000001 + 0.5;
		sink = x;
	}
	return x;
}

int
main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	double secs = argc > 2 ? atof(argv[2]) : 10;

	sink = level(depth, cpu_now() + secs);
	return 0;
}
