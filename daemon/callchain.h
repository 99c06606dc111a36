/*
 * A sample's call chain turned into frames (daemon/callchain.c), the one
 * place that does it; stack.c keeps them until the flush, which
 * callchain_write hands to the epoch's stack file.  A chain not met before
 * in its process is attributed frame by frame like sampled PCs, in time
 * order (the maps of that moment): a return address looked up at ip - 1
 * (the call, as perf and pprof do), kernel and user frames by the context
 * markers the kernel puts before them; JIT frames by the perf map read
 * last, and named again when a map comes later.
 *
 * The sample path's part is inline (callchain_sample, from core.c's
 * do_sample): as calls, their arguments, spills and saved registers cost
 * a chain's sample more than its lookup (bench/README).  It reads and
 * moves the look-ahead ring in callchain_state, which otherwise only
 * callchain.c writes.
 */
#ifndef DCPID_CALLCHAIN_H
#define DCPID_CALLCHAIN_H

#include <linux/perf_event.h>

#include <stddef.h>
#include <stdint.h>

#include "attr.h"
#include "jit.h"
#include "record.h"
#include "stack.h"

struct status_writer;

/*
 * Chains hashed ahead.  Where the distinct chains are many, stack.c's
 * table is larger than the caches and its probe a miss per sample (150 -
 * 250 ns, bench/README); so the record's reader shows callchain_ahead each
 * record CALLCHAIN_AHEAD records before the sample path gets it, and
 * callchain_ahead hashes the raw chain and prefetches its slot.  The hash
 * and the chain's place are kept for callchain_sample in a ring, found by
 * the record's address (a record's own while one batch of records is
 * handed out; the ring is emptied before each, callchain_ahead_reset), so
 * a record the ring does not hold (a sample of no event, or handed out
 * without callchain_ahead) is only hashed again.  At most
 * CALLCHAIN_AHEAD + 1 are held.
 */
#define CALLCHAIN_AHEAD	16
#define CALLCHAIN_RING	32		/* a power of two above CALLCHAIN_AHEAD */

struct callchain_state {
	struct {			/* first: 32-byte entries on 32-byte lines */
		const void	*rec;
		const uint64_t	*ips;	/* its raw chain, n words */
		uint64_t	 h;
		uint32_t	 n, li;	/* li: the leaf's word */
	} ring[CALLCHAIN_RING];
	size_t		 head, tail;	/* ring positions, mod CALLCHAIN_RING */
	uint32_t	 depth;		/* frames kept per stack; 0: no chains */
	uint32_t	 dwarf;		/* user frames unwound here (callchain_dwarf) */
	uint32_t	 split;		/* chains by the events' sparse twins only */
};
/* Hidden: dcpid's objects are built position-independent, and a default
 * symbol would be reached through the GOT, an extra load per sample. */
extern struct callchain_state callchain_state __attribute__((visibility("hidden")));

/* Call chains of depth frames at most kept per sample (0: none); perf.c
 * samples them (perf_set_callchain). */
void callchain_set_depth(unsigned depth);
/* The same, and the route: stack 0, the kernel's chains (frame pointers);
 * else the kernel's frames and the user's unwound here from the sample's
 * copy of stack bytes of user stack (callchain_dwarf), with unwind tables
 * of unwind_memory bytes at most (daemon/unwind_cache.h). */
void callchain_set_route(unsigned depth, unsigned stack, size_t unwind_memory);
void callchain_set_unwind_memory(size_t unwind_memory);
/* Chains sampled by the events' sparse twins (perf_set_callchain_period),
 * not with the dense events' samples (on: 1). */
void callchain_set_split(int on);

/* A word of a raw chain after the user frames unwound here when the walk
 * ended before the outermost frame: CALLCHAIN_TRUNCATED + enum unwind_end
 * (daemon/unwind.h), in the range the kernel's context markers leave
 * free (above PERF_CONTEXT_MAX, below PERF_CONTEXT_GUEST_USER).  Its frame
 * is the pseudo image [truncated] at offset the reason, which dcpictl
 * stacks shows as [truncated: REASON]. */
