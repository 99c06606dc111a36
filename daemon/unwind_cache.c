/*
 * The images' unwind tables, built on first use and bounded in memory
 * (daemon/unwind_cache.h).  An entry per image id ever met holds its
 * table, or why it has none; entries stay (a few dozen bytes each) so that
 * a failure is not tried again at every sample.  A per-index slot finds an
 * image's entry without hashing its id at every frame.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include <dcpi/symbol.h>

#include "attr.h"
#include "control.h"
#include "htab.h"
#include "imagetab.h"
#include "kernel.h"
#include "log.h"
#include "unwind_cache.h"
#include "unwind_table.h"
#include "util.h"
#include "xmalloc.h"

/* Why an image has no table. */
enum why {
	WHY_NONE = 0,		/* it has one, or it was never tried, or dropped */
	WHY_NO_CFI,		/* ENOENT: neither .eh_frame nor .debug_frame */
	WHY_REFUSED,		/* EINVAL, EFBIG, ENOTSUP, ETIMEDOUT: CFI refused */
	WHY_UNOPENED,		/* its file could not be opened: retried */
	WHY_TOO_LARGE,		/* larger than the bound alone */
	WHY_COUNT
};
static const char *const why_name[WHY_COUNT] = {
	"", "no-cfi", "refused", "unopened", "too-large"
};

struct cached_table {
	char			*id;		/* the image's id */
	struct unwind_table	*t;		/* NULL: none (why says) */
	size_t			 bytes;		/* unwind_table_memory(t) */
	uint64_t		 used;		/* the clock at its last use */
	uint64_t		 failed_ms;	/* WHY_UNOPENED: when (now_ms) */
	uint8_t			 why;		/* enum why */
};

/* An image index's last entry. */
struct image_slot {
	const struct image	*img;
	struct cached_table		*e;
};

static struct htab	 byid;		/* fnv1a64(id) -> struct cached_table * */
static struct image_slot	*slots;
static size_t		 nslots;
static size_t		 max_bytes, bytes, ntables;
/* Of the bound, bytes held elsewhere; tables whose rows are moved. */
static size_t		 reserved, nmoved;
static void		(*moved_hook)(const struct unwind_table *);
static uint64_t		 clock_uses;	/* counts uses: the LRU's clock */
/* An image whose file could not be opened is tried again after this,
 * perhaps through another process that maps it. */
#define RETRY_MS	1000
static uint64_t		 nbuilt, build_ns, ndropped, nwhy[WHY_COUNT];

/* Where a table's image file came from (the status's counts). */
enum from {
	FROM_HELD,		/* the file held since the image was met */
	FROM_MAPPING,		/* the sample's mapping (/proc/PID/map_files) */
	FROM_PATH,		/* the recorded path, of the same build-id */
	FROM_CACHE,		/* the build-id cache */
	FROM_DEBUG,		/* (also) a debug file's .debug_frame */
	FROM_COUNT
};
static uint64_t		 nfrom[FROM_COUNT];

void
unwind_cache_init(size_t max)
{
	htab_init(&byid);
	slots = NULL;
	nslots = 0;
	max_bytes = max;
	bytes = ntables = nmoved = 0;
	clock_uses = 0;
	nbuilt = build_ns = ndropped = 0;
	memset(nwhy, 0, sizeof(nwhy));
	memset(nfrom, 0, sizeof(nfrom));
	elf_version(EV_CURRENT);
}

void
unwind_cache_fini(void)
{
	struct htab_iter it;
	struct cached_table *e;

	memset(&it, 0, sizeof(it));
	while ((e = (struct cached_table *)htab_each(&byid, &it)) != NULL) {
		if (e->t != NULL && unwind_table_rows_moved(e->t) && moved_hook != NULL)
			moved_hook(e->t);
		unwind_table_free(e->t);
		free(e->id);
		free(e);
	}
	htab_fini(&byid);
	free(slots);
	slots = NULL;
	nslots = 0;
	bytes = ntables = nmoved = 0;
}

