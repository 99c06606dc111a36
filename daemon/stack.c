/*
 * Call chains since the last flush (daemon/stack.h).  A chain is its
 * leaf, the sampled PC, which the flat path has attributed already, and
 * its callers, which are few per process however many PCs a hot function
 * has: the callers are the entries (one per stream, pid and raw caller
 * words, attributed once), and the leaves are rows under an entry.  A
 * sample seen before is one probe of the leaf table, whose hash covers
 * the callers' words and the leaf, and one compare of the words: the
 * entry table is walked only for a leaf new under its callers.
 *
 * Entries of processes that have exited are folded, once they are half
 * the table, into entries keyed by their attributed frames and shared
 * across processes (a build's compilers each have their own pid, and so
 * their own raw entries, but few distinct stacks): the memory held grows
 * with the distinct attributed stacks, not with the samples.  Everything
 * lives in arrays that grow until the flush empties them, or a fold
 * rebuilds them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "stack.h"
#include "xmalloc.h"

#define FOLDED		UINT16_MAX	/* centry.nk: keyed by frames */
#define FOLD_MIN	4096		/* dead entries before a fold */
#define K		0x9e3779b97f4a7c15ULL

struct centry {				/* callers: raw words, or folded */
	uint32_t	 stream, pid;
	uint16_t	 nk;		/* raw words; FOLDED: none, no pid */
	uint16_t	 li;		/* where the leaf was among them */
	uint32_t	 depth;
	size_t		 key;		/* raw words at keys[key] */
	size_t		 frames;	/* callers at frames[frames] */
};

struct leaf {				/* samples of a leaf under a chain */
	uint64_t	 hash;		/* hash_leaf of the callers and f */
	uint64_t	 count;		/* 0: an empty slot */
	uint32_t	 entry;
	struct stack_frame f;
};

struct pidc {				/* raw entries of a process */
	uint32_t	 pid, dead;
	size_t		 nraw;
};

static struct htab		 table;		/* callers hash -> centry index + 1 */
static struct htab		 pidtab;	/* pid -> pidc index + 1 */
static struct centry		*ents;
static size_t			 nents, capents;
/* The leaves are the slots of their own table (open addressing, linear
 * probing, at most 3/4 full), not values of a lib/htab.h one: a sample
 * seen before then costs one cache miss in this large table, not two. */
static struct leaf		*leaves;
static size_t			 nleaves, capleaves;	/* capleaves: 0 or 2^k */
static unsigned			 leafshift;		/* 64 - k */
static uint64_t			*keys;
static size_t			 nkeys, capkeys;
static struct stack_frame	*frames;
static size_t			 nframes, capframes;
static struct pidc		*pids;
static size_t			 npids, cappids;
static size_t			 ndead;		/* raw entries of exited processes */

void
stack_init(void)
{
	htab_init(&table);
	htab_init(&pidtab);
}

void
stack_clear(void)
{
	htab_fini(&table);
	htab_fini(&pidtab);
	stack_init();
	free(ents);
	free(leaves);
	free(keys);
	free(frames);
	free(pids);
	ents = NULL;
	leaves = NULL;
	keys = NULL;
	frames = NULL;
	pids = NULL;
	nents = capents = nleaves = capleaves = nkeys = capkeys = 0;
	nframes = capframes = npids = cappids = ndead = 0;
	leafshift = 0;
}

