/*
 * libdcpi: labels and the samples that were not attributed (dcpi(5)
 * "LABELS" and "UNATTRIBUTED SAMPLES").
 *
 * A label keeps apart the samples of one image taken on behalf of
 * different owners.  A labelled profile is an ordinary pdb-0.07 profile
 * with the header line "label NAME" (an unknown line to the grammar, which
 * every rewriter keeps), stored one directory below its event's:
 *
 *   DB/EPOCH/HOST/EVENTDIR/NAME.IMAGEID            unlabelled
 *   DB/EPOCH/HOST/EVENTDIR/LABELDIR/NAME.IMAGEID   labelled
 *
 * LABELDIR is the label with '/' written as "%2F", '%' as "%25" and a
 * leading '.' as "%2E" (so that no label is hidden or "." or "..").
 * Labels in brackets are dcpid's own: DCPI_LABEL_IDLE holds the samples of
 * the idle task (pid 0), which are the kernel image's; DCPI_LABEL_OTHER
 * those of the labels beyond an epoch's cap (dcpid.conf(5) label-max).
 * dcpid labels a sample by its process's cgroup (systemd unit, container
 * or cgroup path) or `dcpictl label` run; samples of the root cgroup stay
 * unlabelled.
 *
 * Samples that could not be attributed to an image are counted by reason
 * and event in DB/EPOCH/HOST/unattributed, a text file:
 *
 *   dcpi-unattributed 1
 *   REASON SAMPLES EVENT
 *   ...
 *
 * REASON is a word of [a-z0-9-] (dcpid's: unknown-pid, no-map, anon,
 * unreadable, outside-text, kernel-unknown, hypervisor), SAMPLES a decimal
 * number below 2^64, EVENT the libpfm4 event string (the rest of the line);
 * one line per (reason, event), every line ends in a newline.
 *
 * Errors as in error.h: -1 with errno, and a one-line message in err
 * (when not NULL) naming the file, the line and what was expected.
 */
#ifndef DCPI_LABEL_H
#define DCPI_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>
#include <dcpi/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_LABEL_IDLE		"[idle]"	/* the idle task's samples */
#define DCPI_LABEL_OTHER	"[other]"	/* labels beyond the cap */
#define DCPI_UNATTR_FILE	"unattributed"
#define DCPI_UNATTR_MAGIC	"dcpi-unattributed 1"

/* The value of p's "label" header line (a pointer into p, valid while p
 * is unchanged), or NULL when p is unlabelled. */
const char *dcpi_profile_label(const struct dcpi_profile *p);

/* Directory name for label (escaped as above) into out[outlen]; -1 with
 * EINVAL for an empty label or one holding a newline or starting with a
 * blank, ENAMETOOLONG if it needs more than outlen bytes or NAME_MAX
 * characters. */
int dcpi_label_dirname(const char *label, char *out, size_t outlen);
/* Inverse of dcpi_label_dirname; -1/EINVAL on a bad escape ('%' not
 * followed by 2F, 25 or 2E), ENAMETOOLONG if out is too small. */
int dcpi_label_from_dirname(const char *dirname, char *out, size_t outlen);

/* malloc'd "DB/EPOCH/HOST/EVENTDIR/LABELDIR", or the event's directory when
 * label is NULL (caller frees); NULL with EINVAL or ENAMETOOLONG for a
 * label or event that has no directory name, ENOMEM. */
char *dcpi_db_label_path(const char *db, const char *epoch, const char *host,
    const char *event, const char *label);
/* Creates that directory and its parents (0755 before the umask; existing
 * ones are fine). */
int dcpi_db_label_mkdirs(const char *db, const char *epoch, const char *host,
    const char *event, const char *label, struct dcpi_error *err);

/* One line of the unattributed file. */
struct dcpi_unattr_entry {
	char		*reason;
	char		*event;
	uint64_t	 samples;	/* saturates at UINT64_MAX */
};
/* The file's lines, sorted by event, then reason; unique (event, reason).
 * Zero-initialize before the first use; free with dcpi_unattr_clear(). */
struct dcpi_unattr {
	struct dcpi_unattr_entry *v;
	size_t		 n, cap;
};

/* Adds samples to (event, reason), creating the entry; -1/EINVAL for a
 * reason that is not a word of [a-z0-9-] or an event that is empty, holds
 * a newline or starts with a blank, -1/ENOMEM.  u is unchanged on error. */
int dcpi_unattr_add(struct dcpi_unattr *u, const char *event, const char *reason,
    uint64_t samples);
/* Parses buf[0..len), the file named name (for messages), adding its
 * lines to u.  Strict: the first line is DCPI_UNATTR_MAGIC, every other one
 * "REASON SAMPLES EVENT" with single blanks, no line twice, no NUL, a
 * newline at the end.  -1/EINVAL with "NAME: line N: expected ..." in err;
 * u is then unchanged. */
int dcpi_unattr_parse(const void *buf, size_t len, const char *name,
    struct dcpi_unattr *u, struct dcpi_error *err);
/* Reads and parses the file at path into u; -1 with errno ENOENT when
 * there is none (u unchanged). */
int dcpi_unattr_read(const char *path, struct dcpi_unattr *u, struct dcpi_error *err);
/* The file's text for u: *buf malloc'd (caller frees), *len bytes.
 * -1/ENOMEM. */
int dcpi_unattr_encode(const struct dcpi_unattr *u, char **buf, size_t *len);
/* Replaces path with u's text atomically (dcpi_atomic_write, mode 0644). */
int dcpi_unattr_write(const char *path, const struct dcpi_unattr *u,
    struct dcpi_error *err);
/* Frees u's entries and leaves it empty. */
void dcpi_unattr_clear(struct dcpi_unattr *u);

/* malloc'd "DB/EPOCH/HOST/unattributed" (caller frees); NULL/ENOMEM. */
char *dcpi_db_unattr_path(const char *db, const char *epoch, const char *host);

#ifdef __cplusplus
}
#endif
#endif
