/*
 * The flush: the aggregated counts merged into the epoch's profile files
 * (read, add, atomic write), the unattributed samples into theirs, and the
 * build-id cache's queue written, each given by the caller (daemon/core.c),
 * which keeps what could not be written for the next try.  The database
 * itself is daemon/epoch.c's.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/label.h>
#include <dcpi/stackfile.h>
#include <dcpi/profile.h>

#include "cache.h"
#include "control.h"
#include "epoch.h"
#include "flush.h"
#include "imagetab.h"
#include "log.h"
#include "util.h"
#include "xmalloc.h"

static time_t	 last_time;
static char	 last_result[512] = "none";
static unsigned long nerrors;

/* The flush between flush_begin and flush_end: one at a time. */
static struct {
	char	*msg;
	size_t	 msglen;
	int	 begun;		/* the epoch is held */
	int	 failed;
	size_t	 files;
} fc;

/* A failure of the flush: logged, and the first one is its result. */
static void
note_failure(const char *err)
{
	log_warnx("flush: %s", err);
	if (!fc.failed)
		snprintf(fc.msg, fc.msglen, "flush failed: %s", err);
	fc.failed = 1;
}

static void	(*yield_fn)(void);

void
flush_set_yield(void (*fn)(void))
{
	yield_fn = fn;
	cache_set_yield(fn);
}

static void
flush_yield(void)
{
	if (yield_fn != NULL)
		yield_fn();
}

/*
 * The directories of the flush's profiles (and of its unattributed
 * samples' and call chains' files), fsynced once each as it ends: a
 * profile is written without its directory's fsync
 * (DCPI_ATOMIC_NO_DIRSYNC), so a flush costs one fsync a file, not two
 * (on a disk at 5 ms an fsync, thousands of images took tens of seconds,
 * past a stop's timeout).  Until then a crash may keep a profile as it
 * was before the flush, never torn; the flush reports success only after.
 * At most DIRSYNC_MAX are held open (a directory per event and label: a
 * thousand labels must not take dcpid's descriptors); past it, those held
 * are fsynced then.  Each fsync is followed by a yield, as each file is
 * (the sideband buffers fill in half a second of a host that execs).
 */
#define DIRSYNC_MAX	32

static struct dirsync {
	dev_t		 dev;
	ino_t		 ino;
	int		 fd;		/* a dup of the writer's */
	char		*path;		/* for messages */
} *dirs;
static size_t	 ndirs, capdirs;

/* Every directory kept fsynced and forgotten; 0, or -1 with the first
 * failure in err.  (Some file systems cannot fsync a directory, EINVAL:
 * nothing more can be done there.) */
static int
dirsync_run(char *err, size_t errlen)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < ndirs; i++) {
		if (fsync(dirs[i].fd) == -1 && errno != EINVAL && rc == 0) {
			snprintf(err, errlen, "%s: cannot fsync the directory of "
			    "the profiles written: %s", dirs[i].path, strerror(errno));
			rc = -1;
		}
		close(dirs[i].fd);
		free(dirs[i].path);
		flush_yield();
	}
	ndirs = 0;
	return rc;
}

/* dfd (path) to be fsynced at the flush's end; if it cannot be kept, it is
 * fsynced now, and -1 with errno if that fails. */
static int
dirsync_add(int dfd, const char *path)
{
	struct stat st;
	char err[512];
	size_t i;
	int fd;

	if (fstat(dfd, &st) == -1)
		return fsync(dfd) == -1 && errno != EINVAL ? -1 : 0;
	for (i = 0; i < ndirs; i++)
		if (dirs[i].dev == st.st_dev && dirs[i].ino == st.st_ino)
			return 0;
	if (ndirs == DIRSYNC_MAX && dirsync_run(err, sizeof(err)) == -1)
		note_failure(err);
	if ((fd = dup(dfd)) == -1)
		return fsync(dfd) == -1 && errno != EINVAL ? -1 : 0;
	if (ndirs == capdirs) {
		capdirs = capdirs ? 2 * capdirs : 8;
		dirs = xreallocarray(dirs, capdirs, sizeof(*dirs));
	}
	dirs[ndirs++] = (struct dirsync){ st.st_dev, st.st_ino, fd, xstrdup(path) };
	return 0;
}

