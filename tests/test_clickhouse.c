/*
 * ctl/clickhouse.c without a server: the clickhouse:// URL, RowBinary
 * encoding, TabSeparated answers, SQL string literals.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clickhouse.h"

static void
test_url_ok(void **state)
{
	struct ch_url u;
	char err[256];

	(void)state;
	assert_int_equal(ch_url_parse("clickhouse://db.example:9123/fleet", &u, err,
	    sizeof(err)), 0);
	assert_string_equal(u.host, "db.example");
	assert_int_equal(u.port, 9123);
	assert_string_equal(u.db, "fleet");
	assert_null(u.cluster);
	assert_int_equal(u.shard_port, 9123);
	ch_url_free(&u);
	/* The default port, an IPv6 address, a cluster with its shards' port. */
	assert_int_equal(ch_url_parse("clickhouse://h/d_1", &u, err, sizeof(err)), 0);
	assert_int_equal(u.port, 8123);
	ch_url_free(&u);
	assert_int_equal(ch_url_parse("clickhouse://[::1]:81/d?cluster=fleet&http_port=8124",
	    &u, err, sizeof(err)), 0);
	assert_string_equal(u.host, "[::1]");
	assert_int_equal(u.port, 81);
	assert_string_equal(u.cluster, "fleet");
	assert_int_equal(u.shard_port, 8124);
	ch_url_free(&u);
}

static void
test_url_bad(void **state)
{
	static const struct {
		const char *url, *msg;
	} bad[] = {
		{ "http://h/d", "expected clickhouse://" },
		{ "clickhouse:///d", "expected a host" },
		{ "clickhouse://h:0/d", "port from 1 to 65535" },
		{ "clickhouse://h:65536/d", "port from 1 to 65535" },
		{ "clickhouse://h:8x/d", "port from 1 to 65535" },
		{ "clickhouse://h", "expected /DATABASE" },
		{ "clickhouse://h/", "database name" },
		{ "clickhouse://h/a-b", "database name" },
		{ "clickhouse://h/d?x=1", "parameter 'x=1'" },
		{ "clickhouse://h/d?cluster=a;b", "parameter" },
		{ "clickhouse://h/d?cluster=a&cluster=b", "each once" },
		{ "clickhouse://h/d?http_port=81", "http_port= is for" },
		{ "clickhouse://[::1/d", "unterminated" },
		{ "clickhouse://u@h/d", "bad character" },
	};
	struct ch_url u;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ch_url_parse(bad[i].url, &u, err, sizeof(err)), -1);
		if (strstr(err, bad[i].msg) == NULL || strstr(err, bad[i].url) == NULL)
			fail_msg("%s: message '%s' lacks '%s'", bad[i].url, err, bad[i].msg);
		assert_null(u.host);
	}
}

static void
test_rowbinary(void **state)
{
	static const unsigned char want[] = {
		0x78, 0x56, 0x34, 0x12,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x00,
		0x03, 'a', 'b', 'c',
		0xc8, 0x01,	/* 200 as LEB128 */
	};
	struct ch_buf b = { 0 };
	char s200[201];

	(void)state;
	chb_u32(&b, 0x12345678);
	chb_u64(&b, 0x0102030405060708ull);
	chb_str(&b, "");
	chb_str(&b, "abc");
	memset(s200, 'x', 200);
	s200[200] = '\0';
	chb_str(&b, s200);
	assert_int_equal(b.len, sizeof(want) + 200);
	assert_memory_equal(b.p, want, sizeof(want));
	assert_memory_equal(b.p + sizeof(want), s200, 200);
	chb_free(&b);
	assert_null(b.p);
}

static void
test_tsv(void **state)
{
	char text[] = "a\\tb\tc\\\\d\\n\n\tx\nlast";
	char *p = text, *end = text + strlen(text), *f[3];

	(void)state;
	assert_int_equal(ch_tsv_line(&p, end, f, 3), 2);
	assert_string_equal(f[0], "a\tb");
	assert_string_equal(f[1], "c\\d\n");
	assert_int_equal(ch_tsv_line(&p, end, f, 3), 2);
	assert_string_equal(f[0], "");
	assert_string_equal(f[1], "x");
	/* The last line without a newline ends at end (the NUL after it). */
	assert_int_equal(ch_tsv_line(&p, end, f, 3), 1);
	assert_string_equal(f[0], "last");
	assert_int_equal(ch_tsv_line(&p, end, f, 3), 0);
	/* More fields than asked for: an error, not a truncation. */
	{
		char t2[] = "1\t2\t3\n";
		p = t2;
		assert_int_equal(ch_tsv_line(&p, t2 + 6, f, 2), -1);
	}
}

static void
test_quote(void **state)
{
	struct ch_buf b = { 0 };

	(void)state;
	ch_printf(&b, "x = ");
	ch_quote(&b, "it's a\\b");
	assert_string_equal((char *)b.p, "x = 'it\\'s a\\\\b'");
	chb_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_ok),
		cmocka_unit_test(test_url_bad),
		cmocka_unit_test(test_rowbinary),
		cmocka_unit_test(test_tsv),
		cmocka_unit_test(test_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
