/*
 * Sun profile-feedback text (specs/xprof_text.txt): a header, an OBJFILE
 * section per object with its PROC sections and counter records, then the
 * PROGRAM sections with their OBJREFs.  The grammar is a sequence of
 * blank-separated tokens; we write one record per line.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcpi/db.h>

#include "export_int.h"
#include "util.h"

#define XPROF_MAJOR	4
#define XPROF_MINOR	3

struct xp_proc {
	char		*name;
	uint64_t	 start;
	size_t		 first, n;	/* counts[first .. first + n) of the profile */
	uint64_t	 sum, max;
};

int
dcpi_xprof_encode(const struct dcpi_profile *const *profiles, size_t n,
    dcpi_export_resolve_fn resolve, void *arg, void **buf, size_t *len,
    struct dcpi_error *err)
{
	struct ebuf b = { 0 };
	struct xp_proc *procs = NULL;
	size_t i, j, k, np = 0;
	uint64_t osum, omax;
	time_t t;
	char *path;

	if (n == 0)
		return lib_seterr(err, EINVAL, "xprof: no profiles to export");
	eb_printf(&b, "PROFILE-FEEDBACK-DATA: %d.%d %zu %zu 0\n", XPROF_MAJOR, XPROF_MINOR, n, n);
	for (i = 0; i < n; i++) {
		const struct dcpi_profile *p = profiles[i];

		free(procs);
		if ((procs = calloc(p->n_counts + 1, sizeof(*procs))) == NULL) {
			free(b.p);
			return lib_seterr(err, ENOMEM, "xprof: out of memory");
		}
		np = 0;
		osum = omax = 0;
		for (j = 0; j < p->n_counts; j++) {
			struct dcpi_export_loc loc;
			char unk[40];
			uint32_t off = p->counts[j].offset, c = p->counts[j].count;

			if (resolve == NULL || resolve(arg, p, off, &loc) == -1 || loc.proc_offset > off) {
				/* No procedure: the address is its own. */
				snprintf(unk, sizeof(unk), "unknown_0x%" PRIx32, off);
				loc.proc = unk;
				loc.proc_offset = off;
			}
			if (np == 0 || procs[np - 1].start != loc.proc_offset ||
			    strcmp(procs[np - 1].name, loc.proc) != 0) {
				if ((procs[np].name = ex_token(loc.proc)) == NULL)
					b.failed = 1;
				procs[np].start = loc.proc_offset;
				procs[np++].first = j;
			}
			procs[np - 1].n++;
			procs[np - 1].sum += c;
			if (c > procs[np - 1].max)
				procs[np - 1].max = c;
			osum += c;
			if (c > omax)
				omax = c;
		}
		if ((path = ex_token(p->path ? p->path : p->image)) == NULL)
			b.failed = 1;
		if (p->epoch == NULL || dcpi_epoch_parse(p->epoch, &t) == -1)
			t = 0;
		eb_printf(&b, "OBJFILE: %s %zu %lld 0 0\n0x%016" PRIx64 "\nsum %" PRIu64 "\nmax %" PRIu64 "\n",
		    path ? path : "?", np, (long long)t, fnv1a64_str(FNV1A64_INIT, p->image ? p->image : ""), osum, omax);
		free(path);
		for (k = 0; k < np; k++) {
			eb_printf(&b, "PROC: %s 0x%016" PRIx64 " %zu 0 0 %zu\nsum %" PRIu64 "\nmax %" PRIu64 "\n",
			    procs[k].name ? procs[k].name : "?",
			    fnv1a64_str(FNV1A64_INIT, procs[k].name ? procs[k].name : ""), procs[k].n, k,
			    procs[k].sum, procs[k].max);
			for (j = procs[k].first; j < procs[k].first + procs[k].n; j++)
				eb_printf(&b, "%" PRIu64 " %" PRIu32 "\n",
				    p->counts[j].offset - procs[k].start, p->counts[j].count);
			free(procs[k].name);
		}
	}
	for (i = 0; i < n; i++) {
		const struct dcpi_profile *p = profiles[i];

		for (j = 0, osum = 0; j < p->n_counts; j++)
			osum += p->counts[j].count;
		if ((path = ex_token(p->path ? p->path : p->image)) == NULL)
			b.failed = 1;
		eb_printf(&b, "PROGRAM: %s 1\nsum %" PRIu64 "\nOBJREF: %s\n", path ? path : "?",
		    osum, path ? path : "?");
		free(path);
	}
	free(procs);
	return eb_finish(&b, buf, len, err);
}

