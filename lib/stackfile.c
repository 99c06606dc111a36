/*
 * The per-epoch stack file, "dcpi-stacks 1" (lib/dcpi/stackfile.h, dcpi(5)
 * "Stacks"): interning, merge, strict reader, writer.  Images, events,
 * labels, frames and stacks are interned in hash tables (lib/htab.h,
 * values are index + 1) that the reader builds as well, so that a file
 * read from the database can take the daemon's new stacks.  The frame
 * arrays of the stacks live in chunks that are never freed one by one:
 * stacks are only ever added.
 */
#include "config.h"

#include <sys/mman.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/file.h>
#include <dcpi/stackfile.h>

#include "htab.h"
#include "internal.h"
#include "util.h"

/* Most entries of each table: indexes stay below DCPI_STACK_NOIMAGE and
 * DCPI_STACK_NOLABEL, counts fit the footer's u32. */
#define TABLE_MAX	((size_t)UINT32_MAX - 1)
/* Words of a chunk of frame arrays (a stack larger than that gets its own). */
#define CHUNK_WORDS	16384
/* Bytes of a frame, of a stack without its frames, of the footer. */
#define FRAME_BYTES	8
#define STACK_BYTES	20
#define FOOTER_BYTES	12

struct chunk {
	struct chunk	*next;
	size_t		 used, cap;	/* words */
	uint32_t	 v[];
};

struct dcpi_stackfile_index {
	struct htab	 images;	/* by fnv1a64(id) */
	struct htab	 events;	/* by fnv1a64(event) */
	struct htab	 labels;	/* by fnv1a64(label) */
	struct htab	 frames;	/* by image << 32 | offset */
	struct htab	 stacks;	/* by stack_hash() */
	size_t		 cap_images, cap_events, cap_labels, cap_frames, cap_stacks;
	size_t		 cap_chains;	/* elements of sf->chains */
	struct chunk	*chunks;	/* newest first */
};

/* Table sizes before an add or merge, for undoing what it interned. */
struct mark {
	size_t		 n_images, n_events, n_labels, n_frames;
};

/* ---- grammar ---- */

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* rest_of_line of the DCPI grammar: [^ \t\n][^\n]* */
static int
valid_rest(const char *s)
{
	return *s != '\0' && !is_blank(*s) && strchr(s, '\n') == NULL;
}

static int
valid_id(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= DCPI_STACK_ID_MAX &&
	    strspn(s, "0123456789abcdef") == n;
}

static int
valid_epoch(const char *s)
{
	size_t n = strlen(s);

	return (n == 10 || n == 14) && strspn(s, "0123456789") == n;
}

/* s[0..n) as a decimal (base 10) or lowercase hex (base 16) number of at
 * most max; -1 if it is not one. */
