/*
 * daemon/proc.c: the process table (a process kept while a module holds
 * it, the lookup's last hit forgotten with the process, walks that
 * release) and the order in which the process records reach the modules.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proc.h"

/* A process held and released by two modules: in the table while either
 * holds it, counted per module. */
static void
test_hold_release(void **state)
{
	struct proc *p, *q;

	(void)state;
	assert_null(proc_find(10, PROC_ATTR));
	p = proc_hold(10, PROC_ATTR);
	assert_int_equal(p->pid, 10);
	assert_ptr_equal(proc_find(10, PROC_ATTR), p);
	assert_null(proc_find(10, PROC_LABEL));		/* not labeler.c's */
	assert_ptr_equal(proc_hold(10, PROC_LABEL), p);
	assert_ptr_equal(proc_hold(10, PROC_LABEL), p);	/* (held once) */
	assert_int_equal(proc_count(PROC_ATTR), 1);
	assert_int_equal(proc_count(PROC_LABEL), 1);
	assert_true(proc_memory() >= sizeof(struct proc));
	q = proc_hold(11, PROC_ATTR);
	assert_true(q != p);
	assert_ptr_equal(proc_find(10, PROC_LABEL), p);
	proc_release(p, PROC_ATTR, NULL);
	assert_null(proc_find(10, PROC_ATTR));
	assert_ptr_equal(proc_find(10, PROC_LABEL), p);
	assert_int_equal(proc_count(PROC_ATTR), 1);
	proc_release(p, PROC_ATTR, NULL);		/* (not held: nothing) */
	assert_int_equal(proc_count(PROC_ATTR), 1);
	/* The last hit, freed: not found through the cache. */
	assert_ptr_equal(proc_find(10, PROC_LABEL), p);
	proc_release(p, PROC_LABEL, NULL);
	assert_null(proc_find(10, PROC_LABEL));
	assert_int_equal(proc_count(PROC_LABEL), 0);
	proc_release(q, PROC_ATTR, NULL);
	assert_int_equal(proc_count(PROC_ATTR), 0);
	assert_int_equal(proc_memory(), 0);
}

/* A walk gives the processes of one module, each once, and may release
 * each as it goes. */
static void
test_each(void **state)
{
	struct htab_iter it;
	struct proc *p;
	uint32_t pid, seen = 0, n = 0;

	(void)state;
	for (pid = 1; pid <= 1000; pid++) {
		proc_hold(pid, PROC_STACK);
		if (pid % 2 == 0)
			proc_hold(pid, PROC_JIT);
	}
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_JIT, &it)) != NULL) {
		assert_int_equal(p->pid % 2, 0);
		n++;
	}
	assert_int_equal(n, 500);
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_STACK, &it)) != NULL) {
		seen += p->pid;
		proc_release(p, PROC_STACK, &it);
	}
	assert_int_equal(seen, 1000 * 1001 / 2);
	assert_int_equal(proc_count(PROC_STACK), 0);
	assert_int_equal(proc_count(PROC_JIT), 500);
	memset(&it, 0, sizeof(it));
	n = 0;
	while ((p = proc_each(PROC_JIT, &it)) != NULL) {
		assert_int_equal(p->pid % 2, 0);
		proc_release(p, PROC_JIT, &it);
		n++;
	}
	assert_int_equal(n, 500);
	assert_int_equal(proc_memory(), 0);
}

/* The hooks: a FORK in the modules' order, a COMM and an EXIT in the
 * reverse one; a module without hooks, or without that hook, skipped. */
static char	 calls[256];

static void
note(const char *what, uint32_t pid)
{
	size_t len = strlen(calls);

	snprintf(calls + len, sizeof(calls) - len, "%s%u ", what, pid);
}

/* Each module's hooks note their calls: the module's letter, the
 * record's (f fork, c comm, E comm of an exec, x exit) and the pid. */
#define TASK_HOOK(name, what)						\
static void								\
name(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)		\
{									\
	(void)ppid;							\
	(void)tid;							\
	(void)ptid;							\
	note(what, pid);						\
}
#define COMM_HOOK(name, m)						\
static void								\
name(uint32_t pid, uint32_t tid, const char *comm, int exec)		\
{									\
	(void)tid;							\
	assert_string_equal(comm, "sh");				\
	note(exec ? m "E" : m "c", pid);				\
}
TASK_HOOK(attr_fork_, "af")
COMM_HOOK(attr_comm_, "a")
TASK_HOOK(attr_exit_, "ax")
TASK_HOOK(stack_exit_, "sx")
TASK_HOOK(label_fork_, "lf")
TASK_HOOK(label_exit_, "lx")
COMM_HOOK(jit_comm_, "j")
TASK_HOOK(jit_exit_, "jx")

static void
test_hooks(void **state)
{
	static const struct proc_hooks ah = { attr_fork_, attr_comm_, attr_exit_ };
	static const struct proc_hooks sh = { NULL, NULL, stack_exit_ };
	static const struct proc_hooks lh = { label_fork_, NULL, label_exit_ };
	static const struct proc_hooks jh = { NULL, jit_comm_, jit_exit_ };

	(void)state;
	calls[0] = '\0';
	/* Registered in any order: called in the table's, which is the
	 * order the modules' calls had in core.c. */
	proc_set_hooks(PROC_JIT, &jh);
	proc_set_hooks(PROC_LABEL, &lh);
	proc_set_hooks(PROC_STACK, &sh);
	proc_set_hooks(PROC_ATTR, &ah);
	proc_fork(20, 1, 20, 1);
	proc_comm(20, 20, "sh", 1);
	proc_comm(20, 21, "sh", 0);
	proc_exit(20, 1, 20, 1);
	assert_string_equal(calls,
	    "af20 lf20 jE20 aE20 jc20 ac20 jx20 lx20 sx20 ax20 ");
	proc_set_hooks(PROC_STACK, NULL);
	proc_set_hooks(PROC_LABEL, NULL);
	calls[0] = '\0';
	proc_fork(21, 1, 21, 1);
	proc_exit(21, 1, 21, 1);
	assert_string_equal(calls, "af21 jx21 ax21 ");
	proc_set_hooks(PROC_JIT, NULL);
	proc_set_hooks(PROC_ATTR, NULL);
	calls[0] = '\0';
	proc_exit(22, 1, 22, 1);
	assert_string_equal(calls, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_release),
		cmocka_unit_test(test_each),
		cmocka_unit_test(test_hooks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
