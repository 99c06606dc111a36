/*
 * Cgroups: daemon/cgroup.h.
 *
 * libsystemd has no public call from a cgroup path to its unit (sd_pid_
 * get_unit asks about a live pid, and dcpid learns of cgroups from perf
 * records, possibly after the process is gone), so the path is read here,
 * following systemd's own cg_path_get_unit (skip the slices, the next
 * component is the unit) and the names that container runtimes give their
 * cgroups under the systemd and cgroupfs drivers.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/file.h>
#include <dcpi/label.h>

#include "cgroup.h"
#include "util.h"

#define ELLIPSIS	"\xe2\x80\xa6"	/* U+2026, in UTF-8 */
#define ID_SHOWN	12		/* container id digits in a label, as docker ps */
#define ID_FULL		64		/* hex digits of a container id */

static int
has_suffix(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n > k && memcmp(s + n - k, suf, k) == 0;
}

static int
has_prefix(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(s, pre, k) == 0;
}

static int
is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\0' || strchr("0123456789abcdefABCDEF", s[i]) == NULL)
			return 0;
	return 1;
}

/* Whether s[0..n) is a name systemd accepts for a unit of one of the kinds
 * a cgroup can be (unit_name_is_valid's characters: a slice, service,
 * scope, ...); a component with other characters is no unit of systemd's,
 * whatever its suffix.  ASCII classes, not ctype's, whatever the locale. */
static int
is_unit(const char *s, size_t n, int slice)
{
	static const char *const kinds[] = { ".service", ".scope", ".socket",
	    ".mount", ".swap", ".target", ".device", ".automount", ".path",
	    ".timer" };
	size_t i;
	int ok = 0;

	if (slice)
		ok = has_suffix(s, n, ".slice");
	else
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !ok; i++)
			ok = has_suffix(s, n, kinds[i]);
	if (!ok || n > NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == '\0' || strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@", s[i]) == NULL)
			return 0;
	return 1;
}

/* The next non-empty component of *p: 1 with s[0..n), 0 at the end. */
static int
next_comp(const char **p, const char **s, size_t *n)
{
	while (**p == '/')
		(*p)++;
	if (**p == '\0')
		return 0;
	*s = *p;
	*n = strcspn(*p, "/");
	*p += *n;
	return 1;
}

static int
put(char *out, size_t outlen, const char *a, size_t an, const char *b, size_t bn)
{
	if (an + bn >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, a, an);
	memcpy(out + an, b, bn);
	out[an + bn] = '\0';
	return 1;
}

/* Bytes c takes in a label's directory name (lib/label.c: '/' and '%' are
 * written as three; a leading '.' never occurs where this is used). */
static size_t
esc_len(char c)
{
	return c == '/' || c == '%' ? 3 : 1;
}

static size_t
esc_len_str(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += esc_len(s[i]);
	return k;
}

/*
 * head, then "…HASH" (FNV-1a of body), then sep unless the tail starts
 * with it, then the longest tail of body[0..n) that keeps the directory
 * name within NAME_MAX: from a sep if one fits, else from a character's
 * first byte.
 */
static int
shorten(const char *head, const char *body, size_t n, char sep, char *out,
    size_t outlen)
{
	char hash[17], pre[NAME_MAX + 1];
	size_t budget, cost = 0, i, at_sep = n, at_char = n;
	uint64_t h = fnv1a64(FNV1A64_INIT, body, n);
	int len;

	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)h);
	budget = NAME_MAX - esc_len_str(head, strlen(head)) -
	    (sizeof(ELLIPSIS) - 1) - 16;
	for (i = n; i > 0; i--) {
		cost += esc_len(body[i - 1]);
		if (cost > budget)
			break;
		if (body[i - 1] == sep)
			at_sep = i - 1;
		/* Cut within a component: sep goes before the tail. */
		if (((unsigned char)body[i - 1] & 0xc0) != 0x80 &&
		    cost + esc_len(sep) <= budget)
			at_char = i - 1;
	}
	i = at_sep < n ? at_sep : at_char;
	len = snprintf(pre, sizeof(pre), "%s" ELLIPSIS "%s%s", head, hash,
	    i < n && body[i] == sep ? "" : (char[]){ sep, '\0' });
	return put(out, outlen, pre, (size_t)len, body + i, n - i);
}

/* label[0..n) as it is when its directory name fits NAME_MAX (0 when it
 * does not). */
static int
fits(const char *label, size_t n)
{
	char dir[NAME_MAX + 1];
	char buf[NAME_MAX + 1];

	if (n > NAME_MAX)
		return 0;
	memcpy(buf, label, n);
	buf[n] = '\0';
	return dcpi_label_dirname(buf, dir, sizeof(dir)) == 0;
}

