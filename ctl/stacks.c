/*
 * dcpictl stacks: the call chains of the selected epochs (the stack files
 * dcpid writes beside the profiles, dcpi/stackfile.h) as folded stacks,
 * the text flamegraph.pl, speedscope and inferno read; and the callers or
 * callees of one procedure, which prof --callers and --callees show.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/stackfile.h>

#include "analysis.h"
#include "callsite.h"
#include "commands.h"
#include "htab.h"
#include "stacks.h"
#include "util.h"
#include "xmalloc.h"

/* What a frame shows: a procedure of an image.  Frames of every file are
 * symbolized to these, so that stacks compare by index. */
struct procedure {
	char		*name;
	char		*image;		/* display name; "" for [unknown] */
};

/* A stack of a file, symbolized: proc indexes, the sampled PC first. */
struct chain {
	uint64_t	 count;
	uint64_t	 period;	/* events a sample stands for; 0: not known */
	uint32_t	 depth;
	uint32_t	*proc;
};

struct chains {
	struct procedure	*procs;
	size_t		 n_procs, cap_procs;
	struct htab	 byname;	/* procs index + 1 by (name, image) */
	struct chain	*v;
	size_t		 n, cap;
	/* The events of the chains kept: the output adds up counts, which
	 * only means something for one event. */
	char		*events[SEL_MAX + 1];
	size_t		 n_events;
	size_t		 n_files, n_skipped;
};

/* Names of frames that no procedure stands for. */
#define UNKNOWN	"[unknown]"	/* not attributed to an image (prof's word) */
#define ROOT	"[root]"	/* a caller: the chain ends at the procedure */
#define SELF	"[self]"	/* a callee: the procedure is the sampled PC */

static uint64_t
prochash(const char *name, const char *image)
{
	return fnv1a64_str(fnv1a64(fnv1a64_str(FNV1A64_INIT, name), "\t", 1), image);
}

static uint32_t
intern(struct chains *ch, const char *name, const char *image)
{
	struct htab_iter it;
	uint64_t h = prochash(name, image);
	uintptr_t v;
	struct procedure *p;

	for (v = htab_first(&ch->byname, h, &it); v != 0; v = htab_next(&ch->byname, &it)) {
		p = &ch->procs[v - 1];
		if (strcmp(p->name, name) == 0 && strcmp(p->image, image) == 0)
			return (uint32_t)(v - 1);
	}
	if (ch->n_procs == ch->cap_procs) {
		ch->cap_procs = ch->cap_procs ? ch->cap_procs * 2 : 256;
		ch->procs = xreallocarray(ch->procs, ch->cap_procs, sizeof(*ch->procs));
	}
	p = &ch->procs[ch->n_procs++];
	p->name = xstrdup(name);
	p->image = xstrdup(image);
	xhtab_add(&ch->byname, h, ch->n_procs);
	return (uint32_t)(ch->n_procs - 1);
}

static void
chains_free(struct chains *ch)
{
	size_t i;

	for (i = 0; i < ch->n_procs; i++) {
		free(ch->procs[i].name);
		free(ch->procs[i].image);
	}
	free(ch->procs);
	for (i = 0; i < ch->n; i++)
		free(ch->v[i].proc);
	free(ch->v);
	for (i = 0; i < ch->n_events; i++)
		free(ch->events[i]);
	htab_fini(&ch->byname);
}

/* What one file's symbolization needs: per frame its proc index + 1 (0:
 * not yet), per image its symbol table (looked up once). */
struct filesym {
	const struct dcpi_stackfile *sf;
	const struct dcpi_dataset *d;
	struct symcache	*c;
	char		*kallsyms;	/* DB/EPOCH/HOST/kallsyms, for the kernel */
	uint32_t	*frame;
	struct dcpi_symtab **tab;
	char		*looked;	/* per image: tab[] is set */
};

/*
 * The symbol table of the file's image i, through the symbol cache that
 * prof uses, so that a frame gets the name prof gives the same offset.
 * The dataset's image of the same id and text start knows every path the
 * image was seen at; an image no profile holds (only ever a caller) is
 * described from the stack file alone.
 */
