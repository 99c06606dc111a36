/*
 * GNU gprof gmon.out (specs/gprof-gmon.txt; layout of glibc's
 * <sys/gmon_out.h>): header, then tagged records.  We write time-histogram
 * records, and call-graph arcs from call chains, for a 64-bit target in
 * little-endian byte order.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/label.h>

#include "export_int.h"

#define GMON_HDR_LEN	20	/* cookie, version, 3 spare words */
#define HIST_HDR_LEN	40	/* low, high, size, rate, dimen[15], abbrev */
#define ARC_LEN		20	/* from, self, count */
#define BIN_MAX		65535
#define UNIT		2	/* gprof scales addresses by sizeof(UNIT) */
#define GAP_BINS	64	/* empty bins that cost more than a new record */

struct bin {
	uint64_t	 index, count;
};

struct hist_out {
	struct ebuf	*b;
	uint64_t	 tstart;
	uint32_t	 rate;
	char		 dimen[15], abbrev;
};

/* One record over bins [first, first + n) with the values v[] capped. */
static void
record(struct hist_out *h, uint64_t first, const struct bin *v, size_t nv, uint64_t n,
    uint64_t sub)
{
	uint64_t i, c;
	size_t k = 0;
	unsigned char cc[2];

	eb_append(h->b, "\0", 1);		/* GMON_TAG_TIME_HIST */
	eb_u64(h->b, h->tstart + first * UNIT);
	eb_u64(h->b, h->tstart + (first + n) * UNIT);
	eb_u32(h->b, (uint32_t)n);
	eb_u32(h->b, h->rate);
	eb_append(h->b, h->dimen, sizeof(h->dimen));
	eb_append(h->b, &h->abbrev, 1);
	for (i = 0; i < n; i++) {
		c = 0;
		if (k < nv && v[k].index == first + i)
			c = v[k++].count;
		c = c > sub ? c - sub : 0;
		if (c > BIN_MAX)
			c = BIN_MAX;
		cc[0] = c & 0xff;
		cc[1] = c >> 8;
		eb_append(h->b, cc, 2);
	}
}

int
dcpi_gmon_encode(const struct dcpi_profile *p, void **buf, size_t *len,
    struct dcpi_error *err)
{
	struct ebuf b = { 0 };
	struct hist_out h = { .b = &b, .tstart = p->tstart };
	struct bin *v;
	size_t nv = 0, i, j, k;
	uint64_t r;

