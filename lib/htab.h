/*
 * One hash table for dcpid, dcpictl and libdcpi (not installed): open
 * addressing with linear probing over a power-of-two array, at most 3/4
 * full, of (hash, value) pairs.  The table holds no keys: a lookup walks
 * the values stored under a hash and the caller compares its own keys, so
 * the one table serves ids, paths, pids and (dev, inode) pairs without
 * callbacks.  Values are the caller's (a pointer, or an index + 1); 0
 * marks an empty slot and cannot be stored.
 *
 *	for (v = htab_first(t, h, &it); v != 0; v = htab_next(t, &it))
 *		if (matches(v, key))
 *			return v;
 */
#ifndef DCPI_HTAB_H
#define DCPI_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_slot {
	uint64_t	 hash;
	uintptr_t	 val;		/* 0: empty */
};

struct htab {
	struct htab_slot *slot;
	size_t		  cap;		/* 0 or a power of two */
	size_t		  n;		/* values stored */
	unsigned	  shift;	/* 64 - log2(cap) */
};

/* A walk over the values of one hash (htab_first), or of all
 * (htab_each). */
struct htab_iter {
	size_t		 i;		/* slot of the value last given */
	uint64_t	 hash;
	size_t		 start, count;	/* htab_each: first slot, slots seen */
};

/* A table all zero is empty and valid: htab_init only says so. */
void htab_init(struct htab *t);
/* Frees the slots; the values are the caller's. */
void htab_fini(struct htab *t);

/* The first value stored under hash h (any 64-bit value: the table mixes
 * it), or 0; htab_next gives the following ones under the same hash, in
 * no particular order.  Adding to the table ends a walk.  Inline: dcpid
 * looks up a process per sample. */
static inline size_t
htab_home(const struct htab *t, uint64_t h)
{
	/* Fibonacci hashing: callers pass pids and other clustered numbers
	 * as they are, and the top bits of the product are well mixed. */
	return (size_t)((h * 0x9e3779b97f4a7c15ULL) >> t->shift);
}

static inline uintptr_t
htab_next(const struct htab *t, struct htab_iter *it)
{
	const struct htab_slot *s;

	for (;;) {
		it->i = (it->i + 1) & (t->cap - 1);
		s = &t->slot[it->i];
		if (s->val == 0)
			return 0;
		if (s->hash == it->hash)
			return s->val;
	}
}

static inline uintptr_t
htab_first(const struct htab *t, uint64_t h, struct htab_iter *it)
{
	it->hash = h;
	if (t->n == 0)
		return 0;
	it->i = (htab_home(t, h) - 1) & (t->cap - 1);
	return htab_next(t, it);
}

/* For values that point to structs holding a uint32_t key at byte off,
 * stored under that key as hash (dcpid's processes by pid): the value
 * whose key is k, it left at its slot for htab_del; 0 if none. */
static inline uintptr_t
htab_find_u32(const struct htab *t, uint32_t k, size_t off, struct htab_iter *it)
{
	uintptr_t v;

	for (v = htab_first(t, k, it); v != 0; v = htab_next(t, it))
		if (*(const uint32_t *)(v + off) == k)
			return v;
	return 0;
}

/* Replaces the value it last returned by val (not 0). */
static inline void
htab_replace(struct htab *t, const struct htab_iter *it, uintptr_t val)
{
	t->slot[it->i].val = val;
}

/* Stores val (not 0) under h, growing the table; a value already stored
 * under h stays, so the caller looks up first when keys are unique.  0, or
 * -1 with ENOMEM and the table unchanged (the programs use xhtab_add of
 * xmalloc.h, which exits instead). */
int htab_add(struct htab *t, uint64_t h, uintptr_t val);

/* Room for n values in all without growing: a reader that knows how many
 * it will add grows the table once, not through every power of two (each
 * growth holds the old slots and the new).  0, or -1 with ENOMEM and the
 * table unchanged. */
int htab_reserve(struct htab *t, size_t n);

/* Removes the value it last returned (from htab_first, htab_next or
 * htab_each); the walk then goes on with the values it has not given
 * yet. */
void htab_del(struct htab *t, struct htab_iter *it);

/* Every value once, htab_del between calls allowed: *it zeroed first, then
 * 0 at the end. */
uintptr_t htab_each(const struct htab *t, struct htab_iter *it);

/* Bytes of the slot array, for memory accounting. */
size_t htab_memory(const struct htab *t);

#endif
