/*
 * libdcpi: other tools' profile formats, written from and read into DCPI
 * profiles (lib/dcpi/profile.h).
 *
 *   pprof      gperftools CPU profile (specs/gperftools-cpuprofile.txt)
 *   pprof-proto  pprof's profile.proto, gzipped (proto/profile.proto of
 *              github.com/google/pprof; Debian: golang-github-google-pprof-dev,
 *              /usr/share/gocode/src/github.com/google/pprof/proto/); written
 *              only
 *   gmon       GNU gprof gmon.out (specs/gprof-gmon.txt, <sys/gmon_out.h>)
 *   callgrind  Callgrind format 1 (specs/callgrind-format.txt)
 *   xprof      Sun profile-feedback text (specs/xprof_text.txt)
 *   afdo       LLVM's sample profile, text form (AutoFDO; clang's
 *              -fprofile-sample-use); written only
 *
 * Encoders return a malloc'd buffer (*buf, *len bytes) that the caller
 * frees.  Parsers take a whole file image buf[0..len) and a name used in
 * messages, and return a new object that the caller frees with the
 * matching _free function.  Errors as in error.h: -1 with errno (EINVAL
 * for malformed input or arguments, ENOMEM) and, when err is not NULL, a
 * one-line message naming the file, the byte offset or line, and the rule
 * broken.
 */
#ifndef DCPI_EXPORT_H
#define DCPI_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>
#include <dcpi/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dcpi_format {
	DCPI_FMT_UNKNOWN = 0,
	DCPI_FMT_DCPI,		/* "version pdb-..." */
	DCPI_FMT_PPROF,		/* header slots 0, 3, 0 (32- or 64-bit) */
	DCPI_FMT_GMON,		/* "gmon" cookie */
	DCPI_FMT_CALLGRIND,	/* "version: 1", "creator:", "events:" ... */
	DCPI_FMT_XPROF,		/* "PROFILE-FEEDBACK-DATA:" */
};

/* Recognizes a file by its first bytes, never by its name. */
enum dcpi_format dcpi_format_detect(const void *buf, size_t len);
/* "dcpi", "pprof", "gmon", "callgrind", "xprof", or "unknown". */
const char *dcpi_format_name(enum dcpi_format f);

/* Nonzero if event (a libpfm4 string, e.g. "perf::cpu-clock:u") counts time,
 * so that its period is in nanoseconds: cpu-clock and task-clock. */
int dcpi_event_is_time(const char *event);

/*
 * What the importers and the pprof exporter need to know about an image's
 * ELF file: its id, the text range and where the text lies in the file.
 * Strings are malloc'd and owned by the struct.
 */
struct dcpi_image_info {
	char		*path;
	char		*image;		/* image id, tstart, tsize: dcpi/image.h's */
	uint64_t	 tstart;
	uint64_t	 tsize;
	uint64_t	 toffset;	/* file offset of tstart */
};
/* Reads the ELF file at path with dcpi_elf_image_path (the id dcpid gives
 * its profiles, so an import merges with them).  -1/errno as that. */
int dcpi_image_info_read(const char *path, struct dcpi_image_info *info,
    struct dcpi_error *err);
void dcpi_image_info_clear(struct dcpi_image_info *info);

/*
 * Procedure and source position of an image-relative offset, from the
 * caller's symbolizer.  Returns 0 and fills loc (strings stay valid until
 * the next call) or -1 when the offset is not in any known procedure.
 */
struct dcpi_export_loc {
	const char	*proc;		/* linker symbol name */
	uint64_t	 proc_offset;	/* image-relative offset of its first byte */
	const char	*file;		/* source file, or NULL */
	unsigned	 line;		/* source line, 0 if unknown */
};
typedef int (*dcpi_export_resolve_fn)(void *arg, const struct dcpi_profile *p,
    uint32_t offset, struct dcpi_export_loc *loc);

/*
 * Call chains for the encoders: the stack files of dcpid -g
 * (dcpi/stackfile.h) restated in terms of the profiles being exported, so
 * that a writer needs no stack file.  A frame names the profile of its
 * image by its index in the encoder's profiles[] (any profile of that
 * image id and tstart: the frame's image, its event and label are the
 * stack's business), and an offset from that profile's tstart.  Frames
 * whose image is not exported (DCPI_EXPORT_NOPROF) end a chain: what lies
 * beyond them is left out.  The stack's samples belong to the profile of
 * its leaf, frames[0] (its event and label): the caller picks, for the
 * leaf, the profile of the stack's own event and label.  Arrays are the
 * caller's; the encoders only read them.
 */
