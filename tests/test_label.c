/*
 * daemon/labeler.c: label numbers from cgroups and runs, the per-epoch cap,
 * the epochs' reuse of numbers, the bounded cgroup table.  /proc/PID/cgroup
 * is cgroup_read_pid, wrapped.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <dcpi/label.h>

#include "cgroup.h"
#include "conf.h"
#include "labeler.h"

/* What /proc/PID/cgroup says: one path for every pid, or gone (NULL). */
static const char *proc_path;
static unsigned proc_reads;

int __wrap_cgroup_read_pid(uint32_t pid, char *out, size_t outlen);
int
__wrap_cgroup_read_pid(uint32_t pid, char *out, size_t outlen)
{
	(void)pid;
	proc_reads++;
	if (proc_path == NULL)
		return -1;
	snprintf(out, outlen, "%s", proc_path);
	return 1;
}

static int
setup(void **state)
{
	(void)state;
	label_init(CONF_LABEL_BY_UNIT, 2);
	proc_path = NULL;
	proc_reads = 0;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	label_fini();
	return 0;
}

static const char *
name_of(uint32_t pid, uint64_t cg)
{
	return label_name(label_of(pid, cg));
}

static void
test_units(void **state)
{
	struct label_stats st;

	(void)state;
	label_cgroup(100, "/system.slice/nginx.service");
	label_cgroup(101, "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service");
	label_cgroup(1, "/");
	assert_string_equal(name_of(7, 100), "nginx.service");
	assert_string_equal(name_of(8, 101), "user@1000.service");
	assert_int_equal(label_of(7, 100), LABEL_FIRST);
	/* The root cgroup (kernel threads): unlabelled. */
	assert_int_equal(label_of(2, 1), LABEL_NONE);
	assert_null(label_name(LABEL_NONE));
	assert_string_equal(label_name(LABEL_IDLE), DCPI_LABEL_IDLE);
	/* Each record's cgroup looked at /proc once, at its first sample
	 * (the processes are gone here: named by the records). */
	assert_int_equal(proc_reads, 3);
	label_stats(&st);
	assert_string_equal(st.by, "unit");
	assert_int_equal(st.used, 2);
	assert_int_equal(st.cgroups, 3);
	assert_true(st.memory > 0);
}

/* A cgroup met first in a sample is looked up in /proc once. */
static void
test_proc_lookup(void **state)
{
	int i;

	(void)state;
	proc_path = "/system.slice/cron.service";
	assert_string_equal(name_of(9, 555), "cron.service");
	assert_string_equal(name_of(10, 555), "cron.service");
	assert_int_equal(proc_reads, 1);
	/* Its process gone: unlabelled, not remembered, and not read again
	 * for the next 64 samples; then read again (another process of the
	 * cgroup may be sampled). */
	proc_path = NULL;
	for (i = 0; i < 65; i++)
		assert_int_equal(label_of(11, 556), LABEL_NONE);
	assert_int_equal(proc_reads, 2);
	proc_path = "/system.slice/atd.service";
	assert_int_equal(label_of(12, 555), LABEL_FIRST);
	assert_string_equal(name_of(12, 556), "atd.service");
	assert_int_equal(proc_reads, 3);
}

/* A kernel without PERF_SAMPLE_CGROUP: per process, again after exec. */
static void
test_no_cgroup_ids(void **state)
{
	(void)state;
	proc_path = "/system.slice/a.service";
	assert_string_equal(name_of(20, 0), "a.service");
	assert_string_equal(name_of(20, 0), "a.service");
	assert_int_equal(proc_reads, 1);
	proc_path = "/system.slice/b.service";
	label_exec(20);
	assert_string_equal(name_of(20, 0), "b.service");
	assert_int_equal(proc_reads, 2);
	/* Gone before its samples were seen: remembered until its exit. */
	proc_path = NULL;
	assert_int_equal(label_of(21, 0), LABEL_NONE);
	assert_int_equal(label_of(21, 0), LABEL_NONE);
	assert_int_equal(label_of(20, 0), label_of(20, 0));
	assert_int_equal(proc_reads, 3);
	label_exit(21);
	proc_path = "/system.slice/a.service";
	assert_string_equal(name_of(21, 0), "a.service");
}

/* label-max 2: the third label of the epoch is [other], counted; the
 * next epoch keeps the numbers used and gives back the others. */
