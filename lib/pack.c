/*
 * Packed epochs (lib/dcpi/pack.h, dcpi(5) "Packed epochs"): the format,
 * dcpi_db_compress that writes it, and the readers that see a pack's
 * members as files: dcpi_read_file and dcpi_read_fileat (file.h), which
 * try the file system through file.c and then the pack, and dcpi_db_list
 * (db.h), which lists through db.c with the pack's names.  They are here,
 * above file.c and db.c, so that neither of those calls back up.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/pack.h>

#include "internal.h"

/* gzip -6: on a 30-s epoch's 283 KB stream, 71,093 bytes in 17 ms;
 * -9 saves 0.7% for 20 times the CPU, -1 costs 10% more bytes
 * (bench/README "Disk: packed epochs"). */
#define PACK_LEVEL	6

/* A member's path: components joined by '/', none empty or hidden. */
static int
path_valid(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || s[0] == '/' || s[n - 1] == '/')
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '\n' || s[i] == '\0')
			return 0;
		if ((i == 0 || s[i - 1] == '/') && (s[i] == '.' || s[i] == '/'))
			return 0;
	}
	return 1;
}

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dcpi_pack_entry *)a)->path,
	    ((const struct dcpi_pack_entry *)b)->path);
}

const struct dcpi_pack_entry *
dcpi_pack_find(const struct dcpi_pack *p, const char *path)
{
	struct dcpi_pack_entry key = { (char *)(uintptr_t)path, 0, 0 };

	if (p == NULL || p->n == 0)
		return NULL;
	return bsearch(&key, p->v, p->n, sizeof(*p->v), entry_cmp);
}

void
dcpi_pack_free(struct dcpi_pack *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	free(p->data);
	free(p);
}

