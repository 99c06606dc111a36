/*
 * Sampling: libpfm4 event strings encoded for perf_event_open, one fd per
 * online CPU and event (pid -1) with its mmap'd ring buffer, opened again
 * as CPUs come online (perf_hotplug_check).  The sideband records
 * (MMAP2 with build-ids, COMM, FORK, EXIT) that the attribution needs
 * come from a dummy event per CPU whose buffers wake dcpid at every
 * record (else, on old kernels, from the first event's buffers).  Every
 * record carries sample_id_all with TID, TIME (CLOCK_MONOTONIC), CPU and
 * IDENTIFIER.  The functions below are grouped by the file that
 * implements them: perf.c (the whole), perf_open.c (events, libpfm4, ids),
 * perf_ring.c (reading the buffers), perf_cpus.c (CPUs and hotplug) and
 * perf_jitter.c (period jitter); perf_int.h is what those files share.
 */
#ifndef DCPID_PERF_H
#define DCPID_PERF_H

#include <stddef.h>
#include <stdint.h>

/* Default periods, chosen for about 1,000 samples per second on a busy CPU:
 * cpu-clock and task-clock count nanoseconds; hardware events count cycles
 * or similar at roughly 2 GHz; other software events (faults, switches)
 * are rarer, so one sample per 1,000. */
#define PERF_PERIOD_CLOCK	1000000ull
#define PERF_PERIOD_HW		2000000ull
#define PERF_PERIOD_SW		1000ull

union record;

/* perf.c: the whole. */

/* Where a record is handed when it has been read from a ring buffer:
 * size bytes (daemon/record.h), stamped time (perf clock, ns; 0 if none).
 * rec points into the ring buffer, or to a copy when the record wraps
 * around its end; either is valid only until the callback returns. */
typedef void (*perf_record_cb)(const union record *rec, size_t size, uint64_t time);
/* Opens events[0..nevents) on the CPUs of the list cpus ("0-3,6"; NULL:
 * every CPU that may come online) that are online; the others are opened
 * when they come online (perf_hotplug_check).  With nevents 0, "cycles"
 * is tried and, if it does not open, perf::cpu-clock, saying so in the
 * log.  Registers the fds with the loop, disabled.  Returns 0, or -1
 * with a message naming the event and the reason in err[errlen]. */
int perf_init(char *const *events, size_t nevents, const char *cpus,
    char *err, size_t errlen);
void perf_enable(void);
/* Stops sampling; the buffers keep what they hold for perf_drain. */
void perf_disable(void);
void perf_fini(void);
/* Where the records go, set once by their consumer (core_init) and kept
 * across perf_init and perf_fini: record gets each record drained (the
 * sideband's, copied into the ordering queue); ready is called (instead of
 * draining) when a buffer read in place wakes dcpid (its watermark: a
 * quarter full), so that its records are processed before it fills;
 * NULL: such a buffer is drained into record. */
void perf_set_consumer(perf_record_cb record, void (*ready)(void));
size_t perf_nevents(void);
const char *perf_event_name(size_t i);
uint64_t perf_event_period(size_t i);
/* The period event i's call chains are sampled at: its own, or its sparse
 * twin's (perf_set_callchain_period). */
uint64_t perf_event_chain_period(size_t i);
/* STATUS: an event line each (its name and period), then period-jitter. */
struct status_writer;
void perf_events_status(struct status_writer *w);
/* The fds opened, sideband included: fd i, and its event index in *event
 * (-1 for the sideband's; with PERF_EVENT_CHAIN for a sparse twin's,
 * which counts no flat samples). */
size_t perf_nfds(void);
int perf_fd(size_t i, int *event);

/* perf_open.c: events, libpfm4's encodings, the IDENTIFIER -> event map. */

/* Called with a sampling event's fd opened after perf_init (and the fd
 * it replaces, or -1), before the event is enabled, the event index with
 * PERF_EVENT_CHAIN for a sparse twin: the BPF programs' links (bpfagg).
 * NULL: none. */
