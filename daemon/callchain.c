/*
 * A sample's call chain turned into frames (daemon/callchain.h): the
 * look-ahead that hashes chains before their samples, a new chain's
 * callers attributed, JIT frames named late, the chains written at a
 * flush.  stack.c counts and keeps them.
 */
#include "config.h"

#include <linux/perf_event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/stackfile.h>

#include "agg.h"
#include "attr.h"
#include "callchain.h"
#include "control.h"
#include "flush.h"
#include "jit.h"
#include "labeler.h"
#include "log.h"
#include "perf.h"
#include "record.h"
#include "stack.h"
#include "unwind.h"
#include "unwind_cache.h"
#include "util.h"
#include "xmalloc.h"

struct callchain_state callchain_state __attribute__((aligned(64)));

/* Frames named so since dcpid started, for status. */
static uint64_t	 jit_named_late;

/* The dwarf route: the user stack's bytes a sample; how its walks ended;
 * the pseudo image of the [truncated] frames, made when first needed. */
static unsigned		 dwarf_stack;
static uint64_t		 walk_end[UNWIND_END_COUNT], walks_no_user;

/* The kernel's walks checked against dcpid's of the same samples
 * (callchain_check): the walk met first waits in a slot by its sample's
 * (pid, tid, IP, SP) for the other's, of the same moment. */
#define CHECK_SLOTS	4096
#define CHECK_NS	100000		/* the two walks' times apart, at most */
struct chain_check {
	uint64_t	 ip, sp, h, time;
	uint32_t	 pid, tid;
	uint32_t	 side;		/* 0: empty; else 1 + the walker */
};
static struct chain_check *checks;
static uint64_t		 nchecked, nchecked_same, nchecked_lost;
static struct img	*truncated_img;

void
callchain_set_depth(unsigned depth)
{
	callchain_state.depth = depth > 1024 ? 1024 : depth;
}

void
callchain_set_route(unsigned depth, unsigned stack, size_t unwind_memory)
{
	callchain_set_depth(depth);
	if (callchain_state.dwarf)
		unwind_cache_fini();
	callchain_state.dwarf = depth > 0 && stack > 0;
	dwarf_stack = callchain_state.dwarf ? stack : 0;
	if (callchain_state.dwarf)
		unwind_cache_init(unwind_memory);
}

void
callchain_set_split(int on)
{
	callchain_state.split = on != 0;
}

void
callchain_set_unwind_memory(size_t unwind_memory)
{
	if (callchain_state.dwarf)
		unwind_cache_set_limit(unwind_memory);
}

void
callchain_ahead(const union record *rec, size_t size)
{
	struct callchain_state *cs = &callchain_state;
	const uint64_t *ips;
	size_t t;
	uint32_t n;

	/* The dwarf route's chain is not in the record: nothing to hash;
	 * nor is there a chain in a dense event's sample beside the twins. */
	if (cs->dwarf || rec->header.type != PERF_RECORD_SAMPLE ||
	    size < record_chain.sample_size ||
	    (cs->split && !(perf_event_of_id(rec->sample.id) & PERF_EVENT_CHAIN)) ||
	    (ips = callchain_raw(rec, size, &n)) == NULL)
		return;
	if (cs->tail - cs->head == CALLCHAIN_RING)	/* (never: see the header) */
		cs->head++;
	t = cs->tail++ % CALLCHAIN_RING;
	cs->ring[t].rec = rec;
	cs->ring[t].ips = ips;
	cs->ring[t].n = n;
	cs->ring[t].li = callchain_leaf_word(ips, n);
	cs->ring[t].h = stack_ahead(rec->sample.pid, ips, n);
}

void
callchain_ahead_queued(const void *rec, size_t size, void *arg)
{
	(void)arg;
	callchain_ahead(rec, size);
}

/* A frame attributed as a sampled PC is, JIT code by the perf map read
 * last (jit_frame); 1, or 0 if it cannot be. */
static int
chain_frame(uint32_t pid, uint64_t pc, uint16_t mode, struct image **img, uint32_t *off)
{
	enum attr_reason r = attr_sample(pid, pc, mode, img, off);

	if (r == ATTR_ANON && jit_frame(pid, pc, img, off) == -1) {
		jit_unnamed(pid);
		return 0;
	}
	return r == ATTR_OK || r == ATTR_ANON;
}

