/*
 * The call instruction before a return address (ctl/callsite.c), for the
 * callers that frame pointers miss (ctl/stacks.c), and the disassembler
 * of this machine that dcpictl list uses too.
 */
#ifndef DCPICTL_CALLSITE_H
#define DCPICTL_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

/* Bytes before a return address that callsite_target needs at most. */
#define CALLSITE_BYTES	8

/* Opens capstone for the machine dcpictl runs on (x86-64, i386, arm64),
 * with the instructions' operands decoded (CS_OPT_DETAIL) when detail is
 * nonzero, as callsite_target needs: 0, or -1 where capstone has no such
 * architecture or cannot open it.  The caller closes *cs with cs_close. */
int callsite_open(csh *cs, int detail);

/*
 * Whether the instruction that ends at ra (a return address) is a direct
 * call, and its target: code holds the n bytes that precede ra (code[n -
 * 1] is the byte at ra - 1; n at most CALLSITE_BYTES is read).  1 and
 * *target (an address in ra's space) for a call with an immediate target
 * (x86 CALL rel32, arm64 BL); 0 for anything else: an indirect call
 * (through a register or memory), bytes that decode to no call ending at
 * ra, too few bytes.  cs must have been opened with detail.
 */
int callsite_target(csh cs, const unsigned char *code, size_t n, uint64_t ra,
    uint64_t *target);

#endif