/* A decimal size_t at s (up to the blank or newline end), or -1. */
static int
parse_size(const char *s, const char *end, size_t *out)
{
	size_t v = 0;

	if (s == end || (*s == '0' && end - s > 1))
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* Parses p->data[0..p->len), which p owns. */
static int
parse_owned(struct dcpi_pack *p, const char *name, struct dcpi_error *err)
{
	const char *s = p->data, *end = s + p->len, *nl, *sp;
	size_t cap = 0, files, off, at, i, k;
	char *q;

#define BAD(...) do { lib_seterr(err, EINVAL, __VA_ARGS__); return -1; } while (0)
	if ((nl = memchr(s, '\n', p->len)) == NULL ||
	    (size_t)(nl - s) != strlen(DCPI_PACK_MAGIC) ||
	    memcmp(s, DCPI_PACK_MAGIC, strlen(DCPI_PACK_MAGIC)) != 0)
		BAD("%s: byte 0: expected \"" DCPI_PACK_MAGIC "\" (not a dcpi pack)", name);
	s = nl + 1;
	for (;;) {
		at = (size_t)(s - p->data);
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			BAD("%s: byte %zu: the index ends without \"files N\" and "
			    "\"data\" lines", name, at);
		if (nl - s < 5 || memcmp(s, "file ", 5) != 0)
			break;
		if ((sp = memchr(s + 5, ' ', (size_t)(nl - s - 5))) == NULL ||
		    parse_size(s + 5, sp, &off) == -1)
			BAD("%s: byte %zu: expected \"file SIZE PATH\" (SIZE decimal)",
			    name, at);
		if (!path_valid(sp + 1, (size_t)(nl - sp - 1)))
			BAD("%s: byte %zu: bad path (empty, absolute, a component "
			    "empty or starting with '.')", name, (size_t)(sp + 1 - p->data));
		if (lib_grow((void **)&p->v, &cap, p->n, sizeof(*p->v)) == -1 ||
		    (q = strndup(sp + 1, (size_t)(nl - sp - 1))) == NULL)
			return lib_seterr(err, ENOMEM, "%s: out of memory", name);
		p->v[p->n].path = q;
		p->v[p->n].size = off;
		p->v[p->n].off = 0;
		p->n++;
		if (p->n > 1 && strcmp(p->v[p->n - 2].path, q) >= 0)
			BAD("%s: byte %zu: path \"%.200s\" not after \"%.200s\" (paths "
			    "are sorted and unique)", name, (size_t)(sp + 1 - p->data), q,
			    p->v[p->n - 2].path);
		s = nl + 1;
	}
	if (nl - s < 6 || memcmp(s, "files ", 6) != 0 ||
	    parse_size(s + 6, nl, &files) == -1)
		BAD("%s: byte %zu: expected \"file SIZE PATH\" or \"files N\"", name, at);
	if (files != p->n)
		BAD("%s: byte %zu: \"files %zu\" but %zu file lines", name, at, files, p->n);
	s = nl + 1;
	at = (size_t)(s - p->data);
	if ((size_t)(end - s) < 5 || memcmp(s, "data\n", 5) != 0)
		BAD("%s: byte %zu: expected \"data\"", name, at);
	off = at + 5;
	for (i = 0; i < p->n; i++) {
		if (p->v[i].size > p->len - off)
			BAD("%s: byte %zu: %s needs %zu bytes, %zu are left", name, off,
			    p->v[i].path, p->v[i].size, p->len - off);
		p->v[i].off = off;
		off += p->v[i].size;
	}
	if (off != p->len)
		BAD("%s: byte %zu: %zu bytes after the last file", name, off, p->len - off);
	/* No member is a directory of another ("a" and "a/b"). */
	for (i = 0; i < p->n; i++)
		for (k = 0; p->v[i].path[k] != '\0'; k++)
			if (p->v[i].path[k] == '/') {
				if ((q = strndup(p->v[i].path, k)) == NULL)
					return lib_seterr(err, ENOMEM, "%s: out of memory", name);
				if (dcpi_pack_find(p, q) != NULL) {
					lib_seterr(err, EINVAL, "%s: %s: both a file and the "
					    "directory of %s", name, q, p->v[i].path);
					free(q);
					return -1;
				}
				free(q);
			}
#undef BAD
	return 0;
}

int
dcpi_pack_parse(const void *buf, size_t len, const char *name,
    struct dcpi_pack **out, struct dcpi_error *err)
{
	struct dcpi_pack *p;

	*out = NULL;
	if (len > DCPI_PACK_MAX)
		return lib_seterr(err, EFBIG, "%s: larger than %zu bytes", name,
		    DCPI_PACK_MAX);
	if ((p = calloc(1, sizeof(*p))) == NULL || (p->data = malloc(len + 1)) == NULL) {
		free(p);
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	}
	memcpy(p->data, buf, len);
	p->data[len] = '\0';
	p->len = len;
	if (parse_owned(p, name, err) == -1) {
		int e = errno;

		dcpi_pack_free(p);
		errno = e;
		return -1;
	}
	*out = p;
	return 0;
}

/* The file at path, read below its directory's descriptor, from the file
 * system alone: a path's read would go through the look-up
 * (dcpi_read_file), which calls dcpi_pack_read with its lock held. */
static int
read_below_dir(const char *path, void **buf, size_t *len, struct dcpi_error *err)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int dfd, r, e;

	dir = slash == NULL ? strdup(".") :
	    strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (dir == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd == -1)
		return lib_seterr(err, errno, "%s: %s", path, strerror(errno));
	r = lib_read_fileat(dfd, slash ? slash + 1 : path, 1, path, DCPI_PACK_MAX,
	    buf, len, err);
	e = errno;
	close(dfd);
	errno = e;
	return r;
}

int
dcpi_pack_read(const char *path, struct dcpi_pack **out, struct dcpi_error *err)
{
	struct dcpi_pack *p;
	void *gz, *raw;
	size_t gzlen, len;
	int e;

	*out = NULL;
	if (read_below_dir(path, &gz, &gzlen, err) == -1)
		return -1;
	e = lib_gunzip(gz, gzlen, DCPI_PACK_MAX, path, &raw, &len, err);
	free(gz);
	if (e == -1)
		return -1;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		free(raw);
		return lib_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	p->data = raw;
	p->len = len;
	if (parse_owned(p, path, err) == -1) {
		e = errno;
		dcpi_pack_free(p);
		errno = e;
		return -1;
	}
	*out = p;
	return 0;
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dcpi_pack_file *)a)->path,
	    ((const struct dcpi_pack_file *)b)->path);
}

