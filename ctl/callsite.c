/*
 * A return address's call instruction, decoded by capstone.  Only a
 * direct call says where it went; which bytes before ra make the call is
 * fixed by the encoding (x86 CALL rel32: 5 bytes, arm64 BL: 4), and the
 * decoded instruction must end exactly at ra.
 */
#include "config.h"

#include "callsite.h"

int
callsite_open(csh *cs, int detail)
{
	cs_arch arch;
	cs_mode mode;

#if defined(__x86_64__)
	arch = CS_ARCH_X86;
	mode = CS_MODE_64;
#elif defined(__i386__)
	arch = CS_ARCH_X86;
	mode = CS_MODE_32;
#elif defined(__aarch64__)
	arch = CS_ARCH_ARM64;
	mode = CS_MODE_LITTLE_ENDIAN;
#else
	(void)cs;
	return -1;
#endif
	if (cs_open(arch, mode, cs) != CS_ERR_OK)
		return -1;
	if (detail && cs_option(*cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs_close(cs);
		return -1;
	}
	return 0;
}

int
callsite_target(csh cs, const unsigned char *code, size_t n, uint64_t ra,
    uint64_t *target)
{
#if defined(__x86_64__) || defined(__i386__)
	const size_t len = 5;
	const unsigned call = X86_INS_CALL;
#elif defined(__aarch64__)
	const size_t len = 4;
	const unsigned call = ARM64_INS_BL;
#else
	const size_t len = 0;
	const unsigned call = 0;
#endif
	cs_insn *insn;
	size_t got;
	int ok = 0;

	if (len == 0 || n < len || ra < len)
		return 0;
	got = cs_disasm(cs, code + n - len, len, ra - len, 1, &insn);
	if (got != 1)
		return 0;
	/* A direct call's one operand is its target, an immediate. */
	if (insn[0].id == call && insn[0].size == len && insn[0].detail != NULL) {
#if defined(__x86_64__) || defined(__i386__)
		const cs_x86 *x = &insn[0].detail->x86;

		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			*target = (uint64_t)x->operands[0].imm;
			ok = 1;
		}
#elif defined(__aarch64__)
		const cs_arm64 *a = &insn[0].detail->arm64;

		if (a->op_count == 1 && a->operands[0].type == ARM64_OP_IMM) {
			*target = (uint64_t)a->operands[0].imm;
			ok = 1;
		}
#endif
	}
	cs_free(insn, got);
	return ok;
}
