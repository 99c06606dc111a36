/*
 * Sample-path benchmark: synthesized ring-buffer records (PERF_RECORD_SAMPLE
 * in perf.c's sample_type layout, and the MMAP2-with-build-id, COMM, FORK
 * and EXIT sideband of processes running real ELF files of this machine)
 * go through the daemon's own code.  The records are written, as the
 * kernel would, into ring buffers in place of those of the (disabled)
 * events perf_init opened on CPUs 0 and 1; then core_process: perf.c drains the sideband's
 * buffers into the ordering queue and reads the samples in place
 * (perf_read_until), core.c's record parser, perf_event_of_id,
 * attr_sample and agg_add.  With -Q every record is copied into the
 * queue by core_record instead (the path before the zero-copy reading,
 * without perf.c's read of the buffers).  Only the processing is timed,
 * not the writing into the buffers (the kernel's work).
 *
 * Usage: sample_path [-n SAMPLES] [-p PROCS] [-c CHURN] [-b BATCH] [-k PCT]
 *   -n  samples timed (default 10,000,000), after one untimed cycle
 *   -p  live processes (default 64), each an executable with its libraries
 *   -c  samples between a process exit and a new fork+exec (default 1,000)
 *   -b  records per CPU between two core_process calls (default 1,000:
 *       100 ms at 10 kHz; at most what a 512 KiB buffer holds)
 *   -Q  every record through core_record and the queue
 *   -k  percent of samples in the kernel (default 15)
 *   -g  generations of pids per slot in a cycle (default 16): a cycle of
 *       PROCS * GENS * CHURN samples is synthesized once and replayed
 *   -G  call chains of DEPTH frames (default none)
 *   -C  with -G: the records carry their chains but dcpid keeps none (what
 *       the larger records alone cost: the floor of -G's cost)
 *   -z  skewed draws: each sample's random word is one of a pool of
 *       ZPOOL words, picked by a Zipf law of exponent S (default: every
 *       sample a fresh word, i.e. processes, PCs and caller paths drawn
 *       uniformly from their ranges); a word drawn again gives the same
 *       process slot, PC and caller path, so the same chain while that
 *       slot's process lives, as a real service's hot stacks repeat
 * Needs root (or CAP_PERFMON) and two CPUs: perf_init opens a disabled
 * cpu-clock event and the sideband's on CPUs 0 and 1, so that samples carry
 * an IDENTIFIER the daemon knows and its buffers are perf.c's.  Prints ns per
 * sample and samples per second of this thread's CPU time, and checks that
 * every sample was attributed to the image it was synthesized in.
 */
#include <config.h>

#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <libelf.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "attr.h"
#include "callchain.h"
#include "core.h"
#include "labeler.h"
#include "stack.h"
#include "loop.h"
#include "perf.h"
#include "record.h"

#define MAXLIBS		8
#define HOTPCS		512	/* distinct sampled PCs per image */
#define NCPU		2

struct elfimg {
	char		 path[256];
	uint8_t		 bid[20];
	size_t		 bidlen;
	uint64_t	 off, vaddr, filesz;	/* the executable PT_LOAD */
	uint64_t	 tstart, tsize;		/* as imagetab.c computes them */
	uint64_t	 hot[HOTPCS];		/* file offsets within the text */
	uint64_t	 expected;		/* samples synthesized here */
	uint64_t	 got;			/* counted, over all labels */
};

struct prog {
	size_t	 exe;
	size_t	 libs[MAXLIBS], nlibs;
};

static struct elfimg	*imgs;
static size_t		 nimgs;
static struct prog	*progs;
static size_t		 nprogs;
static uint64_t		 kstart, kend, kexpected;

