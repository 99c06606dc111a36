/*
 * gperftools CPU profiles (specs/gperftools-cpuprofile.txt): binary header,
 * records (count, number of PCs, PCs), trailer, then the text list of
 * mapped objects that pprof uses to find each PC's file.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/label.h>

#include "export_int.h"

int
dcpi_pprof_encode(const struct dcpi_profile *const *profiles,
    const uint64_t *toffsets, size_t n, void **buf, size_t *len,
    struct dcpi_error *err)
{
	return dcpi_pprof_encode_stacks(profiles, toffsets, n, NULL, 0, buf, len, err);
}

int
dcpi_pprof_encode_stacks(const struct dcpi_profile *const *profiles,
    const uint64_t *toffsets, size_t n, const struct dcpi_export_stack *stacks,
    size_t n_stacks, void **buf, size_t *len, struct dcpi_error *err)
{
	struct ebuf b = { 0 };
	uint64_t base, period, off, c, *bases;
	struct ex_leaf *leaves = NULL;
	size_t i, j, nl = 0, l = 0;
	uint32_t k, depth;

	if (n == 0)
		return lib_seterr(err, EINVAL, "pprof: no profiles to export");
	if (ex_stacks_check(stacks, n_stacks, n, "pprof", err) == -1)
		return -1;
	if ((bases = calloc(n, sizeof(*bases))) == NULL ||
	    (n_stacks > 0 && (leaves = ex_stack_leaves(stacks, n_stacks, &nl)) == NULL)) {
		free(bases);
		return lib_seterr(err, ENOMEM, "pprof: out of memory");
	}
	period = profiles[0]->period;
	if (dcpi_event_is_time(profiles[0]->event))
		period = period / 1000 ? period / 1000 : 1;
	/* The header holds microseconds that readers multiply into
	 * nanoseconds; another event's period, which can be anything, is
	 * kept exactly by the dcpi-image lines, so the header's is bounded
	 * to what a reader accepts. */
	if (period == 0)
		period = 1;
	else if (period > UINT64_MAX / 1000)
		period = UINT64_MAX / 1000;
	eb_u64(&b, 0);
	eb_u64(&b, 3);
	eb_u64(&b, 0);
	eb_u64(&b, period);
	eb_u64(&b, 0);
	for (i = 0, base = EX_BASE; i < n; i++) {
		const struct dcpi_profile *p = profiles[i];

		bases[i] = base;
		for (j = 0; j < p->n_counts; j++) {
			c = ex_flat_rest(leaves, nl, &l, i, &p->counts[j]);
			if (c == 0)
				continue;
			eb_u64(&b, c);
			eb_u64(&b, 1);
			eb_u64(&b, base + p->counts[j].offset);
		}
		base = ex_next_base(base, p->tsize);
	}
	/* The chains, up to the first frame of an image not exported (a
	 * [truncated] frame too: the format has addresses only). */
	for (i = 0; i < n_stacks; i++) {
		if ((depth = ex_stack_depth(&stacks[i])) == 0)
			continue;
		eb_u64(&b, stacks[i].count);
		eb_u64(&b, depth);
		for (k = 0; k < depth; k++)
			eb_u64(&b, bases[stacks[i].frames[k].prof] + stacks[i].frames[k].offset);
	}
	free(leaves);
	free(bases);
	eb_u64(&b, 0);
	eb_u64(&b, 1);
	eb_u64(&b, 0);
	for (i = 0, base = EX_BASE; i < n; i++) {
		const struct dcpi_profile *p = profiles[i];
		uint64_t end = ex_map_end(base, p->tsize);
		const char *path = p->path ? p->path : "[unknown]";

		off = toffsets != NULL && toffsets[i] != UINT64_MAX ? toffsets[i] : p->tstart;
		/* ProcMapsIterator::FormatLine's layout, which pprof parses. */
		eb_printf(&b, "%08" PRIx64 "-%08" PRIx64 " r-xp %08" PRIx64 " 00:00 0           %s\n",
		    base, end, off, path);
		eb_printf(&b, "dcpi-image: %" PRIx64 " %s %" PRIx64 " %" PRIu64 " %" PRIu64 " %s\n",
		    base, p->image ? p->image : "0", p->tstart, p->tsize, p->period,
		    p->event ? p->event : "?");
		/* The format has no comments: like dcpi-image, a line that
		 * matches no mapping, which readers skip. */
		if (dcpi_profile_label(p) != NULL)
			eb_printf(&b, "dcpi-label: %" PRIx64 " %s\n", base, dcpi_profile_label(p));
		base = ex_next_base(base, p->tsize);
	}
	return eb_finish(&b, buf, len, err);
}

