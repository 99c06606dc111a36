/*
 * The database's build-id cache (lib/dcpi/db.h: DB/buildid/IMAGEID/FILE):
 * dcpid keeps there what symbolization will need of images that cannot be
 * read at their recorded path later (another mount namespace, deleted or
 * replaced files, short-lived programs in chroots, the vdso) and the
 * symbols of JIT pseudo-images.  Written only by the flush (data flows
 * image -> flush -> file): the attribution queues files while their
 * processes live, and the flush writes them.  Bounded by cache_init's
 * limit; an entry once written is never rewritten unless its content is a
 * FILE that changes (perf-map).
 */
#ifndef DCPID_CACHE_H
#define DCPID_CACHE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

/* max_bytes: the cache's size limit (0: no limit); a file over 16 MiB or
 * an eighth of the limit is kept reduced to its program headers, notes,
 * symbol tables and debug links (symbols, no code).  db is copied. */
void cache_init(const char *db, uint64_t max_bytes);
/* The group that may write into the database besides root (dcpi_db_check_dir);
 * (gid_t)-1 until set: none. */
void cache_set_group(gid_t gid);
/* fn is called after each file cache_flush writes (flush_set_yield's). */
void cache_set_yield(void (*fn)(void));
void cache_fini(void);
void cache_set_limit(uint64_t max_bytes);

/* Queues the ELF file open on fd (dup'd: the caller keeps fd) to be kept
 * as DB/buildid/ID/executable at the next flush, unless that exists.
 * path is for messages.  Never fails: what cannot be queued is logged. */
void cache_add_fd(const char *id, int fd, const char *path);
/* Same for an image in memory (the vdso): buf[0..len) is copied. */
void cache_add_memory(const char *id, const void *buf, size_t len, const char *name);
/* Whether DB/buildid/ID/executable is there or queued. */
int cache_has(const char *id);
/* DB/buildid/ID/executable opened read-only (not through a link; the
 * caller's to close), or -1 with errno (ENOENT: not written yet). */
int cache_open(const char *id);

/* Writes DB/buildid/ID/file atomically with buf[0..len) now (the JIT
 * perf-map at each flush).  0, or -1 with a message in err[errlen]. */
int cache_put(const char *id, const char *file, const void *buf, size_t len,
    char *err, size_t errlen);

/* Writes the queued files (called by flush_end), then fsyncs buildid/ once
 * if entries were made in it since (by these or by cache_put).  0, or -1
 * with the first error in err[errlen]; entries that failed stay queued. */
int cache_flush(char *err, size_t errlen);

/* For status: entries queued, bytes the cache holds, entries skipped by
 * the limit. */
size_t cache_pending(void);
uint64_t cache_bytes(void);
uint64_t cache_skipped(void);
/* STATUS: buildid-cache (the three above). */
struct status_writer;
void cache_status(struct status_writer *w);

#endif