static void
test_cap_and_epochs(void **state)
{
	struct label_stats st;
	uint32_t a, b;

	(void)state;
	label_cgroup(1000, "/a.service");
	label_cgroup(1001, "/b.service");
	label_cgroup(1002, "/c.service");
	a = label_of(1, 1000);
	b = label_of(2, 1001);
	assert_int_equal(label_of(3, 1002), LABEL_OTHER);
	assert_int_equal(label_of(3, 1002), LABEL_OTHER);
	assert_string_equal(label_name(LABEL_OTHER), DCPI_LABEL_OTHER);
	label_stats(&st);
	assert_int_equal(st.used, 2);
	assert_int_equal(st.max, 2);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(st.other_samples, 2);
	/* A new epoch: c gets a number of its own, a and b keep theirs. */
	label_new_epoch();
	assert_string_equal(name_of(3, 1002), "c.service");
	assert_int_equal(label_of(1, 1000), a);
	assert_int_equal(label_of(2, 1001), LABEL_OTHER);
	label_stats(&st);
	assert_int_equal(st.used, 2);
	assert_int_equal(st.dropped, 1);
	/* b was not used this epoch: its number is given back and taken by
	 * the next new name, which is named right. */
	label_new_epoch();
	label_new_epoch();
	label_cgroup(1003, "/d.service");
	b = label_of(4, 1003);
	assert_true(b >= LABEL_FIRST && b < LABEL_FIRST + 3);
	assert_string_equal(label_name(b), "d.service");
	assert_string_equal(name_of(2, 1001), "b.service");
}

/* label_keep: a number held by samples not yet counted survives. */
static void
test_keep(void **state)
{
	uint32_t a;

	(void)state;
	label_cgroup(1000, "/a.service");
	a = label_of(1, 1000);
	label_new_epoch();
	label_keep(a);
	label_new_epoch();
	assert_string_equal(label_name(a), "a.service");
	label_new_epoch();
	assert_string_equal(label_name(a), DCPI_LABEL_OTHER);
}

/* dcpictl label: the process, its children, not its threads; until exit. */
/* A storm of cgroups that fills label-max leaves named runs their own
 * labels, up to a reserve of 64 beyond the cap. */
static void
test_run_reserve(void **state)
{
	struct label_stats st;
	char msg[256], name[32];
	uint32_t pid;

	(void)state;
	label_cgroup(1000, "/a.service");
	label_cgroup(1001, "/b.service");
	label_cgroup(1002, "/c.service");
	assert_int_not_equal(label_of(1, 1000), LABEL_OTHER);
	assert_int_not_equal(label_of(2, 1001), LABEL_OTHER);
	assert_int_equal(label_of(3, 1002), LABEL_OTHER);
	for (pid = 100; pid < 100 + 64; pid++) {
		snprintf(name, sizeof(name), "run-%u", (unsigned)pid);
		assert_int_equal(label_run(pid, name, msg, sizeof(msg)), 0);
		assert_string_equal(name_of(pid, 1002), name);
	}
	/* The reserve is spent: the next run's samples go to [other]. */
	assert_int_equal(label_run(200, "one-too-many", msg, sizeof(msg)), 0);
	assert_int_equal(label_of(200, 1002), LABEL_OTHER);
	label_stats(&st);
	assert_int_equal(st.used, 2 + 64);
	assert_int_equal(st.dropped, 2);
	for (pid = 100; pid < 100 + 64; pid++)
		label_exit(pid);
	label_exit(200);
}

static void
test_runs(void **state)
{
	struct label_stats st;
	char msg[256];

	(void)state;
	label_configure(CONF_LABEL_BY_UNIT, 10);
	label_cgroup(100, "/system.slice/nginx.service");
	assert_int_equal(label_run(50, "job", msg, sizeof(msg)), 0);
	assert_string_equal(name_of(50, 100), "job");
	assert_string_equal(name_of(51, 100), "nginx.service");
	label_fork(51, 50);
	label_fork(52, 51);
	label_fork(50, 50);		/* a thread */
	assert_string_equal(name_of(51, 100), "job");
	assert_string_equal(name_of(52, 100), "job");
	label_stats(&st);
	assert_int_equal(st.running, 3);
	label_exit(50);
	assert_string_equal(name_of(50, 100), "nginx.service");
	assert_string_equal(name_of(52, 100), "job");
	/* Relabelled: its children from now on take the new one. */
	assert_int_equal(label_run(52, "other-job", msg, sizeof(msg)), 0);
	label_fork(53, 52);
	assert_string_equal(name_of(53, 100), "other-job");
	assert_string_equal(name_of(51, 100), "job");
	label_exit(51);
	label_exit(52);
	label_exit(53);
	label_stats(&st);
	assert_int_equal(st.running, 0);
	/* dcpid's own names are not for runs. */
	assert_int_equal(label_run(60, "[idle]", msg, sizeof(msg)), -1);
	assert_int_equal(label_run(60, "", msg, sizeof(msg)), -1);
}

