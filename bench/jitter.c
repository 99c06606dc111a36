/*
 * period-jitter's cost and effect (bench/README, "Period jitter"), as root:
 * a system-wide perf::cpu-clock event on one CPU at period P, sampling
 * TIME (CLOCK_MONOTONIC, the clock the hrtimer runs on), read here while
 * PERF_EVENT_IOC_PERIOD sets a period uniform in [P - d, P + d] every R ms
 * (R uniform in [R/2, 3R/2], as dcpid does) from the bench's own CPU.
 * For each R it prints:
 *   - the samples against the T / P a fixed period gives: the interval in
 *     progress at each ioctl is lost (the kernel restarts a full period),
 *     P / 2 on average, so the predicted shortfall is P / (2 R);
 *   - the share of samples in the first half of each P of CLOCK_MONOTONIC,
 *     the split a workload in lock-step with P would see (50% is right;
 *     a fixed period gives 0 or 100);
 *   - the ioctl's cost in ns (median), to a remote CPU (an IPI) and to the
 *     bench's own.
 * Usage: jitter [-c CPU] [-p PERIOD_NS] [-j PCT] [-t SECONDS] [-r R_MS] [-u] [-i]
 * (-r: that R only, 0 for a fixed period; else 0, 1000, 100, 10 and 1;
 * -u: periods uniform around P rather than rates uniform around 1 / P;
 * -i: independent draws rather than dcpid's antithetic pairs).
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGES	256

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 62 random bits (random() gives 31). */
static uint64_t
rnd(void)
{
	return (uint64_t)random() << 31 | (uint64_t)random();
}

struct ev {
	int	 fd;
	void	*base;
	size_t	 len;
};