void perf_set_fd_cb(void (*cb)(int oldfd, int newfd, int event));

/* Checks that libpfm4 can encode name (without opening it); -1 with a
 * message as perf_init's. */
int perf_check_event(const char *name, char *err, size_t errlen);
/* Call chains with every sample from the next perf_init: depth frames at
 * most (0: none), no more than kernel.perf_event_max_stack allows; returns
 * the depth sampled.  stack 0: the kernel walks the user frames by their
 * frame pointers; else it gives only the kernel's frames and, for dcpid
 * to unwind the user's (daemon/unwind.h), the user registers IP, SP, BP
 * and stack bytes of user stack from SP (a multiple of 8, at most 65528),
 * in buffers twice the size. */
unsigned perf_set_callchain(unsigned depth, unsigned stack);
/* Whether the kernel samples the user registers and stack as
 * perf_set_callchain(depth, stack) asks (one event opened and closed on
 * this CPU): 0, or -1 with why in err[errlen] (errno kept).  x86_64 only:
 * elsewhere -1 with ENOTSUP, as dcpid has no unwinder there. */
int perf_callchain_dwarf_probe(unsigned stack, char *err, size_t errlen);
/* From the next perf_init, with call chains: chains sampled at mult times
 * each event's period by a second event of its own (its sparse twin, with
 * the chains), the event itself without them; 0 or 1: with every sample
 * of the event, by the event itself. */
void perf_set_callchain_period(unsigned mult);
/* The multiple sampled: 1 when the chains come with every sample. */
unsigned perf_callchain_period(void);
/* Set in perf_event_of_id's value for a sample of an event's sparse
 * twin: it counts in the call chains only, never in the flat profile. */
#define PERF_EVENT_CHAIN	0x40000000
/* The event index of a record's IDENTIFIER, with PERF_EVENT_CHAIN for
 * the twin's; -1 if unknown. */
int perf_event_of_id(uint64_t id);
/* 1 if IDENTIFIER is a sideband buffer's (MMAP2, COMM, FORK, EXIT, CGROUP
 * records, no samples), else 0. */
int perf_id_is_sideband(uint64_t id);

/* perf_state.c (below the others) */

/* Nanoseconds on the clock the records are stamped with. */
uint64_t perf_now(void);

/* perf_ring.c: reading the ring buffers. */

/* Reads every ring buffer, handing each record to the callback. */
void perf_drain(void);
/*
 * Zero-copy reading (bench/README, "Zero-copy ring-buffer processing").
 * A sampling buffer that carries no sideband holds samples (and LOST and
 * THROTTLE records) in time order; it is read in place by perf_read_until
 * and left out of perf_drain_queued, which reads the others (the sideband's,
 * or all of them when the first event carries the sideband) into the
 * callback, to be copied into the ordering queue.  perf_read_until hands
 * cb each record of those buffers stamped at or before until (perf clock,
 * ns), pointing into the ring (or into a copy when it wraps around the
 * end), valid until cb returns, and gives its space back to the kernel;
 * a buffer's first later record and those after it stay where they are
 * for a later call.  *next: the earliest time of those first later
 * records (UINT64_MAX: the buffers hold none).  Returns the number handed
 * out.
 */
void perf_drain_queued(void);
/* ahead (NULL: none) sees each record of a buffer that cb will get, in
 * the same order and at the same address, dist / 2 to dist records before
 * cb gets it (for a prefetch: callchain.c's look-ahead), but a record that wraps
 * around the buffer's end (cb gets a copy); at most dist + 1 records
 * are seen and not yet got. */
typedef void (*perf_ahead_cb)(const union record *rec, size_t size);
size_t perf_read_until(uint64_t until, perf_record_cb cb, perf_ahead_cb ahead,
    size_t dist, uint64_t *next);
/* Called from perf_read_until's cb: the record it was handed is left
 * unread, first in its buffer (or its held copy), its time in *next, and
 * that buffer is read no further in this call; the record is handed out
 * again by a later call (core.c: a chain that waits for a table). */
