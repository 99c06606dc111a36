/*
 * File-system calls with a deadline (fsio.h).  Each helper runs one call
 * at a time; the loop hands a call to an idle helper (starting one if
 * none is idle) and waits on a condition variable until the call returns
 * or its deadline passes.  A helper whose call passed its deadline is
 * "held up": it is given nothing more until the call returns and its
 * late function has run.  Helpers block every signal: the loop alone acts
 * on them (its epoll_pwait's mask).
 *
 * A call about a device whose file system cannot stop answering (a local
 * disk's, tmpfs, overlay: /proc/self/mountinfo says which) runs in the
 * loop itself: a handover costs 53 us on a 2-CPU VM (a wake-up on the
 * other CPU and back) against 2 us for a stat, and a storm of short-lived
 * processes makes thousands of calls.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "fsio.h"
#include "log.h"
#include "procstatus.h"
#include "util.h"
#include "xmalloc.h"

struct helper {
	pthread_t	 th;
	pthread_cond_t	 cv;		/* a call was given, or quit */
	int		 started;
	/* Under lock: */
	void		(*fn)(void *), (*late)(void *);
	void		*arg;
	uint64_t	 key;		/* what the call is about, 0 unknown */
	int		 busy;		/* a call given, not yet finished */
	int		 done;		/* the call returned in time */
	int		 abandoned;	/* its deadline passed */
};

/* Devices known to be on a file system that cannot hang, or not, as
 * /proc/self/mountinfo said when it was read last (a device number is
 * reused once its file system is unmounted: read again after a while). */
#define DEVS_MAX	256
#define DEVS_TTL_MS	10000
static struct devent {
	uint64_t	 dev;
	int		 local;
} devs[DEVS_MAX];
static size_t		 ndevs;
static long long	 devs_read_ms = -1;

static pthread_mutex_t	 lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	 done_cv;	/* a helper's call returned */
static struct helper	 helpers[FSIO_HELPERS];
static int		 quit, inited, warned_nothread;
static unsigned		 nheld;
static unsigned long	 ncalls, ndirect, ntimeouts;

static void *
helper_main(void *a)
{
	struct helper *h = a;

	pthread_mutex_lock(&lock);
	for (;;) {
		void (*fn)(void *), (*late)(void *), *arg;

		while (!quit && (!h->busy || h->done))
			pthread_cond_wait(&h->cv, &lock);
		if (quit && (!h->busy || h->done))
			break;
		fn = h->fn;
		arg = h->arg;
		pthread_mutex_unlock(&lock);
		fn(arg);
		pthread_mutex_lock(&lock);
		if (h->abandoned) {
			/* The call has returned: no longer held up, its key
			 * free; the helper busy until late is done. */
			late = h->late;
			h->abandoned = 0;
			nheld--;
			pthread_mutex_unlock(&lock);
			late(arg);
			pthread_mutex_lock(&lock);
			h->busy = 0;
		} else {
			h->done = 1;
			pthread_cond_broadcast(&done_cv);
		}
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

void
fsio_init(void)
{
	pthread_condattr_t ca;
	size_t i;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&done_cv, &ca);
	for (i = 0; i < FSIO_HELPERS; i++) {
		memset(&helpers[i], 0, sizeof(helpers[i]));
		pthread_cond_init(&helpers[i].cv, NULL);
	}
	pthread_condattr_destroy(&ca);
	quit = 0;
	nheld = 0;
	ncalls = ndirect = ntimeouts = 0;
	ndevs = 0;
	devs_read_ms = -1;
	inited = 1;
}

void
fsio_fini(void)
{
	size_t i;

	if (!inited)
		return;
	pthread_mutex_lock(&lock);
	quit = 1;
	for (i = 0; i < FSIO_HELPERS; i++)
		pthread_cond_signal(&helpers[i].cv);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < FSIO_HELPERS; i++) {
		struct helper *h = &helpers[i];
		int held;

		if (!h->started)
			continue;
		pthread_mutex_lock(&lock);
		held = h->busy && !h->done;
		pthread_mutex_unlock(&lock);
		/* A held-up helper may never come back from the kernel. */
		if (held)
			pthread_detach(h->th);
		else {
			pthread_join(h->th, NULL);
			pthread_cond_destroy(&h->cv);
		}
		h->started = 0;
	}
	inited = 0;
}

