/*
 * The loader and the drain of the in-kernel aggregation (bpfagg.h).  The
 * program is daemon/bpf/bpfagg.bpf.c, built by clang and embedded through
 * bpftool's skeleton (bpfagg.skel.h, generated in the build directory).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpfagg.h"
#include "log.h"
#include "unwind_table.h"
#include "perf.h"
#include "xmalloc.h"

#include "bpfagg.skel.h"

_Static_assert(offsetof(struct bpfunw_chain, w) == BPFUNW_HDR,
    "the chain record's header is BPFUNW_HDR bytes");
_Static_assert(sizeof(struct bpfunw_row) == sizeof(struct unwind_row) &&
    sizeof(struct bpfunw_rule) == sizeof(struct unwind_rule) &&
    BPFUNW_RULES == UNWIND_RULES_MAX, "the kernel's rows and rules are dcpid's");

static struct bpfagg_bpf	 *skel;
static struct bpf_link	**links;
static int		 *linkfds;	/* the perf fd of each link (perf.c's) */
static size_t		  nlinks;
static struct bpfagg_ctl *ctlp;		/* the maps, mapped (bpfagg_key.h) */
static uint64_t		 *counts;
static struct bpfagg_key *keys;
static size_t		  ctl_len, counts_len, keys_len;
static int		  resetting = -1;	/* a set to empty at the next drain */
static uint64_t		  ndrains, nsamples, nswitches;

/* The call chains' walk (bpfagg_key.h: dcpi_chain): attached to the
 * chains' sparse twins, its rows mapped here, its chains read from the
 * ring buffer map. */
static int		  unw_on;
static struct bpfunw_row *unw_rows;
static uint32_t		  unw_nrows;		/* the array's rows */
static size_t		  unw_rows_len;
static struct bpfunw_rule *unw_rules;	/* rules [0, unw_nrules) written */
static size_t		  unw_rules_len;
static uint32_t		  unw_nrules;
static struct ring_buffer *unw_rb;
static bpfunw_cb	  unw_cb;
static void		 *unw_arg;
/*
 * The files whose rows are loaded, sorted by first row.  A range freed
 * stays taken (dead) until a bpfunw_release at least UNW_QUARANTINE_MS
 * after: a walk on another CPU may have found the file's entry before it
 * was deleted and still be searching the rows.  Such a walk is short: a
 * perf event's program runs to its end with preemption off, and its
 * bpf_loop ends within BPFUNW_DEPTH_MAX + 1 frames of a bounded number of
 * lookups each, tens of microseconds; a walk that still read rows reused
 * would give a wrong chain, never read outside the maps.  A range's
 * owner (unwind_cache's table whose rows are there, or NULL) is told
 * (unw_gone) when the rows go, at that release: until then they are the
 * table's, unchanged.
 */
#define UNW_QUARANTINE_MS	10
struct unw_range {
	uint64_t	dev, ino;
	uint32_t	first, n;
	uint64_t	seq;		/* load order: the oldest is evicted first */
	uint64_t	dead_ms;	/* when it was dropped (CLOCK_MONOTONIC); 0: live */
	const void	*owner;
};
static struct unw_range	 *unw_ranges;
static size_t		  nunw_ranges;
static uint64_t		  unw_seq, unw_evicted;
static void		(*unw_gone)(const void *owner);

/* libbpf's messages at debug level: a refusal is summed up by its caller. */
static int
print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_debug("libbpf: %s", buf);
	return 0;
}

int
bpfagg_active(void)
{
	return skel != NULL;
}

