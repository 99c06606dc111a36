/*
 * A workload in lock-step with a sampling period: for the middle half of
 * every PERIOD_NS of CLOCK_MONOTONIC it runs dcpi_lockstep_f(), for the
 * quarters before and after it dcpi_lockstep_g().  cpu-clock's hrtimer fires on the same
 * clock at a fixed grid (the expiry is moved forward by whole periods), so
 * a fixed period of PERIOD_NS samples one phase only: nearly every sample
 * falls in f or nearly every one in g.  Randomized periods see both halves
 * alike: 50:50.
 * Usage: lockstep SECONDS [PERIOD_NS]   (default 1000000)
 * -DWORKLOAD_TAG='"name"' gives the binary its own build-id.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifdef WORKLOAD_TAG
const char dcpi_workload_tag[] = WORKLOAD_TAG;
#endif

static volatile unsigned long sink_f, sink_g;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each spins until the end of its half.  The samples taken in now_ns and
 * the vdso count for neither, so each half must give the clock's reads
 * the same, small share of its time: the same code at the same alignment
 * (g's loop across a cache line ran slower than f's, read the clock less
 * often and kept more of its half's samples: 44:56 seen), and a read every
 * 2,000 iterations, a few microseconds, rather than every few hundred
 * nanoseconds.  They touch different variables so that no compiler folds
 * the two into one. */
#define SPIN	2000
void dcpi_lockstep_f(uint64_t until) __attribute__((noinline, aligned(64)));
void dcpi_lockstep_g(uint64_t until) __attribute__((noinline, aligned(64)));

void
dcpi_lockstep_f(uint64_t until)
{
	int i;

	do {
		for (i = 0; i < SPIN; i++)
			sink_f += (unsigned long)i;
	} while (now_ns() < until);
}

void
dcpi_lockstep_g(uint64_t until)
{
	int i;

	do {
		for (i = 0; i < SPIN; i++)
			sink_g += (unsigned long)i;
	} while (now_ns() < until);
}

int
main(int argc, char **argv)
{
	uint64_t period = 1000000, start, end, t, base;

	if (argc < 2)
		return 2;
	if (argc > 2)
		period = strtoull(argv[2], NULL, 10);
	if (period < 2)
		return 2;
	start = now_ns();
	end = start + (uint64_t)(atof(argv[1]) * 1e9);
	/* f's half is the middle of each period, g's the two quarters at its
	 * ends.  The kernel's tick falls at phase 0 (jiffies are aligned on
	 * CLOCK_MONOTONIC), and on a loaded CPU this process is preempted
	 * there and resumes at any phase: the time taken, from phase 0 on,
	 * is then shared equally by the halves, where with f first it would
	 * come mostly out of f (44:56 seen). */
	while ((t = now_ns()) < end) {
		base = t - t % period;
		if (t - base < period / 4)
			dcpi_lockstep_g(base + period / 4);
		else if (t - base < period / 4 * 3)
			dcpi_lockstep_f(base + period / 4 * 3);
		else
			dcpi_lockstep_g(base + period + period / 4);
	}
	return 0;
}