/* An idle helper for a call about key, started if need be; NULL if none
 * may take it, with *nothread set when no thread could be started. */
static struct helper *
helper_idle(uint64_t key, int *nothread)
{
	sigset_t all, old;
	size_t i;

	/* A file system that keeps one call held up would hold up the next
	 * too: fail it at once rather than stall the loop again. */
	for (i = 0; key != 0 && i < FSIO_HELPERS; i++)
		if (helpers[i].started && helpers[i].abandoned &&
		    helpers[i].key == key)
			return NULL;
	for (i = 0; i < FSIO_HELPERS; i++)
		if (helpers[i].started && !helpers[i].busy)
			return &helpers[i];
	for (i = 0; i < FSIO_HELPERS; i++)
		if (!helpers[i].started)
			break;
	if (i == FSIO_HELPERS)
		return NULL;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = pthread_create(&helpers[i].th, NULL, helper_main, &helpers[i]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno != 0) {
		*nothread = 1;
		return NULL;
	}
	helpers[i].started = 1;
	return &helpers[i];
}

/* File systems whose calls are answered by the local kernel alone, from
 * memory or a local device; anything else (NFS, CIFS, Ceph, 9p, FUSE of
 * any kind, a type not listed) is asked on a helper. */
static int
fstype_local(const char *t)
{
	static const char *const local[] = {
		"ext2", "ext3", "ext4", "xfs", "btrfs", "bcachefs", "f2fs", "jfs",
		"reiserfs", "nilfs2", "zfs", "tmpfs", "ramfs", "devtmpfs", "overlay",
		"squashfs", "erofs", "iso9660", "udf", "vfat", "msdos", "exfat",
		"ntfs3", "hfsplus", "proc", "sysfs", "cgroup2", "hugetlbfs", NULL
	};
	size_t i;

	for (i = 0; local[i] != NULL; i++)
		if (strcmp(t, local[i]) == 0)
			return 1;
	return 0;
}

static void
devs_read(void)
{
	char line[4096], *sep, type[64];
	unsigned maj, min;
	FILE *fp;

	ndevs = 0;
	devs_read_ms = now_ms();
	if ((fp = fopen("/proc/self/mountinfo", "re")) == NULL)
		return;
	while (ndevs < DEVS_MAX && fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 &&
		    (sep = strstr(line, " - ")) != NULL &&
		    sscanf(sep + 3, "%63s", type) == 1) {
			devs[ndevs].dev = makedev(maj, min);
			devs[ndevs++].local = fstype_local(type);
		}
	fclose(fp);
}

int
fsio_dev_local(uint64_t dev)
{
	size_t i;
	int again;

	if (dev == 0 || dev >> 63)
		return 0;
	for (again = 0; again < 2; again++) {
		if (devs_read_ms < 0 || now_ms() - devs_read_ms > DEVS_TTL_MS ||
		    again)
			devs_read();
		for (i = 0; i < ndevs; i++)
			if (devs[i].dev == dev)
				return devs[i].local;
		/* Not there: mounted since it was read, or not ours to see
		 * (another mount namespace's), which is asked on a helper. */
		if (now_ms() - devs_read_ms < 1000)
			break;
	}
	return 0;
}