int
dcpi_pack_encode(const struct dcpi_pack_file *f, size_t n, void **bufp,
    size_t *lenp, struct dcpi_error *err)
{
	struct dcpi_pack_file *s;
	struct dcpi_pack *chk = NULL;
	size_t i, len, at;
	char *buf = NULL;
	FILE *m;
	int e;

	*bufp = NULL;
	*lenp = 0;
	if ((s = reallocarray(NULL, n ? n : 1, sizeof(*s))) == NULL)
		return lib_seterr(err, ENOMEM, "pack: out of memory");
	if (n > 0)
		memcpy(s, f, n * sizeof(*s));
	qsort(s, n, sizeof(*s), file_cmp);
	if ((m = open_memstream(&buf, &len)) == NULL) {
		free(s);
		return lib_seterr(err, ENOMEM, "pack: out of memory");
	}
	fprintf(m, DCPI_PACK_MAGIC "\n");
	for (i = 0; i < n; i++)
		fprintf(m, "file %zu %s\n", s[i].len, s[i].path);
	fprintf(m, "files %zu\ndata\n", n);
	for (i = 0, at = 0; i < n; i++, at = 0)
		while (at < s[i].len && !ferror(m))
			at += fwrite((const char *)s[i].buf + at, 1, s[i].len - at, m);
	e = ferror(m);
	if (fclose(m) != 0 || e) {
		free(buf);
		free(s);
		return lib_seterr(err, ENOMEM, "pack: out of memory");
	}
	free(s);
	/* The writer checks what every reader checks: a bad path, one twice,
	 * a pack too large are refused here, not found later. */
	if (dcpi_pack_parse(buf, len, "pack", &chk, err) == -1) {
		e = errno;
		free(buf);
		errno = e;
		return -1;
	}
	dcpi_pack_free(chk);
	*bufp = buf;
	*lenp = len;
	return 0;
}

/*
 * The look-up.  Paths below DB/EPOCH/HOST are at most three components
 * deep (EVENT/LABEL/NAME), so a path's pack is PREFIX/pack.gz for its
 * nearest of the three prefixes that has one.  The last pack read is kept
 * (while its file's identity is the same): an analysis reads every member
 * of a pack in turn.
 */
#define PACK_DEPTH	3

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char		*file;
	struct stat	 st;
	struct dcpi_pack *p;
} cache;

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Whether norm[0..end) is ".../EPOCH/HOST": only a host directory holds
 * a pack, so an unrelated pack.gz elsewhere is never taken for one. */
static int
under_epoch(const char *norm, size_t end)
{
	char ep[DCPI_EPOCH_LEN + 1];
	size_t k, s;
	time_t t;

	for (k = end; k > 0 && norm[k - 1] != '/'; k--)
		;
	if (k < 2)
		return 0;
	for (s = k - 1; s > 0 && norm[s - 1] != '/'; s--)
		;
	/* The 14-digit names, and the older 10-digit ones (db.h). */
	if (k - 1 - s != DCPI_EPOCH_LEN && k - 1 - s != 10)
		return 0;
	memcpy(ep, norm + s, k - 1 - s);
	ep[k - 1 - s] = '\0';
	return dcpi_epoch_parse(ep, &t) == 0;
}

/*
 * The pack of path (called with cache_lock held): 1 with *p (the cache's)
 * and *rel (path below its host directory, "" for the host directory
 * itself, malloc'd), 0 when no pack holds path, -1 for a pack that cannot
 * be read (err says why).
 */
