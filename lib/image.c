/*
 * Image identity (lib/dcpi/image.h): one implementation for dcpid, which
 * names the images of its profiles with it, and for the tools that must
 * find the same id and text range from the file on disk.
 */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dcpi/image.h>

#include "internal.h"
#include "util.h"

/* Longer build-ids are truncated: consistently, so ids still match. */
static size_t
build_id(Elf *elf, uint8_t *out)
{
	const void *bid;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &bid);

	if (len <= 0)
		return 0;
	if (len > DCPI_BUILD_ID_MAX)
		len = DCPI_BUILD_ID_MAX;
	memcpy(out, bid, len);
	return len;
}

size_t
lib_build_id_hex(Elf *elf, char *out)
{
	uint8_t bid[DCPI_BUILD_ID_MAX];
	size_t len = build_id(elf, bid);

	hex_encode(bid, len, out);
	return len;
}

static int
text(Elf *elf, const char *name, struct dcpi_elf_image *out,
    struct dcpi_error *err)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n, i;
	uint64_t end = 0;
	struct dcpi_image_seg *s;

	if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(elf, &n) != 0 || n == 0 || n > 65535)
		return lib_seterr(err, EINVAL, "%s: byte 0: not an ELF executable "
		    "or shared object", name);
	if ((out->segs = calloc(n, sizeof(*out->segs))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	for (i = 0; i < n; i++) {
		s = &out->segs[out->nsegs];
		if (gelf_getphdr(elf, i, &ph) == NULL)
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->vaddr = ph.p_vaddr;
		if (out->nsegs++ == 0) {
			out->tstart = ph.p_vaddr;
			out->toffset = ph.p_offset;
		}
		if (ph.p_vaddr + ph.p_memsz > end)
			end = ph.p_vaddr + ph.p_memsz;
	}
	if (out->nsegs == 0)
		return lib_seterr(err, EINVAL, "%s: program headers: no executable "
		    "PT_LOAD segment", name);
	if (end < out->tstart || end - out->tstart > UINT32_MAX)
		return lib_seterr(err, EINVAL, "%s: program headers: text range "
		    "%#llx-%#llx is not 0 to 4 GiB long", name,
		    (unsigned long long)out->tstart, (unsigned long long)end);
	out->tsize = end - out->tstart;
	if ((s = realloc(out->segs, out->nsegs * sizeof(*s))) != NULL)
		out->segs = s;
	return 0;
}

static int
hash_fd(int fd, const char *name, char *id, struct dcpi_error *err)
{
	char buf[65536];
	uint64_t h = FNV1A64_INIT;
	off_t off = 0;
	ssize_t r;
	struct stat st;

	/* Anyone can map a huge sparse file executable: don't hash it. */
	if (fstat(fd, &st) < 0)
		return lib_seterr(err, errno, "%s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > DCPI_IMAGE_HASH_MAX)
		return lib_seterr(err, EFBIG, "%s: no build-id and over %u MiB "
		    "or not a regular file: not hashed", name,
		    DCPI_IMAGE_HASH_MAX >> 20);
	while ((r = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return lib_seterr(err, errno, "%s: byte %lld: %s", name,
			    (long long)off, strerror(errno));
		}
		h = fnv1a64(h, buf, r);
		off += r;
	}
	snprintf(id, DCPI_IMAGE_ID_LEN, "%016llx", (unsigned long long)h);
	return 0;
}

/* fd < 0: the image is buf[0..len). */
static int
from_elf(Elf *elf, int fd, const void *buf, size_t len, const char *name,
    int flags, struct dcpi_elf_image *out, struct dcpi_error *err)
{
	if (text(elf, name, out, err) < 0)
		return -1;
	out->build_id_len = build_id(elf, out->build_id);
	if (out->build_id_len > 0)
		hex_encode(out->build_id, out->build_id_len, out->id);
	else if (flags & DCPI_IMAGE_NO_HASH)
		out->id[0] = '\0';
	else if (fd >= 0)
		return hash_fd(fd, name, out->id, err);
	else
		snprintf(out->id, sizeof(out->id), "%016llx",
		    (unsigned long long)fnv1a64(FNV1A64_INIT, buf, len));
	return 0;
}

/* from_elf, then elf ended and copy (a memory image's, else NULL) freed;
 * out cleared after a failure, whose errno is kept. */
static int
from_elf_end(Elf *elf, int fd, char *copy, size_t len, const char *name,
    int flags, struct dcpi_elf_image *out, struct dcpi_error *err)
{
	int rc, e;

	rc = from_elf(elf, fd, copy, len, name, flags, out, err);
	e = errno;
	elf_end(elf);
	free(copy);
	if (rc < 0) {
		dcpi_elf_image_clear(out);
		errno = e;
	}
	return rc;
}

static void
init(struct dcpi_elf_image *out)
{
	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
}

int
dcpi_elf_image_fd(int fd, const char *name, int flags,
    struct dcpi_elf_image *out, struct dcpi_error *err)
{
	Elf *elf;

	init(out);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return lib_seterr(err, EINVAL, "%s: byte 0: not an ELF file: %s",
		    name, elf_errmsg(-1));
	return from_elf_end(elf, fd, NULL, 0, name, flags, out, err);
}

int
dcpi_elf_image_path(const char *path, int flags, struct dcpi_elf_image *out,
    struct dcpi_error *err)
{
	struct stat st;
	int fd, rc, e;

	init(out);
	/* No blocking open of a FIFO, no endless read of a device. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return lib_seterr(err, errno, "%s: %s", path, strerror(errno));
	e = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
	if (e != 0) {
		close(fd);
		return lib_seterr(err, e, "%s: %s", path, e == EINVAL ?
		    "not a regular file" : strerror(e));
	}
	rc = dcpi_elf_image_fd(fd, path, flags, out, err);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int
dcpi_elf_image_memory(const void *buf, size_t len, const char *name, int flags,
    struct dcpi_elf_image *out, struct dcpi_error *err)
{
	char *copy;
	Elf *elf;

	init(out);
	/* libelf may write to a memory image; never let it touch the vdso. */
	if ((copy = malloc(len ? len : 1)) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	memcpy(copy, buf, len);
	if ((elf = elf_memory(copy, len)) == NULL) {
		free(copy);
		return lib_seterr(err, EINVAL, "%s: byte 0: not an ELF file: %s",
		    name, elf_errmsg(-1));
	}
	return from_elf_end(elf, -1, copy, len, name, flags, out, err);
}

void
dcpi_elf_image_clear(struct dcpi_elf_image *out)
{
	free(out->segs);
	memset(out, 0, sizeof(*out));
}
