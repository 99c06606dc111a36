/*
 * JIT code (daemon/jit.c): pending PCs resolved against perf maps into
 * pseudo-images per command.  The aggregation, the build-id cache, the
 * attribution's comm and the image table are stubs that record what jit.c
 * hands them.  Maps are written where dcpid's fallback finds them,
 * /tmp/perf-PID.map, for pids above PID_MAX_LIMIT (no such process), or
 * for this test's own pid (a live process).
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agg.h"
#include "attr.h"
#include "cache.h"
#include "control.h"
#include "imagetab.h"
#include "jit.h"

#define DEADPID		4194400u	/* above PID_MAX_LIMIT */

/* ---- stubs ---- */

struct added {
	uint32_t	 ev, image, offset;
};
static struct added	 added[4096];
static size_t		 nadded;

int
agg_add(uint32_t event, uint32_t image, uint32_t offset)
{
	assert_true(nadded < sizeof(added) / sizeof(added[0]));
	added[nadded].ev = event;
	added[nadded].image = image;
	added[nadded].offset = offset;
	nadded++;
	return 0;
}

static struct img	 imgs[8];
static char		 descrs[8][128];
static size_t		 nimgs;

struct img *
image_pseudo(const uint8_t *bid, size_t bidlen, const char *descr,
    const char *path, uint64_t tstart, uint64_t tsize)
{
	struct img *im;
	char id[32];
	size_t i;

	assert_int_equal(bidlen, 0);
	assert_null(bid);
	for (i = 0; i < nimgs; i++)
		if (strcmp(descrs[i], descr) == 0)
			return &imgs[i];
	assert_true(nimgs < 8);
	im = &imgs[nimgs];
	snprintf(descrs[nimgs], sizeof(descrs[0]), "%s", descr);
	snprintf(id, sizeof(id), "%016zx", 0xabc0 + nimgs);
	im->pub.index = (uint32_t)(100 + nimgs);
	im->pub.id = strdup(id);
	im->pub.path = strdup(path);
	im->pub.tstart = tstart;
	im->pub.tsize = tsize;
	nimgs++;
	return im;
}

static char	 put_id[64], put_buf[8192];
static size_t	 nputs;
static int	 put_fails;

int
cache_put(const char *id, const char *file, const void *buf, size_t len,
    char *err, size_t errlen)
{
	assert_string_equal(file, "perf-map");
	if (put_fails) {
		snprintf(err, errlen, "stub: no space");
		return -1;
	}
	assert_true(len < sizeof(put_buf));
	snprintf(put_id, sizeof(put_id), "%s", id);
	memcpy(put_buf, buf, len);
	put_buf[len] = '\0';
	nputs++;
	return 0;
}

static const char *comm_now = "node";

const char *
attr_proc_comm(uint32_t pid)
{
	(void)pid;
	return comm_now;
}

static uint32_t	 used_index[8];
static size_t	 nused;

void
attr_image_used(uint32_t index)
{
	if (nused < 8)
		used_index[nused++] = index;
}

static char	 status[4096];

void
status_add(struct status_writer *w, const char *key, const char *fmt, ...)
{
	size_t len = strlen(status);
	va_list ap;

	(void)w;
	snprintf(status + len, sizeof(status) - len, "%s ", key);
	len = strlen(status);
	va_start(ap, fmt);
	vsnprintf(status + len, sizeof(status) - len, fmt, ap);
	va_end(ap);
	len = strlen(status);
	snprintf(status + len, sizeof(status) - len, "\n");
}

/* ---- helpers ---- */

static void
write_map(uint32_t pid, const char *text)
{
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void
remove_map(uint32_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	unlink(path);
}

/* Samples added at offset of image index for event ev (unlabelled: JIT
 * code is never the idle task). */
static unsigned
at(uint32_t index, uint32_t ev, uint32_t offset)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < nadded; i++)
		n += added[i].image == index &&
		    added[i].ev == AGG_STREAM(ev, AGG_LABEL_NONE) &&
		    added[i].offset == offset;
	return n;
}

/* The synthetic start of a symbol in the perf-map last written (of its
 * last line: a name may come again with a larger range). */
