// fuzz-sources: daemon/unwind_table.c daemon/unwind.c
// fuzz-libs: -lelf -ldw
/*
 * dcpid builds unwind tables from the CFI of whatever a process maps
 * executable, a file any user can make: the table builder on arbitrary
 * bytes read as an ELF image (its .eh_frame and .eh_frame_hdr, else its
 * .debug_frame), and the walk with the table over the same bytes read as
 * a stack copy.  A table must be sorted, each row found at its start
 * (none where it is a gap), and a walk must end within its bounds.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "../../daemon/unwind.h"
#include "../../daemon/unwind_table.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
lookup(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	(void)pc;
	*t = arg;
	*bias = 0;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct unwind_row *r, *prev = NULL;
	struct unwind_table *t;
	struct unwind_regs regs;
	struct unwind_stack stack;
	uint64_t callers[32], v;
	enum unwind_end e;
	char *copy;
	Elf *elf;
	size_t i, n, k;

	/* libelf may write to the image it reads (it converts in place). */
	if ((copy = malloc(size ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	if ((elf = elf_memory(copy, size)) == NULL) {
		free(copy);
		return 0;
	}
	if ((t = unwind_table_build(elf, elf)) != NULL) {
		n = unwind_table_rows(t);
		CHECK(n >= 2 && unwind_table_memory(t) >= n * sizeof(*r));
		for (i = 0; i < n; i++, prev = r) {
			r = unwind_table_row(t, i);
			CHECK(r != NULL);
			CHECK(prev == NULL || r->start > prev->start);
			CHECK(UNWIND_RULE_CFA(unwind_rule_of(r)) <= UNWIND_CFA_UNHANDLED);
			v = unwind_table_row_vaddr(t, r);
			if (UNWIND_RULE_CFA(unwind_rule_of(r)) == UNWIND_CFA_NONE)
				CHECK(unwind_table_find(t, v) == NULL);
			else
				CHECK(unwind_table_find(t, v) == r);
		}
		CHECK(UNWIND_RULE_CFA(unwind_rule_of(unwind_table_row(t, n - 1))) == UNWIND_CFA_NONE);
		CHECK(unwind_table_find(t, unwind_table_row_vaddr(t, unwind_table_row(t, 0)) - 1) == NULL);
		/* A walk from each row over the input's bytes as a stack. */
		stack = (struct unwind_stack){ data, size, 0x10000 };
		for (i = 0; i < n && i < 64; i++) {
			regs.ip = unwind_table_row_vaddr(t, unwind_table_row(t, i));
			regs.sp = 0x10000 + (i * 8) % (size + 8);
			regs.bp = 0x10000 + (i * 24) % (size + 8);
			k = unwind_walk(&regs, &stack, lookup, t, callers, 32, &e);
			CHECK(k <= 32 && e < UNWIND_END_COUNT);
		}
		unwind_table_free(t);
	}
	elf_end(elf);
	free(copy);
	return 0;
}
