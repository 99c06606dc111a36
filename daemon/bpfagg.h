/*
 * In-kernel aggregation (aggregate = bpf): a BPF program attached to
 * every sampling perf fd counts in per-CPU hash maps the samples it can
 * key exactly (daemon/bpfagg_key.h) and keeps them out of the ring
 * buffers; the rest, and all the sideband, take the ring-buffer path
 * (aggregate = ring's).  dcpid drains the counts (bpfagg_drain) before it processes the
 * records it has read, on the loop's tick and before every flush; the core
 * attributes each key (a file and offset, or a kernel PC) and adds its
 * count to the same aggregation as the ring's samples.
 *
 * The counts live in arrays mapped into dcpid (bpfagg_key.h), read and
 * zeroed without a system call.
 */
#ifndef DCPID_BPFAGG_H
#define DCPID_BPFAGG_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpfagg_key.h"

/* A chain walked in the kernel (struct bpfunw_chain, size bytes as the
 * ring buffer map gave it: check before reading). */
typedef void (*bpfunw_cb)(const void *rec, size_t size, void *arg);
/* The call chains' walk in the kernel (bpfagg_key.h: dcpi_chain), asked
 * of bpfagg_init: callers at most (BPFUNW_DEPTH_MAX), bytes of stack the
 * ring's copy holds, reject (tests: a walk the verifier refuses), check
 * (tests: each sample walked is also passed to the ring, for dcpid to
 * compare the walks), and where its chains go (bpfunw_read). */
struct bpfunw_conf {
	uint32_t	 depth, stack;
	uint32_t	 rows;		/* the rows array's size (0: BPFUNW_ROWS) */
	int		 reject, check;
	bpfunw_cb	 cb;
	void		*arg;
};

/* Loads the program (CO-RE, against /sys/kernel/btf/vmlinux) and attaches
 * it to every sampling fd that perf_init opened, each with its event
 * index as the attachment's cookie; with chains (NULL: none), the walk
 * too, to the chains' sparse twins.  0; or -1 with why in why[len] (BPF
 * not permitted, kernel too old, built without libbpf), nothing left
 * loaded: the ring-buffer path then runs alone.  A walk that does not
 * load leaves the flat program loaded alone, says why in
 * chain_why[chain_len], and bpfunw_active() 0. */
int bpfagg_init(char *why, size_t len, const struct bpfunw_conf *chains,
    char *chain_why, size_t chain_len);
void bpfagg_fini(void);
/* Nonzero while the program is attached. */
int bpfagg_active(void);
/* on: every sample to the ring buffers (a `dcpictl label` run is in
 * force, whose processes the program cannot tell apart). */
void bpfagg_pass_all(int on);

/* A key's count. */
typedef void (*bpfagg_cb)(const struct bpfagg_key *k, uint64_t count, void *arg);
/* Hands every count of the current set to cb, taking it (zeroing it); a
 * set three quarters used is switched away from and emptied at the next
 * drain.  Returns the samples drained. */
uint64_t bpfagg_drain(bpfagg_cb cb, void *arg);
/* The same for slots k[0..used) with counts c[0..used) (the part the unit
 * tests drive with memory of their own): each count not 0 is exchanged
 * with 0 and handed to cb with its key. */
uint64_t bpfagg_drain_slots(const struct bpfagg_key *k, uint64_t *c,
    uint32_t used, bpfagg_cb cb, void *arg);

/* The next file the program met anew (bpfagg_key.h), with a process
 * that maps it and a PC in it: 0, or -1 when there is none. */
int bpfagg_news(uint64_t *dev, uint64_t *ino, uint32_t *pid, uint64_t *pc);
/* What dcpid made of a file: BPFAGG_FILE_KNOWN (count it in the kernel),
 * BPFAGG_FILE_PASS (its samples to the ring), or -1: not yet (forgotten,
 * to be queued again at its next sample). */
void bpfagg_file_state(uint64_t dev, uint64_t ino, int state);
/* Drains, samples drained since bpfagg_init, for status. */
uint64_t bpfagg_drains(void);
/* Sets switched (three quarters used) since bpfagg_init. */
uint64_t bpfagg_switches(void);
uint64_t bpfagg_samples(void);

/* Nonzero while the walk is attached. */
int bpfunw_active(void);
/* Hands the chains the walk has passed on since the last call to the
 * bpfunw_conf's cb; returns how many. */
size_t bpfunw_read(void);
/* The next file whose table a walk wanted (bpfagg_key.h), with a process
 * that maps it, a PC in it and the PC's file offset: 0, or -1 when there
 * is none. */
int bpfunw_need(uint64_t *dev, uint64_t *ino, uint32_t *pid, uint64_t *pc,
    uint64_t *off);
