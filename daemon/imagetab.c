#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "fsio.h"
#include "htab.h"
#include "imagetab.h"
#include "log.h"
#include "util.h"
#include "xmalloc.h"

/* Images by index; a freed image's index waits in freeidx for the next
 * image, so the indexes (which the aggregation's arrays follow) stay as
 * few as the images held at once. */
static struct img	**images;
static size_t		  nimages, capimages;	/* slots used, allocated */
static uint32_t		 *freeidx;
static size_t		  nfree, capfree;
static size_t		  mem;

/* Images by id, and the image last seen at each (device, inode). */
static struct htab	  byid;
struct inode_ent {
	uint64_t	 dev, ino, stamp;
	struct img	*img;
};
static struct htab	  byinode;

/* Images whose held flag is set since the last flush (held or tried). */
static struct img	**touched;
static size_t		  ntouched, captouched;

/* Files held open at once: a host with thousands of images sampled in one
 * flush interval must not run dcpid out of descriptors. */
#define HELD_MAX	512
static size_t		  nheld, nheld_skipped;

static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return h ^ (h >> 32);
}

void
image_init(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		fatalx("libelf: %s", elf_errmsg(-1));
}

void
image_fini(void)
{
	struct htab_iter it;
	struct inode_ent *e;
	size_t i;

	nheld = nheld_skipped = 0;
	for (i = 0; i < nimages; i++) {
		if (images[i] == NULL)
			continue;
		if (images[i]->fd != -1)
			close(images[i]->fd);
		free(images[i]->pub.id);
		free(images[i]->pub.path);
		free(images[i]->segs);
		free(images[i]);
	}
	free(images);
	free(freeidx);
	freeidx = NULL;
	nfree = capfree = 0;
	htab_fini(&byid);
	memset(&it, 0, sizeof(it));
	while ((e = (struct inode_ent *)htab_each(&byinode, &it)) != NULL)
		free(e);
	htab_fini(&byinode);
	free(touched);
	touched = NULL;
	ntouched = captouched = 0;
	images = NULL;
	nimages = capimages = 0;
	mem = 0;
}

struct img *
image_by_id(const char *id)
{
	struct htab_iter it;
	struct img *im;

	for (im = (struct img *)htab_first(&byid, fnv1a64_str(FNV1A64_INIT, id),
	    &it); im != NULL; im = (struct img *)htab_next(&byid, &it))
		if (strcmp(im->pub.id, id) == 0)
			return im;
	return NULL;
}

struct img *
image_by_build_id(const uint8_t *bid, size_t len)
{
	char hex[2 * BUILD_ID_MAX + 1];

	if (len == 0 || len > BUILD_ID_MAX)
		return NULL;
	hex_encode(bid, len, hex);
	return image_by_id(hex);
}

/*
 * path as profiles record it: " (deleted)" stripped (unless keep_suffix:
 * the file's name ends so, see image_from_fd), and a newline
 * written \012 as /proc/PID/maps writes it (a path may hold one; a
 * profile's header line and a stack file's image row cannot, and the
 * escape makes the name the same whichever way the file was learnt).  A
 * recorded path that no longer names a file is what sends the image to
 * the build-id cache (image_release), which this one then always is.
 */
static char *
recorded_path(const char *path, int keep_suffix)
{
	size_t plen = strlen(path), i, n = 0;
	char *r, *w;

	if (!keep_suffix && plen > 10 && strcmp(path + plen - 10, " (deleted)") == 0)
		plen -= 10;
	for (i = 0; i < plen; i++)
		n += path[i] == '\n';
	w = r = xmalloc(plen + 3 * n + 1);
	for (i = 0; i < plen; i++)
		if (path[i] == '\n') {
			memcpy(w, "\\012", 4);
			w += 4;
		} else
			*w++ = path[i];
	*w = '\0';
	return r;
}

