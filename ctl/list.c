/*
 * dcpictl list: a procedure's disassembly with samples per instruction and
 * source lines interleaved, as DCPI's dcpilist.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "analysis.h"
#include "callsite.h"
#include "commands.h"
#include "output.h"
#include "xmalloc.h"

/* One source file's lines, read once. */
struct srcfile {
	char		*name;
	char		**lines;
	size_t		 n;
};

static const char *
src_line(struct srcfile **files, size_t *nfiles, const char *name, int line)
{
	struct srcfile *s = NULL;
	char *buf = NULL;
	size_t i, cap = 0;
	ssize_t l;
	FILE *fp;

	for (i = 0; i < *nfiles; i++)
		if (strcmp((*files)[i].name, name) == 0)
			s = &(*files)[i];
	if (s == NULL) {
		*files = xreallocarray(*files, *nfiles + 1, sizeof(**files));
		s = &(*files)[(*nfiles)++];
		memset(s, 0, sizeof(*s));
		s->name = xstrdup(name);
		if ((fp = fopen(name, "re")) != NULL) {
			while ((l = getline(&buf, &cap, fp)) != -1) {
				if (l > 0 && buf[l - 1] == '\n')
					buf[l - 1] = '\0';
				s->lines = xreallocarray(s->lines, s->n + 1, sizeof(char *));
				s->lines[s->n++] = xstrdup(buf);
			}
			free(buf);
			fclose(fp);
		}
	}
	return line >= 1 && (size_t)line <= s->n ? s->lines[line - 1] : NULL;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Pseudo-instructions, one per address of sym with samples in the image
 * of found, for code that cannot be read. */
static cs_insn *
sampled_addresses(const struct dcpi_dataset *d, const struct dcpi_dataset_image *found,
    const struct dcpi_symbol *sym, size_t *n)
{
	const struct dcpi_profile *p;
	uint64_t *off = NULL;
	size_t i, k, m = 0;
	cs_insn *insn;

	for (i = 0; i < d->n_images; i++) {
		p = d->images[i].prof;
		if (strcmp(p->image, found->prof->image) != 0)
			continue;
		for (k = 0; k < p->n_counts; k++)
			if (p->counts[k].offset >= sym->start &&
			    p->counts[k].offset - sym->start < sym->size) {
				off = xreallocarray(off, m + 1, sizeof(*off));
				off[m++] = p->counts[k].offset;
			}
	}
	if (m > 1)
		qsort(off, m, sizeof(*off), u64_cmp);
	insn = xcalloc(m + 1, sizeof(*insn));
	for (i = 0, k = 0; i < m; i++) {
		if (k > 0 && insn[k - 1].address == found->prof->tstart + off[i])
			continue;
		insn[k].address = found->prof->tstart + off[i];
		insn[k].size = 1;
		snprintf(insn[k].mnemonic, sizeof(insn[k].mnemonic), "%s+0x%llx", sym->name,
		    (unsigned long long)(off[i] - sym->start));
		snprintf(insn[k].op_str, sizeof(insn[k].op_str), "(no code to disassemble)");
		k++;
	}
	free(off);
	*n = k;
	return insn;
}

/* A line of a source file: its tabs as blanks to the next multiple of
 * eight columns, the rest as every name is printed (esc_puts). */
static void
put_source(const char *text)
{
	size_t col = 0, n;
	char *seg;

	for (;;) {
		n = strcspn(text, "\t");
		seg = xmalloc(n + 1);
		memcpy(seg, text, n);
		seg[n] = '\0';
		esc_puts(seg, stdout);
		col += esc_width(seg);
		free(seg);
		if (text[n] == '\0')
			return;
		do
			putchar(' ');
		while (++col % 8 != 0);
		text += n + 1;
	}
}

int
cmd_list(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct selection s;
	struct dcpi_dataset *d;
	struct symcache *c;
	struct dcpi_symtab *t, *found_t = NULL;
	const struct dcpi_symbol *sym = NULL, *fs;
	const struct dcpi_dataset_image *im, *found = NULL;
	struct srcfile *files = NULL;
	size_t nfiles = 0, i, j, k, e, n_insn = 0, got, lo, hi;
	uint64_t *counts, *tot, *imgtot;
	const char *proc, *file, *text, *lastfile = NULL;
	char *ename = NULL;
	int ch, stale, line, lastline = -1, rc = 1, *w, synthetic = 0;
	cs_insn *insn = NULL;
	csh cs;
	void *code = NULL;

	memset(&s, 0, sizeof(s));
	while ((ch = sel_getopt(argc, argv, "e:h", opts, SEL_ALL | SEL_IDLE, &s,
	    "list")) != -1) {
		if (ch == SEL_BAD)
			return 2;
		return cmd_usage(ch == 'h',
		    "usage: dcpictl list PROCEDURE [--image NAME] [-e EVENT]... "
		    "[--epoch E | --all | --since TIME]\n"
		    "                    [--host H] [--label GLOB]... [--idle]\n");
	}
	if (optind + 1 != argc)
		return cmd_usage(0, "usage: dcpictl list PROCEDURE [--image NAME] [options]\n");
	proc = argv[optind];
	if ((d = sel_load(g->db, &s, "list")) == NULL)
		return 1;
	c = symcache_new();
	symcache_quiet(c, 1);
	/* The procedure must name one image among those with samples. */
	for (i = 0; i < d->n_images; i++) {
		im = &d->images[i];
		if ((t = symcache_get(c, im, &stale)) == NULL ||
		    (fs = dcpi_symtab_find(t, proc)) == NULL)
			continue;
		if (found != NULL && strcmp(found->prof->image, im->prof->image) != 0) {
			fprintf(stderr, "dcpictl: list: %s is in %s and %s: choose one with --image\n",
			    proc, found->prof->path, im->prof->path);
			goto out;
		}
		if (found == NULL) {
			found = im;
			found_t = t;
			sym = fs;
		}
	}
	if (found == NULL) {
		fprintf(stderr, "dcpictl: list: no procedure '%s' in the %s with samples\n", proc,
		    s.image ? "image" : "images");
		goto out;
	}
	if (dcpi_symtab_read(found_t, sym->start, sym->size, &code, &got) == -1) {
		if (errno != ENOENT) {
			fprintf(stderr, "dcpictl: list: %s: cannot read the code of %s (%s)\n",
			    found->prof->path, sym->name, strerror(errno));
			goto out;
		}
		/* The kernel and modules: no file to disassemble, so one line
		 * per sampled address. */
		insn = sampled_addresses(d, found, sym, &n_insn);
		synthetic = 1;
	} else {
		if (callsite_open(&cs, 0) == -1) {
			fprintf(stderr, "dcpictl: list: no disassembler for this machine\n");
			goto out;
		}
		n_insn = cs_disasm(cs, code, got, found->prof->tstart + sym->start, 0, &insn);
		cs_close(&cs);
	}

	/* Samples per instruction and event; offsets are image-relative. */
	counts = xcalloc(n_insn * d->n_events + 1, sizeof(uint64_t));
	tot = xcalloc(d->n_events + 1, sizeof(uint64_t));
	imgtot = xcalloc(d->n_events + 1, sizeof(uint64_t));
	for (i = 0; i < d->n_images; i++) {
		im = &d->images[i];
		if (strcmp(im->prof->image, found->prof->image) != 0)
			continue;
		imgtot[im->event] += im->samples;
		for (k = 0; k < im->prof->n_counts; k++) {
			uint64_t off = im->prof->counts[k].offset, a;
			if (off < sym->start || off - sym->start >= sym->size)
				continue;
			a = im->prof->tstart + off;
			tot[im->event] += im->prof->counts[k].count;
			/* The instruction that starts at or before a. */
			for (lo = 0, hi = n_insn; lo < hi;) {
				j = (lo + hi) / 2;
				if (insn[j].address <= a)
					lo = j + 1;
				else
					hi = j;
			}
			if (lo > 0)
				counts[(lo - 1) * d->n_events + im->event] += im->prof->counts[k].count;
		}
	}
	esc_puts(sym->name, stdout);
	fputs(" in ", stdout);
	esc_puts(image_name(found->prof), stdout);
	fputs(" (", stdout);
	esc_puts(found->prof->path, stdout);
	printf("), %llu bytes at 0x%llx\n", (unsigned long long)sym->size,
	    (unsigned long long)(found->prof->tstart + sym->start));
	ename = esc_dup(sym->name);
	for (e = 0; e < d->n_events; e++)
		printf("%s: %llu samples in %s, %.2f%% of the image's %llu\n", d->events[e].name,
		    (unsigned long long)tot[e], ename,
		    imgtot[e] ? 100.0 * (double)tot[e] / (double)imgtot[e] : 0.0,
		    (unsigned long long)imgtot[e]);
	putchar('\n');
	w = xcalloc(d->n_events + 1, sizeof(int));
	for (e = 0; e < d->n_events; e++) {
		w[e] = strlen(d->events[e].name) > 8 ? (int)strlen(d->events[e].name) : 8;
		printf("%*s      %% ", w[e], d->events[e].name);
	}
	printf("%-12s  instruction\n", "address");
	for (i = 0; i < n_insn; i++) {
		if (dcpi_symtab_srcline(found_t, insn[i].address - found->prof->tstart, &file,
		    &line) == 0 && (line != lastline || lastfile == NULL || strcmp(file, lastfile) != 0)) {
			text = src_line(&files, &nfiles, file, line);
			esc_puts(strrchr(file, '/') ? strrchr(file, '/') + 1 : file, stdout);
			printf(":%d%s", line, text ? "  " : "");
			if (text)
				put_source(text);
			putchar('\n');
			lastfile = file;
			lastline = line;
		}
		for (e = 0; e < d->n_events; e++)
			printf("%*llu %6.2f ", w[e], (unsigned long long)counts[i * d->n_events + e],
			    tot[e] ? 100.0 * (double)counts[i * d->n_events + e] / (double)tot[e] : 0.0);
		printf("%-12llx  %s %s\n", (unsigned long long)insn[i].address, insn[i].mnemonic,
		    insn[i].op_str);
	}
	if (n_insn == 0 && !synthetic)
		printf("(could not disassemble the procedure's bytes)\n");
	free(ename);
	free(counts);
	free(w);
	free(tot);
	free(imgtot);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	if (synthetic)
		free(insn);
	else if (insn != NULL)
		cs_free(insn, n_insn);
	for (i = 0; i < nfiles; i++) {
		for (j = 0; j < files[i].n; j++)
			free(files[i].lines[j]);
		free(files[i].lines);
		free(files[i].name);
	}
	free(files);
	free(code);
	symcache_free(c);
	dcpi_dataset_free(d);
	return rc;
}
