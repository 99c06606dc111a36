/*
 * daemon/stack.c: chains counted per (stream, pid, raw callers) and leaf
 * (its raw word and frame), the callers kept with their frames until
 * cleared.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include "stack.h"

struct seen {
	uint32_t	 stream, depth;
	uint64_t	 count;
	struct stack_frame f[4];
};

static int
collect(uint32_t stream, const struct stack_frame *f, uint32_t depth,
    uint64_t count, void *arg)
{
	struct seen *s = arg;

	while (s->count != 0)
		s++;
	s->stream = stream;
	s->depth = depth;
	s->count = count;
	memcpy(s->f, f, depth * sizeof(*f));
	return 0;
}

/* The chain of s[0..n) with this leaf and depth (the walk's order is the
 * table's), or fails. */
static const struct seen *
find(const struct seen *s, size_t n, struct stack_frame leaf, uint32_t depth)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].depth == depth && s[i].f[0].image == leaf.image &&
		    s[i].f[0].offset == leaf.offset)
			return &s[i];
	fail_msg("no chain of depth %u with leaf %u+%#x", depth, leaf.image, leaf.offset);
	return NULL;
}

/* The samples of all chains of s[0..n) with this leaf and depth. */
static uint64_t
sum(const struct seen *s, size_t n, struct stack_frame leaf, uint32_t depth)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].depth == depth && s[i].f[0].image == leaf.image &&
		    s[i].f[0].offset == leaf.offset)
			c += s[i].count;
	return c;
}

static int
stop(uint32_t stream, const struct stack_frame *f, uint32_t depth,
    uint64_t count, void *arg)
{
	(void)stream, (void)f, (void)depth, (void)count, (void)arg;
	return 7;
}

static void
test_count_add(void **state)
{
	/* Raw chains: the leaf, then callers. */
	static const uint64_t a[] = { 0x401000, 0x402000, 0x403000 };
	static const uint64_t a2[] = { 0x401004, 0x402000, 0x403000 };
	static const uint64_t b[] = { 0x401000, 0x402000, 0x404000 };
	/* The leaf at another place, the same words around it: another key
	 * (the words before a leaf are context markers, those after it
	 * callers). */
	static const uint64_t m[] = { 0x402000, 0x401008, 0x403000 };
	static const struct stack_frame ca[] = { { 1, 0x20 }, { 2, 0x30 } };
	static const struct stack_frame cb[] = { { STACK_NOIMAGE, 0 } };
	struct stack_frame l1 = { 1, 0x10 }, l2 = { 1, 0x14 };
	const struct seen *p;
	struct seen s[5];
	size_t i;

	(void)state;
	stack_init();
	assert_int_equal(stack_count(5, 100, a, 3, 0, l1), 0);
	stack_add(5, 100, a, 3, 0, ca, 2, l1);
	/* Known callers: counted, whatever the leaf (a2's raw word, another
	 * PC of the same frame, as a second mapping of an image gives, is a
	 * leaf of its own: the stack file adds up chains of the same
	 * frames). */
	assert_int_equal(stack_count(5, 100, a2, 3, 0, l1), 1);
	assert_int_equal(stack_count(5, 100, a, 3, 0, l2), 1);
	/* The key is the chain less its leaf, and where the leaf is. */
	assert_int_equal(stack_count(5, 100, m, 3, 1, l2), 0);
	/* Other callers, stream, pid or length: not the same. */
	assert_int_equal(stack_count(5, 100, b, 3, 0, l1), 0);
	assert_int_equal(stack_count(6, 100, a, 3, 0, l1), 0);
	assert_int_equal(stack_count(5, 101, a, 3, 0, l1), 0);
	assert_int_equal(stack_count(5, 100, a, 2, 0, l1), 0);
	stack_add(5, 101, b, 3, 0, cb, 1, l1);
	assert_int_equal(stack_entries(), 4);
	assert_true(stack_memory() > 0);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	/* Leaf first, then the callers. */
	assert_int_equal(sum(s, 4, l1, 3), 2);
	for (i = 0; i < 4; i++)
		if (s[i].depth == 3 && s[i].f[0].offset == l1.offset) {
			assert_int_equal(s[i].stream, 5);
			assert_memory_equal(&s[i].f[1], ca, sizeof(ca));
		}
	p = find(s, 4, l2, 3);
	assert_int_equal(p->count, 1);
	assert_memory_equal(&p->f[1], ca, sizeof(ca));
	p = find(s, 4, l1, 2);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->f[1].image, STACK_NOIMAGE);
	assert_int_equal(stack_each(stop, NULL), 7);
	/* Kept until cleared, then gone. */
	assert_int_equal(stack_entries(), 4);
	stack_clear();
	assert_int_equal(stack_entries(), 0);
	assert_int_equal(stack_count(5, 100, a, 3, 0, l1), 0);
	stack_fini();
}