void
bpfagg_fini(void)
{
	size_t i;

	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	if (ctlp != NULL)
		munmap(ctlp, ctl_len);
	if (counts != NULL)
		munmap(counts, counts_len);
	if (keys != NULL)
		munmap(keys, keys_len);
	ctlp = NULL;
	counts = NULL;
	keys = NULL;
	resetting = -1;
	free(links);
	free(linkfds);
	links = NULL;
	linkfds = NULL;
	nlinks = 0;
	perf_set_fd_cb(NULL);
	ring_buffer__free(unw_rb);
	unw_rb = NULL;
	/* Their owners' rows are unmapped with the array. */
	for (i = 0; i < nunw_ranges; i++)
		if (unw_ranges[i].owner != NULL && unw_gone != NULL)
			unw_gone(unw_ranges[i].owner);
	if (unw_rows != NULL)
		munmap(unw_rows, unw_rows_len);
	unw_rows = NULL;
	if (unw_rules != NULL)
		munmap(unw_rules, unw_rules_len);
	unw_rules = NULL;
	unw_nrules = 0;
	free(unw_ranges);
	unw_ranges = NULL;
	nunw_ranges = 0;
	unw_on = 0;
	bpfagg_bpf__destroy(skel);
	skel = NULL;
}

static int
fail(char *why, size_t len, const char *what, int err)
{
	snprintf(why, len, "%s: %s", what, strerror(err < 0 ? -err : err));
	bpfagg_fini();
	return -1;
}

static size_t
map_len(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (bytes + page - 1) / page * page;
}

/* An array map's values in dcpid's memory, shared with the program;
 * NULL on error.  Pointers into ctlp are NULL until mapped, so that
 * fail() (bpfagg_fini) unmaps only what was. */