#define CALLCHAIN_TRUNCATED	((uint64_t)-4000)

/* Whether samples carry chains to count. */
static inline int
callchain_on(void)
{
	return callchain_state.depth > 0;
}

/* Whether every sample of an event carries its chain (no sparse twins). */
static inline int
callchain_every(void)
{
	return callchain_state.depth > 0 && !callchain_state.split;
}

/* Before a batch of records is handed out: the kernel may have written
 * new records where the last batch's were. */
static inline void
callchain_ahead_reset(void)
{
	callchain_state.head = callchain_state.tail = 0;
}

/* A record CALLCHAIN_AHEAD / 2 to CALLCHAIN_AHEAD records before the
 * sample path gets it, at the same address (perf_read_until's ahead);
 * callchain_ahead_queued: the same for order_process_ahead. */
void callchain_ahead(const union record *rec, size_t size);
void callchain_ahead_queued(const void *rec, size_t size, void *arg);

/* The raw chain ips[0..n) of a SAMPLE of size bytes, n cut at 4096; NULL
 * if it has none. */
static inline const uint64_t *
callchain_raw(const union record *rec, size_t size, uint32_t *n)
{
	const uint64_t *ips;
	uint64_t nr;

	if ((ips = record_callchain(&record_chain, rec, size, &nr)) == NULL)
		return NULL;
	/* The kernel stops at sample_max_stack frames, plus a few context
	 * markers; a corrupt nr is cut short. */
	*n = nr > 4096 ? 4096 : (uint32_t)nr;
	return ips;
}

/* The leaf of a raw chain of n words: the first that is no context
 * marker (the PC); n if none is.  (One marker, then the PC, is what the
 * kernel gives: tested first.) */
static inline uint32_t
callchain_leaf_word(const uint64_t *ips, uint32_t n)
{
	uint32_t li;

	if (n > 1 && ips[0] >= PERF_CONTEXT_MAX && ips[1] < PERF_CONTEXT_MAX)
		return 1;
	for (li = 0; li < n && ips[li] >= PERF_CONTEXT_MAX; li++)
		;
	return li;
}

/* A chain not met before: its callers attributed and stored (out of
 * line: its 8 KiB frame is not set up on the usual path). */
void callchain_new(const union record *rec, uint64_t h, uint32_t stream,
    const uint64_t *ips, uint32_t n, uint32_t li, struct stack_frame leaf);

/* A sample's chain counted under stream on the dwarf route: its raw chain
 * is the kernel's (kernel frames only) then PERF_CONTEXT_USER, the user
 * IP and the return addresses unwound from its user stack copy, then a
 * CALLCHAIN_TRUNCATED word if the walk ended early; keyed and counted as
 * callchain_sample's.  Out of line: the walk costs more than the call.
 * Returns 0, or 1 (nothing counted) where the walk met an image whose
 * table is not built while builds are deferred (below). */
int callchain_dwarf(const union record *rec, size_t size, uint32_t stream,
    struct stack_frame leaf);

/*
 * Deferred table builds.  A table is built where a walk first needs it,
 * tens to hundreds of ms for a large image; in the middle of reading a
 * buffer in place, that long would fill the buffers, which cannot be
 * copied out under the record being read.  With builds deferred
 * (callchain_defer_builds(1), around perf_read_until), such a walk stops:
 * callchain_sample returns 1 and counts nothing, its caller leaves the
 * record in its buffer (perf_read_stop) and stops, callchain_deferred()
 * says so, and callchain_build_deferred builds the table the walk waited
 * for (calling yield, e.g. perf_hold, every few ms of the build), after
 * which the record is handled again.  A failed build is remembered
 * (unwind_cache), so that each record waits for each image at most once.
 */
void callchain_defer_builds(int on);
int callchain_deferred(void);
void callchain_build_deferred(void (*yield)(void));

/* A chain walked elsewhere (the kernel's walk, bpfagg.h) counted under
 * stream for process pid: ips[0..n) as callchain_dwarf's raw chain, each
 * part after its context marker; leaf as callchain_leaf's. */
