/*
 * A selection's runs as columns of the row table: ctl/runs.h.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs.h"
#include "xmalloc.h"

static const char *const by_names[] = { "", "epoch", "host", "label" };

int
runs_by_parse(const char *s, enum runs_by *by, const char *cmd)
{
	int i;

	for (i = RUNS_EPOCH; i <= RUNS_LABEL; i++)
		if (strcmp(s, by_names[i]) == 0) {
			*by = (enum runs_by)i;
			return 0;
		}
	fprintf(stderr, "dcpictl: %s: --by %s: expected epoch, host or label\n", cmd, s);
	return -1;
}

const char *
runs_by_name(enum runs_by by)
{
	return by_names[by];
}

size_t
runs_count(const struct dcpi_dataset *d, enum runs_by by)
{
	size_t n;

	switch (by) {
	case RUNS_EPOCH:
		return d->n_epochs;
	case RUNS_HOST:
		return d->n_hosts;
	case RUNS_LABEL:
		free(sel_labels(d, &n));
		return n;
	default:
		return 0;
	}
}

int
runs_add(struct runs *r, const char *db, const struct selection *s,
    const struct dcpi_dataset *d, enum runs_by by, struct rows *a, size_t base,
    unsigned mode, struct symcache *c, const char *cmd)
{
	struct selection one;
	struct dcpi_dataset v, *rd;
	size_t k, i, m;

	memset(r, 0, sizeof(*r));
	r->n = runs_count(d, by);
	r->total = xcalloc(r->n + 1, sizeof(*r->total));
	if (by == RUNS_LABEL) {
		r->names = sel_labels(d, &m);
		r->view = xcalloc(d->n_images + 1, sizeof(*r->view));
		for (k = 0; k < r->n; k++) {
			/* The label's entries, in d's order, as a dataset. */
			v = *d;
			v.images = r->view;
			for (i = v.n_images = 0; i < d->n_images; i++)
				if (strcmp(sel_label_name(d->images[i].label), r->names[k]) == 0) {
					r->view[v.n_images++] = d->images[i];
					r->total[k] += d->images[i].samples;
				}
			a->event_base = base + k;
			rows_dataset(a, &v, c, mode);
		}
		return 0;
	}
	r->names = xcalloc(r->n + 1, sizeof(*r->names));
	r->loaded = xcalloc(r->n + 1, sizeof(*r->loaded));
	for (k = 0; k < r->n; k++) {
		one = *s;
		if (by == RUNS_EPOCH) {
			r->names[k] = d->epochs[k];
			one.epochs[0] = d->epochs[k];
			one.n_epochs = 1;
			one.all = 0;
			one.since = NULL;
		} else {
			r->names[k] = d->hosts[k];
			one.epochs[0] = NULL;
			one.host = d->hosts[k];
			/* The epochs the whole selection read. */
			if (d->n_epochs > SEL_MAX) {
				fprintf(stderr, "dcpictl: %s: --by host: at most %d epochs\n",
				    cmd, SEL_MAX);
				return -1;
			}
			for (i = 0; i < d->n_epochs; i++)
				one.epochs[i] = d->epochs[i];
			one.n_epochs = d->n_epochs;
			one.all = 0;
			one.since = NULL;
		}
		if ((rd = sel_load(db, &one, cmd)) == NULL)
			return -1;
		r->loaded[k] = rd;
		r->total[k] = rd->n_events ? rd->events[0].samples : 0;
		a->event_base = base + k;
		rows_dataset(a, rd, c, mode);
	}
	return 0;
}

void
runs_free(struct runs *r)
{
	size_t k;

	if (r->loaded != NULL)
		for (k = 0; k < r->n; k++)
			dcpi_dataset_free(r->loaded[k]);
	free(r->loaded);
	free(r->names);
	free(r->total);
	free(r->view);
	memset(r, 0, sizeof(*r));
}
