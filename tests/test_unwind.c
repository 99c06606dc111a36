/*
 * daemon/unwind_table.c: tables built from real images' CFI, this test's
 * own executable (built -O2 without frame pointers) and the C library it
 * runs with, checked against what their code is: a function's first row,
 * the PLT's expression, glibc's signal trampoline, the outermost frame
 * (_start), the gaps; and a program whose CFI is only in .debug_frame.
 */
#define _GNU_SOURCE
#include "config.h"

#include <sys/types.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gelf.h>

#include "unwind_table.h"

/* An image of this process: its file, load bias and table. */
struct img {
	char			 path[PATH_MAX];
	uint64_t		 bias;
	int			 fd;
	Elf			*elf;
	struct unwind_table	*t;
};

static struct img exe, libc;

static int
find_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct img *want = arg;

	(void)size;
	if (want == &exe && info->dlpi_name[0] == '\0') {
		want->bias = info->dlpi_addr;
		return 1;
	}
	if (want == &libc && strstr(info->dlpi_name, "/libc.so.6") != NULL) {
		snprintf(want->path, sizeof(want->path), "%s", info->dlpi_name);
		want->bias = info->dlpi_addr;
		return 1;
	}
	return 0;
}

static void
img_open(struct img *m)
{
	if (m == &exe) {
		ssize_t n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);

		assert_true(n > 0);
		m->path[n] = '\0';
	}
	assert_int_equal(dl_iterate_phdr(find_phdr, m), 1);
	assert_true((m->fd = open(m->path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL));
	m->t = unwind_table_build(m->elf, NULL);
	assert_non_null(m->t);
}

static void
img_close(struct img *m)
{
	unwind_table_free(m->t);
	elf_end(m->elf);
	close(m->fd);
	memset(m, 0, sizeof(*m));
}

/* A symbol's ELF vaddr and size from .symtab, else .dynsym: 0, or -1. */
static int
img_sym(const struct img *m, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, n;
	const char *nm;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    (d = elf_getdata(scn, NULL)) == NULL || sh.sh_entsize == 0)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++)
				if (gelf_getsym(d, (int)i, &s) != NULL && s.st_value != 0 &&
				    (nm = elf_strptr(m->elf, sh.sh_link, s.st_name)) != NULL &&
				    strcmp(nm, name) == 0) {
					*vaddr = s.st_value;
					*size = s.st_size;
					return 0;
				}
		}
	}
	return -1;
}

/* A section's address and size: 0, or -1. */
static int
img_scn(const struct img *m, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *nm;

	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL &&
		    (nm = elf_strptr(m->elf, shstrndx, sh.sh_name)) != NULL &&
		    strcmp(nm, name) == 0) {
			*vaddr = sh.sh_addr;
			*size = sh.sh_size;
			return 0;
		}
	return -1;
}

static int
setup(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	img_open(&exe);
	img_open(&libc);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	img_close(&exe);
	img_close(&libc);
	return 0;
}

/* The rows are sorted, each starts after the one before, and the last
 * one is a gap (the end of the last FDE). */
static void
check_sorted(const struct unwind_table *t)
{
	const struct unwind_row *r, *prev = NULL;
	size_t i, n = unwind_table_rows(t);

	assert_true(n >= 2);
	for (i = 0; i < n; i++, prev = r) {
		r = unwind_table_row(t, i);
		assert_non_null(r);
		if (prev != NULL) {
			assert_true(r->start > prev->start);
			/* Adjacent rows that say the same thing are one. */
			assert_false(r->rule == prev->rule && r->cfa_offset == prev->cfa_offset &&
			    r->bp_offset == prev->bp_offset && r->ra_offset == prev->ra_offset);
		}
	}
	assert_int_equal(UNWIND_ROW_CFA(unwind_table_row(t, n - 1)), UNWIND_CFA_NONE);
	assert_null(unwind_table_row(t, n));
	assert_int_equal(unwind_table_memory(t) >= n * sizeof(struct unwind_row), 1);
}

/* A function's entry: CFA = SP + 8, the return address at CFA - 8, BP
 * unchanged. */
