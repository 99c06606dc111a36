/*
 * The flush: the aggregated counts merged into the epoch's profile files
 * (read, add, atomic write), the unattributed samples into theirs, and the
 * build-id cache's queue written; counts whose file could not be written
 * stay in memory for the next try.  The database itself is
 * daemon/epoch.c's.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/label.h>
#include <dcpi/profile.h>

#include "agg.h"
#include "attr.h"
#include "cache.h"
#include "core.h"
#include "epoch.h"
#include "flush.h"
#include "jit.h"
#include "log.h"
#include "perf.h"
#include "util.h"
#include "xmalloc.h"

static time_t	 last_time;
static char	 last_result[512] = "none";
static unsigned long nerrors;

struct flushctx {
	char	*msg;
	size_t	 msglen;
	int	 failed;
	size_t	 files;
};

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
	cache_fini();
	epoch_fini();
}

static int
write_one(uint32_t stream, uint32_t img, const struct dcpi_count *c, size_t n, void *arg)
{
	struct flushctx *fc = arg;
	const struct agg_desc *d = agg_desc(stream, img);
	const struct image *im = d->image;
	const char *evname = d->event;
	const char *label = AGG_STREAM_LABEL(stream) == AGG_LABEL_IDLE ? DCPI_LABEL_IDLE : NULL;
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
	if (dcpi_atomic_writeat(dfd, name, path, buf, len, DB_FILE_MODE, &de) == -1)
		goto fail;
	fc->files++;
	dcpi_profile_free(p);
	dcpi_profile_free(old);
	free(buf);
	close(dfd);
	free(path);
	return 0;
fail:
	if (de.msg[0] == '\0')
		snprintf(de.msg, sizeof(de.msg), "%.400s: %s", path ? path : name, strerror(errno));
	log_warnx("flush: %s", de.msg);
	if (!fc->failed)
		snprintf(fc->msg, fc->msglen, "flush failed: %s", de.msg);
	fc->failed = 1;
	dcpi_profile_free(p);
	dcpi_profile_free(old);
	free(buf);
	if (dfd != -1)
		close(dfd);
	free(path);
	return -1;
}

/* Adds the unattributed samples counted since the last time to the
 * epoch's file (read, add, atomic write); zeroes them only once written. */
static int
write_unattr(char *err, size_t errlen)
{
	struct dcpi_unattr u = { NULL, 0, 0 };
	struct dcpi_error de;
	char *path;
	void *buf = NULL;
	size_t ev, r, len;
	uint64_t n;
	int any = 0, rc = -1, hfd;

	for (ev = 0; ev < perf_nevents(); ev++)
		for (r = 1; r < ATTR_NREASONS; r++)
			any |= core_unattr_pending(ev, r) != 0;
	if (!any)
		return 0;
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
	for (ev = 0; ev < perf_nevents(); ev++)
		for (r = 1; r < ATTR_NREASONS; r++)
			if ((n = core_unattr_pending(ev, r)) != 0 &&
			    dcpi_unattr_add(&u, perf_event_name(ev),
			    attr_reason_name((enum attr_reason)r), n) == -1) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				goto out;
			}
	if (dcpi_unattr_encode(&u, (char **)&buf, &len) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (dcpi_atomic_writeat(hfd, DCPI_UNATTR_FILE, path, buf, len,
	    DB_FILE_MODE, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		goto out;
	}
	core_unattr_stored();
	rc = 0;
out:
	dcpi_unattr_clear(&u);
	free(buf);
	close(hfd);
	free(path);
	return rc;
}

int
flush_run(char *msg, size_t msglen)
{
	struct flushctx fc = { msg, msglen, 0, 0 };
	char err[512];

	if (epoch_check(err, sizeof(err)) == -1) {
		log_warnx("flush: %s", err);
		snprintf(msg, msglen, "flush failed: %s", err);
		fc.failed = 1;
	} else {
		jit_flush();
		agg_flush(write_one, &fc);
		if (write_unattr(err, sizeof(err)) == -1) {
			log_warnx("flush: %s", err);
			if (!fc.failed)
				snprintf(msg, msglen, "flush failed: %s", err);
			fc.failed = 1;
		}
		attr_release_images();
		/* After the profiles: their counts matter more than symbols. */
		if (cache_flush(err, sizeof(err)) == -1) {
			log_warnx("flush: %s", err);
			if (!fc.failed)
				snprintf(msg, msglen, "flush failed: %s", err);
			fc.failed = 1;
		}
	}
	epoch_release();
	last_time = time(NULL);
	if (fc.failed) {
		nerrors++;
		snprintf(last_result, sizeof(last_result), "%s", msg);
		return -1;
	}
	snprintf(last_result, sizeof(last_result), "ok, %zu files", fc.files);
	snprintf(msg, msglen, "flushed %zu files into epoch %s", fc.files,
	    epoch_name());
	log_info("%s", msg);
	return 0;
}

int
flush_rotate(char *msg, size_t msglen)
{
	time_t t = time(NULL);

	if (flush_run(msg, msglen) == -1)
		return -1;
	return epoch_rotate(t, msg, msglen);
}

const char *flush_epoch(void) { return epoch_name(); }
time_t flush_last_time(void) { return last_time; }
const char *flush_last_result(void) { return last_result; }
unsigned long flush_errors(void) { return nerrors; }
