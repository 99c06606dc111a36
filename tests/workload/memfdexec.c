/*
 * A program run from a memfd, as runc and packers run theirs:
 * `memfdexec SECONDS` copies its own file into a memfd and fexecve's it,
 * which then spins in memfd_workload_hot for SECONDS of its CPU time.  The mapping is
 * named "/memfd:memfdexec (deleted)", and holds the whole ELF image.
 * `memfdexec code SECONDS` instead runs raw machine code (a jump to
 * itself) from an executable mapping of a memfd, as a JIT with
 * double-mapped code does: no ELF there.  (x86-64 only.)  Built with
 * -DMEMFD_NAME='"NAME"', the memfd is NAME (and the build-id another).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MEMFD_NAME
#define MEMFD_NAME "memfdexec"
#endif

__attribute__((noinline)) unsigned long
memfd_workload_hot(unsigned long n)
{
	unsigned long s = 0, i;

	for (i = 0; i < n; i++)
		s += i * i % 7;
	return s;
}

static int
run_code(int seconds)
{
#if defined(__x86_64__)
	static const unsigned char loop[] = { 0xeb, 0xfe };	/* jmp . */
	int fd = memfd_create("dcpi-jitcode", MFD_CLOEXEC);
	void (*fn)(void);
	void *p;
	pid_t c;

	if (fd == -1 || write(fd, loop, sizeof(loop)) != sizeof(loop) ||
	    ftruncate(fd, 4096) == -1 ||
	    (p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		perror("memfd code");
		return 1;
	}
	if ((c = fork()) == 0) {
		fn = (void (*)(void))p;
		fn();
		_exit(0);
	}
	sleep((unsigned)seconds);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	return 0;
#else
	(void)seconds;
	fprintf(stderr, "memfdexec code: x86-64 only\n");
	return 77;
#endif
}

int
main(int argc, char **argv, char **envp)
{
	char *args[4];
	struct stat st;
	int in, fd;

	if (argc == 3 && strcmp(argv[1], "code") == 0)
		return run_code(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "run") == 0) {
		/* CPU seconds, not wall: on a loaded host the samples expected
		 * of SECONDS are still there. */
		double end = atoi(argv[2]);
		unsigned long s = 0;
		/* Read anew each time: the function is pure, and a compiler
		 * may call it once for the whole loop. */
		volatile unsigned long n = 1000000;
		struct timespec ts;

		do {
			s += memfd_workload_hot(n);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
		return s == 42;
	}
	if ((in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(in, &st) == -1 ||
	    (fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC)) == -1 ||
	    sendfile(fd, in, NULL, (size_t)st.st_size) != st.st_size) {
		perror("memfdexec");
		return 1;
	}
	args[0] = MEMFD_NAME;
	args[1] = "run";
	args[2] = argc > 1 ? argv[1] : "2";
	args[3] = NULL;
	fexecve(fd, args, envp);
	perror("fexecve");
	return 1;
}
