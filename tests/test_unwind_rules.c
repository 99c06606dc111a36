/*
 * The unwind tables' rows and their interned rules (daemon/unwind_table.h):
 * 8-byte rows naming 8-byte rules, each distinct rule once in the
 * process, indexes that never move, and the bound on the rules.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unwind_table.h"

static void
test_row_format(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct unwind_row), 8);
	assert_int_equal(sizeof(struct unwind_rule), 8);
}

/* Rules 0 and 1 are the gap's and the over-the-bound's, before any
 * other; a rule interned again is the same index; rules that differ in
 * any field are different ones. */
static void
test_intern(void **state)
{
	struct unwind_rule a = { 16, -16, -8, UNWIND_CFA_BP | UNWIND_BP_CFA << 3 },
	    b = a, c = a, d = a, e = a;
	uint32_t ia, n0;

	(void)state;
	ia = unwind_rule_intern(&a);
	assert_true(ia > UNWIND_RULE_OVER);
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_at(UNWIND_RULE_GAP)), UNWIND_CFA_NONE);
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_at(UNWIND_RULE_OVER)),
	    UNWIND_CFA_UNHANDLED);
	n0 = unwind_rules();
	assert_int_equal(unwind_rule_intern(&(struct unwind_rule){ 16, -16, -8,
	    UNWIND_CFA_BP | UNWIND_BP_CFA << 3 }), ia);
	assert_int_equal(unwind_rules(), n0);
	b.cfa_offset = 24;
	c.bp_offset = -24;
	d.ra_offset = -16;
	e.kind |= UNWIND_RULE_OUTERMOST;
	assert_int_not_equal(unwind_rule_intern(&b), ia);
	assert_int_not_equal(unwind_rule_intern(&c), ia);
	assert_int_not_equal(unwind_rule_intern(&d), ia);
	assert_int_not_equal(unwind_rule_intern(&e), ia);
	assert_int_equal(unwind_rules(), n0 + 4);
	assert_int_equal(unwind_rule_intern(&e), n0 + 3);
	assert_memory_equal(unwind_rule_at(ia), &a, sizeof(a));
	assert_memory_equal(unwind_rule_at(n0 + 3), &e, sizeof(e));
	/* Past the rules: the walk's end, not memory beyond them. */
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_at(unwind_rules())),
	    UNWIND_CFA_UNHANDLED);
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_at(UINT32_MAX)),
	    UNWIND_CFA_UNHANDLED);
}

/* The table of this process's libc. */
static struct unwind_table *
libc_table(void)
{
	struct unwind_table *t;
	Dl_info di;
	int fd;

	assert_int_not_equal(dladdr((void *)&printf, &di), 0);
	assert_int_not_equal(fd = open(di.dli_fname, O_RDONLY | O_CLOEXEC), -1);
	t = unwind_table_build_fd(fd, -1);
	close(fd);
	assert_non_null(t);
	return t;
}

/* A real image's table: every row names a rule interned, the gap's
 * where it says nothing, and its rows share few rules (libc's tens of
 * thousands of rows, some hundreds of rules). */
static void
test_table_rules(void **state)
{
	struct unwind_table *t;
	size_t i, n, gaps = 0;
	uint32_t n0 = unwind_rules();
	uint64_t over0 = unwind_rules_over();

	(void)state;
	t = libc_table();
	n = unwind_table_rows(t);
	assert_true(n > 1000);
	for (i = 0; i < n; i++) {
		const struct unwind_row *r = unwind_table_row(t, i);

		assert_true(r->rule < unwind_rules());
		if (r->rule == UNWIND_RULE_GAP)
			gaps++;
		else
			assert_int_not_equal(UNWIND_RULE_CFA(unwind_rule_of(r)),
			    UNWIND_CFA_NONE);
	}
	assert_true(gaps >= 1);
	assert_int_equal(unwind_rules_over(), over0);
	assert_true(unwind_rules() > n0);
	assert_true((unwind_rules() - n0) * 10 < n);
	assert_true(unwind_table_memory(t) < n * sizeof(struct unwind_row) + 4096);
	unwind_table_free(t);
}

