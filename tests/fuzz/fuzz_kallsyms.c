// fuzz-sources: lib/kallsyms.c lib/db.c lib/file.c lib/internal.c lib/error.c lib/util.c lib/pack.c
// fuzz-libs: -lelf -lz
/*
 * dcpictl reads an epoch's kallsyms.ref and the gzip snapshot it names
 * from databases that may have been copied, archived or tampered with:
 * both on arbitrary bytes.  The input is tried as the reference and as
 * the snapshot: what is refused says why in one line naming the file;
 * what is accepted is NUL-terminated and within DCPI_KALLSYMS_MAX.  Any
 * bytes stored with dcpi_kallsyms_store read back the same, and
 * dcpi_kallsyms_trim only shortens, once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dcpi/kallsyms.h>

#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char	*db;
static char	ks[128], ref[160], snap[256];

/* Reads ks; checks what the interface promises; returns the result. */
static int
read_checked(const char *name_in_msg, void **buf, size_t *len)
{
	struct dcpi_error err;
	char *from;
	int r;

	err.msg[0] = '\0';
	r = dcpi_kallsyms_read(ks, buf, len, &from, &err);
	if (r == -1) {
		CHECK(errno == EINVAL || errno == ENOENT || errno == EFBIG ||
		    errno == ENOMEM);
		CHECK(*buf == NULL && *len == 0 && from == NULL);
		CHECK(strstr(err.msg, name_in_msg) != NULL);
		CHECK(strchr(err.msg, '\n') == NULL);
	} else {
		CHECK(r == 0 && *len <= DCPI_KALLSYMS_MAX);
		CHECK(((char *)*buf)[*len] == '\0');
		CHECK(from != NULL && strcmp(from, snap) == 0);
		free(from);
	}
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[DCPI_KALLSYMS_NAME_MAX];
	void *buf;
	size_t len;
	int dbfd, hfd;

	if (db == NULL) {
		db = fuzz_db("kallsyms");
		snprintf(ks, sizeof(ks), "%s/20260101000000", db);
		CHECK(mkdir(ks, 0700) == 0);
		snprintf(ks, sizeof(ks), "%s/20260101000000/h", db);
		CHECK(mkdir(ks, 0700) == 0);
		snprintf(name, sizeof(name), "%s/kernels", db);
		CHECK(mkdir(name, 0700) == 0);
		snprintf(ks, sizeof(ks), "%s/20260101000000/h/kallsyms", db);
		snprintf(ref, sizeof(ref), "%s.ref", ks);
		snprintf(snap, sizeof(snap), "%s/kernels/0-0000000000000000.gz", db);
	}
	/* As the reference: a snapshot it could name is not there. */
	unlink(snap);
	fuzz_put(ref, data, size);
	buf = NULL;
	CHECK(read_checked("kallsyms.ref", &buf, &len) == -1);
	/* As the snapshot a valid reference names. */
	fuzz_put(ref, "kernels/0-0000000000000000.gz\n", 30);
	fuzz_put(snap, data, size);
	if (read_checked(snap, &buf, &len) == 0)
		free(buf);
	/* Trimmed: no longer, and trimming again changes nothing. */
	if ((buf = malloc(size + 1)) != NULL) {
		memcpy(buf, data, size);
		len = dcpi_kallsyms_trim(buf, size);
		CHECK(len <= size);
		CHECK(dcpi_kallsyms_trim(buf, len) == len);
		free(buf);
	}
	/* Stored, then read back: the same bytes. */
	CHECK(dcpi_kallsyms_name(NULL, data, size, name) == 0);
	CHECK((dbfd = open(db, O_RDONLY | O_DIRECTORY)) != -1);
	snprintf(snap, sizeof(snap), "%s/20260101000000/h", db);
	CHECK((hfd = open(snap, O_RDONLY | O_DIRECTORY)) != -1);
	snprintf(snap, sizeof(snap), "%s/kernels/%s.gz", db, name);
	unlink(snap);
	CHECK(dcpi_kallsyms_store(dbfd, db, name, data, size, (gid_t)-1, 0700,
	    0600, NULL) == 0);
	CHECK(dcpi_kallsyms_ref_writeat(hfd, ks, name, 0600, NULL) == 0);
	CHECK(read_checked(snap, &buf, &len) == 0);
	CHECK(len == size && memcmp(buf, data, size) == 0);
	free(buf);
	unlink(snap);
	close(hfd);
	close(dbfd);
	snprintf(snap, sizeof(snap), "%s/kernels/0-0000000000000000.gz", db);
	return 0;
}