	if ((p->tstart & (UNIT - 1)) != 0)
		return lib_seterr(err, EINVAL, "gmon: text start 0x%" PRIx64 " is odd", p->tstart);
	if ((v = calloc(p->n_counts + 1, sizeof(*v))) == NULL)
		return lib_seterr(err, ENOMEM, "gmon: out of memory");
	/* Counts are sorted by offset, so bins come out sorted. */
	for (i = 0; i < p->n_counts; i++) {
		uint64_t bi = p->counts[i].offset / UNIT;

		if (nv > 0 && v[nv - 1].index == bi)
			v[nv - 1].count += p->counts[i].count;
		else {
			v[nv].index = bi;
			v[nv++].count = p->counts[i].count;
		}
	}
	if (dcpi_event_is_time(p->event)) {
		memcpy(h.dimen, "seconds", 7);
		h.abbrev = 's';
		h.rate = p->period ? (uint32_t)((1000000000ULL + p->period / 2) / p->period) : 1;
		if (h.rate == 0)
			h.rate = 1;
	} else {
		strncpy(h.dimen, p->event ? p->event : "samples", sizeof(h.dimen));
		h.abbrev = '1';
		h.rate = 1;
	}
	eb_append(&b, "gmon", 4);
	eb_u32(&b, 1);
	eb_append(&b, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	for (i = 0; i < nv; ) {
		if (v[i].count > BIN_MAX) {
			/* gprof adds up the records of one range. */
			for (r = 0; r * BIN_MAX < v[i].count; r++)
				record(&h, v[i].index, &v[i], 1, 1, r * BIN_MAX);
			i++;
			continue;
		}
		for (j = i + 1; j < nv && v[j].count <= BIN_MAX &&
		    v[j].index - v[j - 1].index <= GAP_BINS; j++)
			;
		k = j - i;
		record(&h, v[i].index, &v[i], k, v[j - 1].index - v[i].index + 1, 0);
		i = j;
	}
	free(v);
	return eb_finish(&b, buf, len, err);
}

/* A call-graph arc being summed. */
struct arc {
	uint64_t	 from, self, count;
};

static int
cmp_arc(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->self < y->self ? -1 : x->self > y->self;
}

/* Nonzero if profiles a and b are of one image (id and text start). */
static int
same_image(const struct dcpi_profile *a, const struct dcpi_profile *b)
{
	return a->tstart == b->tstart && a->image != NULL && b->image != NULL &&
	    strcmp(a->image, b->image) == 0;
}

/* Nonzero if profiles a and b have one label (or none). */
static int
same_label(const struct dcpi_profile *a, const struct dcpi_profile *b)
{
	const char *x = dcpi_profile_label(a), *y = dcpi_profile_label(b);

	return x == y || (x != NULL && y != NULL && strcmp(x, y) == 0);
}

int
dcpi_gmon_encode_stacks(const struct dcpi_profile *const *profiles, size_t n,
    size_t which, const struct dcpi_export_stack *stacks, size_t n_stacks,
    void **buf, size_t *len, struct dcpi_error *err)
{
	const struct dcpi_profile *p;
	const struct dcpi_export_frame *f;
	struct ebuf b = { 0 };
	struct arc *arcs = NULL;
	uint32_t *ks = NULL;
	size_t i, j, na = 0, cap = 0, nk;
	uint64_t c;
	void *hist;
	size_t hlen;

	if (which >= n)
		return lib_seterr(err, EINVAL, "gmon: profile %zu of %zu", which, n);
	if (ex_stacks_check(stacks, n_stacks, n, "gmon", err) == -1)
		return -1;
	p = profiles[which];
	if (dcpi_gmon_encode(p, &hist, &hlen, err) == -1)
		return -1;
	eb_append(&b, hist, hlen);
	free(hist);
	for (i = 0; i < n_stacks && !b.failed; i++) {
		f = stacks[i].frames;
		if (f[0].prof == DCPI_EXPORT_NOPROF || !same_label(profiles[f[0].prof], p))
			continue;
		free(ks);
		if ((ks = calloc(stacks[i].depth, sizeof(*ks))) == NULL) {
			b.failed = 1;
			break;
		}
		nk = ex_stack_calls(&stacks[i], ks);
		for (j = 0; j < nk; j++) {
			/* Arcs within the image: gprof knows the symbols of
			 * one file, and another image's addresses are not its
			 * vaddrs. */
			if (!same_image(profiles[f[ks[j]].prof], p) ||
			    !same_image(profiles[f[ks[j] + 1].prof], p))
				continue;
			if (na == cap) {
				struct arc *v;

				cap = cap ? cap * 2 : 64;
				if ((v = reallocarray(arcs, cap, sizeof(*v))) == NULL) {
					b.failed = 1;
					break;
				}
				arcs = v;
			}
			arcs[na].from = p->tstart + f[ks[j] + 1].offset;
			arcs[na].self = p->tstart + f[ks[j]].offset;
			arcs[na++].count = stacks[i].count;
		}
	}
	free(ks);
	if (na > 1)
		qsort(arcs, na, sizeof(*arcs), cmp_arc);
	for (i = 0; i < na && !b.failed; i = j) {
		for (c = 0, j = i; j < na && cmp_arc(&arcs[i], &arcs[j]) == 0; j++)
			c = c + arcs[j].count < c ? UINT64_MAX : c + arcs[j].count;
		/* The count is 32 bits; gprof adds up arcs of one pair. */
		for (; c > 0; c -= c > UINT32_MAX ? UINT32_MAX : c) {
			eb_append(&b, "\1", 1);	/* GMON_TAG_CG_ARC */
			eb_u64(&b, arcs[i].from);
			eb_u64(&b, arcs[i].self);
			eb_u32(&b, c > UINT32_MAX ? UINT32_MAX : (uint32_t)c);
		}
	}
	free(arcs);
	return eb_finish(&b, buf, len, err);
}

void
dcpi_gmon_free(struct dcpi_gmon *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n_hists; i++)
		free(g->hists[i].bins);
	free(g->hists);
	free(g);
}

