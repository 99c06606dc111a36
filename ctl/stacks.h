/*
 * Call chains of the analysis commands (ctl/stacks.c): dcpictl stacks,
 * and the callers and callees of a procedure that prof --callers and
 * --callees show through it.
 */
#ifndef DCPICTL_STACKS_H
#define DCPICTL_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "commands.h"
#include "selection.h"

/* Which neighbours of a procedure stacks_calls lists. */
enum stacks_rel { STACKS_CALLERS, STACKS_CALLEES };

/*
 * The callers (or callees) of the procedure named proc in the call chains
 * that s selects, at most limit rows, printed as s->fmt says; cmd names
 * the command in messages ("prof", "stacks").  The exit status: 0, or 1
 * after printing a one-line error (no stack files, proc in no stack).
 */
int stacks_calls(const struct ctl_globals *g, const struct selection *s, const char *cmd,
    const char *proc, enum stacks_rel rel, size_t limit);

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
