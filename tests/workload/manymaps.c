/*
 * A JIT's way with memory, at its worst: N (argument) executable
 * anonymous mappings of 8 KiB, each in mmap's order (below the last) and
 * its second page made inaccessible so that none merges with the next,
 * then MS (second argument) milliseconds spent in code copied into the
 * first and the last of them (x86-64).  A third argument: a file created
 * once every mapping is made.  N written fN: N executable mappings of
 * this program's first page instead, each below the last (none merges
 * with the next: their file offsets are all 0), and the time spent in
 * the anonymous code of one mapping.
 */
#include <sys/mman.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
static const unsigned char loop[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	int file = argc > 1 && argv[1][0] == 'f';
	long n = argc > 1 ? atol(argv[1] + file) : 1000, i;
	double ms = argc > 2 ? atof(argv[2]) : 300, end;
	unsigned char *p, *first = NULL, *last = NULL;
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd == -1) {
		perror("/proc/self/exe");
		return 1;
	}
	for (i = 0; file && i < n; i++)
		if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
		    MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	for (i = 0; i < (file ? 1 : n); i++) {
		p = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		memcpy(p, loop, sizeof(loop));
		if (mprotect(p + 4096, 4096, PROT_NONE) == -1) {
			perror("mprotect");
			return 1;
		}
		if (first == NULL)
			first = p;
		last = p;
	}
	if (argc > 3) {
		FILE *fp = fopen(argv[3], "w");

		if (fp == NULL || fclose(fp) != 0) {
			perror(argv[3]);
			return 1;
		}
	}
	end = now() + ms / 1000;
	while (now() < end) {
		((void (*)(long))first)(100000);
		((void (*)(long))last)(100000);
	}
	return 0;
}