static struct dcpi_symtab *
image_tab(struct filesym *fs, uint32_t i)
{
	const struct dcpi_stack_image *im = &fs->sf->images[i];
	struct dcpi_dataset_image di;
	struct dcpi_profile p;
	char *paths[1];
	size_t k;
	int stale;

	if (fs->looked[i])
		return fs->tab[i];
	fs->looked[i] = 1;
	for (k = 0; k < fs->d->n_images; k++) {
		const struct dcpi_profile *q = fs->d->images[k].prof;
		if (q->image != NULL && strcmp(q->image, im->id) == 0 && q->tstart == im->tstart)
			return fs->tab[i] = symcache_get(fs->c, &fs->d->images[k], &stale);
	}
	memset(&p, 0, sizeof(p));
	p.image = im->id;
	p.tstart = im->tstart;
	p.tsize = im->tsize;
	p.path = im->path;
	memset(&di, 0, sizeof(di));
	di.prof = &p;
	di.kallsyms = fs->kallsyms;
	paths[0] = im->path;
	di.paths = paths;
	di.n_paths = 1;
	return fs->tab[i] = symcache_get(fs->c, &di, &stale);
}

/* fs for the file sf of the selection d, its tables looked up in c;
 * filesym_fini frees what it holds. */
static void
filesym_init(struct filesym *fs, const struct dcpi_stackfile *sf,
    const struct dcpi_dataset *d, struct symcache *c, const char *kallsyms)
{
	memset(fs, 0, sizeof(*fs));
	fs->sf = sf;
	fs->d = d;
	fs->c = c;
	fs->kallsyms = xstrdup(kallsyms);	/* the dataset's field is not const */
	fs->frame = xcalloc(sf->n_frames + 1, sizeof(*fs->frame));
	fs->tab = xcalloc(sf->n_images + 1, sizeof(*fs->tab));
	fs->looked = xcalloc(sf->n_images + 1, 1);
}

static void
filesym_fini(struct filesym *fs)
{
	free(fs->kallsyms);
	free(fs->frame);
	free(fs->tab);
	free(fs->looked);
}

/* The proc index of the file's frame f: its procedure, else IMAGE+0xOFF
 * (no symbol table, or no symbol there: the offset at least tells two
 * such frames apart), else [unknown] for a frame dcpid did not attribute;
 * the end of a chain cut short, [truncated: REASON]. */
static uint32_t
frame_proc(struct chains *ch, struct filesym *fs, uint32_t f)
{
	const struct dcpi_stack_frame *fr = &fs->sf->frames[f];
	const struct dcpi_symbol *sym;
	struct dcpi_symtab *t;
	struct dcpi_profile p;
	const char *image;
	char buf[1100];

	if (fs->frame[f] != 0)
		return fs->frame[f] - 1;
	if (fr->image == DCPI_STACK_NOIMAGE)
		fs->frame[f] = intern(ch, UNKNOWN, "") + 1;
	else if (strcmp(fs->sf->images[fr->image].path, DCPI_STACK_TRUNCATED_PATH) == 0) {
		snprintf(buf, sizeof(buf), "[truncated: %s]",
		    dcpi_stack_truncated_reason(fr->offset));
		fs->frame[f] = intern(ch, buf, "") + 1;
	} else {
		memset(&p, 0, sizeof(p));
		p.path = fs->sf->images[fr->image].path;
		image = image_name(&p);
		t = image_tab(fs, fr->image);
		if (t != NULL && (sym = dcpi_symtab_lookup(t, fr->offset)) != NULL)
			fs->frame[f] = intern(ch, sym->name, image) + 1;
		else {
			snprintf(buf, sizeof(buf), "%.1000s+0x%x", image, fr->offset);
			fs->frame[f] = intern(ch, buf, image) + 1;
		}
	}
	return fs->frame[f] - 1;
}

uint64_t
stacks_chain_period(const struct dcpi_stackfile *sf, uint32_t ev,
    const struct dcpi_dataset *d)
{
	size_t i;

	if (sf->chains[ev].period != 0)
		return sf->chains[ev].period;
	for (i = 0; i < d->n_events; i++)
		if (strcmp(d->events[i].name, sf->events[ev]) == 0)
			return d->events[i].period;
	return 0;
}

uint64_t
stacks_rescale(uint64_t count, uint64_t num, uint64_t den)
{
	unsigned __int128 v;

	if (num == 0 || den == 0 || num == den)
		return count;
	v = ((unsigned __int128)count * num + den / 2) / den;
	return v > UINT64_MAX ? UINT64_MAX : v == 0 ? 1 : (uint64_t)v;
}

/* Chains of several periods (epochs, hosts or a reload's flushes that
 * sampled them at other rates) brought to the shortest: each count times
 * its period over that one, so that the counts weigh as the events they
 * stand for.  Chains of one period keep their counts of samples. */
