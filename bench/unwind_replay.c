/*
 * The walk over samples of a real run: perf record --call-graph dwarf's
 * user registers and stack copies, extracted by bench/perf_ustack.py,
 * walked with tables built from the mapped files as dcpid would.
 *
 *   bench/unwind_replay [-v] FILE
 *
 * FILE holds records 'M' (u32 pid, u64 start, u64 len, u64 pgoff, u16
 * name length, name: an executable mapping) and 'S' (u64 time, u32 pid,
 * u64 ip, sp, bp, u32 size, the stack's bytes), little-endian, unaligned.
 * Prints the end reasons of the walks and their time (median of 5 walks a
 * sample, summed; the look-up a binary search over the process's
 * mappings); with -v, each sample: its time, then the leaf and the
 * callers as IMAGE+OFFSET, the offset in the file (a caller's at its
 * return address minus one), as perf script shows them, then [reason].  The vdso is this kernel's,
 * read from this process (the same image in every process).
 */
#define _GNU_SOURCE
#include "config.h"

#include <sys/auxv.h>

#include <err.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include "unwind.h"
#include "unwind_table.h"

struct image {
	char			*name;
	struct unwind_table	*t;
};

struct map {
	uint32_t	 pid;
	uint64_t	 start, end, bias, pgoff;
	int		 image;		/* -1: no table */
};

static struct image *images;
static size_t nimages;
static struct map *maps;
static size_t nmaps, capmaps;

static void *
xrealloc(void *p, size_t n, size_t size)
{
	if ((p = reallocarray(p, n, size)) == NULL)
		err(1, NULL);
	return p;
}

static void
get(FILE *f, void *p, size_t n)
{
	if (fread(p, 1, n, f) != n)
		errx(1, "truncated replay file");
}

/* The image named name, its table built on first use: its index or -1. */
static int
image_of(const char *name, uint64_t start, uint64_t len, uint64_t pgoff, uint64_t *bias)
{
	struct unwind_table *t = NULL;
	GElf_Phdr ph;
	Elf *elf = NULL;
	size_t i = 0, nph;
	int fd = -1, found = 0;
	char *vdso;

	if (strcmp(name, "[vdso]") == 0) {
		/* Its ELF vaddrs are offsets in the mapping. */
		*bias = start;
		found = 1;
	} else if (name[0] != '/' || (fd = open(name, O_RDONLY)) == -1 ||
	    (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    elf_getphdrnum(elf, &nph) != 0)
		goto out;
	else
		for (i = 0; i < nph && !found; i++)
			if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD &&
			    pgoff >= (ph.p_offset & ~(uint64_t)0xfff) &&
			    pgoff < ph.p_offset + ph.p_filesz) {
				*bias = start - (ph.p_vaddr - ph.p_offset + pgoff);
				found = 1;
			}
	if (!found)
		goto out;
	for (i = 0; i < nimages; i++)
		if (strcmp(images[i].name, name) == 0)
			goto out;
	if (strcmp(name, "[vdso]") == 0) {
		if ((vdso = (char *)getauxval(AT_SYSINFO_EHDR)) != NULL &&
		    (elf = elf_memory(vdso, len)) != NULL)
			t = unwind_table_build(elf, NULL);
	} else
		t = unwind_table_build(elf, NULL);
	images = xrealloc(images, nimages + 1, sizeof(*images));
	images[nimages].name = strdup(name);
	images[nimages++].t = t;
out:
	if (elf != NULL)
		elf_end(elf);
	if (fd != -1)
		close(fd);
	return found && i < nimages && images[i].t != NULL ? (int)i : -1;
}