/* ---- the reader ---- */

struct xp_lex {
	const char		*b, *name;
	size_t			 len, at, line;
	struct dcpi_error	*err;
	char			 tok[4096];
	size_t			 tokline;
};

/* Next token into lx->tok; 0, or 1 at the end of the file. */
static int
xp_next(struct xp_lex *lx)
{
	size_t n = 0;

	while (lx->at < lx->len && (lx->b[lx->at] == ' ' || lx->b[lx->at] == '\t' ||
	    lx->b[lx->at] == '\n' || lx->b[lx->at] == '\r')) {
		if (lx->b[lx->at] == '\n')
			lx->line++;
		lx->at++;
	}
	lx->tokline = lx->line;
	if (lx->at == lx->len)
		return 1;
	while (lx->at < lx->len && lx->b[lx->at] != ' ' && lx->b[lx->at] != '\t' &&
	    lx->b[lx->at] != '\n' && lx->b[lx->at] != '\r') {
		if (n + 1 < sizeof(lx->tok))
			lx->tok[n++] = lx->b[lx->at] ? lx->b[lx->at] : '?';
		lx->at++;
	}
	lx->tok[n] = '\0';
	return 0;
}

/* Peeks whether the next token is word, without consuming it. */
static int
xp_peek(struct xp_lex *lx, const char *word)
{
	struct xp_lex save = *lx;
	int r;

	r = xp_next(lx) == 0 && strcmp(lx->tok, word) == 0;
	lx->at = save.at;
	lx->line = save.line;
	return r;
}

static int
xp_word(struct xp_lex *lx, const char *word)
{
	if (xp_next(lx) != 0)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: file ends where %s was expected",
		    lx->name, lx->line, word);
	if (strcmp(lx->tok, word) != 0)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: \"%.64s\" where %s was expected",
		    lx->name, lx->tokline, lx->tok, word);
	return 0;
}

/* A number: decimal, or hexadecimal with 0x when hex is set. */
static int
xp_num(struct xp_lex *lx, const char *what, int hex, uint64_t max, uint64_t *v)
{
	const char *s;
	char *end;

	if (xp_next(lx) != 0)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: file ends where %s was expected",
		    lx->name, lx->line, what);
	s = lx->tok;
	if (hex && (s[0] != '0' || (s[1] != 'x' && s[1] != 'X')))
		goto bad;
	if (hex)
		s += 2;
	if (!((*s >= '0' && *s <= '9') || (hex && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))))
		goto bad;
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	if (errno != 0 || *end != '\0' || *v > max)
		goto bad;
	return 0;
bad:
	return lib_seterr(lx->err, EINVAL, "%s: line %zu: \"%.64s\" is not a valid %s (%s)",
	    lx->name, lx->tokline, lx->tok, what, hex ? "0x followed by hex digits" :
	    max == UINT32_MAX ? "unsigned 32-bit decimal" : "unsigned 64-bit decimal");
}

static int
xp_str(struct xp_lex *lx, const char *what, char **out)
{
	if (xp_next(lx) != 0)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: file ends where %s was expected",
		    lx->name, lx->line, what);
	if ((*out = strdup(lx->tok)) == NULL)
		return lib_seterr(lx->err, ENOMEM, "%s: out of memory", lx->name);
	return 0;
}

