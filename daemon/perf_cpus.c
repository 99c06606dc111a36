/*
 * The CPUs sampled: CPU lists in the kernel's form ("0-3,6", as
 * /sys/devices/system/cpu writes them), which are online, and CPU hotplug.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "log.h"
#include "loop.h"
#include "perf.h"
#include "perf_int.h"
#include "perf_sys.h"
#include "xmalloc.h"

/*
 * CPU hotplug.  An event of a CPU that goes offline is taken off it for
 * good: back online, the CPU is not sampled again by it, and enabling it
 * changes nothing; nor can an event be opened on an offline CPU (ENODEV).
 * So every HOTPLUG_MS the events' time_enabled is read: an event whose
 * time stood still since the last check has been taken off, and once its
 * CPU is online again (and its buffers read to their end) the CPU's
 * events are opened anew in its slots; a CPU that was offline at the
 * start (or added since) is opened when it comes online.  The buffers
 * reserved for every CPU of the list at perf_init, the loop's pointers
 * to them stay valid.  Samples are missed for up to HOTPLUG_MS after a
 * CPU comes back.
 */
#define HOTPLUG_MS	5000
static struct loop_timer *hotplug_timer;
static size_t		 hotplug_opened;	/* CPUs opened after perf_init */
/* Present (a CPU that may come online but is not there, a hot-add slot,
 * is not offline). */
static unsigned char	 cpu_present[MAX_CPUS];
static unsigned char	 off_said[MAX_CPUS];	/* its going offline logged */

/* A CPU list in the kernel's form ("0-3,6", as /sys/devices/system/cpu
 * writes them) into *list, *n entries (replacing what they held): 0, or
 * -1 with a message.  CPUs from MAX_CPUS on are an error, unless clamp
 * (the kernel's own lists, which a kernel built for more CPUs may give):
 * then they are left out and *clamped set. */
static int
parse_list(const char *s, int **list, size_t *n, int clamp, int *clamped,
    char *err, size_t errlen)
{
	const char *p = s;
	char *end;
	long a, b, top = clamp ? LONG_MAX : MAX_CPUS - 1;

	free(*list);
	*list = NULL;
	*n = 0;
	while (*p != '\0' && *p != '\n') {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > top)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > top)
				goto bad;
		}
		if (b >= MAX_CPUS) {
			*clamped = 1;
			b = MAX_CPUS - 1;
		}
		for (; a <= b; a++) {
			*list = xreallocarray(*list, *n + 1, sizeof(**list));
			(*list)[(*n)++] = (int)a;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p != '\0' && *p != '\n')
			goto bad;
	}
	if (*n == 0)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "bad CPU list \"%s\" at \"%s\": expected N or N-M, comma-separated", s, p);
	return -1;
}

/* The CPUs of /sys/devices/system/cpu/WHICH into *list, *n: 0, or -1
 * with a message.  Those from MAX_CPUS on are left out, said once. */
static int
sys_cpus(const char *which, int **list, size_t *n, char *err, size_t errlen)
{
	static int said;
	static char buf[65536];
	int clamped = 0;

	if (perf_sys_cpus(which, buf, sizeof(buf)) == -1) {
		snprintf(err, errlen, "/sys/devices/system/cpu/%s: %s", which, strerror(errno));
		return -1;
	}
	if (parse_list(buf, list, n, 1, &clamped, err, errlen) == -1)
		return -1;
	if (clamped && !said) {
		said = 1;
		log_warnx("/sys/devices/system/cpu/%s lists CPUs from %d on: they "
		    "are not sampled", which, MAX_CPUS);
	}
	return 0;
}

/* set[cpu] for each CPU of /sys/devices/system/cpu/WHICH now (MAX_CPUS
 * entries): 0, or -1 (all then set: a kernel without the file has no
 * hotplug). */
static int
cpu_set(const char *which, unsigned char *set)
{
	int *list = NULL;
	size_t n = 0, i;
	char err[256];

	if (sys_cpus(which, &list, &n, err, sizeof(err)) == -1) {
		memset(set, 1, MAX_CPUS);
		return -1;
	}
	memset(set, 0, MAX_CPUS);
	for (i = 0; i < n; i++)
		set[list[i]] = 1;
	free(list);
	return 0;
}