static void
test_by(void **state)
{
	(void)state;
	label_configure(CONF_LABEL_BY_CGROUP, 10);
	label_cgroup(100, "/system.slice/nginx.service");
	assert_string_equal(name_of(1, 100), "/system.slice/nginx.service");
	label_configure(CONF_LABEL_BY_NONE, 10);
	proc_reads = 0;
	assert_int_equal(label_of(1, 100), LABEL_NONE);
	assert_int_equal(proc_reads, 0);
	label_configure(CONF_LABEL_BY_UNIT, 10);
	proc_path = "/system.slice/nginx.service";
	assert_string_equal(name_of(1, 100), "nginx.service");
}

/* dcpid in a container: the records' paths are the kernel's, from the
 * hierarchy's root; /proc's are from the namespace's root, learned from
 * the first cgroup seen both ways. */
static void
test_namespace(void **state)
{
	(void)state;
	label_configure(CONF_LABEL_BY_CGROUP, 10);
	label_cgroup(100, "/payload/system.slice/a.service");
	label_cgroup(101, "/payload/b");
	label_cgroup(102, "/elsewhere/c");
	label_cgroup(103, "/payload/system.slice/d.service");
	proc_path = "/system.slice/a.service";
	assert_string_equal(name_of(1, 100), "/system.slice/a.service");
	/* Gone before their first sample: the record less the root. */
	proc_path = NULL;
	assert_string_equal(name_of(2, 101), "/b");
	assert_string_equal(name_of(3, 102), "/elsewhere/c");
	/* Outside the namespace, /proc says "/..": the record's path. */
	proc_path = "/../../d";
	assert_string_equal(name_of(4, 103), "/system.slice/d.service");
}

/* The namespace's root learned at a record's arrival, by finding the new
 * cgroup under the mount by its id (here a real cgroup made for the test,
 * announced with a made-up root above it). */
static void
test_namespace_arrival(void **state)
{
	char mount[4096], dir[4200], abspath[4300];
	uint64_t id;

	(void)state;
	if (cgroup_mount(mount, sizeof(mount)) != 1) {
		if (getenv("DCPI_REQUIRE_PERF") != NULL)
			fail_msg("no cgroup2 mount");
		skip();
	}
	snprintf(dir, sizeof(dir), "%s/dcpitest-label-%d", mount, (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cgroup_path_id(dir, &id), 0);
	label_configure(CONF_LABEL_BY_CGROUP, 10);
	label_scan();
	snprintf(abspath, sizeof(abspath), "/machine.slice/x.scope/payload/dcpitest-label-%d",
	    (int)getpid());
	label_cgroup_arrival(id + 1, abspath);		/* not this cgroup */
	label_cgroup(555, "/machine.slice/x.scope/payload/system.slice/z.service");
	assert_string_equal(name_of(1, 555),
	    "/machine.slice/x.scope/payload/system.slice/z.service");
	label_cgroup_arrival(id, abspath);
	label_cgroup(556, "/machine.slice/x.scope/payload/system.slice/y.service");
	/* The record names it, not the cgroup the process is in by now. */
	proc_path = "/system.slice/moved-on.service";
	proc_reads = 0;
	assert_string_equal(name_of(1, 556), "/system.slice/y.service");
	assert_int_equal(proc_reads, 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A storm of cgroups: the table stays bounded, the names stay right. */
static void
test_bounded(void **state)
{
	struct label_stats st;
	char path[64];
	uint64_t i;

	(void)state;
	for (i = 0; i < 50000; i++) {
		snprintf(path, sizeof(path), "/storm/c%ju", (uintmax_t)i);
		label_cgroup(10000 + i, path);
	}
	label_stats(&st);
	assert_true(st.cgroups <= 16384);
	assert_true(st.memory < 4u << 20);
	assert_string_equal(name_of(1, 10000 + 49999), "/storm/c49999");
	assert_int_equal(label_of(2, 10000 + 49998), LABEL_FIRST + 1);
	assert_int_equal(label_of(3, 10000 + 49997), LABEL_OTHER);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_cgroup_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap_and_epochs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_reserve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by, setup, teardown),
		cmocka_unit_test_setup_teardown(test_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_namespace_arrival, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
