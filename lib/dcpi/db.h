/*
 * libdcpi: the profile database layout (DESIGN.md "The profile database").
 *
 *   DB/EPOCH/HOST/EVENT/NAME.IMAGEID   one profile per image and event
 *   DB/EPOCH/HOST/kallsyms.ref          which kernel symbols snapshot
 *                                       (older databases: DB/EPOCH/HOST/kallsyms)
 *   DB/kernels/KERNELID-HASH.gz         kernel symbols, once per kernel
 *                                       (lib/dcpi/kallsyms.h)
 *   DB/current -> EPOCH                 the epoch being written
 *   DB/buildid/IMAGEID/FILE             the build-id cache, shared by epochs
 *
 * The build-id cache keeps what symbolization needs of images that will
 * not be readable at their recorded path later (other mount namespaces,
 * deleted or replaced files, the vdso, JIT code), named as debuginfod's
 * client cache names them: FILE is "executable" (the ELF object as it was
 * mapped, or an ELF file holding only its program headers, notes,
 * symbol tables and call-frame information when it was large) or "perf-map" (JIT symbols of a
 * pseudo-image, perf's /tmp/perf-PID.map text format "START SIZE NAME",
 * START and SIZE in hex, START relative to the image's tstart).
 *
 * EPOCH is the epoch's UTC start, YYYYMMDDHHMMSS.  EVENT is the libpfm4
 * event string with '/' written as "%2F" and '%' as "%25" (so that every
 * string maps to one directory name and back); the events "." and ".."
 * have their dots written as "%2E".  Errors as in error.h:
 * -1 with errno, and a message in err when it is not NULL.
 */
#ifndef DCPI_DB_H
#define DCPI_DB_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_DB_DEFAULT		"/var/lib/dcpi"
#define DCPI_EPOCH_LEN		14	/* YYYYMMDDHHMMSS */

/* The database path: $DCPIDB if set and not empty, else DCPI_DB_DEFAULT.
 * Returns a static or environment string; do not free. */
const char *dcpi_db_default(void);

/* Writes t's UTC time as YYYYMMDDHHMMSS and a NUL into out[15]. */
void dcpi_epoch_name(time_t t, char out[DCPI_EPOCH_LEN + 1]);
/* Parses an epoch name (10 or 14 digits) into seconds since 1970 UTC; -1
 * with EINVAL if malformed. */
int dcpi_epoch_parse(const char *name, time_t *t);

/* Directory name for event (escaped as above) into out[outlen]; -1/ENAMETOOLONG
 * if it needs more than outlen bytes or NAME_MAX characters, -1/EINVAL for
 * an empty event. */
int dcpi_db_event_dirname(const char *event, char *out, size_t outlen);
/* Inverse of dcpi_db_event_dirname; -1/EINVAL on a bad escape ('%' not
 * followed by 2F, 25 or 2E), -1/ENAMETOOLONG if out is too small. */
int dcpi_db_event_from_dirname(const char *dirname, char *out, size_t outlen);

/* Profile file name "NAME.IMAGEID" for an image path and id: NAME is the
 * basename of path with brackets and '/' dropped ("[kernel.kallsyms]" ->
 * "kernel.kallsyms"), or "unknown" if that leaves nothing (or "." or ".."),
 * cut (at a UTF-8 character's start) so that the whole is at most NAME_MAX
 * bytes: a file's own name may be NAME_MAX long.  -1/EINVAL for an empty
 * imageid or one holding '/'; -1/ENAMETOOLONG if the name needs more than
 * outlen bytes, or the imageid leaves no room for a NAME. */
int dcpi_db_profile_name(const char *path, const char *imageid, char *out, size_t outlen);

/* malloc'd "DB/EPOCH/HOST/EVENTDIR" (caller frees); NULL with errno as
 * dcpi_db_event_dirname's (EINVAL for an empty event, ENAMETOOLONG when
 * EVENTDIR needs more than NAME_MAX characters), or ENOMEM. */
char *dcpi_db_event_path(const char *db, const char *epoch, const char *host,
    const char *event);

/* malloc'd "DB/buildid/IMAGEID/FILE", or "DB/buildid/IMAGEID" when file is
 * NULL (caller frees).  NULL with EINVAL when imageid is empty, not hex
 * digits or longer than 128 characters, or file holds '/'; ENOMEM. */
#define DCPI_DB_BUILDID_DIR	"buildid"
char *dcpi_db_buildid_path(const char *db, const char *imageid, const char *file);

/* Creates DB/EPOCH/HOST/EVENTDIR and its parents (mode 0755 before umask;
 * existing directories are fine) with dcpi_db_openat below db: a symlink
 * below db fails with ELOOP rather than being followed.  0, or -1 with
 * errno: EINVAL for an empty event or a "." or ".." in epoch or host;
 * ENAMETOOLONG when EVENTDIR needs more than NAME_MAX characters or db, or
 * EPOCH/HOST/EVENTDIR, has PATH_MAX bytes or more; ELOOP, ENOTDIR as
 * dcpi_db_openat; ENOMEM; errno of mkdir(2) or open(2). */
