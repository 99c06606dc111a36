/*
 * Symbolization: the test program's own functions, build-id checks,
 * kallsyms snapshots, demangling.
 */
#include "analysis_util.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dcpi/symbol.h>

static int known_line = __LINE__ + 3;
unsigned long dcpi_test_known_function(unsigned long) __attribute__((noinline));
unsigned long
dcpi_test_known_function(unsigned long n)
{
	volatile unsigned long x = n;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i ^ (x >> 1);
	return x;
}

static void
test_own_function(void **state)
{
	struct self s;
	struct dcpi_symtab *t;
	const struct dcpi_symbol *sym, *all;
	struct dcpi_error err;
	uint64_t off;
	const char *file;
	int line;
	size_t n, i;

	self_load(&s);
	assert_true(s.buildid[0] != '\0');
	t = dcpi_symtab_open(s.path, s.buildid, s.tstart, NULL, &err);
	assert_non_null(t);
	off = self_offset(&s, (const void *)dcpi_test_known_function);
	sym = dcpi_symtab_lookup(t, off);
	assert_non_null(sym);
	assert_string_equal(sym->name, "dcpi_test_known_function");
	assert_int_equal(sym->start, off);
	assert_true(sym->size > 8);
	/* Every byte of it, and not the byte after. */
	assert_ptr_equal(dcpi_symtab_lookup(t, off + sym->size - 1), sym);
	assert_ptr_not_equal(dcpi_symtab_lookup(t, off + sym->size), sym);
	assert_ptr_equal(dcpi_symtab_find(t, "dcpi_test_known_function"), sym);
	assert_null(dcpi_symtab_find(t, "dcpi_no_such_function"));
	/* Sorted and non-overlapping. */
	all = dcpi_symtab_symbols(t, &n);
	assert_true(n > 10);
	for (i = 1; i < n; i++)
		assert_true(all[i - 1].start + all[i - 1].size <= all[i].start);
	/* The first instruction's line is the function's opening line or
	 * the next (prologue). */
	assert_int_equal(dcpi_symtab_srcline(t, off, &file, &line), 0);
	assert_non_null(strstr(file, "test_symbol.c"));
	assert_true(line >= known_line && line <= known_line + 2);
	dcpi_symtab_close(t);
}

static void
test_read_code(void **state)
{
	struct self s;
	struct dcpi_symtab *t;
	const struct dcpi_symbol *sym;
	void *buf;
	size_t got;

	self_load(&s);
	t = dcpi_symtab_open(s.path, s.buildid, s.tstart, NULL, NULL);
	assert_non_null(t);
	sym = dcpi_symtab_lookup(t, self_offset(&s, (const void *)dcpi_test_known_function));
	assert_non_null(sym);
	assert_int_equal(dcpi_symtab_read(t, sym->start, sym->size, &buf, &got), 0);
	assert_int_equal(got, sym->size);
	/* The file's bytes are the running code's. */
	assert_memory_equal(buf, (const void *)dcpi_test_known_function, got);
	free(buf);
	dcpi_symtab_close(t);
}

static void
test_stale_build_id(void **state)
{
	struct self s;
	struct dcpi_error err;

	self_load(&s);
	errno = 0;
	assert_null(dcpi_symtab_open(s.path, "0123456789abcdef0123456789abcdef01234567",
	    s.tstart, NULL, &err));
	assert_int_equal(errno, ESTALE);
	assert_non_null(strstr(err.msg, s.buildid));
	assert_null(dcpi_symtab_open("/nonexistent/lib.so", s.buildid, 0, NULL, &err));
	assert_int_equal(errno, ENOENT);
	assert_null(dcpi_symtab_open("[vdso]", "00", 0, NULL, &err));
	assert_int_equal(errno, ENODATA);
}

static void
test_kallsyms(void **state)
{
	char path[] = "/tmp/dcpi-kallsyms.XXXXXX";
	struct dcpi_symtab_opts o = { .kallsyms = path, .no_debuginfod = 1 };
	struct dcpi_symtab *t;
	const struct dcpi_symbol *sym;
	struct dcpi_error err;
	FILE *fp;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs("ffffffff81000000 T _text\n"
	    "ffffffff81001000 T _stext\n"
	    "ffffffff81001000 T do_one\n"
	    "ffffffff81001100 t helper_two\n"
	    "ffffffff81001180 D some_data\n"
	    "ffffffff81001200 T third\n"
	    "ffffffffc0001000 t nft_do_chain\t[nf_tables]\n"
	    "ffffffffc0001080 T nft_other\t[nf_tables]\n"
	    "ffffffffc0002000 t other_mod_fn\t[xfs]\n", fp);
	fclose(fp);
	t = dcpi_symtab_open("[kernel.kallsyms]", NULL, 0xffffffff81001000ULL, &o, &err);
	assert_non_null(t);
	sym = dcpi_symtab_lookup(t, 0x10);
	assert_non_null(sym);
	/* do_one and _stext share the address: one is kept. */
	assert_int_equal(sym->start, 0);
	sym = dcpi_symtab_lookup(t, 0x17f);
	assert_non_null(sym);
	assert_string_equal(sym->name, "helper_two");
	/* Data symbols do not end text symbols. */
	assert_string_equal(dcpi_symtab_lookup(t, 0x1a0)->name, "helper_two");
	assert_string_equal(dcpi_symtab_lookup(t, 0x200)->name, "third");
	assert_null(dcpi_symtab_find(t, "nft_do_chain"));
	dcpi_symtab_close(t);

	t = dcpi_symtab_open("[nf_tables]", NULL, 0xffffffffc0001000ULL, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_lookup(t, 0x7f)->name, "nft_do_chain");
	assert_string_equal(dcpi_symtab_lookup(t, 0x80)->name, "nft_other");
	assert_null(dcpi_symtab_find(t, "other_mod_fn"));
	dcpi_symtab_close(t);

	fp = fopen(path, "a");
	fputs("garbage\n", fp);
	fclose(fp);
	assert_null(dcpi_symtab_open("[kernel.kallsyms]", NULL, 0, &o, &err));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "line 10"));
	unlink(path);

	o.kallsyms = "/nonexistent/kallsyms";
	assert_null(dcpi_symtab_open("[kernel.kallsyms]", NULL, 0, &o, &err));
	assert_int_equal(errno, ENOENT);
}

