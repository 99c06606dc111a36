/*
 * The build-id cache (daemon/cache.c): queued files and memory images are
 * written at the flush as DB/buildid/ID/executable with their exact bytes,
 * also when the file was deleted after it was queued; the size limit; a
 * failed write keeps the entry for the next flush; an id is kept once.
 */
#include "config.h"

#include <fcntl.h>
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
#include <dcpi/profile.h>

#include "cache.h"

static char db[256];

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
		cmocka_unit_test_setup_teardown(test_bad_id, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