static int
locate(const char *path, struct dcpi_pack **p, char **rel, struct dcpi_error *err)
{
	char *norm, *file = NULL;
	size_t n = 0, cut[PACK_DEPTH + 1], i, k;
	struct dcpi_pack *np;
	struct stat st;
	int depth;

	*p = NULL;
	*rel = NULL;
	/* "a//b/" as "a/b": the readers join with '/' what they are given. */
	if ((norm = malloc(strlen(path) + 1)) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", path);
	for (i = 0; path[i] != '\0'; i++)
		if (path[i] != '/' || n == 0 || norm[n - 1] != '/')
			norm[n++] = path[i];
	while (n > 1 && norm[n - 1] == '/')
		n--;
	norm[n] = '\0';
	cut[0] = n;
	for (depth = 1; depth <= PACK_DEPTH; depth++) {
		for (k = cut[depth - 1]; k > 0 && norm[k - 1] != '/'; k--)
			;
		if (k <= 1)
			break;
		cut[depth] = k - 1;
	}
	for (i = 0; i < (size_t)depth; i++) {
		free(file);
		file = NULL;
		if (!under_epoch(norm, cut[i]))
			continue;
		if (asprintf(&file, "%.*s/" DCPI_PACK_FILE, (int)cut[i], norm) == -1) {
			file = NULL;
			break;
		}
		if (lstat(file, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (cache.file == NULL || strcmp(cache.file, file) != 0 ||
		    !same_file(&cache.st, &st)) {
			if (dcpi_pack_read(file, &np, err) == -1) {
				free(file);
				free(norm);
				return -1;
			}
			dcpi_pack_free(cache.p);
			free(cache.file);
			cache.p = np;
			cache.file = file;
			cache.st = st;
			file = NULL;
		}
		free(file);
		if ((*rel = strdup(i == 0 ? "" : norm + cut[i] + 1)) == NULL) {
			free(norm);
			return lib_seterr(err, ENOMEM, "%s: out of memory", path);
		}
		free(norm);
		*p = cache.p;
		return 1;
	}
	free(file);
	free(norm);
	return 0;
}

/* The first index of p whose path starts with prefix (rel + "/"). */
static size_t
lower_bound(const struct dcpi_pack *p, const char *prefix)
{
	size_t lo = 0, hi = p->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(p->v[mid].path, prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The member at path (DB/EPOCH/HOST/REL) of its host directory's pack,
 * read as dcpi_read_fileat reads a file (max, show, *buf with a NUL after
 * it): 1, 0 when no pack holds it (err untouched), -1 with errno and err
 * for a pack that cannot be read or a member past max. */
static int
pack_member(const char *path, size_t max, const char *show, void **buf,
    size_t *len, struct dcpi_error *err)
{
	const struct dcpi_pack_entry *e;
	struct dcpi_pack *p;
	char *rel;
	int r;

	pthread_mutex_lock(&cache_lock);
	r = locate(path, &p, &rel, err);
	if (r <= 0) {
		pthread_mutex_unlock(&cache_lock);
		return r == 0 ? 0 : -1;
	}
	if ((e = dcpi_pack_find(p, rel)) == NULL) {
		free(rel);
		pthread_mutex_unlock(&cache_lock);
		return 0;
	}
	free(rel);
	if (e->size > max) {
		pthread_mutex_unlock(&cache_lock);
		return lib_seterr(err, EFBIG, "%s: larger than %zu bytes, the most "
		    "this file may hold", show, max);
	}
	if ((*buf = malloc(e->size + 1)) == NULL) {
		pthread_mutex_unlock(&cache_lock);
		return lib_seterr(err, ENOMEM, "%s: out of memory", show);
	}
	memcpy(*buf, p->data + e->off, e->size);
	((char *)*buf)[e->size] = '\0';
	*len = e->size;
	pthread_mutex_unlock(&cache_lock);
	return 1;
}

/* The names of the entries of directory dir held by its pack (the first
 * component below dir of its members), unsorted, maybe repeated: 1, 0
 * when no pack holds dir, -1 with errno and err. */
static int
pack_names(const char *dir, char ***names, size_t *n, struct dcpi_error *err)
{
	char **v = NULL, *prefix = NULL, *name;
	size_t cap = 0, pl, i, cl;
	struct dcpi_pack *p;
	const char *c;
	int r;

	*names = NULL;
	*n = 0;
	pthread_mutex_lock(&cache_lock);
	if ((r = locate(dir, &p, &prefix, err)) <= 0) {
		pthread_mutex_unlock(&cache_lock);
		return r;
	}
	if (prefix[0] != '\0') {
		name = prefix;
		if (asprintf(&prefix, "%s/", name) == -1)
			prefix = NULL;
		free(name);
		if (prefix == NULL)
			goto nomem;
	}
	pl = strlen(prefix);
	for (i = lower_bound(p, prefix); i < p->n &&
	    strncmp(p->v[i].path, prefix, pl) == 0; i++) {
		c = p->v[i].path + pl;
		cl = strcspn(c, "/");
		/* Sorted, so a directory's members follow one another
		 * unless a name that sorts between them intervenes; the
		 * caller's sort and unique finish the job. */
		if (*n > 0 && strlen(v[*n - 1]) == cl && memcmp(v[*n - 1], c, cl) == 0)
			continue;
		if (lib_grow((void **)&v, &cap, *n, sizeof(*v)) == -1 ||
		    (v[*n] = strndup(c, cl)) == NULL)
			goto nomem;
		(*n)++;
	}
	free(prefix);
	pthread_mutex_unlock(&cache_lock);
	*names = v;
	return 1;
nomem:
	free(prefix);
	pthread_mutex_unlock(&cache_lock);
	dcpi_strv_free(v, *n);
	*n = 0;
	return lib_seterr(err, ENOMEM, "%s: out of memory", dir);
}

/* dcpi_read_fileat, with the last component followed unless nofollow. */
static int
read_at(int dirfd, const char *name, int nofollow, const char *show, size_t max,
    void **bufp, size_t *lenp, struct dcpi_error *err)
{
	int rc;

	if (lib_read_fileat(dirfd, name, nofollow, show, max, bufp, lenp, err) == 0)
		return 0;
	/* A path below a packed host directory: its member.  Only paths,
	 * not names below a descriptor: dcpid writes the current epoch
	 * through descriptors, never packed. */
	if (errno != ENOENT || dirfd != AT_FDCWD)
		return -1;
	if ((rc = pack_member(name, max, show, bufp, lenp, err)) == 0)
		errno = ENOENT;
	return rc == 1 ? 0 : -1;
}

int
dcpi_read_fileat(int dirfd, const char *name, const char *show, size_t max,
    void **bufp, size_t *lenp, struct dcpi_error *err)
{
	return read_at(dirfd, name, 1, show != NULL ? show : name, max, bufp, lenp, err);
}

int
dcpi_read_file(const char *path, void **bufp, size_t *lenp,
    struct dcpi_error *err)
{
	return read_at(AT_FDCWD, path, 0, path, SIZE_MAX, bufp, lenp, err);
}

int
dcpi_db_list(const char *dir, char ***names, size_t *n, struct dcpi_error *err)
{
	char **v = NULL;
	size_t nv = 0;

	*names = NULL;
	*n = 0;
	/* A packed host directory's entries are its pack's, with what is
	 * on disk beside them. */
	if (pack_names(dir, &v, &nv, err) == -1)
		return -1;
	return lib_list_dir(dir, v, nv, names, n, err);
}

int
dcpi_db_isdir(const char *path)
{
	struct dcpi_pack *p;
	struct stat st;
	char *rel;
	size_t i, rl;
	int r = 0;

	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode);
	pthread_mutex_lock(&cache_lock);
	if (locate(path, &p, &rel, NULL) == 1) {
		rl = strlen(rel);
		if (rl > 0) {
			i = lower_bound(p, rel);
			r = i < p->n && strncmp(p->v[i].path, rel, rl) == 0 &&
			    p->v[i].path[rl] == '/';
			/* "a-b" sorts between "a" and "a/x". */
			for (; !r && i < p->n && strncmp(p->v[i].path, rel, rl) == 0; i++)
				r = p->v[i].path[rl] == '/';
		}
		free(rel);
	}
	pthread_mutex_unlock(&cache_lock);
	return r;
}

/* Compression: the loose files of one host directory.  A loose file
 * read, and which file it was (f first: file_cmp takes a pointer to one as
 * a pointer to its f). */
struct lfile {
	struct dcpi_pack_file f;
	dev_t	 dev;
	ino_t	 ino;
};
struct loose {
	struct lfile *v;
	size_t	 n, cap;
	char	**dirs;		/* subdirectories, each after its own */
	size_t	 nd, capd;
};

static void
loose_free(struct loose *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)(uintptr_t)l->v[i].f.path);
		free((void *)(uintptr_t)l->v[i].f.buf);
	}
	free(l->v);
	dcpi_strv_free(l->dirs, l->nd);
	memset(l, 0, sizeof(*l));
}

/* Reads the regular files below dfd (prefix: its path below the host
 * directory, "" for it; show: for messages) into l. */
static int
collect(int dfd, const char *prefix, const char *show, struct loose *l,
    struct dcpi_error *err)
{
	char *rel = NULL, *sh = NULL;
	struct dirent *de;
	struct stat st;
	void *buf;
	size_t len;
	DIR *d;
	int fd, sfd, r = 0;

	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return lib_seterr(err, errno, "%s: %s", show, strerror(errno));
	}
	while (r == 0 && (errno = 0, de = readdir(d)) != NULL) {
		/* Hidden: ".", "..", a writer's temporary file. */
		if (de->d_name[0] == '.' ||
		    (prefix[0] == '\0' && strcmp(de->d_name, DCPI_PACK_FILE) == 0))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			continue;
		if (asprintf(&rel, "%s%s%s", prefix, prefix[0] ? "/" : "", de->d_name) == -1 ||
		    asprintf(&sh, "%s/%s", show, de->d_name) == -1) {
			r = lib_seterr(err, ENOMEM, "%s: out of memory", show);
			rel = NULL;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			if ((sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC)) == -1)
				r = lib_seterr(err, errno, "%s: %s", sh, strerror(errno));
			else {
				r = collect(sfd, rel, sh, l, err);
				close(sfd);
			}
			/* After its contents: removed before its parent. */
			if (r == 0 && lib_grow((void **)&l->dirs, &l->capd, l->nd,
			    sizeof(*l->dirs)) == -1)
				r = lib_seterr(err, ENOMEM, "%s: out of memory", sh);
			else if (r == 0) {
				l->dirs[l->nd++] = rel;
				rel = NULL;
			}
		} else if (lib_read_fileat(dirfd(d), de->d_name, 1, sh, DCPI_PACK_MAX,
		    &buf, &len, err) == -1)
			r = -1;
		else if (lib_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) == -1) {
			free(buf);
			r = lib_seterr(err, ENOMEM, "%s: out of memory", sh);
		} else {
			l->v[l->n].f.path = rel;
			l->v[l->n].f.buf = buf;
			l->v[l->n].f.len = len;
			l->v[l->n].dev = st.st_dev;
			l->v[l->n].ino = st.st_ino;
			l->n++;
			rel = NULL;
		}
		free(rel);
		free(sh);
		rel = sh = NULL;
	}
	if (r == 0 && errno != 0)
		r = lib_seterr(err, errno, "%s: cannot read directory: %s", show,
		    strerror(errno));
	closedir(d);
	return r;
}

