// fuzz-sources: lib/pack.c lib/db.c lib/file.c lib/internal.c lib/error.c lib/util.c
// fuzz-libs: -lelf -lz
/*
 * A packed epoch (dcpi(5) "Packed epochs") is read from databases that
 * may have been copied, archived or tampered with.  The input is parsed
 * as a pack's uncompressed stream: what is refused says why in one line
 * naming the file; what is accepted has sorted, unique members within the
 * stream, each found by dcpi_pack_find, and encodes back to the same
 * bytes.  Gzip input is also stored as DB/EPOCH/HOST/pack.gz and read the
 * way every reader reads it (dcpi_db_list, dcpi_read_file of a member's
 * path): a refusal names the pack, nothing crashes.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/pack.h>

#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char	*db;
static char	host[128], pack[160], member[256];

/* The stream as the parser sees it, and its members as the writer
 * would write them again. */
static void
as_stream(const uint8_t *data, size_t size)
{
	struct dcpi_pack_file *f;
	struct dcpi_error err;
	struct dcpi_pack *p;
	size_t i, len;
	void *buf;

	err.msg[0] = '\0';
	if (dcpi_pack_parse(data, size, "in.pack", &p, &err) == -1) {
		CHECK(errno == EINVAL || errno == EFBIG || errno == ENOMEM);
		CHECK(p == NULL);
		CHECK(strncmp(err.msg, "in.pack: ", 9) == 0);
		CHECK(strchr(err.msg, '\n') == NULL);
		return;
	}
	CHECK(p->len == size && p->data[size] == '\0');
	CHECK((f = calloc(p->n + 1, sizeof(*f))) != NULL);
	for (i = 0; i < p->n; i++) {
		CHECK(p->v[i].off <= size && p->v[i].size <= size - p->v[i].off);
		CHECK(i == 0 || strcmp(p->v[i - 1].path, p->v[i].path) < 0);
		CHECK(dcpi_pack_find(p, p->v[i].path) == &p->v[i]);
		f[i].path = p->v[i].path;
		f[i].buf = p->data + p->v[i].off;
		f[i].len = p->v[i].size;
	}
	CHECK(dcpi_pack_encode(f, p->n, &buf, &len, NULL) == 0);
	CHECK(len == size && memcmp(buf, data, size) == 0);
	free(buf);
	free(f);
	dcpi_pack_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_error err;
	char **names;
	size_t n, len;
	void *buf;

	if (db == NULL) {
		db = fuzz_db("pack");
		snprintf(host, sizeof(host), "%s/20260101000000", db);
		CHECK(mkdir(host, 0700) == 0);
		snprintf(host, sizeof(host), "%s/20260101000000/h", db);
		CHECK(mkdir(host, 0700) == 0);
		snprintf(pack, sizeof(pack), "%s/" DCPI_PACK_FILE, host);
		snprintf(member, sizeof(member), "%s/ev/x.1", host);
	}
	as_stream(data, size);
	/* As the file on disk, when it is gzip (anything else stops at its
	 * first bytes, and the file system's cost would slow the parser's
	 * fuzzing tenfold). */
	if (size < 2 || data[0] != 0x1f || data[1] != 0x8b)
		return 0;
	fuzz_put(pack, data, size);
	err.msg[0] = '\0';
	if (dcpi_db_list(host, &names, &n, &err) == 0)
		dcpi_strv_free(names, n);
	else
		CHECK(strstr(err.msg, DCPI_PACK_FILE) != NULL);
	err.msg[0] = '\0';
	if (dcpi_read_file(member, &buf, &len, &err) == 0) {
		CHECK(((char *)buf)[len] == '\0');
		free(buf);
	} else {
		CHECK(strchr(err.msg, '\n') == NULL);
		CHECK(errno == ENOENT || strstr(err.msg, DCPI_PACK_FILE) != NULL);
	}
	(void)dcpi_db_isdir(member);
	return 0;
}
