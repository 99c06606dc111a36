/*
 * The hash table of htab.h.  Deletion shifts the following entries back
 * (no tombstones), so lookups never slow down in a table with churn such
 * as dcpid's processes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"

#define MIN_CAP	16

void
htab_init(struct htab *t)
{
	memset(t, 0, sizeof(*t));
}

void
htab_fini(struct htab *t)
{
	free(t->slot);
	htab_init(t);
}

static void
put(struct htab *t, uint64_t h, uintptr_t val)
{
	size_t i = htab_home(t, h);

	while (t->slot[i].val != 0)
		i = (i + 1) & (t->cap - 1);
	t->slot[i].hash = h;
	t->slot[i].val = val;
}

/* Grows the slot array to cap slots (a power of two above t->cap). */
static int
resize(struct htab *t, size_t cap)
{
	struct htab_slot *old = t->slot, *ns;
	size_t oldcap = t->cap, i;

	if (cap > SIZE_MAX / sizeof(*ns) || cap < oldcap) {
		errno = ENOMEM;
		return -1;
	}
	if ((ns = calloc(cap, sizeof(*ns))) == NULL)
		return -1;
	t->slot = ns;
	t->cap = cap;
	t->shift = 64 - (unsigned)__builtin_ctzll(cap);
	for (i = 0; i < oldcap; i++)
		if (old[i].val != 0)
			put(t, old[i].hash, old[i].val);
	free(old);
	return 0;
}

static int
grow(struct htab *t)
{
	return resize(t, t->cap ? t->cap * 2 : MIN_CAP);
}

int
htab_reserve(struct htab *t, size_t n)
{
	size_t cap = t->cap ? t->cap : MIN_CAP;

	/* As htab_add: at most 3/4 full. */
	while (cap < SIZE_MAX / 4 && n * 4 > cap * 3)
		cap *= 2;
	if (n > SIZE_MAX / 4 || n * 4 > cap * 3) {
		errno = ENOMEM;
		return -1;
	}
	return cap == t->cap ? 0 : resize(t, cap);
}

int
htab_add(struct htab *t, uint64_t h, uintptr_t val)
{
	if ((t->n + 1) * 4 > t->cap * 3 && grow(t) == -1)
		return -1;
	put(t, h, val);
	t->n++;
	return 0;
}

void
htab_del(struct htab *t, struct htab_iter *it)
{
	size_t mask = t->cap - 1, i = it->i, j = i, k;

	/* Backward shift: an entry after the hole moves into it unless its
	 * home lies cyclically in (hole, entry], where it would no longer be
	 * found. */
	for (;;) {
		j = (j + 1) & mask;
		if (t->slot[j].val == 0)
			break;
		k = htab_home(t, t->slot[j].hash);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->slot[i] = t->slot[j];
		i = j;
	}
	t->slot[i].val = 0;
	t->slot[i].hash = 0;
	t->n--;
	/* The slot just emptied, or refilled by a shifted entry, comes
	 * next. */
	it->i = (it->i - 1) & mask;
	it->count--;
}

uintptr_t
htab_each(const struct htab *t, struct htab_iter *it)
{
	if (t->cap == 0)
		return 0;
	/* The walk starts after an empty slot (there is one: the table is
	 * at most 3/4 full), so no run of entries wraps around its start, and
	 * htab_del's shifts only move entries not seen yet into the slot
	 * seen last, which is seen again. */
	if (it->count == 0)
		for (it->start = 0; t->slot[it->start].val != 0; it->start++)
			;
	while (it->count < t->cap) {
		it->i = (it->start + 1 + it->count++) & (t->cap - 1);
		if (t->slot[it->i].val != 0)
			return t->slot[it->i].val;
	}
	return 0;
}

size_t
htab_memory(const struct htab *t)
{
	return t->cap * sizeof(*t->slot);
}