static void
check_entry(const struct img *m, const char *fn)
{
	const struct unwind_row *r;
	uint64_t v, sz;

	assert_int_equal(img_sym(m, fn, &v, &sz), 0);
	r = unwind_table_find(m->t, v);
	assert_non_null(r);
	assert_int_equal(UNWIND_ROW_CFA(r), UNWIND_CFA_SP);
	assert_int_equal(r->cfa_offset, 8);
	assert_int_equal(r->ra_offset, -8);
	assert_int_equal(UNWIND_ROW_BP(r), UNWIND_BP_SAME);
	assert_int_equal(r->rule & UNWIND_ROW_OUTERMOST, 0);
	assert_true(unwind_table_row_vaddr(m->t, r) <= v);
}

static void
test_table_exe(void **state)
{
	const struct unwind_row *r;
	uint64_t v, sz;

	(void)state;
	assert_int_equal(unwind_table_source(exe.t), UNWIND_SRC_EH_FRAME);
	assert_true(unwind_table_fdes(exe.t) >= 10);
	check_sorted(exe.t);
	check_entry(&exe, "main");
	check_entry(&exe, "img_sym");
	/* _start marks the return address undefined: the outermost frame. */
	assert_int_equal(img_sym(&exe, "_start", &v, &sz), 0);
	assert_non_null(r = unwind_table_find(exe.t, v + 1));
	assert_int_equal(r->rule & UNWIND_ROW_OUTERMOST, UNWIND_ROW_OUTERMOST);
	/* Before the first row and after the last: no information. */
	assert_null(unwind_table_find(exe.t, unwind_table_row_vaddr(exe.t,
	    unwind_table_row(exe.t, 0)) - 1));
	assert_null(unwind_table_find(exe.t, unwind_table_row_vaddr(exe.t,
	    unwind_table_row(exe.t, unwind_table_rows(exe.t) - 1))));
	assert_null(unwind_table_find(exe.t, 0));
	assert_null(unwind_table_find(exe.t, UINT64_MAX));
}

/* A function that saves registers: past its pushes, CFA = SP + 8 + 8 a
 * push, and a BP pushed is found at its place below the CFA; one that
 * keeps a frame pointer: CFA = BP + 16. */
static void
test_table_pushes(void **state)
{
	const struct unwind_row *r;
	uint64_t v, sz, a;
	int32_t max = 0;
	int bp_saved = 0, bp_cfa = 0;

	(void)state;
	assert_int_equal(img_sym(&libc, "__libc_start_main", &v, &sz), 0);
	for (a = v; a < v + sz && (r = unwind_table_find(libc.t, a)) != NULL; a++) {
		if (UNWIND_ROW_CFA(r) == UNWIND_CFA_SP && r->cfa_offset > max)
			max = r->cfa_offset;
		if (UNWIND_ROW_BP(r) == UNWIND_BP_CFA) {
			bp_saved = 1;
			assert_true(r->bp_offset < 0 && r->bp_offset % 8 == 0);
		}
	}
	assert_true(a > v + 16);
	assert_true(max > 16);
	assert_true(bp_saved);
	/* glibc's qsort_r keeps a frame pointer (its buffer is an alloca). */
	assert_int_equal(img_sym(&libc, "qsort_r", &v, &sz), 0);
	for (a = v; a < v + sz && (r = unwind_table_find(libc.t, a)) != NULL; a++)
		if (UNWIND_ROW_CFA(r) == UNWIND_CFA_BP) {
			bp_cfa = 1;
			assert_int_equal(r->cfa_offset, 16);
			assert_int_equal(UNWIND_ROW_BP(r), UNWIND_BP_CFA);
			assert_int_equal(r->bp_offset, -16);
		}
	assert_true(bp_cfa);
}