static void
chains_scale(struct chains *ch, const char *cmd)
{
	uint64_t lo = 0, hi = 0;
	size_t i;

	for (i = 0; i < ch->n; i++) {
		if (ch->v[i].period == 0)
			continue;
		if (lo == 0 || ch->v[i].period < lo)
			lo = ch->v[i].period;
		if (ch->v[i].period > hi)
			hi = ch->v[i].period;
	}
	if (lo == hi)
		return;
	for (i = 0; i < ch->n; i++)
		ch->v[i].count = stacks_rescale(ch->v[i].count, ch->v[i].period, lo);
	fprintf(stderr, "dcpictl: %s: note: call chains sampled every %" PRIu64 " to %"
	    PRIu64 " events, counted as samples every %" PRIu64 "\n", cmd, lo, hi, lo);
}

/* Nonzero if the selection keeps stacks of label (NULL: unlabelled), as
 * the dataset keeps profiles: the idle task's only when asked for. */
static int
label_kept(const struct selection *s, const char *label)
{
	size_t i;

	if (label != NULL && strcmp(label, DCPI_LABEL_IDLE) == 0 && !sel_idle_shown(s))
		return 0;
	for (i = 0; i < s->n_labels; i++)
		if (dcpi_dataset_label_match(s->labels[i], label))
			return 1;
	return s->n_labels == 0;
}

/* Nonzero if the selection keeps stacks of event (-e, else all). */
static int
event_kept(const struct selection *s, const char *event)
{
	size_t i;

	for (i = 0; i < s->n_events; i++)
		if (strcmp(s->events[i], event) == 0)
			return 1;
	return s->n_events == 0;
}

int
stacks_kept(const struct selection *s, const struct dcpi_stackfile *sf,
    const struct dcpi_stack *st)
{
	return event_kept(s, sf->events[st->event]) && label_kept(s,
	    st->label == DCPI_STACK_NOLABEL ? NULL : sf->labels[st->label]);
}

/* The selected stacks of one file into ch, symbolized. */
static void
chains_file(struct chains *ch, const struct selection *s, struct filesym *fs)
{
	const struct dcpi_stackfile *sf = fs->sf;
	const struct dcpi_stack *st;
	struct chain *c;
	const char *ev;
	size_t i, e;
	uint32_t k;

	for (i = 0; i < sf->n_stacks; i++) {
		st = &sf->stacks[i];
		ev = sf->events[st->event];
		if (!stacks_kept(s, sf, st))
			continue;
		for (e = 0; e < ch->n_events && strcmp(ch->events[e], ev) != 0; e++)
			;
		if (e == ch->n_events) {
			/* Past SEL_MAX the list only serves the message. */
			if (ch->n_events == SEL_MAX)
				continue;
			ch->events[ch->n_events++] = xstrdup(ev);
		}
		if (ch->n == ch->cap) {
			ch->cap = ch->cap ? ch->cap * 2 : 256;
			ch->v = xreallocarray(ch->v, ch->cap, sizeof(*ch->v));
		}
		c = &ch->v[ch->n++];
		c->count = st->count;
		c->period = stacks_chain_period(sf, st->event, fs->d);
		c->depth = st->depth;
		c->proc = xreallocarray(NULL, st->depth, sizeof(uint32_t));
		for (k = 0; k < st->depth; k++)
			c->proc[k] = frame_proc(ch, fs, st->frames[k]);
	}
}

/*
 * Callers that the frame pointers miss (fp chains only: an unwinder's
 * chain, dwarf's, has every caller it found and ends where it could not
 * go on, with nothing to put back).  A function without a frame of its
 * own (in Go a small leaf that keeps its variables in registers, assembly
 * such as runtime.memmove; any function at its first instruction) leaves
 * the frame pointer at its caller's frame, so the kernel's chain goes from
 * it to its caller's caller: the return address there follows a call of
 * another function than the one below it.  Where that call is direct (its
 * target is in the code) the target is the caller the chain missed, and it
 * goes back in between, as a frame a byte into it.  An indirect call
 * tells nothing, and a call through the PLT lands on no procedure's first
 * byte, so neither restores anything.
 */
struct restore {
	struct filesym	 fs;		/* the file's symbol tables */
	csh		 cs;
	int		 cs_ok;		/* -1 none, 0 not opened, 1 open */
	struct htab	 seen;		/* pair key -> pairs index + 1 */
	struct {
		uint64_t key;		/* callee frame << 32 | caller frame */
		uint32_t offset;	/* the missed caller's frame */
		int	 missed;
	}		*pairs;
	size_t		 n_pairs, cap_pairs;
};