/* No callers: the leaf alone. */
static void
test_leaf_only(void **state)
{
	struct stack_frame l = { 3, 7 };
	struct seen s[2];
	static const uint64_t pc[] = { 0x401000 };

	(void)state;
	stack_init();
	stack_add(1, 9, pc, 1, 0, NULL, 0, l);
	assert_int_equal(stack_count(1, 9, pc, 1, 0, l), 1);
	memset(s, 0, sizeof(s));
	stack_each(collect, s);
	assert_int_equal(s[0].depth, 1);
	assert_int_equal(s[0].count, 2);
	stack_fini();
}

/* The same chain of one process under three streams (events or labels):
 * one hash, so each stream's lookup may meet another's leaf first, and
 * must go on to its own. */
static void
test_streams(void **state)
{
	static const uint64_t a[] = { PERF_CONTEXT_USER, 0x401000, 0x402000, 0x403000 };
	static const struct stack_frame ca[] = { { 1, 0x20 }, { 2, 0x30 } };
	struct stack_frame l = { 1, 0x10 };
	struct seen s[4];
	uint32_t st, i;

	(void)state;
	stack_init();
	for (st = 1; st <= 3; st++) {
		assert_int_equal(stack_count(st, 100, a, 4, 1, l), 0);
		stack_add(st, 100, a, 4, 1, ca, 2, l);
		/* Stream st once more than its number, the others alike. */
		for (i = 0; i < st; i++)
			assert_int_equal(stack_count(st, 100, a, 4, 1, l), 1);
	}
	assert_int_equal(stack_count(1, 100, a, 4, 1, l), 1);
	assert_int_equal(stack_count(4, 100, a, 4, 1, l), 0);
	assert_int_equal(stack_entries(), 3);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	for (i = 0; i < 3; i++) {
		assert_in_range(s[i].stream, 1, 3);
		assert_int_equal(s[i].depth, 3);
		assert_int_equal(s[i].count, s[i].stream == 1 ? 3 : s[i].stream + 1);
		assert_memory_equal(&s[i].f[1], ca, sizeof(ca));
	}
	assert_int_equal(s[3].count, 0);
	stack_fini();
}

/* Many chains: all found again, counted apart. */
static void
test_many(void **state)
{
	struct stack_frame f = { 1, 0 };
	uint64_t k[16];
	uint32_t i, j;

	(void)state;
	stack_init();
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 16; j++)
			k[j] = 0x400000 + i * 16 + j;
		f.offset = i;
		stack_add(1, i % 7, k, 16, 0, &f, 1, f);
	}
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 16; j++)
			k[j] = 0x400000 + i * 16 + j;
		f.offset = i;
		assert_int_equal(stack_count(1, i % 7, k, 16, 0, f), 1);
		assert_int_equal(stack_count(1, i % 7 + 1, k, 16, 0, f), 0);
	}
	assert_int_equal(stack_entries(), 20000);
	stack_fini();
}

/* The chains of 4,096 exited processes, each its own raw words (as
 * address-space randomisation makes them) and the same frames, fold into
 * one chain; a live process's chain stays raw, found without attribution. */
