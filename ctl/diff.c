/*
 * dcpictl diff A B: per procedure, the share of each side's samples, the
 * change and the ratio, largest changes first (what got slower).  A side
 * is an epoch or a database, and may be narrowed to labels (--label-a,
 * --label-b): two labels of one selection compare without A and B.
 * Each row's change is tested (ctl/stats_math.h): on the counts, or with
 * --by on the spread of the runs each side holds, with Benjamini-Hochberg
 * q-values across the rows; --significant keeps the rows that pass.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dcpi/db.h>

#include "analysis.h"
#include "commands.h"
#include "fleet.h"
#include "runs.h"
#include "stats_math.h"
#include "xmalloc.h"

struct side {
	const char	*arg;		/* A or B; NULL: the common selection */
	const char	*db;
	struct selection s;
	struct dcpi_dataset *d;
	uint64_t	 total;
};

static const struct rows *sort_agg;
static uint64_t tot_a, tot_b;

static double
share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static int
change_cmp(const void *x, const void *y)
{
	const struct row *a = &sort_agg->rows[*(const size_t *)x];
	const struct row *b = &sort_agg->rows[*(const size_t *)y];
	double ca = fabs(share(a->n[1], tot_b) - share(a->n[0], tot_a));
	double cb = fabs(share(b->n[1], tot_b) - share(b->n[0], tot_a));
	int c;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	if ((c = strcmp(a->proc, b->proc)) != 0)
		return c;
	return strcmp(a->image, b->image);
}

/* A side is an epoch of the database, or a database (all its epochs), or
 * without A and B the epochs that --epoch, --all or --since select (else
 * the current one); labels: its own --label-X, else --label. */
