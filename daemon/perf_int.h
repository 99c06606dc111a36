/*
 * What the files of sampling share (perf.h is the rest of dcpid's view of
 * them): the events, a ring buffer per event and CPU, the CPUs.  perf.c
 * holds them (perf_init, perf_fini) and ties the jobs together, each in a
 * file of its own as tools/lib/perf keeps cpumap, evsel and mmap apart:
 * CPU lists and hotplug (perf_cpus.c), libpfm4's encodings, opening and
 * the id -> event map (perf_open.c), the buffers' reading (perf_ring.c),
 * the period jitter (perf_jitter.c); their system calls in perf_sys.c.
 */
#ifndef DCPID_PERF_INT_H
#define DCPID_PERF_INT_H

#include <linux/perf_event.h>

#include <stddef.h>
#include <stdint.h>

#include "perf.h"

#define SIDEBAND	((size_t)-1)	/* rb.event of the sideband buffers */
#define MAX_CPUS	8192	/* Debian's CONFIG_NR_CPUS on amd64 */

struct rb {
	int		 fd;
	int		 cpu;
	size_t		 event;
	int		 chain;		/* the event's sparse twin: its call chains */
	void		*base;		/* control page, then the data */
	size_t		 mapsize;
	size_t		 datasize;	/* power of two */
	int		 inloop;
	int		 inplace;	/* read by perf_read_until, not drained */
	int		 fixed;		/* PERF_EVENT_IOC_PERIOD refused: no jitter */
	int64_t		 k;		/* the rate's last offset (perf_jitter_now) */
	int		 paired;	/* k was drawn, its negation is next */
	unsigned char	*held;		/* perf_hold's copy, read before the buffer */
	size_t		 nheld, heldoff, heldcap;	/* bytes; read up to heldoff */
	uint64_t	 id;		/* PERF_EVENT_IOC_ID */
	uint64_t	 enabled;	/* time_enabled at the last hotplug check */
	int		 off;		/* taken off its CPU: to open anew */
};

struct event {
	char		*name;
	uint64_t	 period;
	int		 refused;	/* an fd refused PERF_EVENT_IOC_PERIOD (logged) */
	struct perf_event_attr attr;	/* as the kernel took it, for a CPU opened later */
	size_t		 pages;		/* data pages of its buffers */
	/* Its call chains' period: period, or with callchain-period its
	 * sparse twin's (perf_set_callchain_period), with that twin's
	 * attributes and pages as above. */
	uint64_t	 chain_period;
	struct perf_event_attr chain_attr;
	size_t		 chain_pages;
};

/* Sampling's state, one for dcpid (defined in perf.c). */
struct perf_state {
	struct event	*events;
	size_t		 nevents;
	struct rb	*rbs;		/* never moved once the loop has them */
	size_t		 nrbs, caprbs;
	int		*cpulist;	/* the CPUs to sample, online or not */
	size_t		 ncpu;
	unsigned char	 cpu_on[MAX_CPUS];	/* online at the last look */
	int		 sampling;	/* between perf_enable and perf_disable */
	int		 sideband_on_first;	/* no dummy event: event 0 carries it */
	size_t		 held_total;	/* bytes held by perf_hold, all buffers */
	perf_record_cb	 record_cb;
	void		(*ready_cb)(void);	/* perf_set_consumer */
};
extern struct perf_state perf;

/* r's event, for the log. */
static inline const char *
rb_name(const struct rb *r)
{
	return r->event == SIDEBAND ? "sideband (dummy)" : perf.events[r->event].name;
}

/* The period r's event samples at: its own, or its twin's. */
static inline uint64_t
rb_period(const struct rb *r)
{
	return r->chain ? perf.events[r->event].chain_period : perf.events[r->event].period;
}

/* perf_cpus.c */

/* perf.cpulist from the list cpus (NULL: every CPU that may come online),
 * and perf.cpu_on: 0, or -1 with a message when none of them is online.
 * perf_cpus_fini frees the list. */
int perf_cpus_init(const char *cpus, char *err, size_t errlen);
void perf_cpus_fini(void);
/* The timer of perf_hotplug_check, from perf_init to perf_fini. */
void perf_hotplug_start(void);
void perf_hotplug_stop(void);

/* perf_open.c */

/* A buffer opened after perf_init (in the slot of oldfd, or -1) into the
 * loop, its period drawn and its event enabled if sampling is on, and a
 * sampling event's fd told to perf_set_fd_cb's callback. */
void perf_rb_start(struct rb *r, int oldfd);

/* libpfm4 readied for perf_init: 0, or -1 with a message. */
int perf_open_init(char *err, size_t errlen);
/* The sideband's dummy event on the CPUs online: 0, or -1 (said in the
 * log, perf.sideband_on_first set: the first event will carry it). */
int perf_open_sideband(void);
/* Event ev (its libpfm4 name) encoded and its buffers opened on the CPUs
 * online: 0, or -1 with a message. */
int perf_open_event(const char *name, size_t ev, char *err, size_t errlen);
/* One buffer: event ev (SIDEBAND: the dummy; chain: its sparse twin) as
 * a on cpu, with *pages data pages, halved (said once) while the
 * locked-memory limit refuses them: 0, or -1 with a message.  r is not in
 * the loop yet. */
int perf_rb_open(struct rb *r, const char *name, struct perf_event_attr *a,
    size_t ev, int chain, int cpu, size_t *pages, char *err, size_t errlen);
/* r's event as the kernel took it, and its data pages in *pages: what a
 * CPU opened later gets. */
struct perf_event_attr *perf_rb_attr(const struct rb *r, size_t *pages);
/* Closes the buffers from index first on (all, and the id map, when 0). */
void perf_rbs_close(size_t first);
void perf_events_free(void);
/* The id map again, after the buffers changed (perf_event_of_id). */
void perf_ids_rebuild(void);

/* perf_ring.c */

/* The sideband's watch back to nothing (perf_init). */
void perf_ring_init(void);
/* The loop's callback for a buffer's fd; arg: its struct rb. */
void perf_rb_ready(int fd, uint32_t ev, void *arg);

/* perf_jitter.c */

/* No period set yet (perf_init); the timer, with jitter, from
 * perf_jitter_start to perf_jitter_stop; a buffer opened while sampling
 * gets its first period from perf_jitter_first. */
void perf_jitter_init(void);
void perf_jitter_start(void);
void perf_jitter_stop(void);
void perf_jitter_first(struct rb *r);

#endif
