/*
 * Call chains (dcpid -g): the stacks of the samples since the last flush,
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
#include <string.h>

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

/*
 * The sample path's lookup, inline: callchain.c hashes each record's chain
 * records ahead of its count (stack_ahead) and counts it (_hashed); as
 * calls into stack.c, their arguments, spills and saved registers were 27
 * of the 390 instructions a chain added to a sample (bench/README).  They
 * read stack.c's arena and leaf table through stack_tab, which only
 * stack.c writes.
 */
#define STACK_K		0x9e3779b97f4a7c15ULL
#define STACK_E_HDR	3		/* an entry's header words (stack.c) */

struct stack_leaf {			/* 32 bytes, never across two lines */
	uint32_t	 tag;		/* the hash's top 32 bits: the home slot */
	uint32_t	 entry;		/* its entry's place in the arena */
	uint64_t	 count;		/* 0: an empty slot */
	uint64_t	 ip;		/* the raw word of the leaf */
	struct stack_frame f;
};

struct stack_tab {
	const uint64_t		*arena;		/* the entries (stack.c) */
	struct stack_leaf	*leaves;	/* 2^k slots, or NULL */
	size_t			 mask;		/* 2^k - 1 */
	unsigned		 shift;		/* 32 - k: a tag's home slot */
};
extern struct stack_tab stack_tab;

/* The hash of a raw chain ips[0..n) of pid, as stack_count looks it up,
 * leaf included, stream left out (that takes a label lookup; the compare
 * checks it): it needs only the record, so that the lookup's cache miss
 * can be started records ahead of the count.  Four multiplicative lanes,
 * whose multiplies wait on each other only within a lane. */
static inline uint64_t
stack_hash(uint32_t pid, const uint64_t *w, uint32_t n)
{
	uint64_t a = (uint64_t)pid << 32 | n, b = a ^ 0x6a09e667f3bcc908ULL;
	uint64_t c = a ^ 0xbb67ae8584caa73bULL, d = a ^ 0x3c6ef372fe94f82bULL;
	const uint64_t *end = w + n, *end4 = w + (n & ~3U);

	/* (Pointers, not a 32-bit index that each load would extend.) */
	for (; w < end4; w += 4) {
		a = (a ^ w[0]) * STACK_K;
		b = (b ^ w[1]) * STACK_K;
		c = (c ^ w[2]) * STACK_K;
		d = (d ^ w[3]) * STACK_K;
	}
	for (; w < end; w++)
		a = (a ^ *w) * STACK_K;
	a ^= (b << 16 | b >> 48) ^ (c << 32 | c >> 32) ^ (d << 48 | d >> 16);
	return (a ^ a >> 29) * STACK_K;
}

/* A hash's tag: its top 32 bits, whose top k bits are its home slot. */
static inline uint32_t
stack_tag(uint64_t h)
{
	return (uint32_t)(h >> 32);
}

/* stack_hash's, and the lines of the leaf table where its lookup will
 * start prefetched (a hint, which changes no count; a table grown since
 * only makes it useless): the home slot's and the next, into which linear
 * probing goes for about a fifth of the lookups of a table 3/8 full. */
static inline uint64_t
stack_ahead(uint32_t pid, const uint64_t *ips, uint32_t n)
{
	uint64_t h = stack_hash(pid, ips, n);
	size_t i;

	if (stack_tab.leaves != NULL) {
		i = stack_tag(h) >> stack_tab.shift;
		__builtin_prefetch(&stack_tab.leaves[i]);
		__builtin_prefetch(&stack_tab.leaves[((i | 1) + 1) & stack_tab.mask]);
	}
	return h;
}

/* Does the entry at e hold ips[0..n) less its leaf ips[li], of stream in
 * pid? */
static inline int
stack_same_key(const uint64_t *e, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li)
{
	const uint64_t *k = e + STACK_E_HDR;
	uint32_t i;

	if (e[0] != ((uint64_t)stream << 32 | pid) ||
	    (uint32_t)e[1] != (li << 16 | (n - 1)))
		return 0;
	/* Before the leaf: context markers, one or two words. */
	for (i = 0; i < li; i++)
		if (k[i] != ips[i])
			return 0;
	return li + 1 == n ||
	    memcmp(k + li, ips + li + 1, (n - li - 1) * sizeof(*ips)) == 0;
}

/* stack_count_hashed's other cases (below): the probe of the leaf table
 * gone on at slot i (stack_count_from), then the callers looked up
 * (stack_count_new); the sample counted if they are known, 1 (its leaf
 * found under them, or added); else 0. */
int stack_count_from(size_t i, uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf);
int stack_count_new(uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf);

/* stack_count, with h = stack_hash(pid, ips, n).  The leaf seen before
 * under these callers (the usual case) is one probe of the leaf table and
 * one compare of the entry's words: the first leaf of its hash, raw word
 * and frame.  The hash leaves the stream out, so the same chain counted
 * under another stream (event or label) may come first: the probe goes on
 * out of line, where the usual path saves no registers for it. */
static inline int
stack_count_hashed(uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf)
{
	struct stack_leaf *l;
	uint32_t tag = stack_tag(h);
	uint64_t ip = ips[li];
	size_t i;

	if (stack_tab.leaves == NULL)
		return stack_count_new(h, stream, pid, ips, n, li, leaf);
	for (i = tag >> stack_tab.shift; (l = &stack_tab.leaves[i])->count != 0;
	    i = (i + 1) & stack_tab.mask)
		if (l->tag == tag && l->ip == ip &&
		    l->f.image == leaf.image && l->f.offset == leaf.offset)
			break;
	if (l->count == 0)
		return stack_count_new(h, stream, pid, ips, n, li, leaf);
	if (!stack_same_key(stack_tab.arena + l->entry, stream, pid, ips, n, li))
		return stack_count_from((i + 1) & stack_tab.mask, h, stream, pid,
		    ips, n, li, leaf);
	if (l->count < UINT64_MAX)
		l->count++;
	return 1;
}

/* stack_add, with h = stack_hash(pid, ips, n). */
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
