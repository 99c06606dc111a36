/*
 * The analysis commands over hand-written databases whose profiles name
 * this test program: prof (ordering, percentages, CSV/JSON, images, hosts,
 * events, corrupt files, stale images), list, diff, epochs, gc.
 */
#include "analysis_util.h"

#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <cmocka.h>

#include <dcpi/dataset.h>
#include <dcpi/image.h>
#include <dcpi/symbol.h>

#include "callsite.h"
#include "commands.h"
#include "output.h"
#include "util.h"

#define EV	"perf::cpu-clock"
#define E1	"20261120100000"
#define E2	"20261120110000"

unsigned long dcpi_test_fn_a(unsigned long) __attribute__((noinline));
unsigned long dcpi_test_fn_b(unsigned long) __attribute__((noinline));
unsigned long dcpi_test_fn_c(unsigned long) __attribute__((noinline));
unsigned long dcpi_test_fn_a(unsigned long n) { volatile unsigned long x = n; while (n--) x += n * 3; return x; }
unsigned long dcpi_test_fn_b(unsigned long n) { volatile unsigned long x = n; while (n--) x ^= n * 5; return x; }
unsigned long dcpi_test_fn_c(unsigned long n) { volatile unsigned long x = n; while (n--) x -= n * 7; return x; }

static struct self s;
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
	self_load(&s);
	strcpy(db, "/tmp/dcpi-test-analysis.XXXXXX");
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

/* Writes a profile of this program: a, b, c samples in fn_a, fn_b, fn_c
 * (spread over two addresses each, to test the per-procedure sums). */