static int
number(const char *s, size_t n, int base, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;
	int d;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else
			return -1;
		if (x > (max - (uint64_t)d) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*v = x;
	return 0;
}

static uint64_t
sat_add64(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static uint32_t
get32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

static uint64_t
get64(const unsigned char *b)
{
	return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32;
}

static unsigned char *
put32(unsigned char *b, uint32_t v)
{
	b[0] = v & 0xff;
	b[1] = v >> 8 & 0xff;
	b[2] = v >> 16 & 0xff;
	b[3] = v >> 24 & 0xff;
	return b + 4;
}

static unsigned char *
put64(unsigned char *b, uint64_t v)
{
	return put32(put32(b, (uint32_t)v), (uint32_t)(v >> 32));
}

/* ---- interning ---- */

/* Room for one more of n elements of size in *v (capacity *cap); -1 with
 * EOVERFLOW past TABLE_MAX, ENOMEM. */
static int
reserve(void **v, size_t *cap, size_t n, size_t want, size_t size)
{
	size_t nc;
	void *p;

	if (n >= TABLE_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	if (want <= *cap)
		return 0;
	nc = *cap ? *cap : 16;
	while (nc < want)
		nc *= 2;
	if ((p = reallocarray(*v, nc, size)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	*v = p;
	*cap = nc;
	return 0;
}

#define RESERVE(sf, what, want) \
	reserve((void **)&(sf)->what, &(sf)->index->cap_##what, (sf)->n_##what, \
	    (want), sizeof(*(sf)->what))

static uint64_t
str_hash(const char *s)
{
	return fnv1a64_str(FNV1A64_INIT, s);
}

static uint64_t
frame_key(uint32_t image, uint32_t offset)
{
	return (uint64_t)image << 32 | offset;
}

static uint64_t
stack_hash(uint32_t event, uint32_t label, const uint32_t *frames, uint32_t depth)
{
	uint64_t h = FNV1A64_INIT;

	h = fnv1a64(h, &event, sizeof(event));
	h = fnv1a64(h, &label, sizeof(label));
	return fnv1a64(h, frames, depth * sizeof(*frames));
}

/* The index of s in strs (a table of t), or SIZE_MAX. */
static size_t
find_str(const struct htab *t, char *const *strs, const char *s)
{
	struct htab_iter it;
	uintptr_t v;

	for (v = htab_first(t, str_hash(s), &it); v != 0; v = htab_next(t, &it))
		if (strcmp(strs[v - 1], s) == 0)
			return v - 1;
	return SIZE_MAX;
}

static size_t
find_image(const struct dcpi_stackfile *sf, const char *id)
{
	const struct htab *t = &sf->index->images;
	struct htab_iter it;
	uintptr_t v;

	for (v = htab_first(t, str_hash(id), &it); v != 0; v = htab_next(t, &it))
		if (strcmp(sf->images[v - 1].id, id) == 0)
			return v - 1;
	return SIZE_MAX;
}

static size_t
find_frame(const struct dcpi_stackfile *sf, uint32_t image, uint32_t offset)
{
	const struct htab *t = &sf->index->frames;
	struct htab_iter it;
	uintptr_t v;

	for (v = htab_first(t, frame_key(image, offset), &it); v != 0;
	    v = htab_next(t, &it))
		if (sf->frames[v - 1].image == image && sf->frames[v - 1].offset == offset)
			return v - 1;
	return SIZE_MAX;
}

static size_t
find_stack(const struct dcpi_stackfile *sf, uint64_t h, uint32_t event,
    uint32_t label, const uint32_t *frames, uint32_t depth)
{
	const struct htab *t = &sf->index->stacks;
	const struct dcpi_stack *s;
	struct htab_iter it;
	uintptr_t v;

	for (v = htab_first(t, h, &it); v != 0; v = htab_next(t, &it)) {
		s = &sf->stacks[v - 1];
		if (s->event == event && s->label == label && s->depth == depth &&
		    memcmp(s->frames, frames, depth * sizeof(*frames)) == 0)
			return v - 1;
	}
	return SIZE_MAX;
}

/* Removes value v stored under h from t. */
static void
unhash(struct htab *t, uint64_t h, uintptr_t v)
{
	struct htab_iter it;
	uintptr_t w;

	for (w = htab_first(t, h, &it); w != 0; w = htab_next(t, &it))
		if (w == v) {
			htab_del(t, &it);
			return;
		}
}

/* Interns the string s into events or labels (a table of t); -1 with
 * errno. */
static int
intern_str(struct htab *t, char ***strs, size_t *n, size_t *cap, const char *s,
    uint32_t *idx)
{
	size_t i = find_str(t, *strs, s);
	char *d;

	if (i != SIZE_MAX) {
		*idx = (uint32_t)i;
		return 0;
	}
	if (reserve((void **)strs, cap, *n, *n + 1, sizeof(**strs)) == -1)
		return -1;
	if ((d = strdup(s)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (htab_add(t, str_hash(s), *n + 1) == -1) {
		free(d);
		errno = ENOMEM;
		return -1;
	}
	(*strs)[*n] = d;
	*idx = (uint32_t)(*n)++;
	return 0;
}

/* An event, with its chains entry (a new one's: period not said, fp). */
static int
intern_event(struct dcpi_stackfile *sf, const char *s, uint32_t *idx)
{
	size_t n = sf->n_events;

	if (reserve((void **)&sf->chains, &sf->index->cap_chains, n, n + 1,
	    sizeof(*sf->chains)) == -1 ||
	    intern_str(&sf->index->events, &sf->events, &sf->n_events,
	    &sf->index->cap_events, s, idx) == -1)
		return -1;
	if (sf->n_events > n)
		sf->chains[n] = (struct dcpi_stack_chains){ 0, DCPI_STACK_ROUTE_FP };
	return 0;
}

static int
intern_label(struct dcpi_stackfile *sf, const char *s, uint32_t *idx)
{
	return intern_str(&sf->index->labels, &sf->labels, &sf->n_labels,
	    &sf->index->cap_labels, s, idx);
}

/* Appends an image known to be new; -1 with errno. */
static int
append_image(struct dcpi_stackfile *sf, const char *id, uint64_t tstart,
    uint64_t tsize, const char *path)
{
	struct dcpi_stack_image im = { NULL, tstart, tsize, NULL };

	if (RESERVE(sf, images, sf->n_images + 1) == -1)
		return -1;
	if ((im.id = strdup(id)) == NULL || (im.path = strdup(path)) == NULL ||
	    htab_add(&sf->index->images, str_hash(id), sf->n_images + 1) == -1) {
		free(im.id);
		free(im.path);
		errno = ENOMEM;
		return -1;
	}
	sf->images[sf->n_images++] = im;
	return 0;
}

/* Interns an image by id; one of that id must have the same tstart and
 * tsize: -1/EINVAL (with a message) if not, -1/ENOMEM. */
static int
intern_image(struct dcpi_stackfile *sf, const char *id, uint64_t tstart,
    uint64_t tsize, const char *path, uint32_t *idx, struct dcpi_error *err)
{
	size_t i = find_image(sf, id);

	if (i != SIZE_MAX) {
		if (sf->images[i].tstart != tstart || sf->images[i].tsize != tsize)
			return lib_seterr(err, EINVAL, "image %s: text 0x%" PRIx64 " size %"
			    PRIu64 " differs from its text 0x%" PRIx64 " size %" PRIu64
			    " in the file", id, tstart, tsize, sf->images[i].tstart,
			    sf->images[i].tsize);
		*idx = (uint32_t)i;
		return 0;
	}
	if (append_image(sf, id, tstart, tsize, path) == -1)
		return lib_seterr(err, 0, "image %s: %s", id, strerror(errno));
	*idx = (uint32_t)(sf->n_images - 1);
	return 0;
}

static int
append_frame(struct dcpi_stackfile *sf, uint32_t image, uint32_t offset)
{
	if (RESERVE(sf, frames, sf->n_frames + 1) == -1)
		return -1;
	if (htab_add(&sf->index->frames, frame_key(image, offset), sf->n_frames + 1) == -1) {
		errno = ENOMEM;
		return -1;
	}
	sf->frames[sf->n_frames].image = image;
	sf->frames[sf->n_frames].offset = offset;
	sf->n_frames++;
	return 0;
}

static int
intern_frame(struct dcpi_stackfile *sf, uint32_t image, uint32_t offset,
    uint32_t *idx)
{
	size_t i = find_frame(sf, image, offset);

	if (i == SIZE_MAX) {
		if (append_frame(sf, image, offset) == -1)
			return -1;
		i = sf->n_frames - 1;
	}
	*idx = (uint32_t)i;
	return 0;
}

/* depth words of frame arrays; the newest chunk gives them. */
static uint32_t *
chunk_alloc(struct dcpi_stackfile_index *x, uint32_t n)
{
	struct chunk *c = x->chunks;
	size_t cap;

	if (c == NULL || c->cap - c->used < n) {
		cap = n > CHUNK_WORDS ? n : CHUNK_WORDS;
		if ((c = malloc(sizeof(*c) + cap * sizeof(uint32_t))) == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		c->next = x->chunks;
		c->used = 0;
		c->cap = cap;
		x->chunks = c;
	}
	c->used += n;
	return c->v + c->used - n;
}

/* Appends a stack known to be new, hashed h; -1 with errno. */
static int
append_stack(struct dcpi_stackfile *sf, uint64_t h, uint32_t event, uint32_t label,
    const uint32_t *frames, uint32_t depth, uint64_t count)
{
	struct dcpi_stack *s;
	uint32_t *f;

	if (RESERVE(sf, stacks, sf->n_stacks + 1) == -1)
		return -1;
	if ((f = chunk_alloc(sf->index, depth)) == NULL)
		return -1;
	if (htab_add(&sf->index->stacks, h, sf->n_stacks + 1) == -1) {
		sf->index->chunks->used -= depth;
		errno = ENOMEM;
		return -1;
	}
	memcpy(f, frames, depth * sizeof(*f));
	s = &sf->stacks[sf->n_stacks++];
	s->event = event;
	s->label = label;
	s->count = count;
	s->depth = depth;
	s->frames = f;
	return 0;
}

static int
intern_stack(struct dcpi_stackfile *sf, uint32_t event, uint32_t label,
    const uint32_t *frames, uint32_t depth, uint64_t count)
{
	uint64_t h = stack_hash(event, label, frames, depth);
	size_t i = find_stack(sf, h, event, label, frames, depth);

	if (i != SIZE_MAX) {
		sf->stacks[i].count = sat_add64(sf->stacks[i].count, count);
		return 0;
	}
	return append_stack(sf, h, event, label, frames, depth, count);
}

static void
set_mark(const struct dcpi_stackfile *sf, struct mark *m)
{
	m->n_images = sf->n_images;
	m->n_events = sf->n_events;
	m->n_labels = sf->n_labels;
	m->n_frames = sf->n_frames;
}

/* Undoes the images, events, labels and frames interned since m (stacks
 * are interned last, so none was added). */
static void
rollback(struct dcpi_stackfile *sf, const struct mark *m)
{
	struct dcpi_stackfile_index *x = sf->index;
	struct dcpi_stack_frame *f;

	while (sf->n_frames > m->n_frames) {
		f = &sf->frames[sf->n_frames - 1];
		unhash(&x->frames, frame_key(f->image, f->offset), sf->n_frames--);
	}
	while (sf->n_labels > m->n_labels) {
		unhash(&x->labels, str_hash(sf->labels[sf->n_labels - 1]), sf->n_labels);
		free(sf->labels[--sf->n_labels]);
	}
	while (sf->n_events > m->n_events) {
		unhash(&x->events, str_hash(sf->events[sf->n_events - 1]), sf->n_events);
		free(sf->events[--sf->n_events]);
	}
	while (sf->n_images > m->n_images) {
		unhash(&x->images, str_hash(sf->images[sf->n_images - 1].id), sf->n_images);
		sf->n_images--;
		free(sf->images[sf->n_images].id);
		free(sf->images[sf->n_images].path);
	}
}

/* ---- the file in memory ---- */

static struct dcpi_stackfile *
stackfile_alloc(void)
{
	struct dcpi_stackfile *sf;

	if ((sf = calloc(1, sizeof(*sf))) == NULL ||
	    (sf->index = calloc(1, sizeof(*sf->index))) == NULL) {
		free(sf);
		errno = ENOMEM;
		return NULL;
	}
	return sf;
}

struct dcpi_stackfile *
dcpi_stackfile_new(const char *epoch, const char *host)
{
	struct dcpi_stackfile *sf;

	if (!valid_epoch(epoch) || !valid_rest(host)) {
		errno = EINVAL;
		return NULL;
	}
	if ((sf = stackfile_alloc()) == NULL)
		return NULL;
	if ((sf->epoch = strdup(epoch)) == NULL || (sf->host = strdup(host)) == NULL) {
		dcpi_stackfile_free(sf);
		errno = ENOMEM;
		return NULL;
	}
	return sf;
}

static const char *const route_names[] = { "fp", "dwarf", "mixed" };

const char *
dcpi_stack_route_name(unsigned route)
{
	return route < sizeof(route_names) / sizeof(route_names[0]) ?
	    route_names[route] : "unknown";
}

int
dcpi_stackfile_set_chains(struct dcpi_stackfile *sf, const char *event,
    uint64_t period, unsigned route, struct dcpi_error *err)
{
	uint32_t ev;

	if (!valid_rest(event))
		return lib_seterr(err, EINVAL, "event '%.64s' is empty, holds a newline or "
		    "starts with a blank", event);
	if (period > INT64_MAX || route > DCPI_STACK_ROUTE_MIXED)
		return lib_seterr(err, EINVAL, "event '%.64s': chain period %" PRIu64
		    " or route %u out of range", event, period, route);
	if (intern_event(sf, event, &ev) == -1)
		return lib_seterr(err, 0, "event '%.64s': %s", event, strerror(errno));
	sf->chains[ev] = (struct dcpi_stack_chains){ period, route };
	return 0;
}

/* count * num / den, rounded, at least 1, saturating. */
static uint64_t
rescale(uint64_t count, uint64_t num, uint64_t den)
{
	unsigned __int128 v = ((unsigned __int128)count * num + den / 2) / den;

	return v > UINT64_MAX ? UINT64_MAX : v == 0 ? 1 : (uint64_t)v;
}

/*
 * The chains entry of into's event ie after merging from's entry c of
 * the same event; new: ie was interned by this merge.  Counts of two
 * periods are brought to the shorter one: *num / *den is the factor for
 * from's stacks of the event, into's own scaled here.  A period not said
 * (0) takes the other's, unscaled.
 */
static void
merge_chains(struct dcpi_stackfile *into, uint32_t ie, int new,
    const struct dcpi_stack_chains *c, uint64_t *num, uint64_t *den)
{
	struct dcpi_stack_chains *t = &into->chains[ie];
	uint64_t p;
	size_t i;

	*num = *den = 1;
	if (new) {
		*t = *c;
		return;
	}
	if (t->route != c->route)
		t->route = DCPI_STACK_ROUTE_MIXED;
	if (c->period == 0 || t->period == c->period)
		return;
	if (t->period == 0) {
		t->period = c->period;
		return;
	}
	p = t->period < c->period ? t->period : c->period;
	if (t->period > p)
		for (i = 0; i < into->n_stacks; i++)
			if (into->stacks[i].event == ie)
				into->stacks[i].count = rescale(into->stacks[i].count,
				    t->period, p);
	*num = c->period;
	*den = p;
	t->period = p;
}

const char *
dcpi_stack_truncated_reason(uint64_t offset)
{
	/* The order of daemon/unwind.h's enum unwind_end. */
	static const char *const reason[] = { "outermost", "depth", "stack-copy",
	    "no-table", "no-row", "unhandled", "loop" };

	return offset < sizeof(reason) / sizeof(reason[0]) ? reason[offset] : "unknown";
}

void
dcpi_stackfile_free(struct dcpi_stackfile *sf)
{
	struct chunk *c, *next;
	size_t i;

	if (sf == NULL)
		return;
	free(sf->epoch);
	free(sf->host);
	for (i = 0; i < sf->n_images; i++) {
		free(sf->images[i].id);
		free(sf->images[i].path);
	}
	free(sf->images);
	for (i = 0; i < sf->n_events; i++)
		free(sf->events[i]);
	free(sf->events);
	free(sf->chains);
	for (i = 0; i < sf->n_labels; i++)
		free(sf->labels[i]);
	free(sf->labels);
	free(sf->frames);
	free(sf->stacks);
	for (i = 0; i < sf->n_unknown; i++)
		free(sf->unknown[i]);
	free(sf->unknown);
	if (sf->index != NULL) {
		htab_fini(&sf->index->images);
		htab_fini(&sf->index->events);
		htab_fini(&sf->index->labels);
		htab_fini(&sf->index->frames);
		htab_fini(&sf->index->stacks);
		for (c = sf->index->chunks; c != NULL; c = next) {
			next = c->next;
			free(c);
		}
		free(sf->index);
	}
	free(sf);
}

/* Checks one frame of dcpi_stackfile_add and interns it. */
static int
add_frame(struct dcpi_stackfile *sf, const struct dcpi_stack_addframe *f,
    uint32_t i, uint32_t *idx, struct dcpi_error *err)
{
	uint32_t image;

	if (f->id == NULL)
		return intern_frame(sf, DCPI_STACK_NOIMAGE, 0, idx) == -1 ?
		    lib_seterr(err, 0, "frame %" PRIu32 ": %s", i, strerror(errno)) : 0;
	if (!valid_id(f->id))
		return lib_seterr(err, EINVAL, "frame %" PRIu32 ": image id '%.64s' is not "
		    "1 to %d lowercase hex digits", i, f->id, DCPI_STACK_ID_MAX);
	if (f->path == NULL || !valid_rest(f->path))
		return lib_seterr(err, EINVAL, "frame %" PRIu32 ": image %s: path is empty, "
		    "holds a newline or starts with a blank", i, f->id);
	if (f->offset >= f->tsize)
		return lib_seterr(err, EINVAL, "frame %" PRIu32 ": offset 0x%" PRIx32
		    " is not below the tsize %" PRIu64 " of image %s", i, f->offset,
		    f->tsize, f->id);
	if (intern_image(sf, f->id, f->tstart, f->tsize, f->path, &image, err) == -1)
		return -1;
	if (intern_frame(sf, image, f->offset, idx) == -1)
		return lib_seterr(err, 0, "frame %" PRIu32 ": %s", i, strerror(errno));
	return 0;
}

int
dcpi_stackfile_add(struct dcpi_stackfile *sf, const char *event, const char *label,
    const struct dcpi_stack_addframe *frames, uint32_t depth, uint64_t count,
    struct dcpi_error *err)
{
	uint32_t idx[DCPI_STACK_DEPTH_MAX], ev, lab = DCPI_STACK_NOLABEL, i;
	struct mark m;
	int e;

	if (depth == 0 || depth > DCPI_STACK_DEPTH_MAX)
		return lib_seterr(err, EINVAL, "stack of depth %" PRIu32 ", expected 1 to %d",
		    depth, DCPI_STACK_DEPTH_MAX);
	if (!valid_rest(event))
		return lib_seterr(err, EINVAL, "event '%.64s' is empty, holds a newline or "
		    "starts with a blank", event);
	if (label != NULL && !valid_rest(label))
		return lib_seterr(err, EINVAL, "label '%.64s' is empty, holds a newline or "
		    "starts with a blank", label);
	set_mark(sf, &m);
	if (intern_event(sf, event, &ev) == -1 ||
	    (label != NULL && intern_label(sf, label, &lab) == -1)) {
		lib_seterr(err, 0, "event '%.64s': %s", event, strerror(errno));
		goto fail;
	}
	for (i = 0; i < depth; i++)
		if (add_frame(sf, &frames[i], i, &idx[i], err) == -1)
			goto fail;
	if (count == 0) {
		rollback(sf, &m);
		return 0;
	}
	if (intern_stack(sf, ev, lab, idx, depth, count) == -1) {
		lib_seterr(err, 0, "stack of event '%.64s': %s", event, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	e = errno;
	rollback(sf, &m);
	errno = e;
	return -1;
}

static int
add_unknown(char ***v, size_t *n, const char *line, size_t len)
{
	char **nv, *s;

	if ((s = strndup(line, len)) == NULL)
		return -1;
	if ((nv = reallocarray(*v, *n + 1, sizeof(*nv))) == NULL) {
		free(s);
		return -1;
	}
	*v = nv;
	(*v)[(*n)++] = s;
	return 0;
}

int
dcpi_stackfile_merge(struct dcpi_stackfile *into, const struct dcpi_stackfile *from,
    struct dcpi_error *err)
{
	uint32_t *imap = NULL, *emap = NULL, *lmap = NULL, *fmap = NULL;
	uint32_t buf[DCPI_STACK_DEPTH_MAX], lab;
	const struct dcpi_stack_image *im;
	const struct dcpi_stack *s;
	uint64_t *scale = NULL;		/* num, den per event of from */
	size_t i, j, k, n_events = into->n_events;
	int e;

	if (strcmp(into->epoch, from->epoch) != 0 || strcmp(into->host, from->host) != 0)
		return lib_seterr(err, EINVAL, "cannot merge the stacks of epoch %s, host "
		    "%.200s into those of epoch %s, host %.200s", from->epoch, from->host,
		    into->epoch, into->host);
	for (i = 0; i < from->n_images; i++) {
		im = &from->images[i];
		if ((j = find_image(into, im->id)) != SIZE_MAX &&
		    (into->images[j].tstart != im->tstart || into->images[j].tsize != im->tsize))
			return lib_seterr(err, EINVAL, "image %s: text 0x%" PRIx64 " size %"
			    PRIu64 " differs from its text 0x%" PRIx64 " size %" PRIu64
			    " in the file", im->id, im->tstart, im->tsize,
			    into->images[j].tstart, into->images[j].tsize);
	}
	if ((imap = calloc(from->n_images + 1, sizeof(*imap))) == NULL ||
	    (emap = calloc(from->n_events + 1, sizeof(*emap))) == NULL ||
	    (lmap = calloc(from->n_labels + 1, sizeof(*lmap))) == NULL ||
	    (fmap = calloc(from->n_frames + 1, sizeof(*fmap))) == NULL ||
	    (scale = calloc(2 * from->n_events + 1, sizeof(*scale))) == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	for (i = 0; i < from->n_images; i++) {
		im = &from->images[i];
		if (intern_image(into, im->id, im->tstart, im->tsize, im->path, &imap[i],
		    err) == -1)
			goto fail;
	}
	for (i = 0; i < from->n_events; i++)
		if (intern_event(into, from->events[i], &emap[i]) == -1)
			goto fail;
	for (i = 0; i < from->n_labels; i++)
		if (intern_label(into, from->labels[i], &lmap[i]) == -1)
			goto fail;
	for (i = 0; i < from->n_frames; i++)
		if (intern_frame(into, from->frames[i].image == DCPI_STACK_NOIMAGE ?
		    DCPI_STACK_NOIMAGE : imap[from->frames[i].image],
		    from->frames[i].offset, &fmap[i]) == -1)
			goto fail;
	for (i = 0; i < from->n_events; i++)
		merge_chains(into, emap[i], emap[i] >= n_events, &from->chains[i],
		    &scale[2 * i], &scale[2 * i + 1]);
	for (i = 0; i < from->n_stacks; i++) {
		s = &from->stacks[i];
		for (k = 0; k < s->depth; k++)
			buf[k] = fmap[s->frames[k]];
		lab = s->label == DCPI_STACK_NOLABEL ? DCPI_STACK_NOLABEL : lmap[s->label];
		if (intern_stack(into, emap[s->event], lab, buf, s->depth,
		    rescale(s->count, scale[2 * s->event], scale[2 * s->event + 1])) == -1)
			goto fail;
	}
	for (i = 0; i < from->n_unknown; i++) {
		for (j = 0; j < into->n_unknown; j++)
			if (strcmp(into->unknown[j], from->unknown[i]) == 0)
				break;
		if (j == into->n_unknown && add_unknown(&into->unknown, &into->n_unknown,
		    from->unknown[i], strlen(from->unknown[i])) == -1) {
			errno = ENOMEM;
			goto fail;
		}
	}
	free(imap);
	free(emap);
	free(lmap);
	free(fmap);
	free(scale);
	return 0;
fail:
	e = errno;
	lib_seterr(err, 0, "merging stacks: %s", strerror(e));
	free(imap);
	free(emap);
	free(lmap);
	free(fmap);
	free(scale);
	errno = e;
	return -1;
}

/* ---- writer ---- */

/* Where the encoder puts the file's bytes: a buffer of the exact size
 * (dcpi_stackfile_encode) or a file through stdio (dcpi_stackfile_writeat,
 * so that a large file is never held twice). */
struct sink {
	unsigned char	*w;		/* the buffer's next byte, or NULL */
	FILE		*fp;
};

static int
emit(struct sink *k, const void *p, size_t n)
{
	if (k->w != NULL) {
		memcpy(k->w, p, n);
		k->w += n;
		return 0;
	}
	return fwrite(p, 1, n, k->fp) == n ? 0 : -1;
}

/* The header from the magic line to "samples", into fp. */
static void
print_header(const struct dcpi_stackfile *sf, FILE *fp)
{
	const struct dcpi_stack_image *im;
	size_t i;

	fprintf(fp, "%s\nepoch %s\nhost %s\n", DCPI_STACKS_MAGIC, sf->epoch, sf->host);
	for (i = 0; i < sf->n_images; i++) {
		im = &sf->images[i];
		fprintf(fp, "image %zu %s %" PRIx64 " %" PRIu64 " %s\n", i, im->id,
		    im->tstart, im->tsize, im->path);
	}
	for (i = 0; i < sf->n_events; i++)
		fprintf(fp, "event %zu %s\n", i, sf->events[i]);
	for (i = 0; i < sf->n_events; i++)
		if (sf->chains[i].period != 0 || sf->chains[i].route != DCPI_STACK_ROUTE_FP)
			fprintf(fp, "chains %zu %" PRIu64 " %s\n", i, sf->chains[i].period,
			    dcpi_stack_route_name(sf->chains[i].route));
	for (i = 0; i < sf->n_labels; i++)
		fprintf(fp, "label %zu %s\n", i, sf->labels[i]);
	for (i = 0; i < sf->n_unknown; i++)
		fprintf(fp, "%s\n", sf->unknown[i]);
	fprintf(fp, "frames %zu\nstacks %zu\nsamples\n", sf->n_frames, sf->n_stacks);
}

/* The binary part, frames to footer, one record at a time; -1 with errno
 * when the sink's write fails. */
static int
emit_binary(const struct dcpi_stackfile *sf, struct sink *k)
{
	unsigned char rec[STACK_BYTES + DCPI_STACK_DEPTH_MAX * 4], *w;
	uint64_t total = 0;
	size_t i, k2;

	for (i = 0; i < sf->n_frames; i++) {
		put32(put32(rec, sf->frames[i].image), sf->frames[i].offset);
		if (emit(k, rec, FRAME_BYTES) == -1)
			return -1;
	}
	for (i = 0; i < sf->n_stacks; i++) {
		const struct dcpi_stack *s = &sf->stacks[i];

		w = put32(put32(rec, s->event), s->label);
		w = put32(put64(w, s->count), s->depth);
		for (k2 = 0; k2 < s->depth; k2++)
			w = put32(w, s->frames[k2]);
		if (emit(k, rec, (size_t)(w - rec)) == -1)
			return -1;
		total = sat_add64(total, s->count);
	}
	put64(put32(rec, (uint32_t)sf->n_stacks), total);
	return emit(k, rec, FOOTER_BYTES);
}

static int
check_sizes(const struct dcpi_stackfile *sf, struct dcpi_error *err)
{
	if (sf->n_frames > TABLE_MAX || sf->n_stacks > TABLE_MAX)
		return lib_seterr(err, EOVERFLOW, "stacks: %zu frames, %zu stacks: more than "
		    "the format's %zu", sf->n_frames, sf->n_stacks, TABLE_MAX);
	return 0;
}

int
dcpi_stackfile_encode(const struct dcpi_stackfile *sf, void **bufp, size_t *lenp,
    struct dcpi_error *err)
{
	struct sink k = { NULL, NULL };
	unsigned char *buf;
	char *hdr = NULL;
	size_t hlen = 0, bin, i;
	FILE *fp;

	*bufp = NULL;
	*lenp = 0;
	if (check_sizes(sf, err) == -1)
		return -1;
	if ((fp = open_memstream(&hdr, &hlen)) == NULL)
		goto nomem;
	print_header(sf, fp);
	if (fclose(fp) != 0) {
		free(hdr);
		goto nomem;
	}
	bin = sf->n_frames * FRAME_BYTES + FOOTER_BYTES;
	for (i = 0; i < sf->n_stacks; i++)
		bin += STACK_BYTES + (size_t)sf->stacks[i].depth * 4;
	if ((buf = malloc(hlen + bin)) == NULL) {
		free(hdr);
		goto nomem;
	}
	memcpy(buf, hdr, hlen);
	free(hdr);
	k.w = buf + hlen;
	(void)emit_binary(sf, &k);
	*bufp = buf;
	*lenp = hlen + bin;
	return 0;
nomem:
	return lib_seterr(err, ENOMEM, "stacks: out of memory");
}

/* lib_atomic_writeat_fn's writer: sf through stdio into the temporary
 * file (a dup of fd, which the caller fsyncs and closes). */
static int
write_fd(int fd, void *arg)
{
	const struct dcpi_stackfile *sf = arg;
	struct sink k = { NULL, NULL };
	int dfd, e;

	if ((dfd = dup(fd)) == -1)
		return -1;
	if ((k.fp = fdopen(dfd, "w")) == NULL) {
		e = errno;
		close(dfd);
		errno = e;
		return -1;
	}
	/* Large writes: the file is tens of MB on a busy host. */
	(void)setvbuf(k.fp, NULL, _IOFBF, 1 << 16);
	print_header(sf, k.fp);
	if (emit_binary(sf, &k) == -1 || ferror(k.fp)) {
		e = errno ? errno : EIO;
		fclose(k.fp);
		errno = e;
		return -1;
	}
	return fclose(k.fp) == 0 ? 0 : -1;
}

int
dcpi_stackfile_writeat_flags(int dirfd, const char *name, const char *show,
    const struct dcpi_stackfile *sf, mode_t mode, int flags,
    struct dcpi_error *err)
{
	if (check_sizes(sf, err) == -1)
		return -1;
	return lib_atomic_writeat_fn(dirfd, name, show, write_fd, (void *)sf, mode,
	    flags, err);
}

int
dcpi_stackfile_writeat(int dirfd, const char *name, const char *show,
    const struct dcpi_stackfile *sf, mode_t mode, struct dcpi_error *err)
{
	return dcpi_stackfile_writeat_flags(dirfd, name, show, sf, mode, 0, err);
}

int
dcpi_stackfile_write(const char *path, const struct dcpi_stackfile *sf,
    struct dcpi_error *err)
{
	void *buf;
	size_t len;
	int rc, e;

	if (dcpi_stackfile_encode(sf, &buf, &len, err) == -1)
		return lib_seterr(err, 0, "%s: %s", path, strerror(errno));
	rc = dcpi_atomic_write(path, buf, len, 0644, err);
	e = errno;
	free(buf);
	errno = e;
	return rc;
}

/* ---- reader ---- */

/* The header being read: one line at a time. */
struct hdr_reader {
	const char	*buf;
	size_t		 len, pos;
	size_t		 lineno;
	const char	*line;		/* the current line, n bytes without "\n" */
	size_t		 n;
	const char	*name;
	struct dcpi_error *err;
};

/* The next line; expect says what it should be, for the message. */
static int
next_line(struct hdr_reader *h, const char *expect)
{
	const char *nl;

	h->lineno++;
	h->line = h->buf + h->pos;
	if ((nl = memchr(h->line, '\n', h->len - h->pos)) == NULL)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: %s, expected %s", h->name,
		    h->lineno, h->pos == h->len ? "end of file" : "line without a newline",
		    expect);
	h->n = (size_t)(nl - h->line);
	h->pos += h->n + 1;
	if (memchr(h->line, '\0', h->n) != NULL)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: NUL byte, expected %s",
		    h->name, h->lineno, expect);
	return 0;
}

/* Whether the line is "KEY " and more; *rest then follows the blank. */
static int
keyword(const struct hdr_reader *h, const char *key, const char **rest)
{
	size_t k = strlen(key);

	if (h->n <= k || memcmp(h->line, key, k) != 0 || h->line[k] != ' ')
		return 0;
	*rest = h->line + k + 1;
	return 1;
}

/* The next field of a line, up to one blank: *f, *fn; -1 when there is
 * no blank after at least one character. */
static int
field(const char **p, const char *end, const char **f, size_t *fn)
{
	const char *sp = memchr(*p, ' ', (size_t)(end - *p));

	if (sp == NULL || sp == *p)
		return -1;
	*f = *p;
	*fn = (size_t)(sp - *p);
	*p = sp + 1;
	return 0;
}

/* "KEY NUMBER": a decimal number of at most max. */
static int
number_line(struct hdr_reader *h, const char *key, uint64_t max, uint64_t *v)
{
	char expect[64];
	const char *r;

	snprintf(expect, sizeof(expect), "'%s N'", key);
	if (next_line(h, expect) == -1)
		return -1;
	if (!keyword(h, key, &r) ||
	    number(r, (size_t)(h->line + h->n - r), 10, max, v) == -1)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected '%s N', N a decimal "
		    "number of at most %" PRIu64, h->name, h->lineno, key, max);
	return 0;
}

/* The rest of the line after p as a new string (rest_of_line); NULL with
 * EINVAL (and a message saying what) or ENOMEM. */
static char *
rest_value(struct hdr_reader *h, const char *p, const char *what)
{
	size_t n = (size_t)(h->line + h->n - p);
	char *s;

	if (n == 0 || is_blank(*p)) {
		lib_seterr(h->err, EINVAL, "%s: line %zu: expected %s after one blank (not "
		    "empty, not starting with a blank)", h->name, h->lineno, what);
		return NULL;
	}
	if ((s = strndup(p, n)) == NULL)
		lib_seterr(h->err, ENOMEM, "%s: out of memory", h->name);
	return s;
}

/* "IDX " of an image, event or label line: IDX must be next. */
static int
index_field(struct hdr_reader *h, const char **p, const char *key, size_t next)
{
	const char *f;
	size_t fn;
	uint64_t v;

	if (field(p, h->line + h->n, &f, &fn) == -1 ||
	    number(f, fn, 10, UINT64_MAX, &v) == -1)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected '%s IDX ...', IDX "
		    "decimal, one blank each side", h->name, h->lineno, key);
	if (v != next)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: %s index %" PRIu64 ", expected "
		    "%zu (indexes count from 0 in order)", h->name, h->lineno, key, v, next);
	return 0;
}

static int
image_line(struct hdr_reader *h, const char *p, struct dcpi_stackfile *sf)
{
	const char *end = h->line + h->n, *f;
	char id[DCPI_STACK_ID_MAX + 1], *path;
	uint64_t tstart, tsize;
	size_t fn, j;
	int rc;

	if (index_field(h, &p, "image", sf->n_images) == -1)
		return -1;
	if (field(&p, end, &f, &fn) == -1 || fn > DCPI_STACK_ID_MAX ||
	    strspn(f, "0123456789abcdef") < fn)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected an image id of 1 to "
		    "%d lowercase hex digits and a blank", h->name, h->lineno,
		    DCPI_STACK_ID_MAX);
	memcpy(id, f, fn);
	id[fn] = '\0';
	if (field(&p, end, &f, &fn) == -1 || number(f, fn, 16, UINT64_MAX, &tstart) == -1)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: image %s: expected TSTART in "
		    "lowercase hex (64 bits, no 0x) and a blank", h->name, h->lineno, id);
	if (field(&p, end, &f, &fn) == -1 || number(f, fn, 10, UINT64_MAX, &tsize) == -1)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: image %s: expected TSIZE in "
		    "decimal (64 bits) and a blank", h->name, h->lineno, id);
	if ((path = rest_value(h, p, "the image's path")) == NULL)
		return -1;
	if ((j = find_image(sf, id)) != SIZE_MAX) {
		free(path);
		return lib_seterr(h->err, EINVAL, "%s: line %zu: image %s given twice (image "
		    "%zu)", h->name, h->lineno, id, j);
	}
	rc = append_image(sf, id, tstart, tsize, path);
	free(path);
	if (rc == -1)
		return lib_seterr(h->err, errno, "%s: line %zu: %s", h->name, h->lineno,
		    strerror(errno));
	return 0;
}

/* "event IDX EVENT" or "label IDX LABEL". */
static int
string_line(struct hdr_reader *h, const char *p, const char *key, struct dcpi_stackfile *sf,
    int label)
{
	size_t n = label ? sf->n_labels : sf->n_events;
	uint32_t idx;
	char *s;
	int rc;

	if (index_field(h, &p, key, n) == -1)
		return -1;
	if ((s = rest_value(h, p, key)) == NULL)
		return -1;
	rc = label ? intern_label(sf, s, &idx) : intern_event(sf, s, &idx);
	if (rc == 0 && idx != n)
		rc = lib_seterr(h->err, EINVAL, "%s: line %zu: %s '%.200s' given twice (%s %"
		    PRIu32 ")", h->name, h->lineno, key, s, key, idx);
	else if (rc == -1)
		lib_seterr(h->err, errno, "%s: line %zu: %s", h->name, h->lineno,
		    strerror(errno));
	free(s);
	return rc;
}

/* "chains IDX PERIOD ROUTE": after every event line, IDX increasing past
 * *last (SIZE_MAX: none yet). */
static int
chains_line(struct hdr_reader *h, const char *p, struct dcpi_stackfile *sf,
    size_t *last)
{
	const char *end = h->line + h->n, *f;
	uint64_t idx, period;
	size_t fn;
	unsigned r;

	if (field(&p, end, &f, &fn) == -1 || number(f, fn, 10, UINT64_MAX, &idx) == -1 ||
	    idx >= sf->n_events || (*last != SIZE_MAX && idx <= *last))
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected 'chains IDX PERIOD "
		    "ROUTE', IDX an event's index (%zu events) above the last chains line's",
		    h->name, h->lineno, sf->n_events);
	if (field(&p, end, &f, &fn) == -1 || number(f, fn, 10, INT64_MAX, &period) == -1)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: chains %" PRIu64 ": expected "
		    "PERIOD in decimal (at most 2^63 - 1) and a blank", h->name, h->lineno, idx);
	for (r = 0; r <= DCPI_STACK_ROUTE_MIXED; r++)
		if ((size_t)(end - p) == strlen(route_names[r]) &&
		    memcmp(p, route_names[r], (size_t)(end - p)) == 0)
			break;
	if (r > DCPI_STACK_ROUTE_MIXED)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: chains %" PRIu64 ": expected "
		    "ROUTE fp, dwarf or mixed", h->name, h->lineno, idx);
	sf->chains[idx] = (struct dcpi_stack_chains){ period, r };
	*last = (size_t)idx;
	return 0;
}

