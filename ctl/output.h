/*
 * Output of the analysis commands: a table of cells printed as text
 * (ctl/output.c), CSV (ctl/output_csv.c) or JSON (ctl/output_json.c).
 */
#ifndef DCPICTL_OUTPUT_H
#define DCPICTL_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON };
struct out_table {
	size_t		 ncols;
	char		**head;
	int		*right;		/* right-aligned (numbers) */
	char		**cells;	/* nrows * ncols, malloc'd */
	size_t		 nrows, cap;
};
void out_table_init(struct out_table *, size_t ncols, const char *const *head, const int *right);
void out_table_add(struct out_table *, ...);	/* ncols char * (copied) */
void out_table_addf(struct out_table *, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));	/* col 0 starts a new row */
/* Prints as text (columns sized to content), CSV (a header line) or JSON
 * (an array of objects keyed by the headers; cells that look like numbers
 * are numbers). */
void out_table_print(const struct out_table *, enum fmt, FILE *);
void out_table_print_csv(const struct out_table *, FILE *);
void out_table_print_json(const struct out_table *, FILE *);
/* Names in a database or an imported file are not ours: control bytes
 * (below 0x20, 0x7f) are printed as \xHH, never raw, so that they cannot
 * drive the terminal.  esc_puts writes the NUL-terminated s so to fp;
 * esc_width is the number of bytes that writes. */
void esc_puts(const char *s, FILE *fp);
size_t esc_width(const char *s);
static inline int
is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}
/* Sets a cell of the last row (col 0 starts a new row) to a copy of s. */
void out_table_put(struct out_table *, size_t col, const char *s);
/* Decimal n into buf[24]; returns buf. */
char *fmt_u64(char *buf, uint64_t n);
/* 100 * n / total with 2 decimals, rounded ("0.00" if total is 0), into
 * buf[32]; returns buf.  printf's %.2f is the time of a large listing. */
char *fmt_pct(char *buf, uint64_t n, uint64_t total);
/* t as UTC "YYYY-MM-DD HH:MM:SS" into buf[32]; returns buf, or "?" when
 * gmtime cannot break t down. */
const char *fmt_time(char *buf, time_t t);
void out_table_free(struct out_table *);
/* s as a JSON string (quoted, escaped) on fp. */
void json_string(FILE *, const char *);
/* The n strings v as a JSON array on fp. */
void json_strings(FILE *, char *const *v, size_t n);

#endif
