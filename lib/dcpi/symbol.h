/*
 * libdcpi: procedure names and source lines for the offsets of a profile
 * (DESIGN.md "Profile file": offsets are image-relative, ELF vaddr =
 * tstart + offset; specs/dcpiformat.txt, header fields path, image, tstart).
 *
 * A symbol table belongs to one image as a profile names it: its path, its
 * image id (GNU build-id in hex, or the content hash of a file without one,
 * image.h) and its tstart.  Sources:
 *   - the kernel ("[kernel.kallsyms]") and modules ("[NAME]"): the epoch's
 *     kallsyms snapshot (DB/EPOCH/HOST/kallsyms, or the snapshot of
 *     DB/kernels/ its kallsyms.ref names: kallsyms.h), text symbols only, module
 *     symbols by their "[NAME]" suffix; sizes run to the next symbol; of
 *     names at one address the last line's is kept, as perf report keeps
 *     it (__x64_sys_getppid, not __ia32_sys_getppid);
 *   - JIT pseudo-images ("[jit:COMM]"): the perf-map of the image id in the
 *     database's build-id cache (db.h, perfmap.h), a later line winning at
 *     one start;
 *   - ELF images (absolute paths, and "[vdso]"), the first file that holds
 *     the image, in this order (dcpi(5) "The build-id cache"):
 *       1. the recorded path, then the other paths the image was recorded
 *          at (opts->paths), when the file there has the image id;
 *       2. the database's build-id cache, DB/buildid/ID/executable;
 *       3. DEBUGDIR/.build-id/NN/REST.debug, also when the image file is
 *          gone or changed;
 *       4. debuginfod (its executable, else its debuginfo), only when
 *          DEBUGINFOD_URLS is set and not empty and opts->no_debuginfod is 0.
 *     In the file found: .symtab, else that of its separate debuginfo (by
 *     build-id as in 3, then .gnu_debuglink in the file's directory, its
 *     .debug/ and DEBUGDIR/DIR, then debuginfod), else a Go program's
 *     .gopclntab (.data.rel.ro.gopclntab in a PIE; the layouts of Go 1.2,
 *     1.16, 1.18 and 1.20 on) with its .dynsym, else .dynsym.  A .gopclntab that
 *     cannot be read fails the open (EINVAL naming the file).
 *     Function symbols (STT_FUNC, STT_GNU_IFUNC) only; a symbol of size 0
 *     runs to the next one.  C++ and Rust (legacy) names are demangled.
 *     A file without .symtab or debuginfo (Debian's stripped programs and
 *     libraries) also gets a procedure for each function of its .eh_frame
 *     that no symbol overlaps (a static function, assembly with frame
 *     information): named sub_ADDR, its start's ELF address in lowercase
 *     hex (as disassemblers name them: sub_15ae0), its extent the FDE's,
 *     up to the next FDE (.eh_frame_hdr's table, PT_GNU_EH_FRAME).
 * A file whose id differs from the image id is never used; when no source
 * holds the image, opening fails (ESTALE, ENOENT) so that callers show
 * NAME+0xOFFSET instead of a wrong name.  A file without a build-id too
 * large to hash (image.h, DCPI_IMAGE_HASH_MAX) is used as is.
 *
 * Errors as in error.h: -1 or NULL with errno, and a one-line message in
 * err (when not NULL) naming the file and what was wrong.
 */
#ifndef DCPI_SYMBOL_H
#define DCPI_SYMBOL_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One procedure.  Offsets, like the profile's, are relative to tstart. */
struct dcpi_symbol {
	const char	*name;		/* demangled; owned by the table */
	uint64_t	 start;		/* offset of the first byte */
	uint64_t	 size;		/* bytes (> 0) */
};

struct dcpi_symtab;	/* opaque */

/* Where to look; a NULL struct or NULL/0 members mean the defaults. */
struct dcpi_symtab_opts {
	const char	*kallsyms;	/* the epoch's kallsyms, DB/EPOCH/HOST/kallsyms
					 * (kernel, modules), read with
					 * dcpi_kallsyms_read (kallsyms.h) */
	const char	*debugdir;	/* separate debuginfo root, default "/usr/lib/debug" */
	int		 no_debuginfod;	/* nonzero: never ask debuginfod */
	const char	*db;		/* database whose build-id cache (db.h) to
					 * search, NULL for none */
	const char *const *paths;	/* n_paths other paths the image was
					 * recorded at (dataset.h), tried after
					 * path; NULL for none; not kept */
	size_t		 n_paths;
};