/*
 * JIT frames named late.  A JIT may write its perf map only as it exits
 * (Java's -XX:+DumpPerfMapAtExit) or when asked (jcmd Compiler.perfmap):
 * a chain sampled before has its JIT frames unnamed, [unknown], while
 * its flat samples wait for the map (jit_sample).  At the process's exit
 * or exec, and at each flush, the map is read again and the unnamed user
 * frames of its chains are named by it, as jit_frame names them; only
 * for processes with such frames since (jit_unnamed), in one walk of the
 * chains.
 */

/* A user frame of pid at pc left unnamed: named if the map names it now;
 * *n counts those named. */
static void
name_frame(uint32_t pid, uint64_t pc, struct stack_frame *f, size_t *n)
{
	struct image *img;
	uint32_t off;

	if (f->image != STACK_NOIMAGE ||
	    attr_sample(pid, pc, PERF_RECORD_MISC_USER, &img, &off) != ATTR_ANON ||
	    jit_frame(pid, pc, &img, &off) == -1)
		return;
	*f = (struct stack_frame){ img->index, off };
	(*n)++;
}

/* Whether the words before a leaf at w[li] end in user mode. */
static inline int
leaf_user(const uint64_t *w, uint32_t li)
{
	return li > 0 && w[li - 1] == PERF_CONTEXT_USER;
}

static void
name_callers(uint32_t pid, const uint64_t *w, uint32_t nk, uint32_t li,
    struct stack_frame *f, uint32_t depth, void *arg)
{
	int user = leaf_user(w, li);
	uint32_t i, d = 0;

	/* As callchain_new attributed them: markers give the mode. */
	for (i = li; i < nk && d < depth; i++) {
		if (w[i] >= PERF_CONTEXT_MAX) {
			user = w[i] == PERF_CONTEXT_USER;
			continue;
		}
		if (user)
			name_frame(pid, w[i] - 1, &f[d], arg);
		d++;
	}
}

static void
name_leaf(uint32_t pid, const uint64_t *w, uint32_t nk, uint32_t li,
    uint64_t ip, struct stack_frame *f, void *arg)
{
	(void)nk;
	if (leaf_user(w, li))
		name_frame(pid, ip, f, arg);
}

/* The pids whose frames are to be named (jit_name_again). */
struct name_set {
	uint32_t	*pid;
	size_t		 n, cap;
};

static void
name_want(uint32_t pid, void *arg)
{
	struct name_set *ns = arg;

	if (!jit_name_again(pid))
		return;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 16;
		ns->pid = xreallocarray(ns->pid, ns->cap, sizeof(*ns->pid));
	}
	ns->pid[ns->n++] = pid;
}

/* Names the unnamed JIT frames of pid (at its exit or exec), or of every
 * process with some (all: at a flush). */
static void
name_jit_frames(uint32_t pid, int all)
{
	struct name_set ns = { NULL, 0, 0 };
	size_t n = 0;

	if (callchain_state.depth == 0)
		return;
	if (all)
		jit_each_pid(name_want, &ns);
	else
		name_want(pid, &ns);
	if (ns.n == 0)
		return;
	stack_rename(ns.pid, ns.n, name_callers, name_leaf, &n);
	jit_named_late += n;
	if (n > 0)
		log_debug("%zu call chain frames of %zu processes named by "
		    "their JIT maps", n, ns.n);
	free(ns.pid);
}

void
callchain_name_jit(uint32_t pid)
{
	name_jit_frames(pid, 0);
}

void
callchain_name_jit_all(void)
{
	name_jit_frames(0, 1);
}

/* The frame that ends a chain cut short: the pseudo image [truncated] at
 * the walk's reason; [unknown] if it cannot be made. */
_Static_assert(UNWIND_END_TRUNCATED == 2 && UNWIND_END_LOOP == 6 &&
    UNWIND_END_COUNT == 7, "the stack file's reasons (dcpi_stack_truncated_reason)");

static struct stack_frame
truncated_frame(uint32_t why)
{
	if (truncated_img == NULL &&
	    (truncated_img = image_pseudo(NULL, 0, DCPI_STACK_TRUNCATED_PATH,
	    DCPI_STACK_TRUNCATED_PATH, 0, UNWIND_END_COUNT)) == NULL)
		return (struct stack_frame){ STACK_NOIMAGE, 0 };
	return (struct stack_frame){ truncated_img->pub.index, why };
}