static void
test_fold(void **state)
{
	static const struct stack_frame c[] = { { 1, 0x20 }, { 2, 0x30 } };
	static const struct stack_frame c2[] = { { 1, 0x24 }, { 2, 0x30 } };
	static const uint64_t live[] = { 0x7000, 0x8000, 0x9000 };
	struct stack_frame l = { 1, 0x10 };
	const struct seen *p;
	struct seen s[4];
	uint64_t k[3];
	size_t before, i;
	uint32_t pid;

	(void)state;
	stack_init();
	stack_add(1, 1, live, 3, 0, c, 2, l);
	for (pid = 100; pid < 100 + 4096; pid++) {
		k[0] = 0x400000 + (uint64_t)pid * 4096;
		k[1] = k[0] + 0x20;
		k[2] = k[0] + 0x30;
		stack_add(1, pid, k, 3, 0, c, 2, l);
		assert_int_equal(stack_count(1, pid, k, 3, 0, l), 1);
	}
	assert_int_equal(stack_entries(), 4097);
	before = stack_memory();
	stack_exit(12345);		/* never sampled: nothing to do */
	for (pid = 100; pid < 100 + 4096; pid++) {
		stack_exit(pid);
		stack_exit(pid);	/* (an exit seen twice counts once) */
	}
	assert_int_equal(stack_entries(), 2);
	assert_true(stack_memory() < before / 4);
	/* The live process's chain: still known. */
	assert_int_equal(stack_count(1, 1, live, 3, 0, l), 1);
	/* An exited process's raw words: no longer (a new process with
	 * that pid would have its chains attributed afresh). */
	k[0] = 0x400000 + 100 * 4096;
	k[1] = k[0] + 0x20;
	k[2] = k[0] + 0x30;
	assert_int_equal(stack_count(1, 100, k, 3, 0, l), 0);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	/* Both chains have the same frames: the stack file adds them up. */
	p = find(s, 2, l, 3);
	assert_memory_equal(&p->f[1], c, sizeof(c));
	assert_true((p->count == 2 && s[p == s ? 1 : 0].count == 8192) ||
	    (p->count == 8192 && s[p == s ? 1 : 0].count == 2));
	assert_memory_equal(&s[p == s ? 1 : 0].f[1], c, sizeof(c));
	/* The pid reused by a new process: its chain raw again. */
	stack_add(1, 100, k, 3, 0, c, 2, l);
	assert_int_equal(stack_count(1, 100, k, 3, 0, l), 1);
	assert_int_equal(stack_entries(), 3);
	/* A second fold: the same frames join the folded chain; other
	 * callers under the same outermost one make a chain of their own. */
	for (pid = 10000; pid < 10000 + 4096; pid++) {
		k[0] = 0x400000 + (uint64_t)pid * 4096;
		k[1] = k[0] + 0x20;
		k[2] = k[0] + 0x30;
		stack_add(1, pid, k, 3, 0, pid % 2 ? c : c2, 2, l);
	}
	for (pid = 10000; pid < 10000 + 4096; pid++)
		stack_exit(pid);
	assert_int_equal(stack_entries(), 4);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	for (pid = 0, i = 0; i < 4; i++)
		if (s[i].f[1].offset == c2[0].offset) {
			assert_int_equal(s[i].count, 2048);
			assert_memory_equal(&s[i].f[1], c2, sizeof(c2));
		} else if (s[i].count > 1000) {
			assert_int_equal(s[i].count, 8192 + 2048);
			assert_memory_equal(&s[i].f[1], c, sizeof(c));
		} else
			pid++;
	assert_int_equal(pid, 2);	/* the two live processes' */
	stack_fini();
}

/* The hash taken ahead (as core.c does, records before the count) finds
 * the same chains as stack_count; the same raw PC attributed to another
 * frame (the image remapped) is another leaf. */
static void
test_hashed(void **state)
{
	static const uint64_t a[] = { 0x401000, 0x402000, 0x403000 };
	static const struct stack_frame ca[] = { { 1, 0x20 }, { 2, 0x30 } };
	struct stack_frame l1 = { 1, 0x10 }, l3 = { 4, 0x10 };
	uint64_t h = stack_hash(100, a, 3);
	struct seen s[3];

	(void)state;
	stack_init();
	assert_true(stack_ahead(100, a, 3) == h);	/* (an empty table) */
	assert_int_equal(stack_count_hashed(h, 5, 100, a, 3, 0, l1), 0);
	stack_add_hashed(h, 5, 100, a, 3, 0, ca, 2, l1);
	assert_true(stack_ahead(100, a, 3) == h);
	assert_int_equal(stack_count_hashed(h, 5, 100, a, 3, 0, l1), 1);
	assert_int_equal(stack_count(5, 100, a, 3, 0, l1), 1);
	/* The stream is no part of the hash, but of the key. */
	assert_int_equal(stack_count_hashed(h, 6, 100, a, 3, 0, l1), 0);
	assert_int_equal(stack_entries(), 1);
	assert_int_equal(stack_count_hashed(h, 5, 100, a, 3, 0, l3), 1);
	assert_int_equal(stack_entries(), 2);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	assert_int_equal(find(s, 2, l1, 3)->count, 3);
	assert_int_equal(find(s, 2, l3, 3)->count, 1);
	stack_fini();
}

