/*
 * ClickHouse over HTTP: ctl/clickhouse.h.  The schema is documented in
 * dcpi-clickhouse(5); a change to a table here is a new CH_SCHEMA_VERSION
 * there.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "clickhouse.h"
#include "xmalloc.h"

static char *
dupn(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static int
name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static int
parse_port(const char *s, size_t n, unsigned *port)
{
	unsigned v = 0;
	size_t i;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

int
ch_url_parse(const char *s, struct ch_url *u, char *err, size_t errlen)
{
	static const char scheme[] = "clickhouse://";
	const char *h, *he, *p, *q, *d, *de, *k, *v, *ve;
	int have_sp = 0;

	memset(u, 0, sizeof(*u));
	u->port = 8123;
	if (strncmp(s, scheme, sizeof(scheme) - 1) != 0) {
		snprintf(err, errlen, "%s: expected clickhouse://HOST[:PORT]/DATABASE", s);
		return -1;
	}
	h = s + sizeof(scheme) - 1;
	if (*h == '[') {
		if ((he = strchr(h, ']')) == NULL) {
			snprintf(err, errlen, "%s: unterminated [IPv6 address]", s);
			return -1;
		}
		he++;
	} else
		for (he = h; *he != '\0' && *he != ':' && *he != '/' && *he != '?'; he++)
			;
	if (he == h || (*h == '[' && he - h <= 2)) {
		snprintf(err, errlen, "%s: expected a host after clickhouse://", s);
		return -1;
	}
	for (p = h; p < he; p++)
		if ((unsigned char)*p <= ' ' || *p == '@' || *p == '#' || *p == '%') {
			snprintf(err, errlen, "%s: bad character in the host", s);
			return -1;
		}
	p = he;
	if (*p == ':') {
		for (q = p + 1; *q != '\0' && *q != '/' && *q != '?'; q++)
			;
		if (parse_port(p + 1, (size_t)(q - p - 1), &u->port) == -1) {
			snprintf(err, errlen, "%s: expected a port from 1 to 65535 after ':'", s);
			return -1;
		}
		p = q;
	}
	if (*p != '/') {
		snprintf(err, errlen, "%s: expected /DATABASE after the host", s);
		return -1;
	}
	d = p + 1;
	for (de = d; *de != '\0' && *de != '?'; de++)
		;
	if (!name_ok(d, (size_t)(de - d))) {
		snprintf(err, errlen, "%s: expected a database name of letters, digits "
		    "and '_' after the host", s);
		return -1;
	}
	u->host = dupn(h, (size_t)(he - h));
	u->db = dupn(d, (size_t)(de - d));
	for (k = de; *k == '?' || *k == '&'; k = ve) {
		k++;
		if ((v = strchr(k, '=')) == NULL)
			v = k + strlen(k);
		for (ve = v; *ve != '\0' && *ve != '&'; ve++)
			;
		if (*v != '=') {
			snprintf(err, errlen, "%s: expected NAME=VALUE parameters after '?'", s);
			goto bad;
		}
		if (v - k == 7 && strncmp(k, "cluster", 7) == 0 &&
		    name_ok(v + 1, (size_t)(ve - v - 1)) && u->cluster == NULL)
			u->cluster = dupn(v + 1, (size_t)(ve - v - 1));
		else if (v - k == 9 && strncmp(k, "http_port", 9) == 0 && !have_sp &&
		    parse_port(v + 1, (size_t)(ve - v - 1), &u->shard_port) == 0)
			have_sp = 1;
		else {
			snprintf(err, errlen, "%s: parameter '%.*s': expected cluster=NAME "
			    "(letters, digits, '_') or http_port=PORT, each once", s,
			    (int)(ve - k), k);
			goto bad;
		}
	}
	if (*k != '\0') {
		snprintf(err, errlen, "%s: unexpected '%s'", s, k);
		goto bad;
	}
	if (have_sp && u->cluster == NULL) {
		snprintf(err, errlen, "%s: http_port= is for the shards of a cluster=", s);
		goto bad;
	}
	if (!have_sp)
		u->shard_port = u->port;
	return 0;
bad:
	ch_url_free(u);
	return -1;
}

void
ch_url_free(struct ch_url *u)
{
	free(u->host);
	free(u->db);
	free(u->cluster);
	memset(u, 0, sizeof(*u));
}

void
chb_put(struct ch_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n + 1) {
		while (b->cap - b->len < n + 1)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void
chb_u8(struct ch_buf *b, uint8_t v)
{
	chb_put(b, &v, 1);
}

void
chb_u32(struct ch_buf *b, uint32_t v)
{
	unsigned char le[4] = { v, v >> 8, v >> 16, v >> 24 };

	chb_put(b, le, 4);
}

void
chb_u64(struct ch_buf *b, uint64_t v)
{
	unsigned char le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	chb_put(b, le, 8);
}

void
chb_str(struct ch_buf *b, const char *s)
{
	size_t n = strlen(s), v = n;

	do {
		chb_u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v != 0);
	chb_put(b, s, n);
}

void
chb_free(struct ch_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void
ch_printf(struct ch_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	chb_put(b, "", 0);
	if (b->cap - b->len < (size_t)n + 1) {
		b->cap = b->len + (size_t)n + 4096;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
ch_quote(struct ch_buf *b, const char *s)
{
	chb_put(b, "'", 1);
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '\'')
			chb_put(b, "\\", 1);
		chb_put(b, s, 1);
	}
	chb_put(b, "'", 1);
	b->p[b->len] = '\0';
}

int
ch_tsv_line(char **p, char *end, char **fields, int max)
{
	char *r = *p, *w;
	int n = 0;

	if (r >= end)
		return 0;
	if (max < 1)
		return -1;
	fields[n++] = w = r;
	while (r < end && *r != '\n') {
		if (*r == '\t') {
			*w = '\0';
			r++;
			if (n == max)
				return -1;
			fields[n++] = w = r;
			continue;
		}
		if (*r == '\\' && r + 1 < end) {
			r++;
			switch (*r) {
			case 't': *w++ = '\t'; break;
			case 'n': *w++ = '\n'; break;
			case '0': *w++ = '\0'; break;
			case 'b': *w++ = '\b'; break;
			case 'f': *w++ = '\f'; break;
			case 'r': *w++ = '\r'; break;
			default: *w++ = *r; break;
			}
			r++;
			continue;
		}
		*w++ = *r++;
	}
	/* w <= r: the terminator lands on the newline, or on the byte after
	 * end that the caller keeps. */
	*w = '\0';
	*p = r < end ? r + 1 : end;
	return n;
}

