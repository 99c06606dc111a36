/*
 * A small JIT for the hostile-neighbour tests (x86-64): code copied into
 * anonymous executable memory at a fixed address, JIT_ADDR, so that a map
 * or a dump written by someone else can name it.
 *
 *   jitdumper write PATH NAME     a jitdump at PATH naming JIT_ADDR NAME
 *   jitdumper dump DIR NAME READY GO SECONDS
 *                                 writes DIR/jit-PID.dump naming its code
 *                                 NAME and maps it executable (as perf's
 *                                 JIT agents do), writes its pid to READY,
 *                                 waits for the file GO, then runs its
 *                                 code for SECONDS of CPU time
 *   jitdumper run SECONDS         runs its code for SECONDS of CPU time
 *                                 (its names from /tmp/perf-PID.map, if
 *                                 someone wrote one)
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JIT_ADDR	0x3e0000000000ULL
#define JIT_SIZE	4096

/* mov rcx, 1000000; 1: dec rcx; jnz 1b; ret */
static const unsigned char code[] = {
	0x48, 0xb9, 0x40, 0x42, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3
};

static void
put(FILE *fp, const void *p, size_t n)
{
	if (fwrite(p, 1, n, fp) != n) {
		perror("jitdumper: write");
		exit(1);
	}
}

static void
put32(FILE *fp, uint32_t v) { put(fp, &v, 4); }
static void
put64(FILE *fp, uint64_t v) { put(fp, &v, 8); }

/* The header and one JIT_CODE_LOAD of the code at JIT_ADDR, named name. */
static int
write_dump(const char *path, const char *name)
{
	size_t nl = strlen(name) + 1;
	FILE *fp;

	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		return -1;
	}
	put32(fp, 0x4A695444);		/* "JiTD" */
	put32(fp, 1);
	put32(fp, 40);
	put32(fp, 62);			/* EM_X86_64 */
	put32(fp, 0);
	put32(fp, (uint32_t)getpid());
	put64(fp, 1);
	put64(fp, 0);
	put32(fp, 0);			/* JIT_CODE_LOAD */
	put32(fp, (uint32_t)(56 + nl + sizeof(code)));
	put64(fp, 2);
	put32(fp, (uint32_t)getpid());
	put32(fp, (uint32_t)getpid());
	put64(fp, JIT_ADDR);
	put64(fp, JIT_ADDR);
	put64(fp, sizeof(code));
	put64(fp, 0);
	put(fp, name, nl);
	put(fp, code, sizeof(code));
	return fclose(fp) == 0 ? 0 : -1;
}

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
run(double seconds)
{
	void (*fn)(void);
	void *p;
	double t0;

	p = mmap((void *)JIT_ADDR, JIT_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)JIT_ADDR) {
		perror("jitdumper: mmap at JIT_ADDR");
		return 1;
	}
	memcpy(p, code, sizeof(code));
	fn = (void (*)(void))p;
	t0 = cpu_seconds();
	while (cpu_seconds() - t0 < seconds)
		fn();
	return 0;
}

int
main(int argc, char **argv)
{
	char path[4096];
	FILE *fp;
	void *m;
	int fd;

#if !defined(__x86_64__)
	fprintf(stderr, "jitdumper: x86-64 only\n");
	return 77;
#endif
	if (argc == 4 && strcmp(argv[1], "write") == 0)
		return write_dump(argv[2], argv[3]) == 0 ? 0 : 1;
	if (argc == 3 && strcmp(argv[1], "run") == 0)
		return run(atof(argv[2]));
	if (argc != 7 || strcmp(argv[1], "dump") != 0) {
		fprintf(stderr, "usage: jitdumper write PATH NAME | "
		    "dump DIR NAME READY GO SECONDS | run SECONDS\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/jit-%d.dump", argv[2], (int)getpid());
	if (write_dump(path, argv[3]) == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0)) ==
	    MAP_FAILED) {
		perror(path);
		return 1;
	}
	(void)m;
	if ((fp = fopen(argv[4], "w")) == NULL || fprintf(fp, "%d\n",
	    (int)getpid()) < 0 || fclose(fp) != 0) {
		perror(argv[4]);
		return 1;
	}
	while (access(argv[5], F_OK) != 0)
		usleep(20000);
	return run(atof(argv[6]));
}