static long
map_start(const char *name)
{
	char line[512], *s, *nl;
	unsigned start, size;
	long found = -1;
	int n;

	for (s = put_buf; *s; s = nl + 1) {
		if ((nl = strchr(s, '\n')) == NULL)
			break;
		snprintf(line, sizeof(line), "%.*s", (int)(nl - s), s);
		if (sscanf(line, "%x %x %n", &start, &size, &n) == 2 &&
		    strcmp(line + n, name) == 0)
			found = (long)start;
	}
	return found;
}

static int
setup(void **state)
{
	(void)state;
	while (nimgs > 0) {
		nimgs--;
		free(imgs[nimgs].pub.id);
		free(imgs[nimgs].pub.path);
	}
	nadded = nputs = nused = 0;
	put_fails = 0;
	put_buf[0] = status[0] = '\0';
	comm_now = "node";
	jit_init();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	jit_fini();
	remove_map(DEADPID);
	remove_map(DEADPID + 1);
	remove_map((uint32_t)getpid());
	return 0;
}

/* ---- tests ---- */

/* Named where the map says, the latest line winning; PCs in no symbol go
 * to [anon]; events kept apart; the perf-map lists the synthetic ranges. */
static void
test_exit_resolves(void **state)
{
	uint32_t idx;
	long f, g, anon;

	(void)state;
	write_map(DEADPID,
	    "1000 100 old\n"
	    "1000 80 f\n"		/* replaces old at 1000..1080 */
	    "2000 40 g\n");
	jit_sample(0, DEADPID, 0x1010);
	jit_sample(0, DEADPID, 0x1010);
	jit_sample(1, DEADPID, 0x1010);
	jit_sample(0, DEADPID, 0x1090);	/* only in old */
	jit_sample(0, DEADPID, 0x2004);
	jit_sample(0, DEADPID, 0x5000);	/* in no symbol */
	assert_int_equal(jit_pending(), 5);
	assert_true(jit_memory() > 0);
	assert_int_equal(nadded, 0);

	jit_exit(DEADPID, DEADPID + 7);	/* a thread: nothing */
	assert_int_equal(nadded, 0);
	jit_exit(DEADPID, DEADPID);
	assert_int_equal(jit_pending(), 0);
	assert_int_equal(nadded, 6);
	assert_int_equal(nimgs, 1);
	assert_string_equal(imgs[0].pub.path, "[jit:node]");
	assert_int_equal(imgs[0].pub.tstart, 0);
	assert_int_equal(imgs[0].pub.tsize, UINT32_MAX);
	assert_non_null(strstr(descrs[0], "node"));
	idx = imgs[0].pub.index;

	jit_flush();
	assert_int_equal(nputs, 1);
	assert_string_equal(put_id, imgs[0].pub.id);
	assert_int_equal(anon = map_start("[anon]"), 0);
	assert_true((f = map_start("f")) > 0);
	assert_true((g = map_start("g")) > 0);
	assert_true(map_start("old") > 0);
	assert_true(f % 16 == 0 && g % 16 == 0 && f != g);
	assert_int_equal(at(idx, 0, (uint32_t)f + 0x10), 2);
	assert_int_equal(at(idx, 1, (uint32_t)f + 0x10), 1);
	assert_int_equal(at(idx, 0, (uint32_t)map_start("old") + 0x90), 1);
	assert_int_equal(at(idx, 0, (uint32_t)g + 4), 1);
	assert_int_equal(at(idx, 0, (uint32_t)anon), 1);

	/* Nothing new: the perf-map is not rewritten. */
	jit_flush();
	assert_int_equal(nputs, 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit samples 6\n"));
	assert_non_null(strstr(status, "jit named 5\n"));
	assert_non_null(strstr(status, "jit anon 1\n"));
	assert_non_null(strstr(status, "jit maps-read 1\n"));
}

/* A second process of the command reuses the ranges by name; another
 * command is another pseudo-image, '/' in its name replaced. */
static void
test_commands(void **state)
{
	long f;

	(void)state;
	write_map(DEADPID, "1000 80 f\n");
	write_map(DEADPID + 1, "7000 80 f\n9000 10 h\n");
	jit_sample(0, DEADPID, 0x1001);
	jit_exit(DEADPID, DEADPID);
	jit_sample(0, DEADPID + 1, 0x7002);
	jit_sample(0, DEADPID + 1, 0x9000);
	jit_exit(DEADPID + 1, DEADPID + 1);
	jit_flush();
	f = map_start("f");
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)f + 1), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)f + 2), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("h")), 1);

	comm_now = "kworker/x";
	jit_sample(0, DEADPID, 0x1001);
	jit_exit(DEADPID, DEADPID);
	assert_int_equal(nimgs, 2);
	assert_string_equal(imgs[1].pub.path, "[jit:kworker_x]");
	/* No map for it now: [anon] at 0. */
	remove_map(DEADPID);
	comm_now = "other";
	jit_sample(0, DEADPID, 0x1001);
	jit_exit(DEADPID, DEADPID);
	assert_int_equal(at(imgs[2].pub.index, 0, 0), 1);
}

