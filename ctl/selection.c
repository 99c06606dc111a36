/*
 * Selections of the analysis commands (ctl/selection.h): their options,
 * time arguments, and the loading of what they select.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcpi/db.h>

#include "commands.h"
#include "log.h"
#include "selection.h"
#include "xmalloc.h"

int
parse_time(const char *s, time_t *t)
{
	struct tm tm;
	char *end;
	long long n;
	const char *p;

	if (dcpi_epoch_parse(s, t) == 0)
		return 0;
	n = strtoll(s, &end, 10);
	if (end != s && n >= 0 && end[0] != '\0' && end[1] == '\0' && strchr("smhd", end[0])) {
		*t = time(NULL) - (time_t)n * (end[0] == 's' ? 1 : end[0] == 'm' ? 60 :
		    end[0] == 'h' ? 3600 : 86400);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%d", &tm)) == NULL)
		return -1;
	if (*p == 'T' || *p == ' ') {
		const char *q = strptime(p + 1, "%H:%M:%S", &tm);
		if (q == NULL)
			q = strptime(p + 1, "%H:%M", &tm);
		p = q;
	}
	if (p == NULL || *p != '\0')
		return -1;
	*t = timegm(&tm);
	return 0;
}

/* The selection options in the order of their --help; bit is the `which'
 * of sel_getopt that takes them. */
static const struct {
	unsigned	bit;
	struct option	o;
} sel_opts[] = {
	{ SEL_EPOCHS,	{ "epoch",	required_argument,	NULL, 'E' } },
	{ SEL_EPOCHS,	{ "all",	no_argument,		NULL, 'A' } },
	{ SEL_EPOCHS,	{ "since",	required_argument,	NULL, 'S' } },
	{ SEL_HOST,	{ "host",	required_argument,	NULL, 'H' } },
	{ SEL_EVENTS,	{ "event",	required_argument,	NULL, 'e' } },
	{ SEL_IMAGE,	{ "image",	required_argument,	NULL, 'I' } },
	{ SEL_IDLE,	{ "idle",	no_argument,		NULL, SEL_OPT_IDLE } },
	{ SEL_LABEL,	{ "label",	required_argument,	NULL, SEL_OPT_LABEL } },
};
/* --csv and --json: before the command's own, as dcpictl epochs listed them
 * before its --cache (getopt_long lists ambiguous prefixes in table order). */
static const struct option fmt_opts[] = {
	{ "csv",	no_argument,		NULL, 'c' },
	{ "json",	no_argument,		NULL, 'j' },
};
#define FMT_NOPTS	(sizeof(fmt_opts) / sizeof(fmt_opts[0]))
#define SEL_NOPTS	(sizeof(sel_opts) / sizeof(sel_opts[0]))
#define OWN_MAX		16

/* arg appended to v[0..*n), a repeatable option's; -1 if it holds SEL_MAX. */
static int
sel_push(const char **v, size_t *n, const char *arg)
{
	if (*n == SEL_MAX)
		return -1;
	v[(*n)++] = arg;
	return 0;
}

/* 1 if ch was a selection option in which (stored in s), 0 if not, -1
 * after printing a usage error. */
static int
sel_option(struct selection *s, unsigned which, int ch, const char *arg, const char *cmd)
{
	size_t i;

	if (which & SEL_FORMAT && (ch == 'c' || ch == 'j')) {
		s->out = ch == 'c' ? &output_csv : &output_json;
		return 1;
	}
	for (i = 0; i < SEL_NOPTS && sel_opts[i].o.val != ch; i++)
		;
	if (i == SEL_NOPTS || !(sel_opts[i].bit & which))
		return 0;
	switch (ch) {
	case 'E':
		if (sel_push(s->epochs, &s->n_epochs, arg) == -1)
			goto many;
		break;
	case 'A':
		s->all = 1;
		break;
	case 'S':
		s->since = arg;
		break;
	case 'H':
		s->host = arg;
		break;
	case 'e':
		if (sel_push(s->events, &s->n_events, arg) == -1)
			goto many;
		break;
	case 'I':
		s->image = arg;
		break;
	case SEL_OPT_IDLE:
		s->idle = 1;
		break;
	case SEL_OPT_LABEL:
		if (*arg == '\0') {
			fprintf(stderr, "dcpictl: %s: --label '': expected a label or a "
			    "pattern (\"" DCPI_LABEL_NONE "\" for the unlabelled profiles)\n",
			    cmd);
			return -1;
		}
		if (sel_push(s->labels, &s->n_labels, arg) == -1)
			goto many;
		break;
	}
	return 1;
many:
	fprintf(stderr, "dcpictl: %s: more than %d --%s options\n", cmd, SEL_MAX,
	    ch == 'E' ? "epoch" : ch == 'e' ? "event" : "label");
	return -1;
}

