/*
 * Kernel symbol snapshots kept once per kernel (lib/kallsyms.c,
 * lib/dcpi/kallsyms.h): names, the store, the reference, the reader with
 * the older per-epoch copy, and what a broken database gets told.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dcpi/kallsyms.h>
#include <dcpi/symbol.h>

#define TEXT	"ffffffff81000000 T _text\n" \
		"ffffffff81001000 T _stext\n" \
		"ffffffff81001000 T do_one\n" \
		"ffffffff81001100 t helper\n" \
		"ffffffff81002000 T _etext\n"
#define EP	"20261123150107"

static char	db[64], host[128], ks[160];
static int	dbfd = -1, hfd = -1;

static int
setup(void **state)
{
	(void)state;
	snprintf(db, sizeof(db), "/tmp/test_kallsyms.XXXXXX");
	if (mkdtemp(db) == NULL)
		return -1;
	snprintf(host, sizeof(host), "%s/" EP, db);
	if (mkdir(host, 0750) == -1)
		return -1;
	snprintf(host, sizeof(host), "%s/" EP "/h1", db);
	if (mkdir(host, 0750) == -1)
		return -1;
	snprintf(ks, sizeof(ks), "%s/kallsyms", host);
	dbfd = open(db, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	hfd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dbfd == -1 || hfd == -1 ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(dbfd);
	close(hfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", db);
	return system(cmd) == 0 ? 0 : -1;
}

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void
test_name(void **state)
{
	char a[DCPI_KALLSYMS_NAME_MAX], b[DCPI_KALLSYMS_NAME_MAX];
	char id[200];

	(void)state;
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), a), 0);
	assert_int_equal(strlen(a), 4 + 1 + 16);
	assert_memory_equal(a, "e4f1-", 5);
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), b), 0);
	assert_string_equal(a, b);
	/* A module loaded changes the text, so the name. */
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT "ffffffffc0000000 t m [mod]\n",
	    strlen(TEXT) + 28, b), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(dcpi_kallsyms_name(NULL, TEXT, strlen(TEXT), b), 0);
	assert_memory_equal(b, "0-", 2);
	/* Ids that could lead out of DB/kernels/, or are not ours. */
	errno = 0;
	assert_int_equal(dcpi_kallsyms_name("../x", TEXT, 1, b), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_kallsyms_name("E4F1", TEXT, 1, b), -1);
	assert_int_equal(dcpi_kallsyms_name("", TEXT, 1, b), -1);
	memset(id, 'a', 129);
	id[129] = '\0';
	assert_int_equal(dcpi_kallsyms_name(id, TEXT, 1, b), -1);
	id[128] = '\0';
	assert_int_equal(dcpi_kallsyms_name(id, TEXT, 1, b), 0);
	assert_int_equal(strlen(b), DCPI_KALLSYMS_NAME_MAX - 1);
}

/* BPF programs and trampolines are left out; modules stay. */
static void
test_trim(void **state)
{
	char buf[] = "ffffffff81001000 T _stext\n"
	    "ffffffffc0025e5c t bpf_prog_849d70a4331b0e57_vma_cb\t[bpf]\n"
	    "ffffffffc0000000 t nft_do\t[nf_tables]\n"
	    "ffffffffc0030000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	    "ffffffffc0040000 t bpf_prog_1\t[bpf]";
	const char want[] = "ffffffff81001000 T _stext\n"
	    "ffffffffc0000000 t nft_do\t[nf_tables]\n";
	char name1[DCPI_KALLSYMS_NAME_MAX], name2[DCPI_KALLSYMS_NAME_MAX];
	size_t len;

	(void)state;
	len = dcpi_kallsyms_trim(buf, strlen(buf));
	assert_int_equal(len, strlen(want));
	assert_memory_equal(buf, want, len);
	/* So a BPF program loaded between two epochs changes no name. */
	assert_int_equal(dcpi_kallsyms_name("e4f1", buf, len, name1), 0);
	assert_int_equal(dcpi_kallsyms_name("e4f1", want, strlen(want), name2), 0);
	assert_string_equal(name1, name2);
	assert_int_equal(dcpi_kallsyms_trim(buf, 0), 0);
}

