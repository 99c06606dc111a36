/*
 * The idle task's samples and the unattributed samples over hand-written
 * databases: the label layout and the unattributed file's reader (strict,
 * with line numbers), the dataset leaving idle out unless asked, prof's
 * header, --idle, list, and databases written before either existed.
 */
#include "analysis_util.h"

#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <dcpi/dataset.h>
#include <dcpi/label.h>

#include "commands.h"

#define EV	"perf::cpu-clock"
#define E1	"20261120100000"
#define KID	"aabbccdd"
#define KSTART	0xffffffff81001000ULL

static char db[64];
static struct ctl_globals g;

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path);
}

static int
setup(void **state)
{
	strcpy(db, "/tmp/dcpi-test-idle.XXXXXX");
	if (mkdtemp(db) == NULL)
		return -1;
	g.db = db;
	g.socket = "/nonexistent";
	return 0;
}

static int
teardown(void **state)
{
	nftw(db, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void
put_file(const char *rel, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", db, rel);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* The kernel's profile under label (NULL: unlabelled), as dcpid writes
 * it; with_line 0 leaves the label line out (a damaged database). */
static void
write_kernel(const char *label, int with_line, const struct dcpi_count *c, size_t n)
{
	struct dcpi_profile *p = dcpi_profile_new();
	struct dcpi_error err;
	char name[256], file[4096], *dir;
	size_t i;

	assert_non_null(p);
	assert_int_equal(dcpi_db_label_mkdirs(db, E1, "h1", EV, label, &err), 0);
	dcpi_profile_set(p, "image", KID, &err);
	dcpi_profile_set(p, "epoch", E1, &err);
	dcpi_profile_set(p, "platform", "Linux 6.1.0 x86_64", &err);
	dcpi_profile_set(p, "event", EV, &err);
	dcpi_profile_set(p, "period", "1000000", &err);
	dcpi_profile_set(p, "tstart", "ffffffff81001000", &err);
	dcpi_profile_set(p, "tsize", "1048576", &err);
	dcpi_profile_set(p, "cpuspeed", "2000", &err);
	dcpi_profile_set(p, "path", "[kernel.kallsyms]", &err);
	if (label != NULL && with_line)
		assert_int_equal(dcpi_profile_set(p, "label", label, &err), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(dcpi_profile_add(p, c[i].offset, c[i].count), 0);
	assert_non_null(dir = dcpi_db_label_path(db, E1, "h1", EV, label));
	assert_int_equal(dcpi_db_profile_name("[kernel.kallsyms]", KID, name, sizeof(name)), 0);
	snprintf(file, sizeof(file), "%s/%s", dir, name);
	assert_int_equal(dcpi_profile_write(file, p, &err), 0);
	free(dir);
	dcpi_profile_free(p);
}

/* Busy kernel: do_one 6, helper_two 4; idle: third 30 (75% of 40). */
static void
write_db(int idle)
{
	struct dcpi_count busy[] = { { 0x10, 6 }, { 0x120, 4 } }, id[] = { { 0x210, 30 } };

	write_kernel(NULL, 1, busy, 2);
	if (idle)
		write_kernel(DCPI_LABEL_IDLE, 1, id, 1);
	put_file(E1 "/h1/kallsyms",
	    "ffffffff81000000 T _text\n"
	    "ffffffff81001000 T do_one\n"
	    "ffffffff81001100 t helper_two\n"
	    "ffffffff81001200 T third\n");
}

static int
lines(const char *t)
{
	int n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

static void
test_label_dirname(void **state)
{
	char buf[300], back[300];

	assert_int_equal(dcpi_label_dirname("[idle]", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "[idle]");
	assert_int_equal(dcpi_label_dirname(".hidden/a%b", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "%2Ehidden%2Fa%25b");
	assert_int_equal(dcpi_label_from_dirname(buf, back, sizeof(back)), 0);
	assert_string_equal(back, ".hidden/a%b");
	assert_int_equal(dcpi_label_dirname("..", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "%2E.");
	errno = 0;
	assert_int_equal(dcpi_label_dirname("", buf, sizeof(buf)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_label_dirname(" x", buf, sizeof(buf)), -1);
	assert_int_equal(dcpi_label_dirname("a\nb", buf, sizeof(buf)), -1);
	assert_int_equal(dcpi_label_dirname("abcdef", buf, 4), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(dcpi_label_from_dirname("a%zz", back, sizeof(back)), -1);
}

static void
test_unattr_parse(void **state)
{
	static const char good[] = DCPI_UNATTR_MAGIC "\n"
	    "unreadable 1400 " EV "\n"
	    "anon 20 " EV "\n"
	    "no-map 3 weird event:u\n";
	static const struct { const char *text, *msg; } bad[] = {
		{ "", "f: line 1: expected 'dcpi-unattributed 1'" },
		{ "dcpi-unattributed 2\n", "f: line 1: expected 'dcpi-unattributed 1'" },
		{ DCPI_UNATTR_MAGIC "\nanon 20 ev", "f: line 2: expected a newline" },
		{ DCPI_UNATTR_MAGIC "\nanon 20 ev\nAnon 1 ev\n", "f: line 3: expected a reason" },
		{ DCPI_UNATTR_MAGIC "\nanon x ev\n", "f: line 2: expected 'REASON SAMPLES EVENT'" },
		{ DCPI_UNATTR_MAGIC "\nanon 20\n", "f: line 2: expected 'REASON SAMPLES EVENT'" },
		{ DCPI_UNATTR_MAGIC "\nanon 20  ev\n", "f: line 2: expected 'REASON SAMPLES EVENT'" },
		{ DCPI_UNATTR_MAGIC "\nanon 18446744073709551616 ev\n",
		    "f: line 2: sample count does not fit in 64 bits" },
		{ DCPI_UNATTR_MAGIC "\nanon 1 ev\nanon 2 ev\n",
		    "f: line 3: reason 'anon' of event 'ev' given twice" },
		{ DCPI_UNATTR_MAGIC "\n\n", "f: line 2: expected a reason" },
	};
	struct dcpi_unattr u = { NULL, 0, 0 };
	struct dcpi_error err;
	char *text;
	size_t i, len;

	assert_int_equal(dcpi_unattr_parse(good, strlen(good), "f", &u, &err), 0);
	assert_int_equal(u.n, 3);
	/* Sorted by event, then reason. */
	assert_string_equal(u.v[0].event, EV);
	assert_string_equal(u.v[0].reason, "anon");
	assert_int_equal(u.v[0].samples, 20);
	assert_string_equal(u.v[1].reason, "unreadable");
	assert_int_equal(u.v[1].samples, 1400);
	assert_string_equal(u.v[2].event, "weird event:u");
	/* Adding the same file twice doubles it (a flush merges so). */
	assert_int_equal(dcpi_unattr_parse(good, strlen(good), "f", &u, &err), 0);
	assert_int_equal(u.v[1].samples, 2800);
	assert_int_equal(dcpi_unattr_add(&u, EV, "anon", UINT64_MAX), 0);
	assert_true(u.v[0].samples == UINT64_MAX);
	assert_int_equal(dcpi_unattr_add(&u, EV, "Bad reason", 1), -1);
	assert_int_equal(dcpi_unattr_add(&u, "", "anon", 1), -1);
	assert_int_equal(dcpi_unattr_encode(&u, &text, &len), 0);
	assert_string_equal(text, DCPI_UNATTR_MAGIC "\n"
	    "anon 18446744073709551615 " EV "\n"
	    "unreadable 2800 " EV "\n"
	    "no-map 6 weird event:u\n");
	free(text);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dcpi_unattr v = { NULL, 0, 0 };

		errno = 0;
		assert_int_equal(dcpi_unattr_parse(bad[i].text, strlen(bad[i].text), "f", &v,
		    &err), -1);
		assert_int_equal(errno, EINVAL);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("input %zu: '%s', expected '%s...'", i, err.msg, bad[i].msg);
		assert_int_equal(v.n, 0);
	}
	assert_int_equal(dcpi_unattr_parse("x\0y\n", 4, "f", &u, &err), -1);
	assert_string_equal(err.msg, "f: byte 1: NUL in a text file");
	dcpi_unattr_clear(&u);
	assert_int_equal(u.n, 0);
}

static void
test_dataset_idle(void **state)
{
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;

	write_db(1);
	memset(&f, 0, sizeof(f));
	assert_int_equal(dcpi_dataset_load(db, &f, &d, &err), 0);
	assert_int_equal(d->n_events, 1);
	assert_int_equal(d->n_images, 1);
	assert_null(d->images[0].label);
	assert_int_equal(d->events[0].samples, 10);
	assert_int_equal(d->events[0].idle, 30);
	dcpi_dataset_free(d);
	f.idle = 1;
	assert_int_equal(dcpi_dataset_load(db, &f, &d, &err), 0);
	/* Two entries of one image: they never merge. */
	assert_int_equal(d->n_images, 2);
	assert_null(d->images[0].label);
	assert_string_equal(d->images[1].label, DCPI_LABEL_IDLE);
	assert_int_equal(d->images[1].samples, 30);
	assert_int_equal(d->events[0].samples, 40);
	assert_int_equal(d->events[0].idle, 30);
	dcpi_dataset_free(d);
}

static void
test_prof_idle_header(void **state)
{
	char *out, *err, *csv[] = { "prof", "--csv", NULL }, *text[] = { "prof", NULL };
	char *with[] = { "prof", "--idle", "--csv", NULL }, *withtext[] = { "prof", "--idle", NULL };
	char *json[] = { "prof", "--json", NULL }, *img[] = { "prof", "-i", NULL };

	write_db(1);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, text), 0);
	assert_non_null(strstr(out, "\nidle: 75.0% of samples (30), not shown; --idle includes them\n"));
	assert_null(strstr(out, "third"));
	assert_null(strstr(out, "not attributed"));
	free(out);
	free(err);
	/* Rows are the samples shown, their shares of those. */
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, csv), 0);
	assert_non_null(strstr(out, "\n6,60.00,60.00,do_one,[kernel.kallsyms]\n"));
	assert_non_null(strstr(out, "\n4,40.00,100.00,helper_two,[kernel.kallsyms]\n"));
	assert_int_equal(lines(out), 3);
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, with), 0);
	assert_non_null(strstr(out, "\n30,75.00,75.00,third,[kernel.kallsyms]\n"));
	assert_non_null(strstr(out, "\n6,15.00,90.00,do_one,[kernel.kallsyms]\n"));
	assert_int_equal(lines(out), 4);
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, withtext), 0);
	assert_non_null(strstr(out, "\nidle: 75.0% of samples (30), included (--idle)\n"));
	assert_non_null(strstr(out, "perf::cpu-clock      40 1000000\n"));
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, json), 0);
	assert_non_null(strstr(out, "\"samples\": 10, \"period\": 1000000, \"idle\": 30, "
	    "\"unattributed\": {}}], \"idle_included\": false"));
	free(out);
	free(err);
	/* Per image: the kernel holds only its busy samples. */
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, img), 0);
	assert_non_null(strstr(out, "idle: 75.0%"));
	assert_non_null(strstr(out, "10 100.00 100.00 [kernel.kallsyms]"));
	free(out);
	free(err);
}

