/*
 * Runs: a selection cut into the epochs, hosts or labels it holds, each a
 * column of the row table with its own total (ctl/runs.c), for the spread
 * across runs of diff --by and stats.
 */
#ifndef DCPICTL_RUNS_H
#define DCPICTL_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

enum runs_by { RUNS_NONE, RUNS_EPOCH, RUNS_HOST, RUNS_LABEL };

struct runs {
	size_t		 n;
	const char	**names;	/* n: the epoch, host or label (display
					 * name); point into the dataset */
	uint64_t	*total;		/* n: the run's samples of the event */
	struct dcpi_dataset **loaded;	/* the runs' own datasets (epoch, host) */
	struct dcpi_dataset_image *view;	/* by label: d's images by label */
};

/* "epoch", "host" or "label" into *by; -1 after a one-line error naming
 * cmd. */
int runs_by_parse(const char *s, enum runs_by *by, const char *cmd);
/* "epoch", "host", "label". */
const char *runs_by_name(enum runs_by by);
/* The number of runs in d (by its epochs, hosts or labels). */
size_t runs_count(const struct dcpi_dataset *d, enum runs_by by);
/*
 * d's runs (d loaded from db with s, one event) into r, each added to the
 * columns base .. base + runs_count - 1 of a (rows_dataset's mode 0 or
 * ROWS_IMAGE).  By epoch or host each run is loaded again from db, by
 * label cut from d, which must outlive r.  -1 after printing an error
 * naming cmd; r is to be freed with runs_free either way.
 */
int runs_add(struct runs *r, const char *db, const struct selection *s,
    const struct dcpi_dataset *d, enum runs_by by, struct rows *a, size_t base,
    unsigned mode, struct symcache *c, const char *cmd);
void runs_free(struct runs *r);

#endif
