/*
 * Small helpers shared by libdcpi, dcpid and dcpictl (util.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

uint64_t
fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--) {
		h ^= *c++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t
fnv1a64_str(uint64_t h, const char *s)
{
	/* One pass, not strlen and then fnv1a64: dcpictl hashes a row name
	 * per sampled address. */
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
hex_encode(const uint8_t *b, size_t len, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hx[b[i] >> 4];
		out[2 * i + 1] = hx[b[i] & 15];
	}
	out[2 * len] = '\0';
}

long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A new directory's name is durable once its parent is fsynced.  0, or -1
 * with errno; EINVAL (a file system that cannot fsync a directory) is not
 * a failure. */
static int
fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char parent[PATH_MAX];
	int fd, rc, e;

	if (slash == NULL)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == path)
		snprintf(parent, sizeof(parent), "/");
	else
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	if ((fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	rc = fsync(fd) < 0 && errno != EINVAL ? -1 : 0;
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
mkdir_parents(const char *path, mode_t parent_mode, mode_t mode, char *failed,
    size_t failedlen)
{
	char buf[PATH_MAX], *p, c;
	int e, r;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		snprintf(failed, failedlen, "%s", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(buf, c == '\0' ? mode : parent_mode) == 0)
			r = fsync_parent(buf);
		else
			r = errno == EEXIST ? 0 : -1;
		if (r < 0) {
			e = errno;
			snprintf(failed, failedlen, "%s", buf);
			errno = e;
			return -1;
		}
		if ((*p = c) == '\0')
			break;
	}
	return 0;
}

size_t
utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

size_t
text_len(const unsigned char *s)
{
	size_t n;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] < 0x80 || (n = utf8_len(s)) == 0)
		return 0;
	if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	if (n == 3 && s[0] == 0xe2 && ((s[1] == 0x80 && s[2] >= 0xa8 &&
	    s[2] <= 0xae) || (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 0;
	return n;
}

char *
text_escape(char *out, const char *s, size_t n, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i, k;

	for (i = 0; i < n; i += k) {
		if ((k = text_len(p + i)) > 0 && k <= n - i) {
			memcpy(out, p + i, k);
			out += k;
			continue;
		}
		k = 1;
		if (p[i] == '\t' && (flags & TEXT_KEEP_TAB)) {
			*out++ = '\t';
			continue;
		}
		*out++ = '\\';
		*out++ = 'x';
		*out++ = hex[p[i] >> 4];
		*out++ = hex[p[i] & 0xf];
	}
	*out = '\0';
	return out;
}
