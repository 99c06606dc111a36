/*
 * Callgrind format 1 (specs/callgrind-format.txt): a header of "key: value"
 * lines, then position specifications (ob=, fl=, fn= ...) and cost lines,
 * with name compression "(ID) name" and subposition compression.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/stackfile.h>

#include "export_int.h"
#include "htab.h"
#include "util.h"

/* ---- the writer ---- */

struct cg_cell {
	uint32_t	 offset;
	size_t		 event;
	uint64_t	 count;
};

static int
cmp_cell(const void *a, const void *b)
{
	const struct cg_cell *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

/* Interned strings with a hash index, and compression ids -> strings.
 * Compression ids are looked up per line: a linear search made files of
 * many compressed names quadratic. */
struct strtab {
	char		**v;
	size_t		  n, cap;
	struct htab	  byname;	/* index in v + 1 */
	struct htab	  ids;		/* hash: the id itself; index in v + 1 */
};

static void
strtab_free(struct strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	htab_fini(&t->byname);
	htab_fini(&t->ids);
}

/* Index of s, added if new; -1 on ENOMEM. */
static long
strtab_intern(struct strtab *t, const char *s)
{
	struct htab_iter it;
	uint64_t h = fnv1a64_str(FNV1A64_INIT, s);
	uintptr_t i;
	char **nv;

	for (i = htab_first(&t->byname, h, &it); i != 0;
	    i = htab_next(&t->byname, &it))
		if (strcmp(t->v[i - 1], s) == 0)
			return (long)(i - 1);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		if ((nv = reallocarray(t->v, t->cap, sizeof(*nv))) == NULL)
			return -1;
		t->v = nv;
	}
	if ((t->v[t->n] = strdup(s)) == NULL)
		return -1;
	if (htab_add(&t->byname, h, t->n + 1) == -1) {
		free(t->v[t->n]);
		return -1;
	}
	return (long)t->n++;
}

/* A name or path, which the grammar ends at its line's end
 * (NoNewLineChar): what prof escapes (a symbol or file name may hold a
 * newline, a JIT's name a CSI; text_len) written \xHH, as prof prints it:
 * callgrind_annotate puts the names on a terminal. */
static void
cg_text(struct ebuf *b, const char *s)
{
	size_t n = strlen(s);
	char *e = malloc(4 * n + 1);

	if (e == NULL) {
		b->failed = 1;
		return;
	}
	eb_append(b, e, (size_t)(text_escape(e, s, n, 0) - e));
	free(e);
}

/* Name compression: "(ID) name" the first time, "(ID)" after.  Returns the
 * interned copy of name (NULL and b->failed on ENOMEM).  Hashed: an image
 * whose symbols cannot be read gives a name per address. */
static const char *
cg_name(struct ebuf *b, struct strtab *t, const char *key, const char *name)
{
	size_t before = t->n;
	long i;

	if ((i = strtab_intern(t, name)) == -1) {
		b->failed = 1;
		return NULL;
	}
	if (t->n == before) {
		eb_printf(b, "%s=(%ld)\n", key, i + 1);
		return t->v[i];
	}
	eb_printf(b, "%s=(%ld) ", key, i + 1);
	cg_text(b, name);
	eb_append(b, "\n", 1);
	return t->v[i];
}

/* Event names in the grammar's Name form: letters and digits. */
static char *
short_event(const char *ev, size_t idx)
{
	char *s, *q;
	const char *p;

	if ((s = malloc(strlen(ev) + 24)) == NULL)
		return NULL;
	q = s;
	if (strncmp(ev, "perf::", 6) == 0)
		ev += 6;
	for (p = ev; *p; p++)
		if (isalnum((unsigned char)*p))
			*q++ = *p;
	*q = '\0';
	if (!isalpha((unsigned char)s[0]))
		snprintf(s, strlen(ev) + 24, "ev%zu", idx + 1);
	return s;
}

static void
cost_line(struct ebuf *b, uint64_t addr, uint64_t *last_addr, unsigned line,
    unsigned *last_line, int first, const uint64_t *cost, size_t nev)
{
	size_t k, last;

	if (first)
		eb_printf(b, "0x%" PRIx64, addr);
	else if (addr >= *last_addr)
		eb_printf(b, "+%" PRIu64, addr - *last_addr);
	else
		eb_printf(b, "-%" PRIu64, *last_addr - addr);
	if (first)
		eb_printf(b, " %u", line);
	else if (line == *last_line)
		eb_printf(b, " *");
	else if (line > *last_line)
		eb_printf(b, " +%u", line - *last_line);
	else
		eb_printf(b, " -%u", *last_line - line);
	/* Trailing zero costs may be left out. */
	for (last = nev; last > 0 && cost[last - 1] == 0; last--)
		;
	for (k = 0; k < last; k++)
		eb_printf(b, " %" PRIu64, cost[k]);
	eb_printf(b, "\n");
	*last_addr = addr;
	*last_line = line;
}