int
sel_getopt(int argc, char **argv, const char *optstring, const struct option *own,
    unsigned which, struct selection *s, const char *cmd)
{
	struct option o[SEL_NOPTS + FMT_NOPTS + OWN_MAX + 1];
	size_t n = 0, i;
	int ch, r;

	if (s->out == NULL)
		s->out = &output_text;
	for (i = 0; i < SEL_NOPTS; i++)
		if (sel_opts[i].bit & which)
			o[n++] = sel_opts[i].o;
	for (i = 0; which & SEL_FORMAT && i < FMT_NOPTS; i++)
		o[n++] = fmt_opts[i];
	for (i = 0; own[i].name != NULL; i++) {
		if (i == OWN_MAX)
			fatalx("sel_getopt: %s: more than %d options", cmd, OWN_MAX);
		o[n++] = own[i];
	}
	memset(&o[n], 0, sizeof(o[n]));
	while ((ch = getopt_long(argc, argv, optstring, o, NULL)) != -1) {
		if ((r = sel_option(s, which, ch, optarg, cmd)) == 0)
			return ch;
		if (r == -1)
			return SEL_BAD;
	}
	return -1;
}

int
cmd_usage(int help, const char *text)
{
	fputs(text, help ? stdout : stderr);
	return help ? 0 : 2;
}

int
sel_rows(const char *arg, const char *cmd, size_t *limit)
{
	char *end;

	*limit = strtoul(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || arg[0] == '-') {
		fprintf(stderr, "dcpictl: %s: -n %s: expected a number of rows\n", cmd, arg);
		return -1;
	}
	return 0;
}

