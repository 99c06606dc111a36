/*
 * Unwind tables from an image's CFI (daemon/unwind_table.h).
 *
 * The FDEs are listed, sorted by start, by the binary-search table of
 * .eh_frame_hdr (the LSB's "Exception Frame Header", read as
 * lib/sym_ehframe.c reads it), or for .debug_frame, which has no such
 * table, by libdw's entry reader (dwarf_next_cfi), whose FDEs start with
 * a plain address and length.  libdw then computes the CFA table one row
 * at a time (dwarf_cfi_addrframe at a row's start gives the row and its
 * end, where the next row starts), and each row becomes the few numbers
 * the walk needs.  Adjacent rows that say the same thing are kept once.
 *
 * libdw runs an FDE's instructions from its start for every row, so a
 * function of n rows costs n^2/2 instructions: the rows kept a function,
 * and the rows a table, are bounded, for hostile or broken CFI.  So is
 * the time: libdw sizes a row's state by the highest register number an
 * FDE names, and one naming register 2^27 costs it a 2 GiB allocation a
 * row.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "unwind_table.h"

#define EH_HDR_VERSION	1
/* Rows a table holds at most (96 MiB of rows; the largest programs have a
 * few million). */
#define TABLE_ROWS_MAX	(8u << 20)
/* DWARF's register numbers on x86_64. */
#define DW_X86_64_RBP	6
#define DW_X86_64_RSP	7
#define DW_X86_64_RIP	16

struct unwind_table {
	uint64_t		 base;		/* the ELF vaddr of a row's start 0 */
	size_t			 nrows;
	size_t			 nfdes;
	enum unwind_source	 src;
	int			 moved;		/* rows not ours: unwind_table_move_rows */
	struct unwind_row	*rows;
};

/* An address range to turn into rows: an FDE's (end UINT64_MAX where only
 * the next FDE's start bounds it), a PLT section no FDE covers, or the
 * ELF entry point where no FDE covers it. */
enum range_kind {
	RANGE_FDE,
	RANGE_DEBUG,		/* an FDE of .debug_frame */
	RANGE_PLT,
	RANGE_ENTRY,
};

struct fde_range {
	uint64_t	 start, end;
	enum range_kind	 kind;
};

/* The bytes after an uncovered entry point taken as the outermost frame:
 * ld.so's _start (mov %rsp, %rdi; call _dl_start) has no CFI, and a
 * return address into it minus one lies within its first call. */
#define ENTRY_OUTERMOST	16

struct builder {
	struct unwind_row	*rows;
	size_t			 n, cap;
	uint64_t		 base;
	uint64_t		 deadline;	/* CLOCK_MONOTONIC, ns */
	uint64_t		 yield_at;	/* the same clock: the next yield */
};

static void		(*yield_fn)(void);

/* The interned rules (unwind_rule_intern), and an open-addressing hash
 * of their indexes + 1 (0: an empty slot), twice UNWIND_RULES_MAX wide
 * so that it never fills. */
#define RULE_HASH	(2 * UNWIND_RULES_MAX)
static struct unwind_rule	*rules;
static uint32_t			 nrules, rules_cap;
static uint32_t			*rule_hash;
static uint64_t			 rules_over;

static uint32_t
rule_slot(const struct unwind_rule *u)
{
	uint64_t k;

	memcpy(&k, u, sizeof(k));
	k *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 32) & (RULE_HASH - 1);
}

static uint32_t
intern(const struct unwind_rule *u)
{
	struct unwind_rule *p;
	uint32_t h, i, c;

	if (rule_hash == NULL && (rule_hash = calloc(RULE_HASH, sizeof(*rule_hash))) == NULL)
		return UNWIND_RULE_OVER;
	for (h = rule_slot(u); rule_hash[h] != 0; h = (h + 1) & (RULE_HASH - 1)) {
		i = rule_hash[h] - 1;
		if (memcmp(&rules[i], u, sizeof(*u)) == 0)
			return i;
	}
	if (nrules == UNWIND_RULES_MAX)
		return UNWIND_RULE_OVER;
	if (nrules == rules_cap) {
		c = rules_cap ? 2 * rules_cap : 256;
		if ((p = reallocarray(rules, c, sizeof(*p))) == NULL)
			return UNWIND_RULE_OVER;
		rules = p;
		rules_cap = c;
	}
	rules[nrules] = *u;
	rule_hash[h] = ++nrules;
	return nrules - 1;
}

/* Rules 0 and 1, the gap's and UNWIND_RULE_OVER's, before any other. */
static int
rules_init(void)
{
	static const struct unwind_rule gap = { 0, 0, 0, UNWIND_CFA_NONE },
	    over = { 0, 0, 0, UNWIND_CFA_UNHANDLED | UNWIND_BP_UNDEFINED << 3 };

	if (nrules > UNWIND_RULE_OVER)
		return 0;
	return intern(&gap) == UNWIND_RULE_GAP && intern(&over) == UNWIND_RULE_OVER ?
	    0 : -1;
}