static void *
map_of(struct bpf_map *m, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
	    bpf_map__fd(m), 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The program attached to perf event fd (of event index ev): 0, or an
 * errno. */
static int
attach(struct bpf_program *prog, int fd, int ev)
{
	LIBBPF_OPTS(bpf_perf_event_opts, o);
	struct bpf_link *l;
	int dfd, err;

	o.bpf_cookie = (uint64_t)ev;
	/* The link closes the fd it is given when it is destroyed: a
	 * duplicate, perf.c keeps its own. */
	if ((dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return errno;
	if ((l = bpf_program__attach_perf_event_opts(prog, dfd, &o)) == NULL) {
		err = errno;
		close(dfd);
		return err;
	}
	links = xreallocarray(links, nlinks + 1, sizeof(*links));
	linkfds = xreallocarray(linkfds, nlinks + 1, sizeof(*linkfds));
	links[nlinks] = l;
	linkfds[nlinks++] = fd;
	return 0;
}

/* A CPU's event opened again after hotplug (perf_set_fd_cb): the link to
 * the old one destroyed (its duplicate fd would keep the dead event), the
 * program attached to the new.  A refusal leaves that CPU's samples to
 * the ring buffer (the program's pass-through path). */
static void
fd_changed(int oldfd, int newfd, int ev)
{
	size_t i;
	int err;

	for (i = 0; oldfd != -1 && i < nlinks; i++)
		if (linkfds[i] == oldfd) {
			bpf_link__destroy(links[i]);
			links[i] = links[--nlinks];
			linkfds[i] = linkfds[nlinks];
			break;
		}
	if (ev & PERF_EVENT_CHAIN) {
		if (unw_on && (err = attach(skel->progs.dcpi_chain, newfd,
		    ev & ~PERF_EVENT_CHAIN)) != 0)
			log_warnx("attaching the BPF walk to a CPU's new event: %s; "
			    "its chains are walked by dcpid", strerror(err));
		return;
	}
	if ((err = attach(skel->progs.dcpi_sample, newfd, ev)) != 0)
		log_warnx("attaching the BPF program to a CPU's new event: %s; "
		    "its samples are counted from the ring buffer", strerror(err));
}

/* Opens and loads the object, with the walk (chains) or without it: 0,
 * or an errno. */
static int
load(int chains, int reject)
{
	if ((skel = bpfagg_bpf__open()) == NULL)
		return errno;
	if (!chains) {
		/* The flat profiles' program alone, as without call chains:
		 * no memory for the walk's maps. */
		bpf_program__set_autoload(skel->progs.dcpi_chain, false);
		bpf_map__set_autocreate(skel->maps.unw_rows, false);
		bpf_map__set_autocreate(skel->maps.unw_rules, false);
		bpf_map__set_autocreate(skel->maps.unw_files, false);
		bpf_map__set_autocreate(skel->maps.unw_need, false);
		bpf_map__set_autocreate(skel->maps.unw_vmacache, false);
		bpf_map__set_autocreate(skel->maps.unw_scratch, false);
		bpf_map__set_autocreate(skel->maps.unw_stack, false);
		bpf_map__set_autocreate(skel->maps.unw_stats, false);
		bpf_map__set_autocreate(skel->maps.chains, false);
	}
	else if (bpf_map__set_max_entries(skel->maps.unw_rows, unw_nrows) != 0)
		return errno;
	skel->rodata->unw_reject = chains && reject;
	return bpfagg_bpf__load(skel);
}

static int
ring_record(void *arg, void *data, size_t size)
{
	(void)arg;
	if (unw_cb != NULL)
		unw_cb(data, size, unw_arg);
	return 0;
}

/* Bit BIT of the hexadecimal FIELD of /proc/self/status (CapEff), or
 * with BIT -1 the decimal FIELD (Seccomp); -1 where unknown. */
static int
self_status(const char *field, int bit)
{
	char line[256];
	unsigned long long v;
	size_t n = strlen(field);
	FILE *f;
	int r = -1;

	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			v = strtoull(line + n + 1, NULL, bit < 0 ? 10 : 16);
			r = bit < 0 ? (int)v : (int)(v >> bit & 1);
			break;
		}
	fclose(f);
	return r;
}

/* Why the program did not load, in the terms an administrator acts on:
 * the kernel's BTF that libbpf relocates the program against (CO-RE), or
 * the privilege bpf() asks for; else the errno, with what is needed. */
static int
refused(char *why, size_t len, int err)
{
	const char *btf_path = "/sys/kernel/btf/vmlinux";
	struct btf *btf;
	struct stat sb;
	char sysctl[32] = "?";
	FILE *f;
	int perm, admin;

	if ((btf = btf__load_vmlinux_btf()) == NULL) {
		int e = errno;

		snprintf(why, len, "no kernel BTF for the program's relocations: "
		    "%s: %s (CONFIG_DEBUG_INFO_BTF)", btf_path,
		    stat(btf_path, &sb) == -1 ? strerror(errno) :
		    sb.st_size == 0 ? "empty" : strerror(e));
		bpfagg_fini();
		return -1;
	}
	btf__free(btf);
	if (err < 0)
		err = -err;
	perm = err == EPERM || err == EACCES;
	/* CAP_SYS_ADMIN (21) stands for CAP_BPF (39) and CAP_PERFMON (38). */
	admin = self_status("CapEff", 21) == 1;
	if (perm && !admin && self_status("CapEff", 39) == 0) {
		if ((f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "re")) != NULL) {
			if (fgets(sysctl, sizeof(sysctl), f) != NULL)
				sysctl[strcspn(sysctl, "\n")] = '\0';
			fclose(f);
		}
		snprintf(why, len, "bpf() refused: no CAP_BPF (nor CAP_SYS_ADMIN), "
		    "kernel.unprivileged_bpf_disabled = %s", sysctl);
	} else if (perm && !admin && self_status("CapEff", 38) == 0)
		snprintf(why, len, "bpf() refused: CAP_BPF without CAP_PERFMON");
	else if (perm && self_status("Seccomp", -1) == 2)
		snprintf(why, len, "bpf() refused by a seccomp filter (with CAP_BPF; "
		    "systemd: SystemCallFilter= without bpf)");
	else
		return fail(why, len, "loading the BPF program (needs Linux 5.17 "
		    "with BTF, and CAP_BPF with CAP_PERFMON or root)", err);
	bpfagg_fini();
	return -1;
}

int
bpfagg_init(char *why, size_t len, const struct bpfunw_conf *chains,
    char *chain_why, size_t chain_len)
{
	size_t i;
	int err, ev, fd;

	libbpf_set_print(print_fn);
	unw_nrows = chains == NULL || chains->rows == 0 ? BPFUNW_ROWS : chains->rows;
	if (chains != NULL) {
		/* The walk refused (a verifier that will not have it, maps
		 * too large): the flat program alone, the chains dcpid's. */
		if ((err = load(1, chains->reject)) == 0) {
			unw_on = 1;
		} else {
			snprintf(chain_why, chain_len, "loading the BPF walk: %s "
			    "(libbpf says why at debug level)",
			    strerror(err < 0 ? -err : err));
			bpfagg_bpf__destroy(skel);
			skel = NULL;
		}
	}
	/* A load refused: no BTF (CONFIG_DEBUG_INFO_BTF), no bpf_find_vma
	 * (Linux 5.17), no CAP_BPF and CAP_PERFMON. */
	if (!unw_on && (err = load(0, 0)) != 0) {
		if (skel == NULL)
			return fail(why, len, "opening the BPF object", err);
		return refused(why, len, err);
	}
	ctl_len = map_len(sizeof(*ctlp));
	counts_len = map_len(2 * BPFAGG_SLOTS * sizeof(*counts));
	keys_len = map_len(2 * BPFAGG_SLOTS * sizeof(*keys));
	if ((ctlp = map_of(skel->maps.ctl, ctl_len)) == NULL ||
	    (counts = map_of(skel->maps.slot_count, counts_len)) == NULL ||
	    (keys = map_of(skel->maps.slot_key, keys_len)) == NULL)
		return fail(why, len, "mapping the BPF count maps", errno);
	ctlp->gen = 0;
	ctlp->pass_all = 0;
	if (unw_on) {
		ctlp->chain_depth = chains->depth;
		ctlp->chain_stack = chains->stack;
		ctlp->chain_check = chains->check;
		unw_rows_len = map_len((size_t)unw_nrows * sizeof(*unw_rows));
		unw_cb = chains->cb;
		unw_arg = chains->arg;
		unw_rules_len = map_len(BPFUNW_RULES * sizeof(*unw_rules));
		if ((unw_rows = map_of(skel->maps.unw_rows, unw_rows_len)) == NULL ||
		    (unw_rules = map_of(skel->maps.unw_rules, unw_rules_len)) == NULL ||
		    (unw_rb = ring_buffer__new(bpf_map__fd(skel->maps.chains),
		    ring_record, NULL, NULL)) == NULL)
			return fail(why, len, "mapping the BPF walk's maps", errno);
	}
	for (i = 0; i < perf_nfds(); i++) {
		if ((fd = perf_fd(i, &ev)) == -1 || ev < 0)
			continue;
		if (ev & PERF_EVENT_CHAIN) {
			if (unw_on && (err = attach(skel->progs.dcpi_chain, fd,
			    ev & ~PERF_EVENT_CHAIN)) != 0)
				return fail(why, len, "attaching the BPF walk to a "
				    "perf event", err);
			continue;
		}
		if ((err = attach(skel->progs.dcpi_sample, fd, ev)) != 0)
			return fail(why, len, "attaching the BPF program to a perf "
			    "event (cookies need Linux 5.15)", err);
	}
	perf_set_fd_cb(fd_changed);
	ndrains = nsamples = nswitches = 0;
	unw_seq = unw_evicted = 0;
	return 0;
}

void
bpfagg_pass_all(int on)
{
	if (skel != NULL)
		__atomic_store_n(&ctlp->pass_all, on != 0, __ATOMIC_SEQ_CST);
}

uint64_t
bpfagg_drain_slots(const struct bpfagg_key *k, uint64_t *c, uint32_t used,
    bpfagg_cb cb, void *arg)
{
	uint64_t total = 0, n;
	uint32_t i;

	if (used > BPFAGG_SLOTS)
		used = BPFAGG_SLOTS;
	for (i = 0; i < used; i++) {
		if (c[i] == 0)
			continue;
		/* The count first: a slot's key is written before its first
		 * count, and the exchange orders the read of it after. */
		if ((n = __atomic_exchange_n(&c[i], 0, __ATOMIC_SEQ_CST)) == 0)
			continue;
		total += n;
		cb(&k[i], n, arg);
	}
	return total;
}

static uint64_t
drain_set(int s, bpfagg_cb cb, void *arg)
{
	size_t base = (size_t)s * BPFAGG_SLOTS;

	return bpfagg_drain_slots(keys + base, counts + base,
	    __atomic_load_n(&ctlp->used[s], __ATOMIC_SEQ_CST), cb, arg);
}

/* Empties set s, switched away from at the drain before (a program that
 * read the old generation has long finished): its keys leave the hash. */
static void
reset_set(int s)
{
	size_t base = (size_t)s * BPFAGG_SLOTS;
	uint32_t i, used = __atomic_load_n(&ctlp->used[s], __ATOMIC_SEQ_CST);
	int fd = bpf_map__fd(skel->maps.slot_of);

	if (used > BPFAGG_SLOTS)
		used = BPFAGG_SLOTS;
	/* In one call where the kernel can (5.6); a slot left empty by a
	 * race has a key that is not in the hash: one at a time from it. */
	for (i = 0; i < used; ) {
		LIBBPF_OPTS(bpf_map_batch_opts, o);
		uint32_t n = used - i;

		if (bpf_map_delete_batch(fd, &keys[base + i], &n, &o) == 0)
			break;
		i += n;
		bpf_map_delete_elem(fd, &keys[base + i]);
		i++;
	}
	memset(keys + base, 0, used * sizeof(*keys));
	memset(counts + base, 0, used * sizeof(*counts));
	__atomic_store_n(&ctlp->used[s], 0, __ATOMIC_SEQ_CST);
}

uint64_t
bpfagg_drain(bpfagg_cb cb, void *arg)
{
	uint64_t n = 0;
	int g;

	if (skel == NULL)
		return 0;
	if (resetting >= 0) {
		n += drain_set(resetting, cb, arg);
		reset_set(resetting);
		resetting = -1;
	}
	g = (int)(__atomic_load_n(&ctlp->gen, __ATOMIC_SEQ_CST) & 1);
	n += drain_set(g, cb, arg);
	/* Three quarters used: new keys go to the other set from now on,
	 * this one is emptied at the next drain. */
	if (__atomic_load_n(&ctlp->used[g], __ATOMIC_SEQ_CST) >= BPFAGG_SLOTS / 4 * 3) {
		__atomic_store_n(&ctlp->gen, (uint32_t)!g, __ATOMIC_SEQ_CST);
		resetting = g;
		nswitches++;
	}
	ndrains++;
	nsamples += n;
	return n;
}

int
bpfagg_news(uint64_t *dev, uint64_t *ino, uint32_t *pid, uint64_t *pc)
{
	struct bpfagg_news n;

	/* libbpf's calls return -errno (-ENOENT: none), not -1. */
	if (skel == NULL ||
	    bpf_map_lookup_and_delete_elem(bpf_map__fd(skel->maps.news), NULL, &n) != 0)
		return -1;
	*dev = n.dev;
	*ino = n.ino;
	*pid = n.pid;
	*pc = n.pc;
	return 0;
}

void
bpfagg_file_state(uint64_t dev, uint64_t ino, int state)
{
	struct bpfagg_file k = { dev, ino };
	uint32_t v = (uint32_t)state;
	int fd;

	if (skel == NULL)
		return;
	fd = bpf_map__fd(skel->maps.files);
	if (state < 0)
		bpf_map_delete_elem(fd, &k);
	else
		bpf_map_update_elem(fd, &k, &v, BPF_ANY);
}

uint64_t bpfagg_drains(void) { return ndrains; }
uint64_t bpfagg_switches(void) { return nswitches; }
uint64_t bpfagg_samples(void) { return nsamples; }

int
bpfunw_active(void)
{
	return unw_on;
}

size_t
bpfunw_read(void)
{
	int n;

	if (!unw_on)
		return 0;
	n = ring_buffer__consume(unw_rb);
	return n > 0 ? (size_t)n : 0;
}

int
bpfunw_need(uint64_t *dev, uint64_t *ino, uint32_t *pid, uint64_t *pc,
    uint64_t *off)
{
	struct bpfunw_need n;

	if (!unw_on ||
	    bpf_map_lookup_and_delete_elem(bpf_map__fd(skel->maps.unw_need), NULL, &n) != 0)
		return -1;
	*dev = n.dev;
	*ino = n.ino;
	*pid = n.pid;
	*pc = n.pc;
	*off = n.off;
	return 0;
}

/* Never 0: 0 marks a live range. */
static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + 1;
}

