/*
 * What the profile lacks (daemon/loss.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attr.h"
#include "control.h"
#include "loss.h"
#include "perf.h"
#include "record.h"
#include "xmalloc.h"

static uint64_t	 nlost, nthrottled, nunthrottled, nunknown_id;
static uint64_t	 nlost_sideband;	/* records of the sideband buffers */
static uint64_t	 nlost_chains;	/* samples of the sparse twins (callchain-period) */
static uint64_t	 nunattr[ATTR_NREASONS];
/* Unattributed samples since the last flush that stored them, by event:
 * pend[ev * ATTR_NREASONS + reason]. */
static uint64_t	*pend;
static size_t	 npend;		/* events with room in pend */
/*
 * Losses and throttling by CPU, from the sample_id trailer of the LOST,
 * LOST_SAMPLES and THROTTLE records (the CPU whose buffer overflowed or
 * whose event was throttled), so that a loss can be placed: which CPU,
 * and when last (perf clock, ns; 0: never).  Indexed by CPU number; CPU
 * numbers past LOSS_MAX_CPU (a corrupt trailer) count only in the totals.
 */
#define LOSS_MAX_CPU	8192
struct cpu_loss {
	uint64_t	lost, throttled;
};
static struct cpu_loss	*cpuloss;
static size_t		 ncpuloss;
static uint64_t		 last_lost_time, last_throttle_time;
static uint32_t		 last_lost_cpu, last_throttle_cpu;

void
loss_fini(void)
{
	free(pend);
	pend = NULL;
	npend = 0;
	free(cpuloss);
	cpuloss = NULL;
	ncpuloss = 0;
	nlost = nlost_sideband = nlost_chains = nthrottled = 0;
	last_lost_time = last_throttle_time = 0;
}

static struct cpu_loss *
cpu_loss_of(const union record *rec, size_t size, uint64_t *time, uint32_t *cpu,
    uint64_t *id)
{
	struct record_sample sid;

	if (record_parse_sample(&record_daemon, rec, size, &sid) == -1)
		return NULL;
	*time = sid.time;
	*cpu = sid.cpu;
	if (id != NULL)
		*id = sid.id;
	if (sid.cpu >= LOSS_MAX_CPU)
		return NULL;
	if (sid.cpu >= ncpuloss) {
		cpuloss = xreallocarray(cpuloss, (size_t)sid.cpu + 1, sizeof(*cpuloss));
		memset(cpuloss + ncpuloss, 0,
		    ((size_t)sid.cpu + 1 - ncpuloss) * sizeof(*cpuloss));
		ncpuloss = (size_t)sid.cpu + 1;
	}
	return &cpuloss[sid.cpu];
}

/*
 * A LOST record counts the records the kernel could not write: in a
 * sampling buffer samples (and, without a sideband, MMAP2 and the like),
 * in the sideband's MMAP2, COMM, FORK, EXIT and CGROUP records, whose loss
 * costs attribution rather than counts: status says which.
 */
void
loss_lost(const union record *rec, size_t size, uint64_t n)
{
	struct cpu_loss *l;
	uint64_t t = 0, id = 0;
	uint32_t cpu = 0;
	int ev;

	l = cpu_loss_of(rec, size, &t, &cpu, &id);
	if (l != NULL && perf_id_is_sideband(id)) {
		nlost_sideband += n;
		return;
	}
	/* A sparse twin's: chains the stacks lack, not flat counts. */
	if (l != NULL && (ev = perf_event_of_id(id)) != -1 && (ev & PERF_EVENT_CHAIN)) {
		nlost_chains += n;
		return;
	}
	nlost += n;
	if (l == NULL || n == 0)
		return;
	l->lost += n;
	if (t >= last_lost_time) {
		last_lost_time = t;
		last_lost_cpu = cpu;
	}
}

void
loss_throttle(const union record *rec, size_t size)
{
	struct cpu_loss *l;
	uint64_t t = 0;
	uint32_t cpu = 0;

	nthrottled++;
	if ((l = cpu_loss_of(rec, size, &t, &cpu, NULL)) == NULL)
		return;
	l->throttled++;
	if (t >= last_throttle_time) {
		last_throttle_time = t;
		last_throttle_cpu = cpu;
	}
}

