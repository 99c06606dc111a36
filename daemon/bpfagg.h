/*
 * In-kernel aggregation (issue 17, route 1): a BPF program attached to
 * every sampling perf fd counts in per-CPU hash maps the samples it can
 * key exactly (daemon/bpfagg_key.h) and keeps them out of the ring
 * buffers; the rest, and all the sideband, take the ring-buffer path as
 * before.  dcpid drains the counts (bpfagg_drain) before it processes the
 * records it has read, on the loop's tick and before every flush; the core
 * attributes each key (a file and offset, or a kernel PC) and adds its
 * count to the same aggregation as the ring's samples.
 *
 * Two counts maps, switched by a generation in the control array: the
 * drain flips it, then reads and deletes the old map, which only
 * programs already running at the flip still touch.
 */
#ifndef DCPID_BPFAGG_H
#define DCPID_BPFAGG_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpfagg_key.h"

/* Loads the program (CO-RE, against /sys/kernel/btf/vmlinux) and attaches
 * it to every sampling fd that perf_init opened, each with its event
 * index as the attachment's cookie.  0; or -1 with why in why[len] (BPF
 * not permitted, kernel too old, built without libbpf), nothing left
 * loaded: the ring-buffer path then runs alone. */
int bpfagg_init(char *why, size_t len);
void bpfagg_fini(void);
/* Nonzero while the program is attached. */
int bpfagg_active(void);
/* on: every sample to the ring buffers (a `dcpictl label` run is in
 * force, whose processes the program cannot tell apart). */
void bpfagg_pass_all(int on);

/* A key's count summed over the CPUs. */
typedef void (*bpfagg_cb)(const struct bpfagg_key *k, uint64_t count, void *arg);
/* Flips the generation and hands every count of the old map to cb,
 * deleting it.  Returns the samples drained. */
uint64_t bpfagg_drain(bpfagg_cb cb, void *arg);
/* The same for the map open on fd, with values of ncpus u64s each (the
 * part the unit tests drive with a mocked map). */
uint64_t bpfagg_drain_fd(int fd, unsigned ncpus, bpfagg_cb cb, void *arg);

/* The next file the program met anew (bpfagg_key.h), with a process
 * that maps it and a PC in it: 0, or -1 when there is none. */
int bpfagg_news(uint64_t *dev, uint64_t *ino, uint32_t *pid, uint64_t *pc);
/* What dcpid made of a file: BPFAGG_FILE_KNOWN (count it in the kernel),
 * BPFAGG_FILE_PASS (its samples to the ring), or -1: not yet (forgotten,
 * to be queued again at its next sample). */
void bpfagg_file_state(uint64_t dev, uint64_t ino, int state);
/* Drains, samples drained since bpfagg_init, for status. */
uint64_t bpfagg_drains(void);
uint64_t bpfagg_samples(void);

#endif
