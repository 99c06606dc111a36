/*
 * CSV output of the analysis commands' tables: a header line, then a line
 * per row (RFC 4180 quoting).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "output.h"
#include "util.h"

static void
csv_field(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (strpbrk(s, ",\"") == NULL) {
		esc_puts(s, fp);
		return;
	}
	putc('"', fp);
	while (*p) {
		if (*p == '"') {
			fputs("\"\"", fp);
			p++;
		} else if ((n = text_len(p)) > 0) {
			fwrite(p, 1, n, fp);
			p += n;
		} else
			fprintf(fp, "\\x%02x", *p++);
	}
	putc('"', fp);
}

static void
csv_table(const struct out_table *t, FILE *fp)
{
	size_t i, j;

	for (j = 0; j < t->ncols; j++) {
		if (j)
			putc(',', fp);
		csv_field(fp, t->head[j]);
	}
	putc('\n', fp);
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncols; j++) {
			if (j)
				putc(',', fp);
			csv_field(fp, t->cells[i * t->ncols + j] ? t->cells[i * t->ncols + j] : "");
		}
		putc('\n', fp);
	}
}

/* Rows for a spreadsheet or a script, nothing else: the facts of the
 * head are --json's. */
static void
csv_report(const struct out_report *r, FILE *fp)
{
	csv_table(r->rows, fp);
}

const struct output output_csv = {
	.table = csv_table,
	.report = csv_report,
	.distinct_heads = 1,
};
