/*
 * Address spaces: pid -> process -> sorted executable mappings -> image.
 *
 * Mappings name a shared, refcounted "mapped file" (struct mfile: path,
 * device and inode or build-id), which is resolved to an image lazily, at
 * the first sample that lands in it, so files never sampled are never
 * opened and each file is read once (imagetab.c caches by build-id and by
 * device and inode).  Resolution policy:
 *   1. a build-id from MMAP2 names an image already read: done, no I/O;
 *   2. open the path, unless it ends in " (deleted)", and accept it if it
 *      carries the MMAP2 build-id (or, without one, has the mapped inode);
 *   3. else open /proc/PID/map_files/START-END of the sampled process: the
 *      mapped file itself even if deleted or replaced, while it is alive;
 *   4. else the mapping is unreadable (ATTR_UNREADABLE), and stays so: a
 *      short-lived process running a since-replaced binary is lost.
 * Opens and reads run on fsio's helpers with a deadline: a file system
 * that does not answer in time (a hung NFS or FUSE server) leaves the
 * mapping unresolved, its samples unreadable, and it is tried again
 * MF_RETRY_MS later.
 * An opened file whose (device, inode, mtime, size) was read before reuses
 * that image without reading the ELF again (an open and fstat per mapped
 * file; the inode alone could have been reused by another file).
 * The /proc scan resolves deleted files at once, while map_files is there.
 * Images read from files are freed once unused (attr_reclaim, after a
 * flush), so a dcpid of months holds the images of its host's present,
 * not of every program it ever sampled.
 *
 * A process's address space is its attribution fields in the process
 * table (daemon/proc.h), by pid (the tgid): threads share theirs.  FORK of
 * a new process copies the parent's maps; COMM with exec drops them; EXIT
 * of the main thread (pid == tid) removes the process, its earlier samples
 * having been processed (records come in timestamp order).  A process whose
 * main thread exits before its other threads loses their later samples
 * (unknown-pid).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "attr.h"
#include "cache.h"
#include "control.h"
#include "fsio.h"
#include "htab.h"
#include "imagetab.h"
#include "kernel.h"
#include "log.h"
#include "proc.h"
#include "util.h"
#include "xmalloc.h"

enum { MF_FILE, MF_ANON, MF_VDSO };
enum { MF_UNRESOLVED, MF_OK, MF_FAILED };
#define MF_RETRY_MS	2000

struct mfile {
	uint64_t	 hash;		/* mf_hash of the key */
	uint32_t	 refs;
	uint8_t		 kind, state, bidlen;
	uint8_t		 bid[BUILD_ID_MAX];
	uint64_t	 dev, ino;	/* 0 when the MMAP2 carried a build-id */
	uint64_t	 retry_at;	/* its file system held up the last try:
					 * tried again from then (now_ms) */
	struct img	*pre;		/* read at the record's arrival: part of
					 * the key, since a path without a
					 * build-id names other files in other
					 * mount namespaces */
	struct img	*img;
	size_t		 size;		/* bytes allocated, for attr_memory */
	char		 path[];
};

struct attr_map {
	uint64_t	 start, end, pgoff;
	struct mfile	*f;
	uint32_t	 seg;		/* last segment hit in f->img */
};


static struct htab	  mfiles;

static struct mfile	  anon_mf = { .refs = 1, .kind = MF_ANON };
static struct mfile	  vdso_mf = { .refs = 1, .kind = MF_VDSO };

static size_t		  mem;
static uint64_t		  nprefetched;
/* Images freed by attr_reclaim since dcpid started, for status. */
static uint64_t		  nimages_freed;

/*
 * Files by (device, inode), for the counts the kernel aggregated (BPF,
 * daemon/bpfagg.h), which are keyed by file and offset: the image read
 * from each file met while its mapping was live (an MMAP2's at its
 * arrival, a lazy resolution's open, a file the program noted).  dev is
 * the kernel's encoding (MAJOR << 20 | MINOR), as bpf reads it.  An inode
 * number is not reused while a mapping holds its file, so an entry stays
 * true for the samples taken while the file was mapped.
 */
struct fent {
	uint64_t	 dev, ino;
	struct img	*img;		/* NULL: anonymous to attribution (memfd) */
	uint32_t	 used;		/* the reclaim pass it was last learnt or
					 * counted in */
};
static struct htab	  files;
static uint32_t		  reclaim_pass;

static uint64_t
fent_hash(uint64_t dev, uint64_t ino)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ULL ^ dev * 0xff51afd7ed558ccdULL;

	return h ^ (h >> 31);
}

static struct fent *
fent_find(uint64_t dev, uint64_t ino, struct htab_iter *it)
{
	struct fent *e;

	for (e = (struct fent *)htab_first(&files, fent_hash(dev, ino), it); e != NULL;
	    e = (struct fent *)htab_next(&files, it))
		if (e->dev == dev && e->ino == ino)
			return e;
	return NULL;
}

static uint64_t
kdev(dev_t d)
{
	return (uint64_t)major(d) << 20 | minor(d);
}

/* Files learnt since the core last asked (attr_file_learnt); past
 * LEARNT_MAX of them the rest are found as the program reports them. */
#define LEARNT_MAX	64
static struct { uint64_t dev, ino; } learnt[LEARNT_MAX];
static size_t		  nlearnt;

static void
file_learn(uint64_t dev, uint64_t ino, struct img *im)
{
	struct htab_iter it;
	struct fent *e;

	if ((e = fent_find(dev, ino, &it)) != NULL && e->img == im) {
		e->used = reclaim_pass;
		return;
	}
	if (im != NULL)
		im->file_known = 1;
	if (im != NULL && nlearnt < LEARNT_MAX) {
		learnt[nlearnt].dev = dev;
		learnt[nlearnt++].ino = ino;
	}
	if (e != NULL) {
		e->img = im;
		e->used = reclaim_pass;
		return;
	}
	e = xcalloc(1, sizeof(*e));
	*e = (struct fent){ dev, ino, im, reclaim_pass };
	xhtab_add(&files, fent_hash(dev, ino), (uintptr_t)e);
	mem += sizeof(*e);
}