/* A failed test leaves nothing behind for the next. */
static int
teardown(void **state)
{
	(void)state;
	stack_fini();
	return 0;
}

/* stack_rename's walk: the entries and leaves of the pids asked for, with
 * their raw words, and nothing of another pid's; what the callbacks
 * change is what stack_each gives. */
struct renamed {
	int		 entries, leaves;
};

static void
rename_entry(uint32_t pid, const uint64_t *w, uint32_t nk, uint32_t li,
    struct stack_frame *f, uint32_t depth, void *arg)
{
	struct renamed *r = arg;

	assert_int_equal(pid, 100);
	/* [marker, leaf, 0x402000, 0x403000] less its leaf. */
	assert_int_equal(nk, 3);
	assert_int_equal(li, 1);
	assert_true(w[0] == 0xfffffffffffffe00ULL);
	assert_true(w[1] == 0x402000 && w[2] == 0x403000);
	assert_int_equal(depth, 2);
	assert_int_equal(f[0].image, STACK_NOIMAGE);
	f[0] = (struct stack_frame){ 9, 0x90 };
	r->entries++;
}

static void
rename_leaf(uint32_t pid, const uint64_t *w, uint32_t nk, uint32_t li,
    uint64_t ip, struct stack_frame *f, void *arg)
{
	struct renamed *r = arg;

	(void)w, (void)nk, (void)li;
	assert_int_equal(pid, 100);
	assert_true(ip == 0x401000);
	f->image = 9;
	f->offset = 0x10;
	r->leaves++;
}

static void
test_rename(void **state)
{
	static const uint64_t a[] = { 0xfffffffffffffe00ULL, 0x401000, 0x402000, 0x403000 };
	static const struct stack_frame c[] = { { STACK_NOIMAGE, 0 }, { 2, 0x30 } };
	struct stack_frame nl = { STACK_NOIMAGE, 0 };
	struct renamed r = { 0, 0 };
	uint32_t want[] = { 150, 100, 50 };	/* (sorted by stack_rename) */
	const struct seen *p;
	struct seen s[4];

	(void)state;
	stack_init();
	stack_add(5, 100, a, 4, 1, c, 2, nl);
	stack_add(5, 200, a, 4, 1, c, 2, nl);
	stack_rename(want, 3, rename_entry, rename_leaf, &r);
	assert_int_equal(r.entries, 1);
	assert_int_equal(r.leaves, 1);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	/* pid 100's chain named, pid 200's as it was. */
	p = find(s, 2, (struct stack_frame){ 9, 0x10 }, 3);
	assert_int_equal(p->f[1].image, 9);
	assert_int_equal(p->f[1].offset, 0x90);
	assert_int_equal(p->f[2].image, 2);
	p = find(s, 2, nl, 3);
	assert_int_equal(p->f[1].image, STACK_NOIMAGE);
	/* The key stays: the same raw chain counts under the named leaf. */
	assert_int_equal(stack_count(5, 100, a, 4, 1, (struct stack_frame){ 9, 0x10 }), 1);
	stack_rename(want, 0, rename_entry, rename_leaf, &r);
	assert_int_equal(r.entries, 1);
	stack_fini();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_count_add, teardown),
		cmocka_unit_test_teardown(test_leaf_only, teardown),
		cmocka_unit_test_teardown(test_streams, teardown),
		cmocka_unit_test_teardown(test_many, teardown),
		cmocka_unit_test_teardown(test_fold, teardown),
		cmocka_unit_test_teardown(test_hashed, teardown),
		cmocka_unit_test_teardown(test_rename, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
