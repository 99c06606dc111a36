#include "config.h"

#include <sys/mman.h>

#include <linux/perf_event.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcpi/label.h>

#include "agg.h"
#include "attr.h"
#include "bpfagg.h"
#include "callchain.h"
#include "core.h"
#include "flush.h"
#include "jit.h"
#include "labeler.h"
#include "log.h"
#include "loss.h"
#include "order.h"
#include "perf.h"
#include "proc.h"
#include "record.h"
#include "stack.h"
#include "xmalloc.h"

volatile sig_atomic_t core_quit_requested;

static size_t	 memcap;
static uint64_t	 nsamples;
static uint64_t	 rate_samples, rate_time;
static double	 rate;
/*
 * dcpictl label requests, applied in time order among the records: the
 * process's fork is behind the request, its command's samples after it.
 */
#define CORE_LABELS_PENDING	256
struct pending_label {
	uint64_t	 time;		/* perf clock, ns */
	uint32_t	 pid;
	char		*name;
};
static struct pending_label	 plabel[CORE_LABELS_PENDING];
static size_t			 nplabel;

static void	 core_ready(void);

void
core_init(size_t memory_cap)
{
	memcap = memory_cap;
	rate_time = perf_now();
	rate_samples = core_samples();
	order_init();
	agg_init();
	stack_init();
	jit_init();
	perf_set_consumer(core_record, core_ready);
	/* A flush on a busy disk takes seconds, in which a host that execs
	 * fills the sideband buffers, and samples at 10 kHz the others:
	 * their records are held meanwhile. */
	flush_set_yield(perf_hold);
}

void
core_set_memory_cap(size_t memory_cap)
{
	memcap = memory_cap;
}

void
core_fini(void)
{
	flush_set_yield(NULL);
	perf_set_consumer(NULL, NULL);
	jit_fini();
	stack_fini();
	agg_fini();
	order_fini();
	loss_fini();
	while (nplabel > 0)
		free(plabel[--nplabel].name);
}

/* The attribution's view of an MMAP2 record; filename is copied into
 * str[strlen].  -1 if the record is too short. */
static int
parse_mmap2(const union record *rec, size_t size, struct attr_mmap *m, char *str,
    size_t strlen)
{
	const struct record_mmap2 *r = &rec->mmap2;

	if (record_check(&record_daemon, rec, size) == -1)
		return -1;
	memset(m, 0, sizeof(*m));
	m->pid = r->pid;
	m->tid = r->tid;
	m->start = r->start;
	m->len = r->len;
	m->pgoff = r->pgoff;
	if (r->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->has_build_id = 1;
		m->build_id_size = r->build_id_size > 20 ? 20 : r->build_id_size;
		memcpy(m->build_id, r->build_id, 20);
	} else {
		m->maj = r->maj;
		m->min = r->min;
		m->ino = r->ino;
		m->ino_generation = r->ino_generation;
	}
	m->prot = r->prot;
	m->flags = r->flags;
	m->filename = record_string(&record_daemon, rec, size, str, strlen);
	return 0;
}

/* Out of line: its buffer would cost every record a stack probe. */
static void __attribute__((noinline, cold))
prefetch(const union record *rec, size_t size)
{
	struct attr_mmap m;
	char str[4096];

	/* A jitdump's mapping is no image: nothing to read. */
	if (parse_mmap2(rec, size, &m, str, sizeof(str)) == 0 &&
	    !jit_is_dump(m.filename))
		attr_prefetch(&m);
	bpfagg_known();
}

static void __attribute__((noinline, cold))
cgroup_arrival(const union record *rec, size_t size)
{
	char str[4096];

	const char *path;

	if (record_check(&record_daemon, rec, size) == 0) {
		path = record_string(&record_daemon, rec, size, str, sizeof(str));
		label_cgroup_arrival(rec->cgroup.id, path);
		/* The kernel's counts of the last moments are drained before
		 * their records are processed: a new cgroup is named at once
		 * (an id is new, so no earlier sample can name it). */
		if (bpfagg_active())
			label_cgroup(rec->cgroup.id, path);
	}
}

void
core_record(const union record *rec, size_t size, uint64_t time)
{
	/* Files are read as their mappings arrive, while the processes
	 * live, new cgroups looked at while they exist, and a JIT's perf
	 * map at its exit, before it is deleted; the records themselves
	 * take effect in time order. */
	if (rec->header.type == PERF_RECORD_MMAP2)
		prefetch(rec, size);
	else if (rec->header.type == PERF_RECORD_CGROUP)
		cgroup_arrival(rec, size);
	else if (rec->header.type == PERF_RECORD_EXIT &&
	    record_check(&record_daemon, rec, size) == 0 &&
	    rec->exit.pid == rec->exit.tid)
		jit_exit_arrival(rec->exit.pid);
	order_push(rec, size, time);
}