struct dcpi_dataset *
sel_load(const char *db, const struct selection *s, const char *cmd)
{
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;
	char **all = NULL, cur[DCPI_EPOCH_LEN + 1], **evs;
	const char *pick[1];
	size_t n_all = 0, n_evs, i, j, first;
	uint64_t idle;
	time_t since, t;

	memset(&f, 0, sizeof(f));
	if ((s->n_epochs > 0) + s->all + (s->since != NULL) > 1) {
		fprintf(stderr, "dcpictl: %s: --epoch, --all and --since exclude each other\n", cmd);
		return NULL;
	}
	if (s->n_epochs > 0) {
		f.epochs = s->epochs;
		f.n_epochs = s->n_epochs;
	} else if (!s->all) {
		if (dcpi_db_epochs(db, &all, &n_all, &err) == -1) {
			fprintf(stderr, "dcpictl: %s: %s\n", cmd, err.msg);
			return NULL;
		}
		if (n_all == 0) {
			fprintf(stderr, "dcpictl: %s: %s: no epochs\n", cmd, db);
			dcpi_strv_free(all, n_all);
			return NULL;
		}
		if (s->since != NULL) {
			if (parse_time(s->since, &since) == -1) {
				fprintf(stderr, "dcpictl: %s: --since %s: expected an epoch name, "
				    "YYYY-MM-DD[THH:MM[:SS]] or N{s,m,h,d}\n", cmd, s->since);
				dcpi_strv_free(all, n_all);
				return NULL;
			}
			/* The epoch holding `since', and every later one. */
			for (first = 0, i = 0; i < n_all; i++)
				if (dcpi_epoch_parse(all[i], &t) == 0 && t <= since)
					first = i;
			f.epochs = (const char **)all + first;
			f.n_epochs = n_all - first;
		} else {
			pick[0] = dcpi_db_current(db, cur, NULL) == 0 ? cur : all[n_all - 1];
			f.epochs = pick;
			f.n_epochs = 1;
		}
	}
	f.host = s->host;
	if (dcpi_dataset_events(db, &f, &evs, &n_evs, &err) == -1) {
		fprintf(stderr, "dcpictl: %s: %s\n", cmd, err.msg);
		dcpi_strv_free(all, n_all);
		return NULL;
	}
	for (i = 0; i < s->n_events; i++) {
		for (j = 0; j < n_evs && strcmp(evs[j], s->events[i]) != 0; j++)
			;
		if (j == n_evs) {
			fprintf(stderr, "dcpictl: %s: unknown event '%s' (the epochs hold:", cmd,
			    s->events[i]);
			for (j = 0; j < n_evs; j++)
				fprintf(stderr, " %s", evs[j]);
			fprintf(stderr, "%s)\n", n_evs ? "" : " none");
			dcpi_strv_free(evs, n_evs);
			dcpi_strv_free(all, n_all);
			return NULL;
		}
	}
	dcpi_strv_free(evs, n_evs);
	f.events = s->events;
	f.n_events = s->n_events;
	f.image = s->image;
	f.idle = s->idle;
	f.labels = s->labels;
	f.n_labels = s->n_labels;
	if (dcpi_dataset_load(db, &f, &d, &err) == -1) {
		fprintf(stderr, "dcpictl: %s: %s\n", cmd, err.msg);
		dcpi_strv_free(all, n_all);
		return NULL;
	}
	for (i = 0, idle = 0; i < d->n_events; i++)
		idle += d->events[i].idle;
	/* A pattern that matches no label present is a typo more likely
	 * than a quiet service: say which labels there are. */
	if (s->n_labels > 0 && d->n_images == 0 && idle == 0 && d->n_skipped == 0 &&
	    d->n_labels > 0) {
		fprintf(stderr, "dcpictl: %s: no profiles with label", cmd);
		for (i = 0; i < s->n_labels; i++)
			fprintf(stderr, "%s '%s'", i ? " or" : "", s->labels[i]);
		fprintf(stderr, " (the epochs hold:");
		for (i = 0; i < d->n_labels; i++) {
			fputc(' ', stderr);
			esc_puts(d->labels[i], stderr);
		}
		fprintf(stderr, ")\n");
		dcpi_strv_free(all, n_all);
		dcpi_dataset_free(d);
		return NULL;
	}
	/* Only the idle task's samples is still something to show. */
	if (d->n_images == 0 && d->n_skipped == 0 && s->image == NULL && idle == 0 &&
	    (s->host == NULL || d->n_hosts > 0)) {
		if (f.n_epochs == 0)
			fprintf(stderr, "dcpictl: %s: %s: no profiles in any epoch\n", cmd, db);
		else if (f.n_epochs == 1)
			fprintf(stderr, "dcpictl: %s: %s/%s: no profiles in this epoch\n", cmd, db,
			    f.epochs[0]);
		else
			fprintf(stderr, "dcpictl: %s: %s: no profiles in the %zu epochs selected\n",
			    cmd, db, f.n_epochs);
		dcpi_strv_free(all, n_all);
		dcpi_dataset_free(d);
		return NULL;
	}
	dcpi_strv_free(all, n_all);
	for (i = 0; i < d->n_skipped; i++)
		fprintf(stderr, "dcpictl: warning: skipped %s\n", d->skipped[i]);
	if (s->host != NULL && d->n_hosts == 0 && d->n_skipped == 0) {
		fprintf(stderr, "dcpictl: %s: no profiles of host '%s'\n", cmd, s->host);
		dcpi_dataset_free(d);
		return NULL;
	}
	if (s->image != NULL && d->n_images == 0) {
		fprintf(stderr, "dcpictl: %s: unknown image '%s'\n", cmd, s->image);
		dcpi_dataset_free(d);
		return NULL;
	}
	return d;
}

const char *
sel_label_name(const char *label)
{
	return label ? label : DCPI_LABEL_NONE;
}

static int
cstr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **
sel_labels(const struct dcpi_dataset *d, size_t *n)
{
	const char **v = xcalloc(d->n_images + 1, sizeof(char *));
	size_t i, k;

	for (i = k = 0; i < d->n_images; i++)
		v[k++] = sel_label_name(d->images[i].label);
	if (k > 1)
		qsort(v, k, sizeof(char *), cstr_cmp);
	for (i = *n = 0; i < k; i++)
		if (*n == 0 || strcmp(v[*n - 1], v[i]) != 0)
			v[(*n)++] = v[i];
	return v;
}

int
sel_idle_shown(const struct selection *s)
{
	size_t i;

	for (i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i], DCPI_LABEL_IDLE) == 0)
			return 1;
	return s->idle;
}

void
sel_print_labels(const struct dcpi_dataset *d, FILE *fp)
{
	const char **labs;
	size_t n, i;

	labs = sel_labels(d, &n);
	fprintf(fp, " label%s", n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : " ", fp);
		esc_puts(labs[i], fp);
	}
	if (n == 0)
		fputs(" none", fp);
	free(labs);
}
