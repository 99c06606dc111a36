/*
 * The unwind tables' size and build time, and the walk's time a sample.
 *
 *   bench/unwind [-n ROUNDS] [-T] [-R] [IMAGE...]
 *
 * For each image (default: this process's libc and /usr/bin/python3):
 * its FDEs, rows and bytes, and the time of unwind_table_build from an
 * open Elf (the median and least of ROUNDS builds).  Then the walk: this
 * program, built -O2 without frame pointers, recurses to depths 8, 16 and
 * 32 (frames of its own, then main and glibc's three), copies its stack
 * as PERF_SAMPLE_STACK_USER would (8 KiB from SP) and times unwind_walk
 * over it, the median of 11 runs of 100,000 walks, with a look-up over
 * the two images as the daemon's over a process's mappings would be.
 * -T: the tables only, and an image without one (no CFI, refused, not an
 * ELF file) is a line saying why, not the end (bench/unwind_fleet.sh).
 * -R: then the rules the tables interned (daemon/unwind_table.h), one a
 * line ("rule CFA_OFFSET BP_OFFSET RA_OFFSET KIND"), for counting the
 * distinct rules of many runs.
 */
#define _GNU_SOURCE
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include "unwind.h"
#include "unwind_table.h"

#define STACK_COPY	8192
#define WALKS		100000
#define RUNS		11

static int tables_only;

struct img {
	const char		*name;
	uint64_t		 bias, lo, hi;
	struct unwind_table	*t;
};

static struct img imgs[2];	/* this program, libc */
static char libc_path[4096];

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct img *m = NULL;
	int i;

	(void)size;
	(void)arg;
	if (info->dlpi_name[0] == '\0')
		m = &imgs[0];
	else if (strstr(info->dlpi_name, "/libc.so.6") != NULL) {
		m = &imgs[1];
		snprintf(libc_path, sizeof(libc_path), "%s", info->dlpi_name);
	}
	if (m == NULL)
		return 0;
	m->bias = info->dlpi_addr;
	m->lo = UINT64_MAX;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0)
			continue;
		if (m->bias + ph->p_vaddr < m->lo)
			m->lo = m->bias + ph->p_vaddr;
		if (m->bias + ph->p_vaddr + ph->p_memsz > m->hi)
			m->hi = m->bias + ph->p_vaddr + ph->p_memsz;
	}
	return 0;
}

static struct unwind_table *
table_of(const char *path, int rounds, int quiet)
{
	struct unwind_table *t = NULL;
	double *ms;
	int fd, i;
	Elf *elf;

	if ((fd = open(path, O_RDONLY)) == -1 ||
	    (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		if (!tables_only)
			err(1, "%s", path);
		printf("%-40s none: %s\n", path, fd == -1 ? strerror(errno) : elf_errmsg(-1));
		if (fd != -1)
			close(fd);
		return NULL;
	}
	if ((ms = calloc((size_t)rounds, sizeof(*ms))) == NULL)
		err(1, NULL);
	for (i = 0; i < rounds; i++) {
		double t0 = now_ns();

		unwind_table_free(t);
		if ((t = unwind_table_build(elf, NULL)) == NULL) {
			if (!tables_only)
				err(1, "%s: unwind_table_build", path);
			printf("%-40s none: %s\n", path, errno == ENOENT ?
			    "no call-frame information" : strerror(errno));
			free(ms);
			elf_end(elf);
			close(fd);
			return NULL;
		}
		ms[i] = (now_ns() - t0) / 1e6;
	}
	qsort(ms, (size_t)rounds, sizeof(*ms), dcmp);
	if (!quiet)
		printf("%-40s %s fdes %zu rows %zu bytes %zu (%.1f a FDE) build %.2f ms (least %.2f)\n",
		    path, unwind_table_source(t) == UNWIND_SRC_EH_FRAME ? ".eh_frame" : ".debug_frame",
		    unwind_table_fdes(t), unwind_table_rows(t), unwind_table_memory(t),
		    (double)unwind_table_memory(t) / (double)unwind_table_fdes(t),
		    ms[rounds / 2], ms[0]);
	free(ms);
	elf_end(elf);
	close(fd);
	return t;
}

static int
lookup(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	int i;

	(void)arg;
	for (i = 0; i < 2; i++)
		if (pc >= imgs[i].lo && pc < imgs[i].hi) {
			*t = imgs[i].t;
			*bias = imgs[i].bias;
			return 0;
		}
	return -1;
}

static struct unwind_regs regs;
static struct unwind_stack stack;
static unsigned char copy[STACK_COPY];
static volatile int sink;
static uint64_t stack_end;

/* The end of the mapping that holds addr (/proc/self/maps), or 0. */
static uint64_t
mapping_end(uint64_t addr)
{
	unsigned long lo, hi;
	char line[512];
	uint64_t end = 0;
	FILE *f;

	if ((f = fopen("/proc/self/maps", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && addr >= lo && addr < hi) {
			end = hi;
			break;
		}
	fclose(f);
	return end;
}

/* A copy the sanitizers do not check, as the kernel's: a stack holds
 * AddressSanitizer's redzones between its frames' variables. */
static void
raw_copy(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) :: "memory");
}

static __attribute__((noinline, noclone)) void
capture(void)
{
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
	    : "=r"(regs.ip), "=r"(regs.sp), "=r"(regs.bp) :: "memory");
	size_t n = sizeof(copy);

	/* Up to the stack's end, as the kernel's copy stops there. */
	if (stack_end > regs.sp && stack_end - regs.sp < n)
		n = (size_t)(stack_end - regs.sp);
	raw_copy(copy, (const void *)(uintptr_t)regs.sp, n);
	stack = (struct unwind_stack){ copy, n, regs.sp };
	sink++;
}