int
fsio_call(uint64_t key, void (*fn)(void *), void (*late)(void *), void *arg, int ms)
{
	struct helper *h;
	struct timespec dl;
	int nothread = 0;

	if (!inited)
		fsio_init();
	ncalls++;
	if (fsio_dev_local(key)) {
		ndirect++;
		fn(arg);
		return 0;
	}
	pthread_mutex_lock(&lock);
	if ((h = helper_idle(key, &nothread)) == NULL) {
		pthread_mutex_unlock(&lock);
		if (nothread && !nheld) {
			/* No thread at all (a task limit): the call runs in the
			 * loop, as it did before helpers, rather than never. */
			if (!warned_nothread)
				log_warn("cannot start a helper thread for file-system "
				    "calls: they run in the event loop, which a hung "
				    "file system would stop");
			warned_nothread = 1;
			fn(arg);
			return 0;
		}
		errno = EAGAIN;
		return -1;
	}
	h->fn = fn;
	h->late = late;
	h->arg = arg;
	h->key = key;
	h->busy = 1;
	h->done = 0;
	h->abandoned = 0;
	pthread_cond_signal(&h->cv);
	if (nheld > 0 && ms > FSIO_DEADLINE_HELD_MS)
		ms = FSIO_DEADLINE_HELD_MS;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	while (!h->done)
		if (pthread_cond_timedwait(&done_cv, &lock, &dl) == ETIMEDOUT &&
		    !h->done) {
			h->abandoned = 1;
			nheld++;
			ntimeouts++;
			pthread_mutex_unlock(&lock);
			errno = ETIMEDOUT;
			return -1;
		}
	h->busy = 0;
	h->done = 0;
	pthread_mutex_unlock(&lock);
	return 0;
}

uint64_t
fsio_key(const char *path)
{
	return fnv1a64_str(FNV1A64_INIT, path) | 1ULL << 63;
}

int
fsio_held_up(int err)
{
	return err == ETIMEDOUT || err == EAGAIN;
}

unsigned
fsio_held(void)
{
	unsigned n;

	pthread_mutex_lock(&lock);
	n = nheld;
	pthread_mutex_unlock(&lock);
	return n;
}

unsigned long
fsio_calls(void)
{
	return ncalls;		/* written by this thread only */
}

unsigned long
fsio_direct(void)
{
	return ndirect;
}

unsigned long
fsio_timeouts(void)
{
	return ntimeouts;	/* written by this thread only */
}

void
fsio_status(struct status_writer *w)
{
	status_add(w, "file-system-waits", "%lu calls past their deadline, %u held up "
	    "now, of %lu calls (%lu on local file systems)", fsio_timeouts(), fsio_held(),
	    fsio_calls(), fsio_direct());
}

/* ---- the calls ---- */

struct fcall {
	char		*path;
	int		 flags, fd, rc, err;
	struct stat	 st;
	struct fsio_cred cred;	/* fsio_open_as's own copy: a call past its
				 * deadline outlives the caller's */
};

static void
open_run(void *a)
{
	struct fcall *c = a;

	c->rc = -1;
	if ((c->fd = open(c->path, c->flags | O_CLOEXEC)) == -1)
		c->err = errno;
	else if (fstat(c->fd, &c->st) == -1) {
		c->err = errno;
		close(c->fd);
		c->fd = -1;
	} else
		c->rc = 0;
}

/* Takes c's credentials, for this thread only: the raw system calls, since
 * glibc's setresuid and setgroups make every thread of the process take
 * them.  Groups first, then the group, then the user, while the thread
 * still has CAP_SETGID. */
static void *
open_as_thread(void *a)
{
	struct fcall *c = a;
	const struct fsio_cred *k = &c->cred;

	if (syscall(SYS_setgroups, (size_t)k->ngroups, k->groups) == -1 ||
	    syscall(SYS_setresgid, k->gid[0], k->gid[1], k->gid[2]) == -1 ||
	    syscall(SYS_setresuid, k->uid[0], k->uid[1], k->uid[2]) == -1) {
		c->rc = -1;
		c->err = errno;
		return NULL;
	}
	open_run(c);
	return NULL;
}

/* On a helper: a thread of its own for the open, joined. */
static void
open_as_run(void *a)
{
	struct fcall *c = a;
	pthread_t th;

	/* The thread owns c until joined: nothing of c is touched here. */
	c->rc = -1;
	if (pthread_create(&th, NULL, open_as_thread, c) != 0) {
		c->err = EAGAIN;
		return;
	}
	pthread_join(th, NULL);
}

static void
stat_run(void *a)
{
	struct fcall *c = a;

	if ((c->rc = stat(c->path, &c->st)) == -1)
		c->err = errno;
}

static void
fcall_late(void *a)
{
	struct fcall *c = a;

	if (c->fd != -1)
		close(c->fd);
	free(c->path);
	free(c);
}

