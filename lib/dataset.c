/*
 * The analysis dataset: lib/dcpi/dataset.h.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <dcpi/dataset.h>
#include <dcpi/db.h>
#include <dcpi/pack.h>
#include <dcpi/image.h>
#include <dcpi/label.h>

#include "internal.h"

struct loaded {
	size_t		 event;
	struct dcpi_profile *prof;
	char		*kallsyms;
	size_t		 seq;		/* load order: epochs oldest first */
};

struct strset {
	char		**v;
	size_t		 n, cap;
};


/* Index of s in the set, added if absent; -1/ENOMEM. */
static ssize_t
strset_add(struct strset *set, const char *s)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->v[i], s) == 0)
			return (ssize_t)i;
	if (lib_grow((void **)&set->v, &set->cap, set->n, sizeof(char *)) == -1 ||
	    (set->v[set->n] = strdup(s)) == NULL)
		return -1;
	return (ssize_t)set->n++;
}

static int
strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Event and label directories are the database's own, never links: one
 * pointing at /proc or /dev would have every file there read as a
 * profile. */
static int
is_real_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return S_ISDIR(st.st_mode);
	/* Not on disk: a directory of a packed epoch's (pack.h)? */
	return errno == ENOENT && dcpi_db_isdir(path);
}

static int
selected(const char *const *v, size_t n, const char *s)
{
	size_t i;

	if (v == NULL || n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static int
image_matches(const struct dcpi_profile *p, const char *want)
{
	const char *base;
	size_t l;

	if (want == NULL)
		return 1;
	if (p->image && strcasecmp(p->image, want) == 0)
		return 1;
	if (p->path == NULL)
		return strcmp(want, "unknown") == 0;
	if (strcmp(p->path, want) == 0)
		return 1;
	base = strrchr(p->path, '/') ? strrchr(p->path, '/') + 1 : p->path;
	if (strcmp(base, want) == 0)
		return 1;
	/* "kernel.kallsyms" names "[kernel.kallsyms]". */
	l = strlen(want);
	return base[0] == '[' && strncmp(base + 1, want, l) == 0 && base[l + 1] == ']' &&
	    base[l + 2] == '\0';
}

/* "[word]" of lower-case letters: a bracketed label's exact name. */
static int
is_own_name(const char *s)
{
	size_t l = strlen(s), i;

	if (l < 3 || s[0] != '[' || s[l - 1] != ']')
		return 0;
	for (i = 1; i + 1 < l; i++)
		if (s[i] < 'a' || s[i] > 'z')
			return 0;
	return 1;
}

int
dcpi_dataset_label_match(const char *pattern, const char *label)
{
	if (label == NULL)
		label = DCPI_LABEL_NONE;
	if (strcmp(pattern, label) == 0)
		return 1;
	return !is_own_name(pattern) && fnmatch(pattern, label, 0) == 0;
}

/* 1 if the filter's label patterns select label (NULL: unlabelled);
 * *exact is set when one names it exactly. */
static int
label_selected(const struct dcpi_dataset_filter *f, const char *label, int *exact)
{
	size_t i;
	int hit = 0;

	*exact = 0;
	if (f == NULL || f->n_labels == 0)
		return 1;
	for (i = 0; i < f->n_labels; i++) {
		if (!dcpi_dataset_label_match(f->labels[i], label))
			continue;
		hit = 1;
		if (strcmp(f->labels[i], label ? label : DCPI_LABEL_NONE) == 0)
			*exact = 1;
	}
	return hit;
}

/* The epochs the filter selects; ENOENT naming a missing one. */
static int
pick_epochs(const char *db, const struct dcpi_dataset_filter *f, char ***names,
    size_t *n, struct dcpi_error *err)
{
	char path[4096];
	size_t i;

	if (!is_dir(db)) {
		lib_seterr(err, ENOENT, "%s: no such database", db);
		return -1;
	}
	if (f == NULL || f->n_epochs == 0)
		return dcpi_db_epochs(db, names, n, err);
	if ((*names = calloc(f->n_epochs, sizeof(char *))) == NULL)
		goto nomem;
	for (i = 0; i < f->n_epochs; i++) {
		snprintf(path, sizeof(path), "%s/%s", db, f->epochs[i]);
		if (!is_dir(path)) {
			dcpi_strv_free(*names, i);
			lib_seterr(err, ENOENT, "%s: no such epoch", path);
			return -1;
		}
		if (((*names)[i] = strdup(f->epochs[i])) == NULL) {
			dcpi_strv_free(*names, i);
			goto nomem;
		}
	}
	*n = f->n_epochs;
	return 0;
nomem:
	lib_seterr(err, ENOMEM, "%s: out of memory", db);
	return -1;
}

/* Calls fn for every event directory of the selected epochs and hosts. */
typedef int (*event_fn)(void *arg, const char *epoch, const char *host,
    const char *event, const char *dir);

static int
walk(const char *db, const struct dcpi_dataset_filter *f, event_fn fn, void *arg,
    struct dcpi_error *err)
{
	char **epochs = NULL, **hosts, **evs, path[4096], dir[4096], ev[1024];
	size_t ne = 0, nh, nv, i, j, k;
	int rc = 0;

	if (pick_epochs(db, f, &epochs, &ne, err) == -1)
		return -1;
	for (i = 0; i < ne && rc == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", db, epochs[i]);
		if (dcpi_db_list(path, &hosts, &nh, NULL) == -1)
			continue;
		for (j = 0; j < nh && rc == 0; j++) {
			if (f && f->host && strcmp(f->host, hosts[j]) != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", db, epochs[i], hosts[j]);
			if (!is_dir(path) || dcpi_db_list(path, &evs, &nv, NULL) == -1)
				continue;
			for (k = 0; k < nv && rc == 0; k++) {
				if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", path, evs[k]) >=
				    sizeof(dir) || !is_real_dir(dir) ||
				    dcpi_db_event_from_dirname(evs[k], ev, sizeof(ev)) == -1)
					continue;
				rc = fn(arg, epochs[i], hosts[j], ev, dir);
			}
			dcpi_strv_free(evs, nv);
		}
		dcpi_strv_free(hosts, nh);
	}
	dcpi_strv_free(epochs, ne);
	if (rc == -1)
		lib_seterr(err, errno, "%s: %s", db, strerror(errno));
	return rc;
}

struct loadctx {
	const char	*db;
	const struct dcpi_dataset_filter *f;
	struct strset	 events, epochs, hosts, skipped;
	struct strset	 labels;	/* present, matched or not */
	struct loaded	*l;
	size_t		 n, cap;
	uint64_t	*idle;		/* by index into events */
	size_t		 cap_idle;
	char		*last;		/* "EPOCH/HOST" whose unattributed file is read */
	struct dcpi_unattr unattr;
};

static int
skip(struct loadctx *c, const char *msg)
{
	if (lib_grow((void **)&c->skipped.v, &c->skipped.cap, c->skipped.n,
	    sizeof(char *)) == -1 || (c->skipped.v[c->skipped.n] = strdup(msg)) == NULL)
		return -1;
	c->skipped.n++;
	return 0;
}

/* The unattributed file of a host's epoch, once, when its first event
 * directory is read: only the selected events' lines count. */
static int
load_unattr(struct loadctx *c, const char *epoch, const char *host)
{
	struct dcpi_unattr u = { NULL, 0, 0 };
	struct dcpi_error e;
	char *key, *path;
	size_t i;

	/* They belong to no label. */
	if (c->f != NULL && c->f->n_labels > 0)
		return 0;
	if (asprintf(&key, "%s/%s", epoch, host) == -1)
		return -1;
	if (c->last != NULL && strcmp(c->last, key) == 0) {
		free(key);
		return 0;
	}
	free(c->last);
	c->last = key;
	if ((path = dcpi_db_unattr_path(c->db, epoch, host)) == NULL)
		return -1;
	if (dcpi_unattr_read(path, &u, &e) == -1) {
		free(path);
		if (errno == ENOMEM)
			return -1;
		return errno == ENOENT ? 0 : skip(c, e.msg);
	}
	free(path);
	for (i = 0; i < u.n; i++)
		if ((c->f == NULL || selected(c->f->events, c->f->n_events, u.v[i].event)) &&
		    dcpi_unattr_add(&c->unattr, u.v[i].event, u.v[i].reason,
		    u.v[i].samples) == -1) {
			dcpi_unattr_clear(&u);
			return -1;
		}
	dcpi_unattr_clear(&u);
	return 0;
}

/* Loads the profiles in dir, whose label is label (NULL: unlabelled);
 * label directories below an unlabelled one are loaded too. */
static int
load_dir(struct loadctx *c, const char *epoch, const char *host, size_t ev,
    const char *dir, const char *label, int *used)
{
	struct dcpi_profile *p;
	struct dcpi_error e;
	char **files, path[4096], lab[1024], msg[sizeof(e.msg)];
	const char *pl;
	size_t nf, i, k;
	int idle = label != NULL && strcmp(label, DCPI_LABEL_IDLE) == 0;
	int want, exact, seen = label != NULL;

	/* A label directory that no pattern selects is not read; the
	 * unlabelled files' directory is, for the label directories in it. */
	want = label_selected(c->f, label, &exact);
	if (label != NULL && !want)
		return 0;
	/* The idle task's profiles are loaded when asked for by --idle or by
	 * name, else only counted. */
	if (idle && exact)
		idle = 0;
	if (dcpi_db_list(dir, &files, &nf, NULL) == -1)
		return 0;
	for (i = 0; i < nf; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, files[i]) >= sizeof(path))
			continue;
		if (label == NULL && is_real_dir(path)) {
			if (dcpi_label_from_dirname(files[i], lab, sizeof(lab)) == -1) {
				snprintf(msg, sizeof(msg), "%.400s: not a label directory "
				    "(bad %% escape)", path);
				if (skip(c, msg) == -1)
					goto fail;
				continue;
			}
			if (strset_add(&c->labels, lab) == -1 ||
			    load_dir(c, epoch, host, ev, path, lab, used) == -1)
				goto fail;
			continue;
		}
		if (!seen) {
			if (strset_add(&c->labels, DCPI_LABEL_NONE) == -1)
				goto fail;
			seen = 1;
		}
		if (!want)
			continue;
		if (dcpi_profile_read(path, &p, &e) == -1) {
			if (errno == ENOMEM || skip(c, e.msg) == -1)
				goto fail;
			continue;
		}
		pl = dcpi_profile_label(p);
		if (label == NULL ? pl != NULL : pl == NULL || strcmp(pl, label) != 0) {
			snprintf(msg, sizeof(msg), "%.300s: label line '%.80s' is not its "
			    "directory's ('%.80s')", path, pl ? pl : "(none)",
			    label ? label : "(none)");
			dcpi_profile_free(p);
			if (skip(c, msg) == -1)
				goto fail;
			continue;
		}
		if (!image_matches(p, c->f ? c->f->image : NULL)) {
			dcpi_profile_free(p);
			continue;
		}
		if (idle && (c->f == NULL || !c->f->idle)) {
			/* Left out, but its share is shown. */
			for (k = 0; k < p->n_counts; k++)
				c->idle[ev] += p->counts[k].count;
			dcpi_profile_free(p);
			*used = 1;
			continue;
		}
		if (lib_grow((void **)&c->l, &c->cap, c->n, sizeof(*c->l)) == -1 ||
		    asprintf(&c->l[c->n].kallsyms, "%s/%s/%s/kallsyms", c->db, epoch, host) == -1) {
			dcpi_profile_free(p);
			goto fail;
		}
		c->l[c->n].event = ev;
		c->l[c->n].seq = c->n;
		c->l[c->n].prof = p;
		c->n++;
		*used = 1;
	}
	dcpi_strv_free(files, nf);
	return 0;
fail:
	dcpi_strv_free(files, nf);
	errno = ENOMEM;
	return -1;
}

