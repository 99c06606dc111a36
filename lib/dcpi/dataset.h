/*
 * libdcpi: the profiles of a database read into memory for analysis, merged
 * per (event, label, image) over the chosen epochs and hosts (DESIGN.md
 * "The profile database"; db.h and label.h for the layout).
 *
 * The idle task's samples (label DCPI_LABEL_IDLE, label.h) are left out
 * unless the filter asks for them, and counted apart either way; the
 * unattributed samples files of the epochs and hosts read are summed.
 *
 * A filter may name labels (dcpictl --label): patterns matched with
 * dcpi_dataset_label_match() against each profile's label, DCPI_LABEL_NONE
 * standing for the unlabelled ones.  Label directories that match no
 * pattern are not read at all.
 *
 * A corrupt or unreadable profile file is skipped, never fatal: it is
 * recorded in the dataset's skipped list with the reader's one-line
 * message, and the caller warns with it.
 *
 * Errors as in error.h: -1 with errno, and a message in err when it is
 * not NULL.
 */
#ifndef DCPI_DATASET_H
#define DCPI_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>
#include <dcpi/label.h>
#include <dcpi/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What dcpictl calls the unlabelled profiles, in listings and patterns
 * (bracketed like dcpid's own labels, so that no label dcpid writes for
 * a unit, container or cgroup can be taken for it). */
#define DCPI_LABEL_NONE		"[none]"

/* What to load.  NULL arrays (or n == 0) mean all; a NULL filter too. */
struct dcpi_dataset_filter {
	const char *const *epochs;	/* epoch directory names */
	size_t		 n_epochs;
	const char	*host;		/* only this host, else all merged */
	const char *const *events;	/* libpfm4 event strings as given */
	size_t		 n_events;
	const char	*image;		/* only images with this basename, path or id */
	int		 idle;		/* nonzero: load the DCPI_LABEL_IDLE profiles */
	/* Label patterns (any one matching selects a profile); n_labels 0:
	 * every label.  With patterns: the unattributed samples, which
	 * belong to no label, are not loaded; the idle task's profiles are
	 * read only if a pattern matches DCPI_LABEL_IDLE, and loaded (not
	 * just counted in idle) if idle is set or a pattern is exactly
	 * DCPI_LABEL_IDLE. */
	const char *const *labels;
	size_t		 n_labels;
};

/* One image under one event: the merge of its profiles. */
struct dcpi_dataset_image {
	size_t		 event;		/* index into dcpi_dataset.events */
	struct dcpi_profile *prof;	/* merged; image, tstart from the first
					 * (oldest epoch); path is paths[0] */
	char		*kallsyms;	/* DB/EPOCH/HOST/kallsyms of the first profile
					 * (for the kernel and modules); may not
					 * exist: dcpi_kallsyms_read (kallsyms.h)
					 * follows DB/EPOCH/HOST/kallsyms.ref */
	char		**paths;	/* n_paths distinct paths of the merged
					 * profiles (malloc'd, owned by the
					 * dataset): in load order, except that
					 * the first whose file holds the image
					 * now (same build-id or content hash,
					 * image.h) is moved first; NULL if none */
	size_t		 n_paths;
	uint64_t	 samples;	/* sum of the counts (not saturated) */
	const char	*label;		/* its "label" line (points into prof), or
					 * NULL: unlabelled */
};

struct dcpi_dataset_event {
	char		*name;		/* libpfm4 event string */
	uint64_t	 period;	/* of the first profile; see mixed_period */
	int		 mixed_period;	/* profiles with another period were merged */
	uint64_t	 samples;	/* over all its images (the idle task's only
					 * when the filter's idle is set) */
	uint64_t	 idle;		/* samples of the idle task, loaded or not */
	uint64_t	 unattributed;	/* samples not attributed to any image */
};

struct dcpi_dataset {
	struct dcpi_dataset_event *events;	/* sorted by name */
	size_t		 n_events;
	/* Sorted by event, then image id, then tstart, then label.  One
	 * entry per (event, image id, tstart, tsize, period, label). */
	struct dcpi_dataset_image *images;
	size_t		 n_images;
	char		**epochs;	/* epochs that contributed, oldest first */
	size_t		 n_epochs;
	char		**hosts;	/* hosts that contributed, sorted */
	size_t		 n_hosts;
	char		**skipped;	/* one message per skipped file */
	size_t		 n_skipped;
	/* Every label present in the event directories read, whether the
	 * filter's patterns matched it or not (for telling "unknown label"
	 * apart): sorted, DCPI_LABEL_NONE when there are unlabelled
	 * profiles (files directly in an event directory). */
	char		**labels;
	size_t		 n_labels;
	/* Unattributed samples by (event, reason) of the selected events,
	 * summed over the unattributed files of the epochs and hosts whose
	 * event directories were read. */
	struct dcpi_unattr unattr;
};

/*
 * Loads the profiles of db under DB/EPOCH/HOST/EVENTDIR/ for every epoch,
 * host and event the filter selects.  *out is a new dataset to free with
 * dcpi_dataset_free(), possibly empty (no epoch, no files).  -1 with
 * ENOENT if db or a named epoch does not exist, ENOMEM; corrupt files are
 * skipped, not errors (a profile whose label line is not its directory's
 * too).  Databases without label directories or unattributed files (written
 * before them) read as before.
 */
int dcpi_dataset_load(const char *db, const struct dcpi_dataset_filter *f,
    struct dcpi_dataset **out, struct dcpi_error *err);
void dcpi_dataset_free(struct dcpi_dataset *d);

/*
 * Nonzero if the label pattern selects label (NULL: unlabelled, which is
 * DCPI_LABEL_NONE).  A pattern equal to the label matches; so does one
 * that fnmatch(3) (flags 0) matches, except that a pattern of the form
 * "[word]" (lower-case letters: the form of dcpid's own labels and of
 * DCPI_LABEL_NONE) matches only that very label, never as the bracket
 * expression it would be to fnmatch: "[none]" is not "n", "o" or "e".
 * Both strings NUL-terminated; no errors.
 */
int dcpi_dataset_label_match(const char *pattern, const char *label);

/* The events present in db over the filter's epochs and host (ignoring
 * its events and image): a sorted array of *n malloc'd strings, free with
 * dcpi_strv_free() (db.h).  For telling "unknown event" apart. */
int dcpi_dataset_events(const char *db, const struct dcpi_dataset_filter *f,
    char ***names, size_t *n, struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
