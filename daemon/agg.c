/*
 * One open-addressing hash table (linear probing, power-of-two size, at
 * most 3/4 full) per (stream, image), found through a per-stream array
 * indexed by the image's dense index.  A slot with count 0 is empty.
 *
 * Not lib/htab.c's table, on purpose: these slots are the counts
 * themselves, 8 bytes of (offset, count) handed to flush as they are,
 * where htab's (hash, value) slots take 16.  The counts are most of dcpid's
 * memory, and memory-cap flushes early by their size, so the generic table
 * would halve what fits between flushes; the per-sample lookup is also
 * one inline probe here.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "xmalloc.h"

/* Held in the per-stream array itself, not behind a pointer: the sample
 * path's loads of slot and cap then hit the array's lines, which every
 * sample touches, not a line of their own. */
struct img_table {
	struct dcpi_count	*slot;	/* NULL until used */
	uint32_t		 cap;	/* power of two */
	uint32_t		 used;
};

struct stream_tables {
	struct img_table	*img;	/* by image index */
	size_t		 nimg;
};

static struct stream_tables	*streams;
static size_t		 nstreams;
static size_t		 mem, entries;

/* agg_add's samples not yet counted (below). */
#define AHEAD	8

static struct pending {
	struct img_table	*t;
	uint32_t	 offset;
} pend[AHEAD];
static unsigned	 pendpos;

void
agg_init(void)
{
	streams = NULL;
	nstreams = 0;
	mem = entries = 0;
	memset(pend, 0, sizeof(pend));
}

static void
img_table_free(struct img_table *t)
{
	mem -= t->cap * sizeof(*t->slot);
	entries -= t->used;
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

void
agg_fini(void)
{
	size_t e, i;

	/* agg_add's pending samples go with their tables (agg_init). */
	for (e = 0; e < nstreams; e++) {
		for (i = 0; i < streams[e].nimg; i++)
			img_table_free(&streams[e].img[i]);
		free(streams[e].img);
	}
	free(streams);
	agg_init();
}

static size_t
hash(uint32_t off, uint32_t cap)
{
	/* Fibonacci hashing: PCs are clustered and often aligned, so the
	 * low bits alone would collide. */
	return (size_t)(((uint64_t)off * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static struct dcpi_count *
lookup(struct dcpi_count *slot, uint32_t cap, uint32_t off)
{
	size_t i = hash(off, cap);

	while (slot[i].count != 0 && slot[i].offset != off)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

static void
grow(struct img_table *t)
{
	uint32_t ncap = t->cap ? t->cap * 2 : 64, i;
	struct dcpi_count *ns = xcalloc(ncap, sizeof(*ns));

	for (i = 0; i < t->cap; i++)
		if (t->slot[i].count != 0)
			*lookup(ns, ncap, t->slot[i].offset) = t->slot[i];
	free(t->slot);
	mem += (ncap - t->cap) * sizeof(*ns);
	t->slot = ns;
	t->cap = ncap;
}

static inline __attribute__((always_inline)) void
count(struct img_table *t, uint32_t offset, uint32_t n)
{
	struct dcpi_count *s;

	if (((size_t)t->used + 1) * 4 > (size_t)t->cap * 3)
		grow(t);
	s = lookup(t->slot, t->cap, offset);
	if (s->count == 0) {
		s->offset = offset;
		t->used++;
		entries++;
	}
	s->count = s->count > UINT32_MAX - n ? UINT32_MAX : s->count + n;
}

/*
 * Samples counted AHEAD calls late: each call prefetches its slot's line
 * and counts the sample of AHEAD calls before, whose line has arrived by
 * then.  The tables are too large for the cache between two samples of one
 * image (the ring buffers stream through it), and the probe's miss was a
 * third of the sample path.  Every other entry point settles them first
 * (pend, at the top).
 */
static void
settle(void)
{
	unsigned i;

	for (i = 0; i < AHEAD; i++)
		if (pend[i].t != NULL) {
			count(pend[i].t, pend[i].offset, 1);
			pend[i].t = NULL;
		}
}

/* The first sample of (stream, image) since its counts were written: its
 * table, and the arrays leading to it, are made here, off the common
 * path. */
static int __attribute__((noinline))
add_first(uint32_t stream, uint32_t image, uint32_t offset, uint32_t k)
{
	struct stream_tables *e;

	/* The arrays may move: the pending samples point into them. */
	settle();
	if (stream >= nstreams) {
		streams = xreallocarray(streams, stream + 1, sizeof(*streams));
		memset(streams + nstreams, 0, (stream + 1 - nstreams) * sizeof(*streams));
		nstreams = stream + 1;
	}
	e = &streams[stream];
	if (image >= e->nimg) {
		size_t n = image + 1 > e->nimg * 2 ? image + 1 : e->nimg * 2;

		e->img = xreallocarray(e->img, n, sizeof(*e->img));
		memset(e->img + e->nimg, 0, (n - e->nimg) * sizeof(*e->img));
		e->nimg = n;
	}
	count(&e->img[image], offset, k);
	return 1;
}

int
agg_add(uint32_t stream, uint32_t image, uint32_t offset)
{
	struct pending *p;
	struct img_table *t;

	if (stream >= nstreams || image >= streams[stream].nimg ||
	    (t = &streams[stream].img[image])->slot == NULL)
		return add_first(stream, image, offset, 1);
	__builtin_prefetch(&t->slot[hash(offset, t->cap)], 1);
	p = &pend[pendpos];
	if (p->t != NULL)
		count(p->t, p->offset, 1);
	p->t = t;
	p->offset = offset;
	pendpos = (pendpos + 1) & (AHEAD - 1);
	return 0;
}

int
agg_add_n(uint32_t stream, uint32_t image, uint32_t offset, uint32_t n)
{
	struct img_table *t;

	if (n == 0)
		return 0;
	if (stream >= nstreams || image >= streams[stream].nimg ||
	    (t = &streams[stream].img[image])->slot == NULL)
		return add_first(stream, image, offset, n);
	count(t, offset, n);
	return 0;
}

static int
cmp_off(const void *a, const void *b)
{
	const struct dcpi_count *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void
agg_flush(agg_cb cb, void *arg)
{
	struct dcpi_count *c = NULL;
	size_t cap = 0, e, i, j, n;

	settle();

	for (e = 0; e < nstreams; e++) {
		for (i = 0; i < streams[e].nimg; i++) {
			struct img_table *t = &streams[e].img[i];

			if (t->used == 0)
				continue;
			if (t->used > cap) {
				cap = t->used;
				c = xreallocarray(c, cap, sizeof(*c));
			}
			for (j = n = 0; j < t->cap; j++)
				if (t->slot[j].count != 0)
					c[n++] = t->slot[j];
			qsort(c, n, sizeof(*c), cmp_off);
			if (cb((uint32_t)e, (uint32_t)i, c, n, arg) == 0)
				img_table_free(t);
		}
	}
	free(c);
}

size_t
agg_memory(void)
{
	size_t e, m;

	settle();
	m = mem + nstreams * sizeof(*streams);

	for (e = 0; e < nstreams; e++)
		m += streams[e].nimg * sizeof(*streams[e].img);
	return m;
}

size_t
agg_entries(void)
{
	settle();
	return entries;
}

int
agg_image_counted(uint32_t image)
{
	size_t e;

	settle();
	for (e = 0; e < nstreams; e++)
		if (image < streams[e].nimg && streams[e].img[image].used > 0)
			return 1;
	return 0;
}
