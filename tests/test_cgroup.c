/*
 * Cgroups (daemon/cgroup.c): labels of real-world cgroup paths, the
 * /proc/PID/cgroup and mountinfo texts of real systems, and the walk of
 * this machine's cgroup2 hierarchy with cgroups of the test's own.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcpi/label.h>

#include "cgroup.h"

#define ID64	"3f2a9c1b7d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
#define ID12	"3f2a9c1b7d4e"
#define POD	"pod1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"
#define PODS	"pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d"

/* What every label must be: usable as a label, and as a directory. */
static void
assert_usable(const char *label)
{
	char dir[NAME_MAX + 1];

	assert_true(label[0] != '\0' && label[0] != ' ' && label[0] != '\t' &&
	    label[0] != '[');
	assert_null(strchr(label, '\n'));
	assert_int_equal(dcpi_label_dirname(label, dir, sizeof(dir)), 0);
}

static const struct {
	const char	*path, *unit;	/* unit NULL: the path's own label */
} cases[] = {
	/* systemd: system and user services, sessions, init. */
	{ "/system.slice/nginx.service", "nginx.service" },
	{ "/system.slice/system-getty.slice/getty@tty1.service", "getty@tty1.service" },
	{ "/system.slice/dev-disk-by\\x2duuid-1234.swap", "dev-disk-by\\x2duuid-1234.swap" },
	{ "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service",
	    "user@1000.service" },
	{ "/user.slice/user-1000.slice/user@1000.service/init.scope", "user@1000.service" },
	{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope" },
	{ "/init.scope", "init.scope" },
	{ "/system.slice/nginx.service/", "nginx.service" },
	{ "//system.slice//cron.service", "cron.service" },
	/* Docker: systemd and cgroupfs drivers. */
	{ "/system.slice/docker-" ID64 ".scope", "docker:" ID12 },
	{ "/docker/" ID64, "docker:" ID12 },
	{ "/docker/" ID64 "/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	    "docker:" ID12 },
	/* Podman, rootful and rootless; its monitor is a unit. */
	{ "/machine.slice/libpod-" ID64 ".scope", "podman:" ID12 },
	{ "/machine.slice/libpod-" ID64 ".scope/container", "podman:" ID12 },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID64 ".scope",
	    "podman:" ID12 },
	{ "/machine.slice/libpod-conmon-" ID64 ".scope", "libpod-conmon-" ID64 ".scope" },
	/* Kubernetes: containerd and CRI-O, systemd and cgroupfs drivers. */
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-" PODS ".slice/"
	    "cri-containerd-" ID64 ".scope", "containerd:" ID12 },
	{ "/kubepods.slice/kubepods-" PODS ".slice/crio-" ID64 ".scope", "crio:" ID12 },
	{ "/kubepods.slice/kubepods-" PODS ".slice/crio-conmon-" ID64 ".scope",
	    "crio-conmon-" ID64 ".scope" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-" PODS ".slice/"
	    "docker-" ID64 ".scope", "docker:" ID12 },
	{ "/kubepods/burstable/" POD "/" ID64, "container:" ID12 },
	{ "/kubepods/" POD "/" ID64, "container:" ID12 },
	{ "/kubepods/besteffort/" POD "/crio-" ID64, "crio:" ID12 },
	{ "/kubepods/burstable/" POD, NULL },
	/* Machines: machined scopes and nspawn services, names unescaped. */
	{ "/machine.slice/machine-qemu\\x2d1\\x2ddebian.scope", "machine:qemu-1-debian" },
	{ "/machine.slice/machine-qemu\\x2d1\\x2ddebian.scope/libvirt/emulator",
	    "machine:qemu-1-debian" },
	{ "/machine.slice/systemd-nspawn@deb\\x2dbox.service/payload/system.slice/a.service",
	    "machine:deb-box" },
	{ "/machine.slice/machine-bad\\x0aname.scope", "machine:bad\\x0aname" },
	{ "/machine.slice/machine-50\\x25.scope", "machine:50%" },
	/* Not systemd's: the path. */
	{ "/dcpitest-a", NULL },
	{ "/dcpitest-a/sub", NULL },
	{ "/system.slice", NULL },
	{ "/user.slice/user-1000.slice", NULL },
	{ "/system.slice/foo/bar.service", NULL },
	{ "/a b.service", NULL },
	{ "/.hidden/[x]", NULL },
	{ "/process_api/e2419e5f89b2e9f288b904bf1fe71973", NULL },
	{ "/docker/notanid", NULL },
	{ "/" ID64, NULL },
};

