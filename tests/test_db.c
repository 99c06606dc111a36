/*
 * The profile database layout (lib/db.c, DESIGN.md "The profile database").
 * libdcpi's fsync is interposed (this program's definition comes first in
 * the dynamic lookup) to count the directories made durable and to fail as
 * a failing disk would.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dcpi/db.h>
#include <dcpi/file.h>

#include "fsync_log.h"

static char tmpdir[64];

/* The directories fsynced, by path, ';' after each; one to fail with EIO. */
static char fsynced[4 * PATH_MAX];
static int fsync_fail;

int
fsync(int fd)
{
	if (fsync_log(fd, fsynced, sizeof(fsynced), &fsync_fail) == -1)
		return -1;
	return (int)syscall(SYS_fsync, fd);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_db.XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_default(void **state)
{
	(void)state;
	setenv("DCPIDB", "/srv/dcpi", 1);
	assert_string_equal(dcpi_db_default(), "/srv/dcpi");
	setenv("DCPIDB", "", 1);
	assert_string_equal(dcpi_db_default(), DCPI_DB_DEFAULT);
	unsetenv("DCPIDB");
	assert_string_equal(dcpi_db_default(), DCPI_DB_DEFAULT);
}

static void
test_epoch_names(void **state)
{
	char name[DCPI_EPOCH_LEN + 1];
	time_t t;

	(void)state;
	dcpi_epoch_name(1795300200, name);
	assert_string_equal(name, "20261121223000");
	dcpi_epoch_name(0, name);
	assert_string_equal(name, "19700101000000");

	assert_int_equal(dcpi_epoch_parse("20261121223000", &t), 0);
	assert_int_equal(t, 1795300200);
	assert_int_equal(dcpi_epoch_parse("2611212230", &t), 0);
	assert_int_equal(t, 1795300200);
	assert_int_equal(dcpi_epoch_parse("9912312359", &t), 0);
	assert_int_equal(t, 946684740);
	assert_int_equal(dcpi_epoch_parse("6812310000", &t), 0);
	assert_int_equal(t, 3124137600);

	static const char *const bad[] = {
		"", "202611212230", "2026112122300", "202611212230000", "2026112122300x",
		"20261321223000", "20260230000000", "20261121243000", "20261121226000",
		"20261121223060", "20261100223000", "2613212230",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (dcpi_epoch_parse(bad[i], &t) != -1 || errno != EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	}
}

static void
test_event_dirname(void **state)
{
	static const char *const events[] = {
		"perf::cpu-clock", "cpu/event=0x3c,umask=0/u", "100%", "%2F", ".", "..",
		"a.b", "INST_RETIRED:ANY_P:period=100000",
	};
	static const char *const dirs[] = {
		"perf::cpu-clock", "cpu%2Fevent=0x3c,umask=0%2Fu", "100%25", "%252F",
		"%2E", "%2E%2E", "a.b", "INST_RETIRED:ANY_P:period=100000",
	};
	char dir[NAME_MAX + 1], back[1024], longev[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		assert_int_equal(dcpi_db_event_dirname(events[i], dir, sizeof(dir)), 0);
		assert_string_equal(dir, dirs[i]);
		assert_int_equal(dcpi_db_event_from_dirname(dir, back, sizeof(back)), 0);
		assert_string_equal(back, events[i]);
	}
	errno = 0;
	assert_int_equal(dcpi_db_event_dirname("cpu/x/", dir, 8), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	memset(longev, 'e', sizeof(longev) - 1);
	longev[sizeof(longev) - 1] = '\0';
	assert_int_equal(dcpi_db_event_dirname(longev, back, sizeof(back)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(dcpi_db_event_dirname("", dir, sizeof(dir)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_db_event_from_dirname("a%2", back, sizeof(back)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_db_event_from_dirname("a%41", back, sizeof(back)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_db_event_from_dirname("a%", back, sizeof(back)), -1);
	assert_int_equal(errno, EINVAL);
}

static void
test_profile_name(void **state)
{
	char out[NAME_MAX + 1];

	(void)state;
	assert_int_equal(dcpi_db_profile_name("/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "a1b2", out, sizeof(out)), 0);
	assert_string_equal(out, "libc.so.6.a1b2");
	assert_int_equal(dcpi_db_profile_name("[kernel.kallsyms]", "ff", out, sizeof(out)), 0);
	assert_string_equal(out, "kernel.kallsyms.ff");
	assert_int_equal(dcpi_db_profile_name("[anon:a/b]", "ff", out, sizeof(out)), 0);
	assert_string_equal(out, "anon:ab.ff");
	assert_int_equal(dcpi_db_profile_name("[vdso]", "0", out, sizeof(out)), 0);
	assert_string_equal(out, "vdso.0");
	assert_int_equal(dcpi_db_profile_name("", "0", out, sizeof(out)), 0);
	assert_string_equal(out, "unknown.0");
	assert_int_equal(dcpi_db_profile_name(NULL, "0", out, sizeof(out)), 0);
	assert_string_equal(out, "unknown.0");
	assert_int_equal(dcpi_db_profile_name("/", "0", out, sizeof(out)), 0);
	assert_string_equal(out, "unknown.0");
	assert_int_equal(dcpi_db_profile_name("/bin/true", "0123456789", out, 10), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(dcpi_db_profile_name("/bin/true", "", out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	/* A name of NAME_MAX bytes, and one cut inside a character. */
	{
		char path[NAME_MAX + 8], id[41];
		size_t i;

		path[0] = '/';
		memset(path + 1, 'L', NAME_MAX);
		path[NAME_MAX + 1] = '\0';
		memset(id, 'b', 40);
		id[40] = '\0';
		assert_int_equal(dcpi_db_profile_name(path, id, out, sizeof(out)), 0);
		assert_int_equal(strlen(out), NAME_MAX);
		assert_int_equal(strspn(out, "L"), NAME_MAX - 41);
		assert_string_equal(out + NAME_MAX - 41, ".bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
		/* "\xc3\xa9" (U+00E9) across the cut (215 bytes of name
		 * would fit beside 39 of id): left out whole, 214 kept. */
		for (i = 1; i + 1 < NAME_MAX; i += 2)
			memcpy(path + i, "\xc3\xa9", 2);
		path[i] = '\0';
		id[39] = '\0';
		assert_int_equal(dcpi_db_profile_name(path, id, out, sizeof(out)), 0);
		assert_int_equal(strlen(out), 214 + 1 + 39);
		assert_int_equal((unsigned char)out[213], 0xa9);
		assert_int_equal(out[214], '.');
	}
}

static void
test_paths_and_mkdirs(void **state)
{
	struct dcpi_error err;
	char db[128], file[192];
	struct stat st;
	char *p;

	(void)state;
	p = dcpi_db_event_path("/var/lib/dcpi", "20261121223000", "host1", "cpu/cycles/");
	assert_non_null(p);
	assert_string_equal(p, "/var/lib/dcpi/20261121223000/host1/cpu%2Fcycles%2F");
	free(p);

	snprintf(db, sizeof(db), "%s/a/db", tmpdir);
	assert_int_equal(dcpi_db_mkdirs(db, "20261121223000", "host1", "cpu/cycles/", &err), 0);
	p = dcpi_db_event_path(db, "20261121223000", "host1", "cpu/cycles/");
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(p);
	/* Again: existing directories are fine. */
	assert_int_equal(dcpi_db_mkdirs(db, "20261121223000", "host1", "cpu/cycles/", &err), 0);

	/* A file in the way. */
	snprintf(file, sizeof(file), "%s/20261121223000/host2", db);
	fclose(fopen(file, "w"));
	errno = 0;
	assert_int_equal(dcpi_db_mkdirs(db, "20261121223000", "host2", "e", &err), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_non_null(strstr(err.msg, file));
}

static void
test_current(void **state)
{
	char db[128], cur[DCPI_EPOCH_LEN + 1], link[192];
	struct dcpi_error err;
	struct dirent *de;
	DIR *d;

	(void)state;
	snprintf(db, sizeof(db), "%s/cur", tmpdir);
	assert_int_equal(mkdir(db, 0755), 0);
	errno = 0;
	assert_int_equal(dcpi_db_current(db, cur, &err), -1);
	assert_int_equal(errno, ENOENT);

	assert_int_equal(dcpi_db_set_current(db, "20261121223000", &err), 0);
	assert_int_equal(dcpi_db_current(db, cur, &err), 0);
	assert_string_equal(cur, "20261121223000");
	assert_int_equal(dcpi_db_set_current(db, "20261121233000", &err), 0);
	assert_int_equal(dcpi_db_current(db, cur, &err), 0);
	assert_string_equal(cur, "20261121233000");
	assert_int_equal(dcpi_db_set_current(db, "../etc", &err), -1);
	assert_int_equal(errno, EINVAL);

	/* Only the link itself is left behind. */
	d = opendir(db);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			assert_string_equal(de->d_name, "current");
	closedir(d);

	snprintf(link, sizeof(link), "%s/current", db);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("junk", link), 0);
	assert_int_equal(dcpi_db_current(db, cur, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "junk"));
}

static void
test_listing(void **state)
{
	static const char *const mk[] = {
		"20261121223000", "2611212200", "19991231235959", "junk", ".hidden",
		"20261321223000",
	};
	char db[128], path[256], **v;
	struct dcpi_error err;
	size_t n, i;

	(void)state;
	snprintf(db, sizeof(db), "%s/list", tmpdir);
	assert_int_equal(mkdir(db, 0755), 0);
	for (i = 0; i < sizeof(mk) / sizeof(mk[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", db, mk[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/20250101000000", db);	/* a file, not an epoch */
	fclose(fopen(path, "w"));
	assert_int_equal(dcpi_db_set_current(db, "20261121223000", &err), 0);

	assert_int_equal(dcpi_db_epochs(db, &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "19991231235959");
	assert_string_equal(v[1], "2611212200");
	assert_string_equal(v[2], "20261121223000");
	dcpi_strv_free(v, n);

	assert_int_equal(dcpi_db_list(db, &v, &n, &err), 0);
	assert_int_equal(n, 7);
	assert_string_equal(v[0], "19991231235959");
	assert_string_equal(v[1], "20250101000000");
	assert_string_equal(v[2], "20261121223000");
	assert_string_equal(v[3], "20261321223000");
	assert_string_equal(v[4], "2611212200");
	assert_string_equal(v[5], "current");
	assert_string_equal(v[6], "junk");
	dcpi_strv_free(v, n);

	snprintf(path, sizeof(path), "%s/none", db);
	errno = 0;
	assert_int_equal(dcpi_db_epochs(path, &v, &n, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, path));
	assert_null(v);
	assert_int_equal(n, 0);
}

/* Hostile neighbours: nothing below the database is followed, special
 * files are refused at once, and a database others may write is refused. */
static void
test_links_and_special_files(void **state)
{
	char db[128], out[160], path[256], link[256], want[512];
	struct dcpi_error err;
	struct stat st;
	size_t len;
	void *buf;
	int dfd, fd;

	(void)state;
	snprintf(db, sizeof(db), "%s/hostile", tmpdir);
	snprintf(out, sizeof(out), "%s/outside", tmpdir);
	assert_int_equal(mkdir(db, 0700), 0);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_true((dfd = open(db, O_RDONLY | O_DIRECTORY)) >= 0);

	/* An epoch linked elsewhere: not followed, not created through. */
	snprintf(link, sizeof(link), "%s/20261121223000", db);
	assert_int_equal(symlink(out, link), 0);
	errno = 0;
	assert_int_equal(dcpi_db_openat(dfd, "20261121223000/h1/ev", db,
	    DCPI_DB_CREATE, 0750, (gid_t)-1, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.msg, "20261121223000: is a symbolic link"));
	snprintf(path, sizeof(path), "%s/h1", out);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(dcpi_db_mkdirs(db, "20261121223000", "h1", "ev", &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(lstat(path, &st), -1);

	/* A real one is created, with its parents, each made durable by its
	 * parent's fsync; opened again, nothing more is fsynced. */
	fsynced[0] = '\0';
	fd = dcpi_db_openat(dfd, "20261121223001/h1/ev", db, DCPI_DB_CREATE |
	    DCPI_DB_CHECK, 0750, getegid(), &err);
	assert_true(fd >= 0);
	close(fd);
	snprintf(want, sizeof(want), "%s;%s/20261121223001;%s/20261121223001/h1;",
	    db, db, db);
	assert_string_equal(fsynced, want);
	fsynced[0] = '\0';
	fd = dcpi_db_openat(dfd, "20261121223001/h1/ev", db, DCPI_DB_CREATE |
	    DCPI_DB_CHECK, 0750, getegid(), &err);
	assert_true(fd >= 0);
	close(fd);
	assert_string_equal(fsynced, "");
	/* A parent that cannot be fsynced: an error naming the new directory,
	 * no descriptor left open. */
	fsync_fail = 1;
	errno = 0;
	assert_int_equal(dcpi_db_openat(dfd, "20261121223001/h1/ev2", db,
	    DCPI_DB_CREATE, 0750, (gid_t)-1, &err), -1);
	assert_int_equal(errno, EIO);
	assert_non_null(strstr(err.msg, "20261121223001/h1/ev2: created, but its "
	    "parent directory cannot be fsynced"));

	/* A link at a file's name: the reader refuses it, the writer
	 * replaces the link and leaves its target alone. */
	snprintf(path, sizeof(path), "%s/victim", out);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep", 4), 4);
	close(fd);
	assert_int_equal(symlinkat(path, dfd, "f"), 0);
	assert_int_equal(dcpi_read_fileat(dfd, "f", "DB/f", SIZE_MAX, &buf, &len, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.msg, "DB/f: is a symbolic link"));
	assert_int_equal(dcpi_atomic_writeat(dfd, "f", NULL, "new", 3, 0640, &err), 0);
	assert_int_equal(fstatat(dfd, "f", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(dcpi_read_fileat(dfd, "f", NULL, 2, &buf, &len, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(dcpi_read_fileat(dfd, "f", NULL, 3, &buf, &len, &err), 0);
	assert_int_equal(len, 3);
	free(buf);
	/* Without the directory's fsync, the same replacement; a flag not
	 * known: refused, the file as it was. */
	assert_int_equal(dcpi_atomic_writeat_flags(dfd, "f", NULL, "newer", 5, 0640,
	    DCPI_ATOMIC_NO_DIRSYNC, &err), 0);
	assert_int_equal(dcpi_read_fileat(dfd, "f", NULL, SIZE_MAX, &buf, &len, &err), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(buf, "newer", 5);
	free(buf);
	assert_int_equal(dcpi_atomic_writeat_flags(dfd, "f", NULL, "x", 1, 0640,
	    0x100, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "f: unknown flags"));
	assert_int_equal(dcpi_read_fileat(dfd, "f", NULL, SIZE_MAX, &buf, &len, &err), 0);
	assert_int_equal(len, 5);
	free(buf);

	/* A FIFO and a device: refused at once, not waited on or read. */
	assert_int_equal(mkfifoat(dfd, "fifo", 0600), 0);
	snprintf(path, sizeof(path), "%s/fifo", db);
	assert_int_equal(dcpi_read_file(path, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "not a regular file (a FIFO)"));
	assert_int_equal(dcpi_read_file("/dev/zero", &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);

	/* Writable by others: refused. */
	assert_int_equal(chmod(db, 0777), 0);
	assert_int_equal(dcpi_db_check_dir(dfd, db, getegid(), &err), -1);
	assert_int_equal(errno, EPERM);
	assert_non_null(strstr(err.msg, "mode 0777"));
	assert_int_equal(chmod(db, 0750), 0);
	assert_int_equal(dcpi_db_check_dir(dfd, db, getegid(), &err), 0);
	close(dfd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_epoch_names),
		cmocka_unit_test(test_event_dirname),
		cmocka_unit_test(test_profile_name),
		cmocka_unit_test(test_paths_and_mkdirs),
		cmocka_unit_test(test_current),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_links_and_special_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
