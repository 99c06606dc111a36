/*
 * For tests that count the directories made durable: the path of fd (a
 * directory; other files are left out), appended to log[len] with ';'
 * after it while it fits.
 */
#ifndef DCPI_TESTS_FSYNC_LOG_H
#define DCPI_TESTS_FSYNC_LOG_H

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

#endif
