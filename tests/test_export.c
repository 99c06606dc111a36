/*
 * Exporters and readers of other tools' formats (lib/dcpi/export.h): round
 * trips that keep every count, and malformed files that fail with a
 * message naming the file and where.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dcpi/export.h>
#include <dcpi/image.h>
#include <dcpi/profile.h>
#include <dcpi/symbol.h>

#include "export_util.h"

/* Calls that must succeed, failing the test with the library's message. */
#define OK(call) do { if ((call) != 0) fail_msg("%s: %s", #call, err.msg); } while (0)

static struct dcpi_profile *
mkprof(const char *image, const char *path, const char *event, uint64_t period,
    uint64_t tstart, uint64_t tsize, const struct dcpi_count *c, size_t n)
{
	return mkprof_label(image, path, event, period, tstart, tsize, NULL, c, n);
}

static void
assert_same_counts(const struct dcpi_profile *a, const struct dcpi_profile *b)
{
	size_t i;

	assert_int_equal(a->n_counts, b->n_counts);
	for (i = 0; i < a->n_counts; i++) {
		assert_int_equal(a->counts[i].offset, b->counts[i].offset);
		assert_int_equal(a->counts[i].count, b->counts[i].count);
	}
}

static const struct dcpi_count counts_a[] = {
	{ 0, 1 }, { 0x11, 70000 }, { 0x12, 65535 }, { 0x14, 65536 }, { 0x3ff, 4000000000u },
	{ 0x1000, 3 },
};
static const struct dcpi_count counts_b[] = { { 4, 9 }, { 0x7ffe, 200000 } };

