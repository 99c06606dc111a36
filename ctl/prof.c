/*
 * dcpictl prof: procedures (or images, or labels) by samples, as DCPI's
 * dcpiprof.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcpi/db.h>

#include "analysis.h"
#include "commands.h"
#include "fleet.h"
#include "stacks.h"
#include "xmalloc.h"

static const struct rows *sort_agg;
static const size_t *sort_ev;
static const size_t *sort_rank;	/* per row, its label's place; NULL: none */

/* By the label's place (per label), then the first column's samples,
 * then the others, then name. */
static int
row_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b, e;
	const struct row *x = &sort_agg->rows[i];
	const struct row *y = &sort_agg->rows[j];
	int c;

	if (sort_rank != NULL && sort_rank[i] != sort_rank[j])
		return sort_rank[i] < sort_rank[j] ? -1 : 1;
	for (e = 0; e < sort_agg->n_events; e++)
		if (x->n[sort_ev[e]] != y->n[sort_ev[e]])
			return x->n[sort_ev[e]] > y->n[sort_ev[e]] ? -1 : 1;
	if ((c = strcmp(x->proc, y->proc)) != 0)
		return c;
	if ((c = strcmp(x->image, y->image)) != 0)
		return c;
	return strcmp(x->label, y->label);
}

/* The labels of the per-label modes, by samples of the first column. */
struct labtot {
	const char	*name;
	uint64_t	 n;
	size_t		 rank;
};

static int
labtot_name(const void *a, const void *b)
{
	return strcmp(((const struct labtot *)a)->name, ((const struct labtot *)b)->name);
}

