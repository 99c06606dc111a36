/*
 * Helpers of the analysis commands: ctl/analysis.h.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcpi/db.h>

#include "analysis.h"
#include "log.h"
#include "util.h"
#include "xmalloc.h"

int
parse_time(const char *s, time_t *t)
{
	struct tm tm;
	char *end;
	long long n;
	const char *p;

	if (dcpi_epoch_parse(s, t) == 0)
		return 0;
	n = strtoll(s, &end, 10);
	if (end != s && n >= 0 && end[0] != '\0' && end[1] == '\0' && strchr("smhd", end[0])) {
		*t = time(NULL) - (time_t)n * (end[0] == 's' ? 1 : end[0] == 'm' ? 60 :
		    end[0] == 'h' ? 3600 : 86400);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%d", &tm)) == NULL)
		return -1;
	if (*p == 'T' || *p == ' ') {
		const char *q = strptime(p + 1, "%H:%M:%S", &tm);
		if (q == NULL)
			q = strptime(p + 1, "%H:%M", &tm);
		p = q;
	}
	if (p == NULL || *p != '\0')
		return -1;
	*t = timegm(&tm);
	return 0;
}

int
sel_option(struct selection *s, int ch, const char *arg, const char *cmd)
{
	switch (ch) {
	case 'E':
		if (s->n_epochs == SEL_MAX)
			goto many;
		s->epochs[s->n_epochs++] = arg;
		return 1;
	case 'A':
		s->all = 1;
		return 1;
	case 'S':
		s->since = arg;
		return 1;
	case 'H':
		s->host = arg;
		return 1;
	case 'e':
		if (s->n_events == SEL_MAX)
			goto many;
		s->events[s->n_events++] = arg;
		return 1;
	case 'I':
		s->image = arg;
		return 1;
	case SEL_OPT_IDLE:
		s->idle = 1;
		return 1;
	}
	return 0;
many:
	fprintf(stderr, "dcpictl: %s: more than %d --%s options\n", cmd, SEL_MAX,
	    ch == 'E' ? "epoch" : "event");
	return -1;
}

struct dcpi_dataset *
sel_load(const char *db, const struct selection *s, const char *cmd)
{
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;
	char **all = NULL, cur[DCPI_EPOCH_LEN + 1], **evs;
	const char *pick[1];
	size_t n_all = 0, n_evs, i, j, first;
	uint64_t idle;
	time_t since, t;

	memset(&f, 0, sizeof(f));
	if ((s->n_epochs > 0) + s->all + (s->since != NULL) > 1) {
		fprintf(stderr, "dcpictl: %s: --epoch, --all and --since exclude each other\n", cmd);
		return NULL;
	}
	if (s->n_epochs > 0) {
		f.epochs = s->epochs;
		f.n_epochs = s->n_epochs;
	} else if (!s->all) {
		if (dcpi_db_epochs(db, &all, &n_all, &err) == -1) {
			fprintf(stderr, "dcpictl: %s: %s\n", cmd, err.msg);
			return NULL;
		}
		if (n_all == 0) {
			fprintf(stderr, "dcpictl: %s: %s: no epochs\n", cmd, db);
			dcpi_strv_free(all, n_all);
			return NULL;
		}
		if (s->since != NULL) {
			if (parse_time(s->since, &since) == -1) {
				fprintf(stderr, "dcpictl: %s: --since %s: expected an epoch name, "
				    "YYYY-MM-DD[THH:MM[:SS]] or N{s,m,h,d}\n", cmd, s->since);
				dcpi_strv_free(all, n_all);
				return NULL;
			}
			/* The epoch holding `since', and every later one. */
			for (first = 0, i = 0; i < n_all; i++)
				if (dcpi_epoch_parse(all[i], &t) == 0 && t <= since)
					first = i;
			f.epochs = (const char **)all + first;
			f.n_epochs = n_all - first;
		} else {
			pick[0] = dcpi_db_current(db, cur, NULL) == 0 ? cur : all[n_all - 1];
			f.epochs = pick;
			f.n_epochs = 1;
		}
	}
	f.host = s->host;
	if (dcpi_dataset_events(db, &f, &evs, &n_evs, &err) == -1) {
		fprintf(stderr, "dcpictl: %s: %s\n", cmd, err.msg);
		dcpi_strv_free(all, n_all);
		return NULL;
	}
	for (i = 0; i < s->n_events; i++) {
		for (j = 0; j < n_evs && strcmp(evs[j], s->events[i]) != 0; j++)
			;
		if (j == n_evs) {
			fprintf(stderr, "dcpictl: %s: unknown event '%s' (the epochs hold:", cmd,
			    s->events[i]);
			for (j = 0; j < n_evs; j++)
				fprintf(stderr, " %s", evs[j]);
			fprintf(stderr, "%s)\n", n_evs ? "" : " none");
			dcpi_strv_free(evs, n_evs);
			dcpi_strv_free(all, n_all);
			return NULL;
		}
	}
	dcpi_strv_free(evs, n_evs);
	f.events = s->events;
	f.n_events = s->n_events;
	f.image = s->image;
	f.idle = s->idle;
	if (dcpi_dataset_load(db, &f, &d, &err) == -1) {
		fprintf(stderr, "dcpictl: %s: %s\n", cmd, err.msg);
		dcpi_strv_free(all, n_all);
		return NULL;
	}
	for (i = 0, idle = 0; i < d->n_events; i++)
		idle += d->events[i].idle;
	/* Only the idle task's samples is still something to show. */
	if (d->n_images == 0 && d->n_skipped == 0 && s->image == NULL && idle == 0 &&
	    (s->host == NULL || d->n_hosts > 0)) {
		if (f.n_epochs == 0)
			fprintf(stderr, "dcpictl: %s: %s: no profiles in any epoch\n", cmd, db);
		else if (f.n_epochs == 1)
			fprintf(stderr, "dcpictl: %s: %s/%s: no profiles in this epoch\n", cmd, db,
			    f.epochs[0]);
		else
			fprintf(stderr, "dcpictl: %s: %s: no profiles in the %zu epochs selected\n",
			    cmd, db, f.n_epochs);
		dcpi_strv_free(all, n_all);
		dcpi_dataset_free(d);
		return NULL;
	}
	dcpi_strv_free(all, n_all);
	for (i = 0; i < d->n_skipped; i++)
		fprintf(stderr, "dcpictl: warning: skipped %s\n", d->skipped[i]);
	if (s->host != NULL && d->n_hosts == 0 && d->n_skipped == 0) {
		fprintf(stderr, "dcpictl: %s: no profiles of host '%s'\n", cmd, s->host);
		dcpi_dataset_free(d);
		return NULL;
	}
	if (s->image != NULL && d->n_images == 0) {
		fprintf(stderr, "dcpictl: %s: unknown image '%s'\n", cmd, s->image);
		dcpi_dataset_free(d);
		return NULL;
	}
	return d;
}

