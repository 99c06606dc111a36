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

#include <gelf.h>
#include <libelf.h>

#include <dcpi/db.h>
#include <dcpi/file.h>

#include "cache.h"
#include "control.h"
#include "fsio.h"
#include "log.h"
#include "xmalloc.h"

#define CACHE_QUEUE_MAX	256	/* files held open for the next flush */
#define CACHE_WHOLE_MAX	(16u << 20)	/* bytes: larger files keep symbols only */

struct entry {
	char		*id;
	char		*path;		/* for messages */
	int		 fd;		/* -1: buf holds the image */
	void		*buf;
	size_t		 len;
};

static char		*db;
static gid_t		 group = (gid_t)-1;
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

static void	(*yield_fn)(void);

void cache_set_yield(void (*fn)(void)) { yield_fn = fn; }

void
cache_set_group(gid_t gid)
{
	group = gid;
}

void
cache_set_limit(uint64_t max_bytes)
{
	limit = max_bytes;
}

/* Whether an entry's directory was made since buildid/ was last fsynced:
 * their names are made durable by one fsync of buildid/ when the flush's
 * files are written (cache_flush), not one an image. */
static int	buildid_dirty;

/* DB/buildid, never through a link, created when flags has DCPI_DB_CREATE:
 * its fd, or -1 with err set. */
static int
open_buildid(int flags, char *err, size_t errlen)
{
	struct dcpi_error de;
	int dfd, bfd;

	if ((dfd = open(db, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", db, strerror(errno));
		return -1;
	}
	bfd = dcpi_db_openat(dfd, DCPI_DB_BUILDID_DIR, db, flags | DCPI_DB_CHECK,
	    0750, group, &de);
	close(dfd);
	if (bfd == -1)
		snprintf(err, errlen, "%s", de.msg);
	return bfd;
}

/* DB/buildid/ID, created as the flush creates epochs (dcpi_db_openat):
 * never through a link, only in directories no one else may write.  Its
 * fd, or -1 with err set. */
static int
open_entry_dir(const char *id, char *err, size_t errlen)
{
	struct dcpi_error de;
	struct stat st;
	char *chk;
	int bfd, fd;

	if ((chk = dcpi_db_buildid_path(db, id, NULL)) == NULL) {
		snprintf(err, errlen, "build-id cache: bad image id '%s'", id);
		return -1;
	}
	free(chk);
	if ((bfd = open_buildid(DCPI_DB_CREATE, err, errlen)) == -1)
		return -1;
	if (fstatat(bfd, id, &st, AT_SYMLINK_NOFOLLOW) == -1 && errno == ENOENT)
		buildid_dirty = 1;
	fd = dcpi_db_openat(bfd, id, db, DCPI_DB_CREATE | DCPI_DB_CHECK |
	    DCPI_DB_NOSYNC, 0750, group, &de);
	if (fd == -1)
		snprintf(err, errlen, "%s", de.msg);
	close(bfd);
	return fd;
}

/* buildid/ fsynced if entries were made in it since it last was.  0, or
 * -1 with err set (the next flush tries again). */
static int
sync_buildid(char *err, size_t errlen)
{
	int fd, e;

	if (!buildid_dirty || db == NULL)
		return 0;
	if ((fd = open_buildid(0, err, errlen)) == -1)
		return -1;
	if (fsync(fd) == -1 && errno != EINVAL) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "%s/%s: cannot fsync the names of the "
		    "build-id cache's new entries: %s", db, DCPI_DB_BUILDID_DIR,
		    strerror(e));
		return -1;
	}
	close(fd);
	buildid_dirty = 0;
	if (yield_fn != NULL)
		yield_fn();
	return 0;
}

