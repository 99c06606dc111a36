/*
 * Shared by dcpictl's analysis commands (prof, list, diff, epochs, gc):
 * selection of epochs/hosts/events/images, symbol table cache, per-
 * procedure aggregation and table output (text sized to content, CSV, JSON).
 */
#ifndef DCPICTL_ANALYSIS_H
#define DCPICTL_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>

#include <dcpi/dataset.h>
#include <dcpi/symbol.h>

#include "htab.h"

#define SEL_MAX		64

/* Options common to prof, list and diff. */
struct selection {
	const char	*epochs[SEL_MAX];
	size_t		 n_epochs;
	int		 all;
	const char	*since;
	const char	*host;
	const char	*events[SEL_MAX];
	size_t		 n_events;
	const char	*image;
	int		 idle;		/* --idle: the idle task's samples too */
};

/* getopt_long entries for the selection options, and their handler:
 * returns 1 if ch was one of them, 0 if not, -1 on a usage error (printed). */
#define SEL_LONGOPTS \
	{ "epoch",	required_argument,	NULL, 'E' }, \
	{ "all",	no_argument,		NULL, 'A' }, \
	{ "since",	required_argument,	NULL, 'S' }, \
	{ "host",	required_argument,	NULL, 'H' }, \
	{ "event",	required_argument,	NULL, 'e' }, \
	{ "image",	required_argument,	NULL, 'I' }
int sel_option(struct selection *s, int ch, const char *arg, const char *cmd);
/* --idle, for the commands that can show the idle task's samples (prof,
 * list, diff); without it they are left out (dcpi/dataset.h). */
#define SEL_OPT_IDLE	0x100
#define SEL_IDLE_LONGOPT \
	{ "idle",	no_argument,		NULL, SEL_OPT_IDLE }

/* Loads the selected profiles of db: the current (else newest) epoch
 * unless --epoch/--all/--since; checks that events, host and image exist
 * and warns about each skipped file.  NULL after printing an error. */
struct dcpi_dataset *sel_load(const char *db, const struct selection *s, const char *cmd);

/* Time argument: epoch name (10/14 digits), YYYY-MM-DD[THH:MM[:SS]] (UTC),
 * or N followed by s, m, h or d (that long ago).  -1 if malformed. */
int parse_time(const char *s, time_t *t);

/* Symbol tables per (path, image id, tstart), opened once; a failure is
 * warned about once and remembered. */
struct symcache;
struct symcache *symcache_new(void);
void symcache_free(struct symcache *);
/* Nonzero: no warnings about images that cannot be symbolized (list
 * searches every image for one procedure). */
void symcache_quiet(struct symcache *, int quiet);
/* The table for a dataset image, or NULL; *stale is set when samples must
 * show as NAME+0xOFFSET (file changed or gone), else they go to [unknown]. */
struct dcpi_symtab *symcache_get(struct symcache *, const struct dcpi_dataset_image *,
    int *stale);

/* Display name of an image: basename of its path. */
const char *image_name(const struct dcpi_profile *p);

/* Rows of samples per event, keyed by (image id, procedure). */
struct row {
	char		*proc;
	const char	*image;		/* display name (points into a profile) */
	const char	*imageid;
	uint64_t	*n;		/* per event; proc is in the same allocation */
};
struct agg {
	size_t		 n_events;
	size_t		 event_base;	/* agg_dataset adds to event + this */
	struct row	*rows;
	size_t		 n_rows, cap_rows;
	struct htab	 byname;	/* row index + 1 by (image id, proc) */
};
void agg_init(struct agg *, size_t n_events);
void agg_free(struct agg *);
void agg_add(struct agg *, const char *imageid, const char *image, const char *proc,
    size_t event, uint64_t n);
/* Adds a whole dataset: per procedure, or per image if by_image. */
void agg_dataset(struct agg *, const struct dcpi_dataset *, struct symcache *, int by_image);

/* Output. */
enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON };
struct table {
	size_t		 ncols;
	char		**head;
	int		*right;		/* right-aligned (numbers) */
	char		**cells;	/* nrows * ncols, malloc'd */
	size_t		 nrows, cap;
};
void table_init(struct table *, size_t ncols, const char *const *head, const int *right);
void table_add(struct table *, ...);	/* ncols char * (copied) */
void table_addf(struct table *, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));	/* col 0 starts a new row */
/* Prints as text (columns sized to content), CSV (a header line) or JSON
 * (an array of objects keyed by the headers; cells that look like numbers
 * are numbers). */
void table_print(const struct table *, enum fmt, FILE *);
/* Names in a database or an imported file are not ours: control bytes
 * (below 0x20, 0x7f) are printed as \xHH, never raw, so that they cannot
 * drive the terminal.  esc_puts writes the NUL-terminated s so to fp;
 * esc_width is the number of bytes that writes. */
void esc_puts(const char *s, FILE *fp);
size_t esc_width(const char *s);
/* Sets a cell of the last row (col 0 starts a new row) to a copy of s. */
void table_put(struct table *, size_t col, const char *s);
/* Decimal n into buf[24]; returns buf. */
char *fmt_u64(char *buf, uint64_t n);
/* 100 * n / total with 2 decimals, rounded ("0.00" if total is 0), into
 * buf[32]; returns buf.  printf's %.2f is the time of a large listing. */
char *fmt_pct(char *buf, uint64_t n, uint64_t total);
void table_free(struct table *);
void json_string(FILE *, const char *);

#endif
