/*
 * libdcpi: DCPI profile files, format pdb-0.07 (specs/dcpiformat.txt).
 * Whole-file reads and the atomic replacement they are written with are
 * file.h's.
 *
 * A profile holds the samples of one image for one event in one epoch: a
 * text header of typed fields (plus unknown lines, kept verbatim), then the
 * binary chunks of little-endian uint32 counts per image-relative offset,
 * then the footer.  Offsets are relative to tstart (offset = ELF vaddr -
 * tstart), so profiles of one image taken in many processes add up.
 *
 * Errors (error.h): functions returning int give 0 on success and -1 on
 * failure with errno set (EINVAL for a malformed file or argument, ENOMEM,
 * or the errno of the failed system call) and, when err is not NULL, a
 * one-line message in err->msg naming the file, the line number or byte
 * offset, and the rule broken, e.g. "p.dat: byte 84: chunk at offset 0x10
 * overlaps the previous chunk (ends at 0x18)".
 */
#ifndef DCPI_PROFILE_H
#define DCPI_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this library writes; it reads any pdb-0.N. */
#define DCPI_PROFILE_VERSION	"pdb-0.07"
/* Counts and the footer's totals saturate here instead of wrapping. */
#define DCPI_COUNT_MAX		UINT32_MAX

/* One image-relative offset with samples. */
struct dcpi_count {
	uint32_t offset;
	uint32_t count;
};

/* Bits of dcpi_profile.has for the optional header lines. */
#define DCPI_HAS_CPUAMASK	0x01
#define DCPI_HAS_CPUIMPLV	0x02
#define DCPI_HAS_CPUCOUNT	0x04
#define DCPI_HAS_PATH		0x08

/*
 * All strings are NUL-terminated, malloc'd, owned by the profile and freed
 * by dcpi_profile_free(); to replace one, free the old pointer first (or
 * use dcpi_profile_set()).  String fields hold the value only, without the
 * keyword or the line's separating blanks.
 */
struct dcpi_profile {
	char		*version;	/* "pdb-MAJOR.MINOR" */
	char		*image;		/* hex image id: GNU build-id or a stable hash */
	char		*epoch;		/* YYMMDDHHMM or YYYYMMDDHHMMSS, UTC */
	char		*platform;	/* e.g. "Linux 6.1.0 x86_64" */
	char		*event;		/* libpfm4 event string as given */
	uint64_t	 period;	/* events per sample (cpu-clock: ns) */
	uint64_t	 tstart;	/* virtual address of the image's text */
	uint64_t	 tsize;		/* bytes of text; offsets are < tsize */
	uint64_t	 cpuspeed;	/* MHz */
	unsigned	 has;		/* DCPI_HAS_* for the fields below */
	uint64_t	 cpuamask;
	uint64_t	 cpuimplv;
	uint64_t	 cpucount;	/* online CPUs */
	char		*path;		/* absolute path or [kernel.kallsyms], [vdso], ... */
	char		**unknown;	/* n_unknown unknown lines, verbatim, no "\n", file order */
	size_t		 n_unknown;
	/* Sorted by offset, offsets unique, every count > 0.  n_counts used of
	 * cap_counts allocated. */
	struct dcpi_count *counts;
	size_t		 n_counts;
	size_t		 cap_counts;
};

/* A new empty profile (version DCPI_PROFILE_VERSION, other fields zero or
 * NULL).  NULL with errno ENOMEM on failure. */
struct dcpi_profile *dcpi_profile_new(void);
/* Frees p and everything it owns; NULL is allowed. */
void dcpi_profile_free(struct dcpi_profile *p);

/* Sets a header field by its keyword ("image", "period", "path", "cpucount"
 * ...) from its text form, as the reader would; an unknown keyword is added
 * as an unknown line "KEY VALUE".  -1/EINVAL if VALUE does not fit the
 * field's grammar. */
int dcpi_profile_set(struct dcpi_profile *p, const char *key, const char *value,
    struct dcpi_error *err);

/* Adds n samples at offset; the count saturates at DCPI_COUNT_MAX.
 * -1/EINVAL if offset >= tsize (when tsize is nonzero), -1/ENOMEM. */
int dcpi_profile_add(struct dcpi_profile *p, uint32_t offset, uint64_t n);
/* Adds n entries sorted by increasing offset (duplicates allowed) in one
 * linear merge; same errors as dcpi_profile_add, and p is unchanged on
 * error. */
int dcpi_profile_add_counts(struct dcpi_profile *p, const struct dcpi_count *c, size_t n);
/* Samples at offset (0 if none). */
uint32_t dcpi_profile_count(const struct dcpi_profile *p, uint32_t offset);
/* Footer totals: addresses with samples, and the saturated sum. */
uint32_t dcpi_profile_total_offsets(const struct dcpi_profile *p);
uint32_t dcpi_profile_total_samples(const struct dcpi_profile *p);

/* Parses a whole file image buf[0..len) named name (for messages).  On
 * success *out is a new profile the caller frees; on failure *out is NULL.
 * Strict (spec "ASCII HEADER", "BINARY DATA FOR MAJOR-VERSION 0"): every
 * required line exactly once (and each optional line at most once), values
 * that fit their fields (numbers in 64 bits), major version 0 only, chunks
 * sorted, non-overlapping, of at least one count and within tsize, a
 * footer whose totals match (total_samples saturated), nothing after it. */
int dcpi_profile_parse(const void *buf, size_t len, const char *name,
    struct dcpi_profile **out, struct dcpi_error *err);
/* Reads and parses the file at path. */
int dcpi_profile_read(const char *path, struct dcpi_profile **out,
    struct dcpi_error *err);

/* Encodes p: header (required lines, optional ones present, unknown lines,
 * one blank between keyword and value,
 * "samples" padded with blanks so the header is a multiple of 4 bytes),
 * chunks (a new chunk only where a run of zero counts is longer than a chunk
 * header, i.e. more than 2 words), footer.  *buf is malloc'd, caller frees;
 * *len its size in bytes.  -1/EINVAL if a required field is missing. */
int dcpi_profile_encode(const struct dcpi_profile *p, void **buf, size_t *len,
    struct dcpi_error *err);
/* Encodes p and replaces path atomically with dcpi_atomic_write (file.h;
 * mode 0644 modified by the umask); errors as dcpi_atomic_write's or
 * dcpi_profile_encode's. */
int dcpi_profile_write(const char *path, const struct dcpi_profile *p,
    struct dcpi_error *err);

/* Adds the counts of from into into.  Both must have the same image, event,
 * period, tstart and tsize, else -1/EINVAL naming the field that differs
 * and into is unchanged.  Unknown lines of from that into lacks are
 * appended. */
int dcpi_profile_merge(struct dcpi_profile *into, const struct dcpi_profile *from,
    struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