/* Stored once, compressed, read back through the reference; stored again
 * it is not rewritten but made young (gc's grace). */
static void
test_store_and_read(void **state)
{
	char name[DCPI_KALLSYMS_NAME_MAX], path[256], *from;
	struct dcpi_error err;
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	struct stat st;
	void *buf;
	size_t len;
	char line[256];
	FILE *fp;

	(void)state;
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), name), 0);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), 0);
	snprintf(path, sizeof(path), "%s/kernels/%s.gz", db, name);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0007, 0);	/* kernel addresses */
	/* gzip, as zcat reads it. */
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(line, 1, 2, fp), 2);
	fclose(fp);
	assert_memory_equal(line, "\x1f\x8b", 2);

	assert_int_equal(dcpi_kallsyms_ref_writeat(hfd, host, name, 0640, &err), 0);
	snprintf(path, sizeof(path), "%s/" DCPI_KALLSYMS_REF, host);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	snprintf(path, sizeof(path), "kernels/%s.gz\n", name);
	assert_string_equal(line, path);
	assert_int_equal(dcpi_kallsyms_ref_readat(hfd, DCPI_KALLSYMS_REF, NULL, line, &err), 0);
	assert_string_equal(line, name);

	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, &from, &err), 0);
	assert_int_equal(len, strlen(TEXT));
	assert_string_equal(buf, TEXT);
	snprintf(path, sizeof(path), "%s/kernels/%s.gz", db, name);
	assert_string_equal(from, path);
	free(buf);
	free(from);

	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_mtime > 1000);

	/* The symbol tables read the kernel through it. */
	{
		struct dcpi_symtab_opts o = { .kallsyms = ks, .no_debuginfod = 1 };
		const struct dcpi_symbol *s;
		struct dcpi_symtab *t;

		t = dcpi_symtab_open("[kernel.kallsyms]", NULL, 0xffffffff81001000ULL, &o, &err);
		assert_non_null(t);
		s = dcpi_symtab_lookup(t, 0x104);
		assert_non_null(s);
		assert_string_equal(s->name, "helper");
		dcpi_symtab_close(t);
	}
}

/* An epoch of the older layout: its own plain copy, which wins. */
static void
test_old_layout(void **state)
{
	char name[DCPI_KALLSYMS_NAME_MAX], *from;
	struct dcpi_error err;
	void *buf;
	size_t len;

	(void)state;
	put(ks, "ffffffff81001000 T old_one\n");
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, &from, &err), 0);
	assert_string_equal(buf, "ffffffff81001000 T old_one\n");
	assert_string_equal(from, ks);
	free(buf);
	free(from);
	/* ... also with a reference beside it. */
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), name), 0);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), 0);
	assert_int_equal(dcpi_kallsyms_ref_writeat(hfd, host, name, 0640, &err), 0);
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, NULL, &err), 0);
	assert_string_equal(buf, "ffffffff81001000 T old_one\n");
	free(buf);
}