/* A call of the stacks: the caller frame (profile, offset) calls the callee
 * frame, count samples of event column ev under it. */
struct cg_call {
	size_t		 from, to, ev;
	uint32_t	 from_off, to_off;
	uint64_t	 count;
};

static int
cmp_call(const void *a, const void *b)
{
	const struct cg_call *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->from_off != y->from_off)
		return x->from_off < y->from_off ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->to_off != y->to_off)
		return x->to_off < y->to_off ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Where a frame is: procedure, file and line, copied (resolve's strings
 * last until its next call, and a call needs two frames). */
struct cg_where {
	char		*fn, *fl;
	unsigned	 line;
};

static int
cg_where(dcpi_export_resolve_fn resolve, void *arg, const struct dcpi_profile *p,
    uint32_t off, struct cg_where *w)
{
	struct dcpi_export_loc loc;
	char hex[32];

	/* As the cost lines name them, so that calls meet the same fn=. */
	if (resolve == NULL || resolve(arg, p, off, &loc) == -1) {
		snprintf(hex, sizeof(hex), "0x%" PRIx32, off);
		loc.proc = hex;
		loc.file = NULL;
		loc.line = 0;
	}
	w->fn = strdup(loc.proc);
	w->fl = strdup(loc.file ? loc.file : "???");
	w->line = loc.line;
	return w->fn != NULL && w->fl != NULL ? 0 : -1;
}

/* Where a chain's [truncated] frame is: a procedure named by the
 * reason, at no file or line. */
static int
truncated_where(uint32_t reason, struct cg_where *w)
{
	char name[64];

	w->fn = strdup(ex_truncated_name(reason, name, sizeof(name)));
	w->fl = strdup("???");
	w->line = 0;
	return w->fn != NULL && w->fl != NULL ? 0 : -1;
}

/*
 * The calls of the stacks (see dcpi_callgrind_encode_stacks): each call,
 * summed, as its caller's position ob=/fl=/fn=, the callee's
 * cob=/cfi=/cfn=, calls= and the inclusive cost at the call site.
 * Positions are absolute: the cost lines before may have left any
 * subposition.  fl= is the caller's file, so that callgrind_annotate
 * adds the inclusive cost to the function that its cost lines named.
 */
static int
cg_calls(struct ebuf *b, struct strtab *obs, struct strtab *files, struct strtab *fns,
    const struct dcpi_profile *const *profiles, const char **events, size_t nev,
    const struct dcpi_export_stack *stacks, size_t n_stacks,
    dcpi_export_resolve_fn resolve, void *arg, uint64_t *cost)
{
	struct cg_call *v = NULL, *nv;
	struct cg_where from = { 0 }, to = { 0 };
	const struct dcpi_export_frame *tr;
	char tname[64];
	uint32_t *ks = NULL;
	size_t i, j, k, m, nk, n = 0, cap = 0;
	uint64_t c, last_addr = 0;
	unsigned last_line = 0;
	int rc = -1;

	for (i = 0; i < n_stacks; i++) {
		const struct dcpi_export_frame *f = stacks[i].frames;

		if (f[0].prof == DCPI_EXPORT_NOPROF)
			continue;
		free(ks);
		if ((ks = calloc(stacks[i].depth, sizeof(*ks))) == NULL)
			goto out;
		nk = ex_stack_calls(&stacks[i], ks);
		for (k = 0; strcmp(events[k], profiles[f[0].prof]->event) != 0; k++)
			;
		/* A chain cut short: its [truncated] frame calls the last
		 * frame kept, after the calls between the frames kept. */
		tr = ex_stack_truncated(&stacks[i], tname, sizeof(tname));
		for (j = 0; j < nk + (tr != NULL); j++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				if ((nv = reallocarray(v, cap, sizeof(*v))) == NULL)
					goto out;
				v = nv;
			}
			if (j < nk) {
				v[n].from = f[ks[j] + 1].prof;
				v[n].from_off = f[ks[j] + 1].offset;
				v[n].to = f[ks[j]].prof;
				v[n].to_off = f[ks[j]].offset;
			} else {
				v[n].from = DCPI_EXPORT_TRUNCATED;
				v[n].from_off = tr->offset;
				v[n].to = tr[-1].prof;
				v[n].to_off = tr[-1].offset;
			}
			v[n].ev = k;
			v[n++].count = stacks[i].count;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_call);
	for (i = 0; i < n; i = j) {
		const struct dcpi_profile *fp, *tp = profiles[v[i].to];
		int cut = v[i].from == DCPI_EXPORT_TRUNCATED;

		memset(cost, 0, nev * sizeof(*cost));
		for (j = i; j < n && cmp_call(&v[i], &v[j]) == 0; j++)
			cost[v[i].ev] = cost[v[i].ev] + v[j].count < cost[v[i].ev] ?
			    UINT64_MAX : cost[v[i].ev] + v[j].count;
		/* Same caller and callee frames, other events: one line. */
		for (m = j; m < n && v[m].from == v[i].from && v[m].from_off == v[i].from_off &&
		    v[m].to == v[i].to && v[m].to_off == v[i].to_off; m++)
			cost[v[m].ev] = cost[v[m].ev] + v[m].count < cost[v[m].ev] ?
			    UINT64_MAX : cost[v[m].ev] + v[m].count;
		j = m;
		for (c = 0, k = 0; k < nev; k++)
			c = c + cost[k] < c ? UINT64_MAX : c + cost[k];
		free(from.fn);
		free(from.fl);
		free(to.fn);
		free(to.fl);
		memset(&from, 0, sizeof(from));
		memset(&to, 0, sizeof(to));
		fp = cut ? NULL : profiles[v[i].from];
		if ((cut ? truncated_where(v[i].from_off, &from) :
		    cg_where(resolve, arg, fp, v[i].from_off, &from)) == -1 ||
		    cg_where(resolve, arg, tp, v[i].to_off, &to) == -1)
			goto out;
		cg_name(b, obs, "ob", fp == NULL ? DCPI_STACK_TRUNCATED_PATH :
		    fp->path ? fp->path : "???");
		cg_name(b, files, "fl", from.fl);
		cg_name(b, fns, "fn", from.fn);
		cg_name(b, obs, "cob", tp->path ? tp->path : "???");
		cg_name(b, files, "cfi", to.fl);
		cg_name(b, fns, "cfn", to.fn);
		eb_printf(b, "calls=%" PRIu64 " 0x%" PRIx64 " %u\n", c, tp->tstart + v[i].to_off,
		    to.line);
		cost_line(b, (fp ? fp->tstart : 0) + v[i].from_off, &last_addr, from.line,
		    &last_line, 1, cost, nev);
	}
	if (n > 0)
		eb_printf(b, "\n");
	rc = 0;
out:
	if (rc == -1)
		b->failed = 1;
	free(from.fn);
	free(from.fl);
	free(to.fn);
	free(to.fl);
	free(ks);
	free(v);
	return rc;
}

