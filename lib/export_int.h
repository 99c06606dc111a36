/* Helpers shared by the exporters and importers (not installed). */
#ifndef DCPI_EXPORT_INT_H
#define DCPI_EXPORT_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <dcpi/export.h>

#include "internal.h"

/* A growable output buffer; after an allocation failure every append is a
 * no-op and eb_finish reports ENOMEM, so writers check once at the end. */
struct ebuf {
	char	*p;
	size_t	 len, cap;
	int	 failed;
};
void eb_append(struct ebuf *b, const void *data, size_t n);
void eb_printf(struct ebuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void eb_u32(struct ebuf *b, uint32_t v);
void eb_u64(struct ebuf *b, uint64_t v);
/* Hands the buffer to *buf and *len; -1/ENOMEM (buffer freed) after a failure. */
int eb_finish(struct ebuf *b, void **buf, size_t *len, struct dcpi_error *err);

/* lib_seterr (errno e, "NAME: WHERE: message" into err, -1) is in internal.h. */

/* Little-endian loads. */
uint32_t ex_le32(const unsigned char *p);
uint64_t ex_le64(const unsigned char *p);
/* A copy of s with blanks and what prof escapes (text_len) replaced by
 * '_', a byte at a time; NULL/ENOMEM. */
char *ex_token(const char *s);
/* Index of the first byte of s[0..n) that may not stand in a DCPI header
 * value (specs/dcpiformat.txt, <rest_of_line> of an ASCII header): a
 * control byte (below 0x20, or 0x7f), a byte above 0x7f, or a blank in
 * first place.  n if there is none.  Imported names become header lines,
 * directory names and terminal output, so they are held to this. */
size_t ex_header_bad(const char *s, size_t n);
/* Sorted, merged samples of a profile as a new profile with the image's
 * header fields copied (counts empty); NULL/ENOMEM. */
struct dcpi_profile *ex_profile_like(const char *image, const char *path,
    const char *event, uint64_t period, uint64_t tstart, uint64_t tsize);

/* Nonzero if one of profiles[0..n) has a label line (dcpi/label.h). */
int ex_labelled(const struct dcpi_profile *const *profiles, size_t n);
/* Their labels ("[none]" for the unlabelled) appended to b: "X" for one,
 * "several (X, Y)" sorted for more. */
void ex_labels(struct ebuf *b, const struct dcpi_profile *const *profiles, size_t n);

/* The checks every *_encode_stacks makes: each stack has depth >= 1 and a
 * frames array, each frame a profile index below n, DCPI_EXPORT_NOPROF or
 * DCPI_EXPORT_TRUNCATED.
 * 0, or -1/EINVAL "FMT: stack I: ..." in err. */
int ex_stacks_check(const struct dcpi_export_stack *stacks, size_t n_stacks,
    size_t n, const char *fmt, struct dcpi_error *err);
/* The frames of a stack up to the first one not exported (of no profile,
 * or [truncated]). */
uint32_t ex_stack_depth(const struct dcpi_export_stack *st);
/* "[truncated: REASON]" (as dcpictl stacks names it) in buf, len bytes;
 * returns buf. */
const char *ex_truncated_name(uint32_t reason, char *buf, size_t len);
/* "[truncated: REASON]" in buf (len bytes) if the frame after the ones
 * exported ends a chain cut short, and that frame; else NULL. */
const struct dcpi_export_frame *ex_stack_truncated(const struct dcpi_export_stack *st,
    char *buf, size_t len);
/* The calls of one stack, each once: the k (frames[k + 1] calls frames[k])
 * below the first frame not exported, with an earlier k of the same pair
 * of frames left out (a recursive stack passes one call several times but
 * its samples are under it once).  ks holds st->depth entries; returns how
 * many it filled.  Quadratic in the depth (at most DCPI_STACK_DEPTH_MAX,
 * and stacks are short), which needs no allocation. */
size_t ex_stack_calls(const struct dcpi_export_stack *st, uint32_t *ks);

/* Samples that stacks put at a leaf: (profile index, offset, count). */
struct ex_leaf {
	size_t		 prof;
	uint32_t	 offset;
	uint64_t	 count;
};
/* The leaves of the stacks (frames[0] of an exported profile), sorted by
 * (prof, offset) and merged, counts saturating: *nl of them, malloc'd
 * (never NULL on success, even for none); NULL/ENOMEM. */
struct ex_leaf *ex_stack_leaves(const struct dcpi_export_stack *stacks,
    size_t n_stacks, size_t *nl);
/* The samples of profile prof's count c that no stack accounts for: c's
 * count less the leaves' count at its offset, 0 where stacks hold more.
 * Called for profiles in increasing index and counts in increasing
 * offset, *l (0 at first) the cursor into leaves[0..nl). */
uint64_t ex_flat_rest(const struct ex_leaf *leaves, size_t nl, size_t *l, size_t prof,
    const struct dcpi_count *c);

/* The synthetic address space of the pprof exports, where images have no
 * addresses of their own (offsets from tstart, and PIEs all at 0): image
 * after image from EX_BASE, each over its text rounded up to pages
 * (ex_map_end), an unmapped page between two. */
#define EX_BASE		0x10000000000ULL
uint64_t ex_map_end(uint64_t base, uint64_t tsize);
uint64_t ex_next_base(uint64_t base, uint64_t tsize);

#endif
