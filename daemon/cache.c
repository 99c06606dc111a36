/*
 * The build-id cache: daemon/cache.h.
 */
#include "config.h"

#include <sys/stat.h>

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

static char	*db;
static uint64_t	 limit;

void
cache_init(const char *dbpath, uint64_t max_bytes)
{
	free(db);
	db = xstrdup(dbpath);
	limit = max_bytes;
}

void
cache_fini(void)
{
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

/* Queueing comes with the attribution's prefetch (not yet). */
void
cache_add_fd(const char *id, int fd, const char *path)
{
	(void)id;
	(void)fd;
	(void)path;
}

void
cache_add_memory(const char *id, const void *buf, size_t len, const char *name)
{
	(void)id;
	(void)buf;
	(void)len;
	(void)name;
}

int
cache_has(const char *id)
{
	(void)id;
	return 0;
}

int
cache_flush(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 0;
}

size_t cache_pending(void) { return 0; }
uint64_t cache_bytes(void) { return 0; }
uint64_t cache_skipped(void) { return 0; }