static const char *const keywords[] = {
	"dcpi-stacks", "epoch", "host", "image", "event", "chains", "label", "frames",
	"stacks", "samples"
};

/* An unknown line: "WORD <blank>+ REST" of a word that is no keyword. */
static int
unknown_line(struct hdr_reader *h, struct dcpi_stackfile *sf)
{
	size_t w = 0, r, i;

	while (w < h->n && !is_blank(h->line[w]))
		w++;
	for (r = w; r < h->n && is_blank(h->line[r]); r++)
		;
	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i]) == w && memcmp(h->line, keywords[i], w) == 0)
			return lib_seterr(h->err, EINVAL, "%s: line %zu: '%.64s' out of place, "
			    "expected an image, event, chains or label line in that order, an "
			    "unknown line or 'frames N'", h->name, h->lineno, keywords[i]);
	if (w == 0 || r == w || r == h->n)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: '%.*s' is not 'KEYWORD VALUE'",
		    h->name, h->lineno, (int)(h->n > 64 ? 64 : h->n), h->line);
	if (add_unknown(&sf->unknown, &sf->n_unknown, h->line, h->n) == -1)
		return lib_seterr(h->err, ENOMEM, "%s: out of memory", h->name);
	return 0;
}

/* The header up to "samples": *nframes, *nstacks and h->pos, the binary
 * part's offset. */
