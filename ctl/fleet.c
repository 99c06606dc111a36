/*
 * Fleet queries over a ClickHouse store: ctl/fleet.h.
 *
 * What is selected is decided by the client from the small pushes table
 * (hosts by glob, epochs by name or time), then said to the server as
 * conditions on host and epoch_time (which prune partitions) and the
 * exactly-once rule: only the rows of the first completed push of each
 * (host, epoch) count.  Sums, joins with the procedures and the top N are
 * the server's.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcpi/db.h>

#include "clickhouse.h"
#include "fleet.h"
#include "xmalloc.h"

struct fleet {
	struct ch	 c;
	int		 open;
	struct ch_buf	*ans;		/* the rows point into these: kept */
	size_t		 n_ans;
	char		*event;
	/* The selection as SQL: on host and epoch, then exactly once. */
	struct ch_buf	 where;
	struct ch_buf	 loaded;	/* the labels whose samples are rows */
	int		 label_where;	/* where restricts labels */
	char		**runs;		/* stats: the runs' names */
	size_t		 n_runs;
};

void
fleet_free(struct fleet *f)
{
	size_t i;

	if (f == NULL)
		return;
	if (f->open)
		ch_close(&f->c);
	for (i = 0; i < f->n_ans; i++)
		chb_free(&f->ans[i]);
	free(f->ans);
	chb_free(&f->where);
	chb_free(&f->loaded);
	free(f->event);
	dcpi_strv_free(f->runs, f->n_runs);
	free(f);
}

/* Runs sql, keeping the answer; the answer's text or NULL after printing
 * the error. */
static struct ch_buf *
query(struct fleet *f, struct ch_buf *sql, const char *cmd)
{
	struct ch_buf *a;

	f->ans = xreallocarray(f->ans, f->n_ans + 1, sizeof(*f->ans));
	a = &f->ans[f->n_ans];
	memset(a, 0, sizeof(*a));
	/* The IN lists of a large fleet outgrow the default 256 KiB. */
	if (ch_query(&f->c, (char *)sql->p, NULL, 0, "max_query_size=67108864", a) == -1) {
		fprintf(stderr, "dcpictl: %s: %s\n", cmd, f->c.err);
		chb_free(a);
		return NULL;
	}
	f->n_ans++;
	return a;
}

static void
quoted_list(struct ch_buf *b, char *const *v, size_t n)
{
	size_t i;

	ch_printf(b, "(");
	for (i = 0; i < n; i++) {
		if (i)
			ch_printf(b, ", ");
		ch_quote(b, v[i]);
	}
	ch_printf(b, ")");
}

static int
cstr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* v[0..*n) sorted and unique; owned: the duplicates are freed. */
static void
uniq(char **v, size_t *n, int owned)
{
	size_t i, k;

	if (*n == 0)
		return;
	qsort(v, *n, sizeof(char *), cstr_cmp);
	for (i = k = 0; i < *n; i++)
		if (k == 0 || strcmp(v[k - 1], v[i]) != 0)
			v[k++] = v[i];
		else if (owned)
			free(v[i]);
	*n = k;
}

static struct fleet *
fleet_open(const char *url, const char *cmd)
{
	struct fleet *f = xcalloc(1, sizeof(*f));

	if (ch_open(&f->c, url) == -1 || (f->open = 1, ch_schema_check(&f->c) == -1)) {
		fprintf(stderr, "dcpictl: %s: %s\n", cmd, f->c.err);
		fleet_free(f);
		return NULL;
	}
	f->open = 1;
	return f;
}

/* A time argument (parse_time's forms) into *t; -1 after an error. */
static int
time_arg(const char *opt, const char *arg, time_t *t, const char *cmd)
{
	if (parse_time(arg, t) == -1) {
		fprintf(stderr, "dcpictl: %s: %s %s: expected an epoch name, "
		    "YYYY-MM-DD[THH:MM[:SS]] or N{s,m,h,d}\n", cmd, opt, arg);
		return -1;
	}
	return 0;
}

/*
 * f->where from the completed pushes: hosts matching s->host, epochs
 * named, or from the one holding since, or before until (NULL: none).
 * With ranges (diff), epochs in either [lo, hi).  -1 after an error.
 */