int
dcpi_gmon_parse(const void *vbuf, size_t len, const char *name,
    struct dcpi_gmon **out, struct dcpi_error *err)
{
	const unsigned char *b = vbuf;
	struct dcpi_gmon *g;
	struct dcpi_gmon_hist *hs;
	size_t at, i, cap = 0;
	uint64_t low, high, nb, n;
	uint32_t rate;

	*out = NULL;
	if (len < 4 || memcmp(b, "gmon", 4) != 0)
		return lib_seterr(err, EINVAL, "%s: byte 0: not a gmon.out file (no \"gmon\" cookie)", name);
	if (len < GMON_HDR_LEN)
		return lib_seterr(err, EINVAL, "%s: byte %zu: truncated header (expected %d bytes)",
		    name, len, GMON_HDR_LEN);
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	g->version = ex_le32(b + 4);
	if (g->version != 1) {
		lib_seterr(err, EINVAL, "%s: byte 4: version %" PRIu32 " (expected 1)", name, g->version);
		goto fail;
	}
	for (at = GMON_HDR_LEN; at < len; ) {
		switch (b[at]) {
		case 0:		/* GMON_TAG_TIME_HIST */
			if (len - at - 1 < HIST_HDR_LEN) {
				lib_seterr(err, EINVAL, "%s: byte %zu: truncated histogram header", name, at);
				goto fail;
			}
			low = ex_le64(b + at + 1);
			high = ex_le64(b + at + 9);
			nb = ex_le32(b + at + 17);
			rate = ex_le32(b + at + 21);
			if (high <= low || nb == 0) {
				lib_seterr(err, EINVAL, "%s: byte %zu: histogram range 0x%" PRIx64 "-0x%" PRIx64
				    " with %" PRIu64 " bins (need low < high and bins > 0)", name, at, low, high, nb);
				goto fail;
			}
			if ((len - at - 1 - HIST_HDR_LEN) / 2 < nb) {
				lib_seterr(err, EINVAL, "%s: byte %zu: %" PRIu64 " bins run past the end of the file",
				    name, at, nb);
				goto fail;
			}
			if (g->n_hist_records == 0) {
				size_t dl = strnlen((const char *)b + at + 25, 15), bad;

				/* The dimension names an event: a header line and a
				 * directory. */
				if ((bad = ex_header_bad((const char *)b + at + 25, dl)) < dl) {
					lib_seterr(err, EINVAL, "%s: byte %zu: histogram dimension holds "
					    "byte 0x%02x (expected printable ASCII, no leading blank)",
					    name, at + 25 + bad, b[at + 25 + bad]);
					goto fail;
				}
				if (b[at + 40] != 0 && ex_header_bad((const char *)b + at + 40, 1) == 0) {
					lib_seterr(err, EINVAL, "%s: byte %zu: dimension abbreviation is "
					    "byte 0x%02x (expected printable ASCII)", name, at + 40,
					    b[at + 40]);
					goto fail;
				}
				g->dim_at = at + 25;
				g->rate = rate;
				memcpy(g->dimen, b + at + 25, 15);
				g->dimen[15] = '\0';
				g->abbrev = (char)b[at + 40];
			} else if (rate != g->rate || memcmp(b + at + 25, g->dimen, 15) != 0 ||
			    (char)b[at + 40] != g->abbrev) {
				lib_seterr(err, EINVAL, "%s: byte %zu: profiling rate or dimension differs "
				    "from the first histogram record's", name, at);
				goto fail;
			}
			for (i = 0; i < g->n_hists; i++) {
				hs = &g->hists[i];
				if (hs->low_pc == low && hs->high_pc == high)
					break;
				if (low < hs->high_pc && hs->low_pc < high) {
					lib_seterr(err, EINVAL, "%s: byte %zu: histogram range 0x%" PRIx64 "-0x%"
					    PRIx64 " overlaps an earlier one (0x%" PRIx64 "-0x%" PRIx64 ")",
					    name, at, low, high, hs->low_pc, hs->high_pc);
					goto fail;
				}
			}
			if (i == g->n_hists) {
				if (g->n_hists == cap) {
					cap = cap ? cap * 2 : 16;
					if ((hs = reallocarray(g->hists, cap, sizeof(*hs))) == NULL) {
						lib_seterr(err, ENOMEM, "%s: out of memory", name);
						goto fail;
					}
					g->hists = hs;
				}
				hs = &g->hists[g->n_hists];
				memset(hs, 0, sizeof(*hs));
				if ((hs->bins = calloc(nb, sizeof(*hs->bins))) == NULL) {
					lib_seterr(err, ENOMEM, "%s: out of memory", name);
					goto fail;
				}
				hs->low_pc = low;
				hs->high_pc = high;
				hs->n_bins = nb;
				g->n_hists++;
			} else if (nb != g->hists[i].n_bins) {
				lib_seterr(err, EINVAL, "%s: byte %zu: %" PRIu64 " bins where an earlier record "
				    "of the same range has %zu", name, at, nb, g->hists[i].n_bins);
				goto fail;
			}
			hs = &g->hists[i];
			at += 1 + HIST_HDR_LEN;
			for (i = 0; i < nb; i++, at += 2) {
				n = (uint64_t)b[at] | (uint64_t)b[at + 1] << 8;
				hs->bins[i] += n;
				g->total += n;
			}
			hs->n_records++;
			g->n_hist_records++;
			break;
		case 1:		/* GMON_TAG_CG_ARC */
			if (len - at - 1 < ARC_LEN) {
				lib_seterr(err, EINVAL, "%s: byte %zu: truncated call-graph arc record", name, at);
				goto fail;
			}
			at += 1 + ARC_LEN;
			g->n_arcs++;
			break;
		case 2:		/* GMON_TAG_BB_COUNT: n, then n (address, count) */
			if (len - at - 1 < 4) {
				lib_seterr(err, EINVAL, "%s: byte %zu: truncated basic-block record", name, at);
				goto fail;
			}
			n = ex_le32(b + at + 1);
			if ((len - at - 5) / 16 < n) {
				lib_seterr(err, EINVAL, "%s: byte %zu: %" PRIu64 " basic-block counts run past "
				    "the end of the file", name, at, n);
				goto fail;
			}
			at += 5 + 16 * n;
			g->n_bb++;
			break;
		default:
			lib_seterr(err, EINVAL, "%s: byte %zu: unknown record tag %u (expected 0, 1 or 2)",
			    name, at, b[at]);
			goto fail;
		}
	}
	*out = g;
	return 0;
fail:
	i = errno;
	dcpi_gmon_free(g);
	errno = (int)i;
	return -1;
}