static uint64_t		 rng = 88172645463325252ull;
static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void __attribute__((format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sample_path: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static const char *libdirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib",
	"/lib", NULL
};

/* Reads path's executable segment and build-id; -1 if unusable.  Text is
 * the first executable PT_LOAD, as imagetab.c's elf_text takes it. */
static int
load_elf(const char *path, char needed[MAXLIBS][128], size_t *nneeded)
{
	struct elfimg im;
	Elf *e;
	GElf_Phdr ph;
	Elf_Scn *scn = NULL;
	size_t n, i;
	int fd, found = 0;
	char *real;

	memset(&im, 0, sizeof(im));
	/* realpath into im.path could write PATH_MAX bytes into 256. */
	if ((real = realpath(path, NULL)) == NULL)
		return -1;
	if (strlen(real) >= sizeof(im.path)) {
		free(real);
		return -1;
	}
	strcpy(im.path, real);
	free(real);
	for (i = 0; i < nimgs; i++)
		if (strcmp(imgs[i].path, im.path) == 0)
			return (int)i;
	if ((fd = open(im.path, O_RDONLY)) == -1)
		return -1;
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL || elf_getphdrnum(e, &n) != 0) {
		elf_end(e);
		close(fd);
		return -1;
	}
	for (i = 0; i < n && !found; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			im.off = ph.p_offset;
			im.vaddr = ph.p_vaddr;
			im.filesz = ph.p_filesz;
			found = 1;
		}
	if (nneeded)
		*nneeded = 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		if (sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t o = 0, no, dof;

			while ((o = gelf_getnote(d, o, &nh, &no, &dof)) > 0)
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 20 &&
				    nh.n_namesz == 4 && memcmp((char *)d->d_buf + no, "GNU", 4) == 0) {
					im.bidlen = nh.n_descsz;
					memcpy(im.bid, (char *)d->d_buf + dof, im.bidlen);
				}
		} else if (sh.sh_type == SHT_DYNAMIC && nneeded) {
			GElf_Dyn dyn;
			int j;

			for (j = 0; gelf_getdyn(d, j, &dyn); j++)
				if (dyn.d_tag == DT_NEEDED && *nneeded < MAXLIBS) {
					const char *s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);

					if (s)
						snprintf(needed[(*nneeded)++], 128, "%s", s);
				}
		}
	}
	elf_end(e);
	close(fd);
	if (!found || im.bidlen == 0 || im.filesz < 4096)
		return -1;
	im.tstart = im.vaddr;
	im.tsize = im.filesz;
	/* Hot spots skewed toward a few PCs, as real profiles are. */
	for (i = 0; i < HOTPCS; i++)
		im.hot[i] = im.off + rnd() % im.filesz;
	imgs = realloc(imgs, (nimgs + 1) * sizeof(*imgs));
	imgs[nimgs] = im;
	return (int)nimgs++;
}

static void
add_prog(const char *path)
{
	char needed[MAXLIBS][128], lib[PATH_MAX];
	size_t nneeded, i, k;
	struct prog p;
	int x, ld;

	if ((x = load_elf(path, needed, &nneeded)) == -1)
		return;
	memset(&p, 0, sizeof(p));
	p.exe = (size_t)x;
	if ((ld = load_elf("/lib64/ld-linux-x86-64.so.2", NULL, NULL)) != -1)
		p.libs[p.nlibs++] = (size_t)ld;
	for (i = 0; i < nneeded && p.nlibs < MAXLIBS; i++)
		for (k = 0; libdirs[k]; k++) {
			if (snprintf(lib, sizeof(lib), "%s/%s", libdirs[k], needed[i]) >= (int)sizeof(lib))
				break;
			if (access(lib, R_OK) == 0) {
				if ((x = load_elf(lib, NULL, NULL)) != -1)
					p.libs[p.nlibs++] = (size_t)x;
				break;
			}
		}
	progs = realloc(progs, (nprogs + 1) * sizeof(*progs));
	progs[nprogs++] = p;
}

static void
read_kernel_text(void)
{
	char line[512], name[256], t;
	unsigned long long a;
	FILE *fp = fopen("/proc/kallsyms", "r");

	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3) {
			if (strcmp(name, "_stext") == 0)
				kstart = a;
			else if (strcmp(name, "_etext") == 0)
				kend = a;
		}
	fclose(fp);
	if (kstart == 0 || kend <= kstart)
		kstart = kend = 0;
}

/* ---- the record stream ---- */

struct rec {
	uint64_t	 time;
	uint32_t	 size;
	uint32_t	 at;		/* byte offset in buf */
};