/* The path label of the normalised path p[0..n) ("/a/b"). */
static int
path_label(const char *p, size_t n, char *out, size_t outlen)
{
	if (fits(p, n))
		return put(out, outlen, p, n, "", 0);
	return shorten("/", p, n, '/', out, outlen);
}

/* "machine:" and the machine's name s[0..n), its \xNN escapes decoded
 * unless one is a control character. */
static int
machine_label(const char *s, size_t n, char *out, size_t outlen)
{
	char name[NAME_MAX + 1], lab[NAME_MAX + 1];
	size_t i, k = 0;
	unsigned v;
	int raw = n > NAME_MAX;

	for (i = 0; i < n && !raw; i++) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    is_hex(s + i + 2, 2)) {
			sscanf(s + i + 2, "%2x", &v);
			if (v < 0x20 || v == 0x7f)
				raw = 1;
			name[k++] = (char)v;
			i += 3;
		} else
			name[k++] = s[i];
	}
	if (!raw) {
		s = name;
		n = k;
	}
	if (n + 8 <= NAME_MAX) {
		memcpy(lab, "machine:", 8);
		memcpy(lab + 8, s, n);
		if (fits(lab, n + 8))
			return put(out, outlen, lab, n + 8, "", 0);
	}
	return shorten("machine:", s, n, '-', out, outlen);
}

/*
 * The container or machine that component s[0..n) is, with its parent
 * component par[0..parn) (parn 0 at the top) and kube set below a
 * "kubepods" or "kubepods.slice": 1 and its label in out, 0 if none.
 */
static int
container_label(const char *s, size_t n, const char *par, size_t parn, int kube,
    char *out, size_t outlen)
{
	static const struct {
		const char	*prefix, *runtime;
	} rt[] = {
		{ "docker-", "docker:" },
		{ "libpod-", "podman:" },
		{ "cri-containerd-", "containerd:" },
		{ "crio-", "crio:" },
	};
	size_t i, k, bn = n;

	if (has_prefix(s, n, "machine-") && has_suffix(s, n, ".scope") &&
	    n > strlen("machine-.scope"))
		return machine_label(s + 8, n - 8 - 6, out, outlen);
	if (has_prefix(s, n, "systemd-nspawn@") && has_suffix(s, n, ".service") &&
	    n > strlen("systemd-nspawn@.service"))
		return machine_label(s + 15, n - 15 - 8, out, outlen);
	if (has_suffix(s, n, ".scope"))
		bn -= 6;
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		k = strlen(rt[i].prefix);
		/* The conmon monitors ("libpod-conmon-ID") fail the hex test. */
		if (has_prefix(s, bn, rt[i].prefix) && bn - k >= ID_SHOWN &&
		    bn - k <= ID_FULL && is_hex(s + k, bn - k))
			return put(out, outlen, rt[i].runtime, strlen(rt[i].runtime),
			    s + k, ID_SHOWN);
	}
	/* cgroupfs drivers: the bare id below "docker" or a kubernetes pod. */
	if (n == ID_FULL && is_hex(s, n)) {
		if (parn == 6 && memcmp(par, "docker", 6) == 0)
			return put(out, outlen, "docker:", 7, s, ID_SHOWN);
		if (kube && has_prefix(par, parn, "pod"))
			return put(out, outlen, "container:", 10, s, ID_SHOWN);
	}
	return 0;
}

/* The label by the unit rules of the normalised path p ("/a/b"): 1, or 0
 * when the path is the label. */
static int
unit_label(const char *p, char *out, size_t outlen)
{
	const char *q, *s, *par = NULL;
	size_t n, parn = 0;
	int kube = 0, rc;

	for (q = p; next_comp(&q, &s, &n); par = s, parn = n) {
		if ((rc = container_label(s, n, par, parn, kube, out, outlen)) != 0)
			return rc;
		if ((n == 8 && memcmp(s, "kubepods", 8) == 0) ||
		    (n == 14 && memcmp(s, "kubepods.slice", 14) == 0))
			kube = 1;
	}
	for (q = p; next_comp(&q, &s, &n); )
		if (!is_unit(s, n, 1))
			return is_unit(s, n, 0) && fits(s, n) ?
			    put(out, outlen, s, n, "", 0) : 0;
	return 0;
}

int
cgroup_label(const char *path, enum cgroup_label_by by, char *out, size_t outlen)
{
	const char *p, *s;
	char *norm;
	size_t n, len = 0;
	int rc = 0, e;

	if (outlen > 0)
		out[0] = '\0';
	if ((path[0] != '/' && path[0] != '\0') || strchr(path, '\n') != NULL ||
	    (by != CGROUP_LABEL_NONE && by != CGROUP_LABEL_UNIT &&
	    by != CGROUP_LABEL_CGROUP)) {
		errno = EINVAL;
		return -1;
	}
	if (by == CGROUP_LABEL_NONE)
		return 0;
	/* The path without empty components (a trailing or doubled '/'). */
	if ((norm = malloc(strlen(path) + 1)) == NULL)
		return -1;
	for (p = path; next_comp(&p, &s, &n); len += n) {
		norm[len++] = '/';
		memcpy(norm + len, s, n);
	}
	norm[len] = '\0';
	if (len > 0 && by == CGROUP_LABEL_UNIT)
		rc = unit_label(norm, out, outlen);
	if (len > 0 && rc == 0)
		rc = path_label(norm, len, out, outlen);
	e = errno;
	free(norm);
	errno = e;
	return rc;
}