void
stack_fini(void)
{
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
leaf_home(uint64_t h)
{
	return (size_t)(h >> leafshift);
}

/* Room for one more leaf: the slots doubled and refilled past 3/4. */
static void
leaves_room(void)
{
	struct leaf *old = leaves;
	size_t ocap = capleaves, i, j;

	if ((nleaves + 1) * 4 <= capleaves * 3)
		return;
	capleaves = ocap ? ocap * 2 : 1024;
	leafshift = 64 - (unsigned)__builtin_ctzll(capleaves);
	leaves = xcalloc(capleaves, sizeof(*leaves));
	for (i = 0; i < ocap; i++) {
		if (old[i].count == 0)
			continue;
		for (j = leaf_home(old[i].hash); leaves[j].count != 0;
		    j = (j + 1) & (capleaves - 1))
			;
		leaves[j] = old[i];
	}
	free(old);
}

/* count more samples of leaf f under entry, whose callers hash to h. */
static void
count_leaf(uint32_t entry, uint64_t h, struct stack_frame f, uint64_t count)
{
	struct leaf *l;
	size_t i;

	leaves_room();
	h = hash_leaf(h, f);
	for (i = leaf_home(h); (l = &leaves[i])->count != 0; i = (i + 1) & (capleaves - 1))
		if (l->hash == h && l->entry == entry && l->f.image == f.image &&
		    l->f.offset == f.offset) {
			l->count = l->count > UINT64_MAX - count ? UINT64_MAX :
			    l->count + count;
			return;
		}
	*l = (struct leaf){ h, count, entry, f };
	nleaves++;
}

/* Do entry e's raw words equal ips[0..n) less ips[li]? */
static inline int
same_key(const struct centry *e, uint32_t stream, uint32_t pid,
    const uint64_t *ips, uint32_t n, uint32_t li)
{
	const uint64_t *k = keys + e->key;
	uint32_t i;

	if (e->stream != stream || e->pid != pid || e->nk != n - 1 || e->li != li)
		return 0;
	/* Before the leaf: context markers, one or two words. */
	for (i = 0; i < li; i++)
		if (k[i] != ips[i])
			return 0;
	return li + 1 == n ||
	    memcmp(k + li, ips + li + 1, (n - li - 1) * sizeof(*ips)) == 0;
}

int
stack_count(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, struct stack_frame leaf)
{
	struct htab_iter it;
	const struct leaf *l;
	uint64_t h = hash_split(stream, pid, ips, n, li), hl = hash_leaf(h, leaf);
	uintptr_t v;
	size_t i;

	/* The leaf seen before under these callers: the usual case. */
	if (capleaves > 0)
		for (i = leaf_home(hl); (l = &leaves[i])->count != 0;
		    i = (i + 1) & (capleaves - 1))
			if (l->hash == hl && l->f.image == leaf.image &&
			    l->f.offset == leaf.offset &&
			    same_key(&ents[l->entry], stream, pid, ips, n, li)) {
				if (leaves[i].count < UINT64_MAX)
					leaves[i].count++;
				return 1;
			}
	/* A new leaf under known callers. */
	for (v = htab_first(&table, h, &it); v != 0; v = htab_next(&table, &it))
		if (same_key(&ents[v - 1], stream, pid, ips, n, li)) {
			count_leaf((uint32_t)(v - 1), h, leaf, 1);
			return 1;
		}
	return 0;
}

static struct pidc *
pid_find(uint32_t pid)
{
	struct htab_iter it;
	uintptr_t v;

	for (v = htab_first(&pidtab, pid, &it); v != 0; v = htab_next(&pidtab, &it))
		if (pids[v - 1].pid == pid)
			return &pids[v - 1];
	return NULL;
}

/* An entry of attributed frames f[0..depth) in stream, found or added. */
static uint32_t
folded_entry(uint32_t stream, const struct stack_frame *f, uint32_t depth,
    uint64_t *hp)
{
	struct htab_iter it;
	const struct centry *e;
	uint64_t h = hash_frames(stream, f, depth);
	uintptr_t v;

	*hp = h;
	for (v = htab_first(&table, h, &it); v != 0; v = htab_next(&table, &it)) {
		e = &ents[v - 1];
		if (e->nk == FOLDED && e->stream == stream && e->depth == depth &&
		    (depth == 0 || memcmp(frames + e->frames, f, depth * sizeof(*f)) == 0))
			return (uint32_t)(v - 1);
	}
	ents = grow(ents, &capents, nents + 1, sizeof(*ents));
	frames = grow(frames, &capframes, nframes + depth, sizeof(*frames));
	ents[nents] = (struct centry){ stream, 0, FOLDED, 0, depth, 0, nframes };
	if (depth > 0)
		memcpy(frames + nframes, f, depth * sizeof(*f));
	nframes += depth;
	xhtab_add(&table, h, nents + 1);
	return (uint32_t)nents++;
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
	struct centry *oents = ents;
	struct leaf *oleaves = leaves;
	uint64_t *okeys = keys;
	struct stack_frame *oframes = frames;
	struct pidc *opids = pids;
	size_t onents = nents, ocapleaves = capleaves, onpids = npids, i;
	uint32_t *to = xreallocarray(NULL, onents, sizeof(*to));
	uint64_t *th = xreallocarray(NULL, onents, sizeof(*th));
	const struct centry *e;
	const struct pidc *p;

	ents = NULL, leaves = NULL, keys = NULL, frames = NULL, pids = NULL;
	nents = capents = nleaves = capleaves = nkeys = capkeys = 0;
	nframes = capframes = npids = cappids = ndead = 0;
	leafshift = 0;
	htab_fini(&table);
	htab_fini(&pidtab);
	stack_init();
	for (i = 0; i < onpids; i++)
		if (!opids[i].dead) {
			pids = grow(pids, &cappids, npids + 1, sizeof(*pids));
			pids[npids] = opids[i];
			xhtab_add(&pidtab, opids[i].pid, ++npids);
		}
	for (i = 0; i < onents; i++) {
		e = &oents[i];
		if (e->nk == FOLDED || (p = pid_find(e->pid)) == NULL) {
			to[i] = folded_entry(e->stream, oframes + e->frames,
			    e->depth, &th[i]);
			continue;
		}
		ents = grow(ents, &capents, nents + 1, sizeof(*ents));
		keys = grow(keys, &capkeys, nkeys + e->nk, sizeof(*keys));
		frames = grow(frames, &capframes, nframes + e->depth, sizeof(*frames));
		ents[nents] = (struct centry){ e->stream, e->pid, e->nk, e->li,
		    e->depth, nkeys, nframes };
		if (e->nk > 0)
			memcpy(keys + nkeys, okeys + e->key, e->nk * sizeof(*keys));
		if (e->depth > 0)
			memcpy(frames + nframes, oframes + e->frames,
			    e->depth * sizeof(*frames));
		nkeys += e->nk;
		nframes += e->depth;
		th[i] = hash_key(e->stream, e->pid, okeys + e->key, e->li,
		    okeys + e->key + e->li, e->nk - e->li);
		xhtab_add(&table, th[i], nents + 1);
		to[i] = (uint32_t)nents++;
	}
	for (i = 0; i < ocapleaves; i++)
		if (oleaves[i].count != 0)
			count_leaf(to[oleaves[i].entry], th[oleaves[i].entry],
			    oleaves[i].f, oleaves[i].count);
	free(to);
	free(th);
	free(oents);
	free(oleaves);
	free(okeys);
	free(oframes);
	free(opids);
}

void
stack_add(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, const struct stack_frame *callers, uint32_t depth,
    struct stack_frame leaf)
{
	struct pidc *p;
	uint64_t h = hash_split(stream, pid, ips, n, li);

	ents = grow(ents, &capents, nents + 1, sizeof(*ents));
	keys = grow(keys, &capkeys, nkeys + n - 1, sizeof(*keys));
	frames = grow(frames, &capframes, nframes + depth, sizeof(*frames));
	ents[nents] = (struct centry){ stream, pid, (uint16_t)(n - 1),
	    (uint16_t)li, depth, nkeys, nframes };
	/* (memcpy is not given the NULL of an empty array.) */
	if (li > 0)
		memcpy(keys + nkeys, ips, li * sizeof(*ips));
	if (li + 1 < n)
		memcpy(keys + nkeys + li, ips + li + 1, (n - li - 1) * sizeof(*ips));
	if (depth > 0)
		memcpy(frames + nframes, callers, depth * sizeof(*callers));
	nkeys += n - 1;
	nframes += depth;
	xhtab_add(&table, h, nents + 1);
	count_leaf((uint32_t)nents++, h, leaf, 1);
	if ((p = pid_find(pid)) == NULL) {
		pids = grow(pids, &cappids, npids + 1, sizeof(*pids));
		pids[npids] = (struct pidc){ pid, 0, 0 };
		xhtab_add(&pidtab, pid, ++npids);
		p = &pids[npids - 1];
	} else if (p->dead) {
		/* The pid is a new process's: the old one's entries stay
		 * raw until it exits too. */
		p->dead = 0;
		ndead -= p->nraw;
	}
	p->nraw++;
}

void
stack_exit(uint32_t pid)
{
	struct pidc *p;

	if ((p = pid_find(pid)) == NULL || p->dead)
		return;
	p->dead = 1;
	ndead += p->nraw;
	if (ndead >= FOLD_MIN && ndead >= nents / 2)
		fold();
}

int
stack_each(stack_cb cb, void *arg)
{
	struct stack_frame f[1 + STACK_CALLERS_MAX];
	const struct centry *e;
	size_t i;
	int r;

	for (i = 0; i < capleaves; i++) {
		if (leaves[i].count == 0)
			continue;
		e = &ents[leaves[i].entry];
		f[0] = leaves[i].f;
		if (e->depth > 0)
			memcpy(f + 1, frames + e->frames, e->depth * sizeof(*f));
		if ((r = cb(e->stream, f, 1 + e->depth, leaves[i].count, arg)) != 0)
			return r;
	}
	return 0;
}

size_t
stack_memory(void)
{
	return capents * sizeof(*ents) + capleaves * sizeof(*leaves) +
	    capkeys * sizeof(*keys) + capframes * sizeof(*frames) +
	    cappids * sizeof(*pids) + htab_memory(&table) +
	    htab_memory(&pidtab);
}

size_t
stack_entries(void)
{
	return nleaves;
}
