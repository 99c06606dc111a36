/*
 * The stack file as dcpid's flush reads and writes it:
 * dcpi_stackfile_readat maps the old file, dcpi_stackfile_writeat streams
 * the new one into its temporary file.  Besides their behaviour (the same
 * bytes as dcpi_stackfile_encode, links and special files refused, a
 * corrupt file named), test_peak checks that a flush's memory is about
 * the merged tables alone: a merge that holds the old file's bytes or the
 * encoded output beside the tables again (each as large as the file) fails
 * it.  Memory is VmRSS and VmHWM of a child process, not time.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <dcpi/file.h>
#include <dcpi/stackfile.h>

#include "proc_status.h"

#define EPOCH	"20261123173848"
#define HOST	"vm"
#define EVENT	"perf::cpu-clock"

static char dir[64];
static int dfd = -1;

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dcpi-stkflush.XXXXXX");
	if (mkdtemp(dir) == NULL || (dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* n stacks of depth depth over 4,096 frames of two images, seeded seed:
 * distinct stacks (stack i's frames spell i), and enough of them to make
 * a file of tens of MB, as a busy hour's. */
static struct dcpi_stackfile *
make(size_t n, uint32_t depth, uint32_t seed)
{
	struct dcpi_stack_addframe f[64];
	struct dcpi_stackfile *sf;
	struct dcpi_error err;
	uint64_t x;
	size_t i;
	uint32_t k;

	assert_true(depth <= 64);
	assert_non_null(sf = dcpi_stackfile_new(EPOCH, HOST));
	for (i = 0; i < n; i++) {
		x = (uint64_t)i * 0x9e3779b97f4a7c15ULL + seed;
		for (k = 0; k < depth; k++) {
			f[k].id = k & 1 ? "e4f18d9dc1d0e6fc" : "93ac61ec5a8eb139";
			f[k].tstart = 0x1000;
			f[k].tsize = 1 << 20;
			f[k].path = k & 1 ? "/usr/lib/b.so" : "/usr/lib/a.so";
			/* The first frames spell i: stacks are distinct. */
			f[k].offset = k < 3 ? (uint32_t)(i >> (k * 8) & 0xff) << 4 :
			    (uint32_t)((x >> (k % 8 * 8)) & 0xff) << 4;
		}
		assert_int_equal(dcpi_stackfile_add(sf, EVENT, i % 3 ? NULL : "postgres",
		    f, depth, i + 1, &err), 0);
	}
	return sf;
}

static void *
slurp(const char *name, size_t *len)
{
	char path[128];
	struct stat st;
	void *buf;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "rb"));
	assert_int_equal(fstat(fileno(fp), &st), 0);
	*len = (size_t)st.st_size;
	assert_non_null(buf = malloc(*len + 1));
	assert_int_equal(fread(buf, 1, *len, fp), *len);
	fclose(fp);
	return buf;
}

/* DIR/stacks holds what dcpi_stackfile_encode makes of sf. */
static void
assert_file_is(const struct dcpi_stackfile *sf)
{
	struct dcpi_error err;
	void *enc, *got;
	size_t elen, glen;

	assert_int_equal(dcpi_stackfile_encode(sf, &enc, &elen, &err), 0);
	got = slurp("stacks", &glen);
	assert_int_equal(glen, elen);
	assert_memory_equal(got, enc, elen);
	free(got);
	free(enc);
}

/* writeat writes encode's bytes; readat reads them back; a flush (readat,
 * merge, writeat) gives what merge and encode give in memory. */
static void
test_roundtrip(void **state)
{
	struct dcpi_stackfile *a = make(2000, 12, 1), *b = make(500, 12, 2), *r;
	struct dcpi_error err;

	(void)state;
	assert_int_equal(dcpi_stackfile_writeat(dfd, "stacks", NULL, a, 0640, &err), 0);
	assert_file_is(a);

	assert_int_equal(dcpi_stackfile_readat(dfd, "stacks", NULL, &r, &err), 0);
	assert_int_equal(dcpi_stackfile_merge(r, b, &err), 0);
	assert_int_equal(dcpi_stackfile_writeat(dfd, "stacks", NULL, r, 0640, &err), 0);
	dcpi_stackfile_free(r);
	assert_int_equal(dcpi_stackfile_merge(a, b, &err), 0);
	assert_file_is(a);

	/* The flush's own writer (the directory's fsync left to it) writes
	 * the same bytes; an unknown flag leaves the file as it was. */
	assert_int_equal(dcpi_stackfile_writeat_flags(dfd, "stacks", NULL, b, 0640,
	    DCPI_ATOMIC_NO_DIRSYNC, &err), 0);
	assert_file_is(b);
	errno = 0;
	assert_int_equal(dcpi_stackfile_writeat_flags(dfd, "stacks", NULL, a, 0640,
	    0x100, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "stacks"));
	assert_file_is(b);
	dcpi_stackfile_free(a);
	dcpi_stackfile_free(b);
}

