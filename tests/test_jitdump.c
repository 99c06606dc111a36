/*
 * perf's jitdump files (lib/jitdump.c, lib/dcpi/jitdump.h), on dumps built
 * here field by field in either byte order.
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcpi/jitdump.h>

struct dump {
	unsigned char	 b[4096];
	size_t		 len;
	int		 swap;
};

static void
put32(struct dump *d, uint32_t v)
{
	if (d->swap)
		v = bswap_32(v);
	assert_true(d->len + 4 <= sizeof(d->b));
	memcpy(d->b + d->len, &v, 4);
	d->len += 4;
}

static void
put64(struct dump *d, uint64_t v)
{
	if (d->swap)
		v = bswap_64(v);
	assert_true(d->len + 8 <= sizeof(d->b));
	memcpy(d->b + d->len, &v, 8);
	d->len += 8;
}

static void
header(struct dump *d, int swap)
{
	memset(d, 0, sizeof(*d));
	d->swap = swap;
	put32(d, DCPI_JITDUMP_MAGIC);
	put32(d, 1);		/* version */
	put32(d, 40);		/* total_size */
	put32(d, 62);		/* EM_X86_64 */
	put32(d, 0xdeadbeef);	/* pad1, as V8 writes it */
	put32(d, 1234);
	put64(d, 1);
	put64(d, 0);
}

static void
load(struct dump *d, uint64_t addr, uint64_t size, uint64_t idx,
    const char *name)
{
	size_t nl = strlen(name) + 1;

	put32(d, 0);
	put32(d, (uint32_t)(56 + nl + size));
	put64(d, 2);
	put32(d, 1234);
	put32(d, 1235);
	put64(d, addr);
	put64(d, addr);
	put64(d, size);
	put64(d, idx);
	assert_true(d->len + nl + size <= sizeof(d->b));
	memcpy(d->b + d->len, name, nl);
	d->len += nl;
	memset(d->b + d->len, 0xcc, size);	/* the code */
	d->len += size;
}

static void
move(struct dump *d, uint64_t from, uint64_t to, uint64_t size, uint64_t idx)
{
	put32(d, 1);
	put32(d, 64);
	put64(d, 3);
	put32(d, 1234);
	put32(d, 1235);
	put64(d, to);
	put64(d, from);
	put64(d, to);
	put64(d, size);
	put64(d, idx);
}

/* A record of id with n bytes of body that means nothing to us. */
static void
other(struct dump *d, uint32_t id, size_t n)
{
	put32(d, id);
	put32(d, (uint32_t)(16 + n));
	put64(d, 4);
	memset(d->b + d->len, 0x5a, n);
	d->len += n;
}

static int
parse(const struct dump *d, size_t len, struct dcpi_perfmap_entry **e,
    size_t *n, struct dcpi_error *err)
{
	return dcpi_jitdump_parse(d->b, len, "t.dump", e, n, err);
}

