/*
 * Go's function table (lib/sym_gopclntab.c) on tables of each layout
 * (tests/fuzz/corpus/gopclntab: Go 1.2, 1.16, 1.18, 1.20, a big-endian
 * 1.18) and on broken ones.  sym_push is this file's: it records what the
 * reader pushes.  Real Go programs, stripped, are symbolized in
 * test_images_nobid.sh.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sym_int.h"

int
sym_push(struct rawsym **raw, size_t *n, size_t *cap, const char *name,
    uint64_t start, uint64_t size, uint64_t limit, size_t prio)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*raw = realloc(*raw, *cap * sizeof(**raw));
		assert_non_null(*raw);
	}
	(*raw)[*n] = (struct rawsym){ strdup(name), start, size, limit, prio };
	(*n)++;
	return 0;
}

static unsigned char buf[4096];
static size_t len;
static struct rawsym *raw;
static size_t n;

static void
load(const char *name)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/gopclntab/%s", TOP_SRCDIR, name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	assert_true(len > 0 && len < sizeof(buf));
}

static int
parse(uint64_t text, uint64_t tstart)
{
	size_t cap = 0;

	n = 0;
	raw = NULL;
	errno = 0;
	return sym_gopclntab(buf, len, text, tstart, &raw, &n, &cap);
}

static int
teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < n; i++)
		free(raw[i].name);
	free(raw);
	raw = NULL;
	n = 0;
	return 0;
}

static void
assert_sym(size_t i, const char *name, uint64_t start, uint64_t size, uint64_t limit)
{
	assert_true(i < n);
	assert_string_equal(raw[i].name, name);
	assert_true(raw[i].start == start);
	assert_true(raw[i].size == size);
	assert_true(raw[i].limit == limit);
	assert_int_equal(raw[i].prio, 1);
}

/* Go 1.18 and 1.20: entries are offsets from the text, whose address is
 * the .text section's (the argument), not the header's (0x401000 there). */
static void
test_go118(void **state)
{
	static const char *const files[] = { "go118", "go120", "go118_be" };
	size_t f;

	for (f = 0; f < 3; f++) {
		load(files[f]);
		assert_int_equal(parse(0x500000, 0x4ff000), 0);
		assert_int_equal(n, 3);
		assert_sym(0, "main.a", 0x1000, 0x40, 0x1100);
		assert_sym(1, "main.b", 0x1040, 0x50, 0x1100);
		assert_sym(2, "runtime.c", 0x1090, 0x70, 0x1100);
		teardown(state);
	}
}

/* A table of main.a and main.b, each size bytes from start. */
static void
expect_ab(const char *file, uint64_t start, uint64_t size)
{
	load(file);
	assert_int_equal(parse(0x999000, 0x400000), 0);
	assert_int_equal(n, 2);
	assert_sym(0, "main.a", start, size, start + 2 * size);
	assert_sym(1, "main.b", start + size, size, start + 2 * size);
	teardown(NULL);
}

/* Go 1.16 and 1.2: entries are addresses (the text's is not used). */
static void
test_go116_go12(void **state)
{
	expect_ab("go116", 0x1000, 0x40);
	expect_ab("go12", 0x1000, 0x30);
	/* Functions below the image's text start are left out. */
	load("go116");
	assert_int_equal(parse(0, 0x401040), 0);
	assert_int_equal(n, 1);
	assert_sym(0, "main.b", 0, 0x40, 0x40);
	(void)state;
}

/* The table loaded does not parse: EINVAL. */
static void
assert_einval(void)
{
	assert_int_equal(parse(0x500000, 0x400000), -1);
	assert_int_equal(errno, EINVAL);
	teardown(NULL);
}

/* Broken tables: EINVAL, never a read past the section. */
static void
test_broken(void **state)
{
	size_t full;

	(void)state;
	load("bad_nfunc");		/* 200 functions in a table of 3 */
	assert_einval();
	load("truncated");
	assert_einval();
	/* Every shorter piece of a good table fails cleanly, but for the
	 * last function's 8 bytes of padding (its _func's fields past the
	 * name's offset), which the reader does not need. */
	load("go118");
	for (full = len; len > 0; len--) {
		int rc = parse(0x500000, 0x400000);

		if (len >= full - 8) {
			assert_int_equal(rc, 0);
			assert_int_equal(n, 3);
			assert_sym(2, "runtime.c", 0x100090, 0x70, 0x100100);
		} else {
			assert_int_equal(rc, -1);
			assert_int_equal(errno, EINVAL);
		}
		teardown(state);
	}
	/* An unknown magic (a Go newer than the reader). */
	load("go118");
	buf[0] = 0xf2;
	assert_einval();
	/* A name without its NUL at the end of the section. */
	load("go12");
	len--;
	assert_einval();
	/* Entries out of order: the table is at 80 (a header of 64 bytes,
	 * the names, padding), and main.a's entry 0x401000 becomes
	 * 0x401080, past main.b's 0x401040. */
	load("go116");
	buf[80] = 0x80;
	assert_einval();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_go118, teardown),
		cmocka_unit_test_teardown(test_go116_go12, teardown),
		cmocka_unit_test_teardown(test_broken, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
