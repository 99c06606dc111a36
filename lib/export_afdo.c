/*
 * LLVM's sample profile (AutoFDO) in its text form, as clang's
 * -fprofile-sample-use and llvm-profdata read it (LLVM's
 * include/llvm/ProfileData/SampleProfReader.h, "Text format"):
 *
 *	NAME:TOTAL:HEAD
 *	 OFFSET[.DISCRIMINATOR]: COUNT [TARGET:COUNT ...]
 *	 OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL		(an inlined call site)
 *	  OFFSET[.DISCRIMINATOR]: COUNT ...		(its body, one blank deeper)
 *
 * The places come from DWARF through libdw: the out-of-line subprogram
 * that holds a PC, the DW_TAG_inlined_subroutine scopes within it that
 * hold it (their DW_AT_call_line the call sites), and the line table's row
 * for the PC.  An OFFSET is a line less its function's DW_AT_decl_line,
 * in 16 bits, as clang's FunctionSamples::getOffset computes it when it
 * reads the profile back.
 */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "htab.h"
#include "sym_int.h"
#include "util.h"

/* Deeper inline nests than this are cut at their outer part. */
#define AFDO_DEPTH	64
/* Scopes (namespaces, classes, lexical blocks) searched this deep at most:
 * a hostile file's nesting must not exhaust the stack. */
#define AFDO_NEST	256

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

struct afdo_target {
	const char	*name;
	uint64_t	 count;
};

struct afdo_line {
	uint32_t	 off, disc;
	uint64_t	 count;
	struct afdo_target *tg;
	size_t		 n_tg;
};

/* One function's samples: a top-level function, or an inlined instance
 * at a call site (off, disc) of its parent.  Names point into the DWARF
 * (or the symbol table), which outlive the encoding. */
struct afdo_fn {
	const char	*name;
	uint32_t	 off, disc;
	uint64_t	 total, head;
	struct afdo_line *lines;
	size_t		 n_lines, cap_lines;
	struct afdo_fn	**sub;
	size_t		 n_sub, cap_sub;
	int		 has_entry;	/* top level: the line of its entry PC */
	uint32_t	 entry_off, entry_disc;
	Dwarf_Addr	 entry, pend;	/* its prologue, [entry, pend) */
	int		 has_head;	/* a sample in the prologue */
};

struct afdo {
	struct dcpi_symtab *t;
	struct htab	 byname;	/* top-level functions by name */
	struct afdo_fn	**fns;
	size_t		 n_fns, cap_fns;
	Dwarf_Die	 sub;		/* the last subprogram found */
	int		 have_sub;
	int		 failed;	/* out of memory */
};

static int
grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 8;
	if ((p = reallocarray(*v, c, size)) == NULL)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

static void
fn_free(struct afdo_fn *f)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n_lines; i++)
		free(f->lines[i].tg);
	free(f->lines);
	for (i = 0; i < f->n_sub; i++)
		fn_free(f->sub[i]);
	free(f->sub);
	free(f);
}

/*
 * The base discriminator of a line table's: clang at -O2 with
 * -fdebug-info-for-profiling packs a duplication factor and a copy id
 * beside it (DILocation::encodeDiscriminator, a prefix encoding of each
 * part), and the profile's keys are the base part alone
 * (DILocation::getBaseDiscriminator).  A value of one part, as GCC
 * writes, decodes to itself when below 64; GCC's larger ones are rare.
 */
static uint32_t
base_discriminator(uint32_t d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	if (d & 0x40)
		return ((d >> 1) & 0xfe0) | (d & 0x1f);
	return d & 0x3f;
}

/*
 * A name the text format holds and a terminal shows as it is: printable
 * ASCII without blank or colon (both end a name there).  Itanium-mangled
 * and C names are; a crafted file's control bytes, which would forge
 * lines of the profile or reach a terminal, are not, and neither is
 * other text clang would not have written.
 */
static int
name_ok(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || *s == ':')
			return 0;
	return 1;
}

/* The name the compiler knows a function by: its mangled linkage name,
 * else its DWARF name (C); through DW_AT_abstract_origin and
 * DW_AT_specification. */
