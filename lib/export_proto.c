/*
 * pprof's profile.proto (github.com/google/pprof/proto/profile.proto,
 * package perftools.profiles), gzipped, as Go's pprof, Parca, Pyroscope
 * and Cloud Profiler read it.  A small protobuf writer of its own: the
 * profile needs varints and length-delimited messages only, and no
 * generated code or runtime library is smaller than that.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <dcpi/label.h>

#include "export_int.h"
#include "htab.h"
#include "util.h"

/* Field numbers of profile.proto (proto3, so a zero scalar is left out). */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4,
	P_FUNCTION = 5, P_STRING_TABLE = 6, P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3,
	L_KEY = 1, L_STR = 2,
	M_ID = 1, M_MEMORY_START = 2, M_MEMORY_LIMIT = 3, M_FILE_OFFSET = 4,
	M_FILENAME = 5, M_BUILD_ID = 6, M_HAS_FUNCTIONS = 7, M_HAS_FILENAMES = 8,
	M_HAS_LINE_NUMBERS = 9,
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LN_FUNCTION_ID = 1, LN_LINE = 2,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3, F_FILENAME = 4, F_START_LINE = 5,
};
#define WT_VARINT	0
#define WT_LEN		2

/* ---- the writer: appends to an ebuf, which records a failure ---- */

static void
pb_varint(struct ebuf *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;

	do {
		c[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	eb_append(b, c, n);
}

static size_t
pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A varint field; int64 fields go as their two's complement, as protobuf
 * encodes negative int64s (10 bytes). */
static void
pb_uint(struct ebuf *b, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	pb_varint(b, (uint64_t)field << 3 | WT_VARINT);
	pb_varint(b, v);
}

static void
pb_bytes(struct ebuf *b, unsigned field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | WT_LEN);
	pb_varint(b, n);
	eb_append(b, p, n);
}

/* Appends the message built in m as field, and empties m for the next. */
static void
pb_msg(struct ebuf *b, unsigned field, struct ebuf *m)
{
	if (m->failed)
		b->failed = 1;
	pb_bytes(b, field, m->p, m->len);
	m->len = 0;
}

/* A packed repeated varint field (proto3's encoding of repeated scalars). */
static void
pb_packed(struct ebuf *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += pb_varint_len(v[i]);
	pb_varint(b, (uint64_t)field << 3 | WT_LEN);
	pb_varint(b, len);
	for (i = 0; i < n; i++)
		pb_varint(b, v[i]);
}

/* ---- the tables: strings, mappings, locations, functions ---- */

struct mapping {
	size_t		 prof;		/* first profile of the image */
	uint64_t	 base;		/* memory_start */
	uint64_t	 n_locs, n_fn, n_line;	/* locations, with a function, with a line */
};

struct location {
	uint64_t	 mapping;	/* index into mappings */
	uint64_t	 address;
};

struct function {
	uint64_t	 mapping;
	uint64_t	 start;		/* the procedure's offset */
};

struct proto {
	const struct dcpi_profile *const *profiles;
	size_t		 n;
	dcpi_export_resolve_fn resolve;
	void		*arg;
	/* Messages as they are made, joined in field order at the end. */
	struct ebuf	 samples, locs, funcs, strs;
	struct ebuf	 m, sub, fm;	/* scratch: a message, one inside it, a function */
	/* string_table: index + 1 under the string's hash. */
	char		**str;
	size_t		 n_str, cap_str;
	struct htab	 str_h;
	struct mapping	*maps;
	size_t		 n_maps;
	size_t		*map_of;	/* profile index -> mapping index */
	struct location	*loc;
	size_t		 n_loc, cap_loc;
	struct htab	 loc_h;		/* id (index + 1) */
	struct function	*fn;
	size_t		 n_fn, cap_fn;
	struct htab	 fn_h;
	int		 failed;
};

/* s with each byte that starts no UTF-8 sequence made '?', malloc'd; NULL
 * if s is valid as it is (or on ENOMEM, with *failed set).  profile.proto's
 * strings are proto3 strings, which readers built on Go's protobuf refuse
 * unless UTF-8, and paths, symbols and labels are bytes. */
static char *
utf8_fix(const char *s, int *failed)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k, n = strlen(s);
	char *t = NULL;

	for (i = 0; i < n; i += k ? k : 1) {
		/* The NUL ends a short sequence: the checks stop there. */
		if ((k = utf8_len(u + i)) != 0)
			continue;
		if (t == NULL && (t = strdup(s)) == NULL) {
			*failed = 1;
			return NULL;
		}
		t[i] = '?';
	}
	return t;
}