#define DCPI_EXPORT_NOPROF	((size_t)-1)
/* A frame of the [truncated] pseudo image (dcpi/stackfile.h's
 * DCPI_STACK_TRUNCATED_PATH), the end of a chain that dcpid's unwinding
 * cut short: its offset is the reason (dcpi_stack_truncated_reason).  It
 * ends a chain as DCPI_EXPORT_NOPROF does; the formats that name frames
 * name it "[truncated: REASON]" (pprof-proto: a function of that name,
 * Callgrind: an fn= of that name calling the last frame kept). */
#define DCPI_EXPORT_TRUNCATED	((size_t)-2)
struct dcpi_export_frame {
	size_t		 prof;		/* index into profiles[], DCPI_EXPORT_NOPROF
					   or DCPI_EXPORT_TRUNCATED */
	uint32_t	 offset;	/* bytes from that profile's tstart */
};
struct dcpi_export_stack {
	uint64_t	 count;		/* samples, >= 1 */
	uint32_t	 depth;		/* frames, >= 1 */
	const struct dcpi_export_frame *frames;	/* leaf (the sampled PC) first */
};

/* ---- pprof (gperftools CPU profile, 64-bit slots, little-endian) ---- */

/*
 * Encodes the profiles (same event) as one CPU profile.  Each sample count
 * becomes a record with a one-PC call chain (counts above the slot range
 * cannot occur: slots are 64 bit).  Image i is placed at a synthetic,
 * page-aligned, non-overlapping address range; its mapping line gives
 * toffsets[i] (file offset of tstart; NULL or a value of UINT64_MAX means
 * "tstart", right for PIEs and shared objects) so that pprof's
 * address-to-file translation finds the ELF vaddr tstart + offset.  The
 * header's period is profiles[0]'s period in microseconds for a time
 * event (at least 1), else the period itself.  A "dcpi-image:" line per
 * image keeps id, tstart, tsize, event and period for our reader, and a
 * "dcpi-label: ADDR LABEL" line follows the mapping of a labelled profile
 * (dcpi/label.h; pprof skips both).
 */
int dcpi_pprof_encode(const struct dcpi_profile *const *profiles,
    const uint64_t *toffsets, size_t n, void **buf, size_t *len,
    struct dcpi_error *err);
/*
 * dcpi_pprof_encode with call chains (specs/gperftools-cpuprofile.txt,
 * "Profile records": call chain PCs, most recently called first): each
 * stack becomes a record of its count and its frames' addresses, up to
 * its first frame of an image not exported.  A profile's samples at an
 * offset are written as one-PC records less those that stacks with that
 * leaf account for, so that the total stays the profiles' (stacks
 * summing to more than the profile holds there leave no one-PC record).
 * Caller frames are the return addresses dcpid records: pprof takes 1
 * from each to land on the call.  n_stacks 0 writes what
 * dcpi_pprof_encode writes.  -1/EINVAL for a frame naming a profile
 * index >= n other than DCPI_EXPORT_NOPROF, or a stack of depth 0;
 * -1/ENOMEM.
 */
int dcpi_pprof_encode_stacks(const struct dcpi_profile *const *profiles,
    const uint64_t *toffsets, size_t n, const struct dcpi_export_stack *stacks,
    size_t n_stacks, void **buf, size_t *len, struct dcpi_error *err);

/* ---- pprof profile.proto (gzipped; github.com/google/pprof, proto/) ---- */

/* What the profiles do not say about the collection, all optional. */
struct dcpi_proto_meta {
	int64_t		 time_nanos;	/* start, ns since 1970 UTC (0: unknown) */
	int64_t		 duration_nanos; /* span of the collection, ns (0: unknown) */
	const char *const *comments;	/* n_comments lines for Profile.comment */
	size_t		 n_comments;
};