/* The file name below dfd (path, for messages) was just replaced without
 * its directory's fsync: the directory is kept for the flush's end.  A
 * failure fails the flush, but the file's counts are not kept for the
 * next (the file holds them: they would be added twice). */
static void
replaced(int dfd, const char *path, const char *name)
{
	char *dir, err[512];

	xasprintf(&dir, "%.*s", (int)(strlen(path) - strlen(name) - 1), path);
	if (dirsync_add(dfd, dir) == -1) {
		snprintf(err, sizeof(err), "%s: cannot fsync: %s", dir, strerror(errno));
		note_failure(err);
	}
	free(dir);
}

int
flush_init(const char *dbpath, gid_t gid, char *err, size_t errlen)
{
	int rc;

	cache_init(dbpath, 0);
	rc = epoch_init(dbpath, gid, err, errlen);
	cache_set_group(epoch_group());
	return rc;
}

int
flush_start(char *err, size_t errlen)
{
	return epoch_start(err, errlen);
}

void
flush_fini(void)
{
	char err[512];

	(void)dirsync_run(err, sizeof(err));
	free(dirs);
	dirs = NULL;
	capdirs = 0;
	cache_fini();
	epoch_fini();
}

int
flush_profile(const struct flush_desc *d, const struct dcpi_count *c, size_t n)
{
	const struct image *im = d->image;
	const char *evname = d->event;
	const char *label = d->label;
	struct dcpi_profile *p = NULL, *old = NULL;
	struct dcpi_error de;
	char name[PATH_MAX], evdir[NAME_MAX + 1], ldir[NAME_MAX + 1], sub[PATH_MAX];
	char *path = NULL, err[512];
	void *buf = NULL;
	size_t good, len;
	int dfd = -1;

	de.msg[0] = '\0';
	if (dcpi_db_event_dirname(evname, evdir, sizeof(evdir)) == -1 ||
	    (label != NULL && dcpi_label_dirname(label, ldir, sizeof(ldir)) == -1) ||
	    dcpi_db_profile_name(im->path, im->id, name, sizeof(name)) == -1)
		goto fail;
	snprintf(sub, sizeof(sub), "%s%s%s", evdir, label ? "/" : "",
	    label ? ldir : "");
	if ((dfd = epoch_open_dir(sub, err, sizeof(err))) == -1) {
		snprintf(de.msg, sizeof(de.msg), "%s", err);
		goto fail;
	}
	xasprintf(&path, "%s/%s/%s/%s/%s", epoch_db(), epoch_name(),
	    epoch_host(), sub, name);
	if ((p = dcpi_profile_new()) == NULL)
		goto fail;
	p->image = xstrdup(im->id);
	p->epoch = xstrdup(epoch_name());
	p->platform = xstrdup(epoch_platform());
	p->event = xstrdup(evname);
	p->period = d->period;
	p->tstart = im->tstart;
	p->tsize = im->tsize;
	p->cpuspeed = epoch_cpuspeed();
	p->cpucount = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	p->path = xstrdup(im->path);
	p->has |= DCPI_HAS_CPUCOUNT | DCPI_HAS_PATH;
	if (im->idkind != NULL && dcpi_profile_set(p, "idkind", im->idkind, &de) == -1)
		goto fail;
	if (label != NULL && dcpi_profile_set(p, "label", label, &de) == -1)
		goto fail;
	/* dcpi(5): the period line is then the mean of the periods used. */
	if (d->jitter > 0) {
		char pct[16];

		snprintf(pct, sizeof(pct), "%u%%", d->jitter);
		if (dcpi_profile_set(p, "period-jitter", pct, &de) == -1)
			goto fail;
	}
	/* Offsets past the text would make the file invalid; the
	 * attribution should never produce them. */
	for (good = n; good > 0 && im->tsize && c[good - 1].offset >= im->tsize; good--)
		;
	if (good < n)
		log_warnx("%s: %zu offsets beyond tsize %#jx dropped", path, n - good,
		    (uintmax_t)im->tsize);
	if (dcpi_profile_add_counts(p, c, good) == -1) {
		snprintf(de.msg, sizeof(de.msg), "%s: adding counts: %s", path, strerror(errno));
		goto fail;
	}
	/* Read, merge, write: never through a link, never blocking on a
	 * FIFO standing where the profile should be. */
	if (dcpi_read_fileat(dfd, name, path, SIZE_MAX, &buf, &len, &de) == 0) {
		if (dcpi_profile_parse(buf, len, path, &old, &de) == -1 ||
		    dcpi_profile_merge(p, old, &de) == -1)
			goto fail;
		free(buf);
		buf = NULL;
	} else if (errno != ENOENT)
		goto fail;
	if (dcpi_profile_encode(p, &buf, &len, &de) == -1) {
		snprintf(err, sizeof(err), "%s", de.msg);
		snprintf(de.msg, sizeof(de.msg), "%.200s: %.300s", path, err);
		goto fail;
	}
	if (dcpi_atomic_writeat_flags(dfd, name, path, buf, len, DB_FILE_MODE,
	    DCPI_ATOMIC_NO_DIRSYNC, &de) == -1)
		goto fail;
	replaced(dfd, path, name);
	fc.files++;
	flush_yield();
	dcpi_profile_free(p);
	dcpi_profile_free(old);
	free(buf);
	close(dfd);
	free(path);
	return 0;
fail:
	if (de.msg[0] == '\0')
		snprintf(de.msg, sizeof(de.msg), "%.400s: %s", path ? path : name, strerror(errno));
	note_failure(de.msg);
	dcpi_profile_free(p);
	dcpi_profile_free(old);
	free(buf);
	if (dfd != -1)
		close(dfd);
	free(path);
	return -1;
}

