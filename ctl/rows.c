/*
 * The row table of the analysis commands: ctl/rows.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "xmalloc.h"

/* FNV-1a over "imageid\tproc". */
static size_t
rowhash(const char *id, const char *proc)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ULL;
	h = (h ^ '\t') * 1099511628211ULL;
	for (; *proc; proc++)
		h = (h ^ (unsigned char)*proc) * 1099511628211ULL;
	return (size_t)h;
}

void
agg_init(struct agg *a, size_t n_events)
{
	memset(a, 0, sizeof(*a));
	a->n_events = n_events ? n_events : 1;
	a->n_slots = 1024;
	a->slots = xcalloc(a->n_slots, sizeof(size_t));
}

void
agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->n_rows; i++)
		free(a->rows[i].n);
	free(a->rows);
	free(a->slots);
}

static void
agg_rehash(struct agg *a)
{
	size_t i, h;

	free(a->slots);
	a->n_slots *= 2;
	a->slots = xcalloc(a->n_slots, sizeof(size_t));
	for (i = 0; i < a->n_rows; i++) {
		h = a->rows[i].hash & (a->n_slots - 1);
		while (a->slots[h] != 0)
			h = (h + 1) & (a->n_slots - 1);
		a->slots[h] = i + 1;
	}
}

void
agg_add(struct agg *a, const char *imageid, const char *image, const char *proc,
    size_t event, uint64_t n)
{
	struct row *r;
	size_t h, hash, l;

	hash = rowhash(imageid, proc);
	h = hash & (a->n_slots - 1);
	while (a->slots[h] != 0) {
		r = &a->rows[a->slots[h] - 1];
		if (r->hash == hash && strcmp(r->proc, proc) == 0 &&
		    strcmp(r->imageid, imageid) == 0) {
			r->n[event] += n;
			return;
		}
		h = (h + 1) & (a->n_slots - 1);
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
	r->hash = hash;
	r->n[event] = n;
	a->slots[h] = a->n_rows;
	if (a->n_rows * 2 > a->n_slots)
		agg_rehash(a);
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