void
loss_unthrottle(void)
{
	nunthrottled++;
}

void
loss_unknown_event(uint64_t n)
{
	nunknown_id += n;
}

void
loss_unattr(uint32_t ev, enum attr_reason r)
{
	if (ev >= npend) {
		pend = xreallocarray(pend, ((size_t)ev + 1) * ATTR_NREASONS, sizeof(*pend));
		memset(pend + npend * ATTR_NREASONS, 0,
		    ((size_t)ev + 1 - npend) * ATTR_NREASONS * sizeof(*pend));
		npend = (size_t)ev + 1;
	}
	pend[(size_t)ev * ATTR_NREASONS + r]++;
	nunattr[r]++;
}

/* A perf clock time (CLOCK_MONOTONIC, ns) as UTC, by its distance from
 * now: the monotonic clock has no epoch of its own. */

uint64_t
loss_unattr_pending(size_t ev, enum attr_reason r)
{
	return ev < npend ? pend[ev * ATTR_NREASONS + r] : 0;
}

void
loss_unattr_written(void)
{
	memset(pend, 0, npend * ATTR_NREASONS * sizeof(*pend));
}

/* A perf clock time (CLOCK_MONOTONIC, ns) as UTC, by its distance from
 * now: the monotonic clock has no epoch of its own. */
static void
perf_time_utc(uint64_t t, char *buf, size_t len)
{
	uint64_t now = perf_now();
	struct timespec ts;
	struct tm tm;
	time_t wall;

	clock_gettime(CLOCK_REALTIME, &ts);
	wall = ts.tv_sec - (time_t)((now > t ? now - t : 0) / 1000000000ull);
	if (gmtime_r(&wall, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "?");
}

void
loss_status(struct status_writer *w)
{
	struct perf_sideband_watch sw;
	char tbuf[64];
	size_t i;

	status_add(w, "lost", "%ju", (uintmax_t)nlost);
	status_add(w, "lost-chains", "%ju", (uintmax_t)nlost_chains);
	status_add(w, "lost-sideband", "%ju", (uintmax_t)nlost_sideband);
	perf_sideband_watch(&sw);
	if (sw.size > 0)
		status_add(w, "sideband-watch", "%ju%% of %zu KiB at most, "
		    "records read after %ju ms at most, %ju overflows",
		    (uintmax_t)(sw.used_max * 100 / sw.size), sw.size / 1024,
		    (uintmax_t)sw.wait_max_ms, (uintmax_t)sw.overflows);
	status_add(w, "throttled", "%ju", (uintmax_t)nthrottled);
	/* Only the CPUs that lost or were throttled: a line for each of
	 * hundreds of CPUs would bury the rest of status. */
	if (last_lost_time != 0) {
		perf_time_utc(last_lost_time, tbuf, sizeof(tbuf));
		status_add(w, "lost-last", "%s cpu %u", tbuf, (unsigned)last_lost_cpu);
	} else {
		status_add(w, "lost-last", "never");
	}
	for (i = 0; i < ncpuloss; i++)
		if (cpuloss[i].lost > 0)
			status_add(w, "lost-cpu", "%zu %ju", i, (uintmax_t)cpuloss[i].lost);
	if (last_throttle_time != 0) {
		perf_time_utc(last_throttle_time, tbuf, sizeof(tbuf));
		status_add(w, "throttled-last", "%s cpu %u", tbuf,
		    (unsigned)last_throttle_cpu);
	} else {
		status_add(w, "throttled-last", "never");
	}
	for (i = 0; i < ncpuloss; i++)
		if (cpuloss[i].throttled > 0)
			status_add(w, "throttled-cpu", "%zu %ju", i,
			    (uintmax_t)cpuloss[i].throttled);
}

void
loss_unattr_status(struct status_writer *w)
{
	size_t i;

	for (i = 1; i < ATTR_NREASONS; i++)
		status_add(w, "unattributed", "%s %ju", attr_reason_name((enum attr_reason)i),
		    (uintmax_t)nunattr[i]);
	if (nunknown_id)
		status_add(w, "unknown-event", "%ju", (uintmax_t)nunknown_id);
}