static int
select_pushes(struct fleet *f, const struct selection *s, const char *until,
    const time_t (*ranges)[2], size_t n_ranges, const char *cmd)
{
	struct ch_buf sql = { 0 }, *a;
	char *p, *end, *fl[3], **hosts = NULL;
	size_t n_hosts = 0, n_rows = 0, n_kept = 0, cap, i, j;
	struct { char *host, *epoch; time_t t; } *rows = NULL;
	time_t since = 0, hi = 0, t, first = 0;
	int have_first = 0, r = -1;

	if (s->since != NULL && time_arg("--since", s->since, &since, cmd) == -1)
		return -1;
	if (until != NULL && time_arg("--until", until, &hi, cmd) == -1)
		return -1;
	if ((s->n_epochs > 0) + (s->since != NULL || until != NULL) > 1) {
		fprintf(stderr, "dcpictl: %s: --epoch excludes --since and --until\n", cmd);
		return -1;
	}
	ch_printf(&sql, "SELECT host, epoch, toUInt32(epoch_time) FROM %s.pushes "
	    "GROUP BY host, epoch, epoch_time ORDER BY epoch_time, host", f->c.url.db);
	if ((a = query(f, &sql, cmd)) == NULL)
		goto out;
	/* Parsed once (unescaped in place): host, epoch and start per row. */
	p = (char *)a->p;
	end = p + a->len;
	for (cap = 0; ch_tsv_line(&p, end, fl, 3) == 3; n_rows++) {
		if (n_rows == cap) {
			cap = cap ? 2 * cap : 256;
			rows = xreallocarray(rows, cap, sizeof(*rows));
		}
		rows[n_rows].host = fl[0];
		rows[n_rows].epoch = fl[1];
		rows[n_rows].t = t = (time_t)strtoul(fl[2], NULL, 10);
		/* The epoch holding since: the latest starting at or before it. */
		if (s->since != NULL && t <= since && (s->host == NULL ||
		    fnmatch(s->host, fl[0], 0) == 0)) {
			first = t;
			have_first = 1;
		}
	}
	if (n_rows == 0) {
		fprintf(stderr, "dcpictl: %s: %s: nothing pushed yet\n", cmd, f->c.show);
		goto out;
	}
	hosts = xcalloc(n_rows + 1, sizeof(char *));
	for (j = 0; j < n_rows; j++) {
		t = rows[j].t;
		if (s->host != NULL && fnmatch(s->host, rows[j].host, 0) != 0)
			continue;
		if (s->n_epochs > 0) {
			for (i = 0; i < s->n_epochs && strcmp(s->epochs[i], rows[j].epoch) != 0; i++)
				;
			if (i == s->n_epochs)
				continue;
		}
		if (s->since != NULL && have_first && t < first)
			continue;
		if (until != NULL && t >= hi)
			continue;
		for (i = 0; i < n_ranges; i++)
			if (t >= ranges[i][0] && t < ranges[i][1])
				break;
		if (n_ranges > 0 && i == n_ranges)
			continue;
		hosts[n_hosts++] = rows[j].host;
		n_kept++;
	}
	if (n_kept == 0) {
		fprintf(stderr, "dcpictl: %s: %s: no pushed epoch%s selected\n", cmd,
		    f->c.show, s->host ? " of the hosts" : "");
		goto out;
	}
	uniq(hosts, &n_hosts, 0);
	chb_free(&f->where);
	ch_printf(&f->where, "1");
	if (s->host != NULL) {
		ch_printf(&f->where, " AND host IN ");
		quoted_list(&f->where, hosts, n_hosts);
	}
	if (s->n_epochs > 0) {
		ch_printf(&f->where, " AND epoch IN ");
		quoted_list(&f->where, (char *const *)s->epochs, s->n_epochs);
	}
	if (s->since != NULL && have_first)
		ch_printf(&f->where, " AND epoch_time >= toDateTime(%lld)", (long long)first);
	if (until != NULL)
		ch_printf(&f->where, " AND epoch_time < toDateTime(%lld)", (long long)hi);
	if (n_ranges > 0) {
		ch_printf(&f->where, " AND (0");
		for (i = 0; i < n_ranges; i++)
			ch_printf(&f->where, " OR (epoch_time >= toDateTime(%lld) AND epoch_time "
			    "< toDateTime(%lld))", (long long)ranges[i][0], (long long)ranges[i][1]);
		ch_printf(&f->where, ")");
	}
	/* Exactly once: the first completed push of each (host, epoch).  On
	 * a cluster the set is built once, on the entry server. */
	{
		struct ch_buf w = { 0 };
		ch_printf(&w, "%s AND push_id %sIN (SELECT argMin(push_id, (pushed_at, push_id)) "
		    "FROM %s.pushes WHERE %s GROUP BY host, epoch)", (char *)f->where.p,
		    f->c.url.cluster ? "GLOBAL " : "", f->c.url.db, (char *)f->where.p);
		chb_free(&f->where);
		f->where = w;
	}
	r = 0;
out:
	free(rows);
	free(hosts);
	chb_free(&sql);
	return r;
}

