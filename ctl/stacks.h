/*
 * Call chains of the analysis commands (ctl/stacks.c): dcpictl stacks,
 * and the callers and callees of a procedure that prof --callers and
 * --callees show through it.
 */
#ifndef DCPICTL_STACKS_H
#define DCPICTL_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/dataset.h>
#include <dcpi/stackfile.h>

#include "commands.h"
#include "selection.h"
#include "symcache.h"

/* Which neighbours of a procedure stacks_calls lists. */
enum stacks_rel { STACKS_CALLERS, STACKS_CALLEES };

/*
 * The callers (or callees) of the procedure named proc in the call chains
 * that s selects, at most limit rows, printed as s->out says; cmd names
 * the command in messages ("prof", "stacks").  The exit status: 0, or 1
 * after printing a one-line error (no stack files, proc in no stack).
 */
int stacks_calls(const struct ctl_globals *g, const struct selection *s, const char *cmd,
    const char *proc, enum stacks_rel rel, size_t limit);

/*
 * The stack files (dcpi/stackfile.h) of the epochs and hosts of d, which
 * sel_load read from the database db: fn is called once per file that
 * reads, with the file (freed when fn returns) and the path of its
 * epoch's and host's kallsyms (for the kernel's frames; it need not
 * exist).  A missing file is no error (dcpid ran without -g); a corrupt
 * one is skipped with a warning, as profiles are, and counted in
 * *skipped.  The chains fn sees have the callers back that the frame
 * pointers missed (a function without a frame of its own, called
 * directly: stacks.c), found with the symbol tables of c, in the chains
 * of the fp route only (the file's chains lines); where some
 * were put back, the file fn sees holds only the stacks the selection s
 * keeps (stacks_kept), which is all fn is to read of it.  Returns the
 * number of files given to fn.
 */
typedef void (*stacks_file_fn)(void *arg, const struct dcpi_stackfile *sf,
    const char *kallsyms);
size_t stacks_each_file(const char *db, const struct dcpi_dataset *d,
    const struct selection *s, struct symcache *c, stacks_file_fn fn, void *arg,
    size_t *skipped);

/* Nonzero if the selection s keeps the stack st of sf: its event (-e, else
 * all) and its label (--label, the idle task's only with --idle), as
 * sel_load keeps profiles. */
int stacks_kept(const struct selection *s, const struct dcpi_stackfile *sf,
    const struct dcpi_stack *st);

/* The events one sample of sf's event ev stands for in its chains: the
 * file's chains line's period, else (a file before them, or a period not
 * said: a chain with every sample) the period of the event's profiles in
 * d; 0 if neither says. */
uint64_t stacks_chain_period(const struct dcpi_stackfile *sf, uint32_t ev,
    const struct dcpi_dataset *d);
/* count x num / den, rounded, at least 1, saturating; count itself when
 * num or den is 0 or they are equal. */
uint64_t stacks_rescale(uint64_t count, uint64_t num, uint64_t den);

/* One folded stack: its frames' names root first, joined by ';' (a ';'
 * in a name is written ':', a control byte \xHH), and its samples. */
struct stacks_line {
	char		*text;
	uint64_t	 count;
};

struct stacks_folded {
	struct stacks_line *v;		/* by count, most first, then by text */
	size_t		 n;
	char		*event;		/* the one event of the counts */
};

/*
 * The call chains that s selects as folded stacks into f (what dcpictl
 * stacks prints and dcpictl flamegraph draws), each frame image`name with
 * image_names; f is freed with stacks_folded_free.  0, or -1 after
 * printing a one-line error naming cmd (no stack files, several events).
 */
int stacks_fold(const char *db, const struct selection *s, const char *cmd, int image_names,
    struct stacks_folded *f);
void stacks_folded_free(struct stacks_folded *f);

#endif
