/*
 * dcpictl export: the selected profiles in other tools' formats: pprof
 * (gperftools), pprof's profile.proto, gmon.out (gprof), Callgrind,
 * xprof_text and LLVM's sample profile for AutoFDO (lib/dcpi/export.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/export.h>
#include <dcpi/file.h>
#include <dcpi/label.h>
#include <dcpi/profile.h>
#include <dcpi/stackfile.h>
#include <dcpi/symbol.h>

#include "analysis.h"
#include "commands.h"
#include "stacks.h"
#include "xmalloc.h"

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

/* The call chains of the selection (dcpid -g) restated for the encoders:
 * frames as indexes into the profiles exported (dcpi/export.h). */
struct stacks_out {
	const struct selection	*s;
	const struct dcpi_dataset *d;
	const struct dcpi_profile *const *profs;
	size_t			 n;
	struct dcpi_export_stack *v;
	size_t			 n_v, cap;
	/* The chains' periods that differ from their profiles', whose
	 * counts were scaled to them: the least and most, 0 if none. */
	uint64_t		 scaled_lo, scaled_hi;
};

static int
str_eq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The first exported profile of the file's image i (by id and text
 * start, the identity the profiles have), else DCPI_EXPORT_NOPROF. */
static size_t
image_prof(const struct stacks_out *o, const struct dcpi_stack_image *im,
    const char *event, const char *label, int exact)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->profs[i]->image != NULL && strcmp(o->profs[i]->image, im->id) == 0 &&
		    o->profs[i]->tstart == im->tstart && (!exact ||
		    (str_eq(o->profs[i]->event, event) &&
		    str_eq(dcpi_profile_label(o->profs[i]), label))))
			return i;
	return DCPI_EXPORT_NOPROF;
}

static void
stacks_one(void *arg, const struct dcpi_stackfile *sf, const char *kallsyms)
{
	struct stacks_out *o = arg;
	const struct dcpi_stack *st;
	const struct dcpi_stack_frame *fr;
	struct dcpi_export_frame *f;
	size_t *img, i, leaf;
	const char *label;
	uint64_t cp;
	uint32_t k;

	(void)kallsyms;		/* the encoders' resolver symbolizes */
	img = xcalloc(sf->n_images + 1, sizeof(*img));
	for (i = 0; i < sf->n_images; i++)
		img[i] = strcmp(sf->images[i].path, DCPI_STACK_TRUNCATED_PATH) == 0 ?
		    DCPI_EXPORT_TRUNCATED : image_prof(o, &sf->images[i], NULL, NULL, 0);
	for (i = 0; i < sf->n_stacks; i++) {
		st = &sf->stacks[i];
		if (!stacks_kept(o->s, sf, st))
			continue;
		fr = &sf->frames[st->frames[0]];
		if (fr->image == DCPI_STACK_NOIMAGE)
			continue;
		/* The samples are the leaf profile's, of the stack's event
		 * and label: a stack whose profile is not exported (another
		 * image, a label left out) is not either. */
		label = st->label == DCPI_STACK_NOLABEL ? NULL : sf->labels[st->label];
		leaf = image_prof(o, &sf->images[fr->image], sf->events[st->event], label, 1);
		if (leaf == DCPI_EXPORT_NOPROF)
			continue;
		if (o->n_v == o->cap) {
			o->cap = o->cap ? o->cap * 2 : 64;
			o->v = xreallocarray(o->v, o->cap, sizeof(*o->v));
		}
		f = xreallocarray(NULL, st->depth, sizeof(*f));
		for (k = 0; k < st->depth; k++) {
			fr = &sf->frames[st->frames[k]];
			f[k].prof = k == 0 ? leaf : fr->image == DCPI_STACK_NOIMAGE ?
			    DCPI_EXPORT_NOPROF : img[fr->image];
			f[k].offset = fr->offset;
		}
		/* The encoders take a stack's count for samples of its leaf's
		 * profile: chains sampled on a period of their own are
		 * counted as the events they stand for, in that period. */
		cp = stacks_chain_period(sf, st->event, o->d);
		o->v[o->n_v].count = stacks_rescale(st->count, cp, o->profs[leaf]->period);
		if (cp != 0 && o->profs[leaf]->period != 0 && cp != o->profs[leaf]->period) {
			if (o->scaled_lo == 0 || cp < o->scaled_lo)
				o->scaled_lo = cp;
			if (cp > o->scaled_hi)
				o->scaled_hi = cp;
		}
		o->v[o->n_v].depth = st->depth;
		o->v[o->n_v++].frames = f;
	}
	free(img);
}

