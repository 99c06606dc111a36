/*
 * lib/htab.c: lookups under colliding hashes, deletion inside runs that
 * wrap around the array's end (the backward shift), every value once from
 * htab_each while deleting, growth; and lib/util.c's helpers against known
 * values; mkdir_parents fsyncs the parent of each directory it makes (fsync
 * wrapped with -Wl,--wrap, tests/local.mk, to be counted and to fail).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "htab.h"
#include "util.h"
#include "fsync_log.h"

#define N	5000

int __wrap_fsync(int fd);
int __real_fsync(int fd);

/* The directories fsynced, by path, ';' after each; one to fail with EIO. */
static char fsynced[4 * PATH_MAX];
static int fsync_fail;

int
__wrap_fsync(int fd)
{
	if (fsync_log(fd, fsynced, sizeof(fsynced), &fsync_fail) == -1)
		return -1;
	return __real_fsync(fd);
}

/* Keys 1..N; a few hashes shared by many keys, so that runs are long. */
static uint64_t
key_hash(uintptr_t k, int collide)
{
	return collide ? k % 7 : k * 2654435761u;
}

static int
present(const struct htab *t, uintptr_t k, int collide)
{
	struct htab_iter it;
	uintptr_t v;
	int n = 0;

	for (v = htab_first(t, key_hash(k, collide), &it); v != 0;
	    v = htab_next(t, &it))
		if (v == k)
			n++;
	return n;
}

static void
add_del(int collide)
{
	struct htab t;
	struct htab_iter it;
	uintptr_t k, v;

	htab_init(&t);
	assert_int_equal(htab_first(&t, 1, &it), 0);
	for (k = 1; k <= N; k++)
		assert_int_equal(htab_add(&t, key_hash(k, collide), k), 0);
	assert_int_equal(t.n, N);
	assert_true(t.n * 4 <= t.cap * 3);
	for (k = 1; k <= N; k++)
		assert_int_equal(present(&t, k, collide), 1);
	/* Delete the odd keys through lookups. */
	for (k = 1; k <= N; k += 2) {
		for (v = htab_first(&t, key_hash(k, collide), &it); v != k;
		    v = htab_next(&t, &it))
			assert_int_not_equal(v, 0);
		htab_del(&t, &it);
	}
	assert_int_equal(t.n, N / 2);
	for (k = 1; k <= N; k++)
		assert_int_equal(present(&t, k, collide), k % 2 == 0);
	htab_fini(&t);
	assert_int_equal(t.cap, 0);
}

static void
test_add_find_del(void **state)
{
	(void)state;
	add_del(0);
}

static void
test_collisions(void **state)
{
	(void)state;
	add_del(1);
}

/* Deleting every value under one hash in a single walk. */
static void
test_del_in_walk(void **state)
{
	struct htab t;
	struct htab_iter it;
	uintptr_t k, v;
	int n = 0;

	(void)state;
	htab_init(&t);
	for (k = 1; k <= 200; k++)
		assert_int_equal(htab_add(&t, key_hash(k, 1), k), 0);
	for (v = htab_first(&t, 1, &it); v != 0; v = htab_next(&t, &it)) {
		assert_int_equal(v % 7, 1);
		htab_del(&t, &it);
		n++;
	}
	assert_int_equal(n, 29);
	assert_int_equal(htab_first(&t, 1, &it), 0);
	for (k = 1; k <= 200; k++)
		assert_int_equal(present(&t, k, 1), k % 7 != 1);
	htab_fini(&t);
}

/* htab_each gives every value exactly once, also when the caller deletes
 * as it goes, whatever the slot layout: many table sizes and hashes whose
 * runs wrap around the end. */
static void
test_each(void **state)
{
	struct htab t;
	struct htab_iter it;
	unsigned char seen[N + 1];
	uintptr_t k, v;
	size_t n, round;

	(void)state;
	for (round = 1; round < 200; round += 7) {
		htab_init(&t);
		for (k = 1; k <= round; k++)
			assert_int_equal(htab_add(&t, UINT64_MAX - k % 5, k), 0);
		memset(seen, 0, sizeof(seen));
		memset(&it, 0, sizeof(it));
		n = 0;
		while ((v = htab_each(&t, &it)) != 0) {
			assert_true(v >= 1 && v <= round);
			assert_int_equal(seen[v], 0);
			seen[v] = 1;
			n++;
			if (v % 2)
				htab_del(&t, &it);
		}
		assert_int_equal(n, round);
		assert_int_equal(t.n, round / 2);
		memset(&it, 0, sizeof(it));
		for (n = 0; (v = htab_each(&t, &it)) != 0; n++)
			assert_int_equal(v % 2, 0);
		assert_int_equal(n, round / 2);
		htab_fini(&t);
	}
	memset(&it, 0, sizeof(it));
	assert_int_equal(htab_each(&t, &it), 0);
}

