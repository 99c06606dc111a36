/*
 * Call chains since the last flush (daemon/stack.h).  A chain is its
 * leaf, the sampled PC, which the flat path has attributed already, and
 * its callers, which are few per process however many PCs a hot function
 * has: the callers are the entries (one per stream, pid and raw caller
 * words, attributed once), and the leaves are rows under an entry.  A
 * sample seen before is one probe of the leaf table, whose hash covers
 * the whole raw chain (the callers' words and the leaf's), and one
 * compare of the words: the entry table is walked only for a leaf new
 * under its callers.  That hash needs nothing but the record (no stream,
 * no attribution), so callchain.c computes it records ahead and prefetches the
 * slot (stack_ahead): in a table larger than the caches
 * the probe's miss is then paid while earlier records are processed.
 *
 * Entries of processes that have exited are folded, once they are half
 * the table, into entries keyed by their attributed frames and shared
 * across processes (a build's compilers each have their own pid, and so
 * their own raw entries of the same stacks): the memory held grows with
 * the distinct attributed stacks, not with the processes.  Whether a
 * process has exited, and how many raw entries it has, are its stack.c
 * fields in the process table (daemon/proc.h), which stack.c holds past
 * the exit until those entries are folded or flushed.  Everything
 * lives in arrays that grow until the flush empties them, or a fold
 * rebuilds them.  An entry's header and raw words lie together in one
 * array (the arena), so that the compare reads one run of memory.
 */
#include "config.h"

#include <sys/mman.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "log.h"
#include "proc.h"
#include "stack.h"
#include "xmalloc.h"

#define FOLDED		UINT16_MAX	/* an entry's nk: keyed by frames */
#define FOLD_MIN	4096		/* dead entries before a fold */
#define K		STACK_K
#define HUGE_PAGE	(2u << 20)	/* x86-64's, for the leaf table */

/*
 * An entry at arena[o]: a header of E_HDR words, then its raw words.
 *   [0] stream << 32 | pid
 *   [1] depth << 32 | li << 16 | nk	(nk: raw words, the chain less its
 *	leaf; li: where the leaf was; nk FOLDED: no raw words, pid 0)
 *   [2] where its callers are in frames[]
 *   [3] nk FOLDED: the hash of its frames (for the next fold)
 * An entry is named by its o, which fits 32 bits (the memory cap flushes
 * long before 32 GiB).
 */
#define E_HDR		STACK_E_HDR

static struct htab		 table;		/* callers hash -> o + 1 */
static uint64_t			*arena;
static size_t			 narena, caparena, nents;
/* The leaves are the slots of their own table (open addressing, linear
 * probing, at most 3/4 full), not values of a lib/htab.h one: a sample
 * seen before then costs one cache miss in this large table, not two.
 * A leaf (struct stack_leaf, stack.h) is keyed by its entry, its raw word
 * (the sampled PC as the kernel gave it: what the hash of a raw chain
 * covers) and its attributed frame (the same PC may be another image's
 * after a remap).  Under a folded entry the raw word is 0 and the hash is
 * hash_leaf's of the entry's and f. */
static struct stack_leaf	*leaves;
static size_t			 nleaves, capleaves;	/* capleaves: 0 or 2^k */
static unsigned			 leafshift;		/* 32 - k */
/* What stack.h's inline lookups read: the above, as publish() leaves
 * them (stack.c writes them nowhere else). */
struct stack_tab		 stack_tab;
static struct stack_frame	*frames;
static size_t			 nframes, capframes;
static size_t			 ndead;		/* raw entries of exited processes */

static inline uint32_t	e_nk(const uint64_t *e) { return (uint32_t)(e[1] & 0xffff); }
static inline uint32_t	e_depth(const uint64_t *e) { return (uint32_t)(e[1] >> 32); }
static inline uint32_t	e_stream(const uint64_t *e) { return (uint32_t)(e[0] >> 32); }
static inline uint32_t	e_pid(const uint64_t *e) { return (uint32_t)e[0]; }
static inline size_t
e_words(const uint64_t *e)
{
	return E_HDR + (e_nk(e) == FOLDED ? 1 : e_nk(e));
}

/* The arena and the leaf table changed (grown, emptied, rebuilt): the
 * inline lookups are told. */
