/*
 * Go's function table, .gopclntab: the symbols of a Go program that was
 * stripped (go build -ldflags=-s, as most Go programs in containers are),
 * which keeps it because the runtime needs it for its own stack traces.
 * The layouts are those Go's debug/gosym reads (src/debug/gosym/
 * pclntab.go): the header (magic, two zero bytes, the PC quantum, the
 * pointer size), then for Go 1.2 the function table at once, for Go 1.16
 * and 1.18+ a list of offsets to the tables.  The function table is
 * sorted pairs (entry PC, offset of the function's _func) and a last
 * entry, the end of the text; a _func's second field is its name's
 * offset.  Go 1.18+ gives entries as offsets from the start of the text,
 * which, as debug/gosym does, is taken from the .text section: the
 * header's copy is left for the dynamic linker to relocate in a PIE.
 * Every offset is checked against the section: the bytes are the file's.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sym_int.h"

#define GO12_MAGIC	0xfffffffbU
#define GO116_MAGIC	0xfffffffaU
#define GO118_MAGIC	0xfffffff0U
#define GO120_MAGIC	0xfffffff1U

struct pcln {
	const unsigned char *d;
	size_t		 len;
	int		 be;		/* big-endian */
	unsigned	 ptr;		/* 4 or 8 */
};

static uint64_t
rd(const struct pcln *p, size_t off, unsigned size)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p->d[off + (p->be ? size - 1 - i : i)] << (8 * i);
	return v;
}

/* The size-byte value at off, or -1 past the end. */
static int
get(const struct pcln *p, uint64_t off, unsigned size, uint64_t *v)
{
	if (off > p->len || p->len - off < size)
		return -1;
	*v = rd(p, (size_t)off, size);
	return 0;
}

int
sym_gopclntab(const unsigned char *data, size_t len, uint64_t text, uint64_t tstart,
    struct rawsym **raw, size_t *n, size_t *cap)
{
	struct pcln p = { data, len, 0, 0 };
	uint64_t magic, nfunc, functab, names, fsize, pc, next, end, funcoff, nameoff, w;
	unsigned field;
	size_t i, nlen;
	int ver;

	if (len < 16 || data[4] != 0 || data[5] != 0 ||
	    (data[6] != 1 && data[6] != 2 && data[6] != 4) ||
	    (data[7] != 4 && data[7] != 8))
		goto bad;
	p.ptr = data[7];
	magic = rd(&p, 0, 4);
	if (magic != GO12_MAGIC && magic != GO116_MAGIC && magic != GO118_MAGIC &&
	    magic != GO120_MAGIC) {
		p.be = 1;
		magic = rd(&p, 0, 4);
	}
	ver = magic == GO12_MAGIC ? 12 : magic == GO116_MAGIC ? 116 :
	    magic == GO118_MAGIC || magic == GO120_MAGIC ? 118 : 0;
	if (ver == 0 || get(&p, 8, p.ptr, &nfunc) == -1)
		goto bad;
	/* offset(word) = the pointer-sized value at 8 + word * ptr. */
	if (ver == 12) {
		functab = 8 + p.ptr;
		names = 0;
		field = p.ptr;
	} else if (ver == 116) {
		if (get(&p, 8 + 2 * p.ptr, p.ptr, &names) == -1 ||
		    get(&p, 8 + 6 * p.ptr, p.ptr, &functab) == -1)
			goto bad;
		field = p.ptr;
	} else {
		if (get(&p, 8 + 3 * p.ptr, p.ptr, &names) == -1 ||
		    get(&p, 8 + 7 * p.ptr, p.ptr, &functab) == -1)
			goto bad;
		field = 4;
	}
	/* The table: nfunc pairs and the end, within the section. */
	fsize = field * 2;
	if (nfunc == 0 || functab > len || nfunc > (len - functab) / fsize ||
	    (len - functab) - nfunc * fsize < field || names > len)
		goto bad;
	if (get(&p, functab + nfunc * fsize, field, &end) == -1)
		goto bad;
	if (ver == 118)
		end += text;
	for (i = 0; i < nfunc; i++) {
		pc = rd(&p, (size_t)(functab + i * fsize), field);
		funcoff = rd(&p, (size_t)(functab + i * fsize + field), field);
		next = rd(&p, (size_t)(functab + (i + 1) * fsize), field);
		if (ver == 118) {
			pc += text;
			next += text;
		}
		/* The _func: entry (a pointer, or 4 bytes from 1.18), then
		 * the name's offset (4 bytes), from the table's start (1.2:
		 * the section's). */
		w = (ver == 12 ? 0 : functab) + funcoff + (ver == 118 ? 4 : p.ptr);
		if (get(&p, w, 4, &nameoff) == -1 || names + nameoff >= len ||
		    (nlen = strnlen((const char *)data + names + nameoff,
		    len - (size_t)(names + nameoff))) == len - (size_t)(names + nameoff))
			goto bad;
		/* Sorted, within the table's end: else not a table to trust. */
		if (next < pc || next > end)
			goto bad;
		if (nlen == 0 || next == pc || pc < tstart)
			continue;
		if (sym_push(raw, n, cap, (const char *)data + names + nameoff, pc - tstart,
		    next - pc, end - tstart, 1) == -1)
			return -1;
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
