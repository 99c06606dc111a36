/*
 * Shared by the exporters: output buffers, messages, format detection,
 * event classes and the ELF facts (image id, text range) importers need.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/dataset.h>
#include <dcpi/image.h>
#include <dcpi/label.h>
#include <dcpi/stackfile.h>

#include "export_int.h"
#include "util.h"

void
eb_append(struct ebuf *b, const void *data, size_t n)
{
	size_t cap;
	char *p;

	/* n 0 may come with data NULL (an empty buffer), which memcpy
	 * must not be given. */
	if (b->failed || n == 0)
		return;
	if (n > b->cap - b->len) {
		cap = b->cap ? b->cap : 4096;
		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->failed = 1;
				return;
			}
			cap *= 2;
		}
		if ((p = realloc(b->p, cap)) == NULL) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void
eb_printf(struct ebuf *b, const char *fmt, ...)
{
	char small[512], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		eb_append(b, small, n);
		return;
	}
	if ((big = malloc((size_t)n + 1)) == NULL) {
		b->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	eb_append(b, big, n);
	free(big);
}

void
eb_u32(struct ebuf *b, uint32_t v)
{
	unsigned char c[4];
	int i;

	for (i = 0; i < 4; i++)
		c[i] = v >> (8 * i);
	eb_append(b, c, 4);
}

void
eb_u64(struct ebuf *b, uint64_t v)
{
	eb_u32(b, (uint32_t)v);
	eb_u32(b, (uint32_t)(v >> 32));
}

int
eb_finish(struct ebuf *b, void **buf, size_t *len, struct dcpi_error *err)
{
	if (b->failed) {
		free(b->p);
		memset(b, 0, sizeof(*b));
		return lib_seterr(err, ENOMEM, "out of memory while encoding");
	}
	if (b->p == NULL && (b->p = malloc(1)) == NULL)
		return lib_seterr(err, ENOMEM, "out of memory while encoding");
	*buf = b->p;
	*len = b->len;
	memset(b, 0, sizeof(*b));
	return 0;
}

uint32_t
ex_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

uint64_t
ex_le64(const unsigned char *p)
{
	return (uint64_t)ex_le32(p) | (uint64_t)ex_le32(p + 4) << 32;
}

size_t
ex_header_bad(const char *s, size_t n)
{
	size_t i;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || (i == 0 && c == ' '))
			return i;
	}
	return n;
}