static void
publish(void)
{
	stack_tab.arena = arena;
	stack_tab.leaves = leaves;
	stack_tab.mask = capleaves > 0 ? capleaves - 1 : 0;
	stack_tab.shift = leafshift;
}

static void
stack_exit_hook(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	(void)ppid;
	(void)ptid;
	if (pid == tid)
		stack_exit(pid);
}

static const struct proc_hooks stack_hooks = { NULL, NULL, stack_exit_hook };

void
stack_init(void)
{
	htab_init(&table);
	proc_set_hooks(PROC_STACK, &stack_hooks);
}

/* Everything forgotten: the arrays' owners are the caller's now. */
static void
reset(void)
{
	htab_fini(&table);
	htab_init(&table);
	arena = NULL;
	leaves = NULL;
	frames = NULL;
	narena = caparena = nents = nleaves = capleaves = 0;
	nframes = capframes = ndead = 0;
	leafshift = 0;
	publish();
}

/* p's raw chains are forgotten or folded: stack.c holds it no more. */
static void
proc_let_go(struct proc *p, struct htab_iter *it)
{
	p->chains = 0;
	p->chains_dead = 0;
	proc_release(p, PROC_STACK, it);
}

void
stack_clear(void)
{
	struct htab_iter it;
	struct proc *p;

	free(arena);
	free(leaves);
	free(frames);
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_STACK, &it)) != NULL)
		proc_let_go(p, &it);
	reset();
}

void
stack_fini(void)
{
	proc_set_hooks(PROC_STACK, NULL);
	stack_clear();
}

/* A key's hash: the words before the leaf (one or two context markers)
 * and their count into the seed, then four multiplicative lanes over the
 * callers' words, whose multiplies wait on each other only within a lane. */
static inline uint64_t
hash_key(uint32_t stream, uint32_t pid, const uint64_t *pre, uint32_t li,
    const uint64_t *w, uint32_t n)
{
	uint64_t a = ((uint64_t)stream << 32 | pid) ^ ((uint64_t)li << 16 | n);
	uint64_t b = a ^ 0x6a09e667f3bcc908ULL, c = a ^ 0xbb67ae8584caa73bULL;
	uint64_t d = a ^ 0x3c6ef372fe94f82bULL;
	const uint64_t *end = w + n, *end4 = w + (n & ~3U);
	uint32_t i;

	for (i = 0; i < li; i++)
		a = (a ^ pre[i]) * K;
	for (; w < end4; w += 4) {
		a = (a ^ w[0]) * K;
		b = (b ^ w[1]) * K;
		c = (c ^ w[2]) * K;
		d = (d ^ w[3]) * K;
	}
	if (w < end)
		b = (b ^ *w++) * K;
	if (w < end)
		c = (c ^ *w++) * K;
	if (w < end)
		d = (d ^ *w) * K;
	a ^= (b << 16 | b >> 48) ^ (c << 32 | c >> 32) ^ (d << 48 | d >> 16);
	return (a ^ a >> 29) * K;
}

/* The key of a raw chain ips[0..n) less its leaf at ips[li]. */
static inline uint64_t
hash_split(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n, uint32_t li)
{
	return hash_key(stream, pid, ips, li, ips + li + 1, n - li - 1);
}

/* A folded entry's key: its attributed frames. */
static uint64_t
hash_frames(uint32_t stream, const struct stack_frame *f, uint32_t depth)
{
	uint64_t h = ((uint64_t)stream << 32 | FOLDED) ^ depth;
	uint32_t i;

	for (i = 0; i < depth; i++)
		h = (h ^ ((uint64_t)f[i].image << 32 | f[i].offset)) * K;
	return (h ^ h >> 29) * K;
}

static inline uint64_t
hash_leaf(uint64_t callers, struct stack_frame f)
{
	uint64_t h = (callers ^ ((uint64_t)f.image << 32 | f.offset)) * K;

	return h ^ h >> 32;
}

static inline uint32_t
tag_of(uint64_t h)
{
	return stack_tag(h);
}

static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 256;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	*cap = c;
	return xreallocarray(p, c, size);
}

static inline size_t
leaf_home(uint32_t tag)
{
	return (size_t)(tag >> leafshift);
}

