// fuzz-sources: lib/stackfile.c lib/file.c lib/internal.c lib/error.c lib/util.c lib/htab.c lib/pack.c lib/db.c
// fuzz-libs: -lz
/*
 * The stack file's reader on arbitrary bytes.  A rejected input gives a
 * one-line message naming the file; an accepted one encodes, reads back
 * and encodes to the same bytes again (the writer's output is canonical),
 * and merges with itself into a file of the same shape with every count
 * doubled (the reader's interning tables agree with its arrays).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/stackfile.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_stackfile *p, *q;
	struct dcpi_error err;
	void *b1, *b2;
	size_t l1, l2, i;
	uint64_t twice;

	if (dcpi_stackfile_parse(data, size, "fuzz", &p, &err) < 0) {
		CHECK(p == NULL && memchr(err.msg, '\0', sizeof(err.msg)) != NULL &&
		    strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	CHECK(dcpi_stackfile_encode(p, &b1, &l1, &err) == 0);
	CHECK(dcpi_stackfile_parse(b1, l1, "fuzz", &q, &err) == 0);
	CHECK(dcpi_stackfile_encode(q, &b2, &l2, &err) == 0);
	CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0);
	CHECK(dcpi_stackfile_merge(q, p, &err) == 0);
	CHECK(q->n_images == p->n_images && q->n_events == p->n_events &&
	    q->n_labels == p->n_labels && q->n_frames == p->n_frames &&
	    q->n_stacks == p->n_stacks && q->n_unknown == p->n_unknown);
	for (i = 0; i < p->n_stacks; i++) {
		twice = p->stacks[i].count > UINT64_MAX / 2 ? UINT64_MAX :
		    2 * p->stacks[i].count;
		CHECK(q->stacks[i].count == twice);
	}
	free(b1);
	free(b2);
	dcpi_stackfile_free(p);
	dcpi_stackfile_free(q);
	return 0;
}
