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

/* The header's tables, as debug/gosym's LineTable reads them: offsets
 * from the section's start (Go 1.2's names, pc-value tables and _funcs
 * are all at offsets from it: 0). */
struct hdr {
	int		 ver;		/* 12, 116 or 118 (1.18 and 1.20 on) */
	unsigned	 quantum;	/* of the pc-value tables' PC steps */
	unsigned	 field;		/* bytes of a function table field */
	uint64_t	 nfunc, functab, names, funcdata;
	uint64_t	 cutab, filetab, pctab, nfiletab;	/* files, pc-values */
};

static int
header(struct pcln *p, struct hdr *h)
{
	const unsigned char *data = p->d;
	uint64_t magic, w;

	memset(h, 0, sizeof(*h));
	if (p->len < 16 || data[4] != 0 || data[5] != 0 ||
	    (data[6] != 1 && data[6] != 2 && data[6] != 4) ||
	    (data[7] != 4 && data[7] != 8))
		return -1;
	p->ptr = data[7];
	h->quantum = data[6];
	magic = rd(p, 0, 4);
	if (magic != GO12_MAGIC && magic != GO116_MAGIC && magic != GO118_MAGIC &&
	    magic != GO120_MAGIC) {
		p->be = 1;
		magic = rd(p, 0, 4);
	}
	h->ver = magic == GO12_MAGIC ? 12 : magic == GO116_MAGIC ? 116 :
	    magic == GO118_MAGIC || magic == GO120_MAGIC ? 118 : 0;
	if (h->ver == 0 || get(p, 8, p->ptr, &h->nfunc) == -1)
		return -1;
	/* offset(word) = the pointer-sized value at 8 + word * ptr. */
	if (h->ver == 12) {
		h->functab = 8 + p->ptr;
		h->field = p->ptr;
		/* The file table follows the function table. */
		if (h->nfunc < (p->len - h->functab) / (2 * h->field) &&
		    get(p, h->functab + (2 * h->nfunc + 1) * h->field, 4, &w) == 0 &&
		    get(p, w, 4, &h->nfiletab) == 0)
			h->filetab = w;
		return 0;
	}
	w = h->ver == 116 ? 0 : 1;	/* 1.18 added the text's address */
	h->field = h->ver == 116 ? p->ptr : 4;
	if (get(p, 8 + p->ptr, p->ptr, &h->nfiletab) == -1 ||
	    get(p, 8 + (2 + w) * p->ptr, p->ptr, &h->names) == -1 ||
	    get(p, 8 + (3 + w) * p->ptr, p->ptr, &h->cutab) == -1 ||
	    get(p, 8 + (4 + w) * p->ptr, p->ptr, &h->filetab) == -1 ||
	    get(p, 8 + (5 + w) * p->ptr, p->ptr, &h->pctab) == -1 ||
	    get(p, 8 + (6 + w) * p->ptr, p->ptr, &h->functab) == -1)
		return -1;
	h->funcdata = h->functab;
	return 0;
}

int
sym_gopclntab(const unsigned char *data, size_t len, uint64_t text, uint64_t tstart,
    struct rawsym **raw, size_t *n, size_t *cap)
{
	struct pcln p = { data, len, 0, 0 };
	struct hdr h;
	uint64_t nfunc, functab, names, fsize, pc, next, end, funcoff, nameoff, w;
	unsigned field;
	size_t i, nlen;
	int ver;

