/*
 * fsio: calls with a deadline on helper threads.  A call that blocks (on
 * a pipe here, as on a hung NFS server) is left behind at its deadline and
 * released by its late function once it returns; while it is held up, the
 * next call about the same key fails at once; with every helper held up,
 * every call does; the open and stat wrappers give the syscalls' results;
 * an open as another user's credentials leaves the caller's alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fsio.h"

/* pthread_create, failing while fail_create is set (a task limit). */
static int fail_create;
int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *),
    void *);
int __wrap_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *),
    void *);
int
__wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
    void *arg)
{
	if (fail_create)
		return EAGAIN;
	return __real_pthread_create(t, a, fn, arg);
}

/* A key that names no device (fsio_key's kind): its calls go to a
 * helper, whatever file systems this machine has. */
#define K(n)	((1ULL << 63) | (uint64_t)(n))

struct blocker {
	int		 rfd;		/* read until a byte comes */
	int		 ran;
	volatile int	*freed;		/* set by the late function */
};

static void
block_run(void *a)
{
	struct blocker *b = a;
	char c;

	b->ran = 1;
	while (read(b->rfd, &c, 1) == -1 && errno == EINTR)
		;
}

static volatile int nfreed;

static void
block_late(void *a)
{
	struct blocker *b = a;

	__atomic_add_fetch(&nfreed, 1, __ATOMIC_SEQ_CST);
	free(b);
}

static void
never_late(void *a)
{
	(void)a;
	fail_msg("late called for a call that returned in time");
}

static void
quick_run(void *a)
{
	*(int *)a += 1;
}

/* Waits (at most 10 s) until n calls have been freed late. */
static void
wait_freed(int n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 1000 && __atomic_load_n(&nfreed, __ATOMIC_SEQ_CST) < n; i++)
		nanosleep(&ts, NULL);
	assert_int_equal(nfreed, n);
}

static struct blocker *
blocker(int rfd)
{
	struct blocker *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->rfd = rfd;
	return b;
}

static pthread_t ran_on;

static void
where_run(void *a)
{
	(void)a;
	ran_on = pthread_self();
}

static void
test_in_time(void **state)
{
	int n = 0;

	(void)state;
	fsio_init();
	assert_int_equal(fsio_call(0, quick_run, never_late, &n, 10000), 0);
	assert_int_equal(fsio_call(K(7), quick_run, never_late, &n, 10000), 0);
	assert_int_equal(n, 2);
	assert_int_equal(fsio_held(), 0);
	assert_int_equal(fsio_timeouts(), 0);
	fsio_fini();
}