static void
test_label_table(void **state)
{
	char out[CGROUP_LABEL_MAX], norm[PATH_MAX];
	const char *p;
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* The path label: the path without empty components. */
		for (p = cases[i].path, k = 0; *p; p++)
			if (*p != '/' || (p[1] != '/' && p[1] != '\0'))
				norm[k++] = *p;
		norm[k] = '\0';
		print_message("%s\n", cases[i].path);
		assert_int_equal(cgroup_label(cases[i].path, CGROUP_LABEL_UNIT, out,
		    sizeof(out)), 1);
		assert_string_equal(out, cases[i].unit != NULL ? cases[i].unit : norm);
		assert_usable(out);
		assert_int_equal(cgroup_label(cases[i].path, CGROUP_LABEL_CGROUP, out,
		    sizeof(out)), 1);
		assert_string_equal(out, norm);
		assert_usable(out);
		assert_int_equal(cgroup_label(cases[i].path, CGROUP_LABEL_NONE, out,
		    sizeof(out)), 0);
		assert_string_equal(out, "");
	}
}

static void
test_label_none(void **state)
{
	static const char *const roots[] = { "/", "", "//", "///" };
	enum cgroup_label_by by;
	char out[CGROUP_LABEL_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		for (by = CGROUP_LABEL_NONE; by <= CGROUP_LABEL_CGROUP; by++) {
			strcpy(out, "x");
			assert_int_equal(cgroup_label(roots[i], by, out, sizeof(out)), 0);
			assert_string_equal(out, "");
		}
	errno = 0;
	assert_int_equal(cgroup_label("system.slice/a.service", CGROUP_LABEL_UNIT,
	    out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(cgroup_label("/a\nb", CGROUP_LABEL_CGROUP, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(cgroup_label("/a", (enum cgroup_label_by)7, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	/* Too small a buffer. */
	errno = 0;
	assert_int_equal(cgroup_label("/system.slice/nginx.service", CGROUP_LABEL_UNIT,
	    out, 13), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(cgroup_label("/system.slice/nginx.service", CGROUP_LABEL_UNIT,
	    out, 14), 1);
	assert_string_equal(out, "nginx.service");
}

/* The unit label of head, 250 bytes of name and suffix starts with want. */
static void
long_name(const char *head, const char *suffix, const char *want)
{
	char a[512], la[CGROUP_LABEL_MAX];
	size_t n = strlen(head);

	memcpy(a, head, n);
	memset(a + n, 'n', 250);
	strcpy(a + n + 250, suffix);
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_UNIT, la, sizeof(la)), 1);
	assert_usable(la);
	assert_memory_equal(la, want, strlen(want));
}

/* Long paths: shortened to "/…HASH/TAIL", the tail the path's end, and
 * two paths that differ only at the start stay apart. */
static void
test_label_long(void **state)
{
	char a[PATH_MAX], b[PATH_MAX], la[CGROUP_LABEL_MAX], lb[CGROUP_LABEL_MAX];
	char dir[NAME_MAX + 1];
	size_t i, n;
	const char *tail;

	(void)state;
	/* 40 components of 30 bytes: 1240 bytes. */
	for (i = 0, n = 0; i < 40; i++)
		n += (size_t)snprintf(a + n, sizeof(a) - n, "/level%02zu-aaaaaaaaaaaaaaaaaaaaaa", i);
	memcpy(b, a, n + 1);
	b[1] = 'L';
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_CGROUP, la, sizeof(la)), 1);
	assert_int_equal(cgroup_label(b, CGROUP_LABEL_UNIT, lb, sizeof(lb)), 1);
	print_message("%s\n", la);
	assert_usable(la);
	assert_usable(lb);
	assert_string_not_equal(la, lb);
	assert_memory_equal(la, "/\xe2\x80\xa6", 4);
	/* The tail: whole components, the last of the path. */
	tail = la + 4 + 16;
	assert_int_equal(tail[0], '/');
	assert_string_equal(a + n - strlen(tail), tail);
	assert_string_equal(lb + 4 + 16, tail);
	/* As long as it can be, a component less would not fit: its
	 * directory name has less than a component's 32 bytes spare. */
	assert_int_equal(dcpi_label_dirname(la, dir, sizeof(dir)), 0);
	assert_true(strlen(dir) > NAME_MAX - 32);
	/* Deterministic. */
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_UNIT, lb, sizeof(lb)), 1);
	assert_string_equal(la, lb);

	/* One component of 255 bytes: cut within it, after a '/'. */
	a[0] = '/';
	memset(a + 1, 'c', 255);
	a[256] = '\0';
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_CGROUP, la, sizeof(la)), 1);
	assert_usable(la);
	assert_int_equal(la[4 + 16], '/');
	assert_int_equal(strspn(la + 4 + 17, "c"), strlen(la + 4 + 17));
	/* Of two-byte characters: cut at a character's first byte. */
	for (i = 0; i < 127; i++)
		memcpy(a + 1 + 2 * i, "\xc3\xa9", 2);
	a[255] = '\0';
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_CGROUP, la, sizeof(la)), 1);
	assert_usable(la);
	assert_memory_equal(la + 4 + 17, "\xc3\xa9", 2);
	/* '%' and '/' take three bytes in the directory name. */
	a[0] = '/';
	for (i = 1; i < 200; i++)
		a[i] = i % 2 ? '%' : '/';
	a[200] = '\0';
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_CGROUP, la, sizeof(la)), 1);
	assert_usable(la);
	/* A unit name too long for a directory gets the path rule; a
	 * machine name is shortened, "machine:…HASH" then its tail. */
	long_name("/system.slice/", ".service", "/\xe2\x80\xa6");
	long_name("/machine.slice/machine-", ".scope", "machine:\xe2\x80\xa6");
	/* A very deep path. */
	for (i = 0, n = 0; n + 3 < sizeof(a); i++)
		n += (size_t)snprintf(a + n, sizeof(a) - n, "/x");
	assert_int_equal(cgroup_label(a, CGROUP_LABEL_UNIT, la, sizeof(la)), 1);
	assert_usable(la);
}

