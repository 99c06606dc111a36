/*
 * A small JIT: machine code copied into anonymous executable memory and
 * named by /tmp/perf-PID.map, as node --perf-basic-prof and Java agents
 * name theirs.  (x86-64 only.)
 *
 *   jitmap flood NAMELEN LINES SECONDS  the map first, LINES symbols of
 *                                       NAMELEN bytes each (the pid in
 *                                       them), then SECONDS of CPU in
 *                                       all of them in turn
 *   jitmap late SECONDS                 SECONDS of CPU in jit_late_hot,
 *                                       the map written just before exit
 *                                       (as -XX:+DumpPerfMapAtExit does)
 *
 * CPU time, not wall-clock time: a loaded host still gets the samples.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOT	64

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Code at p: mov rcx, 1000000; 1: dec rcx; jnz 1b; ret. */
static void
emit(unsigned char *p)
{
	static const unsigned char code[] = {
		0x48, 0xb9, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0,
		0x48, 0xff, 0xc9,
		0x75, 0xfb,
		0xc3,
	};

	memcpy(p, code, sizeof(code));
}

static FILE *
map_open(void)
{
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%ld.map", (long)getpid());
	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	return fp;
}

static void
map_close(FILE *fp)
{
	if (fclose(fp) != 0) {
		perror("perf map");
		exit(1);
	}
}

/* SECONDS of CPU in the functions at code, n of them SLOT apart, in
 * turn. */
static void
run(unsigned char *code, size_t n, double seconds)
{
	void (*fn)(void);
	double t0 = cpu_seconds();
	size_t i;

	for (i = 0; cpu_seconds() - t0 < seconds; i = (i + 1) % n) {
		fn = (void (*)(void))(void *)(code + i * SLOT);
		fn();
	}
}

int
main(int argc, char **argv)
{
#if defined(__x86_64__)
	unsigned char *code;
	size_t namelen, lines = 1, i, j;
	char *name;
	FILE *fp;

	if (argc == 5 && strcmp(argv[1], "flood") == 0)
		lines = strtoul(argv[3], NULL, 0);
	if (lines < 1 || lines > (64 << 20) / SLOT)
		return 2;
	if ((code = mmap(NULL, lines * SLOT, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (argc == 5 && strcmp(argv[1], "flood") == 0) {
		namelen = strtoul(argv[2], NULL, 0);
		if (namelen < 32 || (name = malloc(namelen + 1)) == NULL)
			return 2;
		fp = map_open();
		for (i = 0; i < lines; i++) {
			emit(code + i * SLOT);
			j = (size_t)snprintf(name, namelen + 1, "flood_%ld_%zu_",
			    (long)getpid(), i);
			memset(name + j, 'x', namelen - j);
			name[namelen] = '\0';
			fprintf(fp, "%lx %x %s\n", (unsigned long)(code + i * SLOT),
			    SLOT, name);
		}
		map_close(fp);
		run(code, lines, atof(argv[4]));
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "late") == 0) {
		emit(code);
		run(code, 1, atof(argv[2]));
		fp = map_open();
		fprintf(fp, "%lx %x jit_late_hot\n", (unsigned long)code, SLOT);
		map_close(fp);
		return 0;
	}
	fprintf(stderr, "usage: jitmap flood NAMELEN LINES SECONDS | late SECONDS\n");
	return 2;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jitmap: x86-64 only\n");
	return 77;
#endif
}