uint32_t
unwind_rule_intern(const struct unwind_rule *u)
{
	uint32_t i;

	if (rules_init() == -1)
		return UNWIND_RULE_OVER;
	if ((i = intern(u)) == UNWIND_RULE_OVER &&
	    memcmp(u, &rules[UNWIND_RULE_OVER], sizeof(*u)) != 0)
		rules_over++;
	return i;
}

const struct unwind_rule *
unwind_rule_at(uint32_t i)
{
	static const struct unwind_rule over = { 0, 0, 0,
	    UNWIND_CFA_UNHANDLED | UNWIND_BP_UNDEFINED << 3 };

	return i < nrules ? &rules[i] : &over;
}

uint32_t
unwind_rules(void)
{
	return nrules;
}

uint64_t
unwind_rules_over(void)
{
	return rules_over;
}

size_t
unwind_rules_memory(void)
{
	return (size_t)rules_cap * sizeof(*rules) +
	    (rule_hash != NULL ? RULE_HASH * sizeof(*rule_hash) : 0);
}

void
unwind_table_set_yield(void (*fn)(void))
{
	yield_fn = fn;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
range_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static uint32_t
rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t
rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int
push_range(struct fde_range **r, size_t *n, size_t *cap, uint64_t start, uint64_t end,
    enum range_kind kind)
{
	struct fde_range *p;
	size_t c;

	if (*n == *cap) {
		c = *cap ? *cap * 2 : 256;
		if ((p = reallocarray(*r, c, sizeof(*p))) == NULL)
			return -1;
		*r = p;
		*cap = c;
	}
	(*r)[(*n)++] = (struct fde_range){ start, end, kind };
	return 0;
}

/* The section named name of elf, or NULL. */
static Elf_Scn *
find_scn(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *s;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) != NULL &&
		    (s = elf_strptr(elf, shstrndx, sh->sh_name)) != NULL &&
		    strcmp(s, name) == 0)
			return scn;
	return NULL;
}

/*
 * What libdw will be given to run, checked first: libdw sizes a row's
 * state by the highest register an FDE or its CIE names (realloc and
 * memset up to it), so one naming register 2^27 costs 2 GiB a row.  Every
 * entry of the section is decoded (dwarf_next_cfi) and every instruction
 * of its CIE's and its own programs read for its registers; a section
 * that names one beyond REG_MAX, that cannot be walked to its end, or
 * whose instructions cannot be read (an unknown opcode, an augmentation
 * not known here) is refused.  The FDEs' section offsets are returned,
 * sorted, for .eh_frame_hdr's table to be checked against (libdw runs
 * the FDE that table points at).
 */
#define REG_MAX		255	/* x86_64's DWARF numbers end at 130 */

struct cie_info {
	Dwarf_Off	 off;
	size_t		 ptr_size;	/* an FDE's location and range, DW_CFA_set_loc */
	int		 z;		/* an FDE has augmentation data */
};

static int
uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;
	uint8_t byte;

	*v = 0;
	do {
		if (*p >= end || shift > 63)
			return -1;
		byte = *(*p)++;
		*v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	return 0;
}

/* The size of a pointer of encoding enc, 0 for one not read here. */
static size_t
enc_size(uint8_t enc)
{
	if (enc == DW_EH_PE_omit)
		return 0;
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	default:
		return 0;
	}
}

