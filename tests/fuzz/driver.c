/*
 * Runs a fuzz target's LLVMFuzzerTestOneInput over files without libFuzzer,
 * so that the corpus is a regression test with the normal compiler (and
 * under --enable-sanitizers).  Arguments: files or directories (each
 * file in a directory, not recursively); none: FUZZ_CORPUS, set at build
 * time to the target's corpus directory.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (fp == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		len += r = fread(buf + len, 1, cap - len, fp);
	} while (r > 0);
	fclose(fp);
	/* An exact-size copy, so that ASan sees reads past the end. */
	unsigned char *exact = malloc(len ? len : 1);
	if (exact == NULL)
		abort();
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int
run(const char *path, int *n)
{
	struct dirent *de;
	struct stat st;
	char sub[4096];
	DIR *d;
	int rc = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*n)++;
		return run_file(path);
	}
	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (stat(sub, &st) == 0 && S_ISREG(st.st_mode)) {
			(*n)++;
			if (run_file(sub) < 0)
				rc = -1;
		}
	}
	closedir(d);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, rc = 0, n = 0;

	if (argc < 2) {
#ifdef FUZZ_CORPUS
		rc = run(FUZZ_CORPUS, &n);
#else
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
#endif
	}
	for (i = 1; i < argc; i++)
		if (run(argv[i], &n) < 0)
			rc = -1;
	if (n == 0) {
		fprintf(stderr, "%s: no inputs\n", argv[0]);
		return 1;
	}
	printf("%d inputs passed\n", n);
	return rc < 0 ? 1 : 0;
}
