// fuzz-sources: lib/profile.c lib/file.c lib/internal.c lib/error.c lib/pack.c lib/db.c lib/util.c
// fuzz-libs: -lz
/*
 * The profile reader on arbitrary bytes.  Whatever it accepts must encode,
 * read back as the same profile, encode to the same bytes again (the
 * writer's output is canonical), and merge with itself.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/profile.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static int
same(const struct dcpi_profile *a, const struct dcpi_profile *b)
{
	size_t i;

	if (strcmp(a->version, b->version) || strcmp(a->image, b->image) ||
	    strcmp(a->epoch, b->epoch) || strcmp(a->platform, b->platform) ||
	    strcmp(a->event, b->event) || a->period != b->period ||
	    a->tstart != b->tstart || a->tsize != b->tsize || a->cpuspeed != b->cpuspeed ||
	    a->has != b->has || a->n_unknown != b->n_unknown || a->n_counts != b->n_counts)
		return 0;
	if ((a->has & DCPI_HAS_PATH) && strcmp(a->path, b->path))
		return 0;
	for (i = 0; i < a->n_unknown; i++)
		if (strcmp(a->unknown[i], b->unknown[i]))
			return 0;
	for (i = 0; i < a->n_counts; i++)
		if (a->counts[i].offset != b->counts[i].offset ||
		    a->counts[i].count != b->counts[i].count || a->counts[i].count == 0 ||
		    (i > 0 && a->counts[i].offset <= a->counts[i - 1].offset))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_profile *p, *q;
	struct dcpi_error err;
	void *b1, *b2;
	size_t l1, l2, i;

	if (dcpi_profile_parse(data, size, "fuzz", &p, &err) < 0) {
		CHECK(p == NULL && memchr(err.msg, '\0', sizeof(err.msg)) != NULL &&
		    strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	CHECK(dcpi_profile_encode(p, &b1, &l1, &err) == 0);
	CHECK(dcpi_profile_parse(b1, l1, "fuzz", &q, &err) == 0);
	CHECK(same(p, q));
	CHECK(dcpi_profile_encode(q, &b2, &l2, &err) == 0);
	CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0);
	CHECK(dcpi_profile_merge(q, p, &err) == 0);
	for (i = 0; i < p->n_counts; i++) {
		uint64_t twice = 2 * (uint64_t)p->counts[i].count;

		CHECK(dcpi_profile_count(q, p->counts[i].offset) ==
		    (twice > DCPI_COUNT_MAX ? DCPI_COUNT_MAX : twice));
	}
	free(b1);
	free(b2);
	dcpi_profile_free(p);
	dcpi_profile_free(q);
	return 0;
}
