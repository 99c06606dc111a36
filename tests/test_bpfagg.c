/*
 * The drain of the in-kernel counts (daemon/bpfagg.c bpfagg_drain_slots)
 * over slots in memory of the test's own, laid out as the program's
 * mapped arrays are (daemon/bpfagg_key.h): keys, and counts that the
 * drain takes by exchanging them with 0.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfagg.h"
#include "unwind_table.h"

#define NKEYS	2500

static struct bpfagg_key keys[NKEYS];
static uint64_t		 counts[NKEYS];

struct seen {
	uint64_t	 total;
	size_t		 n;
	uint64_t	 per[NKEYS];
};

static void
cb(const struct bpfagg_key *k, uint64_t count, void *arg)
{
	struct seen *s = arg;

	assert_true(k->addr < NKEYS);
	assert_int_equal(s->per[k->addr], 0);	/* each key once */
	s->per[k->addr] = count;
	s->total += count;
	s->n++;
}

static void
fill(size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&keys[i], 0, sizeof(keys[i]));
		keys[i].addr = i;
		keys[i].ino = 1000 + i % 7;
		keys[i].event = (uint32_t)(i % 3);
		counts[i] = i % 4;	/* some slots empty */
	}
}

/* Every slot's count with its key, once; empty slots left out; the counts
 * taken (0 after), so that a second drain finds nothing. */
static void
test_drain_slots(void **state)
{
	static struct seen s;
	uint64_t want = 0;
	size_t i, nz = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill(NKEYS);
	for (i = 0; i < NKEYS; i++) {
		want += i % 4;
		nz += i % 4 != 0;
	}
	assert_int_equal(bpfagg_drain_slots(keys, counts, NKEYS, cb, &s), want);
	assert_int_equal(s.total, want);
	assert_int_equal(s.n, nz);
	for (i = 0; i < NKEYS; i++) {
		assert_int_equal(s.per[i], i % 4);
		assert_int_equal(counts[i], 0);
	}
	memset(&s, 0, sizeof(s));
	assert_int_equal(bpfagg_drain_slots(keys, counts, NKEYS, cb, &s), 0);
	assert_int_equal(s.n, 0);
}

/* Only the slots handed out are read: used bounds the drain, and a used
 * past the set's size (new keys refused once it is full) reads no more
 * than the set. */
static void
test_drain_used(void **state)
{
	static struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	fill(NKEYS);
	assert_int_equal(bpfagg_drain_slots(keys, counts, 10, cb, &s),
	    0 + 1 + 2 + 3 + 0 + 1 + 2 + 3 + 0 + 1);
	assert_int_equal(s.per[10], 0);
	assert_int_equal(counts[10], 2);
	memset(&s, 0, sizeof(s));
	assert_int_equal(bpfagg_drain_slots(keys, counts, 0, cb, &s), 0);
	assert_true(BPFAGG_SLOTS < UINT32_MAX);
}

/* The page index: for each 4 KiB of keys from the first row's page, the
 * last row at or before its first byte; one page past the last row's. */
static void
test_page_index(void **state)
{
	static const uint32_t start[] = { 0x1010, 0x1020, 0x2ff0, 0x3000, 0x5008 };
	static const uint32_t want[] = { 0, 1, 3, 3, 3, 4 };
	struct unwind_row rows[5] = { { 0 } };
	uint32_t idx[8], pbase, i;

	(void)state;
	for (i = 0; i < 5; i++)
		rows[i].start = start[i];
	assert_int_equal(bpfunw_pages(rows, 5, &pbase), 6);
	assert_int_equal(pbase, 0x1000);
	memset(idx, 0xff, sizeof(idx));
	bpfunw_index(rows, 5, pbase, 6, idx);
	for (i = 0; i < 6; i++)
		assert_int_equal(idx[i], want[i]);
	assert_int_equal(idx[6], 0xffffffffu);		/* nothing past npages */
	/* One row: its page and the next. */
	assert_int_equal(bpfunw_pages(rows + 4, 1, &pbase), 2);
	assert_int_equal(pbase, 0x5000);
	bpfunw_index(rows + 4, 1, pbase, 2, idx);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 0);
	/* Sparse: two rows 4 GB apart get no index, not a million pages. */
	rows[0].start = 0x10;
	rows[1].start = 0xfffff000;
	assert_int_equal(bpfunw_pages(rows, 2, &pbase), 0);
	rows[1].start = 0x2010;		/* 4 pages for 2 rows: indexed */
	assert_int_equal(bpfunw_pages(rows, 2, &pbase), 4);
}

