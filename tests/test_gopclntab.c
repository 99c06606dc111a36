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

/*
 * A table with line tables, built here in each layout: main.a at the
 * text's start, 0x40 bytes, in a.go, line 10 for its first 0x10 bytes and
 * 12 after; main.b after it, 0x40 bytes, in b.go, line 20.  The text is
 * at 0x401000 (Go 1.18 on: entries as offsets from it).
 */
struct tb {
	unsigned char	 b[2048];
	size_t		 n;
	int		 be;
	unsigned	 ptr;
};

static void
put(struct tb *t, size_t off, uint64_t v, unsigned size)
{
	unsigned i;

	assert_true(off + size <= sizeof(t->b));
	for (i = 0; i < size; i++)
		t->b[off + (t->be ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
	if (off + size > t->n)
		t->n = off + size;
}

static size_t
add(struct tb *t, const void *p, size_t size)
{
	size_t off = t->n;

	assert_true(off + size <= sizeof(t->b));
	memcpy(t->b + off, p, size);
	t->n += size;
	return off;
}

static void
uvarint(struct tb *t, uint32_t v)
{
	unsigned char c;

	do {
		c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		add(t, &c, 1);
	} while (v);
}

/* A pc-value table of steps (value, bytes) pairs, from value -1; its offset
 * from base. */
static uint32_t
pcvalues(struct tb *t, size_t base, const int32_t *v, const uint32_t *bytes, size_t steps)
{
	size_t off = t->n, i;
	int32_t prev = -1;

	for (i = 0; i < steps; i++) {
		int32_t d = v[i] - prev;

		uvarint(t, d >= 0 ? (uint32_t)d << 1 : ((uint32_t)~d << 1) | 1);
		uvarint(t, bytes[i]);
		prev = v[i];
	}
	uvarint(t, 0);
	return (uint32_t)(off - base);
}

static void
build(struct tb *t, int ver, int be)
{
	static const int32_t la[] = { 10, 12 }, lb[] = { 20 };
	static const uint32_t ba[] = { 0x10, 0x30 }, bb[] = { 0x40 };
	uint32_t magic = ver == 12 ? 0xfffffffb : ver == 116 ? 0xfffffffa : 0xfffffff1;
	uint64_t text = 0x401000, entry[3] = { 0, 0x40, 0x80 };
	size_t hdr, names, cutab = 0, filetab, pctab, functab, funcs, w, fi;
	uint32_t lna, lnb, fla, flb, fa = 0, fb = 0;
	unsigned sz0, field, i;

	memset(t, 0, sizeof(*t));
	t->be = be;
	t->ptr = 8;
	put(t, 0, magic, 4);
	t->b[6] = 1;			/* quantum */
	t->b[7] = 8;			/* pointer size */
	w = ver == 12 ? 0 : ver == 116 ? 7 : 8;	/* header words */
	hdr = 8 + (w ? w : 1) * 8;
	t->n = hdr;
	field = ver == 118 ? 4 : 8;
	/* Go 1.2's function table follows the header, the file table's
	 * offset after it. */
	if (ver == 12)
		t->n += 5 * field + 4;
	names = add(t, "main.a\0main.b", 14);
	if (ver == 12) {
		/* Go 1.2: the file table is numbered from 1, its entries
		 * offsets of names from the section's start. */
		filetab = t->n;
		t->n += 4 * 3;
		put(t, filetab, 3, 4);
		put(t, filetab + 4, add(t, "a.go", 5), 4);
		put(t, filetab + 8, add(t, "b.go", 5), 4);
		fa = 1;
		fb = 2;
	} else {
		cutab = t->n;
		t->n += 8;
		filetab = add(t, "a.go\0b.go", 10);
		put(t, cutab, 0, 4);	/* cu 0's file 0: a.go */
		put(t, cutab + 4, 5, 4);	/* cu 1's file 0: b.go */
	}
	pctab = ver == 12 ? 0 : t->n;
	lna = pcvalues(t, pctab, la, ba, 2);
	lnb = pcvalues(t, pctab, lb, bb, 1);
	fla = pcvalues(t, pctab, (const int32_t[]){ (int32_t)fa }, bb, 1);
	flb = pcvalues(t, pctab, (const int32_t[]){ (int32_t)fb }, bb, 1);
	t->n = (t->n + 7) & ~(size_t)7;
	functab = ver == 12 ? hdr : t->n;
	sz0 = field;
	funcs = ver == 12 ? t->n : functab + 5 * field;
	funcs = (funcs + 7) & ~(size_t)7;
	for (i = 0; i < 3; i++)
		put(t, functab + 2 * i * field, ver == 118 ? entry[i] : text + entry[i], field);
	if (ver == 12)
		put(t, functab + 5 * field, filetab, 4);
	for (i = 0; i < 2; i++) {
		size_t f = funcs + i * 48, base = ver == 12 ? 0 : functab;

		put(t, functab + (2 * i + 1) * field, f - base, field);
		put(t, f, ver == 118 ? entry[i] : text + entry[i], sz0);
		put(t, f + sz0, names + 7 * i - (ver == 12 ? 0 : names), 4);
		put(t, f + sz0 + 16, i ? flb : fla, 4);
		put(t, f + sz0 + 20, i ? lnb : lna, 4);
		put(t, f + sz0 + 28, i, 4);	/* cuOffset */
		put(t, f + 44, 0, 4);
	}
	fi = 8;
	put(t, fi, 2, 8);		/* nfunc */
	if (ver != 12) {
		size_t o[] = { 2, names, cutab, filetab, pctab, functab };
		size_t k = 0;

		put(t, fi + 8, o[k++], 8);	/* nfiletab */
		if (ver == 118)
			put(t, fi + 16, text, 8);
		for (i = ver == 118 ? 3 : 2; i < w; i++)
			put(t, fi + 8 * i, o[k++], 8);
	}
	memcpy(buf, t->b, t->n);
	len = t->n;
}

static void
expect_line(uint64_t pc, const char *file, int line)
{
	const char *f = NULL;
	int l = 0;

	errno = 0;
	if (file == NULL) {
		assert_int_equal(sym_gopclntab_line(buf, len, 0x401000, pc, &f, &l), -1);
		assert_int_equal(errno, ENOENT);
		return;
	}
	assert_int_equal(sym_gopclntab_line(buf, len, 0x401000, pc, &f, &l), 0);
	assert_string_equal(f, file);
	assert_int_equal(l, line);
}

/* Lines and files in each layout, either byte order, as debug/gosym
 * reads them; nothing outside the functions; broken tables EINVAL or
 * ENOENT, never a read past the section. */
static void
test_lines(void **state)
{
	static const int vers[] = { 12, 116, 118 };
	struct tb t;
	size_t v, be, full;
	const char *f;
	int l;

	(void)state;
	for (v = 0; v < 3; v++)
		for (be = 0; be < 2; be++) {
			build(&t, vers[v], (int)be);
			/* The symbols too, from the same table. */
			assert_int_equal(parse(0x401000, 0x400000), 0);
			assert_int_equal(n, 2);
			assert_sym(0, "main.a", 0x1000, 0x40, 0x1080);
			assert_sym(1, "main.b", 0x1040, 0x40, 0x1080);
			teardown(NULL);
			expect_line(0x401000, "a.go", 10);
			expect_line(0x40100f, "a.go", 10);
			expect_line(0x401010, "a.go", 12);
			expect_line(0x40103f, "a.go", 12);
			expect_line(0x401040, "b.go", 20);
			expect_line(0x40107f, "b.go", 20);
			expect_line(0x401080, NULL, 0);
			expect_line(0x400fff, NULL, 0);
			for (full = len; len > 0; len--) {
				errno = 0;
				if (sym_gopclntab_line(buf, len, 0x401000, 0x401010, &f, &l) == 0) {
					assert_string_equal(f, "a.go");
					assert_int_equal(l, 12);
				} else
					assert_true(errno == ENOENT || errno == EINVAL);
			}
			len = full;
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_go118, teardown),
		cmocka_unit_test_teardown(test_go116_go12, teardown),
		cmocka_unit_test_teardown(test_broken, teardown),
		cmocka_unit_test_teardown(test_lines, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