/* Packs the host directory hfd (show: DB/EPOCH/HOST). */
static int
compress_host(int hfd, const char *show, struct dcpi_compress_stats *st,
    struct dcpi_error *err)
{
	struct loose l = { NULL, 0, 0, NULL, 0, 0 };
	struct dcpi_pack_file *all = NULL, key;
	struct dcpi_pack *old = NULL;
	void *raw = NULL, *gz = NULL;
	size_t rawlen, gzlen, n, i;
	unsigned long long in = 0;
	char *packpath = NULL;
	struct stat ds, fs;
	int r = -1;

	if (collect(hfd, "", show, &l, err) == -1)
		goto out;
	if (l.n == 0) {
		r = 0;
		goto out;
	}
	qsort(l.v, l.n, sizeof(*l.v), file_cmp);
	if (asprintf(&packpath, "%s/" DCPI_PACK_FILE, show) == -1) {
		packpath = NULL;
		lib_seterr(err, ENOMEM, "%s: out of memory", show);
		goto out;
	}
	/* A pack already there (a crash before the loose files were
	 * removed, or files added since): its members, but the loose
	 * files' bytes where both have a path. */
	if (dcpi_pack_read(packpath, &old, err) == -1 && errno != ENOENT)
		goto out;
	n = l.n + (old ? old->n : 0);
	if ((all = reallocarray(NULL, n, sizeof(*all))) == NULL) {
		lib_seterr(err, ENOMEM, "%s: out of memory", show);
		goto out;
	}
	for (i = 0, n = l.n; i < l.n; i++) {
		all[i] = l.v[i].f;
		in += l.v[i].f.len;
	}
	for (i = 0; old != NULL && i < old->n; i++) {
		key.path = old->v[i].path;
		if (bsearch(&key, l.v, l.n, sizeof(*l.v), file_cmp) != NULL)
			continue;
		all[n].path = old->v[i].path;
		all[n].buf = old->data + old->v[i].off;
		all[n].len = old->v[i].size;
		n++;
	}
	if (dcpi_pack_encode(all, n, &raw, &rawlen, err) == -1)
		goto out;
	if (lib_gzip(raw, rawlen, PACK_LEVEL, packpath, &gz, &gzlen, err) == -1)
		goto out;
	if (fstat(hfd, &ds) == -1) {
		lib_seterr(err, errno, "%s: %s", show, strerror(errno));
		goto out;
	}
	/* Readable by whom the directory lets read its files. */
	if (dcpi_atomic_writeat(hfd, DCPI_PACK_FILE, packpath, gz, gzlen,
	    ds.st_mode & 0666, err) == -1)
		goto out;
	/* The pack is durable (written, synced, renamed, the directory
	 * synced): only now do the loose files go. */
	for (i = 0; i < l.n; i++) {
		/* A file replaced since it was read (dcpictl import into
		 * the epoch meanwhile) stays, and wins over its member. */
		if (fstatat(hfd, l.v[i].f.path, &fs, AT_SYMLINK_NOFOLLOW) == -1 ||
		    fs.st_dev != l.v[i].dev || fs.st_ino != l.v[i].ino)
			continue;
		if (unlinkat(hfd, l.v[i].f.path, 0) == -1 && errno != ENOENT) {
			lib_seterr(err, errno, "%s/%s: %s", show, l.v[i].f.path,
			    strerror(errno));
			goto out;
		}
	}
	/* Post-order: a directory after its subdirectories. */
	for (i = 0; i < l.nd; i++)
		(void)unlinkat(hfd, l.dirs[i], AT_REMOVEDIR);
	(void)fsync(hfd);
	if (st != NULL) {
		st->hosts++;
		st->files += l.n;
		st->bytes_in += in;
		st->bytes_out += gzlen;
	}
	r = 0;
out:
	free(gz);
	free(raw);
	free(all);
	dcpi_pack_free(old);
	free(packpath);
	loose_free(&l);
	return r;
}