const char *
image_name(const struct dcpi_profile *p)
{
	const char *s;

	if (p->path == NULL)
		return "unknown";
	s = strrchr(p->path, '/');
	return s != NULL && s[1] != '\0' ? s + 1 : p->path;
}

/* Symbol table cache: a short list searched linearly per dataset image
 * would be quadratic over 1,000 images, so it is a sorted array. */
struct symentry {
	char		*key;
	struct dcpi_symtab *t;
	int		 stale;
};
struct symcache {
	struct symentry	*e;
	size_t		 n, cap;
	int		 quiet;
};

void
symcache_quiet(struct symcache *c, int quiet)
{
	c->quiet = quiet;
}

struct symcache *
symcache_new(void)
{
	return xcalloc(1, sizeof(struct symcache));
}

void
symcache_free(struct symcache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->e[i].key);
		dcpi_symtab_close(c->e[i].t);
	}
	free(c->e);
	free(c);
}

struct dcpi_symtab *
symcache_get(struct symcache *c, const struct dcpi_dataset_image *im, int *stale)
{
	const struct dcpi_profile *p = im->prof;
	struct dcpi_symtab_opts o;
	struct dcpi_error err;
	size_t lo = 0, hi = c->n, mid;
	char *key, *dbdir, *slash;
	int r;

	xasprintf(&key, "%s\t%s\t%llx\t%s", p->path ? p->path : "", p->image ? p->image : "",
	    (unsigned long long)p->tstart, p->path && p->path[0] == '[' ? im->kallsyms : "");
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if ((r = strcmp(c->e[mid].key, key)) == 0) {
			free(key);
			*stale = c->e[mid].stale;
			return c->e[mid].t;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->e = xreallocarray(c->e, c->cap, sizeof(*c->e));
	}
	memmove(&c->e[lo + 1], &c->e[lo], (c->n - lo) * sizeof(*c->e));
	c->n++;
	memset(&o, 0, sizeof(o));
	o.kallsyms = im->kallsyms;
	/* The dataset names the image's database through its epoch's
	 * kallsyms, DB/EPOCH/HOST/kallsyms: its build-id cache is there. */
	dbdir = xstrdup(im->kallsyms ? im->kallsyms : "");
	for (r = 0; r < 3 && (slash = strrchr(dbdir, '/')) != NULL; r++)
		*slash = '\0';
	o.db = r == 3 && dbdir[0] != '\0' ? dbdir : NULL;
	/* An image seen at several paths (chroots, epochs) is symbolized
	 * through whichever still holds it. */
	o.paths = (const char *const *)im->paths;
	o.n_paths = im->n_paths;
	c->e[lo].key = key;
	c->e[lo].stale = 0;
	if (p->path == NULL)
		c->e[lo].t = NULL;
	else if ((c->e[lo].t = dcpi_symtab_open(p->path, p->image, p->tstart, &o, &err)) == NULL) {
		if (errno == ESTALE || errno == ENOENT) {
			c->e[lo].stale = 1;
			if (!c->quiet)
				fprintf(stderr, "dcpictl: warning: %s; its samples show as "
				    "%s+0xOFFSET\n", err.msg, image_name(p));
		} else if (errno != ENODATA && !c->quiet)
			fprintf(stderr, "dcpictl: warning: %s\n", err.msg);
	}
	free(dbdir);
	*stale = c->e[lo].stale;
	return c->e[lo].t;
}

