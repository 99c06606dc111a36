/*
 * Three functions of known loop counts, called in turn until about SECONDS
 * of CPU time: dcpi_trio_a and dcpi_trio_c run 20,000 iterations a call on
 * average, dcpi_trio_b 20,000 times SLOW (1.0 by default; 1.2 makes it 20%
 * slower).  Each call's count is drawn from 10,000 to 30,000: a loop of one
 * period would fall in step with the sampling period, and a run's samples
 * would land in whichever function the phase favours.
 * Usage: trio SECONDS [SLOW]
 *        trio -t SLOW
 * With -t it times batches of 200 calls of each function apart by the
 * process's CPU clock (perf stat's task-clock), the least of 20 each, and
 * prints b's share of their sum in percent, "b_share P": the true share
 * that a profile's sampled one estimates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ITERS	20000
#define CALLS	200
#define ROUNDS	20


/* Each its own procedure, the loop inlined into it. */
#define TRIO_FN(name)						\
unsigned long name(unsigned long n) __attribute__((noinline));	\
unsigned long								\
name(unsigned long n)							\
{									\
	volatile unsigned long x = 0;					\
	unsigned long i;						\
									\
	for (i = 0; i < n; i++)						\
		x += i * i ^ (x >> 3);					\
	return x;							\
}
TRIO_FN(dcpi_trio_a)
TRIO_FN(dcpi_trio_b)
TRIO_FN(dcpi_trio_c)

static unsigned long rnd = 1;

/* The next call's count, from 10,000 to 30,000 (Knuth's MMIX LCG, its high
 * bits). */
static unsigned long
draw(void)
{
	rnd = rnd * 6364136223846793005UL + 1442695040888963407UL;
	return ITERS / 2 + (rnd >> 33) % ITERS;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CALLS calls of one function, its counts drawn as a run draws them: the
 * CPU seconds they take. */
static double
batch(unsigned long (*fn)(unsigned long), double slow)
{
	double t0 = cpu_now();
	int k;

	rnd = 1;
	for (k = 0; k < CALLS; k++)
		fn((unsigned long)((double)draw() * slow));
	return cpu_now() - t0;
}

/* The least of ROUNDS batches, the functions in turn: a machine shared
 * with other work slows some batches, and the least is each function's
 * own time. */
static void
timed(double slow, double t[3])
{
	double x;
	int r;

	t[0] = t[1] = t[2] = 1e9;
	for (r = 0; r < ROUNDS; r++) {
		if ((x = batch(dcpi_trio_a, 1)) < t[0])
			t[0] = x;
		if ((x = batch(dcpi_trio_b, slow)) < t[1])
			t[1] = x;
		if ((x = batch(dcpi_trio_c, 1)) < t[2])
			t[2] = x;
	}
}

int
main(int argc, char **argv)
{
	double secs, slow, start, t[3];
	unsigned long n;
	int k;

	if (argc == 3 && strcmp(argv[1], "-t") == 0) {
		timed(atof(argv[2]), t);
		printf("b_share %.3f\n", 100 * t[1] / (t[0] + t[1] + t[2]));
		return 0;
	}
	secs = argc > 1 ? atof(argv[1]) : 1;
	slow = argc > 2 ? atof(argv[2]) : 1;
	start = cpu_now();
	do {
		for (k = 0; k < 8; k++) {
			n = draw();
			dcpi_trio_a(n);
			dcpi_trio_b((unsigned long)((double)n * slow));
			dcpi_trio_c(n);
		}
	} while (cpu_now() - start < secs);
	return 0;
}