static struct unw_range *
range_of(uint64_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < nunw_ranges; i++)
		if (unw_ranges[i].dead_ms == 0 && unw_ranges[i].dev == dev &&
		    unw_ranges[i].ino == ino)
			return &unw_ranges[i];
	return NULL;
}

void
bpfunw_drop(uint64_t dev, uint64_t ino)
{
	struct bpfagg_file k = { dev, ino };
	struct unw_range *r;

	if (!unw_on)
		return;
	/* The entry first: no walk starts on the rows once it is gone. */
	bpf_map_delete_elem(bpf_map__fd(skel->maps.unw_files), &k);
	if ((r = range_of(dev, ino)) != NULL)
		r->dead_ms = mono_ms();
}

void
bpfunw_release(void)
{
	uint64_t now = mono_ms();
	size_t i, j;

	for (i = j = 0; i < nunw_ranges; i++) {
		struct unw_range *r = &unw_ranges[i];

		if (r->dead_ms == 0 || now - r->dead_ms < UNW_QUARANTINE_MS) {
			unw_ranges[j++] = *r;
			continue;
		}
		if (r->owner != NULL && unw_gone != NULL)
			unw_gone(r->owner);
	}
	nunw_ranges = j;
}

void
bpfunw_set_gone(void (*fn)(const void *owner))
{
	unw_gone = fn;
}

