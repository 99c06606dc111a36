/*
 * The ring buffers read, as tools/lib/perf reads them (acquire data_head,
 * release data_tail): in place up to a time (perf_read_until), or drained
 * into the callback at each wake-up (the sideband's), a record copied only
 * when it wraps around the end; perf_hold's copies, read first; how close
 * the sideband came to overflowing.
 */
#include "config.h"

#include <sys/epoll.h>

#include <linux/perf_event.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "loop.h"
#include "perf.h"
#include "perf_int.h"
#include "record.h"
#include "xmalloc.h"

static uint64_t		 rbuf[65536 / 8];	/* a record that wraps: size is a u16 */
/* How close the sideband came to overflowing (perf_sideband_watch), and
 * when its last loss was said in the log. */
static struct perf_sideband_watch sbwatch;
static uint64_t		 sb_lost_said_ms;
static int		 sb_lost_seen;	/* drain_rb's batch held a LOST record */
static uint64_t		 sb_read_ns;	/* perf_now() of the read, until its first record */
static uint64_t		 sb_wait_ms;	/* how long that record had waited */
static int		 read_stop;	/* perf_read_stop: the record stays */
#define SB_LOST_SAY_MS	60000
/* The most perf_hold keeps, all buffers together: beyond it the
 * buffers fill and the kernel counts what it cannot write. */
#define HOLD_MAX	((size_t)64 << 20)

/* A record's time: a sample's is at a fixed offset. */
static inline uint64_t
time_of(const union record *rec, size_t size)
{
	if (rec->header.type == PERF_RECORD_SAMPLE && size >= record_daemon.sample_size)
		return rec->sample.time;
	return record_time(&record_daemon, rec, size);
}

/* read_rb's part for the records perf_hold took out of r (older than
 * those in the buffer), with the same contract: stops at the first one
 * stamped after until.  They were whole when the kernel published them; a
 * size that does not fit is said and the rest dropped. */
static size_t
read_held(struct rb *r, uint64_t until, perf_record_cb cb, uint64_t *next)
{
	const union record *rec;
	size_t size, n = 0;
	uint64_t t;

	while (r->heldoff + sizeof(rec->header) <= r->nheld) {
		rec = (const void *)(r->held + r->heldoff);
		size = rec->header.size;
		if (size < sizeof(rec->header) || size > r->nheld - r->heldoff) {
			log_warnx("CPU %d: corrupt record held (size %zu); "
			    "skipping the rest", r->cpu, size);
			r->heldoff = r->nheld;
			break;
		}
		if ((t = time_of(rec, size)) > until) {
			if (t < *next)
				*next = t;
			return n;
		}
		r->heldoff += size;
		cb(rec, size, t);
		if (read_stop) {
			read_stop = 0;
			r->heldoff -= size;
			if (t < *next)
				*next = t;
			return n;
		}
		n++;
	}
	perf.held_total -= r->nheld;
	r->nheld = r->heldoff = 0;
	/* A flush's worth is kept for the next; a storm's is given back. */
	if (r->heldcap > ((size_t)1 << 20)) {
		free(r->held);
		r->held = NULL;
		r->heldcap = 0;
	}
	return n;
}

/* Hands cb the buffer's records stamped at or before until, in buffer
 * order, and gives their space back to the kernel; stops at the first
 * later one, whose time goes to *next if earlier (UINT64_MAX: none).
 * Records are read where the kernel leaves them until data_tail passes
 * them; one that wraps around the end is put together in rbuf (as
 * tools/lib/perf does).  A record of impossible size is said in the log
 * and the rest of the buffer skipped.  The buffer's shape is kept in
 * locals: cb may write any memory, so fields would be read again after
 * every record.  Returns the number handed out. */