static void
test_held_up(void **state)
{
	int p[2], n = 0;
	struct blocker *b, *c;

	(void)state;
	nfreed = 0;
	fsio_init();
	assert_int_equal(pipe(p), 0);
	b = blocker(p[0]);
	assert_int_equal(fsio_call(K(42), block_run, block_late, b, 20), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_true(fsio_held_up(errno));
	assert_int_equal(fsio_held(), 1);
	assert_int_equal(fsio_timeouts(), 1);
	/* The same key again: at once, not run. */
	c = blocker(p[0]);
	assert_int_equal(fsio_call(K(42), block_run, block_late, c, 10000), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(c->ran, 0);
	free(c);
	/* Another key, or none, still runs. */
	assert_int_equal(fsio_call(K(43), quick_run, never_late, &n, 10000), 0);
	assert_int_equal(fsio_call(0, quick_run, never_late, &n, 10000), 0);
	assert_int_equal(n, 2);
	/* But one more held up is waited for FSIO_DEADLINE_HELD_MS, not the
	 * 10 s asked (the test would take them). */
	c = blocker(p[0]);
	assert_int_equal(fsio_call(K(44), block_run, block_late, c, 10000), -1);
	assert_int_equal(errno, ETIMEDOUT);
	assert_int_equal(fsio_held(), 2);
	/* The held calls return: their late functions free them, and the
	 * keys are free again. */
	assert_int_equal(write(p[1], "xx", 2), 2);
	wait_freed(2);
	assert_int_equal(fsio_held(), 0);
	assert_int_equal(fsio_call(K(42), quick_run, never_late, &n, 10000), 0);
	assert_int_equal(n, 3);
	close(p[0]);
	close(p[1]);
	fsio_fini();
}

static void
test_all_held(void **state)
{
	int p[2], i, n = 0;
	struct blocker *c;

	(void)state;
	nfreed = 0;
	fsio_init();
	assert_int_equal(pipe(p), 0);
	for (i = 0; i < FSIO_HELPERS; i++) {
		assert_int_equal(fsio_call(K(100 + i), block_run, block_late,
		    blocker(p[0]), 5), -1);
		assert_int_equal(errno, ETIMEDOUT);
	}
	assert_int_equal(fsio_held(), FSIO_HELPERS);
	c = blocker(p[0]);
	assert_int_equal(fsio_call(0, block_run, block_late, c, 10000), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(c->ran, 0);
	free(c);
	for (i = 0; i < FSIO_HELPERS; i++)
		assert_int_equal(write(p[1], "x", 1), 1);
	wait_freed(FSIO_HELPERS);
	assert_int_equal(fsio_call(0, quick_run, never_late, &n, 10000), 0);
	assert_int_equal(n, 1);
	assert_int_equal(fsio_timeouts(), FSIO_HELPERS);
	close(p[0]);
	close(p[1]);
	fsio_fini();
}

/* A call about a device on a local file system (here proc's) runs in the
 * caller; one about anything else, on a helper. */
static void
test_local_direct(void **state)
{
	struct stat st;

	(void)state;
	fsio_init();
	assert_int_equal(stat("/proc/self/stat", &st), 0);
	assert_true(fsio_dev_local(st.st_dev));
	assert_false(fsio_dev_local(0));
	assert_false(fsio_dev_local(fsio_key("/proc/self/stat")));
	assert_int_equal(fsio_call(st.st_dev, where_run, never_late, NULL, 10000), 0);
	assert_true(pthread_equal(ran_on, pthread_self()));
	assert_int_equal(fsio_direct(), 1);
	assert_int_equal(fsio_call(fsio_key("/proc/self/stat"), where_run, never_late,
	    NULL, 10000), 0);
	assert_false(pthread_equal(ran_on, pthread_self()));
	assert_int_equal(fsio_calls(), 2);
	assert_int_equal(fsio_direct(), 1);
	fsio_fini();
}

/* No thread can be started: the call runs in the caller, as before
 * helpers, rather than never. */
static void
test_no_thread(void **state)
{
	int n = 0;

	(void)state;
	fsio_init();
	fail_create = 1;
	assert_int_equal(fsio_call(K(9), quick_run, never_late, &n, 10000), 0);
	assert_int_equal(fsio_call(0, quick_run, never_late, &n, 10000), 0);
	assert_int_equal(n, 2);
	assert_int_equal(fsio_held(), 0);
	fail_create = 0;
	assert_int_equal(fsio_call(0, quick_run, never_late, &n, 10000), 0);
	assert_int_equal(n, 3);
	fsio_fini();
}

/* fsio_fini returns with a helper still held up. */
static void
test_fini_held(void **state)
{
	int p[2];

	(void)state;
	nfreed = 0;
	fsio_init();
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fsio_call(K(1), block_run, block_late, blocker(p[0]), 5), -1);
	fsio_fini();
	/* Released after fini: the detached helper frees its call. */
	assert_int_equal(write(p[1], "x", 1), 1);
	wait_freed(1);
	close(p[0]);
	close(p[1]);
}

static void
test_open_stat(void **state)
{
	char tmp[] = "/tmp/test_fsio.XXXXXX";
	struct stat st, want;
	int fd, wfd;

	(void)state;
	fsio_init();
	wfd = mkstemp(tmp);
	assert_true(wfd >= 0);
	assert_int_equal(write(wfd, "hello", 5), 5);
	assert_int_equal(fstat(wfd, &want), 0);
	fd = fsio_open(tmp, O_RDONLY, fsio_key(tmp), &st);
	assert_true(fd >= 0);
	assert_int_equal(st.st_ino, want.st_ino);
	assert_int_equal(st.st_size, 5);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	memset(&st, 0, sizeof(st));
	assert_int_equal(fsio_stat(tmp, want.st_dev, &st), 0);
	assert_int_equal(st.st_ino, want.st_ino);
	assert_int_equal(close(wfd), 0);
	unlink(tmp);
	assert_int_equal(fsio_open(tmp, O_RDONLY, 0, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_false(fsio_held_up(errno));
	assert_int_equal(fsio_stat(tmp, 0, &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_true((fsio_key(tmp) >> 63) == 1);
	assert_true(fsio_key(tmp) != fsio_key("/tmp"));
	fsio_fini();
}

/* Opens as another user's credentials, on a thread of its own: the
 * caller's stay root's; a user's refusal is the open's (EACCES); where no
 * thread can be started the open is not made at all (never on the caller's
 * thread). */
static void
test_open_as(void **state)
{
	char secret[] = "/tmp/test_fsio_s.XXXXXX", open_[] = "/tmp/test_fsio_o.XXXXXX";
	struct fsio_cred me, nobody = { { 65534, 65534, 65534 }, { 65534, 65534, 65534 },
	    0, { 0 } };
	gid_t groups[FSIO_GROUPS_MAX];
	struct stat st, want;
	int fd, sfd, ofd, n;

	(void)state;
	fsio_init();
	assert_int_equal(fsio_cred_of((uint32_t)getpid(), &me), 0);
	assert_int_equal(me.uid[0], getuid());
	assert_int_equal(me.uid[1], geteuid());
	assert_int_equal(me.gid[1], getegid());
	n = getgroups(FSIO_GROUPS_MAX, groups);
	assert_int_equal(me.ngroups, n);
	assert_int_equal(fsio_cred_of(0x7ffffff0, &me), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(fsio_cred_of((uint32_t)getpid(), &me), 0);

	sfd = mkstemp(secret);		/* mode 0600 */
	ofd = mkstemp(open_);
	assert_true(sfd >= 0 && ofd >= 0);
	assert_int_equal(fchmod(ofd, 0644), 0);
	assert_int_equal(fstat(ofd, &want), 0);
	/* (A root test has every capability; anyone else none.) */
	assert_int_equal(fsio_can_open_as(), geteuid() == 0);
	if (geteuid() != 0) {
		/* setgroups needs CAP_SETGID: not taken, not opened. */
		assert_int_equal(fsio_open_as(open_, O_RDONLY, 0, &st, &nobody), -1);
		assert_int_equal(errno, EPERM);
	} else {
		assert_int_equal(fsio_open_as(secret, O_RDONLY, 0, &st, &nobody), -1);
		assert_int_equal(errno, EACCES);
		assert_false(fsio_held_up(errno));
		fd = fsio_open_as(open_, O_RDONLY, K(1), &st, &nobody);
		assert_true(fd >= 0);
		assert_int_equal(st.st_ino, want.st_ino);
		close(fd);
		fd = fsio_open_as(secret, O_RDONLY, 0, &st, &me);
		assert_true(fd >= 0);
		close(fd);
		/* The caller's credentials are its own still. */
		assert_int_equal(getuid(), 0);
		assert_int_equal(geteuid(), 0);
		assert_int_equal(getgroups(FSIO_GROUPS_MAX, groups), n);
		fd = open(secret, O_RDONLY);
		assert_true(fd >= 0);
		close(fd);
	}
	fail_create = 1;
	assert_int_equal(fsio_open_as(open_, O_RDONLY, 0, &st, &me), -1);
	assert_int_equal(errno, EAGAIN);
	fail_create = 0;
	close(sfd);
	close(ofd);
	unlink(secret);
	unlink(open_);
	fsio_fini();
}

/* A test that failed left its calls and helpers: fsio_fini (a no-op
 * after the test's own) lets the next start afresh, not hang. */
static int
teardown(void **state)
{
	(void)state;
	fail_create = 0;
	fsio_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_in_time, teardown),
		cmocka_unit_test_teardown(test_held_up, teardown),
		cmocka_unit_test_teardown(test_all_held, teardown),
		cmocka_unit_test_teardown(test_open_stat, teardown),
		cmocka_unit_test_teardown(test_open_as, teardown),
		cmocka_unit_test_teardown(test_local_direct, teardown),
		cmocka_unit_test_teardown(test_no_thread, teardown),
		/* Last: its helper outlives fsio_fini. */
		cmocka_unit_test_teardown(test_fini_held, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
