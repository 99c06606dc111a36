/*
 * Output of the analysis commands, as OpenBSD bgpctl's: a table of cells
 * (ctl/output.c, with the escaping and number formats every format shares)
 * and one backend per format, each a struct output of function pointers:
 * text (ctl/output_text.c), CSV (ctl/output_csv.c), JSON
 * (ctl/output_json.c).  A command's options pick one (sel_getopt); the
 * command calls through it.  Of ctl/, the backends call only output.c.
 */
#ifndef DCPICTL_OUTPUT_H
#define DCPICTL_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

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
/* Names in a database or an imported file are not ours: what text_len
 * (lib/util.h) does not pass (C0 and C1 controls, DEL, bidirectional
 * overrides, bytes of no well-formed UTF-8) is printed as \xHH, never raw,
 * so that it cannot drive the terminal.  esc_puts writes the NUL-terminated
 * s so to fp; esc_width is the number of columns that takes (a character
 * of UTF-8 one, an escaped byte four); esc_dup returns the escaped text,
 * allocated (the caller frees it). */
void esc_puts(const char *s, FILE *fp);
size_t esc_width(const char *s);
char *esc_dup(const char *s);
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

/* What a command prints: its rows, and what goes ahead of them in each
 * format. */
struct out_report {
	const struct out_table	*rows;
	/* The lines a reader sees ahead of the rows, or NULL. */
	void		(*text_head)(FILE *, const void *arg);
	/* A JSON object's opening and members up to the rows' key
	 * ("{\"a\": 1,\n\"rows\": "): the object ends after the rows.  NULL:
	 * the rows alone, an array. */
	void		(*json_head)(FILE *, const void *arg);
	const void	*arg;
	/* No table for a reader where there are no rows (the head says so). */
	int		 text_hide_empty;
};

struct output {
	/* The rows of t: text columns sized to their content; CSV, a header
	 * line, then a line per row; JSON, an array of objects keyed by the
	 * headers (cells of right-aligned columns that look like numbers are
	 * numbers), without a newline after it. */
	void	(*table)(const struct out_table *, FILE *);
	/* A command's whole output: r's head in this format, its rows, the
	 * end of the document.  CSV has no head. */
	void	(*report)(const struct out_report *, FILE *);
	/* Columns named apart for scripts ("EVENT %"), where a reader sees
	 * "%" after each event's count. */
	int	 distinct_heads;
};
extern const struct output output_text;	/* the default */
extern const struct output output_csv;	/* --csv */
extern const struct output output_json;	/* --json */

/* s as a JSON string (quoted, escaped) on fp. */
void json_string(FILE *, const char *);
/* The n strings v as a JSON array on fp. */
void json_strings(FILE *, char *const *v, size_t n);

#endif