/* n zeroed slots aligned to a cache line, so that a slot is one line,
 * not two; from 2 MiB on, in huge pages where the kernel gives them
 * (transparent_hugepage madvise, Debian's default): the probes are random,
 * and in 4 KiB pages each would also miss the TLB (sample_path -G 16,
 * uniform: 5% of the time, bench/README). */
static struct stack_leaf *
leaves_alloc(size_t n)
{
	size_t size = n * sizeof(struct stack_leaf);
	void *p;

	/* (n is a power of two of at most 2^32: the size cannot wrap.) */
	if ((errno = posix_memalign(&p, size >= HUGE_PAGE ? HUGE_PAGE : 64, size)) != 0)
		fatal("posix_memalign %zu x %zu bytes", n, sizeof(struct stack_leaf));
	if (size >= HUGE_PAGE)
		(void)madvise(p, size, MADV_HUGEPAGE);
	return memset(p, 0, size);
}

/* The leaves in a table of the least power of two slots (1,024 or
 * more) that holds n at most 3/4 full.  They come in the order of their
 * old slots, which is that of their hashes: into a table growing as they
 * came they would pile up at its start (linear probing's worst case:
 * 0.65 s instead of 0.13 to fold 120,000), hence the size first. */
static void
leaves_resize(size_t n)
{
	struct stack_leaf *old = leaves;
	size_t ocap = capleaves, i, j;

	for (capleaves = 1024; n * 4 > capleaves * 3; capleaves *= 2)
		;
	/* (A tag of 32 bits homes 2^32 slots: 128 GiB of them.) */
	leafshift = 32 - (unsigned)__builtin_ctzll(capleaves);
	leaves = leaves_alloc(capleaves);
	for (i = 0; i < ocap; i++) {
		if (old[i].count == 0)
			continue;
		for (j = leaf_home(old[i].tag); leaves[j].count != 0;
		    j = (j + 1) & (capleaves - 1))
			;
		leaves[j] = old[i];
	}
	free(old);
	publish();
}

/* Room for one more leaf: the slots doubled and refilled past 3/4. */
static void
leaves_room(void)
{
	if ((nleaves + 1) * 4 > capleaves * 3)
		leaves_resize(nleaves + 1);
}

/* count more samples of leaf (ip, f) under entry o, tag that of the
 * leaf's hash. */
static void
count_leaf(uint32_t o, uint32_t tag, uint64_t ip, struct stack_frame f,
    uint64_t count)
{
	struct stack_leaf *l;
	size_t i;

	leaves_room();
	for (i = leaf_home(tag); (l = &leaves[i])->count != 0; i = (i + 1) & (capleaves - 1))
		if (l->tag == tag && l->entry == o && l->ip == ip &&
		    l->f.image == f.image && l->f.offset == f.offset) {
			l->count = l->count > UINT64_MAX - count ? UINT64_MAX :
			    l->count + count;
			return;
		}
	*l = (struct stack_leaf){ tag, o, count, ip, f };
	nleaves++;
}

int
stack_count_from(size_t i, uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf)
{
	struct stack_leaf *l;
	uint32_t tag = tag_of(h);

	for (; (l = &leaves[i])->count != 0; i = (i + 1) & (capleaves - 1))
		if (l->tag == tag && l->ip == ips[li] &&
		    l->f.image == leaf.image && l->f.offset == leaf.offset &&
		    stack_same_key(arena + l->entry, stream, pid, ips, n, li)) {
			if (l->count < UINT64_MAX)
				l->count++;
			return 1;
		}
	return stack_count_new(h, stream, pid, ips, n, li, leaf);
}

int
stack_count_new(uint64_t h, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf)
{
	struct htab_iter it;
	uint64_t hk = hash_split(stream, pid, ips, n, li);
	uintptr_t v;

	for (v = htab_first(&table, hk, &it); v != 0; v = htab_next(&table, &it))
		if (stack_same_key(arena + v - 1, stream, pid, ips, n, li)) {
			count_leaf((uint32_t)(v - 1), tag_of(h), ips[li], leaf, 1);
			return 1;
		}
	return 0;
}

int
stack_count(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, struct stack_frame leaf)
{
	return stack_count_hashed(stack_hash(pid, ips, n), stream, pid, ips, n,
	    li, leaf);
}

/* A new entry's header, its nk raw words left for the caller to write; its
 * o, or -1 past the 32 bits of a leaf's entry. */
