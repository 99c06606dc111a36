/*
 * The loader and the drain of the in-kernel aggregation (bpfagg.h).  The
 * program is daemon/bpf/agg.bpf.c, built by clang and embedded through
 * bpftool's skeleton (agg.skel.h, generated in the build directory).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfagg.h"
#include "log.h"
#include "perf.h"
#include "xmalloc.h"

#include "agg.skel.h"

static struct agg_bpf	 *skel;
static struct bpf_link	**links;
static size_t		  nlinks;
static unsigned		  ncpus;	/* possible CPUs: a per-CPU value's u64s */
static struct bpfagg_ctl  ctlv;
static uint64_t		  ndrains, nsamples;

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
	free(links);
	links = NULL;
	nlinks = 0;
	agg_bpf__destroy(skel);
	skel = NULL;
}

static int
fail(char *why, size_t len, const char *what, int err)
{
	snprintf(why, len, "%s: %s", what, strerror(err < 0 ? -err : err));
	bpfagg_fini();
	return -1;
}

int
bpfagg_init(char *why, size_t len)
{
	uint32_t zero = 0;
	size_t i;
	int err, ev, fd, n;

	libbpf_set_print(print_fn);
	if ((n = libbpf_num_possible_cpus()) <= 0)
		return fail(why, len, "possible CPUs", n);
	ncpus = (unsigned)n;
	if ((skel = agg_bpf__open()) == NULL)
		return fail(why, len, "opening the BPF object", errno);
	/* A load refused: no BTF (CONFIG_DEBUG_INFO_BTF), no bpf_find_vma
	 * (Linux 5.17), no CAP_BPF and CAP_PERFMON. */
	if ((err = agg_bpf__load(skel)) != 0)
		return fail(why, len, "loading the BPF program (needs Linux 5.17 "
		    "with BTF, and CAP_BPF with CAP_PERFMON or root)", err);
	ctlv.gen = 0;
	ctlv.pass_all = 0;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.ctl), &zero, &ctlv, BPF_ANY) == -1)
		return fail(why, len, "the BPF control map", errno);
	links = xreallocarray(NULL, perf_nfds() + 1, sizeof(*links));
	for (i = 0; i < perf_nfds(); i++) {
		LIBBPF_OPTS(bpf_perf_event_opts, o);

		if ((fd = perf_fd(i, &ev)) == -1 || ev < 0)
			continue;
		o.bpf_cookie = (uint64_t)ev;
		links[nlinks] = bpf_program__attach_perf_event_opts(
		    skel->progs.dcpi_sample, fd, &o);
		if (links[nlinks] == NULL)
			return fail(why, len, "attaching the BPF program to a perf "
			    "event (cookies need Linux 5.15)", errno);
		nlinks++;
	}
	ndrains = nsamples = 0;
	return 0;
}

void
bpfagg_pass_all(int on)
{
	uint32_t zero = 0;

	if (skel == NULL || (on != 0) == (ctlv.pass_all != 0))
		return;
	ctlv.pass_all = on != 0;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.ctl), &zero, &ctlv, BPF_ANY) == -1)
		log_warn("BPF control map");
}

#define DRAIN_BATCH	1024

uint64_t
bpfagg_drain_fd(int fd, unsigned nc, bpfagg_cb cb, void *arg)
{
	struct bpfagg_key *keys = xreallocarray(NULL, DRAIN_BATCH, sizeof(*keys));
	uint64_t *vals = xreallocarray(NULL, (size_t)DRAIN_BATCH * nc, sizeof(*vals));
	uint64_t total = 0, sum, in = 0, out = 0;
	uint32_t count, i, c;
	int r, first = 1;

	do {
		LIBBPF_OPTS(bpf_map_batch_opts, o);

		count = DRAIN_BATCH;
		r = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out,
		    keys, vals, &count, &o);
		if (r != 0 && errno != ENOENT) {
			log_warn("draining the BPF counts");
			break;
		}
		for (i = 0; i < count; i++) {
			for (sum = 0, c = 0; c < nc; c++)
				sum += vals[(size_t)i * nc + c];
			if (sum == 0)
				continue;
			total += sum;
			cb(&keys[i], sum, arg);
		}
		in = out;
		first = 0;
	} while (r == 0);
	free(keys);
	free(vals);
	return total;
}

uint64_t
bpfagg_drain(bpfagg_cb cb, void *arg)
{
	uint32_t zero = 0, old;
	uint64_t n;
	int fd;

	if (skel == NULL)
		return 0;
	old = ctlv.gen;
	ctlv.gen = !old;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.ctl), &zero, &ctlv, BPF_ANY) == -1) {
		log_warn("BPF control map");
		ctlv.gen = old;
	}
	fd = bpf_map__fd(old ? skel->maps.counts1 : skel->maps.counts0);
	n = bpfagg_drain_fd(fd, ncpus, cb, arg);
	ndrains++;
	nsamples += n;
	return n;
}

int
bpfagg_news(uint64_t *dev, uint64_t *ino, uint32_t *pid, uint64_t *pc)
{
	struct bpfagg_news n;

	if (skel == NULL ||
	    bpf_map_lookup_and_delete_elem(bpf_map__fd(skel->maps.news), NULL, &n) == -1)
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
uint64_t bpfagg_samples(void) { return nsamples; }
