/*
 * For tests that count the directories made durable: fsync_log_add appends
 * the path of fd (a directory; other files are left out) to log[len] with
 * ';' after it while it fits; fsync_log then fails once, with EIO, when
 * *fail is set (clearing it), and returns 0 otherwise.
 */
#ifndef DCPI_TESTS_FSYNC_LOG_H
#define DCPI_TESTS_FSYNC_LOG_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void
fsync_log_add(int fd, char *log, size_t len)
{
	char link[64], path[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    (n = readlink(link, path, sizeof(path) - 1)) <= 0)
		return;
	path[n] = '\0';
	if (strlen(log) + (size_t)n + 2 < len) {
		strcat(log, path);
		strcat(log, ";");
	}
}

static inline int
fsync_log(int fd, char *log, size_t len, int *fail)
{
	fsync_log_add(fd, log, len);
	if (*fail) {
		*fail = 0;
		errno = EIO;
		return -1;
	}
	return 0;
}

#endif
