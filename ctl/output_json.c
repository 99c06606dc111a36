/*
 * JSON output of the analysis commands: an array of objects keyed by the
 * table's headers; cells of numeric columns that look like numbers are
 * numbers.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "util.h"

/* A JSON text is UTF-8 (RFC 8259), and names are bytes (a file name in
 * Latin-1, a symbol that is not text): a byte that begins no well-formed
 * sequence is written as the text \xHH, as prof prints a control byte.
 * Controls and what else text_len holds back (C1, bidirectional
 * overrides) are \u escapes: the same string to a reader of JSON, and
 * nothing raw for jq to put on a terminal. */
void
json_string(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	putc('"', fp);
	while (*p != '\0') {
		if (*p == '"' || *p == '\\') {
			fprintf(fp, "\\%c", *p++);
			continue;
		}
		if ((n = text_len(p)) > 0) {
			fwrite(p, 1, n, fp);
			p += n;
			continue;
		}
		n = utf8_len(p);
		if (n == 1)
			fprintf(fp, "\\u%04x", *p);
		else if (n == 2)
			fprintf(fp, "\\u%04x", (unsigned)(p[0] & 0x1f) << 6 |
			    (p[1] & 0x3f));
		else if (n == 3)
			fprintf(fp, "\\u%04x", (unsigned)(p[0] & 0x0f) << 12 |
			    (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f));
		else {
			fprintf(fp, "\\\\x%02x", *p);
			n = 1;
		}
		p += n;
	}
	putc('"', fp);
}

static int
is_number(const char *s)
{
	char *end;

	if (*s == '\0')
		return 0;
	strtod(s, &end);
	return *end == '\0' && strcmp(s, "inf") != 0 && strcmp(s, "nan") != 0 &&
	    strcmp(s, "-inf") != 0;
}

static void
json_table(const struct out_table *t, FILE *fp)
{
	size_t i, j;
	const char *c;

	fputs("[", fp);
	for (i = 0; i < t->nrows; i++) {
		fputs(i ? ",\n {" : "\n {", fp);
		for (j = 0; j < t->ncols; j++) {
			c = t->cells[i * t->ncols + j] ? t->cells[i * t->ncols + j] : "";
			if (j)
				fputs(", ", fp);
			json_string(fp, t->head[j]);
			fputs(": ", fp);
			if (t->right[j] && is_number(c))
				fputs(c[0] == '+' ? c + 1 : c, fp);	/* JSON has no '+' */
			else
				json_string(fp, c);
		}
		fputs("}", fp);
	}
	fputs("\n]", fp);
}

void
json_strings(FILE *fp, char *const *v, size_t n)
{
	size_t i;

	putc('[', fp);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", fp);
		json_string(fp, v[i]);
	}
	putc(']', fp);
}

static void
json_report(const struct out_report *r, FILE *fp)
{
	if (r->json_head != NULL)
		r->json_head(fp, r->arg);
	json_table(r->rows, fp);
	fputs(r->json_head != NULL ? "}\n" : "\n", fp);
}

const struct output output_json = {
	.table = json_table,
	.report = json_report,
	.distinct_heads = 1,
};
