/*
 * dcpictl export, import, and cat of other tools' formats: pprof
 * (gperftools), gmon.out (gprof), Callgrind and xprof_text (lib/dcpi/export.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/export.h>
#include <dcpi/profile.h>

#include "analysis.h"
#include "commands.h"

/* ---- export ---- */

struct resolver {
	const struct dcpi_dataset *d;
	struct symcache *c;
	const size_t *sel;		/* dataset image indexes being exported */
	size_t n, last;
};

static int
resolve(void *arg, const struct dcpi_profile *p, uint32_t offset, struct dcpi_export_loc *loc)
{
	struct resolver *r = arg;
	const struct dcpi_dataset_image *im = NULL;
	const struct dcpi_symbol *s;
	struct dcpi_symtab *t;
	const char *file;
	int stale = 0, line;
	size_t i;

	/* Offsets come image by image: try the last image first. */
	if (r->last < r->n && r->d->images[r->sel[r->last]].prof == p)
		im = &r->d->images[r->sel[r->last]];
	for (i = 0; im == NULL && i < r->n; i++)
		if (r->d->images[r->sel[i]].prof == p) {
			im = &r->d->images[r->sel[i]];
			r->last = i;
		}
	if (im == NULL || (t = symcache_get(r->c, im, &stale)) == NULL || stale ||
	    (s = dcpi_symtab_lookup(t, offset)) == NULL)
		return -1;
	loc->proc = s->name;
	loc->proc_offset = s->start;
	loc->file = NULL;
	loc->line = 0;
	if (dcpi_symtab_srcline(t, offset, &file, &line) == 0 && line > 0) {
		loc->file = file;
		loc->line = (unsigned)line;
	}
	return 0;
}