/* Inline: the sample path's one call per sample less (from
 * perf_read_until's callback, handle_in_place). */
static inline __attribute__((always_inline)) void
do_sample(const union record *rec, size_t size)
{
	const struct record_daemon_sample *s = &rec->sample;
	uint64_t cgroup = 0;
	struct image *img;
	uint32_t off, stream;
	enum attr_reason r;
	int ev, chain;

	if ((ev = perf_event_of_id(s->id)) == -1) {
		loss_unknown_event(1);
		return;
	}
	/* A sparse twin's sample: its chain, never a flat count. */
	chain = ev & PERF_EVENT_CHAIN;
	ev &= ~PERF_EVENT_CHAIN;
	nsamples += !chain;
	/* The cgroup id is the sample's last field (a kernel before 5.7 has
	 * none). */
	if (record_daemon.s_cgroup != RECORD_NONE)
		memcpy(&cgroup, (const unsigned char *)rec + size - sizeof(cgroup),
		    sizeof(cgroup));
	/* pid 0 is the idle task (swapper): its samples would lead every
	 * listing, so they go under their own label. */
	stream = AGG_STREAM(ev, s->pid == 0 ? LABEL_IDLE : label_of(s->pid, cgroup));
	r = attr_sample(s->pid, s->ip, s->header.misc & PERF_RECORD_MISC_CPUMODE_MASK,
	    &img, &off);
	/* A chain that waits for its table: the record is handled again
	 * after the build, as if not yet read. */
	if ((chain || callchain_every()) &&
	    callchain_sample(rec, size, stream, r, img, off)) {
		nsamples -= !chain;
		perf_read_stop();
		return;
	}
	if (chain)
		return;
	if (r != ATTR_OK) {
		/* JIT code: kept until a perf map names it. */
		if (r == ATTR_ANON) {
			jit_sample(stream, s->pid, s->ip);
			return;
		}
		if (r < ATTR_NREASONS)
			loss_unattr((uint32_t)ev, r);
		return;
	}
	/* An image's first sample since its counts were written: its file
	 * is held for the build-id cache until the next flush. */
	if (agg_add(stream, img->index, off))
		attr_hold(s->pid, s->ip);
}

