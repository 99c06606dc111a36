/*
 * Unwind tables: an image's call-frame information (CFI) as compact rows,
 * built once per image with elfutils' CFI reader and searched by the
 * stack walk (daemon/unwind.h) once a frame.  x86_64 only.
 *
 * A row covers the addresses from its start to the next row's start and
 * says how to find, at any PC in that range, the caller's frame: the CFA
 * (the value of SP before the call that made this frame), where the
 * return address is saved, where the caller's BP is.  The rows are sorted
 * by start; a range no FDE covers is a row of rule UNWIND_CFA_NONE (no
 * information), and so is the end of the last FDE.
 *
 * Coordinates: ELF virtual addresses of the image, the addresses of its
 * symbol table and program headers (a PC of a process minus the image's
 * load bias).  A row keeps its start as a 32-bit offset from the table's
 * base, so an image's code must span less than 4 GiB.
 *
 * A table is read-only once built: every process that maps the image, and
 * walks on any thread, may share it.  Not evaluated (UNWIND_CFA_UNHANDLED,
 * a walk there ends): a CFA from a register other than SP and BP (ld.so's
 * _dl_runtime_resolve, from RBX; OpenSSL's assembly, from RAX), or from an
 * expression other than the PLT's (setcontext's).
 */
#ifndef DCPID_UNWIND_TABLE_H
#define DCPID_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

/* Where the CFA is (a rule's kind, bits 0-2). */
enum unwind_cfa {
	UNWIND_CFA_NONE = 0,	/* no FDE covers the range: no information */
	UNWIND_CFA_SP,		/* SP + cfa_offset */
	UNWIND_CFA_BP,		/* BP + cfa_offset */
	/* A PLT entry's DW_CFA_def_cfa_expression: SP + cfa_offset, plus 8
	 * if (PC & mask) >= threshold, the push of the lazy binding's slot;
	 * mask and threshold in bp_offset (UNWIND_PLT_MASK, _THRESHOLD). */
	UNWIND_CFA_PLT,
	/* A signal frame ('S' augmentation: glibc's __restore_rt): the
	 * interrupted context is the ucontext_t at this frame's SP, not a
	 * rule of its own. */
	UNWIND_CFA_SIGNAL,
	/* A form the walk does not evaluate: another CFA expression, another
	 * register, a return address not at CFA + offset, an offset too wide
	 * for the rule; and a rule past UNWIND_RULES_MAX. */
	UNWIND_CFA_UNHANDLED,
};

/* Where the caller's BP is (bits 3-4). */
enum unwind_bp {
	UNWIND_BP_SAME = 0,	/* not changed by this frame */
	UNWIND_BP_CFA,		/* saved at CFA + bp_offset */
	UNWIND_BP_UNDEFINED,	/* not recoverable (or saved where a rule cannot say) */
};

#define UNWIND_RULE_CFA(u)	((enum unwind_cfa)((u)->kind & 7))
#define UNWIND_RULE_BP(u)	((enum unwind_bp)(((u)->kind >> 3) & 3))
/* The return address is undefined: the outermost frame (_start, a
 * thread's entry in clone/clone3), where a walk ends cleanly. */
#define UNWIND_RULE_OUTERMOST	0x20
#define UNWIND_PLT_MASK(u)	((uint8_t)((uint16_t)(u)->bp_offset >> 8))
#define UNWIND_PLT_THRESHOLD(u)	((uint8_t)((uint16_t)(u)->bp_offset & 0xff))

/*
 * How to find the caller's frame over a row's range: 8 bytes.  Tables
 * hold few distinct rules (the CFA a few offsets from SP or BP, BP and
 * the return address at fixed places), so every table of the process
 * shares one table of them, each rule once (interned), and a row names
 * its rule by index: 8 bytes a row instead of 12 (16 in the kernel's
 * array).  The 20.4 million rows of a Debian host's 2,425 images with a
 * table hold 4,599 distinct rules (bench/README, "Unwind tables in 8-byte
 * rows").
 */
struct unwind_rule {
	int32_t		 cfa_offset;	/* UNWIND_CFA_SP, _BP, _PLT */
	int16_t		 bp_offset;	/* UNWIND_BP_CFA; UNWIND_CFA_PLT: mask << 8 | threshold */
	int8_t		 ra_offset;	/* the return address at CFA + ra_offset (-8) */
	uint8_t		 kind;		/* enum unwind_cfa | enum unwind_bp << 3 | UNWIND_RULE_OUTERMOST */
};

/* One row: 8 bytes. */
struct unwind_row {
	uint32_t	 start;		/* ELF vaddr - the table's base */
	uint32_t	 rule;		/* index in the rules (unwind_rule_at) */
};

/* The rules interned at most (8 bytes each, 256 KiB, also the size of
 * the kernel walk's copy of them): 7 times the rules of every image of a
 * Debian host.  A rule met past them is interned as UNWIND_RULE_OVER,
 * where walks end.  Rule 0 is always the gap's (no
 * information, UNWIND_CFA_NONE), rule 1 UNWIND_CFA_UNHANDLED's. */
#define UNWIND_RULES_MAX	32768u
#define UNWIND_RULE_GAP		0u
#define UNWIND_RULE_OVER	1u

/* The index of rule u in the process's rules, interned now if it is not
 * there (UNWIND_RULE_OVER where UNWIND_RULES_MAX are, or memory runs
 * out).  Not thread-safe: dcpid builds its tables on one thread.
 * Indexes never change while the process runs. */