/* The kernel and its modules: their frames' callers are the kernel's
 * (ORC, not frame pointers), and a user frame after one is the PC the
 * process entered the kernel at, no return address. */
static int
kernel_image(const struct dcpi_stack_image *im)
{
	return im->path[0] == '[' && strcmp(im->path, "[vdso]") != 0 &&
	    strncmp(im->path, "[jit:", 5) != 0;
}

/* Whether the chain missed a caller between frames fa (callee) and fb
 * (its caller in the chain), and at which offset of fb's image. */
static int
missed_caller(struct restore *r, uint32_t fa, uint32_t fb, uint32_t *off)
{
	const struct dcpi_stackfile *sf = r->fs.sf;
	const struct dcpi_stack_frame *a = &sf->frames[fa], *b = &sf->frames[fb];
	const struct dcpi_stack_image *im;
	const struct dcpi_symbol *sym, *tsym;
	struct dcpi_symtab *t;
	uint64_t ra, target;
	size_t n, got;
	void *code;
	int ok;

	if (a->image == DCPI_STACK_NOIMAGE || b->image == DCPI_STACK_NOIMAGE ||
	    kernel_image(&sf->images[a->image]) ||
	    (t = image_tab(&r->fs, b->image)) == NULL)
		return 0;
	if (r->cs_ok == 0)
		r->cs_ok = callsite_open(&r->cs, 1) == 0 ? 1 : -1;
	if (r->cs_ok != 1)
		return 0;
	/* A caller's frame is its return address less one (dcpi(5)). */
	im = &sf->images[b->image];
	ra = (uint64_t)b->offset + 1;
	n = ra < CALLSITE_BYTES ? (size_t)ra : CALLSITE_BYTES;
	if (n == 0 || dcpi_symtab_read(t, ra - n, n, &code, &got) == -1)
		return 0;
	ok = got == n && callsite_target(r->cs, code, n, im->tstart + ra, &target);
	free(code);
	if (!ok || target < im->tstart || target - im->tstart >= im->tsize)
		return 0;
	*off = (uint32_t)(target - im->tstart);
	if ((tsym = dcpi_symtab_lookup(t, *off)) == NULL || tsym->start != *off)
		return 0;
	/* The callee in the same image: missed unless it is the target. */
	if (a->image == b->image &&
	    ((sym = dcpi_symtab_lookup(t, a->offset)) == NULL || sym->start == *off))
		return 0;
	/* Its frame a byte into it, as a caller's frame is a byte into its
	 * call: the exports that take it for a return address (pprof's)
	 * move back a byte, to the procedure's first. */
	if (tsym->size > 1 && *off + 1 < im->tsize)
		(*off)++;
	return 1;
}

/* missed_caller, once per pair of frames of the file. */
static int
missed_caller_once(struct restore *r, uint32_t fa, uint32_t fb, uint32_t *off)
{
	uint64_t key = (uint64_t)fa << 32 | fb, h = fnv1a64(FNV1A64_INIT, &key, sizeof(key));
	struct htab_iter it;
	uintptr_t v;

	for (v = htab_first(&r->seen, h, &it); v != 0; v = htab_next(&r->seen, &it))
		if (r->pairs[v - 1].key == key) {
			*off = r->pairs[v - 1].offset;
			return r->pairs[v - 1].missed;
		}
	if (r->n_pairs == r->cap_pairs) {
		r->cap_pairs = r->cap_pairs ? r->cap_pairs * 2 : 256;
		r->pairs = xreallocarray(r->pairs, r->cap_pairs, sizeof(*r->pairs));
	}
	r->pairs[r->n_pairs].key = key;
	r->pairs[r->n_pairs].missed = missed_caller(r, fa, fb, off);
	r->pairs[r->n_pairs].offset = r->pairs[r->n_pairs].missed ? *off : 0;
	xhtab_add(&r->seen, h, ++r->n_pairs);
	return r->pairs[r->n_pairs - 1].missed;
}

/* The file's frame f as dcpi_stackfile_add takes it. */
static void
addframe(const struct dcpi_stackfile *sf, uint32_t image, uint32_t offset,
    struct dcpi_stack_addframe *out)
{
	memset(out, 0, sizeof(*out));
	if (image == DCPI_STACK_NOIMAGE)
		return;
	out->id = sf->images[image].id;
	out->tstart = sf->images[image].tstart;
	out->tsize = sf->images[image].tsize;
	out->path = sf->images[image].path;
	out->offset = offset;
}

