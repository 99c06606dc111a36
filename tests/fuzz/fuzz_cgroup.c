// fuzz-sources: daemon/cgroup.c lib/label.c lib/db.c lib/profile.c lib/file.c lib/internal.c lib/error.c lib/util.c lib/pack.c
// fuzz-libs: -lz
/*
 * The cgroup texts dcpid reads (/proc/PID/cgroup, /proc/self/mountinfo)
 * and the cgroup paths perf records carry, on arbitrary bytes.  A path
 * found is a '/'-path within the input; every label is usable as a label
 * and as a directory name, the same in any buffer that holds it, and the
 * cgroup rule's is the path itself or its shortened form.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/label.h>

#include "../../daemon/cgroup.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_label(const char *path, enum cgroup_label_by by, size_t small)
{
	char out[CGROUP_LABEL_MAX], again[CGROUP_LABEL_MAX], dir[NAME_MAX + 1];
	const char *p;
	size_t n = 0;
	int rc, bad = (path[0] != '/' && path[0] != '\0') || strchr(path, '\n') != NULL;

	errno = 0;
	rc = cgroup_label(path, by, out, sizeof(out));
	CHECK(rc == -1 ? bad && errno == EINVAL : !bad);
	if (rc == -1)
		return;
	for (p = path; *p; p++)
		n += *p != '/';
	if (rc == 0) {
		CHECK(out[0] == '\0' && (by == CGROUP_LABEL_NONE || n == 0));
		return;
	}
	CHECK(rc == 1 && by != CGROUP_LABEL_NONE && n > 0);
	CHECK(out[0] != ' ' && out[0] != '\t' && out[0] != '[' && out[0] != '\0');
	CHECK(strchr(out, '\n') == NULL);
	CHECK(dcpi_label_dirname(out, dir, sizeof(dir)) == 0);
	if (by == CGROUP_LABEL_CGROUP)
		CHECK(out[0] == '/' && (strncmp(out, "/\xe2\x80\xa6", 4) == 0 ||
		    (strstr(out, "//") == NULL && out[strlen(out) - 1] != '/')));
	/* Any buffer: the same label, or too small. */
	small %= sizeof(again);
	rc = cgroup_label(path, by, again, small);
	CHECK(rc == 1 ? strcmp(again, out) == 0 :
	    rc == -1 && errno == ENAMETOOLONG && small <= strlen(out));
}

/* out (rc 1) is a path that stands in text[0..len) as it is. */
static void
check_path(int rc, const char *out, const uint8_t *text, size_t len)
{
	CHECK(rc >= -1 && rc <= 1);
	if (rc != 1)
		return;
	CHECK(out[0] == '/');
	CHECK(memmem(text, len, out, strlen(out)) != NULL);
	check_label(out, CGROUP_LABEL_UNIT, len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[PATH_MAX], *s;
	int rc;

	errno = 0;
	rc = cgroup_parse_proc((const char *)data, size, out, sizeof(out));
	CHECK(rc != -1 || errno == EINVAL || errno == ENAMETOOLONG);
	check_path(rc, out, data, size);
	/* Small buffers fail cleanly. */
	rc = cgroup_parse_proc((const char *)data, size, out, size % 8);
	CHECK(rc <= 0 || strlen(out) < size % 8);

	errno = 0;
	rc = cgroup_parse_mountinfo((const char *)data, size, out, sizeof(out));
	CHECK(rc != -1 || errno == EINVAL || errno == ENAMETOOLONG);
	CHECK(rc != 1 || (out[0] == '/' && strlen(out) < size));
	rc = cgroup_parse_mountinfo((const char *)data, size, out, size % 8);
	CHECK(rc <= 0 || strlen(out) < size % 8);

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	check_label(s, CGROUP_LABEL_NONE, size);
	check_label(s, CGROUP_LABEL_UNIT, size);
	check_label(s, CGROUP_LABEL_CGROUP, size);
	free(s);
	return 0;
}