static void
test_memory(void **state)
{
	struct htab t;

	(void)state;
	htab_init(&t);
	assert_int_equal(htab_memory(&t), 0);
	assert_int_equal(htab_add(&t, 42, 1), 0);
	assert_int_equal(htab_memory(&t), t.cap * sizeof(struct htab_slot));
	htab_fini(&t);
}

/* htab_reserve grows once: n values then go in without another growth,
 * the values kept across it, and a smaller reserve changes nothing. */
static void
test_reserve(void **state)
{
	struct htab_iter it;
	struct htab t;
	size_t cap, i;

	(void)state;
	htab_init(&t);
	for (i = 1; i <= 10; i++)
		assert_int_equal(htab_add(&t, i * 7, i), 0);
	assert_int_equal(htab_reserve(&t, 1000), 0);
	cap = t.cap;
	assert_true(cap * 3 >= 1000 * 4);
	assert_int_equal(htab_first(&t, 5 * 7, &it), 5);
	for (i = 11; i <= 1000; i++)
		assert_int_equal(htab_add(&t, i * 7, i), 0);
	assert_int_equal(t.cap, cap);
	assert_int_equal(htab_reserve(&t, 10), 0);
	assert_int_equal(t.cap, cap);
	for (i = 1; i <= 1000; i++)
		assert_int_equal(htab_first(&t, i * 7, &it), i);
	htab_fini(&t);
}

/* The content ids of profiles are FNV-1a 64: the published test vectors. */
static void
test_fnv1a64(void **state)
{
	(void)state;
	assert_true(fnv1a64(FNV1A64_INIT, "", 0) == 0xcbf29ce484222325ULL);
	assert_true(fnv1a64_str(FNV1A64_INIT, "a") == 0xaf63dc4c8601ec8cULL);
	assert_true(fnv1a64_str(FNV1A64_INIT, "foobar") == 0x85944171f73967e8ULL);
	assert_true(fnv1a64_str(fnv1a64_str(FNV1A64_INIT, "foo"), "bar") ==
	    0x85944171f73967e8ULL);
}

static void
test_hex(void **state)
{
	static const uint8_t b[] = { 0x00, 0x7f, 0xa5, 0xff };
	char out[2 * sizeof(b) + 1];

	(void)state;
	memset(out, 'x', sizeof(out));
	hex_encode(b, sizeof(b), out);
	assert_string_equal(out, "007fa5ff");
	hex_encode(b, 0, out);
	assert_string_equal(out, "");
}

static void
test_now_ms(void **state)
{
	long long a, b;

	(void)state;
	a = now_ms();
	usleep(20000);
	b = now_ms();
	assert_true(b >= a + 20);
}

static void
test_mkdir_parents(void **state)
{
	char tmpl[] = "/tmp/test_htab.XXXXXX", path[PATH_MAX], failed[PATH_MAX];
	char want[4 * PATH_MAX], *dir, *big;
	struct stat st;
	mode_t um;

	(void)state;
	assert_non_null(dir = mkdtemp(tmpl));
	um = umask(0);
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	fsynced[0] = '\0';
	assert_int_equal(mkdir_parents(path, 0755, 0700, failed, sizeof(failed)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* Each new directory's parent fsynced, once, in order. */
	snprintf(want, sizeof(want), "%s;%s/a;%s/a/b;", dir, dir, dir);
	assert_string_equal(fsynced, want);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	/* Existing components are fine, and not fsynced again; a file in the
	 * way is not. */
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	fsynced[0] = '\0';
	assert_int_equal(mkdir_parents(path, 0755, 0700, failed, sizeof(failed)), 0);
	assert_string_equal(fsynced, "");
	/* A parent that cannot be fsynced: the new directory named. */
	snprintf(path, sizeof(path), "%s/a/d/e", dir);
	fsync_fail = 1;
	errno = 0;
	assert_int_equal(mkdir_parents(path, 0755, 0700, failed, sizeof(failed)), -1);
	assert_int_equal(errno, EIO);
	snprintf(path, sizeof(path), "%s/a/d", dir);
	assert_string_equal(failed, path);
	snprintf(path, sizeof(path), "%s/f", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/f/g/h", dir);
	errno = 0;
	assert_int_equal(mkdir_parents(path, 0755, 0755, failed, sizeof(failed)), -1);
	assert_int_equal(errno, ENOTDIR);
	snprintf(path, sizeof(path), "%s/f/g", dir);
	assert_string_equal(failed, path);
	umask(um);
	/* Past PATH_MAX: ENAMETOOLONG, the whole path named. */
	assert_non_null(big = malloc(PATH_MAX + 2));
	memset(big, 'a', PATH_MAX + 1);
	big[0] = '/';
	big[PATH_MAX + 1] = '\0';
	assert_int_equal(mkdir_parents(big, 0755, 0755, failed, sizeof(failed)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(big);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_del),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_del_in_walk),
		cmocka_unit_test(test_each),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_fnv1a64),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_now_ms),
		cmocka_unit_test(test_mkdir_parents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