/* Takes ownership of segs. */
static struct img *
image_add(const char *id, const char *idkind, const char *path, int keep_suffix,
    uint64_t tstart, uint64_t tsize, struct dcpi_image_seg *segs, uint32_t nsegs)
{
	struct img *im;
	size_t plen;

	if ((im = image_by_id(id)) != NULL) {
		free(segs);
		return im;
	}
	if (nfree == 0 && nimages == capimages) {
		size_t ncap = capimages ? 2 * capimages : 64;

		images = xreallocarray(images, ncap, sizeof(*images));
		mem += (ncap - capimages) * sizeof(*images);
		capimages = ncap;
	}
	im = xcalloc(1, sizeof(*im));
	im->pub.index = nfree > 0 ? freeidx[--nfree] : nimages++;
	im->pub.id = xstrdup(id);
	im->pub.idkind = idkind;
	im->pub.path = recorded_path(path, keep_suffix);
	plen = strlen(im->pub.path);
	im->pub.tstart = tstart;
	im->pub.tsize = tsize;
	im->segs = segs;
	im->nsegs = nsegs;
	im->fd = -1;
	/* Only images read from files have a file to hold. */
	im->held = segs == NULL;
	mem += sizeof(*im) + strlen(id) + 1 + plen + 1 + nsegs * sizeof(*segs);
	images[im->pub.index] = im;
	xhtab_add(&byid, fnv1a64_str(FNV1A64_INIT, id), (uintptr_t)im);
	log_debug("image %u %s %s tstart %#llx tsize %llu", im->pub.index, id,
	    im->pub.path, (unsigned long long)tstart, (unsigned long long)tsize);
	return im;
}

/* Takes the segments of ei. */
static struct img *
image_from(struct dcpi_elf_image *ei, const char *path, int keep_suffix)
{
	struct img *im;

	im = image_add(ei->id, ei->build_id_len ? NULL : DCPI_IDKIND_CONTENT, path,
	    keep_suffix, ei->tstart, ei->tsize, ei->segs, ei->nsegs);
	ei->segs = NULL;
	dcpi_elf_image_clear(ei);
	return im;
}

/* Whether path's " (deleted)" is the file's own name, not the kernel's
 * word for an unlinked file: the whole path names the file open on fd.
 * (An unlinked file named so is "... (deleted) (deleted)".) */
static int
named_deleted(const char *path, int fd)
{
	size_t n = strlen(path);
	struct stat a, b;

	return path[0] == '/' && n > 10 && strcmp(path + n - 10, " (deleted)") == 0 &&
	    fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino;
}

/* An ELF read on a helper (fsio): the read touches only the call. */
struct readcall {
	int			 fd;		/* the helper's own */
	char			*path;
	uint8_t			 want[BUILD_ID_MAX];
	size_t			 want_len;
	int			 rc, err, mismatch, named;
	struct dcpi_elf_image	 ei;
	struct dcpi_error	 error;
};

static void
read_run(void *a)
{
	struct readcall *c = a;

	/* A file that must carry a build-id is never worth hashing. */
	if ((c->rc = dcpi_elf_image_fd(c->fd, c->path, c->want_len > 0 ?
	    DCPI_IMAGE_NO_HASH : 0, &c->ei, &c->error)) < 0) {
		c->err = errno;
		return;
	}
	if (c->want_len > 0 && (c->ei.build_id_len != c->want_len ||
	    memcmp(c->ei.build_id, c->want, c->want_len) != 0)) {
		c->mismatch = 1;
		dcpi_elf_image_clear(&c->ei);
		c->rc = -1;
		c->err = 0;
		return;
	}
	c->named = named_deleted(c->path, c->fd);
}

static void
read_late(void *a)
{
	struct readcall *c = a;

	if (c->rc == 0)
		dcpi_elf_image_clear(&c->ei);
	close(c->fd);
	free(c->path);
	free(c);
}

