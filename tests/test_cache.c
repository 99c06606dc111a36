/*
 * The build-id cache (daemon/cache.c): queued files and memory images are
 * written at the flush as DB/buildid/ID/executable with their exact bytes,
 * also when the file was deleted after it was queued; the size limit; a
 * failed write keeps the entry for the next flush; an id is kept once;
 * the names of new entries are made durable by one fsync of buildid/ a
 * flush (cache.c's fsync wrapped with -Wl,--wrap, tests/local.mk, to be
 * counted and to fail).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/image.h>
#include <dcpi/symbol.h>

#include "cache.h"
#include "unwind_table.h"

static char db[256];

int __wrap_fsync(int fd);
int __real_fsync(int fd);

/* cache.c's fsyncs of DB/buildid; one to fail with EIO. */
static unsigned nsync_buildid;
static int fsync_fail;

int
__wrap_fsync(int fd)
{
	char link[64], path[PATH_MAX], want[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	assert_true(n > 0);
	path[n] = '\0';
	snprintf(want, sizeof(want), "%s/%s", db, DCPI_DB_BUILDID_DIR);
	if (strcmp(path, want) == 0)
		nsync_buildid++;
	if (fsync_fail) {
		fsync_fail = 0;
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(db, sizeof(db), "/tmp/dcpi-test-cache.XXXXXX");
	if (mkdtemp(db) == NULL)
		return -1;
	cache_init(db, 0);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[512];

	(void)state;
	cache_fini();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", db);
	return system(cmd) == 0 ? 0 : -1;
}

/* The entry's bytes, or NULL if it is missing; *len gets their number. */
static char *
entry(const char *id, size_t *len)
{
	struct dcpi_error err;
	char *path = dcpi_db_buildid_path(db, id, "executable");
	void *buf;

	assert_non_null(path);
	if (dcpi_read_file(path, &buf, len, &err) == -1)
		buf = NULL;
	free(path);
	return buf;
}

static void
test_memory(void **state)
{
	char err[512], *got;
	size_t len;

	(void)state;
	assert_int_equal(cache_has("0a0b"), 0);
	cache_add_memory("0a0b", "vdso bytes", 10, "[vdso]");
	assert_int_equal(cache_has("0a0b"), 1);	/* queued */
	assert_int_equal(cache_pending(), 1);
	assert_null(entry("0a0b", &len));	/* only the flush writes */
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_int_equal(cache_pending(), 0);
	assert_non_null(got = entry("0a0b", &len));
	assert_int_equal(len, 10);
	assert_memory_equal(got, "vdso bytes", 10);
	free(got);
	assert_int_equal(cache_has("0a0b"), 1);	/* on disk */
	assert_int_equal(cache_bytes(), 10);
	/* Kept once: a second image of the same id is not queued. */
	cache_add_memory("0a0b", "other", 5, "[vdso]");
	assert_int_equal(cache_pending(), 0);
}

static void
test_deleted_file(void **state)
{
	char path[300], err[512], *got;
	size_t len;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/prog", db);
	assert_true((fd = open(path, O_RDWR | O_CREAT, 0755)) >= 0);
	assert_int_equal(write(fd, "\177ELF and the rest", 17), 17);
	cache_add_fd("1234abcd", fd, "/bin/prog");
	close(fd);
	/* The program's file is gone by the flush: the queue holds it. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_non_null(got = entry("1234abcd", &len));
	assert_int_equal(len, 17);
	assert_memory_equal(got, "\177ELF and the rest", 17);
	free(got);
}

static void
test_limit(void **state)
{
	char err[512];
	size_t len;

	(void)state;
	cache_set_limit(15);
	cache_add_memory("aa", "0123456789", 10, "a");
	cache_add_memory("bb", "0123456789", 10, "b");
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	free(entry("aa", &len));
	assert_null(entry("bb", &len));		/* would pass 15 bytes */
	assert_int_equal(cache_skipped(), 1);
	assert_int_equal(cache_bytes(), 10);
	assert_int_equal(cache_pending(), 0);	/* dropped, not retried */
	cache_set_limit(0);
}

static void
test_failed_write_retried(void **state)
{
	char path[300], err[512], *got;
	size_t len;
	int fd;

	(void)state;
	/* A file where the cache's directory belongs: mkdir fails. */
	snprintf(path, sizeof(path), "%s/%s", db, DCPI_DB_BUILDID_DIR);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0644)) >= 0);
	close(fd);
	cache_add_memory("cc", "abc", 3, "c");
	assert_int_equal(cache_flush(err, sizeof(err)), -1);
	assert_non_null(strstr(err, "buildid"));
	assert_int_equal(cache_pending(), 1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_int_equal(cache_pending(), 0);
	assert_non_null(got = entry("cc", &len));
	assert_int_equal(len, 3);
	free(got);
}

/* Three new entries: buildid/ fsynced once, after them; a flush with
 * nothing new fsyncs nothing; an fsync that fails fails the flush and is
 * tried again at the next. */
