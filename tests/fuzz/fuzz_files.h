/*
 * For the fuzz targets that store their input as files of a scratch
 * database: included, not linked (each target is linked with the sources
 * its first lines name, tests/fuzz/run.sh).
 */
#ifndef FUZZ_FILES_H
#define FUZZ_FILES_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

/* The scratch database, made once by fuzz_db and removed at exit. */
static char	fuzz_dbdir[64];

static void
fuzz_db_remove(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dbdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", fuzz_dbdir);
}

/* /tmp/fuzz_NAME.XXXXXX, made at the first call. */
static const char *
fuzz_db(const char *name)
{
	if (fuzz_dbdir[0] == '\0') {
		snprintf(fuzz_dbdir, sizeof(fuzz_dbdir), "/tmp/fuzz_%s.XXXXXX", name);
		CHECK(mkdtemp(fuzz_dbdir) != NULL);
		atexit(fuzz_db_remove);
	}
	return fuzz_dbdir;
}

/* path holds buf[0..len) and nothing else. */
static void
fuzz_put(const char *path, const void *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");

	CHECK(fp != NULL);
	CHECK(len == 0 || fwrite(buf, 1, len, fp) == len);
	CHECK(fclose(fp) == 0);
}

#endif
