/*
 * dcpictl epochs (the database's epochs with their size) and gc (retention:
 * epochs, then the build-id cache entries and kernel symbol snapshots no
 * remaining epoch refers to).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/dataset.h>
#include <dcpi/db.h>
#include <dcpi/kallsyms.h>
#include <dcpi/pack.h>
#include <dcpi/profile.h>

#include "analysis.h"
#include "commands.h"
#include "conf.h"
#include "xmalloc.h"

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) == -1) {
		fprintf(stderr, "dcpictl: gc: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
fmt_duration(time_t d, char *out, size_t len)
{
	if (d < 0)
		snprintf(out, len, "-");
	else if (d >= 86400)
		snprintf(out, len, "%lldd%02lldh", (long long)d / 86400, (long long)d % 86400 / 3600);
	else
		snprintf(out, len, "%lldh%02lldm", (long long)d / 3600, (long long)d % 3600 / 60);
}

/* v[0..n) joined by commas into a cell of column col. */
static void
out_table_join(struct out_table *t, size_t col, char *const *v, size_t n)
{
	char *list;
	size_t len, j;

	for (len = 0, j = 0; j < n; j++)
		len += strlen(v[j]) + 1;
	list = xcalloc(len + 1, 1);
	for (j = 0; j < n; j++)
		strcat(strcat(list, j ? "," : ""), v[j]);
	out_table_addf(t, col, "%s", list);
	free(list);
}

/*
 * The build-id cache (db.h): which entries the profiles of the given
 * epochs refer to.  An entry is referred to by a profile's image header
 * line and, so that an unreadable profile still keeps its image, by the
 * IMAGEID its file name ends with.
 */
struct ref {
	char		*id;
	char		*profile;	/* a profile that refers to it */
};
struct refs {
	struct ref	*v;
	size_t		 n, cap;
};

static void
refs_add(struct refs *r, const char *id, const char *profile)
{
	if (id == NULL || *id == '\0')
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	r->v[r->n].id = xstrdup(id);
	r->v[r->n].profile = xstrdup(profile);
	r->n++;
}

static int
ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	return strcasecmp(x->id, y->id);
}

static const struct ref *
refs_find(const struct refs *r, const char *id)
{
	struct ref key = { (char *)id, NULL };

	return r->n ? bsearch(&key, r->v, r->n, sizeof(*r->v), ref_cmp) : NULL;
}

static void
refs_free(struct refs *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].id);
		free(r->v[i].profile);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* The profiles of an event's directory and, one level down, of its
 * label directories (dcpi(5) "Labels"). */
static void
refs_scan_dir(const char *dir, int labels, struct refs *r)
{
	char **files, path[4096];
	struct dcpi_profile *p;
	const char *dot;
	size_t nf, l;

	if (dcpi_db_list(dir, &files, &nf, NULL) == -1)
		return;
	for (l = 0; l < nf; l++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[l]);
		if (dcpi_db_isdir(path)) {
			if (labels)
				refs_scan_dir(path, 0, r);
			continue;
		}
		if ((dot = strrchr(files[l], '.')) != NULL)
			refs_add(r, dot + 1, path);
		if (dcpi_profile_read(path, &p, NULL) == 0) {
			refs_add(r, p->image, path);
			dcpi_profile_free(p);
		}
	}
	dcpi_strv_free(files, nf);
}

/* Scans DB/EPOCH/HOST/EVENT/[LABEL/]FILE of the epochs ep[0..n) not
 * marked in skip (NULL: none). */
static void
refs_scan(const char *db, char **ep, size_t n, const int *skip, struct refs *r)
{
	char **hosts, **evs, path[4096];
	size_t nh, nv, i, j, k;

	for (i = 0; i < n; i++) {
		if (skip != NULL && skip[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", db, ep[i]);
		if (dcpi_db_list(path, &hosts, &nh, NULL) == -1)
			continue;
		for (j = 0; j < nh; j++) {
			snprintf(path, sizeof(path), "%s/%s/%s", db, ep[i], hosts[j]);
			if (dcpi_db_list(path, &evs, &nv, NULL) == -1)
				continue;
			for (k = 0; k < nv; k++) {
				snprintf(path, sizeof(path), "%s/%s/%s/%s", db, ep[i], hosts[j],
				    evs[k]);
				refs_scan_dir(path, 1, r);
			}
			dcpi_strv_free(evs, nv);
		}
		dcpi_strv_free(hosts, nh);
	}
	if (r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), ref_cmp);
}

static int
is_hex(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		    (*s >= 'A' && *s <= 'F')))
			return 0;
	return 1;
}