static const char *
die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) != NULL ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a) != NULL)
		s = dwarf_formstring(&a);
	if (s == NULL && dwarf_attr_integrate(d, DW_AT_name, &a) != NULL)
		s = dwarf_formstring(&a);
	return name_ok(s) ? s : NULL;
}

static int
decl_line(Dwarf_Die *d)
{
	int l = 0;

	return dwarf_decl_line(d, &l) == 0 ? l : 0;
}

/* The line offset as clang's FunctionSamples::getOffset has it. */
static uint32_t
line_offset(int line, int start)
{
	return (uint32_t)(line - start) & 0xffff;
}

/* The out-of-line subprogram under parent (the CU, or a namespace or
 * class of it) that holds addr. */
static int
find_sub(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *out, unsigned nest)
{
	Dwarf_Die d;

	if (nest > AFDO_NEST || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			if (dwarf_haspc(&d, addr) == 1) {
				*out = d;
				return 1;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (find_sub(&d, addr, out, nest + 1))
				return 1;
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

/* The inlined instances within scope that hold addr, outermost first,
 * appended to v[n..max); returns the new n.  A lexical block without an
 * address range of its own is searched too: its code lies in its
 * children's. */
static size_t
find_inlines(Dwarf_Die *scope, Dwarf_Addr addr, Dwarf_Die *v, size_t n, size_t max,
    unsigned nest)
{
	Dwarf_Die d;
	int tag, has;

	if (nest > AFDO_NEST || dwarf_child(scope, &d) != 0)
		return n;
	do {
		tag = dwarf_tag(&d);
		if (tag != DW_TAG_lexical_block && tag != DW_TAG_inlined_subroutine)
			continue;
		has = dwarf_haspc(&d, addr);
		if (has == 1) {
			if (tag == DW_TAG_inlined_subroutine) {
				if (n == max)
					return n;
				v[n++] = d;
			}
			return find_inlines(&d, addr, v, n, max, nest + 1);
		}
		if (tag == DW_TAG_lexical_block && !dwarf_hasattr(&d, DW_AT_low_pc) &&
		    !dwarf_hasattr(&d, DW_AT_ranges)) {
			size_t m = find_inlines(&d, addr, v, n, max, nest + 1);

			if (m > n)
				return m;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return n;
}

static struct afdo_fn *
fn_new(const char *name, uint32_t off, uint32_t disc)
{
	struct afdo_fn *f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	f->name = name;
	f->off = off;
	f->disc = disc;
	return f;
}

static struct afdo_fn *
top_fn(struct afdo *a, const char *name)
{
	struct htab_iter it;
	struct afdo_fn *f;
	uint64_t h = fnv1a64_str(FNV1A64_INIT, name);
	uintptr_t v;

	for (v = htab_first(&a->byname, h, &it); v != 0; v = htab_next(&a->byname, &it))
		if (strcmp(((struct afdo_fn *)v)->name, name) == 0)
			return (struct afdo_fn *)v;
	if (grow((void **)&a->fns, &a->cap_fns, a->n_fns, sizeof(*a->fns)) == -1 ||
	    (f = fn_new(name, 0, 0)) == NULL)
		return NULL;
	if (htab_add(&a->byname, h, (uintptr_t)f) == -1) {
		free(f);
		return NULL;
	}
	a->fns[a->n_fns++] = f;
	return f;
}

static struct afdo_fn *
sub_fn(struct afdo_fn *p, uint32_t off, uint32_t disc, const char *name)
{
	struct afdo_fn *f;
	size_t i;

	for (i = 0; i < p->n_sub; i++)
		if (p->sub[i]->off == off && p->sub[i]->disc == disc &&
		    strcmp(p->sub[i]->name, name) == 0)
			return p->sub[i];
	if (grow((void **)&p->sub, &p->cap_sub, p->n_sub, sizeof(*p->sub)) == -1 ||
	    (f = fn_new(name, off, disc)) == NULL)
		return NULL;
	p->sub[p->n_sub++] = f;
	return f;
}

static struct afdo_line *
fn_line(struct afdo_fn *f, uint32_t off, uint32_t disc)
{
	struct afdo_line *l;
	size_t i;

	for (i = 0; i < f->n_lines; i++)
		if (f->lines[i].off == off && f->lines[i].disc == disc)
			return &f->lines[i];
	if (grow((void **)&f->lines, &f->cap_lines, f->n_lines, sizeof(*f->lines)) == -1)
		return NULL;
	l = &f->lines[f->n_lines++];
	memset(l, 0, sizeof(*l));
	l->off = off;
	l->disc = disc;
	return l;
}

/*
 * The end of a function's prologue: the first row of the line table at or
 * after its entry that is marked prologue_end (as clang and GCC mark it),
 * while the rows are still the function's; entry if there is none.
 */
static Dwarf_Addr
prologue_end(Dwarf_Die *cu, Dwarf_Die *sub, Dwarf_Addr entry)
{
	Dwarf_Lines *lines;
	Dwarf_Line *l;
	Dwarf_Addr a;
	size_t n, lo = 0, hi, i;
	bool pe;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return entry;
	/* libdw sorts the rows by address. */
	hi = n;
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if ((l = dwarf_onesrcline(lines, i)) == NULL || dwarf_lineaddr(l, &a) != 0)
			return entry;
		if (a < entry)
			lo = i + 1;
		else
			hi = i;
	}
	for (i = lo; i < n; i++) {
		if ((l = dwarf_onesrcline(lines, i)) == NULL || dwarf_lineaddr(l, &a) != 0 ||
		    dwarf_haspc(sub, a) != 1)
			break;
		if (dwarf_lineprologueend(l, &pe) == 0 && pe)
			return a;
	}
	return entry;
}

/* The line key of addr's row in the line table, relative to start. */
static int
row_key(Dwarf_Die *cu, Dwarf_Addr addr, int start, uint32_t *off, uint32_t *disc)
{
	Dwarf_Line *l;
	unsigned d = 0;
	int ln;

	if ((l = dwarf_getsrc_die(cu, addr)) == NULL || dwarf_lineno(l, &ln) != 0 || ln <= 0)
		return -1;
	dwarf_linediscriminator(l, &d);
	*off = line_offset(ln, start);
	*disc = base_discriminator(d);
	return 0;
}

/*
 * Where the instruction at image offset o is in the profile: the function
 * (top level, or inlined instance) whose own code it is and its line key
 * there; *top gets the top-level function, the one a call lands in.
 * NULL where DWARF has no function or line for it; errno ENOMEM for
 * an allocation that failed.
 */
static struct afdo_fn *
place(struct afdo *a, uint32_t o, uint32_t *off, uint32_t *disc, struct afdo_fn **top)
{
	Dwarf_Addr addr = a->t->tstart + o;
	Dwarf_Die cu, v[AFDO_DEPTH];
	Dwarf_Attribute at;
	Dwarf_Word cl, cd;
	struct afdo_fn *f;
	const char *name;
	const struct dcpi_symbol *s;
	size_t n, i;
	int start;

	errno = 0;
	if (sym_cu(a->t, addr, &cu) == -1)
		return NULL;
	if (!a->have_sub || dwarf_haspc(&a->sub, addr) != 1) {
		a->have_sub = 0;
		if (!find_sub(&cu, addr, &a->sub, 0))
			return NULL;
		a->have_sub = 1;
	}
	if ((name = die_name(&a->sub)) == NULL) {
		/* The ELF symbol's name is demangled: only a C name is
		 * the compiler's. */
		if ((s = dcpi_symtab_lookup(a->t, o)) == NULL || !name_ok(s->name) ||
		    strpbrk(s->name, "(<") != NULL)
			return NULL;
		name = s->name;
	}
	if ((f = top_fn(a, name)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	*top = f;
	start = decl_line(&a->sub);
	if (!f->has_entry && dwarf_entrypc(&a->sub, &f->entry) == 0 &&
	    row_key(&cu, f->entry, start, &f->entry_off, &f->entry_disc) == 0) {
		f->has_entry = 1;
		f->pend = prologue_end(&cu, &a->sub, f->entry);
	}
	n = find_inlines(&a->sub, addr, v, 0, AFDO_DEPTH, 0);
	for (i = 0; i < n; i++) {
		if (dwarf_attr(&v[i], DW_AT_call_line, &at) == NULL || dwarf_formudata(&at, &cl) != 0)
			return NULL;	/* no line to place it at */
		cd = 0;
		if (dwarf_attr(&v[i], DW_AT_GNU_discriminator, &at) != NULL)
			dwarf_formudata(&at, &cd);
		if ((name = die_name(&v[i])) == NULL) {
			/* A callee without a name the profile can hold: its
			 * code counts as its call line's, in the caller. */
			*off = line_offset((int)cl, start);
			*disc = base_discriminator((uint32_t)cd);
			return f;
		}
		if ((f = sub_fn(f, line_offset((int)cl, start),
		    base_discriminator((uint32_t)cd), name)) == NULL) {
			errno = ENOMEM;
			return NULL;
		}
		start = decl_line(&v[i]);
	}
	if (row_key(&cu, addr, start, off, disc) == -1)
		return NULL;
	return f;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The samples of the image at each offset, its profiles (labels) added. */
static struct dcpi_count64 {
	uint32_t	 offset;
	uint64_t	 count;
} *merged_counts(const struct dcpi_profile *const *profiles, size_t n, size_t *nm)
{
	struct dcpi_count64 *v;
	size_t *at, i, total = 0, m = 0, best;

	for (i = 0; i < n; i++)
		total += profiles[i]->n_counts;
	if ((v = calloc(total + 1, sizeof(*v))) == NULL || (at = calloc(n, sizeof(*at))) == NULL) {
		free(v);
		return NULL;
	}
	/* An n-way merge of lists sorted by offset. */
	for (;;) {
		best = n;
		for (i = 0; i < n; i++)
			if (at[i] < profiles[i]->n_counts && (best == n ||
			    profiles[i]->counts[at[i]].offset < profiles[best]->counts[at[best]].offset))
				best = i;
		if (best == n)
			break;
		if (m > 0 && v[m - 1].offset == profiles[best]->counts[at[best]].offset)
			v[m - 1].count += profiles[best]->counts[at[best]].count;
		else {
			v[m].offset = profiles[best]->counts[at[best]].offset;
			v[m++].count = profiles[best]->counts[at[best]].count;
		}
		at[best]++;
	}
	free(at);
	*nm = m;
	return v;
}

/* Adds a stack's calls within the image as call targets: at the line of
 * the call instruction (the return address less one), the function called
 * gets the stack's samples. */
static void
add_calls(struct afdo *a, const struct dcpi_export_stack *st, size_t n, uint32_t *ks,
    struct dcpi_afdo_stats *stats)
{
	const struct dcpi_export_frame *fr = st->frames;
	struct afdo_fn *f, *top, *callee;
	struct afdo_line *l;
	struct afdo_target *t;
	uint32_t off, disc;
	size_t nk, i, j;

	nk = ex_stack_calls(st, ks);
	for (i = 0; i < nk && !a->failed; i++) {
		const struct dcpi_export_frame *ce = &fr[ks[i]], *cr = &fr[ks[i] + 1];

		if (ce->prof >= n || cr->prof >= n || cr->offset == 0)
			continue;
		/* The callee's frame is its PC at the leaf, a return address
		 * above: the byte before it is still in the function. */
		if (place(a, ks[i] == 0 ? ce->offset : ce->offset - 1, &off, &disc, &callee) == NULL ||
		    (f = place(a, cr->offset - 1, &off, &disc, &top)) == NULL) {
			if (errno == ENOMEM)
				a->failed = 1;
			continue;
		}
		if ((l = fn_line(f, off, disc)) == NULL) {
			a->failed = 1;
			return;
		}
		for (j = 0; j < l->n_tg; j++)
			if (strcmp(l->tg[j].name, callee->name) == 0)
				break;
		if (j == l->n_tg) {
			if ((t = reallocarray(l->tg, l->n_tg + 1, sizeof(*t))) == NULL) {
				a->failed = 1;
				return;
			}
			l->tg = t;
			l->tg[l->n_tg].name = callee->name;
			l->tg[l->n_tg++].count = 0;
		}
		l->tg[j].count = sat_add(l->tg[j].count, st->count);
		stats->calls = sat_add(stats->calls, st->count);
	}
}

static uint64_t
fn_total(struct afdo_fn *f)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < f->n_lines; i++)
		t = sat_add(t, f->lines[i].count);
	for (i = 0; i < f->n_sub; i++)
		t = sat_add(t, fn_total(f->sub[i]));
	f->total = t;
	return t;
}

static int
cmp_line(const void *x, const void *y)
{
	const struct afdo_line *a = x, *b = y;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->disc < b->disc ? -1 : a->disc > b->disc;
}

static int
cmp_sub(const void *x, const void *y)
{
	const struct afdo_fn *a = *(struct afdo_fn *const *)x, *b = *(struct afdo_fn *const *)y;

	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->disc != b->disc)
		return a->disc < b->disc ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Hottest first, then by name: a stable order to read and to diff. */
static int
cmp_top(const void *x, const void *y)
{
	const struct afdo_fn *a = *(struct afdo_fn *const *)x, *b = *(struct afdo_fn *const *)y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void
key(struct ebuf *b, unsigned depth, uint32_t off, uint32_t disc)
{
	eb_printf(b, "%*s%" PRIu32, (int)depth, "", off);
	if (disc != 0)
		eb_printf(b, ".%" PRIu32, disc);
	eb_append(b, ": ", 2);
}

/* A function's lines and inlined call sites, merged in offset order,
 * depth blanks in. */
static void
write_body(struct ebuf *b, struct afdo_fn *f, unsigned depth)
{
	size_t i = 0, j = 0, k;

	if (f->n_lines > 1)
		qsort(f->lines, f->n_lines, sizeof(*f->lines), cmp_line);
	if (f->n_sub > 1)
		qsort(f->sub, f->n_sub, sizeof(*f->sub), cmp_sub);
	while (i < f->n_lines || j < f->n_sub) {
		if (j == f->n_sub || (i < f->n_lines && (f->lines[i].off < f->sub[j]->off ||
		    (f->lines[i].off == f->sub[j]->off && f->lines[i].disc <= f->sub[j]->disc)))) {
			struct afdo_line *l = &f->lines[i++];

			key(b, depth, l->off, l->disc);
			eb_printf(b, "%" PRIu64, l->count);
			for (k = 0; k < l->n_tg; k++)
				eb_printf(b, " %s:%" PRIu64, l->tg[k].name, l->tg[k].count);
			eb_append(b, "\n", 1);
		} else {
			struct afdo_fn *s = f->sub[j++];

			key(b, depth, s->off, s->disc);
			eb_printf(b, "%s:%" PRIu64 "\n", s->name, s->total);
			write_body(b, s, depth + 1);
		}
	}
}

int
dcpi_afdo_encode(const struct dcpi_profile *const *profiles, size_t n,
    struct dcpi_symtab *t, const struct dcpi_export_stack *stacks, size_t n_stacks,
    struct dcpi_afdo_stats *stats, void **buf, size_t *len, struct dcpi_error *err)
{
	struct dcpi_afdo_stats st0;
	struct dcpi_count64 *c = NULL;
	struct afdo a;
	struct afdo_fn *f, *top;
	struct afdo_line *l;
	struct ebuf b = { 0 };
	uint32_t off, disc, *ks = NULL, maxdepth = 0;
	size_t nc = 0, i;
	int rc = -1;

	if (stats == NULL)
		stats = &st0;
	memset(stats, 0, sizeof(*stats));
	memset(&a, 0, sizeof(a));
	a.t = t;
	if (n == 0 || t == NULL) {
		lib_seterr(err, EINVAL, "afdo: no profile to export");
		return -1;
	}
	for (i = 1; i < n; i++)
		if (strcmp(profiles[i]->image, profiles[0]->image) != 0 ||
		    profiles[i]->tstart != profiles[0]->tstart) {
			lib_seterr(err, EINVAL, "afdo: profiles of images %s and %s: one image only",
			    profiles[0]->image, profiles[i]->image);
			return -1;
		}
	if (ex_stacks_check(stacks, n_stacks, n, "afdo", err) == -1)
		return -1;
	if (sym_dwarf(t) == NULL) {
		const char *root = t->opts.debugdir ? t->opts.debugdir : "/usr/lib/debug";
		const char *id = profiles[0]->image;

		lib_seterr(err, ENODATA, "%s: no DWARF for image %s: needs its debug "
		    "information, %s/.build-id/%.2s/%s.debug (the -dbgsym package, or "
		    "DEBUGINFOD_URLS), or a build with -g", dcpi_symtab_path(t), id, root,
		    id, strlen(id) > 2 ? id + 2 : "");
		return -1;
	}
	if ((c = merged_counts(profiles, n, &nc)) == NULL)
		goto nomem;
	/*
	 * A line's count is the most samples of any one of its instructions
	 * (AutoFDO's rule for addresses, SymbolMap::MAX in create_llvm_prof):
	 * a line run N times runs each of its instructions N times, and each
	 * instruction's samples estimate N weighted by its own cost.  Their
	 * sum would count a line once per instruction, favouring long lines;
	 * their mean would need the instructions that got no sample, which
	 * DWARF does not list.  The prologue's samples (up to the row marked
	 * prologue_end) go to HEAD instead.
	 */
	for (i = 0; i < nc; i++) {
		stats->samples = sat_add(stats->samples, c[i].count);
		if ((f = place(&a, c[i].offset, &off, &disc, &top)) == NULL) {
			if (errno == ENOMEM)
				goto nomem;
			continue;
		}
		stats->placed = sat_add(stats->placed, c[i].count);
		/* The prologue runs once a call, and clang's IR has no
		 * instruction of its line ('{') to take a count. */
		if (f == top && top->has_entry && t->tstart + c[i].offset >= top->entry &&
		    t->tstart + c[i].offset < top->pend) {
			if (c[i].count > top->head)
				top->head = c[i].count;
			top->has_head = 1;
			continue;
		}
		if ((l = fn_line(f, off, disc)) == NULL)
			goto nomem;
		if (c[i].count > l->count)
			l->count = c[i].count;
	}
	for (i = 0; i < n_stacks; i++)
		if (stacks[i].depth > maxdepth)
			maxdepth = stacks[i].depth;
	if (maxdepth > 0 && (ks = calloc(maxdepth, sizeof(*ks))) == NULL)
		goto nomem;
	for (i = 0; i < n_stacks && !a.failed; i++)
		add_calls(&a, &stacks[i], n, ks, stats);
	if (a.failed)
		goto nomem;
	if (stats->placed == 0) {
		lib_seterr(err, ENODATA, "%s: none of the %" PRIu64 " samples of image %s "
		    "is at an address with DWARF lines", dcpi_symtab_path(t), stats->samples,
		    profiles[0]->image);
		goto out;
	}
	for (i = 0; i < a.n_fns; i++) {
		f = a.fns[i];
		fn_total(f);
		if (f->has_entry && !f->has_head)
			for (size_t j = 0; j < f->n_lines; j++)
				if (f->lines[j].off == f->entry_off && f->lines[j].disc == f->entry_disc)
					f->head = f->lines[j].count;
	}
	qsort(a.fns, a.n_fns, sizeof(*a.fns), cmp_top);
	for (i = 0; i < a.n_fns; i++) {
		f = a.fns[i];
		/* A function only seen calling, with no sample of its own,
		 * says nothing the compiler can weigh. */
		if (f->total == 0 && f->head == 0)
			continue;
		stats->functions++;
		eb_printf(&b, "%s:%" PRIu64 ":%" PRIu64 "\n", f->name, f->total, f->head);
		write_body(&b, f, 1);
	}
	rc = eb_finish(&b, buf, len, err);
	goto out;
nomem:
	lib_seterr(err, ENOMEM, "afdo: out of memory");
	free(b.p);
out:
	for (i = 0; i < a.n_fns; i++)
		fn_free(a.fns[i]);
	free(a.fns);
	htab_fini(&a.byname);
	free(c);
	free(ks);
	return rc;
}
