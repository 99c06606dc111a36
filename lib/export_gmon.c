/*
 * GNU gprof gmon.out (specs/gprof-gmon.txt; layout of glibc's
 * <sys/gmon_out.h>): header, then tagged records.  We write time-histogram
 * records only, for a 64-bit target in little-endian byte order.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

#define GMON_HDR_LEN	20	/* cookie, version, 3 spare words */
#define HIST_HDR_LEN	40	/* low, high, size, rate, dimen[15], abbrev */
#define ARC_LEN		20	/* from, self, count */
#define BIN_MAX		65535
#define UNIT		2	/* gprof scales addresses by sizeof(UNIT) */

int
dcpi_gmon_encode(const struct dcpi_profile *p, void **buf, size_t *len,
    struct dcpi_error *err)
{
	struct ebuf b = { 0 };
	uint64_t *bins, max = 0, nrec, r, v;
	size_t nbins, i;
	uint32_t rate;
	char dimen[15], abbrev;

	if (p->tsize == 0)
		return ex_fail(err, EINVAL, "gmon: image %s has no text size", p->path ? p->path : "?");
	nbins = (p->tsize + UNIT - 1) / UNIT;
	if (nbins > UINT32_MAX)
		return ex_fail(err, EINVAL, "gmon: text of %" PRIu64 " bytes is too large", p->tsize);
	if ((bins = calloc(nbins, sizeof(*bins))) == NULL)
		return ex_fail(err, ENOMEM, "gmon: out of memory");
	for (i = 0; i < p->n_counts; i++) {
		if (p->counts[i].offset >= p->tsize)
			continue;
		v = bins[p->counts[i].offset / UNIT] += p->counts[i].count;
		if (v > max)
			max = v;
	}
	memset(dimen, 0, sizeof(dimen));
	if (dcpi_event_is_time(p->event)) {
		memcpy(dimen, "seconds", 7);
		abbrev = 's';
		rate = p->period ? (uint32_t)((1000000000ULL + p->period / 2) / p->period) : 1;
		if (rate == 0)
			rate = 1;
	} else {
		strncpy(dimen, p->event ? p->event : "samples", sizeof(dimen));
		abbrev = '1';
		rate = 1;
	}
	eb_append(&b, "gmon", 4);
	eb_u32(&b, 1);
	eb_append(&b, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	/* gprof adds up records of one range: bins above 16 bits are carried
	 * by as many records as the largest count needs. */
	nrec = max ? (max + BIN_MAX - 1) / BIN_MAX : 1;
	for (r = 0; r < nrec; r++) {
		eb_append(&b, "\0", 1);		/* GMON_TAG_TIME_HIST */
		eb_u64(&b, p->tstart);
		eb_u64(&b, p->tstart + (uint64_t)nbins * UNIT);
		eb_u32(&b, (uint32_t)nbins);
		eb_u32(&b, rate);
		eb_append(&b, dimen, sizeof(dimen));
		eb_append(&b, &abbrev, 1);
		for (i = 0; i < nbins; i++) {
			unsigned char c[2];

			v = bins[i] > r * BIN_MAX ? bins[i] - r * BIN_MAX : 0;
			if (v > BIN_MAX)
				v = BIN_MAX;
			c[0] = v & 0xff;
			c[1] = v >> 8;
			eb_append(&b, c, 2);
		}
	}
	free(bins);
	return eb_finish(&b, buf, len, err);
}

void
dcpi_gmon_free(struct dcpi_gmon *g)
{
	if (g == NULL)
		return;
	free(g->bins);
	free(g);
}

int
dcpi_gmon_parse(const void *vbuf, size_t len, const char *name,
    struct dcpi_gmon **out, struct dcpi_error *err)
{
	const unsigned char *b = vbuf;
	struct dcpi_gmon *g;
	size_t at, i;
	uint64_t low, high, nb, n;
	uint32_t rate;