/* A table's rows moved into memory another holds (the kernel's array):
 * found there alike, not counted in its memory, not freed with it; taken
 * back into memory of its own, found alike again. */
static void
test_move_rows(void **state)
{
	struct unwind_table *t;
	struct unwind_row *dst;
	const struct unwind_row *r;
	size_t i, n, own;
	uint64_t v[64];
	uint32_t rule[64];

	(void)state;
	t = libc_table();
	n = unwind_table_rows(t);
	own = unwind_table_memory(t);
	for (i = 0; i < 64; i++) {
		r = unwind_table_row(t, i * (n / 64));
		v[i] = unwind_table_row_vaddr(t, r) + 1;
		rule[i] = (r = unwind_table_find(t, v[i])) != NULL ? r->rule : UINT32_MAX;
	}
	assert_int_equal(unwind_table_rows_moved(t), 0);
	assert_non_null(dst = calloc(n, sizeof(*dst)));
	unwind_table_move_rows(t, dst);
	assert_int_equal(unwind_table_rows_moved(t), 1);
	assert_ptr_equal(unwind_table_row(t, 0), dst);
	assert_int_equal(unwind_table_memory(t), own - n * sizeof(struct unwind_row));
	for (i = 0; i < 64; i++)
		assert_int_equal((r = unwind_table_find(t, v[i])) != NULL ? r->rule :
		    UINT32_MAX, rule[i]);
	assert_int_equal(unwind_table_own_rows(t), 0);
	assert_int_equal(unwind_table_rows_moved(t), 0);
	assert_int_equal(unwind_table_memory(t), own);
	/* The rows are the table's own now: the old place may change. */
	memset(dst, 0xff, n * sizeof(*dst));
	for (i = 0; i < 64; i++)
		assert_int_equal((r = unwind_table_find(t, v[i])) != NULL ? r->rule :
		    UINT32_MAX, rule[i]);
	unwind_table_move_rows(t, dst);
	unwind_table_free(t);
	free(dst);
}

/* Past UNWIND_RULES_MAX a rule is UNWIND_RULE_OVER and counted; the
 * rules interned before keep their indexes and values. */
static void
test_bound(void **state)
{
	struct unwind_rule u = { 0, 0, -8, UNWIND_CFA_SP }, first;
	uint32_t i, fi, over0 = (uint32_t)unwind_rules_over();

	(void)state;
	first = (struct unwind_rule){ 12345, 0, -8, UNWIND_CFA_SP };
	fi = unwind_rule_intern(&first);
	for (i = 0; unwind_rules() < UNWIND_RULES_MAX; i++) {
		uint32_t k;

		u.cfa_offset = 1000000 + (int32_t)i;
		k = unwind_rule_intern(&u);
		assert_int_equal(k, unwind_rules() - 1);
	}
	u.cfa_offset = -1;
	assert_int_equal(unwind_rule_intern(&u), UNWIND_RULE_OVER);
	u.cfa_offset = -2;
	assert_int_equal(unwind_rule_intern(&u), UNWIND_RULE_OVER);
	assert_int_equal(unwind_rules_over(), over0 + 2);
	assert_int_equal(unwind_rules(), UNWIND_RULES_MAX);
	/* Those held are still found; the over's rule is not counted. */
	assert_int_equal(unwind_rule_intern(&first), fi);
	assert_memory_equal(unwind_rule_at(fi), &first, sizeof(first));
	assert_int_equal(unwind_rule_intern(unwind_rule_at(UNWIND_RULE_OVER)),
	    UNWIND_RULE_OVER);
	assert_int_equal(unwind_rules_over(), over0 + 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_format),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_table_rules),
		cmocka_unit_test(test_move_rows),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
