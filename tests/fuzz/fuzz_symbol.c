// fuzz-sources: lib/symtab.c lib/symbol.c lib/sym_demangle.c lib/sym_kallsyms.c lib/sym_elf.c lib/sym_ehframe.c lib/sym_gopclntab.c lib/sym_debuginfo.c lib/sym_lines.c lib/image.c lib/internal.c lib/error.c lib/db.c lib/perfmap.c lib/file.c lib/profile.c lib/util.c lib/kallsyms.c lib/pack.c
// fuzz-libs: -lelf -ldw -ldebuginfod -lstdc++ -lz
/*
 * dcpictl reads symbol tables from ELF files and kallsyms snapshots that
 * come with a database from anywhere: both on arbitrary bytes.  Whatever
 * is accepted must be a sane table: sorted, non-overlapping procedures of
 * non-zero size, each found again by lookup at its start and its last
 * byte; code and source lines are asked for without crashing.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dcpi/symbol.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(struct dcpi_symtab *t)
{
	const struct dcpi_symbol *s;
	const char *file;
	size_t n, i, got;
	void *buf;
	int line;

	s = dcpi_symtab_symbols(t, &n);
	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		CHECK(s[i].size > 0 && s[i].name != NULL);
		CHECK(s[i].start + s[i].size > s[i].start);
		if (i > 0)
			CHECK(s[i - 1].start + s[i - 1].size <= s[i].start);
		CHECK(dcpi_symtab_lookup(t, s[i].start) == &s[i]);
		CHECK(dcpi_symtab_lookup(t, s[i].start + s[i].size - 1) == &s[i]);
		CHECK(dcpi_symtab_find(t, s[i].name) != NULL);
		if (i < 8) {
			if (dcpi_symtab_read(t, s[i].start, s[i].size > 64 ? 64 : s[i].size,
			    &buf, &got) == 0) {
				CHECK(got <= 64);
				free(buf);
			}
			if (dcpi_symtab_srcline(t, s[i].start, &file, &line) == 0)
				CHECK(file != NULL && line > 0);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_symtab_opts o = { .debugdir = "/nonexistent", .no_debuginfod = 1 };
	struct dcpi_symtab *t;
	char path[64];
	int fd;

	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) == -1)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o.kallsyms = path;
	if ((t = dcpi_symtab_open("[kernel.kallsyms]", NULL, 0, &o, NULL)) != NULL) {
		check(t);
		dcpi_symtab_close(t);
	}
	if ((t = dcpi_symtab_open("[nf_tables]", NULL, 0x1000, &o, NULL)) != NULL) {
		check(t);
		dcpi_symtab_close(t);
	}
	if ((t = dcpi_symtab_open(path, NULL, 0, &o, NULL)) != NULL) {
		check(t);
		dcpi_symtab_close(t);
	}
	close(fd);
	return 0;
}