static int
resolve(const struct ctl_globals *g, struct side *sd, const struct selection *common,
    const char *const *labels, size_t n_labels)
{
	char path[4096];
	struct stat st;
	time_t t;

	sd->s = *common;
	if (n_labels > 0) {
		memcpy(sd->s.labels, labels, n_labels * sizeof(*labels));
		sd->s.n_labels = n_labels;
	}
	if (sd->arg == NULL) {
		sd->db = g->db;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s", g->db, sd->arg);
	if (dcpi_epoch_parse(sd->arg, &t) == 0 && stat(path, &st) == 0) {
		sd->db = g->db;
		sd->s.epochs[0] = sd->arg;
		sd->s.n_epochs = 1;
	} else if (stat(sd->arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		sd->db = sd->arg;
		sd->s.all = 1;
	} else {
		fprintf(stderr, "dcpictl: diff: %s: neither an epoch of %s nor a database\n",
		    sd->arg, g->db);
		return -1;
	}
	return 0;
}

/* "A ARG label X, Y: N samples", the labels being those the side's
 * patterns kept. */
static void
print_side(const struct side *sd, char name, FILE *fp)
{
	fprintf(fp, "%c", name);
	if (sd->d == NULL)	/* --from: the range as given */
		fprintf(fp, " %s", sd->arg);
	else if (sd->arg != NULL)
		fprintf(fp, " %s", sd->arg);
	else if (sd->d->n_epochs == 1)
		fprintf(fp, " epoch %s", sd->d->epochs[0]);
	else if (sd->d->n_epochs > 1)
		fprintf(fp, " epochs %s .. %s", sd->d->epochs[0],
		    sd->d->epochs[sd->d->n_epochs - 1]);
	if (sd->s.n_labels > 0 && sd->d != NULL)
		sel_print_labels(sd->d, fp);
	fprintf(fp, ": %llu samples\n", (unsigned long long)sd->total);
}

/* The text's head: the event, then each side, then the test. */
struct diff_head {
	const char		*event;
	const struct side	*sd;	/* [2] */
	const char		*by;	/* the runs model's runs, or NULL */
	size_t			 runs[2];	/* runs a side */
	size_t			 rows;	/* the rows tested */
	size_t			 passed;	/* of them, q <= level */
	double			 level;
	int			 only;	/* --significant */
};

/* "test: ...; correction: ...; level ...": what a reader needs to weigh
 * the p, q and interval columns. */
static void
print_test(FILE *fp, const struct diff_head *h)
{
	if (h->by != NULL)
		fprintf(fp, "test: Welch's t on the shares of the runs (%zu %ss in A, "
		    "%zu in B), t interval at %g%%", h->runs[0], h->by, h->runs[1],
		    100 * (1 - h->level));
	else
		fprintf(fp, "test: two-proportion z-test (pooled) on the counts, "
		    "Newcombe's interval at %g%%", 100 * (1 - h->level));
	fprintf(fp, "; correction: Benjamini-Hochberg over %zu rows; level %g: %zu "
	    "significant%s\n", h->rows, h->level, h->passed, h->only ? ", the rest left out" : "");
}

static void
print_head(FILE *fp, const void *arg)
{
	const struct diff_head *h = arg;

	fprintf(fp, "event %s\n", h->event);
	print_side(&h->sd[0], 'A', fp);
	print_side(&h->sd[1], 'B', fp);
	print_test(fp, h);
	putc('\n', fp);
}

static void
json_side(FILE *fp, const struct side *sd, size_t runs)
{
	fprintf(fp, "{\"name\": ");
	json_string(fp, sd->arg != NULL ? sd->arg : "");
	fprintf(fp, ", \"samples\": %llu, \"runs\": %zu}", (unsigned long long)sd->total,
	    runs);
}

static void
json_head(FILE *fp, const void *arg)
{
	const struct diff_head *h = arg;

	fputs("{\"event\": ", fp);
	json_string(fp, h->event);
	fputs(",\n\"a\": ", fp);
	json_side(fp, &h->sd[0], h->runs[0]);
	fputs(",\n\"b\": ", fp);
	json_side(fp, &h->sd[1], h->runs[1]);
	fprintf(fp, ",\n\"test\": \"%s\", \"interval\": \"%s\", \"by\": ",
	    h->by != NULL ? "welch-t" : "two-proportion-z",
	    h->by != NULL ? "welch-t" : "newcombe");
	if (h->by != NULL)
		json_string(fp, h->by);
	else
		fputs("null", fp);
	fprintf(fp, ", \"correction\": \"benjamini-hochberg\", \"level\": %g, "
	    "\"confidence\": %g, \"tested\": %zu, \"significant\": %zu, "
	    "\"significant_only\": %s,\n\"rows\": ", h->level, 1 - h->level, h->rows,
	    h->passed, h->only ? "true" : "false");
}

/* Each row's change tested: by the counts of columns 0 and 1, or with
 * runs by the shares of columns 2 .. 2 + runs[0] + runs[1] - 1. */
static void
test_rows(const struct rows *a, const uint64_t *tot, const struct runs *r, double level,
    struct stats_change *ch)
{
	double *sh[2] = { NULL, NULL };
	size_t i, k, s, n[2] = { 0, 0 };

	if (r != NULL)
		for (s = 0; s < 2; s++)
			sh[s] = xcalloc(r[s].n + 1, sizeof(double));
	for (i = 0; i < a->n_rows; i++) {
		const struct row *rw = &a->rows[i];
		if (r == NULL) {
			/* A count past its total (a saturated one): no test. */
			if (stats_prop2(rw->n[0], tot[0] ? tot[0] : 1, rw->n[1],
			    tot[1] ? tot[1] : 1, 1 - level, &ch[i]) == -1)
				ch[i] = (struct stats_change){ .lo = -1, .hi = 1, .p = 1 };
			continue;
		}
		/* A run without samples of the event has no share. */
		for (s = 0; s < 2; s++)
			for (k = n[s] = 0; k < r[s].n; k++)
				if (r[s].total[k] > 0)
					sh[s][n[s]++] = (double)rw->n[2 + s * r[0].n + k] /
					    (double)r[s].total[k];
		if (stats_welch(sh[0], n[0], sh[1], n[1], 1 - level, &ch[i]) == -1)
			ch[i] = (struct stats_change){ .lo = -1, .hi = 1, .p = 1 };
	}
	free(sh[0]);
	free(sh[1]);
}

/* Beyond the selection's option values (selection.h). */
#define OPT_SIGNIFICANT	0x200

#define DIFF_USAGE							\
	"usage: dcpictl diff A B [-i] [-e EVENT] [--host H] [--image NAME] [--label GLOB]...\n" \
	"                    [--label-a GLOB]... [--label-b GLOB]... [-n N] [--idle]\n" \
	"                    [--by epoch|host|label] [--significant [LEVEL]]\n"	\
	"                    [--csv | --json]\n"					\
	"       dcpictl diff --label-a GLOB... --label-b GLOB... [--epoch E | --all |\n" \
	"                    --since TIME] [options]\n"				\
	"       dcpictl diff --from clickhouse://HOST[:PORT]/DB A B [-i] [-e EVENT] [--host GLOB]\n" \
	"                    [--label GLOB]... [-n N] [--idle] [--by epoch|host|label]\n" \
	"                    [--significant [LEVEL]] [--csv | --json]\n"		\
	"A and B are epochs of the database or databases (all their epochs); without\n" \
	"them, two labels of the selected epochs (default: the current) are compared.\n" \
	"With --from, A and B are epoch names or time ranges FROM..TO of the store.\n"

int
cmd_diff(const struct ctl_globals *g, int argc, char **argv)
{
	/* One event, not a list: --event is diff's own. */
	static const struct option opts[] = {
		{ "event",	required_argument,	NULL, 'e' },
		{ "label-a",	required_argument,	NULL, 'a' },
		{ "label-b",	required_argument,	NULL, 'b' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "by",		required_argument,	NULL, 'y' },
		{ "images",	no_argument,		NULL, 'i' },
		{ "significant", optional_argument,	NULL, OPT_SIGNIFICANT },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	/* The tests' columns after the old ones, which scripts read by
	 * place. */
	static const char *const head[] = { "A%", "B%", "change", "ratio", "A", "B",
	    "procedure", "image", "p", "q", "low", "high", "model" };
	static const int right[] = { 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0 };
	struct selection common;
	struct side sd[2];
	struct diff_head h;
	struct symcache *c;
	struct rows a;
	struct out_table t;
	size_t *order, i, j, limit = (size_t)-1;
	const char *event = NULL, *from = NULL;
	struct fleet *fleet = NULL;
	char *ev = NULL;
	const char *lab[2][SEL_MAX];
	size_t n_lab[2] = { 0, 0 };
	int ch, rc = 1, only = 0;
	unsigned mode = 0;
	double pa, pb, level = 0.05, *q;
	enum runs_by by = RUNS_NONE;
	struct runs runs[2], *rp = NULL;
	struct stats_change *chg;
	char *end;

	memset(&common, 0, sizeof(common));
	memset(sd, 0, sizeof(sd));
	memset(&h, 0, sizeof(h));
	memset(runs, 0, sizeof(runs));
	h.runs[0] = h.runs[1] = 1;
	while ((ch = sel_getopt(argc, argv, "e:in:h", opts, SEL_EPOCHS | SEL_HOST | SEL_IMAGE |
	    SEL_LABEL | SEL_IDLE | SEL_FORMAT, &common, "diff")) != -1) {
		switch (ch) {
		case SEL_BAD:
			return 2;
		case 'e': event = optarg; break;
		case 'F': from = optarg; break;
		case 'i': mode = ROWS_IMAGE; break;
		case 'y':
			if (runs_by_parse(optarg, &by, "diff") == -1)
				return 2;
			break;
		case OPT_SIGNIFICANT:
			/* --significant 0.01 as well as --significant=0.01: a
			 * following number with a point, or below 1, is the
			 * level (an epoch's name has no point). */
			only = 1;
			if (optarg == NULL && optind < argc && *argv[optind] != '-' &&
			    (strtod(argv[optind], &end), end != argv[optind]) && *end == '\0' &&
			    (strchr(argv[optind], '.') != NULL || strtod(argv[optind], NULL) < 1))
				optarg = argv[optind++];
			if (optarg != NULL && (level = strtod(optarg, &end), *end != '\0' ||
			    end == optarg || !(level > 0 && level < 1))) {
				fprintf(stderr, "dcpictl: diff: --significant %s: expected a "
				    "level between 0 and 1 (0.05)\n", optarg);
				return 2;
			}
			break;
		case 'a':
		case 'b':
			i = ch == 'b';
			if (n_lab[i] == SEL_MAX || *optarg == '\0') {
				fprintf(stderr, "dcpictl: diff: --label-%c: expected at most %d "
				    "labels or patterns, none empty\n", ch, SEL_MAX);
				return 2;
			}
			lab[i][n_lab[i]++] = optarg;
			break;
		case 'n':
			if (sel_rows(optarg, "diff", &limit) == -1)
				return 2;
			break;
		default:
			return cmd_usage(ch == 'h',
			    DIFF_USAGE);
		}
	}
	if (optind + 2 == argc) {
		if (common.n_epochs > 0 || common.all || common.since != NULL) {
			fprintf(stderr, "dcpictl: diff: A and B are the epochs compared: "
			    "no --epoch, --all or --since with them\n");
			return 2;
		}
		sd[0].arg = argv[optind];
		sd[1].arg = argv[optind + 1];
	} else if (optind != argc || n_lab[0] == 0 || n_lab[1] == 0 || from != NULL)
		return cmd_usage(0, DIFF_USAGE);
	if (from != NULL) {
		/* The fleet: the server sums both sides (ctl/fleet.c). */
		const char *range[2] = { sd[0].arg, sd[1].arg };
		uint64_t tot[2];
		if (n_lab[0] > 0 || n_lab[1] > 0) {
			fprintf(stderr, "dcpictl: diff: --label-a and --label-b do not go "
			    "with --from\n");
			return 2;
		}
		if (event != NULL) {
			common.events[0] = event;
			common.n_events = 1;
		}
		if (fleet_diff(from, &common, range, mode, by, &a, tot, runs, &event,
		    &fleet) == -1)
			return 1;
		sd[0].total = tot[0];
		sd[1].total = tot[1];
		c = NULL;
		goto rows;
	}
	for (i = 0; i < 2; i++)
		if (resolve(g, &sd[i], &common, lab[i], n_lab[i]) == -1)
			return 1;
	/* One event: the one asked for, else the first of A's that B has. */
	if (event == NULL) {
		struct dcpi_dataset_filter fl[2];
		struct dcpi_error err;
		char **evs[2];
		size_t nev[2];

		for (i = 0; i < 2; i++) {
			memset(&fl[i], 0, sizeof(fl[i]));
			fl[i].epochs = sd[i].s.epochs;
			fl[i].n_epochs = sd[i].s.n_epochs;
			fl[i].host = common.host;
			if (dcpi_dataset_events(sd[i].db, &fl[i], &evs[i], &nev[i], &err) == -1) {
				fprintf(stderr, "dcpictl: diff: %s\n", err.msg);
				if (i)
					dcpi_strv_free(evs[0], nev[0]);
				return 1;
			}
		}
		for (i = 0; i < nev[0] && event == NULL; i++)
			for (j = 0; j < nev[1]; j++)
				if (strcmp(evs[0][i], evs[1][j]) == 0) {
					event = ev = xstrdup(evs[0][i]);
					break;
				}
		dcpi_strv_free(evs[0], nev[0]);
		dcpi_strv_free(evs[1], nev[1]);
		if (event == NULL) {
			if (sd[0].arg != NULL)
				fprintf(stderr, "dcpictl: diff: %s and %s have no event in "
				    "common\n", sd[0].arg, sd[1].arg);
			else
				fprintf(stderr, "dcpictl: diff: no events in the selected "
				    "epochs\n");
			return 1;
		}
	}
	for (i = 0; i < 2; i++) {
		sd[i].s.events[0] = event;
		sd[i].s.n_events = 1;
		if ((sd[i].d = sel_load(sd[i].db, &sd[i].s, "diff")) == NULL) {
			if (i)
				dcpi_dataset_free(sd[0].d);
			free(ev);
			return 1;
		}
	}
	c = symcache_new();
	if (by != RUNS_NONE) {
		h.runs[0] = runs_count(sd[0].d, by);
		h.runs[1] = runs_count(sd[1].d, by);
	}
	rows_init(&a, 2 + (by != RUNS_NONE ? h.runs[0] + h.runs[1] : 0));
	for (i = 0; i < 2; i++) {
		a.event_base = i;
		rows_dataset(&a, sd[i].d, c, mode);
		sd[i].total = sd[i].d->n_events ? sd[i].d->events[0].samples : 0;
	}
	for (i = 0; i < 2 && by != RUNS_NONE; i++)
		if (runs_add(&runs[i], sd[i].db, &sd[i].s, sd[i].d, by, &a,
		    2 + i * h.runs[0], mode, c, "diff") == -1)
			goto out;
rows:
	/* The spread needs two runs with samples a side; else the counts. */
	if (by != RUNS_NONE) {
		for (i = 0; i < 2; i++)
			for (j = h.runs[i] = 0; j < runs[i].n; j++)
				h.runs[i] += runs[i].total[j] > 0;
		if (h.runs[0] >= 2 && h.runs[1] >= 2)
			rp = runs;
		else
			fprintf(stderr, "dcpictl: diff: --by %s: %zu and %zu %ss with "
			    "samples, not two a side: the counts are tested\n",
			    runs_by_name(by), h.runs[0], h.runs[1], runs_by_name(by));
	}
	tot_a = sd[0].total;
	tot_b = sd[1].total;
	order = xcalloc(a.n_rows + 1, sizeof(size_t));
	for (i = 0; i < a.n_rows; i++)
		order[i] = i;
	sort_agg = &a;
	qsort(order, a.n_rows, sizeof(size_t), change_cmp);
	chg = xcalloc(a.n_rows + 1, sizeof(*chg));
	q = xcalloc(a.n_rows + 1, sizeof(*q));
	test_rows(&a, (uint64_t[]){ tot_a, tot_b }, rp, level, chg);
	for (i = 0; i < a.n_rows; i++)
		q[i] = chg[i].p;
	stats_bh(q, a.n_rows, q);
	h.by = rp != NULL ? runs_by_name(by) : NULL;
	h.rows = a.n_rows;
	h.level = level;
	h.only = only;
	for (i = h.passed = 0; i < a.n_rows; i++)
		h.passed += q[i] <= level;
	out_table_init(&t, 13, head, right);
	for (i = j = 0; i < a.n_rows && j < limit; i++) {
		const struct row *rw = &a.rows[order[i]];
		const struct stats_change *x = &chg[order[i]];
		if (only && !(q[order[i]] <= level))
			continue;
		j++;
		pa = share(rw->n[0], tot_a);
		pb = share(rw->n[1], tot_b);
		out_table_addf(&t, 0, "%.2f", pa);
		out_table_addf(&t, 1, "%.2f", pb);
		out_table_addf(&t, 2, "%+.2f", pb - pa);
		if (rw->n[0] == 0)
			out_table_addf(&t, 3, "inf");
		else
			out_table_addf(&t, 3, "%.2f", pb / pa);
		out_table_addf(&t, 4, "%llu", (unsigned long long)rw->n[0]);
		out_table_addf(&t, 5, "%llu", (unsigned long long)rw->n[1]);
		out_table_addf(&t, 6, "%s", rw->proc);
		out_table_addf(&t, 7, "%s", rw->image);
		out_table_addf(&t, 8, "%.3g", x->p);
		out_table_addf(&t, 9, "%.3g", q[order[i]]);
		out_table_addf(&t, 10, "%+.3f", 100 * x->lo);
		out_table_addf(&t, 11, "%+.3f", 100 * x->hi);
		out_table_addf(&t, 12, "%s", rp != NULL ? "runs" : "counts");
	}
	h.event = event;
	h.sd = sd;
	common.out->report(&(struct out_report){ .rows = &t, .text_head = print_head,
	    .json_head = json_head, .arg = &h }, stdout);
	out_table_free(&t);
	free(chg);
	free(q);
	free(order);
	rc = 0;
out:
	runs_free(&runs[0]);
	runs_free(&runs[1]);
	rows_free(&a);
	symcache_free(c);
	free(ev);
	fleet_free(fleet);
	if (rc == 0)
		rc = fflush(stdout) == 0 ? 0 : 1;
	dcpi_dataset_free(sd[0].d);
	dcpi_dataset_free(sd[1].d);
	return rc;
}