static int
parse_header(struct hdr_reader *h, struct dcpi_stackfile *sf, uint64_t *nframes,
    uint64_t *nstacks)
{
	enum { S_IMAGE, S_EVENT, S_CHAINS, S_LABEL } state = S_IMAGE;
	size_t last_chains = SIZE_MAX;
	const char *r;

	if (next_line(h, "'" DCPI_STACKS_MAGIC "'") == -1)
		return -1;
	if (h->n != strlen(DCPI_STACKS_MAGIC) || memcmp(h->line, DCPI_STACKS_MAGIC, h->n) != 0) {
		if (keyword(h, "dcpi-stacks", &r))
			return lib_seterr(h->err, EINVAL, "%s: line 1: version '%.*s' is not "
			    "supported, expected '%s'", h->name, (int)(h->n > 64 ? 64 : h->n),
			    h->line, DCPI_STACKS_MAGIC);
		return lib_seterr(h->err, EINVAL, "%s: line 1: expected '%s'", h->name,
		    DCPI_STACKS_MAGIC);
	}
	if (next_line(h, "'epoch EPOCH'") == -1)
		return -1;
	if (!keyword(h, "epoch", &r))
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected 'epoch EPOCH'",
		    h->name, h->lineno);
	if ((sf->epoch = rest_value(h, r, "EPOCH")) == NULL)
		return -1;
	if (!valid_epoch(sf->epoch))
		return lib_seterr(h->err, EINVAL, "%s: line %zu: epoch '%.64s' is neither "
		    "YYMMDDHHMM nor YYYYMMDDHHMMSS", h->name, h->lineno, sf->epoch);
	if (next_line(h, "'host HOST'") == -1)
		return -1;
	if (!keyword(h, "host", &r))
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected 'host HOST'", h->name,
		    h->lineno);
	if ((sf->host = rest_value(h, r, "HOST")) == NULL)
		return -1;
	for (;;) {
		if (next_line(h, "an image, event, chains, label, unknown or 'frames N' line") == -1)
			return -1;
		if (keyword(h, "frames", &r))
			break;
		if (state == S_IMAGE && keyword(h, "image", &r)) {
			if (image_line(h, r, sf) == -1)
				return -1;
		} else if (state <= S_EVENT && keyword(h, "event", &r)) {
			state = S_EVENT;
			if (string_line(h, r, "event", sf, 0) == -1)
				return -1;
		} else if ((state == S_EVENT || state == S_CHAINS) && keyword(h, "chains", &r)) {
			state = S_CHAINS;
			if (chains_line(h, r, sf, &last_chains) == -1)
				return -1;
		} else if (keyword(h, "label", &r)) {
			state = S_LABEL;
			if (string_line(h, r, "label", sf, 1) == -1)
				return -1;
		} else if (unknown_line(h, sf) == -1)
			return -1;
	}
	h->lineno--;
	h->pos -= h->n + 1;
	if (number_line(h, "frames", TABLE_MAX, nframes) == -1 ||
	    number_line(h, "stacks", TABLE_MAX, nstacks) == -1)
		return -1;
	if (next_line(h, "'samples'") == -1)
		return -1;
	if (h->n != 7 || memcmp(h->line, "samples", 7) != 0)
		return lib_seterr(h->err, EINVAL, "%s: line %zu: expected 'samples', the end of "
		    "the header", h->name, h->lineno);
	return 0;
}