/*
 * Encodes the profiles (same event) and their call chains as a gzipped
 * perftools.profiles.Profile, the format of Go's pprof, Parca, Pyroscope
 * and Cloud Profiler (proto/profile.proto of github.com/google/pprof):
 *   sample_type  [samples/count, cpu/nanoseconds] for a time event
 *                (dcpi_event_is_time), else [samples/count, EVENT/count];
 *                period_type the second, period profiles[0]'s period;
 *                a sample's values are its count and count * period;
 *   mapping      one per image (id, tstart), placed in a synthetic
 *                address space as dcpi_pprof_encode places images, with
 *                file_offset toffsets[i] (as there) so that an address
 *                maps to the ELF vaddr tstart + offset; filename the
 *                profile's path, build_id its image id (the GNU build-id,
 *                or the content hash of dcpi/image.h); has_functions,
 *                has_filenames and has_line_numbers when every location
 *                of the mapping got a procedure (a line) from resolve;
 *   location     one per address: a leaf PC, or a caller frame's return
 *                address less one (the call instruction's byte, which
 *                profile.proto allows), with a line naming its function
 *                and source line where resolve (may be NULL) finds them;
 *   function     one per procedure (image and proc_offset): name and
 *                system_name the symbol's, filename and start_line those
 *                of its first byte (else the location's file);
 *   sample       one per stack (locations leaf first, up to the first
 *                frame of an image not exported), belonging to the leaf's
 *                profile; then one per offset of each profile for the
 *                samples the stacks there do not account for (as
 *                dcpi_pprof_encode_stacks), so the totals stay the
 *                profiles'; the profile's label as a string label
 *                "label" (dcpi/label.h);
 *   time_nanos, duration_nanos, comment from meta (NULL: none);
 *   strings (paths, names, labels) as valid UTF-8, as proto3 wants: a
 *   byte that starts no UTF-8 sequence becomes '?'.
 * n_stacks 0: one sample per PC.  *buf (malloc'd, caller frees) holds
 * *len bytes of gzip (RFC 1952).  -1/EINVAL for n 0 or a bad stack (as
 * dcpi_pprof_encode_stacks), -1/ENOMEM.
 */
int dcpi_pprof_proto_encode(const struct dcpi_profile *const *profiles,
    const uint64_t *toffsets, size_t n, const struct dcpi_export_stack *stacks,
    size_t n_stacks, dcpi_export_resolve_fn resolve, void *arg,
    const struct dcpi_proto_meta *meta, void **buf, size_t *len,
    struct dcpi_error *err);

struct dcpi_pprof_mapping {
	uint64_t	 start, end, offset;	/* [start, end), file offset */
	char		*path;
	/* From our "dcpi-image:" line, when present (has_dcpi). */
	int		 has_dcpi;
	char		*image, *event;
	uint64_t	 tstart, tsize, period;
};
struct dcpi_pprof_sample {
	uint64_t	 pc;		/* leaf PC (first in the call chain) */
	uint64_t	 count;		/* summed over records with that leaf */
};
struct dcpi_pprof {
	unsigned	 slot;		/* 4 or 8 bytes */
	uint64_t	 period_us;
	uint64_t	 n_records, total;
	struct dcpi_pprof_sample *samples;	/* sorted by pc, unique */
	size_t		 n_samples;
	struct dcpi_pprof_mapping *maps;	/* executable mappings, file order */
	size_t		 n_maps;
};
/* Parses a legacy CPU profile (specs/gperftools-cpuprofile.txt): the
 * header in 4- or 8-byte slots (which it finds), the records (count, PCs:
 * summed by leaf PC; a count of 0 or a chain starting at PC 0 is an
 * error), the trailer, and the text after it: the mappings of
 * /proc/self/maps format, the executable ones kept in file order, with
 * the "dcpi-image:" lines dcpi_pprof_encode writes. */
int dcpi_pprof_parse(const void *buf, size_t len, const char *name,
    struct dcpi_pprof **out, struct dcpi_error *err);
void dcpi_pprof_free(struct dcpi_pprof *pp);

/*
 * The samples of pp that fall in mappings of the image described by info
 * (a mapping whose path equals info->path or, failing that, has the same
 * basename), as a new DCPI profile (event perf::cpu-clock, period in ns
 * from the header) in *out.  *dropped gets the samples outside the image.
 * -1/EINVAL if no mapping matches.
 */
int dcpi_pprof_to_profile(const struct dcpi_pprof *pp, const char *name,
    const struct dcpi_image_info *info, struct dcpi_profile **out,
    uint64_t *dropped, struct dcpi_error *err);
