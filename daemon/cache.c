/*
 * The build-id cache: daemon/cache.h.
 *
 * Entries are queued by the attribution with a duplicate of the file's
 * descriptor (the file lives on while it is open, whatever happens to its
 * path or its process) and written by the flush: mapped read-only and
 * written with dcpi_atomic_write, so a crash leaves no torn entry.  The
 * cache's size is summed once, at the first flush, then kept up to date.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/profile.h>

#include "cache.h"
#include "log.h"
#include "xmalloc.h"

#define CACHE_QUEUE_MAX	256	/* files held open for the next flush */

struct entry {
	char		*id;
	char		*path;		/* for messages */
	int		 fd;		/* -1: buf holds the image */
	void		*buf;
	size_t		 len;
};

static char		*db;
static uint64_t		 limit, bytes, skipped;
static int		 counted;
static struct entry	 queue[CACHE_QUEUE_MAX];
static size_t		 nqueue;

void
cache_init(const char *dbpath, uint64_t max_bytes)
{
	free(db);
	db = xstrdup(dbpath);
	limit = max_bytes;
	counted = 0;
	bytes = 0;
}

static void
entry_free(struct entry *e)
{
	if (e->fd != -1)
		close(e->fd);
	free(e->id);
	free(e->path);
	free(e->buf);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

void
cache_fini(void)
{
	size_t i;

	for (i = 0; i < nqueue; i++)
		entry_free(&queue[i]);
	nqueue = 0;
	free(db);
	db = NULL;
}

void
cache_set_limit(uint64_t max_bytes)
{
	limit = max_bytes;
}

static int
mkdirs(const char *id, char *err, size_t errlen)
{
	char *dir;

	xasprintf(&dir, "%s/%s", db, DCPI_DB_BUILDID_DIR);
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	if ((dir = dcpi_db_buildid_path(db, id, NULL)) == NULL) {
		snprintf(err, errlen, "build-id cache: bad image id '%s'", id);
		return -1;
	}
	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	return 0;
}

int
cache_put(const char *id, const char *file, const void *buf, size_t len,
    char *err, size_t errlen)
{
	struct dcpi_error de;
	char *path;

	if (db == NULL) {
		snprintf(err, errlen, "build-id cache: not initialized");
		return -1;
	}
	if (mkdirs(id, err, errlen) == -1)
		return -1;
	if ((path = dcpi_db_buildid_path(db, id, file)) == NULL) {
		snprintf(err, errlen, "build-id cache: bad file name '%s'", file);
		return -1;
	}
	if (dcpi_atomic_write(path, buf, len, 0644, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* Whether DB/buildid/ID/executable exists. */
static int
cache_has_file(const char *id)
{
	struct stat st;
	char *path;
	int r;

	if (db == NULL || (path = dcpi_db_buildid_path(db, id, "executable")) == NULL)
		return 0;
	r = lstat(path, &st) == 0;
	free(path);
	return r;
}

static int
queued(const char *id)
{
	size_t i;

	for (i = 0; i < nqueue; i++)
		if (strcmp(queue[i].id, id) == 0)
			return 1;
	return 0;
}

int
cache_has(const char *id)
{
	return queued(id) || cache_has_file(id);
}

static struct entry *
enqueue(const char *id, const char *path)
{
	struct entry *e;

	if (queued(id))
		return NULL;
	if (nqueue == CACHE_QUEUE_MAX) {
		log_warnx("build-id cache: %zu files already wait for the flush; "
		    "not keeping %s (image %s)", nqueue, path, id);
		skipped++;
		return NULL;
	}
	e = &queue[nqueue++];
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	e->id = xstrdup(id);
	e->path = xstrdup(path);
	return e;
}

void
cache_add_fd(const char *id, int fd, const char *path)
{
	struct entry *e;
	int dup;

	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		log_warn("build-id cache: %s", path);
		return;
	}
	if ((e = enqueue(id, path)) == NULL) {
		close(dup);
		return;
	}
	e->fd = dup;
}

void
cache_add_memory(const char *id, const void *buf, size_t len, const char *name)
{
	struct entry *e;

	if (cache_has(id) || (e = enqueue(id, name)) == NULL)
		return;
	e->buf = xmalloc(len ? len : 1);
	memcpy(e->buf, buf, len);
	e->len = len;
}


/* Bytes of the regular files under DB/buildid/ (one level of entries). */
static uint64_t
count_bytes(void)
{
	char *dir, *sub;
	struct dirent *de, *fe;
	struct stat st;
	uint64_t n = 0;
	DIR *d, *e;

	xasprintf(&dir, "%s/%s", db, DCPI_DB_BUILDID_DIR);
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		xasprintf(&sub, "%s/%s", dir, de->d_name);
		if ((e = opendir(sub)) != NULL) {
			while ((fe = readdir(e)) != NULL)
				if (fstatat(dirfd(e), fe->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISREG(st.st_mode))
					n += (uint64_t)st.st_size;
			closedir(e);
		}
		free(sub);
	}
	closedir(d);
	free(dir);
	return n;
}

/* Writes one queued entry: 0 written or dropped, -1 to retry. */
static int
write_entry(struct entry *e, char *err, size_t errlen)
{
	struct stat st;
	void *map = NULL;
	const void *buf = e->buf;
	size_t len = e->len;
	int r;

	if (cache_has_file(e->id))
		return 0;
	if (e->fd != -1) {
		if (fstat(e->fd, &st) == -1 || !S_ISREG(st.st_mode)) {
			log_warnx("build-id cache: %s: not a regular file; not kept", e->path);
			return 0;
		}
		len = (size_t)st.st_size;
	}
	if (limit != 0 && bytes + len > limit) {
		log_warnx("build-id cache: %s (image %s, %zu bytes) would take the cache "
		    "over buildid-cache-size (%ju of %ju bytes used): not kept",
		    e->path, e->id, len, (uintmax_t)bytes, (uintmax_t)limit);
		skipped++;
		return 0;
	}
	if (e->fd != -1 && len > 0) {
		if ((map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, e->fd, 0)) == MAP_FAILED) {
			log_warn("build-id cache: %s", e->path);
			return 0;
		}
		buf = map;
	}
	r = cache_put(e->id, "executable", buf, len, err, errlen);
	if (map != NULL)
		munmap(map, len);
	if (r == 0) {
		bytes += len;
		log_info("build-id cache: kept %s as image %s (%zu bytes)", e->path, e->id, len);
	}
	return r;
}

int
cache_flush(char *err, size_t errlen)
{
	char scratch[512];
	size_t i, j;
	int rc = 0;

	if (db == NULL || nqueue == 0)
		return 0;
	if (!counted) {
		bytes = count_bytes();
		counted = 1;
	}
	for (i = j = 0; i < nqueue; i++) {
		/* The first error is the one reported. */
		if (write_entry(&queue[i], rc == 0 ? err : scratch,
		    rc == 0 ? errlen : sizeof(scratch)) == -1) {
			rc = -1;
			queue[j++] = queue[i];
		} else
			entry_free(&queue[i]);
	}
	nqueue = j;
	return rc;
}

size_t cache_pending(void) { return nqueue; }
uint64_t cache_bytes(void) { return bytes; }
uint64_t cache_skipped(void) { return skipped; }
