/*
 * Period jitter (perf_set_jitter): perf_event has no random period, so a
 * timer gives every sampling fd a new period L whose rate 1/L is uniform
 * in [(1 - j) / P, (1 + j) / P], j = jitter / 100 (perf_jitter_period says
 * why the rate), every JITTER_MS on average (itself drawn in
 * [JITTER_MS / 2, 3 * JITTER_MS / 2], so that the changes cannot fall in
 * step with periodic work either).  The kernel applies PERF_EVENT_IOC_PERIOD
 * at once to a running event (since Linux 3.14; 3.7 on ARM): it stops the
 * event, forgets what was left of the interval in progress and starts a
 * full new period (kernel/events/core.c, __perf_event_period), for the
 * cpu-clock hrtimer and for a PMU counter alike.  The interval in progress
 * is lost, half a period on average: the rarer the changes, the smaller
 * that undercount (P / 2 per change: 0.05% at 1 ms and one a second), and
 * the cheaper (an ioctl is an IPI to the event's CPU, about 20 us on this
 * VM); the more frequent, the sooner a short run's count and split settle
 * (bench/README, "Period jitter", has the figures behind one a second).
 */
#include "config.h"

#include <sys/random.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "perf.h"
#include "perf_int.h"
#include "perf_sys.h"

#define JITTER_MS	1000
#define JITTER_MAX	50	/* percent; conf.c's period-jitter allows no more */
/* The sparse twins' (callchain-period) at least: a chain period of 10 ms
 * fell in step with a Go loop of four 1 ms calls, whose chains came from
 * two of the four calls only (main.b 55% where it is 75%).  Their counts
 * are estimates, scaled to the flat profiles, which keep period-jitter's
 * setting (none by default). */
#define CHAIN_JITTER	20
static unsigned		 jitter;	/* percent; 0: fixed periods */
static struct loop_timer *jitter_timer;
static uint64_t		 jitter_state;	/* splitmix64 */
static uint64_t		 jitter_changes;	/* periods set since perf_init */

void
perf_set_jitter(unsigned percent)
{
	jitter = percent > JITTER_MAX ? JITTER_MAX : percent;
}

unsigned perf_jitter(void) { return jitter; }

/* r's jitter: period-jitter's, or CHAIN_JITTER for a sparse twin. */
static unsigned
rb_jitter(const struct rb *r)
{
	return r->chain && jitter < CHAIN_JITTER ? CHAIN_JITTER : jitter;
}

unsigned
perf_jitter_chains(void)
{
	return perf_callchain_period() <= 1 ? jitter : jitter < CHAIN_JITTER ?
	    CHAIN_JITTER : jitter;
}

int
perf_jitter_any(void)
{
	return jitter > 0 || perf_callchain_period() > 1;
}
uint64_t perf_jitter_changes(void) { return jitter_changes; }

size_t
perf_jitter_refused(void)
{
	size_t i, n = 0;

	for (i = 0; i < perf.nrbs; i++)
		n += perf.rbs[i].fixed;
	return n;
}

/* splitmix64: cheap, and uniform enough for choosing periods; seeded from
 * getrandom so that two daemons (or two CPUs' fds) never draw alike. */
