/*
 * What the sampling files share (perf_int.h's struct perf_state) and the
 * clock the records are stamped with: below them all, so that none of
 * perf.c, perf_cpus.c, perf_open.c, perf_ring.c and perf_jitter.c calls
 * back into a file that calls it.
 */
#include "config.h"

#include <time.h>

#include "perf.h"
#include "perf_int.h"

struct perf_state	 perf;

uint64_t
perf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