static void
test_prof_unattributed(void **state)
{
	char *out, *err, *text[] = { "prof", NULL }, *json[] = { "prof", "--json", NULL };
	char *evs[] = { "prof", "-e", EV, NULL };

	write_db(1);
	put_file(E1 "/h1/" DCPI_UNATTR_FILE, DCPI_UNATTR_MAGIC "\n"
	    "anon 20 " EV "\n"
	    "unreadable 1400 " EV "\n"
	    "no-map 7 other-event\n");
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, text), 0);
	/* 1,420 of 10 + 30 + 1,420. */
	assert_non_null(strstr(out, "\nnot attributed: 1,420 samples (97.3%): unreadable 1,400, "
	    "anon 20\n"));
	assert_non_null(strstr(out, "idle: 75.0% of samples (30)"));
	assert_string_equal(err, "");
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, json), 0);
	assert_non_null(strstr(out, "\"unattributed\": {\"anon\": 20, \"unreadable\": 1400}"));
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, evs), 0);
	assert_non_null(strstr(out, "not attributed: 1,420 samples"));
	free(out);
	free(err);
	/* A damaged file: a warning naming it and its line, the rest shown. */
	put_file(E1 "/h1/" DCPI_UNATTR_FILE, DCPI_UNATTR_MAGIC "\nanon twenty " EV "\n");
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, text), 0);
	assert_non_null(strstr(err, "/" E1 "/h1/unattributed: line 2: expected 'REASON SAMPLES EVENT'"));
	assert_null(strstr(out, "not attributed"));
	assert_non_null(strstr(out, "do_one"));
	free(out);
	free(err);
}

