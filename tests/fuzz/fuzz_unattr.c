// fuzz-sources: lib/label.c lib/db.c lib/profile.c lib/file.c lib/internal.c lib/error.c lib/util.c lib/pack.c
// fuzz-libs: -lz
/*
 * The unattributed samples file's reader on arbitrary bytes.  A rejected
 * input leaves the set as it was, with a one-line message naming the file;
 * an accepted one encodes to text that reads back as the same set and
 * encodes to the same bytes again (the writer's output is canonical).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/label.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_unattr u = { NULL, 0, 0 }, v = { NULL, 0, 0 };
	struct dcpi_error err;
	char *b1, *b2;
	size_t l1, l2, i;

	if (dcpi_unattr_parse(data, size, "fuzz", &u, &err) < 0) {
		CHECK(u.n == 0 && memchr(err.msg, '\0', sizeof(err.msg)) != NULL &&
		    strchr(err.msg, '\n') == NULL && strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	CHECK(dcpi_unattr_encode(&u, &b1, &l1) == 0);
	CHECK(dcpi_unattr_parse(b1, l1, "fuzz", &v, &err) == 0);
	CHECK(u.n == v.n);
	for (i = 0; i < u.n; i++) {
		CHECK(strcmp(u.v[i].event, v.v[i].event) == 0);
		CHECK(strcmp(u.v[i].reason, v.v[i].reason) == 0);
		CHECK(u.v[i].samples == v.v[i].samples);
		if (i > 0)
			CHECK(strcmp(u.v[i - 1].event, u.v[i].event) < 0 ||
			    (strcmp(u.v[i - 1].event, u.v[i].event) == 0 &&
			    strcmp(u.v[i - 1].reason, u.v[i].reason) < 0));
	}
	CHECK(dcpi_unattr_encode(&v, &b2, &l2) == 0);
	CHECK(l1 == l2 && memcmp(b1, b2, l1) == 0);
	free(b1);
	free(b2);
	dcpi_unattr_clear(&u);
	dcpi_unattr_clear(&v);
	return 0;
}