static void
handle(const void *p, size_t size, uint64_t time, void *arg)
{
	const union record *rec = p;
	char str[4096];

	(void)time;
	(void)arg;
	/* The sample path, without a call to record_check. */
	if (rec->header.type == PERF_RECORD_SAMPLE) {
		if (size >= record_daemon.sample_size)
			do_sample(rec, size);
		return;
	}
	if (rec->header.type == BPFUNW_RECORD) {
		bpfagg_chain(rec, size);
		return;
	}
	if (record_check(&record_daemon, rec, size) == -1)
		return;
	switch (rec->header.type) {
	case PERF_RECORD_MMAP2: {
		struct attr_mmap m;

		parse_mmap2(rec, size, &m, str, sizeof(str));
		/* A jitdump announced: the mapping is only that, so the
		 * attribution takes it as data. */
		if (jit_mmap(&m))
			m.prot &= ~(uint32_t)PROT_EXEC;
		attr_mmap(&m);
		break;
	}
	case PERF_RECORD_COMM:
		if (rec->header.misc & PERF_RECORD_MISC_COMM_EXEC)
			callchain_name_jit(rec->comm.pid);
		proc_comm(rec->comm.pid, rec->comm.tid,
		    record_string(&record_daemon, rec, size, str, sizeof(str)),
		    (rec->header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
		break;
	case PERF_RECORD_FORK:
		proc_fork(rec->fork.pid, rec->fork.ppid, rec->fork.tid, rec->fork.ptid);
		break;
	case PERF_RECORD_EXIT:
		if (rec->exit.pid == rec->exit.tid)
			callchain_name_jit(rec->exit.pid);
		proc_exit(rec->exit.pid, rec->exit.ppid, rec->exit.tid, rec->exit.ptid);
		break;
	case PERF_RECORD_LOST:
		loss_lost(rec, size, rec->lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		loss_lost(rec, size, rec->lost_samples.lost);
		break;
	case PERF_RECORD_CGROUP:
		/* With BPF it was at its arrival (cgroup_arrival); the path
		 * is the same from the start of sampling to its end. */
		if (!bpfagg_active())
			label_cgroup(rec->cgroup.id,
			    record_string(&record_daemon, rec, size, str, sizeof(str)));
		break;
	case PERF_RECORD_THROTTLE:
		loss_throttle(rec, size);
		break;
	case PERF_RECORD_UNTHROTTLE:
		loss_unthrottle();
		break;
	default:
		break;
	}
}

static void
apply_label(struct pending_label *pl)
{
	char msg[256];

	if (label_run(pl->pid, pl->name, msg, sizeof(msg)) == -1)
		log_warnx("%s", msg);
	free(pl->name);
}

/* The records up to safe to handle, with their chains hashed ahead. */
static void
handle_until(uint64_t safe)
{
	callchain_ahead_reset();
	order_process_ahead(safe, handle, callchain_on() ? callchain_ahead_queued : NULL,
	    CALLCHAIN_AHEAD, NULL);
}

static void
handle_in_place(const union record *rec, size_t size, uint64_t time)
{
	handle(rec, size, time, NULL);
}

/* The samples of the buffers read in place up to until, with their chains
 * hashed ahead; the ring of hashes emptied first, as the kernel may have
 * written new records where the last call's were. */
static void
read_until(uint64_t until, uint64_t *next)
{
	callchain_ahead_reset();
	callchain_defer_builds(1);
	perf_read_until(until, handle_in_place,
	    callchain_on() ? callchain_ahead : NULL, CALLCHAIN_AHEAD, next);
	callchain_defer_builds(0);
}

/*
 * Every record stamped at or before safe, in time order as far as the
 * attribution can tell: the queue (the sideband, copied as it arrives)
 * merged with the sampling buffers, read in place (perf_read_until).
 * Samples change nothing that another sample reads, so they need no order
 * among themselves, only against the queued records: the buffers' samples
 * stamped before the oldest queued record are processed, then the queued
 * records up to the oldest sample left in the buffers, and so on up to
 * safe.  This is exact because by then every buffer holds all its records
 * stamped at or before safe (CORE_ORDER_SLACK_NS) and the sideband's are
 * queued (perf_drain_queued, before); a sample stamped after safe stays in
 * its buffer, behind the records it must follow, until a later call.
 * (Equal times: the queued record first.)
 */
static void
process_merged(uint64_t safe)
{
	uint64_t next, rnext;

	while (order_next(&next) == 0 && next <= safe) {
		rnext = next;
		if (next > 0)
			read_until(next - 1, &rnext);
		/* A sample waits for a table: nothing after it yet. */
		if (callchain_deferred())
			return;
		if (rnext < next)
			rnext = next;
		handle_until(rnext < safe ? rnext : safe);
	}
	read_until(safe, &rnext);
}

static void
process_until(uint64_t safe)
{
	size_t i = 0;

	perf_drain_queued();
	/* After the sideband: the chains walked in the kernel by then,
	 * queued in time order with the records they follow. */
	bpfunw_read();
	for (;;) {
		/* The records before a label request, then the request. */
		for (i = 0; i < nplabel && plabel[i].time <= safe; i++) {
			process_merged(plabel[i].time);
			if (callchain_deferred())
				break;
			apply_label(&plabel[i]);
		}
		if (i > 0) {
			memmove(plabel, plabel + i, (nplabel - i) * sizeof(*plabel));
			nplabel -= i;
		}
		if (!callchain_deferred())
			process_merged(safe);
		if (!callchain_deferred())
			break;
		/* Out of the buffers' reading: they can be copied out while
		 * the table is built, and its samples read again after. */
		callchain_build_deferred(perf_hold);
	}
	/* After the records: the cgroups they created are known. */
	bpfagg_sync(nplabel > 0);
}

int
core_start_aggregate(unsigned mode, int callchains, char *err, size_t errlen)
{
	return bpfagg_start(mode, callchains, nplabel > 0, err, errlen);
}

void
core_stop_aggregate(void)
{
	bpfagg_stop();
}

/* perf_set_consumer's ready: a sampling buffer is a quarter full. */
static void
core_ready(void)
{
	core_process(0);
	perf_hold_crowded();
}

void
core_process(int all)
{
	process_until(all ? UINT64_MAX : perf_now() - CORE_ORDER_SLACK_NS);
	/* The final flush: JIT samples still waiting for a map go as [anon]. */
	if (all)
		jit_release();
}

/* One pair's counts to the flush, named by the modules that made them:
 * attr's image (valid until attr_fini) and perf's event (events change
 * only after a flush that wrote all their counts).  NULL and 0 for an
 * event index perf does not know. */
static int
write_counts(uint32_t stream, uint32_t image, const struct dcpi_count *c,
    size_t n, void *arg)
{
	struct flush_desc d = { .image = attr_image(image) };
	size_t e = AGG_STREAM_EVENT(stream);

	(void)arg;
	attr_image_used(image);
	if (e < perf_nevents()) {
		d.event = perf_event_name(e);
		d.period = perf_event_period(e);
		d.jitter = perf_jitter();
	}
	d.label = label_name(AGG_STREAM_LABEL(stream));
	return flush_profile(&d, c, n);
}

/* The unattributed samples since they were last written, to the flush;
 * zeroed only once written, so a failed write keeps them and a crash never
 * counts them twice. */
static void
write_unattr(void)
{
	struct flush_unattr *u;
	size_t ev, r, n = 0;
	uint64_t k;

	u = xreallocarray(NULL, perf_nevents() * ATTR_NREASONS, sizeof(*u));
	for (ev = 0; ev < perf_nevents(); ev++)
		for (r = 1; r < ATTR_NREASONS; r++)
			if ((k = loss_unattr_pending(ev, (enum attr_reason)r)) != 0)
				u[n++] = (struct flush_unattr){ perf_event_name(ev),
				    attr_reason_name((enum attr_reason)r), k };
	if (n > 0 && flush_unattr(u, n) == 0)
		loss_unattr_written();
	free(u);
}

int
core_flush_run(char *msg, size_t msglen)
{
	int rc, begun;

	if ((begun = flush_begin(msg, msglen) == 0)) {
		/* The JIT samples whose maps are there now join the counts,
		 * and their chains' frames are named alike. */
		callchain_name_jit_all();
		jit_flush();
		agg_flush(write_counts, NULL);
		write_unattr();
		callchain_write();
		/* The sampled images' files for the build-id cache, which
		 * flush_end writes. */
		attr_release_images();
	}
	rc = flush_end();
	/* Images are freed only while no count or chain names them; JIT
	 * images' symbols first, those of exited processes. */
	if (begun && agg_entries() == 0 && stack_entries() == 0) {
		size_t n;

		jit_reclaim();
		n = attr_reclaim(bpfagg_forget, bpfagg_drain_now, agg_image_counted);
		if (n > 0)
			log_debug("%zu images unused for two flushes freed, %zu held",
			    n, attr_nimages());
	}
	return rc;
}

int
core_over_cap(void)
{
	return memcap && agg_memory() + jit_count_memory() + stack_memory() > memcap &&
	    (agg_entries() > 0 || jit_pending() > 0 || stack_entries() > 0);
}

int
core_flush_over_cap(char *msg, size_t msglen)
{
	log_notice("counts use %zu bytes, over the cap of %zu: flushing early",
	    agg_memory() + jit_count_memory() + stack_memory(), memcap);
	jit_release();
	return core_flush_run(msg, msglen);
}

/* A flush or epoch request takes every sample that has surely been
 * published, without the periodic slack: a record is published within
 * CORE_PUBLISH_NS of its timestamp, so those stamped that long before the
 * request are in the buffers now (the rest go to the next flush). */
static void
process_request(void)
{
	process_until(perf_now() - CORE_PUBLISH_NS);
}

void
core_tick(void)
{
	uint64_t now = perf_now();

	if (now > rate_time)
		rate = (double)(core_samples() - rate_samples) * 1e9 / (double)(now - rate_time);
	rate_time = now;
	rate_samples = core_samples();
}

double core_rate(void) { return rate; }
uint64_t core_samples(void) { return nsamples + bpfagg_counted(); }

static int
core_flush(char *msg, size_t msglen)
{
	process_request();
	return core_flush_run(msg, msglen);
}

static void
keep_label(uint32_t stream, void *arg)
{
	(void)arg;
	label_keep(AGG_STREAM_LABEL(stream));
}

static int
core_epoch(char *msg, size_t msglen)
{
	time_t t;

	process_request();
	t = time(NULL);
	if (core_flush_run(msg, msglen) == -1)
		return -1;
	if (flush_new_epoch(t, msg, msglen) == -1)
		return -1;
	/* The old epoch's counts are written; JIT samples still waiting
	 * for their map keep their labels' numbers. */
	jit_streams(keep_label, NULL);
	label_new_epoch();
	return 0;
}

/* The request is stamped now: records stamped before it are the
 * requester's past (its own fork included), its command's are after. */
static int
core_label(uint32_t pid, const char *name, char *msg, size_t msglen)
{
	if (nplabel == CORE_LABELS_PENDING) {
		snprintf(msg, msglen, "too many label requests at once; try again");
		return -1;
	}
	plabel[nplabel].time = perf_now();
	plabel[nplabel].pid = pid;
	plabel[nplabel].name = xstrdup(name);
	nplabel++;
	/* From now on the kernel leaves every sample to the ring. */
	bpfagg_update_pass(nplabel > 0);
	return 0;
}

static void
core_quit(void)
{
	core_quit_requested = 1;
}

const struct control_ops core_ops = {
	.flush = core_flush,
	.epoch = core_epoch,
	.quit = core_quit,
	.label = core_label,
};
