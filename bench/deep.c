/*
 * A stack DEPTH calls deep, built -O2 without frame pointers, busy at its
 * bottom for SECONDS of CPU: deep DEPTH SECONDS.  For the call chains'
 * walks at depths 8, 16 and 32 (bench/bpf_walk_cost.sh): every sample's
 * stack is deeper than the walk goes.  deep DEPTH 0 UNITS does UNITS
 * units of work instead (a fixed amount, for a workload's slowdown:
 * bench/bpf_walk_slowdown.sh); deep DEPTH SECONDS -c prints the units
 * SECONDS of CPU did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;
static long units = -1;		/* units left (fixed work), or -1 */
static long done;

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
	while (units < 0 ? cpu_now() < end : units-- > 0) {
		int i;

		for (i = 0; i < 100000; i++)
			x = x * 1.0000001 + 0.5;
		sink = x;
		done++;
	}
	return x;
}

int
main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	double secs = argc > 2 ? atof(argv[2]) : 10;

	if (argc > 3 && strcmp(argv[3], "-c") != 0)
		units = atol(argv[3]);
	sink = level(depth, cpu_now() + secs);
	if (argc > 3 && strcmp(argv[3], "-c") == 0)
		printf("%ld\n", done);
	return 0;
}