static struct cached_table *entry_of_image(const struct image *img);

static void
drop(struct cached_table *e)
{
	if (unwind_table_rows_moved(e->t))
		nmoved--;
	unwind_table_free(e->t);
	e->t = NULL;
	bytes -= e->bytes;
	e->bytes = 0;
	ntables--;
	ndropped++;
}

/* The bound for the tables held here. */
static size_t
limit(void)
{
	return max_bytes > reserved ? max_bytes - reserved : 0;
}

/* Drops the least recently used tables until need more bytes fit (keep is
 * not dropped).  A walk over every entry a drop: drops are rare, and the
 * entries a few thousand. */
static void
make_room(size_t need, const struct cached_table *keep)
{
	struct htab_iter it;
	struct cached_table *e, *lru;

	while (bytes + need > limit() && ntables > nmoved) {
		lru = NULL;
		memset(&it, 0, sizeof(it));
		/* A table whose rows are moved frees nothing here. */
		while ((e = (struct cached_table *)htab_each(&byid, &it)) != NULL)
			if (e->t != NULL && e != keep && !unwind_table_rows_moved(e->t) &&
			    (lru == NULL || e->used < lru->used))
				lru = e;
		if (lru == NULL)
			return;
		drop(lru);
	}
}

void
unwind_cache_set_limit(size_t max)
{
	max_bytes = max;
	make_room(0, NULL);
}

void
unwind_cache_set_reserved(size_t r)
{
	reserved = r;
	make_room(0, NULL);
}

void
unwind_cache_set_moved_hook(void (*fn)(const struct unwind_table *t))
{
	moved_hook = fn;
}

int
unwind_cache_move_rows(const struct image *img, struct unwind_row *dst)
{
	struct cached_table *e = entry_of_image(img);

	if (e->t == NULL || unwind_table_rows_moved(e->t))
		return -1;
	unwind_table_move_rows(e->t, dst);
	bytes -= e->bytes;
	e->bytes = unwind_table_memory(e->t);
	bytes += e->bytes;
	nmoved++;
	return 0;
}

void
unwind_cache_rows_gone(const struct unwind_table *t)
{
	struct htab_iter it;
	struct cached_table *e;

	memset(&it, 0, sizeof(it));
	while ((e = (struct cached_table *)htab_each(&byid, &it)) != NULL)
		if (e->t == t) {
			/* Taken back rather than built again when next met. */
			nmoved--;
			bytes -= e->bytes;
			if (unwind_table_own_rows(e->t) == -1 ||
			    (e->bytes = unwind_table_memory(e->t)) > limit()) {
				e->bytes = 0;
				unwind_table_free(e->t);
				e->t = NULL;
				ntables--;
				return;
			}
			make_room(e->bytes, e);
			bytes += e->bytes;
			return;
		}
}

size_t unwind_cache_limit(void) { return max_bytes; }
size_t unwind_cache_moved(void) { return nmoved; }
uint64_t unwind_cache_dropped(void) { return ndropped; }


static struct cached_table *
entry_of(const char *id)
{
	uint64_t h = fnv1a64_str(FNV1A64_INIT, id);
	struct htab_iter it;
	struct cached_table *e;

	for (e = (struct cached_table *)htab_first(&byid, h, &it); e != NULL;
	    e = (struct cached_table *)htab_next(&byid, &it))
		if (strcmp(e->id, id) == 0)
			return e;
	e = xcalloc(1, sizeof(*e));
	e->id = xstrdup(id);
	xhtab_add(&byid, h, (uintptr_t)e);
	return e;
}

/* Whether a build-id cache copy of a large image has lost its CFI: one
 * written before such copies kept it (daemon/cache.c), its .eh_frame or
 * .debug_frame emptied (SHT_NOBITS). */
static int
cfi_dropped(int fd)
{
	const char *name;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	Elf *elf;
	int r = 0;

	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL)
		return 0;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while (!r && (scn = elf_nextscn(elf, scn)) != NULL)
			r = gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_NOBITS &&
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL &&
			    (strcmp(name, ".eh_frame") == 0 || strcmp(name, ".debug_frame") == 0);
	elf_end(elf);
	return r;
}

