/*
 * Packed epochs (lib/pack.c, lib/dcpi/pack.h): the stream's writer and
 * strict reader, dcpi_db_compress on a database, the readers that read
 * a pack's members as files, a crash between the pack and the removal of
 * the loose files, and what a broken pack gets told.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/kallsyms.h>
#include <dcpi/pack.h>
#include <dcpi/profile.h>
#include <dcpi/stackfile.h>

#define OLD	"20261123150107"
#define CUR	"20261123160107"

static char	db[64], host[128];

static void
mkdir_or_fail(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	assert_int_equal(mkdir(path, 0750), 0);
}

/* A profile of image id with samples at offsets 0x10 and 0x20. */
static void
put_profile(const char *path, const char *id, const char *label, uint32_t n)
{
	struct dcpi_profile *p = dcpi_profile_new();
	struct dcpi_error err;

	assert_non_null(p);
	assert_int_equal(dcpi_profile_set(p, "image", id, &err), 0);
	assert_int_equal(dcpi_profile_set(p, "epoch", OLD, &err), 0);
	assert_int_equal(dcpi_profile_set(p, "platform", "Linux 6.1 x86_64", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "event", "perf::cpu-clock", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "period", "1000000", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "tstart", "1000", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "tsize", "4096", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "cpuspeed", "2400", &err), 0);
	if (label != NULL)
		assert_int_equal(dcpi_profile_set(p, "label", label, &err), 0);
	assert_int_equal(dcpi_profile_add(p, 0x10, n), 0);
	assert_int_equal(dcpi_profile_add(p, 0x20, 2 * n), 0);
	assert_int_equal(dcpi_profile_write(path, p, &err), 0);
	dcpi_profile_free(p);
}

