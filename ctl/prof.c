/*
 * dcpictl prof: procedures (or images) by samples, as DCPI's dcpiprof.
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
#include "xmalloc.h"

static const struct agg *sort_agg;
static const size_t *sort_ev;

/* By the first column's samples, then the others, then name. */
static int
row_cmp(const void *a, const void *b)
{
	const struct row *x = &sort_agg->rows[*(const size_t *)a];
	const struct row *y = &sort_agg->rows[*(const size_t *)b];
	size_t e;
	int c;

	for (e = 0; e < sort_agg->n_events; e++)
		if (x->n[sort_ev[e]] != y->n[sort_ev[e]])
			return x->n[sort_ev[e]] > y->n[sort_ev[e]] ? -1 : 1;
	if ((c = strcmp(x->proc, y->proc)) != 0)
		return c;
	return strcmp(x->image, y->image);
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

static void
print_header(const struct dcpi_dataset *d, int idle_shown, FILE *fp)
{
	char b0[32], b1[32];
	struct table t;
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
	if (d->n_skipped > 0)
		fprintf(fp, "%zu corrupt file%s skipped (see the warnings)\n", d->n_skipped,
		    d->n_skipped > 1 ? "s" : "");
	table_init(&t, 3, head, right);
	for (i = 0; i < d->n_events; i++) {
		table_addf(&t, 0, "%s", d->events[i].name);
		table_addf(&t, 1, "%llu", (unsigned long long)d->events[i].samples);
		table_addf(&t, 2, "%llu%s", (unsigned long long)d->events[i].period,
		    d->events[i].mixed_period ? " (mixed)" : "");
	}
	table_print(&t, FMT_TEXT, fp);
	table_free(&t);
	print_apart(d, idle_shown, fp);
	fputc('\n', fp);
}

static void
print_json_header(const struct dcpi_dataset *d, int idle_shown, FILE *fp)
{
	size_t i, j, k;

	fputs("{\"epochs\": ", fp);
	json_strings(fp, d->epochs, d->n_epochs);
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
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct selection s;
	struct dcpi_dataset *d;
	struct symcache *c;
	struct agg a;
	struct table t;
	const char **head;
	char **pcthead;
	int *right, by_image = 0, ch, r;
	size_t *order, *ev, i, n, e, nc, limit = (size_t)-1;
	uint64_t min;
	char num[32];
	uint64_t cum = 0;

	memset(&s, 0, sizeof(s));
	while ((ch = sel_getopt(argc, argv, "ie:n:h", opts, SEL_ALL | SEL_IDLE | SEL_FORMAT,
	    &s, "prof")) != -1) {
		switch (ch) {
		case SEL_BAD:
			return 2;
		case 'i': by_image = 1; break;
		case 'n':
			if (sel_rows(optarg, "prof", &limit) == -1)
				return 2;
			break;
		default:
			return cmd_usage(ch == 'h',
			    "usage: dcpictl prof [-i] [-e EVENT]... [--epoch E | --all | --since TIME]\n"
			    "                    [--host H] [--image NAME] [--idle] [-n N] [--csv | --json]\n");
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dcpictl: prof: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if ((d = sel_load(g->db, &s, "prof")) == NULL)
		return 1;
	c = symcache_new();
	agg_init(&a, d->n_events);
	agg_dataset(&a, d, c, by_image);

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
	/* With -n, only rows that can make the top N are sorted: those with
	 * at least the Nth largest count of the first column. */
	order = xcalloc(a.n_rows + 1, sizeof(size_t));
	min = 0;
	if (limit < a.n_rows && d->n_events > 0) {
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
	qsort(order, n, sizeof(size_t), row_cmp);

	/* Per event: samples and %; then cum% (first event), procedure, image. */
	nc = 2 * d->n_events + (by_image ? 2 : 3);
	head = xcalloc(nc, sizeof(char *));
	right = xcalloc(nc, sizeof(int));
	pcthead = xcalloc(d->n_events + 1, sizeof(char *));
	for (e = 0; e < d->n_events; e++) {
		head[2 * e] = d->events[ev[e]].name;
		/* Scripts need distinct column names. */
		if (s.fmt == FMT_TEXT)
			head[2 * e + 1] = "%";
		else {
			xasprintf(&pcthead[e], "%s %%", d->events[ev[e]].name);
			head[2 * e + 1] = pcthead[e];
		}
		right[2 * e] = right[2 * e + 1] = 1;
	}
	head[2 * e] = "cum%";
	right[2 * e] = 1;
	if (!by_image)
		head[2 * e + 1] = "procedure";
	head[nc - 1] = "image";
	table_init(&t, nc, head, right);
	for (i = 0; i < n && i < limit; i++) {
		const struct row *rw = &a.rows[order[i]];
		for (e = 0; e < d->n_events; e++) {
			table_put(&t, 2 * e, fmt_u64(num, rw->n[ev[e]]));
			table_put(&t, 2 * e + 1, fmt_pct(num, rw->n[ev[e]], d->events[ev[e]].samples));
		}
		cum += d->n_events ? rw->n[ev[0]] : 0;
		table_put(&t, 2 * e, fmt_pct(num, cum, d->n_events ? d->events[ev[0]].samples : 0));
		if (!by_image)
			table_put(&t, 2 * e + 1, rw->proc);
		table_put(&t, nc - 1, rw->image);
	}
	if (s.fmt == FMT_TEXT)
		print_header(d, s.idle, stdout);
	else if (s.fmt == FMT_JSON)
		print_json_header(d, s.idle, stdout);
	table_print(&t, s.fmt, stdout);
	if (s.fmt == FMT_JSON)
		fputs("}\n", stdout);
	table_free(&t);
	free(head);
	free(right);
	free(order);
	free(ev);
	for (e = 0; e < d->n_events; e++)
		free(pcthead[e]);
	free(pcthead);
	agg_free(&a);
	symcache_free(c);
	dcpi_dataset_free(d);
	return fflush(stdout) == 0 ? 0 : 1;
}