static uint64_t du_bytes;
static size_t du_files;

static int
du_count(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F || type == FTW_SL) {
		du_bytes += type == FTW_F ? (uint64_t)st->st_size : 0;
		du_files++;
	}
	return 0;
}

/* Bytes and files under path, without following symbolic links. */
static void
du(const char *path, uint64_t *bytes, size_t *files)
{
	du_bytes = 0;
	du_files = 0;
	nftw(path, du_count, 16, FTW_PHYS);
	*bytes = du_bytes;
	*files = du_files;
}

/*
 * Removes what an interrupted gc left hidden (".gc.NAME") in dir: 1 if
 * something could not be removed (said on stderr), else 0.
 */
static int
rm_hidden(const char *dir)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, ".gc.", 4) == 0 &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    sizeof(path) && nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
			rc = 1;
	closedir(d);
	return rc;
}

/* A flush writes an entry before the profile that refers to it: entries
 * this young may be about to be referred to. */
#define CACHE_GRACE	600

/*
 * Removes path (a file or a directory tree), renamed to tmp (".gc.NAME"
 * beside it) first, so that a half-removed entry is never taken for a
 * whole one; a symbolic link is removed, never what it points to.  With
 * dry, only counts.  *bytes gets its size; 0, or -1 said on stderr.
 */