int
dcpi_gmon_to_profile(const struct dcpi_gmon *g, const char *name,
    const struct dcpi_image_info *info, struct dcpi_profile **out,
    uint64_t *dropped, struct dcpi_error *err)
{
	const struct dcpi_gmon_hist *hs;
	struct dcpi_profile *p;
	const char *event = "perf::cpu-clock";
	char dimen[16];
	uint64_t period = 1, addr;
	size_t h, i;

	*out = NULL;
	*dropped = 0;
	if (g->n_hists == 0)
		return lib_seterr(err, EINVAL, "%s: no histogram record: nothing to import", name);
	if (strcmp(g->dimen, "seconds") == 0) {
		if (g->rate == 0)
			return lib_seterr(err, EINVAL, "%s: byte %zu: profiling rate 0 for a time "
			    "histogram", name, g->dim_at - 4);
		period = 1000000000ULL / g->rate;
	} else {
		memcpy(dimen, g->dimen, sizeof(dimen));
		if (dimen[0] == '\0')
			return lib_seterr(err, EINVAL, "%s: byte %zu: empty histogram dimension",
			    name, g->dim_at);
		event = dimen;
	}
	if ((p = ex_profile_like(info->image, info->path, event, period, info->tstart,
	    info->tsize)) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	for (h = 0; h < g->n_hists; h++) {
		hs = &g->hists[h];
		for (i = 0; i < hs->n_bins; i++) {
			if (hs->bins[i] == 0)
				continue;
			/* The first byte of bin i, exactly, for any bin size. */
			addr = hs->low_pc + (uint64_t)((unsigned __int128)i *
			    (hs->high_pc - hs->low_pc) / hs->n_bins);
			if (addr < info->tstart || addr - info->tstart >= info->tsize) {
				*dropped += hs->bins[i];
				continue;
			}
			if (dcpi_profile_add(p, (uint32_t)(addr - info->tstart), hs->bins[i]) == -1) {
				dcpi_profile_free(p);
				return lib_seterr(err, errno, "%s: cannot add samples: %s", name, strerror(errno));
			}
		}
	}
	*out = p;
	return 0;
}
