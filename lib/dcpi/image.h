/*
 * libdcpi: the identity and text range of an ELF image, by the rules dcpid
 * uses to name the images of its profiles (DESIGN.md "Profile file",
 * header lines image and tstart; specs/dcpiformat.txt), so that a tool
 * reading a file on disk gets the id and range a profile of it carries.
 *
 *   id      the GNU build-id in lowercase hex (its first DCPI_BUILD_ID_MAX
 *           bytes); for an image without one (Go programs, -Wl,--build-id=
 *           none), the 64-bit FNV-1a hash of the whole file's content as 16
 *           lowercase hex digits (stable across restarts and hosts), which
 *           profiles mark with the header line "idkind content" (dcpi(5));
 *           files over DCPI_IMAGE_HASH_MAX bytes without a build-id are not
 *           hashed.  Either way one or more hex digits, what a profile's
 *           image line takes (specs/dcpiformat.txt); the one exception is
 *           DCPI_IMAGE_NO_HASH's "", which names no image and which no
 *           profile, build-id cache path or profile file name accepts.
 *   tstart  p_vaddr of the first executable PT_LOAD;
 *   tsize   bytes from tstart to the end (p_vaddr + p_memsz) of the last
 *           executable PT_LOAD, at most UINT32_MAX.
 *
 * Errors as in error.h: -1 with errno, and a one-line message in err
 * (when not NULL) naming the file and what was wrong.
 */
#ifndef DCPI_IMAGE_H
#define DCPI_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_BUILD_ID_MAX	20		/* bytes of a build-id kept */
#define DCPI_IMAGE_ID_LEN	(2 * DCPI_BUILD_ID_MAX + 1)	/* id buffer, with NUL */
#define DCPI_IMAGE_HASH_MAX	(512u << 20)	/* bytes: larger files are not hashed */

/* Values of a profile's "idkind" header line (an unknown line to the
 * pdb-0.07 grammar, kept by every rewriter; dcpi(5)); no such line: the
 * image id is a GNU build-id. */
#define DCPI_IDKIND_CONTENT	"content"	/* FNV-1a 64 of the file's bytes */
#define DCPI_IDKIND_NAME	"name"		/* FNV-1a 64 of a pseudo-image's name */

/* Flags. */
#define DCPI_IMAGE_NO_HASH	0x1	/* no build-id: leave id "" (not an
					 * image id) rather than hash */

/* An executable PT_LOAD: file bytes [offset, offset + filesz) hold the
 * vaddrs [vaddr, vaddr + filesz). */
struct dcpi_image_seg {
	uint64_t	 offset, filesz, vaddr;
};

struct dcpi_elf_image {
	char		 id[DCPI_IMAGE_ID_LEN];
	uint8_t		 build_id[DCPI_BUILD_ID_MAX];	/* raw, build_id_len bytes */
	size_t		 build_id_len;			/* 0: none, id is a content
							 * hash (or "" with
							 * DCPI_IMAGE_NO_HASH) */
	uint64_t	 tstart, tsize;
	uint64_t	 toffset;	/* file offset of tstart (first segment's) */
	size_t		 nsegs;		/* >= 1 */
	struct dcpi_image_seg *segs;	/* in program header order; malloc'd,
					 * freed by dcpi_elf_image_clear */
};

/*
 * Reads the ELF executable or shared object (ET_EXEC, ET_DYN) open on fd
 * (read with pread: the file offset is not used or moved; fd stays open
 * and the caller's); name is for messages.  flags: 0 or DCPI_IMAGE_NO_HASH.
 * Fills *out (clear it with dcpi_elf_image_clear); on failure *out is
 * cleared.  -1 with errno:
 *   EINVAL  not an ELF executable or shared object, or no executable
 *           PT_LOAD (or a text range over 4 GiB);
 *   EFBIG   no build-id and not a regular file or over DCPI_IMAGE_HASH_MAX
 *           bytes (not hashed);
 *   EIO and others: errno of the failed read; ENOMEM.
 */
int dcpi_elf_image_fd(int fd, const char *name, int flags,
    struct dcpi_elf_image *out, struct dcpi_error *err);
/* Same for the file at path (opened read-only and closed): also errno of
 * open(2), e.g. ENOENT, EACCES. */
int dcpi_elf_image_path(const char *path, int flags, struct dcpi_elf_image *out,
    struct dcpi_error *err);
/* Same for an image in memory, buf[0..len) (the vdso): buf is only read
 * (a private copy is parsed), and without a build-id its len bytes are
 * hashed, whatever len is. */
int dcpi_elf_image_memory(const void *buf, size_t len, const char *name, int flags,
    struct dcpi_elf_image *out, struct dcpi_error *err);
/* Frees out's segments and zeroes it; safe on a zeroed struct. */
void dcpi_elf_image_clear(struct dcpi_elf_image *out);

#ifdef __cplusplus
}
#endif

#endif