static void
test_old_database(void **state)
{
	char *out, *err, *text[] = { "prof", NULL }, *with[] = { "prof", "--idle", NULL };
	char *ep[] = { "epochs", NULL };

	write_db(0);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, text), 0);
	assert_null(strstr(out, "idle"));
	assert_null(strstr(out, "not attributed"));
	assert_non_null(strstr(out, "perf::cpu-clock      10 1000000\n\n"));
	assert_non_null(strstr(out, "do_one"));
	assert_string_equal(err, "");
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, with), 0);
	assert_null(strstr(out, "idle"));
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_epochs, &g, &out, &err, ep), 0);
	assert_non_null(strstr(out, " 10 "));
	free(out);
	free(err);
}

static void
test_only_idle_and_list(void **state)
{
	struct dcpi_count id[] = { { 0x210, 30 } };
	char *out, *err, *text[] = { "prof", NULL };
	char *ls[] = { "list", "third", NULL }, *lsi[] = { "list", "--idle", "third", NULL };
	char *ep[] = { "epochs", NULL };

	write_kernel(DCPI_LABEL_IDLE, 1, id, 1);
	put_file(E1 "/h1/kallsyms", "ffffffff81001200 T third\n");
	/* A machine that did nothing: the header says so, no rows. */
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, text), 0);
	assert_non_null(strstr(out, "idle: 100.0% of samples (30), not shown"));
	free(out);
	free(err);
	assert_int_not_equal(run_cmd(cmd_list, &g, &out, &err, ls), 0);
	assert_non_null(strstr(err, "no procedure 'third'"));
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_list, &g, &out, &err, lsi), 0);
	assert_non_null(strstr(out, "30 samples in third"));
	free(out);
	free(err);
	/* epochs counts every sample. */
	assert_int_equal(run_cmd(cmd_epochs, &g, &out, &err, ep), 0);
	assert_non_null(strstr(out, " 30 "));
	free(out);
	free(err);
}

