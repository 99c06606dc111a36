/*
 * libdcpi: perf's JIT symbol maps (the convention perf record/report, node
 * --perf-basic-prof, Java perf-map agents and -XX:+DumpPerfMapAtExit,
 * Python 3.12's -X perf write as /tmp/perf-PID.map; DESIGN.md "Attribution"):
 * text lines "START SIZE NAME", START and SIZE in hex (with or without
 * "0x"), NAME the rest of the line (may hold spaces).  dcpid reads the
 * processes' maps; the build-id cache keeps the symbols of JIT
 * pseudo-images in the same format (db.h, "perf-map").
 *
 * Errors as in error.h: -1 with errno, and a one-line message in err
 * (when not NULL) naming the file and line.
 */
#ifndef DCPI_PERFMAP_H
#define DCPI_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dcpi_perfmap_entry {
	uint64_t	 start;		/* address (or offset), as in the file */
	uint64_t	 size;		/* bytes, > 0 */
	char		*name;		/* malloc'd, NUL-terminated, no newline */
};

/*
 * Parses buf[0..len) (name is for messages).  *out gets a malloc'd array
 * of *n entries in file order (later lines may overlap earlier ones: code
 * is moved and reused; callers decide), free with dcpi_perfmap_free().
 * Lines that are empty or blank are skipped; a trailing "\r" is dropped;
 * fields are separated by spaces or tabs.  START and SIZE have at most 64
 * bits, SIZE > 0 and START + SIZE must not pass 2^64; NAME is non-empty,
 * without NUL bytes.  A malformed line fails with EINVAL and names its
 * number (*out NULL, *n 0).  A last line without a newline is parsed (a
 * map being written may end mid-line: the caller passes only complete
 * lines when it knows).  ENOMEM.
 */
int dcpi_perfmap_parse(const char *buf, size_t len, const char *name,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err);
/* Reads and parses the file at path with dcpi_read_fileat (file.h): a
 * regular file only, never blocking, the last component not followed
 * (ELOOP; EISDIR for a directory, EINVAL for another file that is not
 * regular), at most max_bytes (0: 256 MiB; EFBIG when larger, also when it
 * grows past that while read), else the errno of open/read, or
 * dcpi_perfmap_parse's.  Messages name path. */
int dcpi_perfmap_read(const char *path, size_t max_bytes,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err);
void dcpi_perfmap_free(struct dcpi_perfmap_entry *e, size_t n);

#ifdef __cplusplus
}
#endif
#endif
