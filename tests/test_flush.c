/*
 * Unit tests of the flush (daemon/flush.c) into a database of its own
 * (daemon/epoch.c), driven as daemon/core.c drives it, with the images
 * and events the test's own: aggregated counts of two images become two
 * profiles that libdcpi reads back, a second flush merges into them, a
 * write that fails keeps the counts in memory for the next flush, the
 * profiles' directory is fsynced once a flush, not once a file, and the
 * unattributed samples add up in their file.  The file writers are
 * wrapped (-Wl,--wrap, tests/local.mk) to fail as a full disk would, and
 * flush.c's fsync to be counted and to fail as a failing disk would.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/label.h>
#include <dcpi/profile.h>
#include <dcpi/stackfile.h>

#include "../daemon/agg.h"
#include "../daemon/flush.h"
#include "../daemon/imagetab.h"

static struct image images[2] = {
	{ .index = 0, .id = "0123456789abcdef0123456789abcdef01234567",
	  .path = "/usr/bin/hot", .tstart = 0x1000, .tsize = 0x4000 },
	{ .index = 1, .id = "89abcdef01234567", .idkind = DCPI_IDKIND_NAME,
	  .path = "[kernel.kallsyms]", .tstart = 0xffffffff81000000ull,
	  .tsize = 0x100000 },
};

int __wrap_dcpi_atomic_writeat(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, struct dcpi_error *err);
int __real_dcpi_atomic_writeat(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, struct dcpi_error *err);
int __wrap_dcpi_atomic_writeat_flags(int dirfd, const char *name,
    const char *show, const void *buf, size_t len, mode_t mode, int flags,
    struct dcpi_error *err);
int __real_dcpi_atomic_writeat_flags(int dirfd, const char *name,
    const char *show, const void *buf, size_t len, mode_t mode, int flags,
    struct dcpi_error *err);
int __wrap_fsync(int fd);
int __real_fsync(int fd);

/* The name of a file whose writing fails, once, as a full disk would. */
static const char *fail_name;
/* The profiles written without their directory's fsync. */
static unsigned nodirsync;
/* flush.c's own fsyncs, each of a directory, and the last one's path; one
 * to fail once with EIO. */
static unsigned nfsync;
static char fsync_path[PATH_MAX];
static int fsync_fail;

