/*
 * The process table (daemon/proc.h): processes by pid in lib/htab.h's
 * table, each allocated once and freed when the last module holding it
 * lets it go, and the modules' hooks for the process records.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "proc.h"
#include "xmalloc.h"

struct htab		 proc_table;
struct proc		*proc_last;
size_t			 proc_nheld[PROC_NMODS];

static const struct proc_hooks *hooks[PROC_NMODS];

struct proc *
proc_hold(uint32_t pid, enum proc_mod m)
{
	struct htab_iter it;
	struct proc *p = proc_last;

	if (p == NULL || p->pid != pid) {
		p = (struct proc *)htab_find_u32(&proc_table, pid,
		    offsetof(struct proc, pid), &it);
		if (p == NULL) {
			p = xcalloc(1, sizeof(*p));
			p->pid = pid;
			xhtab_add(&proc_table, pid, (uintptr_t)p);
		}
		proc_last = p;
	}
	if (!(p->held & 1u << m)) {
		p->held |= 1u << m;
		proc_nheld[m]++;
	}
	return p;
}

void
proc_release(struct proc *p, enum proc_mod m, struct htab_iter *it)
{
	struct htab_iter own;

	if (!(p->held & 1u << m))
		return;
	p->held &= ~(1u << m);
	proc_nheld[m]--;
	if (p->held != 0)
		return;
	if (it == NULL) {
		it = &own;
		htab_find_u32(&proc_table, p->pid, offsetof(struct proc, pid), it);
	}
	htab_del(&proc_table, it);
	if (proc_last == p)
		proc_last = NULL;
	free(p);
	/* Every module gone (their finis): nothing left behind. */
	if (proc_table.n == 0)
		htab_fini(&proc_table);
}

struct proc *
proc_each(enum proc_mod m, struct htab_iter *it)
{
	struct proc *p;

	while ((p = (struct proc *)htab_each(&proc_table, it)) != NULL)
		if (p->held & 1u << m)
			return p;
	return NULL;
}

size_t
proc_memory(void)
{
	return proc_table.n * sizeof(struct proc) + htab_memory(&proc_table);
}

void
proc_set_hooks(enum proc_mod m, const struct proc_hooks *h)
{
	hooks[m] = h;
}

void
proc_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	int m;

	for (m = 0; m < PROC_NMODS; m++)
		if (hooks[m] != NULL && hooks[m]->fork != NULL)
			hooks[m]->fork(pid, ppid, tid, ptid);
}

void
proc_comm(uint32_t pid, uint32_t tid, const char *comm, int exec)
{
	int m;

	for (m = PROC_NMODS - 1; m >= 0; m--)
		if (hooks[m] != NULL && hooks[m]->comm != NULL)
			hooks[m]->comm(pid, tid, comm, exec);
}

void
proc_exit(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	int m;

	for (m = PROC_NMODS - 1; m >= 0; m--)
		if (hooks[m] != NULL && hooks[m]->exit != NULL)
			hooks[m]->exit(pid, ppid, tid, ptid);
}