/* Our own exports need no ELF file: one profile per mapping with a
 * "dcpi-image:" line.  *out is a malloc'd array of *n profiles. */
int dcpi_pprof_to_profiles(const struct dcpi_pprof *pp, const char *name,
    struct dcpi_profile ***out, size_t *n, struct dcpi_error *err);

/* ---- gmon.out (GNU gprof, 64-bit addresses, native byte order) ---- */

/*
 * Encodes one image's profile as a gmon.out of time-histogram records with
 * one 16-bit bin per 2 bytes of text (gprof's UNIT), at ELF vaddrs (as
 * gprof's symbols are), so a bin holds the samples at offsets 2k and 2k+1.
 * Records cover the sampled parts of the text only: runs of bins below
 * 65,536 share a record (a gap of 64 empty bins starts a new one), and a
 * bin above that gets a one-bin range of its own, repeated as often as its
 * count needs, which gprof adds up.  Time events: dimension "seconds", 's',
 * rate 1e9 / period (samples per second); others: the event's name (first
 * 15 bytes), '1', rate 1.
 */
int dcpi_gmon_encode(const struct dcpi_profile *p, void **buf, size_t *len,
    struct dcpi_error *err);
/*
 * dcpi_gmon_encode of profiles[which] with call-graph arcs
 * (specs/gprof-gmon.txt, GMON_TAG_CG_ARC: from_pc, self_pc, count) after
 * the histogram: for each stack whose leaf profile has the label of
 * profiles[which], each pair of adjacent frames both in profiles[which]'s
 * image (id and tstart) gives an arc from the caller frame's ELF vaddr to
 * the callee frame's (gprof finds the procedures that hold them), once
 * per stack however often a recursive stack repeats it, counting the
 * stack's samples.  Arcs of equal addresses add up; a count above
 * UINT32_MAX is split over several records, which gprof adds up.  gprof
 * shows the counts as calls: here they are samples under the call.
 * Errors as dcpi_gmon_encode's, and -1/EINVAL for which >= n or a bad
 * frame as dcpi_pprof_encode_stacks says.
 */
int dcpi_gmon_encode_stacks(const struct dcpi_profile *const *profiles, size_t n,
    size_t which, const struct dcpi_export_stack *stacks, size_t n_stacks,
    void **buf, size_t *len, struct dcpi_error *err);

/* One histogram range: the sum of the records with that exact range. */
struct dcpi_gmon_hist {
	uint64_t	 low_pc, high_pc;
	uint64_t	*bins;		/* n_bins */
	size_t		 n_bins, n_records;
};
struct dcpi_gmon {
	uint32_t	 version;
	uint32_t	 rate;		/* of every histogram record (checked) */
	char		 dimen[16];
	char		 abbrev;
	struct dcpi_gmon_hist *hists;	/* file order */
	size_t		 n_hists;
	size_t		 n_hist_records, n_arcs, n_bb;
	uint64_t	 total;
	size_t		 dim_at;	/* file offset of the first record's dimension */
};
/* Reads histogram, arc and basic-block records (64-bit addresses); records
 * of one range add up, ranges must not overlap (as gprof requires).  The
 * dimension (it becomes an event name: a header line and a directory) must
 * be printable ASCII without a leading blank, the abbreviation printable or
 * NUL: -1/EINVAL naming the byte otherwise. */
int dcpi_gmon_parse(const void *buf, size_t len, const char *name,
    struct dcpi_gmon **out, struct dcpi_error *err);
void dcpi_gmon_free(struct dcpi_gmon *g);
/*
 * The histogram as a DCPI profile of image info: each bin's samples go to
 * the offset of its first byte.  Dimension "seconds" gives event
 * perf::cpu-clock with period 1e9 / rate ns; others give the dimension as
 * the event, period 1.  *dropped: samples in bins outside the text.
 */
int dcpi_gmon_to_profile(const struct dcpi_gmon *g, const char *name,
    const struct dcpi_image_info *info, struct dcpi_profile **out,
    uint64_t *dropped, struct dcpi_error *err);

/* ---- Callgrind ---- */

/*
 * Encodes profiles of one or more images and events: "positions: instr
 * line", one event column per distinct event (names reduced to letters and
 * digits, the libpfm4 string as the long name), ob= per image, fl=/fn= from
 * resolve (NULL, or a failed lookup, gives fn=0xOFFSET and fl=???), with
 * name and subposition compression, summary: and totals:.  Instruction
 * positions are ELF vaddrs (tstart + offset).  Labelled profiles add a
 * "desc: Label: NAME" line ("several (A, B)" for more than one label).
 */