void
bpfunw_disown(const void *owner)
{
	size_t i;

	for (i = 0; i < nunw_ranges; i++)
		if (unw_ranges[i].owner == owner)
			unw_ranges[i].owner = NULL;
}

/* The first gap of n rows, as an index in unw_ranges to insert at (*at)
 * and the row it starts at: 0, or -1 if none. */
static int
find_gap(uint32_t n, size_t *at, uint32_t *first)
{
	uint32_t end = 0;
	size_t i;

	for (i = 0; i <= nunw_ranges; i++) {
		uint32_t next = i < nunw_ranges ? unw_ranges[i].first : unw_nrows;

		if (next - end >= n) {
			*at = i;
			*first = end;
			return 0;
		}
		if (i < nunw_ranges)
			end = unw_ranges[i].first + unw_ranges[i].n;
	}
	return -1;
}

uint32_t
bpfunw_pages(const struct unwind_row *rows, uint32_t n, uint32_t *pbase)
{
	uint32_t npages;

	*pbase = rows[0].start & ~UINT32_C(0xfff);
	/* One page more than the last row's: every page has a next one. */
	npages = ((rows[n - 1].start - *pbase) >> 12) + 2;
	/* A table sparser than a row a page (two FDEs 4 GB apart, from
	 * any user's binary) would make its index the larger part, up to a
	 * quarter of the array for two rows: it is searched whole. */
	return npages <= n + 2 ? npages : 0;
}