static int
labtot_desc(const void *a, const void *b)
{
	const struct labtot *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * --by: "procedure", "image", "label", "label,procedure" or "label,image"
 * into ROWS_* flags; -1 after printing a one-line error.
 */
static int
parse_by(const char *arg, unsigned *mode)
{
	static const struct {
		const char	*name;
		unsigned	 mode;
	} by[] = {
		{ "procedure",		0 },
		{ "image",		ROWS_IMAGE },
		{ "label",		ROWS_LABEL | ROWS_LABEL_ONLY },
		{ "label,procedure",	ROWS_LABEL },
		{ "label,image",	ROWS_LABEL | ROWS_IMAGE },
	};
	size_t i;

	for (i = 0; i < sizeof(by) / sizeof(by[0]); i++)
		if (strcmp(arg, by[i].name) == 0) {
			*mode = by[i].mode;
			return 0;
		}
	fprintf(stderr, "dcpictl: prof: --by %s: expected procedure, image, label, "
	    "label,procedure or label,image\n", arg);
	return -1;
}

static int
u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* The header: events with their totals and periods, the epochs and hosts,
 * skipped files. */
static const char *
when(const char *epoch, char buf[32])
{
	time_t t;

	return dcpi_epoch_parse(epoch, &t) == -1 ? "?" : fmt_time(buf, t);
}

/* n with thousands separators, as people read counts, into buf[32]. */
static const char *
grouped(uint64_t n, char buf[32])
{
	char tmp[24];
	size_t len, i, j;

	len = (size_t)snprintf(tmp, sizeof(tmp), "%ju", (uintmax_t)n);
	for (i = j = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = tmp[i];
	}
	buf[j] = '\0';
	return buf;
}

static const struct dcpi_unattr_entry *sort_un;

static int
unattr_desc(const void *a, const void *b)
{
	const struct dcpi_unattr_entry *x = &sort_un[*(const size_t *)a];
	const struct dcpi_unattr_entry *y = &sort_un[*(const size_t *)b];

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

/* Per event, the idle task's share and the samples not attributed by
 * reason, when there are any: what the rows do not show. */
static void
print_apart(const struct dcpi_dataset *d, int idle_shown, FILE *fp)
{
	const struct dcpi_dataset_event *ev;
	char b0[32], b1[32], which[1100];
	uint64_t attributed;
	size_t e, i, n, *ix;

	ix = xcalloc(d->unattr.n + 1, sizeof(*ix));
	for (e = 0; e < d->n_events; e++) {
		ev = &d->events[e];
		attributed = ev->samples + (idle_shown ? 0 : ev->idle);
		which[0] = '\0';
		if (d->n_events > 1)
			snprintf(which, sizeof(which), " (%s)", ev->name);
		if (ev->idle > 0) {
			fputs("idle", fp);
			esc_puts(which, fp);
			fprintf(fp, ": %.1f%% of samples (%s), %s\n",
			    100.0 * (double)ev->idle / (double)attributed, grouped(ev->idle, b0),
			    idle_shown ? "included (--idle)" : "not shown; --idle includes them");
		}
		if (ev->unattributed == 0)
			continue;
		fputs("not attributed", fp);
		esc_puts(which, fp);
		fprintf(fp, ": %s samples (%.1f%%):",
		    grouped(ev->unattributed, b0), 100.0 * (double)ev->unattributed /
		    (double)(attributed + ev->unattributed));
		for (i = n = 0; i < d->unattr.n; i++)
			if (strcmp(d->unattr.v[i].event, ev->name) == 0 && d->unattr.v[i].samples)
				ix[n++] = i;
		sort_un = d->unattr.v;
		qsort(ix, n, sizeof(*ix), unattr_desc);
		for (i = 0; i < n; i++) {
			fprintf(fp, "%s ", i ? "," : "");
			esc_puts(d->unattr.v[ix[i]].reason, fp);
			fprintf(fp, " %s", grouped(d->unattr.v[ix[i]].samples, b1));
		}
		fputc('\n', fp);
	}
	free(ix);
}

/* What the heads show: the dataset, as the selection kept it. */
struct prof_head {
	const struct dcpi_dataset	*d;
	const struct selection		*s;
};

static void
print_header(FILE *fp, const void *arg)
{
	const struct prof_head *h = arg;
	const struct dcpi_dataset *d = h->d;
	const struct selection *s = h->s;
	int idle_shown = sel_idle_shown(s);
	char b0[32], b1[32];
	struct out_table t;
	static const char *const head[] = { "event", "samples", "period" };
	static const int right[] = { 0, 1, 1 };
	size_t i;

	if (d->n_epochs == 0)
		fprintf(fp, "epochs: none");
	else if (d->n_epochs == 1)
		fprintf(fp, "epoch %s (started %s UTC)", d->epochs[0], when(d->epochs[0], b0));
	else
		fprintf(fp, "epochs %s .. %s (%zu, started %s .. %s UTC)", d->epochs[0],
		    d->epochs[d->n_epochs - 1], d->n_epochs, when(d->epochs[0], b0),
		    when(d->epochs[d->n_epochs - 1], b1));
	if (d->n_hosts > 0) {
		fprintf(fp, ", host%s", d->n_hosts > 1 ? "s" : "");
		for (i = 0; i < d->n_hosts; i++) {
			fputs(i ? ", " : " ", fp);
			esc_puts(d->hosts[i], fp);
		}
	}
	fputc('\n', fp);
	/* What --label kept: the patterns can match several. */
	if (s->n_labels > 0) {
		fputs("for", fp);
		sel_print_labels(d, fp);
		fputc('\n', fp);
	}
	if (d->n_skipped > 0)
		fprintf(fp, "%zu corrupt file%s skipped (see the warnings)\n", d->n_skipped,
		    d->n_skipped > 1 ? "s" : "");
	out_table_init(&t, 3, head, right);
	for (i = 0; i < d->n_events; i++) {
		out_table_addf(&t, 0, "%s", d->events[i].name);
		out_table_addf(&t, 1, "%llu", (unsigned long long)d->events[i].samples);
		out_table_addf(&t, 2, "%llu%s", (unsigned long long)d->events[i].period,
		    d->events[i].mixed_period ? " (mixed)" : "");
	}
	output_text.table(&t, fp);
	out_table_free(&t);
	print_apart(d, idle_shown, fp);
	fputc('\n', fp);
}

static void
print_json_header(FILE *fp, const void *arg)
{
	const struct prof_head *h = arg;
	const struct dcpi_dataset *d = h->d;
	int idle_shown = sel_idle_shown(h->s);
	const char **labs;
	size_t i, j, k, n;

	fputs("{\"epochs\": ", fp);
	json_strings(fp, d->epochs, d->n_epochs);
	labs = sel_labels(d, &n);
	fputs(", \"labels\": ", fp);
	json_strings(fp, (char *const *)labs, n);
	free(labs);
	fputs(", \"hosts\": ", fp);
	json_strings(fp, d->hosts, d->n_hosts);
	fputs(", \"events\": [", fp);
	for (i = 0; i < d->n_events; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", fp);
		json_string(fp, d->events[i].name);
		fprintf(fp, ", \"samples\": %llu, \"period\": %llu, \"idle\": %llu, "
		    "\"unattributed\": {",
		    (unsigned long long)d->events[i].samples,
		    (unsigned long long)d->events[i].period,
		    (unsigned long long)d->events[i].idle);
		for (j = k = 0; j < d->unattr.n; j++) {
			if (strcmp(d->unattr.v[j].event, d->events[i].name) != 0)
				continue;
			fputs(k++ ? ", " : "", fp);
			json_string(fp, d->unattr.v[j].reason);
			fprintf(fp, ": %llu", (unsigned long long)d->unattr.v[j].samples);
		}
		fputs("}}", fp);
	}
	fprintf(fp, "], \"idle_included\": %s", idle_shown ? "true" : "false");
	fputs(", \"skipped\": ", fp);
	json_strings(fp, d->skipped, d->n_skipped);
	fputs(",\n\"rows\": ", fp);
}

int
cmd_prof(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "images",	no_argument,		NULL, 'i' },
		{ "by",		required_argument,	NULL, 'b' },
		{ "callers",	required_argument,	NULL, 'C' },
		{ "callees",	required_argument,	NULL, 'L' },
		{ "from",	required_argument,	NULL, 'F' },
		{ "until",	required_argument,	NULL, 'U' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct selection s;
	struct dcpi_dataset *d;
	struct symcache *c;
	struct rows a;
	struct out_table t;
	struct prof_head ph;
	const char **head;
	char **pcthead;
	int *right, ch, r;
	unsigned mode = 0;
	struct labtot *lt = NULL;
	const char **labs;
	size_t *order, *ev, *rank = NULL, *place, i, n, e, nc, col, nl = 0, limit = (size_t)-1;
	size_t shown, in_label, lab_col = 0;
	uint64_t lab_total = 0;
	uint64_t min;
	char num[32];
	uint64_t cum = 0;
	const char *proc = NULL, *from = NULL, *until = NULL;
	struct fleet *fl = NULL;
	enum stacks_rel rel = STACKS_CALLERS;

	memset(&s, 0, sizeof(s));
	while ((ch = sel_getopt(argc, argv, "ie:n:h", opts, SEL_ALL | SEL_IDLE | SEL_FORMAT,
	    &s, "prof")) != -1) {
		switch (ch) {
		case SEL_BAD:
			return 2;
		case 'i': mode = ROWS_IMAGE; break;
		case 'b':
			if (parse_by(optarg, &mode) == -1)
				return 2;
			break;
		case 'n':
			if (sel_rows(optarg, "prof", &limit) == -1)
				return 2;
			break;
		case 'F': from = optarg; break;
		case 'U': until = optarg; break;
		case 'C':
		case 'L':
			if (proc != NULL) {
				fprintf(stderr, "dcpictl: prof: --callers and --callees "
				    "exclude each other\n");
				return 2;
			}
			proc = optarg;
			rel = ch == 'C' ? STACKS_CALLERS : STACKS_CALLEES;
			break;
		default:
			return cmd_usage(ch == 'h',
			    "usage: dcpictl prof [-i | --by KEYS] [-e EVENT]... [--epoch E | --all | --since TIME]\n"
			    "                    [--host H] [--image NAME] [--label GLOB]... [--idle] [-n N]\n"
			    "                    [--csv | --json]\n"
			    "       dcpictl prof --from clickhouse://HOST[:PORT]/DB [-i | --by KEYS] [-e EVENT]...\n"
			    "                    [--epoch E | --since TIME] [--until TIME] [--host GLOB]\n"
			    "                    [--label GLOB]... [--idle] [-n N] [--csv | --json]\n"
			    "       dcpictl prof --callers PROC | --callees PROC [-e EVENT] [selection] [-n N]\n"
			    "                    [--csv | --json]\n"
			    "KEYS: procedure (the default), image (-i), label, label,procedure, label,image\n");
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dcpictl: prof: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	/* A procedure's callers and callees come from the call chains, not
	 * the profiles: ctl/stacks.c reads them, as for dcpictl stacks. */
	if (proc != NULL) {
		if (from != NULL) {
			fprintf(stderr, "dcpictl: prof: --callers and --callees do not go "
			    "with --from\n");
			return 2;
		}
		if (mode != 0 || s.image != NULL) {
			fprintf(stderr, "dcpictl: prof: --callers and --callees take "
			    "neither -i, --by nor --image\n");
			return 2;
		}
		return stacks_calls(g, &s, "prof", proc, rel, limit);
	}
	if (until != NULL && from == NULL) {
		fprintf(stderr, "dcpictl: prof: --until goes with --from\n");
		return 2;
	}
	if (from != NULL) {
		/* The fleet: the server sums the rows (ctl/fleet.c). */
		if (fleet_prof(from, &s, until, mode, limit, &d, &a, &fl) == -1)
			return 1;
		c = NULL;
	} else {
		if ((d = sel_load(g->db, &s, "prof")) == NULL)
			return 1;
		c = symcache_new();
		rows_init(&a, d->n_events);
		rows_dataset(&a, d, c, mode);
	}

	/* Columns in the order of -e, else by name. */
	ev = xcalloc(d->n_events + 1, sizeof(size_t));
	for (i = 0, nc = 0; i < s.n_events; i++)
		for (e = 0; e < d->n_events; e++)
			if (strcmp(s.events[i], d->events[e].name) == 0) {
				for (r = 0; (size_t)r < nc && ev[r] != e; r++)
					;
				if ((size_t)r == nc)
					ev[nc++] = e;
			}
	for (e = 0; e < d->n_events; e++) {
		for (r = 0; (size_t)r < nc && ev[r] != e; r++)
			;
		if ((size_t)r == nc)
			ev[nc++] = e;
	}
	order = xcalloc(a.n_rows + 1, sizeof(size_t));
	min = 0;
	if (mode & ROWS_LABEL && !(mode & ROWS_LABEL_ONLY)) {
		/* Per label: the labels by their samples, each row ranked by
		 * its label's place. */
		labs = sel_labels(d, &nl);
		lt = xcalloc(nl + 1, sizeof(*lt));
		for (i = 0; i < nl; i++)
			lt[i].name = labs[i];
		free(labs);
		rank = xcalloc(a.n_rows + 1, sizeof(size_t));
		for (i = 0; i < a.n_rows; i++) {
			struct labtot key = { a.rows[i].label, 0, 0 }, *l;
			l = bsearch(&key, lt, nl, sizeof(*lt), labtot_name);
			rank[i] = (size_t)(l - lt);
			if (d->n_events > 0)
				l->n += a.rows[i].n[ev[0]];
		}
		for (i = 0; i < nl; i++)
			lt[i].rank = i;
		qsort(lt, nl, sizeof(*lt), labtot_desc);
		/* rank[] held the place in name order: make it the place in
		 * samples order. */
		place = xcalloc(nl + 1, sizeof(size_t));
		for (i = 0; i < nl; i++)
			place[lt[i].rank] = i;
		for (i = 0; i < a.n_rows; i++)
			rank[i] = place[rank[i]];
		free(place);
	} else if (limit < a.n_rows && d->n_events > 0) {
		/* With -n, only rows that can make the top N are sorted: those
		 * with at least the Nth largest count of the first column. */
		uint64_t *top = xcalloc(a.n_rows, sizeof(uint64_t));
		for (i = 0; i < a.n_rows; i++)
			top[i] = a.rows[i].n[ev[0]];
		qsort(top, a.n_rows, sizeof(uint64_t), u64_desc);
		min = top[limit > 0 ? limit - 1 : 0];
		free(top);
	}
	for (i = 0, n = 0; i < a.n_rows; i++)
		if (d->n_events == 0 || a.rows[i].n[ev[0]] >= min)
			order[n++] = i;
	sort_agg = &a;
	sort_ev = ev;
	sort_rank = rank;
	qsort(order, n, sizeof(size_t), row_cmp);

	/* Per event: samples and %; then cum% (first event), then the keys:
	 * procedure and image, image, or nothing, and label when by label.
	 * Per label, cum% is of the label's samples: how much of it the
	 * rows shown cover. */
	nc = 2 * d->n_events + 1 + (mode & ROWS_LABEL_ONLY ? 0 : mode & ROWS_IMAGE ? 1 : 2) +
	    (mode & ROWS_LABEL ? 1 : 0);
	head = xcalloc(nc, sizeof(char *));
	right = xcalloc(nc, sizeof(int));
	pcthead = xcalloc(d->n_events + 1, sizeof(char *));
	for (e = 0; e < d->n_events; e++) {
		head[2 * e] = d->events[ev[e]].name;
		/* Scripts need distinct column names. */
		if (!s.out->distinct_heads)
			head[2 * e + 1] = "%";
		else {
			xasprintf(&pcthead[e], "%s %%", d->events[ev[e]].name);
			head[2 * e + 1] = pcthead[e];
		}
		right[2 * e] = right[2 * e + 1] = 1;
	}
	col = 2 * e;
	head[col] = "cum%";
	right[col++] = 1;
	if (!(mode & (ROWS_IMAGE | ROWS_LABEL_ONLY)))
		head[col++] = "procedure";
	if (!(mode & ROWS_LABEL_ONLY))
		head[col++] = "image";
	if (mode & ROWS_LABEL)
		head[lab_col = col++] = "label";
	out_table_init(&t, nc, head, right);
	for (i = shown = in_label = 0; i < n && shown < (rank ? (size_t)-1 : limit); i++) {
		const struct row *rw = &a.rows[order[i]];
		if (rank != NULL) {
			/* A new label: its own cum% and its own -n rows. */
			if (i == 0 || rank[order[i]] != rank[order[i - 1]]) {
				in_label = 0;
				cum = 0;
				lab_total = lt[rank[order[i]]].n;
			}
			if (in_label++ >= limit)
				continue;
		}
		shown++;
		for (e = 0; e < d->n_events; e++) {
			out_table_put(&t, 2 * e, fmt_u64(num, rw->n[ev[e]]));
			out_table_put(&t, 2 * e + 1, fmt_pct(num, rw->n[ev[e]], d->events[ev[e]].samples));
		}
		cum += d->n_events ? rw->n[ev[0]] : 0;
		col = 2 * e;
		out_table_put(&t, col++, fmt_pct(num, cum, rank ? lab_total :
		    d->n_events ? d->events[ev[0]].samples : 0));
		if (!(mode & (ROWS_IMAGE | ROWS_LABEL_ONLY)))
			out_table_put(&t, col++, rw->proc);
		if (!(mode & ROWS_LABEL_ONLY))
			out_table_put(&t, col++, rw->image);
		if (mode & ROWS_LABEL)
			out_table_put(&t, lab_col, rw->label);
	}
	ph.d = d;
	ph.s = &s;
	s.out->report(&(struct out_report){ .rows = &t, .text_head = print_header,
	    .json_head = print_json_header, .arg = &ph }, stdout);
	out_table_free(&t);
	free(head);
	free(right);
	free(order);
	free(rank);
	free(lt);
	free(ev);
	for (e = 0; e < d->n_events; e++)
		free(pcthead[e]);
	free(pcthead);
	rows_free(&a);
	symcache_free(c);
	dcpi_dataset_free(d);
	fleet_free(fl);
	return fflush(stdout) == 0 ? 0 : 1;
}
