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
 * sequence is written as the text \xHH, as prof prints a control byte. */
void
json_string(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	putc('"', fp);
	while (*p != '\0') {
		unsigned char c = *p;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (is_ctl(c))
			fprintf(fp, "\\u%04x", c);
		else if (c < 0x80)
			putc(c, fp);
		else if ((n = utf8_len(p)) > 1) {
			fwrite(p, 1, n, fp);
			p += n;
			continue;
		} else
			fprintf(fp, "\\\\x%02x", c);
		p++;
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