static void
write_self(const char *epoch, const char *host, const char *event, uint32_t a, uint32_t b,
    uint32_t c)
{
	struct dcpi_count cn[6];
	size_t n = 0;

	if (a) {
		cn[n++] = (struct dcpi_count){ (uint32_t)self_offset(&s, (void *)dcpi_test_fn_a), a - a / 2 };
		if (a / 2)
			cn[n++] = (struct dcpi_count){ (uint32_t)self_offset(&s, (void *)dcpi_test_fn_a) + 2, a / 2 };
	}
	if (b)
		cn[n++] = (struct dcpi_count){ (uint32_t)self_offset(&s, (void *)dcpi_test_fn_b) + 1, b };
	if (c)
		cn[n++] = (struct dcpi_count){ (uint32_t)self_offset(&s, (void *)dcpi_test_fn_c), c };
	/* Counts must be sorted by offset. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cn[j - 1].offset > cn[j].offset; j--) {
			struct dcpi_count t = cn[j];
			cn[j] = cn[j - 1];
			cn[j - 1] = t;
		}
	write_profile(db, epoch, host, event, 1000000, s.path, s.buildid, s.tstart, s.tsize, cn, n);
}

/* Field f (0-based) of CSV line l (1 = first row after the header). */
static void
csv_field(const char *out, int l, int f, char *buf, size_t len)
{
	const char *p = out, *e;
	int i;

	for (i = 0; i < l && p != NULL; i++)
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	assert_non_null(p);
	for (i = 0; i < f; i++) {
		p = strchr(p, ',');
		assert_non_null(p);
		p++;
	}
	e = p + strcspn(p, ",\n");
	snprintf(buf, len, "%.*s", (int)(e - p), p);
}

static void
assert_field(const char *out, int l, int f, const char *want)
{
	char buf[256];

	csv_field(out, l, f, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static int
count_lines(const char *t)
{
	int n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

static void
test_prof_order_and_percent(void **state)
{
	char *out, *err, *argv[] = { "prof", "--csv", NULL }, stale[600];
	struct dcpi_count other[] = { { 0x10, 6 }, { 0x20, 4 } };
	int rc;

	write_self(E1, "h1", EV, 60, 30, 0);
	/* Same path, another build-id: the file on disk is not that image. */
	write_profile(db, E1, "h1", EV, 1000000, s.path, "00112233445566778899aabbccddeeff00112233",
	    s.tstart, s.tsize, other, 2);
	rc = run_cmd(cmd_prof, &g, &out, &err, argv);
	assert_int_equal(rc, 0);
	assert_field(out, 0, 0, EV);
	assert_field(out, 1, 0, "60");
	assert_field(out, 1, 1, "60.00");
	assert_field(out, 1, 2, "60.00");
	assert_field(out, 1, 3, "dcpi_test_fn_a");
	assert_field(out, 2, 0, "30");
	assert_field(out, 2, 2, "90.00");
	assert_field(out, 2, 3, "dcpi_test_fn_b");
	/* The stale image's samples by address, never by this file's names. */
	snprintf(stale, sizeof(stale), "%s+0x10", strrchr(s.path, '/') + 1);
	assert_field(out, 3, 0, "6");
	assert_field(out, 3, 3, stale);
	assert_field(out, 4, 0, "4");
	assert_field(out, 4, 2, "100.00");
	assert_int_equal(count_lines(out), 5);
	/* One warning for the stale image, naming the build-ids. */
	assert_non_null(strstr(err, "00112233445566778899aabbccddeeff00112233"));
	assert_null(strstr(strstr(err, "00112233445566778899") + 1, "00112233445566778899aabb"));
	free(out);
	free(err);
}

static void
test_prof_json_images_limit(void **state)
{
	char *out, *err, *json[] = { "prof", "--json", NULL };
	char *img[] = { "prof", "-i", "--csv", NULL }, *lim[] = { "prof", "-n", "1", "--csv", NULL };

	write_self(E1, "h1", EV, 70, 30, 0);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, json), 0);
	assert_non_null(strstr(out, "\"procedure\": \"dcpi_test_fn_a\""));
	assert_non_null(strstr(out, "\"" EV "\": 70"));
	assert_non_null(strstr(out, "\"samples\": 100, \"period\": 1000000"));
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, img), 0);
	assert_field(out, 1, 0, "100");
	assert_field(out, 1, 3, strrchr(s.path, '/') + 1);
	assert_int_equal(count_lines(out), 2);
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, lim), 0);
	assert_int_equal(count_lines(out), 2);
	assert_field(out, 1, 3, "dcpi_test_fn_a");
	assert_field(out, 1, 2, "70.00");
	free(out);
	free(err);
}

static void
test_prof_hosts_events(void **state)
{
	char *out, *err, *all[] = { "prof", "--csv", "-e", EV, "-e", "page-faults", NULL };
	char *h2[] = { "prof", "--csv", "--host", "h2", NULL };
	char *pf[] = { "prof", "--csv", "-e", "page-faults", NULL };
	char *bad[] = { "prof", "-e", "no-such-event", NULL };

	write_self(E1, "h1", EV, 10, 0, 0);
	write_self(E1, "h2", EV, 30, 0, 0);
	write_self(E1, "h1", "page-faults", 0, 5, 0);
	/* Hosts merge. */
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, all), 0);
	/* Columns in the order of -e. */
	assert_field(out, 0, 2, "page-faults");
	assert_field(out, 0, 0, EV);
	assert_field(out, 1, 0, "40");
	assert_field(out, 1, 5, "dcpi_test_fn_a");
	assert_field(out, 2, 0, "0");
	assert_field(out, 2, 2, "5");
	assert_field(out, 2, 3, "100.00");
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, h2), 0);
	assert_field(out, 1, 0, "30");
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, pf), 0);
	assert_field(out, 1, 0, "5");
	assert_field(out, 1, 3, "dcpi_test_fn_b");
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, bad), 1);
	assert_non_null(strstr(err, "unknown event 'no-such-event'"));
	free(out);
	free(err);
}

