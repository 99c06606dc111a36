// fuzz-sources: lib/conf.c lib/xmalloc.c lib/htab.c lib/log.c lib/db.c lib/ctl.c lib/file.c lib/internal.c lib/error.c lib/util.c lib/pack.c lib/profile.c lib/label.c
// fuzz-libs: -lpfm -lz
/*
 * dcpid.conf (and the retention keys dcpictl gc reads) on arbitrary
 * bytes.  A file refused says why in one line that names the file and,
 * for a bad line, its number; a file taken prints (conf_print, what
 * dcpid --check-config shows) as a file that reads back to the same
 * configuration, printed the same.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char	path[64];

static void
put(const void *buf, size_t len)
{
	FILE *fp = fopen(path, "w");

	CHECK(fp != NULL);
	CHECK(fwrite(buf, 1, len, fp) == len);
	CHECK(fclose(fp) == 0);
}

static char *
print(const struct conf *c, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);

	CHECK(fp != NULL);
	conf_print(c, fp);
	CHECK(fclose(fp) == 0);
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf c, again;
	char err[512], *text, *text2;
	size_t len, len2;

	if (path[0] == '\0')
		snprintf(path, sizeof(path), "/tmp/fuzz_conf.%ld", (long)getpid());
	put(data, size);
	conf_defaults(&c);
	err[0] = '\0';
	if (conf_load(&c, path, 0, err, sizeof(err)) == -1) {
		CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
		CHECK(strchr(err, '\n') == NULL);
		conf_free(&c);
		return 0;
	}
	text = print(&c, &len);
	put(text, len);
	conf_defaults(&again);
	if (conf_load(&again, path, 0, err, sizeof(err)) != 0) {
		fprintf(stderr, "printed configuration refused: %s\n%s", err, text);
		abort();
	}
	text2 = print(&again, &len2);
	CHECK(len == len2 && memcmp(text, text2, len) == 0);
	free(text);
	free(text2);
	conf_free(&c);
	conf_free(&again);
	return 0;
}