/* FNV-1a over "imageid\tproc". */
static uint64_t
rowhash(const char *id, const char *proc)
{
	return fnv1a64_str(fnv1a64(fnv1a64_str(FNV1A64_INIT, id),
	    "\t", 1), proc);
}

void
agg_init(struct agg *a, size_t n_events)
{
	memset(a, 0, sizeof(*a));
	a->n_events = n_events ? n_events : 1;
}

void
agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->n_rows; i++)
		free(a->rows[i].n);
	free(a->rows);
	htab_fini(&a->byname);
}

void
agg_add(struct agg *a, const char *imageid, const char *image, const char *proc,
    size_t event, uint64_t n)
{
	struct htab_iter it;
	struct row *r;
	uint64_t hash = rowhash(imageid, proc);
	uintptr_t v;
	size_t l;

	for (v = htab_first(&a->byname, hash, &it); v != 0;
	    v = htab_next(&a->byname, &it)) {
		r = &a->rows[v - 1];
		if (strcmp(r->proc, proc) == 0 &&
		    strcmp(r->imageid, imageid) == 0) {
			r->n[event] += n;
			return;
		}
	}
	if (a->n_rows == a->cap_rows) {
		a->cap_rows = a->cap_rows ? a->cap_rows * 2 : 256;
		a->rows = xreallocarray(a->rows, a->cap_rows, sizeof(*a->rows));
	}
	r = &a->rows[a->n_rows++];
	/* One allocation for the counts and the name. */
	l = strlen(proc) + 1;
	r->n = xmalloc(a->n_events * sizeof(uint64_t) + l);
	memset(r->n, 0, a->n_events * sizeof(uint64_t));
	r->proc = memcpy((char *)(r->n + a->n_events), proc, l);
	r->image = image;
	r->imageid = imageid;
	r->n[event] = n;
	xhtab_add(&a->byname, hash, a->n_rows);
}