static const char *reason_names[ATTR_NREASONS] = {
	[ATTR_OK] = "ok",
	[ATTR_UNKNOWN_PID] = "unknown-pid",
	[ATTR_NO_MAP] = "no-map",
	[ATTR_ANON] = "anon",
	[ATTR_UNREADABLE] = "unreadable",
	[ATTR_OUTSIDE_TEXT] = "outside-text",
	[ATTR_KERNEL_UNKNOWN] = "kernel-unknown",
	[ATTR_HYPERVISOR] = "hypervisor",
};

const char *
attr_reason_name(enum attr_reason r)
{
	return (unsigned)r < ATTR_NREASONS ? reason_names[r] : "?";
}

/* ---- mapped files ---- */

static uint64_t
mf_hash(const char *path, uint64_t dev, uint64_t ino, const uint8_t *bid,
    size_t bidlen, const struct img *pre)
{
	uint64_t h;

	if (pre != NULL)
		ino ^= pre->pub.index + 1;
	h = fnv1a64(fnv1a64_str(FNV1A64_INIT, path), bid, bidlen);
	h ^= dev * 0x9e3779b97f4a7c15ULL;
	h ^= ino * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

static struct mfile *
mf_get(const char *path, uint64_t dev, uint64_t ino, const uint8_t *bid,
    size_t bidlen, struct img *pre)
{
	struct htab_iter it;
	struct mfile *f;
	uint64_t h;
	size_t len;

	if (bidlen > BUILD_ID_MAX)
		bidlen = BUILD_ID_MAX;
	h = mf_hash(path, dev, ino, bid, bidlen, pre);
	for (f = (struct mfile *)htab_first(&mfiles, h, &it); f != NULL;
	    f = (struct mfile *)htab_next(&mfiles, &it))
		if (f->dev == dev && f->ino == ino && f->bidlen == bidlen &&
		    f->pre == pre &&
		    (bidlen == 0 || memcmp(f->bid, bid, bidlen) == 0) &&
		    strcmp(f->path, path) == 0) {
			f->refs++;
			return f;
		}
	len = strlen(path);
	f = xcalloc(1, sizeof(*f) + len + 1);
	f->size = sizeof(*f) + len + 1;
	memcpy(f->path, path, len + 1);
	f->refs = 1;
	f->kind = MF_FILE;
	f->dev = dev;
	f->ino = ino;
	f->bidlen = bidlen;
	if (bidlen)
		memcpy(f->bid, bid, bidlen);
	if ((f->pre = f->img = pre) != NULL)
		f->state = MF_OK;
	f->hash = h;
	xhtab_add(&mfiles, h, (uintptr_t)f);
	mem += f->size;
	return f;
}

static void
mf_put(struct mfile *f)
{
	struct htab_iter it;
	struct mfile *g;

	if (f->kind != MF_FILE || --f->refs > 0)
		return;
	for (g = (struct mfile *)htab_first(&mfiles, f->hash, &it); g != f;
	    g = (struct mfile *)htab_next(&mfiles, &it))
		;
	htab_del(&mfiles, &it);
	mem -= f->size;
	free(f);
}

static int
deleted(const char *path)
{
	size_t n = strlen(path);

	return n > 10 && strcmp(path + n - 10, " (deleted)") == 0;
}

/* Opens candidate and reads its image, named path; see the policy at
 * the top.  NULL with *held set when the file system did not answer
 * within fsio's deadline. */
static int mf_refused;	/* the last mf_try_path's open was refused:
			 * its errno (EACCES, EPERM), else 0 */

/* Whether the file of st, mapped by pid (0: a process gone), may go into
 * the build-id cache, which the dcpi group reads: only a file the
 * process's user could read itself.  An execute-only program (mode 0711)
 * run by a user, or bind-mounted over a user's own file in a user
 * namespace, is not theirs to read through dcpi.  Decided by the file's
 * owner and mode, whatever the path the process saw.  Said once per
 * image. */
static int
cache_permitted(struct img *im, uint32_t pid, const struct stat *st)
{
	struct fsio_cred c;
	int ok;

	if ((st->st_mode & (S_IRGRP | S_IROTH)) == (S_IRGRP | S_IROTH))
		return 1;
	if (pid != 0 && fsio_cred_of(pid, &c) == 0)
		ok = fsio_cred_may_read(&c, st);
	else
		ok = (st->st_mode & S_IROTH) != 0;
	if (!ok && !im->uncached) {
		im->uncached = 1;
		log_notice("%s (image %s, mode %04o, owner %ju): %s: not kept in "
		    "the build-id cache", im->pub.path, im->pub.id,
		    (unsigned)(st->st_mode & 07777), (uintmax_t)st->st_uid,
		    pid != 0 ? "its process's user may not read it" :
		    "its process is gone and others may not read it");
	}
	return ok;
}

static struct img *
mf_try_path(struct mfile *f, const char *path, const char *candidate,
    int check_inode, int *held, const struct fsio_cred *as, uint32_t pid)
{
	struct stat st;
	struct img *im;
	int fd, mismatch = 0, flags;
	uint64_t stamp, key = f->dev ? f->dev : fsio_key(path);
	char hex[2 * BUILD_ID_MAX + 1];

	/* The path may have been replaced by a FIFO or a device since the
	 * mapping: never block on it, never read one. */
	flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (check_inode ? O_NOFOLLOW : 0);
	mf_refused = 0;
	if ((fd = as ? fsio_open_as(candidate, flags, key, &st, as) :
	    fsio_open(candidate, flags, key, &st)) < 0) {
		mf_refused = errno == EACCES || errno == EPERM ? errno : 0;
		*held = fsio_held_up(errno);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || (check_inode &&
	    f->ino != 0 && (uint64_t)st.st_ino != f->ino)) {
		close(fd);
		return NULL;
	}
	/* A file read before under another path or mapping. */
	stamp = image_stamp(&st);
	im = image_by_inode(st.st_dev, st.st_ino, stamp);
	if (im && f->bidlen) {
		hex_encode(f->bid, f->bidlen, hex);
		if (strcmp(im->pub.id, hex) != 0)
			im = NULL;
	}
	if (im == NULL && (im = image_from_fd(fd, st.st_dev, path, f->bid,
	    f->bidlen, &mismatch)) == NULL)
		*held = fsio_held_up(errno);
	if (im) {
		image_set_inode(st.st_dev, st.st_ino, stamp, im);
		file_learn(kdev(st.st_dev), st.st_ino, im);
		image_hold(im, cache_permitted(im, pid, &st) ? fd : -1);
	}
	close(fd);
	if (im == NULL && !mismatch)
		log_debug("%s: no usable ELF text for %s", candidate, path);
	return im;
}

static struct img *
mf_try(struct mfile *f, const char *candidate, int check_inode, int *held,
    uint32_t pid)
{
	return mf_try_path(f, f->path, candidate, check_inode, held, NULL, pid);
}

/* After root was refused the file (path, mapped by pid): the open again,
 * as the process's own user and groups, through its root (the same file
 * in its mount namespace; map_files would want CAP_SYS_ADMIN, which a
 * thread that took a user's credentials has not).  Root may not open a
 * file on a FUSE mount without allow_other (sshfs, an AppImage, rootless
 * Podman's fuse-overlayfs) or on NFS with root_squash in a home directory
 * of mode 0700, while the process running from it may. */
static struct img *
mf_try_as(struct mfile *f, const char *path, uint32_t pid, int *held)
{
	static int warned;
	struct fsio_cred cred;
	struct img *im;
	char *root;

	if (path[0] != '/' || deleted(path) || fsio_cred_of(pid, &cred) == -1 ||
	    (cred.uid[0] == 0 && cred.uid[1] == 0 && cred.uid[2] == 0))
		return NULL;
	/* Without the capabilities, not tried: said once. */
	im = NULL;
	mf_refused = EPERM;
	if (fsio_can_open_as()) {
		xasprintf(&root, "/proc/%u/root%s", pid, path);
		im = mf_try_path(f, path, root, 1, held, &cred, pid);
		free(root);
	}
	if (im == NULL && mf_refused == EPERM && !warned) {
		warned = 1;
		log_warnx("images that root may not open (FUSE without allow_other, "
		    "NFS with root_squash) cannot be opened as their processes' "
		    "users either, first %s of pid %u: taking a user's credentials "
		    "needs CAP_SETUID and CAP_SETGID (dcpid.service: a drop-in, "
		    "dcpid(8) CAVEATS)", path, pid);
	}
	return im;
}

static void
mf_resolve(struct mfile *f, uint32_t pid, const struct attr_map *m)
{
	char mf[64];
	struct img *im = NULL;
	int held = 0, refused = 0;

	if (f->bidlen)
		im = image_by_build_id(f->bid, f->bidlen);
	if (im == NULL && f->path[0] == '/' && !deleted(f->path)) {
		im = mf_try(f, f->path, 1, &held, pid);
		refused |= mf_refused != 0;
	}
	/* A file system that did not answer for the path would not for the
	 * mapping either (the same file). */
	if (im == NULL && !held) {
		snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%"
		    PRIx64, pid, m->start, m->end);
		im = mf_try(f, mf, 0, &held, pid);
		refused |= mf_refused != 0;
	}
	if (im == NULL && !held && f->path[0] == '/' && !deleted(f->path)) {
		/* Another mount namespace or a chroot: its root. */
		char *root;

		xasprintf(&root, "/proc/%u/root%s", pid, f->path);
		im = mf_try(f, root, 1, &held, pid);
		free(root);
		refused |= mf_refused != 0;
	}
	if (im == NULL && !held && refused)
		im = mf_try_as(f, f->path, pid, &held);
	if (im == NULL && held) {
		/* Its samples are unreadable until a later try succeeds. */
		if (f->retry_at == 0)
			log_warnx("pid %u: image %s: its file system did not answer in "
			    "time: its samples are counted unreadable until it does "
			    "(tried again every %d s)", pid, f->path, MF_RETRY_MS / 1000);
		f->retry_at = (uint64_t)now_ms() + MF_RETRY_MS;
		return;
	}
	if (f->retry_at != 0 && im != NULL)
		log_notice("pid %u: image %s read: its file system answers again", pid,
		    f->path);
	f->retry_at = 0;
	f->img = im;
	f->state = im ? MF_OK : MF_FAILED;
	if (im == NULL)
		log_info("pid %u: cannot read image %s", pid, f->path);
}