/* Without a loaded program the rest are no-ops. */
static void
test_inactive(void **state)
{
	uint32_t pid;
	uint64_t pc, dev, ino;

	(void)state;
	assert_int_equal(bpfagg_active(), 0);
	assert_int_equal(bpfagg_drain(cb, NULL), 0);
	assert_int_equal(bpfagg_news(&dev, &ino, &pid, &pc), -1);
	bpfagg_file_state(1, 2, BPFAGG_FILE_PASS);
	bpfagg_pass_all(1);
	bpfagg_fini();
}

/* With the program loaded, an empty queue of news is -1.  libbpf's calls
 * return -errno (-ENOENT there), and a test for -1 handed out the last
 * file again (or the stack's garbage, the queue never used), up to
 * BPFAGG_MAX_NEWS times a drain: two system calls each, most of dcpid's
 * CPU with aggregate = bpf. */
static void
test_news_empty(void **state)
{
	uint64_t pc = 1, dev = 2, ino = 3;
	uint32_t pid = 4;
	char why[512];
	const char *req = getenv("DCPI_REQUIRE_PERF");

	(void)state;
	if (bpfagg_init(why, sizeof(why), NULL, NULL, 0) != 0) {
		bpfagg_fini();
		if (req != NULL && strcmp(req, "1") == 0)
			fail_msg("DCPI_REQUIRE_PERF=1 but no BPF program: %s", why);
		skip();
	}
	assert_int_equal(bpfagg_active(), 1);
	assert_int_equal(bpfagg_news(&dev, &ino, &pid, &pc), -1);
	assert_int_equal(bpfagg_news(&dev, &ino, &pid, &pc), -1);
	assert_true(dev == 2 && ino == 3 && pid == 4 && pc == 1);
	bpfagg_fini();
	assert_int_equal(bpfagg_active(), 0);
}

/* The owners told their rows are gone, in order. */
static const void	*gone[8];
static size_t		 ngone;

static void
on_gone(const void *owner)
{
	if (ngone < 8)
		gone[ngone++] = owner;
}

/* Past the quarantine of dropped rows (UNW_QUARANTINE_MS, 10 ms). */
static void
release_later(void)
{
	usleep(20000);
	bpfunw_release();
}

/* The walk's tables in the kernel's array, of the size asked: loaded
 * while they fit, where dcpid reads them (placed); no room, the oldest
 * dropped (its rows reused after a release at least 10 ms later, its
 * owner told then) and the file asked for again; a table over a quarter
 * of the array refused for good; a table dropped with its image. */