/*
 * The labels: f->loaded (an SQL condition: the rows' labels) and, with
 * patterns, f->where narrowed to the labels matched (the idle task's too
 * when a pattern matches it: it is counted apart).  -1 after an error.
 */
static int
select_labels(struct fleet *f, const struct selection *s, int *idle_counted, const char *cmd)
{
	struct ch_buf sql = { 0 }, *a;
	char *p, *end, *fl[1], **all = NULL, **load = NULL, **in = NULL;
	size_t n_all = 0, n_load = 0, n_in = 0, cap = 0, i, j;
	int r = -1, exact_idle = 0;

	chb_free(&f->loaded);
	*idle_counted = 1;
	if (s->n_labels == 0) {
		ch_printf(&f->loaded, "%s", s->idle ? "1" : "label != '" DCPI_LABEL_IDLE "'");
		return 0;
	}
	/* GROUP BY, not DISTINCT: 18.16's DISTINCT repeats LowCardinality
	 * values found in several parts. */
	ch_printf(&sql, "SELECT label FROM %s.samples WHERE %s GROUP BY label ORDER BY label",
	    f->c.url.db, (char *)f->where.p);
	if ((a = query(f, &sql, cmd)) == NULL)
		goto out;
	p = (char *)a->p;
	end = p + a->len;
	while (ch_tsv_line(&p, end, fl, 1) == 1) {
		if (n_all == cap) {
			cap = cap ? 2 * cap : 64;
			all = xreallocarray(all, cap, sizeof(char *));
		}
		all[n_all++] = fl[0];
	}
	load = xcalloc(n_all + 1, sizeof(char *));
	in = xcalloc(n_all + 1, sizeof(char *));
	for (i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i], DCPI_LABEL_IDLE) == 0)
			exact_idle = 1;
	*idle_counted = 0;
	for (j = 0; j < n_all; j++) {
		for (i = 0; i < s->n_labels && !dcpi_dataset_label_match(s->labels[i], all[j]); i++)
			;
		if (i == s->n_labels)
			continue;
		in[n_in++] = all[j];
		if (strcmp(all[j], DCPI_LABEL_IDLE) == 0) {
			*idle_counted = 1;
			if (!s->idle && !exact_idle)
				continue;
		}
		load[n_load++] = all[j];
	}
	if (n_in == 0) {
		fprintf(stderr, "dcpictl: %s: no profiles with label", cmd);
		for (i = 0; i < s->n_labels; i++)
			fprintf(stderr, "%s '%s'", i ? " or" : "", s->labels[i]);
		fprintf(stderr, " (the epochs hold:");
		for (i = 0; i < n_all; i++) {
			fputc(' ', stderr);
			esc_puts(all[i], stderr);
		}
		fprintf(stderr, ")\n");
		goto out;
	}
	ch_printf(&f->loaded, "label IN ");
	if (n_load == 0)
		ch_printf(&f->loaded, "('')");
	else
		quoted_list(&f->loaded, load, n_load);
	ch_printf(&f->where, " AND label IN ");
	quoted_list(&f->where, in, n_in);
	f->label_where = 1;
	r = 0;
out:
	free(all);
	free(load);
	free(in);
	chb_free(&sql);
	return r;
}

/*
 * The row query: per mode's keys, one sum per column (cols[i]: an SQL
 * condition on a sample), HAVING some sample, the top limit by the
 * columns in order (0..n_cols-1 as ord says) then names.  Rows into a,
 * column i to event index i.
 */
