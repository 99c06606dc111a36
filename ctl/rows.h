/*
 * The row table: samples per event, keyed by (label, image id, procedure),
 * that prof and diff sort and print.  What a row stands for is the mode's:
 * a procedure, an image or a label, alone or per label.
 */
#ifndef DCPICTL_ROWS_H
#define DCPICTL_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/dataset.h>

#include "htab.h"
#include "symcache.h"

struct row {
	char		*proc;		/* "" when rows are images or labels */
	const char	*image;		/* display name (points into a profile);
					 * "" when rows are labels */
	const char	*imageid;
	const char	*label;		/* display name ("[none]"), "" unless by
					 * label; points into a profile or is static */
	uint64_t	*n;		/* per event; proc is in the same allocation */
};
struct rows {
	size_t		 n_events;
	size_t		 event_base;	/* rows_dataset adds to event + this */
	struct row	*rows;
	size_t		 n_rows, cap_rows;
	struct htab	 byname;	/* row index + 1 by (label, image id, proc) */
};

/* rows_dataset's rows: per procedure (0), image or label; ROWS_LABEL with
 * either of the others keeps them apart per label. */
#define ROWS_IMAGE	0x1
#define ROWS_LABEL	0x2
#define ROWS_LABEL_ONLY	0x4	/* one row per label (with ROWS_LABEL) */

void rows_init(struct rows *, size_t n_events);
void rows_free(struct rows *);
void rows_add(struct rows *, const char *label, const char *imageid, const char *image,
    const char *proc, size_t event, uint64_t n);
/* Adds a whole dataset, rows as mode (ROWS_*) says. */
void rows_dataset(struct rows *, const struct dcpi_dataset *, struct symcache *, unsigned mode);

#endif