static unsigned char	*buf;
static size_t		 buflen, bufcap;
static struct rec	*recs;
static size_t		 nrecs, reccap;
static uint64_t		 sample_id;

static void *
emit(size_t size, uint64_t time)
{
	void *p;

	if (buflen + size > bufcap) {
		bufcap = bufcap ? bufcap * 2 : (1 << 20);
		buf = realloc(buf, bufcap);
	}
	if (nrecs == reccap) {
		reccap = reccap ? reccap * 2 : 65536;
		recs = realloc(recs, reccap * sizeof(*recs));
	}
	if (buf == NULL || recs == NULL)
		die("%s", "out of memory");
	recs[nrecs++] = (struct rec){ time, (uint32_t)size, (uint32_t)buflen };
	p = buf + buflen;
	memset(p, 0, size);
	buflen += size;
	return p;
}

static void
trailer(unsigned char *end, uint32_t pid, uint64_t time, uint32_t cpu)
{
	struct record_daemon_id *s = (void *)(end - sizeof(*s));

	s->pid = s->tid = pid;
	s->time = time;
	s->cpu = cpu;
	s->id = sample_id;
}

static void
emit_mmap2(uint32_t pid, uint64_t start, const struct elfimg *im, uint64_t time, uint32_t cpu)
{
	size_t slen = (strlen(im->path) + 8) & ~(size_t)7;
	size_t size = sizeof(struct record_mmap2) + slen + sizeof(struct record_daemon_id);
	unsigned char *r = emit(size, time);
	struct record_mmap2 *m = (void *)r;

	m->header.type = PERF_RECORD_MMAP2;
	m->header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	m->header.size = (uint16_t)size;
	m->pid = m->tid = pid;
	m->start = start + (im->off & 4095);
	m->len = ((im->filesz + (im->off & 4095)) + 4095) & ~4095ull;
	m->pgoff = im->off & ~4095ull;
	m->build_id_size = (uint8_t)im->bidlen;
	memcpy(m->build_id, im->bid, im->bidlen);
	m->prot = PROT_READ | PROT_EXEC;
	m->flags = MAP_PRIVATE;
	strcpy(m->filename, im->path);
	trailer(r + size, pid, time, cpu);
}

static void
emit_task(uint32_t type, uint32_t pid, uint32_t ppid, uint64_t time, uint32_t cpu)
{
	size_t size = sizeof(struct record_task) + sizeof(struct record_daemon_id);
	unsigned char *r = emit(size, time);
	struct record_task *t = (void *)r;

	t->header.type = type;
	t->header.size = (uint16_t)size;
	t->pid = t->tid = pid;
	t->ppid = t->ptid = ppid;
	t->time = time;
	trailer(r + size, pid, time, cpu);
}

static void
emit_comm(uint32_t pid, const char *path, uint64_t time, uint32_t cpu)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t slen = (strnlen(base, 15) + 8) & ~(size_t)7;
	size_t size = sizeof(struct record_comm) + slen + sizeof(struct record_daemon_id);
	unsigned char *r = emit(size, time);
	struct record_comm *c = (void *)r;

	c->header.type = PERF_RECORD_COMM;
	c->header.misc = PERF_RECORD_MISC_COMM_EXEC;
	c->header.size = (uint16_t)size;
	c->pid = c->tid = pid;
	memcpy(c->comm, base, strnlen(base, 15));
	trailer(r + size, pid, time, cpu);
}

/* Labels: every process is in the cgroup of its program's service, one of
 * NCGROUPS announced by PERF_RECORD_CGROUP at the start, as dcpid sees
 * them on a server (so an executable is in one label, libc and the kernel
 * in all). */
#define NCGROUPS	8
#define CGROUP_ID(prog)	(1000u + (uint32_t)(prog) % NCGROUPS)
static int	 labels = 1;

static void
emit_cgroup(uint64_t id, const char *path, uint64_t time)
{
	size_t slen = (strlen(path) + 8) & ~(size_t)7;
	size_t size = sizeof(struct record_cgroup) + slen + sizeof(struct record_daemon_id);
	unsigned char *r = emit(size, time);
	struct record_cgroup *c = (void *)r;

	c->header.type = PERF_RECORD_CGROUP;
	c->header.size = (uint16_t)size;
	c->id = id;
	strcpy(c->path, path);
	trailer(r + size, 0, time, 0);
}