/* The file's rows (daemon/unwind_table.h), n of them in the coordinates
 * start = file offset + adj, copied into the kernel's array with their
 * page index (the oldest tables dropped for room), the rules they name
 * with them: 0, and where in dcpid's mapping of the array the rows are in
 * *placed (unless NULL), theirs until owner (NULL: none) is told they are
 * gone (bpfunw_set_gone); -1, no room now (rows dropped are reused after
 * a later bpfunw_release); -2, n or rows and index over a quarter of the
 * array, or n over BPFUNW_TABLE_MAX. */
struct unwind_row;
/* The page index of rows (n >= 1, sorted by start; bpfagg_key.h): the
 * pages it has, from *pbase (set: the first row's page); 0, none, where
 * the pages would outnumber the rows (the table is searched whole). */
uint32_t bpfunw_pages(const struct unwind_row *rows, uint32_t n, uint32_t *pbase);
/* The index itself into idx[0 .. npages): for each page, the number of
 * the last row at or before its first byte (0 where none is). */
void bpfunw_index(const struct unwind_row *rows, uint32_t n, uint32_t pbase,
    uint32_t npages, uint32_t *idx);
int bpfunw_load(uint64_t dev, uint64_t ino, int64_t adj,
    const struct unwind_row *rows, uint32_t n, const void *owner,
    struct unwind_row **placed);
/* fn(owner) is called when the rows of a range loaded with an owner are
 * about to be reused, or unmapped (bpfagg_fini). */
void bpfunw_set_gone(void (*fn)(const void *owner));
/* owner's rows no longer its (it was freed): its ranges stay, ownerless. */
void bpfunw_disown(const void *owner);
/* state 1: the file has no table (its walks take the ring for good);
 * 0: not known yet (asked again at its next walk). */
void bpfunw_none(uint64_t dev, uint64_t ino, int state);
/* The file's rows dropped (its image forgotten): its walks take the ring
 * until it is loaded again. */
void bpfunw_drop(uint64_t dev, uint64_t ino);
/* The rows dropped at least 10 ms before this call reused from now on
 * (no walk of the time they were dropped is still running), their
 * owners told: once a sync. */
void bpfunw_release(void);
struct bpfunw_stats {
	uint64_t	walks[BPFUNW_NSTATS];	/* enum bpfunw_stat */
	uint64_t	ns[BPFUNW_NSTATS];	/* their time in the program */
	uint64_t	files, rows, capacity, bytes, evicted;
};
void bpfunw_stats(struct bpfunw_stats *st);

/*
 * The bridge (bpfagg_bridge.c): the kernel's counts into the aggregation,
 * each key attributed as a sample of the ring is (attr.c, labeler.c, agg.c),
 * and the program kept told what the attribution knows.
 */
struct status_writer;

/* After perf_init: where the samples are counted, by mode
 * (CONF_AGGREGATE_*, lib/conf.h): in the kernel where the program loads
 * and no call chains are sampled (callchains zero), else through the ring
 * buffers; said in the log and status.  pending: a label request waits,
 * so every sample takes the ring (bpfagg_update_pass).  -1 with why in
 * err[errlen] when mode is bpf and the kernel path cannot run. */
int bpfagg_start(unsigned mode, int callchains, int pending, char *err,
    size_t errlen);
/* A record of the time merge of type BPFUNW_RECORD: a chain the kernel
 * walked, counted as the ring's chains are (callchain_walked). */
void bpfagg_chain(const void *rec, size_t size);
/* Before perf_fini: drains into the aggregation and unloads the program. */
void bpfagg_stop(void);
/* The files the attribution has just learnt (attr_file_learnt) are counted
 * in the kernel from their first sample on (bpfagg_key.h): a new process's
 * mapping is learnt as its MMAP2 arrives, before it runs much. */
void bpfagg_known(void);
/* After the records up to now were processed (their cgroups and files
 * known): the files learnt, the program's new files settled, its counts
 * drained into the aggregation, the pass to the ring updated. */
void bpfagg_sync(int pending);
/* While a `dcpictl label` run is pending (pending nonzero) or in force,
 * every sample takes the ring-buffer path, ordered with the FORK records
 * that label them. */
void bpfagg_update_pass(int pending);
/* attr_reclaim's hooks: a file the attribution forgot, whose kernel
 * counts stop until it is learnt again (its samples take the ring
 * meanwhile); what the kernel counted of the files about to be forgotten,
 * drained while the attribution still knows them. */
void bpfagg_forget(uint64_t dev, uint64_t ino);
void bpfagg_drain_now(void);
/* Samples the kernel counted and the bridge handed on, since dcpid
 * started (those of no known event left out). */
uint64_t bpfagg_counted(void);
/* unwind-memory, and unwind-bpf-memory, the part of it in the kernel's
 * rows array (dcpid.conf(5)), for the next bpfagg_start. */
void bpfagg_set_unwind_memory(size_t total, size_t kernel);
/* STATUS: aggregate (the path and why), aggregate-bpf. */
void bpfagg_status(struct status_writer *w);

#endif
