// fuzz-sources: lib/export_util.c lib/stackfile.c lib/label.c lib/export_pprof.c lib/profile.c lib/file.c lib/image.c lib/internal.c lib/error.c lib/db.c lib/util.c lib/pack.c lib/htab.c
// fuzz-libs: -lelf -ldw -lz
/*
 * The gperftools CPU profile reader on arbitrary bytes.  What it accepts
 * must be consistent (samples sorted and unique, the total their sum), and
 * the images it finds (dcpi-image lines) must encode and read back with the
 * same counts.
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
	struct dcpi_pprof *pp, *pp2;
	struct dcpi_profile **v, **v2;
	struct dcpi_error err;
	size_t i, j, n, n2, len;
	uint64_t sum = 0;
	void *buf;

	if (dcpi_pprof_parse(data, size, "fuzz", &pp, &err) != 0) {
		CHECK(pp == NULL && strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	for (i = 0; i < pp->n_samples; i++) {
		CHECK(i == 0 || pp->samples[i - 1].pc < pp->samples[i].pc);
		CHECK(pp->samples[i].count > 0);
		sum += pp->samples[i].count;
	}
	CHECK(sum == pp->total);
	if (dcpi_pprof_to_profiles(pp, "fuzz", &v, &n, &err) == 0) {
		CHECK(dcpi_pprof_encode((const struct dcpi_profile *const *)v, NULL, n, &buf,
		    &len, &err) == 0);
		CHECK(dcpi_pprof_parse(buf, len, "again", &pp2, &err) == 0);
		CHECK(dcpi_pprof_to_profiles(pp2, "again", &v2, &n2, &err) == 0);
		CHECK(n2 == n);
		for (i = 0; i < n; i++) {
			CHECK(v[i]->n_counts == v2[i]->n_counts);
			for (j = 0; j < v[i]->n_counts; j++)
				CHECK(v[i]->counts[j].offset == v2[i]->counts[j].offset &&
				    v[i]->counts[j].count == v2[i]->counts[j].count);
			dcpi_profile_free(v2[i]);
		}
		free(v2);
		dcpi_pprof_free(pp2);
		free(buf);
		for (i = 0; i < n; i++)
			dcpi_profile_free(v[i]);
		free(v);
	}
	dcpi_pprof_free(pp);
	return 0;
}
