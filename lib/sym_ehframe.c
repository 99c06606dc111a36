/*
 * The functions of a stripped image from its call-frame information.
 * Debian's libraries and programs keep .dynsym and .eh_frame but lose
 * .symtab: their static functions (liblzma's match finders, libcrypto's
 * assembly) have no name, and prof showed them all as one "[unknown]".
 * Every function the compiler emits has an FDE, the exception tables
 * need it, so its range is known: each FDE that no symbol overlaps
 * becomes a function named sub_VADDR, its start's ELF address in hex, as
 * disassemblers name such functions.
 *
 * The FDEs are listed by the binary-search table of .eh_frame_hdr
 * (PT_GNU_EH_FRAME; the LSB's "Exception Frame Header": version 1, then
 * the encodings of eh_frame_ptr, fde_count and the table), sorted by
 * start.  A function ends at the next one's start, or before, where its
 * frame information ends (code without any between them: hand-written
 * assembly, a linker's stubs): libdw reads that information
 * (dwarf_cfi_addrframe, which decodes the CIE's pointer encodings) one
 * row of the CFA table at a time, and a row's end is where the next
 * lookup fails.  The table is read only in the encoding every linker
 * writes (udata4 count, datarel|sdata4 pairs); another gives no
 * functions, not an error.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "sym_int.h"

#define EH_HDR_VERSION	1

/* The size of an eh_frame_ptr of encoding enc (its low nibble), 0 for
 * one not read here. */
static size_t
enc_size(unsigned enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	default:
		return 0;
	}
}

static uint32_t
rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

struct range {
	uint64_t	start, end;
};

static int
range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether [s, e) overlaps one of the n ranges of r, sorted by start and
 * with their ends made non-decreasing (max so far). */
static int
covered(const struct range *r, size_t n, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = n, mid;

	/* The last range starting before e. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r[mid].start < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && r[lo - 1].end > s;
}

/* Rows walked at most to find where a function's frame information ends
 * before the next function (a function of more rows ends at the next). */
#define MAX_ROWS	256

/* The end of the frame information that starts at s, up to next. */
static uint64_t
fde_end(Dwarf_CFI *cfi, uint64_t s, uint64_t next)
{
	Dwarf_Addr rs, re;
	Dwarf_Frame *fr;
	uint64_t a = s;
	int i, ok;

	for (i = 0; i < MAX_ROWS && a < next; i++) {
		if (dwarf_cfi_addrframe(cfi, a, &fr) != 0)
			return a;
		/* (It returns the return address's column, or -1.) */
		ok = dwarf_frame_info(fr, &rs, &re, NULL) >= 0;
		free(fr);
		if (!ok || re <= a)
			return a;
		a = re;
	}
	return next != UINT64_MAX ? next : a;
}

/* The encoded table of PT_GNU_EH_FRAME: its bytes and address, or -1. */
static int
eh_hdr(Elf *elf, const unsigned char **buf, size_t *len, uint64_t *vaddr)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf_Data *d;
	size_t i, nph;

	/* The table is read in this machine's byte order. */
	if (gelf_getehdr(elf, &eh) == NULL || eh.e_ident[EI_DATA] !=
	    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
	    elf_getphdrnum(elf, &nph) != 0)
		return -1;
	for (i = 0; i < nph; i++) {
		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph.p_filesz < 8 ||
		    (d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
		    ELF_T_BYTE)) == NULL || d->d_buf == NULL)
			return -1;
		*buf = d->d_buf;
		*len = d->d_size;
		*vaddr = ph.p_vaddr;
		return 0;
	}
	return -1;
}

int
sym_ehframe(Elf *elf, uint64_t tstart, struct rawsym **raw, size_t *n, size_t *cap)
{
	const unsigned char *p;
	struct range *cov = NULL;
	Dwarf_CFI *cfi = NULL;
	uint64_t hdr, fdes, i, s, e, next;
	size_t len, off, ncov = 0, k;
	char name[32];
	int rc = -1;

	if (eh_hdr(elf, &p, &len, &hdr) == -1 || p[0] != EH_HDR_VERSION ||
	    p[2] != DW_EH_PE_udata4 ||
	    p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
	    (off = enc_size(p[1])) == 0 || 4 + off + 4 > len)
		return 0;
	fdes = rd32(p + 4 + off);
	off += 8;
	if (fdes == 0 || fdes > (len - off) / 8 ||
	    (cfi = dwarf_getcfi_elf(elf)) == NULL)
		return 0;
	/* What the symbols cover already, by range. */
	if ((cov = calloc(*n ? *n : 1, sizeof(*cov))) == NULL)
		goto out;
	for (k = 0; k < *n; k++)
		if ((*raw)[k].size > 0)
			cov[ncov++] = (struct range){ (*raw)[k].start,
			    (*raw)[k].start + (*raw)[k].size };
	qsort(cov, ncov, sizeof(*cov), range_cmp);
	for (k = 1; k < ncov; k++)
		if (cov[k].end < cov[k - 1].end)
			cov[k].end = cov[k - 1].end;
	for (i = 0; i < fdes; i++, off += 8) {
		s = hdr + (uint64_t)(int64_t)(int32_t)rd32(p + off);
		next = i + 1 < fdes ?
		    hdr + (uint64_t)(int64_t)(int32_t)rd32(p + off + 8) : UINT64_MAX;
		if (next < s)
			break;		/* not sorted: not a table to trust */
		e = fde_end(cfi, s, next);
		if (e <= s || s < tstart ||
		    covered(cov, ncov, s - tstart, e - tstart))
			continue;
		snprintf(name, sizeof(name), "sub_%" PRIx64, (uint64_t)s);
		if (sym_push(raw, n, cap, name, s - tstart, e - s, e - tstart, 0) == -1)
			goto out;
	}
	rc = 0;
out:
	free(cov);
	dwarf_cfi_end(cfi);
	return rc;
}
