/*
 * Unit tests of dcpid's aggregation (daemon/agg.c) and record ordering
 * (daemon/order.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../daemon/agg.h"
#include "../daemon/order.h"

struct got {
	uint32_t		 event, image;
	struct dcpi_count	*c;
	size_t			 n;
};

static struct got	 got[16];
static size_t		 ngot;
static int		 cb_result;

static int
collect(uint32_t event, uint32_t image, const struct dcpi_count *c, size_t n, void *arg)
{
	struct got *g = &got[ngot++];

	(void)arg;
	assert_true(ngot <= 16);
	g->event = event;
	g->image = image;
	g->c = malloc(n * sizeof(*c));
	memcpy(g->c, c, n * sizeof(*c));
	g->n = n;
	return cb_result;
}

static void
clear_got(void)
{
	while (ngot > 0)
		free(got[--ngot].c);
}

static struct got *
find(uint32_t event, uint32_t image)
{
	size_t i;

	for (i = 0; i < ngot; i++)
		if (got[i].event == event && got[i].image == image)
			return &got[i];
	return NULL;
}

static void
test_agg_counts(void **state)
{
	struct got *g;
	size_t i;

	(void)state;
	agg_init();
	/* Offsets 0 and UINT32_MAX are ordinary keys. */
	for (i = 0; i < 3; i++)
		agg_add(0, 5, 0);
	agg_add(0, 5, UINT32_MAX);
	for (i = 0; i < 1000; i++)
		agg_add(0, 5, (uint32_t)(999 - i) * 4);
	agg_add(1, 0, 7);
	assert_int_equal(agg_entries(), 1000 + 1 + 1);

	cb_result = 0;
	agg_flush(collect, NULL);
	assert_int_equal(ngot, 2);
	g = find(0, 5);
	assert_non_null(g);
	assert_int_equal(g->n, 1001);
	assert_int_equal(g->c[0].offset, 0);
	assert_int_equal(g->c[0].count, 4);	/* 3 + the loop's offset 0 */
	for (i = 1; i < 1000; i++) {
		assert_int_equal(g->c[i].offset, i * 4);
		assert_int_equal(g->c[i].count, 1);
	}
	assert_int_equal(g->c[1000].offset, UINT32_MAX);
	g = find(1, 0);
	assert_non_null(g);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->c[0].count, 1);
	clear_got();
	/* Flushed tables are emptied. */
	assert_int_equal(agg_entries(), 0);
	agg_flush(collect, NULL);
	assert_int_equal(ngot, 0);
	agg_fini();
}

static void
test_agg_failed_flush_keeps_counts(void **state)
{
	struct got *g;

	(void)state;
	agg_init();
	/* The first sample of an image since its counts were written is
	 * told apart (the daemon then holds the image's file). */
	assert_int_equal(agg_add(2, 1, 100), 1);
	assert_int_equal(agg_add(2, 1, 100), 0);
	assert_int_equal(agg_add(2, 2, 100), 1);
	assert_int_equal(agg_add(1, 1, 100), 1);
	cb_result = -1;
	agg_flush(collect, NULL);
	assert_int_equal(ngot, 3);
	clear_got();
	assert_int_equal(agg_add(2, 1, 100), 0);	/* not written: kept */
	agg_add(2, 1, 104);
	cb_result = 0;
	agg_flush(collect, NULL);
	assert_int_equal(agg_add(2, 1, 8), 1);		/* written: anew */
	agg_flush(collect, NULL);
	g = find(2, 1);
	assert_non_null(g);
	assert_int_equal(g->n, 2);
	assert_int_equal(g->c[0].count, 3);
	assert_int_equal(g->c[1].count, 1);
	clear_got();
	agg_fini();
}

static void
test_agg_memory_follows_distinct_pcs(void **state)
{
	size_t i, small, big;

	(void)state;
	agg_init();
	for (i = 0; i < 1000000; i++)
		agg_add(0, 0, (uint32_t)(i % 16) * 4);
	small = agg_memory();
	assert_true(small < 4096);
	for (i = 0; i < 100000; i++)
		agg_add(0, 0, (uint32_t)i * 4);
	big = agg_memory();
	/* 8 bytes a slot, at most 3/4 full, at most doubled by growth. */
	assert_true(big >= 100000 * 8);
	assert_true(big <= 100000 * 8 * 3);
	cb_result = 0;
	agg_flush(collect, NULL);
	clear_got();
	assert_true(agg_memory() < small + 1024);
	agg_fini();
}

