/*
 * A disk whose fsync is slow, for the flush tests: preloaded
 * (LD_PRELOAD), it makes every fsync(2) sleep DCPI_TEST_FSYNC_MS
 * milliseconds before it syncs, as a loaded disk can.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int
fsync(int fd)
{
	static int (*real)(int);
	const char *ms = getenv("DCPI_TEST_FSYNC_MS");
	struct timespec ts;
	long n;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (ms != NULL && (n = atol(ms)) > 0) {
		ts.tv_sec = n / 1000;
		ts.tv_nsec = (n % 1000) * 1000000L;
		nanosleep(&ts, NULL);
	}
	return real(fd);
}
