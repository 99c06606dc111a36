#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int
lib_seterr(struct dcpi_error *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	if (e != 0)
		errno = e;
	return -1;
}

int
lib_read_file(const char *path, size_t max_bytes, char **out, size_t *outlen,
    struct dcpi_error *err)
{
	struct stat st;
	char *buf = NULL, *nb;
	size_t len = 0, cap, limit;
	ssize_t r;
	int fd, saved;

	*out = NULL;
	*outlen = 0;
	/* A FIFO or device planted at the path must not block or feed us. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW |
	    O_NOCTTY)) == -1)
		return lib_seterr(err, 0, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		return lib_seterr(err, saved, "%s: %s", path, strerror(saved));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return lib_seterr(err, EINVAL, "%s: not a regular file", path);
	}
	if ((uint64_t)st.st_size > max_bytes) {
		close(fd);
		return lib_seterr(err, EFBIG, "%s: %jd bytes, more than the "
		    "limit of %zu", path, (intmax_t)st.st_size, max_bytes);
	}
	/* The file may grow while read (JITs append as they compile): read
	 * to the end, but never past the limit. */
	limit = max_bytes < SIZE_MAX ? max_bytes + 1 : max_bytes;
	cap = (uint64_t)st.st_size + 4096 < limit ? (size_t)st.st_size + 4096 :
	    limit;
	if ((buf = malloc(cap)) == NULL) {
		close(fd);
		return lib_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	for (;;) {
		if (len == cap) {
			cap = cap > limit / 2 ? limit : 2 * cap;
			if ((nb = realloc(buf, cap)) == NULL) {
				free(buf);
				close(fd);
				return lib_seterr(err, ENOMEM, "%s: out of memory",
				    path);
			}
			buf = nb;
		}
		if ((r = read(fd, buf + len, cap - len)) == -1) {
			if (errno == EINTR)
				continue;
			saved = errno;
			free(buf);
			close(fd);
			return lib_seterr(err, saved, "%s: byte %zu: %s", path,
			    len, strerror(saved));
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > max_bytes) {
			free(buf);
			close(fd);
			return lib_seterr(err, EFBIG, "%s: more than the limit "
			    "of %zu bytes", path, max_bytes);
		}
	}
	close(fd);
	*out = buf;
	*outlen = len;
	return 0;
}