/* cpu_on and cpu_present as they are now. */
static void
online_set(void)
{
	cpu_set("online", perf.cpu_on);
	cpu_set("present", cpu_present);
}

/* r's event, taken off its CPU, opened anew in its slot: 0, or -1 (the
 * old one kept, to be tried again). */
static int
rb_reopen(struct rb *r)
{
	struct rb nr;
	size_t pages;
	struct perf_event_attr *a = perf_rb_attr(r, &pages);
	char err[512];
	int oldfd = r->fd;

	if (perf_rb_open(&nr, rb_name(r), a, r->event, r->chain, r->cpu, &pages, err,
	    sizeof(err)) == -1) {
		log_warnx("CPU %d is online again, but %s; trying again in %d s",
		    r->cpu, err, HOTPLUG_MS / 1000);
		return -1;
	}
	if (r->inloop)
		loop_del(r->fd);
	perf_sys_munmap(r->base, r->mapsize);
	close(r->fd);
	free(r->held);
	*r = nr;
	perf_rb_start(r, oldfd);
	return 0;
}

/* Buffers for cpu, online and never opened: 0, or -1 (none kept). */
static int
open_cpu(int cpu)
{
	size_t first = perf.nrbs, k, ev, pages, i;
	size_t nsb = !perf.sideband_on_first, nev = perf.nevents;
	/* The sideband, the events, then their sparse twins if any. */
	size_t nk = nsb + nev * (perf_callchain_period() > 1 ? 2 : 1);
	struct perf_event_attr *a;
	char err[512];
	int chain;

	if (perf.nrbs + nk > perf.caprbs)
		return -1;	/* (never: room for every CPU of the list) */
	for (k = 0; k < nk; k++) {
		ev = k < nsb ? SIDEBAND : (k - nsb) % nev;
		chain = k >= nsb + nev;
		perf.rbs[perf.nrbs].event = ev;
		perf.rbs[perf.nrbs].chain = chain;
		a = perf_rb_attr(&perf.rbs[perf.nrbs], &pages);
		if (perf_rb_open(&perf.rbs[perf.nrbs], ev == SIDEBAND ?
		    "sideband (dummy)" : perf.events[ev].name, a, ev, chain, cpu, &pages,
		    err, sizeof(err)) == -1) {
			log_warnx("CPU %d is online, but %s; trying again in %d s",
			    cpu, err, HOTPLUG_MS / 1000);
			perf_rbs_close(first);	/* (first > 0: a CPU was open) */
			return -1;
		}
		perf.nrbs++;
	}
	for (i = first; i < perf.nrbs; i++)
		perf_rb_start(&perf.rbs[i], -1);
	return 0;
}

/* Whether r's event has been taken off its CPU: its time_enabled stood
 * still since the last check (while sampling).  A read that fails tells
 * nothing: not taken off. */
