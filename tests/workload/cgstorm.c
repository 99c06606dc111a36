/*
 * A storm of cgroups for the label tests: creates N cgroups below PARENT
 * (a cgroup2 directory), one after another moves itself into each, spins
 * there for SPIN_US microseconds of CPU, moves back into PARENT and
 * removes it.  Exit status 0, or 1 with why on stderr.
 *
 *	cgstorm PARENT N SPIN_US
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int
join(const char *dir)
{
	char path[4096], pid[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if ((fd = open(path, O_WRONLY)) == -1 || write(fd, pid, (size_t)n) != n) {
		fprintf(stderr, "cgstorm: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static void
spin(long us)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i * x;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

int
main(int argc, char **argv)
{
	char dir[4096];
	long i, n, us;

	if (argc != 4) {
		fprintf(stderr, "usage: cgstorm PARENT N SPIN_US\n");
		return 1;
	}
	n = atol(argv[2]);
	us = atol(argv[3]);
	if (join(argv[1]) == -1)
		return 1;
	for (i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/storm%ld", argv[1], i);
		if (mkdir(dir, 0755) == -1) {
			fprintf(stderr, "cgstorm: mkdir %s: %s\n", dir, strerror(errno));
			return 1;
		}
		if (join(dir) == -1)
			return 1;
		spin(us);
		if (join(argv[1]) == -1)
			return 1;
		if (rmdir(dir) == -1) {
			fprintf(stderr, "cgstorm: rmdir %s: %s\n", dir, strerror(errno));
			return 1;
		}
	}
	return 0;
}