/* A stripped copy of this program finds its symbols and lines in separate
 * debuginfo: by build-id under the debug root, and by .gnu_debuglink next
 * to it.  Needs objcopy (binutils). */
static void
test_separate_debuginfo(void **state)
{
	char dir[] = "/tmp/dcpi-debug.XXXXXX", cmd[32768], stripped[4096], linked[4096];
	struct dcpi_symtab_opts o = { .no_debuginfod = 1 };
	struct dcpi_symtab *t;
	const struct dcpi_symbol *sym;
	struct dcpi_error err;
	struct self s;
	uint64_t off;
	const char *file;
	int line;

	if (system("objcopy --version >/dev/null 2>&1") != 0)
		skip();
	self_load(&s);
	assert_non_null(mkdtemp(dir));
	o.debugdir = dir;
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(linked, sizeof(linked), "%s/linked", dir);
	snprintf(cmd, sizeof(cmd),
	    "set -e; cd %s; mkdir -p .build-id/%.2s; "
	    "objcopy --only-keep-debug '%s' .build-id/%.2s/%s.debug; "
	    "objcopy --strip-all '%s' stripped; "
	    "mkdir sub; objcopy --only-keep-debug '%s' sub/linked.debug; "
	    "objcopy --strip-all --add-gnu-debuglink=sub/linked.debug '%s' sub/linked; "
	    "mv sub/linked sub/linked.debug .",
	    dir, s.buildid, s.path, s.buildid, s.buildid + 2, s.path, s.path, s.path);
	assert_int_equal(system(cmd), 0);
	off = self_offset(&s, (const void *)dcpi_test_known_function);

	/* The stripped file alone has no function symbols. */
	o.debugdir = "/nonexistent";
	t = dcpi_symtab_open(stripped, s.buildid, s.tstart, &o, &err);
	assert_true(t == NULL || dcpi_symtab_find(t, "dcpi_test_known_function") == NULL);
	dcpi_symtab_close(t);

	/* debuginfod is asked when DEBUGINFOD_URLS is set: a server that
	 * refuses connections is a miss, not a hang or an error. */
	snprintf(cmd, sizeof(cmd), "%s/cache", dir);
	setenv("DEBUGINFOD_CACHE_PATH", cmd, 1);
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	setenv("DEBUGINFOD_TIMEOUT", "5", 1);
	o.no_debuginfod = 0;
	t = dcpi_symtab_open(stripped, s.buildid, s.tstart, &o, &err);
	assert_true(t == NULL || dcpi_symtab_find(t, "dcpi_test_known_function") == NULL);
	dcpi_symtab_close(t);
	unsetenv("DEBUGINFOD_URLS");
	o.no_debuginfod = 1;

	o.debugdir = dir;
	t = dcpi_symtab_open(stripped, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	sym = dcpi_symtab_lookup(t, off);
	assert_non_null(sym);
	assert_string_equal(sym->name, "dcpi_test_known_function");
	assert_int_equal(dcpi_symtab_srcline(t, off, &file, &line), 0);
	assert_non_null(strstr(file, "test_symbol.c"));
	dcpi_symtab_close(t);

	o.debugdir = "/nonexistent";
	t = dcpi_symtab_open(linked, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	sym = dcpi_symtab_lookup(t, off);
	assert_non_null(sym);
	assert_string_equal(sym->name, "dcpi_test_known_function");
	dcpi_symtab_close(t);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void
test_demangle(void **state)
{
	char *d;

	d = dcpi_demangle("_ZN3foo3barEi");
	assert_non_null(d);
	assert_string_equal(d, "foo::bar(int)");
	free(d);
	d = dcpi_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
	assert_non_null(d);
	assert_string_equal(d, "core::fmt::write");
	free(d);
	d = dcpi_demangle("_ZN49_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$Drop$GT$4drop17h00112233445566ffE");
	assert_non_null(d);
	assert_string_equal(d, "<alloc::vec::Vec<T> as Drop>::drop");
	free(d);
	assert_null(dcpi_demangle("main"));
	assert_null(dcpi_demangle("_Zgarbage"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function),
		cmocka_unit_test(test_read_code),
		cmocka_unit_test(test_stale_build_id),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_separate_debuginfo),
		cmocka_unit_test(test_demangle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