static int
rb_stopped(struct rb *r)
{
	uint64_t v[2];

	if (perf_sys_read(r->fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	if (v[1] != r->enabled) {
		r->enabled = v[1];
		return 0;
	}
	return 1;
}

static int
rb_empty(const struct rb *r)
{
	const struct perf_event_mmap_page *pg = r->base;

	return r->nheld == r->heldoff &&
	    __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) == pg->data_tail;
}

void
perf_hotplug_check(void)
{
	/* back: a buffer of the CPU opened anew; pending: one still waits. */
	unsigned char back[MAX_CPUS], pending[MAX_CPUS], has[MAX_CPUS];
	/* Per CPU: -1 not looked at yet, else whether its events were taken
	 * off.  The kernel takes all of a CPU's events off at once, so one
	 * read of time_enabled tells for all: a read of an event active on
	 * another CPU is a cross-CPU call there (about 10 us on a VM, more
	 * than the rest of a quiet tick), so one a CPU, not one a buffer. */
	signed char off[MAX_CPUS];
	size_t i, n = perf.nrbs;
	int changed = 0;

	if (!perf.sampling)
		return;
	online_set();
	memset(back, 0, sizeof(back));
	memset(pending, 0, sizeof(pending));
	memset(has, 0, sizeof(has));
	memset(off, -1, sizeof(off));
	for (i = 0; i < n; i++) {
		struct rb *r = &perf.rbs[i];

		has[r->cpu] = 1;
		if (!r->off && off[r->cpu] < 0)
			off[r->cpu] = (signed char)rb_stopped(r);
		if (off[r->cpu] == 1)
			r->off = 1;
	}
	for (i = 0; i < n; i++) {
		struct rb *r = &perf.rbs[i];

		if (!r->off || !perf.cpu_on[r->cpu])
			continue;
		/* What it holds is read first (it gets no more). */
		if (!rb_empty(r) || rb_reopen(r) == -1) {
			pending[r->cpu] = 1;
			continue;
		}
		back[r->cpu] = 1;
		changed = 1;
	}
	for (i = 0; i < perf.ncpu; i++) {
		int c = perf.cpulist[i];

		if (!perf.cpu_on[c] && has[c] && !off_said[c]) {
			log_notice("CPU %d went offline: not sampled until it is "
			    "back online", c);
			off_said[c] = 1;
		}
		if (back[c] && !pending[c]) {
			log_notice("CPU %d is back online: sampled again", c);
			off_said[c] = 0;
			hotplug_opened++;
		} else if (!has[c] && perf.cpu_on[c] && open_cpu(c) == 0) {
			log_notice("CPU %d came online: sampled from now on", c);
			hotplug_opened++;
			changed = 1;
		}
	}
	if (changed)
		perf_ids_rebuild();
}

static void
hotplug_tick(struct loop_timer *t, void *arg)
{
	(void)arg;
	perf_hotplug_check();
	loop_timer_set(t, HOTPLUG_MS);
}

size_t
perf_ncpus(void)
{
	unsigned char seen[MAX_CPUS];
	size_t i, n = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < perf.nrbs; i++)
		if (!seen[perf.rbs[i].cpu] && perf.cpu_on[perf.rbs[i].cpu]) {
			seen[perf.rbs[i].cpu] = 1;
			n++;
		}
	return n;
}

size_t
perf_cpus_offline(void)
{
	size_t i, n = 0;

	for (i = 0; i < perf.ncpu; i++)
		n += cpu_present[perf.cpulist[i]] && !perf.cpu_on[perf.cpulist[i]];
	return n;
}

size_t perf_cpus_hotplugged(void) { return hotplug_opened; }

void
perf_cpus_status(struct status_writer *w)
{
	if (perf_cpus_offline() > 0 || perf_cpus_hotplugged() > 0)
		status_add(w, "cpus", "%zu, %zu offline, %zu opened after coming online",
		    perf_ncpus(), perf_cpus_offline(), perf_cpus_hotplugged());
	else
		status_add(w, "cpus", "%zu", perf_ncpus());
}

int
perf_cpus_init(const char *cpus, char *err, size_t errlen)
{
	size_t i;

	/* Every CPU that may come online, or those of the list; those
	 * offline now are opened when they come online (perf_hotplug_check). */
	if ((cpus ? parse_list(cpus, &perf.cpulist, &perf.ncpu, 0, NULL, err, errlen) :
	    sys_cpus("possible", &perf.cpulist, &perf.ncpu, err, errlen)) == -1)
		return -1;
	online_set();
	memset(off_said, 0, sizeof(off_said));
	hotplug_opened = 0;
	for (i = 0; i < perf.ncpu && !perf.cpu_on[perf.cpulist[i]]; i++)
		;
	if (i == perf.ncpu) {
		snprintf(err, errlen, "no CPU of %s is online", cpus ? cpus : "the machine");
		errno = ENODEV;
		return -1;
	}
	return 0;
}

void
perf_cpus_fini(void)
{
	free(perf.cpulist);
	perf.cpulist = NULL;
	perf.ncpu = 0;
}

void
perf_hotplug_start(void)
{
	hotplug_timer = loop_timer_add(HOTPLUG_MS, hotplug_tick, NULL);
	/* A look at the CPUs is due every few seconds, not at a given one:
	 * it rides the tick's wake-up. */
	loop_timer_set_slack(hotplug_timer, HOTPLUG_MS / 2);
}

void
perf_hotplug_stop(void)
{
	loop_timer_del(hotplug_timer);
	hotplug_timer = NULL;
}