/* The string's index in string_table, "" being 0; 0 after a failure. */
static uint64_t
str_id(struct proto *ps, const char *s)
{
	struct htab_iter it;
	uint64_t h;
	uintptr_t v;
	char *fixed;

	if (s == NULL || *s == '\0')
		return 0;
	if ((fixed = utf8_fix(s, &ps->failed)) != NULL) {
		h = str_id(ps, fixed);
		free(fixed);
		return h;
	}
	if (ps->failed)
		return 0;
	h = fnv1a64_str(FNV1A64_INIT, s);
	for (v = htab_first(&ps->str_h, h, &it); v != 0; v = htab_next(&ps->str_h, &it))
		if (strcmp(ps->str[v - 1], s) == 0)
			return v - 1;
	if (lib_grow((void **)&ps->str, &ps->cap_str, ps->n_str, sizeof(*ps->str)) == -1 ||
	    (ps->str[ps->n_str] = strdup(s)) == NULL) {
		ps->failed = 1;
		return 0;
	}
	if (htab_add(&ps->str_h, h, ps->n_str + 1) == -1) {
		free(ps->str[ps->n_str]);
		ps->failed = 1;
		return 0;
	}
	pb_bytes(&ps->strs, P_STRING_TABLE, s, strlen(s));
	return ps->n_str++;
}

/* The function id of the procedure at offset start of mapping mi, made
 * (name, and its first byte's source file and line) if new. */
static uint64_t
fn_id(struct proto *ps, size_t mi, uint64_t start, uint64_t name, uint64_t file)
{
	struct dcpi_export_loc at;
	struct htab_iter it;
	uint64_t h = mi * 0x100000001b3ULL ^ start, line = 0;
	uintptr_t v;

	for (v = htab_first(&ps->fn_h, h, &it); v != 0; v = htab_next(&ps->fn_h, &it))
		if (ps->fn[v - 1].mapping == mi && ps->fn[v - 1].start == start)
			return v;
	if (lib_grow((void **)&ps->fn, &ps->cap_fn, ps->n_fn, sizeof(*ps->fn)) == -1 ||
	    htab_add(&ps->fn_h, h, ps->n_fn + 1) == -1) {
		ps->failed = 1;
		return 0;
	}
	ps->fn[ps->n_fn].mapping = mi;
	ps->fn[ps->n_fn].start = start;
	/* The procedure's own file and line, not the location's, which may be
	 * an inlined header's; else the location's (file). */
	if (start <= UINT32_MAX && ps->resolve(ps->arg, ps->profiles[ps->maps[mi].prof],
	    (uint32_t)start, &at) == 0 && at.line > 0) {
		file = str_id(ps, at.file);
		line = at.line;
	}
	ps->n_fn++;
	pb_uint(&ps->fm, F_ID, ps->n_fn);
	pb_uint(&ps->fm, F_NAME, name);
	pb_uint(&ps->fm, F_SYSTEM_NAME, name);
	pb_uint(&ps->fm, F_FILENAME, file);
	pb_uint(&ps->fm, F_START_LINE, line);
	pb_msg(&ps->funcs, P_FUNCTION, &ps->fm);
	return ps->n_fn;
}

/*
 * The location id of a frame: profile prof's offset, a caller's frame
 * (caller) being a return address, whose call is the byte before it.
 * Locations are one per address: a caller's is that byte, which
 * profile.proto allows ("a non-leaf address may be in the middle of a
 * call instruction") and which symbolizes as the call, not the line
 * after it.
 */