void callchain_walked(uint32_t pid, uint32_t stream, const uint64_t *ips,
    uint32_t n, struct stack_frame leaf);
/* Tests: the kernel's walks compared with dcpid's, sample by sample
 * (status's callchains-check).  callchain_check: one walk's callers
 * (nearest first, with the CALLCHAIN_TRUNCATED word if any) of the sample
 * of thread tid of pid at (ip, sp) at time (ns, the records' clock), by
 * walker 0 (dcpid, from the copy) or 1 (the kernel); paired with the
 * other's of the same sample (within 100 us) as it comes. */
void callchain_check_on(int on);
void callchain_check(int walker, uint32_t pid, uint32_t tid, uint64_t time,
    uint64_t ip, uint64_t sp, const uint64_t *callers, uint32_t n);
/* Bytes of user stack a sample copies on the dwarf route (0: fp). */
unsigned callchain_stack(void);

/* A chain's leaf: the sample's attribution, or for JIT code the frame
 * the perf map read last names (the flat count waits for the flush's). */
static inline struct stack_frame
callchain_leaf(const struct record_daemon_sample *s, enum attr_reason r,
    const struct image *img, uint32_t off)
{
	struct image *jimg;
	uint32_t joff;

	if (r == ATTR_OK)
		return (struct stack_frame){ img->index, off };
	if (r == ATTR_ANON) {
		if (jit_frame(s->pid, s->ip, &jimg, &joff) == 0)
			return (struct stack_frame){ jimg->index, joff };
		jit_unnamed(s->pid);
	}
	return (struct stack_frame){ STACK_NOIMAGE, 0 };
}

/* A sample's chain counted under stream, its leaf attributed as r, img
 * and off say (attr_sample).  The chain: from the ring of those hashed
 * ahead (the records before it there never reached the sample path, and
 * are dropped); or, where the ring does not hold it (a record that
 * wrapped, copied), read and hashed now.  The ring is searched, not
 * emptied, on a miss: the records after it are there still.  Returns 1
 * where a dwarf walk waits for a deferred build (nothing counted), else
 * 0. */
static inline int
callchain_sample(const union record *rec, size_t size, uint32_t stream,
    enum attr_reason r, const struct image *img, uint32_t off)
{
	struct callchain_state *cs = &callchain_state;
	struct stack_frame leaf = callchain_leaf(&rec->sample, r, img, off);
	const uint64_t *ips;
	uint64_t h;
	uint32_t n, li;
	size_t i;

	if (cs->dwarf)
		return callchain_dwarf(rec, size, stream, leaf);
	for (i = cs->head; i != cs->tail; i++)
		if (cs->ring[i % CALLCHAIN_RING].rec == rec) {
			cs->head = i + 1;
			i %= CALLCHAIN_RING;
			ips = cs->ring[i].ips;
			n = cs->ring[i].n;
			li = cs->ring[i].li;
			h = cs->ring[i].h;
			goto hashed;
		}
	if ((ips = callchain_raw(rec, size, &n)) == NULL)
		return 0;
	li = callchain_leaf_word(ips, n);
	h = stack_hash(rec->sample.pid, ips, n);
hashed:
	if (li < n && !stack_count_hashed(h, stream, rec->sample.pid, ips, n, li, leaf))
		callchain_new(rec, h, stream, ips, n, li, leaf);
	return 0;
}

/* JIT frames named late: the unnamed JIT frames of pid's chains (at its
 * exit or exec), or of every process with some (at a flush), named by the
 * perf map read again. */
void callchain_name_jit(uint32_t pid);
void callchain_name_jit_all(void);

/* The chains since the last flush, named by attr's images, into the
 * flush's stack file (flush_stacks); forgotten once written. */
void callchain_write(void);

/* STATUS: the route, the depth, the chains held, JIT frames named late;
 * on the dwarf route, how the walks ended and the unwind tables. */
void callchain_status(struct status_writer *w);

#endif