static int
map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The last mapping of pid starting at or below pc, if it holds pc. */
static const struct map *
map_find(uint32_t pid, uint64_t pc)
{
	size_t lo = 0, hi = nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (maps[mid].pid < pid || (maps[mid].pid == pid && maps[mid].start <= pc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || maps[lo - 1].pid != pid || pc >= maps[lo - 1].end)
		return NULL;
	return &maps[lo - 1];
}

static int
lookup(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	const struct map *m = map_find(*(const uint32_t *)arg, pc);

	if (m == NULL || m->image < 0)
		return -1;
	*t = images[m->image].t;
	*bias = m->bias;
	return 0;
}

static void
where(uint32_t pid, uint64_t pc)
{
	const struct map *m = map_find(pid, pc);
	const char *base;

	if (m == NULL || m->image < 0) {
		printf(" ?+%" PRIx64, pc);
		return;
	}
	base = strrchr(images[m->image].name, '/');
	printf(" %s+%" PRIx64, base != NULL ? base + 1 : images[m->image].name,
	    pc - m->start + m->pgoff);
}

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

int
main(int argc, char **argv)
{
	static unsigned char data[65536];
	struct sample {
		uint64_t	 time, ip, sp, bp;
		uint32_t	 pid, size;
	} s;
	uint64_t callers[128], len, pgoff;
	size_t ends[UNWIND_END_COUNT] = { 0 }, total = 0, frames = 0, n = 0, i;
	double ns = 0, t[5];
	enum unwind_end e = UNWIND_END_OUTERMOST;
	int verbose = 0, c, k;
	char name[4097];
	uint16_t nlen;
	FILE *f;

	while ((c = getopt(argc, argv, "v")) != -1) {
		if (c != 'v')
			errx(2, "usage: bench/unwind_replay [-v] FILE");
		verbose = 1;
	}
	if (optind + 1 != argc || (f = fopen(argv[optind], "rb")) == NULL)
		errx(2, "usage: bench/unwind_replay [-v] FILE");
	elf_version(EV_CURRENT);
	/* The mappings first (a process's are not replaced in these runs). */
	while ((c = fgetc(f)) != EOF) {
		if (c == 'M') {
			if (nmaps == capmaps)
				maps = xrealloc(maps, capmaps = capmaps ? capmaps * 2 : 256, sizeof(*maps));
			get(f, &maps[nmaps].pid, 4);
			get(f, &maps[nmaps].start, 8);
			get(f, &len, 8);
			get(f, &pgoff, 8);
			get(f, &nlen, 2);
			if (nlen >= sizeof(name))
				errx(1, "name too long");
			get(f, name, nlen);
			name[nlen] = '\0';
			maps[nmaps].end = maps[nmaps].start + len;
			maps[nmaps].pgoff = pgoff;
			maps[nmaps].image = image_of(name, maps[nmaps].start, len, pgoff,
			    &maps[nmaps].bias);
			nmaps++;
		} else if (c == 'S') {
			get(f, &s.time, 8);
			get(f, &s.pid, 4);
			get(f, &s.ip, 8);
			get(f, &s.sp, 8);
			get(f, &s.bp, 8);
			get(f, &s.size, 4);
			if (fseek(f, s.size, SEEK_CUR) == -1)
				err(1, "%s", argv[optind]);
		} else
			errx(1, "bad record %#x", c);
	}
	qsort(maps, nmaps, sizeof(*maps), map_cmp);
	rewind(f);
	while ((c = fgetc(f)) != EOF) {
		if (c == 'M') {
			get(f, name, 4 + 8 + 8 + 8);
			get(f, &nlen, 2);
			get(f, name, nlen);
			continue;
		}
		get(f, &s.time, 8);
		get(f, &s.pid, 4);
		get(f, &s.ip, 8);
		get(f, &s.sp, 8);
		get(f, &s.bp, 8);
		get(f, &s.size, 4);
		if (s.size > sizeof(data))
			errx(1, "stack copy of %u bytes", s.size);
		get(f, data, s.size);
		/* Samples whose user IP no mapping holds (before the exec's
		 * mappings) are left out. */
		if (map_find(s.pid, s.ip) == NULL)
			continue;
		{
			struct unwind_regs r = { s.ip, s.sp, s.bp };
			struct unwind_stack st = { data, s.size, s.sp };

			for (k = 0; k < 5; k++) {
				double t0 = now_ns();

				n = unwind_walk(&r, &st, lookup, &s.pid, callers, 128, &e);
				t[k] = now_ns() - t0;
			}
		}
		qsort(t, 5, sizeof(t[0]), dcmp);
		ns += t[2];
		total++;
		frames += n;
		ends[e]++;
		if (verbose) {
			printf("%" PRIu64, s.time);
			where(s.pid, s.ip);
			for (i = 0; i < n; i++)
				where(s.pid, callers[i] - 1);
			printf(" [%s]\n", unwind_end_name(e));
		}
	}
	fprintf(stderr, "%zu samples, %.1f callers a sample, %.0f ns a walk:", total,
	    total ? (double)frames / (double)total : 0.0, total ? ns / (double)total : 0.0);
	for (i = 0; i < UNWIND_END_COUNT; i++)
		if (ends[i] > 0)
			fprintf(stderr, " %s %zu (%.1f%%)", unwind_end_name((enum unwind_end)i),
			    ends[i], 100.0 * (double)ends[i] / (double)total);
	fprintf(stderr, "\n");
	return 0;
}
