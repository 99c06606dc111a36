// fuzz-sources: lib/perfmap.c lib/file.c lib/internal.c lib/error.c lib/pack.c lib/db.c lib/util.c
// fuzz-libs: -lz
/*
 * dcpid reads /tmp/perf-PID.map files that any user's process writes, and
 * dcpictl reads the copies in the build-id cache: the parser on arbitrary
 * bytes.  Whatever is accepted must hold what the interface promises:
 * sizes > 0 that do not wrap, names non-empty with no newline or NUL, no
 * more entries than lines; whatever is refused says why in one line.  The
 * same bytes with a newline added parse the same (the last line needs
 * none).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/perfmap.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_perfmap_entry *e, *e2;
	struct dcpi_error err;
	size_t n, n2, i, lines = 1;
	char *buf;
	int r, r2;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	err.msg[0] = '\0';
	r = dcpi_perfmap_parse((const char *)data, size, "fuzz.map", &e, &n, &err);
	if (r == -1) {
		CHECK(errno == EINVAL || errno == ENOMEM);
		CHECK(e == NULL && n == 0);
		CHECK(strncmp(err.msg, "fuzz.map: line ", 15) == 0);
		CHECK(strchr(err.msg, '\n') == NULL);
	} else {
		CHECK(r == 0 && n <= lines);
		for (i = 0; i < n; i++) {
			CHECK(e[i].size > 0);
			CHECK(e[i].start + e[i].size > e[i].start);
			CHECK(e[i].name != NULL && e[i].name[0] != '\0');
			CHECK(strchr(e[i].name, '\n') == NULL);
		}
	}
	if ((buf = malloc(size + 1)) == NULL) {
		dcpi_perfmap_free(e, n);
		return 0;
	}
	memcpy(buf, data, size);
	buf[size] = '\n';
	r2 = dcpi_perfmap_parse(buf, size + 1, "fuzz.map", &e2, &n2, NULL);
	CHECK(r2 == r && n2 == n);
	for (i = 0; i < n; i++) {
		CHECK(e2[i].start == e[i].start && e2[i].size == e[i].size);
		CHECK(strcmp(e2[i].name, e[i].name) == 0);
	}
	dcpi_perfmap_free(e2, n2);
	dcpi_perfmap_free(e, n);
	free(buf);
	return 0;
}
