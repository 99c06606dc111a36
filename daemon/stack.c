/*
 * Call chains since the last flush (daemon/stack.h): one entry per
 * (stream, pid, raw chain), found through lib/htab.h by a hash of the
 * three; the raw chains and their attributed frames live in two arenas
 * that only grow until the flush empties them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "stack.h"
#include "xmalloc.h"

struct sentry {
	uint64_t	 count;
	uint32_t	 stream, pid;
	uint32_t	 nr, depth;
	size_t		 raw;		/* ips at raws[raw] */
	size_t		 frames;	/* frames at frames[frames] */
};

static struct htab		 table;		/* hash -> entry index + 1 */
static struct sentry		*ents;
static size_t			 nents, capents;
static uint64_t			*raws;
static size_t			 nraws, capraws;
static struct stack_frame	*frames;
static size_t			 nframes, capframes;

void
stack_init(void)
{
	htab_init(&table);
}

void
stack_clear(void)
{
	htab_fini(&table);
	htab_init(&table);
	free(ents);
	free(raws);
	free(frames);
	ents = NULL;
	raws = NULL;
	frames = NULL;
	nents = capents = nraws = capraws = nframes = capframes = 0;
}

void
stack_fini(void)
{
	stack_clear();
}

static uint64_t
hash_chain(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	uint64_t h = ((uint64_t)stream << 32 | pid) * 0x9e3779b97f4a7c15ULL;
	uint32_t i;

	for (i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 0x100000001b3ULL + (h >> 29);
	return h ^ nr;
}

static struct sentry *
find(uint64_t h, uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	struct htab_iter it;
	struct sentry *e;
	uintptr_t v;

	for (v = htab_first(&table, h, &it); v != 0; v = htab_next(&table, &it)) {
		e = &ents[v - 1];
		if (e->stream == stream && e->pid == pid && e->nr == nr &&
		    memcmp(raws + e->raw, ips, nr * sizeof(*ips)) == 0)
			return e;
	}
	return NULL;
}

int
stack_count(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	struct sentry *e;

	if ((e = find(hash_chain(stream, pid, ips, nr), stream, pid, ips, nr)) == NULL)
		return 0;
	if (e->count < UINT64_MAX)
		e->count++;
	return 1;
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

void
stack_add(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t nr,
    const struct stack_frame *f, uint32_t depth)
{
	struct sentry *e;

	ents = grow(ents, &capents, nents + 1, sizeof(*ents));
	raws = grow(raws, &capraws, nraws + nr, sizeof(*raws));
	frames = grow(frames, &capframes, nframes + depth, sizeof(*frames));
	e = &ents[nents];
	*e = (struct sentry){ 1, stream, pid, nr, depth, nraws, nframes };
	memcpy(raws + nraws, ips, nr * sizeof(*ips));
	memcpy(frames + nframes, f, depth * sizeof(*f));
	nraws += nr;
	nframes += depth;
	xhtab_add(&table, hash_chain(stream, pid, ips, nr), ++nents);
}

int
stack_each(stack_cb cb, void *arg)
{
	size_t i;
	int r;

	for (i = 0; i < nents; i++)
		if ((r = cb(ents[i].stream, frames + ents[i].frames, ents[i].depth,
		    ents[i].count, arg)) != 0)
			return r;
	return 0;
}

size_t
stack_memory(void)
{
	return capents * sizeof(*ents) + capraws * sizeof(*raws) +
	    capframes * sizeof(*frames) + htab_memory(&table);
}

size_t
stack_entries(void)
{
	return nents;
}
