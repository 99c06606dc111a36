/*
 * Process churn for the fault tests: runs PROGRAM [ARGS] N times, two at a
 * time, each a fork and an exec.  Exit status 0, or 1 if a fork or wait
 * failed.
 *
 *	churn N PROGRAM [ARGS]
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int
main(int argc, char **argv)
{
	long i, n = argc > 2 ? atol(argv[1]) : 0;
	int st;

	for (i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == -1)
			return 1;
		if (p == 0) {
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (i % 2 && (wait(&st) == -1 || wait(&st) == -1))
			return 1;
	}
	while (wait(&st) != -1)
		;
	return 0;
}