/*
 * sf with the callers its chains missed put back (above): a new file of
 * the stacks s keeps, or sf itself where none was missed (or one cannot
 * be added: the stack is kept as it was).  d and c are the selection's,
 * for the symbol tables.  The stacks s drops are not looked at: a narrow
 * --label pays for its own stacks, not the file's.
 */
static struct dcpi_stackfile *
restore_callers(struct dcpi_stackfile *sf, const struct selection *s,
    const struct dcpi_dataset *d, struct symcache *c, const char *kallsyms)
{
	struct dcpi_stack_addframe *fr = NULL;
	struct dcpi_stackfile *out = NULL;
	const struct dcpi_stack *st;
	struct dcpi_error err;
	struct restore r;
	uint32_t k, depth, off, f;
	size_t i, missed = 0;
	int fp;

	memset(&r, 0, sizeof(r));
	filesym_init(&r.fs, sf, d, c, kallsyms);
	for (i = 0; i < sf->n_stacks; i++) {
		st = &sf->stacks[i];
		if (!stacks_kept(s, sf, st) || sf->chains[st->event].route != DCPI_STACK_ROUTE_FP)
			continue;
		for (k = 0; k + 1 < st->depth; k++)
			missed += missed_caller_once(&r, st->frames[k], st->frames[k + 1], &off);
	}
	if (missed == 0 || (out = dcpi_stackfile_new(sf->epoch, sf->host)) == NULL)
		goto done;
	for (i = 0; i < sf->n_events; i++)
		if (dcpi_stackfile_set_chains(out, sf->events[i], sf->chains[i].period,
		    sf->chains[i].route, &err) == -1) {
			dcpi_stackfile_free(out);
			out = NULL;
			goto done;
		}
	fr = xreallocarray(NULL, 2 * DCPI_STACK_DEPTH_MAX, sizeof(*fr));
	for (i = 0; i < sf->n_stacks; i++) {
		st = &sf->stacks[i];
		if (!stacks_kept(s, sf, st))
			continue;
		fp = sf->chains[st->event].route == DCPI_STACK_ROUTE_FP;
		for (k = depth = 0; k < st->depth; k++) {
			f = st->frames[k];
			addframe(sf, sf->frames[f].image, sf->frames[f].offset, &fr[depth++]);
			if (fp && k + 1 < st->depth &&
			    missed_caller_once(&r, f, st->frames[k + 1], &off))
				addframe(sf, sf->frames[st->frames[k + 1]].image, off,
				    &fr[depth++]);
		}
		if (depth > DCPI_STACK_DEPTH_MAX)
			depth = DCPI_STACK_DEPTH_MAX;
		if (dcpi_stackfile_add(out, sf->events[st->event],
		    st->label == DCPI_STACK_NOLABEL ? NULL : sf->labels[st->label],
		    fr, depth, st->count, &err) == -1) {
			/* (The file's own stacks were accepted as they are.) */
			fprintf(stderr, "dcpictl: warning: %s/%s: call chains kept as "
			    "recorded: %s\n", sf->epoch, sf->host, err.msg);
			dcpi_stackfile_free(out);
			out = NULL;
			break;
		}
	}
done:
	if (r.cs_ok == 1)
		cs_close(&r.cs);
	htab_fini(&r.seen);
	free(r.pairs);
	free(fr);
	filesym_fini(&r.fs);
	if (out == NULL)
		return sf;
	dcpi_stackfile_free(sf);
	return out;
}

/* stacks.h; each file's missed callers put back before fn sees it. */
size_t
stacks_each_file(const char *db, const struct dcpi_dataset *d, const struct selection *s,
    struct symcache *c, stacks_file_fn fn, void *arg, size_t *skipped)
{
	struct dcpi_stackfile *sf;
	struct dcpi_error err;
	char *path, *kallsyms;
	size_t e, h, n = 0;

	for (e = 0; e < d->n_epochs; e++)
		for (h = 0; h < d->n_hosts; h++) {
			xasprintf(&path, "%s/%s/%s/%s", db, d->epochs[e], d->hosts[h],
			    DCPI_STACKS_FILE);
			if (dcpi_stackfile_read(path, &sf, &err) == -1) {
				if (errno != ENOENT) {
					fprintf(stderr, "dcpictl: warning: skipped %s\n", err.msg);
					(*skipped)++;
				}
				free(path);
				continue;
			}
			free(path);
			n++;
			xasprintf(&kallsyms, "%s/%s/%s/kallsyms", db, d->epochs[e], d->hosts[h]);
			sf = restore_callers(sf, s, d, c, kallsyms);
			fn(arg, sf, kallsyms);
			free(kallsyms);
			dcpi_stackfile_free(sf);
		}
	return n;
}