/* Processes: slot s holds pid base + s + gen * nproc (mod nproc * gens),
 * so a cycle of nproc * gens churns ends with the pids it began with and
 * can be replayed. */
#define PIDBASE	100000u
#define PARENT	99999u
static size_t	 nproc = 64, gens = 16;

struct live {
	uint32_t	 pid;
	size_t		 prog;
	uint64_t	 base[1 + MAXLIBS];
};
static struct live	*live;

static void
start_proc(size_t slot, uint32_t pid, uint64_t time, uint32_t cpu, int fork)
{
	struct live *l = &live[slot];
	const struct prog *p;
	size_t i;

	l->pid = pid;
	l->prog = pid % nprogs;
	p = &progs[l->prog];
	if (fork)
		emit_task(PERF_RECORD_FORK, pid, PARENT, time, cpu);
	emit_comm(pid, imgs[p->exe].path, time, cpu);
	/* Distinct, page-aligned bases per pid, as ASLR gives. */
	l->base[0] = 0x550000000000ull + ((uint64_t)(pid * 2654435761u) & 0xffffff) * 4096;
	emit_mmap2(pid, l->base[0], &imgs[p->exe], time, cpu);
	for (i = 0; i < p->nlibs; i++) {
		l->base[1 + i] = 0x7f0000000000ull + (uint64_t)i * 0x10000000ull +
		    ((uint64_t)((pid + i) * 40503u) & 0xffff) * 4096;
		emit_mmap2(pid, l->base[1 + i], &imgs[p->libs[i]], time, cpu);
	}
}

/* -G DEPTH: samples carry call chains of DEPTH frames, the sampled PC
 * and DEPTH - 1 callers: in the image of the sample, one of 4 caller paths
 * per (process, PC), so that chains repeat as a program's do. */
static unsigned	 gdepth;
static int	 chains_kept = 1;	/* -C: 0 */

/* -z S: the pool of words and the Zipf law's cumulative weights. */
#define ZPOOL	16384
static double	 zipf_s;
static uint64_t	 zpool[ZPOOL];
static double	 zcdf[ZPOOL];

static void
zipf_init(void)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < ZPOOL; i++) {
		zpool[i] = rnd();
		sum += 1.0 / pow((double)(i + 1), zipf_s);
		zcdf[i] = sum;
	}
	for (i = 0; i < ZPOOL; i++)
		zcdf[i] /= sum;
}