static void
test_prof_corrupt_file(void **state)
{
	char *out, *err, *argv[] = { "prof", NULL }, path[4096];
	FILE *fp;

	write_self(E1, "h1", EV, 10, 0, 0);
	{
		char *dir = dcpi_db_event_path(db, E1, "h1", EV);
		snprintf(path, sizeof(path), "%s/junk.0123", dir);
		free(dir);
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("version pdb-0.07\nthis is not a profile\n", fp);
	fclose(fp);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, argv), 0);
	assert_non_null(strstr(err, "junk.0123"));
	assert_non_null(strstr(out, "1 corrupt file skipped"));
	assert_non_null(strstr(out, "dcpi_test_fn_a"));
	free(out);
	free(err);
}

static void
test_missing_db_and_epoch(void **state)
{
	struct ctl_globals bad = { "/nonexistent/db", "/nonexistent" };
	char *out, *err, *argv[] = { "prof", NULL }, *ep[] = { "prof", "--epoch", "20990101000000", NULL };

	assert_int_equal(run_cmd(cmd_prof, &bad, &out, &err, argv), 1);
	assert_non_null(strstr(err, "/nonexistent/db"));
	free(out);
	free(err);
	write_self(E1, "h1", EV, 10, 0, 0);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, ep), 1);
	assert_non_null(strstr(err, "20990101000000"));
	free(out);
	free(err);
	/* An empty epoch (just rotated): an error naming it. */
	{
		char path[4096], *em[] = { "prof", "--epoch", "20300101000000", NULL };
		snprintf(path, sizeof(path), "%s/20300101000000", db);
		assert_int_equal(mkdir(path, 0755), 0);
		assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, em), 1);
		assert_non_null(strstr(err, "20300101000000: no profiles"));
		free(out);
		free(err);
	}
}

/* Samples of fn_a in the first row of prof with extra arguments. */
static const char *
prof_a(char *a1, char *a2, char *a3, int *rc)
{
	static char buf[64];
	char *out, *err, *argv[] = { "prof", "--csv", a1, a2, a3, NULL };

	*rc = run_cmd(cmd_prof, &g, &out, &err, argv);
	buf[0] = '\0';
	if (*rc == 0)
		csv_field(out, 1, 0, buf, sizeof(buf));
	free(out);
	free(err);
	return buf;
}

static void
test_epoch_selection(void **state)
{
	struct dcpi_error e;
	int rc;

	write_self(E1, "h1", EV, 10, 0, 0);
	write_self(E2, "h1", EV, 20, 0, 0);
	/* Without a current epoch: the newest. */
	assert_string_equal(prof_a(NULL, NULL, NULL, &rc), "20");
	assert_int_equal(dcpi_db_set_current(db, E1, &e), 0);
	assert_string_equal(prof_a(NULL, NULL, NULL, &rc), "10");
	assert_string_equal(prof_a("--all", NULL, NULL, &rc), "30");
	assert_string_equal(prof_a("--epoch", E2, NULL, &rc), "20");
	assert_string_equal(prof_a("--epoch", E2, "--epoch=" E1, &rc), "30");
	assert_string_equal(prof_a("--since", E2, NULL, &rc), "20");
	/* The epoch that holds the time counts. */
	assert_string_equal(prof_a("--since", "2026-11-20T10:30", NULL, &rc), "30");
	assert_string_equal(prof_a("--since", "2026-11-20", NULL, &rc), "30");
	prof_a("--since", "yesterday", NULL, &rc);
	assert_int_equal(rc, 1);
	prof_a("--all", "--epoch", E1, &rc);
	assert_int_equal(rc, 1);
	prof_a("--image", "no-such-image", NULL, &rc);
	assert_int_equal(rc, 1);
	prof_a("--host", "no-such-host", NULL, &rc);
	assert_int_equal(rc, 1);
}

