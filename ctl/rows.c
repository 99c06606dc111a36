/*
 * The row table of the analysis commands: ctl/rows.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "selection.h"
#include "util.h"
#include "xmalloc.h"

/* FNV-1a over "label\timageid\tproc". */
static uint64_t
rowhash(const char *label, const char *id, const char *proc)
{
	uint64_t h = fnv1a64(fnv1a64_str(FNV1A64_INIT, label), "\t", 1);

	return fnv1a64_str(fnv1a64(fnv1a64_str(h, id), "\t", 1), proc);
}

void
rows_init(struct rows *a, size_t n_events)
{
	memset(a, 0, sizeof(*a));
	a->n_events = n_events ? n_events : 1;
}

void
rows_free(struct rows *a)
{
	size_t i;

	for (i = 0; i < a->n_rows; i++)
		free(a->rows[i].n);
	free(a->rows);
	htab_fini(&a->byname);
}

void
rows_add(struct rows *a, const char *label, const char *imageid, const char *image,
    const char *proc, size_t event, uint64_t n)
{
	struct htab_iter it;
	struct row *r;
	uint64_t hash = rowhash(label, imageid, proc);
	uintptr_t v;
	size_t l;

	for (v = htab_first(&a->byname, hash, &it); v != 0;
	    v = htab_next(&a->byname, &it)) {
		r = &a->rows[v - 1];
		if (strcmp(r->proc, proc) == 0 &&
		    strcmp(r->imageid, imageid) == 0 && strcmp(r->label, label) == 0) {
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
	r->label = label;
	r->n[event] = n;
	xhtab_add(&a->byname, hash, a->n_rows);
}

void
rows_dataset(struct rows *a, const struct dcpi_dataset *d, struct symcache *c, unsigned mode)
{
	const struct dcpi_dataset_image *im;
	const struct dcpi_symbol *sym, *prev;
	struct dcpi_symtab *t;
	const char *name, *id, *lab;
	char buf[512];
	uint64_t run, unknown;
	size_t i, k, ev;
	int stale;

	for (i = 0; i < d->n_images; i++) {
		im = &d->images[i];
		name = image_name(im->prof);
		id = im->prof->image ? im->prof->image : name;
		ev = im->event + a->event_base;
		lab = mode & ROWS_LABEL ? sel_label_name(im->label) : "";
		if (mode & ROWS_LABEL_ONLY) {
			rows_add(a, lab, "", "", "", ev, im->samples);
			continue;
		}
		if (mode & ROWS_IMAGE) {
			rows_add(a, lab, id, name, "", ev, im->samples);
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
					rows_add(a, lab, id, name, buf, ev, cn->count);
				} else
					unknown += cn->count;
				continue;
			}
			if (prev != NULL && cn->offset - prev->start < prev->size) {
				run += cn->count;
				continue;
			}
			if (prev != NULL)
				rows_add(a, lab, id, name, prev->name, ev, run);
			if ((sym = dcpi_symtab_lookup(t, cn->offset)) == NULL) {
				unknown += cn->count;
				prev = NULL;
			} else {
				prev = sym;
				run = cn->count;
			}
		}
		if (prev != NULL)
			rows_add(a, lab, id, name, prev->name, ev, run);
		if (unknown > 0)
			rows_add(a, lab, id, name, "[unknown]", ev, unknown);
	}
}
