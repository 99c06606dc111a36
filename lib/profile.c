/*
 * DCPI profile files, format pdb-0.07 (specs/dcpiformat.txt): reader,
 * writer, counts and merge.  The reader is strict: every deviation from the
 * grammar is reported with the file, the line (header) or byte offset
 * (binary part) and the rule, because a profile that is silently misread
 * gives wrong answers much later.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dcpi/file.h>
#include <dcpi/profile.h>

#include "internal.h"


/* Header fields in the order the writer emits them. */
enum field {
	F_VERSION, F_IMAGE, F_EPOCH, F_PLATFORM, F_EVENT, F_PERIOD, F_TSTART,
	F_TSIZE, F_CPUSPEED, F_NREQUIRED = F_CPUSPEED + 1,
	F_CPUAMASK = F_NREQUIRED, F_CPUIMPLV, F_CPUCOUNT, F_PATH, F_NFIELDS,
	F_UNKNOWN = F_NFIELDS
};

enum kind { K_VERSION, K_HEX, K_DEC, K_EPOCH, K_REST };

/* Where a field is kept in struct dcpi_profile: a string or a number. */
#define STR(m)	offsetof(struct dcpi_profile, m), 1
#define NUM(m)	offsetof(struct dcpi_profile, m), 0

static const struct {
	const char	*key;
	enum kind	 kind;
	unsigned	 has;	/* DCPI_HAS_* bit of an optional field */
	size_t		 off;
	int		 str;
} fields[F_NFIELDS] = {
	[F_VERSION]	= { "version",	K_VERSION,	0,			STR(version) },
	[F_IMAGE]	= { "image",	K_HEX,		0,			STR(image) },
	[F_EPOCH]	= { "epoch",	K_EPOCH,	0,			STR(epoch) },
	[F_PLATFORM]	= { "platform",	K_REST,		0,			STR(platform) },
	[F_EVENT]	= { "event",	K_REST,		0,			STR(event) },
	[F_PERIOD]	= { "period",	K_DEC,		0,			NUM(period) },
	[F_TSTART]	= { "tstart",	K_HEX,		0,			NUM(tstart) },
	[F_TSIZE]	= { "tsize",	K_DEC,		0,			NUM(tsize) },
	[F_CPUSPEED]	= { "cpuspeed",	K_DEC,		0,			NUM(cpuspeed) },
	[F_CPUAMASK]	= { "cpuamask",	K_HEX,		DCPI_HAS_CPUAMASK,	NUM(cpuamask) },
	[F_CPUIMPLV]	= { "cpuimplv",	K_DEC,		DCPI_HAS_CPUIMPLV,	NUM(cpuimplv) },
	[F_CPUCOUNT]	= { "cpucount",	K_DEC,		DCPI_HAS_CPUCOUNT,	NUM(cpucount) },
	[F_PATH]	= { "path",	K_REST,		DCPI_HAS_PATH,		STR(path) },
};

static enum field
field_of(const char *key, size_t keylen)
{
	int f;

	for (f = 0; f < F_NFIELDS; f++)
		if (strlen(fields[f].key) == keylen && memcmp(fields[f].key, key, keylen) == 0)
			return f;
	return F_UNKNOWN;
}

/* Where p keeps field f if it is a string (str) or a number (!str);
 * NULL if it is not one or f is F_UNKNOWN. */
static void *
field_ptr(struct dcpi_profile *p, enum field f, int str)
{
	if (f >= F_NFIELDS || fields[f].str != str)
		return NULL;
	return (char *)p + fields[f].off;
}

static char **
str_field(struct dcpi_profile *p, enum field f)
{
	return field_ptr(p, f, 1);
}