static void
test_diff(void **state)
{
	char *out, *err, *argv[] = { "diff", E1, E2, "--csv", NULL };

	write_self(E1, "h1", EV, 50, 30, 20);
	write_self(E2, "h1", EV, 20, 100, 80);	/* shares 10%, 50%, 40% */
	assert_int_equal(run_cmd(cmd_diff, &g, &out, &err, argv), 0);
	assert_field(out, 0, 0, "A%");
	assert_field(out, 1, 6, "dcpi_test_fn_a");
	assert_field(out, 1, 0, "50.00");
	assert_field(out, 1, 1, "10.00");
	assert_field(out, 1, 2, "-40.00");
	assert_field(out, 1, 3, "0.20");
	assert_field(out, 1, 4, "50");
	assert_field(out, 1, 5, "20");
	assert_field(out, 2, 6, "dcpi_test_fn_b");
	assert_field(out, 2, 2, "+20.00");
	assert_field(out, 3, 6, "dcpi_test_fn_c");
	assert_field(out, 3, 2, "+20.00");
	assert_field(out, 3, 3, "2.00");
	free(out);
	free(err);

	/* Two databases: all the epochs of each. */
	{
		char dbb[4096], *dbs[] = { "diff", db, dbb, "--csv", NULL };
		snprintf(dbb, sizeof(dbb), "%s/other-db", db);
		mkdir(dbb, 0755);
		strcpy(db + strlen(db), "/other-db");	/* write_self writes to db */
		write_self(E2, "h9", EV, 0, 0, 10);
		db[strlen(db) - strlen("/other-db")] = '\0';
		assert_int_equal(run_cmd(cmd_diff, &g, &out, &err, dbs), 0);
		/* A: fn_a 70/300, fn_b 130/300, fn_c 100/300; B: fn_c 100%. */
		assert_field(out, 1, 6, "dcpi_test_fn_c");
		assert_field(out, 1, 1, "100.00");
		assert_field(out, 1, 0, "33.33");
		assert_field(out, 2, 6, "dcpi_test_fn_b");
		assert_field(out, 2, 3, "0.00");
		free(out);
		free(err);
	}
}

static void
test_list(void **state)
{
	char *out, *err, *argv[] = { "list", "dcpi_test_fn_a", NULL }, *line;
	unsigned long long n, addr, first = (uintptr_t)dcpi_test_fn_a - s.base;
	unsigned long long sum = 0, at_first = 0, second = 0;
	double pct;

	/* 5 samples at the first instruction, 4 at byte 2. */
	write_self(E1, "h1", EV, 9, 0, 0);
	assert_int_equal(run_cmd(cmd_list, &g, &out, &err, argv), 0);
	assert_non_null(strstr(out, "9 samples in dcpi_test_fn_a"));
	for (line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		if (sscanf(line, "%llu %lf %llx", &n, &pct, &addr) != 3)
			continue;
		sum += n;
		if (addr == first)
			at_first = n;
		else if (second == 0)
			second = addr;
	}
	assert_int_equal(sum, 9);
	/* Byte 2 belongs to the first instruction if it is longer than 2. */
	assert_int_equal(at_first, second - first > 2 ? 9 : 5);
	free(out);
	free(err);
}