/*
 * Opens the symbol table of an image: path and imageid as in the profile's
 * header (imageid may be NULL to skip the id check and the searches by id),
 * tstart the profile's tstart.  Returns a table to release with
 * dcpi_symtab_close().  NULL with errno, and the message of the recorded
 * path's failure, when no source above has the image's symbols:
 *   ESTALE  the file's build-id (or content hash) is not imageid (message
 *           names both);
 *   ENOENT  the file (or kallsyms snapshot for the kernel/a module, or the
 *           perf-map of a JIT pseudo-image) is missing;
 *   ENODATA no function symbol (stripped of its symbols and its frame
 *           information, or [vdso] not in the cache, and other pseudo
 *           paths);
 *   EINVAL  not an ELF file, or a malformed kallsyms or perf-map line
 *           (names the line);
 *   ENOMEM.
 */
struct dcpi_symtab *dcpi_symtab_open(const char *path, const char *imageid,
    uint64_t tstart, const struct dcpi_symtab_opts *opts, struct dcpi_error *err);
void dcpi_symtab_close(struct dcpi_symtab *t);

/* The file the table's symbols, code and source lines come from: the
 * recorded path, a build-id cache entry, a debug file, debuginfod's copy;
 * path for the kernel and modules.  Owned by t. */
const char *dcpi_symtab_path(const struct dcpi_symtab *t);

/* The procedure containing offset, or NULL if none does (callers group
 * such samples under "[unknown]").  The pointer lives as long as t.
 * O(log n). */
const struct dcpi_symbol *dcpi_symtab_lookup(const struct dcpi_symtab *t, uint64_t offset);

/* All procedures, sorted by start, non-overlapping (of two symbols at one
 * address one is kept, an ELF file's global one, kallsyms' and perf maps'
 * last; the alias is dropped); *n gets the count.  Owned by t. */
const struct dcpi_symbol *dcpi_symtab_symbols(const struct dcpi_symtab *t, size_t *n);

/* Procedure by name (demangled, or the raw symbol name); the first in
 * address order.  NULL if none. */
const struct dcpi_symbol *dcpi_symtab_find(const struct dcpi_symtab *t, const char *name);

/*
 * The separate debuginfo file of the ELF image open on fd (read, not
 * closed; recorded at the absolute path, its GNU build-id imageid in hex,
 * NULL for none), looked for as dcpi_symtab_open looks for one but only
 * under the debug root debugdir (NULL: "/usr/lib/debug"), whose files
 * are the administrator's: DEBUGDIR/.build-id/NN/REST.debug, then the
 * image's .gnu_debuglink name in DEBUGDIR/DIR (DIR: path's directory);
 * never the image's own directory, which whoever ran the image may
 * control, and never debuginfod.  The file must have a .symtab and, with
 * imageid, that build-id.  For a daemon that reads on behalf of other
 * users' processes (dcpid's unwind tables from .debug_frame).
 * Returns the file's descriptor (read-only, close-on-exec; the caller's
 * to close), or -1 with errno ENOENT (none found), EINVAL (fd is no ELF
 * file), ENOMEM.
 */
int dcpi_debuginfo_fd(int fd, const char *path, const char *imageid, const char *debugdir);

/*
 * Source position of the instruction at offset, from DWARF (libdw) of the
 * file or its separate debuginfo, else, for a Go program without DWARF,
 * from its .gopclntab's line tables: *file (owned by t, valid until close)
 * and *line (1-based).  0 on success; -1 with ENOENT when there is no line
 * information for offset (or no DWARF at all), ESTALE if the file changed
 * since dcpi_symtab_open().  The table holds no open file after
 * dcpi_symtab_open(); the first call of this function or of
 * dcpi_symtab_read() opens the file (and its debuginfo) until close.
 */
int dcpi_symtab_srcline(struct dcpi_symtab *t, uint64_t offset, const char **file,
    int *line);

/*
 * The image's bytes at [offset, offset + len) as loaded (from the file's
 * PT_LOAD segments, for disassembly): *buf is malloc'd, caller frees; *got
 * gets the bytes available (< len at the end of the segment).  -1 with
 * ENOENT for the kernel, modules and JIT pseudo-images (no file), EFAULT if
 * offset is not in a loadable segment with file contents (as in a separate
 * debug file, whose code sections are SHT_NOBITS), ESTALE if the file
 * changed since dcpi_symtab_open().
 */
int dcpi_symtab_read(struct dcpi_symtab *t, uint64_t offset, size_t len, void **buf,
    size_t *got);

/* Demangles a C++ (Itanium ABI, _Z...) or legacy Rust (_ZN...17h<hash>E,
 * hash dropped) name: a malloc'd string the caller frees, or NULL when
 * name is not mangled (or ENOMEM).  Uses libstdc++'s __cxa_demangle. */
char *dcpi_demangle(const char *name);

#ifdef __cplusplus
}
#endif
#endif
