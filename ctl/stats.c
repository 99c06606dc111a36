/*
 * dcpictl stats: DCPI's dcpistats.  A selection cut into runs (epochs,
 * hosts or labels, ctl/runs.h); per procedure (or image) the number of
 * runs it has samples in, and its share's mean, standard deviation, min,
 * max, range and normalized range over the runs, largest mean first: how
 * much of a difference between two runs is their noise.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "commands.h"
#include "fleet.h"
#include "runs.h"
#include "stats_math.h"
#include "xmalloc.h"

struct stats_head {
	const char	*event;
	enum runs_by	 by;
	const struct runs *r;
	size_t		 used;		/* runs with samples */
};

static void
print_head(FILE *fp, const void *arg)
{
	const struct stats_head *h = arg;
	size_t k;

	fprintf(fp, "event %s\n%zu %ss:", h->event, h->used, runs_by_name(h->by));
	for (k = 0; k < h->r->n; k++)
		if (h->r->total[k] > 0) {
			putc(' ', fp);
			esc_puts(h->r->names[k], fp);
		}
	fputs("\nshares in percent of each run's samples; sd of the sample (n - 1); "
	    "nrange = range / mean\n\n", fp);
}

static void
json_head(FILE *fp, const void *arg)
{
	const struct stats_head *h = arg;
	size_t k, i;

	fputs("{\"event\": ", fp);
	json_string(fp, h->event);
	fprintf(fp, ", \"by\": \"%s\", \"runs\": [", runs_by_name(h->by));
	for (k = i = 0; k < h->r->n; k++)
		if (h->r->total[k] > 0) {
			fputs(i++ ? ", " : "", fp);
			json_string(fp, h->r->names[k]);
		}
	fputs("],\n\"rows\": ", fp);
}

static const struct stats_desc *sort_desc;
static const struct rows *sort_rows;

static int
mean_cmp(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct row *a = &sort_rows->rows[i], *b = &sort_rows->rows[j];
	int c;

	if (sort_desc[i].mean != sort_desc[j].mean)
		return sort_desc[i].mean > sort_desc[j].mean ? -1 : 1;
	if ((c = strcmp(a->proc, b->proc)) != 0)
		return c;
	return strcmp(a->image, b->image);
}

#define STATS_USAGE							\
	"usage: dcpictl stats [--by epoch|host|label] [--epoch E]... [--all]\n" \
	"                     [--since TIME] [--host H] [-e EVENT] [--image NAME]\n" \
	"                     [--label GLOB]... [-i] [-n N] [--idle] [--csv | --json]\n" \
	"       dcpictl stats --from clickhouse://HOST[:PORT]/DB [options]\n"	\
	"Each epoch (host, label) of the selection is a run: per procedure (-i: image)\n" \
	"the mean share over the runs, its standard deviation, min, max and range.\n"

