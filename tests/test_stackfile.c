/*
 * The stack file, "dcpi-stacks 1" (lib/stackfile.c, dcpi(5) "Stacks"):
 * round trips, interning, merge, every rejection of the reader with the
 * line or byte it names, truncation at every byte, a real file, and a
 * file of 100,000 stacks.
 *
 * "test_stackfile corpus DIR" writes the valid files of the fuzz corpus
 * (tests/fuzz/corpus/stackfile/valid-*) instead of testing.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dcpi/stackfile.h>

#define EPOCH	"20261121223000"
#define NOIMG	DCPI_STACK_NOIMAGE
#define NOLAB	DCPI_STACK_NOLABEL

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
	bput(b, tmp, (size_t)n);
}

static void
b32(struct buf *b, uint32_t v)
{
	unsigned char w[4] = { v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 };

	bput(b, w, 4);
}

static void
b64(struct buf *b, uint64_t v)
{
	b32(b, (uint32_t)v);
	b32(b, (uint32_t)(v >> 32));
}

/* A stack of the binary part: event, label, count, depth, frames. */
static void
bstack(struct buf *b, uint32_t ev, uint32_t lab, uint64_t count, uint32_t depth, ...)
{
	va_list ap;
	uint32_t i;

	b32(b, ev);
	b32(b, lab);
	b64(b, count);
	b32(b, depth);
	va_start(ap, depth);
	for (i = 0; i < depth; i++)
		b32(b, va_arg(ap, uint32_t));
	va_end(ap);
}

/* The header of the hand-made files: two images, two events, one label. */
static void
header(struct buf *b, uint32_t nframes, uint32_t nstacks)
{
	bprintf(b, "dcpi-stacks 1\nepoch " EPOCH "\nhost h1\n"
	    "image 0 ab12 400000 4096 /bin/a\n"
	    "image 1 cd34 7f0000001000 65536 /lib/libc.so.6\n"
	    "event 0 perf::cpu-clock\nevent 1 perf::page-faults:u\n"
	    "label 0 unit.service\n"
	    "frames %" PRIu32 "\nstacks %" PRIu32 "\nsamples\n", nframes, nstacks);
}

/* A good hand-made file: three frames, two stacks, 7 samples. */
static void
good(struct buf *b)
{
	header(b, 3, 2);
	b32(b, 0); b32(b, 0x10);
	b32(b, 1); b32(b, 0x2000);
	b32(b, NOIMG); b32(b, 0);
	bstack(b, 0, 0, 5, 3, 0, 1, 2);
	bstack(b, 1, NOLAB, 2, 1, 1);
	b32(b, 2);
	b64(b, 7);
}

static size_t
header_len(void)
{
	struct buf b = { 0 };
	size_t n;

	header(&b, 3, 2);
	n = b.len;
	free(b.p);
	return n;
}