/* Whether f is to be resolved now: not yet tried, or held up and due. */
static inline int
mf_due(const struct mfile *f)
{
	return f->state == MF_UNRESOLVED && (f->retry_at == 0 ||
	    (uint64_t)now_ms() >= f->retry_at);
}

/* The image's file for the build-id cache, from the sampled mapping,
 * once per flush interval: the file, whatever became of its path. */
static void
hold_mapped(struct img *im, uint32_t pid, const struct attr_map *m)
{
	char mf[64];
	struct stat st;
	int fd;

	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid,
	    m->start, m->end);
	if ((fd = fsio_open(mf, O_RDONLY | O_NONBLOCK | O_NOCTTY, image_key(im), &st)) == -1 ||
	    image_by_inode(st.st_dev, st.st_ino,
	    image_stamp(&st)) != im || !cache_permitted(im, pid, &st)) {
		/* Not this file, or gone: not held this interval. */
		if (fd != -1)
			close(fd);
		image_hold(im, -1);
		return;
	}
	image_hold(im, fd);
	close(fd);
}

/* ---- processes ---- */

static void
proc_clear(struct proc *p)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		mf_put(p->maps[i].f);
	p->n = 0;
	p->last = 0;
}

/* pid's address space (daemon/proc.h: the attribution's fields of its
 * process), empty if new. */
static struct proc *
proc_get(uint32_t pid)
{
	return proc_hold(pid, PROC_ATTR);
}

/* Forgets p's address space; it: the walk (proc_each) that gave p, or
 * NULL. */
static void
proc_drop(struct proc *p, struct htab_iter *it)
{
	proc_clear(p);
	mem -= p->cap * sizeof(*p->maps);
	free(p->maps - p->front);
	p->maps = NULL;
	p->cap = p->front = 0;
	memset(p->comm, 0, sizeof(p->comm));
	proc_release(p, PROC_ATTR, it);
}

static void
proc_free(uint32_t pid)
{
	struct proc *p;

	if ((p = proc_find(pid, PROC_ATTR)) != NULL)
		proc_drop(p, NULL);
}

/* p's array of maps has free entries at both ends, and an insertion or
 * a removal moves the entries on its shorter side: mappings come in
 * mmap's order (each below the last) or at the end as often as not, and
 * a process may have 65,530 of them (vm.max_map_count).  Moving the
 * longer side made 30,000 file mappings quadratic: seconds of dcpid's
 * CPU, and every process's sideband records lost behind them.  This moves
 * the n maps to the middle of an array of ncap entries (p's own when ncap
 * is its cap). */
