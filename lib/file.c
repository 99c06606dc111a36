/*
 * Whole files (lib/dcpi/file.h): reading one, and crash-safe replacement
 * (DESIGN.md "The profile database"): the daemon's flush and every
 * rewriter use it, so a crash, a full disk or a killed process leaves
 * either the old or the new file, never a torn one.  The reads here are
 * of the file system only: dcpi_read_file and dcpi_read_fileat, which
 * also read a packed epoch's members, are pack.c's, above this file.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/file.h>

#include "internal.h"

static void
fail(struct dcpi_error *err, const char *path, const char *what, int e)
{
	lib_seterr(err, e, "%s: %s: %s", path, what, strerror(e));
}

/*
 * Opens name below dirfd for reading without ever blocking and only if it
 * is a regular file: O_NONBLOCK keeps a FIFO's open (and a /proc/kmsg-like
 * file's read) from waiting for a writer, the fstat refuses devices such as
 * /dev/zero that would never end.
 */
static int
open_regular(int dirfd, const char *name, int nofollow, const char *show,
    struct dcpi_error *err)
{
	struct stat st;
	int fd, e;

	if ((fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY | (nofollow ? O_NOFOLLOW : 0))) < 0) {
		e = errno;
		if (e == ELOOP && nofollow)
			return lib_seterr(err, e, "%s: is a symbolic link, "
			    "not followed", show);
		return lib_seterr(err, e, "%s: %s", show, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return lib_seterr(err, e, "%s: %s", show, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return lib_seterr(err, e, "%s: not a regular file (%s)", show,
		    S_ISDIR(st.st_mode) ? "a directory" :
		    S_ISFIFO(st.st_mode) ? "a FIFO" :
		    S_ISCHR(st.st_mode) ? "a character device" :
		    S_ISBLK(st.st_mode) ? "a block device" :
		    S_ISSOCK(st.st_mode) ? "a socket" : "a special file");
	}
	return fd;
}

static int
read_fd(int fd, const char *show, size_t max, void **bufp, size_t *lenp,
    struct dcpi_error *err)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t r;
	int e;

	for (;;) {
		/* One byte spare for the NUL. */
		if (cap - len < 2) {
			cap = cap ? cap * 2 : 65536;
			if (max < SIZE_MAX - 1 && cap > max + 2)
				cap = max + 2;
			if ((nb = realloc(buf, cap)) == NULL) {
				e = ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			goto fail;
		}
		if (r == 0)
			break;
		len += r;
		if (len > max) {
			free(buf);
			return lib_seterr(err, EFBIG, "%s: larger than %zu bytes, "
			    "the most this file may hold", show, max);
		}
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	free(buf);
	return lib_seterr(err, e, "%s: %s", show, strerror(e));
}

int
lib_read_fileat(int dirfd, const char *name, int nofollow, const char *show,
    size_t max, void **bufp, size_t *lenp, struct dcpi_error *err)
{
	int fd, rc, e;

	*bufp = NULL;
	*lenp = 0;
	if ((fd = open_regular(dirfd, name, nofollow, show, err)) < 0)
		return -1;
	rc = read_fd(fd, show, max, bufp, lenp, err);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
lib_map_fileat(int dirfd, const char *name, const char *show, void **mapp,
    size_t *lenp, struct dcpi_error *err)
{
	struct stat st;
	void *map;
	int fd, e;

	*mapp = NULL;
	*lenp = 0;
	if (show == NULL)
		show = name;
	if ((fd = open_regular(dirfd, name, 1, show, err)) < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return lib_seterr(err, e, "%s: %s", show, strerror(e));
	}
	/* mmap refuses length 0: an empty file is an empty buffer. */
	if (st.st_size == 0) {
		close(fd);
		*mapp = (void *)"";
		return 0;
	}
	if ((uintmax_t)st.st_size > SIZE_MAX) {
		close(fd);
		return lib_seterr(err, EFBIG, "%s: %jd bytes do not fit in memory", show,
		    (intmax_t)st.st_size);
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	e = errno;
	close(fd);
	if (map == MAP_FAILED)
		return lib_seterr(err, e, "%s: cannot map it: %s", show, strerror(e));
	(void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	*mapp = map;
	*lenp = (size_t)st.st_size;
	return 0;
}

void
lib_unmap_file(void *map, size_t len)
{
	if (len > 0)
		munmap(map, len);
}

/* Opens a new temporary file ".NAME.XXXXXX" in dirfd, flock'ed until it
 * is closed.  openat(O_EXCL) with our own name rather than mkstemp so that
 * mode goes through the umask like any new file; O_EXCL|O_NOFOLLOW so that
 * nothing planted under that name, a symlink least of all, is ever
 * opened.  NAME is cut to fit NAME_MAX: a name may be that long itself. */
static int
open_temp(int dirfd, const char *name, char **tmpp, mode_t mode)
{
	static unsigned long seq;
	struct timespec ts;
	char *tmp;
	int fd, tries, keep = (int)strnlen(name, NAME_MAX - 8);

	for (tries = 0; tries < 100; tries++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (asprintf(&tmp, ".%.*s.%06lx", keep, name,
		    ((unsigned long)getpid() * 31 + (unsigned long)ts.tv_nsec +
		    __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)) & 0xffffff) < 0) {
			errno = ENOMEM;
			return -1;
		}
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, mode);
		if (fd >= 0) {
			/* Locked while it is written: a dcpid starting
			 * meanwhile removes only the temporary files nobody
			 * holds (a file system without flock: nothing). */
			(void)flock(fd, LOCK_EX | LOCK_NB);
			*tmpp = tmp;
			return fd;
		}
		free(tmp);
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t r;

	while (len > 0) {
		r = write(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += r;
		len -= r;
	}
	return 0;
}

/* dcpi_atomic_writeat's write of the buffer it was given. */
struct buf_arg {
	const void	*buf;
	size_t		 len;
};

static int
write_buf(int fd, void *arg)
{
	const struct buf_arg *b = arg;

	return write_all(fd, b->buf, b->len);
}

int
lib_atomic_writeat_fn(int dirfd, const char *name, const char *show,
    lib_write_fn *writer, void *arg, mode_t mode, int flags,
    struct dcpi_error *err)
{
	struct stat dst, fst;
	const char *what;
	char *tmp = NULL;
	int fd, e;

	if (show == NULL)
		show = name;
	if (*name == '\0' || strchr(name, '/') != NULL) {
		fail(err, show, "not a file name", EINVAL);
		return -1;
	}
	if ((flags & ~DCPI_ATOMIC_NO_DIRSYNC) != 0) {
		fail(err, show, "unknown flags", EINVAL);
		return -1;
	}
	if ((fd = open_temp(dirfd, name, &tmp, mode)) < 0) {
		fail(err, show, "cannot create a temporary file", errno);
		return -1;
	}
	/* As in a set-group-ID directory: the database's group reads what
	 * root writes into it.  Who may not give the file that group keeps
	 * their own. */
	if (fstat(dirfd, &dst) == 0 && fstat(fd, &fst) == 0 &&
	    dst.st_gid != fst.st_gid && fchown(fd, (uid_t)-1, dst.st_gid) == -1) {
		/* Who may not give it that group keeps their own. */
	}
	what = "cannot write";
	if (writer(fd, arg) < 0)
		goto fail;
	what = "cannot fsync";
	if (fsync(fd) < 0)
		goto fail;
	what = "cannot close";
	e = close(fd);
	fd = -1;
	if (e < 0)
		goto fail;
	what = "cannot rename the temporary file over it";
	if (renameat(dirfd, tmp, dirfd, name) < 0)
		goto fail;
	free(tmp);
	/* fsync of the directory makes the rename durable.  Some file
	 * systems cannot fsync a directory (EINVAL): nothing more can be
	 * done there. */
	if (!(flags & DCPI_ATOMIC_NO_DIRSYNC) && fsync(dirfd) < 0 && errno != EINVAL) {
		fail(err, show, "cannot fsync its directory", errno);
		return -1;
	}
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
	free(tmp);
	fail(err, show, what, e);
	return -1;
}

int
dcpi_atomic_writeat_flags(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, int flags, struct dcpi_error *err)
{
	struct buf_arg b = { buf, len };

	return lib_atomic_writeat_fn(dirfd, name, show, write_buf, &b, mode,
	    flags, err);
}

int
dcpi_atomic_writeat(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, struct dcpi_error *err)
{
	return dcpi_atomic_writeat_flags(dirfd, name, show, buf, len, mode, 0,
	    err);
}

int
dcpi_atomic_write(const char *path, const void *buf, size_t len, mode_t mode,
    struct dcpi_error *err)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int dfd, rc, e;

	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (dir == NULL) {
		fail(err, path, "cannot create a temporary file", ENOMEM);
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	free(dir);
	if (dfd < 0) {
		fail(err, path, "cannot create a temporary file", e);
		return -1;
	}
	rc = dcpi_atomic_writeat(dfd, slash ? slash + 1 : path, path, buf, len,
	    mode, err);
	e = errno;
	close(dfd);
	errno = e;
	return rc;
}
