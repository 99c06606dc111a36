/*
 * libdcpi: call chains, the per-epoch stack file (dcpi(5) "Stacks").
 *
 * The DCPI profiles keep the flat counts per PC; the stacks of an epoch
 * and host, for every event and label, go into one file of our own beside
 * them, DB/EPOCH/HOST/stacks, written as the profiles are (read, merge,
 * write a temporary file, rename).  Its format, "dcpi-stacks 1", follows
 * the profile format's plan (specs/dcpiformat.txt): a text header, one
 * item a line, then a little-endian binary part ending in a footer.
 *
 *   dcpi-stacks 1
 *   epoch EPOCH                     10 or 14 digits, the epoch's name
 *   host HOST
 *   image IDX ID TSTART TSIZE PATH  zero or more, IDX 0, 1, 2 ... in order
 *   event IDX EVENT                 zero or more, IDX from 0
 *   chains IDX PERIOD ROUTE         zero or one per event, IDX increasing
 *   label IDX LABEL                 zero or more, IDX from 0
 *   frames N
 *   stacks M
 *   samples
 *
 * Fields are separated by one blank (' ').  IDX, TSIZE, N and M are
 * decimal (N and M at most 2^32 - 2), ID the image id of dcpi/image.h (build-id
 * or content hash: 1 to DCPI_STACK_ID_MAX lowercase hex digits), TSTART
 * the image's text start in hex without "0x".  HOST, PATH, EVENT (the
 * libpfm4 string) and LABEL are the rest of the line: at least one
 * character, the first not a blank.  Image ids, events and labels are
 * each unique.  A chains line says how the stacks of event IDX were
 * sampled: PERIOD (decimal, at most 2^63 - 1) events of the event between
 * two chains (cpu-clock: nanoseconds), which may be a multiple of the
 * flat profiles' period (dcpid's callchain-period), 0 for not said; ROUTE
 * "fp" (the kernel walked frame pointers), "dwarf" (dcpid unwound the
 * user frames from CFI) or "mixed" (flushes of both merged).  An event
 * without one (files before chains lines) is PERIOD 0, ROUTE fp: its
 * chains were sampled with every sample of the event, at its profiles'
 * period.  A reader weighs a stack's count by its event's PERIOD (events
 * = count x PERIOD); the callers frame pointers miss are only fp's to
 * repair.  Lines "WORD REST" of another keyword between the host and
 * frames lines are unknown lines: kept, in order, and written back after
 * the label lines.  Every line ends in "\n"; the header holds no NUL.
 *
 * The binary part follows "samples\n" at once (no padding; every value
 * little-endian, read bytewise):
 *
 *   N frames  u32 image; u32 offset
 *   M stacks  u32 event; u32 label; u64 count; u32 depth; u32 frame[depth]
 *   footer    u32 M; u64 total
 *
 * A frame is an image index and an offset from that image's TSTART, below
 * its TSIZE; image DCPI_STACK_NOIMAGE with offset 0 is a frame dcpid could
 * not attribute.  Frames are unique (image, offset) pairs.  A stack is an
 * event index, a label index or DCPI_STACK_NOLABEL, a count of samples
 * (at least 1), and depth (1 to DCPI_STACK_DEPTH_MAX) frame indexes, the
 * sampled PC first, its callers after.  Stacks are unique (event, label,
 * frames).  The footer repeats M and gives the sum of the counts
 * (saturated at UINT64_MAX); nothing follows it.
 *
 * The reader is strict: every line in order and well formed, indexes dense
 * and in range, no duplicates, footer matching, exact length.  Errors, as
 * in error.h: functions returning int give 0, or -1 with errno (EINVAL
 * for a malformed file or argument, ENOMEM, or the failed system call's)
 * and, when err is not NULL, a one-line message naming the file, the line
 * or byte offset and what was expected, e.g. "stacks: byte 212: stack 3:
 * depth 0, expected 1 to 1024".
 */
#ifndef DCPI_STACKFILE_H
#define DCPI_STACKFILE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_STACKS_FILE	"stacks"		/* DB/EPOCH/HOST/stacks */
#define DCPI_STACKS_MAGIC	"dcpi-stacks 1"		/* the first line */
#define DCPI_STACK_DEPTH_MAX	1024			/* frames of one stack */
#define DCPI_STACK_ID_MAX	128			/* hex digits of an image id */
#define DCPI_STACK_NOIMAGE	UINT32_MAX		/* frame's image: unattributed */
#define DCPI_STACK_NOLABEL	UINT32_MAX		/* stack's label: none */
/* A chain that dcpid's unwinding cut short (callchain = dwarf) ends in a
 * frame of the pseudo image of this path, at an offset that says why
 * (dcpi_stack_truncated_reason); an old reader shows it as a frame of an
 * image without symbols. */
#define DCPI_STACK_TRUNCATED_PATH	"[truncated]"

