// fuzz-sources: lib/jitdump.c lib/perfmap.c lib/file.c lib/internal.c lib/error.c lib/htab.c lib/pack.c lib/db.c lib/util.c
// fuzz-libs: -lz
/*
 * dcpid reads the jitdump files that any user's JIT maps executable: the
 * parser on arbitrary bytes.  Whatever it gives, success or not, must hold
 * what the interface promises: sizes > 0 that do not wrap, names
 * non-empty with no newline, no more entries than 16-byte records could
 * make; whatever is refused says why in one line naming a byte offset.
 * The input less its last byte, where the whole succeeded with entries,
 * succeeds too (a dump read while written) and gives no more entries.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/jitdump.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_entries(const struct dcpi_perfmap_entry *e, size_t n, size_t size)
{
	size_t i;

	CHECK(n <= size / 16);
	for (i = 0; i < n; i++) {
		CHECK(e[i].size > 0);
		CHECK(e[i].start + e[i].size > e[i].start);
		CHECK(e[i].name != NULL && e[i].name[0] != '\0');
		CHECK(strchr(e[i].name, '\n') == NULL);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_perfmap_entry *e, *e2;
	struct dcpi_error err;
	size_t n, n2;
	int r, r2;

	err.msg[0] = '\0';
	r = dcpi_jitdump_parse(data, size, "fuzz.dump", &e, &n, &err);
	if (r == -1) {
		CHECK(errno == EINVAL || errno == ENOMEM);
		CHECK(strncmp(err.msg, "fuzz.dump: byte ", 16) == 0);
		CHECK(strchr(err.msg, '\n') == NULL);
	} else
		CHECK(r == 0);
	check_entries(e, n, size);
	/* With an entry there is a record after the header: the byte cut
	 * is a record's. */
	if (r == 0 && n > 0) {
		r2 = dcpi_jitdump_parse(data, size - 1, "fuzz.dump", &e2, &n2,
		    NULL);
		CHECK(r2 == 0 && n2 <= n);
		check_entries(e2, n2, size);
		dcpi_perfmap_free(e2, n2);
	}
	dcpi_perfmap_free(e, n);
	return 0;
}