static void
test_names_synced_once(void **state)
{
	char err[512];

	(void)state;
	nsync_buildid = 0;
	cache_add_memory("d1", "one", 3, "d1");
	cache_add_memory("d2", "two", 3, "d2");
	cache_add_memory("d3", "six", 3, "d3");
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_int_equal(nsync_buildid, 1);
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_int_equal(nsync_buildid, 1);
	/* An entry made by cache_put (a JIT's perf map), then a failing disk. */
	assert_int_equal(cache_put("d4", "perf-map", "x", 1, err, sizeof(err)), 0);
	assert_int_equal(nsync_buildid, 1);
	fsync_fail = 1;
	assert_int_equal(cache_flush(err, sizeof(err)), -1);
	assert_non_null(strstr(err, "buildid: cannot fsync the names"));
	assert_int_equal(nsync_buildid, 2);
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_int_equal(nsync_buildid, 3);
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_int_equal(nsync_buildid, 3);
}

/* A function of this program, for the reduced image's symbols. */
__attribute__((noinline)) int cache_test_marker(int x);
__attribute__((noinline)) int
cache_test_marker(int x)
{
	volatile int y = x;

	return y * 7;
}

/* The bytes PT_GNU_EH_FRAME of the ELF file on fd names (malloc'd): 0,
 * or -1. */
static int
eh_hdr_bytes(int fd, unsigned char **buf, size_t *len)
{
	GElf_Phdr ph;
	size_t n, i;
	Elf *elf;
	int r = -1;

	elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return -1;
	if (elf_getphdrnum(elf, &n) == 0)
		for (i = 0; i < n && r == -1; i++)
			if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_GNU_EH_FRAME &&
			    ph.p_filesz > 0 && (*buf = malloc(ph.p_filesz)) != NULL) {
				*len = ph.p_filesz;
				r = pread(fd, *buf, *len, (off_t)ph.p_offset) == (ssize_t)*len ? 0 : -1;
			}
	elf_end(elf);
	return r;
}

static void
test_large_reduced(void **state)
{
	struct dcpi_symtab_opts o = { .no_debuginfod = 1, .debugdir = "/nonexistent" };
	const struct dcpi_symbol *sym, *other;
	struct dcpi_elf_image self;
	uint64_t bias;
	struct dcpi_symtab *t;
	struct dcpi_error de;
	struct stat st;
	char err[512], *path;
	int fd;

	(void)state;
	assert_true((fd = open("/proc/self/exe", O_RDONLY)) >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(dcpi_elf_image_fd(fd, "self", 0, &self, &de), 0);
	/* The program is over an eighth of the limit: symbols only. */
	cache_set_limit((uint64_t)st.st_size * 4);
	cache_add_fd(self.id, fd, "/bin/self");
	close(fd);
	assert_int_equal(cache_flush(err, sizeof(err)), 0);
	assert_non_null(path = dcpi_db_buildid_path(db, self.id, "executable"));
	assert_int_equal(stat(path, &st), 0);
	assert_true(cache_bytes() == (uint64_t)st.st_size);
	/* Its symbols, at their offsets from the text start, and the same
	 * build-id; no code to read. */
	assert_non_null(t = dcpi_symtab_open(path, self.id, self.tstart, &o, &de));
	assert_non_null(sym = dcpi_symtab_find(t, "cache_test_marker"));
	assert_non_null(other = dcpi_symtab_find(t, "test_memory"));
	/* Both functions are where this process has them, less one bias. */
	bias = (uintptr_t)cache_test_marker - (sym->start + self.tstart);
	assert_int_equal((uintptr_t)test_memory - (other->start + self.tstart), bias);
	assert_int_equal(bias % 4096, 0);
	{
		void *buf;
		size_t got;

		assert_int_equal(dcpi_symtab_read(t, sym->start, 16, &buf, &got), -1);
	}
	dcpi_symtab_close(t);
	/* Its call-frame information kept: the program's own unwind table. */
	{
		struct unwind_table *a, *b;
		unsigned char *x, *y;
		size_t xl, yl;
		int rfd;

		assert_true((fd = open("/proc/self/exe", O_RDONLY)) >= 0);
		assert_true((rfd = open(path, O_RDONLY)) >= 0);
		assert_non_null(a = unwind_table_build_fd(fd, -1));
		assert_non_null(b = unwind_table_build_fd(rfd, -1));
		assert_int_equal(unwind_table_rows(b), unwind_table_rows(a));
		assert_int_equal(unwind_table_fdes(b), unwind_table_fdes(a));
		unwind_table_free(a);
		unwind_table_free(b);
		/* PT_GNU_EH_FRAME names the same table's bytes. */
		assert_true(eh_hdr_bytes(rfd, &x, &xl) == 0);
		assert_true(eh_hdr_bytes(fd, &y, &yl) == 0);
		assert_int_equal(xl, yl);
		assert_memory_equal(x, y, xl);
		free(x);
		free(y);
		close(fd);
		close(rfd);
	}
	dcpi_elf_image_clear(&self);
	free(path);
	cache_set_limit(0);
}

static void
test_bad_id(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(cache_put("../etc", "executable", "x", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad image id"));
	assert_int_equal(cache_put("abcd", "a/b", "x", 1, err, sizeof(err)), -1);
	assert_int_equal(cache_put("abcd", "perf-map", "0 10 f\n", 7, err, sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_reduced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_synced_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
