/*
 * Helpers shared by libdcpi's sources (not installed; names do not start
 * with dcpi_, so lib/local.mk's export regex keeps them out of the ABI).
 */
#ifndef DCPI_LIB_INTERNAL_H
#define DCPI_LIB_INTERNAL_H

#include <libelf.h>
#include <stddef.h>
#include <sys/types.h>

#include <dcpi/error.h>

/* Formats a one-line message into err->msg (when err is not NULL), sets
 * errno to e unless e is 0 (callers that decide errno later), returns -1. */
int lib_seterr(struct dcpi_error *err, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Room for element n of *v (elements of size bytes, *cap allocated):
 * doubles *cap (16 at first) when n reaches it.  0, or -1/ENOMEM with *v
 * unchanged. */
int lib_grow(void **v, size_t *cap, size_t n, size_t size);

/* The GNU build-id of elf as lowercase hex into out (DCPI_IMAGE_ID_LEN
 * bytes, lib/dcpi/image.h): at most DCPI_BUILD_ID_MAX bytes of it, as
 * dcpid names images.  Returns the bytes used, 0 (out = "") if it has
 * none. */
size_t lib_build_id_hex(Elf *elf, char *out);
/* A name made a directory name (db.h): '/' as %2F, '%' as %25, and dots as
 * %2E: every dot of "." and "..", or (leading_dot) a first one.  -1 with
 * ENAMETOOLONG past outlen or NAME_MAX. */
int lib_name_escape(const char *name, int leading_dot, char *out, size_t outlen);
/* Creates db (its own path may go through links) and rel's components
 * below it with dcpi_db_openat(DCPI_DB_CREATE): the dcpi_db_mkdirs of
 * db.h for any relative directory.  0, or -1 with errno and err. */
int lib_db_mkdirs_below(const char *db, const char *rel, struct dcpi_error *err);

/* The read of dcpi_read_fileat (file.h) from the file system alone, never
 * from a pack: name below dirfd, its last component followed unless
 * nofollow, at most max bytes (EFBIG past it), show naming it in
 * messages.  *buf (malloc'd, a NUL after the data) and *len; NULL and 0
 * on error, with errno and err as dcpi_read_fileat's. */
int lib_read_fileat(int dirfd, const char *name, int nofollow, const char *show,
    size_t max, void **buf, size_t *len, struct dcpi_error *err);
/* Lists dir's entries (no hidden ones) with the names seed[0..nseed)
 * (malloc'd, taken over, freed on error), sorted (strcmp), each name
 * once: dcpi_db_list's listing (db.h) given the names of a pack.  With
 * a seed, a dir that is missing or not a directory lists the seed.
 * *names and *n as dcpi_db_list's; 0, or -1 with errno and err. */
int lib_list_dir(const char *dir, char **seed, size_t nseed, char ***names,
    size_t *n, struct dcpi_error *err);

/* Writes a file's bytes to fd; 0, or -1 with errno. */
typedef int lib_write_fn(int fd, void *arg);
/* dcpi_atomic_writeat_flags (file.h) with the bytes written by
 * writer(fd, arg) into the temporary file, for writers that stream a large
 * file rather than build it in memory; errors as dcpi_atomic_writeat's. */
int lib_atomic_writeat_fn(int dirfd, const char *name, const char *show,
    lib_write_fn *writer, void *arg, mode_t mode, int flags,
    struct dcpi_error *err);
/* Maps name below dirfd read-only (MAP_PRIVATE), opened as
 * dcpi_read_fileat opens it (a regular file, no link followed, never
 * blocking): *map and *len, "" and 0 for an empty file; undo with
 * lib_unmap_file.  0, or -1 with errno and err ("SHOW: ..."), ENOENT when
 * there is none.  The pages are the page cache's: a reader may drop those
 * it is done with (madvise MADV_DONTNEED), and touching them again reads
 * the file again. */
int lib_map_fileat(int dirfd, const char *name, const char *show, void **map,
    size_t *len, struct dcpi_error *err);
void lib_unmap_file(void *map, size_t len);

struct dcpi_perfmap_entry;
/* The parsers of perfmap.h and jitdump.h, with buf[0..len) and name. */
typedef int lib_map_parser(const void *buf, size_t len, const char *name,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err);
/* Their _read functions: path read with dcpi_read_fileat (at most max
 * bytes) and given to parse; *out NULL and *n 0 when it cannot be read.
 * Returns parse's result with its errno. */
int lib_map_read(const char *path, size_t max, lib_map_parser *parse,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err);

/* buf[0..len) (len below 4 GiB) as one gzip member at zlib's level (1-9),
 * as gzip(1) writes it, into *out (malloc'd), *outlen bytes.  0, or -1
 * with ENOMEM or EIO and "SHOW: ..." in err. */
int lib_gzip(const void *buf, size_t len, int level, const char *show,
    void **out, size_t *outlen, struct dcpi_error *err);
/* One gzip member in[0..inlen) decompressed into *out (malloc'd, a NUL
 * after the data, not counted in *outlen).  -1 with EFBIG past max bytes,
 * EINVAL for data that is not one whole gzip member ("SHOW: byte N: ..."
 * naming the compressed offset), or ENOMEM. */
int lib_gunzip(const void *in, size_t inlen, size_t max, const char *show,
    void **out, size_t *outlen, struct dcpi_error *err);

#endif
