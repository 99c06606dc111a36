/*
 * daemon/stack.c: chains counted per (stream, pid, raw callers) and leaf,
 * the callers kept with their frames until cleared.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

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
	/* Raw chains: the leaf (any PC: not part of the key), then callers. */
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
	struct seen s[4];

	(void)state;
	stack_init();
	assert_int_equal(stack_count(5, 100, a, 3, 0, l1), 0);
	stack_add(5, 100, a, 3, 0, ca, 2, l1);
	/* Known callers: counted, whatever the leaf. */
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
	assert_int_equal(stack_entries(), 3);
	assert_true(stack_memory() > 0);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	/* Leaf first, then the callers. */
	p = find(s, 3, l1, 3);
	assert_int_equal(p->stream, 5);
	assert_int_equal(p->count, 2);
	assert_memory_equal(&p->f[1], ca, sizeof(ca));
	p = find(s, 3, l2, 3);
	assert_int_equal(p->count, 1);
	assert_memory_equal(&p->f[1], ca, sizeof(ca));
	p = find(s, 3, l1, 2);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->f[1].image, STACK_NOIMAGE);
	assert_int_equal(stack_each(stop, NULL), 7);
	/* Kept until cleared, then gone. */
	assert_int_equal(stack_entries(), 3);
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

/* A failed test leaves nothing behind for the next. */
static int
teardown(void **state)
{
	(void)state;
	stack_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_count_add, teardown),
		cmocka_unit_test_teardown(test_leaf_only, teardown),
		cmocka_unit_test_teardown(test_many, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