static void
test_pprof_round_trip(void **state)
{
	struct dcpi_profile *p[2], **back;
	struct dcpi_pprof *pp;
	struct dcpi_error err;
	size_t len, n;
	void *buf;

	p[0] = mkprof("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, counts_a, 6);
	p[1] = mkprof("bb22", "/lib/libb.so.1", "perf::cpu-clock", 1000000, 0x4000, 0x8000, counts_b, 2);
	OK(dcpi_pprof_encode((const struct dcpi_profile *const *)p, NULL, 2,
	    &buf, &len, &err));
	assert_int_equal(dcpi_format_detect(buf, len), DCPI_FMT_PPROF);
	OK(dcpi_pprof_parse(buf, len, "x.prof", &pp, &err));
	assert_int_equal(pp->slot, 8);
	assert_int_equal(pp->period_us, 1000);
	assert_int_equal(pp->n_maps, 2);
	/* Non-overlapping ranges, each covering its text. */
	assert_true(pp->maps[0].end <= pp->maps[1].start);
	assert_true(pp->maps[0].end - pp->maps[0].start >= 0x2000);
	assert_int_equal(pp->maps[1].offset, 0x4000);
	assert_int_equal(pp->total, 1 + 70000 + 65535 + 65536 + 4000000000ull + 3 + 9 + 200000);
	if (dcpi_pprof_to_profiles(pp, "x.prof", &back, &n, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(n, 2);
	assert_string_equal(back[0]->image, "aa11");
	assert_string_equal(back[1]->path, "/lib/libb.so.1");
	assert_int_equal(back[1]->tstart, 0x4000);
	assert_int_equal(back[0]->period, 1000000);
	assert_same_counts(p[0], back[0]);
	assert_same_counts(p[1], back[1]);

	/* The same through an image description, as import --image does. */
	struct dcpi_image_info info = { .path = "/lib/libb.so.1", .image = "bb22",
	    .tstart = 0x4000, .tsize = 0x8000, .toffset = 0x4000 };
	struct dcpi_profile *q;
	uint64_t dropped;

	OK(dcpi_pprof_to_profile(pp, "x.prof", &info, &q, &dropped, &err));
	assert_same_counts(p[1], q);
	assert_int_equal(dropped, 1 + 70000 + 65535 + 65536 + 4000000000ull + 3);
	dcpi_profile_free(q);
	info.path = "/nonexistent/elsewhere";
	assert_int_equal(dcpi_pprof_to_profile(pp, "x.prof", &info, &q, &dropped, &err), -1);
	assert_non_null(strstr(err.msg, "no mapping"));

	dcpi_profile_free(back[0]);
	dcpi_profile_free(back[1]);
	free(back);
	dcpi_pprof_free(pp);
	free(buf);
	dcpi_profile_free(p[0]);
	dcpi_profile_free(p[1]);
}

static void
test_gmon_round_trip(void **state)
{
	struct dcpi_profile *p, *q;
	struct dcpi_gmon *g;
	struct dcpi_error err;
	uint64_t dropped;
	size_t len, i;
	void *buf;
	/* Even offsets: gmon bins are 2 bytes (gprof's UNIT). */
	static const struct dcpi_count c[] = { { 0, 5 }, { 0x10, 65535 }, { 0x12, 65536 },
		{ 0x20, 200000 }, { 0x1ffe, 1 } };

	p = mkprof("cc33", "/usr/bin/c", "perf::cpu-clock", 1000000, 0x401000, 0x2000, c, 5);
	OK(dcpi_gmon_encode(p, &buf, &len, &err));
	assert_int_equal(dcpi_format_detect(buf, len), DCPI_FMT_GMON);
	OK(dcpi_gmon_parse(buf, len, "gmon.out", &g, &err));
	/* Bins 0..8 share a record; 65536 needs two one-bin records of its
	 * own range, 200000 four; 0xfff (past a gap) one. */
	assert_int_equal(g->n_hist_records, 8);
	assert_int_equal(g->n_hists, 4);
	assert_int_equal(len, 20 + (41 + 18) + 6 * (41 + 2) + (41 + 2));
	assert_int_equal(g->hists[0].low_pc, 0x401000);
	assert_int_equal(g->hists[0].high_pc, 0x401012);
	assert_int_equal(g->hists[2].n_records, 4);
	assert_int_equal(g->hists[2].bins[0], 200000);
	assert_int_equal(g->total, 5 + 65535 + 65536 + 200000 + 1);
	assert_string_equal(g->dimen, "seconds");
	assert_int_equal(g->abbrev, 's');
	assert_int_equal(g->rate, 1000);
	struct dcpi_image_info info = { .path = "/usr/bin/c", .image = "cc33",
	    .tstart = 0x401000, .tsize = 0x2000 };
	OK(dcpi_gmon_to_profile(g, "gmon.out", &info, &q, &dropped, &err));
	assert_int_equal(dropped, 0);
	assert_string_equal(q->event, "perf::cpu-clock");
	assert_int_equal(q->period, 1000000);
	assert_same_counts(p, q);
	dcpi_profile_free(q);
	dcpi_gmon_free(g);
	free(buf);
	dcpi_profile_free(p);

	/* Odd offsets share their even neighbour's bin; nothing is lost, and a
	 * count near 2^32 costs one small record per 65,535. */
	static const struct dcpi_count even_a[] = { { 0, 1 }, { 0x10, 70000 }, { 0x12, 65535 },
		{ 0x14, 65536 }, { 0x3fe, 4000000000u }, { 0x1000, 3 } };
	p = mkprof("dd44", "/usr/bin/d", "INST_RETIRED:ANY_P", 2000003, 0x1000, 0x2000, counts_a, 6);
	OK(dcpi_gmon_encode(p, &buf, &len, &err));
	assert_true(len < 3000000);
	OK(dcpi_gmon_parse(buf, len, "gmon.out", &g, &err));
	assert_string_equal(g->dimen, "INST_RETIRED:AN");
	assert_int_equal(g->abbrev, '1');
	assert_int_equal(g->rate, 1);
	info.tstart = 0x1000;
	OK(dcpi_gmon_to_profile(g, "gmon.out", &info, &q, &dropped, &err));
	dcpi_profile_free(p);
	p = mkprof("dd44", "/usr/bin/d", "x", 1, 0x1000, 0x2000, even_a, 6);
	assert_same_counts(p, q);
	for (i = 0; i < g->n_hists; i++)
		assert_true(g->hists[i].n_bins < 100);
	dcpi_profile_free(q);
	dcpi_gmon_free(g);
	free(buf);
	dcpi_profile_free(p);
}

/* A fake symbolizer: procedures of 0x100 bytes named f0, f1, ... */
static int
fake_resolve(void *arg, const struct dcpi_profile *p, uint32_t off, struct dcpi_export_loc *loc)
{
	static char name[32];

	if (off >= 0x1000)
		return -1;
	snprintf(name, sizeof(name), "f%u", off / 0x100);
	loc->proc = name;
	loc->proc_offset = off & ~0xffu;
	loc->file = "src/x.c";
	loc->line = 10 + off / 4;
	return 0;
}

static void
test_callgrind(void **state)
{
	struct dcpi_profile *p[3];
	struct dcpi_callgrind *cg;
	struct dcpi_error err;
	size_t len, i, k;
	void *buf;
	static const struct dcpi_count e2[] = { { 0x11, 4 }, { 0x204, 6 } };

	p[0] = mkprof("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, counts_a, 6);
	p[1] = mkprof("aa11", "/usr/bin/a", "perf::page-faults", 1, 0x1000, 0x2000, e2, 2);
	p[2] = mkprof("bb22", "/lib/libb.so.1", "perf::cpu-clock", 1000000, 0x4000, 0x8000, counts_b, 2);
	OK(dcpi_callgrind_encode((const struct dcpi_profile *const *)p, 3,
	    fake_resolve, NULL, &buf, &len, &err));
	assert_int_equal(dcpi_format_detect(buf, len), DCPI_FMT_CALLGRIND);
	assert_non_null(memmem(buf, len, "positions: instr line\n", 22));
	assert_non_null(memmem(buf, len, "events: cpuclock pagefaults\n", 28));
	OK(dcpi_callgrind_parse(buf, len, "cg.out", &cg, &err));
	assert_int_equal(cg->n_events, 2);
	assert_int_equal(cg->totals[0], 1 + 70000 + 65535 + 65536 + 4000000000ull + 3 + 9 + 200000);
	assert_int_equal(cg->totals[1], 10);
	/* f0 of a: offsets 0, 0x11, 0x12, 0x14; f3 (0x3ff); 0x1000 unresolved. */
	for (i = 0, k = 0; i < cg->n_fns; i++) {
		if (strcmp(cg->fns[i].ob, "/usr/bin/a") != 0)
			continue;
		if (strcmp(cg->fns[i].fn, "f0") == 0) {
			assert_int_equal(cg->fns[i].cost[0], 1 + 70000 + 65535 + 65536);
			assert_int_equal(cg->fns[i].cost[1], 4);
			assert_string_equal(cg->fns[i].fl, "src/x.c");
			k |= 1;
		} else if (strcmp(cg->fns[i].fn, "f3") == 0) {
			assert_int_equal(cg->fns[i].cost[0], 4000000000u);
			k |= 2;
		} else if (strcmp(cg->fns[i].fn, "0x1000") == 0) {
			assert_int_equal(cg->fns[i].cost[0], 3);
			k |= 4;
		} else if (strcmp(cg->fns[i].fn, "f2") == 0) {
			assert_int_equal(cg->fns[i].cost[1], 6);
			k |= 8;
		}
	}
	assert_int_equal(k, 15);
	dcpi_callgrind_free(cg);
	free(buf);
	for (i = 0; i < 3; i++)
		dcpi_profile_free(p[i]);
}

/* A chain cut short by dcpid's unwinding: its [truncated] frame, named by
 * the reason, calls the last frame kept, with the chain's samples; the
 * reader takes the file, totals unchanged. */
static void
test_callgrind_truncated(void **state)
{
	static const struct dcpi_export_frame f[] = { { 0, 0x11 }, { 0, 0x3ff },
	    { DCPI_EXPORT_TRUNCATED, 2 } };
	static const char *const want[] = { "ob=(2) [truncated]\nfl=(",
	    " [truncated: stack-copy]\ncob=(1)\n", "\ncalls=5 0x13ff " };
	const struct dcpi_export_stack st[] = { { 5, 3, f } };
	struct dcpi_profile *p;
	struct dcpi_callgrind *cg;
	struct dcpi_error err;
	const char *at;
	size_t len, i;
	void *buf;

	(void)state;
	p = mkprof("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, counts_a, 6);
	OK(dcpi_callgrind_encode_stacks((const struct dcpi_profile *const *)&p, 1, st, 1,
	    fake_resolve, NULL, &buf, &len, &err));
	/* In this order: the caller's object, name, the callee's object. */
	at = buf;
	for (i = 0; i < 3; i++) {
		at = memmem(at, len - (size_t)(at - (const char *)buf), want[i], strlen(want[i]));
		assert_non_null(at);
	}
	OK(dcpi_callgrind_parse(buf, len, "cg.out", &cg, &err));
	assert_int_equal(cg->totals[0], 1 + 70000 + 65535 + 65536 + 4000000000ull + 3);
	dcpi_callgrind_free(cg);
	free(buf);
	dcpi_profile_free(p);
}

static void
test_callgrind_reader(void **state)
{
	/* The spec's example with compression, calls and relative positions. */
	static const char f[] =
	    "# callgrind format\nversion: 1\ncreator: test\npositions: instr line\n"
	    "events: Ir Dr\nsummary: 2000 10\n\nob=(1) /bin/x\nfl=(1) file1.c\nfn=(1) main\n"
	    "0x10 16 20\ncfn=(2) func1\ncalls=1 0x50 50\n+4 * 400\n+2 +1 5 10\n"
	    "fn=(2)\n0x50 51 100\nfl=(2) file2.c\nfn=(3) func2\n0x80 20 700\n-1 -1 1175\n"
	    "totals: 2000 10\n";
	struct dcpi_callgrind *cg;
	struct dcpi_error err;
	size_t i;

	OK(dcpi_callgrind_parse(f, sizeof(f) - 1, "t.cg", &cg, &err));
	assert_int_equal(cg->n_calls, 1);
	assert_int_equal(cg->n_cost_lines, 5);
	assert_int_equal(cg->totals[0], 2000);
	for (i = 0; i < cg->n_fns; i++)
		if (strcmp(cg->fns[i].fn, "main") == 0)
			assert_int_equal(cg->fns[i].cost[0], 25);
		else if (strcmp(cg->fns[i].fn, "func2") == 0)
			assert_int_equal(cg->fns[i].cost[0], 1875);
	dcpi_callgrind_free(cg);
}

static void
test_xprof(void **state)
{
	struct dcpi_profile *p[2];
	struct dcpi_xprof *x;
	struct dcpi_error err;
	size_t len, i, j, k;
	void *buf;

	p[0] = mkprof("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, counts_a, 6);
	p[1] = mkprof("bb22", "/lib/libb.so.1", "perf::cpu-clock", 1000000, 0x4000, 0x8000, counts_b, 2);
	OK(dcpi_xprof_encode((const struct dcpi_profile *const *)p, 2,
	    fake_resolve, NULL, &buf, &len, &err));
	assert_int_equal(dcpi_format_detect(buf, len), DCPI_FMT_XPROF);
	OK(dcpi_xprof_parse(buf, len, "x.txt", &x, &err));
	assert_int_equal(x->n_objs, 2);
	assert_int_equal(x->n_progs, 2);
	/* Every sample comes back as (procedure start + counter id, value). */
	for (i = 0; i < 2; i++) {
		size_t seen = 0;

		for (j = 0; j < x->objs[i].n_procs; j++) {
			const struct dcpi_xprof_proc *pr = &x->objs[i].procs[j];
			uint64_t start;

			if (strncmp(pr->name, "unknown_0x", 10) == 0)
				start = strtoull(pr->name + 10, NULL, 16);
			else
				start = 0x100 * strtoull(pr->name + 1, NULL, 10);
			for (k = 0; k < pr->n_counters; k++, seen++)
				assert_int_equal(dcpi_profile_count(p[i], start + pr->counters[k].id),
				    pr->counters[k].value);
		}
		assert_int_equal(seen, p[i]->n_counts);
		assert_int_equal(x->objs[i].sum, dcpi_profile_total_samples(p[i]));
	}
	dcpi_xprof_free(x);
	free(buf);
	dcpi_profile_free(p[0]);
	dcpi_profile_free(p[1]);
}

static void
expect_error(int r, const struct dcpi_error *err, const char *file, const char *where,
    const char *rule)
{
	assert_int_equal(r, -1);
	assert_int_equal(errno, EINVAL);
	if (strstr(err->msg, file) == NULL || strstr(err->msg, where) == NULL ||
	    strstr(err->msg, rule) == NULL || strchr(err->msg, '\n') != NULL)
		fail_msg("message \"%s\" lacks \"%s\", \"%s\" or \"%s\"", err->msg, file, where, rule);
}

static void
test_malformed(void **state)
{
	struct dcpi_profile *p;
	struct dcpi_pprof *pp;
	struct dcpi_gmon *g;
	struct dcpi_callgrind *cg;
	struct dcpi_xprof *x;
	struct dcpi_error err;
	unsigned char *b;
	size_t len;
	void *buf;

	p = mkprof("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, counts_a, 6);
	/* pprof: no trailer; a record of zero PCs; a count-0 record. */
	OK(dcpi_pprof_encode((const struct dcpi_profile *const *)&p, NULL, 1,
	    &buf, &len, &err));
	b = buf;
	expect_error(dcpi_pprof_parse(b, 40 + 6 * 24, "t.prof", &pp, &err), &err, "t.prof",
	    "byte 184", "no binary trailer");
	assert_null(pp);
	b[40 + 24 + 8] = 0;
	expect_error(dcpi_pprof_parse(b, len, "t.prof", &pp, &err), &err, "t.prof",
	    "byte 64", "PCs");
	b[40 + 24 + 8] = 1;
	memset(b + 40 + 24, 0, 8);
	expect_error(dcpi_pprof_parse(b, len, "t.prof", &pp, &err), &err, "t.prof",
	    "byte 64", "count 0");
	expect_error(dcpi_pprof_parse("\1\0\0\0\0\0\0\0", 8, "t.prof", &pp, &err), &err,
	    "t.prof", "byte 0", "not a gperftools");
	free(buf);

	/* gmon: bad version, unknown tag, truncated bins. */
	OK(dcpi_gmon_encode(p, &buf, &len, &err));
	b = buf;
	b[4] = 2;
	expect_error(dcpi_gmon_parse(b, len, "g.out", &g, &err), &err, "g.out", "byte 4", "version");
	b[4] = 1;
	expect_error(dcpi_gmon_parse(b, 20 + 41 + 1, "g.out", &g, &err), &err, "g.out", "byte 20",
	    "past the end");
	b[20] = 7;
	expect_error(dcpi_gmon_parse(b, len, "g.out", &g, &err), &err, "g.out", "byte 20", "tag 7");
	assert_null(g);
	free(buf);

	/* Callgrind. */
	static const char c1[] = "events: A\nfn=f\n1 2\nfoo bar\n";
	static const char c2[] = "events: A B\nfn=f\n1 2 3 4\n";
	static const char c3[] = "events: A\nfn=(3)\n1 2\n";
	static const char c4[] = "events: A\nfn=f\n1 2\ntotals: 3\n";
	static const char c5[] = "fn=f\n1 2\n";
	expect_error(dcpi_callgrind_parse(c1, sizeof(c1) - 1, "c.cg", &cg, &err), &err, "c.cg",
	    "line 4", "expected a header line");
	expect_error(dcpi_callgrind_parse(c2, sizeof(c2) - 1, "c.cg", &cg, &err), &err, "c.cg",
	    "line 3", "more costs");
	expect_error(dcpi_callgrind_parse(c3, sizeof(c3) - 1, "c.cg", &cg, &err), &err, "c.cg",
	    "line 2", "before it is defined");
	expect_error(dcpi_callgrind_parse(c4, sizeof(c4) - 1, "c.cg", &cg, &err), &err, "c.cg",
	    "line 4", "add up to 2");
	expect_error(dcpi_callgrind_parse(c5, sizeof(c5) - 1, "c.cg", &cg, &err), &err, "c.cg",
	    "line 2", "before the events");
	assert_null(cg);

	/* xprof. */
	static const char x1[] = "PROFILE-FEEDBACK-DATA: 4.3 1 0 0\nOBJFILE: /a 1 0 0 0\n0x1\n"
	    "PROC: f 0x2 2 0 0 0\n0 5\n4 x\n";
	static const char x2[] = "PROFILE-FEEDBACK-DATA: 4.3 1 0 0\nOBJFILE: /a 1 0 0 0\n0x1\nsum 9\n"
	    "PROC: f 0x2 1 0 0 0\n0 5\n";
	static const char x3[] = "PROFILE-FEEDBACK-DATA: 4.3 0 1 0\nPROGRAM: /p 1\nOBJREF: /a\n";
	static const char x4[] = "PROFILE-FEEDBACK-DATA: 4.3 0 0 0\nPROC: f\n";
	expect_error(dcpi_xprof_parse(x1, sizeof(x1) - 1, "p.txt", &x, &err), &err, "p.txt",
	    "line 6", "counter value");
	expect_error(dcpi_xprof_parse(x2, sizeof(x2) - 1, "p.txt", &x, &err), &err, "p.txt",
	    "line 2", "add up to 5");
	expect_error(dcpi_xprof_parse(x3, sizeof(x3) - 1, "p.txt", &x, &err), &err, "p.txt",
	    "line 3", "names no OBJFILE");
	expect_error(dcpi_xprof_parse(x4, sizeof(x4) - 1, "p.txt", &x, &err), &err, "p.txt",
	    "line 2", "end of the file");
	assert_null(x);
	dcpi_profile_free(p);
}

/* The AutoFDO export's subject: a function of this test program, with
 * DWARF as the test is built (-g). */
volatile unsigned afdo_sink;
unsigned afdo_probe_fn(unsigned n);

__attribute__((noinline)) unsigned
afdo_probe_fn(unsigned n)
{
	unsigned i, x = 1;

	for (i = 0; i < n; i++)
		x = x * 33 + i;
	afdo_sink = x;
	return x;
}

/* This program's own image, its table and afdo_probe_fn's extent. */
static struct dcpi_symtab *
self_table(struct dcpi_elf_image *ei, const struct dcpi_symbol **fn)
{
	struct dcpi_symtab_opts o = { .no_debuginfod = 1 };
	struct dcpi_error err;
	struct dcpi_symtab *t;

	assert_int_equal(afdo_probe_fn(3) != 0, 1);
	OK(dcpi_elf_image_path("/proc/self/exe", 0, ei, &err));
	t = dcpi_symtab_open("/proc/self/exe", ei->id, ei->tstart, &o, &err);
	if (t == NULL)
		fail_msg("dcpi_symtab_open: %s", err.msg);
	assert_non_null(*fn = dcpi_symtab_find(t, "afdo_probe_fn"));
	return t;
}

static void
test_afdo(void **state)
{
	struct dcpi_elf_image ei = { 0 };
	const struct dcpi_symbol *fn;
	struct dcpi_symtab *t = self_table(&ei, &fn);
	struct dcpi_count ca[3], cb[1];
	const struct dcpi_profile *pp[2];
	struct dcpi_profile *a, *b;
	struct dcpi_afdo_stats st;
	struct dcpi_error err;
	char *text, *line, *save;
	void *buf;
	size_t len, i;
	unsigned head, total, sum = 0, c;

	(void)state;
	/* The entry and two more instructions; the second label's samples
	 * at the entry add to the first's before a line takes its most. */
	ca[0].offset = (uint32_t)fn->start;
	ca[0].count = 5;
	ca[1].offset = (uint32_t)(fn->start + fn->size / 2);
	ca[1].count = 40;
	ca[2].offset = (uint32_t)(fn->start + fn->size - 1);
	ca[2].count = 3;
	cb[0].offset = (uint32_t)fn->start;
	cb[0].count = 7;
	a = mkprof_label(ei.id, "/proc/self/exe", "perf::cpu-clock", 1000000, ei.tstart,
	    ei.tsize, NULL, ca, 3);
	b = mkprof_label(ei.id, "/proc/self/exe", "perf::cpu-clock", 1000000, ei.tstart,
	    ei.tsize, "unit:x.service", cb, 1);
	pp[0] = a;
	pp[1] = b;
	OK(dcpi_afdo_encode(pp, 2, t, NULL, 0, &st, &buf, &len, &err));
	assert_int_equal(st.samples, 55);
	assert_int_equal(st.placed, 55);
	assert_int_equal(st.functions, 1);
	text = malloc(len + 1);
	assert_non_null(text);
	memcpy(text, buf, len);
	text[len] = '\0';
	free(buf);
	/* NAME:TOTAL:HEAD, then " OFFSET[.DISCR]: COUNT" lines whose
	 * COUNTs add up to TOTAL; the entry's 12 samples are HEAD (the
	 * prologue) or a line's. */
	assert_int_equal(sscanf(text, "afdo_probe_fn:%u:%u\n", &total, &head), 2);
	line = strtok_r(text, "\n", &save);
	i = 0;
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		unsigned off;

		assert_int_equal(line[0], ' ');
		assert_true(sscanf(line, " %u", &off) == 1 && off < 64);
		assert_non_null(strstr(line, ": "));
		c = (unsigned)strtoul(strstr(line, ": ") + 2, NULL, 10);
		assert_true(c == 12 || c == 40 || c == 3 || c == 0);
		if (c == 12)
			i++;
		sum += c;
	}
	assert_int_equal(sum, total);
	assert_true(head == 12 || i == 1);
	assert_true(total >= 40 && total <= 55);
	free(text);

	/* Profiles of two images: refused. */
	free(b->image);
	assert_non_null(b->image = strdup("00ff"));
	assert_int_equal(dcpi_afdo_encode(pp, 2, t, NULL, 0, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "one image"));
	assert_int_equal(dcpi_afdo_encode(pp, 0, t, NULL, 0, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	/* Samples outside every DWARF function: nothing to write. */
	a->counts[0].offset = 0;
	a->n_counts = 1;
	if (dcpi_symtab_lookup(t, 0) == NULL) {
		assert_int_equal(dcpi_afdo_encode(pp, 1, t, NULL, 0, NULL, &buf, &len, &err), -1);
		assert_int_equal(errno, ENODATA);
	}
	dcpi_profile_free(a);
	dcpi_profile_free(b);
	dcpi_symtab_close(t);
	dcpi_elf_image_clear(&ei);
}

/* An image without DWARF: the message names the debug file it needs. */
static void
test_afdo_nodwarf(void **state)
{
	struct dcpi_symtab_opts o = { .no_debuginfod = 1, .debugdir = "/nonexistent" };
	struct dcpi_elf_image ei = { 0 };
	struct dcpi_count c = { 0, 1 };
	const struct dcpi_profile *pp[1];
	struct dcpi_profile *p;
	struct dcpi_symtab *t;
	struct dcpi_error err;
	char want[200];
	void *buf;
	size_t len;

	(void)state;
	/* Debian's programs come stripped, their DWARF in -dbgsym. */
	OK(dcpi_elf_image_path("/bin/true", 0, &ei, &err));
	if ((t = dcpi_symtab_open("/bin/true", ei.id, ei.tstart, &o, &err)) == NULL)
		fail_msg("dcpi_symtab_open /bin/true: %s", err.msg);
	p = mkprof_label(ei.id, "/bin/true", "perf::cpu-clock", 1000000, ei.tstart, ei.tsize,
	    NULL, &c, 1);
	pp[0] = p;
	assert_int_equal(dcpi_afdo_encode(pp, 1, t, NULL, 0, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, ENODATA);
	snprintf(want, sizeof(want), "/nonexistent/.build-id/%.2s/%s.debug", ei.id, ei.id + 2);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s' does not name %s", err.msg, want);
	dcpi_profile_free(p);
	dcpi_symtab_close(t);
	dcpi_elf_image_clear(&ei);
}

static void
test_detect(void **state)
{
	assert_int_equal(dcpi_format_detect("version pdb-0.07\n", 17), DCPI_FMT_DCPI);
	assert_int_equal(dcpi_format_detect("gmon\1\0\0\0", 8), DCPI_FMT_GMON);
	assert_int_equal(dcpi_format_detect("# x\nevents: Ir\n", 15), DCPI_FMT_CALLGRIND);
	assert_int_equal(dcpi_format_detect("hello world\n", 12), DCPI_FMT_UNKNOWN);
	assert_true(dcpi_event_is_time("perf::cpu-clock:u"));
	assert_true(dcpi_event_is_time("task-clock"));
	assert_false(dcpi_event_is_time("perf::page-faults"));
	assert_false(dcpi_event_is_time("cycles"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_round_trip),
		cmocka_unit_test(test_gmon_round_trip),
		cmocka_unit_test(test_callgrind),
		cmocka_unit_test(test_callgrind_truncated),
		cmocka_unit_test(test_callgrind_reader),
		cmocka_unit_test(test_xprof),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_afdo),
		cmocka_unit_test(test_afdo_nodwarf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
