/*
 * perf's JIT symbol maps, /tmp/perf-PID.map (lib/dcpi/perfmap.h).
 *
 * perf itself reads them with sscanf-like hex parsing and stops at the first
 * bad line; the files come from any user's process (and dcpid runs as
 * root), so every field is checked here and a bad line is named rather than
 * guessed at.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/file.h>
#include <dcpi/perfmap.h>

#include "internal.h"

#define PERFMAP_DEFAULT_MAX	((size_t)256 << 20)

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A hex number with an optional 0x at *pp, ending at a blank; at most 16
 * digits (a 64-bit address).  0, or -1 with what went wrong in *why. */
static int
hexfield(const char **pp, const char *end, uint64_t *v, const char **why)
{
	const char *p = *pp;
	uint64_t x = 0;
	int digits = 0, d;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end && !blank(*p); p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else {
			*why = "is not hexadecimal";
			return -1;
		}
		if (x >> 60) {
			*why = "does not fit 64 bits";
			return -1;
		}
		x = x << 4 | (uint64_t)d;
		digits++;
	}
	if (digits == 0) {
		*why = "is missing";
		return -1;
	}
	*v = x;
	*pp = p;
	return 0;
}

void
dcpi_perfmap_free(struct dcpi_perfmap_entry *e, size_t n)
{
	size_t i;

	if (e == NULL)
		return;
	for (i = 0; i < n; i++)
		free(e[i].name);
	free(e);
}

int
dcpi_perfmap_parse(const char *buf, size_t len, const char *name,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err)
{
	struct dcpi_perfmap_entry *e = NULL, *ne;
	size_t ne_n = 0, cap = 0, lineno = 0;
	const char *p = buf, *end = buf + len, *eol, *q, *why, *field;
	uint64_t start, size;
	int saved;

	if (name == NULL)
		name = "perf map";
	*out = NULL;
	*n = 0;
	while (p < end) {
		lineno++;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		q = eol;
		/* Maps written on Windows-minded tools, or by hand. */
		if (q > p && q[-1] == '\r')
			q--;
		while (p < q && blank(*p))
			p++;
		if (p == q) {
			p = eol + 1;
			continue;
		}
		if (memchr(p, '\0', (size_t)(q - p)) != NULL) {
			lib_seterr(err, EINVAL, "%s: line %zu: NUL byte; expected "
			    "START SIZE NAME", name, lineno);
			goto fail;
		}
		field = "START";
		if (hexfield(&p, q, &start, &why) == -1)
			goto badfield;
		while (p < q && blank(*p))
			p++;
		field = "SIZE";
		if (hexfield(&p, q, &size, &why) == -1)
			goto badfield;
		if (size == 0) {
			lib_seterr(err, EINVAL, "%s: line %zu: SIZE is 0; expected "
			    "START SIZE NAME with SIZE > 0", name, lineno);
			goto fail;
		}
		if (start + size < start) {
			lib_seterr(err, EINVAL, "%s: line %zu: START 0x%jx + SIZE "
			    "0x%jx is past the end of the address space", name,
			    lineno, (uintmax_t)start, (uintmax_t)size);
			goto fail;
		}
		if (p == q || !blank(*p)) {
			lib_seterr(err, EINVAL, "%s: line %zu: NAME is missing; "
			    "expected START SIZE NAME", name, lineno);
			goto fail;
		}
		/* One separator; the rest is the name, inner blanks and all
		 * (C++ and Java signatures hold spaces). */
		while (p < q && blank(*p))
			p++;
		if (p == q) {
			lib_seterr(err, EINVAL, "%s: line %zu: NAME is missing; "
			    "expected START SIZE NAME", name, lineno);
			goto fail;
		}
		if (ne_n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((ne = reallocarray(e, cap, sizeof(*e))) == NULL)
				goto nomem;
			e = ne;
		}
		if ((e[ne_n].name = strndup(p, (size_t)(q - p))) == NULL)
			goto nomem;
		e[ne_n].start = start;
		e[ne_n].size = size;
		ne_n++;
		p = eol + 1;
	}
	*out = e;
	*n = ne_n;
	return 0;
badfield:
	lib_seterr(err, EINVAL, "%s: line %zu: %s %s; expected START SIZE NAME "
	    "(hex, with or without 0x)", name, lineno, field, why);
	goto fail;
nomem:
	lib_seterr(err, ENOMEM, "%s: line %zu: out of memory", name, lineno);
fail:
	saved = errno;
	dcpi_perfmap_free(e, ne_n);
	errno = saved;
	return -1;
}

int
lib_map_read(const char *path, size_t max, lib_map_parser *parse,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err)
{
	void *buf;
	size_t len;
	int ret, saved;

	*out = NULL;
	*n = 0;
	if (dcpi_read_fileat(AT_FDCWD, path, path, max, &buf, &len, err) == -1)
		return -1;
	ret = parse(buf, len, path, out, n, err);
	saved = errno;
	free(buf);
	errno = saved;
	return ret;
}

/* dcpi_perfmap_parse as a lib_map_parser: a map is text. */
static int
parse_text(const void *buf, size_t len, const char *name,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err)
{
	return dcpi_perfmap_parse(buf, len, name, out, n, err);
}

int
dcpi_perfmap_read(const char *path, size_t max_bytes,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err)
{
	return lib_map_read(path, max_bytes ? max_bytes : PERFMAP_DEFAULT_MAX, parse_text,
	    out, n, err);
}