/* flush_unattr's work, the message in err[errlen]. */
static int
write_unattr(const struct flush_unattr *a, size_t na, char *err, size_t errlen)
{
	struct dcpi_unattr u = { NULL, 0, 0 };
	struct dcpi_error de;
	char *path;
	void *buf = NULL;
	size_t i, len;
	int rc = -1, hfd;

	if ((path = dcpi_db_unattr_path(epoch_db(), epoch_name(),
	    epoch_host())) == NULL) {
		snprintf(err, errlen, "%s: %s", epoch_db(), strerror(errno));
		return -1;
	}
	if ((hfd = epoch_open_dir(NULL, err, errlen)) == -1) {
		free(path);
		return -1;
	}
	if (dcpi_read_fileat(hfd, DCPI_UNATTR_FILE, path, SIZE_MAX, &buf, &len,
	    &de) == 0) {
		if (dcpi_unattr_parse(buf, len, path, &u, &de) == -1) {
			snprintf(err, errlen, "%s", de.msg);
			goto out;
		}
		free(buf);
		buf = NULL;
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "%s", de.msg);
		goto out;
	}
	for (i = 0; i < na; i++)
		if (dcpi_unattr_add(&u, a[i].event, a[i].reason, a[i].n) == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
	if (dcpi_unattr_encode(&u, (char **)&buf, &len) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (dcpi_atomic_writeat_flags(hfd, DCPI_UNATTR_FILE, path, buf, len,
	    DB_FILE_MODE, DCPI_ATOMIC_NO_DIRSYNC, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		goto out;
	}
	replaced(hfd, path, DCPI_UNATTR_FILE);
	rc = 0;
out:
	dcpi_unattr_clear(&u);
	free(buf);
	close(hfd);
	free(path);
	return rc;
}

/* flush_stacks' work: the epoch's file read, merged with sf, replaced.
 * The old file is mapped, not copied, and the new one streamed into its
 * temporary file: a busy hour's file is tens of MB, and the flush's peak
 * is then about its tables alone (bench/README, "Call chains"). */
static int
write_stacks(const struct dcpi_stackfile *sf, char *err, size_t errlen)
{
	struct dcpi_stackfile *disk = NULL;
	struct dcpi_error de;
	char *path = NULL;
	int rc = -1, hfd;

	if ((hfd = epoch_open_dir(NULL, err, errlen)) == -1)
		return -1;
	xasprintf(&path, "%s/%s/%s/%s", epoch_db(), epoch_name(), epoch_host(),
	    DCPI_STACKS_FILE);
	/* A corrupt file is set aside as a corrupt profile, not merged into. */
	if (dcpi_stackfile_readat(hfd, DCPI_STACKS_FILE, path, &disk, &de) == -1 &&
	    errno != ENOENT) {
		snprintf(err, errlen, "%s", de.msg);
		goto out;
	}
	if (disk != NULL && dcpi_stackfile_merge(disk, sf, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		goto out;
	}
	if (dcpi_stackfile_writeat_flags(hfd, DCPI_STACKS_FILE, path,
	    disk != NULL ? disk : sf, DB_FILE_MODE, DCPI_ATOMIC_NO_DIRSYNC, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		goto out;
	}
	replaced(hfd, path, DCPI_STACKS_FILE);
	rc = 0;
out:
	dcpi_stackfile_free(disk);
	free(path);
	close(hfd);
	return rc;
}

int
flush_stacks(const struct dcpi_stackfile *sf)
{
	char err[512];

	if (write_stacks(sf, err, sizeof(err)) == -1) {
		note_failure(err);
		return -1;
	}
	fc.files++;
	return 0;
}

const char *flush_host(void) { return epoch_host(); }

int
flush_unattr(const struct flush_unattr *u, size_t n)
{
	char err[512];

	/* Nothing to add: the file stays as it is. */
	if (n == 0)
		return 0;
	if (write_unattr(u, n, err, sizeof(err)) == -1) {
		note_failure(err);
		return -1;
	}
	flush_yield();
	return 0;
}

int
flush_begin(char *msg, size_t msglen)
{
	char err[512];

	fc.msg = msg;
	fc.msglen = msglen;
	fc.failed = 0;
	fc.files = 0;
	fc.begun = epoch_check(err, sizeof(err)) == 0;
	/* The epoch's first flush wrote its kallsyms snapshot. */
	flush_yield();
	if (!fc.begun) {
		note_failure(err);
		return -1;
	}
	return 0;
}

int
flush_end(void)
{
	char err[512];

	if (dirsync_run(err, sizeof(err)) == -1)
		note_failure(err);
	/* After the profiles: their counts matter more than symbols. */
	if (fc.begun && cache_flush(err, sizeof(err)) == -1)
		note_failure(err);
	epoch_release();
	fc.begun = 0;
	last_time = time(NULL);
	if (fc.failed) {
		nerrors++;
		snprintf(last_result, sizeof(last_result), "%s", fc.msg);
		return -1;
	}
	snprintf(last_result, sizeof(last_result), "ok, %zu files", fc.files);
	snprintf(fc.msg, fc.msglen, "flushed %zu files into epoch %s", fc.files,
	    epoch_name());
	log_info("%s", fc.msg);
	return 0;
}

int
flush_new_epoch(time_t t, char *msg, size_t msglen)
{
	return epoch_rotate(t, msg, msglen);
}

const char *flush_epoch(void) { return epoch_name(); }
time_t flush_last_time(void) { return last_time; }
const char *flush_last_result(void) { return last_result; }
unsigned long flush_errors(void) { return nerrors; }

void
flush_status(struct status_writer *w)
{
	char tbuf[64] = "never";
	time_t t = flush_last_time();
	struct tm tm;

	status_add(w, "epoch", "%s", flush_epoch());
	if (t != 0 && gmtime_r(&t, &tm) != NULL)
		strftime(tbuf, sizeof(tbuf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	status_add(w, "last-flush", "%s", tbuf);
	status_add(w, "last-flush-result", "%s", flush_last_result());
	status_add(w, "flush-errors", "%lu", flush_errors());
}