static void
check_good(int swap)
{
	struct dcpi_perfmap_entry *e;
	struct dcpi_error err;
	struct dump d;
	size_t n;

	header(&d, swap);
	load(&d, 0x7f0000001000ULL, 0x40, 7, "JS:*hotJsFunction /x.js:12:23");
	other(&d, 2, 40);	/* debug info */
	other(&d, 4, 24);	/* unwinding info */
	load(&d, 0x18c4000, 0x30, 8, "Builtin:ArgumentsAdaptorTrampoline");
	load(&d, 0x18c5000, 0, 9, "empty");
	other(&d, 99, 8);	/* a later version's record */
	other(&d, 3, 0);	/* close */
	err.msg[0] = '\0';
	assert_int_equal(parse(&d, d.len, &e, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(e[0].start, 0x7f0000001000ULL);
	assert_int_equal(e[0].size, 0x40);
	assert_string_equal(e[0].name, "JS:*hotJsFunction /x.js:12:23");
	assert_int_equal(e[1].start, 0x18c4000);
	assert_int_equal(e[1].size, 0x30);
	assert_string_equal(e[1].name, "Builtin:ArgumentsAdaptorTrampoline");
	dcpi_perfmap_free(e, n);
}

static void
test_native(void **state)
{
	(void)state;
	check_good(0);
}

static void
test_swapped(void **state)
{
	(void)state;
	check_good(1);
}

static void
test_move(void **state)
{
	struct dcpi_perfmap_entry *e;
	struct dump d;
	size_t n;

	(void)state;
	header(&d, 0);
	load(&d, 0x1000, 0x20, 1, "a");
	load(&d, 0x2000, 0x20, 2, "b");
	load(&d, 0x1000, 0x10, 1, "a2");	/* index 1 reloaded */
	move(&d, 0x1000, 0x5000, 0x18, 1);
	move(&d, 0x2000, 0x6000, 0x20, 2);
	assert_int_equal(parse(&d, d.len, &e, &n, NULL), 0);
	assert_int_equal(n, 5);
	/* The latest load of an index names its moves. */
	assert_int_equal(e[3].start, 0x5000);
	assert_int_equal(e[3].size, 0x18);
	assert_string_equal(e[3].name, "a2");
	assert_int_equal(e[4].start, 0x6000);
	assert_string_equal(e[4].name, "b");
	/* The old address stays named, for the samples taken before. */
	assert_int_equal(e[1].start, 0x2000);
	assert_string_equal(e[1].name, "b");
	dcpi_perfmap_free(e, n);
}

/* A dump being written: a record cut anywhere ends the parse, keeping the
 * complete records before it. */
static void
test_truncated(void **state)
{
	struct dcpi_perfmap_entry *e;
	struct dump d;
	size_t n, whole, cut;

	(void)state;
	header(&d, 0);
	load(&d, 0x1000, 0x20, 1, "first");
	whole = d.len;
	load(&d, 0x2000, 0x20, 2, "second");
	for (cut = whole; cut < d.len; cut++) {
		assert_int_equal(parse(&d, cut, &e, &n, NULL), 0);
		assert_int_equal(n, 1);
		assert_string_equal(e[0].name, "first");
		dcpi_perfmap_free(e, n);
	}
	assert_int_equal(parse(&d, d.len, &e, &n, NULL), 0);
	assert_int_equal(n, 2);
	dcpi_perfmap_free(e, n);
	/* A header alone: no code yet. */
	assert_int_equal(parse(&d, 40, &e, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_null(e);
}

/* d's parse fails with EINVAL, naming want, keeping the entries before
 * the bad record (nkept). */
static void
bad(const struct dump *d, size_t len, size_t nkept, const char *want)
{
	struct dcpi_perfmap_entry *e;
	struct dcpi_error err;
	size_t n = 99;

	err.msg[0] = '\0';
	errno = 0;
	assert_int_equal(parse(d, len, &e, &n, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(n, nkept);
	if (strstr(err.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_null(strchr(err.msg, '\n'));
	dcpi_perfmap_free(e, n);
}

static void
test_bad_header(void **state)
{
	struct dump d;

	(void)state;
	header(&d, 0);
	bad(&d, 39, 0, "t.dump: byte 0: 39 bytes; expected a jitdump header");
	memcpy(d.b, "ELF\x7f", 4);
	bad(&d, d.len, 0, "t.dump: byte 0: magic 0x7f464c45; expected 0x4a695444");
	header(&d, 1);
	d.b[7] = 2;		/* version 2, big-endian */
	bad(&d, d.len, 0, "t.dump: byte 4: version 2; expected 1");
	header(&d, 0);
	d.b[8] = 32;
	bad(&d, d.len, 0, "t.dump: byte 8: header total_size 32");
	d.b[8] = 41;		/* more than the file */
	bad(&d, d.len, 0, "t.dump: byte 8: header total_size 41");
}

static void
test_bad_records(void **state)
{
	struct dump d;
	size_t at;
	uint32_t v;

	(void)state;
	/* A record size below its header would loop for ever. */
	header(&d, 0);
	load(&d, 0x1000, 0x10, 1, "ok");
	at = d.len;
	other(&d, 2, 8);
	v = 15;
	memcpy(d.b + at + 4, &v, 4);
	bad(&d, d.len, 1, "byte 115: record total_size 15; expected at least 16");

	/* A load too short for its fixed fields. */
	header(&d, 0);
	other(&d, 0, 30);
	bad(&d, d.len, 0, "byte 40: JIT_CODE_LOAD of 46 bytes; expected at "
	    "least 57");

	/* Names: unterminated, empty, with a newline. */
	header(&d, 0);
	load(&d, 0x1000, 0, 1, "abc");
	d.b[d.len - 1] = 'x';
	bad(&d, d.len, 0, "byte 96: JIT_CODE_LOAD name not terminated");
	header(&d, 0);
	load(&d, 0x1000, 0x10, 1, "");
	bad(&d, d.len, 0, "name empty");
	header(&d, 0);
	load(&d, 0x1000, 0x10, 1, "a\nb");
	bad(&d, d.len, 0, "name holds a newline");

	/* Code that does not fit its record, code past 2^64. */
	header(&d, 0);
	load(&d, 0x1000, 0x10, 1, "f");
	v = 0x11;
	memcpy(d.b + 40 + 40, &v, 4);
	bad(&d, d.len, 0, "byte 80: JIT_CODE_LOAD code_size 17; expected at "
	    "most the record's 16 bytes");
	header(&d, 0);
	load(&d, 0xfffffffffffffff8ULL, 0x10, 1, "f");
	bad(&d, d.len, 0, "byte 72: code_addr 0xfffffffffffffff8 + code_size "
	    "0x10 is past the end");

	/* A move of an index never loaded, a move too short, past 2^64. */
	header(&d, 0);
	load(&d, 0x1000, 0x10, 1, "f");
	move(&d, 0x3000, 0x4000, 0x10, 2);
	bad(&d, d.len, 1, "JIT_CODE_MOVE of code_index 2 from 0x3000");
	header(&d, 0);
	other(&d, 1, 40);
	bad(&d, d.len, 0, "byte 40: JIT_CODE_MOVE of 56 bytes; expected at "
	    "least 64");
	header(&d, 0);
	load(&d, 0x1000, 0x10, 1, "f");
	move(&d, 0x1000, 0xfffffffffffffff8ULL, 0x10, 1);
	bad(&d, d.len, 1, "new_code_addr 0xfffffffffffffff8 + code_size 0x10");
}

static void
test_read(void **state)
{
	char dir[] = "/tmp/test_jitdump.XXXXXX", path[64], link[64];
	struct dcpi_perfmap_entry *e;
	struct dcpi_error err;
	struct dump d;
	size_t n;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/jit-1.dump", dir);
	header(&d, 0);
	load(&d, 0x1000, 0x20, 1, "f");
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fwrite(d.b, 1, d.len, fp), d.len);
	fclose(fp);
	assert_int_equal(dcpi_jitdump_read(path, 0, &e, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].name, "f");
	dcpi_perfmap_free(e, n);

	errno = 0;
	assert_int_equal(dcpi_jitdump_read(path, 100, &e, &n, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err.msg, path));

	/* Not followed: a symlink at the last component, a directory. */
	snprintf(link, sizeof(link), "%s/jit-2.dump", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(dcpi_jitdump_read(link, 0, &e, &n, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(dcpi_jitdump_read(dir, 0, &e, &n, &err), -1);
	assert_int_equal(errno, EISDIR);
	assert_non_null(strstr(err.msg, "not a regular file"));

	/* A bad file: the message names it and the offset. */
	assert_non_null(fp = fopen(path, "w"));
	fputs("not a jitdump at all, but long enough for a header.\n", fp);
	fclose(fp);
	assert_int_equal(dcpi_jitdump_read(path, 0, &e, &n, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "jit-1.dump: byte 0: magic"));
	dcpi_perfmap_free(e, n);

	unlink(link);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
