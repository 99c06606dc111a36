/*
 * The processes dcpid knows: one table, pid -> struct proc, for every
 * module that keeps something per process (the attribution's address
 * space, a `dcpictl label` run, the call chains held, JIT samples
 * pending), and the process records (FORK, COMM, EXIT) handed to those
 * modules in one fixed order.
 *
 * A module holds a process (proc_hold) while it keeps something of it and
 * releases it (proc_release) when it keeps nothing more, at the latest at
 * its EXIT (stack.c, whose chains of an exited process wait for a fold,
 * at that fold); the process leaves the table when no module holds it.
 * Its fields are grouped by module: each module reads and writes its own
 * only, and leaves them zero when it releases the process.  They are in
 * place, not behind a pointer per module: every sample reads the
 * attribution's right after the lookup.
 */
#ifndef DCPID_PROC_H
#define DCPID_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "htab.h"

/*
 * The modules, in the order the process records reach them: a FORK in
 * this order, a COMM and an EXIT in the reverse one.  The attribution
 * learns of a process first and forgets it last, so that the others may
 * ask it about the process until their own hooks have run: at an exec or
 * exit jit.c names the process's pending samples under the command
 * attr_proc_comm gives, the one before the exec.
 */
enum proc_mod {
	PROC_ATTR,		/* attr.c */
	PROC_STACK,		/* stack.c */
	PROC_LABEL,		/* labeler.c */
	PROC_JIT,		/* jit.c */
	PROC_NMODS
};

struct attr_map;
struct label_run;
struct jproc;

struct proc {
	uint32_t	 pid;		/* its threads' tgid */
	uint8_t		 held;		/* 1 << m for each module m holding it */
	/* stack.c: it has exited, its raw chains wait for the next fold */
	uint8_t		 chains_dead;
	/* attr.c: the address space, executable mappings sorted by start
	 * in maps[0..n) of an array of cap with front entries free before
	 * maps[0]; last: the one hit last */
	uint32_t	 n, cap, last, front;
	struct attr_map	*maps;
	char		 comm[16];	/* the main thread's */
	/* stack.c: raw chains of it held (since the last flush) */
	uint32_t	 chains;
	/* labeler.c: its `dcpictl label` run */
	struct label_run *run;
	/* jit.c: its JIT samples pending, its perf map and jitdump read */
	struct jproc	*jit;
};

/* The table and its last hit, for the inline lookup (proc.c writes them). */
extern struct htab	 proc_table;
extern struct proc	*proc_last;
extern size_t		 proc_nheld[PROC_NMODS];

/* pid's process if module m holds it, else NULL.  Inline with a one-entry
 * cache: the sample path looks up the process of every sample, and
 * samples come in runs of one process. */
static inline struct proc *
proc_find(uint32_t pid, enum proc_mod m)
{
	struct htab_iter it;
	struct proc *p = proc_last;

	if (p == NULL || p->pid != pid) {
		if ((p = (struct proc *)htab_find_u32(&proc_table, pid,
		    offsetof(struct proc, pid), &it)) == NULL)
			return NULL;
		proc_last = p;
	}
	return p->held & 1u << m ? p : NULL;
}

/* Processes module m holds. */
static inline size_t
proc_count(enum proc_mod m)
{
	return proc_nheld[m];
}

/* pid's process, added if new, held by m from now on (m's fields are
 * zero if m did not hold it). */
struct proc *proc_hold(uint32_t pid, enum proc_mod m);
/* m holds p no more (its fields left zero); p is freed when no module
 * holds it.  it: the walk (proc_each) that gave p, which goes on with the
 * processes not given yet; NULL outside one. */
void proc_release(struct proc *p, enum proc_mod m, struct htab_iter *it);
/* The processes m holds, each once: *it zeroed first, then NULL at the
 * end.  proc_release of the one given last is allowed between calls, not
 * proc_hold. */
struct proc *proc_each(enum proc_mod m, struct htab_iter *it);
/* Bytes of the table and its processes (the modules' own allocations
 * not included). */
size_t proc_memory(void);

/*
 * The process records as perf gives them, in time order: each module's
 * hooks, set at its init (NULL at its fini; a NULL hook is skipped), are
 * called in the order above.  A COMM names the thread tid of pid; exec
 * says it comes of an exec (PERF_RECORD_MISC_COMM_EXEC).  A FORK and an
 * EXIT are a thread's when pid == ppid or pid != tid respectively.
 */
struct proc_hooks {
	void	(*fork)(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);
	void	(*comm)(uint32_t pid, uint32_t tid, const char *comm, int exec);
	void	(*exit)(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);
};
void proc_set_hooks(enum proc_mod m, const struct proc_hooks *h);
void proc_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);
void proc_comm(uint32_t pid, uint32_t tid, const char *comm, int exec);
void proc_exit(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);

#endif
