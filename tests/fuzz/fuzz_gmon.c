// fuzz-sources: lib/export_util.c lib/stackfile.c lib/label.c lib/export_gmon.c lib/profile.c lib/file.c lib/image.c lib/internal.c lib/error.c lib/db.c lib/util.c lib/pack.c lib/htab.c
// fuzz-libs: -lelf -ldw -lz
/*
 * The gmon.out reader on arbitrary bytes.  What it accepts must add up
 * (total = sum of the bins, ranges disjoint), and its histogram, turned
 * into a DCPI profile and written as gmon.out again, must keep every
 * sample.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/export.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_gmon *g, *g2;
	struct dcpi_profile *p;
	struct dcpi_error err;
	struct dcpi_image_info info = { .path = "/fuzz", .image = "f" };
	uint64_t sum = 0, lo = UINT64_MAX, hi = 0, dropped;
	size_t h, i, j, len;
	void *buf;

	if (dcpi_gmon_parse(data, size, "fuzz", &g, &err) != 0) {
		CHECK(g == NULL && strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	for (h = 0; h < g->n_hists; h++) {
		const struct dcpi_gmon_hist *a = &g->hists[h];

		CHECK(a->low_pc < a->high_pc && a->n_bins > 0 && a->n_records > 0);
		for (j = 0; j < h; j++)
			CHECK(a->high_pc <= g->hists[j].low_pc || g->hists[j].high_pc <= a->low_pc);
		for (i = 0; i < a->n_bins; i++)
			sum += a->bins[i];
		lo = a->low_pc < lo ? a->low_pc : lo;
		hi = a->high_pc > hi ? a->high_pc : hi;
	}
	CHECK(sum == g->total);
	/* Round trip where the range fits a profile (even start, 32-bit
	 * offsets, no saturated count). */
	if (g->n_hists > 0 && (lo & 1) == 0 && hi - lo < UINT32_MAX && sum < UINT32_MAX) {
		info.tstart = lo;
		info.tsize = hi - lo;
		if (dcpi_gmon_to_profile(g, "fuzz", &info, &p, &dropped, &err) == 0) {
			CHECK(dropped == 0);
			CHECK(dcpi_profile_total_samples(p) == sum);
			CHECK(dcpi_gmon_encode(p, &buf, &len, &err) == 0);
			CHECK(dcpi_gmon_parse(buf, len, "again", &g2, &err) == 0);
			CHECK(g2->total == sum);
			dcpi_gmon_free(g2);
			free(buf);
			dcpi_profile_free(p);
		}
	}
	dcpi_gmon_free(g);
	return 0;
}
