/*
 * The walk of a user stack copy with unwind tables (daemon/unwind.h).
 *
 * A frame: the row of its PC (the sample's IP exactly; a caller's return
 * address minus one, which is inside its call instruction, since a call
 * that ends a function is followed by the next function's first byte),
 * then CFA = SP or BP + offset, the return address read at CFA + its
 * offset, the caller's BP where the row says, and the caller's SP = CFA.
 * A signal frame (the trampoline the handler returns to) has the
 * interrupted context's registers in the ucontext_t the kernel put at its
 * SP; that context's PC is looked up exactly, being no return address.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>
#include <ucontext.h>

#include "unwind.h"

/* The interrupted registers' places in the kernel's rt_sigframe, which
 * holds a ucontext_t at the SP the handler returns with. */
#define UC_RIP	offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP])
#define UC_RSP	offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP])
#define UC_RBP	offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP])

static const char *const end_names[UNWIND_END_COUNT] = {
	[UNWIND_END_OUTERMOST] = "outermost",
	[UNWIND_END_DEPTH] = "depth",
	[UNWIND_END_TRUNCATED] = "truncated",
	[UNWIND_END_NO_TABLE] = "no-table",
	[UNWIND_END_NO_ROW] = "no-row",
	[UNWIND_END_UNHANDLED] = "unhandled",
	[UNWIND_END_LOOP] = "loop",
};

const char *
unwind_end_name(enum unwind_end e)
{
	return (unsigned)e < UNWIND_END_COUNT ? end_names[e] : "?";
}

/* The 8 bytes at addr in the copy: 0, or -1 where they are not all in it. */
static inline int
peek(const struct unwind_stack *s, uint64_t addr, uint64_t *v)
{
	uint64_t off = addr - s->sp;

	if (addr < s->sp || off > s->size || s->size - off < 8)
		return -1;
	memcpy(v, s->data + off, 8);
	return 0;
}

/*
 * One frame by frame pointers, for code no table covers: BP points at the
 * caller's BP, the return address above it.  Taken only where BP lies in
 * the copy at or above SP, 8-aligned, and the caller's BP is 0 (the
 * outermost frame) or above this one: a BP used as a general register
 * rarely looks so.
 */
static int
fp_step(const struct unwind_stack *s, uint64_t *sp, uint64_t *bp, uint64_t *ra)
{
	uint64_t nbp, r;

	if (*bp < *sp || (*bp & 7) != 0 || peek(s, *bp, &nbp) == -1 ||
	    peek(s, *bp + 8, &r) == -1 || (nbp != 0 && nbp <= *bp))
		return -1;
	*sp = *bp + 16;
	*bp = nbp;
	*ra = r;
	return 0;
}

size_t
unwind_walk(const struct unwind_regs *regs, const struct unwind_stack *stack,
    unwind_lookup_fn lookup, void *arg, uint64_t *callers, size_t max,
    enum unwind_end *end)
{
	const struct unwind_table *t;
	const struct unwind_rule *row;
	const struct unwind_row *r;
	uint64_t pc = regs->ip, sp = regs->sp, bp = regs->bp;
	uint64_t bias, at, cfa, ra, v;
	size_t n = 0;
	int exact = 1, bp_known = 1;
	enum unwind_end e;

	for (;;) {
		at = exact ? pc : pc - 1;
		if (lookup(arg, at, &t, &bias) == -1) {
			if (!bp_known || fp_step(stack, &sp, &bp, &ra) == -1) {
				e = UNWIND_END_NO_TABLE;
				break;
			}
			goto caller;
		}
		/* A range of the image without rules (V8's embedded builtins in
		 * node, hand-written stubs): frame pointers, as where no table
		 * covers a PC. */
		if ((r = unwind_table_find(t, at - bias)) == NULL) {
			if (!bp_known || fp_step(stack, &sp, &bp, &ra) == -1) {
				e = UNWIND_END_NO_ROW;
				break;
			}
			goto caller;
		}
		row = unwind_rule_of(r);
		switch (UNWIND_RULE_CFA(row)) {
		case UNWIND_CFA_SP:
			cfa = sp + (uint64_t)(int64_t)row->cfa_offset;
			break;
		case UNWIND_CFA_BP:
			if (!bp_known) {
				e = UNWIND_END_UNHANDLED;
				goto out;
			}
			cfa = bp + (uint64_t)(int64_t)row->cfa_offset;
			break;
		case UNWIND_CFA_PLT:
			cfa = sp + (uint64_t)(int64_t)row->cfa_offset +
			    ((pc & UNWIND_PLT_MASK(row)) >= UNWIND_PLT_THRESHOLD(row) ? 8 : 0);
			break;
		case UNWIND_CFA_SIGNAL:
			/* The interrupted context; no loop check: it may be
			 * on another stack (sigaltstack), outside the copy. */
			if (peek(stack, sp + UC_RIP, &ra) == -1 ||
			    peek(stack, sp + UC_RSP, &v) == -1 ||
			    peek(stack, sp + UC_RBP, &bp) == -1) {
				e = UNWIND_END_TRUNCATED;
				goto out;
			}
			if (ra == 0) {
				e = UNWIND_END_OUTERMOST;
				goto out;
			}
			if (ra == pc && v == sp) {
				e = UNWIND_END_LOOP;
				goto out;
			}
			sp = v;
			bp_known = 1;
			if (n == max) {
				e = UNWIND_END_DEPTH;
				goto out;
			}
			callers[n++] = pc = ra;
			exact = 1;
			continue;
		default:
			e = UNWIND_END_UNHANDLED;
			goto out;
		}
		if (row->kind & UNWIND_RULE_OUTERMOST) {
			e = UNWIND_END_OUTERMOST;
			break;
		}
		if (cfa <= sp) {
			e = UNWIND_END_LOOP;
			break;
		}
		if (peek(stack, cfa + (uint64_t)(int64_t)row->ra_offset, &ra) == -1) {
			e = UNWIND_END_TRUNCATED;
			break;
		}
		switch (UNWIND_RULE_BP(row)) {
		case UNWIND_BP_SAME:
			break;
		case UNWIND_BP_CFA:
			/* Not in the copy: the next frame that needs it ends. */
			bp_known = peek(stack, cfa + (uint64_t)(int64_t)row->bp_offset, &bp) == 0;
			break;
		default:
			bp_known = 0;
			break;
		}
		sp = cfa;
caller:
		if (ra == 0) {
			e = UNWIND_END_OUTERMOST;
			break;
		}
		if (n == max) {
			e = UNWIND_END_DEPTH;
			break;
		}
		callers[n++] = pc = ra;
		exact = 0;
	}
out:
	*end = e;
	return n;
}
