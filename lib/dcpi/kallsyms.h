/*
 * libdcpi: kernel symbol snapshots, kept once per kernel (dcpi(5)
 * "Kernel symbols").
 *
 *   DB/kernels/KERNELID-HASH.gz    /proc/kallsyms as dcpid read it, less
 *                                  BPF programs (dcpi_kallsyms_trim), gzip
 *   DB/EPOCH/HOST/kallsyms.ref     "kernels/KERNELID-HASH.gz\n": the
 *                                  snapshot that epoch's kernel samples use
 *   DB/EPOCH/HOST/kallsyms         the older layout: a plain copy per epoch,
 *                                  still read (it wins over a reference)
 *
 * KERNELID is the image id of [kernel.kallsyms] (its GNU build-id in hex,
 * or "0" where it is not known) and HASH the 64-bit FNV-1a of the text in
 * 16 hex digits, so that a kernel whose symbols changed (a module loaded
 * or removed) gets a snapshot of its own and every epoch and host with
 * the same text shares one file.  Errors as in error.h: -1 with errno,
 * and a one-line message in err when it is not NULL.
 */
#ifndef DCPI_KALLSYMS_H
#define DCPI_KALLSYMS_H

#include <sys/types.h>

#include <stddef.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_DB_KERNELS_DIR	"kernels"
#define DCPI_KALLSYMS_REF	"kallsyms.ref"
/* Bytes of a snapshot's name "KERNELID-HASH" with its NUL: a KERNELID of
 * at most 128 hex digits, '-', 16 hex digits. */
#define DCPI_KALLSYMS_NAME_MAX	(128 + 1 + 16 + 1)
/* The most bytes a snapshot may hold once decompressed: far above any
 * kernel's kallsyms (5 MB for a distribution kernel with its modules), a
 * bound for what a corrupt or hostile file makes a reader allocate. */
#define DCPI_KALLSYMS_MAX	(256u << 20)

/* Drops from the kallsyms text buf[0..len), in place, the lines of code
 * that comes and goes without a module being loaded: BPF programs
 * ("[bpf]") and the kernel's trampolines ("[__builtin__ftrace]",
 * "[__builtin__kprobes]"...).  dcpid attributes no sample to them, so no
 * profile names them; kept, they would give every epoch a snapshot of its
 * own on a machine where BPF programs load (systemd's, a tracer's).
 * Returns the new length. */
size_t dcpi_kallsyms_trim(char *buf, size_t len);

/* The snapshot name "KERNELID-HASH" of the kallsyms text buf[0..len) into
 * out[DCPI_KALLSYMS_NAME_MAX].  kernel_id: hex digits (1 to 128), or NULL
 * for "0".  0, or -1/EINVAL for another kernel_id. */
int dcpi_kallsyms_name(const char *kernel_id, const void *buf, size_t len,
    char out[DCPI_KALLSYMS_NAME_MAX]);

/*
 * Stores the kallsyms text buf[0..len) as DB/kernels/NAME.gz below the
 * database directory dbfd (show names it in messages), name as
 * dcpi_kallsyms_name gives it.  The directory is created and checked with
 * dcpi_db_openat (DCPI_DB_CREATE | DCPI_DB_CHECK, dirmode, gid: db.h), the
 * file gzip-compressed in memory and written with dcpi_atomic_writeat
 * (filemode: the database's files are not for everyone, as kallsyms gives
 * kernel addresses to root only).  A snapshot already there is not written
 * again: its modification time is set to now, so that dcpictl gc's grace
 * period covers the reference about to be written to it.
 * Returns 1 when it was there, 0 when written, -1 with errno: EINVAL for a
 * bad name, EFBIG for more than DCPI_KALLSYMS_MAX bytes, ENOMEM, or those
 * of dcpi_db_openat and dcpi_atomic_writeat.
 * dbfd stays the caller's.
 */
int dcpi_kallsyms_store(int dbfd, const char *show, const char *name,
    const void *buf, size_t len, gid_t gid, mode_t dirmode, mode_t filemode,
    struct dcpi_error *err);

/* Writes DB/EPOCH/HOST/kallsyms.ref naming the snapshot name, atomically,
 * in the host directory hostfd (show: that directory in messages), with
 * mode.  0, or -1 with errno as dcpi_atomic_writeat's, EINVAL for a bad
 * name. */
int dcpi_kallsyms_ref_writeat(int hostfd, const char *show, const char *name,
    mode_t mode, struct dcpi_error *err);

/* Reads the reference file name (normally DCPI_KALLSYMS_REF) in dirfd
 * (AT_FDCWD: name is a path), without following a symbolic link, and
 * puts the snapshot's name into out[DCPI_KALLSYMS_NAME_MAX].  0, or -1
 * with errno: ENOENT when there is none, EINVAL when it is not one line
 * "kernels/KERNELID-HASH.gz" ("PATH: byte N: expected ..."), or those of
 * dcpi_read_fileat. */
int dcpi_kallsyms_ref_readat(int dirfd, const char *name, const char *show,
    char out[DCPI_KALLSYMS_NAME_MAX], struct dcpi_error *err);

/*
 * The kernel symbols of an epoch's host directory: path is
 * "DB/EPOCH/HOST/kallsyms" (as dataset.h gives it).  Reads that file when
 * it exists (the older layout), else the snapshot its kallsyms.ref names in
 * DB/kernels/, decompressed.  *buf (malloc'd, NUL-terminated, not counted
 * in *len) and *len get the text; *from, when not NULL, a malloc'd path of
 * the file the text came from, for messages naming its lines.  The caller
 * frees both.  -1 with errno:
 *   ENOENT  neither file (the message names both), or the snapshot the
 *           reference names is missing (the message says that the epoch
 *           was copied without DB/kernels/NAME.gz, or gc removed it);
 *   EINVAL  a malformed reference, or a snapshot that is not gzip data
 *           or is truncated (the message names the file and byte offset);
 *   EFBIG   more than DCPI_KALLSYMS_MAX bytes decompressed;
 *   ENOMEM, or the errno of dcpi_read_file.
 */
int dcpi_kallsyms_read(const char *path, void **buf, size_t *len, char **from,
    struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