/* Parsing buf must fail with EINVAL and a message "t: " holding want. */
static void
reject(const void *p, size_t len, const char *want)
{
	struct dcpi_stackfile *sf = (void *)1;
	struct dcpi_error err;

	memset(err.msg, 'x', sizeof(err.msg));
	errno = 0;
	if (dcpi_stackfile_parse(p, len, "t", &sf, &err) == 0)
		fail_msg("accepted, expected '%s'", want);
	assert_int_equal(errno, EINVAL);
	assert_null(sf);
	assert_non_null(memchr(err.msg, '\0', sizeof(err.msg)));
	assert_null(strchr(err.msg, '\n'));
	if (strncmp(err.msg, "t: ", 3) != 0 || strstr(err.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void
reject_buf(struct buf *b, const char *want)
{
	reject(b->p, b->len, want);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static struct dcpi_stackfile *
parse_ok(const void *p, size_t len)
{
	struct dcpi_stackfile *sf;
	struct dcpi_error err;

	if (dcpi_stackfile_parse(p, len, "t", &sf, &err) != 0)
		fail_msg("%s", err.msg);
	return sf;
}

static void
encode_ok(const struct dcpi_stackfile *sf, struct buf *b)
{
	struct dcpi_error err;
	void *p;
	size_t n;

	if (dcpi_stackfile_encode(sf, &p, &n, &err) != 0)
		fail_msg("%s", err.msg);
	b->p = p;
	b->len = b->cap = n;
}

/* sf must encode to want's bytes. */
static void
assert_encodes_to(const struct dcpi_stackfile *sf, const struct buf *want)
{
	struct buf got = { 0 };

	encode_ok(sf, &got);
	assert_int_equal(got.len, want->len);
	assert_memory_equal(got.p, want->p, want->len);
	free(got.p);
}

static const struct dcpi_stack_addframe F_A10 = { "ab12", 0x400000, 4096, "/bin/a", 0x10 };
static const struct dcpi_stack_addframe F_A20 = { "ab12", 0x400000, 4096, "/bin/a", 0x20 };
static const struct dcpi_stack_addframe F_C2000 = { "cd34", 0x7f0000001000, 65536,
	"/lib/libc.so.6", 0x2000 };
static const struct dcpi_stack_addframe F_NONE = { NULL, 0, 0, NULL, 0 };

static void
add_ok(struct dcpi_stackfile *sf, const char *ev, const char *lab,
    const struct dcpi_stack_addframe *f, uint32_t depth, uint64_t count)
{
	struct dcpi_error err;

	if (dcpi_stackfile_add(sf, ev, lab, f, depth, count, &err) != 0)
		fail_msg("%s", err.msg);
}

/* The stack of sf for (event, label or NULL, frames), or NULL. */
static const struct dcpi_stack *
find(const struct dcpi_stackfile *sf, const char *ev, const char *lab,
    const struct dcpi_stack_addframe *f, uint32_t depth)
{
	const struct dcpi_stack *s;
	const struct dcpi_stack_frame *fr;
	size_t i, k;

	for (i = 0; i < sf->n_stacks; i++) {
		s = &sf->stacks[i];
		if (strcmp(sf->events[s->event], ev) != 0 || s->depth != depth ||
		    (lab == NULL) != (s->label == NOLAB) ||
		    (lab != NULL && strcmp(sf->labels[s->label], lab) != 0))
			continue;
		for (k = 0; k < depth; k++) {
			fr = &sf->frames[s->frames[k]];
			if (f[k].id == NULL ? fr->image != NOIMG :
			    (fr->image == NOIMG || strcmp(sf->images[fr->image].id, f[k].id) != 0 ||
			    fr->offset != f[k].offset))
				break;
		}
		if (k == depth)
			return s;
	}
	return NULL;
}

static uint64_t
count_of(const struct dcpi_stackfile *sf, const char *ev, const char *lab,
    const struct dcpi_stack_addframe *f, uint32_t depth)
{
	const struct dcpi_stack *s = find(sf, ev, lab, f, depth);

	return s != NULL ? s->count : 0;
}

/* The file the round trip and the corpus use. */
static struct dcpi_stackfile *
sample_file(void)
{
	struct dcpi_stack_addframe s1[] = { F_A10, F_C2000, F_NONE };
	struct dcpi_stack_addframe s2[] = { F_C2000, F_A20 };
	struct dcpi_stackfile *sf;

	assert_non_null(sf = dcpi_stackfile_new(EPOCH, "h1"));
	add_ok(sf, "perf::cpu-clock", NULL, s1, 3, 5);
	add_ok(sf, "perf::cpu-clock", "unit.service", s1, 3, 2);
	add_ok(sf, "perf::page-faults:u", "[idle]", s2, 2, 1);
	add_ok(sf, "perf::cpu-clock", NULL, &F_NONE, 1, 3);
	return sf;
}

/* ---- tests ---- */

static void
test_roundtrip(void **state)
{
	static const char want_hdr[] =
	    "dcpi-stacks 1\nepoch " EPOCH "\nhost h1\n"
	    "image 0 ab12 400000 4096 /bin/a\n"
	    "image 1 cd34 7f0000001000 65536 /lib/libc.so.6\n"
	    "event 0 perf::cpu-clock\nevent 1 perf::page-faults:u\n"
	    "label 0 unit.service\nlabel 1 [idle]\n"
	    "frames 4\nstacks 4\nsamples\n";
	struct dcpi_stack_addframe s1[] = { F_A10, F_C2000, F_NONE };
	struct dcpi_stackfile *sf, *q;
	struct buf b1 = { 0 };
	const unsigned char *w;
	size_t h = sizeof(want_hdr) - 1;

	(void)state;
	sf = sample_file();
	encode_ok(sf, &b1);
	assert_true(b1.len > h);
	assert_memory_equal(b1.p, want_hdr, h);
	/* Frames in order of first use: (0, 0x10), (1, 0x2000), NOIMAGE, (0, 0x20). */
	assert_int_equal(b1.len, h + 4 * 8 + (20 + 12) + (20 + 12) + (20 + 8) + (20 + 4) + 12);
	w = b1.p + h;
	assert_int_equal(w[0], 0);
	assert_int_equal(w[4], 0x10);
	assert_memory_equal(w + 16, "\xff\xff\xff\xff\0\0\0\0", 8);
	/* The footer: 4 stacks, 11 samples. */
	assert_memory_equal(b1.p + b1.len - 12, "\4\0\0\0\13\0\0\0\0\0\0\0", 12);

	q = parse_ok(b1.p, b1.len);
	assert_string_equal(q->epoch, EPOCH);
	assert_string_equal(q->host, "h1");
	assert_int_equal(q->n_images, 2);
	assert_string_equal(q->images[1].id, "cd34");
	assert_int_equal(q->images[1].tstart, 0x7f0000001000);
	assert_int_equal(q->images[1].tsize, 65536);
	assert_string_equal(q->images[1].path, "/lib/libc.so.6");
	assert_int_equal(q->n_events, 2);
	assert_int_equal(q->n_labels, 2);
	assert_string_equal(q->labels[1], "[idle]");
	assert_int_equal(q->n_frames, 4);
	assert_int_equal(q->frames[2].image, NOIMG);
	assert_int_equal(q->n_stacks, 4);
	assert_int_equal(count_of(q, "perf::cpu-clock", NULL, s1, 3), 5);
	assert_int_equal(count_of(q, "perf::cpu-clock", "unit.service", s1, 3), 2);
	assert_int_equal(count_of(q, "perf::cpu-clock", NULL, &F_NONE, 1), 3);
	assert_int_equal(q->stacks[0].frames[0], 0);
	assert_int_equal(q->stacks[0].frames[2], 2);
	assert_encodes_to(q, &b1);
	free(b1.p);
	dcpi_stackfile_free(sf);
	dcpi_stackfile_free(q);

	/* An empty file. */
	assert_non_null(sf = dcpi_stackfile_new("2611212230", "a host"));
	encode_ok(sf, &b1);
	assert_int_equal(b1.len, strlen("dcpi-stacks 1\nepoch 2611212230\nhost a host\n"
	    "frames 0\nstacks 0\nsamples\n") + 12);
	q = parse_ok(b1.p, b1.len);
	assert_int_equal(q->n_stacks + q->n_frames + q->n_images, 0);
	free(b1.p);
	dcpi_stackfile_free(sf);
	dcpi_stackfile_free(q);
	errno = 0;
	assert_null(dcpi_stackfile_new("2026", "h"));
	assert_int_equal(errno, EINVAL);
	assert_null(dcpi_stackfile_new(EPOCH, " h"));
	assert_null(dcpi_stackfile_new(EPOCH, ""));
}

/* Unknown lines anywhere between host and frames are kept in order and
 * written after the labels; a merge adds those into lacks. */
static void
test_unknown_lines(void **state)
{
	struct buf b = { 0 }, e = { 0 }, w = { 0 };
	struct dcpi_stackfile *sf, *other;
	struct dcpi_error err;

	(void)state;
	bprintf(&b, "dcpi-stacks 1\nepoch " EPOCH "\nhost h1\nzeta  first one\n"
	    "image 0 ab12 400000 4096 /bin/a\ncomment\tsecond\nevent 0 cycles\n"
	    "frames 1\nstacks 1\nsamples\n");
	b32(&b, 0); b32(&b, 1);
	bstack(&b, 0, NOLAB, 9, 1, 0);
	b32(&b, 1); b64(&b, 9);
	sf = parse_ok(b.p, b.len);
	assert_int_equal(sf->n_unknown, 2);
	assert_string_equal(sf->unknown[0], "zeta  first one");
	assert_string_equal(sf->unknown[1], "comment\tsecond");
	encode_ok(sf, &e);
	bprintf(&w, "dcpi-stacks 1\nepoch " EPOCH "\nhost h1\n"
	    "image 0 ab12 400000 4096 /bin/a\nevent 0 cycles\n"
	    "zeta  first one\ncomment\tsecond\nframes 1\nstacks 1\nsamples\n");
	assert_true(e.len > w.len);
	assert_memory_equal(e.p, w.p, w.len);

	assert_non_null(other = dcpi_stackfile_new(EPOCH, "h1"));
	assert_int_equal(dcpi_stackfile_merge(other, sf, &err), 0);
	assert_int_equal(dcpi_stackfile_merge(other, sf, &err), 0);
	assert_int_equal(other->n_unknown, 2);
	assert_int_equal(other->stacks[0].count, 18);
	free(b.p);
	free(e.p);
	free(w.p);
	dcpi_stackfile_free(sf);
	dcpi_stackfile_free(other);
}

static void
test_interning(void **state)
{
	struct dcpi_stack_addframe s1[] = { F_A10, F_C2000 }, s2[] = { F_A20, F_C2000 };
	struct dcpi_stack_addframe bad[3];
	struct dcpi_stackfile *sf;
	struct dcpi_error err;
	struct buf before = { 0 }, after = { 0 };

	(void)state;
	assert_non_null(sf = dcpi_stackfile_new(EPOCH, "h1"));
	add_ok(sf, "cycles", NULL, s1, 2, 3);
	add_ok(sf, "cycles", NULL, s1, 2, 4);
	assert_int_equal(sf->n_stacks, 1);
	assert_int_equal(sf->stacks[0].count, 7);
	/* The caller frame is shared; a label makes another stack. */
	add_ok(sf, "cycles", NULL, s2, 2, 1);
	add_ok(sf, "cycles", "l", s2, 2, 1);
	assert_int_equal(sf->n_stacks, 3);
	assert_int_equal(sf->n_frames, 3);
	assert_int_equal(sf->n_images, 2);
	assert_int_equal(sf->n_events, 1);
	assert_int_equal(sf->n_labels, 1);
	assert_int_equal(sf->stacks[1].frames[1], sf->stacks[0].frames[1]);
	/* The same image at another path is the same image. */
	s2[0].path = "/other/a";
	add_ok(sf, "cycles", NULL, s2, 2, 1);
	assert_int_equal(sf->n_images, 2);
	assert_string_equal(sf->images[0].path, "/bin/a");
	assert_int_equal(sf->stacks[1].count, 2);
	/* Saturation; count 0 adds nothing. */
	add_ok(sf, "cycles", NULL, s1, 2, UINT64_MAX - 1);
	assert_true(sf->stacks[0].count == UINT64_MAX);
	add_ok(sf, "instructions", "new", &F_NONE, 1, 0);
	assert_int_equal(sf->n_stacks, 3);
	assert_int_equal(sf->n_events, 1);
	assert_int_equal(sf->n_frames, 3);

	/* Refused, and the file unchanged (nothing half interned). */
	encode_ok(sf, &before);
	memcpy(bad, (struct dcpi_stack_addframe[]){ { "ee", 0x1000, 100, "/e", 1 }, F_NONE,
	    { "ff", 0, 10, "/f", 10 } }, sizeof(bad));
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", "lab2", bad, 3, 1, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "frame 2: offset 0xa is not below the tsize 10 of image ff"));
	bad[2] = (struct dcpi_stack_addframe){ "ee", 0x2000, 100, "/e", 1 };
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", "lab2", bad, 3, 1, &err), -1);
	assert_non_null(strstr(err.msg, "image ee: text 0x2000 size 100 differs"));
	bad[2] = (struct dcpi_stack_addframe){ "ab12", 0x400000, 4097, "/bin/a", 1 };
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", NULL, bad, 3, 1, &err), -1);
	assert_non_null(strstr(err.msg, "image ab12"));
	bad[2] = (struct dcpi_stack_addframe){ "AB12", 0x400000, 4096, "/bin/a", 1 };
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", NULL, bad, 3, 1, &err), -1);
	assert_non_null(strstr(err.msg, "lowercase hex"));
	bad[2] = (struct dcpi_stack_addframe){ "ab12", 0x400000, 4096, "", 1 };
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", NULL, bad, 3, 1, &err), -1);
	bad[2] = (struct dcpi_stack_addframe){ "ab12", 0x400000, 4096, "a\nb", 1 };
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", NULL, bad, 3, 1, &err), -1);
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", NULL, bad, 0, 1, &err), -1);
	assert_non_null(strstr(err.msg, "depth 0, expected 1 to 1024"));
	assert_int_equal(dcpi_stackfile_add(sf, "ev2", NULL, bad, DCPI_STACK_DEPTH_MAX + 1,
	    1, &err), -1);
	assert_int_equal(dcpi_stackfile_add(sf, " ev", NULL, s1, 2, 1, &err), -1);
	assert_int_equal(dcpi_stackfile_add(sf, "", NULL, s1, 2, 1, &err), -1);
	assert_int_equal(dcpi_stackfile_add(sf, "ev", "a\nb", s1, 2, 1, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_encodes_to(sf, &before);
	free(before.p);

	/* The deepest stack. */
	{
		struct dcpi_stack_addframe deep[DCPI_STACK_DEPTH_MAX];
		uint32_t i;

		for (i = 0; i < DCPI_STACK_DEPTH_MAX; i++)
			deep[i] = (struct dcpi_stack_addframe){ "ab12", 0x400000, 4096,
			    "/bin/a", i };
		add_ok(sf, "cycles", NULL, deep, DCPI_STACK_DEPTH_MAX, 1);
		assert_int_equal(sf->stacks[sf->n_stacks - 1].depth, DCPI_STACK_DEPTH_MAX);
		encode_ok(sf, &after);
		dcpi_stackfile_free(parse_ok(after.p, after.len));
		free(after.p);
	}
	dcpi_stackfile_free(sf);
}

static void
test_merge(void **state)
{
	struct dcpi_stack_addframe s1[] = { F_A10, F_C2000 }, s2[] = { F_C2000, F_NONE };
	struct dcpi_stack_addframe s3[] = { { "9999", 0x1000, 64, "/usr/bin/z", 8 }, F_A10 };
	struct dcpi_stackfile *a, *b, *c, *pa;
	struct dcpi_error err;
	struct buf ba = { 0 };

	(void)state;
	assert_non_null(a = dcpi_stackfile_new(EPOCH, "h1"));
	assert_non_null(b = dcpi_stackfile_new(EPOCH, "h1"));
	add_ok(a, "cycles", "x", s1, 2, 10);
	add_ok(a, "cycles", NULL, s2, 2, 1);
	/* b: other order of events and labels, a new image, an overlapping stack. */
	add_ok(b, "instructions", "y", s3, 2, 4);
	add_ok(b, "cycles", "x", s1, 2, 5);
	add_ok(b, "cycles", "y", s1, 2, 6);
	add_ok(b, "cycles", NULL, s2, 1, 2);

	/* Through the reader, so that the merge uses the index it built. */
	encode_ok(a, &ba);
	pa = parse_ok(ba.p, ba.len);
	assert_int_equal(dcpi_stackfile_merge(pa, b, &err), 0);
	assert_int_equal(pa->n_images, 3);
	assert_int_equal(pa->n_events, 2);
	assert_int_equal(pa->n_labels, 2);
	assert_int_equal(pa->n_stacks, 5);
	assert_int_equal(count_of(pa, "cycles", "x", s1, 2), 15);
	assert_int_equal(count_of(pa, "cycles", "y", s1, 2), 6);
	assert_int_equal(count_of(pa, "cycles", NULL, s2, 2), 1);
	assert_int_equal(count_of(pa, "cycles", NULL, s2, 1), 2);
	assert_int_equal(count_of(pa, "instructions", "y", s3, 2), 4);
	/* The same as merging into the file in memory. */
	assert_int_equal(dcpi_stackfile_merge(a, b, &err), 0);
	free(ba.p);
	encode_ok(a, &ba);
	assert_encodes_to(pa, &ba);

	/* Refused, into unchanged: another host, or another text of an image. */
	assert_non_null(c = dcpi_stackfile_new(EPOCH, "h2"));
	assert_int_equal(dcpi_stackfile_merge(a, c, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "host h2"));
	dcpi_stackfile_free(c);
	assert_non_null(c = dcpi_stackfile_new(EPOCH, "h1"));
	s3[0].tsize = 65;
	add_ok(c, "new-event", NULL, &F_A20, 1, 1);
	add_ok(c, "cycles", NULL, s3, 2, 1);
	assert_int_equal(dcpi_stackfile_merge(a, c, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err.msg, "image 9999"));
	assert_encodes_to(a, &ba);
	free(ba.p);
	dcpi_stackfile_free(a);
	dcpi_stackfile_free(b);
	dcpi_stackfile_free(c);
	dcpi_stackfile_free(pa);
}

/* The chains lines: written after the events for the events that have
 * one, read back; a file without them reads as period 0 (not said), fp;
 * a merge of two periods keeps the shorter and scales the other's counts,
 * a merge of two routes is mixed. */
static void
test_chains(void **state)
{
	struct dcpi_stack_addframe s1[] = { F_A10, F_C2000 }, s2[] = { F_C2000, F_NONE };
	struct dcpi_stackfile *a, *b, *pa;
	struct dcpi_error err;
	struct buf ba = { 0 }, bb = { 0 };

	(void)state;
	assert_non_null(a = dcpi_stackfile_new(EPOCH, "h1"));
	add_ok(a, "cycles", NULL, s1, 2, 3);
	add_ok(a, "instructions", NULL, s2, 2, 4);
	assert_int_equal(a->chains[0].period, 0);
	assert_int_equal(a->chains[0].route, DCPI_STACK_ROUTE_FP);
	/* No chains line said: as files before them. */
	encode_ok(a, &ba);
	assert_null(memmem(ba.p, ba.len, "chains ", 7));
	free(ba.p);
	assert_int_equal(dcpi_stackfile_set_chains(a, "instructions", 10000000,
	    DCPI_STACK_ROUTE_DWARF, &err), 0);
	assert_int_equal(dcpi_stackfile_set_chains(a, "new", 5, DCPI_STACK_ROUTE_FP, &err), 0);
	assert_int_equal(a->n_events, 3);
	assert_int_equal(dcpi_stackfile_set_chains(a, "cycles", 1, 3, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(dcpi_stackfile_set_chains(a, "cycles", (uint64_t)INT64_MAX + 1,
	    DCPI_STACK_ROUTE_FP, &err), -1);
	encode_ok(a, &ba);
	assert_non_null(memmem(ba.p, ba.len, "event 2 new\nchains 1 10000000 dwarf\n"
	    "chains 2 5 fp\nframes", 50));
	pa = parse_ok(ba.p, ba.len);
	assert_int_equal(pa->chains[0].period, 0);
	assert_int_equal(pa->chains[1].period, 10000000);
	assert_int_equal(pa->chains[1].route, DCPI_STACK_ROUTE_DWARF);
	assert_int_equal(pa->chains[2].period, 5);
	assert_int_equal(pa->n_unknown, 0);
	assert_encodes_to(pa, &ba);
	assert_string_equal(dcpi_stack_route_name(DCPI_STACK_ROUTE_MIXED), "mixed");

	/* A reload between two flushes: 10 ms then 1 ms, dwarf then fp. */
	assert_non_null(b = dcpi_stackfile_new(EPOCH, "h1"));
	add_ok(b, "instructions", NULL, s2, 2, 7);
	add_ok(b, "instructions", NULL, s1, 2, 1);
	add_ok(b, "cycles", NULL, s1, 2, 2);
	assert_int_equal(dcpi_stackfile_set_chains(b, "instructions", 1000000,
	    DCPI_STACK_ROUTE_FP, &err), 0);
	assert_int_equal(dcpi_stackfile_set_chains(b, "cycles", 2000000,
	    DCPI_STACK_ROUTE_FP, &err), 0);
	assert_int_equal(dcpi_stackfile_set_chains(b, "other", 3, DCPI_STACK_ROUTE_DWARF,
	    &err), 0);
	assert_int_equal(dcpi_stackfile_merge(pa, b, &err), 0);
	/* 4 samples at 10 ms are 40 at 1 ms, beside the 7 at 1 ms. */
	assert_int_equal(count_of(pa, "instructions", NULL, s2, 2), 47);
	assert_int_equal(count_of(pa, "instructions", NULL, s1, 2), 1);
	assert_int_equal(pa->chains[1].period, 1000000);
	assert_int_equal(pa->chains[1].route, DCPI_STACK_ROUTE_MIXED);
	/* Not said in pa: b's period, the counts as they are. */
	assert_int_equal(count_of(pa, "cycles", NULL, s1, 2), 5);
	assert_int_equal(pa->chains[0].period, 2000000);
	assert_int_equal(pa->chains[0].route, DCPI_STACK_ROUTE_FP);
	/* New in pa: b's line. */
	assert_int_equal(pa->chains[3].period, 3);
	assert_int_equal(pa->chains[3].route, DCPI_STACK_ROUTE_DWARF);
	/* The other way: b's shorter period scales pa's coming in. */
	dcpi_stackfile_free(a);
	assert_non_null(a = parse_ok(ba.p, ba.len));
	assert_int_equal(dcpi_stackfile_merge(b, a, &err), 0);
	assert_int_equal(count_of(b, "instructions", NULL, s2, 2), 47);
	assert_int_equal(b->chains[0].period, 1000000);
	encode_ok(b, &bb);
	dcpi_stackfile_free(parse_ok(bb.p, bb.len));
	free(ba.p);
	free(bb.p);
	dcpi_stackfile_free(a);
	dcpi_stackfile_free(b);
	dcpi_stackfile_free(pa);
}

static void
test_reject_header(void **state)
{
	static const char *const cases[][2] = {
		{ "", "line 1: end of file, expected 'dcpi-stacks 1'" },
		{ "dcpi-stacks 1", "line 1: line without a newline" },
		{ "dcpi-stacks 2\n", "line 1: version 'dcpi-stacks 2' is not supported" },
		{ "pdb-0.07\n", "line 1: expected 'dcpi-stacks 1'" },
		{ "dcpi-stacks 1 \n", "line 1: version" },
		{ "dcpi-stacks 1\nhost h\n", "line 2: expected 'epoch EPOCH'" },
		{ "dcpi-stacks 1\nepoch 2026\n", "line 2: epoch '2026' is neither" },
		{ "dcpi-stacks 1\nepoch  " EPOCH "\n", "line 2: expected EPOCH after one blank" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost\n", "line 3: expected 'host HOST'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\n", "line 4: end of file" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 1 ab 0 1 /a\n",
		    "line 4: image index 1, expected 0" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage x ab 0 1 /a\n",
		    "line 4: expected 'image IDX ...'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 AB 0 1 /a\n",
		    "line 4: expected an image id of 1 to 128 lowercase hex digits" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 ab 0x0 1 /a\n",
		    "line 4: image ab: expected TSTART" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 ab 10000000000000000 1 /a\n",
		    "line 4: image ab: expected TSTART" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 ab 0 -1 /a\n",
		    "line 4: image ab: expected TSIZE" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 ab 0 1 \n",
		    "line 4: expected the image's path" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 ab 0 1\n",
		    "line 4: image ab: expected TSIZE" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nimage 0 ab 0 1 /a\nimage 1 ab 0 1 /b\n",
		    "line 5: image ab given twice (image 0)" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nevent 1 a\n",
		    "line 5: event 'a' given twice (event 0)" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nlabel 0 a\nlabel 0 b\n",
		    "line 5: label index 0, expected 1" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nimage 0 ab 0 1 /a\n",
		    "line 5: 'image' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nlabel 0 a\nevent 0 a\n",
		    "line 5: 'event' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nhost g\n",
		    "line 4: 'host' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nchains 0 1 fp\n",
		    "line 4: 'chains' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 1 1 fp\n",
		    "line 5: expected 'chains IDX PERIOD ROUTE', IDX an event's index (1 events)" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nevent 1 b\nchains 1 1 fp\n"
		    "chains 0 1 fp\n", "line 7: expected 'chains IDX PERIOD ROUTE'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 0 1 fp\nchains 0 1 fp\n",
		    "line 6: expected 'chains IDX PERIOD ROUTE'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 0 x fp\n",
		    "line 5: chains 0: expected PERIOD in decimal" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 0 9223372036854775808 fp\n",
		    "line 5: chains 0: expected PERIOD in decimal (at most 2^63 - 1)" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 0 1 lbr\n",
		    "line 5: chains 0: expected ROUTE fp, dwarf or mixed" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 0 1\n",
		    "line 5: chains 0: expected PERIOD" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nchains 0 1 fp\nevent 1 b\n",
		    "line 6: 'event' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nevent 0 a\nlabel 0 l\nchains 0 1 fp\n",
		    "line 6: 'chains' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nstacks 0\n",
		    "line 4: 'stacks' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nsamples\n",
		    "line 4: 'samples' out of place" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nword\n",
		    "line 4: 'word' is not 'KEYWORD VALUE'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nword  \n",
		    "line 4: 'word  ' is not 'KEYWORD VALUE'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\n a b\n", "line 4: ' a b' is not" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nx y\0z\n", "line 4: NUL byte" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nframes x\n",
		    "line 4: expected 'frames N'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nframes 4294967295\n",
		    "line 4: expected 'frames N', N a decimal number of at most 4294967294" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nframes 0\nx y\n",
		    "line 5: expected 'stacks N'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nframes 0\nstacks 0\nsamples \n",
		    "line 6: expected 'samples'" },
		{ "dcpi-stacks 1\nepoch " EPOCH "\nhost h\nframes 0\nstacks 0\n",
		    "line 6: end of file, expected 'samples'" },
	};
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = strlen(cases[i][0]);
		/* The NUL case: its length to the final newline. */
		if (strstr(cases[i][1], "NUL") != NULL)
			n += 3;
		reject(cases[i][0], n, cases[i][1]);
	}
}

static void
test_reject_binary(void **state)
{
	size_t h = header_len(), st = h + 3 * 8, st2 = st + 20 + 12, ft = st2 + 20 + 4;
	struct buf b = { 0 };
	char want[256];

	(void)state;
	good(&b);
	dcpi_stackfile_free(parse_ok(b.p, b.len));
	free(b.p);
	memset(&b, 0, sizeof(b));

	/* Frames. */
	header(&b, 1, 0);
	b32(&b, 2); b32(&b, 0);
	snprintf(want, sizeof(want), "byte %zu: frame 0: image 2 out of range (2 images)", h);
	reject_buf(&b, want);
	header(&b, 2, 0);
	b32(&b, 0); b32(&b, 0); b32(&b, 0); b32(&b, 4096);
	snprintf(want, sizeof(want), "byte %zu: frame 1: offset 0x1000 is not below the "
	    "tsize 4096 of image 0", h + 8);
	reject_buf(&b, want);
	header(&b, 1, 0);
	b32(&b, NOIMG); b32(&b, 4);
	snprintf(want, sizeof(want), "byte %zu: frame 0: unattributed, offset 0x4", h);
	reject_buf(&b, want);
	header(&b, 3, 0);
	b32(&b, 1); b32(&b, 7); b32(&b, NOIMG); b32(&b, 0); b32(&b, 1); b32(&b, 7);
	snprintf(want, sizeof(want), "byte %zu: frame 2 repeats frame 0", h + 16);
	reject_buf(&b, want);
	header(&b, 3, 0);
	b32(&b, 1); b32(&b, 7);
	snprintf(want, sizeof(want), "byte %zu: 3 frames need 24 bytes, 8 left", h);
	reject_buf(&b, want);

	/* Stacks: good frames, then one bad field each. */
#define FRAMES(b, nst) do { header(b, 3, nst); b32(b, 0); b32(b, 0x10); \
	b32(b, 1); b32(b, 0x2000); b32(b, NOIMG); b32(b, 0); } while (0)
	FRAMES(&b, 1);
	bstack(&b, 2, 0, 1, 1, 0);
	snprintf(want, sizeof(want), "byte %zu: stack 0: event 2 out of range (2 events)", st);
	reject_buf(&b, want);
	FRAMES(&b, 1);
	bstack(&b, 0, 1, 1, 1, 0);
	snprintf(want, sizeof(want), "byte %zu: stack 0: label 1 out of range (1 labels)",
	    st + 4);
	reject_buf(&b, want);
	FRAMES(&b, 1);
	bstack(&b, 0, 0, 0, 1, 0);
	snprintf(want, sizeof(want), "byte %zu: stack 0: count 0, expected at least 1", st + 8);
	reject_buf(&b, want);
	FRAMES(&b, 1);
	bstack(&b, 0, 0, 1, 0);
	snprintf(want, sizeof(want), "byte %zu: stack 0: depth 0, expected 1 to 1024", st + 16);
	reject_buf(&b, want);
	FRAMES(&b, 1);
	b32(&b, 0); b32(&b, 0); b64(&b, 1); b32(&b, 1025);
	snprintf(want, sizeof(want), "byte %zu: stack 0: depth 1025, expected 1 to 1024",
	    st + 16);
	reject_buf(&b, want);
	FRAMES(&b, 1);
	bstack(&b, 0, 0, 1, 2, 1, 3);
	snprintf(want, sizeof(want), "byte %zu: stack 0: frame index 3 out of range "
	    "(3 frames)", st + 24);
	reject_buf(&b, want);
	FRAMES(&b, 2);
	bstack(&b, 0, 0, 5, 3, 0, 1, 2);
	bstack(&b, 0, 0, 1, 3, 0, 1, 2);
	snprintf(want, sizeof(want), "byte %zu: stack 1 repeats stack 0", st2);
	reject_buf(&b, want);
	FRAMES(&b, 2);
	bstack(&b, 0, 0, 5, 3, 0, 1, 2);
	b32(&b, 0);
	snprintf(want, sizeof(want), "byte %zu: stack 1: 4 bytes left, expected a stack",
	    st2);
	reject_buf(&b, want);
	FRAMES(&b, 1);
	b32(&b, 0); b32(&b, 0); b64(&b, 5); b32(&b, 3); b32(&b, 0); b32(&b, 1);
	snprintf(want, sizeof(want), "byte %zu: stack 0: 3 frames need 12 bytes, 8 left",
	    st + 20);
	reject_buf(&b, want);
	/* The same stack under another label, or of another event, is another. */
	FRAMES(&b, 3);
	bstack(&b, 0, 0, 5, 1, 2);
	bstack(&b, 0, NOLAB, 5, 1, 2);
	bstack(&b, 1, NOLAB, 5, 1, 2);
	b32(&b, 3); b64(&b, 15);
	dcpi_stackfile_free(parse_ok(b.p, b.len));
	free(b.p);
	memset(&b, 0, sizeof(b));

	/* Footer. */
	good(&b);
	b.len -= 12;
	b32(&b, 3); b64(&b, 7);
	snprintf(want, sizeof(want), "byte %zu: footer gives 3 stacks, the file holds 2", ft);
	reject_buf(&b, want);
	good(&b);
	b.len -= 8;
	b64(&b, 8);
	snprintf(want, sizeof(want), "byte %zu: footer total 8 does not match the sum of "
	    "the counts, 7", ft + 4);
	reject_buf(&b, want);
	good(&b);
	b32(&b, 0);
	snprintf(want, sizeof(want), "byte %zu: 4 bytes after the footer", ft + 12);
	reject_buf(&b, want);
	good(&b);
	b.len -= 1;
	snprintf(want, sizeof(want), "byte %zu: 11 bytes left, expected the 12-byte footer",
	    ft);
	reject_buf(&b, want);
	/* The total saturates. */
	FRAMES(&b, 2);
	bstack(&b, 0, 0, UINT64_MAX - 1, 1, 0);
	bstack(&b, 0, 0, 2, 1, 1);
	b32(&b, 2); b64(&b, UINT64_MAX);
	dcpi_stackfile_free(parse_ok(b.p, b.len));
	free(b.p);
#undef FRAMES
}

/* Every proper prefix of a good file is refused with a message naming a
 * line or a byte. */
static void
test_truncated(void **state)
{
	size_t h = header_len(), n;
	struct buf b = { 0 };
	struct dcpi_stackfile *sf;
	struct dcpi_error err;
	unsigned char *cut;

	(void)state;
	good(&b);
	for (n = 0; n < b.len; n++) {
		/* An exact-size copy, so that the sanitizers see a read past it. */
		assert_non_null(cut = malloc(n ? n : 1));
		memcpy(cut, b.p, n);
		sf = (void *)1;
		assert_int_equal(dcpi_stackfile_parse(cut, n, "t", &sf, &err), -1);
		assert_int_equal(errno, EINVAL);
		assert_null(sf);
		assert_true(strncmp(err.msg, n < h ? "t: line " : "t: byte ",
		    8) == 0);
		free(cut);
	}
	free(b.p);
}

static void
test_write_read(void **state)
{
	char dir[] = "/tmp/test_stackfile.XXXXXX", path[64], junk[80];
	struct dcpi_stackfile *sf, *q;
	struct dcpi_error err;
	struct buf b1 = { 0 };
	struct stat st;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/" DCPI_STACKS_FILE, dir);
	assert_int_equal(dcpi_stackfile_read(path, &q, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(q);
	sf = sample_file();
	assert_int_equal(dcpi_stackfile_write(path, sf, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(dcpi_stackfile_read(path, &q, &err), 0);
	encode_ok(sf, &b1);
	assert_encodes_to(q, &b1);
	assert_int_equal((size_t)st.st_size, b1.len);
	/* Read, merge, write back: the daemon's flush. */
	assert_int_equal(dcpi_stackfile_merge(q, sf, &err), 0);
	assert_int_equal(dcpi_stackfile_write(path, q, &err), 0);
	dcpi_stackfile_free(q);
	assert_int_equal(dcpi_stackfile_read(path, &q, &err), 0);
	assert_int_equal(q->stacks[0].count, 2 * sf->stacks[0].count);
	dcpi_stackfile_free(q);
	/* A bad file is named by its path. */
	snprintf(junk, sizeof(junk), "%s/junk", dir);
	assert_non_null(fp = fopen(junk, "w"));
	fputs("dcpi-stacks 9\n", fp);
	fclose(fp);
	assert_int_equal(dcpi_stackfile_read(junk, &q, &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_true(strncmp(err.msg, junk, strlen(junk)) == 0);
	/* A write into a directory that is not there fails, naming it. */
	snprintf(junk, sizeof(junk), "%s/none/stacks", dir);
	assert_int_equal(dcpi_stackfile_write(junk, sf, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "none"));
	assert_int_equal(unlink(path), 0);
	snprintf(junk, sizeof(junk), "%s/junk", dir);
	assert_int_equal(unlink(junk), 0);
	assert_int_equal(rmdir(dir), 0);
	free(b1.p);
	dcpi_stackfile_free(sf);
}

/* 100,000 stacks through add, encode, parse and merge (speed is bench/'s
 * to measure; this only has to finish). */
static void
test_big(void **state)
{
	struct dcpi_stack_addframe f[16];
	struct dcpi_stackfile *sf, *q;
	struct dcpi_error err;
	struct buf b = { 0 };
	char id[16];
	uint32_t i, k, depth;
	uint64_t seed = 42;

	(void)state;
	assert_non_null(sf = dcpi_stackfile_new(EPOCH, "big"));
	for (i = 0; i < 100000; i++) {
		depth = 1 + i % 16;
		for (k = 0; k < depth; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			snprintf(id, sizeof(id), "%x", (unsigned)(seed >> 60));
			f[k] = (struct dcpi_stack_addframe){ strdup(id), 0x1000, 1 << 20,
			    "/usr/lib/x", (uint32_t)(seed >> 40) % (1 << 20) };
		}
		/* The leaf makes each stack distinct. */
		f[0].offset = i;
		add_ok(sf, i % 3 ? "cycles" : "instructions", i % 5 ? NULL : "l", f, depth, 1);
		for (k = 0; k < depth; k++)
			free((char *)f[k].id);
	}
	assert_int_equal(sf->n_stacks, 100000);
	encode_ok(sf, &b);
	q = parse_ok(b.p, b.len);
	assert_int_equal(q->n_stacks, 100000);
	assert_int_equal(dcpi_stackfile_merge(q, sf, &err), 0);
	assert_int_equal(q->n_stacks, 100000);
	assert_int_equal(q->stacks[99999].count, 2);
	free(b.p);
	dcpi_stackfile_free(sf);
	dcpi_stackfile_free(q);
}

/* "corpus DIR": the valid files of the fuzz corpus. */
static int
write_corpus(const char *dir)
{
	struct dcpi_stack_addframe s1[] = { F_A10, F_C2000 };
	struct dcpi_stackfile *sf;
	struct dcpi_error err;
	struct buf b = { 0 };
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/valid-sample", dir);
	if ((sf = sample_file()) == NULL || dcpi_stackfile_write(path, sf, &err) == -1)
		goto fail;
	dcpi_stackfile_free(sf);
	snprintf(path, sizeof(path), "%s/valid-empty", dir);
	if ((sf = dcpi_stackfile_new("2611212230", "localhost")) == NULL ||
	    dcpi_stackfile_write(path, sf, &err) == -1)
		goto fail;
	dcpi_stackfile_add(sf, "cycles:u", NULL, s1, 2, UINT64_MAX, &err);
	dcpi_stackfile_add(sf, "cycles:u", "x", s1, 1, 2, &err);
	snprintf(path, sizeof(path), "%s/valid-saturated", dir);
	if (dcpi_stackfile_write(path, sf, &err) == -1)
		goto fail;
	snprintf(path, sizeof(path), "%s/valid-chains", dir);
	if (dcpi_stackfile_set_chains(sf, "cycles:u", 10000000, DCPI_STACK_ROUTE_DWARF,
	    &err) == -1 || dcpi_stackfile_set_chains(sf, "page-faults", 1,
	    DCPI_STACK_ROUTE_MIXED, &err) == -1 || dcpi_stackfile_write(path, sf, &err) == -1)
		goto fail;
	dcpi_stackfile_free(sf);
	good(&b);
	snprintf(path, sizeof(path), "%s/valid-handmade", dir);
	if ((fp = fopen(path, "wb")) == NULL || fwrite(b.p, 1, b.len, fp) != b.len ||
	    fclose(fp) != 0) {
		perror(path);
		return 1;
	}
	free(b.p);
	return 0;
fail:
	fprintf(stderr, "%s\n", err.msg);
	return 1;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_unknown_lines),
		cmocka_unit_test(test_interning),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_reject_header),
		cmocka_unit_test(test_reject_binary),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_big),
	};

	if (argc == 3 && strcmp(argv[1], "corpus") == 0)
		return write_corpus(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
