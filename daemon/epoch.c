/*
 * The profile database as dcpid holds it (DESIGN.md "The profile
 * database", lib/dcpi/db.h): the directory checked and locked, temporary
 * files of an interrupted flush removed, the epoch directories with their
 * reference to the kernel's symbols (kept once per kernel), the `current`
 * link, and the facts every profile's header records (host, platform, CPU
 * speed).  Writing the profiles is
 * daemon/flush.c's.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/kallsyms.h>

#include "epoch.h"
#include "kernel.h"
#include "log.h"
#include "util.h"
#include "xmalloc.h"

static char	*db;
static int	 dbfd = -1;		/* db, while writing: all is opened below it */
static gid_t	 dbgid = (gid_t)-1;	/* the configured group, or none */
static gid_t	 trustgid;		/* the group that may write into db */
static int	 lockfd = -1;
static char	 epoch[DCPI_EPOCH_LEN + 1];
static char	 host[256];
static char	 platform[256];
static uint64_t	 cpuspeed;

static uint64_t
read_cpuspeed(void)
{
	char line[256];
	double mhz = 0;
	FILE *fp;

	if ((fp = fopen("/proc/cpuinfo", "r")) != NULL) {
		while (fgets(line, sizeof(line), fp) != NULL)
			if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
				break;
		fclose(fp);
	}
	if (mhz <= 0 && (fp = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r")) != NULL) {
		unsigned long khz;

		if (fscanf(fp, "%lu", &khz) == 1)
			mhz = khz / 1000.0;
		fclose(fp);
	}
	return (uint64_t)(mhz + 0.5);
}

static int
mkdir_p(const char *path, char *err, size_t errlen)
{
	char failed[PATH_MAX];

	if (strlen(path) >= sizeof(failed)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	/* The parents are the system's (/var/lib). */
	if (mkdir_parents(path, 0755, DB_DIR_MODE, failed, sizeof(failed)) == -1) {
		snprintf(err, errlen, "%s: %s", failed, strerror(errno));
		return -1;
	}
	return 0;
}

/* The configured path is root's choice and may go through symlinks; the
 * directory it ends in must be dcpid's and writable by no one but root and
 * the database's group, since everything below it is opened relative to
 * it.  Returns its fd, or -1 with err set. */
static int
open_db(char *err, size_t errlen)
{
	struct dcpi_error de;
	struct stat st;
	int fd;

	if (mkdir_p(db, err, errlen) == -1)
		return -1;
	if ((fd = open(db, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", db, strerror(errno));
		return -1;
	}
	if (dcpi_db_check_dir(fd, db, trustgid, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		close(fd);
		return -1;
	}
	/* dcpid.conf(5): the database belongs to the configured group; new
	 * directories and files take it from their parent. */
	if (dbgid != (gid_t)-1 && fstat(fd, &st) == 0 && st.st_gid != dbgid) {
		if (fchown(fd, (uid_t)-1, dbgid) == -1)
			log_warn("%s: cannot give it group %u", db, (unsigned)dbgid);
		else
			log_notice("%s: group set to %u", db, (unsigned)dbgid);
	}
	return fd;
}

/* Held only while writing: an open directory would keep a file system
 * mounted over the database busy, and the path may name another directory
 * by the next flush. */
static void
release_db(void)
{
	if (dbfd != -1)
		close(dbfd);
	dbfd = -1;
}

/* DB/EPOCH/HOST[/SUB], created, never through a symlink: its fd or -1 with
 * err set. */
static int
open_epoch_dir(const char *ep, const char *sub, int create, char *err,
    size_t errlen)
{
	struct dcpi_error de;
	char rel[PATH_MAX];
	int fd;

	if (snprintf(rel, sizeof(rel), "%s/%s%s%s", ep, host, sub ? "/" : "",
	    sub ? sub : "") >= (int)sizeof(rel)) {
		snprintf(err, errlen, "%s/%s: path too long", db, rel);
		return -1;
	}
	if ((fd = dcpi_db_openat(dbfd, rel, db, DCPI_DB_CHECK |
	    (create ? DCPI_DB_CREATE : 0), DB_DIR_MODE, trustgid, &de)) == -1)
		snprintf(err, errlen, "%s", de.msg);
	return fd;
}

/* Whether a copy of /proc/kallsyms can name kernel samples: it has a real
 * _stext address.  Without CAP_SYSLOG every address reads as zero, and a
 * unit's ProtectKernelTunables= leaves the file empty. */
static int
kallsyms_usable(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;
	unsigned long long a;
	char line[64], type, name[16];

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (nl - p >= (ptrdiff_t)sizeof(line) ||
		    memmem(p, (size_t)(nl - p), " _stext", 7) == NULL)
			continue;
		memcpy(line, p, (size_t)(nl - p));
		line[nl - p] = '\0';
		if (sscanf(line, "%llx %c %15s", &a, &type, name) == 3 &&
		    strcmp(name, "_stext") == 0)
			return a != 0;
	}
	return 0;
}

/* Whether DB/kernels/NAME.gz is there (a reference may outlive it: gc of
 * an old epoch racing the reference to its snapshot). */
static int
snapshot_there(const char *name)
{
	char rel[DCPI_KALLSYMS_NAME_MAX + 32];
	struct stat st;

	snprintf(rel, sizeof(rel), "%s/%s.gz", DCPI_DB_KERNELS_DIR, name);
	return fstatat(dbfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/*
 * The epoch's host directory and its kernel symbols, which offline
 * symbolization of the kernel's profile needs.  They are kept once per
 * kernel (lib/dcpi/kallsyms.h): DB/kernels/KERNELID-HASH.gz, shared by
 * every epoch and host whose kallsyms reads the same, named by the
 * epoch's kallsyms.ref; both readable by root and the database's group
 * only, as /proc/kallsyms gives real addresses to root only.  An epoch
 * begun by an older dcpid keeps its own usable copy; a useless one
 * (written by a dcpid that could not see the addresses) gives way to a
 * reference when this one can.  Called at every flush: with the reference
 * and its snapshot in place that reads one small file.
 */
static int
prepare_epoch(const char *ep, char *err, size_t errlen)
{
	char path[PATH_MAX + 96], hdir[PATH_MAX + 64], name[DCPI_KALLSYMS_NAME_MAX];
	struct dcpi_error de;
	char *buf = NULL;
	void *old = NULL;
	size_t len = 0, cap = 0, oldlen = 0;
	ssize_t n;
	int fd, hfd, had, stored;

	if ((hfd = open_epoch_dir(ep, NULL, 1, err, errlen)) == -1)
		return -1;
	snprintf(hdir, sizeof(hdir), "%s/%s/%s", db, ep, host);
	snprintf(path, sizeof(path), "%s/kallsyms", hdir);
	had = dcpi_read_fileat(hfd, "kallsyms", path, SIZE_MAX, &old, &oldlen,
	    &de) == 0;
	if (had && kallsyms_usable(old, oldlen)) {
		free(old);
		close(hfd);
		return 0;
	}
	free(old);
	if (!had && dcpi_kallsyms_ref_readat(hfd, DCPI_KALLSYMS_REF, NULL, name,
	    NULL) == 0 && snapshot_there(name)) {
		close(hfd);
		return 0;
	}
	if ((fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("/proc/kallsyms");
		close(hfd);
		return 0;
	}
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = xreallocarray(buf, cap, 1);
		}
		if ((n = read(fd, buf + len, cap - len)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (n == 0 && !kallsyms_usable(buf, len)) {
		log_warnx("/proc/kallsyms shows no kernel addresses (%s): kernel "
		    "samples of epoch %s will not be named; dcpid needs "
		    "CAP_SYSLOG, kernel.kptr_restrict below 2, and a unit without "
		    "ProtectKernelTunables= or ProtectKernelLogs=",
		    len == 0 ? "it is empty" : "they read as zeros", ep);
		free(buf);
		close(hfd);
		return 0;
	}
	if (n < 0) {
		snprintf(err, errlen, "/proc/kallsyms: read error");
		free(buf);
		close(hfd);
		return -1;
	}
	/* BPF programs come and go: without them, one snapshot serves
	 * every epoch until a module is loaded or removed. */
	len = dcpi_kallsyms_trim(buf, len);
	/* The kernel's id names the snapshot (kernel.c knows it once
	 * attr_init has run); "0" before that, the content hash still
	 * telling kernels apart. */
	if (dcpi_kallsyms_name(kernel_id(), buf, len, name) == -1)
		(void)dcpi_kallsyms_name(NULL, buf, len, name);
	if ((stored = dcpi_kallsyms_store(dbfd, db, name, buf, len, trustgid,
	    DB_DIR_MODE, DB_FILE_MODE, &de)) == -1 ||
	    dcpi_kallsyms_ref_writeat(hfd, hdir, name, DB_FILE_MODE, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		free(buf);
		close(hfd);
		return -1;
	}
	if (stored == 0)
		log_info("kernel symbols kept in %s/%s/%s.gz (%zu bytes of /proc/kallsyms)",
		    db, DCPI_DB_KERNELS_DIR, name, len);
	if (had) {
		if (unlinkat(hfd, "kallsyms", 0) == -1)
			log_warn("%s", path);
		log_notice("%s: replaced a copy without kernel addresses by %s/%s",
		    path, hdir, DCPI_KALLSYMS_REF);
	}
	free(buf);
	close(hfd);
	return 0;
}

/* Whether the regular file name in dfd is flock'ed: a temporary file
 * another process is writing (lib/file.c's open_temp holds the lock). */
static int
being_written(int dfd, const char *name)
{
	int fd, locked;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1)
		return 0;
	locked = flock(fd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK;
	close(fd);
	return locked;
}

/* Removes the hidden temporary files (".NAME.XXXXXX", ".current.PID") in
 * the directory dfd (named show) that a writer killed mid-write left;
 * returns how many.  Only called under the lock, so no dcpid of this host
 * is writing them; a dcpictl may be (compress, import), and the files it
 * holds locked are left.  Subdirectories are entered without following
 * links. */
static size_t
remove_temps(int dfd, const char *show, int subdirs)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	DIR *d;
	int fd, sfd;

	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", show, de->d_name) >= (int)sizeof(path) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (de->d_name[0] == '.' && !S_ISDIR(st.st_mode)) {
			if (S_ISREG(st.st_mode) && being_written(dirfd(d), de->d_name)) {
				log_notice("%s: being written (locked), left alone", path);
				continue;
			}
			if (unlinkat(dirfd(d), de->d_name, 0) == 0) {
				log_info("removed temporary file %s", path);
				n++;
			} else
				log_warn("%s", path);
		} else if (subdirs > 0 && S_ISDIR(st.st_mode) &&
		    (sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1) {
			n += remove_temps(sfd, path, subdirs - 1);
			close(sfd);
		}
	}
	closedir(d);
	return n;
}

static void
clean_db(void)
{
	char **epochs, dir[PATH_MAX], err[512];
	struct dcpi_error de;
	size_t n, i, removed;
	int fd;

	removed = remove_temps(dbfd, db, 0);
	if (dcpi_db_epochs(db, &epochs, &n, &de) == 0) {
		for (i = 0; i < n; i++) {
			if ((fd = open_epoch_dir(epochs[i], NULL, 0, err,
			    sizeof(err))) == -1) {
				if (errno != ENOENT)
					log_warnx("%s", err);
				continue;
			}
			snprintf(dir, sizeof(dir), "%s/%s/%s", db, epochs[i], host);
			removed += remove_temps(fd, dir, 2);	/* EVENT/LABEL/ */
			close(fd);
		}
		dcpi_strv_free(epochs, n);
	}
	/* The build-id cache's entries are written by the flush too. */
	snprintf(dir, sizeof(dir), "%s/%s", db, DCPI_DB_BUILDID_DIR);
	if ((fd = openat(dbfd, DCPI_DB_BUILDID_DIR, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) != -1) {
		removed += remove_temps(fd, dir, 1);
		close(fd);
	}
	/* So are the kernel symbol snapshots. */
	snprintf(dir, sizeof(dir), "%s/%s", db, DCPI_DB_KERNELS_DIR);
	if ((fd = openat(dbfd, DCPI_DB_KERNELS_DIR, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) != -1) {
		removed += remove_temps(fd, dir, 0);
		close(fd);
	}
	if (removed)
		log_notice("removed %zu temporary files left by an interrupted flush", removed);
}

/* Opens and locks DB/dcpid.lock and writes our pid into it: the fd, or -1
 * with err set (another dcpid holds it, or it cannot be opened).  Whoever
 * could put a link there must not make root truncate its target, nor a
 * FIFO make dcpid wait. */
static int
take_lock(char *err, size_t errlen)
{
	char path[PATH_MAX], pid[32];
	struct stat st, dst;
	int fd, n;

	snprintf(path, sizeof(path), "%s/dcpid.lock", db);
	if ((fd = openat(dbfd, "dcpid.lock", O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY | O_CLOEXEC, DB_FILE_MODE)) == -1) {
		if (errno == ELOOP)
			snprintf(err, errlen, "%s: is a symbolic link: refusing "
			    "to follow it (remove it if dcpid should use %s)",
			    path, db);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == 0 && fstat(dbfd, &dst) == 0 && st.st_gid != dst.st_gid &&
	    fchown(fd, (uid_t)-1, dst.st_gid) == -1) {
		/* Not ours to give: the lock keeps its group. */
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		snprintf(err, errlen, "%s: %s: refusing to use it as the lock "
		    "(remove it if dcpid should use %s)", path,
		    !S_ISREG(st.st_mode) ? "not a regular file" :
		    "has other hard links", db);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		n = (int)pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		snprintf(err, errlen, "%s is in use by another dcpid (pid %s, lock %s)",
		    db, pid[0] ? pid : "?", path);
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 || pwrite(fd, pid, (size_t)n, 0) != n)
		log_warn("%s", path);
	return fd;
}

/* The database removed (or its lock file replaced) under us: our lock no
 * longer keeps a second dcpid out, and readers find no current link.  Re-
 * creates the directory, re-takes the lock and re-links current; -1 with
 * err if that fails or another dcpid has taken the database meanwhile, in
 * which case nothing may be written into it. */
static int
check_db(char *err, size_t errlen)
{
	char path[PATH_MAX], cur[DCPI_EPOCH_LEN + 1];
	struct dcpi_error de;
	struct stat held, disk;
	int fd, relocked = 0;

	/* The database is what its path names now (removed and re-created,
	 * mounted over, made read-only), with its owner and mode checked
	 * again. */
	if ((fd = open_db(err, errlen)) == -1) {
		log_warnx("%s: NOT writing into it; counts kept in memory", err);
		return -1;
	}
	if (dbfd != -1)
		close(dbfd);
	dbfd = fd;
	snprintf(path, sizeof(path), "%s/dcpid.lock", db);
	if (fstat(lockfd, &held) == -1 ||
	    fstatat(dbfd, "dcpid.lock", &disk, AT_SYMLINK_NOFOLLOW) == -1 ||
	    held.st_dev != disk.st_dev || held.st_ino != disk.st_ino) {
		log_warnx("%s was removed or replaced under dcpid: re-creating it", path);
		if ((fd = take_lock(err, errlen)) == -1) {
			log_warnx("%s: NOT writing into it; counts kept in memory", err);
			return -1;
		}
		close(lockfd);
		lockfd = fd;
		relocked = 1;
	}
	/* current names the epoch being written: ours, also if a dcpid that
	 * held the database meanwhile pointed it at its own. */
	if (dcpi_db_currentat(dbfd, db, cur, &de) == -1 ? errno == ENOENT :
	    relocked && strcmp(cur, epoch) != 0) {
		if (prepare_epoch(epoch, err, errlen) == -1)
			return -1;
		if (dcpi_db_set_currentat(dbfd, db, epoch, &de) == -1) {
			snprintf(err, errlen, "%s", de.msg);
			return -1;
		}
		log_notice("%s/current re-created: epoch %s", db, epoch);
	}
	return 0;
}

int
epoch_init(const char *dbpath, gid_t gid, char *err, size_t errlen)
{
	struct utsname u;

	db = xstrdup(dbpath);
	dbgid = gid;
	trustgid = gid != (gid_t)-1 ? gid : getegid();
	if ((dbfd = open_db(err, errlen)) == -1)
		return -1;
	if ((lockfd = take_lock(err, errlen)) == -1)
		return -1;

	if (gethostname(host, sizeof(host)) == -1 || host[0] == '\0')
		strcpy(host, "localhost");
	host[strcspn(host, "/")] = '\0';
	uname(&u);
	snprintf(platform, sizeof(platform), "%s %s %s", u.sysname, u.release, u.machine);
	cpuspeed = read_cpuspeed();
	clean_db();
	release_db();
	return 0;
}

int
epoch_start(char *err, size_t errlen)
{
	struct dcpi_error de;

	if (dbfd == -1 && (dbfd = open_db(err, errlen)) == -1)
		return -1;
	if (dcpi_db_currentat(dbfd, db, epoch, &de) == -1) {
		dcpi_epoch_name(time(NULL), epoch);
		if (prepare_epoch(epoch, err, errlen) == -1)
			return -1;
		if (dcpi_db_set_currentat(dbfd, db, epoch, &de) == -1) {
			snprintf(err, errlen, "%s", de.msg);
			return -1;
		}
		log_info("new epoch %s", epoch);
	} else {
		if (prepare_epoch(epoch, err, errlen) == -1)
			return -1;
		log_info("continuing epoch %s", epoch);
	}
	release_db();
	return 0;
}

void
epoch_fini(void)
{
	/* The lock file stays: unlinking it would let two daemons lock two
	 * different files of the same name. */
	if (lockfd != -1)
		close(lockfd);
	lockfd = -1;
	release_db();
	free(db);
	db = NULL;
}

int
epoch_rotate(time_t t, char *msg, size_t msglen)
{
	char next[DCPI_EPOCH_LEN + 1], err[512];
	struct dcpi_error de;

	/* Epoch names have a resolution of a second: two rotations within
	 * one must still give distinct, increasing names. */
	dcpi_epoch_name(t, next);
	while (strcmp(next, epoch) <= 0)
		dcpi_epoch_name(++t, next);
	if ((dbfd = open_db(err, sizeof(err))) == -1 ||
	    prepare_epoch(next, err, sizeof(err)) == -1) {
		release_db();
		snprintf(msg, msglen, "epoch failed: %s", err);
		return -1;
	}
	if (dcpi_db_set_currentat(dbfd, db, next, &de) == -1) {
		release_db();
		snprintf(msg, msglen, "epoch failed: %s", de.msg);
		return -1;
	}
	release_db();
	log_notice("epoch %s ended; new epoch %s", epoch, next);
	snprintf(msg, msglen, "new epoch %s (previous %s)", next, epoch);
	memcpy(epoch, next, sizeof(epoch));
	return 0;
}

int
epoch_check(char *err, size_t errlen)
{
	return check_db(err, errlen) == -1 ||
	    prepare_epoch(epoch, err, errlen) == -1 ? -1 : 0;
}

void
epoch_release(void)
{
	release_db();
}

int
epoch_open_dir(const char *sub, char *err, size_t errlen)
{
	return open_epoch_dir(epoch, sub, 1, err, errlen);
}

gid_t epoch_group(void) { return trustgid; }
const char *epoch_db(void) { return db; }
const char *epoch_name(void) { return epoch; }
const char *epoch_host(void) { return host; }
const char *epoch_platform(void) { return platform; }
uint64_t epoch_cpuspeed(void) { return cpuspeed; }