/* A CIE's pointer size and 'z', from its augmentation: 0, or -1. */
static int
cie_info(const Dwarf_CIE *c, int eh, struct cie_info *ci)
{
	const uint8_t *p = c->augmentation_data, *end = p + c->augmentation_data_size;
	const char *a = c->augmentation;
	size_t sz;

	ci->ptr_size = 8;
	ci->z = 0;
	if (!eh || a[0] == '\0')
		return 0;
	if (a[0] != 'z')
		return -1;
	ci->z = 1;
	for (a++; *a != '\0'; a++)
		switch (*a) {
		case 'L':
			if (p++ >= end)
				return -1;
			break;
		case 'P':
			if (p >= end || (sz = enc_size(*p)) == 0 || (size_t)(end - p) < 1 + sz)
				return -1;
			p += 1 + sz;
			break;
		case 'R':
			if (p >= end || (ci->ptr_size = enc_size(*p)) == 0)
				return -1;
			p++;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	return 0;
}

/* Whether the program [p, end) names registers up to REG_MAX only and
 * can be read to its end: 0, or -1. */
static int
check_program(const uint8_t *p, const uint8_t *end, size_t ptr_size)
{
	uint64_t reg, v;
	uint8_t op;

	while (p < end) {
		op = *p++;
		reg = 0;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
		case DW_CFA_restore:
			continue;
		case DW_CFA_offset:
			if (uleb(&p, end, &v) == -1)
				return -1;
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case DW_CFA_remember_state:
		case DW_CFA_restore_state:
		case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_set_loc:
			if ((size_t)(end - p) < ptr_size)
				return -1;
			p += ptr_size;
			break;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			v = op == DW_CFA_advance_loc1 ? 1 : op == DW_CFA_advance_loc2 ? 2 : 4;
			if ((uint64_t)(end - p) < v)
				return -1;
			p += v;
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_def_cfa_offset_sf:
		case DW_CFA_GNU_args_size:
			if (uleb(&p, end, &v) == -1)	/* an sleb reads as one */
				return -1;
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			if (uleb(&p, end, &reg) == -1)
				return -1;
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_offset_extended_sf:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
		case DW_CFA_def_cfa:
		case DW_CFA_def_cfa_sf:
		case DW_CFA_GNU_negative_offset_extended:
			if (uleb(&p, end, &reg) == -1 || uleb(&p, end, &v) == -1)
				return -1;
			break;
		case DW_CFA_register:
			if (uleb(&p, end, &reg) == -1 || uleb(&p, end, &v) == -1 || v > REG_MAX)
				return -1;
			break;
		case DW_CFA_def_cfa_expression:
			if (uleb(&p, end, &v) == -1 || (uint64_t)(end - p) < v)
				return -1;
			p += v;
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (uleb(&p, end, &reg) == -1 || uleb(&p, end, &v) == -1 ||
			    (uint64_t)(end - p) < v)
				return -1;
			p += v;
			break;
		default:
			return -1;
		}
		if (reg > REG_MAX)
			return -1;
	}
	return 0;
}