/* The kernel and a module, symbolized through the epoch's kallsyms. */
static void
test_kernel(void **state)
{
	struct dcpi_count k[] = { { 0x10, 5 }, { 0x120, 3 }, { 0x124, 1 } }, m[] = { { 0x90, 2 } };
	char *out, *err, path[4096], *argv[] = { "prof", "--csv", NULL };
	char *ls[] = { "list", "helper_two", NULL };
	FILE *fp;

	write_profile(db, E1, "h1", EV, 1000000, "[kernel.kallsyms]", "aabbccdd", 0xffffffff81001000ULL,
	    0x100000, k, 3);
	write_profile(db, E1, "h1", EV, 1000000, "[nf_tables]", "eeff0011", 0xffffffffc0001000ULL,
	    0x1000, m, 1);
	snprintf(path, sizeof(path), "%s/" E1 "/h1/kallsyms", db);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("ffffffff81000000 T _text\n"
	    "ffffffff81001000 T do_one\n"
	    "ffffffff81001100 t helper_two\n"
	    "ffffffff81001200 T third\n"
	    "ffffffffc0001000 t nft_do_chain\t[nf_tables]\n"
	    "ffffffffc0001080 T nft_other\t[nf_tables]\n", fp);
	fclose(fp);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, argv), 0);
	assert_field(out, 1, 3, "do_one");
	assert_field(out, 1, 4, "[kernel.kallsyms]");
	assert_field(out, 2, 0, "4");
	assert_field(out, 2, 3, "helper_two");
	assert_field(out, 3, 3, "nft_other");
	assert_field(out, 3, 4, "[nf_tables]");
	free(out);
	free(err);
	/* No code to disassemble: one line per sampled address. */
	assert_int_equal(run_cmd(cmd_list, &g, &out, &err, ls), 0);
	assert_non_null(strstr(out, "helper_two+0x20"));
	assert_non_null(strstr(out, "helper_two+0x24"));
	assert_non_null(strstr(out, "4 samples in helper_two"));
	free(out);
	free(err);
}

static int
exists(const char *epoch)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", db, epoch);
	return stat(path, &st) == 0;
}

static void
test_gc(void **state)
{
	char recent[DCPI_EPOCH_LEN + 1], *out, *err;
	char *argv[] = { "gc", "--keep-days", "7", "--keep-min", "2", NULL };
	struct dcpi_error e;

	dcpi_epoch_name(time(NULL) - 3600, recent);
	write_self("20200101000000", "h1", EV, 1, 0, 0);
	write_self("20200102000000", "h1", EV, 1, 0, 0);
	write_self("20200103000000", "h1", EV, 1, 0, 0);
	write_self("20200104000000", "h1", EV, 1, 0, 0);
	write_self(recent, "h1", EV, 1, 0, 0);
	/* The current epoch is never deleted, however old. */
	assert_int_equal(dcpi_db_set_current(db, "20200101000000", &e), 0);
	assert_int_equal(run_cmd(cmd_gc, &g, &out, &err, argv), 0);
	assert_true(exists("20200101000000"));
	assert_false(exists("20200102000000"));
	assert_false(exists("20200103000000"));
	assert_true(exists("20200104000000"));	/* among the 2 newest */
	assert_true(exists(recent));
	assert_string_equal(out, "deleted 20200102000000\ndeleted 20200103000000\n");
	assert_false(exists(".gc.20200102000000"));
	/* What an interrupted gc left hidden goes on the next run. */
	{
		char from[4096], to[4096];
		write_self("20200105000000", "h1", EV, 1, 0, 0);
		snprintf(from, sizeof(from), "%s/20200105000000", db);
		snprintf(to, sizeof(to), "%s/.gc.20200105000000", db);
		assert_int_equal(rename(from, to), 0);
	}
	assert_true(exists(".gc.20200105000000"));
	free(out);
	free(err);
	assert_int_equal(run_cmd(cmd_gc, &g, &out, &err, argv), 0);
	assert_false(exists(".gc.20200105000000"));
	assert_true(exists("20200101000000"));
	assert_string_equal(out, "");
	free(out);
	free(err);
}

static void
test_epochs(void **state)
{
	char *out, *err, *argv[] = { "epochs", "--csv", NULL };
	struct dcpi_error e;

	write_self(E1, "h1", EV, 7, 0, 0);
	write_self(E2, "h1", EV, 5, 0, 0);
	write_self(E2, "h2", "page-faults", 0, 3, 0);
	assert_int_equal(dcpi_db_set_current(db, E2, &e), 0);
	assert_int_equal(run_cmd(cmd_epochs, &g, &out, &err, argv), 0);
	assert_field(out, 1, 0, E1);
	assert_field(out, 1, 1, "");
	assert_field(out, 1, 2, "2026-11-20 10:00:00");
	assert_field(out, 1, 3, "1h00m");
	assert_field(out, 1, 6, "7");
	assert_field(out, 2, 0, E2);
	assert_field(out, 2, 1, "yes");
	assert_field(out, 2, 4, "\"h1");	/* "h1,h2" is quoted */
	assert_field(out, 2, 6, "\"page-faults");
	free(out);
	free(err);
}