/*
 * The dwarf route.  The kernel gives the chain's kernel frames and the
 * user's registers and stack; the user frames are unwound here with the
 * images' tables (unwind_cache.c), each PC found in the process's maps as
 * a sampled PC is (attr_sample).  The words so made are keyed, counted and
 * attributed as the kernel's own chains are: a chain met again in its
 * process costs its walk and one lookup.
 */
struct walk_arg {
	uint32_t	 pid;
	int		 deferred;	/* a table to build first: nothing counted */
};

/* callchain_defer_builds; the first table a walk waits for. */
static int		 defer_builds;
static struct {
	const struct image	*img;
	uint32_t		 pid;
	uint64_t		 pc;
	int			 set;
} deferred;

void
callchain_defer_builds(int on)
{
	defer_builds = on;
}

int
callchain_deferred(void)
{
	return deferred.set;
}

void
callchain_build_deferred(void (*yield)(void))
{
	if (!deferred.set)
		return;
	unwind_table_set_yield(yield);
	(void)unwind_cache_table(deferred.img, deferred.pid, deferred.pc);
	unwind_table_set_yield(NULL);
	deferred.set = 0;
}

static int
walk_lookup(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	struct walk_arg *wa = arg;
	struct image *img;
	uint32_t off;

	if (attr_sample(wa->pid, pc, PERF_RECORD_MISC_USER, &img, &off) != ATTR_OK)
		return -1;
	if (defer_builds && unwind_cache_would_build(img)) {
		if (!deferred.set) {
			deferred.img = img;
			deferred.pid = wa->pid;
			deferred.pc = pc;
			deferred.set = 1;
		}
		wa->deferred = 1;
		return -1;
	}
	if ((*t = unwind_cache_table(img, wa->pid, pc)) == NULL)
		return -1;
	/* The ELF vaddr of pc is tstart + off. */
	*bias = pc - (img->tstart + off);
	return 0;
}

/* The kernel's words kept at most (its chain is sample_max_stack frames
 * and a few markers), then the user's: a marker, the IP, the callers, the
 * truncation word. */
#define KERNEL_WORDS	512
#define DWARF_WORDS	(KERNEL_WORDS + 3 + STACK_CALLERS_MAX)

int
callchain_dwarf(const union record *rec, size_t size, uint32_t stream,
    struct stack_frame leaf)
{
	uint64_t w[DWARF_WORDS], h;
	struct record_user_stack u;
	struct unwind_regs regs;
	struct unwind_stack st;
	struct walk_arg wa = { rec->sample.pid, 0 };
	enum unwind_end end;
	const uint64_t *ips;
	uint32_t n = 0, k, li, max;

	if ((ips = callchain_raw(rec, size, &k)) != NULL) {
		n = k > KERNEL_WORDS ? KERNEL_WORDS : k;
		memcpy(w, ips, n * sizeof(*w));
	}
	/* abi NONE: a kernel thread's, or a sample without a user context. */
	if (record_user_stack(&record_chain, rec, size, &u) == 0 && u.regs != NULL &&
	    u.nregs == 3) {
		regs = (struct unwind_regs){ .bp = u.regs[0], .sp = u.regs[1],
		    .ip = u.regs[2] };
		st = (struct unwind_stack){ u.stack, u.size, regs.sp };
		w[n++] = PERF_CONTEXT_USER;
		w[n++] = regs.ip;
		max = callchain_state.depth < STACK_CALLERS_MAX ?
		    callchain_state.depth : STACK_CALLERS_MAX;
		k = n;
		n += (uint32_t)unwind_walk(&regs, &st, walk_lookup, &wa, w + n, max, &end);
		if (wa.deferred)
			return 1;
		walk_end[end]++;
		if (end != UNWIND_END_OUTERMOST && end != UNWIND_END_DEPTH)
			w[n++] = CALLCHAIN_TRUNCATED + end;
		if (checks != NULL)
			callchain_check(0, rec->sample.pid, rec->sample.tid,
			    rec->sample.time, regs.ip, regs.sp, w + k, n - k);
	} else
		walks_no_user++;
	li = callchain_leaf_word(w, n);
	h = stack_hash(rec->sample.pid, w, n);
	if (li < n && !stack_count_hashed(h, stream, rec->sample.pid, w, n, li, leaf))
		callchain_new(rec, h, stream, w, n, li, leaf);
	return 0;
}