struct img *
image_from_fd(int fd, uint64_t dev, const char *path, const uint8_t *want,
    size_t want_len, int *mismatch)
{
	struct readcall *c;
	struct img *im = NULL;
	int e;

	if (mismatch)
		*mismatch = 0;
	c = xcalloc(1, sizeof(*c));
	if ((c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		free(c);
		return NULL;
	}
	c->path = xstrdup(path);
	c->want_len = want_len > BUILD_ID_MAX ? BUILD_ID_MAX : want_len;
	if (c->want_len > 0)
		memcpy(c->want, want, c->want_len);
	c->rc = -1;
	if (fsio_call(dev, read_run, read_late, c, FSIO_DEADLINE_MS) == -1) {
		e = errno;
		if (e == EAGAIN)
			read_late(c);
		errno = e;
		return NULL;
	}
	if (c->rc == 0) {
		size_t before = image_count();

		im = image_from(&c->ei, path, c->named);
		/* Only an image this read made: one of the same id made
		 * otherwise (the vdso's, a pseudo image) is held elsewhere. */
		if (image_count() > before)
			im->from_file = 1;
	} else if (c->mismatch && mismatch)
		*mismatch = 1;
	else if (c->err == EFBIG)
		log_info("%s", c->error.msg);
	e = c->rc == 0 || c->mismatch ? 0 : c->err;
	close(c->fd);
	free(c->path);
	free(c);
	errno = e;
	return im;
}

struct img *
image_from_memory(const void *buf, size_t len, const char *path)
{
	struct dcpi_elf_image ei;

	if (dcpi_elf_image_memory(buf, len, path, 0, &ei, NULL) < 0)
		return NULL;
	return image_from(&ei, path, 0);
}

struct img *
image_pseudo(const uint8_t *bid, size_t bidlen, const char *descr,
    const char *path, uint64_t tstart, uint64_t tsize)
{
	char id[2 * BUILD_ID_MAX + 1];

	if (bidlen > 0)
		hex_encode(bid, bidlen > BUILD_ID_MAX ? BUILD_ID_MAX : bidlen, id);
	else
		snprintf(id, sizeof(id), "%016llx",
		    (unsigned long long)fnv1a64_str(FNV1A64_INIT, descr));
	return image_add(id, bidlen > 0 ? NULL : DCPI_IDKIND_NAME, path, 0, tstart,
	    tsize, NULL, 0);
}

size_t
image_note_build_id(const void *buf, size_t len, uint8_t *out)
{
	const unsigned char *p = buf;
	size_t off = 0;

	/* Elf32_Nhdr and Elf64_Nhdr are the same: three 4-byte words. */
	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, p + off, sizeof(nh));
		name = off + sizeof(nh);
		desc = name + ((nh.n_namesz + 3) & ~(size_t)3);
		if (desc > len || nh.n_descsz > len - desc)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + name, "GNU", 4) == 0 && nh.n_descsz > 0) {
			size_t n = nh.n_descsz > BUILD_ID_MAX ? BUILD_ID_MAX :
			    nh.n_descsz;

			memcpy(out, p + desc, n);
			return n;
		}
		off = desc + ((nh.n_descsz + 3) & ~(size_t)3);
	}
	return 0;
}

uint64_t
image_stamp(const struct stat *st)
{
	uint64_t t = (uint64_t)st->st_mtim.tv_sec * 1000000000 +
	    st->st_mtim.tv_nsec;

	return mix(t, st->st_size);
}

static struct inode_ent *
inode_find(uint64_t dev, uint64_t ino)
{
	struct htab_iter it;
	struct inode_ent *e;

	for (e = (struct inode_ent *)htab_first(&byinode, mix(dev, ino), &it);
	    e != NULL; e = (struct inode_ent *)htab_next(&byinode, &it))
		if (e->dev == dev && e->ino == ino)
			return e;
	return NULL;
}

struct img *
image_by_inode(uint64_t dev, uint64_t ino, uint64_t stamp)
{
	struct inode_ent *e = inode_find(dev, ino);

	return e != NULL && e->stamp == stamp ? e->img : NULL;
}

void
image_set_inode(uint64_t dev, uint64_t ino, uint64_t stamp, struct img *img)
{
	struct inode_ent *e = inode_find(dev, ino);

	if (e == NULL) {
		e = xmalloc(sizeof(*e));
		e->dev = dev;
		e->ino = ino;
		xhtab_add(&byinode, mix(dev, ino), (uintptr_t)e);
		mem += sizeof(*e);
	}
	e->stamp = stamp;
	e->img = img;
	img->dev = dev;
}

static void
touch(struct img *im)
{
	if (ntouched == captouched) {
		captouched = captouched ? 2 * captouched : 64;
		touched = xreallocarray(touched, captouched, sizeof(*touched));
	}
	touched[ntouched++] = im;
	im->held = 1;
}