static int
parse_frames(const unsigned char *b, size_t len, size_t *pos, uint64_t n,
    const char *name, struct dcpi_stackfile *sf, struct dcpi_error *err)
{
	uint32_t image, offset;
	size_t i, j;

	if (n > (len - *pos) / FRAME_BYTES)
		return lib_seterr(err, EINVAL, "%s: byte %zu: %" PRIu64 " frames need %" PRIu64
		    " bytes, %zu left", name, *pos, n, n * FRAME_BYTES, len - *pos);
	if (RESERVE(sf, frames, n) == -1 || htab_reserve(&sf->index->frames, n) == -1)
		return lib_seterr(err, errno, "%s: out of memory", name);
	for (i = 0; i < n; i++, *pos += FRAME_BYTES) {
		image = get32(b + *pos);
		offset = get32(b + *pos + 4);
		if (image == DCPI_STACK_NOIMAGE && offset != 0)
			return lib_seterr(err, EINVAL, "%s: byte %zu: frame %zu: unattributed, "
			    "offset 0x%" PRIx32 ", expected 0", name, *pos, i, offset);
		if (image != DCPI_STACK_NOIMAGE && image >= sf->n_images)
			return lib_seterr(err, EINVAL, "%s: byte %zu: frame %zu: image %" PRIu32
			    " out of range (%zu images)", name, *pos, i, image, sf->n_images);
		if (image != DCPI_STACK_NOIMAGE && offset >= sf->images[image].tsize)
			return lib_seterr(err, EINVAL, "%s: byte %zu: frame %zu: offset 0x%" PRIx32
			    " is not below the tsize %" PRIu64 " of image %" PRIu32, name,
			    *pos, i, offset, sf->images[image].tsize, image);
		if ((j = find_frame(sf, image, offset)) != SIZE_MAX)
			return lib_seterr(err, EINVAL, "%s: byte %zu: frame %zu repeats frame %zu",
			    name, *pos, i, j);
		if (append_frame(sf, image, offset) == -1)
			return lib_seterr(err, errno, "%s: out of memory", name);
	}
	return 0;
}

