/*
 * Call chains (issue 15): the stacks of the samples since the last flush,
 * counted per (stream, process, callers as the kernel gave them, leaf).
 * Callers seen again in the same process are counted without being
 * attributed again, which is what keeps a sample with a deep chain cheap;
 * new ones are attributed by the caller, frame by frame, in time order
 * (the maps of that moment), and stored with their frames.  The callers
 * of a process that has exited are folded by their frames, pid left out.
 * The flush names the frames (images, offsets) and writes them to the
 * epoch's stack file.
 */
#ifndef DCPID_STACK_H
#define DCPID_STACK_H

#include <stddef.h>
#include <stdint.h>

#define STACK_NOIMAGE	UINT32_MAX	/* a frame that could not be attributed */

struct stack_frame {
	uint32_t	 image;		/* attr's image index, or STACK_NOIMAGE */
	uint32_t	 offset;	/* from the image's tstart; 0 without image */
};

void stack_init(void);
void stack_fini(void);

/* Callers kept per chain: the kernel's limit is 1024 frames in all. */
#define STACK_CALLERS_MAX	1023

/* A chain is the sample's leaf frame (the PC, as attributed for the flat
 * profile) and its callers, keyed by the raw chain ips[0..n) (the
 * kernel's words, context markers included) less its leaf, the word at
 * ips[li], and the leaf's place li (the words before it are context
 * markers, those after it callers).  Under a key, a leaf is its raw word
 * and its frame (so one frame under two raw words, an image mapped twice,
 * is two chains of the same frames, as two processes' are).  Counts one
 * more sample of leaf under that key of stream in pid if the key was met
 * since the last flush (and not folded since): 1; else 0 and nothing
 * counted (the caller attributes the callers and calls stack_add).
 * n <= 4096. */
int stack_count(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, struct stack_frame leaf);
/* A new key's attributed callers c[0..depth) (nearest first; depth <=
 * STACK_CALLERS_MAX, 0 for a sample with no caller) and its first
 * sample's leaf.  (An entry past 32 GiB of them is not kept.) */
void stack_add(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, const struct stack_frame *c, uint32_t depth,
    struct stack_frame leaf);

/* The hash of a raw chain ips[0..n) of pid, as stack_count looks it up:
 * it needs only the record, so that the lookup's cache miss can be started
 * records ahead of the count: stack_ahead returns the same hash and
 * prefetches the table's slot for it (a hint, which changes no count; a
 * table grown since only makes it useless).  The _hashed functions take
 * it, h = stack_hash(pid, ips, n), and are otherwise stack_count's and
 * stack_add's. */
uint64_t stack_hash(uint32_t pid, const uint64_t *ips, uint32_t n);
uint64_t stack_ahead(uint32_t pid, const uint64_t *ips, uint32_t n);
int stack_count_hashed(uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf);
void stack_add_hashed(uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, const struct stack_frame *c,
    uint32_t depth, struct stack_frame leaf);

/* Process pid has exited: its entries may be folded into entries keyed
 * by their attributed frames (no raw words, shared by all processes),
 * which keeps memory with the distinct stacks where processes are many
 * and short.  The chains counted and their counts stay the same. */
void stack_exit(uint32_t pid);

/* The chains of some processes, named again (a JIT's frames, by a perf
 * map that came after their samples): for each entry not folded yet of a
 * pid in pids[0..npids) (the caller's array, sorted here in place), cb
 * gets the pid, the entry's
 * raw words w[0..nk) (the chain less its leaf, which was at w[li]) and
 * its attributed callers f[0..depth), nearest first, which it may change
 * in place; then for each leaf under those entries, leaf_cb gets the same
 * and the leaf's raw word ip and its frame *f, which it may change.  The
 * keys stay: a later sample of the same chain is counted apart unless
 * its leaf is attributed as leaf_cb named it (the stack file adds up
 * chains of the same frames).  One walk of every entry and leaf. */
typedef void (*stack_entry_cb)(uint32_t pid, const uint64_t *w, uint32_t nk,
    uint32_t li, struct stack_frame *f, uint32_t depth, void *arg);
typedef void (*stack_leaf_cb)(uint32_t pid, const uint64_t *w, uint32_t nk,
    uint32_t li, uint64_t ip, struct stack_frame *f, void *arg);
void stack_rename(uint32_t *pids, size_t npids, stack_entry_cb cb,
    stack_leaf_cb leaf_cb, void *arg);

/* Calls cb for every chain counted (frames f[0..depth), owned by stack.c,
 * valid during the call; the same frames may come more than once, counts
 * apart, for the caller to add up); a nonzero return stops the walk and
 * is returned.  stack_clear forgets them all, once the stack file holding
 * them is written (a failed write keeps them for the next flush). */
typedef int (*stack_cb)(uint32_t stream, const struct stack_frame *f,
    uint32_t depth, uint64_t count, void *arg);
int stack_each(stack_cb cb, void *arg);
void stack_clear(void);

/* Bytes held; chains (leaf and callers) held. */
size_t stack_memory(void);
size_t stack_entries(void);

#endif