/* A chain not met before: its callers attributed, in time order.  (Out
 * of line: callchain_sample's usual path then has no 8 KiB frame to set
 * up.) */
static void chain_new(uint32_t, uint16_t, uint64_t, uint32_t, const uint64_t *,
    uint32_t, uint32_t, struct stack_frame);

void
callchain_new(const union record *rec, uint64_t h, uint32_t stream,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf)
{
	chain_new(rec->sample.pid, rec->header.misc & PERF_RECORD_MISC_CPUMODE_MASK,
	    h, stream, ips, n, li, leaf);
}

void
callchain_walked(uint32_t pid, uint32_t stream, const uint64_t *ips, uint32_t n,
    struct stack_frame leaf)
{
	uint32_t li = callchain_leaf_word(ips, n);
	uint64_t h = stack_hash(pid, ips, n);

	if (li < n && !stack_count_hashed(h, stream, pid, ips, n, li, leaf))
		chain_new(pid, PERF_RECORD_MISC_CPUMODE_UNKNOWN, h, stream, ips, n, li,
		    leaf);
}

unsigned
callchain_stack(void)
{
	return dwarf_stack;
}

void
callchain_check_on(int on)
{
	free(checks);
	checks = on ? xcalloc(CHECK_SLOTS, sizeof(*checks)) : NULL;
	nchecked = nchecked_same = nchecked_lost = 0;
}

void
callchain_check(int walker, uint32_t pid, uint32_t tid, uint64_t time,
    uint64_t ip, uint64_t sp, const uint64_t *callers, uint32_t n)
{
	struct chain_check *c;
	uint64_t key[4] = { pid, tid, ip, sp };
	uint64_t h = fnv1a64(FNV1A64_INIT, callers, n * sizeof(*callers));

	if (checks == NULL)
		return;
	c = &checks[fnv1a64(FNV1A64_INIT, key, sizeof(key)) % CHECK_SLOTS];
	/* One sample: its thread's next is a period (1 ms or more) away. */
	if (c->side != 0 && c->side != (uint32_t)walker + 1 && c->pid == pid &&
	    c->tid == tid && c->ip == ip && c->sp == sp &&
	    (c->time > time ? c->time - time : time - c->time) < CHECK_NS) {
		nchecked++;
		nchecked_same += c->h == h;
		c->side = 0;
		return;
	}
	nchecked_lost += c->side != 0;
	*c = (struct chain_check){ ip, sp, h, time, pid, tid, (uint32_t)walker + 1 };
}

static void
chain_new(uint32_t pid, uint16_t mode, uint64_t h, uint32_t stream,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf)
{
	struct stack_frame f[STACK_CALLERS_MAX];
	uint64_t ip;
	uint32_t i, depth = 0, off;
	struct image *img;

	for (i = 0; i < n && depth + 1 < callchain_state.depth; i++) {
		if ((ip = ips[i]) >= CALLCHAIN_TRUNCATED &&
		    ip < CALLCHAIN_TRUNCATED + UNWIND_END_COUNT) {
			f[depth++] = truncated_frame((uint32_t)(ip - CALLCHAIN_TRUNCATED));
			continue;
		}
		if ((ip = ips[i]) >= PERF_CONTEXT_MAX) {
			mode = ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
			    ip == PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER :
			    PERF_RECORD_MISC_CPUMODE_UNKNOWN;
			continue;
		}
		if (i <= li)
			continue;
		if (chain_frame(pid, ip - 1, mode, &img, &off))
			f[depth++] = (struct stack_frame){ img->index, off };
		else
			f[depth++] = (struct stack_frame){ STACK_NOIMAGE, 0 };
	}
	stack_add_hashed(h, stream, pid, ips, n, li, f, depth, leaf);
}

/* One chain's frames named by attr's images, into the flush's file.  A
 * chain the file refuses is logged and left out, not the others. */
