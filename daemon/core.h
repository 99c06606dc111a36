/*
 * The daemon core: hands the records read from the ring buffers, merged in
 * time order with the sideband's, to the attribution and the aggregation
 * (a sample's chain to callchain.c, the losses to loss.c), drives the
 * flush (the one module that asks them all, so that each hands its data on
 * and none calls back), and implements the control requests that act on
 * them (flush, epoch, label, quit).
 */
#ifndef DCPID_CORE_H
#define DCPID_CORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "control.h"

union record;

/* Slack behind the clock read before a drain: a record stamped earlier has
 * been published by then (its writer runs with interrupts off). */
#define CORE_ORDER_SLACK_NS	10000000ull
/* How long after its timestamp a record has surely been published: a
 * flush request takes the records stamped that long before it. */
#define CORE_PUBLISH_NS		1000000ull

/* Also makes core the consumer of perf's records (perf_set_consumer:
 * core_record, and core_process when a buffer is a quarter full), before
 * perf_init. */
void core_init(size_t memory_cap);
void core_fini(void);
void core_set_memory_cap(size_t memory_cap);
/* After perf_init: where the samples are counted, by mode
 * (CONF_AGGREGATE_*, lib/conf.h): in the kernel (daemon/bpfagg.h) where
 * the program loads and no call chains are sampled, else through the ring
 * buffers; said in the log and status.  -1 with why in err[errlen] when
 * mode is bpf and the kernel path cannot run. */
int core_start_aggregate(unsigned mode, int callchains, char *err, size_t errlen);
/* Before perf_fini: drains and unloads the program. */
void core_stop_aggregate(void);
/* perf's record callback: queues a record for ordered processing (the
 * sideband's; the samples are read in place by core_process). */
void core_record(const union record *rec, size_t size, uint64_t time);
/* Reads the sideband's buffers into the queue, then processes in time
 * order the queued records and the samples of the sampling buffers, read
 * where they lie, that are safe to process (all of them when all is
 * nonzero, at shutdown); also called when a sampling buffer is a quarter
 * full (perf_set_consumer). */
void core_process(int all);
/* Nonzero when the counts (and the JIT samples waiting for a map) exceed
 * the memory cap; the loop then calls core_flush_over_cap(), which says so
 * in the log and flushes (core_flush_run). */
int core_over_cap(void);
int core_flush_over_cap(char *msg, size_t msglen);
/* Updates the sample rate; called at each tick (every second, every 5 s
 * with aggregate = bpf). */
void core_tick(void);
double core_rate(void);
/* Flushes (daemon/flush.h): what attr, jit and agg hold goes to the
 * epoch's files; what could not be written stays for the next flush.
 * 0, or -1 with the first error; msg[msglen] as flush_end says. */
int core_flush_run(char *msg, size_t msglen);
uint64_t core_samples(void);

/* The control requests but STATUS (daemon/status.h) and RELOAD (dcpid.c). */
extern const struct control_ops core_ops;
/* Set by QUIT; the main loop exits when it is. */
extern volatile sig_atomic_t core_quit_requested;

#endif