static void
maps_center(struct proc *p, uint32_t ncap)
{
	struct attr_map *base = p->maps - p->front;
	uint32_t front = (ncap - p->n) / 2;

	if (ncap != p->cap) {
		struct attr_map *nb = xreallocarray(NULL, ncap, sizeof(*nb));

		if (p->n > 0)
			memcpy(nb + front, p->maps, p->n * sizeof(*nb));
		free(base);
		mem += (size_t)(ncap - p->cap) * sizeof(*nb);	/* only grows */
		p->cap = ncap;
		base = nb;
	} else
		memmove(base + front, p->maps, p->n * sizeof(*base));
	p->maps = base + front;
	p->front = front;
}

/* Opens a free entry at maps[i] (the one there, and those after it, are
 * then at i + 1 on); its contents are undefined. */
static struct attr_map *
maps_insert(struct proc *p, uint32_t i)
{
	int left = i < p->n - i;	/* fewer maps before i than after it */
	uint32_t free_n = p->cap - p->n;

	if ((left ? p->front : p->cap - p->front - p->n) == 0)
		/* Centring buys free_n / 2 cheap insertions on each side for
		 * one move of n: worth it while free_n is a fair part of n. */
		maps_center(p, free_n >= 2 && free_n > p->n / 2 ? p->cap :
		    2 * p->n + 16);
	if (left) {
		memmove(p->maps - 1, p->maps, i * sizeof(*p->maps));
		p->maps--;
		p->front--;
	} else
		memmove(p->maps + i + 1, p->maps + i, (p->n - i) * sizeof(*p->maps));
	p->n++;
	return &p->maps[i];
}

/* Removes maps[i, j). */
static void
maps_remove(struct proc *p, uint32_t i, uint32_t j)
{
	if (i < p->n - j) {
		memmove(p->maps + (j - i), p->maps, i * sizeof(*p->maps));
		p->maps += j - i;
		p->front += j - i;
	} else
		memmove(&p->maps[i], &p->maps[j], (p->n - j) * sizeof(*p->maps));
	p->n -= j - i;
}

/* First map whose end is above addr.  Without a branch on the compare (a
 * conditional move): samples spread over a process's maps would mispredict
 * half of them, the sample path's largest cost after its cache misses. */
static inline uint32_t
maps_lower(const struct proc *p, uint64_t addr)
{
	const struct attr_map *base = p->maps;
	uint32_t n = p->n, half;

	if (n == 0)
		return 0;
	while ((half = n / 2) > 0) {
		base += (size_t)(base[half - 1].end <= addr) * half;
		n -= half;
	}
	return (uint32_t)(base - p->maps) + (base->end <= addr);
}

/* Removes [start, end) from p's maps, trimming or splitting what overlaps;
 * returns the index where a map of that range belongs. */
static uint32_t
maps_punch(struct proc *p, uint64_t start, uint64_t end)
{
	uint32_t i = maps_lower(p, start), j;
	struct attr_map *m;

	if (i < p->n && p->maps[i].start < start && p->maps[i].end > end) {
		m = maps_insert(p, i);
		m[0] = m[1];
		m[0].end = start;
		m[1].pgoff += end - m[1].start;
		m[1].start = end;
		if (m[1].f->kind == MF_FILE)
			m[1].f->refs++;
		p->last = 0;
		return i + 1;
	}
	if (i < p->n && p->maps[i].start < start) {
		p->maps[i].end = start;
		i++;
	}
	for (j = i; j < p->n && p->maps[j].end <= end; j++)
		mf_put(p->maps[j].f);
	if (j < p->n && p->maps[j].start < end) {
		p->maps[j].pgoff += end - p->maps[j].start;
		p->maps[j].start = end;
	}
	if (j > i)
		maps_remove(p, i, j);
	p->last = 0;
	return i;
}

static void
maps_add(struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
    struct mfile *f)
{
	uint32_t i = maps_punch(p, start, end);
	struct attr_map *m;

	/* Anonymous code (a JIT's) can come as tens of thousands of
	 * mappings, each below the last (mmap's order), and each insertion
	 * moved the array after it: 60,000 cost dcpid seconds and overflowed
	 * the sideband.  An anonymous mapping beside another, with no mapping
	 * dcpid knows between them, lengthens it instead: a sample cannot
	 * land between two mappings in memory that is not executable, and an
	 * executable mapping there comes with its own MMAP2, which splits the
	 * range as any mapping does. */
	if (f->kind == MF_ANON && i < p->n && p->maps[i].f->kind == MF_ANON) {
		p->maps[i].start = start;
		p->last = i;
		return;
	}
	if (f->kind == MF_ANON && i > 0 && p->maps[i - 1].f->kind == MF_ANON) {
		p->maps[i - 1].end = end;
		p->last = i - 1;
		return;
	}
	m = maps_insert(p, i);
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->f = f;
	m->seg = 0;
	p->last = i;
}

/* The mapped file of a path from MMAP2 (with the build-id the kernel
 * found in it, bidlen bytes) or /proc/PID/maps (bidlen 0).  A memfd is
 * JIT code and trampolines, unless it holds an ELF image with a build-id:
 * a program run from a memfd (fexecve, as runc and packers do). */
static int
is_file(const char *path, size_t bidlen)
{
	return path[0] == '/' && strncmp(path, "//anon", 6) != 0 &&
	    strncmp(path, "/anon_hugepage", 14) != 0 &&
	    (strncmp(path, "/memfd:", 7) != 0 || bidlen > 0);
}

static struct mfile *
classify(const char *path, uint64_t dev, uint64_t ino, const uint8_t *bid,
    size_t bidlen, struct img *pre)
{
	if (strcmp(path, "[vdso]") == 0)
		return &vdso_mf;
	/* Anonymous memory, [heap], [stack], [anon:...], //anon, [vsyscall],
	 * memfd: JIT code and trampolines, unless an image was read from it.
	 * (MMAP2 with a build-id field but no build-id has no inode
	 * either: it is still a file.) */
	if (!is_file(path, bidlen) && pre == NULL)
		return &anon_mf;
	return mf_get(path, dev, ino, bid, bidlen, pre);
}