/* A live process without a map keeps its samples at a flush; once its map
 * is there the next flush names them; jit_release sends the rest to
 * [anon].  A partial last line is not used. */
static void
test_live(void **state)
{
	uint32_t me = (uint32_t)getpid();
	size_t mem;

	(void)state;
	remove_map(me);
	jit_sample(2, me, 0x3000);
	jit_flush();
	assert_int_equal(nadded, 0);
	assert_int_equal(jit_pending(), 1);

	write_map(me, "3000 10 live\n4000 10 partial");
	jit_sample(2, me, 0x4000);
	jit_flush();
	assert_int_equal(jit_pending(), 0);
	assert_int_equal(nadded, 2);
	assert_int_equal(at(imgs[0].pub.index, 2, (uint32_t)map_start("live")), 1);
	assert_int_equal(map_start("partial"), -1);
	assert_int_equal(at(imgs[0].pub.index, 2, 0), 1);

	/* The map changes: read again. */
	write_map(me, "3000 10 live\n4000 10 partial\n");
	jit_sample(2, me, 0x4001);
	jit_flush();
	assert_int_equal(at(imgs[0].pub.index, 2,
	    (uint32_t)map_start("partial") + 1), 1);

	remove_map(me);
	jit_sample(0, me, 0x3001);
	jit_flush();
	jit_sample(0, me, 0x3001);	/* the cached map still names it */
	jit_release();
	jit_flush();
	assert_int_equal(jit_pending(), 0);
	jit_sample(0, me, 0x3001);
	mem = jit_memory();
	jit_release();
	jit_flush();
	assert_int_equal(jit_pending(), 0);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 1);
	/* Released: the pending table is given back. */
	assert_true(jit_memory() < mem);
}

/* jit_frame names a chain's frame as the flat samples are named: by the
 * map read last, the latest entry that covers the PC, and at a miss by
 * the map read again (5 s apart at most); nothing for an unknown pid. */
static void
test_frame(void **state)
{
	uint32_t me = (uint32_t)getpid(), off, off2;
	struct image *img;

	(void)state;
	remove_map(me);
	assert_int_equal(jit_frame(me, 0x3004, &img, &off), -1);
	write_map(me, "3000 100 old\n3000 10 live\n");
	jit_sample(2, me, 0x3000);
	jit_flush();
	assert_int_equal(jit_frame(me, 0x3004, &img, &off), 0);
	assert_ptr_equal(img, &imgs[0].pub);
	assert_int_equal(off, (uint32_t)map_start("live") + 4);
	/* Past live, inside old: a symbol of its own, in the perf-map the
	 * next flush writes. */
	assert_int_equal(jit_frame(me, 0x3010, &img, &off2), 0);
	/* Compiled since: the miss reads the map again. */
	write_map(me, "3000 100 old\n3000 10 live\n5000 20 later\n");
	assert_int_equal(jit_frame(me, 0x5004, &img, &off), 0);
	jit_sample(2, me, 0x5004);
	jit_flush();
	assert_int_equal(off2, (uint32_t)map_start("old") + 0x10);
	assert_int_equal(off, (uint32_t)map_start("later") + 4);
	assert_int_equal(at(imgs[0].pub.index, 2, off), 1);
	/* A second miss within 5 s reads nothing. */
	write_map(me, "3000 100 old\n3000 10 live\n5000 20 later\n7000 10 z\n");
	assert_int_equal(jit_frame(me, 0x7000, &img, &off2), -1);
	assert_int_equal(jit_frame(me, 0x7000, &img, &off2), -1);
	assert_int_equal(jit_frame(me + 1000000, 0x3004, &img, &off2), -1);
	remove_map(me);
}