/* None, a link, a FIFO, an empty file, a torn file: each an error that
 * names the file, never a crash or a hang. */
static void
test_refused(void **state)
{
	struct dcpi_stackfile *sf = make(100, 8, 3), *r = NULL;
	struct dcpi_error err;
	void *buf;
	size_t len;
	int fd;

	(void)state;
	errno = 0;
	assert_int_equal(dcpi_stackfile_readat(dfd, "none", "DB/none", &r, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(r);
	assert_non_null(strstr(err.msg, "DB/none"));

	assert_int_equal(symlinkat("/etc/passwd", dfd, "link"), 0);
	assert_int_equal(dcpi_stackfile_readat(dfd, "link", NULL, &r, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(mkfifoat(dfd, "fifo", 0600), 0);
	assert_int_equal(dcpi_stackfile_readat(dfd, "fifo", NULL, &r, &err), -1);
	assert_int_equal(errno, EINVAL);

	assert_int_equal((fd = openat(dfd, "empty", O_WRONLY | O_CREAT, 0600)) >= 0, 1);
	close(fd);
	assert_int_equal(dcpi_stackfile_readat(dfd, "empty", NULL, &r, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "empty: line 1"));

	/* Torn: the footer cut off. */
	assert_int_equal(dcpi_stackfile_encode(sf, &buf, &len, &err), 0);
	assert_int_equal((fd = openat(dfd, "torn", O_WRONLY | O_CREAT, 0600)) >= 0, 1);
	assert_int_equal(write(fd, buf, len - 5), (ssize_t)(len - 5));
	close(fd);
	free(buf);
	assert_int_equal(dcpi_stackfile_readat(dfd, "torn", NULL, &r, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "torn: byte "));
	assert_null(r);

	/* A name with a '/' is refused and nothing is written. */
	assert_int_equal(dcpi_stackfile_writeat(dfd, "a/b", NULL, sf, 0640, &err), -1);
	assert_int_equal(errno, EINVAL);
	dcpi_stackfile_free(sf);
}

/* The flush of daemon/flush.c (write_stacks) in a child: RSS before,
 * after reading the old file (its tables), and the peak.  The old file's
 * bytes (a heap copy, or mapped pages kept) or the encoded output held
 * beside the tables would each add the file's size to the peak. */
static void
test_peak(void **state)
{
	struct dcpi_stackfile *sf, *r;
	struct dcpi_error err;
	struct stat st;
	long rss0, rss1, hwm, file_kb, tables_kb, over_kb;
	int status, fds[2];
	long v[3];
	pid_t pid;

	(void)state;
	/* The old file, written in a child so that the measuring child
	 * starts small: 300,000 stacks of depth 20, about 30 MB. */
	if ((pid = fork()) == 0) {
		sf = make(300000, 20, 4);
		_exit(dcpi_stackfile_writeat(dfd, "stacks", NULL, sf, 0640, &err) == 0 ?
		    0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(fstatat(dfd, "stacks", &st, 0), 0);
	file_kb = (long)(st.st_size / 1024);

	assert_int_equal(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		/* The daemon's new stacks: a few, some already in the file. */
		sf = make(1000, 20, 4);
		v[0] = status_kb("VmRSS:");
		if (dcpi_stackfile_readat(dfd, "stacks", NULL, &r, &err) == -1)
			_exit(2);
		v[1] = status_kb("VmRSS:");
		if (dcpi_stackfile_merge(r, sf, &err) == -1 ||
		    dcpi_stackfile_writeat(dfd, "stacks", NULL, r, 0640, &err) == -1)
			_exit(3);
		v[2] = status_kb("VmHWM:");
		_exit(write(fds[1], v, sizeof(v)) == (ssize_t)sizeof(v) ? 0 : 4);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], v, sizeof(v)), (ssize_t)sizeof(v));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rss0 = v[0];
	rss1 = v[1];
	hwm = v[2];
	assert_true(rss0 > 0 && rss1 > 0 && hwm > 0);
	tables_kb = rss1 - rss0;
	over_kb = hwm - rss1;
	print_message("stack file %ld kB; tables %ld kB; peak %ld kB above them "
	    "(RSS %ld before)\n", file_kb, tables_kb, over_kb, rss0);
	assert_true(file_kb > 20 * 1024);
	/* The peak may pass the tables by the mapped pages not yet given
	 * back (8 MB at most) and the merge's growth, never by half the
	 * file: a second copy of it would add all of it. */
	assert_true(over_kb < file_kb / 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_peak),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