static int
open_clock(int cpu, uint64_t period, struct ev *e)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_TIME;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.disabled = 1;
	a.wakeup_events = 1000;
	e->fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (e->fd == -1) {
		fprintf(stderr, "jitter: perf_event_open on CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	e->len = (size_t)(PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	e->base = mmap(NULL, e->len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->base == MAP_FAILED) {
		fprintf(stderr, "jitter: mmap: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads the samples' times: counts them and those in the first half of
 * their period of CLOCK_MONOTONIC. */
static void
drain(struct ev *e, uint64_t period, uint64_t *n, uint64_t *first, uint64_t *lost)
{
	struct perf_event_mmap_page *pg = e->base;
	unsigned char *data = (unsigned char *)e->base + sysconf(_SC_PAGESIZE);
	uint64_t size = (uint64_t)PAGES * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t v[2];
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		for (i = 0; i < sizeof(v) && i + sizeof(h) < h.size; i++)
			((unsigned char *)v)[i] = data[(tail + sizeof(h) + i) % size];
		if (h.type == PERF_RECORD_SAMPLE) {
			(*n)++;
			*first += v[0] % period < period / 2;
		} else if (h.type == PERF_RECORD_LOST)
			*lost += v[1];
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* A period around P: uniform in [P - d, P + d] (rate_mode 0), or of a
 * rate uniform in [(1 - j) / P, (1 + j) / P] (rate_mode 1, dcpid's). */
static int rate_mode = 1;
/* Antithetic pairs (dcpid's): every other draw is the mirror of the one
 * before (rate 1 - k after 1 + k); -i: every draw independent. */
static int antithetic = 1;

static uint64_t
draw(uint64_t period, unsigned pct)
{
	static int64_t k;
	static int paired;
	uint64_t d = period * pct / 100;

	if (!rate_mode)
		return period - d + rnd() % (2 * d + 1);
	if (antithetic && paired)
		k = -k;
	else
		k = (int64_t)(rnd() % (2000000ull * pct / 100 + 1)) -
		    (int64_t)(1000000ull * pct / 100);
	paired = !paired;
	return (uint64_t)((unsigned __int128)period * 1000000u / (uint64_t)(1000000 + k));
}

/* One run of secs with changes every r_ms on average (0: none). */
static int
run(int cpu, uint64_t period, unsigned pct, unsigned r_ms, double secs)
{
	struct ev e;
	uint64_t n = 0, first = 0, lost = 0, t0, t1, next, end;
	uint64_t changes = 0, *cost = NULL, v;
	size_t ncost = 0, cap = 0;

	if (open_clock(cpu, period, &e) == -1)
		return -1;
	/* As dcpid: the first period drawn before the event counts. */
	if (r_ms) {
		v = draw(period, pct);
		ioctl(e.fd, PERF_EVENT_IOC_PERIOD, &v);
	}
	ioctl(e.fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	next = r_ms ? t0 + (r_ms / 2 + rnd() % (r_ms + 1)) * 1000000ull : UINT64_MAX;
	while ((t1 = now_ns()) < end) {
		if (t1 >= next) {
			uint64_t a, b;

			v = draw(period, pct);
			a = now_ns();
			if (ioctl(e.fd, PERF_EVENT_IOC_PERIOD, &v) == -1) {
				fprintf(stderr, "jitter: PERF_EVENT_IOC_PERIOD: %s\n", strerror(errno));
				return -1;
			}
			b = now_ns();
			if (ncost == cap) {
				cap = cap ? 2 * cap : 1024;
				cost = realloc(cost, cap * sizeof(*cost));
			}
			cost[ncost++] = b - a;
			changes++;
			next = t1 + (r_ms / 2 + rnd() % (r_ms + 1)) * 1000000ull;
		}
		drain(&e, period, &n, &first, &lost);
		usleep(1000);
	}
	ioctl(e.fd, PERF_EVENT_IOC_DISABLE, 0);
	t1 = now_ns();
	drain(&e, period, &n, &first, &lost);
	if (ncost)
		qsort(cost, ncost, sizeof(*cost), cmp_u64);
	{
		double expect = (double)(t1 - t0) / (double)period;

		printf("R %5u ms: %6ju samples of %8.0f expected (%+.3f%%, predicted %+.3f%%), "
		    "first half %5.1f%%, %4ju changes, ioctl median %ju ns, lost %ju\n",
		    r_ms, (uintmax_t)n, expect, 100.0 * ((double)n - expect) / expect,
		    r_ms ? -100.0 * (double)period / (2e6 * r_ms) : 0.0,
		    n ? 100.0 * (double)first / (double)n : 0.0, (uintmax_t)changes,
		    (uintmax_t)(ncost ? cost[ncost / 2] : 0), (uintmax_t)lost);
	}
	free(cost);
	munmap(e.base, e.len);
	close(e.fd);
	return 0;
}

int
main(int argc, char **argv)
{
	static const unsigned rates[] = { 0, 1000, 100, 10, 1 };
	uint64_t period = 1000000;
	unsigned pct = 10, i;
	double secs = 10;
	int cpu = -1, ch, self, only = -1;

	while ((ch = getopt(argc, argv, "c:p:j:t:r:ui")) != -1) {
		switch (ch) {
		case 'c': cpu = atoi(optarg); break;
		case 'p': period = strtoull(optarg, NULL, 10); break;
		case 'j': pct = (unsigned)atoi(optarg); break;
		case 't': secs = atof(optarg); break;
		case 'r': only = atoi(optarg); break;
		case 'u': rate_mode = 0; break;
		case 'i': antithetic = 0; break;
		default:
			fprintf(stderr, "usage: jitter [-c CPU] [-p PERIOD_NS] [-j PCT] [-t SECONDS] [-r R_MS] [-u] [-i]\n");
			return 2;
		}
	}
	srandom((unsigned)now_ns());
	self = sched_getcpu();
	if (cpu < 0)
		cpu = self == 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	printf("cpu-clock on CPU %d (the bench on CPU %d), period %ju ns, jitter %u%% "
	    "(%s uniform%s), %.0f s per run\n", cpu, self, (uintmax_t)period, pct,
	    rate_mode ? "rates" : "periods", rate_mode && antithetic ? ", antithetic" : "",
	    secs);
	if (only >= 0)
		return run(cpu, period, pct, (unsigned)only, secs) == -1;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (run(cpu, period, pct, rates[i], secs) == -1)
			return 1;
	return 0;
}