/* ---- reading mapped files while their processes live ---- */

/*
 * A record's mapping read at its arrival (attr_prefetch), for attr_mmap to
 * find when the ordering hands the record over, a few milliseconds to a
 * second later.  Only mappings whose MMAP2 carries no build-id need it
 * (with one, the image is found by build-id).  Direct-mapped: a slot
 * overwritten before its record is handled only costs a lazy read.
 */
#define PF_SLOTS	1024
struct prefetched {
	uint32_t	 pid;
	uint64_t	 start, len, pgoff;
	struct img	*img;
};
static struct prefetched pf[PF_SLOTS];

static struct prefetched *
pf_slot(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff)
{
	uint64_t h = (start ^ (len << 7) ^ pgoff) * 0x9e3779b97f4a7c15ULL ^ pid;

	return &pf[(h >> 40) & (PF_SLOTS - 1)];
}

/* Reads the file mapped at [start, end) of a live process: the mapping
 * itself (map_files: the very file, deleted or replaced or not, in any
 * mount namespace), else the path under the process's root.  The file is
 * held for the build-id cache.  NULL with *held set when the file system
 * did not answer in time. */
static struct img *
read_live(uint32_t pid, uint64_t start, uint64_t end, const char *path,
    const uint8_t *bid, size_t bidlen, int *held)
{
	struct mfile tmp;
	struct attr_map m;
	struct img *im;

	memset(&tmp, 0, sizeof(tmp));
	memset(&m, 0, sizeof(m));
	if (bidlen > BUILD_ID_MAX)
		bidlen = BUILD_ID_MAX;
	/* (No build-id: bid may be NULL, which memcpy is not given.) */
	if (bidlen > 0)
		memcpy(tmp.bid, bid, bidlen);
	tmp.bidlen = bidlen;
	m.start = start;
	m.end = end;
	/* mf_resolve's last steps, without logging a failure: the process
	 * may already be gone, and the sample path tries again. */
	{
		char mf[64], *root;
		int refused;

		snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
		    pid, start, end);
		if ((im = mf_try_path(&tmp, path, mf, 0, held, NULL, pid)) != NULL)
			return im;
		refused = mf_refused;
		if (deleted(path) || *held)
			return NULL;
		xasprintf(&root, "/proc/%u/root%s", pid, path);
		im = mf_try_path(&tmp, path, root, 1, held, NULL, pid);
		free(root);
		if (im == NULL && !*held && (refused || mf_refused))
			im = mf_try_as(&tmp, path, pid, held);
	}
	return im;
}

/* The process gone already (it ran for a millisecond): the file at the
 * mapping's path, if it carries the MMAP2's build-id (or, without one, has
 * its inode), is the mapped one, for the kernel's counts keyed by file;
 * what the lazy resolution does for the ring's samples (mf_resolve). */
static void
learn_by_path(const struct attr_mmap *m, size_t bidlen)
{
	struct mfile tmp;
	int held = 0;

	if (m->filename[0] != '/' || deleted(m->filename))
		return;
	memset(&tmp, 0, sizeof(tmp));
	if (bidlen > BUILD_ID_MAX)
		bidlen = BUILD_ID_MAX;
	memcpy(tmp.bid, m->build_id, bidlen);
	tmp.bidlen = bidlen;
	tmp.ino = m->has_build_id ? 0 : m->ino;
	tmp.dev = m->has_build_id ? 0 : makedev(m->maj, m->min);
	if (bidlen == 0 && tmp.ino == 0)
		return;		/* nothing to check the file against */
	mf_try_path(&tmp, m->filename, m->filename, 1, &held, NULL, 0);
}

/* A program run from a memfd has no build-id in its MMAP2 when it has no
 * GNU build-id (a Go binary, fexecve'd as runc does): it is an ELF image
 * all the same, read through the mapping as the /proc scan reads one
 * (scan_memfd), unless this process's memfd of that name was found to
 * hold none (a JIT's double-mapped code: one look per memfd, not one per
 * mapping). */
#define MEMFD_NOT_ELF	256
static uint64_t memfd_not_elf[MEMFD_NOT_ELF];

static void
prefetch_memfd(const struct attr_mmap *m)
{
	uint64_t h = fnv1a64_str(FNV1A64_INIT, m->filename) ^
	    (m->pid * 0x9e3779b97f4a7c15ULL), *slot;
	struct prefetched *s;
	struct img *im;
	int held = 0;

	h |= 1;		/* 0: an empty slot */
	slot = &memfd_not_elf[(h >> 32) % MEMFD_NOT_ELF];
	if (*slot == h)
		return;
	if ((im = read_live(m->pid, m->start, m->start + m->len, m->filename, NULL, 0,
	    &held)) == NULL) {
		if (!held)
			*slot = h;
		return;
	}
	nprefetched++;
	s = pf_slot(m->pid, m->start, m->len, m->pgoff);
	*s = (struct prefetched){ m->pid, m->start, m->len, m->pgoff, im };
}

void
attr_prefetch(const struct attr_mmap *m)
{
	struct prefetched *s;
	struct img *im;
	size_t bidlen = m->has_build_id ? m->build_id_size : 0;
	int held = 0;

	if (!(m->prot & PROT_EXEC) || m->len == 0 || m->start + m->len < m->start)
		return;
	if (!is_file(m->filename, bidlen)) {
		if (bidlen == 0 && strncmp(m->filename, "/memfd:", 7) == 0)
			prefetch_memfd(m);
		return;
	}
	if (bidlen > 0 && (im = image_by_build_id(m->build_id, bidlen)) != NULL) {
		/* Known: nothing to read; only which file it is, for the
		 * kernel's counts (a stat of the mapping itself). */
		char mf[64];
		struct stat st;

		/* Once per image: a process that maps another copy of it (a
		 * file of the same build-id) is learnt when the kernel
		 * reports the file (attr_file_learn_at). */
		if (im->file_known)
			return;
		snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
		    m->pid, m->start, m->start + m->len);
		if (fsio_stat(mf, image_key(im), &st) == 0)
			file_learn(kdev(st.st_dev), st.st_ino, im);
		else if (!fsio_held_up(errno))
			learn_by_path(m, bidlen);
		return;
	}
	if ((im = read_live(m->pid, m->start, m->start + m->len, m->filename,
	    m->build_id, bidlen, &held)) == NULL) {
		if (!held)
			learn_by_path(m, bidlen);
		return;
	}
	nprefetched++;
	if (bidlen == 0) {
		s = pf_slot(m->pid, m->start, m->len, m->pgoff);
		*s = (struct prefetched){ m->pid, m->start, m->len, m->pgoff, im };
	}
}

