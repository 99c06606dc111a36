/*
 * dcpictl export: the selected profiles in other tools' formats: pprof
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
#include <dcpi/label.h>
#include <dcpi/profile.h>

#include "analysis.h"
#include "commands.h"

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

/* A gmon file's suffix: NAME.IMAGEID, after LABELDIR. (the label as its
 * directory is named, '/' escaped) for a labelled profile; -1 if too long. */
static int
gmon_name(const struct dcpi_profile *p, char *name, size_t len)
{
	const char *label = dcpi_profile_label(p);
	size_t l = 0;

	if (label != NULL) {
		if (dcpi_label_dirname(label, name, len) == -1)
			return -1;
		l = strlen(name);
		if (l + 2 >= len)
			return -1;
		name[l++] = '.';
	}
	if (dcpi_db_profile_name(p->path, p->image, name + l, len - l) == -1)
		snprintf(name + l, len - l, "%s", p->image);
	return 0;
}

#define EXPORT_USAGE							\
	"usage: dcpictl export --format=pprof|gmon|callgrind|xprof [-e EVENT]\n" \
	"                      [--epoch E | --all | --since TIME] [--host H] [--image NAME]\n" \
	"                      [--label GLOB]... -o FILE\n"			\
	"gmon writes one file per image and label: FILE itself for one, else\n" \
	"FILE.NAME.IMAGEID, or FILE.LABEL.NAME.IMAGEID for a labelled profile\n"

int
cmd_export(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
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
	size_t *sel = NULL, n = 0, i, nl;
	const char **labels;
	uint64_t *toff = NULL;
	void *buf = NULL;
	size_t len;
	struct selection s;
	int ch, rc = 1, x;

	memset(&s, 0, sizeof(s));
	while ((ch = sel_getopt(argc, argv, "e:f:o:h", opts, SEL_ALL, &s, "export")) != -1) {
		switch (ch) {
		case SEL_BAD: return 2;
		case 'f': format = optarg; break;
		case 'o': output = optarg; break;
		default: return cmd_usage(ch == 'h', EXPORT_USAGE);
		}
	}
	if (optind != argc || format == NULL || output == NULL)
		return cmd_usage(0, EXPORT_USAGE);
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
	else if (strcmp(format, "xprof") == 0) {
		x = dcpi_xprof_encode(profs, n, resolve, &r, &buf, &len, &err);
		/* xprof_text has neither comments nor a field to hold them. */
		labels = sel_labels(d, &nl);
		if (nl > 1 || (nl == 1 && d->images[0].label != NULL)) {
			fprintf(stderr, "dcpictl: export: note: xprof has no place for labels; "
			    "%s holds the samples of", output);
			sel_print_labels(d, stderr);
			fputc('\n', stderr);
		}
		free(labels);
	}
	else {
		for (i = 0; i < n; i++) {
			char *path = NULL, name[1024];

			/* [LABEL.]NAME.IMAGEID: images of one name (other builds,
			 * other directories) and one image's labels must not
			 * overwrite each other. */
			if (gmon_name(profs[i], name, sizeof(name)) == -1) {
				fprintf(stderr, "dcpictl: export: %s: label '%s' too long for a "
				    "file name\n", output, dcpi_profile_label(profs[i]));
				goto out;
			}

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