static uint64_t
loc_id(struct proto *ps, size_t prof, uint32_t offset, int caller)
{
	struct dcpi_export_loc at;
	struct htab_iter it;
	size_t mi = ps->map_of[prof];
	uint64_t addr, h, name, fid, file, line;
	uintptr_t v;

	if (caller && offset > 0)
		offset--;
	addr = ps->maps[mi].base + offset;
	h = addr;	/* addresses are unique across mappings */
	for (v = htab_first(&ps->loc_h, h, &it); v != 0; v = htab_next(&ps->loc_h, &it))
		if (ps->loc[v - 1].address == addr)
			return v;
	if (lib_grow((void **)&ps->loc, &ps->cap_loc, ps->n_loc, sizeof(*ps->loc)) == -1 ||
	    htab_add(&ps->loc_h, h, ps->n_loc + 1) == -1) {
		ps->failed = 1;
		return 0;
	}
	ps->loc[ps->n_loc].mapping = mi;
	ps->loc[ps->n_loc].address = addr;
	ps->n_loc++;
	ps->maps[mi].n_locs++;
	pb_uint(&ps->m, LOC_ID, ps->n_loc);
	pb_uint(&ps->m, LOC_MAPPING_ID, mi + 1);
	pb_uint(&ps->m, LOC_ADDRESS, addr);
	if (ps->resolve != NULL && ps->resolve(ps->arg, ps->profiles[prof], offset, &at) == 0) {
		/* Strings into the table before the next resolve. */
		name = str_id(ps, at.proc);
		file = at.line > 0 ? str_id(ps, at.file) : 0;
		line = at.line;
		fid = fn_id(ps, mi, at.proc_offset, name, file);
		ps->maps[mi].n_fn++;
		if (line > 0)
			ps->maps[mi].n_line++;
		pb_uint(&ps->sub, LN_FUNCTION_ID, fid);
		pb_uint(&ps->sub, LN_LINE, line);
		pb_msg(&ps->m, LOC_LINE, &ps->sub);
	}
	pb_msg(&ps->locs, P_LOCATION, &ps->m);
	return ps->n_loc;
}

/* The location of a chain's [truncated] frame, named name: a function of
 * that name at no mapping, its address the reason (below every mapping's
 * base, so one location per reason). */
static uint64_t
truncated_loc_id(struct proto *ps, uint32_t reason, const char *name)
{
	struct htab_iter it;
	uint64_t nm;
	uintptr_t v;

	for (v = htab_first(&ps->loc_h, reason, &it); v != 0; v = htab_next(&ps->loc_h, &it))
		if (ps->loc[v - 1].address == reason)
			return v;
	if (lib_grow((void **)&ps->loc, &ps->cap_loc, ps->n_loc, sizeof(*ps->loc)) == -1 ||
	    lib_grow((void **)&ps->fn, &ps->cap_fn, ps->n_fn, sizeof(*ps->fn)) == -1 ||
	    htab_add(&ps->loc_h, reason, ps->n_loc + 1) == -1) {
		ps->failed = 1;
		return 0;
	}
	/* Looked up by address alone, never by mapping or start. */
	ps->loc[ps->n_loc].mapping = SIZE_MAX;
	ps->loc[ps->n_loc++].address = reason;
	ps->fn[ps->n_fn].mapping = SIZE_MAX;
	ps->fn[ps->n_fn++].start = reason;
	nm = str_id(ps, name);
	pb_uint(&ps->fm, F_ID, ps->n_fn);
	pb_uint(&ps->fm, F_NAME, nm);
	pb_uint(&ps->fm, F_SYSTEM_NAME, nm);
	pb_msg(&ps->funcs, P_FUNCTION, &ps->fm);
	pb_uint(&ps->m, LOC_ID, ps->n_loc);
	pb_uint(&ps->m, LOC_ADDRESS, reason);
	pb_uint(&ps->sub, LN_FUNCTION_ID, ps->n_fn);
	pb_msg(&ps->m, LOC_LINE, &ps->sub);
	pb_msg(&ps->locs, P_LOCATION, &ps->m);
	return ps->n_loc;
}

/* The mapping of each profile: one per image (id, tstart and tsize),
 * which the profiles of its labels share.  The image with the most
 * samples first: pprof names the first mapping the profile's "File". */