static int
load_event(void *arg, const char *epoch, const char *host, const char *event,
    const char *dir)
{
	struct loadctx *c = arg;
	size_t had = c->events.n;
	ssize_t ev;
	int used = 0;

	if (c->f && !selected(c->f->events, c->f->n_events, event))
		return 0;
	if ((ev = strset_add(&c->events, event)) == -1 ||
	    lib_grow((void **)&c->idle, &c->cap_idle, (size_t)ev, sizeof(*c->idle)) == -1)
		goto fail;
	if (c->events.n > had)
		c->idle[ev] = 0;
	if (load_unattr(c, epoch, host) == -1 ||
	    load_dir(c, epoch, host, (size_t)ev, dir, NULL, &used) == -1)
		goto fail;
	if (used && (strset_add(&c->epochs, epoch) == -1 || strset_add(&c->hosts, host) == -1))
		return -1;
	return 0;
fail:
	errno = ENOMEM;
	return -1;
}

static int
loaded_cmp(const void *a, const void *b)
{
	const struct loaded *x = a, *y = b;
	const struct dcpi_profile *p = x->prof, *q = y->prof;
	int c;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if ((c = strcmp(p->image ? p->image : "", q->image ? q->image : "")) != 0)
		return c;
	if (p->tstart != q->tstart)
		return p->tstart < q->tstart ? -1 : 1;
	if (p->tsize != q->tsize)
		return p->tsize < q->tsize ? -1 : 1;
	if (p->period != q->period)
		return p->period < q->period ? -1 : 1;
	return strcmp(dcpi_profile_label(p) ? dcpi_profile_label(p) : "",
	    dcpi_profile_label(q) ? dcpi_profile_label(q) : "");
}

