/*
 * libdcpi: whole files (DESIGN.md "The profile database"): a file read
 * into memory at once, and crash-safe replacement (temporary file, fsync,
 * rename, fsync of the directory), so that a crash, a full disk or a
 * killed process leaves either the old or the new file, never a torn one.
 * Every writer of the database (dcpid's flush, dcpictl's rewriters) and
 * every reader of its files goes through these.
 *
 * Errors as in error.h: -1 with errno, and "PATH: what failed: strerror"
 * in err when it is not NULL.
 */
#ifndef DCPI_FILE_H
#define DCPI_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Replaces the file at path with buf[0..len) so that a crash leaves either
 * the old or the new content, never a mix: writes a temporary file in the
 * same directory (".NAME.XXXXXX"), fsyncs it, renames it over path, fsyncs
 * the directory.  On failure the temporary file is removed and path is
 * untouched, except when the directory's fsync fails after the rename
 * (-1, err "PATH: cannot fsync its directory: ..."): path then holds the
 * new content, which a crash may yet undo, so a caller that keeps what it
 * wrote to write it again must not add it twice.  mode: permission bits
 * for a new file (before the umask).  Errors: -1 with errno of the failed
 * call (ENOENT for a missing directory, EACCES, ENOSPC, EFBIG, EISDIR when
 * path is a directory, EIO, ...), and "PATH: what failed: strerror" in err.
 */
int dcpi_atomic_write(const char *path, const void *buf, size_t len, mode_t mode,
    struct dcpi_error *err);
/*
 * dcpi_atomic_write relative to the directory dirfd, for writers that must
 * not follow links planted in a directory others can write (dcpi(5)
 * "Database layout", dcpid(8) SECURITY): name is one file name (no '/'),
 * the temporary file is created with O_EXCL|O_NOFOLLOW in dirfd, renamed
 * over name with renameat (a symlink or FIFO at name is replaced, never
 * followed or opened) and dirfd is fsynced.  The new file gets dirfd's
 * group when its writer may give it (as in a set-group-ID directory), so
 * that the database's group reads what root writes.  show names the file in
 * messages (NULL: name).  dirfd stays open and owned by the caller.
 * Errors as dcpi_atomic_write's, and -1/EINVAL for a name holding '/'.
 */
int dcpi_atomic_writeat(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, struct dcpi_error *err);
/*
 * dcpi_atomic_writeat with flags: DCPI_ATOMIC_NO_DIRSYNC leaves out the
 * fsync of dirfd, for a writer that replaces many files of a directory
 * and fsyncs it once after the last (dcpid's flush: one fsync a file, not
 * two, on a disk where each costs milliseconds).  Until that fsync a
 * crash may keep any of them as it was before, never a mix; the new
 * file's data is fsynced before the rename either way.  Other flag bits:
 * -1/EINVAL.  Otherwise as dcpi_atomic_writeat.
 */
#define DCPI_ATOMIC_NO_DIRSYNC	0x1
int dcpi_atomic_writeat_flags(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, int flags, struct dcpi_error *err);

/*
 * Reads the whole regular file at path (any size memory allows) into *buf,
 * a malloc'd buffer the caller frees, *len its size in bytes.  A NUL byte
 * follows the data (not counted in *len), so text can be scanned as a
 * string; the data may hold NULs.  Only regular files are read, and the
 * open and reads never block: a FIFO, a device (/dev/zero) or a socket is
 * refused at once, and a file that would block a read (/proc/kmsg) fails
 * with EAGAIN, so that no input can hang a reader.  A path below a packed
 * epoch's host directory that is not on disk is read from the pack, as
 * the file it held (pack.h, dcpi(5) "Packed epochs"); a pack that cannot
 * be read fails with its own error (EINVAL naming the pack and the byte).
 * Errors: -1 with errno of open(2) or read(2) (ENOENT, EACCES, EAGAIN,
 * ...), EISDIR for a directory, EINVAL for any other file that is not a
 * regular file ("PATH: not a regular file (a FIFO)"), or ENOMEM, and
 * "PATH: strerror" in err; *buf is then NULL and *len 0.
 * It and dcpi_read_fileat are defined with the packed epochs (lib/pack.c),
 * above the file system's read (lib/file.c), since a path may name a
 * pack's member; the pack's own reader reads below those.
 */
int dcpi_read_file(const char *path, void **buf, size_t *len,
    struct dcpi_error *err);
/*
 * dcpi_read_file of name relative to the directory dirfd (AT_FDCWD: the
 * working directory), for readers of directories others can write: the
 * last component is opened with O_NOFOLLOW (a symlink fails with ELOOP,
 * "NAME: is a symbolic link, not followed"), and a file of more than max
 * bytes fails with EFBIG (max: the most the file's format allows, in bytes;
 * SIZE_MAX for no bound).  show names the file in messages (NULL: name).
 * Ownership and other errors as dcpi_read_file's; a pack's member is read
 * only for dirfd AT_FDCWD (a path), never below another descriptor.
 */
int dcpi_read_fileat(int dirfd, const char *name, const char *show, size_t max,
    void **buf, size_t *len, struct dcpi_error *err);

#ifdef __cplusplus
}
#endif
#endif
