/*
 * Records are copied into one arena (a malloc per record cost a fifth of
 * the sample path) and indexed by an array of (time, offset, size).  Each
 * ring buffer is read in time order, so a drain of n buffers leaves the
 * index as at most about n ascending runs after the sorted leftover of the
 * previous drain; a bottom-up merge of those runs costs one pass per
 * doubling of the number of runs, against qsort's log2(records) passes
 * through a comparison function.  The merge keeps the left record on
 * ties, so it is stable: equal times stay in queue order.  Records left
 * queued are compacted into a second arena, which also lets the arenas
 * shrink after a burst.  Compaction waits until at least half of the
 * index has been handed out: core.c hands the queue out one timestamp at
 * a time between runs of samples read in place (order_next), and a
 * compaction per call would copy the rest of the queue each time.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "xmalloc.h"

#define ARENA_MIN	65536
#define INDEX_MIN	1024

struct qrec {
	uint64_t	 time;
	size_t		 off;	/* in arena, 8-byte aligned */
	size_t		 size;
};

static struct qrec	*q, *tmp;	/* index; merge buffer */
static size_t		*runs;		/* run starts, capq + 1 */
static size_t		 nq, capq;
static size_t		 qh;		/* q[0..qh) handed out, not yet compacted */
static int		 unsorted;	/* pushed since the last sort */
static unsigned char	*arena, *spare;	/* spare: compaction target */
static size_t		 alen, acap;	/* both arenas hold acap bytes */

static size_t
padded(size_t size)
{
	return size ? (size + 7) & ~(size_t)7 : 8;
}

static void
set_index_cap(size_t cap)
{
	capq = cap;
	q = xreallocarray(q, capq, sizeof(*q));
	tmp = xreallocarray(tmp, capq, sizeof(*tmp));
	runs = xreallocarray(runs, capq + 1, sizeof(*runs));
}

static size_t
pow2_at_least(size_t n, size_t min)
{
	size_t c = min;

	while (c < n)
		c *= 2;
	return c;
}

void
order_init(void)
{
	q = tmp = NULL;
	runs = NULL;
	nq = capq = qh = 0;
	unsorted = 0;
	arena = spare = NULL;
	alen = acap = 0;
}

void
order_fini(void)
{
	free(q);
	free(tmp);
	free(runs);
	free(arena);
	free(spare);
	order_init();
}

void
order_push(const void *rec, size_t size, uint64_t time)
{
	size_t asz = padded(size);
	struct qrec *r;

	if (nq == capq)
		set_index_cap(capq ? capq * 2 : INDEX_MIN);
	if (alen + asz > acap) {
		acap = pow2_at_least(alen + asz, acap ? acap * 2 : ARENA_MIN);
		arena = xreallocarray(arena, acap, 1);
	}
	r = &q[nq++];
	unsorted = 1;
	r->time = time;
	r->off = alen;
	r->size = size;
	memcpy(arena + alen, rec, size);
	alen += asz;
}

/* Sorts q[qh..nq), stably. */
static void
merge_sort(void)
{
	struct qrec *a = q, *b = tmp, *t;
	size_t nr = 0, i, k, m;

	unsorted = 0;
	runs[nr++] = qh;
	for (i = qh + 1; i < nq; i++)
		if (q[i].time < q[i - 1].time)
			runs[nr++] = i;
	runs[nr] = nq;
	/* Already sorted (the common case between two pushes): the
	 * handed-out part stays where it is. */
	if (nr == 1)
		return;
	while (nr > 1) {
		for (k = m = 0; k < nr; k += 2) {
			size_t lo = runs[k], mid, hi, x, y, o;

			runs[m++] = lo;
			if (k + 1 == nr) {	/* odd run out: copied as is */
				memcpy(b + lo, a + lo, (nq - lo) * sizeof(*a));
				break;
			}
			mid = runs[k + 1];
			hi = runs[k + 2];
			for (x = o = lo, y = mid; x < mid && y < hi; )
				b[o++] = a[y].time < a[x].time ? a[y++] : a[x++];
			memcpy(b + o, a + x, (mid - x) * sizeof(*a));
			o += mid - x;
			memcpy(b + o, a + y, (hi - y) * sizeof(*a));
		}
		runs[m] = nq;
		nr = m;
		t = a;
		a = b;
		b = t;
	}
	/* The handed-out entries, left out of the merge, go along. */
	if (qh > 0 && a != q)
		memcpy(a, q, qh * sizeof(*a));
	q = a;
	tmp = b;
}

/* Drops the first qh index entries (handed out) and moves the others'
 * records to the front of the spare arena, which becomes the arena.  Both
 * arenas and the index shrink when a quarter or less of them is in use. */
static void
compact(void)
{
	size_t i, need = 0, cap = acap, len = 0;
	unsigned char *t;

	memmove(q, q + qh, (nq - qh) * sizeof(*q));
	nq -= qh;
	qh = 0;
	if (capq > INDEX_MIN && nq <= capq / 4)
		set_index_cap(pow2_at_least(2 * nq, INDEX_MIN));
	for (i = 0; i < nq; i++)
		need += padded(q[i].size);
	if (acap > ARENA_MIN && need <= acap / 4)
		cap = pow2_at_least(2 * need, ARENA_MIN);
	spare = xreallocarray(spare, cap, 1);
	for (i = 0; i < nq; i++) {
		memcpy(spare + len, arena + q[i].off, q[i].size);
		q[i].off = len;
		len += padded(q[i].size);
	}
	t = arena;
	arena = spare;
	spare = t;
	if (cap != acap)
		spare = xreallocarray(spare, cap, 1);
	acap = cap;
	alen = len;
}

int
order_next(uint64_t *time)
{
	if (unsorted)
		merge_sort();
	if (qh == nq)
		return -1;
	*time = q[qh].time;
	return 0;
}

size_t
order_process_ahead(uint64_t safe, order_cb cb, order_ahead_cb ahead,
    size_t dist, void *arg)
{
	size_t i, n;

	if (qh == nq)
		return 0;
	if (unsorted)
		merge_sort();
	for (n = qh; n < nq && q[n].time <= safe; n++)
		;
	/* ahead sees record i + dist before cb sees record i, every record
	 * once and in the same order: the first dist before the first cb.
	 * (Without ahead, the loop that has no test for it.) */
	if (ahead == NULL || dist > n - qh)
		dist = n - qh;
	for (i = qh; ahead != NULL && i < qh + dist; i++)
		ahead(arena + q[i].off, q[i].size, arg);
	for (i = qh; i + dist < n; i++) {
		ahead(arena + q[i + dist].off, q[i + dist].size, arg);
		cb(arena + q[i].off, q[i].size, q[i].time, arg);
	}
	for (; i < n; i++)
		cb(arena + q[i].off, q[i].size, q[i].time, arg);
	n -= qh;
	qh += n;
	if (qh == nq || 2 * qh >= nq)
		compact();
	return n;
}

size_t
order_process(uint64_t safe, order_cb cb, void *arg)
{
	return order_process_ahead(safe, cb, NULL, 0, arg);
}

size_t
order_queued(void)
{
	return nq - qh;
}

size_t
order_memory(void)
{
	return capq * (2 * sizeof(*q) + sizeof(*runs)) + 2 * acap;
}