/* Equal keys in load order, so that "the first path" is the oldest
 * epoch's. */
static int
loaded_sort_cmp(const void *a, const void *b)
{
	const struct loaded *x = a, *y = b;
	int c;

	if ((c = loaded_cmp(a, b)) != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The distinct paths of the run l[0..n) into im->paths.  With more than
 * one (a chroot's /lib/x86_64-linux-gnu/libc.so.6 and the host's
 * /usr/lib/x86_64-linux-gnu/libc.so.6, a program replaced between
 * epochs), the first that holds the image now (image.h: same build-id or
 * content hash) goes first and becomes the merged profile's path, which
 * is the image's name in listings.
 */
static int
collect_paths(struct dcpi_dataset_image *im, const struct loaded *l, size_t n)
{
	struct dcpi_elf_image ei;
	const char *id = im->prof->image;
	char *tmp;
	size_t i, k, cap = 0;
	int same;

	for (i = 0; i < n; i++) {
		if (l[i].prof->path == NULL)
			continue;
		for (k = 0; k < im->n_paths; k++)
			if (strcmp(im->paths[k], l[i].prof->path) == 0)
				break;
		if (k < im->n_paths)
			continue;
		if (lib_grow((void **)&im->paths, &cap, im->n_paths, sizeof(char *)) == -1 ||
		    (im->paths[im->n_paths] = strdup(l[i].prof->path)) == NULL)
			return -1;
		im->n_paths++;
	}
	if (im->n_paths < 2 || id == NULL)
		return 0;
	for (k = 0; k < im->n_paths; k++) {
		if (im->paths[k][0] != '/' || dcpi_elf_image_path(im->paths[k], 0, &ei,
		    NULL) == -1)
			continue;
		same = strcasecmp(ei.id, id) == 0;
		dcpi_elf_image_clear(&ei);
		if (same)
			break;
	}
	if (k == 0 || k == im->n_paths)
		return 0;
	tmp = im->paths[k];
	memmove(&im->paths[1], &im->paths[0], k * sizeof(char *));
	im->paths[0] = tmp;
	if ((tmp = strdup(im->paths[0])) == NULL)
		return -1;
	free(im->prof->path);
	im->prof->path = tmp;
	return 0;
}

static void
free_strset(struct strset *s)
{
	dcpi_strv_free(s->v, s->n);
}

int
dcpi_dataset_load(const char *db, const struct dcpi_dataset_filter *f,
    struct dcpi_dataset **out, struct dcpi_error *err)
{
	struct loadctx c;
	struct dcpi_dataset *d = NULL;
	struct dcpi_dataset_image *im;
	struct dcpi_dataset_event *de;
	struct dcpi_error e;
	size_t i, j, k, *remap = NULL;

	memset(&c, 0, sizeof(c));
	c.db = db;
	c.f = f;
	if (walk(db, f, load_event, &c, err) == -1)
		goto fail;
	if ((d = calloc(1, sizeof(*d))) == NULL ||
	    (d->events = calloc(c.events.n + 1, sizeof(*d->events))) == NULL ||
	    (d->images = calloc(c.n + 1, sizeof(*d->images))) == NULL ||
	    (remap = calloc(c.events.n + 1, sizeof(*remap))) == NULL)
		goto nomem;
	/* Events sorted by name; loaded entries renumbered to match. */
	for (i = 0; i < c.events.n; i++)
		d->events[i].name = c.events.v[i];
	qsort(d->events, c.events.n, sizeof(*d->events), strp_cmp);
	for (i = 0; i < c.events.n; i++)
		for (j = 0; j < c.events.n; j++)
			if (d->events[j].name == c.events.v[i])
				remap[i] = j;
	for (i = 0; i < c.n; i++)
		c.l[i].event = remap[c.l[i].event];
	if (c.n > 1)
		qsort(c.l, c.n, sizeof(*c.l), loaded_sort_cmp);
	d->n_events = c.events.n;
	free(c.events.v);
	c.events.v = NULL;
	c.events.n = 0;
	/* Merge runs of equal keys into the run's first profile. */
	for (i = 0; i < c.n; i = j) {
		for (j = i + 1; j < c.n && loaded_cmp(&c.l[i], &c.l[j]) == 0; j++)
			if (dcpi_profile_merge(c.l[i].prof, c.l[j].prof, &e) == -1) {
				/* E.g. an event line that is not its directory's:
				 * that file is skipped like a corrupt one. */
				if (errno == ENOMEM ||
				    lib_grow((void **)&c.skipped.v, &c.skipped.cap, c.skipped.n,
				    sizeof(char *)) == -1 ||
				    (c.skipped.v[c.skipped.n] = strdup(e.msg)) == NULL)
					goto nomem;
				c.skipped.n++;
			}
		im = &d->images[d->n_images++];
		im->event = c.l[i].event;
		im->prof = c.l[i].prof;
		im->label = dcpi_profile_label(im->prof);
		im->kallsyms = c.l[i].kallsyms;
		c.l[i].kallsyms = NULL;
		if (collect_paths(im, &c.l[i], j - i) == -1) {
			c.l[i].prof = NULL;
			goto nomem;
		}
		c.l[i].prof = NULL;
		for (k = 0; k < im->prof->n_counts; k++)
			im->samples += im->prof->counts[k].count;
		de = &d->events[im->event];
		if (de->period == 0)
			de->period = im->prof->period;
		else if (de->period != im->prof->period)
			de->mixed_period = 1;
		de->samples += im->samples;
		if (im->label != NULL && strcmp(im->label, DCPI_LABEL_IDLE) == 0)
			de->idle += im->samples;
	}
	for (i = 0; i < d->n_events; i++)
		d->events[remap[i]].idle += c.idle[i];
	for (i = 0; i < c.unattr.n; i++)
		for (j = 0; j < d->n_events; j++)
			if (strcmp(c.unattr.v[i].event, d->events[j].name) == 0)
				d->events[j].unattributed += c.unattr.v[i].samples;
	d->unattr = c.unattr;
	memset(&c.unattr, 0, sizeof(c.unattr));
	/* The image order of the contract: event index order. */
	if (c.epochs.n > 1)
		qsort(c.epochs.v, c.epochs.n, sizeof(char *), strp_cmp);
	if (c.hosts.n > 1)
		qsort(c.hosts.v, c.hosts.n, sizeof(char *), strp_cmp);
	d->epochs = c.epochs.v;
	d->n_epochs = c.epochs.n;
	d->hosts = c.hosts.v;
	d->n_hosts = c.hosts.n;
	d->skipped = c.skipped.v;
	d->n_skipped = c.skipped.n;
	if (c.labels.n > 1)
		qsort(c.labels.v, c.labels.n, sizeof(char *), strp_cmp);
	d->labels = c.labels.v;
	d->n_labels = c.labels.n;
	for (i = 0; i < c.n; i++) {
		dcpi_profile_free(c.l[i].prof);
		free(c.l[i].kallsyms);
	}
	free(c.l);
	free(c.idle);
	free(c.last);
	free(remap);
	*out = d;
	return 0;
nomem:
	lib_seterr(err, ENOMEM, "%s: out of memory", db);
fail:
	free(remap);
	free(c.idle);
	free(c.last);
	dcpi_unattr_clear(&c.unattr);
	for (i = 0; i < c.n; i++) {
		dcpi_profile_free(c.l[i].prof);
		free(c.l[i].kallsyms);
	}
	free(c.l);
	free_strset(&c.events);
	free_strset(&c.epochs);
	free_strset(&c.hosts);
	free_strset(&c.skipped);
	free_strset(&c.labels);
	if (d != NULL) {
		d->n_epochs = d->n_hosts = d->n_skipped = d->n_labels = 0;
		dcpi_dataset_free(d);
	}
	return -1;
}

void
dcpi_dataset_free(struct dcpi_dataset *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->n_images; i++) {
		dcpi_profile_free(d->images[i].prof);
		free(d->images[i].kallsyms);
		dcpi_strv_free(d->images[i].paths, d->images[i].n_paths);
	}
	free(d->images);
	for (i = 0; i < d->n_events; i++)
		free(d->events[i].name);
	free(d->events);
	dcpi_strv_free(d->epochs, d->n_epochs);
	dcpi_strv_free(d->hosts, d->n_hosts);
	dcpi_strv_free(d->skipped, d->n_skipped);
	dcpi_strv_free(d->labels, d->n_labels);
	dcpi_unattr_clear(&d->unattr);
	free(d);
}

static int
add_event(void *arg, const char *epoch, const char *host, const char *event,
    const char *dir)
{
	return strset_add(arg, event) == -1 ? -1 : 0;
}

int
dcpi_dataset_events(const char *db, const struct dcpi_dataset_filter *f,
    char ***names, size_t *n, struct dcpi_error *err)
{
	struct strset s = { NULL, 0, 0 };

	if (walk(db, f, add_event, &s, err) == -1) {
		free_strset(&s);
		return -1;
	}
	if (s.n > 0)
		qsort(s.v, s.n, sizeof(char *), strp_cmp);
	*names = s.v;
	*n = s.n;
	return 0;
}