/* Why a chain ended early, from its [truncated] frame's offset: the walk
 * of the user stack found "stack-copy" (a frame's memory outside the copy
 * of the stack the kernel gave), "no-table" (code without call-frame
 * information, nor frame pointers: JIT, anonymous, stripped of .eh_frame),
 * "no-row" (a table without a rule there), "unhandled" (a rule the walk
 * does not evaluate), "loop" (a frame that did not move the stack up);
 * "outermost" and "depth" (0 and 1) end no chain early.  A constant
 * string; "unknown" for another offset. */
const char *dcpi_stack_truncated_reason(uint64_t offset);

/* How an event's chains were sampled (its chains line). */
#define DCPI_STACK_ROUTE_FP	0	/* frame pointers, walked by the kernel */
#define DCPI_STACK_ROUTE_DWARF	1	/* user frames unwound by dcpid from CFI */
#define DCPI_STACK_ROUTE_MIXED	2	/* both, in flushes merged */
struct dcpi_stack_chains {
	uint64_t	 period;	/* events between two chains; 0: not said */
	unsigned	 route;		/* DCPI_STACK_ROUTE_* */
};
/* "fp", "dwarf", "mixed" (the file's words); "unknown" for another. */
const char *dcpi_stack_route_name(unsigned route);

/* An image of the file (strings malloc'd, owned by the file). */
struct dcpi_stack_image {
	char		*id;		/* lowercase hex image id */
	uint64_t	 tstart;	/* virtual address of the text */
	uint64_t	 tsize;		/* bytes of text; frame offsets are below */
	char		*path;		/* as the profiles' path line */
};

/* A frame: (image index, offset from its tstart); image
 * DCPI_STACK_NOIMAGE (offset 0) for a frame that was not attributed. */
struct dcpi_stack_frame {
	uint32_t	 image;
	uint32_t	 offset;
};

/* A stack: depth indexes into the file's frames, leaf first. */
struct dcpi_stack {
	uint32_t	 event;		/* index into events */
	uint32_t	 label;		/* index into labels, or DCPI_STACK_NOLABEL */
	uint64_t	 count;		/* samples, >= 1, saturating at UINT64_MAX */
	uint32_t	 depth;		/* 1 to DCPI_STACK_DEPTH_MAX */
	uint32_t	*frames;	/* depth frame indexes */
};

struct dcpi_stackfile_index;

/*
 * A stack file in memory.  Every array and string is owned by the file and
 * freed by dcpi_stackfile_free(); callers read the fields and change them
 * only through the functions below (the private index must agree with
 * them).  Arrays hold their n_* elements, in file order.
 */
struct dcpi_stackfile {
	char			*epoch;		/* YYYYMMDDHHMMSS (or YYMMDDHHMM) */
	char			*host;
	struct dcpi_stack_image	*images;
	size_t			 n_images;
	char			**events;	/* libpfm4 event strings */
	size_t			 n_events;
	char			**labels;
	size_t			 n_labels;
	struct dcpi_stack_frame	*frames;
	size_t			 n_frames;
	struct dcpi_stack	*stacks;
	size_t			 n_stacks;
	char			**unknown;	/* unknown header lines, verbatim, no "\n" */
	size_t			 n_unknown;
	struct dcpi_stackfile_index *index;	/* private: the interning tables */
	struct dcpi_stack_chains *chains;	/* n_events: each event's chains line */
};

/* A frame for dcpi_stackfile_add: the image by its id (NULL: a frame that
 * was not attributed; the other fields are then ignored), text range and
 * path (as dcpi/image.h and the profiles give them), and the frame's
 * offset from tstart (below tsize). */
struct dcpi_stack_addframe {
	const char	*id;
	uint64_t	 tstart, tsize;
	const char	*path;
	uint32_t	 offset;
};

/* A new empty file for the epoch's name (10 or 14 digits) and host (not
 * empty, no newline, not starting with a blank); free with
 * dcpi_stackfile_free.  NULL with EINVAL for a bad epoch or host, ENOMEM. */
struct dcpi_stackfile *dcpi_stackfile_new(const char *epoch, const char *host);
/* Frees sf and everything it owns; NULL is allowed. */
void dcpi_stackfile_free(struct dcpi_stackfile *sf);

/*
 * Adds count samples of one stack: frames[0..depth), the sampled PC first,
 * of event (a libpfm4 string) under label (NULL: unlabelled).  Images (by
 * id), events, labels, frames and the stack itself are interned: a stack
 * already there gets count added (saturating at UINT64_MAX).  O(depth) on
 * average.  The first frame of an image id sets its tstart, tsize and path;
 * a later one with another tstart or tsize is refused (another path is
 * not: the same file seen at another path).  count 0 adds nothing.
 * Errors: -1/EINVAL for depth 0 or above DCPI_STACK_DEPTH_MAX, an event or
 * label that is empty, holds a newline or starts with a blank, an id that
 * is not 1 to DCPI_STACK_ID_MAX lowercase hex digits, a path as the event,
 * an offset not below tsize, or a differing tstart or tsize; -1/EOVERFLOW
 * when a table (images, events, labels, frames, stacks) already holds
 * 2^32 - 2 entries; -1/ENOMEM.  sf is unchanged
 * on error.
 */
