/*
 * perf's JIT symbol maps (lib/perfmap.c, lib/dcpi/perfmap.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dcpi/perfmap.h>

static int
parse(const char *s, struct dcpi_perfmap_entry **e, size_t *n,
    struct dcpi_error *err)
{
	return dcpi_perfmap_parse(s, strlen(s), "t.map", e, n, err);
}

static void
test_good(void **state)
{
	const char *s =
	    "7f0000001000 40 LazyCompile:~hotJsFunction /tmp/x.js:3\n"
	    "0x7f0000002000 0x10 Interpreter\n"
	    "\n"
	    "  \t\n"
	    "7F0000003000\t1A\tLjava/lang/String;::hashCode ()I\r\n"
	    "10 1  spaced  name  \n";
	struct dcpi_perfmap_entry *e;
	struct dcpi_error err;
	size_t n;

	(void)state;
	assert_int_equal(parse(s, &e, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(e[0].start, 0x7f0000001000ULL);
	assert_int_equal(e[0].size, 0x40);
	assert_string_equal(e[0].name, "LazyCompile:~hotJsFunction /tmp/x.js:3");
	assert_int_equal(e[1].start, 0x7f0000002000ULL);
	assert_int_equal(e[1].size, 0x10);
	assert_string_equal(e[1].name, "Interpreter");
	assert_int_equal(e[2].start, 0x7f0000003000ULL);
	assert_int_equal(e[2].size, 0x1a);
	assert_string_equal(e[2].name, "Ljava/lang/String;::hashCode ()I");
	/* Inner and trailing blanks belong to the name. */
	assert_string_equal(e[3].name, "spaced  name  ");
	dcpi_perfmap_free(e, n);
}

static void
test_overlap_order(void **state)
{
	const char *s = "1000 100 old\n1000 80 new\n1040 10 inner\n";
	struct dcpi_perfmap_entry *e;
	size_t n;

	(void)state;
	assert_int_equal(parse(s, &e, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(e[0].name, "old");
	assert_string_equal(e[1].name, "new");
	assert_int_equal(e[1].size, 0x80);
	assert_string_equal(e[2].name, "inner");
	dcpi_perfmap_free(e, n);
}

static void
test_no_final_newline(void **state)
{
	struct dcpi_perfmap_entry *e;
	size_t n;

	(void)state;
	assert_int_equal(parse("1 2 a\n3 4 last", &e, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(e[1].start, 3);
	assert_int_equal(e[1].size, 4);
	assert_string_equal(e[1].name, "last");
	dcpi_perfmap_free(e, n);
	assert_int_equal(parse("", &e, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_null(e);
}

static void
bad(const char *s, const char *want)
{
	struct dcpi_perfmap_entry *e = (void *)1;
	struct dcpi_error err;
	size_t n = 99;

	err.msg[0] = '\0';
	errno = 0;
	assert_int_equal(parse(s, &e, &n, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(e);
	assert_int_equal(n, 0);
	if (strstr(err.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_null(strchr(err.msg, '\n'));
}

static void
test_malformed(void **state)
{
	(void)state;
	bad("1000 10 ok\n\nzz 10 f\n", "t.map: line 3: START is not hexadecimal");
	bad("1000 10 ok\n1000\n", "t.map: line 2: SIZE is missing");
	bad("1000 10\n", "t.map: line 1: NAME is missing");
	bad("1000 10   \n", "t.map: line 1: NAME is missing");
	bad("1000 10x f\n", "line 1: SIZE is not hexadecimal");
	bad("1000 0 f\n", "line 1: SIZE is 0");
	bad("0x 10 f\n", "line 1: START is missing");
	bad("1000 -1 f\n", "line 1: SIZE is not hexadecimal");
}

static void
test_nul(void **state)
{
	static const char s[] = "a 1 x\n1000 10 f\0g\n";
	struct dcpi_perfmap_entry *e;
	struct dcpi_error err;
	size_t n;

	(void)state;
	assert_int_equal(dcpi_perfmap_parse(s, sizeof(s) - 1, "t.map", &e, &n,
	    &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "t.map: line 2: NUL byte"));
}

static void
test_overflow(void **state)
{
	struct dcpi_perfmap_entry *e;
	size_t n;

	(void)state;
	/* 16 digits fit; 17 significant digits do not. */
	assert_int_equal(parse("ffffffffffff0000 ffff big\n", &e, &n, NULL), 0);
	assert_int_equal(e[0].start, 0xffffffffffff0000ULL);
	dcpi_perfmap_free(e, n);
	assert_int_equal(parse("0000000000000000001 1 lead\n", &e, &n, NULL), 0);
	assert_int_equal(e[0].start, 1);
	dcpi_perfmap_free(e, n);
	bad("1ffffffffffffffff 1 f\n", "line 1: START does not fit 64 bits");
	bad("1 10000000000000000 f\n", "line 1: SIZE does not fit 64 bits");
	bad("ffffffffffff0000 10000 f\n", "line 1: START 0xffffffffffff0000 + "
	    "SIZE 0x10000 is past the end");
	bad("1 ffffffffffffffff f\n", "past the end");
}

static void
test_read(void **state)
{
	char dir[] = "/tmp/test_perfmap.XXXXXX", path[64], link[64];
	struct dcpi_perfmap_entry *e;
	struct dcpi_error err;
	size_t n;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("1000 20 f\n2000 30 g\n", fp);
	fclose(fp);
	assert_int_equal(dcpi_perfmap_read(path, 0, &e, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(e[1].name, "g");
	dcpi_perfmap_free(e, n);

	/* Larger than the limit. */
	errno = 0;
	assert_int_equal(dcpi_perfmap_read(path, 10, &e, &n, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_non_null(strstr(err.msg, path));

	/* The message names the file and line. */
	assert_non_null(fp = fopen(path, "a"));
	fputs("bad\n", fp);
	fclose(fp);
	assert_int_equal(dcpi_perfmap_read(path, 0, &e, &n, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "perf-1.map: line 3:"));

	/* Not followed: a symlink at the last component, a directory. */
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(dcpi_perfmap_read(link, 0, &e, &n, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(dcpi_perfmap_read(dir, 0, &e, &n, &err), -1);
	assert_int_equal(errno, EISDIR);
	assert_non_null(strstr(err.msg, "not a regular file"));
	errno = 0;
	assert_int_equal(dcpi_perfmap_read("/nonexistent/perf-3.map", 0, &e, &n,
	    &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/perf-3.map"));

	unlink(link);
	unlink(path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_overlap_order),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