/* The table from the file open on fd, with the .debug_frame of its
 * separate debug file where .eh_frame says nothing: the debug file under
 * the debug root only (by build-id, or .gnu_debuglink there), never in a
 * directory the image's user may write.  A look for a file that is
 * mostly not there, once a table.  NULL with errno. */
static struct unwind_table *
build_file(int fd, const struct image *img, int *debug)
{
	struct unwind_table *t;
	int dfd, e;

	dfd = dcpi_debuginfo_fd(fd, img->path, img->idkind == NULL ? img->id : NULL, NULL);
	t = unwind_table_build_fd(fd, dfd);
	e = errno;
	*debug = t != NULL && dfd != -1 && unwind_table_source(t) != UNWIND_SRC_EH_FRAME;
	if (dfd != -1)
		close(dfd);
	errno = e;
	return t;
}

/* The table from the image's bytes: the vdso's in dcpid's memory (a copy:
 * libelf is not promised read-only memory), any other's from its file.
 * NULL with errno (EBADF: no file could be opened). */
static struct unwind_table *
build(const struct image *img, uint32_t pid, uint64_t pc)
{
	const struct img *vdso = kernel_vdso();
	struct unwind_table *t;
	const void *elfp;
	enum from from;
	char *copy;
	size_t len;
	Elf *elf;
	int fd, e, cached, debug;

	if (vdso != NULL && img == &vdso->pub) {
		if ((elfp = kernel_vdso_elf(&len)) == NULL) {
			errno = EBADF;
			return NULL;
		}
		copy = xmalloc(len);
		memcpy(copy, elfp, len);
		if ((elf = elf_memory(copy, len)) == NULL) {
			free(copy);
			errno = EINVAL;
			return NULL;
		}
		t = unwind_table_build(elf, NULL);
		e = errno;
		elf_end(elf);
		free(copy);
		errno = e;
		return t;
	}
	/* The file held since the image was first met (read with pread),
	 * else opened through the mapping, else, the process gone by the
	 * time its samples are read (it ran for a moment) and the image's
	 * file released at a flush, the file at its recorded path or the
	 * build-id cache's copy: a build-id names the same bytes. */
	if ((fd = image_dup_fd((const struct img *)img)) != -1)
		from = FROM_HELD;
	else if ((fd = attr_open_mapped(pid, pc, img)) != -1)
		from = FROM_MAPPING;
	else if ((fd = attr_open_file(img, &cached)) != -1)
		from = cached ? FROM_CACHE : FROM_PATH;
	else {
		errno = EBADF;
		return NULL;
	}
	t = build_file(fd, img, &debug);
	e = errno;
	/* A copy without the image's CFI: a later process's mapping may
	 * have it. */
	if (t == NULL && e == ENOENT && from == FROM_CACHE && cfi_dropped(fd))
		e = EBADF;
	close(fd);
	if (t != NULL) {
		nfrom[from]++;
		if (debug)
			nfrom[FROM_DEBUG]++;
	}
	errno = e;
	return t;
}

