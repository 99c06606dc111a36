/*
 * The DCPI profile format (lib/profile.c, lib/file.c) against
 * specs/dcpiformat.txt: round trips, hand-written golden files, every
 * malformed case the reader must refuse, saturation, merge, atomic writes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dcpi/file.h>
#include <dcpi/profile.h>

#ifndef GOLDEN_DIR
#error GOLDEN_DIR must name tests/golden
#endif

/* ---- helpers ---- */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void
bput(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void __attribute__((format(printf, 2, 3)))
bprintf(struct buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(tmp));
	bput(b, tmp, n);
}

static void
bword(struct buf *b, uint32_t v)
{
	unsigned char w[4] = { v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 };

	bput(b, w, 4);
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static const char *const base_lines[] = {
	"version pdb-0.07", "image 0abc", "epoch 20261121223000",
	"platform Linux 6.1.0 x86_64", "event perf::cpu-clock", "period 1000000",
	"tstart 400000", "tsize 64", "cpuspeed 2400",
};
#define NBASE (sizeof(base_lines) / sizeof(base_lines[0]))

/* The base header with line skip left out and extra (if any) appended. */
static void
header(struct buf *b, int skip, const char *extra)
{
	size_t i;

	for (i = 0; i < NBASE; i++)
		if ((int)i != skip)
			bprintf(b, "%s\n", base_lines[i]);
	if (extra != NULL)
		bprintf(b, "%s\n", extra);
	bprintf(b, "samples\n");
}

/* One valid chunk (offset 8: 3, 0, 4) and its footer. */
static void
body(struct buf *b)
{
	bword(b, 8); bword(b, 3); bword(b, 3); bword(b, 0); bword(b, 4);
	bword(b, 2); bword(b, 7);
}

static struct dcpi_profile *
parse_ok(const struct buf *b)
{
	struct dcpi_profile *p = NULL;
	struct dcpi_error err = { "" };

	if (dcpi_profile_parse(b->p, b->len, "t.prof", &p, &err) != 0)
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(p);
	return p;
}

/* Parses b, which must be refused with a message that starts with the file
 * name, contains want and is one line. */
static void
parse_bad(const struct buf *b, const char *want)
{
	struct dcpi_profile *p = (struct dcpi_profile *)1;
	struct dcpi_error err = { "" };

	errno = 0;
	if (dcpi_profile_parse(b->p, b->len, "t.prof", &p, &err) == 0)
		fail_msg("accepted, expected an error containing '%s'", want);
	assert_int_equal(errno, EINVAL);
	assert_null(p);
	if (strncmp(err.msg, "t.prof: ", 8) != 0 || strstr(err.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	assert_null(strchr(err.msg, '\n'));
}

static void
bfree(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static struct dcpi_profile *
full_profile(void)
{
	struct dcpi_profile *p = dcpi_profile_new();
	struct dcpi_error err;

	assert_non_null(p);
	assert_string_equal(p->version, DCPI_PROFILE_VERSION);
	assert_int_equal(dcpi_profile_set(p, "image", "5f0e9a77c1d2b3", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "epoch", "20261121223000", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "platform", "Linux 6.1.0 x86_64", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "event", "perf::cpu-clock:u", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "period", "250000", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "tstart", "7f12a0001000", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "tsize", "100000", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "cpuspeed", "2400", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "cpucount", "8", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "path", "/usr/lib/x86_64-linux-gnu/libc.so.6", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "x-origin", "unit test  with  blanks", &err), 0);
	return p;
}

static void
assert_same(const struct dcpi_profile *a, const struct dcpi_profile *b)
{
	size_t i;

	assert_string_equal(a->version, b->version);
	assert_string_equal(a->image, b->image);
	assert_string_equal(a->epoch, b->epoch);
	assert_string_equal(a->platform, b->platform);
	assert_string_equal(a->event, b->event);
	assert_true(a->period == b->period && a->tstart == b->tstart &&
	    a->tsize == b->tsize && a->cpuspeed == b->cpuspeed);
	assert_int_equal(a->has, b->has);
	if (a->has & DCPI_HAS_CPUAMASK)
		assert_true(a->cpuamask == b->cpuamask);
	if (a->has & DCPI_HAS_CPUIMPLV)
		assert_true(a->cpuimplv == b->cpuimplv);
	if (a->has & DCPI_HAS_CPUCOUNT)
		assert_true(a->cpucount == b->cpucount);
	if (a->has & DCPI_HAS_PATH)
		assert_string_equal(a->path, b->path);
	assert_int_equal(a->n_unknown, b->n_unknown);
	for (i = 0; i < a->n_unknown; i++)
		assert_string_equal(a->unknown[i], b->unknown[i]);
	assert_int_equal(a->n_counts, b->n_counts);
	for (i = 0; i < a->n_counts; i++) {
		assert_int_equal(a->counts[i].offset, b->counts[i].offset);
		assert_int_equal(a->counts[i].count, b->counts[i].count);
	}
}

/* ---- round trips and the writer's layout ---- */

static void
test_roundtrip(void **state)
{
	struct dcpi_profile *p = full_profile(), *q;
	struct dcpi_error err;
	unsigned char *buf, *bin;
	void *buf2;
	size_t len, len2, hlen;

	(void)state;
	/* 10,11 adjacent; 14 after a gap of 2 zeros (same chunk); 18 after a
	 * gap of 3 (new chunk); 99999 the last offset. */
	assert_int_equal(dcpi_profile_add(p, 10, 1), 0);
	assert_int_equal(dcpi_profile_add(p, 11, 2), 0);
	assert_int_equal(dcpi_profile_add(p, 14, 3), 0);
	assert_int_equal(dcpi_profile_add(p, 18, 4), 0);
	assert_int_equal(dcpi_profile_add(p, 99999, 5), 0);
	assert_int_equal(dcpi_profile_encode(p, (void **)&buf, &len, &err), 0);

	bin = (unsigned char *)strstr((char *)buf, "\nsamples") + 1;
	bin = memchr(bin, '\n', len - (bin - buf)) + 1;
	hlen = bin - buf;
	assert_int_equal(hlen % 4, 0);
	assert_int_equal(len - hlen, 4 * ((2 + 5) + (2 + 1) + (2 + 1) + 2));
	assert_int_equal(get32(bin), 10);
	assert_int_equal(get32(bin + 4), 5);
	assert_int_equal(get32(bin + 8), 1);
	assert_int_equal(get32(bin + 12), 2);
	assert_int_equal(get32(bin + 16), 0);
	assert_int_equal(get32(bin + 20), 0);
	assert_int_equal(get32(bin + 24), 3);
	assert_int_equal(get32(bin + 28), 18);
	assert_int_equal(get32(bin + 32), 1);
	assert_int_equal(get32(bin + 36), 4);
	assert_int_equal(get32(bin + 40), 99999);
	assert_int_equal(get32(bin + 44), 1);
	assert_int_equal(get32(bin + 48), 5);
	assert_int_equal(get32(bin + 52), 5);
	assert_int_equal(get32(bin + 56), 15);
	assert_non_null(strstr((char *)buf, "\ntstart 7f12a0001000\n"));
	assert_non_null(strstr((char *)buf, "\nx-origin unit test  with  blanks\n"));

	assert_int_equal(dcpi_profile_parse(buf, len, "rt", &q, &err), 0);
	assert_same(p, q);
	assert_int_equal(dcpi_profile_encode(q, &buf2, &len2, &err), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, buf2, len);
	free(buf);
	free(buf2);
	dcpi_profile_free(p);
	dcpi_profile_free(q);
}

/* Header lengths 0..3 mod 4 all pad to a multiple of 4 and read back. */
static void
test_padding(void **state)
{
	struct dcpi_profile *p = full_profile(), *q;
	struct dcpi_error err;
	char platform[64];
	void *buf;
	size_t len;
	int i;

	(void)state;
	assert_int_equal(dcpi_profile_add(p, 0, 1), 0);
	for (i = 0; i < 4; i++) {
		snprintf(platform, sizeof(platform), "Linux%.*s", i, "xxx");
		assert_int_equal(dcpi_profile_set(p, "platform", platform, &err), 0);
		assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), 0);
		assert_int_equal((len - 4 * 5) % 4, 0);
		assert_int_equal(dcpi_profile_parse(buf, len, "pad", &q, &err), 0);
		assert_same(p, q);
		dcpi_profile_free(q);
		free(buf);
	}
	dcpi_profile_free(p);
}

static void
test_write_read(void **state)
{
	char dir[] = "/tmp/test_profile.XXXXXX", path[128];
	struct dcpi_profile *p = full_profile(), *q;
	struct dcpi_error err;
	struct stat st;
	mode_t um;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/libc.so.6.5f0e", dir);
	assert_int_equal(dcpi_profile_add(p, 4095, 77), 0);
	um = umask(022);
	assert_int_equal(dcpi_profile_write(path, p, &err), 0);
	umask(um);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(dcpi_profile_read(path, &q, &err), 0);
	assert_same(p, q);
	dcpi_profile_free(q);
	unlink(path);
	assert_int_equal(dcpi_profile_read(path, &q, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(q);
	assert_non_null(strstr(err.msg, path));
	rmdir(dir);
	dcpi_profile_free(p);
}

/* ---- hand-written golden files (tests/golden/gen.sh) ---- */

static struct dcpi_profile *
golden(const char *name)
{
	struct dcpi_profile *p;
	struct dcpi_error err;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	if (dcpi_profile_read(path, &p, &err) != 0)
		fail_msg("%s", err.msg);
	return p;
}

static void
test_golden_unknown(void **state)
{
	struct dcpi_profile *p = golden("unknown.prof"), *q;
	struct dcpi_error err;
	void *buf;
	size_t len;

	(void)state;
	assert_string_equal(p->version, "pdb-0.07");
	assert_string_equal(p->image, "0123abcdefABCDEF");
	assert_string_equal(p->epoch, "20261121223000");
	assert_string_equal(p->platform, "Linux 6.1.0 x86_64");
	assert_string_equal(p->event, "perf::cpu-clock:u");
	assert_true(p->period == 1000000 && p->tstart == 0x400000 && p->tsize == 4096 &&
	    p->cpuspeed == 2400);
	assert_int_equal(p->has, DCPI_HAS_CPUAMASK | DCPI_HAS_CPUIMPLV |
	    DCPI_HAS_CPUCOUNT | DCPI_HAS_PATH);
	assert_true(p->cpuamask == 3 && p->cpuimplv == 7 && p->cpucount == 2);
	assert_string_equal(p->path, "/usr/bin/hot program");
	assert_int_equal(p->n_unknown, 2);
	assert_string_equal(p->unknown[0], "comment hand written from dcpiformat.txt");
	assert_string_equal(p->unknown[1], "x-note\ttab separated   value with spaces  ");
	assert_int_equal(p->n_counts, 3);
	assert_int_equal(dcpi_profile_count(p, 0x10), 5);
	assert_int_equal(dcpi_profile_count(p, 0x11), 0);
	assert_int_equal(dcpi_profile_count(p, 0x12), 7);
	assert_int_equal(dcpi_profile_count(p, 0x100), UINT32_MAX);
	assert_int_equal(dcpi_profile_total_samples(p), UINT32_MAX);

	/* A rewriter keeps the unknown lines. */
	assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), 0);
	assert_int_equal(dcpi_profile_parse(buf, len, "re", &q, &err), 0);
	assert_same(p, q);
	free(buf);
	dcpi_profile_free(q);
	dcpi_profile_free(p);
}

static void
test_golden_epoch10(void **state)
{
	struct dcpi_profile *p = golden("epoch10.prof");

	(void)state;
	assert_string_equal(p->version, "pdb-0.06");
	assert_string_equal(p->epoch, "9912312359");
	assert_string_equal(p->platform, "Digital UNIX V4.0 alpha");
	assert_true(p->tstart == 0x120000000ULL && p->tsize == 100 && p->period == 62976);
	assert_int_equal(p->has, 0);
	assert_int_equal(p->n_unknown, 0);
	assert_int_equal(p->n_counts, 2);
	assert_int_equal(dcpi_profile_count(p, 0), 9);
	assert_int_equal(dcpi_profile_count(p, 99), 1);
	dcpi_profile_free(p);
}

static void
test_golden_empty_and_blanks(void **state)
{
	struct dcpi_profile *p = golden("empty.prof");

	(void)state;
	assert_int_equal(p->n_counts, 0);
	assert_true(p->tsize == 0);
	assert_int_equal(dcpi_profile_total_offsets(p), 0);
	assert_int_equal(dcpi_profile_total_samples(p), 0);
	dcpi_profile_free(p);

	p = golden("blanks.prof");
	assert_true(p->tstart == 0xffffffff81000000ULL && p->tsize == 16);
	assert_int_equal(p->n_counts, 1);
	assert_int_equal(dcpi_profile_count(p, 15), 42);
	dcpi_profile_free(p);
}

static void
test_golden_bad(void **state)
{
	struct dcpi_profile *p;
	struct dcpi_error err;
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad-overlap.prof", GOLDEN_DIR);
	assert_int_equal(dcpi_profile_read(path, &p, &err), -1);
	assert_non_null(strstr(err.msg, "byte 148: chunk at offset 0x2 overlaps"));
	snprintf(path, sizeof(path), "%s/bad-noterm.prof", GOLDEN_DIR);
	assert_int_equal(dcpi_profile_read(path, &p, &err), -1);
	assert_non_null(strstr(err.msg, "line 4: end of file"));
}

/* ---- the header grammar ---- */

static void
test_bad_required(void **state)
{
	struct buf b = { 0 };
	char want[64], extra[64];
	size_t i;

	(void)state;
	header(&b, -1, NULL);
	body(&b);
	dcpi_profile_free(parse_ok(&b));
	bfree(&b);
	for (i = 0; i < NBASE; i++) {
		header(&b, (int)i, NULL);
		body(&b);
		snprintf(want, sizeof(want), "line %zu: missing required '%.*s' line",
		    NBASE, (int)strcspn(base_lines[i], " "), base_lines[i]);
		parse_bad(&b, want);
		bfree(&b);

		snprintf(extra, sizeof(extra), "%s", base_lines[i]);
		header(&b, -1, extra);
		body(&b);
		snprintf(want, sizeof(want), "line %zu: repeated '%.*s' line (first on line %zu)",
		    NBASE + 1, (int)strcspn(base_lines[i], " "), base_lines[i], i + 1);
		parse_bad(&b, want);
		bfree(&b);
	}
}

struct hcase {
	int		 skip;	/* base line replaced by bad */
	const char	*bad;
	const char	*want;
};

static void
test_bad_header_values(void **state)
{
	static const struct hcase cases[] = {
		{ 1, "image 12g4", "line 9: 'image' value '12g4' is not hexadecimal" },
		{ 6, "tstart 0x400000", "'tstart' value '0x400000' is not hexadecimal" },
		{ 6, "tstart 10000000000000000", "'tstart' value '10000000000000000' does not fit in 64 bits" },
		{ 5, "period 10k", "'period' value '10k' is not a decimal number" },
		{ 5, "period -1", "is not a decimal number" },
		{ 5, "period 1000 ", "is not a decimal number" },
		{ 5, "period 18446744073709551616", "'period' value '18446744073709551616' does not fit" },
		{ 7, "tsize 99999999999999999999", "'tsize' value '99999999999999999999' does not fit" },
		{ 8, "cpuspeed 18446744073709551616", "'cpuspeed' value '18446744073709551616' does not fit" },
		{ 2, "epoch 202611212230", "epoch '202611212230' is neither" },
		{ 2, "epoch 26112122x0", "is neither" },
		{ 0, "version pdb-1.01", "t.prof: line 9: pdb-1.01: major version 1 is not supported" },
		{ 0, "version pdb-10.0", "pdb-10.0: major version 10 is not supported" },
		{ 0, "version 0.07", "version '0.07' is not pdb-MAJOR.MINOR" },
		{ 0, "version pdb-0", "is not pdb-MAJOR.MINOR" },
		{ 3, "platform", "line 9: 'platform' is not 'KEYWORD VALUE'" },
		{ 3, "platform \t ", "line 9: 'platform' needs a value" },
		{ 3, "", "line 9: '' is not 'KEYWORD VALUE'" },
		{ 3, " Linux", "is not 'KEYWORD VALUE'" },
		{ 3, "x-unknown", "is not 'KEYWORD VALUE'" },
		{ -1, "cpucount two", "'cpucount' value 'two' is not a decimal number" },
		{ -1, "cpuamask ff-", "'cpuamask' value 'ff-' is not hexadecimal" },
	};
	struct buf b = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t j;

		for (j = 0; j < NBASE; j++)
			if ((int)j != cases[i].skip)
				bprintf(&b, "%s\n", base_lines[j]);
		bprintf(&b, "%s\nsamples\n", cases[i].bad);
		body(&b);
		parse_bad(&b, cases[i].want);
		bfree(&b);
	}
}

static void
test_header_limits(void **state)
{
	struct dcpi_profile *p;
	struct buf b = { 0 };

	(void)state;
	/* The largest values of each field are accepted. */
	bprintf(&b, "version pdb-00.99\nimage 0\nepoch 2611212230\nplatform x\nevent e\n"
	    "period 18446744073709551615\ntstart FFFFFFFFFFFFFFFF\n"
	    "tsize 18446744073709551615\ncpuspeed 18446744073709551615\n"
	    "cpucount 0\nsamples \t\n");
	bword(&b, 0);
	bword(&b, 0);
	p = parse_ok(&b);
	assert_true(p->period == UINT64_MAX && p->tstart == UINT64_MAX &&
	    p->tsize == UINT64_MAX && p->cpuspeed == UINT64_MAX);
	assert_true(p->has == DCPI_HAS_CPUCOUNT && p->cpucount == 0);
	dcpi_profile_free(p);
	bfree(&b);

	/* A repeated optional line is refused too: we could keep only one. */
	header(&b, -1, "path /a\npath /b");
	body(&b);
	parse_bad(&b, "line 11: repeated 'path' line (first on line 10)");
	bfree(&b);

	/* "samples" followed by more than blanks is an unknown line. */
	header(&b, -1, "samples 3");
	body(&b);
	p = parse_ok(&b);
	assert_int_equal(p->n_unknown, 1);
	assert_string_equal(p->unknown[0], "samples 3");
	dcpi_profile_free(p);
	bfree(&b);

	bput(&b, "version pdb-0.07\nimage 0\0\n", 26);
	parse_bad(&b, "line 2: NUL byte in the header");
	bfree(&b);
}

static void
test_bad_structure(void **state)
{
	struct buf b = { 0 };

	(void)state;
	parse_bad(&b, "line 1: empty file");

	bprintf(&b, "version pdb-0.07\nimage 0abc\n");
	parse_bad(&b, "line 3: end of file before the 'samples' line");
	bprintf(&b, "epoch 2026");
	parse_bad(&b, "line 3: unterminated line before the 'samples' line");
	bfree(&b);

	/* The header without any binary part, and with a short footer. */
	header(&b, -1, NULL);
	parse_bad(&b, "byte 159: 0 bytes left where a chunk or the 8-byte footer was expected");
	bword(&b, 0);
	parse_bad(&b, "byte 159: 4 bytes left");
	bfree(&b);
}

/* ---- the binary part ---- */

static void
test_bad_chunks(void **state)
{
	struct buf b = { 0 };
	size_t h;

	(void)state;
	header(&b, -1, NULL);
	h = b.len;
	assert_int_equal(h, 159);

	/* Truncated: 10 counts announced, 2 present, then a footer. */
	bword(&b, 0); bword(&b, 10); bword(&b, 1); bword(&b, 1);
	bword(&b, 2); bword(&b, 2);
	parse_bad(&b, "byte 159: truncated chunk: 10 counts need 40 bytes, 8 left before the footer");
	b.len = h;
	/* Truncated inside the chunk header. */
	bword(&b, 0); bword(&b, 1); bput(&b, "\1", 1);
	parse_bad(&b, "byte 159: truncated chunk");
	b.len = h;

	/* Overlapping: [0,4) then 2. */
	bword(&b, 0); bword(&b, 4); bword(&b, 1); bword(&b, 1); bword(&b, 1); bword(&b, 1);
	bword(&b, 2); bword(&b, 1); bword(&b, 1);
	bword(&b, 5); bword(&b, 5);
	parse_bad(&b, "byte 183: chunk at offset 0x2 overlaps the previous chunk (ends at 0x4)");
	b.len = h;

	/* Unsorted: 0x20 then 0x10, and the same offset twice. */
	bword(&b, 0x20); bword(&b, 1); bword(&b, 1);
	bword(&b, 0x10); bword(&b, 1); bword(&b, 1);
	bword(&b, 2); bword(&b, 2);
	parse_bad(&b, "byte 171: chunk at offset 0x10 is not after the previous chunk at offset 0x20");
	b.len = h;
	bword(&b, 0x20); bword(&b, 1); bword(&b, 1);
	bword(&b, 0x20); bword(&b, 1); bword(&b, 1);
	bword(&b, 2); bword(&b, 2);
	parse_bad(&b, "is not after the previous chunk");
	b.len = h;

	/* Past tsize (64): [60,65). */
	bword(&b, 60); bword(&b, 5);
	bword(&b, 1); bword(&b, 1); bword(&b, 1); bword(&b, 1); bword(&b, 1);
	bword(&b, 5); bword(&b, 5);
	parse_bad(&b, "byte 159: chunk at offset 0x3c with 5 counts ends at 0x41, past tsize 64");
	b.len = h;
	/* Up to tsize exactly is fine; also an offset that would wrap 32 bits. */
	bword(&b, 60); bword(&b, 4);
	bword(&b, 1); bword(&b, 1); bword(&b, 1); bword(&b, 1);
	bword(&b, 4); bword(&b, 4);
	dcpi_profile_free(parse_ok(&b));
	b.len = h;
	bword(&b, UINT32_MAX); bword(&b, 2); bword(&b, 1); bword(&b, 1);
	bword(&b, 2); bword(&b, 2);
	parse_bad(&b, "past tsize 64");
	b.len = h;

	/* A chunk of no counts. */
	bword(&b, 5); bword(&b, 0); bword(&b, 0); bword(&b, 0);
	parse_bad(&b, "byte 159: chunk at offset 0x5 has no counts");
	b.len = h;

	/* Footer mismatches. */
	bword(&b, 8); bword(&b, 3); bword(&b, 3); bword(&b, 0); bword(&b, 4);
	bword(&b, 3); bword(&b, 7);
	parse_bad(&b, "byte 179: footer total_offsets 3 does not match the 2 addresses with samples");
	b.len = h;
	bword(&b, 8); bword(&b, 3); bword(&b, 3); bword(&b, 0); bword(&b, 4);
	bword(&b, 2); bword(&b, 8);
	parse_bad(&b, "byte 183: footer total_samples 8 does not match the sum of the counts, 7");
	b.len = h;

	/* Trailing garbage after a complete file, aligned or not. */
	body(&b);
	bword(&b, 0xdeadbeef);
	parse_bad(&b, "byte 187: 4 bytes of trailing garbage after the footer");
	b.len -= 1;
	parse_bad(&b, "byte 187: 3 bytes of trailing garbage after the footer");
	b.len = h;
	bword(&b, 0); bword(&b, 0); bword(&b, 0); bword(&b, 0);
	parse_bad(&b, "byte 167: 8 bytes of trailing garbage");
	bfree(&b);
}

/* The footer's total is the saturated sum, not the wrapped one. */
static void
test_footer_saturation(void **state)
{
	struct dcpi_profile *p;
	struct buf b = { 0 };
	size_t h;

	(void)state;
	header(&b, -1, NULL);
	h = b.len;
	bword(&b, 0); bword(&b, 2); bword(&b, UINT32_MAX - 1); bword(&b, 5);
	bword(&b, 2); bword(&b, UINT32_MAX);
	p = parse_ok(&b);
	assert_int_equal(dcpi_profile_total_samples(p), UINT32_MAX);
	dcpi_profile_free(p);
	b.len = h;
	bword(&b, 0); bword(&b, 2); bword(&b, UINT32_MAX - 1); bword(&b, 5);
	bword(&b, 2); bword(&b, 3);
	parse_bad(&b, "footer total_samples 3 does not match the sum of the counts, 4294967295");
	bfree(&b);
}

/* ---- counts ---- */

static void
test_add_saturation(void **state)
{
	struct dcpi_profile *p = dcpi_profile_new();
	struct dcpi_count c[] = { { 5, UINT32_MAX }, { 5, 1 }, { 6, 0 }, { 7, 3 } };
	struct dcpi_error err;
	unsigned char *buf;
	size_t len;

	(void)state;
	assert_int_equal(dcpi_profile_set(p, "tsize", "16", &err), 0);
	assert_int_equal(dcpi_profile_add(p, 3, UINT32_MAX - 1), 0);
	assert_int_equal(dcpi_profile_add(p, 3, 1), 0);
	assert_int_equal(dcpi_profile_count(p, 3), UINT32_MAX);
	assert_int_equal(dcpi_profile_add(p, 3, 1), 0);
	assert_int_equal(dcpi_profile_count(p, 3), UINT32_MAX);
	assert_int_equal(dcpi_profile_add(p, 2, (uint64_t)1 << 40), 0);
	assert_int_equal(dcpi_profile_count(p, 2), UINT32_MAX);
	assert_int_equal(dcpi_profile_add(p, 9, 0), 0);
	assert_int_equal(dcpi_profile_count(p, 9), 0);
	assert_int_equal(p->n_counts, 2);

	assert_int_equal(dcpi_profile_add(p, 16, 1), -1);
	assert_int_equal(errno, EINVAL);

	assert_int_equal(dcpi_profile_add_counts(p, c, 4), 0);
	assert_int_equal(dcpi_profile_count(p, 5), UINT32_MAX);
	assert_int_equal(dcpi_profile_count(p, 6), 0);
	assert_int_equal(dcpi_profile_count(p, 7), 3);
	assert_int_equal(p->n_counts, 4);
	assert_int_equal(p->counts[0].offset, 2);
	assert_int_equal(p->counts[3].offset, 7);
	assert_int_equal(dcpi_profile_total_offsets(p), 4);
	assert_int_equal(dcpi_profile_total_samples(p), UINT32_MAX);

	/* Unsorted input or an offset past tsize: refused, p unchanged. */
	c[0].offset = 9;
	assert_int_equal(dcpi_profile_add_counts(p, c, 2), -1);
	assert_int_equal(errno, EINVAL);
	c[0].offset = 3;
	c[1].offset = 16;
	assert_int_equal(dcpi_profile_add_counts(p, c, 2), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(p->n_counts, 4);
	assert_int_equal(dcpi_profile_count(p, 7), 3);

	/* The footer carries the saturated total. */
	assert_int_equal(dcpi_profile_set(p, "image", "ab", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "epoch", "2611212230", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "platform", "Linux", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "event", "cycles", &err), 0);
	assert_int_equal(dcpi_profile_encode(p, (void **)&buf, &len, &err), 0);
	assert_int_equal(get32(buf + len - 8), 4);
	assert_int_equal(get32(buf + len - 4), UINT32_MAX);
	free(buf);
	dcpi_profile_free(p);
}

static void
test_set_and_encode_errors(void **state)
{
	struct dcpi_profile *p = dcpi_profile_new();
	struct dcpi_error err;
	void *buf;
	size_t len;

	(void)state;
	assert_int_equal(dcpi_profile_set(p, "period", "12x", &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "'period' value '12x' is not a decimal number"));
	assert_int_equal(dcpi_profile_set(p, "version", "pdb-1.01", &err), -1);
	assert_string_equal(p->version, DCPI_PROFILE_VERSION);
	assert_int_equal(dcpi_profile_set(p, "path", "a\nb", &err), -1);
	assert_int_equal(dcpi_profile_set(p, "x y", "1", &err), -1);
	assert_int_equal(dcpi_profile_set(p, "x-empty", "", &err), -1);
	assert_int_equal(p->n_unknown, 0);
	assert_int_equal(dcpi_profile_set(p, "cpuamask", "fF", &err), 0);
	assert_true(p->has == DCPI_HAS_CPUAMASK && p->cpuamask == 0xff);

	/* Required strings missing. */
	assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "'image' is not set"));
	assert_int_equal(dcpi_profile_set(p, "image", "ab", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "epoch", "2611212230", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "platform", "Linux", &err), 0);
	assert_int_equal(dcpi_profile_set(p, "event", "cycles", &err), 0);
	assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), 0);
	free(buf);
	/* An unknown line that would read back as a known one. */
	assert_int_equal(dcpi_profile_set(p, "x-fine", "1", &err), 0);
	free(p->unknown[0]);
	p->unknown[0] = strdup("tsize 5");
	assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), -1);
	assert_non_null(strstr(err.msg, "uses a known keyword"));
	free(p->unknown[0]);
	p->unknown[0] = strdup("x-fine 1");
	/* A count past tsize would not read back. */
	assert_int_equal(dcpi_profile_add(p, 7, 1), 0);
	assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), -1);
	assert_non_null(strstr(err.msg, "offset 0x7 is not below tsize 0"));
	/* Neither would a zero count (the footer counts addresses with samples). */
	assert_int_equal(dcpi_profile_set(p, "tsize", "8", &err), 0);
	p->counts[0].count = 0;
	assert_int_equal(dcpi_profile_encode(p, &buf, &len, &err), -1);
	assert_non_null(strstr(err.msg, "zero count at offset 0x7"));
	dcpi_profile_free(p);
}