static uint64_t
jitter_random(void)
{
	uint64_t z;

	if (jitter_state == 0 && getrandom(&jitter_state, sizeof(jitter_state),
	    GRND_NONBLOCK) != (ssize_t)sizeof(jitter_state))
		jitter_state = perf_now() ^ (uint64_t)getpid() << 32;
	z = (jitter_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Rates in millionths: k in [-span, span], all 2 span + 1 equally likely
 * (the modulo's bias is at most (2 span + 1) / 2^64). */
#define JITTER_SCALE	1000000

static int64_t
jitter_draw(unsigned percent)
{
	uint64_t span = JITTER_SCALE * (uint64_t)percent / 100;

	return (int64_t)(jitter_random() % (2 * span + 1)) - (int64_t)span;
}

/* The period of rate (1 + k / JITTER_SCALE) / period, rounded, at least 1
 * and without bit 63 (which the kernel refuses). */
static uint64_t
jitter_apply(uint64_t period, int64_t k)
{
	uint64_t den = (uint64_t)(JITTER_SCALE + k), v;

	v = (uint64_t)(((unsigned __int128)period * JITTER_SCALE + den / 2) / den);
	return v == 0 ? 1 : v > INT64_MAX ? INT64_MAX : v;
}

/*
 * The rate 1/L, not L, is uniform around 1/P: a period holds for a stretch
 * of time (until the next change), in which the samples number time / L,
 * so the rate's mean must be 1/P for samples * P to estimate the events.
 * A uniform L of mean P would not do: E[1/L] is above 1/P by about j^2 / 3
 * (0.3% at 10%, 10% at 50%, bench/README).
 */
uint64_t
perf_jitter_period(uint64_t period, unsigned percent)
{
	if (percent == 0 || percent > 99)
		return period;
	return jitter_apply(period, jitter_draw(percent));
}

/* Sets r's period to v; a refusal (a PMU's limit on small periods, a
 * kernel without the ioctl) leaves r at the configured period for good,
 * logged once per event. */
static void
set_period(struct rb *r, uint64_t v)
{
	struct event *e = &perf.events[r->event];
	uint64_t p = rb_period(r);
	int err;

	if (perf_sys_ioctl(r->fd, PERF_EVENT_IOC_PERIOD, &v) == 0) {
		jitter_changes++;
		return;
	}
	err = errno;
	r->fixed = 1;
	/* An earlier change may have been taken: back to the configured
	 * period, which the profile's counts are multiplied by. */
	if (perf_sys_ioctl(r->fd, PERF_EVENT_IOC_PERIOD, &p) == -1)
		log_warn("CPU %d: event %s: PERF_EVENT_IOC_PERIOD %ju refused, and "
		    "so was the configured period %ju: this CPU's counts may be "
		    "off by the last period set", r->cpu, e->name, (uintmax_t)v,
		    (uintmax_t)p);
	if (!e->refused) {
		e->refused = 1;
		log_warnx("CPU %d: event %s: PERF_EVENT_IOC_PERIOD %ju: %s; no period "
		    "jitter for it, sampling at the fixed period %ju", r->cpu,
		    e->name, (uintmax_t)v, strerror(err), (uintmax_t)p);
	}
}

void
perf_jitter_now(void)
{
	size_t i;

	for (i = 0; i < perf.nrbs; i++) {
		struct rb *r = &perf.rbs[i];

		if (r->event == SIDEBAND || r->fixed || rb_jitter(r) == 0)
			continue;
		/* Antithetic pairs: a rate 1 + k, then 1 - k for about as
		 * long, so that a count's error from the draws mostly cancels
		 * every two changes (its variance over a pair falls from
		 * 13/6 k^2 R^2 to 1/6, R's spread alone), and one draw too
		 * fast or too slow does not weigh on a short run. */
		r->k = r->paired ? -r->k : jitter_draw(rb_jitter(r));
		r->paired = !r->paired;
		set_period(r, jitter_apply(rb_period(r), r->k));
	}
}

static void
jitter_tick(struct loop_timer *t, void *arg)
{
	(void)arg;
	perf_jitter_now();
	loop_timer_set(t, JITTER_MS / 2 + jitter_random() % (JITTER_MS + 1));
}

/* A buffer opened while sampling (perf_rb_start): its first period drawn. */
void
perf_jitter_first(struct rb *r)
{
	if (r->event == SIDEBAND || rb_jitter(r) == 0)
		return;
	r->k = jitter_draw(rb_jitter(r));
	r->paired = 1;
	set_period(r, jitter_apply(rb_period(r), r->k));
}

void
perf_jitter_init(void)
{
	jitter_changes = 0;
}

void
perf_jitter_start(void)
{
	if (perf_jitter_any())
		jitter_timer = loop_timer_add(JITTER_MS, jitter_tick, NULL);
}

void
perf_jitter_stop(void)
{
	loop_timer_del(jitter_timer);
	jitter_timer = NULL;
}