int dcpi_callgrind_encode(const struct dcpi_profile *const *profiles, size_t n,
    dcpi_export_resolve_fn resolve, void *arg, void **buf, size_t *len,
    struct dcpi_error *err);
/*
 * dcpi_callgrind_encode with calls (specs/callgrind-format.txt, "Cost
 * lines" and "Associations": cob=/cfi=/cfn=, calls=COUNT TARGET, then the
 * call site's position and the inclusive cost): after the self costs, for
 * each pair of adjacent frames (caller, callee) of a stack, once per stack
 * however often a recursive stack repeats it, the stack's samples in its
 * leaf profile's event column are inclusive cost of the callee at the
 * caller frame's position.  Calls of equal caller position, callee frame
 * and event add up; COUNT is those samples (a profiler does not count
 * calls), TARGET the callee frame's position.  Self costs, summary: and
 * totals: are dcpi_callgrind_encode's, so callgrind_annotate
 * --inclusive=yes shows each procedure's samples with those of its
 * callees.  n_stacks 0 writes what dcpi_callgrind_encode writes.  Errors
 * as that, and a bad frame as dcpi_pprof_encode_stacks says.
 */
int dcpi_callgrind_encode_stacks(const struct dcpi_profile *const *profiles,
    size_t n, const struct dcpi_export_stack *stacks, size_t n_stacks,
    dcpi_export_resolve_fn resolve, void *arg, void **buf, size_t *len,
    struct dcpi_error *err);

struct dcpi_callgrind_fn {
	char		*ob, *fl, *fn;
	uint64_t	*cost;		/* self cost per event */
};
struct dcpi_callgrind {
	char		**events;	/* n_events short names */
	size_t		 n_events;
	int		 has_positions_instr, has_positions_line;
	uint64_t	*totals;	/* self costs summed over all cost lines */
	uint64_t	 n_cost_lines, n_calls;
	struct dcpi_callgrind_fn *fns;	/* in order of first appearance */
	size_t		 n_fns;
};
/* Parses one part (a second "events:" is an error); checks "totals:" when
 * present against the sum of the cost lines. */
int dcpi_callgrind_parse(const void *buf, size_t len, const char *name,
    struct dcpi_callgrind **out, struct dcpi_error *err);
void dcpi_callgrind_free(struct dcpi_callgrind *cg);

/* ---- xprof_text ---- */

/*
 * Encodes profiles of one event: header "PROFILE-FEEDBACK-DATA: 4.3", an
 * OBJFILE per image (path; tv_sec from the epoch; a signature hashed from
 * the image id; sum and max), a PROC per procedure from resolve (offsets
 * without one form a procedure "unknown_0xOFFSET" each) whose counter
 * records are (offset within the procedure, samples), and a PROGRAM per
 * image with one OBJREF.  Whitespace in names becomes '_'.
 */
int dcpi_xprof_encode(const struct dcpi_profile *const *profiles, size_t n,
    dcpi_export_resolve_fn resolve, void *arg, void **buf, size_t *len,
    struct dcpi_error *err);

struct dcpi_xprof_counter {
	uint32_t	 id;
	uint64_t	 value;
};
struct dcpi_xprof_proc {
	char		*name;
	uint64_t	 signature;
	struct dcpi_xprof_counter *counters;
	size_t		 n_counters;
	int		 has_sum, has_max;
	uint64_t	 sum, max;
};
struct dcpi_xprof_obj {
	char		*path;
	uint64_t	 signature;
	struct dcpi_xprof_proc *procs;
	size_t		 n_procs;
	int		 has_sum, has_max;
	uint64_t	 sum, max;
};
struct dcpi_xprof_program {
	char		*path;
	char		**objrefs;
	size_t		 n_objrefs;
};
struct dcpi_xprof {
	unsigned	 major, minor;
	struct dcpi_xprof_obj *objs;
	size_t		 n_objs;
	struct dcpi_xprof_program *progs;
	size_t		 n_progs;
};
/* Parses the whole grammar, value profile records included (checked and
 * skipped); checks declared counts, that sum and max agree with the
 * counters, and that OBJREFs name a defined OBJFILE. */
