/*
 * Symbolization: the test program's own functions, build-id checks,
 * kallsyms snapshots, demangling.
 */
#include "analysis_util.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dcpi/image.h>
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
	uint64_t off, size;
	const char *file;
	char name[64];
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

	/* The stripped file alone has no name for the function, but its
	 * frame information gives it as sub_ADDR over its own extent. */
	t = dcpi_symtab_open(s.path, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_non_null(sym = dcpi_symtab_find(t, "dcpi_test_known_function"));
	size = sym->size;
	dcpi_symtab_close(t);
	o.debugdir = "/nonexistent";
	t = dcpi_symtab_open(stripped, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_null(dcpi_symtab_find(t, "dcpi_test_known_function"));
	snprintf(name, sizeof(name), "sub_%" PRIx64, s.tstart + off);
	assert_non_null(sym = dcpi_symtab_lookup(t, off + size / 2));
	assert_string_equal(sym->name, name);
	assert_int_equal(sym->start, off);
	assert_int_equal(sym->size, size);
	assert_ptr_equal(dcpi_symtab_find(t, name), sym);
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

	/* The path gone, the stripped file in a database's build-id
	 * cache: no symbols, said as for the file at its path (ENODATA,
	 * which prof keeps quiet about), not that the path is gone. */
	snprintf(cmd, sizeof(cmd), "set -e; cd %s; mkdir -p db/buildid/%s; "
	    "cp stripped db/buildid/%s/executable", dir, s.buildid, s.buildid);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/db", dir);
	o.db = cmd;
	o.debugdir = "/nonexistent";
	t = dcpi_symtab_open("/nonexistent/stripped", s.buildid, s.tstart, &o, &err);
	if (t == NULL) {
		assert_int_equal(errno, ENODATA);
		assert_null(strstr(err.msg, "No such file"));
		assert_non_null(strstr(err.msg, "buildid"));
	} else
		assert_null(dcpi_symtab_find(t, "dcpi_test_known_function"));
	dcpi_symtab_close(t);
	o.db = NULL;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Of kallsyms names at one address, perf report shows the last line's
 * (the aliases of this kernel's /proc/kallsyms). */
static void
test_kallsyms_aliases(void **state)
{
	char path[] = "/tmp/dcpi-kallsyms.XXXXXX";
	struct dcpi_symtab_opts o = { .kallsyms = path, .no_debuginfod = 1 };
	struct dcpi_symtab *t;
	struct dcpi_error err;
	FILE *fp;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fputs("ffffffff81000000 T _stext\n"
	    "ffffffff81377c60 t __do_sys_getppid\n"
	    "ffffffff81377c60 T __ia32_sys_getppid\n"
	    "ffffffff81377c60 T __x64_sys_getppid\n"
	    "ffffffff81377ca0 T __x64_sys_getpid\n"
	    "ffffffff82202180 T __pi___x86_indirect_thunk_rax\n"
	    "ffffffff82202180 T __x86_indirect_thunk_array\n"
	    "ffffffff82202180 T __x86_indirect_thunk_rax\n"
	    "ffffffff822021a0 T __x86_indirect_thunk_rcx\n", fp);
	fclose(fp);
	t = dcpi_symtab_open("[kernel.kallsyms]", NULL, 0xffffffff81000000ULL, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_lookup(t, 0x377c60)->name, "__x64_sys_getppid");
	assert_string_equal(dcpi_symtab_lookup(t, 0x377c9f)->name, "__x64_sys_getppid");
	assert_string_equal(dcpi_symtab_lookup(t, 0x1202180)->name,
	    "__x86_indirect_thunk_rax");
	assert_null(dcpi_symtab_find(t, "__ia32_sys_getppid"));
	assert_null(dcpi_symtab_find(t, "__pi___x86_indirect_thunk_rax"));
	dcpi_symtab_close(t);
	unlink(path);
}

/* Runs a shell command built from fmt; fails the test if it fails. */
static void
sh(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), m = strlen(suffix);

	return l >= m && strcmp(s + l - m, suffix) == 0;
}

/*
 * The lookup order for an ELF image: the recorded path (or another path
 * the image was recorded at) with the right id, the database's build-id
 * cache, the debug file by build-id even when the file is gone or changed;
 * else ESTALE/ENOENT.
 */
static void
test_lookup_order(void **state)
{
	char dir[] = "/tmp/dcpi-lookup.XXXXXX", db[4096], other[4096], copy[4096],
	    gone[4096], nobid[4096], *exe;
	struct dcpi_symtab_opts o = { .no_debuginfod = 1, .debugdir = "/nonexistent" };
	struct dcpi_elf_image ei;
	struct dcpi_symtab *t;
	struct dcpi_error err;
	const char *paths[2], *file;
	struct self s;
	uint64_t off;
	size_t got;
	void *buf;
	int line;

	if (system("objcopy --version >/dev/null 2>&1") != 0)
		skip();
	self_load(&s);
	off = self_offset(&s, (const void *)dcpi_test_known_function);
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/db", dir);
	snprintf(other, sizeof(other), "%s/prog", dir);
	snprintf(copy, sizeof(copy), "%s/copy/prog", dir);
	snprintf(gone, sizeof(gone), "%s/gone/prog", dir);
	snprintf(nobid, sizeof(nobid), "%s/nobid", dir);
	exe = dcpi_db_buildid_path(db, s.buildid, "executable");
	assert_non_null(exe);
	/* prog: the path now holds another program (a stripped debug-less
	 * copy without this build-id). */
	sh("set -e; cd %s; mkdir -p copy db/buildid/%s .build-id/%.2s; "
	    "objcopy --remove-section .note.gnu.build-id --strip-all '%s' prog; "
	    "cp '%s' copy/prog; cp '%s' db/buildid/%s/executable; "
	    "objcopy --only-keep-debug '%s' .build-id/%.2s/%s.debug; "
	    "objcopy --remove-section .note.gnu.build-id '%s' nobid",
	    dir, s.buildid, s.buildid, s.path, s.path, s.path, s.buildid, s.path,
	    s.buildid, s.buildid + 2, s.path);

	/* Nowhere: the file changed, no cache, no debug file. */
	errno = 0;
	assert_null(dcpi_symtab_open(other, s.buildid, s.tstart, &o, &err));
	assert_int_equal(errno, ESTALE);
	assert_non_null(strstr(err.msg, other));
	errno = 0;
	assert_null(dcpi_symtab_open(gone, s.buildid, s.tstart, &o, &err));
	assert_int_equal(errno, ENOENT);

	/* Another recorded path holds it. */
	paths[0] = other;
	paths[1] = copy;
	o.paths = paths;
	o.n_paths = 2;
	t = dcpi_symtab_open(other, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_path(t), copy);
	assert_string_equal(dcpi_symtab_lookup(t, off)->name, "dcpi_test_known_function");
	dcpi_symtab_close(t);
	o.paths = NULL;
	o.n_paths = 0;

	/* The file changed: the cache's executable, with its code. */
	o.db = db;
	t = dcpi_symtab_open(other, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_path(t), exe);
	assert_string_equal(dcpi_symtab_lookup(t, off)->name, "dcpi_test_known_function");
	assert_int_equal(dcpi_symtab_read(t, off, 16, &buf, &got), 0);
	assert_int_equal(got, 16);
	assert_memory_equal(buf, (const void *)dcpi_test_known_function, 16);
	free(buf);
	dcpi_symtab_close(t);
	o.db = NULL;

	/* The file gone, the debug file by build-id: names and lines, but
	 * no code (its .text is NOBITS). */
	o.debugdir = dir;
	t = dcpi_symtab_open(gone, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_true(ends_with(dcpi_symtab_path(t), ".debug"));
	assert_string_equal(dcpi_symtab_lookup(t, off)->name, "dcpi_test_known_function");
	assert_int_equal(dcpi_symtab_srcline(t, off, &file, &line), 0);
	assert_non_null(strstr(file, "test_symbol.c"));
	assert_int_equal(dcpi_symtab_read(t, off, 16, &buf, &got), -1);
	assert_int_equal(errno, EFAULT);
	dcpi_symtab_close(t);
	/* The file changed: the same. */
	t = dcpi_symtab_open(other, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_lookup(t, off)->name, "dcpi_test_known_function");
	dcpi_symtab_close(t);
	/* The cache comes before the debug file. */
	o.db = db;
	t = dcpi_symtab_open(gone, s.buildid, s.tstart, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_path(t), exe);
	dcpi_symtab_close(t);
	o.db = NULL;
	o.debugdir = "/nonexistent";

	/* Without a build-id, the content hash decides. */
	assert_int_equal(dcpi_elf_image_path(nobid, 0, &ei, NULL), 0);
	assert_int_equal(ei.build_id_len, 0);
	t = dcpi_symtab_open(nobid, ei.id, s.tstart, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_lookup(t, off)->name, "dcpi_test_known_function");
	dcpi_symtab_close(t);
	errno = 0;
	assert_null(dcpi_symtab_open(nobid, "0123456789abcdef", s.tstart, &o, &err));
	assert_int_equal(errno, ESTALE);
	assert_non_null(strstr(err.msg, ei.id));
	dcpi_elf_image_clear(&ei);

	free(exe);
	sh("rm -rf '%s'", dir);
}

/* A JIT pseudo-image is named by its perf-map in the build-id cache. */
static void
test_jit_perfmap(void **state)
{
	char dir[] = "/tmp/dcpi-jit.XXXXXX", *map;
	struct dcpi_symtab_opts o = { .no_debuginfod = 1 };
	const char *id = "00112233aabbccdd";
	struct dcpi_symtab *t;
	struct dcpi_error err;
	size_t got;
	void *buf;

	assert_non_null(mkdtemp(dir));
	o.db = dir;
	errno = 0;
	assert_null(dcpi_symtab_open("[jit:node]", id, 0, &o, &err));
	assert_int_equal(errno, ENOENT);
	map = dcpi_db_buildid_path(dir, id, "perf-map");
	assert_non_null(map);
	sh("mkdir -p %s/buildid/%s && printf '0 10 [anon]\\n"
	    "10 40 LazyCompile:*hotJsFunction /tmp/jit_hot.js:3\\n"
	    "50 20 old\\n50 30 Builtin:new\\n' > %s", dir, id, map);
	t = dcpi_symtab_open("[jit:node]", id, 0, &o, &err);
	assert_non_null(t);
	assert_string_equal(dcpi_symtab_lookup(t, 0xf)->name, "[anon]");
	assert_string_equal(dcpi_symtab_lookup(t, 0x10)->name,
	    "LazyCompile:*hotJsFunction /tmp/jit_hot.js:3");
	assert_string_equal(dcpi_symtab_lookup(t, 0x4f)->name,
	    "LazyCompile:*hotJsFunction /tmp/jit_hot.js:3");
	/* The later line wins. */
	assert_string_equal(dcpi_symtab_lookup(t, 0x7f)->name, "Builtin:new");
	assert_null(dcpi_symtab_lookup(t, 0x80));
	assert_string_equal(dcpi_symtab_path(t), map);
	assert_int_equal(dcpi_symtab_read(t, 0x10, 4, &buf, &got), -1);
	assert_int_equal(errno, ENOENT);
	dcpi_symtab_close(t);
	/* Not a kernel module: no kallsyms is read. */
	o.kallsyms = "/nonexistent/kallsyms";
	t = dcpi_symtab_open("[jit:node]", id, 0, &o, &err);
	assert_non_null(t);
	dcpi_symtab_close(t);
	sh("echo 'zz 10 bad' > %s", map);
	errno = 0;
	assert_null(dcpi_symtab_open("[jit:node]", id, 0, &o, &err));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "line 1"));
	free(map);
	sh("rm -rf '%s'", dir);
}

/* The vdso image, as dcpid keeps it in the cache, names [vdso] samples. */
static void
test_vdso_cache(void **state)
{
	char dir[] = "/tmp/dcpi-vdso.XXXXXX", line[512], *exe;
	struct dcpi_symtab_opts o = { .no_debuginfod = 1 };
	unsigned long lo = 0, hi = 0;
	struct dcpi_elf_image ei;
	struct dcpi_symtab *t;
	const struct dcpi_symbol *sym;
	struct dcpi_error err;
	FILE *fp;

	fp = fopen("/proc/self/maps", "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strstr(line, "[vdso]") != NULL && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(fp);
	if (hi <= lo)
		skip();
	assert_int_equal(dcpi_elf_image_memory((const void *)lo, hi - lo, "[vdso]", 0, &ei,
	    &err), 0);
	assert_non_null(mkdtemp(dir));
	o.db = dir;
	assert_null(dcpi_symtab_open("[vdso]", ei.id, ei.tstart, &o, &err));
	exe = dcpi_db_buildid_path(dir, ei.id, "executable");
	assert_non_null(exe);
	sh("mkdir -p %s/buildid/%s", dir, ei.id);
	fp = fopen(exe, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite((const void *)lo, 1, hi - lo, fp), hi - lo);
	fclose(fp);
	t = dcpi_symtab_open("[vdso]", ei.id, ei.tstart, &o, &err);
	assert_non_null(t);
	sym = dcpi_symtab_find(t, "__vdso_clock_gettime");
	assert_non_null(sym);
	assert_ptr_equal(dcpi_symtab_lookup(t, sym->start + 1), sym);
	dcpi_symtab_close(t);
	free(exe);
	dcpi_elf_image_clear(&ei);
	sh("rm -rf '%s'", dir);
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
		cmocka_unit_test(test_kallsyms_aliases),
		cmocka_unit_test(test_lookup_order),
		cmocka_unit_test(test_jit_perfmap),
		cmocka_unit_test(test_vdso_cache),
		cmocka_unit_test(test_demangle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
