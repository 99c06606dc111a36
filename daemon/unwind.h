/*
 * The walk of a user stack with unwind tables (daemon/unwind_table.h):
 * from a sample's user registers (PERF_SAMPLE_REGS_USER: IP, SP, BP) and
 * its copy of the user stack (PERF_SAMPLE_STACK_USER: the bytes from SP
 * up), the callchain of return addresses, as perf --call-graph dwarf
 * gets it, and why it ended.  x86_64.
 *
 * It reads only the copy: no system call, no allocation, one binary
 * search a frame.  A frame whose rule needs memory outside the copy, or
 * a PC that no table covers, ends the chain with its reason, never with
 * a guessed caller; where no table covers a PC (JIT or anonymous code),
 * or its table has no rule there (node's embedded V8 builtins), a chain
 * of frame pointers within the copy continues it.
 */
#ifndef DCPID_UNWIND_H
#define DCPID_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "unwind_table.h"

/* The sample's user registers (PERF_REG_X86_IP, _SP, _BP). */
struct unwind_regs {
	uint64_t	 ip, sp, bp;
};

/* The copy of the user stack: size bytes at data, copied from the
 * process's address sp (the sample's SP: PERF_SAMPLE_STACK_USER's
 * dyn_size bytes).  Read only; the caller owns it. */
struct unwind_stack {
	const unsigned char	*data;
	size_t			 size;
	uint64_t		 sp;
};

/*
 * The table that covers pc, a PC of the sampled process, and its load
 * bias (what to subtract from a PC to get the table's ELF virtual
 * addresses: the mapping's start minus its ELF vaddr, 0 for an image at
 * its link address).  Returns 0 with *table and *bias set, or -1 where no
 * table covers pc (no mapping, anonymous or JIT code, an image whose
 * table could not be built).  Called once a frame, from unwind_walk; arg
 * is unwind_walk's.
 */
typedef int (*unwind_lookup_fn)(void *arg, uint64_t pc,
    const struct unwind_table **table, uint64_t *bias);

/* Why a walk ended. */
enum unwind_end {
	UNWIND_END_OUTERMOST = 0,	/* the return address is undefined (or 0): complete */
	UNWIND_END_DEPTH,		/* max callers reached */
	UNWIND_END_TRUNCATED,		/* a frame's memory is outside the stack copy */
	UNWIND_END_NO_TABLE,		/* no table for a PC, nor a frame pointer chain */
	UNWIND_END_NO_ROW,		/* a table without information for the PC,
					 * nor a frame pointer chain */
	UNWIND_END_UNHANDLED,		/* a rule the walk does not evaluate (a CFA
					 * expression, a BP that is not known) */
	UNWIND_END_LOOP,		/* the CFA did not grow: SP would not increase */
	UNWIND_END_COUNT
};

/* A name for status lines: "outermost", "depth", "truncated", "no-table",
 * "no-row", "unhandled", "loop" (a constant string). */
const char *unwind_end_name(enum unwind_end e);

/*
 * Walks the stack of regs over the copy stack, looking up each frame's
 * table with lookup(arg, ...), and writes the callers, nearest first, to
 * callers[0..max): each a return address as perf gives them (the address
 * after the call instruction; the caller's row is looked up at it minus
 * one), except the frame interrupted by a signal, whose own PC follows
 * the signal trampoline's return address.  The sample's IP is not among
 * them.  Sets *end to the reason it ended, and returns the number of
 * callers written (0 to max).
 */
size_t unwind_walk(const struct unwind_regs *regs, const struct unwind_stack *stack,
    unwind_lookup_fn lookup, void *arg, uint64_t *callers, size_t max,
    enum unwind_end *end);

#endif