/* What chains_load hands stacks_each_file's callback. */
struct chains_arg {
	struct chains		*ch;
	const struct selection	*s;
	const struct dcpi_dataset *d;
	struct symcache		*c;
};

static void
chains_one(void *arg, const struct dcpi_stackfile *sf, const char *kallsyms)
{
	struct chains_arg *a = arg;
	struct filesym fs;

	filesym_init(&fs, sf, a->d, a->c, kallsyms);
	chains_file(a->ch, a->s, &fs);
	filesym_fini(&fs);
}

static int
chains_load(const char *db, const struct selection *s, const char *cmd, struct chains *ch)
{
	struct dcpi_dataset *d;
	struct chains_arg a;
	struct symcache *c;
	size_t i;
	int r = 0;

	memset(ch, 0, sizeof(*ch));
	if ((d = sel_load(db, s, cmd)) == NULL)
		return -1;
	c = symcache_new();
	a.ch = ch;
	a.s = s;
	a.d = d;
	a.c = c;
	ch->n_files = stacks_each_file(db, d, s, c, chains_one, &a, &ch->n_skipped);
	if (ch->n_files == 0) {
		if (ch->n_skipped > 0)
			fprintf(stderr, "dcpictl: %s: no readable stack files (see the "
			    "warnings)\n", cmd);
		else if (d->n_epochs == 1)
			fprintf(stderr, "dcpictl: %s: no call chains in %s/%s: dcpid was not "
			    "run with -g (callchain = fp)\n", cmd, db, d->epochs[0]);
		else
			fprintf(stderr, "dcpictl: %s: no call chains in the %zu epochs "
			    "selected: dcpid was not run with -g (callchain = fp)\n", cmd,
			    d->n_epochs);
		r = -1;
	} else if (ch->n_events == 1)
		chains_scale(ch, cmd);
	else if (ch->n_events > 1) {
		fprintf(stderr, "dcpictl: %s: call chains of several events (", cmd);
		for (i = 0; i < ch->n_events; i++) {
			fputs(i ? ", " : "", stderr);
			esc_puts(ch->events[i], stderr);
		}
		fprintf(stderr, "): choose one with -e\n");
		r = -1;
	}
	symcache_free(c);
	dcpi_dataset_free(d);
	if (r == -1)
		chains_free(ch);
	return r;
}

/* A growing string. */
struct sbuf {
	char		*s;
	size_t		 len, cap;
};

static void
sb_putc(struct sbuf *b, char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->s = xreallocarray(b->s, b->cap, 1);
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

/* s as one frame of a folded line: ';' separates frames and a newline
 * ends the line, so a name is written with ';' as ':' and what the tables
 * escape as \xHH (esc_dup; names are not ours). */
static void
sb_frame(struct sbuf *b, const char *s)
{
	char *e = esc_dup(s), *c;

	for (c = e; *c; c++)
		sb_putc(b, *c == ';' ? ':' : *c);
	free(e);
}

static int
folded_cmp(const void *a, const void *b)
{
	const struct stacks_line *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* Folded stacks, root first: "main;a;hot" and its count, one line per
 * distinct text (chains that fold to the same names add up), by count. */
static void
fold(const struct chains *ch, int image_names, struct stacks_folded *f)
{
	struct stacks_line *v = NULL;
	struct htab byline;
	struct htab_iter it;
	struct sbuf b;
	const struct procedure *p;
	size_t n = 0, cap = 0, i;
	uint32_t k;
	uint64_t hash;
	uintptr_t x;

	memset(&byline, 0, sizeof(byline));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < ch->n; i++) {
		b.len = 0;
		for (k = ch->v[i].depth; k-- > 0;) {
			p = &ch->procs[ch->v[i].proc[k]];
			/* DTrace's module`function, which the flame graph
			 * tools keep as one frame. */
			if (image_names && p->image[0] != '\0') {
				sb_frame(&b, p->image);
				sb_putc(&b, '`');
			}
			sb_frame(&b, p->name);
			if (k > 0)
				sb_putc(&b, ';');
		}
		hash = fnv1a64_str(FNV1A64_INIT, b.s);
		for (x = htab_first(&byline, hash, &it); x != 0; x = htab_next(&byline, &it))
			if (strcmp(v[x - 1].text, b.s) == 0)
				break;
		if (x != 0) {
			/* Saturating, as the files count. */
			v[x - 1].count = v[x - 1].count + ch->v[i].count < v[x - 1].count ?
			    UINT64_MAX : v[x - 1].count + ch->v[i].count;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n].text = xstrdup(b.s);
		v[n++].count = ch->v[i].count;
		xhtab_add(&byline, hash, n);
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), folded_cmp);
	free(b.s);
	htab_fini(&byline);
	f->v = v;
	f->n = n;
	f->event = xstrdup(ch->events[0]);
}