/* A sample's random word: fresh, or (-z) drawn from the pool. */
static uint64_t
draw(void)
{
	double u;
	size_t lo = 0, hi = ZPOOL - 1, mid;

	if (zipf_s <= 0)
		return rnd();
	u = (double)(rnd() >> 11) / 9007199254740992.0;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (zcdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return zpool[lo];
}

static void
emit_sample(uint64_t time, uint32_t cpu, int kpct)
{
	size_t size = sizeof(struct record_daemon_sample) + (gdepth ? 8 * (gdepth + 2) : 0);
	struct record_daemon_sample *s = emit(size, time);
	uint64_t r = draw(), cg, *chain = NULL, base = 0;
	const struct elfimg *im = NULL;
	unsigned j;

	s->header.type = PERF_RECORD_SAMPLE;
	s->header.size = (uint16_t)size;
	s->id = sample_id;
	s->time = time;
	s->cpu = cpu;
	if (kstart && (int)(r % 100) < kpct) {
		s->header.misc = PERF_RECORD_MISC_KERNEL;
		s->pid = s->tid = live[(r >> 8) % nproc].pid;
		cg = CGROUP_ID(live[(r >> 8) % nproc].prog);
		/* Few distinct kernel PCs, as in real profiles. */
		s->ip = kstart + ((r >> 20) % 4096) * 37 % (kend - kstart);
		kexpected++;
	} else {
		struct live *l = &live[(r >> 8) % nproc];
		const struct prog *p = &progs[l->prog];
		size_t k = (r >> 16) % (1 + p->nlibs), h;
		double u = (double)((r >> 32) & 0xffff) / 65536.0;

		im = &imgs[k == 0 ? p->exe : p->libs[k - 1]];
		/* Half the samples in the libraries' first, libc-like, slot. */
		if (k > 1 && (r & 0x100000) && p->nlibs > 1)
			k = 2, im = &imgs[p->libs[1]];
		h = (size_t)(u * u * u * HOTPCS);
		s->header.misc = PERF_RECORD_MISC_USER;
		s->pid = s->tid = l->pid;
		cg = CGROUP_ID(l->prog);
		base = l->base[k] + (im->off & 4095) - im->off;
		s->ip = base + im->hot[h];
		((struct elfimg *)im)->expected++;
	}
	if (gdepth) {
		/* nr, then the chain: a context marker, the PC, the callers. */
		chain = (uint64_t *)(s + 1) - 1;
		chain[0] = gdepth + 1;
		chain[1] = im ? PERF_CONTEXT_USER : PERF_CONTEXT_KERNEL;
		chain[2] = s->ip;
		for (j = 1; j < gdepth; j++)
			chain[2 + j] = im ? base + im->hot[(j * 131 + (r >> 40) % 4) % HOTPCS] + 1 :
			    kstart + ((j * 977 + (r >> 40) % 4) * 37) % (kend - kstart);
	}
	memcpy((unsigned char *)s + size - 8, labels ? &cg : &(uint64_t){ 0 }, 8);
}

/* One cycle: nsamples samples over NCPU CPUs with a process replaced
 * every churn samples; records are listed per batch, CPU after CPU, as
 * perf_drain reads the buffers. */
static size_t
build_cycle(size_t nsamples, size_t churn, int kpct, uint64_t *t)
{
	size_t i, nchurn = 0;
	uint32_t cpu;

	for (i = 0; i < nsamples; i++) {
		cpu = (uint32_t)(i % NCPU);
		*t += 50000 / NCPU;		/* 10 kHz per CPU */
		if (i % churn == churn - 1) {
			size_t slot = nchurn % nproc;
			uint32_t old = live[slot].pid;
			uint32_t pid = PIDBASE + (uint32_t)((old - PIDBASE + nproc) % (nproc * gens));

			emit_task(PERF_RECORD_EXIT, old, PARENT, *t, cpu);
			start_proc(slot, pid, *t + 1, cpu, 1);
			nchurn++;
		}
		emit_sample(*t + 2, cpu, kpct);
	}
	return nchurn;
}

/* A record's position per batch: CPU 0's records of a batch, then CPU 1's.
 * The trailer/sample says which CPU took it. */
static uint32_t
rec_cpu(const struct rec *r)
{
	const unsigned char *p = buf + r->at;
	const struct perf_event_header *h = (const void *)p;

	if (h->type == PERF_RECORD_SAMPLE)
		return ((const struct record_daemon_sample *)p)->cpu;
	return ((const struct record_daemon_id *)(p + r->size - sizeof(struct record_daemon_id)))->cpu;
}

static double cputime(void);

static size_t	 batch = 1000;
static int	 queue_all;	/* -Q: every record through core_record */
static double	 cpu_in_process;	/* thread CPU s in timed_process */

/*
 * The daemon's ring buffers: perf_sys_mmap is wrapped to map anonymous
 * memory in place of the events' buffers (whose data pages the kernel
 * maps read-only to user space), which the benchmark writes as the kernel
 * would: samples into the event's buffer of their CPU, read by perf.c in
 * place, the rest into the sideband's, drained into the ordering queue.
 */
struct ring {
	int		 fd;
	unsigned char	*base;
	size_t		 len;
};
static struct ring	 rings[4 * NCPU];
static size_t		 nrings;
static struct ring	*ev_ring[NCPU], *sb_ring[NCPU];

void *__wrap_perf_sys_mmap(int, size_t);

void *
__wrap_perf_sys_mmap(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);

	if (p != MAP_FAILED && nrings < 4 * NCPU)
		rings[nrings++] = (struct ring){ fd, p, len };
	return p;
}

