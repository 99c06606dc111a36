/*
 * The kernel's counts into the aggregation (daemon/bpfagg.h, "the
 * bridge"): each key attributed as the ring's samples are, the files the
 * program meets settled (counted in the kernel, or left to the ring), the
 * program told what the attribution learns and forgets.
 */
#include "config.h"

#include <linux/perf_event.h>

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "attr.h"
#include "bpfagg.h"
#include "callchain.h"
#include "conf.h"
#include "control.h"
#include "imagetab.h"
#include "labeler.h"
#include "log.h"
#include "loss.h"
#include "order.h"
#include "perf.h"
#include "unwind_cache.h"
#include "unwind_table.h"

/* Samples counted in the kernel and attributed here, for status. */
static uint64_t	 nsamples;

/* Which path counts the samples (status), and why. */
static char	 agg_path[640] = "ring";
/* Where the call chains are walked (status), and why. */
static char	 chain_path[640];
static uint64_t	 nchains, nchains_bad;
static int	 checking;
/* unwind-memory, and unwind-bpf-memory: the kernel's part of it. */
static size_t	 unwind_total = 64u << 20, unwind_kernel = 16u << 20;

static void	 chain_tables(void);

void
bpfagg_known(void)
{
	uint64_t dev, ino;

	while (attr_file_learnt(&dev, &ino) == 0)
		if (bpfagg_active())
			bpfagg_file_state(dev, ino, BPFAGG_FILE_KNOWN);
}

/*
 * One count the kernel aggregated (daemon/bpfagg.h), attributed like a
 * sample: the same streams, images and offsets as the ring's samples, so
 * that the profiles cannot tell the paths apart.  A file not known yet is
 * learnt from where the program first met it.
 */