static __attribute__((noinline, noclone)) void
recurse(int n)
{
	if (n > 0)
		recurse(n - 1);
	else
		capture();
	__asm__ volatile("" ::: "memory");
	sink++;
}

int
main(int argc, char **argv)
{
	static const int depths[] = { 8, 16, 32 };
	uint64_t callers[64];
	double ns[RUNS];
	enum unwind_end e;
	size_t n = 0;
	int rounds = 9, c, i, d, r, w, rules = 0;

	while ((c = getopt(argc, argv, "n:TR")) != -1) {
		if (c == 'T')
			tables_only = 1;
		else if (c == 'R')
			rules = 1;
		else if (c != 'n' || (rounds = atoi(optarg)) < 1)
			errx(2, "usage: bench/unwind [-n ROUNDS] [-T] [-R] [IMAGE...]");
	}
	elf_version(EV_CURRENT);
	stack_end = mapping_end((uint64_t)(uintptr_t)&c);
	dl_iterate_phdr(phdr_cb, NULL);
	if (optind < argc)
		for (i = optind; i < argc; i++)
			unwind_table_free(table_of(argv[i], rounds, 0));
	else {
		unwind_table_free(table_of(libc_path, rounds, 0));
		unwind_table_free(table_of("/usr/bin/python3", rounds, 0));
	}
	for (i = 0; rules && (uint32_t)i < unwind_rules(); i++) {
		const struct unwind_rule *u = unwind_rule_at((uint32_t)i);

		printf("rule %d %d %d %u\n", u->cfa_offset, u->bp_offset, u->ra_offset,
		    u->kind);
	}
	if (rules && unwind_rules_over() > 0)
		printf("rules over the bound: %ju\n", (uintmax_t)unwind_rules_over());
	if (tables_only)
		return 0;
	imgs[0].t = table_of("/proc/self/exe", 1, 1);
	imgs[1].t = table_of(libc_path, 1, 1);
	for (d = 0; d < 3; d++) {
		/* main and glibc's frames below it are 4 of the callers. */
		recurse(depths[d] - 5);
		for (r = 0; r < RUNS; r++) {
			double t0 = now_ns();

			for (w = 0; w < WALKS; w++)
				n = unwind_walk(&regs, &stack, lookup, NULL, callers, 64, &e);
			ns[r] = (now_ns() - t0) / WALKS;
		}
		qsort(ns, RUNS, sizeof(ns[0]), dcmp);
		printf("walk: %zu callers (%s) %.0f ns a walk (least %.0f), %.1f ns a frame\n",
		    n, unwind_end_name(e), ns[RUNS / 2], ns[0], ns[RUNS / 2] / (double)n);
	}
	unwind_table_free(imgs[0].t);
	unwind_table_free(imgs[1].t);
	return 0;
}
