/*
 * pprof's profile.proto export (dcpi_pprof_proto_encode, lib/dcpi/export.h):
 * the gzip is inflated and the protobuf read back field by field with a
 * reader of the test's own (proto/profile.proto's field numbers), and the
 * fields checked: the string table, sample and period types, mappings
 * with build ids that hold their locations, lines and functions from the
 * symbolizer, stacks leaf first with the flat rest, labels, times and
 * comments.
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
#include <zlib.h>

#include <dcpi/export.h>
#include <dcpi/profile.h>

#include "export_util.h"

#define OK(call) do { if ((call) != 0) fail_msg("%s: %s", #call, err.msg); } while (0)

/* ---- a protobuf field reader: varint and length-delimited fields ---- */

struct field {
	unsigned	 num, wt;
	uint64_t	 v;		/* varint */
	const uint8_t	*p;		/* length-delimited: p[0..n) */
	size_t		 n;
};

static uint64_t
varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		assert_true(*p < end);
		assert_true(shift < 64);
		v |= (uint64_t)(**p & 0x7f) << shift;
		if ((*(*p)++ & 0x80) == 0)
			return v;
		shift += 7;
	}
}

/* The next field of [*p, end), or 0 at the end. */
static int
next(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t key;

	if (*p == end)
		return 0;
	key = varint(p, end);
	f->num = (unsigned)(key >> 3);
	f->wt = (unsigned)(key & 7);
	f->p = NULL;
	f->n = 0;
	f->v = 0;
	if (f->wt == 0)
		f->v = varint(p, end);
	else if (f->wt == 2) {
		f->n = (size_t)varint(p, end);
		assert_true(f->n <= (size_t)(end - *p));
		f->p = *p;
		*p += f->n;
	} else
		fail_msg("wire type %u: the writer uses varints and lengths only", f->wt);
	return 1;
}

/* A repeated varint field, packed (one length-delimited field) or not. */
static size_t
repeated(const struct field *f, uint64_t *out, size_t max, size_t n)
{
	const uint8_t *p = f->p;

	if (f->wt == 0) {
		assert_true(n < max);
		out[n++] = f->v;
		return n;
	}
	while (p < f->p + f->n) {
		assert_true(n < max);
		out[n++] = varint(&p, f->p + f->n);
	}
	return n;
}

/* ---- the Profile, decoded ---- */

#define MAX 64
struct vt { uint64_t type, unit; };
struct sample { uint64_t loc[MAX]; size_t n_loc; uint64_t val[4]; size_t n_val;
	uint64_t lkey, lstr; int n_label; };
struct mapping { uint64_t id, start, limit, off, file, bid, hasfn, hasfl, hasln; };
struct location { uint64_t id, map, addr, fid, line; int n_lines; };
struct function { uint64_t id, name, sys, file, start_line; };
struct prof {
	char		*str[MAX];
	size_t		 n_str;
	struct vt	 st[4], pt;
	size_t		 n_st;
	struct sample	 s[MAX];
	size_t		 n_s;
	struct mapping	 m[8];
	size_t		 n_m;
	struct location	 l[MAX];
	size_t		 n_l;
	struct function	 f[MAX];
	size_t		 n_f;
	uint64_t	 time, dur, period, comment[8];
	size_t		 n_comment;
};

static void
value_type(const struct field *f, struct vt *vt)
{
	const uint8_t *p = f->p;
	struct field g;

	memset(vt, 0, sizeof(*vt));
	while (next(&p, f->p + f->n, &g))
		if (g.num == 1)
			vt->type = g.v;
		else if (g.num == 2)
			vt->unit = g.v;
}