/* A malformed line does not cost the others their names; a perf-map the
 * cache could not take is written at the next flush. */
static void
test_bad_map(void **state)
{
	(void)state;
	write_map(DEADPID, "1000 10 good\nnot a line\n2000 0 zero\n3000 10 also\n");
	jit_sample(0, DEADPID, 0x1000);
	jit_sample(0, DEADPID, 0x2000);
	jit_sample(0, DEADPID, 0x3000);
	put_fails = 1;
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_int_equal(nputs, 0);
	put_fails = 0;
	jit_flush();
	assert_int_equal(nputs, 1);
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("good")), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("also")), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit map-errors 1\n"));
	assert_non_null(strstr(status, "jit perf-map-errors 1\n"));
}

/* A symbol larger than a range may be keeps the part that fits; the rest
 * of it counts as [anon]; a larger symbol of the same name gets a new
 * range. */
static void
test_sizes(void **state)
{
	(void)state;
	write_map(DEADPID, "1000 10 f\n100000000 ffffffff huge\n");
	jit_sample(0, DEADPID, 0x1008);
	jit_sample(0, DEADPID, 0x100000010);
	jit_sample(0, DEADPID, 0x100000000 + 0x2000000);
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("f") + 8), 1);
	assert_int_equal(at(imgs[0].pub.index, 0,
	    (uint32_t)map_start("huge") + 0x10), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 1);

	write_map(DEADPID, "5000 100 f\n");
	jit_sample(0, DEADPID, 0x50f0);
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_non_null(strstr(put_buf, " 10 f\n"));
	assert_non_null(strstr(put_buf, " 100 f\n"));
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("f") + 0xf0), 1);
}

/* Bounds for the tests below: the defaults but for those set. */
static struct jit_limits
limits(void)
{
	struct jit_limits l = {
		JIT_NAME_MAX_DEFAULT, JIT_MEMORY_DEFAULT, JIT_USER_MEMORY_DEFAULT,
		JIT_PROCESS_MEMORY_DEFAULT, JIT_SYMBOLS_DEFAULT,
		JIT_USER_SYMBOLS_DEFAULT, JIT_PROCESS_SYMBOLS_DEFAULT
	};

	return l;
}

/* A name past jit-name-max is cut to it, with "..." and a hash of what
 * was read of it: two long names of one prefix stay two symbols; the
 * perf-map written holds the cut names; a short name is whole. */
static void
test_name_cut(void **state)
{
	struct jit_limits l = limits();
	char map[2048], a[400], b[400], *s, *nl;
	size_t n = 0;

	(void)state;
	l.name_max = 64;
	jit_set_limits(&l);
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[100] = 'b';	/* past the cut, within the line's part read */
	snprintf(map, sizeof(map), "1000 10 %s\n2000 10 %s\r\n3000 10 short\n", a, b);
	write_map(DEADPID, map);
	jit_sample(0, DEADPID, 0x1000);
	jit_sample(0, DEADPID, 0x2000);
	jit_sample(0, DEADPID, 0x3000);
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_true(map_start("short") > 0);
	for (s = put_buf; (nl = strchr(s, '\n')) != NULL; s = nl + 1) {
		*nl = '\0';
		if (strstr(s, "aaaa") != NULL) {
			s = strrchr(s, ' ') + 1;
			assert_int_equal(strlen(s), 64);
			assert_memory_equal(s + 53, "...", 3);
			assert_int_equal(strspn(s + 56, "0123456789abcdef"), 8);
			n++;
		}
		*nl = '\n';
	}
	assert_int_equal(n, 2);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 0);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit names-cut 2\n"));
}