void
image_hold(struct img *im, int fd)
{
	if (im->held)
		return;
	touch(im);
	if (fd < 0)
		return;
	if (nheld == HELD_MAX) {
		nheld_skipped++;
		return;
	}
	if ((im->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1)
		log_warn("%s: keeping the file open", im->pub.path);
	else
		nheld++;
}

int
image_dup_fd(const struct img *im)
{
	return im->fd >= 0 ? fcntl(im->fd, F_DUPFD_CLOEXEC, 0) : -1;
}

void
image_no_file(struct img *im)
{
	im->held = 1;
}

uint64_t
image_key(const struct img *im)
{
	return im->dev != 0 ? im->dev : fsio_key(im->pub.path);
}

/* Whether the recorded path still names the file open on fd. */
static int
path_holds(const char *path, int fd)
{
	struct stat a, b;

	if (path[0] != '/' || fstat(fd, &a) == -1 || stat(path, &b) == -1)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_nlink > 0 &&
	    image_stamp(&a) == image_stamp(&b);
}

/* path_holds on a helper (fsio). */
struct holdcall {
	int		 fd;		/* the helper's own */
	int		 holds;
	char		*path;
};

static void
holds_run(void *a)
{
	struct holdcall *c = a;

	c->holds = path_holds(c->path, c->fd);
}

static void
holds_late(void *a)
{
	struct holdcall *c = a;

	close(c->fd);
	free(c->path);
	free(c);
}

/* path_holds within the deadline: 1 or 0, or -1 if the file system did
 * not answer (or no helper could ask it). */
static int
path_holds_within(const char *path, int fd, uint64_t dev)
{
	struct holdcall *c = xcalloc(1, sizeof(*c));
	int r;

	if ((c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
		free(c);
		return -1;
	}
	c->path = xstrdup(path);
	if (fsio_call(dev, holds_run, holds_late, c, FSIO_DEADLINE_MS) == -1) {
		if (errno == EAGAIN)
			holds_late(c);
		return -1;
	}
	r = c->holds;
	holds_late(c);
	return r;
}

void
image_release(void)
{
	size_t i;

	for (i = 0; i < ntouched; i++) {
		struct img *im = touched[i];

		if (im->fd != -1) {
			int r = path_holds_within(im->pub.path, im->fd, image_key(im));

			if (r == -1)
				log_info("%s (image %s): its file system did not answer in "
				    "time: not kept in the build-id cache this time",
				    im->pub.path, im->pub.id);
			else if (r == 0 && !cache_has(im->pub.id)) {
				log_info("%s (image %s) is not at that path on this host: "
				    "keeping it in the build-id cache", im->pub.path, im->pub.id);
				cache_add_fd(im->pub.id, im->fd, im->pub.path);
				im->cached = 1;
			}
			close(im->fd);
			im->fd = -1;
		}
		im->held = im->cached;
	}
	if (nheld_skipped > 0)
		log_notice("%zu sampled images were not held open (at most %d at once): "
		    "the build-id cache cannot keep them if their files go", nheld_skipped,
		    HELD_MAX);
	ntouched = nheld = nheld_skipped = 0;
}

size_t
image_count(void)
{
	return nimages - nfree;
}

size_t
image_slots(void)
{
	return nimages;
}

struct img *
image_at(uint32_t index)
{
	return index < nimages ? images[index] : NULL;
}

size_t
image_doom(uint32_t pass)
{
	size_t i, n = 0;

	for (i = 0; i < nimages; i++) {
		struct img *im = images[i];

		if (im == NULL || !im->from_file)
			continue;
		if (im->mark == pass)
			im->idle = 0;
		else if (im->idle < 2)
			im->idle++;
		if ((im->doomed = im->idle >= 2))
			n++;
	}
	return n;
}

size_t
image_free_doomed(void)
{
	struct htab_iter it;
	struct inode_ent *e;
	struct img *im, *g;
	size_t i, n = 0;

	memset(&it, 0, sizeof(it));
	while ((e = (struct inode_ent *)htab_each(&byinode, &it)) != NULL)
		if (e->img->doomed) {
			htab_del(&byinode, &it);
			mem -= sizeof(*e);
			free(e);
		}
	for (i = 0; i < nimages; i++) {
		if ((im = images[i]) == NULL || !im->doomed)
			continue;
		for (g = (struct img *)htab_first(&byid, fnv1a64_str(FNV1A64_INIT,
		    im->pub.id), &it); g != NULL && g != im;
		    g = (struct img *)htab_next(&byid, &it))
			;
		if (g == im)
			htab_del(&byid, &it);
		if (nfree == capfree) {
			capfree = capfree ? 2 * capfree : 64;
			freeidx = xreallocarray(freeidx, capfree, sizeof(*freeidx));
		}
		freeidx[nfree++] = im->pub.index;
		images[i] = NULL;
		if (im->fd != -1)
			close(im->fd);
		mem -= sizeof(*im) + strlen(im->pub.id) + 1 + strlen(im->pub.path) + 1 +
		    im->nsegs * sizeof(*im->segs);
		free(im->pub.id);
		free(im->pub.path);
		free(im->segs);
		free(im);
		n++;
	}
	return n;
}

size_t
image_memory(void)
{
	return mem + capfree * sizeof(*freeidx) + htab_memory(&byid) +
	    htab_memory(&byinode);
}