static int
write_out(const char *path, const void *buf, size_t len)
{
	struct dcpi_error err;

	if (strcmp(path, "-") == 0) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, "dcpictl: export: standard output: %s\n", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (dcpi_atomic_write(path, buf, len, 0644, &err) == -1) {
		fprintf(stderr, "dcpictl: export: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static void
export_usage(FILE *fp)
{
	fprintf(fp, "usage: dcpictl export --format=pprof|gmon|callgrind|xprof [-e EVENT]\n"
	    "                      [--epoch E | --all | --since TIME] [--host H] [--image NAME] -o FILE\n"
	    "gmon writes one file per image: FILE itself for one image, else FILE.NAME.IMAGEID\n");
}

int
cmd_export(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		SEL_LONGOPTS,
		{ "format",	required_argument,	NULL, 'f' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *format = NULL, *output = NULL;
	const struct dcpi_profile **profs = NULL;
	struct dcpi_dataset *d;
	struct resolver r = { 0 };
	struct dcpi_error err;
	size_t *sel = NULL, n = 0, i;
	uint64_t *toff = NULL;
	void *buf = NULL;
	size_t len;
	struct selection s;
	int ch, rc = 1, x;

	memset(&s, 0, sizeof(s));
	while ((ch = getopt_long(argc, argv, "e:f:o:h", opts, NULL)) != -1) {
		if ((x = sel_option(&s, ch, optarg, "export")) == 1)
			continue;
		if (x == -1)
			return 2;
		switch (ch) {
		case 'f': format = optarg; break;
		case 'o': output = optarg; break;
		case 'h': export_usage(stdout); return 0;
		default: export_usage(stderr); return 2;
		}
	}
	if (optind != argc || format == NULL || output == NULL) {
		export_usage(stderr);
		return 2;
	}
	if (strcmp(format, "pprof") != 0 && strcmp(format, "gmon") != 0 &&
	    strcmp(format, "callgrind") != 0 && strcmp(format, "xprof") != 0) {
		fprintf(stderr, "dcpictl: export: unknown format '%s' (expected pprof, gmon, "
		    "callgrind or xprof)\n", format);
		return 2;
	}
	if ((d = sel_load(g->db, &s, "export")) == NULL)
		return 1;
	if (d->n_images == 0) {
		fprintf(stderr, "dcpictl: export: no samples in the selected epochs\n");
		goto out;
	}
	/* Callgrind has a column per event; the others hold one event. */
	if (strcmp(format, "callgrind") != 0 && d->n_events > 1) {
		fprintf(stderr, "dcpictl: export: %s holds one event; choose one of", format);
		for (i = 0; i < d->n_events; i++)
			fprintf(stderr, " %s", d->events[i].name);
		fprintf(stderr, " with -e\n");
		goto out;
	}
	if ((sel = calloc(d->n_images, sizeof(*sel))) == NULL ||
	    (profs = calloc(d->n_images, sizeof(*profs))) == NULL ||
	    (toff = calloc(d->n_images, sizeof(*toff))) == NULL) {
		fprintf(stderr, "dcpictl: export: out of memory\n");
		goto out;
	}
	for (i = 0; i < d->n_images; i++) {
		if (d->images[i].prof->n_counts == 0)
			continue;
		sel[n] = i;
		profs[n++] = d->images[i].prof;
	}
	r.d = d;
	r.c = symcache_new();
	r.sel = sel;
	r.n = n;
	if (strcmp(format, "pprof") == 0) {
		for (i = 0; i < n; i++) {
			struct dcpi_image_info info;

			/* The text's file offset, from the file when it is still
			 * the same image; else pprof's default for PIEs. */
			toff[i] = UINT64_MAX;
			if (profs[i]->path != NULL && profs[i]->path[0] == '/' &&
			    dcpi_image_info_read(profs[i]->path, &info, NULL) == 0) {
				if (strcmp(info.image, profs[i]->image) == 0 &&
				    info.tstart == profs[i]->tstart)
					toff[i] = info.toffset;
				dcpi_image_info_clear(&info);
			}
		}
		x = dcpi_pprof_encode(profs, toff, n, &buf, &len, &err);
	} else if (strcmp(format, "callgrind") == 0)
		x = dcpi_callgrind_encode(profs, n, resolve, &r, &buf, &len, &err);
	else if (strcmp(format, "xprof") == 0)
		x = dcpi_xprof_encode(profs, n, resolve, &r, &buf, &len, &err);
	else {
		for (i = 0; i < n; i++) {
			char *path = NULL, name[1024];

			/* NAME.IMAGEID: images of one name (other builds, other
			 * directories) must not overwrite each other. */
			if (dcpi_db_profile_name(profs[i]->path, profs[i]->image, name,
			    sizeof(name)) == -1)
				snprintf(name, sizeof(name), "%s", profs[i]->image);

			if (dcpi_gmon_encode(profs[i], &buf, &len, &err) == -1) {
				fprintf(stderr, "dcpictl: export: %s\n", err.msg);
				goto out;
			}
			if (n > 1 && asprintf(&path, "%s.%s", output, name) == -1)
				path = NULL;
			x = write_out(n > 1 ? (path ? path : output) : output, buf, len);
			if (x == 0 && n > 1)
				printf("%s\n", path);
			free(path);
			free(buf);
			buf = NULL;
			if (x == -1)
				goto out;
		}
		rc = 0;
		goto out;
	}
	if (x == -1) {
		fprintf(stderr, "dcpictl: export: %s\n", err.msg);
		goto out;
	}
	if (write_out(output, buf, len) == 0)
		rc = 0;
out:
	free(buf);
	free(sel);
	free(profs);
	free(toff);
	if (r.c != NULL)
		symcache_free(r.c);
	dcpi_dataset_free(d);
	return rc;
}

/* ---- import ---- */

/* Fills the header fields an import cannot know from the profile file. */
static int
complete(struct dcpi_profile *p, const char *epoch, struct dcpi_error *err)
{
	struct utsname u;
	char plat[3 * sizeof(u.release)], n[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	uname(&u);
	snprintf(plat, sizeof(plat), "%s %s %s", u.sysname, u.release, u.machine);
	snprintf(n, sizeof(n), "%ld", ncpu > 0 ? ncpu : 1);
	if (dcpi_profile_set(p, "epoch", epoch, err) == -1 ||
	    dcpi_profile_set(p, "platform", plat, err) == -1 ||
	    dcpi_profile_set(p, "cpuspeed", "0", err) == -1 ||
	    dcpi_profile_set(p, "cpucount", n, err) == -1)
		return -1;
	return 0;
}

/* Byte index of the first control byte of s, or -1.  The last guard before
 * a name becomes a header line, a directory and terminal output: the
 * parsers reject what comes from the file with its offset, but the path
 * of --image comes from the command line. */
static long
ctl_byte(const char *s)
{
	const char *c;

	for (c = s; c != NULL && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return c - s;
	return -1;
}

/*
 * Adds p into DB/EPOCH/HOST/EVENT/NAME.ID (merging with what is there).
 * Everything that can be checked is checked before the first directory is
 * made, and the directories this call made are removed again on failure:
 * a rejected import leaves nothing behind.
 */
static int
store_check(const struct dcpi_profile *p, const char *what)
{
	static const char *const field[] = { "event", "path", "image" };
	const char *val[3] = { p->event, p->path, p->image };
	struct dcpi_error err;
	void *enc = NULL;
	size_t enclen, i;
	long at;

	for (i = 0; i < 3; i++)
		if ((at = ctl_byte(val[i])) != -1) {
			fprintf(stderr, "dcpictl: import: %s: %s holds control byte 0x%02x at "
			    "character %ld (expected printable text)\n", what, field[i],
			    (unsigned char)val[i][at], at);
			return -1;
		}
	/* What the writer would refuse, refused before anything is made. */
	if (dcpi_profile_encode(p, &enc, &enclen, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s: %s\n", what, err.msg);
		return -1;
	}
	free(enc);
	return 0;
}

static int
store(const char *db, const char *epoch, const char *host, struct dcpi_profile *p,
    const char *what)
{
	struct dcpi_profile *old = NULL;
	struct dcpi_error err;
	char name[1024], *dir = NULL, *path = NULL, *made[4] = { NULL };
	struct stat st;
	size_t nmade = 0, i;
	int rc = -1;

	if (store_check(p, what) == -1)
		return -1;
	if (dcpi_db_profile_name(p->path, p->image, name, sizeof(name)) == -1 ||
	    (dir = dcpi_db_event_path(db, epoch, host, p->event)) == NULL ||
	    asprintf(&path, "%s/%s", dir, name) == -1) {
		path = NULL;
		fprintf(stderr, "dcpictl: import: %s: %s\n", what, strerror(errno));
		goto out;
	}
	/* The directories missing now, innermost first, for the clean-up. */
	if (asprintf(&made[0], "%s", dir) == -1 ||
	    asprintf(&made[1], "%s/%s/%s", db, epoch, host) == -1 ||
	    asprintf(&made[2], "%s/%s", db, epoch) == -1 ||
	    asprintf(&made[3], "%s", db) == -1) {
		fprintf(stderr, "dcpictl: import: %s: %s\n", what, strerror(errno));
		goto out;
	}
	for (nmade = 0; nmade < 4 && lstat(made[nmade], &st) == -1 && errno == ENOENT; nmade++)
		;
	if (dcpi_db_mkdirs(db, epoch, host, p->event, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		goto out;
	}
	if (dcpi_profile_read(path, &old, &err) == 0) {
		if (dcpi_profile_merge(old, p, &err) == -1) {
			fprintf(stderr, "dcpictl: import: %s: cannot add to %s: %s\n", what, path, err.msg);
			goto out;
		}
	} else if (errno != ENOENT) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		goto out;
	}
	if (dcpi_profile_write(path, old ? old : p, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		goto out;
	}
	printf("%s: %" PRIu32 " samples at %" PRIu32 " addresses -> ", what,
	    dcpi_profile_total_samples(p), dcpi_profile_total_offsets(p));
	esc_puts(path, stdout);
	putc('\n', stdout);
	rc = 0;
out:
	/* rmdir removes only empty directories: never what another import
	 * filled meanwhile. */
	for (i = 0; rc == -1 && i < nmade; i++)
		(void)rmdir(made[i]);
	for (i = 0; i < 4; i++)
		free(made[i]);
	dcpi_profile_free(old);
	free(dir);
	free(path);
	return rc;
}

static void
import_usage(FILE *fp)
{
	fprintf(fp, "usage: dcpictl import FILE [--image BINARY] [--epoch E] [--host H]\n"
	    "FILE: a gperftools CPU profile or a gmon.out (--image required), or a\n"
	    "pprof file written by dcpictl export (--image optional)\n");
}

int
cmd_import(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "image",	required_argument,	NULL, 'i' },
		{ "epoch",	required_argument,	NULL, 'E' },
		{ "host",	required_argument,	NULL, 'H' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *binary = NULL, *epoch_arg = NULL, *file;
	struct dcpi_image_info info = { 0 };
	struct dcpi_profile *p = NULL, **v = NULL;
	struct dcpi_pprof *pp = NULL;
	struct dcpi_gmon *gm = NULL;
	struct dcpi_error err;
	char epoch[DCPI_EPOCH_LEN + 1], host[256];
	uint64_t dropped = 0;
	size_t len, nv = 0, i;
	struct stat st;
	void *buf = NULL;
	time_t t;
	int ch, rc = 1, x;

	host[0] = '\0';
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'i': binary = optarg; break;
		case 'E': epoch_arg = optarg; break;
		case 'H': snprintf(host, sizeof(host), "%s", optarg); break;
		case 'h': import_usage(stdout); return 0;
		default: import_usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		import_usage(stderr);
		return 2;
	}
	file = argv[optind];
	if (epoch_arg != NULL && (dcpi_epoch_parse(epoch_arg, &t) == -1 ||
	    strlen(epoch_arg) != DCPI_EPOCH_LEN)) {
		fprintf(stderr, "dcpictl: import: --epoch %s: expected YYYYMMDDHHMMSS\n", epoch_arg);
		return 2;
	}
	if (host[0] == '\0' && gethostname(host, sizeof(host) - 1) == -1)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (stat(file, &st) == -1) {
		fprintf(stderr, "dcpictl: import: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (dcpi_read_file(file, &buf, &len, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		return 1;
	}
	/* By default, the epoch of the profile's own time. */
	if (epoch_arg != NULL)
		snprintf(epoch, sizeof(epoch), "%s", epoch_arg);
	else
		dcpi_epoch_name(st.st_mtime, epoch);
	if (binary != NULL) {
		/* The database names images by absolute path. */
		char *abs = realpath(binary, NULL);

		x = dcpi_image_info_read(abs ? abs : binary, &info, &err);
		free(abs);
		if (x == -1) {
			fprintf(stderr, "dcpictl: import: %s\n", err.msg);
			goto out;
		}
	}
	switch (dcpi_format_detect(buf, len)) {
	case DCPI_FMT_PPROF:
		if (dcpi_pprof_parse(buf, len, file, &pp, &err) == -1)
			goto fail;
		if (binary != NULL) {
			if (dcpi_pprof_to_profile(pp, file, &info, &p, &dropped, &err) == -1)
				goto fail;
		} else if (dcpi_pprof_to_profiles(pp, file, &v, &nv, &err) == -1)
			goto fail;
		break;
	case DCPI_FMT_GMON:
		if (binary == NULL) {
			fprintf(stderr, "dcpictl: import: %s: a gmon.out needs --image BINARY\n", file);
			rc = 2;
			goto out;
		}
		if (dcpi_gmon_parse(buf, len, file, &gm, &err) == -1 ||
		    dcpi_gmon_to_profile(gm, file, &info, &p, &dropped, &err) == -1)
			goto fail;
		break;
	default:
		fprintf(stderr, "dcpictl: import: %s: byte 0: not a gperftools CPU profile or a "
		    "gmon.out (found %s)\n", file, dcpi_format_name(dcpi_format_detect(buf, len)));
		goto out;
	}
	if (p != NULL) {
		v = &p;
		nv = 1;
	}
	/* All checked before the first is stored: a rejected file adds nothing. */
	for (i = 0; i < nv; i++) {
		if (complete(v[i], epoch, &err) == -1) {
			fprintf(stderr, "dcpictl: import: %s: %s\n", file, err.msg);
			goto out;
		}
		if (store_check(v[i], file) == -1)
			goto out;
	}
	for (i = 0; i < nv; i++)
		if (store(g->db, epoch, host, v[i], file) == -1)
			goto out;
	if (dropped > 0)
		fprintf(stderr, "dcpictl: import: %s: %" PRIu64 " samples outside %s's text "
		    "were left out\n", file, dropped, info.path);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "dcpictl: import: %s\n", err.msg);
out:
	if (v != NULL && v != &p) {
		for (i = 0; i < nv; i++)
			dcpi_profile_free(v[i]);
		free(v);
	}
	dcpi_profile_free(p);
	dcpi_pprof_free(pp);
	dcpi_gmon_free(gm);
	dcpi_image_info_clear(&info);
	free(buf);
	return rc;
}

/* ---- cat ---- */

static int
cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static const struct dcpi_callgrind *cg_sort;

static int
cmp_cgfn(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	int c = cmp_u64_desc(cg_sort->fns[*x].cost[0], cg_sort->fns[*y].cost[0]);

	return c ? c : (*x > *y) - (*x < *y);
}

static void
cat_pprof(const struct dcpi_pprof *pp, FILE *out)
{
	size_t i, j;

	fprintf(out, "format   pprof (gperftools CPU profile, %u-byte slots)\n", pp->slot);
	fprintf(out, "period   %" PRIu64 " us\nrecords  %" PRIu64 "\nsamples  %" PRIu64 "\n",
	    pp->period_us, pp->n_records, pp->total);
	for (i = 0; i < pp->n_maps; i++)
		fprintf(out, "mapping  0x%" PRIx64 "-0x%" PRIx64 " offset 0x%" PRIx64 " %s\n",
		    pp->maps[i].start, pp->maps[i].end, pp->maps[i].offset, pp->maps[i].path);
	for (i = 0; i < pp->n_samples; i++) {
		const struct dcpi_pprof_sample *s = &pp->samples[i];

		for (j = 0; j < pp->n_maps; j++)
			if (s->pc >= pp->maps[j].start && s->pc < pp->maps[j].end)
				break;
		if (j < pp->n_maps)
			fprintf(out, "0x%" PRIx64 " %" PRIu64 " %s+0x%" PRIx64 "\n", s->pc, s->count,
			    pp->maps[j].path, s->pc - pp->maps[j].start + pp->maps[j].offset);
		else
			fprintf(out, "0x%" PRIx64 " %" PRIu64 "\n", s->pc, s->count);
	}
}

static void
cat_gmon(const struct dcpi_gmon *gm, FILE *out)
{
	const struct dcpi_gmon_hist *hs;
	size_t h, i;

	fprintf(out, "format   gmon (gprof gmon.out version %" PRIu32 ")\n", gm->version);
	fprintf(out, "records  %zu histogram, %zu call-graph arcs, %zu basic-block\n",
	    gm->n_hist_records, gm->n_arcs, gm->n_bb);
	if (gm->n_hists == 0)
		return;
	fprintf(out, "rate     %" PRIu32 " per %s (%c)\nsamples  %" PRIu64 "\n", gm->rate,
	    gm->dimen, gm->abbrev ? gm->abbrev : '?', gm->total);
	for (h = 0; h < gm->n_hists; h++) {
		hs = &gm->hists[h];
		fprintf(out, "range    0x%" PRIx64 "-0x%" PRIx64 " in %zu bins, %zu records\n",
		    hs->low_pc, hs->high_pc, hs->n_bins, hs->n_records);
		for (i = 0; i < hs->n_bins; i++)
			if (hs->bins[i] != 0)
				fprintf(out, "0x%" PRIx64 " %" PRIu64 "\n", hs->low_pc +
				    (uint64_t)((unsigned __int128)i * (hs->high_pc - hs->low_pc) /
				    hs->n_bins), hs->bins[i]);
	}
}

static int
cat_callgrind(const struct dcpi_callgrind *cg, FILE *out)
{
	size_t *order, i, k;

	if ((order = calloc(cg->n_fns + 1, sizeof(*order))) == NULL)
		return -1;
	fprintf(out, "format   callgrind\nevents  ");
	for (k = 0; k < cg->n_events; k++) {
		putc(' ', out);
		esc_puts(cg->events[k], out);
	}
	fprintf(out, "\ntotals  ");
	for (k = 0; k < cg->n_events; k++)
		fprintf(out, " %" PRIu64, cg->totals[k]);
	fprintf(out, "\nlines    %" PRIu64 " cost, %" PRIu64 " calls\n", cg->n_cost_lines, cg->n_calls);
	for (i = 0; i < cg->n_fns; i++)
		order[i] = i;
	cg_sort = cg;
	qsort(order, cg->n_fns, sizeof(*order), cmp_cgfn);
	for (i = 0; i < cg->n_fns; i++) {
		const struct dcpi_callgrind_fn *f = &cg->fns[order[i]];

		for (k = 0; k < cg->n_events; k++)
			fprintf(out, "%" PRIu64 " ", f->cost[k]);
		esc_puts(f->fn, out);
		putc(' ', out);
		esc_puts(f->ob, out);
		putc(':', out);
		esc_puts(f->fl, out);
		putc('\n', out);
	}
	free(order);
	return 0;
}

static void
cat_xprof(const struct dcpi_xprof *x, FILE *out)
{
	size_t i, j, k;

	fprintf(out, "format   xprof_text %u.%u\n", x->major, x->minor);
	for (i = 0; i < x->n_objs; i++) {
		const struct dcpi_xprof_obj *o = &x->objs[i];

		fputs("objfile  ", out);
		esc_puts(o->path, out);
		fprintf(out, " (%zu procedures)\n", o->n_procs);
		for (j = 0; j < o->n_procs; j++) {
			const struct dcpi_xprof_proc *p = &o->procs[j];
			uint64_t sum = 0;

			for (k = 0; k < p->n_counters; k++)
				sum += p->counters[k].value;
			fputs("proc     ", out);
			esc_puts(p->name, out);
			fprintf(out, " %" PRIu64 "\n", sum);
			for (k = 0; k < p->n_counters; k++)
				fprintf(out, "  +0x%" PRIx32 " %" PRIu64 "\n", p->counters[k].id,
				    p->counters[k].value);
		}
	}
	for (i = 0; i < x->n_progs; i++) {
		fputs("program  ", out);
		esc_puts(x->progs[i].path, out);
		putc(':', out);
		for (j = 0; j < x->progs[i].n_objrefs; j++) {
			putc(' ', out);
			esc_puts(x->progs[i].objrefs[j], out);
		}
		fprintf(out, "\n");
	}
}

int
cat_foreign(const char *path, const void *buf, size_t len, FILE *out)
{
	struct dcpi_error err;
	int rc = -1;

	switch (dcpi_format_detect(buf, len)) {
	case DCPI_FMT_PPROF: {
		struct dcpi_pprof *pp;

		if ((rc = dcpi_pprof_parse(buf, len, path, &pp, &err)) == 0)
			cat_pprof(pp, out);
		dcpi_pprof_free(pp);
		break;
	}
	case DCPI_FMT_GMON: {
		struct dcpi_gmon *gm;

		if ((rc = dcpi_gmon_parse(buf, len, path, &gm, &err)) == 0)
			cat_gmon(gm, out);
		dcpi_gmon_free(gm);
		break;
	}
	case DCPI_FMT_CALLGRIND: {
		struct dcpi_callgrind *cg;

		if ((rc = dcpi_callgrind_parse(buf, len, path, &cg, &err)) == 0 &&
		    (rc = cat_callgrind(cg, out)) == -1)
			snprintf(err.msg, sizeof(err.msg), "%s: out of memory", path);
		dcpi_callgrind_free(cg);
		break;
	}
	case DCPI_FMT_XPROF: {
		struct dcpi_xprof *x;

		if ((rc = dcpi_xprof_parse(buf, len, path, &x, &err)) == 0)
			cat_xprof(x, out);
		dcpi_xprof_free(x);
		break;
	}
	default:
		snprintf(err.msg, sizeof(err.msg), "%s: byte 0: not a DCPI profile, gperftools CPU "
		    "profile, gmon.out, Callgrind or xprof_text file", path);
		break;
	}
	if (rc != 0)
		fprintf(stderr, "dcpictl: %s\n", err.msg);
	return rc;
}