	if (header(&p, &h) == -1)
		goto bad;
	ver = h.ver;
	nfunc = h.nfunc;
	functab = h.functab;
	names = h.names;
	field = h.field;
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

/* A varint of a pc-value table at *off (advanced), as debug/gosym's
 * readvarint: -1 past the end or over 32 bits. */
static int
varint(const struct pcln *p, uint64_t *off, uint32_t *v)
{
	unsigned shift;
	uint32_t x = 0;

	for (shift = 0; shift < 35; shift += 7) {
		unsigned char b;

		if (*off >= p->len)
			return -1;
		b = p->d[(*off)++];
		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* The value of the pc-value table at off for target, in the function
 * entered at entry (debug/gosym's pcvalue): 0 and *val, or -1 if the
 * table ends first, or leaves the section. */
static int
pcvalue(const struct pcln *p, unsigned quantum, uint64_t off, uint64_t entry,
    uint64_t target, int32_t *val)
{
	uint64_t pc = entry;
	uint32_t uv, pcd, v = UINT32_MAX;	/* -1, wrapping as Go's int32 */
	int first = 1;

	for (;;) {
		if (varint(p, &off, &uv) == -1)
			return -1;
		if (uv == 0 && !first)
			return -1;
		first = 0;
		uv = uv & 1 ? ~(uv >> 1) : uv >> 1;
		if (varint(p, &off, &pcd) == -1)
			return -1;
		pc += (uint64_t)pcd * quantum;
		v += uv;
		if (target < pc) {
			*val = (int32_t)v;
			return 0;
		}
	}
}

/* The NUL-terminated string at off, or NULL. */
static const char *
str_at(const struct pcln *p, uint64_t off)
{
	if (off >= p->len || memchr(p->d + off, '\0', p->len - (size_t)off) == NULL)
		return NULL;
	return (const char *)p->d + off;
}

int
sym_gopclntab_line(const unsigned char *data, size_t len, uint64_t text, uint64_t pc,
    const char **file, int *line)
{
	struct pcln p = { data, len, 0, 0 };
	struct hdr h;
	uint64_t lo, hi, mid, fsize, entry, next, funcoff, f, pcfile, pcln, cuoff = 0, w;
	unsigned sz0;
	int32_t fileno, ln;

	if (header(&p, &h) == -1)
		goto bad;
	fsize = 2 * (uint64_t)h.field;
	if (h.nfunc == 0 || h.functab > len || h.nfunc > (len - h.functab) / fsize)
		goto bad;
	/* The function holding pc: the last entry at or below it. */
	lo = 0;
	hi = h.nfunc;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (get(&p, h.functab + mid * fsize, h.field, &entry) == -1)
			goto bad;
		if ((h.ver == 118 ? entry + text : entry) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (get(&p, h.functab + lo * fsize, h.field, &entry) == -1 ||
	    get(&p, h.functab + lo * fsize + h.field, h.field, &funcoff) == -1 ||
	    get(&p, h.functab + (lo + 1) * fsize, h.field, &next) == -1)
		goto bad;
	if (h.ver == 118) {
		entry += text;
		next += text;
	}
	if (pc < entry || pc >= next)
		goto none;
	/* The _func: the entry (a pointer; 4 bytes from 1.18), then 4-byte
	 * fields, the nth at sz0 + (n - 1) * 4: pcfile 5, pcln 6, cuOffset 8. */
	f = h.funcdata + funcoff;
	sz0 = h.ver == 118 ? 4 : p.ptr;
	if (get(&p, f + sz0 + 4 * 4, 4, &pcfile) == -1 ||
	    get(&p, f + sz0 + 5 * 4, 4, &pcln) == -1 ||
	    (h.ver != 12 && get(&p, f + sz0 + 7 * 4, 4, &cuoff) == -1))
		goto bad;
	if (pcvalue(&p, h.quantum, h.pctab + pcln, entry, pc, &ln) == -1 || ln <= 0 ||
	    pcvalue(&p, h.quantum, h.pctab + pcfile, entry, pc, &fileno) == -1 ||
	    fileno < 0)
		goto none;
	if (h.ver == 12) {
		/* Go 1.2: file numbers index the file table from 1. */
		if (fileno == 0 || (uint64_t)fileno >= h.nfiletab ||
		    get(&p, h.filetab + 4 * (uint64_t)fileno, 4, &w) == -1)
			goto none;
		*file = str_at(&p, w);
	} else {
		/* A file number is its compilation unit's: cutab maps it to
		 * an offset in the file table (~0: none). */
		if (get(&p, h.cutab + 4 * (cuoff + (uint64_t)fileno), 4, &w) == -1 ||
		    w == 0xffffffffU)
			goto none;
		*file = str_at(&p, h.filetab + w);
	}
	if (*file == NULL || **file == '\0')
		goto none;
	*line = ln;
	return 0;
none:
	errno = ENOENT;
	return -1;
bad:
	errno = EINVAL;
	return -1;
}