static int
rows_query(struct fleet *f, unsigned mode, char *const *cols, size_t n_cols,
    const size_t *ord, size_t limit, struct rows *a, const char *cmd)
{
	struct ch_buf sql = { 0 }, sums = { 0 }, outer = { 0 }, *ans;
	const char *db = f->c.url.db, *lab = mode & ROWS_LABEL ? "label" : "''";
	char *p, *end, *fl[4 + 64];
	size_t i;
	int n, r = -1;

	if (n_cols > 64)
		return -1;
	for (i = 0; i < n_cols; i++) {
		ch_printf(&sums, ", sumIf(count, %s) AS n%zu", cols[i], i);
		ch_printf(&outer, ", sum(n%zu) AS s%zu", i, i);
	}
	if (mode & ROWS_LABEL_ONLY)
		ch_printf(&sql, "SELECT label, '', '', ''%s FROM %s.samples WHERE %s "
		    "GROUP BY label HAVING ", (char *)sums.p, db, (char *)f->where.p);
	else if (mode & ROWS_IMAGE)
		ch_printf(&sql, "SELECT %s AS lab, image, any(image_name) AS iname, ''%s "
		    "FROM %s.samples WHERE %s GROUP BY lab, image HAVING ", lab, (char *)sums.p,
		    db, (char *)f->where.p);
	else
		/* Summed per procedure start first (the server's GROUP BY over
		 * the stored rows), named by the procedures table, then per
		 * name: two starts may carry one name, as prof's rows. */
		ch_printf(&sql, "SELECT lab, image, any(iname) AS iname2, "
		    "if(pname = '', '[unknown]', pname) AS pn%s FROM "
		    "(SELECT %s AS lab, image, proc, any(image_name) AS iname%s FROM %s.samples "
		    "WHERE %s GROUP BY lab, image, proc) ANY LEFT JOIN "
		    "(SELECT image, start AS proc, any(name) AS pname FROM %s.procedures "
		    "GROUP BY image, start) USING (image, proc) GROUP BY lab, image, pn HAVING ",
		    (char *)outer.p, lab, (char *)sums.p, db, (char *)f->where.p, db);
	for (i = 0; i < n_cols; i++)
		ch_printf(&sql, "%s%c%zu > 0", i ? " OR " : "",
		    mode & (ROWS_IMAGE | ROWS_LABEL_ONLY) ? 'n' : 's', i);
	/* The top N as prof sorts them; per label prof needs them all. */
	if (limit != (size_t)-1 && !(mode & ROWS_LABEL && !(mode & ROWS_LABEL_ONLY))) {
		ch_printf(&sql, " ORDER BY ");
		for (i = 0; i < n_cols; i++)
			ch_printf(&sql, "%c%zu DESC, ", mode & (ROWS_IMAGE | ROWS_LABEL_ONLY) ?
			    'n' : 's', ord[i]);
		ch_printf(&sql, "%s LIMIT %zu", mode & ROWS_LABEL_ONLY ? "label" :
		    mode & ROWS_IMAGE ? "iname, image" : "pn, iname2, image", limit);
	}
	if ((ans = query(f, &sql, cmd)) == NULL)
		goto out;
	p = (char *)ans->p;
	end = p + ans->len;
	while ((n = ch_tsv_line(&p, end, fl, 4 + (int)n_cols)) != 0) {
		if (n != 4 + (int)n_cols) {
			fprintf(stderr, "dcpictl: %s: %s: an answer of %d fields, expected %zu\n",
			    cmd, f->c.show, n, 4 + n_cols);
			goto out;
		}
		for (i = 0; i < n_cols; i++)
			rows_add(a, fl[0], fl[1], fl[2], fl[3], i, strtoull(fl[4 + i], NULL, 10));
	}
	r = 0;
out:
	chb_free(&sql);
	chb_free(&sums);
	chb_free(&outer);
	return r;
}

static void
strv_add(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(char *));
	(*v)[(*n)++] = xstrdup(s);
}

/* The event columns: the events asked for, else all of the store's
 * selection; sorted by name as a dataset's. */
