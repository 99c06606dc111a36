/*
 * Kernel symbol snapshots kept once per kernel: lib/dcpi/kallsyms.h.
 *
 * gzip through zlib: 5.4 MB of /proc/kallsyms become 0.86 MB in 0.15 s of
 * CPU at level 6, where xz -2 takes five times the CPU for 7% less and
 * xz -6 twenty times for 29% less (bench/README "kallsyms once per
 * kernel"); dcpid compresses on its event loop, and an administrator reads
 * the file with zcat.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/kallsyms.h>

#include "internal.h"
#include "util.h"

#define REF_PREFIX	DCPI_DB_KERNELS_DIR "/"
#define REF_SUFFIX	".gz"

static int
is_lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* Whether s[0..n) is "KERNELID-HASH": the only names a reference may give,
 * so that none leads out of DB/kernels/. */
static int
name_valid(const char *s, size_t n)
{
	if (n < 1 + 1 + 16 || n >= DCPI_KALLSYMS_NAME_MAX || s[n - 17] != '-')
		return 0;
	return is_lower_hex(s, n - 17) && is_lower_hex(s + n - 16, 16);
}

/* Whether the line p[0..n) (no newline) belongs to code that comes and
 * goes without a module: its module field is "[bpf]" or "[__builtin__*]". */
static int
transient(const char *p, size_t n)
{
	const char *m;

	if (n == 0 || p[n - 1] != ']' ||
	    (m = memrchr(p, '[', n)) == NULL)
		return 0;
	return (size_t)(p + n - m) == 5 ? memcmp(m, "[bpf]", 5) == 0 :
	    (size_t)(p + n - m) > 12 && memcmp(m, "[__builtin__", 12) == 0;
}

size_t
dcpi_kallsyms_trim(char *buf, size_t len)
{
	char *p = buf, *end = buf + len, *nl, *out = buf;
	size_t n;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		if (transient(p, n))
			continue;
		if (nl < end)
			n++;
		memmove(out, p, n);
		out += n;
	}
	return (size_t)(out - buf);
}