static void
decode(const void *gz, size_t gz_len, struct prof *pr)
{
	static uint8_t raw[1 << 20];
	const uint8_t *p, *q, *r, *end;
	struct field f, g, h;
	z_stream z;

	/* gzip (windowBits 15 + 16 only: zlib's header would be an error). */
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)(uintptr_t)gz;
	z.avail_in = (unsigned)gz_len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	end = raw + z.total_out;
	inflateEnd(&z);

	memset(pr, 0, sizeof(*pr));
	p = raw;
	while (next(&p, end, &f)) {
		switch (f.num) {
		case 1:
			assert_true(pr->n_st < 4);
			value_type(&f, &pr->st[pr->n_st++]);
			break;
		case 2: {
			struct sample *s = &pr->s[pr->n_s++];

			assert_true(pr->n_s <= MAX);
			for (q = f.p; next(&q, f.p + f.n, &g); )
				if (g.num == 1)
					s->n_loc = repeated(&g, s->loc, MAX, s->n_loc);
				else if (g.num == 2)
					s->n_val = repeated(&g, s->val, 4, s->n_val);
				else if (g.num == 3) {
					s->n_label++;
					for (r = g.p; next(&r, g.p + g.n, &h); )
						if (h.num == 1)
							s->lkey = h.v;
						else if (h.num == 2)
							s->lstr = h.v;
				}
			break;
		}
		case 3: {
			struct mapping *m = &pr->m[pr->n_m++];

			assert_true(pr->n_m <= 8);
			for (q = f.p; next(&q, f.p + f.n, &g); ) {
				uint64_t *to[] = { NULL, &m->id, &m->start, &m->limit, &m->off,
				    &m->file, &m->bid, &m->hasfn, &m->hasfl, &m->hasln };

				if (g.num >= 1 && g.num <= 9)
					*to[g.num] = g.v;
			}
			break;
		}
		case 4: {
			struct location *l = &pr->l[pr->n_l++];

			assert_true(pr->n_l <= MAX);
			for (q = f.p; next(&q, f.p + f.n, &g); )
				if (g.num == 1)
					l->id = g.v;
				else if (g.num == 2)
					l->map = g.v;
				else if (g.num == 3)
					l->addr = g.v;
				else if (g.num == 4) {
					l->n_lines++;
					for (r = g.p; next(&r, g.p + g.n, &h); )
						if (h.num == 1)
							l->fid = h.v;
						else if (h.num == 2)
							l->line = h.v;
				}
			break;
		}
		case 5: {
			struct function *fn = &pr->f[pr->n_f++];

			assert_true(pr->n_f <= MAX);
			for (q = f.p; next(&q, f.p + f.n, &g); ) {
				uint64_t *to[] = { NULL, &fn->id, &fn->name, &fn->sys, &fn->file,
				    &fn->start_line };

				if (g.num >= 1 && g.num <= 5)
					*to[g.num] = g.v;
			}
			break;
		}
		case 6:
			assert_int_equal(f.wt, 2);
			assert_true(pr->n_str < MAX);
			pr->str[pr->n_str] = calloc(1, f.n + 1);
			assert_non_null(pr->str[pr->n_str]);
			memcpy(pr->str[pr->n_str++], f.p, f.n);
			break;
		case 9: pr->time = f.v; break;
		case 10: pr->dur = f.v; break;
		case 11: value_type(&f, &pr->pt); break;
		case 12: pr->period = f.v; break;
		case 13: pr->n_comment = repeated(&f, pr->comment, 8, pr->n_comment); break;
		default: fail_msg("unexpected Profile field %u", f.num);
		}
	}
	assert_true(pr->n_str >= 1);
	assert_string_equal(pr->str[0], "");
}

static void
prof_free(struct prof *pr)
{
	size_t i;

	for (i = 0; i < pr->n_str; i++)
		free(pr->str[i]);
}

/* string_table[i], checked to be in range. */
static const char *
S(const struct prof *pr, uint64_t i)
{
	assert_true(i < pr->n_str);
	return pr->str[i];
}

/* The element of v[0..n) (of size bytes each, a uint64_t id first:
 * locations, mappings, functions) whose id is id; fails the test if none. */
static const void *
by_id(const void *v, size_t n, size_t size, uint64_t id, const char *what)
{
	const char *e = v;
	size_t i;

	for (i = 0; i < n; i++, e += size)
		if (*(const uint64_t *)(const void *)e == id)
			return e;
	fail_msg("no %s %llu", what, (unsigned long long)id);
	return NULL;
}
#define loc(pr, id)	((const struct location *)by_id((pr)->l, (pr)->n_l, \
			    sizeof((pr)->l[0]), (id), "location"))