static int
add_stack(uint32_t stream, const struct stack_frame *f, uint32_t depth,
    uint64_t count, void *arg)
{
	struct dcpi_stack_addframe af[1024];
	struct dcpi_error de;
	const struct image *img;
	size_t e = AGG_STREAM_EVENT(stream);
	uint32_t i;

	if (e >= perf_nevents() || depth > 1024)
		return 0;
	for (i = 0; i < depth; i++) {
		if (f[i].image == STACK_NOIMAGE || (img = attr_image(f[i].image)) == NULL) {
			af[i] = (struct dcpi_stack_addframe){ NULL, 0, 0, NULL, 0 };
			continue;
		}
		attr_image_used(f[i].image);
		af[i] = (struct dcpi_stack_addframe){ img->id, img->tstart,
		    img->tsize, img->path, f[i].offset };
	}
	if (dcpi_stackfile_add(arg, perf_event_name(e),
	    label_name(AGG_STREAM_LABEL(stream)), af, depth, count, &de) == -1)
		log_warnx("call chain left out: %s", de.msg);
	return 0;
}

void
callchain_write(void)
{
	struct dcpi_stackfile *sf;
	struct dcpi_error de;
	size_t e;

	if (stack_entries() == 0)
		return;
	if ((sf = dcpi_stackfile_new(flush_epoch(), flush_host())) == NULL) {
		log_warn("call chains: epoch %s", flush_epoch());
		return;
	}
	stack_each(add_stack, sf);
	/* Each event's chain period and route, which the readers weigh
	 * the counts by. */
	for (e = 0; e < perf_nevents(); e++)
		if (dcpi_stackfile_set_chains(sf, perf_event_name(e),
		    perf_event_chain_period(e), callchain_state.dwarf ?
		    DCPI_STACK_ROUTE_DWARF : DCPI_STACK_ROUTE_FP, &de) == -1)
			log_warnx("call chains: %s", de.msg);
	if (flush_stacks(sf) == 0)
		stack_clear();
	dcpi_stackfile_free(sf);
}

/* "period 10x (EVENT 10000000, ...)", or "with every sample". */
static void
period_text(char *buf, size_t len)
{
	size_t i, o;

	if (perf_callchain_period() <= 1) {
		snprintf(buf, len, "with every sample");
		return;
	}
	o = (size_t)snprintf(buf, len, "period %ux (", perf_callchain_period());
	for (i = 0; i < perf_nevents(); i++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s %ju",
		    i ? ", " : "", perf_event_name(i), (uintmax_t)perf_event_chain_period(i));
	snprintf(buf + o, o < len ? len - o : 0, ")");
}

void
callchain_status(struct status_writer *w)
{
	char ends[512], period[512];
	size_t i, o = 0;
	uint64_t cut = 0;

	if (callchain_state.depth == 0) {
		status_add(w, "callchains", "none");
		return;
	}
	period_text(period, sizeof(period));
	if (!callchain_state.dwarf) {
		status_add(w, "callchains", "fp, depth %u, %s, %zu chains since the "
		    "last flush, %ju JIT frames named late", callchain_state.depth,
		    period, stack_entries(), (uintmax_t)jit_named_late);
		return;
	}
	status_add(w, "callchains", "dwarf, depth %u, user stack %u bytes, %s, %zu "
	    "chains since the last flush, %ju JIT frames named late",
	    callchain_state.depth, dwarf_stack, period, stack_entries(),
	    (uintmax_t)jit_named_late);
	for (i = 0; i < UNWIND_END_COUNT; i++) {
		if (i != UNWIND_END_OUTERMOST && i != UNWIND_END_DEPTH)
			cut += walk_end[i];
		o += (size_t)snprintf(ends + o, o < sizeof(ends) ? sizeof(ends) - o : 0,
		    "%s%s %ju", i ? ", " : "", unwind_end_name(i),
		    (uintmax_t)walk_end[i]);
	}
	status_add(w, "callchains-walks", "%ju truncated since the start (%s); "
	    "%ju samples without user registers", (uintmax_t)cut, ends,
	    (uintmax_t)walks_no_user);
	if (checks != NULL)
		status_add(w, "callchains-check", "%ju walks compared, %ju the same "
		    "in the kernel and here, %ju not paired", (uintmax_t)nchecked,
		    (uintmax_t)nchecked_same, (uintmax_t)nchecked_lost);
	unwind_cache_status(w);
}