/* The next line of text[0..len) from *pos: s[0..n) without its newline;
 * 0 at the end.  A last line without a newline counts. */
static int
next_line(const char *text, size_t len, size_t *pos, const char **s, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	*s = text + *pos;
	nl = memchr(*s, '\n', len - *pos);
	*n = nl != NULL ? (size_t)(nl - *s) : len - *pos;
	*pos += *n + 1;
	return 1;
}

int
cgroup_parse_proc(const char *text, size_t len, char *out, size_t outlen)
{
	const char *s, *c1, *c2, *v2 = NULL, *v1 = NULL, *ctl;
	size_t pos = 0, n, v2n = 0, v1n = 0, ctln, k;

	if (memchr(text, '\0', len) != NULL) {
		errno = EINVAL;
		return -1;
	}
	/* Every line is checked: a text that is wrong anywhere is not the
	 * kernel's, and its one good-looking line is not to be trusted. */
	while (next_line(text, len, &pos, &s, &n)) {
		c1 = memchr(s, ':', n);
		c2 = c1 != NULL ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s)) : NULL;
		if (c1 == NULL || c2 == NULL || c1 == s ||
		    strspn(s, "0123456789") != (size_t)(c1 - s) ||
		    c2 + 1 == s + n || c2[1] != '/') {
			errno = EINVAL;
			return -1;
		}
		ctl = c1 + 1;
		ctln = (size_t)(c2 - ctl);
		if (v2 == NULL && c1 - s == 1 && s[0] == '0' && ctln == 0) {
			v2 = c2 + 1;
			v2n = n - (size_t)(v2 - s);
		}
		/* name=systemd among the controllers ("1:name=systemd:/..."). */
		for (k = 0; v1 == NULL && k < ctln; k += strcspn(ctl + k, ",:") + 1)
			if (ctln - k >= 12 && memcmp(ctl + k, "name=systemd", 12) == 0 &&
			    (ctln - k == 12 || ctl[k + 12] == ',')) {
				v1 = c2 + 1;
				v1n = n - (size_t)(v1 - s);
			}
	}
	if (v2 == NULL) {
		v2 = v1;
		v2n = v1n;
	}
	if (v2 == NULL)
		return 0;
	return put(out, outlen, v2, v2n, "", 0);
}

/* The /proc file at path read and given to parse. */
static int
read_parse(const char *path, int (*parse)(const char *, size_t, char *, size_t),
    char *out, size_t outlen)
{
	void *buf;
	size_t len;
	int rc, e;

	if (dcpi_read_file(path, &buf, &len, NULL) == -1)
		return -1;
	rc = parse(buf, len, out, outlen);
	e = errno;
	free(buf);
	errno = e;
	return rc;
}

int
cgroup_read_pid(uint32_t pid, char *out, size_t outlen)
{
	char path[64];
	int rc;

	snprintf(path, sizeof(path), "/proc/%lu/cgroup", (unsigned long)pid);
	/* ESRCH: the process exited between the open and the read. */
	if ((rc = read_parse(path, cgroup_parse_proc, out, outlen)) == -1 &&
	    errno == ESRCH)
		errno = ENOENT;
	return rc;
}

/* mountinfo's escapes (the kernel's mangle(): space, tab, newline and
 * backslash as \ and three octal digits) of s[0..n) decoded into out;
 * -1/EINVAL for a bad one or one for NUL, ENAMETOOLONG. */