int
fleet_prof(const char *url, const struct selection *s, const char *until,
    unsigned mode, size_t limit, struct dcpi_dataset **dp, struct rows *a, struct fleet **fp)
{
	struct fleet *f;
	struct dcpi_dataset *d = NULL;
	struct ch_buf sql = { 0 }, *ans;
	char *p, *end, *fl[8], **cols = NULL, **hosts = NULL, **epochs = NULL;
	char **etimes = NULL, *et;
	size_t n_hosts = 0, n_epochs = 0, n_et = 0, i, j, *ord = NULL;
	int idle_counted, r = -1;
	struct dcpi_dataset_event *ev;

	*dp = NULL;
	*fp = NULL;
	rows_init(a, 1);
	if (s->image != NULL) {
		fprintf(stderr, "dcpictl: prof: --image does not go with --from\n");
		return -1;
	}
	if ((f = fleet_open(url, "prof")) == NULL)
		return -1;
	if (select_pushes(f, s, until, NULL, 0, "prof") == -1 ||
	    select_labels(f, s, &idle_counted, "prof") == -1)
		goto out;
	d = *dp = xcalloc(1, sizeof(*d));
	/* Per (event, host, epoch): the header's totals and who contributed. */
	ch_printf(&sql, "SELECT event, host, epoch, toString(toUInt32(epoch_time)), "
	    "sumIf(count, %s), sumIf(count, label = '" DCPI_LABEL_IDLE "'), min(period), "
	    "max(period) FROM %s.samples WHERE %s GROUP BY event, host, epoch, epoch_time "
	    "ORDER BY event", (char *)f->loaded.p, f->c.url.db, (char *)f->where.p);
	if ((ans = query(f, &sql, "prof")) == NULL)
		goto out;
	p = (char *)ans->p;
	end = p + ans->len;
	while (ch_tsv_line(&p, end, fl, 8) == 8) {
		for (i = 0; i < s->n_events && strcmp(s->events[i], fl[0]) != 0; i++)
			;
		if (s->n_events > 0 && i == s->n_events)
			continue;
		if (d->n_events == 0 || strcmp(d->events[d->n_events - 1].name, fl[0]) != 0) {
			d->events = xreallocarray(d->events, d->n_events + 1, sizeof(*d->events));
			ev = &d->events[d->n_events++];
			memset(ev, 0, sizeof(*ev));
			ev->name = xstrdup(fl[0]);
			ev->period = strtoull(fl[6], NULL, 10);
		}
		ev = &d->events[d->n_events - 1];
		ev->samples += strtoull(fl[4], NULL, 10);
		if (idle_counted)
			ev->idle += strtoull(fl[5], NULL, 10);
		if (strtoull(fl[6], NULL, 10) != ev->period || strcmp(fl[6], fl[7]) != 0)
			ev->mixed_period = 1;
		strv_add(&hosts, &n_hosts, fl[1]);
		/* Epochs sorted by time: "TIME\tNAME". */
		xasprintf(&et, "%010lu\t%s", strtoul(fl[3], NULL, 10), fl[2]);
		etimes = xreallocarray(etimes, n_et + 1, sizeof(char *));
		etimes[n_et++] = et;
	}
	for (i = 0; i < s->n_events; i++) {
		for (j = 0; j < d->n_events && strcmp(d->events[j].name, s->events[i]) != 0; j++)
			;
		if (j == d->n_events) {
			fprintf(stderr, "dcpictl: prof: %s: unknown event '%s' in the epochs "
			    "selected\n", f->c.show, s->events[i]);
			goto out;
		}
	}
	if (d->n_events == 0) {
		fprintf(stderr, "dcpictl: prof: %s: no samples in the epochs selected\n",
		    f->c.show);
		goto out;
	}
	uniq(hosts, &n_hosts, 1);
	for (i = 0; i < n_hosts; i++)
		strv_add(&d->hosts, &d->n_hosts, hosts[i]);
	uniq(etimes, &n_et, 1);
	for (i = 0; i < n_et; i++)
		if (n_epochs == 0 || strcmp(epochs[n_epochs - 1], strchr(etimes[i], '\t') + 1))
			strv_add(&epochs, &n_epochs, strchr(etimes[i], '\t') + 1);
	d->epochs = epochs;
	d->n_epochs = n_epochs;
	epochs = NULL;
	/* The samples no image holds, without label patterns as locally. */
	if (s->n_labels == 0) {
		sql.len = 0;
		ch_printf(&sql, "SELECT event, reason, sum(samples) FROM %s.unattributed WHERE %s "
		    "GROUP BY event, reason ORDER BY event, reason", f->c.url.db,
		    (char *)f->where.p);
		if ((ans = query(f, &sql, "prof")) == NULL)
			goto out;
		p = (char *)ans->p;
		end = p + ans->len;
		while (ch_tsv_line(&p, end, fl, 3) == 3)
			for (j = 0; j < d->n_events; j++)
				if (strcmp(d->events[j].name, fl[0]) == 0) {
					uint64_t n = strtoull(fl[2], NULL, 10);
					d->events[j].unattributed += n;
					if (dcpi_unattr_add(&d->unattr, fl[0], fl[1], n) == -1) {
						fprintf(stderr, "dcpictl: prof: %s: bad unattributed "
						    "row '%s %s'\n", f->c.show, fl[0], fl[1]);
						goto out;
					}
				}
	}
	/* The columns: per event, its loaded samples; top N by the first of
	 * -e's order, as prof sorts. */
	cols = xcalloc(d->n_events + 1, sizeof(char *));
	ord = xcalloc(d->n_events + 1, sizeof(size_t));
	for (i = 0; i < d->n_events; i++) {
		struct ch_buf c = { 0 };
		ch_printf(&c, "event = ");
		ch_quote(&c, d->events[i].name);
		ch_printf(&c, " AND %s", (char *)f->loaded.p);
		cols[i] = (char *)c.p;
	}
	{
		size_t k = 0;
		for (i = 0; i < s->n_events; i++)
			for (j = 0; j < d->n_events; j++)
				if (strcmp(d->events[j].name, s->events[i]) == 0) {
					size_t m;
					for (m = 0; m < k && ord[m] != j; m++)
						;
					if (m == k)
						ord[k++] = j;
				}
		for (j = 0; j < d->n_events; j++) {
			size_t m;
			for (m = 0; m < k && ord[m] != j; m++)
				;
			if (m == k)
				ord[k++] = j;
		}
	}
	rows_free(a);
	rows_init(a, d->n_events);
	if (rows_query(f, mode, cols, d->n_events, ord, limit, a, "prof") == -1)
		goto out;
	/* The header's labels, as sel_labels finds them in a dataset: those
	 * of the loaded profiles of the events shown, one image entry each;
	 * a pass over the rows, so only when shown (per label, --label, the
	 * JSON header). */
	if (!(mode & ROWS_LABEL) && s->n_labels == 0 && s->out != &output_json)
		goto done;
	sql.len = 0;
	ch_printf(&sql, "SELECT label FROM %s.samples WHERE %s AND %s AND event IN ",
	    f->c.url.db, (char *)f->where.p, (char *)f->loaded.p);
	{
		char **names = xcalloc(d->n_events + 1, sizeof(char *));
		for (i = 0; i < d->n_events; i++)
			names[i] = d->events[i].name;
		quoted_list(&sql, names, d->n_events);
		free(names);
	}
	ch_printf(&sql, " GROUP BY label ORDER BY label");
	if ((ans = query(f, &sql, "prof")) == NULL)
		goto out;
	p = (char *)ans->p;
	end = p + ans->len;
	while (ch_tsv_line(&p, end, fl, 1) == 1) {
		d->images = xreallocarray(d->images, d->n_images + 1, sizeof(*d->images));
		memset(&d->images[d->n_images], 0, sizeof(*d->images));
		d->images[d->n_images++].label = strcmp(fl[0], DCPI_LABEL_NONE) ? fl[0] : NULL;
	}
done:
	r = 0;
out:
	if (cols != NULL)
		for (i = 0; i < d->n_events; i++)
			free(cols[i]);
	free(cols);
	free(ord);
	dcpi_strv_free(hosts, n_hosts);
	dcpi_strv_free(etimes, n_et);
	dcpi_strv_free(epochs, n_epochs);
	chb_free(&sql);
	if (r == -1) {
		dcpi_dataset_free(*dp);
		*dp = NULL;
		rows_free(a);
		rows_init(a, 1);
		fleet_free(f);
	} else
		*fp = f;
	return r;
}

