/*
 * The profile database layout (DESIGN.md "The profile database"):
 * DB/EPOCH/HOST/EVENT/NAME.IMAGEID, DB/current -> EPOCH.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dcpi/db.h>

#include "internal.h"
#include "util.h"

static void
fail(struct dcpi_error *err, const char *path, const char *what, int e)
{
	lib_seterr(err, e, "%s: %s: %s", path, what, strerror(e));
}

/* The database directory, for the *at functions; -1 with "DB: what:
 * strerror" in err. */
static int
open_db(const char *db, const char *what, struct dcpi_error *err)
{
	int fd;

	if ((fd = open(db, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		fail(err, db, what, errno);
	return fd;
}

/* Closes fd after a call that returned rc, keeping the call's errno. */
static int
close_keep(int fd, int rc)
{
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

const char *
dcpi_db_default(void)
{
	const char *s = getenv("DCPIDB");

	return s != NULL && *s ? s : DCPI_DB_DEFAULT;
}

void
dcpi_epoch_name(time_t t, char out[DCPI_EPOCH_LEN + 1])
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(out, DCPI_EPOCH_LEN + 1, "%Y%m%d%H%M%S", &tm) != DCPI_EPOCH_LEN)
		memcpy(out, "00000000000000", DCPI_EPOCH_LEN + 1);
}

static int
digits(const char *s, int n)
{
	int v = 0;

	while (n-- > 0)
		v = v * 10 + (*s++ - '0');
	return v;
}

int
dcpi_epoch_parse(const char *name, time_t *t)
{
	size_t n = strlen(name), i;
	struct tm tm, chk;
	const char *s = name;
	time_t r;

	if (n != 10 && n != 14)
		goto bad;
	for (i = 0; i < n; i++)
		if (name[i] < '0' || name[i] > '9')
			goto bad;
	memset(&tm, 0, sizeof(tm));
	if (n == 10) {
		/* POSIX %y: 69-99 are 1969-1999, 00-68 are 2000-2068. */
		tm.tm_year = digits(s, 2);
		if (tm.tm_year < 69)
			tm.tm_year += 100;
		s += 2;
	} else {
		tm.tm_year = digits(s, 4) - 1900;
		s += 4;
	}
	tm.tm_mon = digits(s, 2) - 1;
	tm.tm_mday = digits(s + 2, 2);
	tm.tm_hour = digits(s + 4, 2);
	tm.tm_min = digits(s + 6, 2);
	tm.tm_sec = n == 14 ? digits(s + 8, 2) : 0;
	chk = tm;
	r = timegm(&tm);
	/* timegm normalizes: a field out of range shows up as a change. */
	if (tm.tm_year != chk.tm_year || tm.tm_mon != chk.tm_mon ||
	    tm.tm_mday != chk.tm_mday || tm.tm_hour != chk.tm_hour ||
	    tm.tm_min != chk.tm_min || tm.tm_sec != chk.tm_sec)
		goto bad;
	*t = r;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int
lib_name_escape(const char *name, int leading_dot, char *out, size_t outlen)
{
	int dots = leading_dot ? name[0] == '.' :
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
	size_t n = 0, k;
	const char *s, *esc;

	for (s = name; *s; s++) {
		esc = *s == '/' ? "%2F" : *s == '%' ? "%25" :
		    *s == '.' && dots && (!leading_dot || s == name) ? "%2E" : NULL;
		k = esc ? 3 : 1;
		if (n + k >= outlen || n + k > NAME_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (esc)
			memcpy(out + n, esc, 3);
		else
			out[n] = *s;
		n += k;
	}
	out[n] = '\0';
	return 0;
}

int
dcpi_db_event_dirname(const char *event, char *out, size_t outlen)
{
	if (*event == '\0') {
		errno = EINVAL;
		return -1;
	}
	/* "." and ".." are not usable names; escape their dots. */
	return lib_name_escape(event, 0, out, outlen);
}

int
dcpi_db_event_from_dirname(const char *dirname, char *out, size_t outlen)
{
	size_t n = 0;
	const char *s;
	char c;

	for (s = dirname; *s; s++) {
		c = *s;
		if (c == '%') {
			if (strncmp(s, "%2F", 3) == 0)
				c = '/';
			else if (strncmp(s, "%25", 3) == 0)
				c = '%';
			else if (strncmp(s, "%2E", 3) == 0)
				c = '.';
			else {
				errno = EINVAL;
				return -1;
			}
			s += 2;
		}
		if (n + 1 >= outlen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		out[n++] = c;
	}
	if (outlen == 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[n] = '\0';
	return 0;
}

int
dcpi_db_profile_name(const char *path, const char *imageid, char *out, size_t outlen)
{
	const char *base = path ? path : "";
	char name[NAME_MAX + 1];
	size_t n = 0, idlen = strlen(imageid), max;
	int r;

	if (*imageid == '\0' || strchr(imageid, '/') != NULL) {
		errno = EINVAL;
		return -1;
	}
	/* A file's own name may take all of NAME_MAX: NAME is cut where
	 * ".IMAGEID" still fits, at a UTF-8 character's start (readers know
	 * a profile by its header, not by its file's name). */
	max = idlen + 2 < NAME_MAX ? NAME_MAX - idlen - 1 : 1;
	/* Pseudo paths ("[kernel.kallsyms]", "[anon:a/b]") are names, not paths. */
	if (*base != '[' && strrchr(base, '/') != NULL)
		base = strrchr(base, '/') + 1;
	for (; *base && n < max; base++)
		if (*base != '[' && *base != ']' && *base != '/')
			name[n++] = *base;
	/* Cut inside a character: back to its start. */
	if (((unsigned char)*base & 0xc0) == 0x80) {
		while (n > 0 && ((unsigned char)name[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0 && ((unsigned char)name[n - 1] & 0xc0) == 0xc0)
			n--;
	}
	name[n] = '\0';
	if (n == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		strcpy(name, "unknown");
	r = snprintf(out, outlen, "%s.%s", name, imageid);
	if (r < 0 || (size_t)r >= outlen || r > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

char *
dcpi_db_event_path(const char *db, const char *epoch, const char *host,
    const char *event)
{
	char dir[NAME_MAX + 1], *s;

	if (dcpi_db_event_dirname(event, dir, sizeof(dir)) < 0)
		return NULL;
	if (asprintf(&s, "%s/%s/%s/%s", db, epoch, host, dir) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

char *
dcpi_db_buildid_path(const char *db, const char *imageid, const char *file)
{
	size_t n = strlen(imageid);
	char *s;
	int r;

	if (n == 0 || n > 128 || strspn(imageid, "0123456789abcdefABCDEF") != n ||
	    (file != NULL && (*file == '\0' || strchr(file, '/') != NULL))) {
		errno = EINVAL;
		return NULL;
	}
	if (file != NULL)
		r = asprintf(&s, "%s/%s/%s/%s", db, DCPI_DB_BUILDID_DIR, imageid, file);
	else
		r = asprintf(&s, "%s/%s/%s", db, DCPI_DB_BUILDID_DIR, imageid);
	if (r < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

int
dcpi_db_check_dir(int fd, const char *show, gid_t gid, struct dcpi_error *err)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return lib_seterr(err, errno, "%s: %s", show, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return lib_seterr(err, ENOTDIR, "%s: not a directory", show);
	if (st.st_uid != geteuid())
		return lib_seterr(err, EPERM, "%s: owned by uid %u, not by dcpid's "
		    "uid %u: refusing to write into it", show, (unsigned)st.st_uid,
		    (unsigned)geteuid());
	if ((st.st_mode & S_IWOTH) ||
	    ((st.st_mode & S_IWGRP) && st.st_gid != 0 && st.st_gid != gid))
		return lib_seterr(err, EPERM, "%s: mode %04o, group %u: writable by "
		    "others than root and the database's group: refusing to write "
		    "into it", show, (unsigned)(st.st_mode & 07777),
		    (unsigned)st.st_gid);
	return 0;
}

/* One component below dirfd, never through a symlink. */
static int
open_comp(int dirfd, const char *comp, const char *show, int flags, mode_t mode,
    gid_t gid, struct dcpi_error *err)
{
	struct stat st, pst;
	int fd, made = 0, e;

	for (;;) {
		fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT || !(flags & DCPI_DB_CREATE) || made)
			break;
		if (mkdirat(dirfd, comp, mode) < 0 && errno != EEXIST)
			return lib_seterr(err, errno, "%s: cannot create directory: %s",
			    show, strerror(errno));
		made = 1;
	}
	if (fd < 0) {
		e = errno;
		if ((e == ELOOP || e == ENOTDIR) &&
		    fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISLNK(st.st_mode))
				return lib_seterr(err, ELOOP, "%s: is a symbolic link, "
				    "not a directory: not followed", show);
			return lib_seterr(err, ENOTDIR, "%s: not a directory", show);
		}
		return lib_seterr(err, e, "%s: %s", show, strerror(e));
	}
	/* New directories belong to their parent's group, as below a
	 * set-group-ID directory, without the bit others would have to
	 * understand. */
	if (made && fstat(dirfd, &pst) == 0 && fstat(fd, &st) == 0 &&
	    pst.st_gid != st.st_gid && fchown(fd, (uid_t)-1, pst.st_gid) == -1) {
		/* Not ours to give: the directory keeps its group. */
	}
	if ((flags & DCPI_DB_CHECK) && dcpi_db_check_dir(fd, show, gid, err) < 0)
		return close_keep(fd, -1);
	/* The new name is durable only once its parent is fsynced: without
	 * it a crash could take the directory, and every file fsynced into
	 * it, away.  Directories are made once an epoch, event, label or
	 * image, so this costs a flush little.  (Some file systems cannot
	 * fsync a directory: EINVAL, nothing more to do there.) */
	if (made && !(flags & DCPI_DB_NOSYNC) && fsync(dirfd) < 0 &&
	    errno != EINVAL) {
		e = errno;
		close(fd);
		return lib_seterr(err, e, "%s: created, but its parent directory "
		    "cannot be fsynced: %s", show, strerror(e));
	}
	return fd;
}

int
dcpi_db_openat(int dirfd, const char *rel, const char *show, int flags,
    mode_t mode, gid_t gid, struct dcpi_error *err)
{
	char buf[PATH_MAX], name[PATH_MAX + 1024], *comp, *save = NULL;
	int fd, nfd;
	size_t n;

	if (show == NULL)
		show = ".";
	if (snprintf(buf, sizeof(buf), "%s", rel) >= (int)sizeof(buf))
		return lib_seterr(err, ENAMETOOLONG, "%s/%s: %s", show, rel,
		    strerror(ENAMETOOLONG));
	if ((fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
		return lib_seterr(err, errno, "%s: %s", show, strerror(errno));
	snprintf(name, sizeof(name), "%s", show);
	for (comp = strtok_r(buf, "/", &save); comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		n = strlen(name);
		snprintf(name + n, sizeof(name) - n, "/%s", comp);
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			close(fd);
			return lib_seterr(err, EINVAL, "%s: '%s' in a database path",
			    name, comp);
		}
		if ((nfd = close_keep(fd, open_comp(fd, comp, name, flags, mode, gid,
		    err))) < 0)
			return -1;
		fd = nfd;
	}
	return fd;
}

/* db and its parents, as the caller names them. */
static int
mkdir_path(const char *db, struct dcpi_error *err)
{
	char failed[PATH_MAX];

	if (strlen(db) >= sizeof(failed))
		return lib_seterr(err, ENAMETOOLONG, "%s: %s", db,
		    strerror(ENAMETOOLONG));
	if (mkdir_parents(db, 0755, 0755, failed, sizeof(failed)) < 0)
		return lib_seterr(err, errno, "%s: cannot create directory: %s",
		    failed, strerror(errno));
	return 0;
}

int
dcpi_db_mkdirs(const char *db, const char *epoch, const char *host,
    const char *event, struct dcpi_error *err)
{
	char dir[NAME_MAX + 1], *rel;
	int rc, e;

	if (dcpi_db_event_dirname(event, dir, sizeof(dir)) < 0) {
		fail(err, event, "cannot name its directory", errno);
		return -1;
	}
	if (asprintf(&rel, "%s/%s/%s", epoch, host, dir) < 0) {
		fail(err, event, "cannot name its directory", ENOMEM);
		return -1;
	}
	rc = lib_db_mkdirs_below(db, rel, err);
	e = errno;
	free(rel);
	errno = e;
	return rc;
}

int
lib_db_mkdirs_below(const char *db, const char *rel, struct dcpi_error *err)
{
	int dfd, fd;

	/* The database's own path is the caller's; below it nothing is
	 * followed. */
	if (mkdir_path(db, err) < 0)
		return -1;
	if ((dfd = open_db(db, "cannot open directory", err)) < 0)
		return -1;
	fd = close_keep(dfd, dcpi_db_openat(dfd, rel, db, DCPI_DB_CREATE, 0755, (gid_t)-1, err));
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int
is_epoch_name(const char *s)
{
	size_t n = strlen(s);
	time_t t;

	return (n == 10 || n == 14) && dcpi_epoch_parse(s, &t) == 0;
}

int
dcpi_db_set_currentat(int dbfd, const char *show, const char *epoch,
    struct dcpi_error *err)
{
	char tmp[64];

	if (show == NULL)
		show = ".";
	if (!is_epoch_name(epoch)) {
		fail(err, epoch, "not an epoch name", EINVAL);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), ".current.%ld", (long)getpid());
	unlinkat(dbfd, tmp, 0);
	if (symlinkat(epoch, dbfd, tmp) < 0)
		return lib_seterr(err, errno, "%s/%s: cannot create symlink: %s",
		    show, tmp, strerror(errno));
	if (renameat(dbfd, tmp, dbfd, "current") < 0) {
		int e = errno;

		unlinkat(dbfd, tmp, 0);
		return lib_seterr(err, e, "%s/current: cannot replace: %s", show,
		    strerror(e));
	}
	if (fsync(dbfd) < 0 && errno != EINVAL)
		return lib_seterr(err, errno, "%s: cannot fsync: %s", show,
		    strerror(errno));
	return 0;
}

int
dcpi_db_set_current(const char *db, const char *epoch, struct dcpi_error *err)
{
	int fd;

	if (!is_epoch_name(epoch)) {
		fail(err, epoch, "not an epoch name", EINVAL);
		return -1;
	}
	if ((fd = open_db(db, "cannot set the current epoch", err)) < 0)
		return -1;
	return close_keep(fd, dcpi_db_set_currentat(fd, db, epoch, err));
}

int
dcpi_db_currentat(int dbfd, const char *show, char out[DCPI_EPOCH_LEN + 1],
    struct dcpi_error *err)
{
	char buf[64];
	ssize_t n;

	if (show == NULL)
		show = ".";
	n = readlinkat(dbfd, "current", buf, sizeof(buf) - 1);
	if (n < 0)
		return lib_seterr(err, errno, "%s/current: cannot read symlink: %s",
		    show, strerror(errno));
	buf[n] = '\0';
	if (!is_epoch_name(buf))
		return lib_seterr(err, EINVAL, "%s/current: points to '%s', not an "
		    "epoch name", show, buf);
	memcpy(out, buf, (size_t)n + 1);
	return 0;
}

int
dcpi_db_current(const char *db, char out[DCPI_EPOCH_LEN + 1], struct dcpi_error *err)
{
	int fd;

	if ((fd = open_db(db, "cannot read the current epoch", err)) < 0)
		return -1;
	return close_keep(fd, dcpi_db_currentat(fd, db, out, err));
}

void
dcpi_strv_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_epoch(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	time_t tx = 0, ty = 0;

	dcpi_epoch_parse(x, &tx);
	dcpi_epoch_parse(y, &ty);
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(x, y);
}

/* Lists dir's non-hidden entries with the seed's names (see
 * lib_list_dir); with epochs, only epoch directories. */
static int
list(const char *dir, int epochs, char **seed, size_t nseed, char ***names,
    size_t *np, struct dcpi_error *err)
{
	char **v = seed, **nv;
	size_t n = nseed, cap = nseed, i, k;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int e;

	*names = NULL;
	*np = 0;
	if ((d = opendir(dir)) == NULL) {
		if (n > 0 && (errno == ENOENT || errno == ENOTDIR))
			goto done;
		dcpi_strv_free(v, n);
		fail(err, dir, "cannot open directory", errno);
		return -1;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (epochs) {
			if (!is_epoch_name(de->d_name))
				continue;
			if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISDIR(st.st_mode))
				continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
				goto nomem;
			v = nv;
		}
		if ((v[n] = strdup(de->d_name)) == NULL)
			goto nomem;
		n++;
	}
	if (errno != 0) {
		e = errno;
		closedir(d);
		dcpi_strv_free(v, n);
		fail(err, dir, "cannot read directory", e);
		return -1;
	}
	closedir(d);
done:
	if (n > 0)
		qsort(v, n, sizeof(*v), epochs ? cmp_epoch : cmp_name);
	/* A name both in the pack and on disk (the pack's loose files
	 * not yet removed) once. */
	for (i = k = 0; i < n; i++) {
		if (k > 0 && strcmp(v[k - 1], v[i]) == 0) {
			free(v[i]);
			continue;
		}
		v[k++] = v[i];
	}
	n = k;
	*names = v;
	*np = n;
	return 0;
nomem:
	closedir(d);
	dcpi_strv_free(v, n);
	fail(err, dir, "cannot list directory", ENOMEM);
	return -1;
}

int
dcpi_db_epochs(const char *db, char ***names, size_t *n, struct dcpi_error *err)
{
	return list(db, 1, NULL, 0, names, n, err);
}

int
lib_list_dir(const char *dir, char **seed, size_t nseed, char ***names,
    size_t *n, struct dcpi_error *err)
{
	return list(dir, 0, seed, nseed, names, n, err);
}