static int
unescape_octal(const char *s, size_t n, char *out, size_t outlen)
{
	size_t i, k = 0;
	unsigned v;

	for (i = 0; i < n; i++, k++) {
		if (k + 1 >= outlen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (s[i] != '\\') {
			out[k] = s[i];
			continue;
		}
		if (n - i < 4 || strspn(s + i + 1, "01234567") < 3) {
			errno = EINVAL;
			return -1;
		}
		v = (unsigned)(s[i + 1] - '0') * 64 + (unsigned)(s[i + 2] - '0') * 8 +
		    (unsigned)(s[i + 3] - '0');
		if (v == 0 || v > 0377) {
			errno = EINVAL;
			return -1;
		}
		out[k] = (char)v;
		i += 3;
	}
	if (outlen == 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[k] = '\0';
	return 1;
}

#define MI_FIELDS	6	/* before the optional fields and "-" */

int
cgroup_parse_mountinfo(const char *text, size_t len, char *out, size_t outlen)
{
	const char *s, *f[MI_FIELDS + 1], *e, *q;
	size_t pos = 0, n, fn[MI_FIELDS + 1], nf, after;
	int dash;

	while (next_line(text, len, &pos, &s, &n)) {
		if (memchr(s, '\0', n) != NULL) {
			errno = EINVAL;
			return -1;
		}
		/* Fields split at single spaces (the kernel escapes the
		 * spaces in names): six, optional ones, "-", then the file
		 * system type and at least two more. */
		nf = 0;
		dash = 0;
		after = 0;
		for (q = s, e = s + n; q <= e; ) {
			const char *sp = memchr(q, ' ', (size_t)(e - q));
			size_t l = sp != NULL ? (size_t)(sp - q) : (size_t)(e - q);

			if (l == 0)
				break;
			if (dash)
				after++;
			if (dash && after == 1) {
				f[MI_FIELDS] = q;
				fn[MI_FIELDS] = l;
			} else if (!dash && nf < MI_FIELDS) {
				f[nf] = q;
				fn[nf] = l;
			}
			if (!dash && nf >= MI_FIELDS && l == 1 && *q == '-')
				dash = 1;
			else if (!dash)
				nf++;
			q += l + 1;
		}
		if (q <= e || !dash || nf < MI_FIELDS || after < 3 || f[4][0] != '/') {
			errno = EINVAL;
			return -1;
		}
		if (fn[MI_FIELDS] == 7 && memcmp(f[MI_FIELDS], "cgroup2", 7) == 0)
			return unescape_octal(f[4], fn[4], out, outlen);
	}
	return 0;
}

int
cgroup_mount(char *out, size_t outlen)
{
	return read_parse("/proc/self/mountinfo", cgroup_parse_mountinfo, out, outlen);
}

struct walk {
	void		(*cb)(uint64_t, const char *, void *);
	void		*arg;
	size_t		 max, seen;
	char		 path[PATH_MAX];
};

/* The id perf gives the cgroup open as fd: its kernfs node id, which the
 * kernel's file handle for it holds (perf's read_cgroup_id); the inode
 * number is the same id on 64-bit kernels since 5.5. */
static uint64_t
cgroup_id(int fd, const struct stat *st)
{
	union {
		struct file_handle fh;
		char	buf[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h;
	uint64_t id;
	int mount_id;

	h.fh.handle_bytes = sizeof(id);
	h.fh.handle_type = 0;
	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) == 0 &&
	    h.fh.handle_bytes == sizeof(id)) {
		memcpy(&id, h.fh.f_handle, sizeof(id));
		return id;
	}
	return (uint64_t)st->st_ino;
}

int
cgroup_path_id(const char *path, uint64_t *id)
{
	struct stat st;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	*id = cgroup_id(fd, &st);
	close(fd);
	return 0;
}

/* The cgroup open as fd (closed here), path[0..plen) ("" for the root),
 * depth levels below the mount, then its children.  0, 1 (at max), -1. */
static int
visit(struct walk *w, int fd, size_t plen, int depth)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	size_t nlen;
	int cfd, rc = 0, e;

	if (w->seen == w->max) {
		close(fd);
		return 1;
	}
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	w->seen++;
	w->cb(cgroup_id(fd, &st), plen > 0 ? w->path : "/", w->arg);
	if (depth >= CGROUP_WALK_DEPTH) {
		close(fd);
		return 0;
	}
	if ((d = fdopendir(fd)) == NULL) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		nlen = strlen(de->d_name);
		if (plen + 1 + nlen >= sizeof(w->path))
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (cfd == -1) {
			/* Gone, not ours, a link, or a file (DT_UNKNOWN). */
			if (errno == ENOENT || errno == EACCES || errno == EPERM ||
			    errno == ELOOP || errno == ENOTDIR)
				continue;
			rc = -1;
			break;
		}
		w->path[plen] = '/';
		memcpy(w->path + plen + 1, de->d_name, nlen + 1);
		rc = visit(w, cfd, plen + 1 + nlen, depth + 1);
		w->path[plen] = '\0';
	}
	e = errno;
	closedir(d);
	errno = e;
	return rc;
}

int
cgroup_walk(const char *mount, size_t max,
    void (*cb)(uint64_t id, const char *path, void *arg), void *arg)
{
	struct walk *w;
	int fd, rc, e;

	if ((fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if ((w = malloc(sizeof(*w))) == NULL) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	w->cb = cb;
	w->arg = arg;
	w->max = max;
	w->seen = 0;
	w->path[0] = '\0';
	rc = visit(w, fd, 0, 0);
	e = errno;
	free(w);
	errno = e;
	return rc;
}