/* A side of diff --from: FROM..TO (either end may be left out) or an
 * epoch name, into [lo, hi).  -1 after an error. */
static int
parse_range(const char *arg, time_t r[2])
{
	const char *dots = strstr(arg, "..");
	char *from;
	int ok = 0;

	r[0] = 0;
	r[1] = (time_t)UINT32_MAX;	/* DateTime's last second */
	if (dots == NULL) {
		if (dcpi_epoch_parse(arg, &r[0]) == 0) {
			r[1] = r[0] + 1;
			return 0;
		}
	} else {
		from = xstrdup(arg);
		from[dots - arg] = '\0';
		ok = (from[0] == '\0' || parse_time(from, &r[0]) == 0) &&
		    (dots[2] == '\0' || parse_time(dots + 2, &r[1]) == 0);
		free(from);
		if (ok)
			return 0;
	}
	fprintf(stderr, "dcpictl: diff: %s: expected an epoch name or FROM..TO (times as "
	    "--since takes them, either may be left out)\n", arg);
	return -1;
}

int
fleet_diff(const char *url, const struct selection *s, const char *range[2],
    unsigned mode, enum runs_by by, struct rows *a, uint64_t tot[2], struct runs *runs,
    const char **event, struct fleet **fp)
{
	static const char *const key[] = { "", "epoch", "host", "label" };
	struct fleet *f;
	struct ch_buf sql = { 0 }, side[2] = { { 0 }, { 0 } }, cols[64], *ans;
	char *p, *end, *fl[3], *c[64];
	size_t ord[64], n_cols = 2, k, side_of[64];
	uint64_t n;
	time_t r[2][2];
	int idle_counted, rc = -1, i;

	*fp = NULL;
	*event = NULL;
	memset(cols, 0, sizeof(cols));
	memset(runs, 0, 2 * sizeof(*runs));
	rows_init(a, 2);
	if (s->image != NULL || s->n_epochs > 0 || s->all || s->since != NULL) {
		fprintf(stderr, "dcpictl: diff: with --from, A and B are the time ranges "
		    "compared: no --image, --epoch, --all or --since\n");
		return -1;
	}
	for (i = 0; i < 2; i++)
		if (parse_range(range[i], r[i]) == -1)
			return -1;
	if ((f = fleet_open(url, "diff")) == NULL)
		return -1;
	if (select_pushes(f, s, NULL, (const time_t (*)[2])r, 2, "diff") == -1 ||
	    select_labels(f, s, &idle_counted, "diff") == -1)
		goto out;
	for (i = 0; i < 2; i++)
		ch_printf(&side[i], "epoch_time >= toDateTime(%lld) AND epoch_time < "
		    "toDateTime(%lld) AND %s", (long long)r[i][0], (long long)r[i][1],
		    (char *)f->loaded.p);
	/* The event: -e's, else the first (by name) both sides have. */
	ch_printf(&sql, "SELECT event, sumIf(count, %s), sumIf(count, %s) FROM %s.samples "
	    "WHERE %s GROUP BY event ORDER BY event", (char *)side[0].p, (char *)side[1].p,
	    f->c.url.db, (char *)f->where.p);
	if ((ans = query(f, &sql, "diff")) == NULL)
		goto out;
	p = (char *)ans->p;
	end = p + ans->len;
	while (f->event == NULL && ch_tsv_line(&p, end, fl, 3) == 3) {
		tot[0] = strtoull(fl[1], NULL, 10);
		tot[1] = strtoull(fl[2], NULL, 10);
		if (s->n_events > 0 ? strcmp(fl[0], s->events[0]) == 0 : tot[0] && tot[1])
			f->event = xstrdup(fl[0]);
	}
	if (f->event == NULL) {
		if (s->n_events > 0)
			fprintf(stderr, "dcpictl: diff: %s: unknown event '%s' in the epochs "
			    "selected\n", f->c.show, s->events[0]);
		else
			fprintf(stderr, "dcpictl: diff: %s and %s have no event in common\n",
			    range[0], range[1]);
		goto out;
	}
	for (i = 0; i < 2; i++) {
		ch_printf(&cols[i], "event = ");
		ch_quote(&cols[i], f->event);
		ch_printf(&cols[i], " AND %s", (char *)side[i].p);
	}
	/* --by: each side's runs, a column each after the sides'. */
	if (by != RUNS_NONE) {
		sql.len = 0;
		ch_printf(&sql, "SELECT %s, sumIf(count, %s), sumIf(count, %s) FROM %s.samples "
		    "WHERE %s GROUP BY %s ORDER BY %s", key[by], (char *)cols[0].p,
		    (char *)cols[1].p, f->c.url.db, (char *)f->where.p, key[by], key[by]);
		if ((ans = query(f, &sql, "diff")) == NULL)
			goto out;
		p = (char *)ans->p;
		end = p + ans->len;
		for (i = 0; i < 2; i++)
			runs[i].total = xcalloc(64, sizeof(uint64_t));
		while (ch_tsv_line(&p, end, fl, 3) == 3)
			for (i = 0; i < 2; i++) {
				if ((n = strtoull(fl[1 + i], NULL, 10)) == 0)
					continue;
				if (n_cols == 64) {
					fprintf(stderr, "dcpictl: diff: %s: more than 62 %ss\n",
					    f->c.show, key[by]);
					goto out;
				}
				runs[i].total[runs[i].n++] = n;
				side_of[n_cols] = (size_t)i;
				ch_printf(&cols[n_cols], "%s AND %s = ", (char *)cols[i].p, key[by]);
				ch_quote(&cols[n_cols++], fl[0]);
				strv_add(&f->runs, &f->n_runs, fl[0]);
			}
		/* Columns 2 .. in order of A's runs, then B's. */
		{
			struct ch_buf sorted[64];
			size_t m = 2, j;
			for (i = 0; i < 2; i++) {
				runs[i].names = xcalloc(runs[i].n + 1, sizeof(char *));
				for (j = 2, k = 0; j < n_cols; j++)
					if (side_of[j] == (size_t)i) {
						sorted[m++] = cols[j];
						runs[i].names[k++] = f->runs[j - 2];
					}
			}
			memcpy(&cols[2], &sorted[2], (n_cols - 2) * sizeof(*cols));
		}
	}
	for (k = 0; k < n_cols; k++) {
		c[k] = (char *)cols[k].p;
		ord[k] = k;
	}
	rows_free(a);
	rows_init(a, n_cols);
	if (rows_query(f, mode, c, n_cols, ord, (size_t)-1, a, "diff") == -1)
		goto out;
	*event = f->event;
	rc = 0;
out:
	chb_free(&sql);
	for (i = 0; i < 2; i++)
		chb_free(&side[i]);
	for (k = 0; k < 64; k++)
		chb_free(&cols[k]);
	if (rc == -1) {
		rows_free(a);
		rows_init(a, 2);
		fleet_free(f);
	} else
		*fp = f;
	return rc;
}