int
stacks_fold(const char *db, const struct selection *s, const char *cmd, int image_names,
    struct stacks_folded *f)
{
	struct chains ch;

	memset(f, 0, sizeof(*f));
	if (chains_load(db, s, cmd, &ch) == -1)
		return -1;
	fold(&ch, image_names, f);
	chains_free(&ch);
	return 0;
}

void
stacks_folded_free(struct stacks_folded *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].text);
	free(f->v);
	free(f->event);
	memset(f, 0, sizeof(*f));
}

static const struct chains *sort_ch;
static const uint64_t *sort_n;

/* By samples, then name, then image; the extra row (ROOT or SELF) has
 * index n_procs. */
static int
rel_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const char *x, *y;
	int c;

	if (sort_n[i] != sort_n[j])
		return sort_n[i] > sort_n[j] ? -1 : 1;
	x = i < sort_ch->n_procs ? sort_ch->procs[i].name : "";
	y = j < sort_ch->n_procs ? sort_ch->procs[j].name : "";
	if ((c = strcmp(x, y)) != 0)
		return c;
	x = i < sort_ch->n_procs ? sort_ch->procs[i].image : "";
	y = j < sort_ch->n_procs ? sort_ch->procs[j].image : "";
	return strcmp(x, y);
}

/* What the heads of the callers' or callees' table say: of which
 * procedure, how many samples of which event. */
struct calls_head {
	const char	*proc, *event;
	enum stacks_rel	 rel;
	uint64_t	 total;
};

static void
calls_text_head(FILE *fp, const void *arg)
{
	const struct calls_head *h = arg;

	fprintf(fp, "%s of ", h->rel == STACKS_CALLERS ? "callers" : "callees");
	esc_puts(h->proc, fp);
	fprintf(fp, ": %llu samples of ", (unsigned long long)h->total);
	esc_puts(h->event, fp);
	fprintf(fp, " in call chains\n\n");
}

static void
calls_json_head(FILE *fp, const void *arg)
{
	const struct calls_head *h = arg;

	fputs("{\"procedure\": ", fp);
	json_string(fp, h->proc);
	fputs(", \"event\": ", fp);
	json_string(fp, h->event);
	fprintf(fp, ", \"samples\": %llu,\n\"%s\": ", (unsigned long long)h->total,
	    h->rel == STACKS_CALLERS ? "callers" : "callees");
}