void
agg_dataset(struct agg *a, const struct dcpi_dataset *d, struct symcache *c, int by_image)
{
	const struct dcpi_dataset_image *im;
	const struct dcpi_symbol *sym, *prev;
	struct dcpi_symtab *t;
	const char *name, *id;
	char buf[512];
	uint64_t run, unknown;
	size_t i, k, ev;
	int stale;

	for (i = 0; i < d->n_images; i++) {
		im = &d->images[i];
		name = image_name(im->prof);
		id = im->prof->image ? im->prof->image : name;
		ev = im->event + a->event_base;
		if (by_image) {
			agg_add(a, id, name, "", ev, im->samples);
			continue;
		}
		t = symcache_get(c, im, &stale);
		prev = NULL;
		run = unknown = 0;
		/* Counts and symbols are both sorted: sum runs per symbol. */
		for (k = 0; k < im->prof->n_counts; k++) {
			const struct dcpi_count *cn = &im->prof->counts[k];
			if (t == NULL) {
				if (stale) {
					snprintf(buf, sizeof(buf), "%s+0x%x", name, cn->offset);
					agg_add(a, id, name, buf, ev, cn->count);
				} else
					unknown += cn->count;
				continue;
			}
			if (prev != NULL && cn->offset - prev->start < prev->size) {
				run += cn->count;
				continue;
			}
			if (prev != NULL)
				agg_add(a, id, name, prev->name, ev, run);
			if ((sym = dcpi_symtab_lookup(t, cn->offset)) == NULL) {
				unknown += cn->count;
				prev = NULL;
			} else {
				prev = sym;
				run = cn->count;
			}
		}
		if (prev != NULL)
			agg_add(a, id, name, prev->name, ev, run);
		if (unknown > 0)
			agg_add(a, id, name, "[unknown]", ev, unknown);
	}
}

void
table_init(struct table *t, size_t ncols, const char *const *head, const int *right)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->head = xcalloc(ncols, sizeof(char *));
	t->right = xcalloc(ncols, sizeof(int));
	for (i = 0; i < ncols; i++) {
		t->head[i] = xstrdup(head[i]);
		t->right[i] = right[i];
	}
}

static char **
newrow(struct table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = xreallocarray(t->cells, t->cap, t->ncols * sizeof(char *));
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(char *));
	return &t->cells[t->nrows++ * t->ncols];
}

void
table_add(struct table *t, ...)
{
	va_list ap;
	char **r = newrow(t);
	size_t i;

	va_start(ap, t);
	for (i = 0; i < t->ncols; i++)
		r[i] = xstrdup(va_arg(ap, const char *));
	va_end(ap);
}

void
table_addf(struct table *t, size_t col, const char *fmt, ...)
{
	char buf[256], **r;
	va_list ap;
	int l;

	if (col == 0)
		newrow(t);
	r = &t->cells[(t->nrows - 1) * t->ncols];
	va_start(ap, fmt);
	l = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (l < 0)
		fatal("vsnprintf");
	if ((size_t)l < sizeof(buf)) {
		r[col] = memcpy(xmalloc((size_t)l + 1), buf, (size_t)l + 1);
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&r[col], fmt, ap) == -1)
		fatal("vasprintf");
	va_end(ap);
}

void
table_put(struct table *t, size_t col, const char *s)
{
	size_t l = strlen(s) + 1;

	if (col == 0)
		newrow(t);
	t->cells[(t->nrows - 1) * t->ncols + col] = memcpy(xmalloc(l), s, l);
}

char *
fmt_u64(char *buf, uint64_t n)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	size_t l;

	*--p = '\0';
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	l = (size_t)(tmp + sizeof(tmp) - p);
	return memcpy(buf, p, l);
}

char *
fmt_pct(char *buf, uint64_t n, uint64_t total)
{
	unsigned __int128 h;
	uint64_t x;
	size_t l;

	if (total == 0)
		return strcpy(buf, "0.00");
	/* Hundredths of a percent, rounded half up. */
	h = ((unsigned __int128)n * 20000 + total) / ((unsigned __int128)total * 2);
	x = (uint64_t)h;
	fmt_u64(buf, x / 100);
	l = strlen(buf);
	buf[l] = '.';
	buf[l + 1] = (char)('0' + x % 100 / 10);
	buf[l + 2] = (char)('0' + x % 10);
	buf[l + 3] = '\0';
	return buf;
}