static int
make_maps(struct proto *ps)
{
	const struct dcpi_profile *p, *q;
	uint64_t base = EX_BASE, *total = NULL;
	size_t i, j, k, *rank = NULL;

	if ((ps->maps = calloc(ps->n, sizeof(*ps->maps))) == NULL ||
	    (ps->map_of = calloc(ps->n, sizeof(*ps->map_of))) == NULL ||
	    (total = calloc(ps->n, sizeof(*total))) == NULL ||
	    (rank = calloc(ps->n, sizeof(*rank))) == NULL) {
		free(total);
		return -1;
	}
	for (i = 0; i < ps->n; i++) {
		p = ps->profiles[i];
		for (k = 0; k < ps->n_maps; k++) {
			q = ps->profiles[ps->maps[k].prof];
			if (q->tstart == p->tstart && q->tsize == p->tsize &&
			    p->image != NULL && q->image != NULL && strcmp(q->image, p->image) == 0)
				break;
		}
		if (k == ps->n_maps)
			ps->maps[ps->n_maps++].prof = i;
		ps->map_of[i] = k;
		for (j = 0; j < p->n_counts; j++)
			total[k] += p->counts[j].count;
	}
	/* rank[k]: mapping k's place, by samples (most first), then first
	 * seen; n_maps is small next to the samples, so quadratic is fine. */
	for (k = 0; k < ps->n_maps; k++)
		for (j = 0; j < ps->n_maps; j++)
			if (total[j] > total[k] || (total[j] == total[k] && j < k))
				rank[k]++;
	for (k = 0; k < ps->n_maps; k++)
		total[rank[k]] = ps->maps[k].prof;	/* reused: first profile by place */
	for (k = 0; k < ps->n_maps; k++) {
		ps->maps[k].prof = total[k];
		ps->maps[k].base = base;
		base = ex_next_base(base, ps->profiles[total[k]]->tsize);
	}
	for (i = 0; i < ps->n; i++)
		ps->map_of[i] = rank[ps->map_of[i]];
	free(total);
	free(rank);
	return 0;
}