int
stacks_calls(const struct ctl_globals *g, const struct selection *s, const char *cmd,
    const char *proc, enum stacks_rel rel, size_t limit)
{
	struct chains ch;
	struct out_table t;
	struct calls_head h;
	const struct chain *c;
	const char *head[4], *selfimage = "";
	static const int right[] = { 1, 1, 0, 0 };
	char num[32], *pcthead = NULL;
	uint64_t *n, total = 0;
	size_t *order, i, k, rows;
	uint32_t d;

	if (chains_load(g->db, s, cmd, &ch) == -1)
		return 1;
	/* One row per proc, and one for ROOT or SELF. */
	n = xcalloc(ch.n_procs + 1, sizeof(uint64_t));
	for (i = 0; i < ch.n; i++) {
		c = &ch.v[i];
		/* The occurrence nearest the sampled PC: a recursive
		 * procedure's stack counts once. */
		for (d = 0; d < c->depth && strcmp(ch.procs[c->proc[d]].name, proc) != 0; d++)
			;
		if (d == c->depth)
			continue;
		total += c->count;
		if (rel == STACKS_CALLERS)
			k = d + 1 < c->depth ? c->proc[d + 1] : ch.n_procs;
		else {
			k = d > 0 ? c->proc[d - 1] : ch.n_procs;
			if (d == 0)
				selfimage = ch.procs[c->proc[0]].image;
		}
		n[k] += c->count;
	}
	if (total == 0) {
		fprintf(stderr, "dcpictl: %s: no call chain holds the procedure '", cmd);
		esc_puts(proc, stderr);
		fprintf(stderr, "'\n");
		free(n);
		chains_free(&ch);
		return 1;
	}
	order = xcalloc(ch.n_procs + 1, sizeof(size_t));
	for (i = rows = 0; i <= ch.n_procs; i++)
		if (n[i] > 0)
			order[rows++] = i;
	sort_ch = &ch;
	sort_n = n;
	qsort(order, rows, sizeof(size_t), rel_cmp);

	/* The columns of prof: samples of the event and their share, here
	 * of the procedure's samples in call chains (the rows add up to
	 * 100%), then the neighbour and its image. */
	head[0] = ch.events[0];
	if (!s->out->distinct_heads)
		head[1] = "%";
	else {
		xasprintf(&pcthead, "%s %%", ch.events[0]);
		head[1] = pcthead;
	}
	head[2] = rel == STACKS_CALLERS ? "caller" : "callee";
	head[3] = "image";
	out_table_init(&t, 4, head, right);
	for (i = 0; i < rows && i < limit; i++) {
		k = order[i];
		out_table_put(&t, 0, fmt_u64(num, n[k]));
		out_table_put(&t, 1, fmt_pct(num, n[k], total));
		if (k < ch.n_procs) {
			out_table_put(&t, 2, ch.procs[k].name);
			out_table_put(&t, 3, ch.procs[k].image);
		} else {
			out_table_put(&t, 2, rel == STACKS_CALLERS ? ROOT : SELF);
			out_table_put(&t, 3, rel == STACKS_CALLERS ? "" : selfimage);
		}
	}
	h.proc = proc;
	h.event = ch.events[0];
	h.rel = rel;
	h.total = total;
	s->out->report(&(struct out_report){ .rows = &t, .text_head = calls_text_head,
	    .json_head = calls_json_head, .arg = &h }, stdout);
	out_table_free(&t);
	free(pcthead);
	free(order);
	free(n);
	chains_free(&ch);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* getopt_long's values of the options without a short form. */
#define OPT_IMAGE_NAMES	0x200
#define OPT_CALLERS	0x201
#define OPT_CALLEES	0x202

int
cmd_stacks(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "image-names", no_argument,		NULL, OPT_IMAGE_NAMES },
		{ "callers",	required_argument,	NULL, OPT_CALLERS },
		{ "callees",	required_argument,	NULL, OPT_CALLEES },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct selection s;
	struct stacks_folded f;
	const char *proc = NULL;
	enum stacks_rel rel = STACKS_CALLERS;
	size_t limit = (size_t)-1, i;
	int ch_, image_names = 0;

	memset(&s, 0, sizeof(s));
	while ((ch_ = sel_getopt(argc, argv, "e:n:h", opts, SEL_EPOCHS | SEL_HOST |
	    SEL_EVENTS | SEL_LABEL | SEL_IDLE | SEL_FORMAT, &s, "stacks")) != -1) {
		switch (ch_) {
		case SEL_BAD:
			return 2;
		case OPT_IMAGE_NAMES:
			image_names = 1;
			break;
		case OPT_CALLERS:
		case OPT_CALLEES:
			if (proc != NULL) {
				fprintf(stderr, "dcpictl: stacks: --callers and --callees "
				    "exclude each other\n");
				return 2;
			}
			proc = optarg;
			rel = ch_ == OPT_CALLERS ? STACKS_CALLERS : STACKS_CALLEES;
			break;
		case 'n':
			if (sel_rows(optarg, "stacks", &limit) == -1)
				return 2;
			break;
		default:
			return cmd_usage(ch_ == 'h',
			    "usage: dcpictl stacks [--image-names] [-e EVENT] [--epoch E | --all | --since TIME]\n"
			    "                      [--host H] [--label GLOB]... [--idle] [-n N]\n"
			    "       dcpictl stacks --callers PROC | --callees PROC [selection] [-n N]\n"
			    "                      [--csv | --json]\n");
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dcpictl: stacks: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (proc != NULL) {
		if (image_names) {
			fprintf(stderr, "dcpictl: stacks: --image-names is for folded stacks; "
			    "the callers and callees have an image column\n");
			return 2;
		}
		return stacks_calls(g, &s, "stacks", proc, rel, limit);
	}
	/* Folded stacks are one format: flame graph tools read nothing else. */
	if (s.out != &output_text) {
		fprintf(stderr, "dcpictl: stacks: --csv and --json are for --callers and "
		    "--callees\n");
		return 2;
	}
	if (stacks_fold(g->db, &s, "stacks", image_names, &f) == -1)
		return 1;
	for (i = 0; i < f.n && i < limit; i++)
		fprintf(stdout, "%s %llu\n", f.v[i].text, (unsigned long long)f.v[i].count);
	stacks_folded_free(&f);
	return fflush(stdout) == 0 ? 0 : 1;
}
