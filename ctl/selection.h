/*
 * What the analysis commands (prof, list, diff, export) look at: epochs,
 * host, events, image, the idle task; their options, and the loading of
 * the selected profiles.
 */
#ifndef DCPICTL_SELECTION_H
#define DCPICTL_SELECTION_H

#include <getopt.h>
#include <time.h>

#include <dcpi/dataset.h>

#include "output.h"

#define SEL_MAX		64

struct selection {
	const char	*epochs[SEL_MAX];
	size_t		 n_epochs;
	int		 all;
	const char	*since;
	const char	*host;
	const char	*events[SEL_MAX];
	size_t		 n_events;
	const char	*image;
	int		 idle;		/* --idle: the idle task's samples too */
	const char	*labels[SEL_MAX];	/* --label GLOB, repeatable: any of */
	size_t		 n_labels;
	const struct output *out;	/* --csv, --json; else text (sel_getopt) */
};

/* The selection options a command takes (sel_getopt's `which'). */
#define SEL_EPOCHS	0x01	/* --epoch, --all, --since */
#define SEL_HOST	0x02	/* --host */
#define SEL_EVENTS	0x04	/* --event (-e), repeatable */
#define SEL_IMAGE	0x08	/* --image */
/* --idle, for the commands that can show the idle task's samples (prof,
 * list, diff); without it they are left out (dcpi/dataset.h). */
#define SEL_IDLE	0x10
/* --csv, --json (into fmt) */
#define SEL_FORMAT	0x20
/* --label GLOB, repeatable: only profiles whose label one of them matches
 * (dcpi_dataset_label_match; "[none]" the unlabelled). */
#define SEL_LABEL	0x40
#define SEL_ALL		(SEL_EPOCHS | SEL_HOST | SEL_EVENTS | SEL_IMAGE | SEL_LABEL)

/* getopt_long's value of --idle, which has no short form. */
#define SEL_OPT_IDLE	0x100
/* sel_getopt's value for a bad selection option (the message printed). */
#define SEL_BAD		0x101
/* getopt_long's value of --label. */
#define SEL_OPT_LABEL	0x102

/*
 * getopt_long over the selection options in `which' (SEL_FORMAT's last of
 * them), then the command's own (own: terminated by a NULL name; at most
 * 16) with the short options optstring.  The selection options are stored
 * in s and not returned; anything else is returned as getopt_long returns
 * it: the command's options, '?' for an unknown one, -1 at the end.
 * SEL_BAD after printing a one-line error naming cmd (too many
 * --epoch/--event).
 */
int sel_getopt(int argc, char **argv, const char *optstring, const struct option *own,
    unsigned which, struct selection *s, const char *cmd);

/* -n N of prof and diff: the number of rows into *limit; -1 after printing
 * a one-line error naming cmd. */
int sel_rows(const char *arg, const char *cmd, size_t *limit);

/* Loads the selected profiles of db: the current (else newest) epoch
 * unless --epoch/--all/--since; checks that events, host, image and
 * labels exist and warns about each skipped file.  NULL after printing an
 * error. */
struct dcpi_dataset *sel_load(const char *db, const struct selection *s, const char *cmd);

/* Nonzero if the idle task's samples are among the rows: --idle, or a
 * --label naming DCPI_LABEL_IDLE (dcpi/dataset.h). */
int sel_idle_shown(const struct selection *s);

/* The display name of a dataset entry's label: "[none]" for NULL. */
const char *sel_label_name(const char *label);

/* The distinct labels of d's entries (display names, pointing into d),
 * sorted, into a malloc'd array of *n (caller frees the array). */
const char **sel_labels(const struct dcpi_dataset *d, size_t *n);

/* " label X" or " labels X, Y" (those of sel_labels), escaped, on fp. */
void sel_print_labels(const struct dcpi_dataset *d, FILE *fp);

/* Time argument: epoch name (10/14 digits), YYYY-MM-DD[THH:MM[:SS]] (UTC),
 * or N followed by s, m, h or d (that long ago).  -1 if malformed. */
int parse_time(const char *s, time_t *t);

#endif