static struct img *
pf_take(const struct attr_mmap *m)
{
	struct prefetched *s = pf_slot(m->pid, m->start, m->len, m->pgoff);
	struct img *im;

	if (s->img == NULL || s->pid != m->pid || s->start != m->start ||
	    s->len != m->len || s->pgoff != m->pgoff)
		return NULL;
	im = s->img;
	s->img = NULL;
	return im;
}

/* ---- the interface ---- */

static const struct proc_hooks attr_hooks = { attr_fork, attr_comm, attr_exit };

int
attr_init(void)
{
	proc_set_hooks(PROC_ATTR, &attr_hooks);
	image_init();
	kernel_init();
	vdso_mf.img = kernel_vdso();
	vdso_mf.state = vdso_mf.img ? MF_OK : MF_FAILED;
	anon_mf.state = MF_OK;
	return 0;
}

void
attr_fini(void)
{
	struct htab_iter it;
	struct proc *p;
	struct fent *e;

	proc_set_hooks(PROC_ATTR, NULL);
	memset(&it, 0, sizeof(it));
	while ((p = proc_each(PROC_ATTR, &it)) != NULL)
		proc_drop(p, &it);
	htab_fini(&mfiles);
	memset(&it, 0, sizeof(it));
	while ((e = (struct fent *)htab_each(&files, &it)) != NULL)
		free(e);
	htab_fini(&files);
	mem = 0;
	kernel_fini();
	image_fini();
}

void
attr_mmap(const struct attr_mmap *m)
{
	struct proc *p;
	struct mfile *f;
	uint64_t dev = 0, ino = 0;

	if (m->len == 0 || m->start + m->len < m->start)
		return;
	p = proc_get(m->pid);
	if (!(m->prot & PROT_EXEC)) {
		/* Not code, but whatever it covers is gone. */
		maps_punch(p, m->start, m->start + m->len);
		return;
	}
	if (!m->has_build_id) {
		dev = makedev(m->maj, m->min);
		ino = m->ino;
	}
	f = classify(m->filename, dev, ino, m->build_id,
	    m->has_build_id ? m->build_id_size : 0,
	    m->has_build_id && m->build_id_size > 0 ? NULL : pf_take(m));
	maps_add(p, m->start, m->start + m->len, m->pgoff, f);
}

void
attr_comm(uint32_t pid, uint32_t tid, const char *comm, int exec)
{
	struct proc *p;

	/* exec replaces the address space; its MMAP2 records follow. */
	if (exec) {
		p = proc_get(pid);
		proc_clear(p);
	} else
		p = proc_find(pid, PROC_ATTR);
	/* Threads name themselves; the process is its main thread's name. */
	if (p && (exec || pid == tid))
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
}

const char *
attr_proc_comm(uint32_t pid)
{
	struct proc *p;

	if ((p = proc_find(pid, PROC_ATTR)) == NULL || p->comm[0] == '\0')
		return NULL;
	return p->comm;
}

void
attr_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct proc *parent, *child;
	uint32_t i;

	(void)tid;
	(void)ptid;
	if (pid == ppid)
		return;		/* a new thread shares its process's maps */
	proc_free(pid);		/* a stale model of a reused pid */
	/* Without a model of the parent (kernel threads: kthreadd) the
	 * child's samples are unknown-pid until its own MMAP2 records. */
	if ((parent = proc_find(ppid, PROC_ATTR)) == NULL)
		return;
	child = proc_get(pid);
	/* A parent known only from its exec has no maps yet (and no array). */
	if (parent->n > 0) {
		uint32_t ncap = parent->n + parent->n / 2 + 16;

		child->front = (ncap - parent->n) / 2;
		child->maps = xreallocarray(NULL, ncap, sizeof(*child->maps));
		child->maps += child->front;
		memcpy(child->maps, parent->maps, parent->n * sizeof(*child->maps));
		child->n = parent->n;
		child->cap = ncap;
		mem += ncap * sizeof(*child->maps);
	}
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	for (i = 0; i < child->n; i++)
		if (child->maps[i].f->kind == MF_FILE)
			child->maps[i].f->refs++;
}

void
attr_exit(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	(void)ppid;
	(void)ptid;
	if (pid == tid)
		proc_free(pid);
}

/* File offset foff of im as an offset from its text start; *seg is the
 * segment hit last, tried first. */
static enum attr_reason
file_offset(struct img *im, uint64_t foff, uint32_t *seg, struct image **img,
    uint32_t *offset)
{
	const struct dcpi_image_seg *s;
	uint64_t off;
	uint32_t i;

	s = &im->segs[*seg < im->nsegs ? *seg : 0];
	if (foff - s->offset >= s->filesz) {
		for (i = 0; i < im->nsegs; i++)
			if (foff - im->segs[i].offset < im->segs[i].filesz)
				break;
		if (i == im->nsegs)
			return ATTR_OUTSIDE_TEXT;
		*seg = i;
		s = &im->segs[i];
	}
	off = foff - s->offset + s->vaddr - im->pub.tstart;
	if (off >= im->pub.tsize)
		return ATTR_OUTSIDE_TEXT;
	*img = &im->pub;
	*offset = off;
	return ATTR_OK;
}

enum attr_reason
attr_sample(uint32_t pid, uint64_t pc, uint16_t cpumode, struct image **img,
    uint32_t *offset)
{
	struct proc *p;
	struct attr_map *m;
	struct img *im;
	uint32_t i;

	switch (cpumode & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		return kernel_sample(pc, img, offset);
	case PERF_RECORD_MISC_USER:
		break;
	case PERF_RECORD_MISC_CPUMODE_UNKNOWN:
		/* Kernel addresses are the upper half on every Linux ABI. */
		if ((int64_t)pc < 0)
			return kernel_sample(pc, img, offset);
		break;
	default:
		return ATTR_HYPERVISOR;
	}
	if ((p = proc_find(pid, PROC_ATTR)) == NULL)
		return ATTR_UNKNOWN_PID;
	m = p->last < p->n ? &p->maps[p->last] : NULL;
	if (m == NULL || pc < m->start || pc >= m->end) {
		i = maps_lower(p, pc);
		if (i == p->n || pc < p->maps[i].start)
			return ATTR_NO_MAP;
		p->last = i;
		m = &p->maps[i];
	}
	switch (m->f->kind) {
	case MF_ANON:
		return ATTR_ANON;
	case MF_FILE:
		if (mf_due(m->f))
			mf_resolve(m->f, pid, m);
		break;
	}
	if ((im = m->f->img) == NULL)
		return ATTR_UNREADABLE;
	return file_offset(im, pc - m->start + m->pgoff, &m->seg, img, offset);
}