/* A mapped file's pages before pos, given back every DROP_BYTES: the
 * stacks part is most of the file, and what was read is in the tables. */
#define DROP_BYTES	((size_t)8 << 20)

static void
drop_behind(const unsigned char *b, size_t pos, size_t *dropped)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), end = pos / page * page;

	if (dropped == NULL || end - *dropped < DROP_BYTES)
		return;
	/* A hint: pages touched again are read from the file again. */
	(void)madvise((void *)(uintptr_t)(b + *dropped), end - *dropped, MADV_DONTNEED);
	*dropped = end;
}

/* dropped: NULL, or the bytes of a page-aligned mapping b given back so
 * far (drop_behind). */
static int
parse_stacks(const unsigned char *b, size_t len, size_t *pos, uint64_t n,
    const char *name, struct dcpi_stackfile *sf, uint64_t *total,
    size_t *dropped, struct dcpi_error *err)
{
	uint32_t ev, lab, depth, f[DCPI_STACK_DEPTH_MAX], k;
	size_t i, j, at, room;
	uint64_t count, h;

	/* Room for the stacks the bytes can hold, not for what N claims. */
	room = n < (len - *pos) / (STACK_BYTES + 4) ? n : (len - *pos) / (STACK_BYTES + 4);
	if (RESERVE(sf, stacks, room) == -1 || htab_reserve(&sf->index->stacks, room) == -1)
		return lib_seterr(err, errno, "%s: out of memory", name);
	for (i = 0; i < n; i++) {
		at = *pos;
		if (len - at < STACK_BYTES)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: %zu bytes left, "
			    "expected a stack (%d bytes and its frames)", name, at, i,
			    len - at, STACK_BYTES);
		ev = get32(b + at);
		lab = get32(b + at + 4);
		count = get64(b + at + 8);
		depth = get32(b + at + 16);
		if (ev >= sf->n_events)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: event %" PRIu32
			    " out of range (%zu events)", name, at, i, ev, sf->n_events);
		if (lab != DCPI_STACK_NOLABEL && lab >= sf->n_labels)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: label %" PRIu32
			    " out of range (%zu labels)", name, at + 4, i, lab, sf->n_labels);
		if (count == 0)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: count 0, expected "
			    "at least 1", name, at + 8, i);
		if (depth == 0 || depth > DCPI_STACK_DEPTH_MAX)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: depth %" PRIu32
			    ", expected 1 to %d", name, at + 16, i, depth, DCPI_STACK_DEPTH_MAX);
		if ((len - at - STACK_BYTES) / 4 < depth)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: %" PRIu32 " frames "
			    "need %" PRIu64 " bytes, %zu left", name, at + STACK_BYTES, i, depth,
			    (uint64_t)depth * 4, len - at - STACK_BYTES);
		*pos += STACK_BYTES;
		for (k = 0; k < depth; k++, *pos += 4)
			if ((f[k] = get32(b + *pos)) >= sf->n_frames)
				return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu: frame index %"
				    PRIu32 " out of range (%zu frames)", name, *pos, i, f[k],
				    sf->n_frames);
		h = stack_hash(ev, lab, f, depth);
		if ((j = find_stack(sf, h, ev, lab, f, depth)) != SIZE_MAX)
			return lib_seterr(err, EINVAL, "%s: byte %zu: stack %zu repeats stack %zu",
			    name, at, i, j);
		if (append_stack(sf, h, ev, lab, f, depth, count) == -1)
			return lib_seterr(err, errno, "%s: out of memory", name);
		*total = sat_add64(*total, count);
		drop_behind(b, *pos, dropped);
	}
	return 0;
}

