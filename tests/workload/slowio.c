/*
 * A slow disk and a slow /proc, for the fault tests: preloaded
 * (LD_PRELOAD), it makes every fsync(2) sleep DCPI_TEST_FSYNC_MS
 * milliseconds before it syncs, as a loaded disk can, and every fopen of
 * a /proc/PID/maps sleep DCPI_TEST_MAPS_MS milliseconds first, as a host
 * of thousands of large processes makes dcpid's start-up scan long.
 * With DCPI_TEST_FSYNC_LOG set, each fsync appends a byte to that file
 * (bench/flush_sync.sh counts them).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
sleep_ms(const char *env)
{
	const char *ms = getenv(env);
	struct timespec ts;
	long n;

	if (ms != NULL && (n = atol(ms)) > 0) {
		ts.tv_sec = n / 1000;
		ts.tv_nsec = (n % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
}

int
fsync(int fd)
{
	static int (*real)(int);
	const char *log = getenv("DCPI_TEST_FSYNC_LOG");
	int lfd;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (log != NULL && (lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) != -1) {
		(void)!write(lfd, "s", 1);
		close(lfd);
	}
	sleep_ms("DCPI_TEST_FSYNC_MS");
	return real(fd);
}

/* /proc/PID/maps, PID all digits. */
static int
is_maps(const char *path)
{
	const char *p;

	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	for (p = path + 6; *p >= '0' && *p <= '9'; p++)
		;
	return p > path + 6 && strcmp(p, "/maps") == 0;
}

static FILE *
slow_fopen(const char *sym, const char *path, const char *mode)
{
	FILE *(*real)(const char *, const char *);

	real = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, sym);
	if (is_maps(path))
		sleep_ms("DCPI_TEST_MAPS_MS");
	return real(path, mode);
}

FILE *
fopen(const char *path, const char *mode)
{
	return slow_fopen("fopen", path, mode);
}

FILE *
fopen64(const char *path, const char *mode)
{
	return slow_fopen("fopen64", path, mode);
}