static void
try_build(struct cached_table *e, const struct image *img, uint32_t pid, uint64_t pc)
{
	struct timespec a, b;
	struct unwind_table *t;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t = build(img, pid, pc);
	if (t == NULL) {
		e->why = errno == EBADF ? WHY_UNOPENED : errno == ENOENT ? WHY_NO_CFI :
		    WHY_REFUSED;
		e->failed_ms = now_ms();
		nwhy[e->why]++;
		if (e->why == WHY_UNOPENED)
			log_debug("%s (%s): no unwind table this flush interval: its "
			    "file cannot be opened through pid %u's mapping", img->path,
			    img->id, pid);
		else
			log_info("%s (%s): no unwind table: %s", img->path, img->id,
			    e->why == WHY_NO_CFI ? "no call-frame information" :
			    strerror(errno));
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	build_ns += (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
	    (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
	nbuilt++;
	e->bytes = unwind_table_memory(t);
	if (e->bytes > limit()) {
		log_notice("%s (%s): unwind table of %zu bytes over unwind-memory",
		    img->path, img->id, e->bytes);
		unwind_table_free(t);
		e->bytes = 0;
		e->why = WHY_TOO_LARGE;
		nwhy[WHY_TOO_LARGE]++;
		return;
	}
	make_room(e->bytes, e);
	e->t = t;
	e->why = WHY_NONE;
	bytes += e->bytes;
	ntables++;
}

/* img's entry, through its index's slot. */
static struct cached_table *
entry_of_image(const struct image *img)
{
	struct image_slot *s;
	size_t n;

	if (img->index >= nslots) {
		n = img->index + 1 > 2 * nslots ? img->index + 1 : 2 * nslots;
		slots = xreallocarray(slots, n, sizeof(*slots));
		memset(slots + nslots, 0, (n - nslots) * sizeof(*slots));
		nslots = n;
	}
	s = &slots[img->index];
	/* An index is reused by another image once its image is freed. */
	if (s->img != img || strcmp(s->e->id, img->id) != 0) {
		s->img = img;
		s->e = entry_of(img->id);
	}
	return s->e;
}

/* 1 if e has no table and one would be built for it now. */
static int
would_build(const struct cached_table *e)
{
	return e->t == NULL && e->why != WHY_NO_CFI && e->why != WHY_REFUSED &&
	    e->why != WHY_TOO_LARGE &&
	    (e->why != WHY_UNOPENED || now_ms() - e->failed_ms >= RETRY_MS);
}

int
unwind_cache_would_build(const struct image *img)
{
	return would_build(entry_of_image(img));
}

const struct unwind_table *
unwind_cache_table(const struct image *img, uint32_t pid, uint64_t pc)
{
	struct cached_table *e = entry_of_image(img);

	if (e->t == NULL) {
		if (!would_build(e))
			return NULL;
		try_build(e, img, pid, pc);
		if (e->t == NULL)
			return NULL;
	}
	e->used = ++clock_uses;
	return e->t;
}

size_t
unwind_cache_tables(void)
{
	return ntables;
}

size_t
unwind_cache_memory(void)
{
	return bytes + htab_memory(&byid) + nslots * sizeof(*slots) +
	    byid.n * sizeof(struct cached_table);
}

void
unwind_cache_status(struct status_writer *w)
{
	status_add(w, "unwind-tables", "%zu tables, %zu bytes of %zu; %ju built "
	    "in %ju ms, %ju dropped over the bound; none for %ju images (%s %ju, "
	    "%s %ju, %s %ju, %s %ju); built from the held file %ju, the mapping "
	    "%ju, the path %ju, the build-id cache %ju; from debug files %ju",
	    ntables, bytes, limit(),
	    (uintmax_t)nbuilt, (uintmax_t)(build_ns / 1000000), (uintmax_t)ndropped,
	    (uintmax_t)(nwhy[WHY_NO_CFI] + nwhy[WHY_REFUSED] + nwhy[WHY_UNOPENED] +
	    nwhy[WHY_TOO_LARGE]),
	    why_name[WHY_NO_CFI], (uintmax_t)nwhy[WHY_NO_CFI],
	    why_name[WHY_REFUSED], (uintmax_t)nwhy[WHY_REFUSED],
	    why_name[WHY_UNOPENED], (uintmax_t)nwhy[WHY_UNOPENED],
	    why_name[WHY_TOO_LARGE], (uintmax_t)nwhy[WHY_TOO_LARGE],
	    (uintmax_t)nfrom[FROM_HELD], (uintmax_t)nfrom[FROM_MAPPING],
	    (uintmax_t)nfrom[FROM_PATH], (uintmax_t)nfrom[FROM_CACHE],
	    (uintmax_t)nfrom[FROM_DEBUG]);
}