int
dcpi_callgrind_encode(const struct dcpi_profile *const *profiles, size_t n,
    dcpi_export_resolve_fn resolve, void *arg, void **buf, size_t *len,
    struct dcpi_error *err)
{
	return dcpi_callgrind_encode_stacks(profiles, n, NULL, 0, resolve, arg, buf, len, err);
}

int
dcpi_callgrind_encode_stacks(const struct dcpi_profile *const *profiles,
    size_t n, const struct dcpi_export_stack *stacks, size_t n_stacks,
    dcpi_export_resolve_fn resolve, void *arg, void **buf, size_t *len,
    struct dcpi_error *err)
{
	struct ebuf b = { 0 };
	struct strtab obs = { 0 }, files = { 0 }, fns = { 0 };
	const char **events = NULL;
	char **shorts = NULL;
	size_t nev = 0, i, j, k, m, ncells;
	uint64_t *totals = NULL, *cost = NULL;
	struct cg_cell *cells = NULL;
	int *done = NULL, rc = -1;

	if (n == 0)
		return lib_seterr(err, EINVAL, "callgrind: no profiles to export");
	if (ex_stacks_check(stacks, n_stacks, n, "callgrind", err) == -1)
		return -1;
	if ((events = calloc(n, sizeof(*events))) == NULL ||
	    (shorts = calloc(n, sizeof(*shorts))) == NULL ||
	    (done = calloc(n, sizeof(*done))) == NULL) {
		lib_seterr(err, ENOMEM, "callgrind: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < nev; k++)
			if (strcmp(events[k], profiles[i]->event) == 0)
				break;
		if (k == nev)
			events[nev++] = profiles[i]->event;
	}
	if ((totals = calloc(nev, sizeof(*totals))) == NULL ||
	    (cost = calloc(nev, sizeof(*cost))) == NULL) {
		lib_seterr(err, ENOMEM, "callgrind: out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < nev; k++)
			if (strcmp(events[k], profiles[i]->event) == 0)
				for (j = 0; j < profiles[i]->n_counts; j++)
					totals[k] += profiles[i]->counts[j].count;
	eb_printf(&b, "# callgrind format\nversion: 1\ncreator: dcpi %s\n", PACKAGE_VERSION);
	eb_printf(&b, "cmd: dcpi epoch %s\n", profiles[0]->epoch ? profiles[0]->epoch : "?");
	/* Whose samples these are (dcpictl --label); unlabelled profiles
	 * alone write no line, as before labels. */
	if (ex_labelled(profiles, n)) {
		eb_printf(&b, "desc: Label: ");
		ex_labels(&b, profiles, n);
		eb_printf(&b, "\n");
	}
	eb_printf(&b, "positions: instr line\n");
	for (k = 0; k < nev; k++) {
		if ((shorts[k] = short_event(events[k], k)) == NULL) {
			lib_seterr(err, ENOMEM, "callgrind: out of memory");
			goto out;
		}
		for (j = 0; j < k; j++)
			if (strcmp(shorts[j], shorts[k]) == 0)
				snprintf(shorts[k] + strlen(shorts[k]), 24, "%zu", k + 1);
		eb_printf(&b, "event: %s : %s\n", shorts[k], events[k]);
	}
	eb_printf(&b, "events:");
	for (k = 0; k < nev; k++)
		eb_printf(&b, " %s", shorts[k]);
	eb_printf(&b, "\nsummary:");
	for (k = 0; k < nev; k++)
		eb_printf(&b, " %" PRIu64, totals[k]);
	eb_printf(&b, "\n\n");

	/* One ob= per image: the profiles of its events as one cell list. */
	for (i = 0; i < n; i++) {
		const struct dcpi_profile *p = profiles[i];
		const char *curfn = NULL, *curfile = NULL, *lastfl = NULL;
		char *fnbuf = NULL;
		uint64_t last_addr = 0;
		unsigned last_line = 0;
		int first = 1;

		if (done[i])
			continue;
		for (m = i, ncells = 0; m < n; m++)
			if (!done[m] && strcmp(profiles[m]->image, p->image) == 0 &&
			    profiles[m]->tstart == p->tstart)
				ncells += profiles[m]->n_counts;
		free(cells);
		if ((cells = calloc(ncells + 1, sizeof(*cells))) == NULL) {
			lib_seterr(err, ENOMEM, "callgrind: out of memory");
			goto out;
		}
		for (m = i, ncells = 0; m < n; m++) {
			if (done[m] || strcmp(profiles[m]->image, p->image) != 0 ||
			    profiles[m]->tstart != p->tstart)
				continue;
			done[m] = 1;
			for (k = 0; strcmp(events[k], profiles[m]->event) != 0; k++)
				;
			for (j = 0; j < profiles[m]->n_counts; j++) {
				cells[ncells].offset = profiles[m]->counts[j].offset;
				cells[ncells].event = k;
				cells[ncells++].count = profiles[m]->counts[j].count;
			}
		}
		qsort(cells, ncells, sizeof(*cells), cmp_cell);
		cg_name(&b, &obs, "ob", p->path ? p->path : "???");
		for (j = 0; j < ncells; ) {
			struct dcpi_export_loc loc;
			uint32_t off = cells[j].offset;
			char hex[32];

			memset(cost, 0, nev * sizeof(*cost));
			for (; j < ncells && cells[j].offset == off; j++)
				cost[cells[j].event] += cells[j].count;
			if (resolve == NULL || resolve(arg, p, off, &loc) == -1) {
				snprintf(hex, sizeof(hex), "0x%" PRIx32, off);
				loc.proc = hex;
				loc.file = NULL;
				loc.line = 0;
			}
			if (loc.file == NULL)
				loc.file = "???";
			if (curfn == NULL || strcmp(curfn, loc.proc) != 0) {
				free(fnbuf);
				if ((fnbuf = strdup(loc.proc)) == NULL)
					b.failed = 1;
				curfn = fnbuf ? fnbuf : "";
				/* fl= holds across procedures of one file, unless an
				 * fi= (inlined code) changed the current file. */
				if (lastfl == NULL || curfile != lastfl || strcmp(lastfl, loc.file) != 0) {
					lastfl = curfile = cg_name(&b, &files, "fl", loc.file);
				}
				cg_name(&b, &fns, "fn", curfn);
				first = 1;
			} else if (curfile == NULL || strcmp(curfile, loc.file) != 0) {
				/* Inlined code from another file within the procedure. */
				curfile = cg_name(&b, &files, "fi", loc.file);
			}
			cost_line(&b, p->tstart + off, &last_addr, loc.line, &last_line,
			    first, cost, nev);
			first = 0;
		}
		free(fnbuf);
		eb_printf(&b, "\n");
	}
	if (cg_calls(&b, &obs, &files, &fns, profiles, events, nev, stacks, n_stacks,
	    resolve, arg, cost) == -1) {
		lib_seterr(err, ENOMEM, "callgrind: out of memory");
		goto out;
	}
	eb_printf(&b, "totals:");
	for (k = 0; k < nev; k++)
		eb_printf(&b, " %" PRIu64, totals[k]);
	eb_printf(&b, "\n");
	rc = eb_finish(&b, buf, len, err);
out:
	if (rc == -1)
		free(b.p);
	strtab_free(&obs);
	strtab_free(&files);
	strtab_free(&fns);
	if (shorts != NULL)
		for (k = 0; k < nev; k++)
			free(shorts[k]);
	free(shorts);
	free(events);
	free(done);
	free(totals);
	free(cost);
	free(cells);
	return rc;
}

/* ---- the reader ---- */

struct cg_parser {
	const char		*name;
	struct dcpi_error	*err;
	size_t			 lineno;
	struct dcpi_callgrind	*cg;
	struct strtab		 obs, files, fns;
	long			 ob, fl, fn;		/* current, -1 if none */
	/* (ob, fl, fn) -> index into cg->fns, open addressing */
	struct { long ob, fl, fn; size_t idx; int used; } *fmap;
	size_t			 nfmap, capfns;
	uint64_t		 pos[3];		/* last subpositions */
	int			 npos;
};

/* "(ID) name", "(ID)" or "name" after "key=" -> an interned index. */
static long
position_name(struct cg_parser *ps, struct strtab *t, const char *v)
{
	struct htab_iter it;
	uint64_t id;
	uintptr_t cur;
	char *end;
	long idx;

	while (*v == ' ' || *v == '\t')
		v++;
	if (v[0] == '(' && isdigit((unsigned char)v[1])) {
		errno = 0;
		id = strtoull(v + 1, &end, 10);
		if (errno != 0 || *end != ')')
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: malformed compressed name "
			    "(expected \"(NUMBER)\")", ps->name, ps->lineno);
		v = end + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		cur = htab_first(&t->ids, id, &it);
		if (*v == '\0') {
			if (cur == 0)
				return lib_seterr(ps->err, EINVAL, "%s: line %zu: compressed name (%" PRIu64
				    ") used before it is defined", ps->name, ps->lineno, id);
			return (long)(cur - 1);
		}
		if ((idx = strtab_intern(t, v)) == -1)
			return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
		if (cur != 0)
			htab_replace(&t->ids, &it, (uintptr_t)idx + 1);
		else if (htab_add(&t->ids, id, (uintptr_t)idx + 1) == -1)
			return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
		return idx;
	}
	if ((idx = strtab_intern(t, v)) == -1)
		return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
	return idx;
}

static int
fmap_grow(struct cg_parser *ps)
{
	size_t ns = ps->nfmap ? ps->nfmap * 2 : 256, i, h;
	void *old = ps->fmap;
	size_t on = ps->nfmap;

	if ((ps->fmap = calloc(ns, sizeof(*ps->fmap))) == NULL) {
		ps->fmap = old;
		return -1;
	}
	ps->nfmap = ns;
	for (i = 0; i < on; i++) {
		typeof(ps->fmap) e = (typeof(ps->fmap))old + i;

		if (!e->used)
			continue;
		for (h = (size_t)(e->ob * 31 + e->fl * 131 + e->fn * 7919) & (ns - 1);
		    ps->fmap[h].used; h = (h + 1) & (ns - 1))
			;
		ps->fmap[h] = *e;
	}
	free(old);
	return 0;
}

/* The function record for the current (ob, fl, fn). */
static struct dcpi_callgrind_fn *
current_fn(struct cg_parser *ps)
{
	struct dcpi_callgrind *cg = ps->cg;
	struct dcpi_callgrind_fn *f;
	size_t h;

	if (ps->fn == -1 && (ps->fn = strtab_intern(&ps->fns, "???")) == -1)
		return NULL;
	if (cg->n_fns * 2 >= ps->nfmap && fmap_grow(ps) == -1)
		return NULL;
	for (h = (size_t)(ps->ob * 31 + ps->fl * 131 + ps->fn * 7919) & (ps->nfmap - 1);
	    ps->fmap[h].used; h = (h + 1) & (ps->nfmap - 1))
		if (ps->fmap[h].ob == ps->ob && ps->fmap[h].fl == ps->fl && ps->fmap[h].fn == ps->fn)
			return &cg->fns[ps->fmap[h].idx];
	if (cg->n_fns == ps->capfns) {
		ps->capfns = ps->capfns ? ps->capfns * 2 : 64;
		if ((f = reallocarray(cg->fns, ps->capfns, sizeof(*f))) == NULL)
			return NULL;
		cg->fns = f;
	}
	f = &cg->fns[cg->n_fns];
	memset(f, 0, sizeof(*f));
	if ((f->cost = calloc(cg->n_events, sizeof(*f->cost))) == NULL ||
	    (f->ob = strdup(ps->ob >= 0 ? ps->obs.v[ps->ob] : "???")) == NULL ||
	    (f->fl = strdup(ps->fl >= 0 ? ps->files.v[ps->fl] : "???")) == NULL ||
	    (f->fn = strdup(ps->fns.v[ps->fn])) == NULL) {
		free(f->cost);
		free(f->ob);
		free(f->fl);
		return NULL;
	}
	ps->fmap[h].used = 1;
	ps->fmap[h].ob = ps->ob;
	ps->fmap[h].fl = ps->fl;
	ps->fmap[h].fn = ps->fn;
	ps->fmap[h].idx = cg->n_fns++;
	return f;
}

static int
parse_number(const char **s, uint64_t *v)
{
	char *end;
	int base = 10;

	if ((*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)(*s)[2]))
			return -1;
	} else if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	*v = strtoull(*s, &end, base);
	if (errno != 0)
		return errno == ERANGE ? -2 : -1;
	*s = end;
	return 0;
}