/* [vdso] samples named through the build-id cache's executable, as dcpid
 * keeps the vdso image there. */
static void
test_prof_vdso(void **state)
{
	char line[512], *exe, *out, *err, *argv[] = { "prof", "--csv", NULL };
	unsigned long lo = 0, hi = 0;
	struct dcpi_elf_image ei;
	struct dcpi_symtab_opts o = { .no_debuginfod = 1 };
	const struct dcpi_symbol *sym;
	struct dcpi_symtab *t;
	struct dcpi_count c[2];
	struct dcpi_error e;
	FILE *fp;

	fp = fopen("/proc/self/maps", "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strstr(line, "[vdso]") != NULL && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(fp);
	if (hi <= lo)
		skip();
	assert_int_equal(dcpi_elf_image_memory((const void *)lo, hi - lo, "[vdso]", 0, &ei, &e),
	    0);
	exe = dcpi_db_buildid_path(db, ei.id, "executable");
	assert_non_null(exe);
	snprintf(line, sizeof(line), "%s/buildid", db);
	mkdir(line, 0755);
	snprintf(line, sizeof(line), "%s/buildid/%s", db, ei.id);
	mkdir(line, 0755);
	fp = fopen(exe, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite((const void *)lo, 1, hi - lo, fp), hi - lo);
	fclose(fp);
	o.db = db;
	t = dcpi_symtab_open("[vdso]", ei.id, ei.tstart, &o, &e);
	assert_non_null(t);
	sym = dcpi_symtab_find(t, "__vdso_clock_gettime");
	assert_non_null(sym);
	c[0] = (struct dcpi_count){ (uint32_t)sym->start, 7 };
	c[1] = (struct dcpi_count){ (uint32_t)sym->start + 4, 2 };
	write_profile(db, E1, "h1", EV, 1000000, "[vdso]", ei.id, ei.tstart, ei.tsize, c, 2);
	dcpi_symtab_close(t);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, argv), 0);
	assert_field(out, 1, 0, "9");
	assert_field(out, 1, 3, "__vdso_clock_gettime");
	assert_field(out, 1, 4, "[vdso]");
	free(out);
	free(err);
	free(exe);
	dcpi_elf_image_clear(&ei);
}

/* One image recorded at two paths over two epochs: the first epoch's
 * (another file now) does not hide the second's, which names the image. */
static void
test_prof_paths(void **state)
{
	struct dcpi_count c[] = { { 0, 4 } };
	char *out, *err, *argv[] = { "prof", "--all", "--csv", NULL };
	struct dcpi_dataset *d;
	struct dcpi_error e;

	c[0].offset = (uint32_t)self_offset(&s, (void *)dcpi_test_fn_b);
	write_profile(db, E1, "h1", EV, 1000000, "/bin/true", s.buildid, s.tstart, s.tsize, c, 1);
	write_self(E2, "h1", EV, 3, 0, 0);
	assert_int_equal(dcpi_dataset_load(db, NULL, &d, &e), 0);
	assert_int_equal(d->n_images, 1);
	assert_int_equal(d->images[0].n_paths, 2);
	assert_string_equal(d->images[0].paths[0], s.path);
	assert_string_equal(d->images[0].paths[1], "/bin/true");
	assert_string_equal(d->images[0].prof->path, s.path);
	dcpi_dataset_free(d);
	assert_int_equal(run_cmd(cmd_prof, &g, &out, &err, argv), 0);
	assert_field(out, 1, 3, "dcpi_test_fn_b");
	assert_field(out, 1, 4, strrchr(s.path, '/') + 1);
	assert_field(out, 2, 3, "dcpi_test_fn_a");
	assert_null(strstr(err, "true"));
	free(out);
	free(err);
}

