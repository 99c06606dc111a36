/*
 * Lost samples and throttling placed by CPU and time (daemon/loss.c):
 * synthetic PERF_RECORD_LOST, LOST_SAMPLES and THROTTLE records, with the
 * sample_id trailer perf_init asks for, fed through the core's ordering
 * and handler (daemon/core.c), then STATUS's lines (status_add is wrapped:
 * -Wl,--wrap=status_add).
 */
#include "config.h"

#include <linux/perf_event.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../daemon/core.h"
#include "../daemon/perf.h"
#include "../daemon/record.h"
#include "../daemon/status.h"

static char	lines[64][256];
static size_t	nlines;

void __wrap_status_add(struct status_writer *, const char *, const char *, ...)
    __attribute__((format(printf, 3, 4)));

void
__wrap_status_add(struct status_writer *w, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)w;
	if (nlines >= 64)
		return;
	n = snprintf(lines[nlines], sizeof(lines[0]), "%s ", key);
	va_start(ap, fmt);
	vsnprintf(lines[nlines] + n, sizeof(lines[0]) - (size_t)n, fmt, ap);
	va_end(ap);
	nlines++;
}

static void
status(void)
{
	nlines = 0;
	status_report(NULL);
}

/* The line with key, or NULL; the nth (0-based) of those with key. */
static const char *
line(const char *key, int nth)
{
	size_t i, k = strlen(key);

	for (i = 0; i < nlines; i++)
		if (strncmp(lines[i], key, k) == 0 && lines[i][k] == ' ' && nth-- == 0)
			return lines[i] + k + 1;
	return NULL;
}

static int
count(const char *key)
{
	int n = 0;

	while (line(key, n) != NULL)
		n++;
	return n;
}

/* A record: header, the type's fields (nf u64s), then the trailer. */
static void
feed(uint32_t type, const uint64_t *f, size_t nf, uint32_t cpu, uint64_t time)
{
	uint64_t buf[16];
	struct perf_event_header h = { .type = type, .misc = 0 };
	struct record_daemon_id sid = { .pid = 1, .tid = 1, .time = time, .cpu = cpu,
	    .id = 77 };
	size_t size = sizeof(h) + nf * 8 + sizeof(sid);

	h.size = (uint16_t)size;
	memcpy(buf, &h, sizeof(h));
	memcpy((unsigned char *)buf + sizeof(h), f, nf * 8);
	memcpy((unsigned char *)buf + sizeof(h) + nf * 8, &sid, sizeof(sid));
	core_record((const void *)buf, size, time);
}

static void
lost(uint32_t cpu, uint64_t n, uint64_t time)
{
	uint64_t f[2] = { 77, n };

	feed(PERF_RECORD_LOST, f, 2, cpu, time);
}

static void
utc(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "TIME cpu N" with TIME ago_s seconds ago, give or take a second: the
 * status takes whole seconds off CLOCK_REALTIME, which time(2) reads up
 * to a tick behind (its coarse clock), so at a second's edge the status
 * may say one second later than time(2) would. */
static void
assert_when(const char *got, unsigned ago_s, unsigned cpu)
{
	char t[64], want[3][96];
	time_t now = time(NULL);
	int i;

	assert_non_null(got);
	for (i = 0; i < 3; i++) {
		utc(now - (time_t)ago_s + 1 - i, t, sizeof(t));
		snprintf(want[i], sizeof(want[i]), "%s cpu %u", t, cpu);
	}
	if (strcmp(got, want[0]) != 0 && strcmp(got, want[1]) != 0 &&
	    strcmp(got, want[2]) != 0)
		fail_msg("got '%s', expected '%s', '%s' or '%s'", got, want[0],
		    want[1], want[2]);
}

static void
test_no_losses(void **state)
{
	(void)state;
	core_init(0);
	status();
	assert_string_equal(line("lost", 0), "0");
	assert_string_equal(line("lost-last", 0), "never");
	assert_int_equal(count("lost-cpu"), 0);
	assert_string_equal(line("throttled-last", 0), "never");
	assert_int_equal(count("throttled-cpu"), 0);
	core_fini();
}

static void
test_lost_by_cpu_and_time(void **state)
{
	uint64_t now = perf_now(), s = 1000000000ull;
	uint64_t ls[1] = { 7 }, th[3] = { 0, 77, 77 };

	(void)state;
	core_init(0);
	/* Fed out of time order: the core puts them in order, and the last
	 * loss is the latest one, not the last one read. */
	lost(3, 100, now - 5 * s);
	lost(1, 20, now - 2 * s);
	lost(3, 1, now - 8 * s);
	th[0] = now - 3 * s;
	feed(PERF_RECORD_THROTTLE, th, 3, 2, now - 3 * s);
	th[0] = now - 4 * s;
	feed(PERF_RECORD_THROTTLE, th, 3, 2, now - 4 * s);
	feed(PERF_RECORD_LOST_SAMPLES, ls, 1, 0, now - 6 * s);
	core_process(1);
	status();
	assert_string_equal(line("lost", 0), "128");
	assert_when(line("lost-last", 0), 2, 1);
	/* One line per CPU that lost samples, in CPU order. */
	assert_int_equal(count("lost-cpu"), 3);
	assert_string_equal(line("lost-cpu", 0), "0 7");
	assert_string_equal(line("lost-cpu", 1), "1 20");
	assert_string_equal(line("lost-cpu", 2), "3 101");
	assert_string_equal(line("throttled", 0), "2");
	assert_when(line("throttled-last", 0), 3, 2);
	assert_int_equal(count("throttled-cpu"), 1);
	assert_string_equal(line("throttled-cpu", 0), "2 2");
	core_fini();
}

/* A trailer naming an impossible CPU (a corrupt record) counts in the
 * total only: no allocation for it, no line, not the last loss's CPU. */
static void
test_lost_bad_cpu(void **state)
{
	uint64_t now = perf_now(), s = 1000000000ull;

	(void)state;
	core_init(0);
	lost(4, 5, now - 9 * s);
	lost(0xffffffffu, 1000, now - 1 * s);
	core_process(1);
	status();
	assert_string_equal(line("lost", 0), "1005");
	assert_when(line("lost-last", 0), 9, 4);
	assert_int_equal(count("lost-cpu"), 1);
	assert_string_equal(line("lost-cpu", 0), "4 5");
	core_fini();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_losses),
		cmocka_unit_test(test_lost_by_cpu_and_time),
		cmocka_unit_test(test_lost_bad_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