/* [<stats>]: any of "sum N", "max N". */
static int
xp_stats(struct xp_lex *lx, int *has_sum, uint64_t *sum, int *has_max, uint64_t *max)
{
	for (;;) {
		if (xp_peek(lx, "sum")) {
			xp_next(lx);
			if (xp_num(lx, "sum count", 0, UINT64_MAX, sum) == -1)
				return -1;
			*has_sum = 1;
		} else if (xp_peek(lx, "max")) {
			xp_next(lx);
			if (xp_num(lx, "max count", 0, UINT64_MAX, max) == -1)
				return -1;
			*has_max = 1;
		} else
			return 0;
	}
}

void
dcpi_xprof_free(struct dcpi_xprof *x)
{
	size_t i, j;

	if (x == NULL)
		return;
	for (i = 0; i < x->n_objs; i++) {
		for (j = 0; j < x->objs[i].n_procs; j++) {
			free(x->objs[i].procs[j].name);
			free(x->objs[i].procs[j].counters);
		}
		free(x->objs[i].procs);
		free(x->objs[i].path);
	}
	free(x->objs);
	for (i = 0; i < x->n_progs; i++) {
		for (j = 0; j < x->progs[i].n_objrefs; j++)
			free(x->progs[i].objrefs[j]);
		free(x->progs[i].objrefs);
		free(x->progs[i].path);
	}
	free(x->progs);
	free(x);
}

static int
xp_check(struct xp_lex *lx, size_t line, const char *what, int has_sum, uint64_t sum,
    uint64_t real_sum, int has_max, uint64_t max, uint64_t real_max)
{
	if (has_sum && sum != real_sum)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: %s sum %" PRIu64 " but its counters "
		    "add up to %" PRIu64, lx->name, line, what, sum, real_sum);
	if (has_max && max != real_max)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: %s max %" PRIu64 " but its largest "
		    "counter is %" PRIu64, lx->name, line, what, max, real_max);
	return 0;
}

/* Room for the n WHAT a header at line counts, each at least per bytes of
 * the file, and one more, zeroed: a count from the file never allocates
 * more than the file could hold.  NULL with EINVAL or ENOMEM in err. */
static void *
xp_array(struct xp_lex *lx, size_t line, uint64_t n, size_t per, size_t size,
    const char *what)
{
	void *v;

	if (n > lx->len / per) {
		lib_seterr(lx->err, EINVAL, "%s: line %zu: %" PRIu64 " %s cannot fit in the file",
		    lx->name, line, n, what);
		return NULL;
	}
	if ((v = calloc(n + 1, size)) == NULL)
		lib_seterr(lx->err, ENOMEM, "%s: out of memory", lx->name);
	return v;
}

/* Adds v to the counter sum *sum of line and m to its maximum *max. */
static int
xp_add(struct xp_lex *lx, size_t line, uint64_t *sum, uint64_t v, uint64_t *max, uint64_t m)
{
	if (*sum + v < *sum)
		return lib_seterr(lx->err, EINVAL, "%s: line %zu: counter sum overflows 64 bits",
		    lx->name, line);
	*sum += v;
	if (m > *max)
		*max = m;
	return 0;
}

/* Skips a value profile record's sub-records: TYPE EXPR COUNT [VALUE]. */
static int
xp_vp(struct xp_lex *lx, uint64_t nvalues)
{
	static const char *types[] = { "VP_INT", "VP_LLONG", "VP_FLOAT", "VP_DOUBLE", "VP_PROC" };
	uint64_t v, i, count;
	size_t k;

	for (i = 0; i < nvalues; i++) {
		if (xp_next(lx) != 0)
			return lib_seterr(lx->err, EINVAL, "%s: line %zu: file ends in a value profile record",
			    lx->name, lx->line);
		for (k = 0; k < 5 && strcmp(lx->tok, types[k]) != 0; k++)
			;
		if (k == 5)
			return lib_seterr(lx->err, EINVAL, "%s: line %zu: \"%.64s\" is not a value profile "
			    "type (VP_INT, VP_LLONG, VP_FLOAT, VP_DOUBLE, VP_PROC)", lx->name,
			    lx->tokline, lx->tok);
		if (xp_num(lx, "expression id", 0, UINT32_MAX, &v) == -1 ||
		    xp_num(lx, "value count", 0, UINT64_MAX, &count) == -1)
			return -1;
		if (count > 0 && xp_next(lx) != 0)
			return lib_seterr(lx->err, EINVAL, "%s: line %zu: file ends where a value was expected",
			    lx->name, lx->line);
	}
	return 0;
}

