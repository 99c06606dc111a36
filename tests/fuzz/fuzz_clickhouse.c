// fuzz-sources: ctl/clickhouse.c lib/xmalloc.c lib/log.c lib/util.c lib/htab.c
// fuzz-libs: -lcurl
/*
 * What dcpictl reads from outside in ctl/clickhouse.c: the clickhouse://
 * URL (first byte 0) and a server's TabSeparated answers (else).  A URL is
 * rejected with a one-line message naming it, or accepted with a host, a
 * port of 1..65535 and a database of [A-Za-z0-9_]; printed back, it parses
 * to the same.  Every answer line splits into at most the fields asked
 * for, each within the buffer, and escaping them again reads back the
 * same.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
escape(struct ch_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		switch (s[i]) {
		case '\t': chb_put(b, "\\t", 2); break;
		case '\n': chb_put(b, "\\n", 2); break;
		case '\\': chb_put(b, "\\\\", 2); break;
		case '\0': chb_put(b, "\\0", 2); break;
		default: chb_put(b, &s[i], 1); break;
		}
}

static void
url(const uint8_t *data, size_t size)
{
	struct ch_url u, v;
	char *s = malloc(size + 1), err[512], again[1024];
	size_t i;

	memcpy(s, data, size);
	s[size] = '\0';
	if (ch_url_parse(s, &u, err, sizeof(err)) == -1) {
		CHECK(strchr(err, '\n') == NULL || strchr(s, '\n') != NULL);
		CHECK(u.host == NULL && u.db == NULL && u.cluster == NULL);
		free(s);
		return;
	}
	CHECK(u.host[0] != '\0' && u.port >= 1 && u.port <= 65535);
	CHECK(u.shard_port >= 1 && u.shard_port <= 65535);
	for (i = 0; u.db[i] != '\0'; i++)
		CHECK(u.db[i] == '_' || (u.db[i] >= '0' && u.db[i] <= '9') ||
		    ((u.db[i] | 0x20) >= 'a' && (u.db[i] | 0x20) <= 'z'));
	CHECK(i > 0);
	if (u.cluster)
		snprintf(again, sizeof(again), "clickhouse://%s:%u/%s?cluster=%s&http_port=%u",
		    u.host, u.port, u.db, u.cluster, u.shard_port);
	else
		snprintf(again, sizeof(again), "clickhouse://%s:%u/%s", u.host, u.port, u.db);
	CHECK(ch_url_parse(again, &v, err, sizeof(err)) == 0);
	CHECK(strcmp(u.host, v.host) == 0 && u.port == v.port && strcmp(u.db, v.db) == 0);
	CHECK((u.cluster == NULL) == (v.cluster == NULL));
	CHECK(u.cluster == NULL || strcmp(u.cluster, v.cluster) == 0);
	CHECK(u.shard_port == v.shard_port);
	ch_url_free(&u);
	ch_url_free(&v);
	free(s);
}

static void
tsv(const uint8_t *data, size_t size, int max)
{
	char *buf = malloc(size + 1), *p, *end, *f[8], *q, *qe, *g[8];
	struct ch_buf line = { 0 };
	int n, m, i;

	memcpy(buf, data, size);
	buf[size] = '\0';
	p = buf;
	end = buf + size;
	while ((n = ch_tsv_line(&p, end, f, max)) != 0) {
		if (n == -1)
			break;
		CHECK(n >= 1 && n <= max && p <= end);
		/* Escaped again and re-read: the same fields (a field holding a
		 * NUL reads back cut there, as strings do). */
		line.len = 0;
		for (i = 0; i < n; i++) {
			CHECK(f[i] >= buf && f[i] <= end);
			if (i)
				chb_put(&line, "\t", 1);
			escape(&line, f[i], strlen(f[i]));
		}
		chb_put(&line, "\n", 1);
		q = (char *)line.p;
		qe = q + line.len;
		m = ch_tsv_line(&q, qe, g, max);
		CHECK(m == n && q == qe);
		for (i = 0; i < n; i++)
			CHECK(strcmp(f[i], g[i]) == 0);
	}
	chb_free(&line);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] == 0)
		url(data + 1, size - 1);
	else
		tsv(data + 1, size - 1, 1 + data[0] % 8);
	return 0;
}