static void
find_rings(void)
{
	size_t i, j, nsb = 0, nev = 0;
	int ev, fd;

	for (i = 0; i < perf_nfds(); i++) {
		fd = perf_fd(i, &ev);
		for (j = 0; j < nrings && rings[j].fd != fd; j++)
			;
		if (j == nrings)
			die("%s", "a ring buffer was not seen mapped");
		/* CPUs in order, the sideband's buffers first. */
		if (ev == -1 && nsb < NCPU)
			sb_ring[nsb++] = &rings[j];
		else if (ev == 0 && nev < NCPU)
			ev_ring[nev++] = &rings[j];
	}
	if (nsb != NCPU || nev != NCPU)
		die("expected %d CPUs' buffers, found %zu and %zu", NCPU, nsb, nev);
}

/* Appends record r, its time moved by toff, at the ring's head. */
static void
ring_put(struct ring *rg, const struct rec *r, uint64_t toff)
{
	static uint64_t tmp[65536 / 8];
	struct perf_event_mmap_page *pg = (void *)rg->base;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), dsize = rg->len - page, at, first;
	unsigned char *data = rg->base + page;
	struct perf_event_header *h = (void *)tmp;
	uint64_t head = pg->data_head, t = r->time + toff;

	if (head + r->size - __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE) > dsize)
		die("a batch of %zu records per CPU overflows the %zu-byte ring buffer; use a smaller -b",
		    batch, dsize);
	memcpy(tmp, buf + r->at, r->size);
	if (h->type == PERF_RECORD_SAMPLE)
		((struct record_daemon_sample *)tmp)->time = t;
	else
		((struct record_daemon_id *)((unsigned char *)tmp + r->size -
		    sizeof(struct record_daemon_id)))->time = t;
	at = head & (dsize - 1);
	first = dsize - at < r->size ? dsize - at : r->size;
	memcpy(data + at, tmp, first);
	memcpy(data, (unsigned char *)tmp + first, r->size - first);
	__atomic_store_n(&pg->data_head, head + r->size, __ATOMIC_RELEASE);
}

/* dcpid's work on one batch: with -Q every record copied into the queue,
 * then the processing. */
static inline void
process_batch(size_t i, size_t end, uint64_t toff)
{
	size_t j;
	uint32_t c;

	if (queue_all)
		for (c = 0; c < NCPU; c++)
			for (j = i; j < end; j++)
				if (rec_cpu(&recs[j]) == c)
					core_record((const void *)(buf + recs[j].at),
					    recs[j].size, recs[j].time + toff);
	core_process(1);
}

/* The timed batches (callgrind --toggle-collect=timed_process), and the
 * warm-up's. */
static void __attribute__((noinline))
timed_process(size_t i, size_t end, uint64_t toff)
{
	process_batch(i, end, toff);
}

static size_t	 warm_batches;	/* also keeps the two functions apart (gcc's ICF) */

static void __attribute__((noinline))
untimed_process(size_t i, size_t end, uint64_t toff)
{
	warm_batches++;
	process_batch(i, end, toff);
}

static void
replay_batches(uint64_t toff, void (*process)(size_t, size_t, uint64_t))
{
	size_t i = 0, j, end;
	double t0;

	while (i < nrecs) {
		end = i + batch * NCPU < nrecs ? i + batch * NCPU : nrecs;
		/* The kernel's part: the records written into the buffers. */
		for (j = i; !queue_all && j < end; j++) {
			uint32_t c = rec_cpu(&recs[j]);
			const struct perf_event_header *h = (const void *)(buf + recs[j].at);

			ring_put(h->type == PERF_RECORD_SAMPLE ? ev_ring[c] : sb_ring[c],
			    &recs[j], toff);
		}
		t0 = cputime();
		process(i, end, toff);
		cpu_in_process += cputime() - t0;
		i = end;
	}
}