/* Runs fn on c, a malloc'd call, and frees c: 0 with c's fd (-1 if none)
 * in *fd and its stat in *st, or -1 with errno. */
static int
fcall_run(uint64_t key, void (*fn)(void *), struct fcall *c, int *fd,
    struct stat *st)
{
	int rc, err;

	if (fsio_call(key, fn, fcall_late, c, FSIO_DEADLINE_MS) == -1) {
		int e = errno;

		if (e == EAGAIN)
			fcall_late(c);
		errno = e;
		return -1;
	}
	if ((rc = c->rc) == -1) {
		if (c->fd != -1)
			close(c->fd);
	} else {
		*fd = c->fd;
		*st = c->st;
	}
	err = c->err;
	free(c->path);
	free(c);
	/* After the frees: not every free keeps errno (ASan's does not). */
	if (rc == -1)
		errno = err;
	return rc;
}

static struct fcall *
fcall_new(const char *path, int flags)
{
	struct fcall *c = xcalloc(1, sizeof(*c));

	c->path = xstrdup(path);
	c->flags = flags;
	c->fd = -1;
	return c;
}

int
fsio_open(const char *path, int flags, uint64_t key, struct stat *st)
{
	int fd;

	return fcall_run(key, open_run, fcall_new(path, flags), &fd, st) == -1 ?
	    -1 : fd;
}

int
fsio_open_as(const char *path, int flags, uint64_t key, struct stat *st,
    const struct fsio_cred *cred)
{
	struct fcall *c = fcall_new(path, flags);
	int fd;

	c->cred = *cred;
	return fcall_run(key, open_as_run, c, &fd, st) == -1 ? -1 : fd;
}

int
fsio_can_open_as(void)
{
	static int can = -1;
	struct procstatus me;

	/* CAP_SETGID is 6, CAP_SETUID 7 (linux/capability.h). */
	if (can == -1)
		can = procstatus_read(0, &me) == 0 && (me.have & PROCSTATUS_CAPEFF) &&
		    (me.cap_eff & 0xc0) == 0xc0;
	return can;
}

int
fsio_cred_of(uint32_t pid, struct fsio_cred *cred)
{
	const unsigned need = PROCSTATUS_UID | PROCSTATUS_GID | PROCSTATUS_GROUPS;
	struct procstatus ps;

	if (procstatus_read(pid, &ps) == -1)
		return -1;
	if ((ps.have & need) != need) {
		errno = EINVAL;
		return -1;
	}
	_Static_assert(FSIO_GROUPS_MAX == PROCSTATUS_GROUPS_MAX, "groups");
	memset(cred, 0, sizeof(*cred));
	memcpy(cred->uid, ps.uid, sizeof(cred->uid));
	memcpy(cred->gid, ps.gid, sizeof(cred->gid));
	cred->ngroups = ps.ngroups;
	memcpy(cred->groups, ps.groups, ps.ngroups * sizeof(*cred->groups));
	return 0;
}

/* One of cred's users (real 0, effective 1) with its group. */
static int
may_read_as(const struct fsio_cred *c, int i, const struct stat *st)
{
	uint32_t k;

	if (c->uid[i] == 0 || c->uid[i] == (uint32_t)st->st_uid)
		return 1;
	/* The kernel's order: a member of the group has the group's bits,
	 * not the others'. */
	if (c->gid[i] == (uint32_t)st->st_gid)
		return (st->st_mode & S_IRGRP) != 0;
	for (k = 0; k < c->ngroups; k++)
		if (c->groups[k] == (uint32_t)st->st_gid)
			return (st->st_mode & S_IRGRP) != 0;
	return (st->st_mode & S_IROTH) != 0;
}

int
fsio_cred_may_read(const struct fsio_cred *cred, const struct stat *st)
{
	return may_read_as(cred, 0, st) && may_read_as(cred, 1, st);
}

int
fsio_stat(const char *path, uint64_t key, struct stat *st)
{
	int fd;

	return fcall_run(key, stat_run, fcall_new(path, 0), &fd, st);
}