void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; i < t->ncols; i++)
		free(t->head[i]);
	free(t->cells);
	free(t->head);
	free(t->right);
}

static int
is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void
esc_puts(const char *s, FILE *fp)
{
	const char *run;

	/* Runs of plain bytes in one write: cat prints a name per line. */
	for (;;) {
		for (run = s; *s && !is_ctl((unsigned char)*s); s++)
			;
		fwrite(run, 1, (size_t)(s - run), fp);
		if (*s == '\0')
			return;
		fprintf(fp, "\\x%02x", (unsigned char)*s++);
	}
}

size_t
esc_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += is_ctl((unsigned char)*s) ? 4 : 1;
	return n;
}

void
json_string(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (is_ctl(c))
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
	putc('"', fp);
}

static void
csv_field(FILE *fp, const char *s)
{
	if (strpbrk(s, ",\"") == NULL) {
		esc_puts(s, fp);
		return;
	}
	putc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', fp);
		if (is_ctl((unsigned char)*s))
			fprintf(fp, "\\x%02x", (unsigned char)*s);
		else
			putc(*s, fp);
	}
	putc('"', fp);
}

static int
is_number(const char *s)
{
	char *end;

	if (*s == '\0')
		return 0;
	strtod(s, &end);
	return *end == '\0' && strcmp(s, "inf") != 0 && strcmp(s, "nan") != 0 &&
	    strcmp(s, "-inf") != 0;
}

static void
pad(FILE *fp, size_t n)
{
	static const char blanks[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(blanks) - 1 ? n : sizeof(blanks) - 1;
		fwrite(blanks, 1, k, fp);
		n -= k;
	}
}

void
table_print(const struct table *t, enum fmt f, FILE *fp)
{
	size_t *w, i, j, l;
	const char *c;

	if (f == FMT_CSV) {
		for (j = 0; j < t->ncols; j++) {
			if (j)
				putc(',', fp);
			csv_field(fp, t->head[j]);
		}
		putc('\n', fp);
		for (i = 0; i < t->nrows; i++) {
			for (j = 0; j < t->ncols; j++) {
				if (j)
					putc(',', fp);
				csv_field(fp, t->cells[i * t->ncols + j] ? t->cells[i * t->ncols + j] : "");
			}
			putc('\n', fp);
		}
		return;
	}
	if (f == FMT_JSON) {
		fputs("[", fp);
		for (i = 0; i < t->nrows; i++) {
			fputs(i ? ",\n {" : "\n {", fp);
			for (j = 0; j < t->ncols; j++) {
				c = t->cells[i * t->ncols + j] ? t->cells[i * t->ncols + j] : "";
				if (j)
					fputs(", ", fp);
				json_string(fp, t->head[j]);
				fputs(": ", fp);
				if (t->right[j] && is_number(c))
					fputs(c[0] == '+' ? c + 1 : c, fp);	/* JSON has no '+' */
				else
					json_string(fp, c);
			}
			fputs("}", fp);
		}
		fputs("\n]", fp);
		return;
	}
	w = xcalloc(t->ncols, sizeof(size_t));
	for (j = 0; j < t->ncols; j++)
		w[j] = esc_width(t->head[j]);
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncols; j++)
			if (t->cells[i * t->ncols + j] &&
			    (l = esc_width(t->cells[i * t->ncols + j])) > w[j])
				w[j] = l;
	for (i = 0; i <= t->nrows; i++) {
		for (j = 0; j < t->ncols; j++) {
			c = i == 0 ? t->head[j] : t->cells[(i - 1) * t->ncols + j];
			if (c == NULL)
				c = "";
			l = esc_width(c);
			if (t->right[j])
				pad(fp, w[j] - l);
			esc_puts(c, fp);
			/* No trailing blanks. */
			if (!t->right[j] && j + 1 < t->ncols)
				pad(fp, w[j] - l);
			if (j + 1 < t->ncols)
				putc(' ', fp);
		}
		putc('\n', fp);
	}
	free(w);
}
