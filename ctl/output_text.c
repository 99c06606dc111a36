/*
 * Text output of the analysis commands: columns sized to their content,
 * numbers right-aligned, after the command's lines for a reader.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "output.h"
#include "xmalloc.h"

static void
pad(FILE *fp, size_t n)
{
	static const char blanks[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(blanks) - 1 ? n : sizeof(blanks) - 1;
		fwrite(blanks, 1, k, fp);
		n -= k;
	}
}

static void
text_table(const struct out_table *t, FILE *fp)
{
	size_t *w, i, j, l;
	const char *c;

	w = xcalloc(t->ncols, sizeof(size_t));
	for (j = 0; j < t->ncols; j++)
		w[j] = esc_width(t->head[j]);
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncols; j++)
			if (t->cells[i * t->ncols + j] &&
			    (l = esc_width(t->cells[i * t->ncols + j])) > w[j])
				w[j] = l;
	for (i = 0; i <= t->nrows; i++) {
		for (j = 0; j < t->ncols; j++) {
			c = i == 0 ? t->head[j] : t->cells[(i - 1) * t->ncols + j];
			if (c == NULL)
				c = "";
			l = esc_width(c);
			if (t->right[j])
				pad(fp, w[j] - l);
			esc_puts(c, fp);
			/* No trailing blanks. */
			if (!t->right[j] && j + 1 < t->ncols)
				pad(fp, w[j] - l);
			if (j + 1 < t->ncols)
				putc(' ', fp);
		}
		putc('\n', fp);
	}
	free(w);
}

static void
text_report(const struct out_report *r, FILE *fp)
{
	if (r->text_head != NULL)
		r->text_head(fp, r->arg);
	if (!r->text_hide_empty || r->rows->nrows > 0)
		text_table(r->rows, fp);
}

const struct output output_text = {
	.table = text_table,
	.report = text_report,
	.distinct_heads = 0,
};
