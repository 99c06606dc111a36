/*
 * /proc/PID/status (daemon/procstatus.c): texts as kernels write them
 * (a process in a container, one with no groups, one with more than are
 * kept), malformed ones, and this process's own file against what the
 * system calls say.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "procstatus.h"

static void
parse(const char *text, struct procstatus *ps)
{
	assert_int_equal(procstatus_parse(text, strlen(text), ps), 0);
}

/* A user's process in a container (Debian 12's kernel): every line. */
static void
test_container(void **state)
{
	struct procstatus ps;

	(void)state;
	parse("Name:\tsshd\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t81234\n"
	    "Uid:\t1000\t1001\t1002\t1003\nGid:\t100\t101\t102\t103\n"
	    "FDSize:\t64\nGroups:\t4 24 27 100 \nNStgid:\t81234\t17\n"
	    "NSpid:\t81234\t17\nNSpgid:\t81234\t17\n"
	    "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\n"
	    "CapEff:\t000001ffffffffff\nSeccomp:\t2\nSeccomp_filters:\t3\n", &ps);
	assert_int_equal(ps.have, PROCSTATUS_UID | PROCSTATUS_GID |
	    PROCSTATUS_GROUPS | PROCSTATUS_NSPID | PROCSTATUS_CAPEFF |
	    PROCSTATUS_SECCOMP);
	assert_int_equal(ps.uid[0], 1000);
	assert_int_equal(ps.uid[3], 1003);
	assert_int_equal(ps.gid[1], 101);
	assert_int_equal(ps.ngroups, 4);
	assert_int_equal(ps.groups[0], 4);
	assert_int_equal(ps.groups[3], 100);
	/* The innermost namespace's pid: the name of its perf map there. */
	assert_int_equal(ps.nspid, 17);
	assert_true(ps.cap_eff == 0x1ffffffffffULL);
	assert_int_equal(ps.seccomp, 2);
}

/* No supplementary groups: the kernel writes "Groups:\t \n"; wide ids. */
static void
test_no_groups(void **state)
{
	struct procstatus ps;

	(void)state;
	parse("Uid:\t4294967295\t0\t0\t0\nGroups:\t \nGid:\t0\t0\t0\t0\n"
	    "NSpid:\t1\n", &ps);
	assert_int_equal(ps.have, PROCSTATUS_UID | PROCSTATUS_GID |
	    PROCSTATUS_GROUPS | PROCSTATUS_NSPID);
	assert_int_equal(ps.ngroups, 0);
	assert_true(ps.uid[0] == UINT32_MAX);
	assert_int_equal(ps.nspid, 1);
	/* The last line needs no newline. */
	parse("Gid:\t7\t7\t7\t7", &ps);
	assert_int_equal(ps.have, PROCSTATUS_GID);
	assert_int_equal(ps.gid[3], 7);
}