static uint64_t
event_id_of_dcpid(void)
{
	/* Event ids come from one kernel counter: the daemon's event lies
	 * between two events opened just before and after perf_init. */
	struct perf_event_attr a;
	uint64_t lo = 0, hi = 0, id;
	int fd, i;
	char err[512];
	char *ev[] = { "perf::cpu-clock" };

	for (i = 0; i < 2; i++) {
		if (i == 1 && perf_init(ev, 1, "0-1", err, sizeof(err)) == -1)
			die("perf_init: %s (run as root)", err);
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.disabled = 1;
		if ((fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0)) == -1 ||
		    ioctl(fd, PERF_EVENT_IOC_ID, i ? &hi : &lo) == -1)
			die("perf_event_open: %s (run as root)", strerror(errno));
		close(fd);
	}
	for (id = lo + 1; id < hi; id++)
		if (perf_event_of_id(id) == 0)
			return id;
	die("%s", "cannot find the daemon's event id");
	return 0;
}

static uint64_t kgot, chained;

static int
sum_chain(uint32_t stream, const struct stack_frame *f, uint32_t depth,
    uint64_t count, void *arg)
{
	(void)stream, (void)f, (void)arg;
	if (depth != gdepth)
		die("a call chain of %u frames, %u synthesized", depth, gdepth);
	chained += count;
	return 0;
}

static int
count_cb(uint32_t event, uint32_t image, const struct dcpi_count *c, size_t n, void *arg)
{
	struct image *im = attr_image(image);
	uint64_t sum = 0;
	size_t i;

	(void)event;
	(void)arg;
	for (i = 0; i < n; i++)
		sum += c[i].count;
	/* An image's counts come in one stream per label. */
	for (i = 0; i < nimgs; i++)
		if (strcmp(imgs[i].path, im->path) == 0) {
			imgs[i].got += sum;
			return 0;
		}
	if (strcmp(im->path, "[kernel.kallsyms]") == 0) {
		kgot += sum;
		return 0;
	}
	fprintf(stderr, "sample_path: %ju samples in unexpected image %s\n", (uintmax_t)sum, im->path);
	exit(1);
}

