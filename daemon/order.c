/*
 * The queue is an array of copies, sorted (stable, by time then arrival)
 * each time it is processed.  Each CPU's buffer is nearly in time order
 * already and a drain holds a second or so of records, so a sort per drain
 * costs little and is simpler than perf's per-CPU merge.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "order.h"
#include "xmalloc.h"

struct qrec {
	uint64_t	 time;
	uint64_t	 seq;	/* arrival order: ties keep it */
	size_t		 size;
	uint64_t	*data;	/* 8-byte aligned copy */
};

static struct qrec	*q;
static size_t		 nq, capq;
static uint64_t		 seq;
static size_t		 bytes;

void
order_init(void)
{
	q = NULL;
	nq = capq = 0;
	seq = 0;
	bytes = 0;
}

void
order_fini(void)
{
	size_t i;

	for (i = 0; i < nq; i++)
		free(q[i].data);
	free(q);
	order_init();
}

void
order_push(const void *rec, size_t size, uint64_t time)
{
	struct qrec *r;

	if (nq == capq) {
		capq = capq ? capq * 2 : 1024;
		q = xreallocarray(q, capq, sizeof(*q));
	}
	r = &q[nq++];
	r->time = time;
	r->seq = seq++;
	r->size = size;
	r->data = xmalloc(size ? (size + 7) & ~(size_t)7 : 8);
	memcpy(r->data, rec, size);
	bytes += size;
}

static int
cmp_qrec(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t
order_process(uint64_t safe, order_cb cb, void *arg)
{
	size_t i, n;

	if (nq == 0)
		return 0;
	qsort(q, nq, sizeof(*q), cmp_qrec);
	for (n = 0; n < nq && q[n].time <= safe; n++)
		;
	for (i = 0; i < n; i++) {
		cb(q[i].data, q[i].size, q[i].time, arg);
		bytes -= q[i].size;
		free(q[i].data);
	}
	memmove(q, q + n, (nq - n) * sizeof(*q));
	nq -= n;
	return n;
}

size_t
order_queued(void)
{
	return nq;
}

size_t
order_memory(void)
{
	return bytes + capq * sizeof(*q);
}