/* A process's map past its bound keeps its first entries; the rest's
 * samples go to [anon], counted; then a user's symbols past theirs; the
 * symbols are no counts: jit_count_memory leaves them out. */
static void
test_bounds(void **state)
{
	struct jit_limits l = limits();

	(void)state;
	l.process_symbols = 2;
	jit_set_limits(&l);
	write_map(DEADPID, "1000 10 f\n2000 10 g\n3000 10 h\n4000 10 i\n");
	jit_sample(0, DEADPID, 0x1000);
	jit_sample(0, DEADPID, 0x2000);
	jit_sample(0, DEADPID, 0x3000);
	jit_sample(0, DEADPID, 0x4000);
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_true(map_start("f") > 0);
	assert_true(map_start("g") > 0);
	assert_int_equal(map_start("h"), -1);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 2);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit symbols-dropped 2\n"));
	assert_true(jit_memory() > 0);
	assert_int_equal(jit_count_memory(), 0);

	/* The user's: 2 of the map while it is held, [anon] and f of a new
	 * image (jit_reclaim freed the one before). */
	jit_reclaim();
	l = limits();
	l.user_symbols = 4;
	jit_set_limits(&l);
	write_map(DEADPID, "1000 10 f\n2000 10 g\n");
	jit_sample(0, DEADPID, 0x1000);
	jit_sample(0, DEADPID, 0x2000);
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_true(map_start("f") > 0);
	assert_int_equal(map_start("g"), -1);
	assert_int_equal(at(imgs[1].pub.index, 0, 0), 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit symbols-dropped 3\n"));
}

/* An image's symbols are freed once no live process names samples in it
 * and its perf-map is written; the next process of the command gets a new
 * image.  A live process's image stays, marked used for attr_reclaim. */
static void
test_reclaim(void **state)
{
	uint32_t me = (uint32_t)getpid();

	(void)state;
	write_map(DEADPID, "1000 10 f\n");
	jit_sample(0, DEADPID, 0x1000);
	jit_exit(DEADPID, DEADPID);
	/* Not written yet: kept. */
	jit_reclaim();
	jit_status(NULL);
	assert_non_null(strstr(status, "jit images-freed 0\n"));
	jit_flush();
	assert_true(jit_memory() > 0);
	jit_reclaim();
	jit_status(NULL);
	assert_non_null(strstr(status, "jit images-freed 1\n"));
	assert_non_null(strstr(status, "jit-symbols 0 bytes of 16777216, 0 symbols of 131072\n"));
	assert_int_equal(jit_memory(), 0);

	write_map(me, "3000 10 live\n");
	jit_sample(0, me, 0x3000);
	jit_flush();
	assert_int_equal(nimgs, 2);
	assert_string_not_equal(descrs[0], descrs[1]);
	assert_int_equal(at(imgs[1].pub.index, 0, (uint32_t)map_start("live")), 1);
	nused = 0;
	jit_reclaim();
	assert_int_equal(nused, 1);
	assert_int_equal(used_index[0], imgs[1].pub.index);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit images-freed 1\n"));
	remove_map(me);
}

/* The map read at the EXIT's arrival names the samples at the EXIT's
 * turn, the file gone by then. */
static void
test_exit_arrival(void **state)
{
	(void)state;
	jit_sample(0, DEADPID, 0x1000);
	write_map(DEADPID, "1000 10 f\n");
	jit_exit_arrival(DEADPID);
	remove_map(DEADPID);
	jit_sample(0, DEADPID, 0x1004);
	jit_exit(DEADPID, DEADPID);
	jit_flush();
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("f")), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)map_start("f") + 4), 1);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 0);
	/* A pid without JIT samples: nothing read, nothing kept. */
	jit_exit_arrival(DEADPID + 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit processes 0\n"));
}

/* A process's samples in more symbols than the image had room for, then
 * in none: [anon] is counted where it is, though the symbols moved. */
