/*
 * Whole files: reading one, and crash-safe replacement (DESIGN.md "The
 * profile database"): the daemon's flush and every rewriter use it, so a
 * crash, a full disk or a killed process leaves either the old or the new
 * file, never a torn one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/profile.h>

#include "internal.h"

static void
fail(struct dcpi_error *err, const char *path, const char *what, int e)
{
	lib_seterr(err, e, "%s: %s: %s", path, what, strerror(e));
}

int
dcpi_read_file(const char *path, void **bufp, size_t *lenp,
    struct dcpi_error *err)
{
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t r;
	int fd, e;

	*bufp = NULL;
	*lenp = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return lib_seterr(err, errno, "%s: %s", path, strerror(errno));
	for (;;) {
		/* One byte spare for the NUL. */
		if (cap - len < 2) {
			cap = cap ? cap * 2 : 65536;
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
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return lib_seterr(err, e, "%s: %s", path, strerror(e));
}

/* Opens a new temporary file next to path.  open(O_EXCL) with our own name
 * rather than mkstemp so that mode goes through the umask like any new file. */
static int
open_temp(const char *path, char **tmpp, mode_t mode)
{
	static unsigned long seq;
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	const char *base = slash ? slash + 1 : path;
	struct timespec ts;
	char *tmp;
	int fd, tries;

	for (tries = 0; tries < 100; tries++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (asprintf(&tmp, "%.*s.%s.%06lx", dirlen, path, base,
		    ((unsigned long)getpid() * 31 + (unsigned long)ts.tv_nsec +
		    __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED)) & 0xffffff) < 0) {
			errno = ENOMEM;
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd >= 0) {
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

/* fsync of the directory makes the rename durable.  Some file systems
 * cannot fsync a directory (EINVAL): nothing more can be done there. */
static int
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, rc = 0, e;

	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (dir == NULL) {
		errno = ENOMEM;
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	free(dir);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fsync(fd) < 0 && errno != EINVAL)
		rc = -1;
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
dcpi_atomic_write(const char *path, const void *buf, size_t len, mode_t mode,
    struct dcpi_error *err)
{
	const char *what;
	char *tmp = NULL;
	int fd, e;

	if ((fd = open_temp(path, &tmp, mode)) < 0) {
		fail(err, path, "cannot create a temporary file", errno);
		return -1;
	}
	what = "cannot write";
	if (write_all(fd, buf, len) < 0)
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
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	if (sync_dir(path) < 0) {
		fail(err, path, "cannot fsync its directory", errno);
		return -1;
	}
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	fail(err, path, what, e);
	return -1;
}
