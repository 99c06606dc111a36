/*
 * daemon/stack.c: chains counted per (stream, pid, raw chain), kept with
 * their frames until cleared.
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
	static const uint64_t a[] = { 0x401000, 0x402000, 0x403000 };
	static const uint64_t b[] = { 0x401000, 0x402000, 0x404000 };
	static const struct stack_frame fa[] = { { 1, 0x10 }, { 1, 0x20 }, { 2, 0x30 } };
	static const struct stack_frame fb[] = { { 1, 0x10 }, { STACK_NOIMAGE, 0 } };
	struct seen s[4];

	(void)state;
	stack_init();
	assert_int_equal(stack_count(5, 100, a, 3), 0);
	stack_add(5, 100, a, 3, fa, 3);
	assert_int_equal(stack_count(5, 100, a, 3), 1);
	assert_int_equal(stack_count(5, 100, a, 3), 1);
	/* Another chain, stream, pid or length: not the same. */
	assert_int_equal(stack_count(5, 100, b, 3), 0);
	assert_int_equal(stack_count(6, 100, a, 3), 0);
	assert_int_equal(stack_count(5, 101, a, 3), 0);
	assert_int_equal(stack_count(5, 100, a, 2), 0);
	stack_add(5, 101, b, 3, fb, 2);
	assert_int_equal(stack_entries(), 2);
	assert_true(stack_memory() > 0);
	memset(s, 0, sizeof(s));
	assert_int_equal(stack_each(collect, s), 0);
	assert_int_equal(s[0].stream, 5);
	assert_int_equal(s[0].count, 3);
	assert_int_equal(s[0].depth, 3);
	assert_memory_equal(s[0].f, fa, sizeof(fa));
	assert_int_equal(s[1].count, 1);
	assert_int_equal(s[1].depth, 2);
	assert_int_equal(s[1].f[1].image, STACK_NOIMAGE);
	assert_int_equal(stack_each(stop, NULL), 7);
	/* Kept until cleared, then gone. */
	assert_int_equal(stack_entries(), 2);
	stack_clear();
	assert_int_equal(stack_entries(), 0);
	assert_int_equal(stack_count(5, 100, a, 3), 0);
	stack_fini();
}

/* Many chains: all found again, counted apart. */
static void
test_many(void **state)
{
	struct stack_frame f = { 1, 0 };
	uint64_t ips[16];
	uint32_t i, j;

	(void)state;
	stack_init();
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 16; j++)
			ips[j] = 0x400000 + i * 16 + j;
		f.offset = i;
		stack_add(1, i % 7, ips, 16, &f, 1);
	}
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 16; j++)
			ips[j] = 0x400000 + i * 16 + j;
		assert_int_equal(stack_count(1, i % 7, ips, 16), 1);
		assert_int_equal(stack_count(1, i % 7 + 1, ips, 16), 0);
	}
	assert_int_equal(stack_entries(), 20000);
	stack_fini();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_add),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