/* ---- merge ---- */

static void
test_merge(void **state)
{
	static const char *const keys[] = { "image", "event", "period", "tstart", "tsize" };
	static const char *const other[] = { "ffff", "cycles", "1", "1000", "99" };
	struct dcpi_profile *a = full_profile(), *b = full_profile();
	struct dcpi_error err;
	char want[64];
	size_t i;

	(void)state;
	assert_int_equal(dcpi_profile_add(a, 1, 10), 0);
	assert_int_equal(dcpi_profile_add(a, 5, UINT32_MAX - 1), 0);
	assert_int_equal(dcpi_profile_add(b, 5, 7), 0);
	assert_int_equal(dcpi_profile_add(b, 9, 3), 0);
	assert_int_equal(dcpi_profile_set(b, "x-origin", "unit test  with  blanks", &err), 0);
	assert_int_equal(dcpi_profile_set(b, "x-second", "yes", &err), 0);
	/* Epoch and platform may differ: a profile is merged across epochs. */
	assert_int_equal(dcpi_profile_set(b, "epoch", "20270101000000", &err), 0);
	assert_int_equal(dcpi_profile_merge(a, b, &err), 0);
	assert_int_equal(a->n_counts, 3);
	assert_int_equal(dcpi_profile_count(a, 1), 10);
	assert_int_equal(dcpi_profile_count(a, 5), UINT32_MAX);
	assert_int_equal(dcpi_profile_count(a, 9), 3);
	assert_int_equal(a->n_unknown, 2);
	assert_string_equal(a->unknown[0], "x-origin unit test  with  blanks");
	assert_string_equal(a->unknown[1], "x-second yes");
	assert_string_equal(a->epoch, "20261121223000");

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct dcpi_profile *c = full_profile();

		assert_int_equal(dcpi_profile_add(c, 1, 1), 0);
		assert_int_equal(dcpi_profile_set(c, keys[i], other[i], &err), 0);
		errno = 0;
		assert_int_equal(dcpi_profile_merge(a, c, &err), -1);
		assert_int_equal(errno, EINVAL);
		snprintf(want, sizeof(want), "different '%s'", keys[i]);
		assert_non_null(strstr(err.msg, want));
		assert_int_equal(dcpi_profile_count(a, 1), 10);
		assert_int_equal(a->n_unknown, 2);
		dcpi_profile_free(c);
	}
	dcpi_profile_free(a);
	dcpi_profile_free(b);
}