/* Each malformed line is left out, alone: its bit clear, its fields 0. */
static void
test_malformed(void **state)
{
	static const char nul[] = "Uid:\t1\0002\t3\t4\nGid:\t1\t1\t1\t1\n";
	char text[4096];
	struct procstatus ps;
	size_t n;
	int i;

	(void)state;
	/* Three uids; a gid past 32 bits; a letter; a nesting of pid 0;
	 * 17 hex digits; a seccomp mode that does not exist. */
	parse("Uid:\t1\t2\t3\nGid:\t4294967296\t0\t0\t0\nGroups:\t1 2x\n"
	    "NSpid:\t0\nCapEff:\t10000000000000000\nSeccomp:\t3\n"
	    "CapPrm:\t0000000000000001\n", &ps);
	assert_int_equal(ps.have, 0);
	assert_int_equal(ps.uid[0], 0);
	assert_int_equal(ps.gid[0], 0);
	assert_int_equal(ps.ngroups, 0);
	assert_true(ps.cap_eff == 0);
	/* Five uids; a line without its colon; a name that only starts the
	 * same; then a well-formed one, which counts. */
	parse("Uid:\t1\t2\t3\t4\t5\nUid 9 9 9 9\nUidx:\t8\t8\t8\t8\n"
	    "Uid:\t6\t6\t6\t6\nUid:\t7\t7\t7\t7\n", &ps);
	assert_int_equal(ps.have, PROCSTATUS_UID);
	assert_int_equal(ps.uid[0], 6);
	/* More groups than are kept: none (a part of them would be another
	 * user's view of the files). */
	n = (size_t)snprintf(text, sizeof(text), "Groups:\t");
	for (i = 1; i <= PROCSTATUS_GROUPS_MAX + 1; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d ", i);
	snprintf(text + n, sizeof(text) - n, "\nUid:\t0\t0\t0\t0\n");
	parse(text, &ps);
	assert_int_equal(ps.have, PROCSTATUS_UID);
	assert_int_equal(ps.ngroups, 0);
	/* Exactly as many: kept. */
	n = (size_t)snprintf(text, sizeof(text), "Groups:\t");
	for (i = 1; i <= PROCSTATUS_GROUPS_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d ", i);
	parse(text, &ps);
	assert_int_equal(ps.have, PROCSTATUS_GROUPS);
	assert_int_equal(ps.ngroups, PROCSTATUS_GROUPS_MAX);
	assert_int_equal(ps.groups[PROCSTATUS_GROUPS_MAX - 1], PROCSTATUS_GROUPS_MAX);
	/* A NUL inside a line is not a number; the text's length, not a NUL,
	 * ends it. */
	assert_int_equal(procstatus_parse(nul, sizeof(nul) - 1, &ps), 0);
	assert_int_equal(ps.have, PROCSTATUS_GID);
	assert_int_equal(procstatus_parse("Uid:\t1\t2\t3\t4", 9, &ps), 0);
	assert_int_equal(ps.have, 0);
	/* Nothing: a process that exited while it was read. */
	assert_int_equal(procstatus_parse("", 0, &ps), 0);
	assert_int_equal(ps.have, 0);
}

/* This process's file says what the system calls say. */
static void
test_read_self(void **state)
{
	struct procstatus ps;
	gid_t groups[PROCSTATUS_GROUPS_MAX];
	int n;

	(void)state;
	assert_int_equal(procstatus_read(0, &ps), 0);
	assert_true((ps.have & (PROCSTATUS_UID | PROCSTATUS_GID | PROCSTATUS_GROUPS |
	    PROCSTATUS_NSPID | PROCSTATUS_CAPEFF | PROCSTATUS_SECCOMP)) ==
	    (PROCSTATUS_UID | PROCSTATUS_GID | PROCSTATUS_GROUPS |
	    PROCSTATUS_NSPID | PROCSTATUS_CAPEFF | PROCSTATUS_SECCOMP));
	assert_int_equal(ps.uid[0], getuid());
	assert_int_equal(ps.uid[1], geteuid());
	assert_int_equal(ps.gid[0], getgid());
	n = getgroups(PROCSTATUS_GROUPS_MAX, groups);
	assert_int_equal(ps.ngroups, n);
	assert_int_equal(prctl(PR_GET_SECCOMP), ps.seccomp);
	/* Root has CAP_SYS_ADMIN (21); anyone else, in this suite, none. */
	assert_int_equal((int)(ps.cap_eff >> 21 & 1), geteuid() == 0);
	/* By pid: the same file. */
	assert_int_equal(procstatus_read((uint32_t)getpid(), &ps), 0);
	assert_int_equal(ps.uid[1], geteuid());
	assert_true(ps.nspid > 0);
}

/* A process that is gone: ENOENT, nothing left set. */
static void
test_read_gone(void **state)
{
	struct procstatus ps;
	pid_t pid;
	int st;

	(void)state;
	if ((pid = fork()) == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	memset(&ps, 0xff, sizeof(ps));
	assert_int_equal(procstatus_read((uint32_t)pid, &ps), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(ps.have, 0);
	assert_int_equal(ps.uid[0], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_no_groups),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_read_self),
		cmocka_unit_test(test_read_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