static void
bpf_count(const struct bpfagg_key *k, uint64_t n, void *arg)
{
	struct image *img;
	uint32_t off, stream;
	uint64_t i;
	enum attr_reason r;

	(void)arg;
	if (k->event >= perf_nevents()) {
		loss_unknown_event(n);
		return;
	}
	nsamples += n;
	stream = AGG_STREAM(k->event, k->flags & BPFAGG_IDLE ? LABEL_IDLE :
	    label_of(0, k->cgroup));
	if (k->flags & BPFAGG_KERNEL) {
		r = attr_sample(0, k->addr, PERF_RECORD_MISC_KERNEL, &img, &off);
	} else {
		r = attr_file_sample(k->dev, k->ino, k->addr, &img, &off);
	}
	if (r != ATTR_OK) {
		if (r < ATTR_NREASONS)
			for (i = 0; i < n; i++)
				loss_unattr(k->event, r);
		return;
	}
	agg_add_n(stream, img->index, off, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
}

/*
 * The files the program met since the last drain: counted in the kernel
 * from now on if the attribution knows them (learnt at their MMAP2's
 * arrival, or now from the mapping the program saw), else left to the
 * ring.  Before the counts: a file's counts exist only once it is known.
 * A file not known yet stays NEW in the program's map (its samples take
 * the ring, whose lazy resolution may learn it) and is looked at again at
 * the next drains, BPF_NEWS_PENDING of them at most.
 */
#define BPF_NEWS_PENDING	1024
struct bpf_pending {
	uint64_t	dev, ino;
};
static struct bpf_pending	bpf_pend[BPF_NEWS_PENDING];
static size_t			nbpf_pend;

/* 1 if (dev, ino) is settled (known, or anonymous: to the ring). */
static int
bpf_settle(uint64_t dev, uint64_t ino, enum attr_reason learnt)
{
	struct image *img;
	uint32_t off;
	enum attr_reason r;

	/* Offset 0 only asks whether the file is known. */
	r = attr_file_sample(dev, ino, 0, &img, &off);
	if (r == ATTR_ANON || (r == ATTR_NO_MAP && learnt == ATTR_UNREADABLE))
		bpfagg_file_state(dev, ino, BPFAGG_FILE_PASS);
	else if (r != ATTR_NO_MAP)
		bpfagg_file_state(dev, ino, BPFAGG_FILE_KNOWN);
	else
		return 0;
	return 1;
}

static void
bpf_news(void)
{
	uint64_t dev, ino, pc;
	uint32_t pid;
	size_t i, j, n;

	for (i = j = 0; i < nbpf_pend; i++)
		if (!bpf_settle(bpf_pend[i].dev, bpf_pend[i].ino, ATTR_OK))
			bpf_pend[j++] = bpf_pend[i];
	nbpf_pend = j;
	/* Bounded: the queue holds BPFAGG_MAX_NEWS, and a file is queued
	 * once until dcpid settles or forgets it. */
	for (n = 0; n < BPFAGG_MAX_NEWS && bpfagg_news(&dev, &ino, &pid, &pc) == 0; n++) {
		enum attr_reason lr = ATTR_OK;
		struct image *img;
		uint32_t off;

		if (attr_file_sample(dev, ino, 0, &img, &off) == ATTR_NO_MAP)
			lr = attr_file_learn_at(dev, ino, pid, pc);
		if (bpf_settle(dev, ino, lr))
			continue;
		if (nbpf_pend < BPF_NEWS_PENDING)
			bpf_pend[nbpf_pend++] = (struct bpf_pending){ dev, ino };
		/* else it stays NEW: its samples take the ring for good. */
	}
}

void
bpfagg_update_pass(int pending)
{
	struct label_stats ls;

	if (!bpfagg_active())
		return;
	label_stats(&ls);
	bpfagg_pass_all(pending || ls.running > 0);
}

void
bpfagg_sync(int pending)
{
	bpfagg_known();
	bpf_news();
	if (bpfunw_active())
		chain_tables();
	bpfagg_drain(bpf_count, NULL);
	bpfagg_update_pass(pending);
}

/*
 * A chain the kernel walked (struct bpfunw_chain), from the ring buffer
 * map into the time merge: it is attributed in time order with the
 * sideband (the maps and labels of its moment), as the ring's samples are.
 */
static void
chain_queue(const void *rec, size_t size, void *arg)
{
	const struct bpfunw_chain *c = rec;

	(void)arg;
	if (size < BPFUNW_HDR || c->type != BPFUNW_RECORD || c->size != size ||
	    (size - BPFUNW_HDR) / 8 != (size_t)c->nkern + c->nuser) {
		nchains_bad++;
		return;
	}
	order_push(rec, size, c->time);
}

void
bpfagg_chain(const void *rec, size_t size)
{
	const struct bpfunw_chain *c = rec;
	uint64_t w[BPFUNW_KERNEL_MAX + 2 + BPFUNW_DEPTH_MAX + 1];
	struct stack_frame leaf = { STACK_NOIMAGE, 0 };
	struct image *img;
	uint32_t n = 0, i, li, off, stream;
	uint16_t mode = PERF_RECORD_MISC_USER;

	/* As chain_queue checked it (the queue hands it back unchanged). */
	if (size < BPFUNW_HDR || c->nkern > BPFUNW_KERNEL_MAX ||
	    c->nuser > BPFUNW_DEPTH_MAX + 1 ||
	    size != BPFUNW_HDR + 8 * ((size_t)c->nkern + c->nuser))
		return;
	if (c->event >= perf_nevents()) {
		loss_unknown_event(1);
		return;
	}
	nchains++;
	/* Checked: the ring has the same sample, and counts it. */
	if (checking) {
		if (c->nuser > 0)
			callchain_check(1, c->pid, c->tid, c->time, c->w[0],
			    c->sp, (const uint64_t *)(c->w + 1), c->nuser - 1u);
		return;
	}
	stream = AGG_STREAM(c->event, c->pid == 0 ? LABEL_IDLE :
	    label_of(c->pid, c->cgroup));
	/* The kernel's words come after the user's in the record, before
	 * them in the chain, as the ring's samples have them. */
	if (c->nkern > 0) {
		if (c->w[c->nuser] < PERF_CONTEXT_MAX)
			w[n++] = PERF_CONTEXT_KERNEL;
		for (i = 0; i < c->nkern; i++)
			if (c->w[c->nuser + i] != PERF_CONTEXT_USER)
				w[n++] = c->w[c->nuser + i];
	}
	if (c->nuser > 0) {
		w[n++] = PERF_CONTEXT_USER;
		memcpy(w + n, c->w, c->nuser * sizeof(*w));
		n += c->nuser;
	}
	li = callchain_leaf_word(w, n);
	for (i = 0; i < li; i++)
		if (w[i] == PERF_CONTEXT_KERNEL)
			mode = PERF_RECORD_MISC_KERNEL;
	if (li < n && attr_sample(c->pid, w[li], mode, &img, &off) == ATTR_OK)
		leaf = (struct stack_frame){ img->index, off };
	callchain_walked(c->pid, stream, w, n, leaf);
}

/*
 * The tables the kernel's walk asked for: the unwind cache's rows of the
 * file's image, once the ring's walks have built them (a walk that asks
 * for a table has taken the ring, whose walk builds it, out of the
 * buffers' reading); until then the file is asked for again at its next
 * walk.  A file of no table (anonymous to the attribution, no CFI) takes
 * the ring for good, until its image is forgotten.  A table is held once:
 * its rows move into the kernel's array, where dcpid's walks read them
 * too, and the table is dropped from the cache when the array drops them
 * (chain_rows_gone); a table whose rows are in the array already (the
 * same image under another file) is copied.
 */
/* One file's table for the kernel's array, as chain_tables says; built
 * now if build, else only once the ring's walks have built it. */
static void
chain_table(uint64_t dev, uint64_t ino, uint32_t pid, uint64_t pc, uint64_t foff,
    int build)
{
	uint32_t ioff;
	struct image *img;
	const struct unwind_table *t;
	const struct unwind_row *r0;
	struct unwind_row *placed;
	const void *owner;
	enum attr_reason r;
	size_t n;
	int64_t base;
	int rc;

	if ((r = attr_file_sample(dev, ino, foff, &img, &ioff)) == ATTR_NO_MAP &&
	    attr_file_learn_at(dev, ino, pid, pc) == ATTR_OK)
		r = attr_file_sample(dev, ino, foff, &img, &ioff);
	if (r == ATTR_ANON) {
		bpfunw_none(dev, ino, 1);
		return;
	}
	if (r != ATTR_OK || (!build && unwind_cache_would_build(img))) {
		bpfunw_none(dev, ino, 0);
		return;
	}
	if ((t = unwind_cache_table(img, pid, pc)) == NULL ||
	    (n = unwind_table_rows(t)) == 0 || n > UINT32_MAX ||
	    (r0 = unwind_table_row(t, 0)) == NULL) {
		bpfunw_none(dev, ino, 1);
		return;
	}
	/* Row starts count from the table's base: the file offset foff is
	 * at ELF vaddr tstart + ioff. */
	base = (int64_t)(unwind_table_row_vaddr(t, r0) - r0->start);
	owner = unwind_table_rows_moved(t) ? NULL : t;
	if ((rc = bpfunw_load(dev, ino, (int64_t)(img->tstart + ioff) - base -
	    (int64_t)foff, r0, (uint32_t)n, owner, &placed)) != 0)
		bpfunw_none(dev, ino, rc == -2);
	else if (owner != NULL)
		unwind_cache_move_rows(img, placed);
}

/*
 * Tests and benchmarks (DCPID_TEST_BPF_TABLES=FILE): whenever FILE
 * changes, the tables of the files mapped executable by the process
 * whose pid it holds are loaded as if walks had met them at the middle
 * page of each mapping, built at once: the memory of many images'
 * tables, and tables dropped for room while walks run, without a
 * workload running in each image (tests/workload/map_text.py).
 */
static void
chain_test_tables(void)
{
	static struct timespec seen;
	const char *path = getenv("DCPID_TEST_BPF_TABLES");
	unsigned long long start, end, off, ino, mid;
	unsigned maj, min, pid = 0;
	char line[4096], perms[8], maps[64];
	struct stat st;
	FILE *f;

	if (path == NULL || stat(path, &st) != 0 ||
	    (st.st_mtim.tv_sec == seen.tv_sec && st.st_mtim.tv_nsec == seen.tv_nsec))
		return;
	seen = st.st_mtim;
	if ((f = fopen(path, "r")) == NULL)
		return;
	if (fscanf(f, "%u", &pid) != 1)
		pid = 0;
	fclose(f);
	snprintf(maps, sizeof(maps), "/proc/%u/maps", pid);
	if (pid == 0 || (f = fopen(maps, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms,
		    &off, &maj, &min, &ino) == 7 && perms[2] == 'x' && ino != 0) {
			mid = (end - start) / 2 & ~0xfffull;
			chain_table((uint64_t)maj << 20 | min, ino, pid, start + mid,
			    off + mid, 1);
		}
	fclose(f);
}

static void
chain_tables(void)
{
	uint64_t dev, ino, pc, foff;
	uint32_t pid;
	size_t k;

	bpfunw_release();
	for (k = 0; k < BPFUNW_MAX_NEED && bpfunw_need(&dev, &ino, &pid, &pc, &foff) == 0; k++)
		chain_table(dev, ino, pid, pc, foff, 0);
	chain_test_tables();
}

static void
chain_rows_gone(const void *owner)
{
	unwind_cache_rows_gone(owner);
}

static void
chain_table_freed(const struct unwind_table *t)
{
	bpfunw_disown(t);
}

void
bpfagg_set_unwind_memory(size_t total, size_t kernel)
{
	unwind_total = total;
	unwind_kernel = kernel;
}

/* The rows array's size: unwind-bpf-memory, within unwind-memory less a
 * quarter of it (for the rules, and the tables the array does not take),
 * whole pages, BPFUNW_TABLE_MAX rows at most a table. */
static uint32_t
chain_rows(void)
{
	size_t b = unwind_kernel, cap = unwind_total - unwind_total / 4;
	size_t page = 4096 / sizeof(struct bpfunw_row);

	if (b > cap) {
		log_warnx("unwind-bpf-memory %zu is more than three quarters of "
		    "unwind-memory: %zu instead", b, cap);
		b = cap;
	}
	b /= sizeof(struct bpfunw_row);
	if (b > UINT32_MAX / 2)
		b = UINT32_MAX / 2;
	return (uint32_t)(b < page ? page : b / page * page);
}

/* The walk in the kernel asked for: chains on the dwarf route, sampled
 * by the sparse twins, no deeper than the walk goes; else why not in
 * why[len] and NULL. */
static const struct bpfunw_conf *
chain_conf(struct bpfunw_conf *uc, char *why, size_t len)
{
	const char *e = getenv("DCPID_TEST_BPF_WALK");
	unsigned stack, depth = callchain_state.depth < STACK_CALLERS_MAX ?
	    callchain_state.depth : STACK_CALLERS_MAX;

	if (!callchain_state.dwarf) {
		snprintf(why, len, "frame pointers, the kernel's own walk");
		return NULL;
	}
	if (depth > BPFUNW_DEPTH_MAX) {
		snprintf(why, len, "callchain-depth %u is over the BPF walk's %u",
		    depth, BPFUNW_DEPTH_MAX);
		return NULL;
	}
	checking = e != NULL && strcmp(e, "check") == 0;
	/* The kernel cuts a copy that would not fit a record of 64 KiB
	 * with the chain: the walk reads no further than the least the
	 * copy holds, the ring walks the rest. */
	stack = callchain_stack();
	if (stack > 65535 - 8 * (BPFUNW_KERNEL_MAX + 16) - 512)
		stack = 65535 - 8 * (BPFUNW_KERNEL_MAX + 16) - 512;
	*uc = (struct bpfunw_conf){ depth, stack, chain_rows(),
	    e != NULL && strcmp(e, "reject") == 0, checking, chain_queue, NULL };
	return uc;
}

int
bpfagg_start(unsigned mode, int callchains, int pending, char *err, size_t errlen)
{
	struct bpfunw_conf uc;
	const struct bpfunw_conf *ucp = NULL;
	char why[512], cwhy[512] = "";

	chain_path[0] = '\0';
	nchains = nchains_bad = 0;
	checking = 0;
	if (mode != CONF_AGGREGATE_RING && callchains && callchain_state.split)
		ucp = chain_conf(&uc, cwhy, sizeof(cwhy));
	if (mode == CONF_AGGREGATE_RING) {
		snprintf(agg_path, sizeof(agg_path), "ring (aggregate = ring)");
	} else if (callchains && !callchain_state.split) {
		/* Every sample carries its chain, which is the ring's.  With
		 * sparse twins the flat samples are counted in the kernel and
		 * the chains walked there where the walk can. */
		snprintf(agg_path, sizeof(agg_path), "ring (call chains with every "
		    "sample)");
		if (mode == CONF_AGGREGATE_BPF) {
			snprintf(err, errlen, "aggregate = bpf: call chains with every "
			    "sample need the ring buffers; use callchain-period 2x or "
			    "more, or aggregate = auto or ring");
			return -1;
		}
	} else if (bpfagg_init(why, sizeof(why), ucp, cwhy, sizeof(cwhy)) == 0) {
		snprintf(agg_path, sizeof(agg_path), "bpf (in the kernel; "
		    "anonymous code and labelled runs through the ring)");
		bpfagg_update_pass(pending);
		if (callchains && bpfunw_active()) {
			struct bpfunw_stats st;

			/* The array's and the rules' kernel memory are part of
			 * unwind-memory; tables in them are held once. */
			bpfunw_stats(&st);
			unwind_cache_set_reserved(st.bytes);
			unwind_cache_set_moved_hook(chain_table_freed);
			bpfunw_set_gone(chain_rows_gone);
		}
		if (callchains && bpfunw_active())
			snprintf(chain_path, sizeof(chain_path), "bpf (user frames "
			    "walked in the kernel; the rest by dcpid from the ring)%s",
			    checking ? "; each checked against dcpid's walk" : "");
		else if (callchains)
			snprintf(chain_path, sizeof(chain_path), "ring (%s)", cwhy);
	} else if (mode == CONF_AGGREGATE_BPF) {
		snprintf(err, errlen, "aggregate = bpf: %s", why);
		return -1;
	} else {
		snprintf(agg_path, sizeof(agg_path), "ring (BPF: %s)", why);
		if (ucp != NULL)
			snprintf(chain_path, sizeof(chain_path), "ring (BPF: %s)", why);
	}
	callchain_check_on(checking && bpfunw_active());
	log_notice("samples counted by %s", agg_path);
	if (chain_path[0] != '\0')
		log_notice("call chains walked by %s", chain_path);
	return 0;
}

void
bpfagg_stop(void)
{
	/* Whatever the kernel counted goes into the aggregation first. */
	if (bpfagg_active())
		bpfagg_drain(bpf_count, NULL);
	bpfagg_fini();
	if (callchain_state.dwarf) {
		unwind_cache_set_reserved(0);
		unwind_cache_set_moved_hook(NULL);
	}
	bpfunw_set_gone(NULL);
}

void
bpfagg_forget(uint64_t dev, uint64_t ino)
{
	if (bpfagg_active())
		bpfagg_file_state(dev, ino, -1);
	bpfunw_drop(dev, ino);
}

void
bpfagg_drain_now(void)
{
	if (bpfagg_active())
		bpfagg_drain(bpf_count, NULL);
}

uint64_t
bpfagg_counted(void)
{
	return nsamples;
}

void
bpfagg_status(struct status_writer *w)
{
	status_add(w, "aggregate", "%s", agg_path);
	if (bpfagg_active())
		status_add(w, "aggregate-bpf", "%ju samples in %ju drains, %ju "
		    "count sets filled", (uintmax_t)bpfagg_samples(),
		    (uintmax_t)bpfagg_drains(), (uintmax_t)bpfagg_switches());
	if (chain_path[0] != '\0')
		status_add(w, "callchains-walk", "%s", chain_path);
	if (bpfunw_active()) {
		struct bpfunw_stats st;
		uint64_t ring = 0, ring_ns = 0;
		int i;

		bpfunw_stats(&st);
		for (i = BPFUNW_WALKED + 1; i < BPFUNW_NSTATS; i++) {
			ring += st.walks[i];
			ring_ns += st.ns[i];
		}
		status_add(w, "callchains-bpf", "%ju walked in the kernel (%ju "
		    "attributed), %ju to the ring: %ju no file, %ju no table yet, "
		    "%ju no table, %ju no row, %ju rule, %ju stack, %ju full; %ju "
		    "bad records",
		    (uintmax_t)st.walks[BPFUNW_WALKED], (uintmax_t)nchains,
		    (uintmax_t)ring,
		    (uintmax_t)st.walks[BPFUNW_TO_RING_FILE],
		    (uintmax_t)st.walks[BPFUNW_TO_RING_TABLE],
		    (uintmax_t)st.walks[BPFUNW_TO_RING_NONE],
		    (uintmax_t)st.walks[BPFUNW_TO_RING_ROW],
		    (uintmax_t)st.walks[BPFUNW_TO_RING_RULE],
		    (uintmax_t)st.walks[BPFUNW_TO_RING_STACK],
		    (uintmax_t)st.walks[BPFUNW_TO_RING_FULL], (uintmax_t)nchains_bad);
		status_add(w, "callchains-bpf-ns", "%ju a chain walked, %ju a sample "
		    "to the ring (the program's time, bpf_ktime_get_ns)",
		    (uintmax_t)(st.walks[BPFUNW_WALKED] ? st.ns[BPFUNW_WALKED] /
		    st.walks[BPFUNW_WALKED] : 0), (uintmax_t)(ring ? ring_ns / ring : 0));
		status_add(w, "unwind-tables-bpf", "%ju files, %ju rows of %ju (%ju "
		    "KiB in the kernel's arrays of rows and rules), %ju dropped for room",
		    (uintmax_t)st.files, (uintmax_t)st.rows, (uintmax_t)st.capacity,
		    (uintmax_t)(st.bytes >> 10), (uintmax_t)st.evicted);
		/* One bound: the kernel's arrays are allocated whole at the
		 * load; dcpid holds the tables not in them. */
		status_add(w, "unwind-memory", "%ju bytes of %zu: %ju in the kernel's "
		    "maps, %zu in dcpid (%zu tables, %zu of them read from the "
		    "kernel's array; %u rules); %ju tables dropped for room (%ju in "
		    "dcpid, %ju from the kernel's array)",
		    (uintmax_t)(st.bytes + unwind_cache_memory() + unwind_rules_memory()),
		    unwind_cache_limit(), (uintmax_t)st.bytes,
		    unwind_cache_memory() + unwind_rules_memory(), unwind_cache_tables(),
		    unwind_cache_moved(), unwind_rules(),
		    (uintmax_t)(unwind_cache_dropped() + st.evicted),
		    (uintmax_t)unwind_cache_dropped(), (uintmax_t)st.evicted);
	}
}