static uint64_t
mul_sat(uint64_t a, uint64_t b)
{
	return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* One Sample: its locations (leaf first), [samples, samples * period], and
 * the leaf profile's label. */
static void
sample(struct proto *ps, const uint64_t *ids, size_t n_ids, size_t prof, uint64_t count)
{
	const struct dcpi_profile *p = ps->profiles[prof];
	uint64_t v[2];
	int64_t sv[2];

	/* int64 values: a count past INT64_MAX is held at it. */
	sv[0] = count > INT64_MAX ? INT64_MAX : (int64_t)count;
	sv[1] = mul_sat(count, p->period) > INT64_MAX ? INT64_MAX :
	    (int64_t)mul_sat(count, p->period);
	v[0] = (uint64_t)sv[0];
	v[1] = (uint64_t)sv[1];
	pb_packed(&ps->m, S_LOCATION_ID, ids, n_ids);
	pb_packed(&ps->m, S_VALUE, v, 2);
	if (dcpi_profile_label(p) != NULL) {
		pb_uint(&ps->sub, L_KEY, str_id(ps, "label"));
		pb_uint(&ps->sub, L_STR, str_id(ps, dcpi_profile_label(p)));
		pb_msg(&ps->m, S_LABEL, &ps->sub);
	}
	pb_msg(&ps->samples, P_SAMPLE, &ps->m);
}

static void
value_type(struct proto *ps, struct ebuf *b, unsigned field, const char *type,
    const char *unit)
{
	pb_uint(&ps->sub, VT_TYPE, str_id(ps, type));
	pb_uint(&ps->sub, VT_UNIT, str_id(ps, unit));
	pb_msg(b, field, &ps->sub);
}

/* The profile's fields in field order: the messages made apart join
 * here.  Mappings last of the tables, as their has_* flags wait for the
 * locations. */
static void
assemble(struct proto *ps, const struct dcpi_proto_meta *meta, const uint64_t *toffsets,
    struct ebuf *out)
{
	const struct dcpi_profile *p = ps->profiles[0];
	const char *event = p->event ? p->event : "events";
	uint64_t *cm = NULL;
	size_t i;
	int time = dcpi_event_is_time(p->event);

	value_type(ps, out, P_SAMPLE_TYPE, "samples", "count");
	value_type(ps, out, P_SAMPLE_TYPE, time ? "cpu" : event, time ? "nanoseconds" : "count");
	eb_append(out, ps->samples.p, ps->samples.len);
	for (i = 0; i < ps->n_maps; i++) {
		const struct mapping *m = &ps->maps[i];
		const struct dcpi_profile *q = ps->profiles[m->prof];
		uint64_t off = toffsets != NULL && toffsets[m->prof] != UINT64_MAX ?
		    toffsets[m->prof] : q->tstart;

		pb_uint(&ps->m, M_ID, i + 1);
		pb_uint(&ps->m, M_MEMORY_START, m->base);
		pb_uint(&ps->m, M_MEMORY_LIMIT, ex_map_end(m->base, q->tsize));
		pb_uint(&ps->m, M_FILE_OFFSET, off);
		pb_uint(&ps->m, M_FILENAME, str_id(ps, q->path));
		pb_uint(&ps->m, M_BUILD_ID, str_id(ps, q->image));
		/* "true if the profile has ... for all locations of this
		 * mapping": a reader symbolizes the mappings without. */
		pb_uint(&ps->m, M_HAS_FUNCTIONS, m->n_locs > 0 && m->n_fn == m->n_locs);
		pb_uint(&ps->m, M_HAS_FILENAMES, m->n_locs > 0 && m->n_line == m->n_locs);
		pb_uint(&ps->m, M_HAS_LINE_NUMBERS, m->n_locs > 0 && m->n_line == m->n_locs);
		pb_msg(out, P_MAPPING, &ps->m);
	}
	eb_append(out, ps->locs.p, ps->locs.len);
	eb_append(out, ps->funcs.p, ps->funcs.len);
	if (meta != NULL && meta->n_comments > 0) {
		if ((cm = calloc(meta->n_comments, sizeof(*cm))) == NULL)
			ps->failed = 1;
		for (i = 0; cm != NULL && i < meta->n_comments; i++)
			cm[i] = str_id(ps, meta->comments[i]);
	}
	value_type(ps, &ps->m, P_PERIOD_TYPE, time ? "cpu" : event, time ? "nanoseconds" : "count");
	/* Every string is in the table now: it goes before the fields after it. */
	pb_varint(out, (uint64_t)P_STRING_TABLE << 3 | WT_LEN);
	pb_varint(out, 0);		/* "" first, at index 0 */
	eb_append(out, ps->strs.p, ps->strs.len);
	if (meta != NULL) {
		pb_uint(out, P_TIME_NANOS, (uint64_t)meta->time_nanos);
		pb_uint(out, P_DURATION_NANOS, (uint64_t)meta->duration_nanos);
	}
	eb_append(out, ps->m.p, ps->m.len);	/* period_type */
	ps->m.len = 0;
	pb_uint(out, P_PERIOD, p->period > INT64_MAX ? INT64_MAX : p->period);
	if (cm != NULL)
		pb_packed(out, P_COMMENT, cm, meta->n_comments);
	free(cm);
	if (ps->samples.failed || ps->locs.failed || ps->funcs.failed || ps->strs.failed ||
	    ps->m.failed || ps->sub.failed || ps->fm.failed)
		ps->failed = 1;
}

/* buf[0..len) gzipped (RFC 1952: the format pprof and the servers take)
 * into *out, *out_len; -1/ENOMEM. */
static int
gzip_buf(const void *buf, size_t len, void **out, size_t *out_len, struct dcpi_error *err)
{
	z_stream z;
	unsigned char *o;
	size_t cap;
	int r;

	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return lib_seterr(err, ENOMEM, "pprof-proto: zlib: cannot start deflate");
	cap = deflateBound(&z, len) + 32;
	if ((o = malloc(cap)) == NULL) {
		deflateEnd(&z);
		return lib_seterr(err, ENOMEM, "pprof-proto: out of memory");
	}
	z.next_in = (unsigned char *)(uintptr_t)buf;
	z.next_out = o;
	/* One call at a time takes at most UINT_MAX bytes each way. */
	do {
		size_t in_left = len - (size_t)((const unsigned char *)z.next_in -
		    (const unsigned char *)buf);
		size_t out_left = cap - (size_t)(z.next_out - o);

		z.avail_in = in_left > UINT32_MAX ? UINT32_MAX : (unsigned)in_left;
		z.avail_out = out_left > UINT32_MAX ? UINT32_MAX : (unsigned)out_left;
		r = deflate(&z, z.avail_in == in_left ? Z_FINISH : Z_NO_FLUSH);
	} while (r == Z_OK);
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(o);
		return lib_seterr(err, ENOMEM, "pprof-proto: zlib: deflate failed (%d)", r);
	}
	*out = o;
	*out_len = (size_t)(z.next_out - o);
	return 0;
}