#define map(pr, id)	((const struct mapping *)by_id((pr)->m, (pr)->n_m, \
			    sizeof((pr)->m[0]), (id), "mapping"))
#define func(pr, id)	((const struct function *)by_id((pr)->f, (pr)->n_f, \
			    sizeof((pr)->f[0]), (id), "function"))

/* ---- profiles and a symbolizer ---- */

/* Image "aa11": f at [0, 0x100) (a.c, line 10 at its start, a line per 16
 * bytes), g at [0x100, 0x200) without lines; nothing beyond. */
static int
resolve(void *arg, const struct dcpi_profile *p, uint32_t offset, struct dcpi_export_loc *l)
{
	(void)arg;
	if (strcmp(p->image, "aa11") != 0 || offset >= 0x200)
		return -1;
	l->proc = offset < 0x100 ? "f" : "g";
	l->proc_offset = offset < 0x100 ? 0 : 0x100;
	l->file = offset < 0x100 ? "a.c" : NULL;
	l->line = offset < 0x100 ? 10 + offset / 16 : 0;
	return 0;
}

static const struct dcpi_count counts_web[] = { { 0x10, 5 }, { 0x120, 7 } };
static const struct dcpi_count counts_db[] = { { 0x10, 2 } };
static const struct dcpi_count counts_b[] = { { 0x4, 90 } };

static void
test_proto_flat(void **state)
{
	struct dcpi_profile *p[3];
	const char *comments[] = { "dcpi: host h1", "second" };
	struct dcpi_proto_meta meta = { 1700000000000000000LL, 3600000000000LL, comments, 2 };
	uint64_t toff[3] = { 0x1000, 0x1000, UINT64_MAX }, total = 0;
	struct dcpi_error err;
	struct prof pr;
	size_t len, i, k, web = 0, db = 0;
	void *buf;

	(void)state;
	p[0] = mkprof_label("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, "web",
	    counts_web, 2);
	p[1] = mkprof_label("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, "db",
	    counts_db, 1);
	p[2] = mkprof_label("bb22", "/lib/libb.so", "perf::cpu-clock", 1000000, 0x4000, 0x800, NULL,
	    counts_b, 1);
	OK(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)p, toff, 3, NULL, 0,
	    resolve, NULL, &meta, &buf, &len, &err));
	/* gzip's magic: what the servers and pprof look for. */
	assert_true(len > 2 && ((uint8_t *)buf)[0] == 0x1f && ((uint8_t *)buf)[1] == 0x8b);
	decode(buf, len, &pr);

	assert_int_equal(pr.n_st, 2);
	assert_string_equal(S(&pr, pr.st[0].type), "samples");
	assert_string_equal(S(&pr, pr.st[0].unit), "count");
	assert_string_equal(S(&pr, pr.st[1].type), "cpu");
	assert_string_equal(S(&pr, pr.st[1].unit), "nanoseconds");
	assert_string_equal(S(&pr, pr.pt.type), "cpu");
	assert_string_equal(S(&pr, pr.pt.unit), "nanoseconds");
	assert_int_equal(pr.period, 1000000);
	assert_int_equal(pr.time, 1700000000000000000ULL);
	assert_int_equal(pr.dur, 3600000000000ULL);
	assert_int_equal(pr.n_comment, 2);
	assert_string_equal(S(&pr, pr.comment[0]), "dcpi: host h1");
	assert_string_equal(S(&pr, pr.comment[1]), "second");

	/* One mapping per image, the labels' profiles sharing it; the image
	 * with the most samples first (pprof's "File"). */
	assert_int_equal(pr.n_m, 2);
	assert_string_equal(S(&pr, pr.m[0].bid), "bb22");
	assert_string_equal(S(&pr, pr.m[0].file), "/lib/libb.so");
	assert_int_equal(pr.m[0].off, 0x4000);	/* UINT64_MAX: tstart */
	assert_int_equal(pr.m[0].hasfn, 0);
	assert_string_equal(S(&pr, pr.m[1].bid), "aa11");
	assert_string_equal(S(&pr, pr.m[1].file), "/usr/bin/a");
	assert_int_equal(pr.m[1].off, 0x1000);
	assert_int_equal(pr.m[1].hasfn, 1);
	assert_int_equal(pr.m[1].hasln, 0);	/* g has no lines */
	assert_true(pr.m[0].limit <= pr.m[1].start);
	assert_true(pr.m[1].limit - pr.m[1].start >= 0x2000);

	/* One sample per (profile, PC); one location per PC. */
	assert_int_equal(pr.n_s, 4);
	assert_int_equal(pr.n_l, 3);
	for (i = 0; i < pr.n_s; i++) {
		const struct location *l;
		const struct mapping *m;

		assert_int_equal(pr.s[i].n_loc, 1);
		assert_int_equal(pr.s[i].n_val, 2);
		assert_int_equal(pr.s[i].val[1], pr.s[i].val[0] * 1000000);
		total += pr.s[i].val[0];
		l = loc(&pr, pr.s[i].loc[0]);
		m = map(&pr, l->map);
		assert_true(l->addr >= m->start && l->addr < m->limit);
		if (m->id == pr.m[0].id) {
			assert_int_equal(l->addr - m->start, 0x4);
			assert_int_equal(l->n_lines, 0);
			assert_int_equal(pr.s[i].n_label, 0);
			continue;
		}
		assert_int_equal(pr.s[i].n_label, 1);
		assert_string_equal(S(&pr, pr.s[i].lkey), "label");
		if (strcmp(S(&pr, pr.s[i].lstr), "web") == 0)
			web += pr.s[i].val[0];
		else if (strcmp(S(&pr, pr.s[i].lstr), "db") == 0)
			db += pr.s[i].val[0];
		else
			fail_msg("label %s", S(&pr, pr.s[i].lstr));
		assert_int_equal(l->n_lines, 1);
		k = l->addr - m->start;
		if (k == 0x10) {
			const struct function *fn = func(&pr, l->fid);

			assert_int_equal(l->line, 11);
			assert_string_equal(S(&pr, fn->name), "f");
			assert_string_equal(S(&pr, fn->sys), "f");
			assert_string_equal(S(&pr, fn->file), "a.c");
			assert_int_equal(fn->start_line, 10);
		} else {
			assert_int_equal(k, 0x120);
			assert_int_equal(l->line, 0);
			assert_string_equal(S(&pr, func(&pr, l->fid)->name), "g");
		}
	}
	assert_int_equal(total, 5 + 7 + 2 + 90);
	assert_int_equal(web, 12);
	assert_int_equal(db, 2);
	prof_free(&pr);
	free(buf);
	for (i = 0; i < 3; i++)
		dcpi_profile_free(p[i]);
}

