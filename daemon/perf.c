/*
 * Sampling as a whole (perf.h): perf_init opens the events on the CPUs
 * and puts their buffers in the loop, perf_enable and perf_disable start
 * and stop them, perf_fini closes them.  Its jobs are apart, in
 * perf_cpus.c, perf_open.c, perf_ring.c and perf_jitter.c, each calling
 * only those after it in that list; what they share is in perf_int.h, its
 * state in perf_state.c.
 */
#include "config.h"

#include <sys/epoll.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "log.h"
#include "loop.h"
#include "perf.h"
#include "perf_int.h"
#include "perf_sys.h"
#include "xmalloc.h"


int
perf_init(char *const *evnames, size_t nev, const char *cpus,
    char *err, size_t errlen)
{
	size_t i;
	int e;

	perf_jitter_init();
	perf_ring_init();
	if (perf_open_init(err, errlen) == -1)
		return -1;
	if (perf_cpus_init(cpus, err, errlen) == -1)
		return -1;
	perf.sideband_on_first = 0;
	perf_open_sideband();
	if (nev == 0) {
		char why[512];
		size_t first = perf.nrbs;

		if (perf_open_event("cycles", 0, why, sizeof(why)) == -1) {
			perf_rbs_close(first);
			perf_events_free();
			why[strcspn(why, ";")] = '\0';
			log_notice("%s; falling back to perf::cpu-clock", why);
			if (perf_open_event("perf::cpu-clock", 0, err, errlen) == -1)
				goto fail;
		}
	}
	for (i = 0; i < nev; i++)
		if (perf_open_event(evnames[i], i, err, errlen) == -1)
			goto fail;
	/* Room for every CPU of the list, now: the loop keeps pointers. */
	perf.caprbs = (perf.nevents * (perf_callchain_period() > 1 ? 2 : 1) +
	    !perf.sideband_on_first) * perf.ncpu;
	perf.rbs = xreallocarray(perf.rbs, perf.caprbs, sizeof(*perf.rbs));
	perf_ids_rebuild();
	for (i = 0; i < perf.nrbs; i++) {
		loop_add(perf.rbs[i].fd, EPOLLIN, perf_rb_ready, &perf.rbs[i]);
		perf.rbs[i].inloop = 1;
	}
	perf_jitter_start();
	perf_hotplug_start();
	return 0;
fail:
	e = errno;
	perf_rbs_close(0);
	perf_events_free();
	errno = e;
	return -1;
}

void
perf_enable(void)
{
	size_t i;

	/* The first periods drawn before the events count: nothing lost. */
	if (perf_jitter_any())
		perf_jitter_now();
	perf.sampling = 1;
	for (i = 0; i < perf.nrbs; i++)
		if (perf_sys_ioctl(perf.rbs[i].fd, PERF_EVENT_IOC_ENABLE, NULL) == -1)
			fatal("CPU %d: enabling event %s", perf.rbs[i].cpu, rb_name(&perf.rbs[i]));
}

void
perf_disable(void)
{
	size_t i;

	perf.sampling = 0;
	for (i = 0; i < perf.nrbs; i++)
		perf_sys_ioctl(perf.rbs[i].fd, PERF_EVENT_IOC_DISABLE, NULL);
}

void
perf_fini(void)
{
	perf_disable();
	perf_jitter_stop();
	perf_hotplug_stop();
	perf_rbs_close(0);
	perf_events_free();
	perf_cpus_fini();
}

void
perf_set_consumer(perf_record_cb record, void (*ready)(void))
{
	perf.record_cb = record;
	perf.ready_cb = ready;
}

size_t perf_nevents(void) { return perf.nevents; }
const char *perf_event_name(size_t i) { return perf.events[i].name; }
uint64_t perf_event_period(size_t i) { return perf.events[i].period; }
uint64_t perf_event_chain_period(size_t i) { return perf.events[i].chain_period; }

size_t perf_nfds(void) { return perf.nrbs; }

void
perf_events_status(struct status_writer *w)
{
	size_t i;

	for (i = 0; i < perf_nevents(); i++)
		status_add(w, "event", "%s period %ju%s", perf_event_name(i),
		    (uintmax_t)perf_event_period(i), perf_jitter() ? " (mean)" : "");
	if (perf_jitter() > 0)
		status_add(w, "period-jitter", "%u%%, %ju periods set, %zu fds at "
		    "the fixed period", perf_jitter(), (uintmax_t)perf_jitter_changes(),
		    perf_jitter_refused());
	else if (perf_jitter_chains() > 0)
		status_add(w, "period-jitter", "none for the flat profiles; the call "
		    "chains' %u%%, %ju periods set", perf_jitter_chains(),
		    (uintmax_t)perf_jitter_changes());
	else
		status_add(w, "period-jitter", "none");
}

int
perf_fd(size_t i, int *event)
{
	*event = perf.rbs[i].event == SIDEBAND ? -1 : perf.rbs[i].chain ?
	    (int)(perf.rbs[i].event | PERF_EVENT_CHAIN) : (int)perf.rbs[i].event;
	return perf.rbs[i].fd;
}