enum attr_reason
attr_file_sample(uint64_t dev, uint64_t ino, uint64_t foff, struct image **img,
    uint32_t *offset)
{
	struct htab_iter it;
	struct fent *e;
	uint32_t seg = 0;

	if ((e = fent_find(dev, ino, &it)) == NULL)
		return ATTR_NO_MAP;
	e->used = reclaim_pass;
	if (e->img == NULL)
		return ATTR_ANON;
	return file_offset(e->img, foff, &seg, img, offset);
}

int
attr_file_learnt(uint64_t *dev, uint64_t *ino)
{
	if (nlearnt == 0)
		return -1;
	nlearnt--;
	*dev = learnt[nlearnt].dev;
	*ino = learnt[nlearnt].ino;
	return 0;
}

enum attr_reason
attr_file_learn_at(uint64_t dev, uint64_t ino, uint32_t pid, uint64_t pc)
{
	char mf[64];
	struct stat st;
	struct proc *p;
	struct attr_map *m;
	uint32_t i;

	if ((p = proc_find(pid, PROC_ATTR)) == NULL)
		return ATTR_UNKNOWN_PID;
	if ((i = maps_lower(p, pc)) == p->n || pc < p->maps[i].start)
		return ATTR_NO_MAP;
	m = &p->maps[i];
	/* The model's mapping is the noted file only if the live mapping
	 * is (or, the process gone, if the MMAP2 or scan named its inode). */
	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64,
	    pid, m->start, m->end);
	if (fsio_stat(mf, m->f->kind == MF_FILE && m->f->img ? image_key(m->f->img) :
	    fsio_key(m->f->kind == MF_FILE ? m->f->path : mf), &st) == 0 ?
	    kdev(st.st_dev) != dev || st.st_ino != ino :
	    m->f->ino == 0 || kdev(m->f->dev) != dev || m->f->ino != ino)
		return ATTR_NO_MAP;
	if (m->f->kind != MF_FILE) {
		file_learn(dev, ino, NULL);
		return ATTR_ANON;
	}
	if (mf_due(m->f))
		mf_resolve(m->f, pid, m);
	if (m->f->img == NULL)
		return ATTR_UNREADABLE;
	file_learn(dev, ino, m->f->img);
	return ATTR_OK;
}

/* ---- the /proc scan ---- */

/* An executable memfd mapping is JIT code, unless it holds an ELF image:
 * a program run from a memfd, whose MMAP2 would have given its build-id.
 * The image, read through the mapping, or NULL. */
static struct img *
scan_memfd(uint32_t pid, uint64_t start, uint64_t end, const char *name)
{
	if (strncmp(name, "/memfd:", 7) != 0)
		return NULL;
	int held = 0;

	return read_live(pid, start, end, name, NULL, 0, &held);
}

static void
scan_pid(uint32_t pid)
{
	char path[64], line[4096 + 128], perms[8], *name;
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	struct proc *p = NULL;
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return;		/* gone already, or a kernel thread race */
	while (fgets(line, sizeof(line), fp)) {
		struct mfile *f;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start,
		    &end, perms, &pgoff, &maj, &min, &ino, &n) != 7 ||
		    end <= start) {
			log_debug("%s: unexpected line: %s", path, line);
			continue;
		}
		if (strchr(perms, 'x') == NULL)
			continue;
		name = line + n;
		if (p == NULL) {
			/* The scan may run after records of this pid. */
			proc_free(pid);
			p = proc_get(pid);
		}
		f = classify(name, makedev(maj, min), ino, NULL, 0,
		    scan_memfd(pid, start, end, name));
		maps_add(p, start, end, pgoff, f);
		/* map_files may be gone by the first sample. */
		if (f->kind == MF_FILE && f->state == MF_UNRESOLVED &&
		    deleted(f->path))
			mf_resolve(f, pid, &p->maps[p->last]);
	}
	/* A read error means the process went away mid-read. */
	if (ferror(fp) && p) {
		proc_free(pid);
		p = NULL;
	}
	fclose(fp);
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (p && (fp = fopen(path, "re")) != NULL) {
		if (fgets(p->comm, sizeof(p->comm), fp) != NULL)
			p->comm[strcspn(p->comm, "\n")] = '\0';
		fclose(fp);
	}
}

void
attr_scan_proc(void (*yield)(void))
{
	DIR *d;
	struct dirent *de;
	char *end;
	unsigned long pid;

	if ((d = opendir("/proc")) == NULL) {
		log_warn("/proc");
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoul(de->d_name, &end, 10);
		if (*end == '\0' && pid <= UINT32_MAX) {
			scan_pid(pid);
			if (yield != NULL)
				yield();
		}
	}
	closedir(d);
	log_info("scanned %zu processes, %zu images", proc_count(PROC_ATTR), image_count());
}

size_t
attr_nimages(void)
{
	return image_count();
}

size_t
attr_image_slots(void)
{
	return image_slots();
}

/* The file entry is to go: its image's, or not learnt or counted for two
 * passes. */
static int
fent_stale(const struct fent *e)
{
	return (e->img != NULL && e->img->doomed) || reclaim_pass - e->used >= 2;
}

/*
 * What a long-running dcpid would otherwise keep for good: every image
 * ever sampled, and a file entry for every file (device, inode) met, on
 * a host that builds or deploys new programs all day, or starts
 * containers (a new overlay device each).  Images that no mapping holds
 * and that had no count or chain flushed (attr_image_used) are doomed by
 * image_doom's two-pass rule; file entries go with their image,
 * or once two passes went by without the file's being learnt or counted
 * (one still mapped is learnt again from its next sample, which takes
 * the ring until then: forget tells the kernel's table).
 */