char *
ex_token(const char *s)
{
	char *t, *q;

	if (s == NULL || *s == '\0')
		s = "?";
	if ((t = strdup(s)) == NULL)
		return NULL;
	/* A token ends at a blank; what prof escapes (text_len) would reach
	 * a terminal through the xprof file's readers. */
	for (q = t; *q; ) {
		size_t n = *q == ' ' ? 0 : text_len((const unsigned char *)q);

		if (n == 0)
			*q++ = '_';
		else
			q += n;
	}
	return t;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
ex_labelled(const struct dcpi_profile *const *profiles, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (dcpi_profile_label(profiles[i]) != NULL)
			return 1;
	return 0;
}

void
ex_labels(struct ebuf *b, const struct dcpi_profile *const *profiles, size_t n)
{
	const char **v;
	size_t i, k, m;

	if ((v = calloc(n + 1, sizeof(*v))) == NULL) {
		b->failed = 1;
		return;
	}
	for (i = 0; i < n; i++)
		v[i] = dcpi_profile_label(profiles[i]) ? dcpi_profile_label(profiles[i]) :
		    DCPI_LABEL_NONE;
	qsort(v, n, sizeof(*v), str_cmp);
	for (i = m = 0; i < n; i++)
		if (m == 0 || strcmp(v[m - 1], v[i]) != 0)
			v[m++] = v[i];
	if (m == 1)
		eb_printf(b, "%s", v[0]);
	else {
		eb_printf(b, "several (");
		for (k = 0; k < m; k++)
			eb_printf(b, "%s%s", k ? ", " : "", v[k]);
		eb_printf(b, ")");
	}
	free(v);
}

struct dcpi_profile *
ex_profile_like(const char *image, const char *path, const char *event,
    uint64_t period, uint64_t tstart, uint64_t tsize)
{
	struct dcpi_profile *p;

	if ((p = dcpi_profile_new()) == NULL)
		return NULL;
	p->image = strdup(image);
	p->event = strdup(event);
	p->path = strdup(path);
	if (p->image == NULL || p->event == NULL || p->path == NULL) {
		dcpi_profile_free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->has |= DCPI_HAS_PATH;
	p->period = period;
	p->tstart = tstart;
	p->tsize = tsize;
	return p;
}

enum dcpi_format
dcpi_format_detect(const void *vbuf, size_t len)
{
	const unsigned char *b = vbuf;
	static const char *cg_keys[] = { "version: ", "creator:", "events:",
	    "positions:", "cmd:", "pid:", "desc:", "event:", "part:", "# callgrind" };
	size_t i, k;

	if (len >= 8 && memcmp(b, "version", 7) == 0 && (b[7] == ' ' || b[7] == '\t') &&
	    len >= 12 && memmem(b, len < 64 ? len : 64, "pdb-", 4) != NULL)
		return DCPI_FMT_DCPI;
	if (len >= 4 && memcmp(b, "gmon", 4) == 0)
		return DCPI_FMT_GMON;
	if (len >= 22 && memcmp(b, "PROFILE-FEEDBACK-DATA:", 22) == 0)
		return DCPI_FMT_XPROF;
	/* gperftools: slots 0, 3 (or more), 0 in 8- or 4-byte slots. */
	if (len >= 40 && ex_le64(b) == 0 && ex_le64(b + 8) >= 3 &&
	    ex_le64(b + 8) < 1024 && ex_le64(b + 16) == 0)
		return DCPI_FMT_PPROF;
	if (len >= 20 && ex_le32(b) == 0 && ex_le32(b + 4) >= 3 &&
	    ex_le32(b + 4) < 1024 && ex_le32(b + 8) == 0)
		return DCPI_FMT_PPROF;
	/* Callgrind: the first line that is not a comment or blank is a
	 * known header key. */
	for (i = 0; i < len; ) {
		size_t e = i;
		while (e < len && b[e] != '\n')
			e++;
		if (e > i && b[i] != '#') {
			for (k = 0; k < sizeof(cg_keys) / sizeof(cg_keys[0]); k++)
				if (e - i >= strlen(cg_keys[k]) &&
				    memcmp(b + i, cg_keys[k], strlen(cg_keys[k])) == 0)
					return DCPI_FMT_CALLGRIND;
			break;
		}
		if (e - i >= 11 && memcmp(b + i, "# callgrind", 11) == 0)
			return DCPI_FMT_CALLGRIND;
		i = e + 1;
	}
	return DCPI_FMT_UNKNOWN;
}

const char *
dcpi_format_name(enum dcpi_format f)
{
	switch (f) {
	case DCPI_FMT_DCPI: return "dcpi";
	case DCPI_FMT_PPROF: return "pprof";
	case DCPI_FMT_GMON: return "gmon";
	case DCPI_FMT_CALLGRIND: return "callgrind";
	case DCPI_FMT_XPROF: return "xprof";
	default: return "unknown";
	}
}

int
dcpi_event_is_time(const char *event)
{
	static const char *names[] = { "cpu-clock", "task-clock",
	    "PERF_COUNT_SW_CPU_CLOCK", "PERF_COUNT_SW_TASK_CLOCK" };
	size_t i, n;

	if (event == NULL)
		return 0;
	if (strncmp(event, "perf::", 6) == 0)
		event += 6;
	n = strcspn(event, ":");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (n == strlen(names[i]) && strncasecmp(event, names[i], n) == 0)
			return 1;
	return 0;
}

int
dcpi_image_info_read(const char *path, struct dcpi_image_info *info,
    struct dcpi_error *err)
{
	struct dcpi_elf_image ei;

	memset(info, 0, sizeof(*info));
	if (dcpi_elf_image_path(path, 0, &ei, err) == -1)
		return -1;
	info->tstart = ei.tstart;
	info->tsize = ei.tsize;
	info->toffset = ei.toffset;
	info->image = strdup(ei.id);
	info->path = strdup(path);
	dcpi_elf_image_clear(&ei);
	if (info->image == NULL || info->path == NULL) {
		dcpi_image_info_clear(info);
		return lib_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	return 0;
}

void
dcpi_image_info_clear(struct dcpi_image_info *info)
{
	free(info->path);
	free(info->image);
	memset(info, 0, sizeof(*info));
}

int
ex_stacks_check(const struct dcpi_export_stack *stacks, size_t n_stacks, size_t n,
    const char *fmt, struct dcpi_error *err)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < n_stacks; i++) {
		if (stacks[i].depth == 0 || stacks[i].frames == NULL)
			return lib_seterr(err, EINVAL, "%s: stack %zu: no frames", fmt, i);
		if (stacks[i].frames[0].prof == DCPI_EXPORT_TRUNCATED)
			return lib_seterr(err, EINVAL, "%s: stack %zu: a [truncated] leaf", fmt, i);
		for (k = 0; k < stacks[i].depth; k++)
			if (stacks[i].frames[k].prof >= n &&
			    stacks[i].frames[k].prof != DCPI_EXPORT_NOPROF &&
			    stacks[i].frames[k].prof != DCPI_EXPORT_TRUNCATED)
				return lib_seterr(err, EINVAL, "%s: stack %zu: frame %" PRIu32
				    ": profile %zu of %zu", fmt, i, k, stacks[i].frames[k].prof, n);
	}
	return 0;
}

uint32_t
ex_stack_depth(const struct dcpi_export_stack *st)
{
	uint32_t k;

	for (k = 0; k < st->depth && st->frames[k].prof != DCPI_EXPORT_NOPROF &&
	    st->frames[k].prof != DCPI_EXPORT_TRUNCATED; k++)
		;
	return k;
}

const char *
ex_truncated_name(uint32_t reason, char *buf, size_t len)
{
	snprintf(buf, len, "[truncated: %s]", dcpi_stack_truncated_reason(reason));
	return buf;
}

const struct dcpi_export_frame *
ex_stack_truncated(const struct dcpi_export_stack *st, char *buf, size_t len)
{
	uint32_t k = ex_stack_depth(st);

	if (k == st->depth || st->frames[k].prof != DCPI_EXPORT_TRUNCATED)
		return NULL;
	ex_truncated_name(st->frames[k].offset, buf, len);
	return &st->frames[k];
}

static int
same_frame(const struct dcpi_export_frame *a, const struct dcpi_export_frame *b)
{
	return a->prof == b->prof && a->offset == b->offset;
}

size_t
ex_stack_calls(const struct dcpi_export_stack *st, uint32_t *ks)
{
	const struct dcpi_export_frame *f = st->frames;
	size_t n = 0, j;
	uint32_t k, depth = ex_stack_depth(st);

	for (k = 0; k + 1 < depth; k++) {
		for (j = 0; j < n; j++)
			if (same_frame(&f[ks[j]], &f[k]) && same_frame(&f[ks[j] + 1], &f[k + 1]))
				break;
		if (j == n)
			ks[n++] = k;
	}
	return n;
}

static int
cmp_leaf(const void *a, const void *b)
{
	const struct ex_leaf *x = a, *y = b;

	if (x->prof != y->prof)
		return x->prof < y->prof ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

struct ex_leaf *
ex_stack_leaves(const struct dcpi_export_stack *stacks, size_t n_stacks, size_t *nl)
{
	struct ex_leaf *v;
	size_t i, m = 0;

	*nl = 0;
	if ((v = calloc(n_stacks + 1, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < n_stacks; i++)
		if (stacks[i].frames[0].prof != DCPI_EXPORT_NOPROF) {
			v[m].prof = stacks[i].frames[0].prof;
			v[m].offset = stacks[i].frames[0].offset;
			v[m++].count = stacks[i].count;
		}
	if (m > 1)
		qsort(v, m, sizeof(*v), cmp_leaf);
	for (i = 0; i < m; i++) {
		if (*nl > 0 && cmp_leaf(&v[*nl - 1], &v[i]) == 0)
			v[*nl - 1].count = v[*nl - 1].count + v[i].count < v[i].count ?
			    UINT64_MAX : v[*nl - 1].count + v[i].count;
		else
			v[(*nl)++] = v[i];
	}
	return v;
}

uint64_t
ex_flat_rest(const struct ex_leaf *leaves, size_t nl, size_t *l, size_t prof,
    const struct dcpi_count *c)
{
	/* Leaves and counts are both sorted by offset. */
	while (*l < nl && (leaves[*l].prof < prof || (leaves[*l].prof == prof &&
	    leaves[*l].offset < c->offset)))
		(*l)++;
	if (*l < nl && leaves[*l].prof == prof && leaves[*l].offset == c->offset)
		return c->count > leaves[*l].count ? c->count - leaves[*l].count : 0;
	return c->count;
}

#define EX_PAGE		0x1000ULL

uint64_t
ex_map_end(uint64_t base, uint64_t tsize)
{
	return base + ((tsize ? tsize : 1) + EX_PAGE - 1) / EX_PAGE * EX_PAGE;
}

uint64_t
ex_next_base(uint64_t base, uint64_t tsize)
{
	return ex_map_end(base, tsize) + EX_PAGE;
}
