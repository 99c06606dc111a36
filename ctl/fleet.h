/*
 * Fleet queries: prof and diff over a ClickHouse store that dcpictl push
 * filled (dcpi-clickhouse(5)), computed by the server (GROUP BY there).
 * They fill the same dataset header and row table as the local commands,
 * which print them with the same code.
 */
#ifndef DCPICTL_FLEET_H
#define DCPICTL_FLEET_H

#include "analysis.h"
#include "runs.h"

struct fleet;	/* the server's answers the rows point into */

/*
 * prof --from URL: over the selection s (--epoch, --all (the default),
 * --since, --host GLOB, -e, --label, --idle) and until (--until TIME or
 * NULL), a dataset *d (events with their totals, idle and unattributed
 * samples, epochs, hosts; one image entry per label shown, for the
 * header) and the rows of mode (ROWS_*) in a (rows_init'ed by the callee;
 * at most limit rows but per label).  *f holds the strings the rows point
 * to: free it with fleet_free after a and d.  -1 after printing an error
 * naming cmd.
 */
int fleet_prof(const char *url, const struct selection *s, const char *until,
    unsigned mode, size_t limit, struct dcpi_dataset **d, struct rows *a, struct fleet **f);

/*
 * diff --from URL A B: A and B are time ranges FROM..TO (epochs starting at
 * or after FROM and before TO; either end may be left out) or epoch names.
 * Rows per procedure (mode ROWS_IMAGE: per image) in a (rows_init'ed by
 * the callee) with n[0] A's
 * samples and n[1] B's, of one event: s's first -e, else the first by name
 * that both sides have; its totals into tot[2], its name into *event
 * (owned by *f).  With by (not RUNS_NONE), each side's runs with samples
 * (epochs, hosts or labels) into runs[0] and runs[1] (runs_free them; the
 * names are *f's) and their samples into columns 2 .., A's runs first; at
 * most 62 runs.  -1 after printing an error.
 */
int fleet_diff(const char *url, const struct selection *s, const char *range[2],
    unsigned mode, enum runs_by by, struct rows *a, uint64_t tot[2], struct runs *runs,
    const char **event, struct fleet **f);

/*
 * stats --from URL: over the selection s (as prof's, without --image), the
 * runs by `by' (epoch, host or label) of one event (s's first -e, else the
 * first by name) with samples: their names and totals into r (r->loaded
 * NULL: runs_free frees the arrays, the names are *f's), and per mode
 * (0 or ROWS_IMAGE) the rows of a (rows_init'ed by the callee) with run
 * k's samples in column k, from one query.  At most 64 runs.  The event's
 * name into *event (owned by *f).  -1 after printing an error.
 */
int fleet_stats(const char *url, const struct selection *s, enum runs_by by, unsigned mode,
    struct rows *a, struct runs *r, const char **event, struct fleet **f);

void fleet_free(struct fleet *f);

#endif