/* Subpositions of a cost or call line; *s is left at the costs. */
static int
subpositions(struct cg_parser *ps, const char **s)
{
	uint64_t v;
	int k, r;

	for (k = 0; k < ps->npos; k++) {
		while (**s == ' ' || **s == '\t')
			(*s)++;
		if (**s == '*') {
			(*s)++;
		} else if (**s == '+' || **s == '-') {
			char sign = *(*s)++;

			if ((r = parse_number(s, &v)) == -2)
				goto range;
			if (r == -1)
				goto bad;
			/* A relative position must stay an address. */
			if (sign == '+' ? v > UINT64_MAX - ps->pos[k] : v > ps->pos[k])
				goto range;
			ps->pos[k] = sign == '+' ? ps->pos[k] + v : ps->pos[k] - v;
		} else if ((r = parse_number(s, &v)) == 0)
			ps->pos[k] = v;
		else if (r == -2)
			goto range;
		else
			goto bad;
		if (**s != ' ' && **s != '\t' && **s != '\0')
			goto bad;
	}
	return 0;
range:
	return lib_seterr(ps->err, ERANGE, "%s: line %zu: subposition %d is out of range "
	    "(outside 0 to 2^64-1)", ps->name, ps->lineno, k + 1);
bad:
	return lib_seterr(ps->err, EINVAL, "%s: line %zu: subposition %d: expected a number, "
	    "+N, -N or *", ps->name, ps->lineno, k + 1);
}