void
bpfunw_index(const struct unwind_row *rows, uint32_t n, uint32_t pbase,
    uint32_t npages, uint32_t *idx)
{
	uint32_t p, i = 0;

	for (p = 0; p < npages; p++) {
		uint64_t at = pbase + ((uint64_t)p << 12);

		while (i + 1 < n && rows[i + 1].start <= at)
			i++;
		idx[p] = i;
	}
}

int
bpfunw_load(uint64_t dev, uint64_t ino, int64_t adj,
    const struct unwind_row *rows, uint32_t n, const void *owner,
    struct unwind_row **placed)
{
	struct bpfagg_file k = { dev, ino };
	struct bpfunw_file f = { .adj = adj, .nrows = n, .state = BPFUNW_READY };
	size_t at, i, oldest;
	uint32_t first, total;

	if (n > unw_nrows / 4 || n > BPFUNW_TABLE_MAX)
		return -2;
	if (!unw_on || n == 0)
		return -1;
	f.npages = bpfunw_pages(rows, n, &f.pbase);
	total = n + (f.npages + BPFUNW_PAGE_IDX - 1) / BPFUNW_PAGE_IDX;
	if (total > unw_nrows / 4)
		return -2;
	bpfunw_drop(dev, ino);
	/* No room: the oldest table dropped, whose rows are reused after
	 * the next release (a walk may be searching them now); the file is
	 * asked for again, one table more dropped each time until it fits. */
	if (find_gap(total, &at, &first) == -1) {
		oldest = SIZE_MAX;
		for (i = 0; i < nunw_ranges; i++)
			if (unw_ranges[i].dead_ms == 0 && (oldest == SIZE_MAX ||
			    unw_ranges[i].seq < unw_ranges[oldest].seq))
				oldest = i;
		if (oldest != SIZE_MAX) {
			bpfunw_drop(unw_ranges[oldest].dev, unw_ranges[oldest].ino);
			unw_evicted++;
		}
		return -1;
	}
	/* The rules first, any the rows may name: a rule's index is its
	 * place for good, so a rule written is never written again. */
	for (; unw_nrules < unwind_rules(); unw_nrules++) {
		const struct unwind_rule *u = unwind_rule_at(unw_nrules);

		unw_rules[unw_nrules] = (struct bpfunw_rule){ u->cfa_offset,
		    u->bp_offset, u->ra_offset, u->kind };
	}
	memcpy(unw_rows + first, rows, n * sizeof(*rows));
	bpfunw_index(rows, n, f.pbase, f.npages, (uint32_t *)&unw_rows[first + n]);
	unw_ranges = xreallocarray(unw_ranges, nunw_ranges + 1, sizeof(*unw_ranges));
	memmove(unw_ranges + at + 1, unw_ranges + at,
	    (nunw_ranges - at) * sizeof(*unw_ranges));
	unw_ranges[at] = (struct unw_range){ dev, ino, first, total, ++unw_seq, 0, owner };
	nunw_ranges++;
	f.first = first;
	/* The rows written before the entry that points at them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.unw_files), &k, &f, BPF_ANY) != 0) {
		unw_ranges[at].dead_ms = mono_ms();
		unw_ranges[at].owner = NULL;	/* its rows never left it */
		return -1;
	}
	if (placed != NULL)
		*placed = (struct unwind_row *)(void *)(unw_rows + first);
	return 0;
}

