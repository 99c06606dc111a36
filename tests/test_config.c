/*
 * dcpid's configuration file (daemon/conf.c): values, bad lines reported
 * with their line numbers, command-line overrides, and conf_print's
 * output loading back to the same configuration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"

static char tmpdir[] = "/tmp/dcpi-test-config.XXXXXX";

static int
setup(void **state)
{
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Writes text to a file in tmpdir and returns its path (static buffer). */
static const char *
write_conf(const char *name, const char *text)
{
	static char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* Loads text over the defaults; returns conf_load's result, err filled. */
static int
load_text(struct conf *c, const char *text, char *err, size_t errlen)
{
	conf_defaults(c);
	err[0] = '\0';
	return conf_load(c, write_conf("dcpid.conf", text), 0, err, errlen);
}

static void
test_defaults(void **state)
{
	struct conf c;

	conf_defaults(&c);
	assert_int_equal(c.nevents, 0);
	assert_string_equal(c.db, "/var/lib/dcpi");
	assert_string_equal(c.socket, "/run/dcpid/dcpid.sock");
	assert_null(c.group);
	assert_null(c.cpus);
	assert_true(c.flush_interval > 0);
	assert_true(c.memory_cap > 0);
	assert_int_equal(c.label_by, CONF_LABEL_BY_UNIT);
	assert_int_equal(c.label_max, 1000);
	assert_int_equal(c.period_jitter, 0);
	/* Chains at 100 Hz a CPU under cpu-clock's 1 kHz. */
	assert_int_equal(c.callchain_period, 10);
	conf_free(&c);
}

static void
test_all_keys(void **state)
{
	struct conf c;
	char err[256];

	assert_int_equal(load_text(&c,
	    "# dcpid.conf\n"
	    "\n"
	    "event = perf::cpu-clock:period=1000000\n"
	    "  event=perf::page-faults   # trailing comment\n"
	    "flush-interval = 10m\n"
	    "database = /srv/dcpi#1\n"
	    "socket = /run/x/dcpid.sock\n"
	    "group = root\n"
	    "cpus = 0-3,6\n"
	    "memory-cap = 128M\n"
	    "keep-days = 90\n"
	    "keep-min = 2\n"
	    "verbose = 2\n"
	    "label-by = none\n"
	    "label-max = 65536\n"
	    "period-jitter = 50\n", err, sizeof(err)), 0);
	assert_int_equal(c.nevents, 2);
	assert_string_equal(c.events[0], "perf::cpu-clock:period=1000000");
	assert_string_equal(c.events[1], "perf::page-faults");
	assert_int_equal(c.flush_interval, 600);
	/* '#' not after white space belongs to the value. */
	assert_string_equal(c.db, "/srv/dcpi#1");
	assert_string_equal(c.socket, "/run/x/dcpid.sock");
	assert_string_equal(c.group, "root");
	assert_string_equal(c.cpus, "0-3,6");
	assert_int_equal(c.memory_cap, (size_t)128 << 20);
	assert_int_equal(c.keep_days, 90);
	assert_int_equal(c.keep_min, 2);
	assert_int_equal(c.verbose, 2);
	assert_int_equal(c.label_by, CONF_LABEL_BY_NONE);
	assert_int_equal(c.label_max, 65536);
	assert_int_equal(c.period_jitter, 50);
	conf_free(&c);
}

static void
test_suffixes(void **state)
{
	struct conf c;
	char err[256];

	conf_defaults(&c);
	assert_int_equal(conf_set(&c, "flush-interval", "45", err, sizeof(err)), 0);
	assert_int_equal(c.flush_interval, 45);
	assert_int_equal(conf_set(&c, "flush-interval", "2h", err, sizeof(err)), 0);
	assert_int_equal(c.flush_interval, 7200);
	assert_int_equal(conf_set(&c, "flush-interval", "1d", err, sizeof(err)), 0);
	assert_int_equal(c.flush_interval, 86400);
	assert_int_equal(conf_set(&c, "memory-cap", "512k", err, sizeof(err)), 0);
	assert_int_equal(c.memory_cap, 512 << 10);
	assert_int_equal(conf_set(&c, "memory-cap", "1G", err, sizeof(err)), 0);
	assert_int_equal(c.memory_cap, (size_t)1 << 30);
	assert_int_equal(conf_set(&c, "memory-cap", "1000", err, sizeof(err)), 0);
	assert_int_equal(c.memory_cap, 1000);
	assert_int_equal(conf_set(&c, "cpus", "all", err, sizeof(err)), 0);
	assert_null(c.cpus);
	/* A multiple of the event's period, with or without its x. */
	assert_int_equal(conf_set(&c, "callchain-period", "25x", err, sizeof(err)), 0);
	assert_int_equal(c.callchain_period, 25);
	assert_int_equal(conf_set(&c, "callchain-period", "4", err, sizeof(err)), 0);
	assert_int_equal(c.callchain_period, 4);
	assert_int_equal(conf_set(&c, "callchain-period", "1x", err, sizeof(err)), 0);
	assert_int_equal(c.callchain_period, 1);
	assert_int_equal(conf_set(&c, "callchain-period", "0", err, sizeof(err)), 0);
	assert_int_equal(c.callchain_period, 0);
	conf_free(&c);
}

/* Each bad line is reported as PATH:LINE: and what was expected, and the
 * configuration stays usable (freed without leaks under ASan). */
static void
test_bad_lines(void **state)
{
	static const struct {
		const char	*text;
		unsigned	 line;
		const char	*what;
	} cases[] = {
		{ "verbose = 1\nfrobnicate = 3\n", 2, "unknown key 'frobnicate'" },
		{ "\n# c\nflush-interval = soon\n", 3, "expected a number of seconds" },
		{ "flush-interval = 0\n", 1, "expected a number of seconds" },
		{ "flush-interval = -5\n", 1, "expected a number of seconds" },
		{ "flush-interval = 5x\n", 1, "expected a number of seconds" },
		{ "flush-interval = 99999999999\n", 1, "expected a number of seconds" },
		{ "memory-cap = 12Q\n", 1, "expected a number of bytes" },
		{ "memory-cap = 99999999999999999999\n", 1, "expected a number of bytes" },
		{ "keep-days = many\n", 1, "expected a number of days" },
		{ "keep-min = 1.5\n", 1, "expected a number of epochs" },
		{ "verbose = 3\n", 1, "expected 0, 1 or 2" },
		{ "label-by = pid\n", 1, "expected unit, cgroup or none" },
		{ "callchain = lbr\n", 1, "expected none, fp, dwarf or auto" },
		{ "callchain-stack = 63\n", 1, "expected a number of bytes, 64 to 65528" },
		{ "callchain-stack = 65536\n", 1, "expected a number of bytes, 64 to 65528" },
		{ "unwind-memory = 1000K\n", 1, "at least 1M" },
		{ "unwind-bpf-memory = 512K\n", 1, "at least 1M" },
		{ "jit-name-max = 63\n", 1, "expected a number of bytes, 64 to 65536" },
		{ "jit-name-max = 65537\n", 1, "expected a number of bytes, 64 to 65536" },
		{ "jit-memory = 512K\n", 1, "at least 1M" },
		{ "jit-process-symbols = 0\n", 1, "expected a number of symbols, 1 to 16777216" },
		{ "callchain-depth = 0\n", 1, "expected a number of frames, 1 to 1024" },
		{ "callchain-depth = 1025\n", 1, "expected a number of frames" },
		{ "label-max = 0\n", 1, "expected a number of labels per epoch, 1 to 65536" },
		{ "label-max = 65537\n", 1, "expected a number of labels per epoch" },
		{ "period-jitter = 51\n", 1, "expected a percentage of the period, 0 (fixed periods) to 50" },
		{ "period-jitter = 10%\n", 1, "expected a percentage of the period" },
		{ "callchain-period = 10 x\n", 1, "expected a multiple of the event's period" },
		{ "callchain-period = x\n", 1, "expected a multiple of the event's period" },
		{ "callchain-period = 10xx\n", 1, "expected a multiple of the event's period" },
		{ "callchain-period = 100Hz\n", 1, "expected a multiple of the event's period" },
		{ "callchain-period = 1000001x\n", 1, "0x or 1x (a chain with every sample) to 1000000x" },
		{ "cpus = 3-1\n", 1, "expected 'all' or a CPU list" },
		{ "cpus = 0,,1\n", 1, "expected 'all' or a CPU list" },
		{ "event = no-such-event-xyz\n", 1, "event 'no-such-event-xyz'" },
		{ "event = perf::cpu-clock:period=abc\n", 1, "libpfm4 event string was expected" },
		{ "group = no-such-group-dcpi-test\n", 1, "no such group" },
		{ "database =\n", 1, "expected a value" },
		{ "verbose 1\n", 1, "expected 'key = value'" },
	};
	struct conf c;
	char err[512], want[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (load_text(&c, cases[i].text, err, sizeof(err)) != -1)
			fail_msg("case %zu loads: %s", i, cases[i].text);
		snprintf(want, sizeof(want), "%s/dcpid.conf:%u: ", tmpdir, cases[i].line);
		if (strncmp(err, want, strlen(want)) != 0 ||
		    strstr(err, cases[i].what) == NULL)
			fail_msg("case %zu: got \"%s\", want prefix \"%s\" and \"%s\"",
			    i, err, want, cases[i].what);
		assert_null(strchr(err, '\n'));
		conf_free(&c);
	}
}

static void
test_too_many_events(void **state)
{
	struct conf c;
	char err[256], text[64 * (CONF_MAX_EVENTS + 1)];
	size_t i, n = 0;

	for (i = 0; i <= CONF_MAX_EVENTS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
		    "event = perf::cpu-clock:period=%zu\n", 1000 + i);
	assert_int_equal(load_text(&c, text, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":17: event: too many events"));
	assert_int_equal(c.nevents, CONF_MAX_EVENTS);
	conf_free(&c);
}

static void
test_missing_file(void **state)
{
	struct conf c;
	char err[256], path[256];

	snprintf(path, sizeof(path), "%s/absent.conf", tmpdir);
	conf_defaults(&c);
	assert_int_equal(conf_load(&c, path, 1, err, sizeof(err)), 0);
	assert_int_equal(conf_load(&c, path, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "absent.conf: No such file or directory"));
	conf_free(&c);
}

/* Later lines override earlier ones; the command line (conf_set after
 * conf_load) overrides the file; a source that names events replaces the
 * previous source's events instead of adding to them. */
static void
test_overrides(void **state)
{
	struct conf c;
	char err[256];

	assert_int_equal(load_text(&c,
	    "event = perf::cpu-clock\n"
	    "event = perf::task-clock\n"
	    "flush-interval = 30\n"
	    "flush-interval = 60\n"
	    "database = /a\n", err, sizeof(err)), 0);
	assert_int_equal(c.flush_interval, 60);
	assert_int_equal(c.nevents, 2);

	assert_int_equal(conf_set(&c, "event", "perf::page-faults", err, sizeof(err)), 0);
	assert_int_equal(conf_set(&c, "event", "perf::cpu-clock:period=5000", err, sizeof(err)), 0);
	assert_int_equal(conf_set(&c, "database", "/b", err, sizeof(err)), 0);
	assert_int_equal(c.nevents, 2);
	assert_string_equal(c.events[0], "perf::page-faults");
	assert_string_equal(c.events[1], "perf::cpu-clock:period=5000");
	assert_string_equal(c.db, "/b");
	assert_int_equal(c.flush_interval, 60);

	/* A file without events keeps the ones already set. */
	assert_int_equal(conf_load(&c, write_conf("noev.conf", "verbose = 1\n"),
	    0, err, sizeof(err)), 0);
	assert_int_equal(c.nevents, 2);
	assert_int_equal(c.verbose, 1);

	assert_int_equal(conf_set(&c, "nonsense", "1", err, sizeof(err)), -1);
	assert_string_equal(err, "unknown key 'nonsense'");
	conf_free(&c);
}

static char *
print_to_string(const struct conf *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	conf_print(c, fp);
	assert_int_equal(fclose(fp), 0);
	return buf;
}

static void
assert_config_equal(const struct conf *a, const struct conf *b)
{
	size_t i;

	assert_int_equal(a->nevents, b->nevents);
	for (i = 0; i < a->nevents; i++)
		assert_string_equal(a->events[i], b->events[i]);
	assert_string_equal(a->db, b->db);
	assert_string_equal(a->socket, b->socket);
	assert_true((a->group == NULL) == (b->group == NULL));
	if (a->group != NULL)
		assert_string_equal(a->group, b->group);
	assert_true((a->cpus == NULL) == (b->cpus == NULL));
	if (a->cpus != NULL)
		assert_string_equal(a->cpus, b->cpus);
	assert_int_equal(a->flush_interval, b->flush_interval);
	assert_int_equal(a->memory_cap, b->memory_cap);
	assert_int_equal(a->keep_days, b->keep_days);
	assert_int_equal(a->keep_min, b->keep_min);
	assert_int_equal(a->verbose, b->verbose);
	assert_int_equal(a->label_by, b->label_by);
	assert_int_equal(a->label_max, b->label_max);
	assert_int_equal(a->callchain, b->callchain);
	assert_int_equal(a->callchain_depth, b->callchain_depth);
	assert_int_equal(a->callchain_stack, b->callchain_stack);
	assert_int_equal(a->callchain_period, b->callchain_period);
	assert_int_equal(a->unwind_memory, b->unwind_memory);
	assert_int_equal(a->unwind_bpf_memory, b->unwind_bpf_memory);
	assert_memory_equal(&a->jit, &b->jit, sizeof(a->jit));
}

/* conf_print -> conf_load gives the same configuration, for the
 * defaults and for one with every key set to a non-default value. */
static void
test_round_trip(void **state)
{
	static const char *const sets[][2] = {
		{ "event", "perf::cpu-clock:period=250000" },
		{ "event", "perf::page-faults:u" },
		{ "flush-interval", "3h" },
		{ "database", "/srv/profiles" },
		{ "socket", "/run/other/dcpid.sock" },
		{ "group", "root" },
		{ "cpus", "1,3-5" },
		{ "memory-cap", "1536" },
		{ "keep-days", "0" },
		{ "keep-min", "1" },
		{ "verbose", "1" },
		{ "label-by", "cgroup" },
		{ "label-max", "50" },
		{ "callchain", "dwarf" },
		{ "callchain-depth", "16" },
		{ "callchain-stack", "16384" },
		{ "callchain-period", "3x" },
		{ "unwind-memory", "16M" },
		{ "unwind-bpf-memory", "8M" },
		{ "period-jitter", "10" },
		{ "jit-name-max", "4096" },
		{ "jit-memory", "64M" },
		{ "jit-user-memory", "32M" },
		{ "jit-process-memory", "2M" },
		{ "jit-symbols", "1000000" },
		{ "jit-user-symbols", "500000" },
		{ "jit-process-symbols", "1000" },
	};
	struct conf a, b;
	char err[256], *text;
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		conf_defaults(&a);
		for (i = 0; pass == 1 && i < sizeof(sets) / sizeof(sets[0]); i++)
			assert_int_equal(conf_set(&a, sets[i][0], sets[i][1],
			    err, sizeof(err)), 0);
		text = print_to_string(&a);
		if (load_text(&b, text, err, sizeof(err)) != 0)
			fail_msg("printed configuration does not load: %s\n%s", err, text);
		assert_config_equal(&a, &b);
		free(text);
		conf_free(&a);
		conf_free(&b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_suffixes),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_too_many_events),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
