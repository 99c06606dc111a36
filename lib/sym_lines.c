/*
 * Source lines of a symbol table's addresses from DWARF, or for a Go
 * program without it from its .gopclntab: dcpi_symtab_srcline.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>


#include "sym_int.h"

Dwarf *
sym_dwarf(struct dcpi_symtab *t)
{
	char hex[DCPI_IMAGE_ID_LEN] = "";

	if (t->dw_tried)
		return t->dw;
	t->dw_tried = 1;
	if (sym_reopen(t) == -1)
		return NULL;
	if ((t->dw = dwarf_begin_elf(t->elf, DWARF_C_READ, NULL)) != NULL)
		return t->dw;
	if (t->debugpath != NULL) {
		if ((t->dwelf = sym_open_elf(t->debugpath, &t->dwfd)) == NULL)
			return NULL;
	} else {
		/* Symbols came from the file itself, which has no DWARF: its
		 * debuginfo is only looked for now, when lines are asked for. */
		lib_build_id_hex(t->elf, hex);
		t->dwelf = sym_find_debug(t->path, t->elf, hex, &t->opts, &t->debugpath, &t->dwfd);
		if (t->dwelf == NULL)
			return NULL;
	}
	t->dw = dwarf_begin_elf(t->dwelf, DWARF_C_READ, NULL);
	return t->dw;
}

/* A Go program without DWARF (go build -ldflags='-s -w'): the lines of
 * its own table, .gopclntab, which the runtime keeps for its tracebacks. */
static int
go_srcline(struct dcpi_symtab *t, uint64_t addr, const char **file, int *line)
{
	Elf_Scn *scn, *text;
	Elf_Data *data;
	GElf_Shdr sh;

	if (sym_reopen(t) == -1)
		return -1;		/* ESTALE: another file now */
	if (((scn = sym_find_section(t->elf, SHT_PROGBITS, ".gopclntab")) == NULL &&
	    (scn = sym_find_section(t->elf, SHT_PROGBITS, ".data.rel.ro.gopclntab")) == NULL) ||
	    (text = sym_find_section(t->elf, SHT_PROGBITS, ".text")) == NULL ||
	    gelf_getshdr(text, &sh) == NULL || (data = elf_getdata(scn, NULL)) == NULL ||
	    data->d_buf == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (sym_gopclntab_line(data->d_buf, data->d_size, sh.sh_addr, addr, file, line) == -1) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int
sym_cu(struct dcpi_symtab *t, Dwarf_Addr addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw;

	if ((dw = sym_dwarf(t)) == NULL)
		return -1;
	if (t->have_cu && dwarf_haspc(&t->last_cu, addr) == 1) {
		*cu = t->last_cu;
		return 0;
	}
	if (dwarf_addrdie(dw, addr, cu) == NULL) {
		/* No .debug_aranges (recent GCC omits them): scan the CUs. */
		for (;;) {
			if (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) != 0)
				return -1;
			if (dwarf_offdie(dw, off + hsize, cu) != NULL && dwarf_haspc(cu, addr) == 1)
				break;
			off = next;
		}
	}
	t->last_cu = *cu;
	t->have_cu = 1;
	return 0;
}

int
dcpi_symtab_srcline(struct dcpi_symtab *t, uint64_t offset, const char **file, int *line)
{
	Dwarf_Addr addr = t->tstart + offset;
	Dwarf_Die cu;
	Dwarf_Line *l;
	int ln;

	if (sym_dwarf(t) == NULL)
		return go_srcline(t, addr, file, line);
	if (sym_cu(t, addr, &cu) == -1 || (l = dwarf_getsrc_die(&cu, addr)) == NULL ||
	    (*file = dwarf_linesrc(l, NULL, NULL)) == NULL || dwarf_lineno(l, &ln) != 0 ||
	    ln <= 0) {
		errno = ENOENT;
		return -1;
	}
	*line = ln;
	return 0;
}
