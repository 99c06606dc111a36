/*
 * Call chains of the analysis commands (ctl/stacks.c): dcpictl stacks,
 * and the callers and callees of a procedure that prof --callers and
 * --callees show through it.
 */
#ifndef DCPICTL_STACKS_H
#define DCPICTL_STACKS_H

#include <stddef.h>

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

#endif