int dcpi_stackfile_add(struct dcpi_stackfile *sf, const char *event,
    const char *label, const struct dcpi_stack_addframe *frames, uint32_t depth,
    uint64_t count, struct dcpi_error *err);

/* Sets event's chains line (interning the event if new): period 0 (not
 * said) to INT64_MAX, route DCPI_STACK_ROUTE_*; the counts already there
 * are not changed.  -1/EINVAL for a bad event (as dcpi_stackfile_add),
 * period or route; -1/ENOMEM or EOVERFLOW. */
int dcpi_stackfile_set_chains(struct dcpi_stackfile *sf, const char *event,
    uint64_t period, unsigned route, struct dcpi_error *err);

/* Adds every stack of from into into (counts of stacks in both add up),
 * matching images by id, events and labels by string; from's unknown
 * lines that into lacks are appended.  An event's chains of two periods
 * (a reload changed it between two flushes of an epoch) are kept at the
 * shorter: the other's counts multiplied by its period over that one,
 * rounded (at least 1), so that count x period stays each stack's events;
 * a period not said (0) takes the other's as it is.  Routes that differ
 * become DCPI_STACK_ROUTE_MIXED.  -1/EINVAL, into unchanged, when the
 * epochs or hosts differ or an image id has another tstart or tsize in
 * each; -1/ENOMEM or EOVERFLOW with into holding a part of from's stacks
 * (each whole: into stays a valid file). */
int dcpi_stackfile_merge(struct dcpi_stackfile *into,
    const struct dcpi_stackfile *from, struct dcpi_error *err);

/* The file's bytes, as above: *buf malloc'd (caller frees), *len bytes.
 * -1/ENOMEM, or -1/EOVERFLOW for more than 2^32 - 2 frames or stacks. */
int dcpi_stackfile_encode(const struct dcpi_stackfile *sf, void **buf,
    size_t *len, struct dcpi_error *err);

/* Parses buf[0..len), the file named name (for messages).  On success *out
 * is a new file (with its interning tables, so that stacks can be added or
 * merged into it) the caller frees; on failure *out is NULL, errno EINVAL
 * (or ENOMEM) and err says "NAME: line N: ..." or "NAME: byte N: ...". */
int dcpi_stackfile_parse(const void *buf, size_t len, const char *name,
    struct dcpi_stackfile **out, struct dcpi_error *err);
/* Reads the whole file at path (dcpi_read_file) and parses it; errors as
 * dcpi_read_file's (ENOENT when there is none) or the parser's. */
int dcpi_stackfile_read(const char *path, struct dcpi_stackfile **out,
    struct dcpi_error *err);
/* Reads the file name below the directory dirfd (show names it in
 * messages; NULL: name) as dcpid's flush does: never through a symbolic
 * link, only a regular file, mapped (mmap) rather than copied to the heap
 * and its pages given back as the parser passes them, so that reading a
 * large file costs about the tables it becomes, not those and its bytes
 * too.  The file must not be truncated meanwhile (SIGBUS): files of the
 * database are only ever replaced by rename (dcpi_atomic_writeat).  Errors
 * as dcpi_stackfile_parse's, or -1 with errno (ENOENT when there is none,
 * ELOOP for a link, EINVAL for a special file) and err "SHOW: ...". */
int dcpi_stackfile_readat(int dirfd, const char *name, const char *show,
    struct dcpi_stackfile **out, struct dcpi_error *err);
/* Replaces the file name below dirfd atomically as dcpi_atomic_writeat
 * does (temporary file, fsync, rename, fsync of the directory; mode
 * before the umask), the bytes dcpi_stackfile_encode would give written
 * straight into the temporary file through stdio: no copy of the file is
 * held in memory.  -1/EOVERFLOW as dcpi_stackfile_encode, else errors as
 * dcpi_atomic_writeat's (the old file then stays as it was, unless only
 * the directory's fsync failed, after the rename). */
int dcpi_stackfile_writeat(int dirfd, const char *name, const char *show,
    const struct dcpi_stackfile *sf, mode_t mode, struct dcpi_error *err);
/* dcpi_stackfile_writeat with dcpi_atomic_writeat_flags's flags:
 * DCPI_ATOMIC_NO_DIRSYNC leaves dirfd's fsync to the caller (dcpid's
 * flush, which fsyncs each directory once at its end).  -1/EINVAL for an
 * unknown flag bit; otherwise as dcpi_stackfile_writeat. */
int dcpi_stackfile_writeat_flags(int dirfd, const char *name, const char *show,
    const struct dcpi_stackfile *sf, mode_t mode, int flags,
    struct dcpi_error *err);
/* Encodes sf and replaces path atomically with dcpi_atomic_write (mode
 * 0644 before the umask): a crash leaves the old file or the new one. */
int dcpi_stackfile_write(const char *path, const struct dcpi_stackfile *sf,
    struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