	*out = NULL;
	if (len < 4 || memcmp(b, "gmon", 4) != 0)
		return ex_fail(err, EINVAL, "%s: byte 0: not a gmon.out file (no \"gmon\" cookie)", name);
	if (len < GMON_HDR_LEN)
		return ex_fail(err, EINVAL, "%s: byte %zu: truncated header (expected %d bytes)",
		    name, len, GMON_HDR_LEN);
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return ex_fail(err, ENOMEM, "%s: out of memory", name);
	g->version = ex_le32(b + 4);
	if (g->version != 1) {
		ex_fail(err, EINVAL, "%s: byte 4: version %" PRIu32 " (expected 1)", name, g->version);
		goto fail;
	}
	for (at = GMON_HDR_LEN; at < len; ) {
		switch (b[at]) {
		case 0:		/* GMON_TAG_TIME_HIST */
			if (len - at - 1 < HIST_HDR_LEN) {
				ex_fail(err, EINVAL, "%s: byte %zu: truncated histogram header", name, at);
				goto fail;
			}
			low = ex_le64(b + at + 1);
			high = ex_le64(b + at + 9);
			nb = ex_le32(b + at + 17);
			rate = ex_le32(b + at + 21);
			if (high <= low || nb == 0) {
				ex_fail(err, EINVAL, "%s: byte %zu: histogram range 0x%" PRIx64 "-0x%" PRIx64
				    " with %" PRIu64 " bins (need low < high and bins > 0)", name, at, low, high, nb);
				goto fail;
			}
			if ((len - at - 1 - HIST_HDR_LEN) / 2 < nb) {
				ex_fail(err, EINVAL, "%s: byte %zu: %" PRIu64 " bins run past the end of the file",
				    name, at, nb);
				goto fail;
			}
			if (!g->has_hist) {
				g->has_hist = 1;
				g->low_pc = low;
				g->high_pc = high;
				g->rate = rate;
				memcpy(g->dimen, b + at + 25, 15);
				g->dimen[15] = '\0';
				g->abbrev = (char)b[at + 40];
				g->n_bins = nb;
				if ((g->bins = calloc(nb, sizeof(*g->bins))) == NULL) {
					ex_fail(err, ENOMEM, "%s: out of memory", name);
					goto fail;
				}
			} else if (low != g->low_pc || high != g->high_pc || nb != g->n_bins) {
				ex_fail(err, EINVAL, "%s: byte %zu: histogram range differs from the first "
				    "record's (only one range is supported)", name, at);
				goto fail;
			} else if (rate != g->rate || memcmp(b + at + 25, g->dimen, 15) != 0 ||
			    (char)b[at + 40] != g->abbrev) {
				ex_fail(err, EINVAL, "%s: byte %zu: profiling rate or dimension differs "
				    "from the first histogram record's", name, at);
				goto fail;
			}
			at += 1 + HIST_HDR_LEN;
			for (i = 0; i < nb; i++, at += 2) {
				n = (uint64_t)b[at] | (uint64_t)b[at + 1] << 8;
				g->bins[i] += n;
				g->total += n;
			}
			g->n_hist_records++;
			break;
		case 1:		/* GMON_TAG_CG_ARC */
			if (len - at - 1 < ARC_LEN) {
				ex_fail(err, EINVAL, "%s: byte %zu: truncated call-graph arc record", name, at);
				goto fail;
			}
			at += 1 + ARC_LEN;
			g->n_arcs++;
			break;
		case 2:		/* GMON_TAG_BB_COUNT: n, then n (address, count) */
			if (len - at - 1 < 4) {
				ex_fail(err, EINVAL, "%s: byte %zu: truncated basic-block record", name, at);
				goto fail;
			}
			n = ex_le32(b + at + 1);
			if ((len - at - 5) / 16 < n) {
				ex_fail(err, EINVAL, "%s: byte %zu: %" PRIu64 " basic-block counts run past "
				    "the end of the file", name, at, n);
				goto fail;
			}
			at += 5 + 16 * n;
			g->n_bb++;
			break;
		default:
			ex_fail(err, EINVAL, "%s: byte %zu: unknown record tag %u (expected 0, 1 or 2)",
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
	struct dcpi_profile *p;
	const char *event = "perf::cpu-clock";
	char dimen[16];
	uint64_t period = 1, addr;
	size_t i;

	*out = NULL;
	*dropped = 0;
	if (!g->has_hist)
		return ex_fail(err, EINVAL, "%s: no histogram record: nothing to import", name);
	if (strcmp(g->dimen, "seconds") == 0) {
		if (g->rate == 0)
			return ex_fail(err, EINVAL, "%s: byte 45: profiling rate 0 for a time histogram", name);
		period = 1000000000ULL / g->rate;
	} else {
		memcpy(dimen, g->dimen, sizeof(dimen));
		if (dimen[0] == '\0')
			return ex_fail(err, EINVAL, "%s: byte 49: empty histogram dimension", name);
		event = dimen;
	}
	if ((p = ex_profile_like(info->image, info->path, event, period, info->tstart,
	    info->tsize)) == NULL)
		return ex_fail(err, ENOMEM, "%s: out of memory", name);
	for (i = 0; i < g->n_bins; i++) {
		if (g->bins[i] == 0)
			continue;
		/* The first byte of bin i, exactly, for any bin size. */
		addr = g->low_pc + (uint64_t)((unsigned __int128)i * (g->high_pc - g->low_pc) / g->n_bins);
		if (addr < info->tstart || addr - info->tstart >= info->tsize) {
			*dropped += g->bins[i];
			continue;
		}
		if (dcpi_profile_add(p, (uint32_t)(addr - info->tstart), g->bins[i]) == -1) {
			dcpi_profile_free(p);
			return ex_fail(err, errno, "%s: cannot add samples: %s", name, strerror(errno));
		}
	}
	*out = p;
	return 0;
}