static size_t
read_rb(struct rb *r, uint64_t until, perf_record_cb cb, perf_ahead_cb ahead,
    size_t dist, uint64_t *next)
{
	struct perf_event_mmap_page *pg = r->base;
	unsigned char *data = (unsigned char *)r->base + (r->mapsize - r->datasize);
	const size_t dsize = r->datasize, ssize = record_daemon.sample_size;
	const union record *rec;
	uint64_t head, tail, t, at, atail;
	size_t size, n = 0, na = 0;

	if (r->nheld > 0) {
		n = read_held(r, until, cb, next);
		if (r->nheld > 0)	/* stopped at a later one */
			return n;
	}
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = atail = pg->data_tail;
	while (tail < head) {
		/* ahead sees each record that cb will get, dist / 2 to dist
		 * records before cb gets it (in runs of dist / 2: entering
		 * the loop for each record cost 18 instructions a sample),
		 * but one that wraps (cb gets a copy); one stamped after
		 * until ends the look-ahead (the loop below judges every
		 * record again for cb).  Every 2,600 samples of 200 bytes
		 * one wraps: the look-ahead goes on past it. */
		if (ahead != NULL && na <= dist / 2)
			for (; na <= dist && atail < head; na++) {
				const union record *ar;
				uint64_t aat = atail & (dsize - 1);

				ar = (const void *)(data + aat);
				size = ar->header.size;
				if (size < sizeof(ar->header) || size > head - atail) {
					ahead = NULL;
					break;
				}
				if (aat + size <= dsize) {
					if (ar->header.type == PERF_RECORD_SAMPLE &&
					    size >= ssize && ar->sample.time > until) {
						ahead = NULL;
						break;
					}
					ahead(ar, size);
				}
				atail += size;
			}
		at = tail & (dsize - 1);
		rec = (const void *)(data + at);
		size = rec->header.size;
		if (size < sizeof(rec->header) || size > head - tail) {
			log_warnx("CPU %d: corrupt ring buffer record (size %zu); "
			    "skipping the rest", r->cpu, size);
			tail = head;
			break;
		}
		if (at + size > dsize) {
			memcpy(rbuf, rec, dsize - at);
			memcpy((unsigned char *)rbuf + (dsize - at), data, size - (dsize - at));
			rec = (const void *)rbuf;
		}
		if ((t = time_of(rec, size)) > until) {
			if (t < *next)
				*next = t;
			break;
		}
		cb(rec, size, t);
		if (read_stop) {
			read_stop = 0;
			if (t < *next)
				*next = t;
			break;
		}
		tail += size;
		n++;
		if (na > 0)
			na--;
	}
	/* Nothing read (a buffer behind a barrier): the kernel's line of
	 * the control page is left alone. */
	if (tail != pg->data_tail)
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static void
sideband_cb(const union record *rec, size_t size, uint64_t time)
{
	if (rec->header.type == PERF_RECORD_LOST)
		sb_lost_seen = 1;
	/* The batch's first record waited longest. */
	if (sb_read_ns != 0) {
		sb_wait_ms = time != 0 && time < sb_read_ns ?
		    (sb_read_ns - time) / 1000000 : 0;
		if (sb_wait_ms > sbwatch.wait_max_ms)
			sbwatch.wait_max_ms = sb_wait_ms;
		sb_read_ns = 0;
	}
	perf.record_cb(rec, size, time);
}

/* Copies r's unread records out of it (perf_hold), within HOLD_MAX. */
static void
hold_rb(struct rb *r)
{
	struct perf_event_mmap_page *pg = r->base;
	unsigned char *data = (unsigned char *)r->base + (r->mapsize - r->datasize);
	uint64_t head, tail;
	size_t n, at, first;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	if ((n = (size_t)(head - tail)) == 0 || n > r->datasize ||
	    perf.held_total + n > HOLD_MAX)
		return;
	if (r->event == SIDEBAND && n > sbwatch.used_max)
		sbwatch.used_max = n;
	/* What was read of the copy goes first: at a steady rate of records
	 * too new to read, the copy is never read to its end. */
	if (r->heldoff > 0) {
		memmove(r->held, r->held + r->heldoff, r->nheld - r->heldoff);
		r->nheld -= r->heldoff;
		perf.held_total -= r->heldoff;
		r->heldoff = 0;
	}
	if (r->nheld + n > r->heldcap) {
		size_t cap = r->heldcap ? r->heldcap : 65536;

		while (cap < r->nheld + n)
			cap *= 2;
		r->held = xreallocarray(r->held, cap, 1);
		r->heldcap = cap;
	}
	at = tail & (r->datasize - 1);
	first = n < r->datasize - at ? n : r->datasize - at;
	memcpy(r->held + r->nheld, data + at, first);
	memcpy(r->held + r->nheld + first, data, n - first);
	r->nheld += n;
	perf.held_total += n;
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

void
perf_hold(void)
{
	size_t i;

	for (i = 0; i < perf.nrbs; i++)
		hold_rb(&perf.rbs[i]);
}

void
perf_hold_crowded(void)
{
	struct perf_event_mmap_page *pg;
	size_t i;

	for (i = 0; i < perf.nrbs; i++) {
		struct rb *r = &perf.rbs[i];

		if (!r->inplace)
			continue;
		pg = r->base;
		if (__atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) - pg->data_tail >
		    r->datasize / 4)
			hold_rb(r);
	}
}

/*
 * A sideband buffer's records go to the queue as they come.  How full it
 * was and how long its records waited are kept, and a loss is said in the
 * log with them (once a minute at most): records that waited long are
 * dcpid kept from reading (off the CPU, or busy); a buffer full of fresh
 * ones, a rate of records it cannot hold.
 */
static void
drain_sideband(struct rb *r)
{
	struct perf_event_mmap_page *pg = r->base;
	uint64_t next = UINT64_MAX, now, used;

	used = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE) - pg->data_tail;
	if (used > sbwatch.used_max)
		sbwatch.used_max = used;
	sb_lost_seen = 0;
	sb_wait_ms = 0;
	sb_read_ns = perf_now();
	read_rb(r, UINT64_MAX, sideband_cb, NULL, 0, &next);
	sb_read_ns = 0;
	if (!sb_lost_seen)
		return;
	sbwatch.overflows++;
	now = loop_now_ms();
	if (sb_lost_said_ms == 0 || now - sb_lost_said_ms >= SB_LOST_SAY_MS) {
		sb_lost_said_ms = now;
		log_warnx("CPU %d: the sideband buffer (%zu KiB) overflowed: %ju "
		    "KiB unread, the oldest record %ju ms old", r->cpu,
		    r->datasize / 1024, (uintmax_t)used / 1024, (uintmax_t)sb_wait_ms);
	}
}