static int64_t
new_entry(uint32_t stream, uint32_t pid, uint32_t nk, uint32_t li,
    const struct stack_frame *f, uint32_t depth, uint64_t h)
{
	size_t o = narena, w = E_HDR + (nk == FOLDED ? 1 : nk);

	if (o + w > UINT32_MAX)
		return -1;
	arena = grow(arena, &caparena, narena + w, sizeof(*arena));
	publish();
	frames = grow(frames, &capframes, nframes + depth, sizeof(*frames));
	arena[o] = (uint64_t)stream << 32 | pid;
	arena[o + 1] = (uint64_t)depth << 32 | li << 16 | nk;
	arena[o + 2] = nframes;
	/* (memcpy is not given the NULL of an empty array.) */
	if (depth > 0)
		memcpy(frames + nframes, f, depth * sizeof(*f));
	nframes += depth;
	narena += w;
	nents++;
	xhtab_add(&table, h, o + 1);
	return (int64_t)o;
}

/* The folded entry of stream whose callers are f[0..depth) (hash h),
 * found or added. */
static int64_t
folded_entry(uint32_t stream, const struct stack_frame *f, uint32_t depth,
    uint64_t h)
{
	struct htab_iter it;
	const uint64_t *e;
	uintptr_t v;
	int64_t o;

	for (v = htab_first(&table, h, &it); v != 0; v = htab_next(&table, &it)) {
		e = arena + v - 1;
		if (e_nk(e) == FOLDED && e_stream(e) == stream && e_depth(e) == depth &&
		    (depth == 0 || memcmp(frames + e[2], f, depth * sizeof(*f)) == 0))
			return (int64_t)(v - 1);
	}
	if ((o = new_entry(stream, 0, FOLDED, 0, f, depth, h)) != -1)
		arena[o + 3] = h;
	return o;
}

/*
 * The entries of exited processes become folded entries (those already
 * folded stay so, merged with the new), their leaves added up; live
 * processes' entries are kept as they are.  Rebuilds every array, so it
 * runs only once the dead are half the entries: each entry is moved a
 * bounded number of times in all.
 */
static void
fold(void)
{
	uint64_t *oarena = arena, *e;
	struct stack_leaf *oleaves = leaves, *l;
	struct stack_frame *oframes = frames;
	struct htab_iter it;
	struct proc *p;
	size_t onarena = narena, ocapleaves = capleaves, onleaves = nleaves;
	size_t i, o;
	uint32_t nk, li;
	uint64_t h;
	int64_t to;

	reset();
	leaves_resize(onleaves);	/* (see there) */
	/* The live processes keep their raw entries (and their counts). */
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_STACK, &it)) != NULL)
		if (p->chains_dead)
			proc_let_go(p, &it);
	/* Each old entry's [2] is then overwritten by where it went
	 * (UINT64_MAX: nowhere, past the 32 bits of an o), for its leaves. */
	for (o = 0; o < onarena; o += e_words(e)) {
		e = oarena + o;
		nk = e_nk(e);
		if (nk == FOLDED || proc_find(e_pid(e), PROC_STACK) == NULL) {
			h = nk == FOLDED ? e[3] :
			    hash_frames(e_stream(e), oframes + e[2], e_depth(e));
			to = folded_entry(e_stream(e), oframes + e[2], e_depth(e), h);
		} else {
			li = (uint32_t)(e[1] >> 16 & 0xffff);
			h = hash_key(e_stream(e), e_pid(e), e + E_HDR, li,
			    e + E_HDR + li, nk - li);
			to = new_entry(e_stream(e), e_pid(e), nk, li,
			    oframes + e[2], e_depth(e), h);
			if (to != -1 && nk > 0)
				memcpy(arena + to + E_HDR, e + E_HDR, nk * sizeof(*e));
		}
		e[2] = (uint64_t)to;
	}
	/* A leaf under a live entry keeps its raw word and hash; under a
	 * folded one it is its frame only, those of all processes added. */
	for (i = 0; i < ocapleaves; i++) {
		l = &oleaves[i];
		if (l->count == 0 || (o = oarena[l->entry + 2]) == UINT64_MAX)
			continue;
		e = arena + o;
		if (e_nk(e) == FOLDED)
			count_leaf((uint32_t)o, tag_of(hash_leaf(e[3], l->f)), 0,
			    l->f, l->count);
		else
			count_leaf((uint32_t)o, l->tag, l->ip, l->f, l->count);
	}
	if (nleaves < capleaves / 4)
		leaves_resize(nleaves);
	free(oarena);
	free(oleaves);
	free(oframes);
}