static void
test_many_then_anon(void **state)
{
	char map[4096];
	size_t len = 0;
	uint64_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		len += (size_t)snprintf(map + len, sizeof(map) - len,
		    "%jx 10 f%ju\n", (uintmax_t)(0x1000 + 0x10 * i), (uintmax_t)i);
	write_map(DEADPID, map);
	for (i = 0; i < 100; i++)
		jit_sample(0, DEADPID, 0x1000 + 0x10 * i);
	jit_sample(0, DEADPID, 0x9000);
	jit_exit(DEADPID, DEADPID);
	assert_int_equal(nadded, 101);
	assert_int_equal(at(imgs[0].pub.index, 0, 0), 1);
}

/* ---- jitdumps ---- */

static char	 dumpdir[] = "/tmp/test_jit.XXXXXX", dumppath[64];

/* Appends to the dump at dumppath (created with its header when new) a
 * JIT_CODE_LOAD of size bytes at addr, and cuts bytes off its end. */
static void
dump_load(uint64_t addr, uint64_t size, uint64_t idx, const char *name,
    size_t cut)
{
	uint32_t h32[6] = { 0x4A695444, 1, 40, 62, 0, (uint32_t)getpid() };
	uint64_t h64[2] = { 1, 0 }, r64[5];
	uint32_t r32[4];
	size_t nl = strlen(name) + 1;
	struct stat st;
	FILE *fp;
	int isnew;

	isnew = stat(dumppath, &st) == -1;
	assert_non_null(fp = fopen(dumppath, "a"));
	if (isnew) {
		fwrite(h32, sizeof(h32), 1, fp);
		fwrite(h64, sizeof(h64), 1, fp);
	}
	r32[0] = 0;
	r32[1] = (uint32_t)(56 + nl + size);
	fwrite(r32, 8, 1, fp);
	r64[0] = 7;
	fwrite(r64, 8, 1, fp);
	r32[2] = r32[3] = (uint32_t)getpid();
	fwrite(r32 + 2, 8, 1, fp);
	r64[0] = addr;
	r64[1] = addr;
	r64[2] = size;
	r64[3] = idx;
	fwrite(r64, 8, 4, fp);
	fwrite(name, nl, 1, fp);
	while (size-- > 0)
		fputc(0xc3, fp);
	assert_int_equal(fclose(fp), 0);
	if (cut) {
		assert_int_equal(stat(dumppath, &st), 0);
		assert_int_equal(truncate(dumppath, st.st_size - (off_t)cut), 0);
	}
}

static struct attr_mmap *
mmap_rec(const char *path, uint32_t prot)
{
	static struct attr_mmap m;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = (uint32_t)getpid();
	m.start = 0x7f0000000000ULL;
	m.len = 4096;
	m.prot = prot;
	m.filename = path;
	return &m;
}