int dcpi_xprof_parse(const void *buf, size_t len, const char *name,
    struct dcpi_xprof **out, struct dcpi_error *err);
void dcpi_xprof_free(struct dcpi_xprof *x);

/* ---- LLVM sample profile (AutoFDO), text form ---- */

struct dcpi_symtab;	/* dcpi/symbol.h */

/* What an AutoFDO export put where; samples count as in the profiles. */
struct dcpi_afdo_stats {
	uint64_t	 samples;	/* of the profiles */
	uint64_t	 placed;	/* at a PC with a DWARF function and line */
	uint64_t	 functions;	/* top-level function profiles written */
	uint64_t	 calls;		/* stack samples given to call targets */
};

/*
 * Encodes the profiles of one image (same image id and tstart: its
 * labels, to be added up; any event) as LLVM's sample profile in its text
 * form, which clang's -fprofile-sample-use, llvm-profdata (show, merge
 * --sample) and create_llvm_prof's readers take (LLVM's
 * include/llvm/ProfileData/SampleProfReader.h, "Text format"):
 *
 *   NAME:TOTAL:HEAD                 a function that holds sampled PCs
 *    OFFSET[.DISCR]: COUNT [TARGET:COUNT]...   a line of its own code
 *    OFFSET[.DISCR]: CALLEE:TOTAL   a call site where CALLEE was inlined,
 *     ...                           its lines one blank deeper, and so on
 *
 * from the DWARF of t (dcpi_symtab_open of that image, so that the file
 * read has the image's build-id: its own DWARF, or its separate
 * debuginfo; libdw): a PC's function is the DW_TAG_subprogram holding it,
 * its inlined instances the DW_TAG_inlined_subroutine scopes holding it
 * (call site DW_AT_call_line, DW_AT_GNU_discriminator), its line and
 * discriminator the line table's row (the base discriminator, as clang
 * keys it).  NAME and CALLEE are DW_AT_linkage_name (mangled), else
 * DW_AT_name, else t's symbol (a C name: no parentheses or '<'); a name
 * must be printable ASCII without blank or colon, else its samples are
 * left out (a callee's go to its call line).  OFFSET is the line less DW_AT_decl_line of the function
 * it is in (the inlined callee's, inside a nested profile), modulo 2^16.
 *   COUNT   the most samples at any one instruction of that line key
 *           (AutoFDO's rule without branch records): an instruction is
 *           sampled in proportion to its executions times its cost, and
 *           all of a line's instructions run as often as the line; the
 *           prologue's instructions excepted (from the entry PC,
 *           DW_AT_entry_pc or low_pc, to the line table's first row
 *           marked prologue_end), whose line ('{') clang's IR has no
 *           instruction of;
 *   TOTAL   the COUNTs of the function and of its inlined callees, added;
 *   HEAD    the most samples at one instruction of the prologue, which
 *           runs once a call; without any, the COUNT of the line of its
 *           entry PC, what clang estimates when a profile has none;
 *   TARGET  from stacks (frames as dcpi_pprof_encode_stacks takes them,
 *           NULL/0 for none): for each call (adjacent frames, once per
 *           stack as ex_stack_calls counts it) whose caller and callee
 *           frames are both of this image, at the line of the call (the
 *           return address less one) the function called, with the
 *           stack's samples: time under the call, not a number of calls,
 *           which ranks the targets of an indirect call as clang wants.
 * Functions hottest first (those of TOTAL and HEAD 0 left out), lines
 * and call sites by (OFFSET, DISCR).
 * Samples at PCs without a DWARF function or line are left out
 * (stats->samples less stats->placed); stats may be NULL.
 * *buf (malloc'd, caller frees) holds *len bytes.  -1 with errno and err:
 * ENODATA when t has no DWARF (the message names the debug file it looks
 * for, DEBUGDIR/.build-id/NN/REST.debug) or no sample is at a PC with
 * DWARF lines; EINVAL for n 0, profiles of two images, or a bad stack (as
 * dcpi_pprof_encode_stacks); ENOMEM.
 */
int dcpi_afdo_encode(const struct dcpi_profile *const *profiles, size_t n,
    struct dcpi_symtab *t, const struct dcpi_export_stack *stacks, size_t n_stacks,
    struct dcpi_afdo_stats *stats, void **buf, size_t *len, struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