void
bpfunw_none(uint64_t dev, uint64_t ino, int state)
{
	struct bpfagg_file k = { dev, ino };
	struct bpfunw_file f = { .state = BPFUNW_NONE };
	int fd;

	if (!unw_on)
		return;
	fd = bpf_map__fd(skel->maps.unw_files);
	if (state)
		bpf_map_update_elem(fd, &k, &f, BPF_ANY);
	else
		bpf_map_delete_elem(fd, &k);
}

void
bpfunw_stats(struct bpfunw_stats *st)
{
	int ncpu = libbpf_num_possible_cpus(), fd, c;
	uint32_t i;
	size_t r;

	memset(st, 0, sizeof(*st));
	if (!unw_on || ncpu <= 0)
		return;
	fd = bpf_map__fd(skel->maps.unw_stats);
	for (i = 0; i < 2 * BPFUNW_NSTATS; i++) {
		uint64_t v[ncpu], *to = i < BPFUNW_NSTATS ? &st->walks[i] :
		    &st->ns[i - BPFUNW_NSTATS];

		if (bpf_map_lookup_elem(fd, &i, v) != 0)
			continue;
		for (c = 0; c < ncpu; c++)
			*to += v[c];
	}
	for (r = 0; r < nunw_ranges; r++) {
		if (unw_ranges[r].dead_ms != 0)
			continue;
		st->files++;
		st->rows += unw_ranges[r].n;
	}
	st->capacity = unw_nrows;
	st->bytes = unw_rows_len + unw_rules_len;
	st->evicted = unw_evicted;
}
