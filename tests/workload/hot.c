/*
 * A workload with nearly all of its time in one known function,
 * dcpi_workload_hot().  Built as a PIE (tests/workload/hot) and, with
 * -DHOT_IN_LIB, as a program whose hot function sits in a shared library
 * (the library itself built with -DHOT_LIB_ONLY).
 * Usage: hot SECONDS [fork | exec PROGRAM [ARG...]]
 *   busy for about SECONDS of CPU time, then exits; with "fork" the busy
 *   loop runs in a child the parent waits for; with "exec" the process
 *   then execs PROGRAM (same pid, new image).
 * -DWORKLOAD_TAG='"name"' makes a binary with its own build-id, so tests
 * can tell the images of several copies apart.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef HOT_LIB_ONLY
#include <sys/wait.h>
#include <unistd.h>
#endif

#ifdef WORKLOAD_TAG
const char dcpi_workload_tag[] = WORKLOAD_TAG;
#endif

#ifdef HOT_IN_LIB
unsigned long dcpi_workload_hot(unsigned long n);
#else
#ifndef HOT_LIB_ONLY
static
#endif
unsigned long dcpi_workload_hot(unsigned long n) __attribute__((noinline));
unsigned long
dcpi_workload_hot(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i * i ^ (x >> 3);
	return x;
}
#endif

#ifndef HOT_LIB_ONLY
static unsigned long
busy(double secs)
{
	struct timespec t0, t;
	unsigned long sink = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		/* Short calls, so that even a run of a few ms spends nearly
		 * all of its time in the hot function. */
		sink += dcpi_workload_hot(100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return sink;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	int status;
	pid_t pid;

	if (argc > 2 && strcmp(argv[2], "fork") == 0) {
		if ((pid = fork()) == -1)
			return 2;
		if (pid == 0)
			_exit(busy(secs) == 42);
		return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
		    WEXITSTATUS(status) : 2;
	}
	if (busy(secs) == 42)
		return 1;
	if (argc > 3 && strcmp(argv[2], "exec") == 0) {
		execv(argv[3], argv + 3);
		return 2;
	}
	return 0;
}
#endif