void
stack_add_hashed(uint64_t hl, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li,
    const struct stack_frame *callers, uint32_t depth, struct stack_frame leaf)
{
	struct proc *p;
	uint64_t h = hash_split(stream, pid, ips, n, li);
	int64_t o;

	if ((o = new_entry(stream, pid, n - 1, li, callers, depth, h)) == -1)
		return;
	if (li > 0)
		memcpy(arena + o + E_HDR, ips, li * sizeof(*ips));
	if (li + 1 < n)
		memcpy(arena + o + E_HDR + li, ips + li + 1,
		    (n - li - 1) * sizeof(*ips));
	count_leaf((uint32_t)o, tag_of(hl), ips[li], leaf, 1);
	if ((p = proc_find(pid, PROC_STACK)) == NULL)
		p = proc_hold(pid, PROC_STACK);
	else if (p->chains_dead)
		/* A process is sampled a while after its exit record (in
		 * the kernel, as it exits): its late chains are dead too.
		 * (So are a new process's under the pid reused before the
		 * next fold: folded, they are only attributed again.) */
		ndead++;
	p->chains++;
}

void
stack_add(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, const struct stack_frame *callers, uint32_t depth,
    struct stack_frame leaf)
{
	stack_add_hashed(stack_hash(pid, ips, n), stream, pid, ips, n, li,
	    callers, depth, leaf);
}

void
stack_exit(uint32_t pid)
{
	struct proc *p;

	if ((p = proc_find(pid, PROC_STACK)) == NULL || p->chains_dead)
		return;
	p->chains_dead = 1;
	ndead += p->chains;
	if (ndead >= FOLD_MIN && ndead >= nents / 2)
		fold();
}

static int
cmp_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void
stack_rename(uint32_t *set, size_t nset, stack_entry_cb cb,
    stack_leaf_cb leaf_cb, void *arg)
{
	uint64_t *e;
	uint32_t li, pid;
	size_t o, i;

	if (nset == 0)
		return;
	qsort(set, nset, sizeof(*set), cmp_pid);
	for (o = 0; o < narena; o += e_words(e)) {
		e = arena + o;
		pid = e_pid(e);
		if (e_nk(e) == FOLDED ||
		    bsearch(&pid, set, nset, sizeof(*set), cmp_pid) == NULL)
			continue;
		li = (uint32_t)(e[1] >> 16 & 0xffff);
		cb(pid, e + E_HDR, e_nk(e), li, frames + e[2], e_depth(e), arg);
	}
	for (i = 0; i < capleaves; i++) {
		if (leaves[i].count == 0)
			continue;
		e = arena + leaves[i].entry;
		pid = e_pid(e);
		if (e_nk(e) == FOLDED ||
		    bsearch(&pid, set, nset, sizeof(*set), cmp_pid) == NULL)
			continue;
		li = (uint32_t)(e[1] >> 16 & 0xffff);
		leaf_cb(pid, e + E_HDR, e_nk(e), li, leaves[i].ip, &leaves[i].f, arg);
	}
}

int
stack_each(stack_cb cb, void *arg)
{
	struct stack_frame f[1 + STACK_CALLERS_MAX];
	const uint64_t *e;
	uint32_t depth;
	size_t i;
	int r;

	for (i = 0; i < capleaves; i++) {
		if (leaves[i].count == 0)
			continue;
		e = arena + leaves[i].entry;
		depth = e_depth(e);
		f[0] = leaves[i].f;
		if (depth > 0)
			memcpy(f + 1, frames + e[2], depth * sizeof(*f));
		if ((r = cb(e_stream(e), f, 1 + depth, leaves[i].count, arg)) != 0)
			return r;
	}
	return 0;
}

size_t
stack_memory(void)
{
	return caparena * sizeof(*arena) + capleaves * sizeof(*leaves) +
	    capframes * sizeof(*frames) + htab_memory(&table);
}

size_t
stack_entries(void)
{
	return nleaves;
}