static double
cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	static const char *progpaths[] = {
		"/usr/bin/bash", "/usr/bin/python3", "/usr/bin/make", "/usr/bin/perf",
		"/usr/bin/ls", "/usr/bin/grep", "/usr/bin/sed", "/usr/bin/gcc-12",
		"/usr/bin/gdb", "/usr/bin/valgrind", "/usr/bin/ssh", "/usr/bin/git", NULL
	};
	size_t n = 10000000, churn = 1000, cyc, ncycles, nchurn, i;
	int kpct = 15, ch;
	uint64_t t = 1000000000ull, span;
	double t0, t1;

	while ((ch = getopt(argc, argv, "n:p:c:b:k:g:LG:z:CQ")) != -1) {
		switch (ch) {
		case 'n': n = strtoul(optarg, NULL, 10); break;
		case 'p': nproc = strtoul(optarg, NULL, 10); break;
		case 'c': churn = strtoul(optarg, NULL, 10); break;
		case 'b': batch = strtoul(optarg, NULL, 10); break;
		case 'k': kpct = atoi(optarg); break;
		case 'g': gens = strtoul(optarg, NULL, 10); break;
		case 'L': labels = 0; break;
		case 'G': gdepth = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'z': zipf_s = strtod(optarg, NULL); break;
		case 'C': chains_kept = 0; break;
		case 'Q': queue_all = 1; break;
		default:
			fprintf(stderr, "usage: sample_path [-n SAMPLES] [-p PROCS] [-c CHURN] [-b BATCH] [-k PCT] [-g GENS] [-L] [-G DEPTH [-C]] [-z S] [-Q]\n");
			return 1;
		}
	}
	if (n == 0 || nproc == 0 || churn == 0 || batch == 0 || gens == 0)
		die("%s", "-n, -p, -c, -b and -g must be positive");
	elf_version(EV_CURRENT);
	for (i = 0; progpaths[i]; i++)
		add_prog(progpaths[i]);
	if (nprogs == 0)
		die("%s", "no usable program with a build-id found");
	read_kernel_text();
	if (zipf_s > 0)
		zipf_init();

	loop_init();
	if (attr_init() == -1)
		die("%s", "attr_init failed");
	label_init(labels ? 1 : 0, 1000);	/* label-by unit, or none (-L) */
	core_init(0);
	if (gdepth) {
		record_daemon_set_callchain(1);
		callchain_set_depth(chains_kept ? gdepth : 0);
	}
	sample_id = event_id_of_dcpid();
	find_rings();

	/* Set-up (untimed): the processes exist, then one cycle warms the
	 * images and tables.  The timed run replays the cycle. */
	/* Slot nproc is the shell that forks every process, never sampled. */
	live = calloc(nproc + 1, sizeof(*live));
	for (i = 0; labels && i < NCGROUPS; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/system.slice/service%zu.service", i);
		emit_cgroup(1000 + i, path, t);
	}
	start_proc(nproc, PARENT, t, 0, 0);
	for (i = 0; i < nproc; i++)
		start_proc(i, PIDBASE + (uint32_t)i, t, 0, 1);
	for (i = 0; i < nrecs; i++)
		core_record((const void *)(buf + recs[i].at), recs[i].size, recs[i].time);
	core_process(1);
	nrecs = buflen = 0;
	cyc = churn * nproc * gens;
	nchurn = build_cycle(cyc, churn, kpct, &t);
	span = t + 10 - 1000000000ull;
	replay_batches(0, untimed_process);
	ncycles = (n + cyc - 1) / cyc;
	cpu_in_process = 0;
	for (i = 1; i <= ncycles; i++)
		replay_batches(i * span, timed_process);
	t0 = 0;
	t1 = cpu_in_process;
	/* Synthesized counts: the warm-up cycle plus the timed ones. */
	for (i = 0; i < nimgs; i++)
		imgs[i].expected *= ncycles + 1;
	kexpected *= ncycles + 1;
	agg_flush(count_cb, NULL);
	for (i = 0; i < nimgs; i++)
		if (imgs[i].expected != imgs[i].got)
			die("%s: %ju samples attributed, %ju synthesized", imgs[i].path,
			    (uintmax_t)imgs[i].got, (uintmax_t)imgs[i].expected);
	if (kexpected != kgot)
		die("kernel: %ju samples attributed, %ju synthesized",
		    (uintmax_t)kgot, (uintmax_t)kexpected);
	/* Every sample's chain counted once (nothing flushed them). */
	if (gdepth && chains_kept && stack_each(sum_chain, NULL) == 0 &&
	    chained != (ncycles + 1) * cyc)
		die("call chains: %ju samples counted, %zu synthesized",
		    (uintmax_t)chained, (ncycles + 1) * cyc);

	n = ncycles * cyc;
	printf("programs %zu, images %zu, processes %zu, kernel samples %d%%\n",
	    nprogs, nimgs, nproc, kstart ? kpct : 0);
	if (zipf_s > 0)
		printf("draws: Zipf, exponent %g over %d words\n", zipf_s, ZPOOL);
	else
		printf("draws: uniform\n");
	if (gdepth && !chains_kept)
		printf("call chains: %u frames in the records, none kept (-C)\n",
		    gdepth);
	else if (gdepth)
		printf("call chains: %u frames, %zu distinct at the end (%.1f "
		    "samples of a cycle each, all counted), %zu bytes held\n", gdepth,
		    stack_entries(), (double)cyc / (double)stack_entries(),
		    stack_memory());
	printf("labels: %s\n", labels ? "by unit, " "8 services' cgroups (PERF_SAMPLE_CGROUP)" :
	    "none (-L)");
	printf("records per cycle %zu (%zu samples, %zu process replacements: "
	    "FORK, COMM, %zu MMAP2 on average, EXIT)\n", nrecs, cyc, nchurn,
	    (nrecs - cyc - 3 * nchurn) / (nchurn ? nchurn : 1));
	printf("path: %s\n", queue_all ? "every record copied into the queue (-Q)" :
	    "samples read in place from the ring buffers, the sideband queued");
	printf("samples %zu in %.3f s CPU: %.1f ns/sample, %.2f M samples/s; "
	    "all attributed to their images\n", n, t1 - t0, (t1 - t0) * 1e9 / (double)n,
	    (double)n / (t1 - t0) / 1e6);
	core_fini();
	label_fini();
	perf_fini();
	attr_fini();
	loop_fini();
	free(buf);
	free(recs);
	free(live);
	free(imgs);
	free(progs);
	return 0;
}