struct rec {
	uint64_t	time;
	uint32_t	cpu, n;
};

static struct rec	 seen[64];
static size_t		 nseen;

static void
order_collect(const void *r, size_t size, uint64_t time, void *arg)
{
	(void)arg;
	assert_int_equal(size, sizeof(struct rec));
	assert_int_equal(((uintptr_t)r) % 8, 0);
	memcpy(&seen[nseen], r, sizeof(struct rec));
	assert_int_equal(seen[nseen].time, time);
	nseen++;
}

static void
order_collect_none(const void *r, size_t size, uint64_t time, void *arg)
{
	(void)r;
	(void)size;
	(void)time;
	(void)arg;
}

static void
push(uint64_t time, uint32_t cpu, uint32_t n)
{
	struct rec r = { time, cpu, n };

	order_push(&r, sizeof(r), time);
}

static void
test_order_merges_cpus(void **state)
{
	(void)state;
	order_init();
	nseen = 0;
	/* CPU 0's buffer is read before CPU 1's, which holds older records:
	 * the mmap on CPU 1 at t=10 must come before CPU 0's sample at 20. */
	push(20, 0, 0);
	push(40, 0, 1);
	push(10, 1, 2);
	push(30, 1, 3);
	push(30, 0, 4);		/* same time as the previous: arrival order */
	assert_int_equal(order_process(30, order_collect, NULL), 4);
	assert_int_equal(nseen, 4);
	assert_int_equal(seen[0].n, 2);
	assert_int_equal(seen[1].n, 0);
	assert_int_equal(seen[2].n, 3);
	assert_int_equal(seen[3].n, 4);
	assert_int_equal(order_queued(), 1);
	/* A late record from another CPU, older than what is queued but
	 * newer than what was handed out, still comes first. */
	push(35, 1, 5);
	assert_int_equal(order_process(UINT64_MAX, order_collect, NULL), 2);
	assert_int_equal(seen[4].n, 5);
	assert_int_equal(seen[5].n, 1);
	assert_int_equal(order_queued(), 0);
	assert_int_equal(order_process(UINT64_MAX, order_collect, NULL), 0);
	order_fini();
}

/* order_process_ahead: ahead sees every record handed out, once, in the
 * same order and at the same address as cb, dist records earlier (all
 * of them when fewer are handed out); records left queued it does not see. */
static const void	*ahead_at[16];
static uint32_t		 ahead_n[16];
static size_t		 nahead, ahead_lead[16];

static void
order_ahead(const void *r, size_t size, void *arg)
{
	(void)arg;
	assert_int_equal(size, sizeof(struct rec));
	ahead_at[nahead] = r;
	ahead_n[nahead++] = ((const struct rec *)r)->n;
}

static void
order_collect_ahead(const void *r, size_t size, uint64_t time, void *arg)
{
	assert_ptr_equal(ahead_at[nseen], r);
	ahead_lead[nseen] = nahead - nseen;
	order_collect(r, size, time, arg);
}

static void
test_order_ahead(void **state)
{
	uint32_t i;

	(void)state;
	order_init();
	nseen = nahead = 0;
	for (i = 0; i < 6; i++)
		push(100 + i, i % 2, i);
	push(200, 0, 6);
	push(50, 1, 7);			/* sorted first */
	assert_int_equal(order_process_ahead(150, order_collect_ahead,
	    order_ahead, 3, NULL), 7);
	assert_int_equal(nahead, 7);
	assert_int_equal(ahead_n[0], 7);
	for (i = 1; i < 7; i++)
		assert_int_equal(ahead_n[i], i - 1);
	/* Three ahead, then fewer as the handed-out records run out. */
	assert_int_equal(ahead_lead[0], 4);
	assert_int_equal(ahead_lead[3], 4);
	assert_int_equal(ahead_lead[4], 3);
	assert_int_equal(ahead_lead[6], 1);
	assert_int_equal(order_queued(), 1);
	/* More ahead than records: all seen before the first is handed. */
	nseen = nahead = 0;
	assert_int_equal(order_process_ahead(UINT64_MAX, order_collect_ahead,
	    order_ahead, 8, NULL), 1);
	assert_int_equal(ahead_lead[0], 1);
	assert_int_equal(ahead_n[0], 6);
	order_fini();
}