static void
drain_rb(struct rb *r)
{
	uint64_t next = UINT64_MAX;

	if (r->event == SIDEBAND) {
		drain_sideband(r);
		return;
	}
	read_rb(r, UINT64_MAX, perf.record_cb, NULL, 0, &next);
}

void
perf_rb_ready(int fd, uint32_t ev, void *arg)
{
	struct rb *r = arg;

	if (ev & (EPOLLHUP | EPOLLERR)) {
		/* The CPU went offline: its buffer has nothing more.  One
		 * read in place keeps what it holds for the next reads. */
		log_warnx("CPU %d: event %s hung up", r->cpu, rb_name(r));
		loop_del(fd);
		r->inloop = 0;
		if (r->inplace && perf.ready_cb != NULL)
			perf.ready_cb();
		else
			drain_rb(r);
		return;
	}
	/* A sampling buffer past its watermark: its records are processed
	 * where they lie, up to the safe time, rather than copied. */
	if (r->inplace && perf.ready_cb != NULL)
		perf.ready_cb();
	else
		drain_rb(r);
}

void
perf_drain(void)
{
	size_t i;

	for (i = 0; i < perf.nrbs; i++)
		drain_rb(&perf.rbs[i]);
}

void
perf_drain_queued(void)
{
	size_t i;

	for (i = 0; i < perf.nrbs; i++)
		if (!perf.rbs[i].inplace)
			drain_rb(&perf.rbs[i]);
}

void
perf_read_stop(void)
{
	read_stop = 1;
}

size_t
perf_read_until(uint64_t until, perf_record_cb cb, perf_ahead_cb ahead,
    size_t dist, uint64_t *next)
{
	size_t i, n = 0;

	/* Each buffer in turn: samples need no order among themselves
	 * (core.c), and until keeps each behind the sideband. */
	*next = UINT64_MAX;
	for (i = 0; i < perf.nrbs; i++)
		if (perf.rbs[i].inplace)
			n += read_rb(&perf.rbs[i], until, cb, ahead, dist, next);
	return n;
}

void
perf_sideband_watch(struct perf_sideband_watch *w)
{
	size_t i;

	*w = sbwatch;
	w->size = 0;
	for (i = 0; i < perf.nrbs; i++)
		if (perf.rbs[i].event == SIDEBAND)
			w->size = perf.rbs[i].datasize;
}

size_t
perf_memory(void)
{
	size_t i, m = 0;

	/* The buffers' copies by perf_hold too, while they are kept. */
	for (i = 0; i < perf.nrbs; i++)
		m += perf.rbs[i].mapsize + perf.rbs[i].heldcap;
	return m;
}

void
perf_ring_init(void)
{
	memset(&sbwatch, 0, sizeof(sbwatch));
	sb_lost_said_ms = 0;
}