/* hot at 0x10 (10 samples), called from b (return address 0x120) 6
 * times and from c (0x150) 3 times, both called from main (0x1f0); one
 * more stack leaves image bb22, which is not exported. */
static void
test_proto_stacks(void **state)
{
	static const struct dcpi_count counts[] = { { 0x10, 10 }, { 0x30, 4 } };
	static const struct dcpi_export_frame fb[] = { { 0, 0x10 }, { 0, 0x120 }, { 0, 0x1f0 } };
	static const struct dcpi_export_frame fc[] = { { 0, 0x10 }, { 0, 0x150 }, { 0, 0x1f0 } };
	static const struct dcpi_export_frame fx[] = { { 0, 0x30 }, { DCPI_EXPORT_NOPROF, 8 },
	    { 0, 0x1f0 } };
	const struct dcpi_export_stack st[] = { { 6, 3, fb }, { 3, 3, fc }, { 4, 3, fx } };
	struct dcpi_profile *p;
	struct dcpi_error err;
	struct prof pr;
	uint64_t total = 0, base;
	size_t len, i, k, flat = 0;
	void *buf;

	(void)state;
	p = mkprof_label("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, NULL,
	    counts, 2);
	OK(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL, 1, st, 3,
	    resolve, NULL, NULL, &buf, &len, &err));
	decode(buf, len, &pr);
	assert_int_equal(pr.time, 0);
	assert_int_equal(pr.n_comment, 0);
	assert_int_equal(pr.n_m, 1);
	base = pr.m[0].start;
	for (i = 0; i < pr.n_s; i++) {
		const struct sample *s = &pr.s[i];

		total += s->val[0];
		if (s->n_loc == 1) {
			/* hot's one sample that the stacks leave, and the chain
			 * cut at the image not exported: its leaf alone (whose
			 * flat samples it holds all of). */
			k = loc(&pr, s->loc[0])->addr - base;
			assert_true((k == 0x10 && s->val[0] == 1) || (k == 0x30 && s->val[0] == 4));
			flat++;
			continue;
		}
		/* Leaf first; callers at the byte before their return address. */
		assert_int_equal(s->n_loc, 3);
		assert_int_equal(loc(&pr, s->loc[0])->addr - base, 0x10);
		assert_string_equal(S(&pr, func(&pr, loc(&pr, s->loc[0])->fid)->name), "f");
		k = loc(&pr, s->loc[1])->addr - base;
		assert_int_equal(k, s->val[0] == 6 ? 0x11f : 0x14f);
		assert_string_equal(S(&pr, func(&pr, loc(&pr, s->loc[1])->fid)->name), "g");
		assert_int_equal(loc(&pr, s->loc[2])->addr - base, 0x1ef);
	}
	assert_int_equal(pr.n_s, 4);
	assert_int_equal(flat, 2);
	assert_int_equal(total, 10 + 4);
	prof_free(&pr);
	free(buf);
	dcpi_profile_free(p);
}