size_t
attr_reclaim(void (*forget)(uint64_t dev, uint64_t ino), void (*drain)(void),
    int (*counted)(uint32_t index))
{
	struct htab_iter it;
	struct mfile *f;
	struct fent *e;
	struct img *im;
	size_t i, n;

	reclaim_pass++;
	memset(&it, 0, sizeof(it));
	while ((f = (struct mfile *)htab_each(&mfiles, &it)) != NULL) {
		if (f->img != NULL)
			f->img->mark = reclaim_pass;
		if (f->pre != NULL)
			f->pre->mark = reclaim_pass;
	}
	for (i = 0; i < PF_SLOTS; i++)
		if (pf[i].img != NULL)
			pf[i].img->mark = reclaim_pass;
	image_doom(reclaim_pass);
	/* The kernel stops counting the files first; what it counted until
	 * then is drained while their entries still name their images (a
	 * process that mapped one during the flush, its MMAP2 not handled
	 * yet), and an image so counted stays. */
	memset(&it, 0, sizeof(it));
	while ((e = (struct fent *)htab_each(&files, &it)) != NULL)
		if (fent_stale(e) && forget != NULL)
			forget(e->dev, e->ino);
	if (drain != NULL)
		drain();
	for (i = 0; i < image_slots(); i++)
		if ((im = image_at((uint32_t)i)) != NULL && im->doomed && counted != NULL &&
		    counted((uint32_t)i))
			im->doomed = im->idle = 0;	/* used at this pass */
	memset(&it, 0, sizeof(it));
	while ((e = (struct fent *)htab_each(&files, &it)) != NULL)
		if (fent_stale(e)) {
			htab_del(&files, &it);
			mem -= sizeof(*e);
			free(e);
		}
	/* file_known says a file of the image is in the table: again. */
	for (i = 0; i < image_slots(); i++)
		if ((im = image_at((uint32_t)i)) != NULL)
			im->file_known = 0;
	memset(&it, 0, sizeof(it));
	while ((e = (struct fent *)htab_each(&files, &it)) != NULL)
		if (e->img != NULL)
			e->img->file_known = 1;
	n = image_free_doomed();
	nimages_freed += n;
	return n;
}

void
attr_image_used(uint32_t index)
{
	struct img *im = image_at(index);

	if (im != NULL)
		im->mark = reclaim_pass + 1;
}

struct image *
attr_image(uint32_t index)
{
	struct img *im = image_at(index);

	return im ? &im->pub : NULL;
}

void
attr_hold(uint32_t pid, uint64_t pc)
{
	struct proc *p;
	struct attr_map *m;
	uint32_t i;

	if ((p = proc_find(pid, PROC_ATTR)) == NULL || (i = maps_lower(p, pc)) == p->n ||
	    pc < p->maps[i].start)
		return;
	m = &p->maps[i];
	if (m->f->kind == MF_FILE && m->f->img != NULL && !m->f->img->held)
		hold_mapped(m->f->img, pid, m);
}

/* Whether the file open on fd (name for its messages) is img's: a
 * regular file, of inode ino unless that is 0, with img's build-id where
 * img has one. */
static int
is_image_file(int fd, const struct stat *st, const char *name, uint64_t ino,
    const struct image *img)
{
	struct dcpi_elf_image ei;
	struct dcpi_error de;
	int same;

	same = S_ISREG(st->st_mode) && (ino == 0 || (uint64_t)st->st_ino == ino);
	if (same && img->idkind == NULL) {
		same = dcpi_elf_image_fd(fd, name, DCPI_IMAGE_NO_HASH, &ei, &de) == 0 &&
		    strcmp(ei.id, img->id) == 0;
		dcpi_elf_image_clear(&ei);
	}
	return same;
}

int
attr_open_mapped(uint32_t pid, uint64_t pc, const struct image *img)
{
	struct proc *p;
	struct attr_map *m;
	struct stat st;
	char mf[64];
	uint32_t i;
	int fd;

	if ((p = proc_find(pid, PROC_ATTR)) == NULL || (i = maps_lower(p, pc)) == p->n ||
	    pc < p->maps[i].start || pc >= p->maps[i].end)
		return -1;
	m = &p->maps[i];
	if (m->f->kind != MF_FILE || m->f->img == NULL || &m->f->img->pub != img)
		return -1;
	snprintf(mf, sizeof(mf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid,
	    m->start, m->end);
	if ((fd = fsio_open(mf, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    image_key(m->f->img), &st)) == -1)
		return -1;
	/* The mapping may have changed since the sample: the file must be
	 * the one the MMAP2 said (its inode, else its build-id), and where the
	 * image has a build-id, have it. */
	if (!is_image_file(fd, &st, mf, m->f->ino, img)) {
		close(fd);
		return -1;
	}
	return fd;
}

int
attr_open_file(const struct image *img, int *cached)
{
	struct stat st;
	int fd;

	*cached = 0;
	if (img->idkind != NULL)
		return -1;
	/* As the attribution opened it: the last component no link, no
	 * FIFO or device to block on. */
	if (img->path[0] == '/' && (fd = fsio_open(img->path, O_RDONLY | O_NONBLOCK |
	    O_NOCTTY | O_NOFOLLOW, image_key((const struct img *)img), &st)) != -1) {
		if (is_image_file(fd, &st, img->path, 0, img))
			return fd;
		close(fd);
	}
	if ((fd = cache_open(img->id)) != -1) {
		if (fstat(fd, &st) == 0 && is_image_file(fd, &st, img->id, 0, img)) {
			*cached = 1;
			return fd;
		}
		close(fd);
	}
	return -1;
}

void
attr_release_images(void)
{
	image_release();
}

uint64_t
attr_prefetched(void)
{
	return nprefetched;
}

void
attr_status(struct status_writer *w)
{
	status_add(w, "images", "%zu", attr_nimages());
	status_add(w, "images-freed", "%ju since the start (unused for two flushes)",
	    (uintmax_t)nimages_freed);
	status_add(w, "images-read-live", "%ju", (uintmax_t)attr_prefetched());
}

size_t
attr_nprocs(void)
{
	return proc_count(PROC_ATTR);
}

size_t
attr_memory(void)
{
	return mem + proc_memory() + htab_memory(&mfiles) + htab_memory(&files) +
	    image_memory() + kernel_memory();
}