static void
test_label_mismatch(void **state)
{
	struct dcpi_count id[] = { { 0x210, 30 } };
	char *out, *err, *text[] = { "prof", "--idle", NULL };

	write_db(0);
	/* In the idle directory without its label line: not trusted. */
	write_kernel(DCPI_LABEL_IDLE, 0, id, 1);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, text), 0);
	assert_non_null(strstr(err, "label line '(none)' is not its directory's ('[idle]')"));
	assert_null(strstr(out, "third"));
	free(out);
	free(err);
}

/* --label's patterns: equal, fnmatch, and the bracketed names exactly. */
static void
test_label_match(void **state)
{
	static const struct {
		const char	*pattern, *label;	/* label NULL: unlabelled */
		int		 match;
	} t[] = {
		{ "nginx.service", "nginx.service", 1 },
		{ "nginx.service", "nginx.servicex", 0 },
		{ "*.service", "user@1000.service", 1 },
		{ "*.service", "session-3.scope", 0 },
		{ "docker:*", "docker:0123456789ab", 1 },
		/* A cgroup path: '*' crosses '/' (flags 0, no FNM_PATHNAME). */
		{ "/dcpitest-*", "/dcpitest-a/b", 1 },
		{ DCPI_LABEL_NONE, NULL, 1 },
		{ "*.service", NULL, 0 },
		{ "*", NULL, 1 },
		{ "[idle]", "[idle]", 1 },
		/* Not the bracket expressions they would be to fnmatch. */
		{ "[none]", "n", 0 },
		{ "[idle]", "i", 0 },
		{ "[other]", "o", 0 },
		/* Other brackets are fnmatch's. */
		{ "[ab].service", "b.service", 1 },
		{ "\\[*", "[other]", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!dcpi_dataset_label_match(t[i].pattern, t[i].label) != !t[i].match)
			fail_msg("'%s' against '%s': expected %s", t[i].pattern,
			    t[i].label ? t[i].label : "(unlabelled)", t[i].match ? "a match" : "none");
}

/* The filter's labels: unmatched label directories are not read (a corrupt
 * file there is not even skipped), [none] selects the unlabelled, the idle
 * task by name, unattributed samples left out, every label listed. */
static void
test_dataset_labels(void **state)
{
	struct dcpi_count c[] = { { 0x10, 5 } };
	const char *pats[2];
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;

	write_db(1);
	write_kernel("a.service", 1, c, 1);
	assert_int_equal(dcpi_db_label_mkdirs(db, E1, "h1", EV, "b.service", &err), 0);
	put_file(E1 "/h1/" EV "/b.service/junk.aa", "not a profile\n");
	put_file(E1 "/h1/unattributed", "dcpi-unattributed 1\nno-map 7 " EV "\n");
	memset(&f, 0, sizeof(f));
	f.labels = pats;
	pats[0] = "a.*";
	f.n_labels = 1;
	assert_int_equal(dcpi_dataset_load(db, &f, &d, &err), 0);
	assert_int_equal(d->n_skipped, 0);
	assert_int_equal(d->n_images, 1);
	assert_string_equal(d->images[0].label, "a.service");
	assert_int_equal(d->events[0].samples, 5);
	assert_int_equal(d->events[0].idle, 0);
	assert_int_equal(d->events[0].unattributed, 0);
	assert_int_equal(d->n_labels, 4);
	assert_string_equal(d->labels[0], DCPI_LABEL_IDLE);
	assert_string_equal(d->labels[1], DCPI_LABEL_NONE);
	assert_string_equal(d->labels[2], "a.service");
	assert_string_equal(d->labels[3], "b.service");
	dcpi_dataset_free(d);
	/* [none] and the idle task by name: both loaded. */
	pats[0] = DCPI_LABEL_NONE;
	pats[1] = DCPI_LABEL_IDLE;
	f.n_labels = 2;
	assert_int_equal(dcpi_dataset_load(db, &f, &d, &err), 0);
	assert_int_equal(d->n_images, 2);
	assert_null(d->images[0].label);
	assert_string_equal(d->images[1].label, DCPI_LABEL_IDLE);
	assert_int_equal(d->events[0].samples, 40);
	dcpi_dataset_free(d);
	/* '*' matches the idle task, which stays apart without --idle; the
	 * corrupt file is read now. */
	pats[0] = "*";
	f.n_labels = 1;
	assert_int_equal(dcpi_dataset_load(db, &f, &d, &err), 0);
	assert_int_equal(d->n_skipped, 1);
	assert_int_equal(d->events[0].samples, 15);
	assert_int_equal(d->events[0].idle, 30);
	dcpi_dataset_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_dirname),
		cmocka_unit_test(test_unattr_parse),
		cmocka_unit_test_setup_teardown(test_dataset_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prof_idle_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prof_unattributed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_idle_and_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_mismatch, setup, teardown),
		cmocka_unit_test(test_label_match),
		cmocka_unit_test_setup_teardown(test_dataset_labels, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