int
cmd_stats(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "by",		required_argument,	NULL, 'y' },
		{ "images",	no_argument,		NULL, 'i' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const head[] = { "runs", "mean%", "sd", "min%", "max%", "range",
	    "nrange", "procedure", "image" };
	static const int right[] = { 1, 1, 1, 1, 1, 1, 1, 0, 0 };
	struct selection s;
	struct dcpi_dataset *d = NULL;
	struct fleet *fleet = NULL;
	const char *from = NULL, *event;
	struct symcache *c;
	struct stats_head h;
	struct stats_desc *desc;
	struct out_table t;
	struct runs r;
	struct rows a;
	enum runs_by by = RUNS_EPOCH;
	size_t *order, i, k, n, limit = (size_t)-1;
	unsigned mode = 0;
	char *ev = NULL;
	double *x;
	int ch, rc;

	memset(&s, 0, sizeof(s));
	memset(&h, 0, sizeof(h));
	while ((ch = sel_getopt(argc, argv, "e:in:h", opts, SEL_ALL | SEL_IDLE | SEL_FORMAT,
	    &s, "stats")) != -1) {
		switch (ch) {
		case SEL_BAD:
			return 2;
		case 'y':
			if (runs_by_parse(optarg, &by, "stats") == -1)
				return 2;
			break;
		case 'i': mode = ROWS_IMAGE; break;
		case 'F': from = optarg; break;
		case 'n':
			if (sel_rows(optarg, "stats", &limit) == -1)
				return 2;
			break;
		default:
			return cmd_usage(ch == 'h', STATS_USAGE);
		}
	}
	if (optind != argc)
		return cmd_usage(0, STATS_USAGE);
	if (s.n_events > 1) {
		fprintf(stderr, "dcpictl: stats: one event at a time\n");
		return 2;
	}
	c = symcache_new();
	if (from != NULL) {
		/* The fleet: the server sums every run's column in one query. */
		rc = fleet_stats(from, &s, by, mode, &a, &r, &event, &fleet) == -1;
		h.event = event;
		goto runs;
	}
	if ((d = sel_load(g->db, &s, "stats")) == NULL) {
		symcache_free(c);
		return 1;
	}
	if (s.n_events == 0 && d->n_events > 0) {
		/* The first event, alone: shares are of one event's samples. */
		s.events[0] = ev = xstrdup(d->events[0].name);
		s.n_events = 1;
		if (d->n_events > 1) {
			dcpi_dataset_free(d);
			if ((d = sel_load(g->db, &s, "stats")) == NULL) {
				symcache_free(c);
				free(ev);
				return 1;
			}
		}
	}
	n = runs_count(d, by);
	rows_init(&a, n);
	rc = runs_add(&r, g->db, &s, d, by, &a, 0, mode, c, "stats") == -1;
	h.event = s.n_events ? s.events[0] : "none";
runs:
	h.by = by;
	h.r = &r;
	for (k = 0; k < r.n; k++)
		h.used += r.total[k] > 0;
	if (rc == 0 && h.used == 0) {
		fprintf(stderr, "dcpictl: stats: no samples in the selection\n");
		rc = 1;
	}
	if (rc != 0)
		goto out;
	desc = xcalloc(a.n_rows + 1, sizeof(*desc));
	order = xcalloc(a.n_rows + 1, sizeof(*order));
	x = xcalloc(r.n + 1, sizeof(*x));
	for (i = 0; i < a.n_rows; i++) {
		/* A run without the procedure counts as a share of 0. */
		for (k = n = 0; k < r.n; k++)
			if (r.total[k] > 0)
				x[n++] = 100.0 * (double)a.rows[i].n[k] / (double)r.total[k];
		stats_describe(x, n, &desc[i]);
		for (k = desc[i].n = 0; k < r.n; k++)
			desc[i].n += a.rows[i].n[k] > 0;
		order[i] = i;
	}
	sort_desc = desc;
	sort_rows = &a;
	qsort(order, a.n_rows, sizeof(*order), mean_cmp);
	out_table_init(&t, 9, head, right);
	for (i = 0; i < a.n_rows && i < limit; i++) {
		const struct stats_desc *e = &desc[order[i]];
		out_table_addf(&t, 0, "%zu", e->n);
		out_table_addf(&t, 1, "%.3f", e->mean);
		out_table_addf(&t, 2, "%.3f", e->sd);
		out_table_addf(&t, 3, "%.3f", e->min);
		out_table_addf(&t, 4, "%.3f", e->max);
		out_table_addf(&t, 5, "%.3f", e->range);
		out_table_addf(&t, 6, "%.3f", e->nrange);
		out_table_addf(&t, 7, "%s", a.rows[order[i]].proc);
		out_table_addf(&t, 8, "%s", a.rows[order[i]].image);
	}
	s.out->report(&(struct out_report){ .rows = &t, .text_head = print_head,
	    .json_head = json_head, .arg = &h }, stdout);
	out_table_free(&t);
	free(x);
	free(order);
	free(desc);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	runs_free(&r);
	rows_free(&a);
	symcache_free(c);
	dcpi_dataset_free(d);
	fleet_free(fleet);
	free(ev);
	return rc;
}