static const struct stacks_out *leaf_o;

/* By leaf: its profile, then its offset. */
static int
leaf_cmp(const void *a, const void *b)
{
	const struct dcpi_export_frame *x = leaf_o->v[*(const size_t *)a].frames;
	const struct dcpi_export_frame *y = leaf_o->v[*(const size_t *)b].frames;

	if (x->prof != y->prof)
		return x->prof < y->prof ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Chains sampled on a period of their own, scaled to the profiles', are
 * an estimate, which at a leaf PC says more or fewer samples than its
 * profile holds there: the stacks of such a leaf share the profile's
 * count there in proportion to theirs (largest remainders first; a stack
 * left with none is dropped), so that the export's totals stay the flat
 * profiles' and the chains say only how a PC was reached.  g[0..n) are
 * the stacks of one leaf.
 */
static void
cap_leaf(struct stacks_out *o, const size_t *g, size_t n)
{
	const struct dcpi_export_frame *leaf = o->v[g[0]].frames;
	uint64_t flat = dcpi_profile_count(o->profs[leaf->prof], leaf->offset);
	uint64_t sum = 0, left, best, *rem;
	size_t i, k;

	for (i = 0; i < n; i++)
		sum = sum + o->v[g[i]].count < sum ? UINT64_MAX : sum + o->v[g[i]].count;
	if (sum == flat || sum == 0)
		return;
	rem = xcalloc(n, sizeof(*rem));
	left = flat;
	for (i = 0; i < n; i++) {
		unsigned __int128 v = (unsigned __int128)o->v[g[i]].count * flat;

		o->v[g[i]].count = (uint64_t)(v / sum);
		rem[i] = (uint64_t)(v % sum);
		left -= o->v[g[i]].count;
	}
	for (; left > 0; left--) {
		for (i = k = 0, best = 0; i < n; i++)
			if (rem[i] > best) {
				best = rem[i];
				k = i;
			}
		o->v[g[k]].count++;
		rem[k] = 0;
	}
	free(rem);
}

static void
cap_to_flat(struct stacks_out *o)
{
	size_t *order, i, j, n = 0;

	if (o->n_v == 0)
		return;
	order = xcalloc(o->n_v, sizeof(*order));
	for (i = 0; i < o->n_v; i++)
		order[i] = i;
	leaf_o = o;
	qsort(order, o->n_v, sizeof(*order), leaf_cmp);
	for (i = 0; i < o->n_v; i = j) {
		for (j = i + 1; j < o->n_v && leaf_cmp(&order[i], &order[j]) == 0; j++)
			;
		cap_leaf(o, order + i, j - i);
	}
	free(order);
	for (i = 0; i < o->n_v; i++)
		if (o->v[i].count > 0)
			o->v[n++] = o->v[i];
		else
			free((void *)o->v[i].frames);
	o->n_v = n;
}

static void
stacks_out_free(struct stacks_out *o)
{
	size_t i;

	for (i = 0; i < o->n_v; i++)
		free((void *)o->v[i].frames);
	free(o->v);
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
 * directory is named, '/' escaped) for a labelled profile.  NAME is cut
 * (at a UTF-8 character's start) so that OUTPUT.SUFFIX, whose OUTPUT's own
 * name takes prefix bytes, fits in NAME_MAX; -1 if even no NAME would. */
static int
gmon_name(const struct dcpi_profile *p, size_t prefix, char *name, size_t len)
{
	const char *label = dcpi_profile_label(p);
	size_t l = 0, idlen, nlen, total, cut;
	char *np;

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
	np = name + l;
	idlen = strlen(p->image) + 1;
	total = prefix + strlen(name);
	if (total <= NAME_MAX)
		return 0;
	/* np is "NAME.IMAGEID" (or the image id alone: nothing to cut). */
	nlen = strlen(np);
	if (nlen <= idlen || total - NAME_MAX >= nlen - idlen)
		return -1;
	cut = nlen - idlen - (total - NAME_MAX);
	while (cut > 0 && ((unsigned char)np[cut] & 0xc0) == 0x80)
		cut--;
	if (cut == 0)
		return -1;
	memmove(np + cut, np + nlen - idlen, idlen + 1);
	return 0;
}

/* The file offset of each profile's text, from its file when that is
 * still the same image; else UINT64_MAX, pprof's default for PIEs. */
static void
text_offsets(const struct dcpi_profile **profs, size_t n, uint64_t *toff)
{
	struct dcpi_image_info info;
	size_t i;

	for (i = 0; i < n; i++) {
		toff[i] = UINT64_MAX;
		if (profs[i]->path != NULL && profs[i]->path[0] == '/' &&
		    dcpi_image_info_read(profs[i]->path, &info, NULL) == 0) {
			if (strcmp(info.image, profs[i]->image) == 0 &&
			    info.tstart == profs[i]->tstart)
				toff[i] = info.toffset;
			dcpi_image_info_clear(&info);
		}
	}
}

/* The selection's span and what it is, for profile.proto's time_nanos,
 * duration_nanos and comments: from the first epoch's start to the start
 * of the epoch after the last (an epoch lasts until the next one starts),
 * or now for the newest.  The comments are malloc'd into c[0..*nc). */
static void
proto_meta(const char *db, const struct dcpi_dataset *d, struct dcpi_proto_meta *m,
    char **c, size_t *nc)
{
	char **ep = NULL;
	size_t n = 0, i;
	time_t start, end;

	memset(m, 0, sizeof(*m));
	*nc = 0;
	if (d->n_epochs == 0 || dcpi_epoch_parse(d->epochs[0], &start) == -1)
		return;
	end = time(NULL);
	if (dcpi_db_epochs(db, &ep, &n, NULL) == 0) {
		for (i = 0; i + 1 < n; i++)
			if (strcmp(ep[i], d->epochs[d->n_epochs - 1]) == 0) {
				dcpi_epoch_parse(ep[i + 1], &end);
				break;
			}
		dcpi_strv_free(ep, n);
	}
	m->time_nanos = (int64_t)start * 1000000000;
	m->duration_nanos = end > start ? (int64_t)(end - start) * 1000000000 : 0;
	xasprintf(&c[(*nc)++], "dcpi: epochs %s to %s", d->epochs[0],
	    d->epochs[d->n_epochs - 1]);
	xasprintf(&c[*nc], "dcpi: host%s", d->n_hosts > 1 ? "s" : "");
	for (i = 0; i < d->n_hosts; i++) {
		char *t = c[*nc];

		xasprintf(&c[*nc], "%s %s", t, d->hosts[i]);
		free(t);
	}
	(*nc)++;
	xasprintf(&c[(*nc)++], "dcpi: event %s, period %" PRIu64, d->events[0].name,
	    d->events[0].period);
	if (d->events[0].unattributed > 0)
		xasprintf(&c[(*nc)++], "dcpi: %" PRIu64 " samples attributed to no image "
		    "are not in the profile", d->events[0].unattributed);
	m->comments = (const char *const *)c;
	m->n_comments = *nc;
}

static int
same_image(const struct dcpi_profile *a, const struct dcpi_profile *b)
{
	return a->tstart == b->tstart && str_eq(a->image, b->image);
}

/* The one image (id and text start) that has samples in the selection,
 * whose labels an AutoFDO export adds up; NULL after saying which there
 * are when there are several. */
static const struct dcpi_dataset_image *
one_image(const struct dcpi_dataset *d)
{
	const struct dcpi_dataset_image *first = NULL;
	size_t i, k, shown = 0;

	for (i = 0; i < d->n_images; i++) {
		if (d->images[i].prof->n_counts == 0)
			continue;
		if (first == NULL)
			first = &d->images[i];
		else if (!same_image(first->prof, d->images[i].prof))
			break;
	}
	if (first == NULL) {
		fprintf(stderr, "dcpictl: export: no samples in the selected epochs\n");
		return NULL;
	}
	if (i == d->n_images)
		return first;
	fprintf(stderr, "dcpictl: export: afdo is the profile of one image; choose it "
	    "with --image NAME|PATH|ID among:\n");
	for (i = 0; i < d->n_images; i++) {
		for (k = 0; k < i && !same_image(d->images[k].prof, d->images[i].prof); k++)
			;
		if (k < i || d->images[i].prof->n_counts == 0)
			continue;
		/* A system-wide epoch holds hundreds: prof lists them all. */
		if (shown++ == 20) {
			fprintf(stderr, "  ... (dcpictl prof --by image lists them all)\n");
			break;
		}
		fprintf(stderr, "  %s %s\n", image_name(d->images[i].prof),
		    d->images[i].prof->image);
	}
	return NULL;
}

/* LLVM's sample profile of the image im, from profs[0..n) (its labels)
 * and the stacks; -1 after a message, nothing written. */
static int
export_afdo(const struct dcpi_dataset_image *im, const struct dcpi_profile **profs,
    size_t n, const struct stacks_out *so, void **buf, size_t *len)
{
	struct dcpi_afdo_stats st;
	struct dcpi_symtab *t;
	struct dcpi_error err;
	int rc;

	if ((t = symcache_open(im, &err)) == NULL) {
		fprintf(stderr, "dcpictl: export: image %s (%s): %s%s\n", image_name(im->prof),
		    im->prof->image, err.msg, errno == ESTALE ?
		    " (the profile is of another build of it: stale binary)" : "");
		return -1;
	}
	rc = dcpi_afdo_encode(profs, n, t, so->v, so->n_v, &st, buf, len, &err);
	dcpi_symtab_close(t);
	if (rc == -1) {
		fprintf(stderr, "dcpictl: export: %s\n", err.msg);
		return -1;
	}
	if (st.placed < st.samples)
		fprintf(stderr, "dcpictl: export: note: %" PRIu64 " of the %" PRIu64
		    " samples of %s are at PCs without DWARF lines, left out\n",
		    st.samples - st.placed, st.samples, image_name(im->prof));
	return 0;
}

#define EXPORT_USAGE							\
	"usage: dcpictl export --format=pprof|pprof-proto|gmon|callgrind|xprof|afdo\n" \
	"                      [-e EVENT] [--epoch E | --all | --since TIME] [--host H]\n" \
	"                      [--image NAME] [--label GLOB]... -o FILE\n"	\
	"gmon writes one file per image and label: FILE itself for one, else\n" \
	"FILE.NAME.IMAGEID, or FILE.LABEL.NAME.IMAGEID for a labelled profile;\n" \
	"afdo is one image's profile (--image), read with its DWARF\n"

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
	struct stacks_out so = { 0 };
	struct dcpi_error err;
	char *scaled = NULL;	/* what the chains' scaling was, if any */
	size_t *sel = NULL, n = 0, i, nl;
	const char **labels;
	uint64_t *toff = NULL;
	void *buf = NULL;
	size_t len;
	struct selection s;
	const struct dcpi_dataset_image *afdo_image = NULL;
	int ch, rc = 1, x, afdo;

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
	if (strcmp(format, "pprof") != 0 && strcmp(format, "pprof-proto") != 0 &&
	    strcmp(format, "gmon") != 0 && strcmp(format, "callgrind") != 0 &&
	    strcmp(format, "xprof") != 0 && strcmp(format, "afdo") != 0) {
		fprintf(stderr, "dcpictl: export: unknown format '%s' (expected pprof, "
		    "pprof-proto, gmon, callgrind, xprof or afdo)\n", format);
		return 2;
	}
	afdo = strcmp(format, "afdo") == 0;
	if ((d = sel_load(g->db, &s, "export")) == NULL)
		return 1;
	if (d->n_images == 0) {
		if (s.image != NULL)
			fprintf(stderr, "dcpictl: export: no samples of image %s in the "
			    "selected epochs\n", s.image);
		else
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
	if (afdo && (afdo_image = one_image(d)) == NULL)
		goto out;
	for (i = 0; i < d->n_images; i++) {
		if (d->images[i].prof->n_counts == 0 || (afdo_image != NULL &&
		    !same_image(d->images[i].prof, afdo_image->prof)))
			continue;
		sel[n] = i;
		profs[n++] = d->images[i].prof;
	}
	r.d = d;
	r.c = symcache_new();
	r.sel = sel;
	r.n = n;
	/* Call chains, where dcpid -g wrote them: calls in the formats that
	 * have them (xprof_text has none); without, the flat export. */
	if (strcmp(format, "xprof") != 0) {
		size_t skipped = 0;

		so.s = &s;
		so.d = d;
		so.profs = profs;
		so.n = n;
		stacks_each_file(g->db, d, so.s, r.c, stacks_one, &so, &skipped);
		if (so.scaled_lo != 0) {
			cap_to_flat(&so);
			if (so.scaled_hi != so.scaled_lo)
				xasprintf(&scaled, "call chains sampled every %" PRIu64 " to %"
				    PRIu64 " events, counted as samples of their profiles' "
				    "period, sharing the profile's at their leaf", so.scaled_lo,
				    so.scaled_hi);
			else
				xasprintf(&scaled, "call chains sampled every %" PRIu64 " events, "
				    "counted as samples of their profiles' period, sharing the "
				    "profile's at their leaf", so.scaled_lo);
			fprintf(stderr, "dcpictl: export: note: %s\n", scaled);
		}
	}
	if (strcmp(format, "pprof") == 0) {
		text_offsets(profs, n, toff);
		x = dcpi_pprof_encode_stacks(profs, toff, n, so.v, so.n_v, &buf, &len, &err);
	} else if (strcmp(format, "pprof-proto") == 0) {
		struct dcpi_proto_meta meta;
		char *comments[5];
		size_t nc;

		text_offsets(profs, n, toff);
		proto_meta(g->db, d, &meta, comments, &nc);
		if (scaled != NULL && meta.comments != NULL) {
			xasprintf(&comments[nc++], "dcpi: %s", scaled);
			meta.n_comments = nc;
		}
		x = dcpi_pprof_proto_encode(profs, toff, n, so.v, so.n_v, resolve, &r, &meta,
		    &buf, &len, &err);
		while (nc > 0)
			free(comments[--nc]);
	} else if (strcmp(format, "callgrind") == 0)
		x = dcpi_callgrind_encode_stacks(profs, n, so.v, so.n_v, resolve, &r, &buf,
		    &len, &err);
	else if (afdo) {
		if (export_afdo(afdo_image, profs, n, &so, &buf, &len) == -1)
			goto out;
		x = 0;
	} else if (strcmp(format, "xprof") == 0) {
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
		const char *base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
		int failed = 0;

		for (i = 0; i < n; i++) {
			char *path = NULL, name[1024];

			/* [LABEL.]NAME.IMAGEID: images of one name (other builds,
			 * other directories) and one image's labels must not
			 * overwrite each other.  One image that cannot be written
			 * does not stop the others. */
			if (n > 1 && gmon_name(profs[i], strlen(base) + 1, name,
			    sizeof(name)) == -1) {
				fprintf(stderr, "dcpictl: export: %s: no file name of at most "
				    "%d bytes for image %s%s%s%s: skipped\n", output, NAME_MAX,
				    profs[i]->image, dcpi_profile_label(profs[i]) ? " (label '" : "",
				    dcpi_profile_label(profs[i]) ? dcpi_profile_label(profs[i]) : "",
				    dcpi_profile_label(profs[i]) ? "')" : "");
				failed = 1;
				continue;
			}

			if (dcpi_gmon_encode_stacks(profs, n, i, so.v, so.n_v, &buf, &len,
			    &err) == -1) {
				fprintf(stderr, "dcpictl: export: %s: image %s: %s: skipped\n",
				    output, profs[i]->image, err.msg);
				failed = 1;
				continue;
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
				failed = 1;
		}
		if (!failed)
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
	free(scaled);
	stacks_out_free(&so);
	free(buf);
	free(sel);
	free(profs);
	free(toff);
	if (r.c != NULL)
		symcache_free(r.c);
	dcpi_dataset_free(d);
	return rc;
}