/* Chains cut short by dcpid's unwinding end in a location of no mapping
 * whose function is named by the reason, one per reason, as dcpictl
 * stacks names them; a [truncated] leaf is refused. */
static void
test_proto_truncated(void **state)
{
	static const struct dcpi_count counts[] = { { 0x10, 9 } };
	static const struct dcpi_export_frame fa[] = { { 0, 0x10 }, { 0, 0x120 },
	    { DCPI_EXPORT_TRUNCATED, 2 } };
	static const struct dcpi_export_frame fb[] = { { 0, 0x10 }, { 0, 0x150 },
	    { DCPI_EXPORT_TRUNCATED, 2 } };
	static const struct dcpi_export_frame fc[] = { { 0, 0x10 }, { DCPI_EXPORT_TRUNCATED, 4 } };
	static const struct dcpi_export_frame fl[] = { { DCPI_EXPORT_TRUNCATED, 2 } };
	const struct dcpi_export_stack st[] = { { 5, 3, fa }, { 3, 3, fb }, { 1, 2, fc } };
	const struct dcpi_export_stack bad[] = { { 1, 1, fl } };
	const struct location *l;
	struct dcpi_profile *p;
	struct dcpi_error err;
	struct prof pr;
	uint64_t cut = 0, norow = 0;
	size_t len, i, n_cut = 0;
	void *buf;

	(void)state;
	p = mkprof_label("aa11", "/usr/bin/a", "perf::cpu-clock", 1000000, 0x1000, 0x2000, NULL,
	    counts, 1);
	OK(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL, 1, st, 3,
	    resolve, NULL, NULL, &buf, &len, &err));
	decode(buf, len, &pr);
	assert_int_equal(pr.n_s, 3);
	for (i = 0; i < pr.n_s; i++) {
		l = loc(&pr, pr.s[i].loc[pr.s[i].n_loc - 1]);
		assert_int_equal(l->map, 0);
		assert_int_equal(l->n_lines, 1);
		if (strcmp(S(&pr, func(&pr, l->fid)->name), "[truncated: stack-copy]") == 0) {
			assert_int_equal(pr.s[i].n_loc, 3);
			assert_int_equal(l->addr, 2);
			cut += pr.s[i].val[0];
		} else {
			assert_string_equal(S(&pr, func(&pr, l->fid)->name), "[truncated: no-row]");
			assert_int_equal(pr.s[i].n_loc, 2);
			norow += pr.s[i].val[0];
		}
	}
	assert_int_equal(cut, 8);
	assert_int_equal(norow, 1);
	for (i = 0; i < pr.n_l; i++)
		n_cut += pr.l[i].map == 0;
	assert_int_equal(n_cut, 2);
	assert_int_equal(pr.n_f, 2 + 2);	/* f and g, and the two reasons */
	prof_free(&pr);
	free(buf);
	assert_int_equal(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL,
	    1, bad, 1, resolve, NULL, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	dcpi_profile_free(p);
}