static void
test_table_libc(void **state)
{
	const struct unwind_row *r;
	uint64_t v, sz, plt, pltsz;
	const unsigned char *code;

	(void)state;
	assert_int_equal(unwind_table_source(libc.t), UNWIND_SRC_EH_FRAME);
	assert_true(unwind_table_fdes(libc.t) >= 1000);
	check_sorted(libc.t);
	check_entry(&libc, "__libc_start_main");
	check_entry(&libc, "qsort");
	/* The lazy PLT's entries (after PLT0's 16 bytes): the expression
	 * SP + 8 + (PC & 15 >= 11 ? 8 : 0). */
	if (img_scn(&libc, ".plt", &plt, &pltsz) == 0 && pltsz >= 32) {
		assert_non_null(r = unwind_table_find(libc.t, plt + 16));
		if (UNWIND_ROW_CFA(r) == UNWIND_CFA_PLT) {
			assert_int_equal(r->cfa_offset, 8);
			assert_int_equal(UNWIND_PLT_MASK(r), 15);
			assert_int_equal(UNWIND_PLT_THRESHOLD(r), 11);
			assert_int_equal(r->ra_offset, -8);
		}
		assert_true(unwind_table_find(libc.t, plt + 16) ==
		    unwind_table_find(libc.t, plt + pltsz - 1));
	}
	/* glibc's __restore_rt (not exported: found by the handler's return
	 * address in a signal, below), at "mov $15, %rax": a signal frame
	 * from the byte before it, where a return address minus one looks. */
	for (r = NULL, v = 0; v + 1 < unwind_table_rows(libc.t); v++) {
		const struct unwind_row *x = unwind_table_row(libc.t, v);

		if (UNWIND_ROW_CFA(x) == UNWIND_CFA_SIGNAL) {
			r = x;
			break;
		}
	}
	assert_non_null(r);
	code = (const unsigned char *)(uintptr_t)(libc.bias +
	    unwind_table_row_vaddr(libc.t, r) + 1);
	assert_memory_equal(code, "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05", 9);
	(void)sz;
}

/* The table of the image of an fd, and the errors. */
static void
test_table_fd(void **state)
{
	struct unwind_table *t;
	int fd;

	(void)state;
	assert_non_null(t = unwind_table_build_fd(libc.fd));
	assert_int_equal(unwind_table_rows(t), unwind_table_rows(libc.t));
	unwind_table_free(t);
	assert_true((fd = open("/proc/self/status", O_RDONLY)) >= 0);
	errno = 0;
	assert_null(unwind_table_build_fd(fd));
	assert_int_equal(errno, EINVAL);
	close(fd);
	errno = 0;
	assert_null(unwind_table_build(NULL, NULL));
	assert_int_equal(errno, ENOTSUP);
	unwind_table_free(NULL);
}

/* CFI only in .debug_frame: a table from it, with the program's own
 * functions. */
static void
test_table_debug_frame(void **state)
{
	struct img m;
	const struct unwind_row *r;
	uint64_t v, sz;

	(void)state;
	memset(&m, 0, sizeof(m));
	snprintf(m.path, sizeof(m.path), "%s", DBGFRAME_PROG);
	assert_true((m.fd = open(m.path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(m.elf = elf_begin(m.fd, ELF_C_READ_MMAP, NULL));
	assert_non_null(m.t = unwind_table_build(m.elf, NULL));
	assert_int_equal(unwind_table_source(m.t), UNWIND_SRC_DEBUG_FRAME);
	check_sorted(m.t);
	check_entry(&m, "dbgframe_work");
	check_entry(&m, "main");
	assert_int_equal(img_sym(&m, "dbgframe_work", &v, &sz), 0);
	/* Past the entry, gcc -O1 may push; any row there is a rule. */
	assert_non_null(r = unwind_table_find(m.t, v + sz - 1));
	assert_true(UNWIND_ROW_CFA(r) == UNWIND_CFA_SP);
	/* The same file given as the debug file of itself. */
	unwind_table_free(m.t);
	assert_non_null(m.t = unwind_table_build(m.elf, m.elf));
	assert_int_equal(unwind_table_source(m.t), UNWIND_SRC_DEBUG_FRAME);
	img_close(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_exe),
		cmocka_unit_test(test_table_libc),
		cmocka_unit_test(test_table_pushes),
		cmocka_unit_test(test_table_fd),
		cmocka_unit_test(test_table_debug_frame),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