static int
cmp_sample(const void *a, const void *b)
{
	const struct dcpi_pprof_sample *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int
parse_hex(const char **s, uint64_t *v)
{
	char *end;

	if (!((**s >= '0' && **s <= '9') || (**s >= 'a' && **s <= 'f') ||
	    (**s >= 'A' && **s <= 'F')))
		return -1;
	errno = 0;
	*v = strtoull(*s, &end, 16);
	if (errno != 0)
		return -1;
	*s = end;
	return 0;
}

static void
skip_blanks(const char **s)
{
	while (**s == ' ' || **s == '\t')
		(*s)++;
}

/* "START-END PERMS OFFSET DEV INODE PATH"; 1 if it is one (executable
 * mappings only are kept), 0 if the line is something else. */
static int
mapping_line(const char *l, struct dcpi_pprof_mapping *m, const char *build)
{
	const char *s = l, *p;
	uint64_t start, end, off;
	char perms[5];
	size_t k, n;

	if (parse_hex(&s, &start) || *s++ != '-' || parse_hex(&s, &end))
		return 0;
	skip_blanks(&s);
	for (k = 0; k < 4 && s[k] && s[k] != ' '; k++)
		perms[k] = s[k];
	if (k != 4 || (s[4] != ' ' && s[4] != '\t'))
		return 0;
	perms[4] = '\0';
	s += 4;
	skip_blanks(&s);
	if (parse_hex(&s, &off))
		return 0;
	skip_blanks(&s);
	s += strcspn(s, " \t");		/* device */
	skip_blanks(&s);
	s += strcspn(s, " \t");		/* inode */
	skip_blanks(&s);
	if (perms[2] != 'x' || *s == '\0')
		return 0;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->offset = off;
	/* "$build" followed by a non-word character means the build path. */
	if (build != NULL && strncmp(s, "$build", 6) == 0 &&
	    !(s[6] == '_' || (s[6] >= '0' && s[6] <= '9') ||
	      ((s[6] | 0x20) >= 'a' && (s[6] | 0x20) <= 'z'))) {
		n = strlen(build) + strlen(s + 6) + 1;
		if ((m->path = malloc(n)) != NULL)
			snprintf(m->path, n, "%s%s", build, s + 6);
	} else
		m->path = strdup(s);
	p = m->path;
	return p != NULL ? 1 : -1;
}

void
dcpi_pprof_free(struct dcpi_pprof *pp)
{
	size_t i;

	if (pp == NULL)
		return;
	for (i = 0; i < pp->n_maps; i++) {
		free(pp->maps[i].path);
		free(pp->maps[i].image);
		free(pp->maps[i].event);
	}
	free(pp->maps);
	free(pp->samples);
	free(pp);
}

static int
dcpi_line(struct dcpi_pprof *pp, const char *l, const char *name, size_t at,
    struct dcpi_error *err)
{
	char image[257], event[513];
	uint64_t start, tstart, tsize, period;
	size_t i;

	if (sscanf(l, "dcpi-image: %" SCNx64 " %256s %" SCNx64 " %" SCNu64 " %" SCNu64 " %512s",
	    &start, image, &tstart, &tsize, &period, event) != 6)
		return lib_seterr(err, EINVAL, "%s: byte %zu: malformed dcpi-image line "
		    "(expected START IMAGEID TSTART TSIZE PERIOD EVENT)", name, at);
	for (i = 0; i < pp->n_maps; i++)
		if (pp->maps[i].start == start && !pp->maps[i].has_dcpi)
			break;
	if (i == pp->n_maps)
		return lib_seterr(err, EINVAL, "%s: byte %zu: dcpi-image line for 0x%" PRIx64
		    " follows no mapping that starts there", name, at, start);
	if (pp->maps[i].end - start < tsize)
		return lib_seterr(err, EINVAL, "%s: byte %zu: dcpi-image text size %" PRIu64
		    " exceeds its mapping", name, at, tsize);
	if (period == 0)
		return lib_seterr(err, EINVAL, "%s: byte %zu: dcpi-image period 0 (expected "
		    "events per sample, at least 1)", name, at);
	if (ex_header_bad(event, strlen(event)) < strlen(event) ||
	    ex_header_bad(image, strlen(image)) < strlen(image))
		return lib_seterr(err, EINVAL, "%s: byte %zu: dcpi-image event or image id "
		    "is not printable ASCII", name, at);
	pp->maps[i].has_dcpi = 1;
	pp->maps[i].tstart = tstart;
	pp->maps[i].tsize = tsize;
	pp->maps[i].period = period;
	if ((pp->maps[i].image = strdup(image)) == NULL ||
	    (pp->maps[i].event = strdup(event)) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	return 0;
}

int
dcpi_pprof_parse(const void *vbuf, size_t len, const char *name,
    struct dcpi_pprof **out, struct dcpi_error *err)
{
	const unsigned char *b = vbuf;
	struct dcpi_pprof *pp;
	size_t slot, nslots, i, at, cap = 0, mcap = 0, k;
	uint64_t hdr, count, npcs, pc;
	char *text = NULL, *line, *next, *build = NULL;
	int trailer = 0, r;

#define SLOT(i) (slot == 8 ? ex_le64(b + (i) * 8) : (uint64_t)ex_le32(b + (i) * 4))
	*out = NULL;
	if (len >= 24 && ex_le64(b) == 0 && ex_le64(b + 16) == 0 && ex_le64(b + 8) >= 3)
		slot = 8;
	else if (len >= 12 && ex_le32(b) == 0 && ex_le32(b + 8) == 0 && ex_le32(b + 4) >= 3)
		slot = 4;
	else
		return lib_seterr(err, EINVAL, "%s: byte 0: not a gperftools CPU profile "
		    "(header slots must be 0, >= 3, 0)", name);
	nslots = len / slot;
	hdr = SLOT(1);
	if (hdr > nslots - 2 || hdr < 3)
		return lib_seterr(err, EINVAL, "%s: byte %zu: header of %" PRIu64
		    " slots runs past the end of the file", name, slot, hdr);
	if ((pp = calloc(1, sizeof(*pp))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	pp->slot = slot;
	pp->period_us = SLOT(3);
	/* Imports multiply it into nanoseconds; 0 would be no period at all. */
	if (pp->period_us == 0 || pp->period_us > UINT64_MAX / 1000) {
		lib_seterr(err, EINVAL, "%s: byte %zu: sampling period %" PRIu64 " us is out of "
		    "range (expected 1 to %" PRIu64 ")", name, 3 * slot, pp->period_us,
		    UINT64_MAX / 1000);
		goto fail;
	}
	for (i = 2 + hdr; i < nslots; ) {
		at = i * slot;
		if (nslots - i < 2) {
			lib_seterr(err, EINVAL, "%s: byte %zu: truncated record (expected count and number of PCs)", name, at);
			goto fail;
		}
		count = SLOT(i);
		npcs = SLOT(i + 1);
		if (npcs < 1 || npcs > nslots - i - 2) {
			lib_seterr(err, EINVAL, "%s: byte %zu: record with %" PRIu64 " PCs "
			    "(must be >= 1 and fit in the file)", name, at, npcs);
			goto fail;
		}
		pc = SLOT(i + 2);
		i += 2 + npcs;
		if (count == 0) {
			if (npcs != 1 || pc != 0) {
				lib_seterr(err, EINVAL, "%s: byte %zu: record with count 0 "
				    "(only the trailer 0, 1, 0 may have it)", name, at);
				goto fail;
			}
			trailer = 1;
			break;
		}
		if (pc == 0) {
			lib_seterr(err, EINVAL, "%s: byte %zu: call chain starts at PC 0", name, at);
			goto fail;
		}
		if (pp->n_samples == cap) {
			struct dcpi_pprof_sample *ns;

			cap = cap ? cap * 2 : 256;
			if ((ns = reallocarray(pp->samples, cap, sizeof(*ns))) == NULL) {
				lib_seterr(err, ENOMEM, "%s: out of memory", name);
				goto fail;
			}
			pp->samples = ns;
		}
		pp->samples[pp->n_samples].pc = pc;
		pp->samples[pp->n_samples++].count = count;
		pp->n_records++;
		if (pp->total > UINT64_MAX - count) {
			lib_seterr(err, EINVAL, "%s: byte %zu: sample total overflows 64 bits", name, at);
			goto fail;
		}
		pp->total += count;
	}
	if (!trailer) {
		lib_seterr(err, EINVAL, "%s: byte %zu: no binary trailer (0, 1, 0) before the end of the file",
		    name, nslots * slot);
		goto fail;
	}
	at = i * slot;		/* the text list of mapped objects */
	if (pp->n_samples > 0) {
		qsort(pp->samples, pp->n_samples, sizeof(*pp->samples), cmp_sample);
		for (i = 1, k = 0; i < pp->n_samples; i++) {
			if (pp->samples[i].pc == pp->samples[k].pc)
				pp->samples[k].count += pp->samples[i].count;
			else
				pp->samples[++k] = pp->samples[i];
		}
		pp->n_samples = k + 1;
	}
	if ((text = malloc(len - at + 1)) == NULL) {
		lib_seterr(err, ENOMEM, "%s: out of memory", name);
		goto fail;
	}
	memcpy(text, b + at, len - at);
	text[len - at] = '\0';
	if (strlen(text) != len - at) {
		lib_seterr(err, EINVAL, "%s: byte %zu: NUL byte in the list of mapped objects",
		    name, at + strlen(text));
		goto fail;
	}
	/* Paths and events from here become header lines, directory names
	 * and terminal output. */
	for (k = 0; text[k] != '\0'; k++) {
		unsigned char c = (unsigned char)text[k];

		if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f) {
			lib_seterr(err, EINVAL, "%s: byte %zu: control byte 0x%02x in the list of "
			    "mapped objects (expected text)", name, at + k, c);
			goto fail;
		}
	}
	for (line = text; line != NULL && *line; line = next) {
		size_t lat = at + (size_t)(line - text);
		struct dcpi_pprof_mapping m;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, "dcpi-image:", 11) == 0) {
			if (dcpi_line(pp, line, name, lat, err) == -1)
				goto fail;
			continue;
		}
		while (*line == ' ' || *line == '\t')
			line++;
		if (strncmp(line, "build=", 6) == 0) {
			free(build);
			if ((build = strdup(line + 6)) == NULL) {
				lib_seterr(err, ENOMEM, "%s: out of memory", name);
				goto fail;
			}
			continue;
		}
		if ((r = mapping_line(line, &m, build)) == 0)
			continue;	/* unrecognized lines are ignored */
		if (r < 0) {
			lib_seterr(err, ENOMEM, "%s: out of memory", name);
			goto fail;
		}
		if (pp->n_maps == mcap) {
			struct dcpi_pprof_mapping *nm;

			mcap = mcap ? mcap * 2 : 16;
			if ((nm = reallocarray(pp->maps, mcap, sizeof(*nm))) == NULL) {
				free(m.path);
				lib_seterr(err, ENOMEM, "%s: out of memory", name);
				goto fail;
			}
			pp->maps = nm;
		}
		pp->maps[pp->n_maps++] = m;
	}
	free(text);
	free(build);
	*out = pp;
	return 0;
fail:
	r = errno;
	free(text);
	free(build);
	dcpi_pprof_free(pp);
	errno = r;
	return -1;
#undef SLOT
}

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int
add_sample(struct dcpi_profile *p, uint64_t off, uint64_t count, uint64_t *dropped,
    const char *name, struct dcpi_error *err)
{
	if (off >= p->tsize || off > UINT32_MAX) {
		*dropped += count;
		return 0;
	}
	if (dcpi_profile_add(p, (uint32_t)off, count) == -1)
		return lib_seterr(err, errno, "%s: cannot add samples at offset 0x%" PRIx64 ": %s",
		    name, off, strerror(errno));
	return 0;
}

int
dcpi_pprof_to_profile(const struct dcpi_pprof *pp, const char *name,
    const struct dcpi_image_info *info, struct dcpi_profile **out,
    uint64_t *dropped, struct dcpi_error *err)
{
	struct dcpi_profile *p;
	char *want = NULL;
	size_t i, j, matched = 0;
	int pass, *use;

	*out = NULL;
	*dropped = 0;
	if ((use = calloc(pp->n_maps + 1, sizeof(*use))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	/* The same path (or the same file by realpath), else the same basename. */
	want = realpath(info->path, NULL);
	for (pass = 0; pass < 2 && matched == 0; pass++)
		for (i = 0; i < pp->n_maps; i++) {
			const char *mp = pp->maps[i].path;
			char *rp;

			if (pass == 0) {
				rp = realpath(mp, NULL);
				use[i] = strcmp(mp, info->path) == 0 ||
				    (rp && want && strcmp(rp, want) == 0);
				free(rp);
			} else
				use[i] = strcmp(base_name(mp), base_name(info->path)) == 0;
			matched += use[i];
		}
	free(want);
	if (matched == 0) {
		free(use);
		return lib_seterr(err, EINVAL, "%s: no mapping of %s in the list of mapped objects",
		    name, info->path);
	}
	if ((p = ex_profile_like(info->image, info->path, "perf::cpu-clock",
	    pp->period_us * 1000, info->tstart, info->tsize)) == NULL) {
		free(use);
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	}
	for (j = 0; j < pp->n_samples; j++) {
		const struct dcpi_pprof_sample *s = &pp->samples[j];

		for (i = 0; i < pp->n_maps; i++)
			if (use[i] && s->pc >= pp->maps[i].start && s->pc < pp->maps[i].end)
				break;
		if (i == pp->n_maps) {
			*dropped += s->count;
			continue;
		}
		/* File offset, then the vaddr through the text segment. */
		uint64_t foff = s->pc - pp->maps[i].start + pp->maps[i].offset;
		if (foff < info->toffset) {
			*dropped += s->count;
			continue;
		}
		if (add_sample(p, foff - info->toffset, s->count, dropped, name, err) == -1) {
			free(use);
			dcpi_profile_free(p);
			return -1;
		}
	}
	free(use);
	*out = p;
	return 0;
}

int
dcpi_pprof_to_profiles(const struct dcpi_pprof *pp, const char *name,
    struct dcpi_profile ***out, size_t *n, struct dcpi_error *err)
{
	struct dcpi_profile **v;
	uint64_t dropped = 0;
	size_t i, j, k = 0;

	*out = NULL;
	*n = 0;
	if ((v = calloc(pp->n_maps + 1, sizeof(*v))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	for (i = 0; i < pp->n_maps; i++) {
		const struct dcpi_pprof_mapping *m = &pp->maps[i];

		if (!m->has_dcpi)
			continue;
		if ((v[k] = ex_profile_like(m->image, m->path, m->event, m->period,
		    m->tstart, m->tsize)) == NULL) {
			lib_seterr(err, ENOMEM, "%s: out of memory", name);
			goto fail;
		}
		for (j = 0; j < pp->n_samples; j++)
			if (pp->samples[j].pc >= m->start && pp->samples[j].pc < m->end &&
			    add_sample(v[k], pp->samples[j].pc - m->start,
			    pp->samples[j].count, &dropped, name, err) == -1)
				goto fail;
		k++;
	}
	if (k == 0) {
		lib_seterr(err, EINVAL, "%s: no dcpi-image lines: not written by dcpictl export "
		    "(import it with --image BINARY)", name);
		goto fail;
	}
	*out = v;
	*n = k;
	return 0;
fail:
	for (i = 0; i <= k && i < pp->n_maps; i++)
		dcpi_profile_free(v[i]);
	free(v);
	return -1;
}