static int
setup(void **state)
{
	char path[512];

	(void)state;
	snprintf(db, sizeof(db), "/tmp/test_pack.XXXXXX");
	if (mkdtemp(db) == NULL)
		return -1;
	mkdir_or_fail("%s/" OLD, db);
	mkdir_or_fail("%s/" OLD "/h1", db);
	mkdir_or_fail("%s/" OLD "/h1/perf::cpu-clock", db);
	mkdir_or_fail("%s/" OLD "/h1/perf::cpu-clock/nginx.service", db);
	mkdir_or_fail("%s/" CUR, db);
	mkdir_or_fail("%s/" CUR "/h1", db);
	snprintf(host, sizeof(host), "%s/" OLD "/h1", db);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/libc.so.6.aa", host);
	put_profile(path, "aa", NULL, 5);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/nginx.service/libc.so.6.aa", host);
	put_profile(path, "aa", "nginx.service", 7);
	snprintf(path, sizeof(path), "%s/unattributed", host);
	assert_int_equal(dcpi_atomic_write(path, "dcpi-unattributed 1\nanon 3 perf::cpu-clock\n",
	    43, 0640, NULL), 0);
	snprintf(path, sizeof(path), "%s/" DCPI_KALLSYMS_REF, host);
	assert_int_equal(dcpi_atomic_write(path, "kernels/0-0000000000000000.gz\n",
	    30, 0640, NULL), 0);
	return dcpi_db_set_current(db, CUR, NULL);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", db);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_encode_parse(void **state)
{
	struct dcpi_pack_file f[] = {
		{ "stacks", "ST", 2 },
		{ "ev/b.1", "", 0 },
		{ "ev/a.1", "abc", 3 },
	};
	const char *want = "dcpi-pack 1\nfile 3 ev/a.1\nfile 0 ev/b.1\nfile 2 stacks\n"
	    "files 3\ndata\nabcST";
	const struct dcpi_pack_entry *e;
	struct dcpi_error err;
	struct dcpi_pack *p;
	void *buf;
	size_t len;

	(void)state;
	assert_int_equal(dcpi_pack_encode(f, 3, &buf, &len, &err), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(buf, want, len);
	assert_int_equal(dcpi_pack_parse(buf, len, "x", &p, &err), 0);
	assert_int_equal(p->n, 3);
	assert_non_null(e = dcpi_pack_find(p, "stacks"));
	assert_int_equal(e->size, 2);
	assert_memory_equal(p->data + e->off, "ST", 2);
	assert_non_null(e = dcpi_pack_find(p, "ev/a.1"));
	assert_memory_equal(p->data + e->off, "abc", 3);
	assert_null(dcpi_pack_find(p, "ev"));
	dcpi_pack_free(p);
	free(buf);
	/* A path twice, or hidden: refused by the writer too. */
	f[1].path = "ev/a.1";
	assert_int_equal(dcpi_pack_encode(f, 3, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	f[1].path = "ev/.a.1.XXXXXX";
	assert_int_equal(dcpi_pack_encode(f, 3, &buf, &len, &err), -1);
	/* None at all is a pack too. */
	assert_int_equal(dcpi_pack_encode(f, 0, &buf, &len, &err), 0);
	assert_int_equal(dcpi_pack_parse(buf, len, "x", &p, &err), 0);
	assert_int_equal(p->n, 0);
	dcpi_pack_free(p);
	free(buf);
}

/* Each bad stream is refused with a message naming the file and byte. */
static void
test_parse_errors(void **state)
{
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "dcpi-pack 2\nfiles 0\ndata\n", "x.pack: byte 0: expected \"dcpi-pack 1\"" },
		{ "dcpi-pack 1\nfile 1 b\nfile 1 a\nfiles 2\ndata\nxy", "x.pack: byte 28: path \"a\" not after \"b\"" },
		{ "dcpi-pack 1\nfile 1 a\nfile 1 a\nfiles 2\ndata\nxy", "not after" },
		{ "dcpi-pack 1\nfile 1 a\nfile 1 a/b\nfiles 2\ndata\nxy", "x.pack: a: both a file and the directory of a/b" },
		{ "dcpi-pack 1\nfile 1 ../a\nfiles 1\ndata\nx", "x.pack: byte 19: bad path" },
		{ "dcpi-pack 1\nfile 1 /a\nfiles 1\ndata\nx", "bad path" },
		{ "dcpi-pack 1\nfile 1 a//b\nfiles 1\ndata\nx", "bad path" },
		{ "dcpi-pack 1\nfile 01 a\nfiles 1\ndata\nx", "x.pack: byte 12: expected \"file SIZE PATH\"" },
		{ "dcpi-pack 1\nfile 5 a\nfiles 1\ndata\nxy", "x.pack: byte 34: a needs 5 bytes, 2 are left" },
		{ "dcpi-pack 1\nfile 1 a\nfiles 1\ndata\nxy", "x.pack: byte 35: 1 bytes after the last file" },
		{ "dcpi-pack 1\nfile 1 a\nfiles 2\ndata\nx", "x.pack: byte 21: \"files 2\" but 1 file lines" },
		{ "dcpi-pack 1\nfile 1 a\nfiles 1\nx", "x.pack: byte 29: expected \"data\"" },
		{ "dcpi-pack 1\nfile 1 a\n", "the index ends" },
	};
	struct dcpi_error err;
	struct dcpi_pack *p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		assert_int_equal(dcpi_pack_parse(bad[i].in, strlen(bad[i].in), "x.pack",
		    &p, &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_null(p);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("input %zu: \"%s\" lacks \"%s\"", i, err.msg, bad[i].msg);
	}
}

/* Reads path as a profile and returns its total samples (-1: none). */
static long
samples(const char *fmt, ...)
{
	struct dcpi_profile *p;
	struct dcpi_error err;
	char path[512];
	va_list ap;
	long n;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (dcpi_profile_read(path, &p, &err) == -1)
		return -1;
	n = (long)dcpi_profile_total_samples(p);
	dcpi_profile_free(p);
	return n;
}

static void
test_compress(void **state)
{
	struct dcpi_compress_stats st = { 0, 0, 0, 0 };
	char path[512], **v, ref[DCPI_KALLSYMS_NAME_MAX];
	struct dcpi_error err;
	struct stat sb;
	mode_t mode;
	void *buf;
	size_t n, len;

	(void)state;
	assert_int_equal(samples("%s/perf::cpu-clock/libc.so.6.aa", host), 15);
	/* The current epoch is dcpid's. */
	assert_int_equal(dcpi_db_compress(db, CUR, NULL, &err), -1);
	assert_int_equal(errno, EBUSY);
	assert_non_null(strstr(err.msg, "current"));
	assert_int_equal(dcpi_db_compress(db, "20261123170000", NULL, &err), -1);
	assert_int_equal(errno, ENOENT);

	assert_int_equal(dcpi_db_compress(db, OLD, &st, &err), 0);
	assert_int_equal(st.hosts, 1);
	assert_int_equal(st.files, 4);
	assert_true(st.bytes_out > 0 && st.bytes_out < st.bytes_in);
	/* One file left, with the directory's read permissions. */
	assert_int_equal(dcpi_db_list(host, &v, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], DCPI_KALLSYMS_REF);
	assert_string_equal(v[1], DCPI_PACK_FILE);
	assert_string_equal(v[2], "perf::cpu-clock");
	assert_string_equal(v[3], "unattributed");
	dcpi_strv_free(v, n);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock", host);
	assert_int_equal(stat(path, &sb), -1);
	/* The directory's read and write bits, whatever the umask. */
	assert_int_equal(stat(host, &sb), 0);
	mode = sb.st_mode & 0666;
	snprintf(path, sizeof(path), "%s/" DCPI_PACK_FILE, host);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, mode);

	/* Read as before. */
	assert_int_equal(samples("%s/perf::cpu-clock/libc.so.6.aa", host), 15);
	assert_int_equal(samples("%s//perf::cpu-clock/nginx.service/libc.so.6.aa", host), 21);
	assert_int_equal(samples("%s/perf::cpu-clock/libc.so.6.bb", host), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock", host);
	assert_true(dcpi_db_isdir(path));
	assert_int_equal(dcpi_db_list(path, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "libc.so.6.aa");
	assert_string_equal(v[1], "nginx.service");
	dcpi_strv_free(v, n);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/nginx.service", host);
	assert_true(dcpi_db_isdir(path));
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/libc.so.6.aa", host);
	assert_false(dcpi_db_isdir(path));
	assert_int_equal(dcpi_db_list(path, &v, &n, &err), -1);
	snprintf(path, sizeof(path), "%s/unattributed", host);
	assert_int_equal(dcpi_read_file(path, &buf, &len, &err), 0);
	assert_int_equal(len, 43);
	free(buf);
	/* gc's reader of the kernel symbols' reference (by path). */
	snprintf(path, sizeof(path), "%s/" DCPI_KALLSYMS_REF, host);
	assert_int_equal(dcpi_kallsyms_ref_readat(AT_FDCWD, path, NULL, ref, &err), 0);
	assert_string_equal(ref, "0-0000000000000000");

	/* Again: nothing to do. */
	memset(&st, 0, sizeof(st));
	assert_int_equal(dcpi_db_compress(db, OLD, &st, &err), 0);
	assert_int_equal(st.hosts, 0);
}

/* A crash after the pack was written, before the loose files went: both
 * are there, read once; compressing again finishes. */
static void
test_crash_between(void **state)
{
	struct dcpi_compress_stats st = { 0, 0, 0, 0 };
	struct dcpi_error err;
	char path[512], **v;
	size_t n;

	(void)state;
	assert_int_equal(dcpi_db_compress(db, OLD, NULL, &err), 0);
	mkdir_or_fail("%s/perf::cpu-clock", host);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/libc.so.6.aa", host);
	put_profile(path, "aa", NULL, 5);
	/* And one the pack does not hold (an import after the epoch ended). */
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/ld.so.cc", host);
	put_profile(path, "cc", NULL, 1);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock", host);
	assert_int_equal(dcpi_db_list(path, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "ld.so.cc");
	assert_string_equal(v[1], "libc.so.6.aa");
	assert_string_equal(v[2], "nginx.service");
	dcpi_strv_free(v, n);
	assert_int_equal(samples("%s/perf::cpu-clock/libc.so.6.aa", host), 15);

	assert_int_equal(dcpi_db_compress(db, OLD, &st, &err), 0);
	assert_int_equal(st.files, 2);
	assert_int_equal(dcpi_db_list(host, &v, &n, &err), 0);
	assert_int_equal(n, 4);
	dcpi_strv_free(v, n);
	assert_int_equal(samples("%s/perf::cpu-clock/ld.so.cc", host), 3);
	assert_int_equal(samples("%s/perf::cpu-clock/libc.so.6.aa", host), 15);
	assert_int_equal(samples("%s/perf::cpu-clock/nginx.service/libc.so.6.aa", host), 21);
}

/* A broken pack: the reader names it and the byte. */
static void
test_broken(void **state)
{
	struct dcpi_error err;
	struct dcpi_profile *p;
	char path[512], **v;
	size_t n;

	(void)state;
	assert_int_equal(dcpi_db_compress(db, OLD, NULL, &err), 0);
	snprintf(path, sizeof(path), "%s/" DCPI_PACK_FILE, host);
	assert_int_equal(truncate(path, 40), 0);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/libc.so.6.aa", host);
	assert_int_equal(dcpi_profile_read(path, &p, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, DCPI_PACK_FILE ": byte "));
	assert_non_null(strstr(err.msg, "truncated gzip data"));
	assert_int_equal(dcpi_db_list(host, &v, &n, &err), -1);
	assert_non_null(strstr(err.msg, DCPI_PACK_FILE ": byte "));
	/* Not gzip at all. */
	snprintf(path, sizeof(path), "%s/" DCPI_PACK_FILE, host);
	assert_int_equal(dcpi_atomic_write(path, "dcpi-pack 1\n", 12, 0640, NULL), 0);
	snprintf(path, sizeof(path), "%s/perf::cpu-clock/libc.so.6.aa", host);
	assert_int_equal(dcpi_profile_read(path, &p, &err), -1);
	assert_non_null(strstr(err.msg, DCPI_PACK_FILE ": byte "));
	assert_non_null(strstr(err.msg, ": not gzip data"));
}

/* A pack.gz outside an epoch's host directory is not a pack: a missing
 * file beside it is missing, whatever the pack.gz holds. */
static void
test_not_a_host(void **state)
{
	struct dcpi_error err;
	char path[512];
	void *buf;
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/" DCPI_PACK_FILE, db);
	assert_int_equal(dcpi_atomic_write(path, "junk", 4, 0640, NULL), 0);
	snprintf(path, sizeof(path), "%s/missing", db);
	assert_int_equal(dcpi_read_file(path, &buf, &len, &err), -1);
	assert_int_equal(errno, ENOENT);
}

/* An epoch of the older ten-digit name packs and reads the same. */
static void
test_short_epoch_name(void **state)
{
	struct dcpi_error err;
	char path[512];

	(void)state;
	mkdir_or_fail("%s/2611231501", db);
	mkdir_or_fail("%s/2611231501/h2", db);
	mkdir_or_fail("%s/2611231501/h2/ev", db);
	snprintf(path, sizeof(path), "%s/2611231501/h2/ev/libc.so.6.aa", db);
	put_profile(path, "aa", NULL, 4);
	assert_int_equal(dcpi_db_compress(db, "2611231501", NULL, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(samples("%s", path), 12);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test_setup_teardown(test_compress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_between, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_epoch_name, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