int dcpi_db_mkdirs(const char *db, const char *epoch, const char *host,
    const char *event, struct dcpi_error *err);

/*
 * Directories of a database that others may have written into (dcpid(8)
 * SECURITY).  dcpi_db_openat opens rel ("EPOCH/HOST/EVENTDIR", components
 * separated by '/', no "." or "..") below the directory dirfd one component
 * at a time with O_DIRECTORY|O_NOFOLLOW, so that no symlink anywhere below
 * dirfd is followed.  flags:
 *   DCPI_DB_CREATE  creates missing components with mode (before the
 *                   umask), each with the group of its parent directory
 *                   and made durable by an fsync of that parent (EIO:
 *                   "SHOW: created, but its parent directory cannot be
 *                   fsynced");
 *   DCPI_DB_CHECK   refuses (EPERM) a component that dcpi_db_check_dir
 *                   refuses, gid being the database's group;
 *   DCPI_DB_NOSYNC  with DCPI_DB_CREATE: the parents of new components are
 *                   not fsynced; the caller makes the new names durable
 *                   (dcpid fsyncs buildid/ once a flush, not once an
 *                   image).
 * show names dirfd in messages ("DB"; NULL: "."), which then name the
 * component that failed ("DB/E/HOST: is a symbolic link, not a directory:
 * not followed").  Returns a new O_CLOEXEC directory fd the caller closes,
 * or -1 with errno: ELOOP for a symlink, ENOTDIR for another file that is
 * not a directory, EPERM, EINVAL for "." or "..", ENAMETOOLONG when rel has
 * PATH_MAX bytes or more, errno of openat/mkdirat/fsync.
 * dirfd stays open and the caller's.
 */
#define DCPI_DB_CREATE	0x1
#define DCPI_DB_CHECK	0x2
#define DCPI_DB_NOSYNC	0x4
int dcpi_db_openat(int dirfd, const char *rel, const char *show, int flags,
    mode_t mode, gid_t gid, struct dcpi_error *err);
/* Whether root may write into the directory fd without another user
 * choosing where that goes: it must be owned by the effective uid, not
 * writable by others, and writable by its group only when that group is 0
 * or gid (the database's group; (gid_t)-1 for none).  0, or -1 with EPERM
 * ("SHOW: mode 0777, group 0: writable by others than root and the
 * database's group: refusing to write into it"), ENOTDIR, or fstat's errno. */
int dcpi_db_check_dir(int fd, const char *show, gid_t gid, struct dcpi_error *err);

/* Points DB/current at epoch atomically (a new symlink renamed over the
 * old one, then the directory fsynced).  -1/EINVAL if epoch is not an epoch
 * name (10 or 14 digits of a valid date). */
int dcpi_db_set_current(const char *db, const char *epoch, struct dcpi_error *err);
/* The current epoch's name into out[DCPI_EPOCH_LEN + 1]; -1/ENOENT if none,
 * -1/EINVAL if DB/current is not a symlink to an epoch name. */
int dcpi_db_current(const char *db, char out[DCPI_EPOCH_LEN + 1], struct dcpi_error *err);
/* The same two relative to the database directory dbfd (show names it in
 * messages; NULL: "."), with symlinkat, renameat and readlinkat; the
 * caller keeps dbfd.  Note that current is a symlink to read, never to
 * follow: a writer opens the epoch it names with dcpi_db_openat. */
int dcpi_db_set_currentat(int dbfd, const char *show, const char *epoch,
    struct dcpi_error *err);
int dcpi_db_currentat(int dbfd, const char *show, char out[DCPI_EPOCH_LEN + 1],
    struct dcpi_error *err);

/* The epochs of db (directory names of 10 or 14 digits), sorted oldest
 * first.  *names is a malloc'd array of *n malloc'd strings: free with
 * dcpi_strv_free().  -1/ENOENT if db does not exist. */
int dcpi_db_epochs(const char *db, char ***names, size_t *n, struct dcpi_error *err);
/* The entries of a directory (no "." or ".."; no hidden files, which are
 * temporary files), sorted; same ownership as dcpi_db_epochs.  Below a
 * packed epoch's host directory (pack.h, dcpi(5) "Packed epochs") the
 * names its pack gives the directory are listed too, each name once, and
 * a directory only the pack holds lists; a pack that cannot be read fails
 * the listing (EINVAL, its message naming the pack and the byte).  Defined
 * with the packed epochs (lib/pack.c), which build on the rest of db.h. */
int dcpi_db_list(const char *dir, char ***names, size_t *n, struct dcpi_error *err);
void dcpi_strv_free(char **v, size_t n);

#ifdef __cplusplus
}
#endif
#endif