/* Up to n_events numbers into cost[]; -1 on junk or too many. */
static int
costs(struct cg_parser *ps, const char *s, uint64_t *cost)
{
	size_t k = 0;
	uint64_t v;
	int r;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return 0;
		if (k == ps->cg->n_events)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: more costs than the %zu "
			    "events of the events: line", ps->name, ps->lineno, ps->cg->n_events);
		if ((r = parse_number(&s, &v)) == -2)
			return lib_seterr(ps->err, ERANGE, "%s: line %zu: cost %zu is out of range "
			    "(above 2^64-1)", ps->name, ps->lineno, k + 1);
		if (r == -1 || (*s != ' ' && *s != '\t' && *s != '\0'))
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: cost %zu is not a number",
			    ps->name, ps->lineno, k + 1);
		cost[k++] = v;
	}
}

static int
header_line(struct cg_parser *ps, const char *key, size_t klen, const char *v,
    uint64_t **totals_seen)
{
	struct dcpi_callgrind *cg = ps->cg;
	char *copy, *tok, *save;

	while (*v == ' ' || *v == '\t')
		v++;
	if (klen == 6 && strncmp(key, "events", 6) == 0) {
		if (cg->events != NULL)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: second events: line "
			    "(one part per file is supported)", ps->name, ps->lineno);
		if ((copy = strdup(v)) == NULL)
			return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			char **ne = reallocarray(cg->events, cg->n_events + 1, sizeof(*ne));

			if (ne == NULL || (ne[cg->n_events] = strdup(tok)) == NULL) {
				if (ne != NULL)
					cg->events = ne;
				free(copy);
				return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
			}
			cg->events = ne;
			cg->n_events++;
		}
		free(copy);
		if (cg->n_events == 0)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: events: names no event",
			    ps->name, ps->lineno);
		if ((cg->totals = calloc(cg->n_events, sizeof(*cg->totals))) == NULL)
			return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
		return 0;
	}
	if (klen == 9 && strncmp(key, "positions", 9) == 0) {
		if (cg->events != NULL || cg->n_cost_lines > 0)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: positions: after events: "
			    "or cost lines", ps->name, ps->lineno);
		if ((copy = strdup(v)) == NULL)
			return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
		ps->npos = 0;
		cg->has_positions_instr = cg->has_positions_line = 0;
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			if (strcmp(tok, "instr") == 0 && ps->npos == 0)
				cg->has_positions_instr = 1;
			else if (strcmp(tok, "bb") == 0 && ps->npos < 2 && !cg->has_positions_line)
				;
			else if (strcmp(tok, "line") == 0 && !cg->has_positions_line)
				cg->has_positions_line = 1;
			else {
				lib_seterr(ps->err, EINVAL, "%s: line %zu: positions: \"%.64s\" "
				    "(expected instr, bb, line in that order)", ps->name, ps->lineno, tok);
				free(copy);
				return -1;
			}
			ps->npos++;
		}
		free(copy);
		if (ps->npos == 0)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: positions: names no position",
			    ps->name, ps->lineno);
		return 0;
	}
	if (klen == 6 && strncmp(key, "totals", 6) == 0) {
		if (cg->events == NULL)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: totals: before events:",
			    ps->name, ps->lineno);
		if (*totals_seen != NULL)
			return lib_seterr(ps->err, EINVAL, "%s: line %zu: second totals: line",
			    ps->name, ps->lineno);
		if ((*totals_seen = calloc(cg->n_events, sizeof(**totals_seen))) == NULL)
			return lib_seterr(ps->err, ENOMEM, "%s: out of memory", ps->name);
		return costs(ps, v, *totals_seen);
	}
	if (klen == 7 && strncmp(key, "version", 7) == 0 && strtoul(v, NULL, 10) > 1)
		return lib_seterr(ps->err, EINVAL, "%s: line %zu: version %s (expected 1)",
		    ps->name, ps->lineno, v);
	return 0;	/* summary:, creator:, cmd:, desc:, event: ... */
}

