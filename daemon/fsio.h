/*
 * File-system calls with a deadline.  dcpid reads the images its samples
 * land in, and a file on a hung NFS server or a stuck FUSE server blocks
 * whoever touches it, for minutes or for good: the event loop stopped
 * there, every CPU's buffer overflowed and the control socket went quiet.
 * Calls on the images' files (open, stat, reading an ELF image or a file
 * for the build-id cache) run on a helper thread instead, and the loop
 * waits for each at most a deadline.  A call past its deadline is left to
 * finish on its helper, which then releases what the call holds; the
 * caller treats the file as unreadable for now and tries again later.
 * The helpers touch nothing of the daemon's but the call's own argument.
 */
#ifndef DCPID_FSIO_H
#define DCPID_FSIO_H

#include <sys/stat.h>

#include <stdint.h>

/* How long the loop waits for one call, in milliseconds; while a call is
 * held up, FSIO_DEADLINE_HELD_MS for the others (calls about other files
 * of the hung file system, under keys not yet known to be the same, would
 * otherwise cost the whole deadline each). */
#define FSIO_DEADLINE_MS	500
#define FSIO_DEADLINE_HELD_MS	100
/* Helpers at most, held-up ones included: past that many calls held up,
 * new calls fail at once (EAGAIN) until one returns. */
#define FSIO_HELPERS		16

void fsio_init(void);
/* Stops the idle helpers; a held-up one is left to the process's exit. */
void fsio_fini(void);

/* Runs fn(arg) on a helper and waits for it at most ms milliseconds
 * (FSIO_DEADLINE_HELD_MS at most while another call is held up).
 * key says what the call is about (a file system's st_dev, or a value
 * that fsio_key gives for a path), 0 nothing known: while a call about
 * key is held up, the next ones about it fail at once (EAGAIN).  A key
 * that fsio_dev_local calls local runs fn in the caller and returns 0.
 * 0: fn returned, and arg is the caller's again.  -1 with errno ETIMEDOUT:
 * fn still runs; when it returns, the helper calls late(arg), which must
 * release what arg holds (close, free) and touch nothing else; arg is no
 * longer the caller's.  -1 with errno EAGAIN: FSIO_HELPERS calls are held
 * up, or one about key is; fn did not run.  Where no thread can be started
 * at all (and none is held up), fn runs in the caller, logged once, and 0
 * is returned.  Main thread only. */
int fsio_call(uint64_t key, void (*fn)(void *arg), void (*late)(void *arg),
    void *arg, int ms);
/* A key for calls about path when its file system is not known: never an
 * st_dev (its top bit is set). */
uint64_t fsio_key(const char *path);

/* open(path, flags | O_CLOEXEC) and fstat of it within the deadline: the
 * fd (the caller closes it) and *st, or -1 with errno: open's or fstat's,
 * or ETIMEDOUT or EAGAIN as fsio_call's. */
int fsio_open(const char *path, int flags, uint64_t key, struct stat *st);
/* Whose credentials an open takes: a process's user and groups, as its
 * /proc/PID/status gives them. */
#define FSIO_GROUPS_MAX	64
struct fsio_cred {
	uint32_t	 uid[3], gid[3];	/* real, effective, saved */
	uint32_t	 ngroups, groups[FSIO_GROUPS_MAX];
};
/* Reads pid's credentials from /proc/PID/status (procstatus_read): 0, or
 * -1 with errno (ENOENT: the process is gone; EINVAL: no well-formed
 * "Uid:", "Gid:" or "Groups:" line, or more than FSIO_GROUPS_MAX
 * supplementary groups; procstatus_read's). */
int fsio_cred_of(uint32_t pid, struct fsio_cred *cred);
/* fsio_open, the open made with cred's user and groups instead of dcpid's:
 * on a thread of its own that takes them (setgroups, setresgid, setresuid:
 * CAP_SETGID and CAP_SETUID) and ends with the call, so that no other
 * thread ever runs as another user.  For a file that root may not open but
 * the process that maps it may: a FUSE mount without allow_other (sshfs,
 * an AppImage, rootless Podman's fuse-overlayfs), NFS with root_squash.
 * The fd is dcpid's like any other: reads through it are not checked
 * again.  -1 with errno as fsio_open's, or EPERM where the credentials
 * cannot be taken (no CAP_SETUID or CAP_SETGID, a seccomp filter), or
 * EAGAIN where no thread can be started. */
int fsio_open_as(const char *path, int flags, uint64_t key, struct stat *st,
    const struct fsio_cred *cred);
/* Whether a file of st's owner, group and mode is one that cred's user
 * could read (or make readable: its owner): 1 or 0.  Both the real and
 * the effective user must: a set-user-ID program's own execute-only file
 * is not its caller's to read.  User 0 reads anything.  POSIX ACLs are
 * not read: the group's bits are their mask, so a user an ACL names
 * outside the group is refused (the safe side); an ACL that denies one
 * user what the others' bits grant is not seen. */
int fsio_cred_may_read(const struct fsio_cred *cred, const struct stat *st);
/* Whether dcpid has CAP_SETUID and CAP_SETGID in its effective set (its
 * /proc/self/status, read once), without which fsio_open_as cannot take a
 * user's credentials and is better not tried: 1 or 0. */
int fsio_can_open_as(void);
/* stat(path) within the deadline: 0, or -1 with errno (as fsio_open). */
int fsio_stat(const char *path, uint64_t key, struct stat *st);
/* Whether errno, after a failed fsio call, says the file system did not
 * answer (ETIMEDOUT, EAGAIN) rather than that the file is not there. */
int fsio_held_up(int err);

/* Calls that passed their deadline and have not returned yet. */
unsigned fsio_held(void);
/* Calls made since fsio_init (fsio_call's, the wrappers' included), and
 * of them those run in the caller, their key a device on a local file
 * system. */
unsigned long fsio_calls(void);
unsigned long fsio_direct(void);
/* Whether dev (an st_dev; 0 or an fsio_key: no) is on a file system that
 * only the local kernel answers for (a local disk's, tmpfs, overlay, proc)
 * as /proc/self/mountinfo says, read again after 10 s; such a call runs
 * in the caller. */
int fsio_dev_local(uint64_t dev);
/* Calls that have passed their deadline since fsio_init. */
unsigned long fsio_timeouts(void);
/* STATUS: file-system-waits (the counts above). */
struct status_writer;
void fsio_status(struct status_writer *w);

#endif