/* JSON strings are UTF-8: well-formed sequences pass, a byte that
 * begins none (Latin-1, a cut sequence, an overlong form, a surrogate) is
 * the text \\xHH; quotes, backslashes and control bytes are escaped. */
static void
test_json_string_utf8(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "\"plain\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"" },
		{ "caf\xe9", "\"caf\\\\xe9\"" },
		{ "cut\xe2\x82", "\"cut\\\\xe2\\\\x82\"" },
		{ "overlong\xc0\xaf", "\"overlong\\\\xc0\\\\xaf\"" },
		{ "surrogate\xed\xa0\x80", "\"surrogate\\\\xed\\\\xa0\\\\x80\"" },
		{ "big\xf4\x90\x80\x80", "\"big\\\\xf4\\\\x90\\\\x80\\\\x80\"" },
		{ "q\"b\\n\nt\t", "\"q\\\"b\\\\n\\u000at\\u0009\"" },
		/* C1 and bidirectional controls as characters: \u escapes. */
		{ "c\xc2\x9b[2J\xc2\x85\xe2\x80\xae\xe2\x81\xa9\x7f",
		    "\"c\\u009b[2J\\u0085\\u202e\\u2069\\u007f\"" },
		/* U+00A0 and U+2030 are text. */
		{ "\xc2\xa0\xe2\x80\xb0", "\"\xc2\xa0\xe2\x80\xb0\"" },
	};
	size_t i, len;
	char *buf;
	FILE *fp;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf = NULL;
		fp = open_memstream(&buf, &len);
		assert_non_null(fp);
		json_string(fp, cases[i].in);
		assert_int_equal(fclose(fp), 0);
		assert_string_equal(buf, cases[i].out);
		free(buf);
	}
}

/* What a terminal gets of a name (esc_puts, esc_width, esc_dup): C0, DEL,
 * C1 (as bytes or as UTF-8), U+2028, U+2029, the bidirectional controls and
 * bytes of no UTF-8 as \xHH, byte by byte; other UTF-8 as it is, a column
 * a character. */
static void
test_esc(void **state)
{
	static const struct { const char *in, *out; size_t width; } cases[] = {
		{ "plain", "plain", 5 },
		{ "caf\xc3\xa9", "caf\xc3\xa9", 4 },
		{ "a\x1b[31mb", "a\\x1b[31mb", 10 },
		{ "t\tn\nd\x7f", "t\\x09n\\x0ad\\x7f", 15 },
		{ "csi\x9b" "2J", "csi\\x9b2J", 9 },
		{ "nel\x85osc\x9d", "nel\\x85osc\\x9d", 14 },
		{ "u\xc2\x9b" "2J", "u\\xc2\\x9b2J", 11 },
		{ "\xc2\x9f\xc2\xa0", "\\xc2\\x9f\xc2\xa0", 9 },
		{ "r\xe2\x80\xaeL", "r\\xe2\\x80\\xaeL", 14 },
		{ "\xe2\x80\xa7\xe2\x80\xa8\xe2\x80\xaf", "\xe2\x80\xa7\\xe2\\x80\\xa8\xe2\x80\xaf", 14 },
		{ "\xe2\x81\xa5\xe2\x81\xa6\xe2\x81\xa9\xe2\x81\xaa",
		    "\xe2\x81\xa5\\xe2\\x81\\xa6\\xe2\\x81\\xa9\xe2\x81\xaa", 26 },
		{ "bad\xff\xc3", "bad\\xff\\xc3", 11 },
	};
	size_t i, len;
	char *buf, *dup;
	FILE *fp;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf = NULL;
		fp = open_memstream(&buf, &len);
		assert_non_null(fp);
		esc_puts(cases[i].in, fp);
		assert_int_equal(fclose(fp), 0);
		assert_string_equal(buf, cases[i].out);
		dup = esc_dup(cases[i].in);
		assert_string_equal(dup, cases[i].out);
		assert_int_equal(esc_width(cases[i].in), cases[i].width);
		free(dup);
		free(buf);
	}
	/* text_escape: a NUL inside, a tab kept, a sequence cut by the end. */
	{
		char out[64];

		assert_int_equal(text_escape(out, "a\0b", 3, 0) - out, 6);
		assert_string_equal(out, "a\\x00b");
		text_escape(out, "t\tx", 3, TEXT_KEEP_TAB);
		assert_string_equal(out, "t\tx");
		text_escape(out, "t\tx", 3, 0);
		assert_string_equal(out, "t\\x09x");
		text_escape(out, "ab\xc3\xa9", 3, 0);
		assert_string_equal(out, "ab\\xc3");
	}
}