void
dcpi_callgrind_free(struct dcpi_callgrind *cg)
{
	size_t i;

	if (cg == NULL)
		return;
	for (i = 0; i < cg->n_events; i++)
		free(cg->events[i]);
	free(cg->events);
	for (i = 0; i < cg->n_fns; i++) {
		free(cg->fns[i].ob);
		free(cg->fns[i].fl);
		free(cg->fns[i].fn);
		free(cg->fns[i].cost);
	}
	free(cg->fns);
	free(cg->totals);
	free(cg);
}

int
dcpi_callgrind_parse(const void *buf, size_t len, const char *name,
    struct dcpi_callgrind **out, struct dcpi_error *err)
{
	struct cg_parser ps;
	const char *b = buf, *s, *eol;
	char *line = NULL;
	size_t at, n, k, cap = 0, totals_line = 0;
	uint64_t *totals_seen = NULL, *cost = NULL;
	int after_calls = 0, rc = -1;
	long idx;

	*out = NULL;
	memset(&ps, 0, sizeof(ps));
	ps.name = name;
	ps.err = err;
	ps.ob = ps.fl = ps.fn = -1;
	ps.npos = 1;
	if ((ps.cg = calloc(1, sizeof(*ps.cg))) == NULL)
		return lib_seterr(err, ENOMEM, "%s: out of memory", name);
	ps.cg->has_positions_line = 1;
	for (at = 0; at < len; at = n + 1) {
		ps.lineno++;
		eol = memchr(b + at, '\n', len - at);
		n = eol ? (size_t)(eol - b) : len;
		if (n - at + 1 > cap) {
			char *nl;

			cap = n - at + 1;
			if ((nl = realloc(line, cap)) == NULL) {
				lib_seterr(err, ENOMEM, "%s: out of memory", name);
				goto out;
			}
			line = nl;
		}
		memcpy(line, b + at, n - at);
		line[n - at] = '\0';
		if (strlen(line) != n - at) {
			lib_seterr(err, EINVAL, "%s: line %zu: NUL byte in a text file", name, ps.lineno);
			goto out;
		}
		if (n > at && line[n - at - 1] == '\r')
			line[n - at - 1] = '\0';
		s = line;
		if (after_calls) {
			/* The line after calls= is the call's inclusive cost. */
			after_calls = 0;
			if (!(isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*')) {
				lib_seterr(err, EINVAL, "%s: line %zu: expected the cost line of the "
				    "preceding calls= line", name, ps.lineno);
				goto out;
			}
			if (subpositions(&ps, &s) == -1 || costs(&ps, s, cost) == -1)
				goto out;
			continue;
		}
		if (*s == '\0' || *s == '#')
			continue;
		if (isdigit((unsigned char)*s) || *s == '+' || *s == '-' || *s == '*') {
			struct dcpi_callgrind_fn *f;

			if (ps.cg->events == NULL) {
				lib_seterr(err, EINVAL, "%s: line %zu: cost line before the events: line",
				    name, ps.lineno);
				goto out;
			}
			memset(cost, 0, ps.cg->n_events * sizeof(*cost));
			if (subpositions(&ps, &s) == -1 || costs(&ps, s, cost) == -1)
				goto out;
			if ((f = current_fn(&ps)) == NULL) {
				lib_seterr(err, ENOMEM, "%s: out of memory", name);
				goto out;
			}
			for (k = 0; k < ps.cg->n_events; k++) {
				/* A function's cost is at most the total. */
				if (ps.cg->totals[k] > UINT64_MAX - cost[k]) {
					lib_seterr(err, ERANGE, "%s: line %zu: cost %zu takes the total of "
					    "%s out of range (above 2^64-1)", name, ps.lineno, k + 1,
					    ps.cg->events[k]);
					goto out;
				}
				f->cost[k] += cost[k];
				ps.cg->totals[k] += cost[k];
			}
			ps.cg->n_cost_lines++;
			continue;
		}
		if (strncmp(s, "calls=", 6) == 0 || strncmp(s, "jump=", 5) == 0 ||
		    strncmp(s, "jcnd=", 5) == 0) {
			uint64_t v;
			int is_calls = s[0] == 'c';

			s = strchr(s, '=') + 1;
			while (*s == ' ' || *s == '\t')
				s++;
			if (parse_number(&s, &v) == -1) {
				lib_seterr(err, EINVAL, "%s: line %zu: expected a count after '='",
				    name, ps.lineno);
				goto out;
			}
			if (is_calls) {
				if (ps.cg->events == NULL) {
					lib_seterr(err, EINVAL, "%s: line %zu: calls= before the events: line",
					    name, ps.lineno);
					goto out;
				}
				ps.cg->n_calls++;
				after_calls = 1;
			}
			continue;
		}
		/* Position specifications. */
		k = strspn(s, "abcdefghijklmnopqrstuvwxyz");
		if (s[k] == '=') {
			struct strtab *t = NULL;
			long *cur = NULL;

			if (k == 2 && strncmp(s, "ob", 2) == 0)
				t = &ps.obs, cur = &ps.ob;
			else if (k == 2 && strncmp(s, "fl", 2) == 0)
				t = &ps.files, cur = &ps.fl;
			else if (k == 2 && (strncmp(s, "fi", 2) == 0 || strncmp(s, "fe", 2) == 0))
				t = &ps.files;	/* inlined code: costs stay with fn */
			else if (k == 2 && strncmp(s, "fn", 2) == 0)
				t = &ps.fns, cur = &ps.fn;
			else if (k == 3 && strncmp(s, "cob", 3) == 0)
				t = &ps.obs;
			else if (k == 3 && (strncmp(s, "cfi", 3) == 0 || strncmp(s, "cfl", 3) == 0))
				t = &ps.files;
			else if (k == 3 && strncmp(s, "cfn", 3) == 0)
				t = &ps.fns;
			if (t == NULL) {
				lib_seterr(err, EINVAL, "%s: line %zu: unknown position \"%.*s=\"",
				    name, ps.lineno, (int)k, s);
				goto out;
			}
			if ((idx = position_name(&ps, t, s + k + 1)) == -1)
				goto out;
			if (cur != NULL)
				*cur = idx;
			continue;
		}
		k = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ ");
		if (k > 0 && s[k] == ':') {
			if (strncmp(s, "totals", 6) == 0 && k == 6)
				totals_line = ps.lineno;
			if (header_line(&ps, s, k, s + k + 1, &totals_seen) == -1)
				goto out;
			if (ps.cg->events != NULL && cost == NULL &&
			    (cost = calloc(ps.cg->n_events, sizeof(*cost))) == NULL) {
				lib_seterr(err, ENOMEM, "%s: out of memory", name);
				goto out;
			}
			continue;
		}
		lib_seterr(err, EINVAL, "%s: line %zu: expected a header line (key: value), a position "
		    "(ob=, fl=, fn= ...), calls= or a cost line", name, ps.lineno);
		goto out;
	}
	if (after_calls) {
		lib_seterr(err, EINVAL, "%s: line %zu: file ends after calls= without its cost line",
		    name, ps.lineno);
		goto out;
	}
	if (ps.cg->events == NULL) {
		lib_seterr(err, EINVAL, "%s: line %zu: no events: line (required)", name, ps.lineno);
		goto out;
	}
	if (totals_seen != NULL)
		for (k = 0; k < ps.cg->n_events; k++)
			if (totals_seen[k] != ps.cg->totals[k]) {
				lib_seterr(err, EINVAL, "%s: line %zu: totals: %s is %" PRIu64 " but the cost "
				    "lines add up to %" PRIu64, name, totals_line, ps.cg->events[k],
				    totals_seen[k], ps.cg->totals[k]);
				goto out;
			}
	*out = ps.cg;
	ps.cg = NULL;
	rc = 0;
out:
	k = errno;
	free(line);
	free(cost);
	free(totals_seen);
	free(ps.fmap);
	strtab_free(&ps.obs);
	strtab_free(&ps.files);
	strtab_free(&ps.fns);
	dcpi_callgrind_free(ps.cg);
	errno = (int)k;
	return rc;
}
