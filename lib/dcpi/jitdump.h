/*
 * libdcpi: perf's jitdump files (linux tools/perf/Documentation/
 * jitdump-specification.txt, version 1), the second way a JIT names its
 * code: node --perf-prof writes jit-PID.dump in its working directory,
 * Java agents under ~/.debug/jit/; the runtime announces the file by
 * mapping it executable, which is how dcpid finds it (man/dcpi.5 "JIT
 * code").
 *
 * The layout: a file header {magic 'JiTD' 0x4A695444 as a uint32 in the
 * writer's byte order, version, total_size, elf_mach, pad1, pid (uint32
 * each), timestamp, flags (uint64)}, total_size bytes, then records, each
 * {id, total_size (uint32), timestamp (uint64)} and its body:
 * JIT_CODE_LOAD (0) {pid, tid, vma, code_addr, code_size, code_index,
 * NUL-terminated name, code_size bytes of code}, JIT_CODE_MOVE (1) {pid,
 * tid, vma, old_code_addr, new_code_addr, code_size, code_index};
 * JIT_CODE_DEBUG_INFO (2), JIT_CODE_CLOSE (3), JIT_CODE_UNWINDING_INFO (4)
 * and ids not known yet are skipped by their total_size.
 *
 * Errors as in error.h: -1 with errno, and a one-line message in err
 * (when not NULL) naming the file and byte offset and what was expected.
 */
#ifndef DCPI_JITDUMP_H
#define DCPI_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>
#include <dcpi/perfmap.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_JITDUMP_MAGIC	0x4A695444u	/* "JiTD" */
#define DCPI_JITDUMP_VERSION	1

/*
 * Parses the jitdump in buf[0..len) (name is for messages) into *out, a
 * malloc'd array of *n dcpi_perfmap_entry (perfmap.h) in file order, free
 * with dcpi_perfmap_free(): start is the code's address, size its bytes
 * (> 0, start + size within 2^64), name the record's name (non-empty, no
 * newline).  Both byte orders, told by the magic.  A JIT_CODE_LOAD gives
 * one entry (a load of 0 bytes gives none: it names no code); a
 * JIT_CODE_MOVE gives one more at new_code_addr with the name of the
 * latest load of its code_index (the entry at the old address stays:
 * samples taken before the move name it; as in a perf map, a later entry
 * wins where entries overlap).  A last record cut short (a dump being
 * written) ends the parse without error.
 *
 * Errors, -1 with errno EINVAL and the offset of the bad header or record
 * in err: a header shorter than 40 bytes or than its total_size, a magic
 * that is not "JiTD" in either byte order, a version other than 1, a
 * record whose total_size is less than its header or fixed fields, a name
 * not NUL-terminated within its record, empty or holding a newline, code
 * bytes past the record, an address range past 2^64, a move of a
 * code_index never loaded.  ENOMEM.  Unlike dcpi_perfmap_parse, *out and
 * *n keep the entries of the records before a bad one (a dump is
 * written in order by one process, so what precedes a bad record stands):
 * the caller frees them in either case.
 */
int dcpi_jitdump_parse(const void *buf, size_t len, const char *name,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err);
/* Reads and parses the file at path with dcpi_read_fileat (file.h): a
 * regular file only, never blocking, the last component not followed
 * (ELOOP; EISDIR for a directory, EINVAL for another file that is not
 * regular), at most max_bytes (0: 1 GiB: dumps hold the code too; EFBIG
 * when larger, also when it grows past that while read), else the errno
 * of open/read (*out NULL, *n 0), or dcpi_jitdump_parse's.  Messages name
 * path. */
int dcpi_jitdump_read(const char *path, size_t max_bytes,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