int
cache_put(const char *id, const char *file, const void *buf, size_t len,
    char *err, size_t errlen)
{
	struct dcpi_error de;
	char *path;
	int fd;

	if (db == NULL) {
		snprintf(err, errlen, "build-id cache: not initialized");
		return -1;
	}
	if ((fd = open_entry_dir(id, err, errlen)) == -1)
		return -1;
	if ((path = dcpi_db_buildid_path(db, id, file)) == NULL) {
		snprintf(err, errlen, "build-id cache: bad file name '%s'", file);
		close(fd);
		return -1;
	}
	if (dcpi_atomic_writeat(fd, file, path, buf, len, 0640, &de) == -1) {
		snprintf(err, errlen, "%s", de.msg);
		close(fd);
		free(path);
		return -1;
	}
	close(fd);
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

int
cache_open(const char *id)
{
	char *path;
	int fd;

	if (db == NULL || (path = dcpi_db_buildid_path(db, id, "executable")) == NULL) {
		errno = ENOENT;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	free(path);
	return fd;
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

/* Whether a section of a large image is kept: what symbolization reads,
 * and the call-frame information dcpid's unwind tables are built from
 * (a tenth of a library's size or less) once the file is gone. */
static int
keep_section(const GElf_Shdr *sh, const char *name)
{
	switch (sh->sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_STRTAB:
	case SHT_NOTE:
	case SHT_GNU_versym:
		return 1;
	}
	return name != NULL && (strcmp(name, ".gnu_debuglink") == 0 ||
	    strcmp(name, ".gnu_debugaltlink") == 0 ||
	    strcmp(name, ".gnu_debugdata") == 0 ||
	    strcmp(name, ".eh_frame") == 0 || strcmp(name, ".eh_frame_hdr") == 0 ||
	    strcmp(name, ".debug_frame") == 0);
}

/*
 * A large image reduced to what symbolization needs, as objcopy
 * --only-keep-debug does the other way round: every section header stays
 * (symbols keep their section indices and sizes), but only the symbol,
 * string and note sections, the debug links and the call-frame
 * information keep their bytes; the others become SHT_NOBITS.  Program
 * headers stay, loadable ones with p_filesz 0, so that no reader takes
 * other bytes for the image's code; PT_GNU_EH_FRAME points at the kept
 * .eh_frame_hdr where it now lies.  The result is written
 * into a memory file: *len bytes, mapped at the return value (munmap it),
 * or NULL with a message in err.
 */
static void *
reduce(int fd, const char *name, size_t *len, char *err, size_t errlen)
{
	Elf *in = NULL, *out = NULL;
	Elf_Scn *scn = NULL, *ns;
	Elf_Data *d, *nd;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t nph, shstrndx, i, hdr = 0;
	const char *sname;
	void *map = NULL;
	off_t size;
	int mfd = -1;

	elf_version(EV_CURRENT);
	if ((in = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    elf_kind(in) != ELF_K_ELF || gelf_getehdr(in, &eh) == NULL ||
	    elf_getphdrnum(in, &nph) != 0 || elf_getshdrstrndx(in, &shstrndx) != 0) {
		snprintf(err, errlen, "%s: not an ELF file: %s", name, elf_errmsg(-1));
		goto fail;
	}
	if ((mfd = memfd_create("dcpid-cache", MFD_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: memfd_create: %s", name, strerror(errno));
		goto fail;
	}
	if ((out = elf_begin(mfd, ELF_C_WRITE, NULL)) == NULL ||
	    gelf_newehdr(out, gelf_getclass(in)) == NULL ||
	    (nph > 0 && gelf_newphdr(out, nph) == NULL))
		goto elferr;
	if (gelf_update_ehdr(out, &eh) == 0)
		goto elferr;
	for (i = 0; i < nph; i++) {
		if (gelf_getphdr(in, (int)i, &ph) == NULL)
			goto elferr;
		if (ph.p_type == PT_LOAD)
			ph.p_offset = ph.p_filesz = 0;
		if (gelf_update_phdr(out, (int)i, &ph) == 0)
			goto elferr;
	}
	while ((scn = elf_nextscn(in, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || (ns = elf_newscn(out)) == NULL)
			goto elferr;
		sname = elf_strptr(in, shstrndx, sh.sh_name);
		if (keep_section(&sh, sname) && sh.sh_type != SHT_NOBITS &&
		    (d = elf_getdata(scn, NULL)) != NULL) {
			if ((nd = elf_newdata(ns)) == NULL)
				goto elferr;
			*nd = *d;
			if (strcmp(sname, ".eh_frame_hdr") == 0)
				hdr = elf_ndxscn(ns);
		} else if (sh.sh_type != SHT_NULL)
			sh.sh_type = SHT_NOBITS;
		if (gelf_update_shdr(ns, &sh) == 0)
			goto elferr;
	}
	if (elf_update(out, ELF_C_WRITE) < 0)
		goto elferr;
	elf_end(out);
	out = NULL;
	/* PT_GNU_EH_FRAME follows .eh_frame_hdr to where the layout put it
	 * (the layout kept as written). */
	if (hdr != 0) {
		if ((out = elf_begin(mfd, ELF_C_RDWR, NULL)) == NULL ||
		    elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT) == 0 ||
		    gelf_getshdr(elf_getscn(out, hdr), &sh) == NULL)
			goto elferr;
		for (i = 0; i < nph; i++)
			if (gelf_getphdr(out, (int)i, &ph) != NULL &&
			    ph.p_type == PT_GNU_EH_FRAME) {
				ph.p_offset = sh.sh_offset;
				if (gelf_update_phdr(out, (int)i, &ph) == 0)
					goto elferr;
			}
		if (elf_update(out, ELF_C_WRITE) < 0)
			goto elferr;
		elf_end(out);
		out = NULL;
	}
	if ((size = lseek(mfd, 0, SEEK_END)) <= 0 ||
	    (map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, mfd, 0)) == MAP_FAILED) {
		snprintf(err, errlen, "%s: reading the reduced image: %s", name, strerror(errno));
		map = NULL;
		goto fail;
	}
	*len = (size_t)size;
	close(mfd);
	elf_end(in);
	return map;
elferr:
	snprintf(err, errlen, "%s: writing its symbols: %s", name, elf_errmsg(-1));
fail:
	if (out != NULL)
		elf_end(out);
	if (in != NULL)
		elf_end(in);
	if (mfd != -1)
		close(mfd);
	return NULL;
}

/* An entry's file loaded on a helper (fsio): the file may be on a file
 * system that stops answering.  Its bytes are copied (or reduced), so
 * that the write reads memory only. */
struct loadcall {
	int		 fd;		/* the call's own */
	char		*path;
	uint64_t	 limit;
	int		 rc;		/* 0 loaded; -1: why[], or not regular */
	int		 not_regular, reduced;
	off_t		 size;		/* the file's */
	void		*buf;		/* malloc'd, or mapped when reduced */
	size_t		 len;
	char		 why[512];
};

static void
load_run(void *a)
{
	struct loadcall *c = a;
	struct stat st;
	ssize_t n = 0;

	c->rc = -1;
	if (fstat(c->fd, &st) == -1) {
		off_t end;

		/* Root is refused even an fstat on a FUSE mount without
		 * allow_other: the file was opened as its process's user
		 * (fsio_open_as, a regular file then), and reads through
		 * the fd are not checked again. */
		if ((errno != EACCES && errno != EPERM) ||
		    (end = lseek(c->fd, 0, SEEK_END)) == -1) {
			snprintf(c->why, sizeof(c->why), "%s: %s", c->path,
			    strerror(errno));
			return;
		}
		st.st_mode = S_IFREG;
		st.st_size = end;
	}
	if (!S_ISREG(st.st_mode)) {
		c->not_regular = 1;
		return;
	}
	c->size = st.st_size;
	/* A file that would take more than an eighth of the cache keeps
	 * its symbols only. */
	if ((size_t)st.st_size > CACHE_WHOLE_MAX ||
	    (c->limit != 0 && (uint64_t)st.st_size > c->limit / 8)) {
		if ((c->buf = reduce(c->fd, c->path, &c->len, c->why,
		    sizeof(c->why))) != NULL) {
			c->reduced = 1;
			c->rc = 0;
		}
		return;
	}
	c->buf = xmalloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	while (c->len < (size_t)st.st_size &&
	    ((n = pread(c->fd, (char *)c->buf + c->len, (size_t)st.st_size - c->len,
	    (off_t)c->len)) > 0 || (n == -1 && errno == EINTR)))
		if (n > 0)
			c->len += (size_t)n;
	if (c->len < (size_t)st.st_size) {
		snprintf(c->why, sizeof(c->why), "%s: read %zu of %jd bytes: %s", c->path,
		    c->len, (intmax_t)st.st_size, n == 0 ? "the file got shorter" :
		    strerror(errno));
		return;
	}
	c->rc = 0;
}

static void
load_late(void *a)
{
	struct loadcall *c = a;

	if (c->buf != NULL) {
		if (c->reduced)
			munmap(c->buf, c->len);
		else
			free(c->buf);
	}
	close(c->fd);
	free(c->path);
	free(c);
}

/* Writes one queued entry: 0 written or dropped, -1 to retry. */
static int
write_entry(struct entry *e, char *err, size_t errlen)
{
	struct loadcall *c = NULL;
	const void *buf = e->buf;
	size_t len = e->len;
	int r;

	if (cache_has_file(e->id))
		return 0;
	if (e->fd != -1) {
		c = xcalloc(1, sizeof(*c));
		if ((c->fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 0)) == -1) {
			log_warn("build-id cache: %s", e->path);
			free(c);
			return 0;
		}
		c->path = xstrdup(e->path);
		c->limit = limit;
		if (fsio_call(fsio_key(e->path), load_run, load_late, c,
		    FSIO_DEADLINE_MS) == -1) {
			if (errno == EAGAIN)
				load_late(c);
			log_warnx("build-id cache: %s: its file system did not answer in "
			    "time; not kept", e->path);
			return 0;
		}
		if (c->rc == -1) {
			if (c->not_regular)
				log_warnx("build-id cache: %s: not a regular file; not kept",
				    e->path);
			else
				log_warnx("build-id cache: %s; not kept", c->why);
			load_late(c);
			return 0;
		}
		if (c->reduced)
			log_info("build-id cache: %s is %jd bytes: keeping its symbols "
			    "only (%zu bytes)", e->path, (intmax_t)c->size, c->len);
		buf = c->buf;
		len = c->len;
	}
	if (limit != 0 && bytes + len > limit) {
		if (c != NULL)
			load_late(c);
		log_warnx("build-id cache: %s (image %s, %zu bytes) would take the cache "
		    "over buildid-cache-size (%ju of %ju bytes used): not kept",
		    e->path, e->id, len, (uintmax_t)bytes, (uintmax_t)limit);
		skipped++;
		return 0;
	}
	r = cache_put(e->id, "executable", buf, len, err, errlen);
	if (c != NULL)
		load_late(c);
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

	if (db == NULL)
		return 0;
	if (nqueue == 0)
		return sync_buildid(err, errlen);
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
		if (yield_fn != NULL)
			yield_fn();
	}
	nqueue = j;
	if (sync_buildid(rc == 0 ? err : scratch, rc == 0 ? errlen :
	    sizeof(scratch)) == -1)
		rc = -1;
	return rc;
}

size_t cache_pending(void) { return nqueue; }
uint64_t cache_bytes(void) { return bytes; }
uint64_t cache_skipped(void) { return skipped; }

void
cache_status(struct status_writer *w)
{
	status_add(w, "buildid-cache", "%ju bytes, %zu queued, %ju skipped",
	    (uintmax_t)cache_bytes(), cache_pending(), (uintmax_t)cache_skipped());
}