static void
test_order_odd_sizes(void **state)
{
	unsigned char buf[13] = "abcdefghijkl";
	size_t n;

	(void)state;
	order_init();
	order_push(buf, sizeof(buf), 5);
	order_push(buf, 0, 1);
	assert_true(order_memory() >= sizeof(buf));
	nseen = 0;
	n = order_process(0, order_collect, NULL);
	assert_int_equal(n, 0);
	assert_int_equal(order_queued(), 2);
	order_fini();
	assert_int_equal(order_queued(), 0);
}

/* Three CPUs' drains, each an ascending run, interleaved in time with
 * equal timestamps across CPUs: equal times come out in queue order (the
 * order the buffers were read), and nothing after safe is handed out. */
static void
test_order_interleaved_runs(void **state)
{
	uint32_t cpu, i, k;
	size_t n;

	(void)state;
	order_init();
	nseen = 0;
	for (cpu = 0; cpu < 3; cpu++)
		for (i = 0; i < 8; i++)
			push(100 + 10 * (uint64_t)i, cpu, cpu * 8 + i);
	/* safe is exactly the time of the 5th records: they are handed out,
	 * one nanosecond later ones are not. */
	n = order_process(140, order_collect, NULL);
	assert_int_equal(n, 15);
	assert_int_equal(order_queued(), 9);
	for (k = 0; k < 15; k++) {
		assert_int_equal(seen[k].time, 100 + 10 * (k / 3));
		assert_int_equal(seen[k].cpu, k % 3);
		assert_int_equal(seen[k].n, seen[k].cpu * 8 + k / 3);
	}
	/* The next drain: a late record at the boundary and two at times
	 * already queued, again from several CPUs. */
	push(141, 2, 40);
	push(150, 1, 41);
	push(150, 0, 42);
	assert_int_equal(order_process(149, order_collect, NULL), 1);
	assert_int_equal(seen[15].n, 40);
	assert_int_equal(order_process(150, order_collect, NULL), 5);
	/* Queued 150s first, by arrival, then the new ones by arrival. */
	assert_int_equal(seen[16].n, 5);
	assert_int_equal(seen[17].n, 13);
	assert_int_equal(seen[18].n, 21);
	assert_int_equal(seen[19].n, 41);
	assert_int_equal(seen[20].n, 42);
	assert_int_equal(order_process(UINT64_MAX, order_collect, NULL), 6);
	for (k = 21; k < nseen; k++)
		assert_true(seen[k].time >= seen[k - 1].time);
	assert_int_equal(nseen, 27);
	assert_int_equal(order_queued(), 0);
	order_fini();
}

static uint64_t	 burst_last;
static size_t	 burst_n;

static void
burst_collect(const void *r, size_t size, uint64_t time, void *arg)
{
	struct rec x;

	(void)arg;
	assert_int_equal(size, sizeof(x));
	memcpy(&x, r, sizeof(x));
	assert_int_equal(x.time, time);
	assert_true(time >= burst_last);
	burst_last = time;
	burst_n++;
}

/* A burst grows the queue; once it is handed out the memory goes back. */
static void
test_order_burst_memory_returned(void **state)
{
	size_t base, peak, i, cpu;

	(void)state;
	order_init();
	push(1, 0, 0);
	order_process(UINT64_MAX, order_collect_none, NULL);
	base = order_memory();
	burst_last = 0;
	burst_n = 0;
	for (cpu = 0; cpu < 4; cpu++)
		for (i = 0; i < 50000; i++)
			push(1000 + i * 4 + (3 - cpu), (uint32_t)cpu, (uint32_t)i);
	peak = order_memory();
	assert_true(peak >= 200000 * sizeof(struct rec));
	assert_int_equal(order_process(1000 + 100000, burst_collect, NULL), 100001);
	assert_int_equal(order_queued(), 200000 - 100001);
	assert_int_equal(order_process(UINT64_MAX, burst_collect, NULL), 200000 - 100001);
	assert_int_equal(burst_n, 200000);
	assert_true(order_memory() <= base);
	order_fini();
	assert_int_equal(order_memory(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agg_counts),
		cmocka_unit_test(test_agg_failed_flush_keeps_counts),
		cmocka_unit_test(test_agg_memory_follows_distinct_pcs),
		cmocka_unit_test(test_order_merges_cpus),
		cmocka_unit_test(test_order_ahead),
		cmocka_unit_test(test_order_odd_sizes),
		cmocka_unit_test(test_order_interleaved_runs),
		cmocka_unit_test(test_order_burst_memory_returned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