int
dcpi_pprof_proto_encode(const struct dcpi_profile *const *profiles,
    const uint64_t *toffsets, size_t n, const struct dcpi_export_stack *stacks,
    size_t n_stacks, dcpi_export_resolve_fn resolve, void *arg,
    const struct dcpi_proto_meta *meta, void **buf, size_t *len,
    struct dcpi_error *err)
{
	struct proto ps;
	struct ebuf out = { 0 };
	struct ex_leaf *leaves = NULL;
	uint64_t *ids = NULL, c, id;
	size_t i, j, nl = 0, l = 0, max_depth = 1;
	uint32_t depth;
	void *raw;
	size_t raw_len;
	int rc;

	if (n == 0)
		return lib_seterr(err, EINVAL, "pprof-proto: no profiles to export");
	if (ex_stacks_check(stacks, n_stacks, n, "pprof-proto", err) == -1)
		return -1;
	memset(&ps, 0, sizeof(ps));
	ps.profiles = profiles;
	ps.n = n;
	ps.resolve = resolve;
	ps.arg = arg;
	ps.n_str = 1;			/* "" */
	for (i = 0; i < n_stacks; i++)
		if (stacks[i].depth > max_depth)
			max_depth = stacks[i].depth;
	if (make_maps(&ps) == -1 || (ids = calloc(max_depth, sizeof(*ids))) == NULL ||
	    (ps.str = calloc(1, sizeof(*ps.str))) == NULL ||
	    (leaves = ex_stack_leaves(stacks, n_stacks, &nl)) == NULL)
		ps.failed = 1;
	else
		ps.cap_str = 1;
	/* The flat samples that the stacks do not hold, one per PC, so that
	 * the totals are the profiles'. */
	for (i = 0; !ps.failed && i < n; i++)
		for (j = 0; j < profiles[i]->n_counts; j++) {
			if ((c = ex_flat_rest(leaves, nl, &l, i, &profiles[i]->counts[j])) == 0)
				continue;
			id = loc_id(&ps, i, profiles[i]->counts[j].offset, 0);
			sample(&ps, &id, 1, i, c);
		}
	/* The stacks, leaf first, up to a frame of an image not exported,
	 * or to the [truncated] frame that ends them. */
	for (i = 0; !ps.failed && i < n_stacks; i++) {
		const struct dcpi_export_frame *tr;
		uint32_t kept = ex_stack_depth(&stacks[i]);
		char tname[64];

		for (depth = 0; depth < kept; depth++)
			ids[depth] = loc_id(&ps, stacks[i].frames[depth].prof,
			    stacks[i].frames[depth].offset, depth > 0);
		if ((tr = ex_stack_truncated(&stacks[i], tname, sizeof(tname))) != NULL)
			ids[depth++] = truncated_loc_id(&ps, tr->offset, tname);
		if (depth > 0)
			sample(&ps, ids, depth, stacks[i].frames[0].prof, stacks[i].count);
	}
	if (!ps.failed)
		assemble(&ps, meta, toffsets, &out);
	rc = ps.failed ? lib_seterr(err, ENOMEM, "pprof-proto: out of memory") :
	    eb_finish(&out, &raw, &raw_len, err);
	if (rc == 0) {
		rc = gzip_buf(raw, raw_len, buf, len, err);
		free(raw);
	}
	free(out.p);
	free(ps.samples.p);
	free(ps.locs.p);
	free(ps.funcs.p);
	free(ps.strs.p);
	free(ps.m.p);
	free(ps.sub.p);
	free(ps.fm.p);
	for (i = 1; ps.str != NULL && i < ps.n_str; i++)
		free(ps.str[i]);
	free(ps.str);
	htab_fini(&ps.str_h);
	htab_fini(&ps.loc_h);
	htab_fini(&ps.fn_h);
	free(ps.maps);
	free(ps.map_of);
	free(ps.loc);
	free(ps.fn);
	free(ids);
	free(leaves);
	return rc;
}
