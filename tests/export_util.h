/*
 * Helpers of the export tests (test_export.c, test_export_proto.c): DCPI
 * profiles made by hand.
 */
#ifndef TESTS_EXPORT_UTIL_H
#define TESTS_EXPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/profile.h>

/* A profile of the image with the counts c[0..n) and, unless label is
 * NULL, a label line (dcpi/label.h); fails the test on any error. */
static inline struct dcpi_profile *
mkprof_label(const char *image, const char *path, const char *event, uint64_t period,
    uint64_t tstart, uint64_t tsize, const char *label, const struct dcpi_count *c,
    size_t n)
{
	struct dcpi_profile *p = dcpi_profile_new();
	size_t i;

	assert_non_null(p);
	assert_int_equal(dcpi_profile_set(p, "image", image, NULL), 0);
	assert_int_equal(dcpi_profile_set(p, "event", event, NULL), 0);
	assert_int_equal(dcpi_profile_set(p, "path", path, NULL), 0);
	assert_int_equal(dcpi_profile_set(p, "epoch", "20261121223000", NULL), 0);
	if (label != NULL)
		assert_int_equal(dcpi_profile_set(p, "label", label, NULL), 0);
	p->period = period;
	p->tstart = tstart;
	p->tsize = tsize;
	for (i = 0; i < n; i++)
		assert_int_equal(dcpi_profile_add(p, c[i].offset, c[i].count), 0);
	return p;
}

#endif