static int
proc(const char *text, char *out, size_t outlen)
{
	return cgroup_parse_proc(text, strlen(text), out, outlen);
}

/* Each of the texts bad[0..n) is refused by parse with EINVAL. */
static void
all_einval(int (*parse)(const char *, size_t, char *, size_t),
    const char *const *bad, size_t n)
{
	char out[PATH_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		print_message("%s\n", bad[i]);
		errno = 0;
		assert_int_equal(parse(bad[i], strlen(bad[i]), out, sizeof(out)), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static const char *const bad_proc[] = {
	"hello\n", "0:/x\n", "x::/x\n", ":name=systemd:/x\n", "0::relative\n",
	"0::\n", "0::/x\n\n", "0::/x\ngarbage",
};

static void
test_parse_proc(void **state)
{
	char out[PATH_MAX];

	(void)state;
	/* A hybrid system (this VM's, under a memory cgroup of its own). */
	assert_int_equal(proc("9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n"
	    "5:devices:/\n4:memory:/process_api/e2419e5f89b2e9f288b904bf1fe71973\n"
	    "3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n", out, sizeof(out)), 1);
	assert_string_equal(out, "/");
	assert_int_equal(proc("12:pids:/system.slice/nginx.service\n"
	    "11:cpu,cpuacct:/system.slice/nginx.service\n"
	    "1:name=systemd:/system.slice/nginx.service\n"
	    "0::/system.slice/nginx.service\n", out, sizeof(out)), 1);
	assert_string_equal(out, "/system.slice/nginx.service");
	/* Unified only; no newline at the end; ':' in the path. */
	assert_int_equal(proc("0::/user.slice/user-1000.slice/session-3.scope\n", out,
	    sizeof(out)), 1);
	assert_string_equal(out, "/user.slice/user-1000.slice/session-3.scope");
	assert_int_equal(proc("0::/a:b/c", out, sizeof(out)), 1);
	assert_string_equal(out, "/a:b/c");
	/* v1 only: the name=systemd hierarchy's. */
	assert_int_equal(proc("11:cpu,cpuacct:/system.slice/cron.service\n"
	    "10:memory:/system.slice/cron.service\n"
	    "1:name=systemd:/system.slice/cron.service\n", out, sizeof(out)), 1);
	assert_string_equal(out, "/system.slice/cron.service");
	/* The v2 line wins wherever it is. */
	assert_int_equal(proc("1:name=systemd:/v1\n0::/v2\n", out, sizeof(out)), 1);
	assert_string_equal(out, "/v2");
	/* Neither. */
	assert_int_equal(proc("4:memory:/x\n3:name=systemdx:/y\n", out, sizeof(out)), 0);
	assert_int_equal(proc("", out, sizeof(out)), 0);
	/* Garbage. */
	all_einval(cgroup_parse_proc, bad_proc, sizeof(bad_proc) / sizeof(bad_proc[0]));
	errno = 0;
	assert_int_equal(cgroup_parse_proc("0::/x\0\n", 7, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	/* Not NUL-terminated: len counts. */
	assert_int_equal(cgroup_parse_proc("0::/abc", 5, out, sizeof(out)), 1);
	assert_string_equal(out, "/a");
	errno = 0;
	assert_int_equal(proc("0::/abc\n", out, 4), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(proc("0::/abc\n", out, 5), 1);
	assert_string_equal(out, "/abc");
}

#define MI_HYBRID \
	"21 26 0:20 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n" \
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" \
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" \
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n" \
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"

static int
mi(const char *text, char *out, size_t outlen)
{
	return cgroup_parse_mountinfo(text, strlen(text), out, outlen);
}

static const char *const bad_mi[] = {
	"garbage\n",
	"30 23 0:27 / /x rw cgroup2 none rw\n",		/* no "-" */
	"30 23 0:27 / /x rw - cgroup2\n",		/* too few after it */
	"30 23 0:27 /  /x rw - cgroup2 none rw\n",	/* an empty field */
	"30 23 0:27 / x rw - cgroup2 none rw\n",	/* not absolute */
	"30 23 0:27 / /x\\04x rw - cgroup2 none rw\n",	/* bad escapes */
	"30 23 0:27 / /x\\000 rw - cgroup2 none rw\n",
	"30 23 0:27 / /x\\04",
	"\n30 23 0:27 / /x rw - cgroup2 none rw\n",	/* an empty line first */
};

static void
test_parse_mountinfo(void **state)
{
	char out[PATH_MAX], *text = NULL;
	size_t cap = 0, len = 0, r;
	struct statfs sf;
	FILE *fp;

	(void)state;
	assert_int_equal(mi(MI_HYBRID, out, sizeof(out)), 1);
	assert_string_equal(out, "/sys/fs/cgroup/unified");
	/* Unified (Debian 11 on): optional fields before the "-". */
	assert_int_equal(mi("25 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime "
	    "shared:9 master:2 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
	    out, sizeof(out)), 1);
	assert_string_equal(out, "/sys/fs/cgroup");
	/* The first cgroup2 line; no newline at the end; escapes. */
	assert_int_equal(mi("30 23 0:27 / /mnt/my\\040cg\\134x rw - cgroup2 none rw\n"
	    "31 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw", out, sizeof(out)), 1);
	assert_string_equal(out, "/mnt/my cg\\x");
	/* The type is the field after "-", not an option that says cgroup2. */
	assert_int_equal(mi("30 23 0:27 / /cgroup2 rw - tmpfs cgroup2 rw\n", out,
	    sizeof(out)), 0);
	assert_int_equal(mi("", out, sizeof(out)), 0);
	/* Malformed. */
	all_einval(cgroup_parse_mountinfo, bad_mi, sizeof(bad_mi) / sizeof(bad_mi[0]));
	errno = 0;
	assert_int_equal(cgroup_parse_mountinfo("30 23 0:27 / /\0 rw - cgroup2 none rw\n",
	    38, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(mi(MI_HYBRID, out, 22), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(mi(MI_HYBRID, out, 23), 1);

	/* This machine's: the file as cgroup_mount reads it, whose answer
	 * is a cgroup2 file system. */
	fp = fopen("/proc/self/mountinfo", "r");
	assert_non_null(fp);
	for (;;) {
		if (cap - len < 4096)
			assert_non_null(text = realloc(text, cap += 65536));
		if ((r = fread(text + len, 1, cap - len, fp)) == 0)
			break;
		len += r;
	}
	fclose(fp);
	r = (size_t)cgroup_parse_mountinfo(text, len, out, sizeof(out));
	free(text);
	if (r == 0) {
		assert_int_equal(cgroup_mount(out, sizeof(out)), 0);
		return;
	}
	assert_int_equal(r, 1);
	{
		char again[PATH_MAX];

		assert_int_equal(cgroup_mount(again, sizeof(again)), 1);
		assert_string_equal(again, out);
	}
	assert_int_equal(statfs(out, &sf), 0);
	assert_true(sf.f_type == 0x63677270);	/* CGROUP2_SUPER_MAGIC */
}

struct seen {
	char		 path[3][PATH_MAX];
	uint64_t	 id[3];
	size_t		 calls, found[3];
};

static void
collect(uint64_t id, const char *path, void *arg)
{
	struct seen *s = arg;
	size_t i;

	if (s->calls++ == 0)
		assert_string_equal(path, "/");
	assert_int_equal(path[0], '/');
	for (i = 0; i < 3; i++)
		if (strcmp(path, s->path[i]) == 0) {
			s->found[i]++;
			s->id[i] = id;
		}
}

static char mnt[PATH_MAX], top[64], sub[80], home[PATH_MAX];

static void
move_to(const char *dir)
{
	char procs[PATH_MAX + 32];
	FILE *fp;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	fp = fopen(procs, "w");
	assert_non_null(fp);
	fprintf(fp, "%ld\n", (long)getpid());
	assert_int_equal(fclose(fp), 0);
}

/* Leaves the test's cgroups, whatever became of the test. */
static int
cleanup(void **state)
{
	char dir[2 * PATH_MAX + 32];
	FILE *fp;

	(void)state;
	if (top[0] == '\0')
		return 0;
	if (home[0] != '\0') {
		snprintf(dir, sizeof(dir), "%s%s/cgroup.procs", mnt,
		    strcmp(home, "/") == 0 ? "" : home);
		if ((fp = fopen(dir, "w")) != NULL) {
			fprintf(fp, "%ld\n", (long)getpid());
			fclose(fp);
		}
	}
	snprintf(dir, sizeof(dir), "%s%s", mnt, sub);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s%s", mnt, top);
	rmdir(dir);
	top[0] = '\0';
	return 0;
}

static int
require(void)
{
	const char *r = getenv("DCPI_REQUIRE_PERF");

	return r != NULL && strcmp(r, "1") == 0;
}

static void
test_walk(void **state)
{
	char dir[2 * PATH_MAX], got[PATH_MAX], label[CGROUP_LABEL_MAX];
	struct seen s;
	struct stat st[3];
	size_t i;
	pid_t pid;
	int rc, status;

	(void)state;
	rc = cgroup_mount(mnt, sizeof(mnt));
	assert_int_not_equal(rc, -1);
	if (rc == 0) {
		print_message("no cgroup2 hierarchy mounted\n");
		assert_false(require());
		skip();
	}
	snprintf(top, sizeof(top), "/dcpitest-cgroup-%ld", (long)getpid());
	snprintf(sub, sizeof(sub), "%s/sub", top);
	snprintf(dir, sizeof(dir), "%s%s", mnt, top);
	if (mkdir(dir, 0755) == -1) {
		print_message("%s: %s\n", dir, strerror(errno));
		assert_false(require());
		top[0] = '\0';
		skip();
	}
	snprintf(dir, sizeof(dir), "%s%s", mnt, sub);
	assert_int_equal(mkdir(dir, 0755), 0);

	memset(&s, 0, sizeof(s));
	strcpy(s.path[0], "/");
	strcpy(s.path[1], top);
	strcpy(s.path[2], sub);
	assert_int_equal(cgroup_walk(mnt, SIZE_MAX, collect, &s), 0);
	assert_true(s.calls >= 3);
	for (i = 0; i < 3; i++) {
		snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(s.path[i], "/") == 0 ? "" :
		    s.path[i]);
		assert_int_equal(stat(dir, &st[i]), 0);
		assert_int_equal(s.found[i], 1);
		/* perf's cgroup id is the kernfs inode number on 64-bit. */
		if (sizeof(long) == 8)
			assert_int_equal(s.id[i], st[i].st_ino);
	}
	/* Stopped at max: the root only. */
	memset(&s.calls, 0, sizeof(s) - offsetof(struct seen, calls));
	assert_int_equal(cgroup_walk(mnt, 1, collect, &s), 1);
	assert_int_equal(s.calls, 1);
	assert_int_equal(s.found[0], 1);
	memset(&s.calls, 0, sizeof(s) - offsetof(struct seen, calls));
	assert_int_equal(cgroup_walk(mnt, 0, collect, &s), 1);
	assert_int_equal(s.calls, 0);
	/* Our own cgroup as the walk's root. */
	snprintf(dir, sizeof(dir), "%s%s", mnt, top);
	memset(&s, 0, sizeof(s));
	strcpy(s.path[0], "/");
	strcpy(s.path[1], "/sub");
	assert_int_equal(cgroup_walk(dir, SIZE_MAX, collect, &s), 0);
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.found[1], 1);
	assert_int_equal(s.id[0], st[1].st_ino);
	assert_int_equal(s.id[1], st[2].st_ino);
	errno = 0;
	assert_int_equal(cgroup_walk("/nonexistent-dcpi-cgroup", SIZE_MAX, collect, &s), -1);
	assert_int_equal(errno, ENOENT);

	/* Ourselves in the new cgroup, as /proc/self/cgroup says. */
	assert_int_equal(cgroup_read_pid((uint32_t)getpid(), home, sizeof(home)), 1);
	snprintf(dir, sizeof(dir), "%s%s", mnt, sub);
	move_to(dir);
	assert_int_equal(cgroup_read_pid((uint32_t)getpid(), got, sizeof(got)), 1);
	assert_string_equal(got, sub);
	assert_int_equal(cgroup_label(got, CGROUP_LABEL_UNIT, label, sizeof(label)), 1);
	assert_string_equal(label, sub);
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(home, "/") == 0 ? "" : home);
	move_to(dir);
	assert_int_equal(cgroup_read_pid((uint32_t)getpid(), got, sizeof(got)), 1);
	assert_string_equal(got, home);

	/* A process that is gone. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	errno = 0;
	assert_int_equal(cgroup_read_pid((uint32_t)pid, got, sizeof(got)), -1);
	assert_int_equal(errno, ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_table),
		cmocka_unit_test(test_label_none),
		cmocka_unit_test(test_label_long),
		cmocka_unit_test(test_parse_proc),
		cmocka_unit_test(test_parse_mountinfo),
		cmocka_unit_test_teardown(test_walk, cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