int
dcpi_db_compress(const char *db, const char *epoch,
    struct dcpi_compress_stats *st, struct dcpi_error *err)
{
	char cur[DCPI_EPOCH_LEN + 1], *dir = NULL, **hosts = NULL, *show = NULL;
	struct dcpi_error e1;
	size_t nh = 0, i;
	time_t t;
	int efd = -1, hfd, r = 0, first = 0;

	if (dcpi_epoch_parse(epoch, &t) == -1)
		return lib_seterr(err, EINVAL, "%s: not an epoch name (YYYYMMDDHHMMSS)",
		    epoch);
	if (dcpi_db_current(db, cur, NULL) == 0 && strcmp(cur, epoch) == 0)
		return lib_seterr(err, EBUSY, "%s/%s: the current epoch, which dcpid "
		    "is writing: start a new one first (dcpictl epoch)", db, epoch);
	if (asprintf(&dir, "%s/%s", db, epoch) == -1)
		return lib_seterr(err, ENOMEM, "%s: out of memory", db);
	if ((efd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		r = lib_seterr(err, errno, "%s: %s", dir, strerror(errno));
		goto out;
	}
	if (dcpi_db_list(dir, &hosts, &nh, err) == -1) {
		r = -1;
		goto out;
	}
	for (i = 0; i < nh; i++) {
		if ((hfd = openat(efd, hosts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;	/* not a host directory */
		free(show);
		if (asprintf(&show, "%s/%s", dir, hosts[i]) == -1) {
			show = NULL;
			close(hfd);
			r = lib_seterr(err, ENOMEM, "%s: out of memory", dir);
			break;
		}
		/* The first failure is the one reported; the other hosts
		 * are packed all the same. */
		if (compress_host(hfd, show, st, first ? &e1 : err) == -1 && !first) {
			first = errno;
			r = -1;
		}
		close(hfd);
	}
	if (first)
		errno = first;
out:
	free(show);
	dcpi_strv_free(hosts, nh);
	if (efd != -1)
		close(efd);
	free(dir);
	return r;
}