int
fleet_stats(const char *url, const struct selection *s, enum runs_by by, unsigned mode,
    struct rows *a, struct runs *r, const char **event, struct fleet **fp)
{
	static const char *const key[] = { "", "epoch", "host", "label" };
	struct fleet *f;
	struct ch_buf sql = { 0 }, *ans;
	char *p, *end, *fl[3], **cols = NULL;
	size_t *ord = NULL, i, k;
	uint64_t n;
	int idle_counted, rc = -1;

	*fp = NULL;
	*event = NULL;
	memset(r, 0, sizeof(*r));
	rows_init(a, 1);
	if (s->image != NULL) {
		fprintf(stderr, "dcpictl: stats: --image does not go with --from\n");
		return -1;
	}
	if ((f = fleet_open(url, "stats")) == NULL)
		return -1;
	if (select_pushes(f, s, NULL, NULL, 0, "stats") == -1 ||
	    select_labels(f, s, &idle_counted, "stats") == -1)
		goto out;
	/* The runs and their totals, by event: -e's, else the first by name. */
	ch_printf(&sql, "SELECT event, %s, sumIf(count, %s) FROM %s.samples WHERE %s "
	    "GROUP BY event, %s ORDER BY event, %s", key[by], (char *)f->loaded.p,
	    f->c.url.db, (char *)f->where.p, key[by], key[by]);
	if ((ans = query(f, &sql, "stats")) == NULL)
		goto out;
	p = (char *)ans->p;
	end = p + ans->len;
	r->total = xcalloc(65, sizeof(*r->total));
	while (ch_tsv_line(&p, end, fl, 3) == 3) {
		if (s->n_events > 0 ? strcmp(fl[0], s->events[0]) != 0 :
		    f->event != NULL && strcmp(fl[0], f->event) != 0)
			continue;
		if (f->event == NULL)
			f->event = xstrdup(fl[0]);
		if ((n = strtoull(fl[2], NULL, 10)) == 0)
			continue;
		if (f->n_runs == 64) {
			fprintf(stderr, "dcpictl: stats: %s: more than 64 %ss\n", f->c.show,
			    key[by]);
			goto out;
		}
		r->total[f->n_runs] = n;
		strv_add(&f->runs, &f->n_runs, fl[1]);
	}
	if (f->n_runs == 0) {
		if (s->n_events > 0)
			fprintf(stderr, "dcpictl: stats: %s: no samples of '%s' in the epochs "
			    "selected\n", f->c.show, s->events[0]);
		else
			fprintf(stderr, "dcpictl: stats: %s: no samples in the epochs "
			    "selected\n", f->c.show);
		goto out;
	}
	/* One column a run: the server sums them all in one query. */
	r->n = f->n_runs;
	r->names = xcalloc(r->n + 1, sizeof(*r->names));
	cols = xcalloc(r->n + 1, sizeof(char *));
	ord = xcalloc(r->n + 1, sizeof(size_t));
	for (k = 0; k < r->n; k++) {
		struct ch_buf c = { 0 };
		r->names[k] = f->runs[k];
		ch_printf(&c, "event = ");
		ch_quote(&c, f->event);
		ch_printf(&c, " AND %s AND %s = ", (char *)f->loaded.p, key[by]);
		ch_quote(&c, f->runs[k]);
		cols[k] = (char *)c.p;
		ord[k] = k;
	}
	rows_free(a);
	rows_init(a, r->n);
	if (rows_query(f, mode, cols, r->n, ord, (size_t)-1, a, "stats") == -1)
		goto out;
	*event = f->event;
	rc = 0;
out:
	if (cols != NULL)
		for (i = 0; i < r->n; i++)
			free(cols[i]);
	free(cols);
	free(ord);
	chb_free(&sql);
	if (rc == -1) {
		rows_free(a);
		rows_init(a, 1);
		fleet_free(f);
	} else
		*fp = f;
	return rc;
}