/* ---- atomic writes ---- */

static int
count_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
assert_content(const char *path, const char *want)
{
	char got[256];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	assert_true(n >= 0);
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void
test_atomic_write(void **state)
{
	char dir[] = "/tmp/test_atomic.XXXXXX", path[128], sub[128], missing[160];
	struct dcpi_error err;
	struct rlimit old, lim;
	char big[8192];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(dcpi_atomic_write(path, "old\n", 4, 0600, &err), 0);
	assert_content(path, "old\n");
	assert_int_equal(dcpi_atomic_write(path, "new!\n", 5, 0600, &err), 0);
	assert_content(path, "new!\n");
	assert_int_equal(count_entries(dir), 1);

	/* A missing directory. */
	snprintf(missing, sizeof(missing), "%s/nodir/f", dir);
	errno = 0;
	assert_int_equal(dcpi_atomic_write(missing, "x", 1, 0644, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, missing));

	/* The path is a directory: the rename fails, the temp file goes. */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	errno = 0;
	assert_int_equal(dcpi_atomic_write(sub, "x", 1, 0644, &err), -1);
	assert_int_equal(errno, EISDIR);
	assert_non_null(strstr(err.msg, sub));
	assert_int_equal(count_entries(dir), 2);
	assert_int_equal(count_entries(sub), 0);

	/* The disk fills up half-way (a file size limit stands in for ENOSPC):
	 * the old content stays and no temporary file is left. */
	memset(big, 'b', sizeof(big));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 4096;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	errno = 0;
	assert_int_equal(dcpi_atomic_write(path, big, sizeof(big), 0644, &err), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "cannot write"));
	assert_content(path, "new!\n");
	assert_int_equal(count_entries(dir), 2);

	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_padding),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_golden_unknown),
		cmocka_unit_test(test_golden_epoch10),
		cmocka_unit_test(test_golden_empty_and_blanks),
		cmocka_unit_test(test_golden_bad),
		cmocka_unit_test(test_bad_required),
		cmocka_unit_test(test_bad_header_values),
		cmocka_unit_test(test_header_limits),
		cmocka_unit_test(test_bad_structure),
		cmocka_unit_test(test_bad_chunks),
		cmocka_unit_test(test_footer_saturation),
		cmocka_unit_test(test_add_saturation),
		cmocka_unit_test(test_set_and_encode_errors),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_atomic_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