int
dcpi_kallsyms_name(const char *kernel_id, const void *buf, size_t len,
    char out[DCPI_KALLSYMS_NAME_MAX])
{
	size_t il;

	if (kernel_id == NULL)
		kernel_id = "0";
	il = strlen(kernel_id);
	if (il == 0 || il > 128 || !is_lower_hex(kernel_id, il)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(out, DCPI_KALLSYMS_NAME_MAX, "%s-%016" PRIx64, kernel_id,
	    fnv1a64(FNV1A64_INIT, buf, len));
	return 0;
}

int
dcpi_kallsyms_store(int dbfd, const char *show, const char *name,
    const void *buf, size_t len, gid_t gid, mode_t dirmode, mode_t filemode,
    struct dcpi_error *err)
{
	char file[DCPI_KALLSYMS_NAME_MAX + 8], *path;
	struct stat st;
	void *gz = NULL;
	size_t gzlen = 0;
	int kfd, r;

	if (show == NULL)
		show = ".";
	if (name == NULL || !name_valid(name, strlen(name)))
		return lib_seterr(err, EINVAL, "%s: bad kernel snapshot name", show);
	/* What no reader would take back (and zlib counts in 32 bits). */
	if (len > DCPI_KALLSYMS_MAX)
		return lib_seterr(err, EFBIG, "%s: %zu bytes of kernel symbols: more "
		    "than %u", show, len, (unsigned)DCPI_KALLSYMS_MAX);
	if ((kfd = dcpi_db_openat(dbfd, DCPI_DB_KERNELS_DIR, show,
	    DCPI_DB_CREATE | DCPI_DB_CHECK, dirmode, gid, err)) == -1)
		return -1;
	snprintf(file, sizeof(file), "%s" REF_SUFFIX, name);
	if (asprintf(&path, "%s/" DCPI_DB_KERNELS_DIR "/%s", show, file) == -1) {
		close(kfd);
		return lib_seterr(err, ENOMEM, "%s: out of memory", show);
	}
	if (fstatat(kfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
		/* Young again: gc's grace period keeps it while the new
		 * reference is written. */
		(void)utimensat(kfd, file, NULL, AT_SYMLINK_NOFOLLOW);
		close(kfd);
		free(path);
		return 1;
	}
	if (lib_gzip(buf, len, 6, path, &gz, &gzlen, err) == -1) {
		close(kfd);
		free(path);
		return -1;
	}
	r = dcpi_atomic_writeat(kfd, file, path, gz, gzlen, filemode, err);
	free(gz);
	free(path);
	close(kfd);
	return r == -1 ? -1 : 0;
}

int
dcpi_kallsyms_ref_writeat(int hostfd, const char *show, const char *name,
    mode_t mode, struct dcpi_error *err)
{
	char line[DCPI_KALLSYMS_NAME_MAX + 16], *path;
	int n, r;

	if (show == NULL)
		show = ".";
	if (name == NULL || !name_valid(name, strlen(name)))
		return lib_seterr(err, EINVAL, "%s: bad kernel snapshot name", show);
	n = snprintf(line, sizeof(line), REF_PREFIX "%s" REF_SUFFIX "\n", name);
	if (asprintf(&path, "%s/" DCPI_KALLSYMS_REF, show) == -1)
		return lib_seterr(err, ENOMEM, "%s: out of memory", show);
	r = dcpi_atomic_writeat(hostfd, DCPI_KALLSYMS_REF, path, line, (size_t)n,
	    mode, err);
	free(path);
	return r;
}

int
dcpi_kallsyms_ref_readat(int dirfd, const char *name, const char *show,
    char out[DCPI_KALLSYMS_NAME_MAX], struct dcpi_error *err)
{
	const size_t pl = strlen(REF_PREFIX), sl = strlen(REF_SUFFIX);
	size_t len, nl;
	void *buf;
	char *s;

	if (show == NULL)
		show = name;
	if (dcpi_read_fileat(dirfd, name, show, 4096, &buf, &len, err) == -1)
		return -1;
	s = buf;
	nl = strcspn(s, "\n");
	if (len < pl || memcmp(s, REF_PREFIX, pl) != 0) {
		free(buf);
		return lib_seterr(err, EINVAL, "%s: byte 0: expected \"" REF_PREFIX
		    "KERNELID-HASH" REF_SUFFIX "\"", show);
	}
	if (nl + 1 < len || (nl + 1 == len && s[nl] != '\n') ||
	    nl < pl + sl || memcmp(s + nl - sl, REF_SUFFIX, sl) != 0 ||
	    !name_valid(s + pl, nl - pl - sl)) {
		size_t at = nl < len ? nl : len;

		if (nl + 1 < len)
			at = nl + 1;
		free(buf);
		return lib_seterr(err, EINVAL, "%s: byte %zu: expected one line \""
		    REF_PREFIX "KERNELID-HASH" REF_SUFFIX "\" (KERNELID and HASH "
		    "lowercase hex, HASH 16 digits)", show, at);
	}
	memcpy(out, s + pl, nl - pl - sl);
	out[nl - pl - sl] = '\0';
	free(buf);
	return 0;
}

/* The database of "DB/EPOCH/HOST/kallsyms": path without its last three
 * components ("." when it has no more). */
static char *
db_of(const char *path)
{
	char *d, *slash;
	int i;

	if ((d = strdup(path)) == NULL)
		return NULL;
	for (i = 0; i < 3; i++) {
		if ((slash = strrchr(d, '/')) == NULL) {
			free(d);
			return strdup(".");
		}
		*slash = '\0';
		if (d[0] == '\0') {
			free(d);
			return strdup("/");
		}
	}
	return d;
}

int
dcpi_kallsyms_read(const char *path, void **buf, size_t *len, char **from,
    struct dcpi_error *err)
{
	char name[DCPI_KALLSYMS_NAME_MAX], *ref = NULL, *db = NULL, *snap = NULL;
	void *gz = NULL;
	size_t gzlen;
	int r = -1;

	*buf = NULL;
	*len = 0;
	if (from != NULL)
		*from = NULL;
	/* The older layout, a plain copy in the epoch, wins: a dcpid of
	 * that time wrote it, and no reference beside it. */
	if (dcpi_read_file(path, buf, len, err) == 0) {
		if (from != NULL && (*from = strdup(path)) == NULL) {
			free(*buf);
			*buf = NULL;
			*len = 0;
			return lib_seterr(err, ENOMEM, "%s: out of memory", path);
		}
		return 0;
	}
	if (errno != ENOENT)
		return -1;
	if (asprintf(&ref, "%s.ref", path) == -1 || (db = db_of(path)) == NULL) {
		lib_seterr(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (dcpi_kallsyms_ref_readat(AT_FDCWD, ref, ref, name, err) == -1) {
		if (errno == ENOENT)
			lib_seterr(err, ENOENT, "%s: no kernel symbols: neither a "
			    "snapshot nor its reference %s", path, ref);
		goto out;
	}
	if (asprintf(&snap, "%s/" DCPI_DB_KERNELS_DIR "/%s" REF_SUFFIX, db, name) == -1) {
		lib_seterr(err, ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (dcpi_read_fileat(AT_FDCWD, snap, snap, DCPI_KALLSYMS_MAX, &gz, &gzlen,
	    err) == -1) {
		if (errno == ENOENT)
			lib_seterr(err, ENOENT, "%s names the kernel symbols " REF_PREFIX
			    "%s" REF_SUFFIX ", but %s is missing (the epoch was copied "
			    "without its database's " REF_PREFIX " directory, or dcpictl "
			    "gc removed it): copy that file along to name kernel samples",
			    ref, name, snap);
		goto out;
	}
	if (lib_gunzip(gz, gzlen, DCPI_KALLSYMS_MAX, snap, buf, len, err) == -1)
		goto out;
	if (from != NULL) {
		*from = snap;
		snap = NULL;
	}
	r = 0;
out:
	free(gz);
	free(snap);
	free(db);
	free(ref);
	return r;
}
