// fuzz-sources: lib/export_util.c lib/stackfile.c lib/label.c lib/export_xprof.c lib/profile.c lib/file.c lib/image.c lib/internal.c lib/error.c lib/db.c lib/util.c lib/pack.c lib/htab.c
// fuzz-libs: -lelf -ldw -lz
/*
 * The xprof_text reader on arbitrary bytes.  What it accepts must agree
 * with itself: stats that are present match the counters, and every OBJREF
 * names an OBJFILE.
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
	struct dcpi_xprof *x;
	struct dcpi_error err;
	uint64_t osum, psum;
	size_t i, j, k;

	if (dcpi_xprof_parse(data, size, "fuzz", &x, &err) != 0) {
		CHECK(x == NULL && strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	for (i = 0; i < x->n_objs; i++) {
		for (j = 0, osum = 0; j < x->objs[i].n_procs; j++) {
			const struct dcpi_xprof_proc *p = &x->objs[i].procs[j];

			for (k = 0, psum = 0; k < p->n_counters; k++)
				psum += p->counters[k].value;
			CHECK(!p->has_sum || p->sum == psum);
			osum += psum;
		}
		CHECK(!x->objs[i].has_sum || x->objs[i].sum == osum);
	}
	for (i = 0; i < x->n_progs; i++)
		for (j = 0; j < x->progs[i].n_objrefs; j++) {
			for (k = 0; k < x->n_objs; k++)
				if (strcmp(x->objs[k].path, x->progs[i].objrefs[j]) == 0)
					break;
			CHECK(k < x->n_objs);
		}
	dcpi_xprof_free(x);
	return 0;
}
