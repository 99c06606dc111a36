/*
 * ClickHouse over its HTTP interface (libcurl): the clickhouse:// URL, one
 * request per statement, RowBinary encoding of the rows pushed and the
 * TabSeparated answers read back; the store's schema (dcpi-clickhouse(5),
 * schema version CH_SCHEMA_VERSION).
 */
#ifndef DCPICTL_CLICKHOUSE_H
#define DCPICTL_CLICKHOUSE_H

#include <stddef.h>
#include <stdint.h>

/* The schema this dcpictl writes and reads (dcpi-clickhouse(5)). */
#define CH_SCHEMA_VERSION	1

/* Procedure start of samples outside every known procedure. */
#define CH_PROC_UNKNOWN		0xffffffffu

/* clickhouse://HOST[:PORT]/DATABASE[?cluster=NAME[&http_port=N]] */
struct ch_url {
	char		*host;		/* as given, brackets of an IPv6 address kept */
	unsigned	 port;		/* HTTP port: 8123 unless given */
	char		*db;		/* [A-Za-z0-9_]+ */
	char		*cluster;	/* NULL: one server; else a cluster's name */
	unsigned	 shard_port;	/* HTTP port of the shards (http_port=, else port) */
};

/*
 * Parses s into u (strings malloc'd; free with ch_url_free).  -1 with a
 * one-line message naming what was expected in err[errlen]: a scheme other
 * than clickhouse://, an empty host, a port outside 1..65535, a database or
 * cluster name other than letters, digits and '_', an unknown parameter.
 */
int ch_url_parse(const char *s, struct ch_url *u, char *err, size_t errlen);
void ch_url_free(struct ch_url *u);

/* A growing byte buffer; RowBinary's little-endian integers and
 * length-prefixed strings (LEB128 length). */
struct ch_buf {
	unsigned char	*p;
	size_t		 len, cap;
};
void chb_put(struct ch_buf *, const void *, size_t);
void chb_u8(struct ch_buf *, uint8_t);
void chb_u32(struct ch_buf *, uint32_t);
void chb_u64(struct ch_buf *, uint64_t);
void chb_str(struct ch_buf *, const char *);
void chb_free(struct ch_buf *);

/*
 * TabSeparated: the next line of [*p, end) split into at most max fields,
 * unescaped in place (\t \n \\ \' \0 \b \f \r; an unknown escape keeps the
 * byte after the backslash).  Returns the number of fields (>= 1) and
 * advances *p past the line, 0 at the end, -1 if the line has more than
 * max fields.  Fields are NUL-terminated within the buffer (the tab or
 * newline overwritten); a last line without a newline needs one byte
 * after end that may be overwritten: the buffer's allocation has it
 * (ch_query leaves a NUL there).
 */
int ch_tsv_line(char **p, char *end, char **fields, int max);

/* A connection to a server (or a cluster's entry server). */
struct ch {
	struct ch_url	 url;
	const char	*show;		/* the URL as given, for messages */
	void		*curl;		/* CURL * */
	char		 err[1024];	/* the last failure, one line */
};

/* ch_open: parses url, sets up libcurl; -1 with c->err set. */
int ch_open(struct ch *c, const char *url);
void ch_close(struct ch *c);

/*
 * Runs sql on host:port (NULL: the URL's).  With body: sql is sent in the
 * URL and body as the data (an INSERT's rows); without, sql is the body.
 * settings: extra "name=value&..." URL parameters or NULL.  The answer,
 * NUL-terminated, replaces out's contents when out is not NULL.  -1 with
 * c->err: "URL: HTTP 500: Code: ..." (the server's first line) or the
 * transfer's error (connection refused, reset).
 */
int ch_query_at(struct ch *c, const char *host, unsigned port, const char *sql,
    const void *body, size_t len, const char *settings, struct ch_buf *out);
int ch_query(struct ch *c, const char *sql, const void *body, size_t len,
    const char *settings, struct ch_buf *out);

/* sql's string literal of s ('...' with \ and ' escaped) appended to b
 * (NUL-terminated text). */
void ch_quote(struct ch_buf *b, const char *s);
/* printf to the text buffer b (kept NUL-terminated). */
void ch_printf(struct ch_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Creates the database and the tables if missing (on every shard of the
 * cluster, with Distributed tables on the entry server), records the
 * schema version, and refuses (-1, c->err) a store of a later version.
 */
int ch_schema(struct ch *c);
/* Only checks the version (for queries): -1 with c->err when the store
 * has no dcpi schema or a later one. */
int ch_schema_check(struct ch *c);

#endif