static int
gc_remove(const char *path, const char *tmp, int dry, uint64_t *bytes)
{
	size_t files;

	du(path, bytes, &files);
	if (dry)
		return 0;
	if (rename(path, tmp) == -1) {
		fprintf(stderr, "dcpictl: gc: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0 ? -1 : 0;
}

/*
 * A directory of the database whose entries gc removes when no remaining
 * epoch refers to them: the build-id cache, the kernel symbol snapshots.
 * key puts the name refs hold for an entry's file name into out[outlen],
 * or returns -1 for a name that is none of its entries (left alone, with
 * a warning).
 */
struct sweep {
	const char	*sub;		/* DB/sub */
	const char	*label;		/* "build-id cache: removed ..." */
	const char	*what;		/* "not a WHAT (expected EXPECT)" */
	const char	*expect;
	const char	*unit;		/* "N entries" */
	int		(*key)(const char *name, char *out, size_t outlen);
};

/*
 * Removes the entries of s's directory that refs does not hold (none when
 * keep_all) and says how many and how many bytes.  An entry changed in
 * the last CACHE_GRACE seconds is kept: it may be about to be referred to.
 */
static int
gc_sweep(const char *db, const struct sweep *s, const struct refs *r,
    int keep_all, int dry)
{
	char dir[4096], path[4096], tmp[4096], key[4096], **names;
	size_t nn, i, removed = 0, kept = 0;
	uint64_t bytes, freed = 0;
	struct stat st;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/%s", db, s->sub);
	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	if (!dry && rm_hidden(dir) != 0)
		rc = 1;
	if (dcpi_db_list(dir, &names, &nn, NULL) == -1) {
		fprintf(stderr, "dcpictl: gc: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < nn; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >=
		    sizeof(path) || (size_t)snprintf(tmp, sizeof(tmp), "%s/.gc.%s", dir,
		    names[i]) >= sizeof(tmp))
			continue;
		if (s->key(names[i], key, sizeof(key)) == -1) {
			fprintf(stderr, "dcpictl: gc: warning: %s: not a %s (expected %s); "
			    "left alone\n", path, s->what, s->expect);
			kept++;
			continue;
		}
		if (keep_all || refs_find(r, key) != NULL || lstat(path, &st) == -1 ||
		    st.st_mtime > time(NULL) - CACHE_GRACE) {
			kept++;
			continue;
		}
		if (gc_remove(path, tmp, dry, &bytes) == -1) {
			rc = 1;
			continue;
		}
		removed++;
		freed += bytes;
	}
	printf("%s: %s %zu %s, %llu bytes; %zu kept\n", s->label,
	    dry ? "would remove" : "removed", removed, s->unit,
	    (unsigned long long)freed, kept);
	dcpi_strv_free(names, nn);
	return rc;
}

static int
cache_key(const char *name, char *out, size_t outlen)
{
	if (!is_hex(name) || strlen(name) >= outlen)
		return -1;
	strcpy(out, name);
	return 0;
}

/* Removes the build-id cache entries that no profile of the epochs ep[i]
 * with gone[i] == 0 refers to. */
static int
gc_cache(const char *db, char **ep, size_t n, const int *gone, int dry)
{
	static const struct sweep s = { DCPI_DB_BUILDID_DIR, "build-id cache",
	    "build-id cache entry", "a hexadecimal image id", "entries", cache_key };
	struct refs r = { NULL, 0, 0 };
	int rc;

	refs_scan(db, ep, n, gone, &r);
	rc = gc_sweep(db, &s, &r, 0, dry);
	refs_free(&r);
	return rc;
}

/* "KERNELID-HASH.gz" -> "KERNELID-HASH". */
static int
kernel_key(const char *name, char *out, size_t outlen)
{
	size_t len = strlen(name);

	if (len <= 3 || len - 3 >= outlen || strcmp(name + len - 3, ".gz") != 0)
		return -1;
	memcpy(out, name, len - 3);
	out[len - 3] = '\0';
	return 0;
}

/*
 * Removes the kernel symbol snapshots (DB/kernels/NAME.gz, kallsyms.h)
 * that no kallsyms.ref of the epochs ep[i] with gone[i] == 0 names.
 * dcpid refreshes a snapshot's time when it refers a new epoch to it, so
 * the grace period keeps one about to be referred to; a reference that gc
 * raced anyway is repaired by dcpid's next flush, which writes the
 * snapshot again.
 */
static int
gc_kernels(const char *db, char **ep, size_t n, const int *gone, int dry)
{
	static const struct sweep s = { DCPI_DB_KERNELS_DIR, "kernel symbols",
	    "kernel symbols snapshot", "KERNELID-HASH.gz", "snapshots", kernel_key };
	char path[4096], **hosts, name[DCPI_KALLSYMS_NAME_MAX];
	struct refs r = { NULL, 0, 0 };
	struct dcpi_error err;
	size_t nh, i, j;
	int rc, unsure = 0;

	for (i = 0; i < n; i++) {
		if (gone[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", db, ep[i]);
		if (dcpi_db_list(path, &hosts, &nh, NULL) == -1)
			continue;
		for (j = 0; j < nh; j++) {
			snprintf(path, sizeof(path), "%s/%s/%s/%s", db, ep[i], hosts[j],
			    DCPI_KALLSYMS_REF);
			if (dcpi_kallsyms_ref_readat(AT_FDCWD, path, path, name, &err) == 0)
				refs_add(&r, name, path);
			else if (errno != ENOENT && errno != ENOTDIR) {
				/* What it names is unknown: nothing goes. */
				fprintf(stderr, "dcpictl: gc: warning: %s; keeping every "
				    "kernel symbols snapshot\n", err.msg);
				unsure = 1;
			}
		}
		dcpi_strv_free(hosts, nh);
	}
	if (r.n > 1)
		qsort(r.v, r.n, sizeof(*r.v), ref_cmp);
	rc = gc_sweep(db, &s, &r, unsure, dry);
	refs_free(&r);
	return rc;
}

/* The text's head of epochs --cache: the cache's totals. */
struct cache_head {
	const char	*dir;
	size_t		 entries, files;
	uint64_t	 bytes;
};

static void
cache_head(FILE *fp, const void *arg)
{
	const struct cache_head *h = arg;

	fprintf(fp, "build-id cache %s: %zu entries, %zu files, %llu bytes\n", h->dir,
	    h->entries, h->files, (unsigned long long)h->bytes);
}

/* dcpictl epochs --cache: the build-id cache's entries. */
static int
list_cache(const char *db, const struct output *out)
{
	static const char *const head[] = { "image", "files", "bytes", "profile" };
	static const int right[] = { 0, 1, 1, 0 };
	char dir[4096], path[4096], **names, **ep;
	struct refs r = { NULL, 0, 0 };
	const struct ref *ref;
	struct dcpi_error err;
	struct out_table t;
	struct cache_head h;
	size_t nn, n, i, files, total_files = 0;
	uint64_t bytes, total = 0;

	if (dcpi_db_epochs(db, &ep, &n, &err) == -1) {
		fprintf(stderr, "dcpictl: epochs: %s\n", err.msg);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/%s", db, DCPI_DB_BUILDID_DIR);
	if (dcpi_db_list(dir, &names, &nn, NULL) == -1) {
		names = NULL;
		nn = 0;
	}
	refs_scan(db, ep, n, NULL, &r);
	out_table_init(&t, 4, head, right);
	for (i = 0; i < nn; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >=
		    sizeof(path))
			continue;
		du(path, &bytes, &files);
		ref = is_hex(names[i]) ? refs_find(&r, names[i]) : NULL;
		out_table_addf(&t, 0, "%s", names[i]);
		out_table_addf(&t, 1, "%zu", files);
		out_table_addf(&t, 2, "%llu", (unsigned long long)bytes);
		out_table_addf(&t, 3, "%s", ref ? ref->profile + strlen(db) + 1 : "-");
		total += bytes;
		total_files += files;
	}
	h.dir = dir;
	h.entries = nn;
	h.files = total_files;
	h.bytes = total;
	out->report(&(struct out_report){ .rows = &t, .text_head = cache_head, .arg = &h,
	    .text_hide_empty = 1 }, stdout);
	out_table_free(&t);
	refs_free(&r);
	dcpi_strv_free(names, nn);
	dcpi_strv_free(ep, n);
	return fflush(stdout) == 0 ? 0 : 1;
}

#define EPOCHS_USAGE	"usage: dcpictl epochs [--cache | --label GLOB...] [--csv | --json]\n"

int
cmd_epochs(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cache",	no_argument,		NULL, 'C' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const head[] = { "epoch", "current", "start", "duration", "hosts",
	    "events", "samples", "bytes" };
	static const int right[] = { 0, 0, 0, 1, 0, 0, 1, 1 };
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;
	struct selection s;
	struct out_table t;
	char **ep, cur[DCPI_EPOCH_LEN + 1], path[4096], buf[64], **names;
	const char *one[1];
	size_t n, i, j, files;
	time_t start, next;
	uint64_t samples, bytes;
	int ch, has_cur, cache = 0;

	memset(&s, 0, sizeof(s));
	while ((ch = sel_getopt(argc, argv, "h", opts, SEL_LABEL | SEL_FORMAT, &s,
	    "epochs")) != -1) {
		switch (ch) {
		case SEL_BAD: return 2;
		case 'C': cache = 1; break;
		default: return cmd_usage(ch == 'h', EPOCHS_USAGE);
		}
	}
	if (optind != argc)
		return cmd_usage(0, EPOCHS_USAGE);
	if (cache && s.n_labels > 0) {
		fprintf(stderr, "dcpictl: epochs: --cache lists the build-id cache, "
		    "which has no labels: no --label with it\n");
		return 2;
	}
	if (cache)
		return list_cache(g->db, s.out);
	if (dcpi_db_epochs(g->db, &ep, &n, &err) == -1) {
		fprintf(stderr, "dcpictl: epochs: %s\n", err.msg);
		return 1;
	}
	has_cur = dcpi_db_current(g->db, cur, NULL) == 0;
	out_table_init(&t, 8, head, right);
	for (i = 0; i < n; i++) {
		memset(&f, 0, sizeof(f));
		one[0] = ep[i];
		f.epochs = one;
		f.n_epochs = 1;
		f.idle = 1;	/* an epoch's samples are all of them */
		f.labels = s.labels;
		f.n_labels = s.n_labels;
		if (dcpi_dataset_load(g->db, &f, &d, &err) == -1) {
			fprintf(stderr, "dcpictl: epochs: %s\n", err.msg);
			continue;
		}
		/* With --label: the epochs that hold those labels, their
		 * hosts, events and samples only (bytes stay the epoch's). */
		if (s.n_labels > 0 && d->n_images == 0) {
			dcpi_dataset_free(d);
			continue;
		}
		for (j = 0; j < d->n_skipped; j++)
			fprintf(stderr, "dcpictl: warning: skipped %s\n", d->skipped[j]);
		out_table_addf(&t, 0, "%s", ep[i]);
		out_table_addf(&t, 1, "%s", has_cur && strcmp(cur, ep[i]) == 0 ? "yes" : "");
		dcpi_epoch_parse(ep[i], &start);
		out_table_addf(&t, 2, "%s", fmt_time(buf, start));
		/* An epoch lasts until the next one starts; the newest until now. */
		if (i + 1 < n && dcpi_epoch_parse(ep[i + 1], &next) == 0)
			fmt_duration(next - start, buf, sizeof(buf));
		else
			fmt_duration(time(NULL) - start, buf, sizeof(buf));
		out_table_addf(&t, 3, "%s", buf);
		out_table_join(&t, 4, d->hosts, d->n_hosts);
		names = xcalloc(d->n_events + 1, sizeof(*names));
		for (samples = 0, j = 0; j < d->n_events; j++) {
			names[j] = d->events[j].name;
			samples += d->events[j].samples;
		}
		out_table_join(&t, 5, names, d->n_events);
		free(names);
		out_table_addf(&t, 6, "%llu", (unsigned long long)samples);
		snprintf(path, sizeof(path), "%s/%s", g->db, ep[i]);
		du(path, &bytes, &files);
		out_table_addf(&t, 7, "%llu", (unsigned long long)bytes);
		dcpi_dataset_free(d);
	}
	s.out->report(&(struct out_report){ .rows = &t }, stdout);
	out_table_free(&t);
	dcpi_strv_free(ep, n);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int
parse_count(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return *s == '\0' || *end != '\0' || *out < 0 ? -1 : 0;
}

#define GC_USAGE							\
	"usage: dcpictl gc [--keep-days N] [--keep-min M] [--dry-run] [--config FILE]\n" \
	"deletes the epochs that ended more than N days ago, always keeping\n"	\
	"the M newest and the current one; N and M default to keep-days and\n"	\
	"keep-min of dcpid.conf (" CONF_DEFAULT_PATH "), else 7 and 3\n"

int
cmd_gc(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keep-days",	required_argument,	NULL, 'k' },
		{ "keep-min",	required_argument,	NULL, 'm' },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "config",	required_argument,	NULL, 'c' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct dcpi_error err;
	char **ep, cur[DCPI_EPOCH_LEN + 1], path[4096], tmp[4096];
	long days = -1, keep = -1;
	const char *conf = NULL;
	struct conf c;
	char cerr[1024];
	size_t n, i;
	time_t end, cutoff;
	int ch, has_cur, dry = 0, rc = 0, *gone;

	while ((ch = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			if (parse_count(optarg, &days) == -1)
				return cmd_usage(0, GC_USAGE);
			break;
		case 'm':
			if (parse_count(optarg, &keep) == -1)
				return cmd_usage(0, GC_USAGE);
			break;
		case 'n': dry = 1; break;
		case 'c': conf = optarg; break;
		default: return cmd_usage(ch == 'h', GC_USAGE);
		}
	}
	if (optind != argc)
		return cmd_usage(0, GC_USAGE);
	/* The retention is dcpid's setting: the same file, the same parser. */
	if (days < 0 || keep < 0) {
		conf_defaults(&c);
		if (conf_load(&c, conf ? conf : CONF_DEFAULT_PATH, conf == NULL,
		    cerr, sizeof(cerr)) == -1) {
			fprintf(stderr, "dcpictl: gc: %s\n", cerr);
			conf_free(&c);
			return 1;
		}
		if (days < 0)
			days = c.keep_days;
		if (keep < 0)
			keep = c.keep_min;
		conf_free(&c);
	}
	if (dcpi_db_epochs(g->db, &ep, &n, &err) == -1) {
		fprintf(stderr, "dcpictl: gc: %s\n", err.msg);
		return 1;
	}
	has_cur = dcpi_db_current(g->db, cur, NULL) == 0;
	if (!dry && rm_hidden(g->db) != 0)
		rc = 1;
	cutoff = time(NULL) - (time_t)days * 86400;
	gone = xcalloc(n + 1, sizeof(int));
	for (i = 0; i + (size_t)keep < n; i++) {
		if (has_cur && strcmp(cur, ep[i]) == 0)
			continue;
		/* An epoch ends when the next one starts. */
		if (i + 1 == n || dcpi_epoch_parse(ep[i + 1], &end) == -1 || end > cutoff)
			continue;
		snprintf(path, sizeof(path), "%s/%s", g->db, ep[i]);
		printf("%s %s\n", dry ? "would delete" : "deleted", ep[i]);
		if (dry) {
			gone[i] = 1;
			continue;
		}
		/* Hidden first, so that a crash never leaves half an epoch
		 * that looks whole to the analysis commands. */
		snprintf(tmp, sizeof(tmp), "%s/.gc.%s", g->db, ep[i]);
		if (rename(path, tmp) == -1) {
			fprintf(stderr, "dcpictl: gc: %s: %s\n", path, strerror(errno));
			rc = 1;
			continue;
		}
		gone[i] = 1;
		if (nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
			rc = 1;
	}
	/* An epoch not deleted still refers to its images' entries. */
	if (gc_cache(g->db, ep, n, gone, dry) != 0)
		rc = 1;
	/* And to its kernel's symbols. */
	if (gc_kernels(g->db, ep, n, gone, dry) != 0)
		rc = 1;
	free(gone);
	dcpi_strv_free(ep, n);
	return fflush(stdout) == 0 ? rc : 1;
}

#define COMPRESS_USAGE							\
	"usage: dcpictl compress [EPOCH...]\n"				\
	"packs each host directory of the epochs (default: every epoch but\n"	\
	"the current one) into one gzip file, HOST/" DCPI_PACK_FILE "\n"

int
cmd_compress(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char **ep = NULL, cur[DCPI_EPOCH_LEN + 1];
	struct dcpi_compress_stats st;
	struct dcpi_error err;
	size_t n = 0, i;
	int ch, rc = 0, all;

	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return cmd_usage(ch == 'h', COMPRESS_USAGE);
	all = optind == argc;
	if (all) {
		if (dcpi_db_epochs(g->db, &ep, &n, &err) == -1) {
			fprintf(stderr, "dcpictl: compress: %s\n", err.msg);
			return 1;
		}
	}
	/* Without names, the current epoch is left out, not an error. */
	if (!all || dcpi_db_current(g->db, cur, NULL) == -1)
		cur[0] = '\0';
	for (i = 0; i < (all ? n : (size_t)(argc - optind)); i++) {
		const char *e = all ? ep[i] : argv[optind + i];

		if (strcmp(e, cur) == 0)
			continue;
		memset(&st, 0, sizeof(st));
		if (dcpi_db_compress(g->db, e, &st, &err) == -1) {
			fprintf(stderr, "dcpictl: compress: %s\n", err.msg);
			rc = 1;
		}
		if (st.hosts > 0)
			printf("%s: %zu files of %zu host%s, %llu bytes into %llu\n", e,
			    st.files, st.hosts, st.hosts == 1 ? "" : "s", st.bytes_in,
			    st.bytes_out);
	}
	if (all)
		dcpi_strv_free(ep, n);
	return rc;
}