static size_t
collect(char *data, size_t size, size_t n, void *arg)
{
	chb_put(arg, data, size * n);
	return size * n;
}

int
ch_open(struct ch *c, const char *url)
{
	static int inited;

	memset(c, 0, sizeof(*c));
	c->show = url;
	if (ch_url_parse(url, &c->url, c->err, sizeof(c->err)) == -1)
		return -1;
	if (!inited) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		inited = 1;
	}
	if ((c->curl = curl_easy_init()) == NULL) {
		snprintf(c->err, sizeof(c->err), "%s: cannot set up libcurl", url);
		ch_url_free(&c->url);
		return -1;
	}
	return 0;
}

void
ch_close(struct ch *c)
{
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	ch_url_free(&c->url);
	c->curl = NULL;
}

int
ch_query_at(struct ch *c, const char *host, unsigned port, const char *sql,
    const void *body, size_t len, const char *settings, struct ch_buf *out)
{
	struct ch_buf url = { 0 }, ans = { 0 };
	char cerr[CURL_ERROR_SIZE];
	CURL *cu = c->curl;
	CURLcode rc;
	long code = 0;
	char *q, *nl;
	int ret = -1;

	/* wait_end_of_query: an error half-way through a SELECT is an HTTP
	 * error, not a 200 with the message inside the rows. */
	ch_printf(&url, "http://%s:%u/?database=%s&wait_end_of_query=1", host ? host :
	    c->url.host, port ? port : c->url.port, c->url.db);
	if (settings != NULL)
		ch_printf(&url, "&%s", settings);
	if (body != NULL) {
		q = curl_easy_escape(cu, sql, 0);
		ch_printf(&url, "&query=%s", q);
		curl_free(q);
	} else {
		body = sql;
		len = strlen(sql);
	}
	curl_easy_reset(cu);
	cerr[0] = '\0';
	curl_easy_setopt(cu, CURLOPT_URL, (char *)url.p);
	curl_easy_setopt(cu, CURLOPT_POST, 1L);
	curl_easy_setopt(cu, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(cu, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &ans);
	curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 30L);
	/* Keeps the bytes out of curl's "Expect: 100-continue" round trip. */
	{
		struct curl_slist *h = curl_slist_append(NULL, "Expect:");
		curl_easy_setopt(cu, CURLOPT_HTTPHEADER, h);
		rc = curl_easy_perform(cu);
		curl_slist_free_all(h);
	}
	chb_put(&ans, "", 0);	/* NUL-terminated, even when empty */
	ans.p[ans.len] = '\0';
	if (rc != CURLE_OK) {
		snprintf(c->err, sizeof(c->err), "%s (http://%s:%u/): %s", c->show,
		    host ? host : c->url.host, port ? port : c->url.port,
		    cerr[0] ? cerr : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		if ((nl = strchr((char *)ans.p, '\n')) != NULL)
			*nl = '\0';
		snprintf(c->err, sizeof(c->err), "%s (http://%s:%u/): HTTP %ld: %.700s", c->show,
		    host ? host : c->url.host, port ? port : c->url.port, code, (char *)ans.p);
		goto out;
	}
	ret = 0;
	if (out != NULL) {
		chb_free(out);
		*out = ans;
		memset(&ans, 0, sizeof(ans));
	}
out:
	chb_free(&ans);
	chb_free(&url);
	return ret;
}

int
ch_query(struct ch *c, const char *sql, const void *body, size_t len,
    const char *settings, struct ch_buf *out)
{
	return ch_query_at(c, NULL, 0, sql, body, len, settings, out);
}

/*
 * The tables (dcpi-clickhouse(5) has them column by column).  %s: the
 * table name's suffix ("" on one server, "_local" on a cluster's shards).
 * Sorted for the fleet queries (by event and image, then procedure) and so
 * that a column's neighbours repeat: LowCardinality for the names.
 */
static const struct {
	const char	*name;
	const char	*columns;
	const char	*engine;
	const char	*shard_by;	/* the Distributed table's sharding key */
} tables[] = {
	{ "samples",
	  "event LowCardinality(String), image LowCardinality(String), "
	  "image_name LowCardinality(String), proc UInt32, host LowCardinality(String), "
	  "epoch_time DateTime, epoch LowCardinality(String), label LowCardinality(String), "
	  "offset UInt32, count UInt64, period UInt64, push_id UInt64",
	  "MergeTree PARTITION BY toYYYYMM(epoch_time) "
	  "ORDER BY (event, image, proc, host, epoch_time, label, offset)",
	  "cityHash64(host)" },
	{ "procedures",
	  "image String, start UInt32, size UInt64, name String",
	  "ReplacingMergeTree ORDER BY (image, start)",
	  "cityHash64(image)" },
	{ "unattributed",
	  "host LowCardinality(String), epoch_time DateTime, epoch LowCardinality(String), "
	  "event LowCardinality(String), reason LowCardinality(String), samples UInt64, "
	  "push_id UInt64",
	  "MergeTree PARTITION BY toYYYYMM(epoch_time) ORDER BY (host, epoch_time, event)",
	  "cityHash64(host)" },
	{ "pushes",
	  "host String, epoch String, epoch_time DateTime, push_id UInt64, "
	  "pushed_at DateTime, rows UInt64, version UInt32",
	  "MergeTree ORDER BY (host, epoch_time, push_id)",
	  "cityHash64(host)" },
};

#define LC_SETTING	"allow_experimental_low_cardinality_type=1"

static int
create_tables(struct ch *c, const char *host, const char *suffix)
{
	struct ch_buf q = { 0 };
	size_t i;
	int r = 0;

	ch_printf(&q, "CREATE DATABASE IF NOT EXISTS %s", c->url.db);
	/* The database may not exist yet: the URL's database= would fail. */
	{
		char *db = c->url.db;
		c->url.db = (char *)"default";
		r = ch_query_at(c, host, host ? c->url.shard_port : 0, (char *)q.p, NULL, 0,
		    NULL, NULL);
		c->url.db = db;
	}
	for (i = 0; r == 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		q.len = 0;
		ch_printf(&q, "CREATE TABLE IF NOT EXISTS %s.%s%s (%s) ENGINE = %s", c->url.db,
		    tables[i].name, suffix, tables[i].columns, tables[i].engine);
		r = ch_query_at(c, host, host ? c->url.shard_port : 0, (char *)q.p, NULL, 0,
		    LC_SETTING, NULL);
	}
	chb_free(&q);
	return r;
}

/* The shards' addresses from system.clusters: each gets the local tables. */
static int
create_cluster(struct ch *c)
{
	struct ch_buf q = { 0 }, ans = { 0 };
	char *p, *end, *f[2];
	size_t i, n = 0;
	int r;

	ch_printf(&q, "SELECT DISTINCT host_address FROM system.clusters WHERE cluster = ");
	ch_quote(&q, c->url.cluster);
	{
		char *db = c->url.db;
		c->url.db = (char *)"default";
		r = ch_query(c, (char *)q.p, NULL, 0, NULL, &ans);
		c->url.db = db;
	}
	if (r == -1)
		goto out;
	p = (char *)ans.p;
	end = p + ans.len;
	while (r == 0 && ch_tsv_line(&p, end, f, 1) == 1) {
		n++;
		if ((r = create_tables(c, f[0], "_local")) == -1)
			break;
	}
	if (r == 0 && n == 0) {
		snprintf(c->err, sizeof(c->err), "%s: no cluster '%s' in the server's "
		    "system.clusters", c->show, c->url.cluster);
		r = -1;
	}
	if (r == 0)
		r = create_tables(c, NULL, "_local");
	for (i = 0; r == 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		q.len = 0;
		ch_printf(&q, "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local ENGINE = "
		    "Distributed(%s, %s, %s_local, %s)", c->url.db, tables[i].name, c->url.db,
		    tables[i].name, c->url.cluster, c->url.db, tables[i].name,
		    tables[i].shard_by);
		r = ch_query(c, (char *)q.p, NULL, 0, LC_SETTING, NULL);
	}
out:
	chb_free(&q);
	chb_free(&ans);
	return r;
}

/* The store's schema version into *v (0: none recorded); -1 on failure. */
static int
schema_version(struct ch *c, unsigned long *v, int quiet_missing)
{
	struct ch_buf q = { 0 }, ans = { 0 };
	int r;

	ch_printf(&q, "SELECT max(version) FROM %s.schema", c->url.db);
	r = ch_query(c, (char *)q.p, NULL, 0, NULL, &ans);
	if (r == 0)
		*v = strtoul((char *)ans.p, NULL, 10);
	else if (quiet_missing && strstr(c->err, "Code: 60,") != NULL) {
		*v = 0;
		r = 0;
	} else if (strstr(c->err, "Code: 60,") != NULL || strstr(c->err, "Code: 81,") != NULL)
		snprintf(c->err, sizeof(c->err), "%s: no dcpi store there (push to it first)",
		    c->show);
	chb_free(&q);
	chb_free(&ans);
	return r;
}

int
ch_schema_check(struct ch *c)
{
	unsigned long v;

	if (schema_version(c, &v, 0) == -1)
		return -1;
	if (v == 0 || v > CH_SCHEMA_VERSION) {
		snprintf(c->err, sizeof(c->err), "%s: the store's schema is version %lu; this "
		    "dcpictl reads version %d", c->show, v, CH_SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

int
ch_schema(struct ch *c)
{
	struct ch_buf q = { 0 };
	unsigned long v;
	int r;

	r = c->url.cluster ? create_cluster(c) : create_tables(c, NULL, "");
	if (r == 0) {
		/* On the entry server only: the version of what it serves. */
		ch_printf(&q, "CREATE TABLE IF NOT EXISTS %s.schema (version UInt32, "
		    "created DateTime) ENGINE = TinyLog", c->url.db);
		r = ch_query(c, (char *)q.p, NULL, 0, NULL, NULL);
	}
	if (r == 0)
		r = schema_version(c, &v, 1);
	if (r == 0 && v > CH_SCHEMA_VERSION) {
		snprintf(c->err, sizeof(c->err), "%s: the store's schema is version %lu; this "
		    "dcpictl writes version %d", c->show, v, CH_SCHEMA_VERSION);
		r = -1;
	}
	if (r == 0 && v < CH_SCHEMA_VERSION) {
		q.len = 0;
		ch_printf(&q, "INSERT INTO %s.schema VALUES (%d, now())", c->url.db,
		    CH_SCHEMA_VERSION);
		r = ch_query(c, (char *)q.p, NULL, 0, NULL, NULL);
	}
	chb_free(&q);
	return r;
}