/* What a reader is told when the database is incomplete or broken. */
static void
test_errors(void **state)
{
	char name[DCPI_KALLSYMS_NAME_MAX], ref[200], snap[256], *from;
	struct dcpi_error err;
	void *buf;
	size_t len;
	FILE *fp;

	(void)state;
	snprintf(ref, sizeof(ref), "%s.ref", ks);
	/* Neither file. */
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, &from, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(buf);
	assert_null(from);
	assert_non_null(strstr(err.msg, ks));
	assert_non_null(strstr(err.msg, ref));

	/* A reference whose snapshot was not copied along. */
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), name), 0);
	assert_int_equal(dcpi_kallsyms_ref_writeat(hfd, host, name, 0640, &err), 0);
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, NULL, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "copied without"));
	snprintf(snap, sizeof(snap), "%s/kernels/%s.gz", db, name);
	assert_non_null(strstr(err.msg, snap));

	/* Not gzip; gzip cut short; bytes after it. */
	assert_int_equal(mkdir(strcat(strcpy(ref, db), "/kernels"), 0750), 0);
	put(snap, "ffffffff81001000 T plain\n");
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, NULL, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "not gzip data"));
	assert_non_null(strstr(err.msg, snap));
	unlink(snap);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), 0);
	assert_int_equal(truncate(snap, 30), 0);
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, NULL, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "truncated"));
	unlink(snap);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), 0);
	fp = fopen(snap, "a");
	assert_non_null(fp);
	fputs("junk", fp);
	fclose(fp);
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, NULL, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "after the end"));

	/* Malformed references, each named with its offset. */
	snprintf(ref, sizeof(ref), "%s.ref", ks);
	put(ref, "kernels/../../../etc/shadow.gz\n");
	assert_int_equal(dcpi_kallsyms_read(ks, &buf, &len, NULL, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, ref));
	assert_non_null(strstr(err.msg, "byte "));
	put(ref, "/etc/shadow\n");
	assert_int_equal(dcpi_kallsyms_ref_readat(AT_FDCWD, ref, NULL, name, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "byte 0"));
	put(ref, "kernels/e4f1-0123456789abcdef.gz\nkernels/e4f1-0123456789abcdef.gz\n");
	assert_int_equal(dcpi_kallsyms_ref_readat(AT_FDCWD, ref, NULL, name, &err), -1);
	assert_non_null(strstr(err.msg, "byte 33"));
	put(ref, "kernels/E4F1-0123456789ABCDEF.gz\n");
	assert_int_equal(dcpi_kallsyms_ref_readat(AT_FDCWD, ref, NULL, name, &err), -1);
	put(ref, "kernels/e4f1-0123456789abcdef.gz");	/* no newline: fine */
	assert_int_equal(dcpi_kallsyms_ref_readat(AT_FDCWD, ref, NULL, name, &err), 0);
	assert_string_equal(name, "e4f1-0123456789abcdef");
	/* A symbolic link is not followed. */
	unlink(ref);
	assert_int_equal(symlink("/etc/passwd", ref), 0);
	assert_int_equal(dcpi_kallsyms_ref_readat(AT_FDCWD, ref, NULL, name, &err), -1);
	assert_int_equal(errno, ELOOP);
	/* Nor is it written through. */
	assert_int_equal(dcpi_kallsyms_ref_writeat(hfd, host, "bad/name-0123456789abcdef",
	    0640, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, "../x-0123456789abcdef", TEXT, 1,
	    (gid_t)-1, 0750, 0640, &err), -1);
	assert_int_equal(errno, EINVAL);
}

/* DB/kernels as a symbolic link is refused, never written through. */
static void
test_store_link(void **state)
{
	char name[DCPI_KALLSYMS_NAME_MAX], path[128], elsewhere[128];
	struct dcpi_error err;

	(void)state;
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", db);
	assert_int_equal(mkdir(elsewhere, 0750), 0);
	snprintf(path, sizeof(path), "%s/kernels", db);
	assert_int_equal(symlink("elsewhere", path), 0);
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), name), 0);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), -1);
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.msg, "kernels"));
}

/* A relative path: the database is the working directory. */
static void
test_relative(void **state)
{
	char name[DCPI_KALLSYMS_NAME_MAX], cwd[4096];
	struct dcpi_error err;
	void *buf;
	size_t len;

	(void)state;
	assert_int_equal(dcpi_kallsyms_name("e4f1", TEXT, strlen(TEXT), name), 0);
	assert_int_equal(dcpi_kallsyms_store(dbfd, db, name, TEXT, strlen(TEXT),
	    (gid_t)-1, 0750, 0640, &err), 0);
	assert_int_equal(dcpi_kallsyms_ref_writeat(hfd, host, name, 0640, &err), 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(db), 0);
	assert_int_equal(dcpi_kallsyms_read(EP "/h1/kallsyms", &buf, &len, NULL, &err), 0);
	assert_string_equal(buf, TEXT);
	free(buf);
	assert_int_equal(chdir(cwd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_trim),
		cmocka_unit_test_setup_teardown(test_store_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
