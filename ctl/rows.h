/*
 * The row table: samples per event, keyed by (image id, procedure), that
 * prof and diff sort and print.
 */
#ifndef DCPICTL_ROWS_H
#define DCPICTL_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/dataset.h>

#include "htab.h"
#include "symcache.h"

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

#endif
