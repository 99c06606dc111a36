/*
 * A process's /proc/PID/status (proc(5)): the lines dcpid acts on, parsed
 * in one place.  Who a process is (its uids, gids and groups: whose
 * credentials an image is opened with, who may label it), its pid in its
 * own namespace (the name of its perf map there), and for dcpid itself its
 * effective capabilities and seccomp mode (why perf_event_open or an open
 * as another user is refused).
 *
 * Errors: -1 with errno; nothing is logged.
 */
#ifndef DCPID_PROCSTATUS_H
#define DCPID_PROCSTATUS_H

#include <stddef.h>
#include <stdint.h>

/* Supplementary groups kept; a process with more has no PROCSTATUS_GROUPS
 * (setgroups of a part of them would be another user's view). */
#define PROCSTATUS_GROUPS_MAX	64

/* Bits of procstatus.have: the lines found and well-formed. */
enum {
	PROCSTATUS_UID		= 1 << 0,	/* "Uid:": four numbers */
	PROCSTATUS_GID		= 1 << 1,	/* "Gid:": four numbers */
	PROCSTATUS_GROUPS	= 1 << 2,	/* "Groups:": at most ..._MAX */
	PROCSTATUS_NSPID	= 1 << 3,	/* "NSpid:": one or more */
	PROCSTATUS_CAPEFF	= 1 << 4,	/* "CapEff:": hexadecimal */
	PROCSTATUS_SECCOMP	= 1 << 5,	/* "Seccomp:": 0, 1 or 2 */
};

struct procstatus {
	unsigned	 have;		/* PROCSTATUS_ bits */
	uint32_t	 uid[4];	/* real, effective, saved, file system */
	uint32_t	 gid[4];	/* the same */
	uint32_t	 ngroups;
	uint32_t	 groups[PROCSTATUS_GROUPS_MAX];
	uint32_t	 nspid;		/* the pid in the innermost pid namespace */
	uint64_t	 cap_eff;	/* effective capabilities, bit CAP_x */
	int		 seccomp;	/* 0 none, 1 strict, 2 a filter */
};

/*
 * The text of a status file (text[len], not NUL-terminated; lines
 * "Name:\tVALUE") parsed into *ps.  A line that is missing or malformed
 * (a number out of range or not a number, the wrong count) leaves its bit
 * of ps->have clear and its fields 0; the other lines are still read.  Of
 * lines with the same name the first well-formed one counts.  Never fails:
 * 0.
 */
int procstatus_parse(const char *text, size_t len, struct procstatus *ps);

/*
 * /proc/PID/status read (pid 0: /proc/self/status) and parsed by
 * procstatus_parse.  0, or -1 with errno: ENOENT when the process is gone
 * (also when it exits while the file is read, which leaves the file
 * empty), the errors of open(2)/read(2), ENOMEM; *ps is then all 0.
 */
int procstatus_read(uint32_t pid, struct procstatus *ps);

#endif