static uint64_t *
num_field(struct dcpi_profile *p, enum field f)
{
	return field_ptr(p, f, 0);
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
all_digits(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/*
 * Checks value v[0..n) against the grammar of field f and, for a number,
 * converts it into *num.  where: the message prefix ("FILE: line N").
 */
static int
check_value(enum field f, const char *v, size_t n, uint64_t *num, const char *where,
    struct dcpi_error *err)
{
	const char *key = fields[f].key;
	uint64_t x = 0;
	size_t i;
	int d;

	if (n == 0 || is_blank(v[0])) {
		lib_seterr(err, 0, "%s: '%s' needs a value", where, key);
		return -1;
	}
	if (memchr(v, '\n', n) != NULL || memchr(v, '\0', n) != NULL) {
		lib_seterr(err, 0, "%s: '%s' value holds a newline or NUL byte", where, key);
		return -1;
	}
	switch (fields[f].kind) {
	case K_VERSION: {
		const char *dot;
		size_t nmaj;

		dot = memchr(v, '.', n);
		if (n < 4 || memcmp(v, "pdb-", 4) != 0 || dot == NULL ||
		    !all_digits(v + 4, dot - v - 4) ||
		    !all_digits(dot + 1, n - (dot + 1 - v))) {
			lib_seterr(err, 0, "%s: version '%.*s' is not pdb-MAJOR.MINOR", where,
			    (int)(n > 64 ? 64 : n), v);
			return -1;
		}
		nmaj = dot - v - 4;
		for (i = 0; i < nmaj; i++)
			if (v[4 + i] != '0') {
				lib_seterr(err, 0, "%s: %.*s: major version %.*s is not supported",
				    where, (int)(n > 64 ? 64 : n), v,
				    (int)(nmaj > 32 ? 32 : nmaj), v + 4);
				return -1;
			}
		return 0;
	}
	case K_EPOCH:
		if ((n != 10 && n != 14) || !all_digits(v, n)) {
			lib_seterr(err, 0, "%s: epoch '%.*s' is neither YYMMDDHHMM nor YYYYMMDDHHMMSS",
			    where, (int)(n > 64 ? 64 : n), v);
			return -1;
		}
		return 0;
	case K_REST:
		return 0;
	case K_HEX:
		for (i = 0; i < n; i++) {
			if ((d = hexval((unsigned char)v[i])) < 0) {
				lib_seterr(err, 0, "%s: '%s' value '%.*s' is not hexadecimal", where,
				    key, (int)(n > 64 ? 64 : n), v);
				return -1;
			}
			/* The image id is a string of any length; numbers must fit. */
			if (num != NULL) {
				if (x > UINT64_MAX >> 4) {
					lib_seterr(err, 0, "%s: '%s' value '%.*s' does not fit in 64 bits",
					    where, key, (int)(n > 64 ? 64 : n), v);
					return -1;
				}
				x = x << 4 | (uint64_t)d;
			}
		}
		break;
	case K_DEC:
		for (i = 0; i < n; i++) {
			if (v[i] < '0' || v[i] > '9') {
				lib_seterr(err, 0, "%s: '%s' value '%.*s' is not a decimal number",
				    where, key, (int)(n > 64 ? 64 : n), v);
				return -1;
			}
			d = v[i] - '0';
			if (x > (UINT64_MAX - (uint64_t)d) / 10) {
				lib_seterr(err, 0, "%s: '%s' value '%.*s' does not fit in 64 bits",
				    where, key, (int)(n > 64 ? 64 : n), v);
				return -1;
			}
			x = x * 10 + (uint64_t)d;
		}
		break;
	}
	if (num != NULL)
		*num = x;
	return 0;
}

/* Stores a checked value of field f into p. */
static int
store_value(struct dcpi_profile *p, enum field f, const char *v, size_t n, uint64_t num)
{
	char **sp = str_field(p, f), *s;

	if (sp != NULL) {
		if ((s = strndup(v, n)) == NULL)
			return -1;
		free(*sp);
		*sp = s;
	} else {
		*num_field(p, f) = num;
	}
	p->has |= fields[f].has;
	return 0;
}

static int
add_unknown(struct dcpi_profile *p, const char *line, size_t n)
{
	char **v, *s;

	if ((s = strndup(line, n)) == NULL)
		return -1;
	v = reallocarray(p->unknown, p->n_unknown + 1, sizeof(*v));
	if (v == NULL) {
		free(s);
		return -1;
	}
	p->unknown = v;
	p->unknown[p->n_unknown++] = s;
	return 0;
}

/* An unknown line must be "<word> <space>+ <rest_of_line>" and not use a
 * keyword we know, else writing it out would change its meaning. */
static int
check_unknown(const char *line, const char *where, struct dcpi_error *err)
{
	size_t w = strcspn(line, " \t\n");
	const char *r = line + w;

	if (w == 0 || !is_blank(*r)) {
		lib_seterr(err, 0, "%s: '%.64s' is not 'KEYWORD VALUE'", where, line);
		return -1;
	}
	while (is_blank(*r))
		r++;
	if (*r == '\0' || strchr(r, '\n') != NULL) {
		lib_seterr(err, 0, "%s: '%.64s' is not 'KEYWORD VALUE'", where, line);
		return -1;
	}
	if (field_of(line, w) != F_UNKNOWN) {
		lib_seterr(err, 0, "%s: unknown line '%.64s' uses a known keyword", where, line);
		return -1;
	}
	return 0;
}

struct dcpi_profile *
dcpi_profile_new(void)
{
	struct dcpi_profile *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	if ((p->version = strdup(DCPI_PROFILE_VERSION)) == NULL) {
		free(p);
		return NULL;
	}
	return p;
}

void
dcpi_profile_free(struct dcpi_profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	free(p->version);
	free(p->image);
	free(p->epoch);
	free(p->platform);
	free(p->event);
	free(p->path);
	for (i = 0; i < p->n_unknown; i++)
		free(p->unknown[i]);
	free(p->unknown);
	free(p->counts);
	free(p);
}

int
dcpi_profile_set(struct dcpi_profile *p, const char *key, const char *value,
    struct dcpi_error *err)
{
	size_t klen = strlen(key), vlen = strlen(value);
	enum field f = field_of(key, klen);
	uint64_t num = 0;
	char *line;
	int rc;

	if (f == F_UNKNOWN) {
		if (klen == 0 || key[strcspn(key, " \t\n")] != '\0') {
			lib_seterr(err, 0, "'%.64s' is not a keyword", key);
			errno = EINVAL;
			return -1;
		}
		if (asprintf(&line, "%s %s", key, value) < 0) {
			errno = ENOMEM;
			lib_seterr(err, 0, "out of memory");
			return -1;
		}
		rc = check_unknown(line, key, err);
		if (rc == 0 && (rc = add_unknown(p, line, strlen(line))) < 0)
			lib_seterr(err, 0, "out of memory");
		free(line);
		if (rc < 0 && errno != ENOMEM)
			errno = EINVAL;
		return rc;
	}
	if (check_value(f, value, vlen, str_field(p, f) ? NULL : &num, key, err) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (store_value(p, f, value, vlen, num) < 0) {
		lib_seterr(err, 0, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Index of the first count with offset >= off. */
static size_t
lower_bound(const struct dcpi_profile *p, uint32_t off)
{
	size_t lo = 0, hi = p->n_counts, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->counts[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t
sat_add(uint32_t a, uint64_t b)
{
	return b >= (uint64_t)DCPI_COUNT_MAX - a ? DCPI_COUNT_MAX : (uint32_t)(a + b);
}

static int
reserve(struct dcpi_profile *p, size_t n)
{
	struct dcpi_count *c;
	size_t cap;

	if (n <= p->cap_counts)
		return 0;
	cap = p->cap_counts ? p->cap_counts : 16;
	while (cap < n)
		cap = cap > SIZE_MAX / 2 ? n : cap * 2;
	if ((c = reallocarray(p->counts, cap, sizeof(*c))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	p->counts = c;
	p->cap_counts = cap;
	return 0;
}

int
dcpi_profile_add(struct dcpi_profile *p, uint32_t offset, uint64_t n)
{
	size_t i;

	if (p->tsize != 0 && offset >= p->tsize) {
		errno = EINVAL;
		return -1;
	}
	if (n == 0)
		return 0;
	i = lower_bound(p, offset);
	if (i < p->n_counts && p->counts[i].offset == offset) {
		p->counts[i].count = sat_add(p->counts[i].count, n);
		return 0;
	}
	if (reserve(p, p->n_counts + 1) < 0)
		return -1;
	memmove(p->counts + i + 1, p->counts + i, (p->n_counts - i) * sizeof(*p->counts));
	p->counts[i].offset = offset;
	p->counts[i].count = sat_add(0, n);
	p->n_counts++;
	return 0;
}

int
dcpi_profile_add_counts(struct dcpi_profile *p, const struct dcpi_count *c, size_t n)
{
	struct dcpi_count *out;
	size_t i = 0, j = 0, k = 0, cap;

	for (j = 0; j < n; j++)
		if ((p->tsize != 0 && c[j].offset >= p->tsize) ||
		    (j > 0 && c[j].offset < c[j - 1].offset)) {
			errno = EINVAL;
			return -1;
		}
	if (n > SIZE_MAX / sizeof(*out) - p->n_counts) {
		errno = ENOMEM;
		return -1;
	}
	cap = p->n_counts + n;
	if ((out = malloc((cap ? cap : 1) * sizeof(*out))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	j = 0;
	while (i < p->n_counts || j < n) {
		struct dcpi_count x;

		if (j >= n || (i < p->n_counts && p->counts[i].offset <= c[j].offset))
			x = p->counts[i++];
		else {
			x = c[j++];
			if (x.count == 0)
				continue;
		}
		if (k > 0 && out[k - 1].offset == x.offset)
			out[k - 1].count = sat_add(out[k - 1].count, x.count);
		else
			out[k++] = x;
	}
	free(p->counts);
	p->counts = out;
	p->n_counts = k;
	p->cap_counts = cap ? cap : 1;
	return 0;
}

uint32_t
dcpi_profile_count(const struct dcpi_profile *p, uint32_t offset)
{
	size_t i = lower_bound(p, offset);

	return i < p->n_counts && p->counts[i].offset == offset ? p->counts[i].count : 0;
}

uint32_t
dcpi_profile_total_offsets(const struct dcpi_profile *p)
{
	return p->n_counts > UINT32_MAX ? UINT32_MAX : (uint32_t)p->n_counts;
}

uint32_t
dcpi_profile_total_samples(const struct dcpi_profile *p)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < p->n_counts && sum < DCPI_COUNT_MAX; i++)
		sum = sat_add(sum, p->counts[i].count);
	return sum;
}

static uint32_t
get32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

static void
put32(unsigned char *b, uint32_t v)
{
	b[0] = v & 0xff;
	b[1] = v >> 8 & 0xff;
	b[2] = v >> 16 & 0xff;
	b[3] = v >> 24 & 0xff;
}

/* Parses the header; *hlen gets the offset of the binary part. */
static int
parse_header(const char *buf, size_t len, const char *name, struct dcpi_profile *p,
    size_t *hlen, struct dcpi_error *err)
{
	unsigned seen[F_NFIELDS] = { 0 };
	size_t pos = 0, lineno = 0, i;
	char where[64 + 4096];
	int f;

	for (;;) {
		const char *line = buf + pos, *nl, *v;
		size_t n, w;
		uint64_t num = 0;

		lineno++;
		snprintf(where, sizeof(where), "%s: line %zu", name, lineno);
		nl = memchr(line, '\n', len - pos);
		if (nl == NULL) {
			lib_seterr(err, 0, "%s: %s before the 'samples' line that ends the header",
			    where, pos == len ? "end of file" : "unterminated line");
			return -1;
		}
		n = nl - line;
		pos += n + 1;
		if (memchr(line, '\0', n) != NULL) {
			lib_seterr(err, 0, "%s: NUL byte in the header", where);
			return -1;
		}
		w = 0;
		while (w < n && !is_blank(line[w]))
			w++;
		if (w == 7 && memcmp(line, "samples", 7) == 0) {
			for (i = w; i < n && is_blank(line[i]); i++)
				;
			if (i == n)
				break;
		}
		if (w == 0 || w == n || !is_blank(line[w])) {
			lib_seterr(err, 0, "%s: '%.*s' is not 'KEYWORD VALUE'", where,
			    (int)(n > 64 ? 64 : n), line);
			return -1;
		}
		v = line + w;
		while (v < nl && is_blank(*v))
			v++;
		if (v == nl) {
			lib_seterr(err, 0, "%s: '%.*s' needs a value", where, (int)(w > 64 ? 64 : w), line);
			return -1;
		}
		f = field_of(line, w);
		if (f == F_UNKNOWN) {
			if (add_unknown(p, line, n) < 0)
				goto nomem;
			continue;
		}
		if (seen[f]) {
			lib_seterr(err, 0, "%s: repeated '%s' line (first on line %u)", where,
			    fields[f].key, seen[f]);
			return -1;
		}
		seen[f] = lineno;
		if (check_value(f, v, nl - v, str_field(p, f) ? NULL : &num, where, err) < 0)
			return -1;
		if (store_value(p, f, v, nl - v, num) < 0)
			goto nomem;
	}
	for (f = 0; f < F_NREQUIRED; f++)
		if (!seen[f]) {
			lib_seterr(err, 0, "%s: missing required '%s' line", where, fields[f].key);
			return -1;
		}
	*hlen = pos;
	return 0;
nomem:
	lib_seterr(err, 0, "%s: out of memory", name);
	errno = ENOMEM;
	return -2;
}

static int
parse_binary(const unsigned char *buf, size_t len, size_t pos, const char *name,
    struct dcpi_profile *p, struct dcpi_error *err)
{
	uint64_t prev_off = 0, prev_end = 0, chunk_end;
	uint32_t off, num, i, c, tot_off, tot_samples;
	uint32_t sum = 0, naddr = 0;
	size_t footer_at = SIZE_MAX;	/* a valid-looking footer followed by more bytes */
	int first = 1;

	for (;;) {
		size_t left = len - pos;

		if (left >= 8 && footer_at == SIZE_MAX && left > 8 &&
		    get32(buf + pos) == naddr && get32(buf + pos + 4) == sum)
			footer_at = pos;
		if (left == 8)
			break;
		if (left < 8) {
			if (footer_at != SIZE_MAX)
				goto garbage;
			lib_seterr(err, 0, "%s: byte %zu: %zu bytes left where a chunk or the 8-byte "
			    "footer was expected", name, pos, left);
			return -1;
		}
		off = get32(buf + pos);
		num = get32(buf + pos + 4);
		if (num == 0) {
			if (footer_at != SIZE_MAX)
				goto garbage;
			lib_seterr(err, 0, "%s: byte %zu: chunk at offset 0x%" PRIx32 " has no counts",
			    name, pos, off);
			return -1;
		}
		if ((uint64_t)num * 4 + 16 > left) {
			if (footer_at != SIZE_MAX)
				goto garbage;
			lib_seterr(err, 0, "%s: byte %zu: truncated chunk: %" PRIu32 " counts need %"
			    PRIu64 " bytes, %zu left before the footer", name, pos, num,
			    (uint64_t)num * 4, left >= 16 ? left - 16 : 0);
			return -1;
		}
		if (!first && off <= prev_off) {
			if (footer_at != SIZE_MAX)
				goto garbage;
			lib_seterr(err, 0, "%s: byte %zu: chunk at offset 0x%" PRIx32 " is not after "
			    "the previous chunk at offset 0x%" PRIx64, name, pos, off, prev_off);
			return -1;
		}
		if (!first && off < prev_end) {
			if (footer_at != SIZE_MAX)
				goto garbage;
			lib_seterr(err, 0, "%s: byte %zu: chunk at offset 0x%" PRIx32 " overlaps the "
			    "previous chunk (ends at 0x%" PRIx64 ")", name, pos, off, prev_end);
			return -1;
		}
		chunk_end = (uint64_t)off + num;
		if (chunk_end > p->tsize) {
			if (footer_at != SIZE_MAX)
				goto garbage;
			lib_seterr(err, 0, "%s: byte %zu: chunk at offset 0x%" PRIx32 " with %" PRIu32
			    " counts ends at 0x%" PRIx64 ", past tsize %" PRIu64, name, pos,
			    off, num, chunk_end, p->tsize);
			return -1;
		}
		pos += 8;
		if (reserve(p, p->n_counts + num) < 0) {
			lib_seterr(err, 0, "%s: out of memory", name);
			return -2;
		}
		for (i = 0; i < num; i++, pos += 4) {
			if ((c = get32(buf + pos)) == 0)
				continue;
			p->counts[p->n_counts].offset = off + i;
			p->counts[p->n_counts].count = c;
			p->n_counts++;
			sum = sat_add(sum, c);
			naddr++;
		}
		prev_off = off;
		prev_end = chunk_end;
		first = 0;
	}
	tot_off = get32(buf + pos);
	tot_samples = get32(buf + pos + 4);
	if (tot_off != naddr || tot_samples != sum) {
		if (footer_at != SIZE_MAX)
			goto garbage;
		if (tot_off != naddr)
			lib_seterr(err, 0, "%s: byte %zu: footer total_offsets %" PRIu32 " does not "
			    "match the %" PRIu32 " addresses with samples", name, pos,
			    tot_off, naddr);
		else
			lib_seterr(err, 0, "%s: byte %zu: footer total_samples %" PRIu32 " does not "
			    "match the sum of the counts, %" PRIu32, name, pos + 4,
			    tot_samples, sum);
		return -1;
	}
	return 0;
garbage:
	lib_seterr(err, 0, "%s: byte %zu: %zu bytes of trailing garbage after the footer",
	    name, footer_at + 8, len - footer_at - 8);
	return -1;
}

int
dcpi_profile_parse(const void *buf, size_t len, const char *name,
    struct dcpi_profile **out, struct dcpi_error *err)
{
	struct dcpi_profile *p;
	size_t hlen;
	int rc;

	*out = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		lib_seterr(err, 0, "%s: out of memory", name);
		errno = ENOMEM;
		return -1;
	}
	if (len == 0) {
		lib_seterr(err, 0, "%s: line 1: empty file, expected a profile header", name);
		rc = -1;
	} else if ((rc = parse_header(buf, len, name, p, &hlen, err)) == 0)
		rc = parse_binary(buf, len, hlen, name, p, err);
	if (rc < 0) {
		dcpi_profile_free(p);
		errno = rc == -2 ? ENOMEM : EINVAL;
		return -1;
	}
	*out = p;
	return 0;
}

int
dcpi_profile_read(const char *path, struct dcpi_profile **out, struct dcpi_error *err)
{
	void *buf;
	size_t len;
	int rc, e;

	*out = NULL;
	if (dcpi_read_file(path, &buf, &len, err) < 0)
		return -1;
	rc = dcpi_profile_parse(buf, len, path, out, err);
	e = errno;
	free(buf);
	errno = e;
	return rc;
}

/* Checks that writing p gives a file the reader accepts as the same profile. */
static int
check_for_encode(const struct dcpi_profile *p, struct dcpi_error *err)
{
	struct dcpi_profile *q = (struct dcpi_profile *)p;
	char where[64];
	size_t i;
	int f;

	for (f = 0; f < F_NFIELDS; f++) {
		char **sp = str_field(q, f);

		if (fields[f].has && !(p->has & fields[f].has))
			continue;
		if (sp == NULL)
			continue;
		if (*sp == NULL) {
			lib_seterr(err, 0, "profile: required field '%s' is not set", fields[f].key);
			return -1;
		}
		if (check_value(f, *sp, strlen(*sp), NULL, "profile", err) < 0)
			return -1;
	}
	for (i = 0; i < p->n_unknown; i++) {
		snprintf(where, sizeof(where), "profile: unknown line %zu", i + 1);
		if (check_unknown(p->unknown[i], where, err) < 0)
			return -1;
		if (strncmp(p->unknown[i], "samples", 7) == 0 &&
		    strspn(p->unknown[i] + 7, " \t") == strlen(p->unknown[i] + 7)) {
			lib_seterr(err, 0, "%s: would end the header", where);
			return -1;
		}
	}
	for (i = 0; i < p->n_counts; i++) {
		if (p->counts[i].offset >= p->tsize) {
			lib_seterr(err, 0, "profile: offset 0x%" PRIx32 " is not below tsize %" PRIu64,
			    p->counts[i].offset, p->tsize);
			return -1;
		}
		if (p->counts[i].count == 0) {
			lib_seterr(err, 0, "profile: zero count at offset 0x%" PRIx32
			    " (counts must be > 0)", p->counts[i].offset);
			return -1;
		}
		if (i > 0 && p->counts[i].offset <= p->counts[i - 1].offset) {
			lib_seterr(err, 0, "profile: counts are not sorted at offset 0x%" PRIx32,
			    p->counts[i].offset);
			return -1;
		}
	}
	return 0;
}

int
dcpi_profile_encode(const struct dcpi_profile *p, void **bufp, size_t *lenp,
    struct dcpi_error *err)
{
	struct dcpi_profile *q = (struct dcpi_profile *)p;
	unsigned char *buf, *w;
	char *hdr = NULL;
	size_t hsize = 0, hlen, nwords, i, j, start, len;
	FILE *fp;
	int f;

	*bufp = NULL;
	*lenp = 0;
	if (check_for_encode(p, err) < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((fp = open_memstream(&hdr, &hsize)) == NULL)
		goto nomem;
	for (f = 0; f < F_NFIELDS; f++) {
		char **sp = str_field(q, f);

		if (fields[f].has && !(p->has & fields[f].has))
			continue;
		if (sp != NULL)
			fprintf(fp, "%s %s\n", fields[f].key, *sp);
		else if (fields[f].kind == K_HEX)
			fprintf(fp, "%s %" PRIx64 "\n", fields[f].key, *num_field(q, f));
		else
			fprintf(fp, "%s %" PRIu64 "\n", fields[f].key, *num_field(q, f));
	}
	for (i = 0; i < p->n_unknown; i++)
		fprintf(fp, "%s\n", p->unknown[i]);
	fputs("samples", fp);
	if (fflush(fp) != 0) {
		fclose(fp);
		free(hdr);
		goto nomem;
	}
	/* Pad with blanks so that the binary part is 32-bit aligned. */
	while ((hsize + 1) % 4 != 0) {
		fputc(' ', fp);
		fflush(fp);
	}
	fputc('\n', fp);
	if (fclose(fp) != 0) {
		free(hdr);
		goto nomem;
	}
	hlen = hsize;

	/* Words: per chunk 2 + its counts; then the footer's 2.  A gap of up to
	 * 2 zero counts costs no more than a new chunk header, so it stays. */
	nwords = 2;
	for (i = 0; i < p->n_counts; i = j) {
		for (j = i + 1; j < p->n_counts &&
		    p->counts[j].offset - p->counts[j - 1].offset - 1 <= 2; j++)
			;
		nwords += 2 + (size_t)(p->counts[j - 1].offset - p->counts[i].offset) + 1;
	}
	len = hlen + nwords * 4;
	if ((buf = calloc(1, len)) == NULL) {
		free(hdr);
		goto nomem;
	}
	memcpy(buf, hdr, hlen);
	free(hdr);
	w = buf + hlen;
	for (i = 0; i < p->n_counts; i = j) {
		for (j = i + 1; j < p->n_counts &&
		    p->counts[j].offset - p->counts[j - 1].offset - 1 <= 2; j++)
			;
		start = p->counts[i].offset;
		put32(w, (uint32_t)start);
		put32(w + 4, p->counts[j - 1].offset - (uint32_t)start + 1);
		w += 8;
		for (; i < j; i++)
			put32(w + 4 * (p->counts[i].offset - start), p->counts[i].count);
		w += 4 * (size_t)(p->counts[j - 1].offset - start + 1);
	}
	put32(w, dcpi_profile_total_offsets(p));
	put32(w + 4, dcpi_profile_total_samples(p));
	*bufp = buf;
	*lenp = len;
	return 0;
nomem:
	lib_seterr(err, 0, "out of memory");
	errno = ENOMEM;
	return -1;
}

int
dcpi_profile_write(const char *path, const struct dcpi_profile *p, struct dcpi_error *err)
{
	void *buf;
	size_t len;
	int rc, e;

	if (dcpi_profile_encode(p, &buf, &len, err) < 0) {
		if (err != NULL) {
			char msg[sizeof(err->msg)];

			memcpy(msg, err->msg, sizeof(msg));
			e = errno;
			lib_seterr(err, 0, "%s: %s", path, msg);
			errno = e;
		}
		return -1;
	}
	rc = dcpi_atomic_write(path, buf, len, 0644, err);
	e = errno;
	free(buf);
	errno = e;
	return rc;
}

static int
same_str(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int
dcpi_profile_merge(struct dcpi_profile *into, const struct dcpi_profile *from,
    struct dcpi_error *err)
{
	const char *differs = NULL;
	char **add = NULL, **v;
	size_t nadd = 0, i, j;

	if (!same_str(into->image, from->image))
		differs = "image";
	else if (!same_str(into->event, from->event))
		differs = "event";
	else if (into->period != from->period)
		differs = "period";
	else if (into->tstart != from->tstart)
		differs = "tstart";
	else if (into->tsize != from->tsize)
		differs = "tsize";
	if (differs != NULL) {
		lib_seterr(err, 0, "cannot merge profiles with different '%s'", differs);
		errno = EINVAL;
		return -1;
	}
	/* Allocate everything first so that into is unchanged on failure. */
	if ((add = calloc(from->n_unknown + 1, sizeof(*add))) == NULL)
		goto nomem;
	for (i = 0; i < from->n_unknown; i++) {
		for (j = 0; j < into->n_unknown; j++)
			if (strcmp(into->unknown[j], from->unknown[i]) == 0)
				break;
		if (j < into->n_unknown)
			continue;
		for (j = 0; j < nadd; j++)
			if (strcmp(add[j], from->unknown[i]) == 0)
				break;
		if (j < nadd)
			continue;
		if ((add[nadd++] = strdup(from->unknown[i])) == NULL)
			goto nomem;
	}
	v = reallocarray(into->unknown, into->n_unknown + nadd + 1, sizeof(*v));
	if (v == NULL)
		goto nomem;
	into->unknown = v;
	if (dcpi_profile_add_counts(into, from->counts, from->n_counts) < 0)
		goto nomem;
	memcpy(into->unknown + into->n_unknown, add, nadd * sizeof(*add));
	into->n_unknown += nadd;
	free(add);
	return 0;
nomem:
	if (add != NULL)
		for (i = 0; i < nadd; i++)
			free(add[i]);
	free(add);
	lib_seterr(err, 0, "out of memory");
	errno = ENOMEM;
	return -1;
}