/* A name that is not UTF-8 (proto3 strings must be): "?" for each byte
 * that starts no sequence; valid multibyte sequences stay. */
static int
resolve_bytes(void *arg, const struct dcpi_profile *p, uint32_t offset,
    struct dcpi_export_loc *l)
{
	(void)arg;
	(void)p;
	l->proc = offset == 0x8 ? "caf\xc3\xa9\xff\xc3x\xed\xa0\x80" : "ok";
	l->proc_offset = offset;
	l->file = NULL;
	l->line = 0;
	return 0;
}

static void
test_proto_utf8(void **state)
{
	static const struct dcpi_count counts[] = { { 0x8, 3 } };
	struct dcpi_profile *p;
	struct dcpi_error err;
	struct prof pr;
	size_t len;
	void *buf;

	(void)state;
	p = mkprof_label("cc33", "/usr/bin/c", "perf::cpu-clock", 100, 0x1000, 0x100, NULL,
	    counts, 1);
	OK(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL, 1, NULL, 0,
	    resolve_bytes, NULL, NULL, &buf, &len, &err));
	decode(buf, len, &pr);
	assert_int_equal(pr.n_f, 1);
	assert_string_equal(S(&pr, pr.f[0].name), "caf\xc3\xa9??x???");
	prof_free(&pr);
	free(buf);
	dcpi_profile_free(p);
}

/* Another event than time: EVENT/count, values count * period. */
static void
test_proto_event(void **state)
{
	static const struct dcpi_count counts[] = { { 0x8, 3 } };
	struct dcpi_profile *p;
	struct dcpi_error err;
	struct prof pr;
	size_t len;
	void *buf;

	(void)state;
	p = mkprof_label("cc33", "/usr/bin/c", "perf::page-faults", 100, 0x1000, 0x100, NULL,
	    counts, 1);
	OK(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL, 1, NULL, 0,
	    NULL, NULL, NULL, &buf, &len, &err));
	decode(buf, len, &pr);
	assert_string_equal(S(&pr, pr.st[1].type), "perf::page-faults");
	assert_string_equal(S(&pr, pr.st[1].unit), "count");
	assert_string_equal(S(&pr, pr.pt.type), "perf::page-faults");
	assert_int_equal(pr.period, 100);
	assert_int_equal(pr.n_s, 1);
	assert_int_equal(pr.s[0].val[0], 3);
	assert_int_equal(pr.s[0].val[1], 300);
	/* No symbolizer: addresses only, and the mapping says so. */
	assert_int_equal(pr.n_f, 0);
	assert_int_equal(pr.l[0].n_lines, 0);
	assert_int_equal(pr.m[0].hasfn, 0);
	prof_free(&pr);
	free(buf);
	dcpi_profile_free(p);
}

static void
test_proto_errors(void **state)
{
	static const struct dcpi_count counts[] = { { 0x8, 3 } };
	static const struct dcpi_export_frame bad[] = { { 5, 0x8 } };
	const struct dcpi_export_stack st[] = { { 1, 1, bad } }, st0[] = { { 1, 0, bad } };
	struct dcpi_profile *p;
	struct dcpi_error err;
	size_t len;
	void *buf = NULL;

	(void)state;
	p = mkprof_label("cc33", "/usr/bin/c", "perf::cpu-clock", 100, 0x1000, 0x100, NULL,
	    counts, 1);
	errno = 0;
	assert_int_equal(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL,
	    0, NULL, 0, NULL, NULL, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL,
	    1, st, 1, NULL, NULL, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "pprof-proto: stack 0"));
	assert_int_equal(dcpi_pprof_proto_encode((const struct dcpi_profile *const *)&p, NULL,
	    1, st0, 1, NULL, NULL, NULL, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(buf);
	dcpi_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proto_flat),
		cmocka_unit_test(test_proto_stacks),
		cmocka_unit_test(test_proto_truncated),
		cmocka_unit_test(test_proto_event),
		cmocka_unit_test(test_proto_utf8),
		cmocka_unit_test(test_proto_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