/* dcpi_stackfile_parse; dropped as parse_stacks'. */
static int
parse(const void *buf, size_t len, const char *name, size_t *dropped,
    struct dcpi_stackfile **out, struct dcpi_error *err)
{
	const unsigned char *b = buf;
	struct hdr_reader h = { buf, len, 0, 0, NULL, 0, name, err };
	struct dcpi_stackfile *sf;
	uint64_t nframes, nstacks, total = 0, ftotal;
	uint32_t fm;
	size_t pos;
	int e;

	*out = NULL;
	if ((sf = stackfile_alloc()) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	if (parse_header(&h, sf, &nframes, &nstacks) == -1)
		goto fail;
	pos = h.pos;
	if (parse_frames(b, len, &pos, nframes, name, sf, err) == -1 ||
	    parse_stacks(b, len, &pos, nstacks, name, sf, &total, dropped, err) == -1)
		goto fail;
	if (len - pos < FOOTER_BYTES) {
		lib_seterr(err, EINVAL, "%s: byte %zu: %zu bytes left, expected the %d-byte "
		    "footer (stacks, total samples)", name, pos, len - pos, FOOTER_BYTES);
		goto fail;
	}
	fm = get32(b + pos);
	ftotal = get64(b + pos + 4);
	if (fm != nstacks) {
		lib_seterr(err, EINVAL, "%s: byte %zu: footer gives %" PRIu32 " stacks, the "
		    "file holds %" PRIu64, name, pos, fm, nstacks);
		goto fail;
	}
	if (ftotal != total) {
		lib_seterr(err, EINVAL, "%s: byte %zu: footer total %" PRIu64 " does not match "
		    "the sum of the counts, %" PRIu64, name, pos + 4, ftotal, total);
		goto fail;
	}
	if (len - pos > FOOTER_BYTES) {
		lib_seterr(err, EINVAL, "%s: byte %zu: %zu bytes after the footer, expected the "
		    "end of the file", name, pos + FOOTER_BYTES, len - pos - FOOTER_BYTES);
		goto fail;
	}
	*out = sf;
	return 0;
fail:
	e = errno == ENOMEM ? ENOMEM : EINVAL;
	dcpi_stackfile_free(sf);
	errno = e;
	return -1;
}

int
dcpi_stackfile_parse(const void *buf, size_t len, const char *name,
    struct dcpi_stackfile **out, struct dcpi_error *err)
{
	return parse(buf, len, name, NULL, out, err);
}

int
dcpi_stackfile_readat(int dirfd, const char *name, const char *show,
    struct dcpi_stackfile **out, struct dcpi_error *err)
{
	size_t len, dropped = 0;
	void *map;
	int rc, e;

	*out = NULL;
	if (show == NULL)
		show = name;
	if (lib_map_fileat(dirfd, name, show, &map, &len, err) == -1)
		return -1;
	rc = parse(map, len, show, len > 0 ? &dropped : NULL, out, err);
	e = errno;
	lib_unmap_file(map, len);
	errno = e;
	return rc;
}

int
dcpi_stackfile_read(const char *path, struct dcpi_stackfile **out,
    struct dcpi_error *err)
{
	void *buf;
	size_t len;
	int rc, e;

	*out = NULL;
	if (dcpi_read_file(path, &buf, &len, err) == -1)
		return -1;
	rc = dcpi_stackfile_parse(buf, len, path, out, err);
	e = errno;
	free(buf);
	errno = e;
	return rc;
}