void perf_read_stop(void);
/* Copies the records waiting in every buffer out of it, giving its space
 * back to the kernel, for work that keeps dcpid from its loop for long (a
 * flush's writes and fsyncs, on a busy disk seconds), between whose steps
 * it is called.  The held records are read before the buffer's newer
 * ones, by the reads above and with their contracts (time order, until).
 * Holds 64 MiB at most, all buffers together; beyond that the buffers
 * fill and the kernel counts the records lost.  No callback is called. */
void perf_hold(void);
/* perf_hold for the buffers read in place that are more than a quarter
 * full (their wake-up mark) after a read: records too new to handle yet
 * (the time merge's slack) would otherwise fill them at a high rate of
 * large records (10 kHz of 8 KiB user stacks is 830 KiB a CPU in the 10
 * ms slack, of a 1 MiB buffer). */
void perf_hold_crowded(void);
/* How close the sideband buffers came to losing records, since perf_init:
 * the most bytes one held when dcpid read it (of size, one buffer's
 * bytes; 0 without a sideband buffer of its own), the longest a record
 * waited to be read (ms, by its time stamp), and the reads that found a
 * LOST record. */
struct perf_sideband_watch {
	uint64_t	used_max;
	size_t		size;
	uint64_t	wait_max_ms;
	uint64_t	overflows;
};
void perf_sideband_watch(struct perf_sideband_watch *w);
/* Bytes of ring buffers mapped, and of their records held (perf_hold)
 * while the copies are kept. */
size_t perf_memory(void);

/* perf_cpus.c: the CPUs sampled, and CPU hotplug. */

/* CPUs sampled now (with buffers open), of the list given to perf_init
 * (all CPUs that may come online when it was NULL); those of the list
 * offline at the last look; and the times a CPU was opened after
 * perf_init (it came online, or back online). */
size_t perf_ncpus(void);
size_t perf_cpus_offline(void);
size_t perf_cpus_hotplugged(void);
/* STATUS: cpus (the three above). */
void perf_cpus_status(struct status_writer *w);
/* CPU hotplug, about every 5 s while sampling (the tests call it): an
 * event whose time_enabled stood still since the last call was taken off
 * its CPU, which went offline, and the CPU's other events with it (one
 * read a CPU); once the CPU is online and the buffer read to its end,
 * the event is opened anew in the same slot.  A CPU of the list
 * that had no buffers is opened when it is online.  Said in the log. */
void perf_hotplug_check(void);

/* perf_jitter.c: period jitter. */

/* Period jitter from the next perf_init (percent, at most 50; 0: fixed
 * periods): each sampling fd's period is set to a value L whose rate 1/L
 * is drawn uniformly from [(1 - j) / P, (1 + j) / P], j = percent / 100,
 * at perf_enable and then about once a second (perf_jitter.c says
 * why), so that samples times the configured period P (perf_event_period)
 * still estimate the events: P is the periods' harmonic mean.  An fd that
 * refuses PERF_EVENT_IOC_PERIOD is logged once per event and samples at
 * the fixed period P. */
void perf_set_jitter(unsigned percent);
unsigned perf_jitter(void);
/* 1 if any fd's period is drawn: period-jitter's, or the sparse twins'
 * (callchain-period), which are jittered by at least 20% whatever
 * period-jitter says, so that chains do not fall in step with periodic
 * work at a round period (10 ms). */
int perf_jitter_any(void);
/* The chains' jitter (percent): the sparse twins', else perf_jitter's. */
unsigned perf_jitter_chains(void);
/* Periods set since perf_init; fds that refused and sample at a fixed period. */
uint64_t perf_jitter_changes(void);
size_t perf_jitter_refused(void);
/* A new period for every sampling fd now (the timer's work; the tests call
 * it): a fresh draw, then at the next call its mirror (rate 1 - k after
 * 1 + k), and so on.  perf_jitter_period: one period drawn as above, at
 * least 1 (period itself for percent 0 or over 99). */
void perf_jitter_now(void);
uint64_t perf_jitter_period(uint64_t period, unsigned percent);

#endif