/* Only an executable mapping of jit-<digits>.dump announces a dump. */
static void
test_dump_names(void **state)
{
	(void)state;
	assert_true(jit_is_dump("/w/jit-123.dump"));
	assert_true(jit_is_dump("jit-1.dump"));
	assert_false(jit_is_dump("/w/jit-.dump"));
	assert_false(jit_is_dump("/w/jit-12a.dump"));
	assert_false(jit_is_dump("/w/jit-12.dump.old"));
	assert_false(jit_is_dump("/w/xjit-12.dump"));
	assert_false(jit_is_dump("/jit-1.dump/libc.so.6"));
	assert_int_equal(jit_mmap(mmap_rec("/usr/lib/libc.so.6", 5)), 0);
	assert_int_equal(jit_mmap(mmap_rec("/w/jit-1.dump", 1)), 0);
	assert_int_equal(jit_mmap(mmap_rec("jit-1.dump", 5)), 0);
	assert_int_equal(jit_mmap(mmap_rec("/w/jit-1.dump", 5)), 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit dumps 1\n"));
}

/* A live process's dump names its samples at each flush as it grows, a
 * record cut short waiting for the next; with a perf map, the dump's
 * entries win where both name an address. */
static void
test_dump_live(void **state)
{
	uint32_t me = (uint32_t)getpid(), idx;
	long f, g, m;

	(void)state;
	snprintf(dumpdir, sizeof(dumpdir), "/tmp/test_jit.XXXXXX");
	assert_non_null(mkdtemp(dumpdir));
	snprintf(dumppath, sizeof(dumppath), "%s/jit-%u.dump", dumpdir, me);
	dump_load(0x1000, 0x40, 1, "JS:*f", 0);
	dump_load(0x2000, 0x40, 2, "JS:*g", 10);	/* being written */
	write_map(me, "1000 100 mapname\n3000 10 maponly\n");
	assert_int_equal(jit_mmap(mmap_rec(dumppath, 5)), 1);
	jit_sample(0, me, 0x1004);	/* the dump's f over the map */
	jit_sample(0, me, 0x1080);	/* only the map's */
	jit_sample(0, me, 0x2004);	/* g cut short: waits */
	jit_sample(0, me, 0x3000);
	jit_flush();
	assert_int_equal(nimgs, 1);
	idx = imgs[0].pub.index;
	assert_true((f = map_start("JS:*f")) > 0);
	assert_true((m = map_start("mapname")) > 0);
	assert_true(map_start("maponly") > 0);
	assert_int_equal(map_start("JS:*g"), -1);
	assert_int_equal(at(idx, 0, (uint32_t)f + 4), 1);
	assert_int_equal(at(idx, 0, (uint32_t)m + 0x80), 1);
	/* Not [anon] while the writer may still name it. */
	assert_int_equal(at(idx, 0, 0), 0);
	assert_int_equal(jit_pending(), 1);

	/* The writer finishes g (the cut tail and one more record). */
	assert_int_equal(truncate(dumppath, 0), 0);
	unlink(dumppath);
	dump_load(0x1000, 0x40, 1, "JS:*f", 0);
	dump_load(0x2000, 0x40, 2, "JS:*g", 0);
	jit_sample(0, me, 0x2008);
	jit_flush();
	assert_true((g = map_start("JS:*g")) > 0);
	assert_int_equal(at(idx, 0, (uint32_t)g + 8), 1);
	assert_int_equal(at(idx, 0, (uint32_t)g + 4), 1);
	assert_int_equal(jit_pending(), 0);
	/* At the exit, what no entry names is [anon]. */
	jit_sample(0, me, 0x9000);
	jit_flush();
	assert_int_equal(jit_pending(), 1);
	jit_exit(me, me);
	assert_int_equal(jit_pending(), 0);
	assert_int_equal(at(idx, 0, 0), 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit dumps-read 2\n"));
	assert_non_null(strstr(status, "jit dump-errors 0\n"));
	unlink(dumppath);
	rmdir(dumpdir);
}

/* A bad record: the entries before it still name samples, the error is
 * counted once per read. */
static void
test_dump_bad(void **state)
{
	uint32_t me = (uint32_t)getpid(), bad = 3;
	long f;
	FILE *fp;

	(void)state;
	snprintf(dumpdir, sizeof(dumpdir), "/tmp/test_jit.XXXXXX");
	assert_non_null(mkdtemp(dumpdir));
	snprintf(dumppath, sizeof(dumppath), "%s/jit-%u.dump", dumpdir, me);
	dump_load(0x1000, 0x40, 1, "JS:*f", 0);
	assert_non_null(fp = fopen(dumppath, "a"));
	fwrite(&bad, 4, 1, fp);
	fwrite(&bad, 4, 1, fp);		/* total_size 3 */
	fwrite("12345678", 8, 1, fp);
	fclose(fp);
	assert_int_equal(jit_mmap(mmap_rec(dumppath, 5)), 1);
	jit_sample(0, me, 0x1004);
	jit_flush();
	assert_true((f = map_start("JS:*f")) > 0);
	assert_int_equal(at(imgs[0].pub.index, 0, (uint32_t)f + 4), 1);
	jit_status(NULL);
	assert_non_null(strstr(status, "jit dump-errors 1\n"));
	unlink(dumppath);
	rmdir(dumpdir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exit_resolves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_then_anon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_name_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclaim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_arrival, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_bad, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
