/*
 * daemon/loop.c's timers: order of deadlines, re-arming, stopping,
 * deletion from callbacks, slack, and the wait bounded by the earliest
 * timer.
 */
#include "config.h"

#include <sys/eventfd.h>
#include <sys/epoll.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../daemon/loop.h"

static char		 fired[16];
static size_t		 nfired;
static struct loop_timer *victim;

static void
note(struct loop_timer *t, void *arg)
{
	(void)t;
	assert_true(nfired < sizeof(fired));
	fired[nfired++] = *(const char *)arg;
}

static void
again(struct loop_timer *t, void *arg)
{
	note(t, arg);
	if (nfired < 3)
		loop_timer_set(t, 0);
}

static void
kill_other(struct loop_timer *t, void *arg)
{
	note(t, arg);
	loop_timer_del(victim);
	victim = NULL;
}

static void
kill_self(struct loop_timer *t, void *arg)
{
	note(t, arg);
	loop_timer_del(t);
}

static int
setup(void **state)
{
	(void)state;
	nfired = 0;
	memset(fired, 0, sizeof(fired));
	loop_init();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	loop_fini();
	return 0;
}

/* Runs the loop until n timers have fired or 2 s have passed. */
static void
run_until(size_t n)
{
	uint64_t end = loop_now_ms() + 2000;

	while (nfired < n && loop_now_ms() < end)
		loop_wait(-1, NULL);
}

static void
test_order(void **state)
{
	uint64_t t0 = loop_now_ms();
	struct loop_timer *a, *b, *c;

	(void)state;
	c = loop_timer_add(60, note, "c");
	a = loop_timer_add(20, note, "a");
	b = loop_timer_add(40, note, "b");
	/* Waiting forever ends at the first deadline. */
	assert_int_equal(loop_wait(-1, NULL), 0);
	run_until(3);
	assert_string_equal(fired, "abc");
	assert_true(loop_now_ms() - t0 >= 60);
	/* One-shot: nothing more, the wait runs to its own time-out. */
	assert_int_equal(loop_wait(30, NULL), 0);
	assert_int_equal(nfired, 3);
	loop_timer_del(a);
	loop_timer_del(b);
	loop_timer_del(c);
}

/* Three due in one round, as when the host was busy past all their
 * deadlines: still earliest first, not in the order they were added. */
static void
test_order_late(void **state)
{
	struct loop_timer *a, *b, *c;

	(void)state;
	c = loop_timer_add(30, note, "c");
	a = loop_timer_add(10, note, "a");
	b = loop_timer_add(20, note, "b");
	usleep(50000);
	assert_int_equal(loop_wait(0, NULL), 0);
	assert_string_equal(fired, "abc");
	loop_timer_del(a);
	loop_timer_del(b);
	loop_timer_del(c);
}

static void
test_set_stop(void **state)
{
	struct loop_timer *a, *b;

	(void)state;
	a = loop_timer_add(10, note, "a");
	b = loop_timer_add(20, note, "b");
	/* A deadline moved later, as a connection's on activity. */
	loop_timer_set(a, 50);
	loop_timer_stop(b);
	run_until(1);
	assert_string_equal(fired, "a");
	assert_int_equal(loop_wait(40, NULL), 0);
	assert_int_equal(nfired, 1);
	loop_timer_set(b, 0);
	run_until(2);
	assert_string_equal(fired, "ab");
	loop_timer_del(a);
	loop_timer_del(b);
}

/* A timer with slack fires early only with another timer's wake-up, and
 * one without slack never early. */
static void
test_slack(void **state)
{
	uint64_t t0 = loop_now_ms();
	struct loop_timer *a, *b, *c, *d;

	(void)state;
	a = loop_timer_add(40, note, "a");
	b = loop_timer_add(300, note, "b");
	c = loop_timer_add(320, note, "c");
	d = loop_timer_add(400, note, "d");
	loop_timer_set_slack(b, 500);	/* rides a's wake-up */
	loop_timer_set_slack(d, 50);	/* not reached by a's */
	run_until(2);
	assert_string_equal(fired, "ab");
	assert_true(loop_now_ms() - t0 < 300);
	/* c has no slack: due alone at 320; d, 80 ms later, is not within
	 * its 50 of slack then. */
	run_until(3);
	assert_string_equal(fired, "abc");
	assert_true(loop_now_ms() - t0 >= 320);
	run_until(4);
	assert_string_equal(fired, "abcd");
	assert_true(loop_now_ms() - t0 >= 400);
	/* Slack alone never wakes the loop early. */
	loop_timer_set(b, 100);
	loop_timer_set_slack(b, 90);
	t0 = loop_now_ms();
	run_until(5);
	assert_string_equal(fired, "abcdb");
	assert_true(loop_now_ms() - t0 >= 100);
	loop_timer_del(a);
	loop_timer_del(b);
	loop_timer_del(c);
	loop_timer_del(d);
}

static void
readable(int fd, uint32_t events, void *arg)
{
	uint64_t v;

	(void)events;
	assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	note(NULL, arg);
}

/* A timer re-armed for 0 ms runs once a round, after the ready fds, not
 * in a busy loop of its own. */
static void
test_rearm(void **state)
{
	struct loop_timer *t;
	int fd = eventfd(1, EFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	loop_add(fd, EPOLLIN, readable, "f");
	t = loop_timer_add(0, again, "r");
	assert_int_equal(loop_wait(-1, NULL), 1);
	assert_string_equal(fired, "fr");
	assert_int_equal(loop_wait(-1, NULL), 0);
	assert_string_equal(fired, "frr");
	assert_int_equal(loop_wait(20, NULL), 0);
	assert_string_equal(fired, "frr");
	loop_del(fd);
	close(fd);
	loop_timer_del(t);
}

static void
test_delete_in_callback(void **state)
{
	struct loop_timer *k;

	(void)state;
	k = loop_timer_add(0, kill_other, "k");
	victim = loop_timer_add(0, note, "v");
	loop_timer_add(0, kill_self, "s");
	run_until(2);
	/* The victim, due in the same round, never runs. */
	assert_string_equal(fired, "ks");
	assert_null(victim);
	assert_int_equal(loop_wait(20, NULL), 0);
	assert_int_equal(nfired, 2);
	loop_timer_del(k);
	/* Timers added after deletions still fire. */
	loop_timer_add(0, note, "n");
	run_until(3);
	assert_string_equal(fired, "ksn");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rearm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_in_callback, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