static void
test_walk_tables(void **state)
{
	struct bpfunw_conf uc = { 64, 8192, 65536, 0, 0, NULL, NULL };
	struct bpfunw_stats st;
	struct unwind_row *rows, *placed[8];
	uint64_t dev, ino, pc, off;
	uint32_t pid, i, pbase, q = 65536 / 4, n, per;
	char why[512], cwhy[512];
	const char *req = getenv("DCPI_REQUIRE_PERF");
	static const int owners[8];

	(void)state;
	if (bpfagg_init(why, sizeof(why), &uc, cwhy, sizeof(cwhy)) != 0 ||
	    !bpfunw_active()) {
		bpfagg_fini();
		if (req != NULL && strcmp(req, "1") == 0)
			fail_msg("DCPI_REQUIRE_PERF=1 but no BPF walk: %s %s", why, cwhy);
		skip();
	}
	bpfunw_set_gone(on_gone);
	ngone = 0;
	assert_int_equal(bpfunw_need(&dev, &ino, &pid, &pc, &off), -1);
	rows = calloc(q + 1, sizeof(*rows));
	assert_non_null(rows);
	for (i = 0; i <= q; i++) {
		rows[i].start = i * 4;
		rows[i].rule = unwind_rule_intern(&(struct unwind_rule){ 8 + (int32_t)(i & 1),
		    0, -8, UNWIND_CFA_SP });
	}
	/* n rows and their page index fill a quarter of the array, and a
	 * fifth table does not fit beside four. */
	n = q - 128;
	per = n + (bpfunw_pages(rows, n, &pbase) + BPFUNW_PAGE_IDX - 1) / BPFUNW_PAGE_IDX;
	assert_true(per <= q && 5 * per > 65536);
	for (i = 1; i <= 4; i++) {
		assert_int_equal(bpfunw_load(1, i, 0, rows, n, &owners[i], &placed[i]), 0);
		assert_memory_equal(placed[i], rows, n * sizeof(*rows));
	}
	assert_true(placed[2] == placed[1] + per);
	bpfunw_stats(&st);
	assert_int_equal(st.files, 4);
	assert_int_equal(st.rows, 4 * (uint64_t)per);
	assert_int_equal(st.capacity, 65536);
	/* The rows array and the rules', 8 bytes each. */
	assert_int_equal(st.bytes, 65536 * 8 + BPFUNW_RULES * 8);
	/* Full: file 1, loaded first, goes; its rows after a release 10 ms
	 * later, not at once: a walk may still be reading them. */
	assert_int_equal(bpfunw_load(1, 5, 0, rows, n, NULL, NULL), -1);
	bpfunw_stats(&st);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.evicted, 1);
	bpfunw_release();
	assert_int_equal(ngone, 0);
	release_later();
	assert_int_equal(ngone, 1);
	assert_ptr_equal(gone[0], &owners[1]);
	assert_int_equal(bpfunw_load(1, 5, 0, rows, n, NULL, &placed[5]), 0);
	assert_ptr_equal(placed[5], placed[1]);
	bpfunw_stats(&st);
	assert_int_equal(st.files, 4);
	assert_int_equal(st.evicted, 1);
	assert_int_equal(bpfunw_load(1, 6, 0, rows, q + 1, NULL, NULL), -2);
	assert_int_equal(bpfunw_load(1, 6, 0, rows, q, NULL, NULL), -2);	/* its index too */
	/* Dropped with its image: room for another after a release; an owner
	 * disowned is not told. */
	bpfunw_disown(&owners[3]);
	bpfunw_drop(1, 2);
	bpfunw_drop(1, 3);
	release_later();
	assert_int_equal(ngone, 2);
	assert_ptr_equal(gone[1], &owners[2]);
	assert_int_equal(bpfunw_load(1, 7, 0, rows, 10, NULL, NULL), 0);
	bpfunw_stats(&st);
	assert_int_equal(st.files, 3);
	assert_int_equal(st.rows, 2 * (uint64_t)per + 10 + 1);	/* 2 pages: 1 row */
	assert_int_equal(st.walks[BPFUNW_WALKED], 0);
	free(rows);
	/* The rows still held go with the array. */
	bpfagg_fini();
	assert_int_equal(ngone, 3);
	assert_ptr_equal(gone[2], &owners[4]);
	bpfunw_set_gone(NULL);
	assert_int_equal(bpfunw_active(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_slots),
		cmocka_unit_test(test_drain_used),
		cmocka_unit_test(test_news_empty),
		cmocka_unit_test(test_walk_tables),
		cmocka_unit_test(test_page_index),
		cmocka_unit_test(test_inactive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
