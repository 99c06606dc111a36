/*
 * Images for attribution: struct image, what the rest of the daemon sees
 * of one, and the reasons a sample has none; then, internal to
 * daemon/attr.c, imagetab.c, kernel.c and jit.c, the table of images
 * deduplicated by id, and ELF reading.
 *
 * Image id and text range: lib/dcpi/image.h (dcpi_elf_image_fd), the rules
 * the tools use too.  Pseudo images without a build-id (kernel, modules)
 * hash a descriptive string with the same FNV-1a, as 16 hex digits, and
 * their profiles say so ("idkind name").
 */
#ifndef DCPID_IMAGETAB_H
#define DCPID_IMAGETAB_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/image.h>

/* An image.  Owned by the attribution module; the pointer and index stay
 * valid while any count, chain or mapping holds it: an image read from a
 * file that no process has mapped for two flushes, and that has no
 * counts, is freed at a flush (attr_reclaim) and its index given to a
 * later image.  The index is dense enough for the aggregation to index
 * arrays by it. */
struct image {
	uint32_t	 index;		/* 0..attr_image_slots()-1 */
	char		*id;		/* hex build-id or stable hash */
	const char	*idkind;	/* NULL: id is a GNU build-id; else
					 * DCPI_IDKIND_CONTENT or _NAME (dcpi/image.h) */
	char		*path;		/* absolute path, or [kernel.kallsyms], [vdso], [MODULE] */
	uint64_t	 tstart;	/* ELF vaddr of the text (first executable PT_LOAD) */
	uint64_t	 tsize;		/* bytes */
};

/* Why a sample could not be attributed; ATTR_OK when it was. */
enum attr_reason {
	ATTR_OK = 0,
	ATTR_UNKNOWN_PID,	/* no model for the pid */
	ATTR_NO_MAP,		/* PC in no mapping of the process */
	ATTR_ANON,		/* anonymous executable memory: JIT, trampolines */
	ATTR_UNREADABLE,	/* mapped file whose ELF could not be read */
	ATTR_OUTSIDE_TEXT,	/* PC maps into the file but outside its text range */
	ATTR_KERNEL_UNKNOWN,	/* kernel PC outside the kernel text and modules */
	ATTR_HYPERVISOR,	/* guest/hypervisor cpumode */
	ATTR_NREASONS
};

/* The table's own record of an image, behind the struct image the others
 * see. */
struct img {
	struct image	 pub;		/* first: struct image * casts to it */
	uint32_t	 nsegs;
	struct dcpi_image_seg *segs;	/* executable PT_LOADs; none for kernel, modules */
	int		 fd;		/* the file, held until the next flush; -1 */
	uint8_t		 held;		/* an fd was taken or tried since the flush,
					 * or none is needed (pseudo, cached) */
	uint8_t		 cached;	/* in the build-id cache */
	uint8_t		 uncached;	/* refused the cache: a process's user
					 * may not read its file (said once) */
	uint8_t		 file_known;	/* a file of it is in attr.c's file table */
	uint64_t	 dev;		/* st_dev of its file last opened, for
					 * fsio's calls; 0 if none */
	uint8_t		 from_file;	/* read from a file, or a JIT image
					 * (jit.c): freed once unused */
	uint8_t		 idle;		/* reclaim passes in a row it was unused at */
	uint8_t		 doomed;	/* to be freed (image_doom) */
	uint32_t	 mark;		/* the last reclaim pass that found it used */
};

#define BUILD_ID_MAX	DCPI_BUILD_ID_MAX

void image_init(void);
void image_fini(void);

/* What fsio's calls about im's file are about (fsio_call's key): its
 * file system, or its path when no file of it was opened yet. */
uint64_t image_key(const struct img *im);

/* The image with that id, or NULL. */
struct img *image_by_id(const char *id);
/* The image with that raw build-id, or NULL. */
struct img *image_by_build_id(const uint8_t *bid, size_t len);

/* Reads the ELF open on fd (path names the image: recorded with its
 * " (deleted)" stripped, unless the whole path names the file open on fd,
 * and a newline written \012).  When want_len > 0 the file must carry that build-id: if it
 * differs, returns NULL with *mismatch set.  Returns the existing image of
 * the same id, else a new one; NULL when the file is no usable ELF.  The
 * file (on file system dev, its st_dev) is read on a helper within
 * FSIO_DEADLINE_MS: NULL with errno
 * ETIMEDOUT or EAGAIN (fsio_held_up) when its file system did not answer
 * in time; fd stays the caller's either way. */
struct img *image_from_fd(int fd, uint64_t dev, const char *path,
    const uint8_t *want, size_t want_len, int *mismatch);
/* Same for an ELF image in memory (the vdso); buf is copied as needed. */
struct img *image_from_memory(const void *buf, size_t len, const char *path);
/* A pseudo image (kernel, module): id from bid, or the hash of descr. */
struct img *image_pseudo(const uint8_t *bid, size_t bidlen, const char *descr,
    const char *path, uint64_t tstart, uint64_t tsize);

/* File cache by (dev, ino, stamp): the image read from that file, so that
 * each file is read (and, without a build-id, hashed) once.  stamp is
 * image_stamp() of the file's stat (mtime and size): a reused inode is
 * another file. */
struct img *image_by_inode(uint64_t dev, uint64_t ino, uint64_t stamp);
void image_set_inode(uint64_t dev, uint64_t ino, uint64_t stamp,
    struct img *img);
struct stat;
uint64_t image_stamp(const struct stat *st);

/* Parses ELF notes in buf (a /sys notes file) for NT_GNU_BUILD_ID; returns
 * its length (copied into out, at most BUILD_ID_MAX bytes) or 0. */
size_t image_note_build_id(const void *buf, size_t len, uint8_t *out);

/*
 * The files of images sampled since the last flush are held open, so that
 * one deleted, replaced or unreachable (another mount namespace, a process
 * that exited) by the flush can still be kept in the build-id cache
 * (daemon/cache.h).  image_hold keeps a duplicate of fd for im (once per
 * flush interval, at most 512 files at once; fd -1: tried, nothing to
 * hold); image_release, at each flush, queues for the cache the
 * held files whose recorded path no longer holds them, closes every held
 * fd and re-arms the images for the next interval.
 */
void image_hold(struct img *im, int fd);
void image_release(void);
/* A new fd of the file image_hold holds for im (the caller's to close;
 * read it with pread: the offset is shared), or -1 if none is held. */
int image_dup_fd(const struct img *im);
/* Marks im as needing no file (pseudo images, the vdso once cached). */
void image_no_file(struct img *im);

/* Images held, and the bound of their indexes: image_at(i) for i below
 * image_slots() is an image or NULL (a freed one's index, not yet given
 * again). */
size_t image_count(void);
size_t image_slots(void);
struct img *image_at(uint32_t index);
/*
 * Images read from files are freed once unused: at a flush that left no
 * count or chain, attr_reclaim marks every image a mapping holds with
 * that pass's number and calls image_doom(pass), which sets doomed on
 * each image read from a file that was unmarked at this pass and the one
 * before (two flush intervals: any sample of it is counted and flushed
 * by then, whichever route it took); once the caller has dropped its own
 * pointers to them, image_free_doomed frees them, with the inode cache's
 * entries naming them; their ids are free for a new read, their indexes
 * for new images.  Both return how many images are doomed.
 */
size_t image_doom(uint32_t pass);
size_t image_free_doomed(void);
size_t image_memory(void);

#endif
