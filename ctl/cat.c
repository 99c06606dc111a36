/*
 * dcpictl cat [--summary] FILE...: profile files as text, like DCPI's
 * dcpicat: the header lines as written, then "0xADDRESS COUNT" for every
 * address with samples (absolute: tstart + offset).  Files that are not
 * DCPI profiles go to cat_foreign (other tools' formats).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/export.h>
#include <dcpi/file.h>
#include <dcpi/profile.h>

#include "commands.h"
#include "output.h"
#include "util.h"
#include "xmalloc.h"

/* ---- other tools' formats ---- */

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
	for (i = 0; i < pp->n_maps; i++) {
		fprintf(out, "mapping  0x%" PRIx64 "-0x%" PRIx64 " offset 0x%" PRIx64 " ",
		    pp->maps[i].start, pp->maps[i].end, pp->maps[i].offset);
		esc_puts(pp->maps[i].path, out);
		putc('\n', out);
	}
	for (i = 0; i < pp->n_samples; i++) {
		const struct dcpi_pprof_sample *s = &pp->samples[i];

		for (j = 0; j < pp->n_maps; j++)
			if (s->pc >= pp->maps[j].start && s->pc < pp->maps[j].end)
				break;
		if (j < pp->n_maps) {
			fprintf(out, "0x%" PRIx64 " %" PRIu64 " ", s->pc, s->count);
			esc_puts(pp->maps[j].path, out);
			fprintf(out, "+0x%" PRIx64 "\n", s->pc - pp->maps[j].start +
			    pp->maps[j].offset);
		} else
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

/* A file that is not a DCPI profile: recognizes gperftools, gmon.out,
 * Callgrind and xprof_text by content and prints it as text on out.  0
 * printed; -1 after printing a one-line error naming path (an
 * unrecognized or malformed file). */
static int
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

/* ---- DCPI profiles ---- */

/* Header values are any bytes but newline: what the tables escape goes
 * out as \xHH (text_len), but for the tab, a blank of the header
 * grammar. */
static void
fwrite_esc(const char *s, size_t n, FILE *out)
{
	char *e = xreallocarray(NULL, 4 * n + 1, 1);

	/* s[n] is the line's newline. */
	fwrite(e, 1, (size_t)(text_escape(e, s, n, TEXT_KEEP_TAB) - e), out);
	free(e);
}

/* Prints the header lines as they are in the file, the terminator without
 * its padding.  The parser accepted buf, so a "samples" line ends it. */
static void
print_header(const char *buf, size_t len, FILE *out)
{
	const char *line = buf, *nl;
	size_t n;

	while ((nl = memchr(line, '\n', len - (line - buf))) != NULL) {
		n = nl - line;
		if (n >= 7 && memcmp(line, "samples", 7) == 0 &&
		    strspn(line + 7, " \t") >= n - 7) {
			fputs("samples\n", out);
			return;
		}
		fwrite_esc(line, n, out);
		putc('\n', out);
		line = nl + 1;
	}
}

static int
cat_one(const char *path, int summary, FILE *out)
{
	struct dcpi_profile *p;
	struct dcpi_error err;
	size_t len, i;
	void *vbuf;
	char *buf;
	int rc = 0;

	if (dcpi_read_file(path, &vbuf, &len, &err) < 0) {
		fprintf(stderr, "dcpictl: %s\n", err.msg);
		return -1;
	}
	buf = vbuf;
	/* Old Callgrind files begin with "version: 1" too. */
	if (len < 7 || memcmp(buf, "version", 7) != 0 ||
	    dcpi_format_detect(buf, len) == DCPI_FMT_CALLGRIND) {
		rc = cat_foreign(path, buf, len, out);
		free(buf);
		return rc;
	}
	if (dcpi_profile_parse(buf, len, path, &p, &err) < 0) {
		fprintf(stderr, "dcpictl: %s\n", err.msg);
		free(buf);
		return -1;
	}
	/* Counts are sorted by offset: the last one gives the highest address.
	 * An address past 2^64 would print wrapped, as some other address. */
	if (p->n_counts > 0 && p->tstart > UINT64_MAX - p->counts[p->n_counts - 1].offset) {
		const char *t = memmem(buf, len, "\ntstart", 7);

		fprintf(stderr, "dcpictl: %s: byte %zu: tstart 0x%" PRIx64 " plus offset 0x%" PRIx32
		    " is past 2^64 (expected addresses that fit in 64 bits)\n", path,
		    t ? (size_t)(t + 1 - buf) : 0, p->tstart, p->counts[p->n_counts - 1].offset);
		dcpi_profile_free(p);
		free(buf);
		return -1;
	}
	print_header(buf, len, out);
	if (summary) {
		fprintf(out, "total_offsets %" PRIu32 "\ntotal_samples %" PRIu32 "\n",
		    dcpi_profile_total_offsets(p), dcpi_profile_total_samples(p));
	} else {
		for (i = 0; i < p->n_counts; i++)
			fprintf(out, "0x%" PRIx64 " %" PRIu32 "\n",
			    p->tstart + p->counts[i].offset, p->counts[i].count);
	}
	dcpi_profile_free(p);
	free(buf);
	return rc;
}

#define CAT_USAGE	"usage: dcpictl cat [--summary] FILE...\n"

int
cmd_cat(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary",	no_argument,	NULL, 's' },
		{ "help",	no_argument,	NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, i, summary = 0, status = 0;

	(void)g;
	while ((ch = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (ch) {
		case 's': summary = 1; break;
		default: return cmd_usage(ch == 'h', CAT_USAGE);
		}
	}
	if (optind >= argc)
		return cmd_usage(0, CAT_USAGE);
	for (i = optind; i < argc; i++) {
		if (cat_one(argv[i], summary, stdout) < 0)
			status = 1;
		if (fflush(stdout) != 0) {
			fprintf(stderr, "dcpictl: cat: standard output: %s\n", strerror(errno));
			return 1;
		}
	}
	return status;
}
