/*
 * The kernel's counts into the aggregation (daemon/bpfagg.h, "the
 * bridge"): each key attributed as the ring's samples are, the files the
 * program meets settled (counted in the kernel, or left to the ring), the
 * program told what the attribution learns and forgets.
 */
#include "config.h"

#include <linux/perf_event.h>

#include <stdio.h>

#include "agg.h"
#include "attr.h"
#include "bpfagg.h"
#include "conf.h"
#include "control.h"
#include "labeler.h"
#include "log.h"
#include "loss.h"
#include "perf.h"

/* Samples counted in the kernel and attributed here, for status. */
static uint64_t	 nsamples;

/* Which path counts the samples (status), and why. */
static char	 agg_path[640] = "ring";

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
	bpfagg_drain(bpf_count, NULL);
	bpfagg_update_pass(pending);
}

int
bpfagg_start(unsigned mode, int callchains, int pending, char *err, size_t errlen)
{
	char why[512];

	if (mode == CONF_AGGREGATE_RING) {
		snprintf(agg_path, sizeof(agg_path), "ring (aggregate = ring)");
	} else if (callchains) {
		/* The chains are the ring's: the program keeps only PCs. */
		snprintf(agg_path, sizeof(agg_path), "ring (call chains are sampled)");
		if (mode == CONF_AGGREGATE_BPF) {
			snprintf(err, errlen, "aggregate = bpf: call chains need the "
			    "ring buffers; use aggregate = auto or ring");
			return -1;
		}
	} else if (bpfagg_init(why, sizeof(why)) == 0) {
		snprintf(agg_path, sizeof(agg_path), "bpf (in the kernel; "
		    "anonymous code and labelled runs through the ring)");
		bpfagg_update_pass(pending);
	} else if (mode == CONF_AGGREGATE_BPF) {
		snprintf(err, errlen, "aggregate = bpf: %s", why);
		return -1;
	} else {
		snprintf(agg_path, sizeof(agg_path), "ring (BPF: %s)", why);
	}
	log_notice("samples counted by %s", agg_path);
	return 0;
}

void
bpfagg_stop(void)
{
	/* Whatever the kernel counted goes into the aggregation first. */
	if (bpfagg_active())
		bpfagg_drain(bpf_count, NULL);
	bpfagg_fini();
}

void
bpfagg_forget(uint64_t dev, uint64_t ino)
{
	if (bpfagg_active())
		bpfagg_file_state(dev, ino, -1);
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
}
