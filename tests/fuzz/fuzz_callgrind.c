// fuzz-sources: lib/export_util.c lib/stackfile.c lib/label.c lib/export_callgrind.c lib/profile.c lib/file.c lib/image.c lib/internal.c lib/error.c lib/db.c lib/util.c lib/htab.c lib/pack.c
// fuzz-libs: -lelf -ldw -lz
/*
 * The Callgrind reader on arbitrary bytes.  What it accepts must add up:
 * the totals are the sums of the functions' self costs.
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
	struct dcpi_callgrind *cg;
	struct dcpi_error err;
	uint64_t sum;
	size_t i, k;

	if (dcpi_callgrind_parse(data, size, "fuzz", &cg, &err) != 0) {
		CHECK(cg == NULL && strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	CHECK(cg->n_events > 0);
	for (k = 0; k < cg->n_events; k++) {
		for (i = 0, sum = 0; i < cg->n_fns; i++)
			sum += cg->fns[i].cost[k];
		CHECK(sum == cg->totals[k]);
	}
	dcpi_callgrind_free(cg);
	return 0;
}
