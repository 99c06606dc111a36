/*
 * Image identity (lib/image.c, lib/dcpi/image.h): the id is what binutils
 * reads as the build-id, or the FNV-1a hash of the file's content; the
 * text range is what readelf shows.  The sample programs are built by
 * tests/local.mk with and without a build-id.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <dcpi/export.h>
#include <dcpi/file.h>
#include <dcpi/image.h>

/* "Build ID: HEX" of readelf -n, "" if none. */
static void
readelf_build_id(const char *path, char *out, size_t outlen)
{
	char cmd[4200], line[1024];
	const char *p;
	FILE *f;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	assert_non_null(f = popen(cmd, "r"));
	while (fgets(line, sizeof(line), f) != NULL)
		if ((p = strstr(line, "Build ID: ")) != NULL)
			snprintf(out, outlen, "%.*s", (int)strcspn(p + 10, " \n"), p + 10);
	assert_int_equal(pclose(f), 0);
}

/* First executable LOAD's VirtAddr and the end of the last one's memory,
 * from readelf -lW ("LOAD OFF VADDR PADDR FILESZ MEMSZ FLAGS ALIGN"). */
static void
readelf_text(const char *path, uint64_t *tstart, uint64_t *end, uint64_t *toff)
{
	char cmd[4200], line[1024], flags[16];
	unsigned long long off, va, pa, fsz, msz;
	int found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	assert_non_null(f = popen(cmd, "r"));
	*end = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		/* Flags are "R E", "RWE", ...: read the three columns. */
		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx %15[RWE ]", &off,
		    &va, &pa, &fsz, &msz, flags) != 6 || strchr(flags, 'E') == NULL)
			continue;
		if (!found++) {
			*tstart = va;
			*toff = off;
		}
		if (va + msz > *end)
			*end = va + msz;
	}
	assert_int_equal(pclose(f), 0);
	assert_true(found > 0);
}

static uint64_t
fnv1a_file(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	FILE *f = fopen(path, "rb");
	int c;

	assert_non_null(f);
	while ((c = getc(f)) != EOF) {
		h ^= (unsigned char)c;
		h *= 0x100000001b3ULL;
	}
	fclose(f);
	return h;
}

static void
check_text(const char *path, const struct dcpi_elf_image *ei)
{
	uint64_t tstart, end, toff;

	readelf_text(path, &tstart, &end, &toff);
	assert_int_equal(ei->tstart, tstart);
	assert_int_equal(ei->tsize, end - tstart);
	assert_int_equal(ei->toffset, toff);
	assert_true(ei->nsegs >= 1);
	assert_int_equal(ei->segs[0].vaddr, tstart);
	assert_int_equal(ei->segs[0].offset, toff);
}

/* The memory variant and dcpi_image_info_read agree with the fd one. */
static void
check_same_elsewhere(const char *path, const struct dcpi_elf_image *ei)
{
	struct dcpi_elf_image m;
	struct dcpi_image_info info;
	struct dcpi_error err;
	void *buf;
	size_t len;

	assert_int_equal(dcpi_read_file(path, &buf, &len, &err), 0);
	assert_int_equal(dcpi_elf_image_memory(buf, len, path, 0, &m, &err), 0);
	assert_string_equal(m.id, ei->id);
	assert_int_equal(m.tstart, ei->tstart);
	assert_int_equal(m.tsize, ei->tsize);
	dcpi_elf_image_clear(&m);
	free(buf);
	assert_int_equal(dcpi_image_info_read(path, &info, &err), 0);
	assert_string_equal(info.image, ei->id);
	assert_int_equal(info.tstart, ei->tstart);
	assert_int_equal(info.tsize, ei->tsize);
	assert_int_equal(info.toffset, ei->toffset);
	dcpi_image_info_clear(&info);
}

static void
test_build_id(void **state)
{
	struct dcpi_elf_image ei;
	struct dcpi_error err;
	char want[256];

	(void)state;
	readelf_build_id(IMAGE_BID, want, sizeof(want));
	assert_true(strlen(want) == 40);
	assert_int_equal(dcpi_elf_image_path(IMAGE_BID, 0, &ei, &err), 0);
	assert_string_equal(ei.id, want);
	assert_int_equal(ei.build_id_len, 20);
	check_text(IMAGE_BID, &ei);
	check_same_elsewhere(IMAGE_BID, &ei);
	dcpi_elf_image_clear(&ei);
	/* NO_HASH changes nothing when there is a build-id. */
	assert_int_equal(dcpi_elf_image_path(IMAGE_BID, DCPI_IMAGE_NO_HASH, &ei, &err), 0);
	assert_string_equal(ei.id, want);
	dcpi_elf_image_clear(&ei);
}

static void
test_content_hash(void **state)
{
	struct dcpi_elf_image ei;
	struct dcpi_error err;
	char want[32];
	int fd;

	(void)state;
	readelf_build_id(IMAGE_NOBID, want, sizeof(want));
	assert_string_equal(want, "");
	snprintf(want, sizeof(want), "%016llx",
	    (unsigned long long)fnv1a_file(IMAGE_NOBID));
	assert_true((fd = open(IMAGE_NOBID, O_RDONLY)) >= 0);
	assert_int_equal(dcpi_elf_image_fd(fd, "nobid", 0, &ei, &err), 0);
	close(fd);
	assert_string_equal(ei.id, want);
	assert_int_equal(ei.build_id_len, 0);
	check_text(IMAGE_NOBID, &ei);
	check_same_elsewhere(IMAGE_NOBID, &ei);
	dcpi_elf_image_clear(&ei);
	assert_int_equal(dcpi_elf_image_path(IMAGE_NOBID, DCPI_IMAGE_NO_HASH, &ei, &err), 0);
	assert_string_equal(ei.id, "");
	assert_true(ei.tsize > 0);
	dcpi_elf_image_clear(&ei);
}

static void
test_errors(void **state)
{
	struct dcpi_elf_image ei;
	struct dcpi_error err;
	static const char text[] = "not an ELF file at all\n";
	char path[] = "/tmp/test_image.XXXXXX";
	int fd;

	(void)state;
	errno = 0;
	assert_int_equal(dcpi_elf_image_path("/nonexistent/x", 0, &ei, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	assert_null(ei.segs);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	errno = 0;
	assert_int_equal(dcpi_elf_image_fd(fd, path, 0, &ei, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, path));
	errno = 0;
	assert_int_equal(dcpi_elf_image_memory(text, sizeof(text) - 1, "mem", 0,
	    &ei, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "mem: byte 0"));
	close(fd);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_content_hash),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
