/*
 * Call chains since the last flush (daemon/stack.h).  A chain is its
 * leaf, the sampled PC, which the flat path has attributed already, and
 * its callers, which are few per process however many PCs a hot function
 * has: the callers are the entries (one per stream, pid and raw caller
 * words, found through lib/htab.h, attributed once), and the leaves are
 * counted per entry in a second table.  Both live in arrays that only
 * grow until the flush empties them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "stack.h"
#include "xmalloc.h"

struct centry {				/* a caller chain */
	uint32_t	 stream, pid;
	uint32_t	 nk, depth;
	size_t		 key;		/* raw words at keys[key] */
	size_t		 frames;	/* callers at frames[frames] */
};

struct leaf {				/* samples of a leaf under a chain */
	uint32_t	 entry;
	struct stack_frame f;
	uint64_t	 count;
};

static struct htab		 table;		/* hash -> centry index + 1 */
static struct htab		 leaftab;	/* hash -> leaf index + 1 */
static struct centry		*ents;
static size_t			 nents, capents;
static struct leaf		*leaves;
static size_t			 nleaves, capleaves;
static uint64_t			*keys;
static size_t			 nkeys, capkeys;
static struct stack_frame	*frames;
static size_t			 nframes, capframes;

void
stack_init(void)
{
	htab_init(&table);
	htab_init(&leaftab);
}

void
stack_clear(void)
{
	htab_fini(&table);
	htab_fini(&leaftab);
	stack_init();
	free(ents);
	free(leaves);
	free(keys);
	free(frames);
	ents = NULL;
	leaves = NULL;
	keys = NULL;
	frames = NULL;
	nents = capents = nleaves = capleaves = nkeys = capkeys = 0;
	nframes = capframes = 0;
}

void
stack_fini(void)
{
	stack_clear();
}

/* The key of a raw chain ips[0..n) less its leaf at ips[li], unmade: a
 * multiplicative hash of the words on either side of the leaf, one
 * multiply a word (per sample, over up to a thousand words). */
static uint64_t
hash_split(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n, uint32_t li)
{
	uint64_t h = ((uint64_t)stream << 32 | pid) ^ n;
	uint32_t i;

	for (i = 0; i < li; i++)
		h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ULL;
	for (i = li + 1; i < n; i++)
		h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ULL;
	return h ^ h >> 29;
}

static uint64_t
hash_leaf(uint32_t entry, struct stack_frame f)
{
	return ((uint64_t)entry << 32 ^ (uint64_t)f.image << 40 ^ f.offset) *
	    0x9e3779b97f4a7c15ULL;
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

static void
count_leaf(uint32_t entry, struct stack_frame f)
{
	uint64_t h = hash_leaf(entry, f);
	struct htab_iter it;
	struct leaf *l;
	uintptr_t v;

	for (v = htab_first(&leaftab, h, &it); v != 0; v = htab_next(&leaftab, &it)) {
		l = &leaves[v - 1];
		if (l->entry == entry && l->f.image == f.image && l->f.offset == f.offset) {
			if (l->count < UINT64_MAX)
				l->count++;
			return;
		}
	}
	leaves = grow(leaves, &capleaves, nleaves + 1, sizeof(*leaves));
	leaves[nleaves] = (struct leaf){ entry, f, 1 };
	xhtab_add(&leaftab, h, ++nleaves);
}

int
stack_count(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, struct stack_frame leaf)
{
	struct htab_iter it;
	const struct centry *e;
	uintptr_t v;

	for (v = htab_first(&table, hash_split(stream, pid, ips, n, li), &it); v != 0;
	    v = htab_next(&table, &it)) {
		e = &ents[v - 1];
		if (e->stream == stream && e->pid == pid && e->nk == n - 1 &&
		    (li == 0 || memcmp(keys + e->key, ips, li * sizeof(*ips)) == 0) &&
		    (li + 1 == n || memcmp(keys + e->key + li, ips + li + 1,
		    (n - li - 1) * sizeof(*ips)) == 0)) {
			count_leaf((uint32_t)(v - 1), leaf);
			return 1;
		}
	}
	return 0;
}

void
stack_add(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t n,
    uint32_t li, const struct stack_frame *callers, uint32_t depth,
    struct stack_frame leaf)
{
	ents = grow(ents, &capents, nents + 1, sizeof(*ents));
	keys = grow(keys, &capkeys, nkeys + n - 1, sizeof(*keys));
	frames = grow(frames, &capframes, nframes + depth, sizeof(*frames));
	ents[nents] = (struct centry){ stream, pid, n - 1, depth, nkeys, nframes };
	/* (memcpy is not given the NULL of an empty array.) */
	if (li > 0)
		memcpy(keys + nkeys, ips, li * sizeof(*ips));
	if (li + 1 < n)
		memcpy(keys + nkeys + li, ips + li + 1, (n - li - 1) * sizeof(*ips));
	if (depth > 0)
		memcpy(frames + nframes, callers, depth * sizeof(*callers));
	nkeys += n - 1;
	nframes += depth;
	xhtab_add(&table, hash_split(stream, pid, ips, n, li), nents + 1);
	count_leaf((uint32_t)nents++, leaf);
}

int
stack_each(stack_cb cb, void *arg)
{
	struct stack_frame f[1 + STACK_CALLERS_MAX];
	const struct centry *e;
	size_t i;
	int r;

	for (i = 0; i < nleaves; i++) {
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
	    htab_memory(&table) + htab_memory(&leaftab);
}

size_t
stack_entries(void)
{
	return nleaves;
}
