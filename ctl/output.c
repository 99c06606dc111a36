/*
 * The analysis commands' tables, and what every format's output shares:
 * escaping, numbers, times (ctl/output.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "output.h"
#include "util.h"
#include "xmalloc.h"

void
out_table_init(struct out_table *t, size_t ncols, const char *const *head, const int *right)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->head = xcalloc(ncols, sizeof(char *));
	t->right = xcalloc(ncols, sizeof(int));
	for (i = 0; i < ncols; i++) {
		t->head[i] = xstrdup(head[i]);
		t->right[i] = right[i];
	}
}

static char **
newrow(struct out_table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = xreallocarray(t->cells, t->cap, t->ncols * sizeof(char *));
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(char *));
	return &t->cells[t->nrows++ * t->ncols];
}

void
out_table_add(struct out_table *t, ...)
{
	va_list ap;
	char **r = newrow(t);
	size_t i;

	va_start(ap, t);
	for (i = 0; i < t->ncols; i++)
		r[i] = xstrdup(va_arg(ap, const char *));
	va_end(ap);
}

void
out_table_addf(struct out_table *t, size_t col, const char *fmt, ...)
{
	char buf[256], **r;
	va_list ap;
	int l;

	if (col == 0)
		newrow(t);
	r = &t->cells[(t->nrows - 1) * t->ncols];
	va_start(ap, fmt);
	l = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (l < 0)
		fatal("vsnprintf");
	if ((size_t)l < sizeof(buf)) {
		r[col] = memcpy(xmalloc((size_t)l + 1), buf, (size_t)l + 1);
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&r[col], fmt, ap) == -1)
		fatal("vasprintf");
	va_end(ap);
}

void
out_table_put(struct out_table *t, size_t col, const char *s)
{
	size_t l = strlen(s) + 1;

	if (col == 0)
		newrow(t);
	t->cells[(t->nrows - 1) * t->ncols + col] = memcpy(xmalloc(l), s, l);
}

char *
fmt_u64(char *buf, uint64_t n)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	size_t l;

	*--p = '\0';
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	l = (size_t)(tmp + sizeof(tmp) - p);
	return memcpy(buf, p, l);
}

const char *
fmt_time(char *buf, time_t t)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		return "?";
	strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

char *
fmt_pct(char *buf, uint64_t n, uint64_t total)
{
	unsigned __int128 h;
	uint64_t x;
	size_t l;

	if (total == 0)
		return strcpy(buf, "0.00");
	/* Hundredths of a percent, rounded half up. */
	h = ((unsigned __int128)n * 20000 + total) / ((unsigned __int128)total * 2);
	x = (uint64_t)h;
	fmt_u64(buf, x / 100);
	l = strlen(buf);
	buf[l] = '.';
	buf[l + 1] = (char)('0' + x % 100 / 10);
	buf[l + 2] = (char)('0' + x % 10);
	buf[l + 3] = '\0';
	return buf;
}

void
out_table_free(struct out_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; i < t->ncols; i++)
		free(t->head[i]);
	free(t->cells);
	free(t->head);
	free(t->right);
}

void
esc_puts(const char *s, FILE *fp)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	size_t n;

	/* Runs of plain text in one write: cat prints a name per line. */
	for (;;) {
		for (run = p; (n = text_len(p)) > 0; p += n)
			;
		fwrite(run, 1, (size_t)(p - run), fp);
		if (*p == '\0')
			return;
		fprintf(fp, "\\x%02x", *p++);
	}
}

size_t
esc_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, n;

	/* A column per character: a UTF-8 name lines up as an ASCII one. */
	for (; *p; p += n ? n : 1)
		w += (n = text_len(p)) > 0 ? 1 : 4;
	return w;
}

char *
esc_dup(const char *s)
{
	size_t n = strlen(s);
	char *out = xreallocarray(NULL, 4 * n + 1, 1);

	text_escape(out, s, n, 0);
	return out;
}