uint32_t unwind_rule_intern(const struct unwind_rule *u);
/* Rule i; UNWIND_RULE_OVER's for i >= unwind_rules() (a walk ends
 * there).  The pointer lives until the next rule is interned (the next
 * table built). */
const struct unwind_rule *unwind_rule_at(uint32_t i);
/* The rule of a row of a table. */
#define unwind_rule_of(r)	unwind_rule_at((r)->rule)
/* Rules interned, and how many were met past UNWIND_RULES_MAX. */
uint32_t unwind_rules(void);
uint64_t unwind_rules_over(void);
/* Bytes the rules and their index take. */
size_t unwind_rules_memory(void);

/* Where a table's rows came from. */
enum unwind_source {
	UNWIND_SRC_EH_FRAME = 1,	/* the image's .eh_frame (its FDEs listed by .eh_frame_hdr) */
	UNWIND_SRC_DEBUG_FRAME,		/* .debug_frame, of the image or of its debug file */
	UNWIND_SRC_BOTH,		/* .eh_frame, and .debug_frame where it says nothing */
};

struct unwind_table;

/*
 * Builds the table of the ELF image elf (opened by the caller, ELF_C_READ
 * or ELF_C_READ_MMAP, or elf_memory; not kept: it may be closed once this
 * returns) from its .eh_frame, whose FDEs its .eh_frame_hdr lists (both
 * found by their section headers, as libdw finds them); where no FDE of
 * it covers a function, from the .debug_frame of debug (a separate debug
 * file of the same image, its addresses the image's; may be NULL), else
 * of elf (a program built without unwind tables has only its C
 * runtime's objects and PLT in .eh_frame).  .plt.got and
 * .plt.sec where no FDE covers them (jumps that leave the stack as the
 * call made it) get the rule CFA = SP + 8; the ELF entry point where no
 * FDE covers it (ld.so's _start), its first 16 bytes, the outermost
 * frame's.
 *
 * Returns the table (free with unwind_table_free), or NULL with errno:
 * ENOTSUP (not an x86_64 ELF image), ENOENT (neither kind of CFI, or no
 * FDE in it), EFBIG (the FDEs span 4 GiB or more, or more than 8 Mi
 * rows), EINVAL (CFI refused before libdw runs it: a register number
 * beyond x86_64's, for which libdw would allocate, an entry or
 * instruction that cannot be read, an .eh_frame_hdr table not sorted or
 * pointing at no FDE; a .debug_frame so only where .eh_frame gives no
 * table: beside one, it adds nothing), ETIMEDOUT (more wall time than UNWIND_BUILD_MAX_MS
 * plus UNWIND_BUILD_FDE_US an FDE; Debian's libLLVM-15, 98,256 FDEs,
 * takes 230 ms), ENOMEM.  Otherwise malformed
 * CFI is no error: an FDE libdw cannot read becomes a range of no
 * information; a function of more than UNWIND_FDE_ROWS_MAX rows keeps its
 * first ones, the rest of it no information.
 */
#define UNWIND_FDE_ROWS_MAX	1024
#define UNWIND_BUILD_MAX_MS	1000u
#define UNWIND_BUILD_FDE_US	20u
struct unwind_table *unwind_table_build(Elf *elf, Elf *debug);
/* The same from file descriptors (read, not closed; their offsets are not
 * used): the image's, and its separate debug file's or -1.  Errors as
 * above, and EINVAL for a file libelf cannot read. */
struct unwind_table *unwind_table_build_fd(int fd, int debug_fd);
void unwind_table_free(struct unwind_table *t);
/* fn (NULL: none) is called about every UNWIND_YIELD_MS of a build, from
 * inside it: a large image's table takes a few hundred ms, in which the
 * sampling buffers would fill (dcpid passes perf_hold).  fn must not
 * build a table; its time counts toward the build's limit. */
#define UNWIND_YIELD_MS	2u
void unwind_table_set_yield(void (*fn)(void));

/* The row whose range holds vaddr (an ELF virtual address of the image),
 * or NULL where the table has no information (before its first row, at
 * or after its end, or a UNWIND_CFA_NONE row).  A binary search; the
 * pointer lives as long as the table. */
const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t vaddr);

/* The ELF vaddr a row's start stands for. */
uint64_t unwind_table_row_vaddr(const struct unwind_table *t, const struct unwind_row *r);
/* Rows in the table (gaps included), and row i of them (i < that). */
size_t unwind_table_rows(const struct unwind_table *t);
const struct unwind_row *unwind_table_row(const struct unwind_table *t, size_t i);
/* The FDEs the rows were built from, and where they came from. */
size_t unwind_table_fdes(const struct unwind_table *t);
enum unwind_source unwind_table_source(const struct unwind_table *t);
/* Bytes the table holds in memory (its rows and itself; itself only once
 * its rows are moved). */
size_t unwind_table_memory(const struct unwind_table *t);
/* The table's rows copied to dst (room for unwind_table_rows(t) rows, in
 * memory its owner keeps mapped until the table is freed: the kernel
 * walk's array), read from there from now on, and its own freed. */
void unwind_table_move_rows(struct unwind_table *t, struct unwind_row *dst);
/* The table's rows, moved, copied back into memory of its own: 0, or -1
 * (ENOMEM; the table still reads them where they are). */
int unwind_table_own_rows(struct unwind_table *t);
/* 1 once the table's rows are moved, else 0. */
int unwind_table_rows_moved(const struct unwind_table *t);

#endif