static int
fail_write(const char *name, const char *show, struct dcpi_error *err)
{
	if (fail_name != NULL && strcmp(name, fail_name) == 0) {
		fail_name = NULL;
		snprintf(err->msg, sizeof(err->msg), "%s: %s", show, strerror(ENOSPC));
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

int
__wrap_dcpi_atomic_writeat(int dirfd, const char *name, const char *show,
    const void *buf, size_t len, mode_t mode, struct dcpi_error *err)
{
	if (fail_write(name, show, err) == -1)
		return -1;
	return __real_dcpi_atomic_writeat(dirfd, name, show, buf, len, mode, err);
}

int
__wrap_dcpi_atomic_writeat_flags(int dirfd, const char *name,
    const char *show, const void *buf, size_t len, mode_t mode, int flags,
    struct dcpi_error *err)
{
	if (fail_write(name, show, err) == -1)
		return -1;
	if (flags & DCPI_ATOMIC_NO_DIRSYNC)
		nodirsync++;
	return __real_dcpi_atomic_writeat_flags(dirfd, name, show, buf, len, mode,
	    flags, err);
}

int
__wrap_fsync(int fd)
{
	struct stat st;
	char link[64];
	ssize_t n;

	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, fsync_path, sizeof(fsync_path) - 1);
	assert_true(n > 0);
	fsync_path[n] = '\0';
	nfsync++;
	if (fsync_fail) {
		fsync_fail = 0;
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

static char db[64];
static char host[256];
static char names[2][NAME_MAX + 1];

static int
setup(void **state)
{
	char err[512];
	size_t i;

	snprintf(db, sizeof(db), "/tmp/dcpi-flushtest.XXXXXX");
	assert_non_null(mkdtemp(db));
	if (gethostname(host, sizeof(host)) == -1 || host[0] == '\0')
		strcpy(host, "localhost");
	host[strcspn(host, "/")] = '\0';
	for (i = 0; i < 2; i++)
		assert_int_equal(dcpi_db_profile_name(images[i].path, images[i].id,
		    names[i], sizeof(names[i])), 0);
	agg_init();
	assert_int_equal(flush_init(db, (gid_t)-1, err, sizeof(err)), 0);
	assert_int_equal(flush_start(err, sizeof(err)), 0);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	flush_fini();
	agg_fini();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", db);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* The profile of image i as libdcpi reads it; NULL when there is none. */
static struct dcpi_profile *
profile_of(int i)
{
	struct dcpi_profile *p = NULL;
	struct dcpi_error de;
	char *dir, path[PATH_MAX];

	dir = dcpi_db_event_path(db, flush_epoch(), host, "perf::cpu-clock");
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
	free(dir);
	if (dcpi_profile_read(path, &p, &de) == -1) {
		assert_int_equal(errno, ENOENT);
		return NULL;
	}
	return p;
}

/* As daemon/core.c names agg's pairs: here one event, no label. */
static int
write_counts(uint32_t stream, uint32_t image, const struct dcpi_count *c,
    size_t n, void *arg)
{
	struct flush_desc d = { &images[image], "perf::cpu-clock", 100000, NULL, 0 };

	assert_int_equal(stream, AGG_STREAM(0, AGG_LABEL_NONE));
	assert_true(image < 2);
	return flush_profile(&d, c, n);
}

static int
flush(char *msg, size_t msglen)
{
	if (flush_begin(msg, msglen) == 0)
		agg_flush(write_counts, NULL);
	return flush_end();
}

static void
add(uint32_t image, uint32_t offset, unsigned n)
{
	while (n-- > 0)
		agg_add(AGG_STREAM(0, AGG_LABEL_NONE), image, offset);
}

static void
test_two_images_then_merge(void **state)
{
	struct dcpi_profile *p;
	char msg[1024];

	add(0, 0x10, 3);
	add(0, 0x20, 1);
	add(1, 0x400, 5);
	assert_int_equal(flush(msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "flushed 2 files into epoch "));
	assert_int_equal(agg_entries(), 0);
	assert_string_equal(flush_last_result(), "ok, 2 files");

	assert_non_null(p = profile_of(0));
	assert_string_equal(p->image, images[0].id);
	assert_string_equal(p->path, "/usr/bin/hot");
	assert_string_equal(p->event, "perf::cpu-clock");
	assert_string_equal(p->epoch, flush_epoch());
	assert_int_equal(p->period, 100000);
	assert_int_equal(p->tstart, 0x1000);
	assert_int_equal(p->tsize, 0x4000);
	assert_int_equal(p->n_counts, 2);
	assert_int_equal(dcpi_profile_count(p, 0x10), 3);
	assert_int_equal(dcpi_profile_count(p, 0x20), 1);
	dcpi_profile_free(p);
	assert_non_null(p = profile_of(1));
	assert_string_equal(p->path, "[kernel.kallsyms]");
	assert_int_equal(dcpi_profile_total_samples(p), 5);
	dcpi_profile_free(p);

	/* The second flush adds to what the files hold. */
	add(0, 0x10, 2);
	add(0, 0x30, 7);
	assert_int_equal(flush(msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "flushed 1 files"));
	assert_non_null(p = profile_of(0));
	assert_int_equal(p->n_counts, 3);
	assert_int_equal(dcpi_profile_count(p, 0x10), 5);
	assert_int_equal(dcpi_profile_count(p, 0x20), 1);
	assert_int_equal(dcpi_profile_count(p, 0x30), 7);
	dcpi_profile_free(p);
	assert_non_null(p = profile_of(1));
	assert_int_equal(dcpi_profile_total_samples(p), 5);
	dcpi_profile_free(p);
}

/* A flush of two profiles of one directory fsyncs it once, after both; a
 * failure there fails the flush, naming the directory, but the counts,
 * which the files now hold, are not kept to be added again. */
static void
test_dir_synced_once(void **state)
{
	struct dcpi_profile *p;
	char msg[1024], *dir;

	dir = dcpi_db_event_path(db, flush_epoch(), host, "perf::cpu-clock");
	assert_non_null(dir);
	add(0, 0x10, 3);
	add(1, 0x400, 5);
	nodirsync = nfsync = 0;
	assert_int_equal(flush(msg, sizeof(msg)), 0);
	assert_int_equal(nodirsync, 2);
	assert_int_equal(nfsync, 1);
	assert_string_equal(fsync_path, dir);

	add(0, 0x10, 1);
	fsync_fail = 1;
	assert_int_equal(flush(msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "flush failed: "));
	assert_non_null(strstr(msg, dir));
	assert_non_null(strstr(msg, strerror(EIO)));
	assert_int_equal(agg_entries(), 0);
	assert_non_null(p = profile_of(0));
	assert_int_equal(dcpi_profile_count(p, 0x10), 4);
	dcpi_profile_free(p);
	free(dir);
}

/* The samples of the chain hot <- main of image 0 in the epoch's stack
 * file; 0 when it has none. */
static uint64_t
chain_count(void)
{
	struct dcpi_stackfile *sf;
	struct dcpi_error de;
	uint64_t n = 0;
	char *dir, path[PATH_MAX];
	size_t i;

	dir = dcpi_db_event_path(db, flush_epoch(), host, "perf::cpu-clock");
	assert_non_null(dir);
	*strrchr(dir, '/') = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, DCPI_STACKS_FILE);
	free(dir);
	if (dcpi_stackfile_read(path, &sf, &de) == -1) {
		assert_int_equal(errno, ENOENT);
		return 0;
	}
	for (i = 0; i < sf->n_stacks; i++)
		if (sf->stacks[i].depth == 2)
			n += sf->stacks[i].count;
	dcpi_stackfile_free(sf);
	return n;
}

/* One flush's call chains: hot <- main, count times. */
static int
flush_chain(uint64_t count, char *msg, size_t msglen)
{
	const struct dcpi_stack_addframe f[2] = {
		{ images[0].id, images[0].tstart, images[0].tsize, images[0].path, 0x10 },
		{ images[0].id, images[0].tstart, images[0].tsize, images[0].path, 0x400 },
	};
	struct dcpi_stackfile *sf;
	struct dcpi_error de;
	int rc;

	assert_non_null(sf = dcpi_stackfile_new(flush_epoch(), host));
	assert_int_equal(dcpi_stackfile_add(sf, "perf::cpu-clock", NULL, f, 2,
	    count, &de), 0);
	assert_int_equal(flush_begin(msg, msglen), 0);
	/* 0: the file holds them, and dcpid forgets them (core.c). */
	assert_int_equal(flush_stacks(sf), 0);
	rc = flush_end();
	dcpi_stackfile_free(sf);
	return rc;
}

/* The stack file too waits for the flush's end for its directory's
 * fsync; one that fails there fails the flush, but flush_stacks has
 * reported the chains written, and the file holds them once: before, the
 * fsync failed inside dcpi_stackfile_writeat, after its rename, and dcpid
 * kept the chains to add them again. */
static void
test_stacks_dir_synced(void **state)
{
	char msg[1024], *dir;

	dir = dcpi_db_event_path(db, flush_epoch(), host, "perf::cpu-clock");
	assert_non_null(dir);
	*strrchr(dir, '/') = '\0';
	nfsync = 0;
	assert_int_equal(flush_chain(3, msg, sizeof(msg)), 0);
	assert_int_equal(nfsync, 1);
	assert_string_equal(fsync_path, dir);
	assert_int_equal(chain_count(), 3);

	fsync_fail = 1;
	assert_int_equal(flush_chain(2, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "flush failed: "));
	assert_non_null(strstr(msg, dir));
	assert_non_null(strstr(msg, strerror(EIO)));
	assert_int_equal(chain_count(), 5);
	free(dir);
}

static void
test_failed_write_keeps_counts(void **state)
{
	unsigned long before = flush_errors();
	struct dcpi_profile *p;
	char msg[1024];

	add(0, 0x10, 3);
	add(1, 0x400, 5);
	fail_name = names[0];
	assert_int_equal(flush(msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "flush failed: "));
	assert_non_null(strstr(msg, strerror(ENOSPC)));
	assert_string_equal(flush_last_result(), msg);
	assert_int_equal(flush_errors(), before + 1);
	/* The other image's file was written; this one's counts wait. */
	assert_null(profile_of(0));
	assert_non_null(p = profile_of(1));
	assert_int_equal(dcpi_profile_total_samples(p), 5);
	dcpi_profile_free(p);
	assert_int_equal(agg_entries(), 1);

	/* More samples meanwhile; the next flush writes them all, once. */
	add(0, 0x10, 1);
	assert_int_equal(flush(msg, sizeof(msg)), 0);
	assert_int_equal(agg_entries(), 0);
	assert_non_null(p = profile_of(0));
	assert_int_equal(dcpi_profile_count(p, 0x10), 4);
	dcpi_profile_free(p);
	assert_non_null(p = profile_of(1));
	assert_int_equal(dcpi_profile_total_samples(p), 5);
	dcpi_profile_free(p);
}

/* The samples of (event, reason) in the epoch's unattributed file; 0 when
 * it has no such line. */
static uint64_t
unattr_of(const char *event, const char *reason)
{
	struct dcpi_unattr u = { NULL, 0, 0 };
	struct dcpi_error de;
	uint64_t n = 0;
	char *path;
	size_t i;

	assert_non_null(path = dcpi_db_unattr_path(db, flush_epoch(), host));
	assert_int_equal(dcpi_unattr_read(path, &u, &de), 0);
	free(path);
	for (i = 0; i < u.n; i++)
		if (strcmp(u.v[i].event, event) == 0 && strcmp(u.v[i].reason, reason) == 0)
			n = u.v[i].samples;
	dcpi_unattr_clear(&u);
	return n;
}

static void
test_unattr_adds_up(void **state)
{
	const struct flush_unattr first[] = {
		{ "perf::cpu-clock", "no-map", 3 },
		{ "perf::cpu-clock", "unknown-pid", 2 },
	}, second[] = {
		{ "perf::cpu-clock", "no-map", 4 },
		{ "perf::page-faults", "anon", 1 },
	};
	char msg[1024], hostdir[PATH_MAX];

	nfsync = 0;
	assert_int_equal(flush_begin(msg, sizeof(msg)), 0);
	assert_int_equal(flush_unattr(first, 2), 0);
	assert_int_equal(flush_end(), 0);
	assert_non_null(strstr(msg, "flushed 0 files"));
	/* Its directory, the host's, fsynced once, at the end. */
	assert_int_equal(nfsync, 1);
	snprintf(hostdir, sizeof(hostdir), "%s/%s/%s", db, flush_epoch(), host);
	assert_string_equal(fsync_path, hostdir);
	assert_int_equal(unattr_of("perf::cpu-clock", "no-map"), 3);
	assert_int_equal(unattr_of("perf::cpu-clock", "unknown-pid"), 2);

	assert_int_equal(flush_begin(msg, sizeof(msg)), 0);
	assert_int_equal(flush_unattr(second, 2), 0);
	assert_int_equal(flush_end(), 0);
	assert_int_equal(unattr_of("perf::cpu-clock", "no-map"), 7);
	assert_int_equal(unattr_of("perf::cpu-clock", "unknown-pid"), 2);
	assert_int_equal(unattr_of("perf::page-faults", "anon"), 1);

	/* A write that fails fails the flush and leaves the file as it was
	 * (the caller keeps the counts). */
	fail_name = DCPI_UNATTR_FILE;
	assert_int_equal(flush_begin(msg, sizeof(msg)), 0);
	assert_int_equal(flush_unattr(first, 2), -1);
	assert_int_equal(flush_end(), -1);
	assert_non_null(strstr(msg, "flush failed: "));
	assert_non_null(strstr(msg, strerror(ENOSPC)));
	assert_int_equal(unattr_of("perf::cpu-clock", "no-map"), 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_images_then_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_keeps_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_synced_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unattr_adds_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stacks_dir_synced, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
