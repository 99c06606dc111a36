// fuzz-sources: lib/sym_gopclntab.c
// fuzz-libs: -lelf -ldw
/*
 * Go's function table (lib/sym_gopclntab.c) on arbitrary bytes.  Whatever
 * it pushes lies within the table's text and names a string of the
 * input; it fails only with EINVAL; the same bytes give the same symbols.
 * The line of a PC in (and beside) each function names a file that is a
 * string of the input, or fails with ENOENT or EINVAL.
 * sym_push is this file's: it keeps what it is given.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/sym_int.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
sym_push(struct rawsym **raw, size_t *n, size_t *cap, const char *name,
    uint64_t start, uint64_t size, uint64_t limit, size_t prio)
{
	if (*n == *cap) {
		struct rawsym *r;

		*cap = *cap ? *cap * 2 : 16;
		if ((r = realloc(*raw, *cap * sizeof(**raw))) == NULL)
			abort();
		*raw = r;
	}
	(*raw)[*n] = (struct rawsym){ (char *)name, start, size, limit, prio };
	(*n)++;
	return 0;
}

static int
run(const uint8_t *data, size_t size, uint64_t text, uint64_t tstart,
    struct rawsym **raw, size_t *n)
{
	size_t cap = 0;
	int rc;

	*raw = NULL;
	*n = 0;
	errno = 0;
	rc = sym_gopclntab(data, size, text, tstart, raw, n, &cap);
	CHECK(rc == 0 || (rc == -1 && errno == EINVAL));
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rawsym *raw, *again;
	size_t n, m, i;
	int rc;

	rc = run(data, size, 0x401000, 0x400000, &raw, &n);
	for (i = 0; i < n; i++) {
		const char *name = raw[i].name;

		/* A string of the input, NUL-terminated there. */
		CHECK((const uint8_t *)name >= data && (const uint8_t *)name < data + size);
		CHECK(name[0] != '\0' && memchr(name, '\0', (size_t)(data + size -
		    (const uint8_t *)name)) != NULL);
		CHECK(raw[i].size > 0 && raw[i].start + raw[i].size <= raw[i].limit);
		CHECK(i == 0 || raw[i].start >= raw[i - 1].start + raw[i - 1].size);
		CHECK(raw[i].prio == 1);
	}
	CHECK(run(data, size, 0x401000, 0x400000, &again, &m) == rc && m == n);
	CHECK(n == 0 || memcmp(raw, again, n * sizeof(*raw)) == 0);
	/* Lines: at each function's first and middle byte, and beside. */
	for (i = 0; i < n + 1; i++) {
		uint64_t pcs[3], pc;
		const char *file;
		int line, j;

		pc = i < n ? 0x400000 + raw[i].start : 0x401000;
		pcs[0] = pc;
		pcs[1] = i < n ? pc + raw[i].size / 2 : pc - 1;
		pcs[2] = i < n ? pc + raw[i].size : ~(uint64_t)0;
		for (j = 0; j < 3; j++) {
			errno = 0;
			if (sym_gopclntab_line(data, size, 0x401000, pcs[j], &file, &line) == 0) {
				CHECK((const uint8_t *)file >= data &&
				    (const uint8_t *)file < data + size);
				CHECK(file[0] != '\0' && memchr(file, '\0', (size_t)(data + size -
				    (const uint8_t *)file)) != NULL);
				CHECK(line >= 1);
			} else
				CHECK(errno == ENOENT || errno == EINVAL);
		}
	}
	free(raw);
	free(again);
	return 0;
}