int
dcpi_xprof_parse(const void *buf, size_t len, const char *name,
    struct dcpi_xprof **out, struct dcpi_error *err)
{
	struct xp_lex lx = { .b = buf, .len = len, .name = name, .line = 1, .err = err };
	struct dcpi_xprof *x;
	uint64_t nobj, nprog, nnames, v, nvpv, nvp, i, j, k;
	unsigned major, minor;
	char extra;
	int e;

	*out = NULL;
	if ((x = calloc(1, sizeof(*x))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	if (xp_word(&lx, "PROFILE-FEEDBACK-DATA:") == -1)
		goto fail;
	if (xp_next(&lx) != 0 || sscanf(lx.tok, "%u.%u%c", &major, &minor, &extra) != 2) {
		lib_seterr(err, EINVAL, "%s: line %zu: version \"%.64s\" (expected MAJOR.MINOR)",
		    name, lx.tokline, lx.tok);
		goto fail;
	}
	x->major = major;
	x->minor = minor;
	if (xp_num(&lx, "object file count", 0, UINT32_MAX, &nobj) == -1 ||
	    xp_num(&lx, "program count", 0, UINT32_MAX, &nprog) == -1 ||
	    xp_num(&lx, "procedure name count", 0, UINT32_MAX, &nnames) == -1)
		goto fail;
	/* Counts come from the file: never allocate more than it could hold. */
	if (nobj > len / 8 || nprog > len / 8) {
		lib_seterr(err, EINVAL, "%s: line 1: %" PRIu64 " object files and %" PRIu64
		    " programs cannot fit in %zu bytes", name, nobj, nprog, len);
		goto fail;
	}
	if ((x->objs = calloc(nobj + 1, sizeof(*x->objs))) == NULL ||
	    (x->progs = calloc(nprog + 1, sizeof(*x->progs))) == NULL) {
		lib_seterr(err, ENOMEM, "%s: out of memory", name);
		goto fail;
	}
	for (i = 0; i < nobj; i++) {
		struct dcpi_xprof_obj *o = &x->objs[x->n_objs++];
		uint64_t osum = 0, omax = 0, nprocs;
		size_t oline;

		if (xp_word(&lx, "OBJFILE:") == -1)
			goto fail;
		oline = lx.tokline;
		if (xp_str(&lx, "object file path", &o->path) == -1 ||
		    xp_num(&lx, "procedure count", 0, UINT32_MAX, &nprocs) == -1 ||
		    xp_num(&lx, "tv_sec", 0, UINT64_MAX, &v) == -1 ||
		    xp_num(&lx, "tv_usec", 0, UINT64_MAX, &v) == -1 ||
		    xp_num(&lx, "values per value profile record", 0, UINT32_MAX, &nvpv) == -1 ||
		    xp_num(&lx, "object file signature", 1, UINT64_MAX, &o->signature) == -1 ||
		    xp_stats(&lx, &o->has_sum, &o->sum, &o->has_max, &o->max) == -1)
			goto fail;
		if ((o->procs = xp_array(&lx, oline, nprocs, 8, sizeof(*o->procs),
		    "procedures")) == NULL)
			goto fail;
		for (j = 0; j < nprocs; j++) {
			struct dcpi_xprof_proc *p = &o->procs[o->n_procs++];
			uint64_t psum = 0, pmax = 0, nctr, nsites;
			size_t pline;

			if (xp_word(&lx, "PROC:") == -1)
				goto fail;
			pline = lx.tokline;
			if (xp_str(&lx, "procedure name", &p->name) == -1 ||
			    xp_num(&lx, "procedure signature", 1, UINT64_MAX, &p->signature) == -1 ||
			    xp_num(&lx, "counter count", 0, UINT32_MAX, &nctr) == -1 ||
			    xp_num(&lx, "value profile site count", 0, UINT32_MAX, &nsites) == -1 ||
			    xp_num(&lx, "value profile record count", 0, UINT32_MAX, &nvp) == -1 ||
			    xp_num(&lx, "procedure id", 0, UINT32_MAX, &v) == -1 ||
			    xp_stats(&lx, &p->has_sum, &p->sum, &p->has_max, &p->max) == -1)
				goto fail;
			if ((p->counters = xp_array(&lx, pline, nctr, 4, sizeof(*p->counters),
			    "counters")) == NULL)
				goto fail;
			for (k = 0; k < nctr; k++) {
				struct dcpi_xprof_counter *c = &p->counters[p->n_counters++];

				if (xp_num(&lx, "counter id", 0, UINT32_MAX, &v) == -1 ||
				    xp_num(&lx, "counter value", 0, UINT64_MAX, &c->value) == -1)
					goto fail;
				c->id = (uint32_t)v;
				if (xp_add(&lx, lx.tokline, &psum, c->value, &pmax, c->value) == -1)
					goto fail;
			}
			/* A record of zero values has no text: skipping nvp of
			 * them (up to 2^32) would read nothing and only spin. */
			for (k = 0; nvpv > 0 && k < nvp; k++)
				if (xp_vp(&lx, nvpv) == -1)
					goto fail;
			if (xp_check(&lx, pline, "procedure", p->has_sum, p->sum, psum,
			    p->has_max, p->max, pmax) == -1)
				goto fail;
			if (xp_add(&lx, pline, &osum, psum, &omax, pmax) == -1)
				goto fail;
		}
		if (xp_check(&lx, oline, "object file", o->has_sum, o->sum, osum,
		    o->has_max, o->max, omax) == -1)
			goto fail;
	}
	for (i = 0; i < nprog; i++) {
		struct dcpi_xprof_program *pg = &x->progs[x->n_progs++];
		uint64_t nrefs, s = 0, m = 0;
		int has_s = 0, has_m = 0;

		if (xp_word(&lx, "PROGRAM:") == -1 ||
		    xp_str(&lx, "program path", &pg->path) == -1 ||
		    xp_num(&lx, "object file reference count", 0, UINT32_MAX, &nrefs) == -1 ||
		    xp_stats(&lx, &has_s, &s, &has_m, &m) == -1)
			goto fail;
		if ((pg->objrefs = xp_array(&lx, lx.tokline, nrefs, 8, sizeof(*pg->objrefs),
		    "OBJREFs")) == NULL)
			goto fail;
		for (j = 0; j < nrefs; j++) {
			if (xp_word(&lx, "OBJREF:") == -1 ||
			    xp_str(&lx, "object file name", &pg->objrefs[pg->n_objrefs++]) == -1)
				goto fail;
			for (k = 0; k < x->n_objs; k++)
				if (strcmp(x->objs[k].path, pg->objrefs[j]) == 0)
					break;
			if (k == x->n_objs) {
				lib_seterr(err, EINVAL, "%s: line %zu: OBJREF %.256s names no OBJFILE "
				    "defined before", name, lx.tokline, pg->objrefs[j]);
				goto fail;
			}
		}
	}
	if (xp_next(&lx) == 0) {
		lib_seterr(err, EINVAL, "%s: line %zu: \"%.64s\" after the last of %" PRIu64
		    " PROGRAM sections (expected the end of the file)", name, lx.tokline, lx.tok, nprog);
		goto fail;
	}
	*out = x;
	return 0;
fail:
	e = errno;
	dcpi_xprof_free(x);
	errno = e;
	return -1;
}