static int
off_cmp(const void *a, const void *b)
{
	const Dwarf_Off *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The check of section d (eh: .eh_frame, else .debug_frame): 0 with the
 * sorted FDE offsets in *offs (free them), or -1 with errno EINVAL
 * (refused) or ENOMEM. */
static int
check_cfi(Elf *elf, Elf_Data *d, int eh, Dwarf_Off **offs, size_t *noffs)
{
	struct cie_info *cies = NULL, *ci, *cp;
	const unsigned char *id;
	const uint8_t *p;
	Dwarf_CFI_Entry e;
	Dwarf_Off off = 0, next, *o = NULL, *op;
	size_t ncie = 0, no = 0, cap = 0, ccap = 0, i, lo, hi, skip;
	uint64_t v;
	int rc;

	*offs = NULL;
	*noffs = 0;
	if ((id = (const unsigned char *)elf_getident(elf, NULL)) == NULL)
		goto bad;
	/* The CIEs first: an FDE may name one after it. */
	for (; (rc = dwarf_next_cfi(id, d, eh, off, &next, &e)) != 1; off = next) {
		if (rc != 0 || next <= off)
			goto bad;
		if (!dwarf_cfi_cie_p(&e))
			continue;
		if (ncie == ccap) {
			ccap = ccap ? ccap * 2 : 16;
			if ((cp = reallocarray(cies, ccap, sizeof(*cies))) == NULL)
				goto nomem;
			cies = cp;
		}
		ci = &cies[ncie++];
		ci->off = off;
		if (cie_info(&e.cie, eh, ci) == -1 ||
		    check_program(e.cie.initial_instructions, e.cie.initial_instructions_end,
		    ci->ptr_size) == -1)
			goto bad;
	}
	for (off = 0; (rc = dwarf_next_cfi(id, d, eh, off, &next, &e)) != 1; off = next) {
		if (dwarf_cfi_cie_p(&e))
			continue;
		/* The CIEs' offsets are sorted, as met. */
		for (lo = 0, hi = ncie; lo < hi; ) {
			i = lo + (hi - lo) / 2;
			if (cies[i].off < e.fde.CIE_pointer)
				lo = i + 1;
			else
				hi = i;
		}
		if (lo == ncie || cies[lo].off != e.fde.CIE_pointer)
			goto bad;
		ci = &cies[lo];
		/* The location and range, then augmentation data. */
		p = e.fde.start;
		skip = 2 * ci->ptr_size;
		if ((size_t)(e.fde.end - p) < skip)
			goto bad;
		p += skip;
		if (ci->z && (uleb(&p, e.fde.end, &v) == -1 || (uint64_t)(e.fde.end - p) < v))
			goto bad;
		if (ci->z)
			p += v;
		if (check_program(p, e.fde.end, ci->ptr_size) == -1)
			goto bad;
		if (no == cap) {
			cap = cap ? cap * 2 : 1024;
			if ((op = reallocarray(o, cap, sizeof(*o))) == NULL)
				goto nomem;
			o = op;
		}
		o[no++] = off;
	}
	if (no > 1)
		qsort(o, no, sizeof(*o), off_cmp);
	*offs = o;
	*noffs = no;
	free(cies);
	return 0;
bad:
	errno = EINVAL;
	goto out;
nomem:
	errno = ENOMEM;
out:
	free(cies);
	free(o);
	return -1;
}

/*
 * The FDEs' starts from .eh_frame_hdr's table (the section's, which libdw
 * reads), in the encoding every linker writes (udata4 count, datarel|sdata4
 * pairs): 0; -1 with errno ENOENT where the image has no such table, EINVAL
 * for a table that is not sorted or points at no FDE of .eh_frame (at
 * eh_addr, its FDEs' offsets offs[0..noffs), sorted), ENOMEM.
 */
static int
eh_hdr_fdes(Elf *elf, uint64_t eh_addr, const Dwarf_Off *offs, size_t noffs,
    struct fde_range **r, size_t *n, size_t *cap)
{
	const unsigned char *p;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	uint64_t hdr, fdes, i, s, prev = 0;
	Dwarf_Off fo;
	size_t len, off;

	errno = ENOENT;
	if ((scn = find_scn(elf, ".eh_frame_hdr", &sh)) == NULL || sh.sh_type == SHT_NOBITS ||
	    (d = elf_rawdata(scn, NULL)) == NULL || d->d_buf == NULL || d->d_size < 8)
		return -1;
	p = d->d_buf;
	len = d->d_size;
	hdr = sh.sh_addr;
	if (p[0] != EH_HDR_VERSION || p[2] != DW_EH_PE_udata4 ||
	    p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -1;
	switch (p[1] & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		off = 4 + 4;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		off = 4 + 8;
		break;
	default:
		return -1;
	}
	if (off + 4 > len)
		return -1;
	fdes = rd32(p + off);
	off += 4;
	if (fdes > (len - off) / 8)
		return -1;
	errno = EINVAL;
	for (i = 0; i < fdes; i++, off += 8) {
		s = hdr + (uint64_t)(int64_t)(int32_t)rd32(p + off);
		fo = hdr + (uint64_t)(int64_t)(int32_t)rd32(p + off + 4) - eh_addr;
		if ((i > 0 && s < prev) || noffs == 0 ||
		    bsearch(&fo, offs, noffs, sizeof(*offs), off_cmp) == NULL)
			return -1;
		prev = s;
		if (push_range(r, n, cap, s, UINT64_MAX, RANGE_FDE) == -1)
			return -1;
	}
	return 0;
}

/* The FDEs of .debug_frame, read by libdw's entry reader: 0, or -1 where
 * elf has none (errno EINVAL where check_cfi refuses it, ENOMEM).  An FDE
 * starts with its initial location and range, each an address (8 bytes in
 * an ELFCLASS64 file, no segment selector). */
static int
debug_frame_fdes(Elf *elf, struct fde_range **r, size_t *n, size_t *cap)
{
	Dwarf_Off *offs;
	size_t noffs;
	const unsigned char *id;
	Dwarf_CFI_Entry e;
	Dwarf_Off off = 0, next;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	uint64_t s, len;
	size_t found = 0;
	int rc;

	if ((id = (const unsigned char *)elf_getident(elf, NULL)) == NULL ||
	    (scn = find_scn(elf, ".debug_frame", &sh)) == NULL || sh.sh_type == SHT_NOBITS)
		return -1;
	if ((sh.sh_flags & SHF_COMPRESSED) != 0 && elf_compress(scn, 0, 0) < 0)
		return -1;
	if ((d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL)
		return -1;
	if (check_cfi(elf, d, 0, &offs, &noffs) == -1)
		return -1;
	free(offs);
	/* A malformed entry may still say where the next one starts. */
	while ((rc = dwarf_next_cfi(id, d, false, off, &next, &e)) != 1) {
		if (rc == 0 && !dwarf_cfi_cie_p(&e) && e.fde.start != NULL &&
		    e.fde.end != NULL && e.fde.end - e.fde.start >= 16) {
			s = rd64(e.fde.start);
			len = rd64(e.fde.start + 8);
			if (len > 0 && s + len > s) {
				if (push_range(r, n, cap, s, s + len, RANGE_FDE) == -1)
					return -1;
				found++;
			}
		}
		if (next <= off || next == (Dwarf_Off)-1)
			break;
		off = next;
	}
	return found > 0 ? 0 : -1;
}

/* Whether any FDE covers a PLT section [s, e) of 16-byte entries: probed
 * at each entry (the ends of .eh_frame_hdr's FDEs are not known before
 * their rows are read). */
static int
covered(Dwarf_CFI *cfi, uint64_t s, uint64_t e)
{
	Dwarf_Frame *fr;
	uint64_t a;
	int i;

	for (a = s, i = 0; a < e && i < 4096; a += 16, i++)
		if (dwarf_cfi_addrframe(cfi, a, &fr) == 0) {
			free(fr);
			return 1;
		}
	return 0;
}

/* covered by either CFI (each may be NULL). */
static int
covered2(Dwarf_CFI *a, Dwarf_CFI *b, uint64_t s, uint64_t e)
{
	return (a != NULL && covered(a, s, e)) || (b != NULL && covered(b, s, e));
}

/* The PLT sections of jumps only, where no FDE is: ranges of plt rows. */
static int
plt_ranges(Elf *elf, Dwarf_CFI *cfi, Dwarf_CFI *dcfi, struct fde_range **r, size_t *n,
    size_t *cap)
{
	static const char *const names[] = { ".plt.got", ".plt.sec" };
	GElf_Shdr sh;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (find_scn(elf, names[i], &sh) != NULL && sh.sh_size > 0 &&
		    (sh.sh_flags & SHF_EXECINSTR) != 0 &&
		    sh.sh_addr + sh.sh_size > sh.sh_addr &&
		    !covered2(cfi, dcfi, sh.sh_addr, sh.sh_addr + sh.sh_size) &&
		    push_range(r, n, cap, sh.sh_addr, sh.sh_addr + sh.sh_size, RANGE_PLT) == -1)
			return -1;
	return 0;
}

/* The ELF entry point, where no FDE covers it: the outermost frame. */
static int
entry_range(Elf *elf, Dwarf_CFI *cfi, Dwarf_CFI *dcfi, struct fde_range **r, size_t *n,
    size_t *cap)
{
	GElf_Ehdr eh;

	if (gelf_getehdr(elf, &eh) == NULL || eh.e_entry == 0 ||
	    eh.e_entry + ENTRY_OUTERMOST < eh.e_entry ||
	    covered2(cfi, dcfi, eh.e_entry, eh.e_entry + 1))
		return 0;
	return push_range(r, n, cap, eh.e_entry, eh.e_entry + ENTRY_OUTERMOST, RANGE_ENTRY);
}

/* A location "CFA + off" of libdw's (the offset rule): 0, else -1. */
static int
cfa_plus(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (ops == NULL || n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	if (n == 1)
		*off = 0;
	else if (ops[1].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[1].number;
	else
		return -1;
	return 0;
}

static int
op_lit(const Dwarf_Op *op, unsigned *v)
{
	if (op->atom < DW_OP_lit0 || op->atom > DW_OP_lit31)
		return -1;
	*v = op->atom - DW_OP_lit0;
	return 0;
}

/* The PLT's expression: breg7 K; breg16 0; litA; and; litB; ge; lit3; shl;
 * plus, SP + K + ((PC & A) >= B ? 8 : 0).  The row's rule, or -1. */
static int
cfa_plt(const Dwarf_Op *ops, size_t n, struct unwind_rule *row)
{
	unsigned mask, thr, sh;
	int64_t k;

	if (n != 9 || ops[0].atom != DW_OP_breg7 || ops[1].atom != DW_OP_breg16 ||
	    ops[1].number != 0 || op_lit(&ops[2], &mask) == -1 ||
	    ops[3].atom != DW_OP_and || op_lit(&ops[4], &thr) == -1 ||
	    ops[5].atom != DW_OP_ge || op_lit(&ops[6], &sh) == -1 || sh != 3 ||
	    ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return -1;
	k = (int64_t)ops[0].number;
	if (k < INT32_MIN || k > INT32_MAX)
		return -1;
	row->cfa_offset = (int32_t)k;
	row->bp_offset = (int16_t)(uint16_t)(mask << 8 | thr);
	return UNWIND_CFA_PLT;
}

/* One row of libdw's CFA table as the walk's numbers. */
static void
convert(Dwarf_Frame *fr, int ra_reg, bool signal, struct unwind_rule *row)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off, reg;
	int cfa, bp = UNWIND_BP_UNDEFINED, outer = 0;

	row->cfa_offset = 0;
	row->bp_offset = 0;
	row->ra_offset = 0;
	if (signal) {
		cfa = UNWIND_CFA_SIGNAL;
		goto out;
	}
	cfa = UNWIND_CFA_UNHANDLED;
	/* The return address: at CFA + offset, or undefined (outermost). */
	if (ra_reg != DW_X86_64_RIP ||
	    dwarf_frame_register(fr, DW_X86_64_RIP, mem, &ops, &n) != 0)
		goto out;
	if (n == 0 && ops == mem)
		outer = UNWIND_RULE_OUTERMOST;
	else if (cfa_plus(ops, n, &off) == -1 || off < INT8_MIN || off > INT8_MAX)
		goto out;
	else
		row->ra_offset = (int8_t)off;
	/* The caller's BP. */
	if (dwarf_frame_register(fr, DW_X86_64_RBP, mem, &ops, &n) == 0) {
		if (n == 0 && ops == NULL)
			bp = UNWIND_BP_SAME;
		else if (cfa_plus(ops, n, &off) == 0 && off >= INT16_MIN && off <= INT16_MAX) {
			bp = UNWIND_BP_CFA;
			row->bp_offset = (int16_t)off;
		}
	}
	if (dwarf_frame_cfa(fr, &ops, &n) != 0 || n == 0)
		goto out;
	if (n == 1 && (ops[0].atom == DW_OP_bregx ||
	    (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31))) {
		if (ops[0].atom == DW_OP_bregx) {
			reg = (int64_t)ops[0].number;
			off = (int64_t)ops[0].number2;
		} else {
			reg = ops[0].atom - DW_OP_breg0;
			off = (int64_t)ops[0].number;
		}
		if (off < INT32_MIN || off > INT32_MAX)
			goto out;
		if (reg == DW_X86_64_RSP)
			cfa = UNWIND_CFA_SP;
		else if (reg == DW_X86_64_RBP)
			cfa = UNWIND_CFA_BP;
		else
			goto out;
		row->cfa_offset = (int32_t)off;
	} else if (bp == UNWIND_BP_SAME && (cfa = cfa_plt(ops, n, row)) == -1)
		cfa = UNWIND_CFA_UNHANDLED;
out:
	if (cfa == UNWIND_CFA_UNHANDLED || cfa == UNWIND_CFA_SIGNAL) {
		bp = UNWIND_BP_UNDEFINED;
		row->cfa_offset = 0;
		row->bp_offset = 0;
		row->ra_offset = 0;
		outer = 0;
	}
	row->kind = (uint8_t)(cfa | bp << 3 | outer);
}

/* Appends a row at vaddr a of rule u (interned), unless it says what the
 * last one says: 0, or -1 with errno. */
static int
push_row(struct builder *b, uint64_t a, const struct unwind_rule *u)
{
	struct unwind_row *p, *last;
	uint32_t rule = unwind_rule_intern(u);
	size_t c;

	if (b->n > 0) {
		if (a - b->base > UINT32_MAX) {
			errno = EFBIG;
			return -1;
		}
		last = &b->rows[b->n - 1];
		if (last->rule == rule)
			return 0;
		/* A row that covers nothing is replaced. */
		if (last->start == a - b->base) {
			b->n--;
			return push_row(b, a, u);
		}
	} else
		b->base = a;
	if (b->n == b->cap) {
		if (b->cap >= TABLE_ROWS_MAX) {
			errno = EFBIG;
			return -1;
		}
		c = b->cap ? b->cap * 2 : 1024;
		if ((p = reallocarray(b->rows, c, sizeof(*p))) == NULL)
			return -1;
		b->rows = p;
		b->cap = c;
	}
	b->rows[b->n++] = (struct unwind_row){ (uint32_t)(a - b->base), rule };
	return 0;
}

/* The rows of the sorted ranges r[0..n), of .eh_frame's CFI cfi or, for
 * RANGE_DEBUG, .debug_frame's dcfi: 0, or -1 with errno. */
static int
build_rows(struct builder *b, Dwarf_CFI *cfi, Dwarf_CFI *dcfi, const struct fde_range *r,
    size_t n)
{
	static const struct unwind_rule gap = { 0, 0, 0, UNWIND_CFA_NONE };
	struct unwind_rule row;
	Dwarf_Frame *fr;
	Dwarf_Addr rs, re;
	uint64_t a, s, limit, end = 0;
	bool signal;
	size_t i, k;
	int ra;

	for (i = 0; i < n; i++) {
		s = r[i].start;
		limit = r[i].end;
		if (i + 1 < n && r[i + 1].start < limit)
			limit = r[i + 1].start;
		if (b->n > 0 && s < end)
			s = end;	/* overlaps the one before */
		if (s >= limit)
			continue;
		if (b->n > 0 && s > end && push_row(b, end, &gap) == -1)
			return -1;
		if (r[i].kind != RANGE_FDE && r[i].kind != RANGE_DEBUG) {
			/* Jumps through the GOT: the stack as the call left
			 * it.  The entry point: no caller. */
			row = (struct unwind_rule){ 8, 0, -8,
			    UNWIND_CFA_SP | UNWIND_BP_SAME << 3 };
			if (r[i].kind == RANGE_ENTRY)
				row.kind |= UNWIND_RULE_OUTERMOST;
			if (push_row(b, s, &row) == -1)
				return -1;
			end = limit;
			continue;
		}
		for (a = s, k = 0; a < limit && k < UNWIND_FDE_ROWS_MAX; k++) {
			uint64_t now = now_ns();

			if (now > b->deadline) {
				errno = ETIMEDOUT;
				return -1;
			}
			if (yield_fn != NULL && now > b->yield_at) {
				yield_fn();
				b->yield_at = now + UNWIND_YIELD_MS * 1000000u;
			}
			if (dwarf_cfi_addrframe(r[i].kind == RANGE_DEBUG ? dcfi : cfi, a,
			    &fr) != 0)
				break;
			ra = dwarf_frame_info(fr, &rs, &re, &signal);
			if (ra >= 0 && re > a)
				convert(fr, ra, signal, &row);
			free(fr);
			if (ra < 0 || re <= a)
				break;
			if (push_row(b, a, &row) == -1)
				return -1;
			a = re < limit ? re : limit;
		}
		if (a == s)
			continue;	/* nothing read: a gap, from end */
		end = a;
	}
	if (b->n > 0 && push_row(b, end, &gap) == -1)
		return -1;
	return 0;
}

/* The .debug_frame FDEs of dbg (the debug file, else the image) that
 * .eh_frame's (eh, may be NULL) do not cover, as RANGE_DEBUG ranges
 * appended to r, and dbg's CFI in *dw, *cfi: 0 (*cfi NULL where there is
 * none), or -1 with errno (EINVAL: refused, ENOMEM). */
static int
debug_ranges(Elf *dbg, Dwarf_CFI *eh, struct fde_range **r, size_t *n, size_t *cap,
    Dwarf **dw, Dwarf_CFI **cfi)
{
	size_t first = *n, i, k;

	*dw = NULL;
	*cfi = NULL;
	errno = 0;
	if (debug_frame_fdes(dbg, r, n, cap) == -1) {
		*n = first;
		return errno == EINVAL || errno == ENOMEM ? -1 : 0;
	}
	if ((*dw = dwarf_begin_elf(dbg, DWARF_C_READ, NULL)) == NULL ||
	    (*cfi = dwarf_getcfi(*dw)) == NULL) {
		if (*dw != NULL)
			dwarf_end(*dw);
		*dw = NULL;
		*n = first;
		return 0;
	}
	for (i = k = first; i < *n; i++) {
		(*r)[i].kind = RANGE_DEBUG;
		if (eh == NULL || !covered(eh, (*r)[i].start, (*r)[i].end))
			(*r)[k++] = (*r)[i];
	}
	*n = k;
	return 0;
}

struct unwind_table *
unwind_table_build(Elf *elf, Elf *debug)
{
	struct builder b = { NULL, 0, 0, 0, 0, 0 };
	struct unwind_table *t = NULL;
	struct fde_range *r = NULL;
	Dwarf_CFI *cfi = NULL, *dcfi = NULL;
	Dwarf_Off *offs = NULL;
	Dwarf *dw = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	size_t n = 0, cap = 0, neh, nfde, noffs = 0;
	int e = ENOENT, rc;

	if (elf == NULL || gelf_getehdr(elf, &eh) == NULL ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		errno = ENOTSUP;
		return NULL;
	}
	/* .eh_frame, as libdw reads it: the section, its table's section. */
	if ((scn = find_scn(elf, ".eh_frame", &sh)) != NULL && sh.sh_type != SHT_NOBITS &&
	    (d = elf_rawdata(scn, NULL)) != NULL && d->d_buf != NULL && d->d_size > 0) {
		if (check_cfi(elf, d, 1, &offs, &noffs) == -1 ||
		    (eh_hdr_fdes(elf, sh.sh_addr, offs, noffs, &r, &n, &cap) == -1 &&
		    errno != ENOENT)) {
			e = errno;
			goto fail;
		}
		if (n > 0 && (cfi = dwarf_getcfi_elf(elf)) == NULL)
			n = 0;
	}
	neh = n;
	/* .debug_frame where .eh_frame says nothing: a program built without
	 * unwind tables (-fno-asynchronous-unwind-tables) keeps the
	 * .eh_frame of the C runtime's objects (_start) and the PLT, and has
	 * its own functions' CFI in .debug_frame only.  The debug file's,
	 * else the image's own. */
	rc = debug != NULL ? debug_ranges(debug, cfi, &r, &n, &cap, &dw, &dcfi) : 0;
	if (rc == 0 && dcfi == NULL)
		rc = debug_ranges(elf, cfi, &r, &n, &cap, &dw, &dcfi);
	/* A refused .debug_frame beside a usable .eh_frame costs only the
	 * ranges it would have added. */
	if (rc == -1 && (cfi == NULL || errno == ENOMEM)) {
		e = errno;
		goto fail;
	}
	if (cfi == NULL && dcfi == NULL)
		goto fail;
	nfde = n;
	b.yield_at = now_ns() + UNWIND_YIELD_MS * 1000000u;
	b.deadline = b.yield_at - UNWIND_YIELD_MS * 1000000u +
	    UNWIND_BUILD_MAX_MS * 1000000u + (uint64_t)nfde * UNWIND_BUILD_FDE_US * 1000u;
	if (plt_ranges(elf, cfi, dcfi, &r, &n, &cap) == -1 ||
	    entry_range(elf, cfi, dcfi, &r, &n, &cap) == -1) {
		e = errno;
		goto fail;
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), range_cmp);
	if (build_rows(&b, cfi, dcfi, r, n) == -1) {
		e = errno;
		goto fail;
	}
	if (b.n < 2)		/* no row but the end's gap */
		goto fail;
	if ((t = calloc(1, sizeof(*t))) == NULL) {
		e = errno;
		goto fail;
	}
	/* The array is trimmed to what it holds: tables live long. */
	t->rows = b.n < b.cap ? reallocarray(b.rows, b.n, sizeof(*b.rows)) : b.rows;
	if (t->rows == NULL)
		t->rows = b.rows;
	t->nrows = b.n;
	t->base = b.base;
	t->nfdes = nfde;
	t->src = neh == 0 ? UNWIND_SRC_DEBUG_FRAME : nfde > neh ? UNWIND_SRC_BOTH :
	    UNWIND_SRC_EH_FRAME;
	b.rows = NULL;
	e = 0;
fail:
	free(b.rows);
	free(r);
	free(offs);
	if (dw != NULL)
		dwarf_end(dw);
	if (cfi != NULL)
		dwarf_cfi_end(cfi);
	errno = e;
	return t;
}

static Elf *
elf_of(int fd)
{
	Elf *elf;

	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) != NULL && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		elf = NULL;
	}
	return elf;
}

struct unwind_table *
unwind_table_build_fd(int fd, int debug_fd)
{
	struct unwind_table *t;
	Elf *elf, *debug = NULL;
	int e;

	elf_version(EV_CURRENT);
	if ((elf = elf_of(fd)) == NULL || (debug_fd != -1 && (debug = elf_of(debug_fd)) == NULL)) {
		if (elf != NULL)
			elf_end(elf);
		errno = EINVAL;
		return NULL;
	}
	t = unwind_table_build(elf, debug);
	e = errno;
	if (debug != NULL)
		elf_end(debug);
	elf_end(elf);
	errno = e;
	return t;
}

void
unwind_table_free(struct unwind_table *t)
{
	if (t == NULL)
		return;
	if (!t->moved)
		free(t->rows);
	free(t);
}

const struct unwind_row *
unwind_table_find(const struct unwind_table *t, uint64_t vaddr)
{
	const struct unwind_row *r = t->rows;
	size_t lo = 0, hi = t->nrows, mid;
	uint64_t off;

	if (vaddr < t->base || (off = vaddr - t->base) > UINT32_MAX)
		return NULL;
	/* The last row starting at or before off. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || r[lo - 1].rule == UNWIND_RULE_GAP)
		return NULL;
	return &r[lo - 1];
}

uint64_t
unwind_table_row_vaddr(const struct unwind_table *t, const struct unwind_row *r)
{
	return t->base + r->start;
}

size_t
unwind_table_rows(const struct unwind_table *t)
{
	return t->nrows;
}

const struct unwind_row *
unwind_table_row(const struct unwind_table *t, size_t i)
{
	return i < t->nrows ? &t->rows[i] : NULL;
}

size_t
unwind_table_fdes(const struct unwind_table *t)
{
	return t->nfdes;
}

enum unwind_source
unwind_table_source(const struct unwind_table *t)
{
	return t->src;
}

size_t
unwind_table_memory(const struct unwind_table *t)
{
	return sizeof(*t) + (t->moved ? 0 : t->nrows * sizeof(*t->rows));
}

void
unwind_table_move_rows(struct unwind_table *t, struct unwind_row *dst)
{
	memmove(dst, t->rows, t->nrows * sizeof(*t->rows));
	if (!t->moved)
		free(t->rows);
	t->rows = dst;
	t->moved = 1;
}

int
unwind_table_own_rows(struct unwind_table *t)
{
	struct unwind_row *p;

	if (!t->moved)
		return 0;
	if ((p = reallocarray(NULL, t->nrows, sizeof(*p))) == NULL)
		return -1;
	memcpy(p, t->rows, t->nrows * sizeof(*p));
	t->rows = p;
	t->moved = 0;
	return 0;
}

int
unwind_table_rows_moved(const struct unwind_table *t)
{
	return t->moved;
}