/* The call before a return address (ctl/callsite.c): only a direct call
 * that ends exactly there gives a target. */
static void
test_callsite(void **state)
{
#if defined(__x86_64__)
	/* call rel32 to 0x1000 from ra 0x2005: rel32 = 0x1000 - 0x2005. */
	static const unsigned char direct[] = { 0x90, 0x90, 0x90,
	    0xe8, 0xfb, 0xef, 0xff, 0xff };
	static const unsigned char reg[] = { 0x90, 0x90, 0x90, 0x90, 0x90,
	    0x90, 0xff, 0xd0 };					/* call *%rax */
	static const unsigned char mem[] = { 0x90, 0x90, 0xff, 0x15,
	    0x10, 0x00, 0x00, 0x00 };				/* call *0x10(%rip) */
	static const unsigned char jmp[] = { 0x90, 0x90, 0x90,
	    0xe9, 0xfb, 0xef, 0xff, 0xff };			/* jmp rel32 */
	/* An e8 byte that is not where the call would start. */
	static const unsigned char shifted[] = { 0x90, 0x90, 0xe8,
	    0xfb, 0xef, 0xff, 0xff, 0x90 };
	uint64_t target = 0;
	csh cs;

	(void)state;
	assert_int_equal(callsite_open(&cs, 1), 0);
	assert_int_equal(callsite_target(cs, direct, sizeof(direct), 0x2005, &target), 1);
	assert_true(target == 0x1000);
	/* Five bytes are enough; four are not. */
	assert_int_equal(callsite_target(cs, direct + 3, 5, 0x2005, &target), 1);
	assert_int_equal(callsite_target(cs, direct + 4, 4, 0x2005, &target), 0);
	assert_int_equal(callsite_target(cs, reg, sizeof(reg), 0x2005, &target), 0);
	assert_int_equal(callsite_target(cs, mem, sizeof(mem), 0x2005, &target), 0);
	assert_int_equal(callsite_target(cs, jmp, sizeof(jmp), 0x2005, &target), 0);
	assert_int_equal(callsite_target(cs, shifted, sizeof(shifted), 0x2005, &target), 0);
	/* No room below address 5 for the call. */
	assert_int_equal(callsite_target(cs, direct, sizeof(direct), 4, &target), 0);
	cs_close(&cs);
#else
	(void)state;
	skip();
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_prof_order_and_percent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prof_json_images_limit, setup, teardown),
		cmocka_unit_test(test_json_string_utf8),
		cmocka_unit_test(test_esc),
		cmocka_unit_test_setup_teardown(test_prof_hosts_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prof_corrupt_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_db_and_epoch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epoch_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epochs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prof_vdso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prof_paths, setup, teardown),
		cmocka_unit_test(test_callsite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
