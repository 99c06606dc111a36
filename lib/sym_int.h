/*
 * What the symbol table readers share (lib/symtab.c, lib/symbol.c,
 * lib/sym_*.c; not installed): the table itself and its builder
 * (symtab.c, below the readers), the raw symbols a reader collects, and
 * the readers' entry points (called by symbol.c, above them).  Each
 * returns 0, or -1 with errno and err set as dcpi_symtab_open documents.
 */
#ifndef DCPI_SYM_INT_H
#define DCPI_SYM_INT_H

#include <stddef.h>
#include <stdint.h>

#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>

#include <dcpi/image.h>
#include <dcpi/symbol.h>

#include "internal.h"

struct dcpi_symtab {
	struct dcpi_symbol *syms;
	size_t		 n;
	uint64_t	 tstart;
	int		 fd;		/* the image file, -1 for kallsyms */
	Elf		*elf;
	char		*debugpath;	/* separate debuginfo, or NULL */
	int		 dwfd;
	Elf		*dwelf;
	Dwarf		*dw;
	int		 dw_tried;
	Dwarf_Die	 last_cu;	/* consecutive addresses share a CU */
	int		 have_cu;
	char		*path;		/* for a late debuginfo search */
	int		 is_file;	/* path is an ELF file (not kallsyms) */
	char		 bid[DCPI_IMAGE_ID_LEN];	/* its build-id in hex, "" if none */
	struct dcpi_symtab_opts opts;
};

/* A symbol while loading: of aliases (one start), the highest prio is
 * kept. */
struct rawsym {
	char		*name;
	uint64_t	 start;
	uint64_t	 size;
	uint64_t	 limit;		/* end of its section: bound for size 0 */
	size_t		 prio;		/* ELF: 1 global, 0 local; kallsyms and
					 * perf maps: the line number */
};

/* Building a table (lib/symtab.c): sym_push appends a copy of name to raw
 * (-1 out of memory); sym_finish sorts, drops aliases, bounds sizes and
 * demangles into t->syms, taking raw's names (-1/ENOMEM, ENODATA: none);
 * sym_rawfree frees what sym_finish did not take. */
int sym_push(struct rawsym **raw, size_t *n, size_t *cap, const char *name,
    uint64_t start, uint64_t size, uint64_t limit, size_t prio);
int sym_finish(struct dcpi_symtab *t, struct rawsym *raw, size_t n, const char *what,
    struct dcpi_error *err);
void sym_rawfree(struct rawsym *raw, size_t n);

/* A table's ELF files (lib/symtab.c).  sym_open_elf: a regular ELF
 * file's Elf and descriptor (*fdp), else NULL with errno (EINVAL: not
 * one).  sym_find_section: the first section of type (0: any) named name
 * (NULL: any).  sym_close_files: releases t's descriptors and Elf
 * handles.  sym_reopen: the image file again, -1/ESTALE if it has changed
 * since the symbols were read. */
Elf *sym_open_elf(const char *path, int *fdp);
Elf_Scn *sym_find_section(Elf *elf, Elf64_Word type, const char *name);
void sym_close_files(struct dcpi_symtab *t);
int sym_reopen(struct dcpi_symtab *t);

/* Text snapshots (lib/sym_kallsyms.c): the kernel (module NULL) or a
 * module from kallsyms; a JIT pseudo-image from its perf map in o->db. */
int sym_load_kallsyms(struct dcpi_symtab *t, const char *kallsyms, const char *module,
    struct dcpi_error *err);
int sym_load_perfmap(struct dcpi_symtab *t, const char *path, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err);

/* ELF files (lib/sym_elf.c): the symbols of the file at path, which must
 * be imageid if it has a build-id. */
int sym_load_elf(struct dcpi_symtab *t, const char *path, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err);

/* A Go program's function table (lib/sym_gopclntab.c): the functions of
 * its .gopclntab section, data[0..len), in the layouts of Go 1.2, 1.16 and
 * 1.18 and 1.20 on (debug/gosym), pushed to raw as global symbols, each up to the
 * next (start and limit relative to tstart; those below it are left out).
 * text is the address of the .text section, from which Go 1.18 on counts
 * its entries.  0, or -1 with errno: ENOMEM; EINVAL for a table that
 * cannot be read (magic, header, an offset or a name past the section's
 * end, entries out of order), raw then holding what was pushed before. */
int sym_gopclntab(const unsigned char *data, size_t len, uint64_t text, uint64_t tstart,
    struct rawsym **raw, size_t *n, size_t *cap);
/* The source file and line of the instruction at address pc (the ELF's
 * vaddr) from the same table's pc-value tables (debug/gosym's
 * PCToLine, PCToFile): 0 with *file pointing into data (NUL-terminated
 * there) and *line >= 1; -1 with errno ENOENT where the table gives none
 * (pc in no function, no line or file for it), EINVAL for a table that
 * cannot be read. */
int sym_gopclntab_line(const unsigned char *data, size_t len, uint64_t text, uint64_t pc,
    const char **file, int *line);

/* A stripped ELF file's functions that no symbol of raw covers, from its
 * .eh_frame (lib/sym_ehframe.c): each FDE's range (as libdw reads it)
 * pushed as a local symbol "sub_VADDR" (hex; start and size relative to
 * tstart; ranges below it left out).  Nothing is pushed for a file without
 * PT_GNU_EH_FRAME or with a table in an encoding other than the linkers'
 * (udata4 count, datarel|sdata4 entries).  0, or -1/ENOMEM. */
int sym_ehframe(Elf *elf, uint64_t tstart, struct rawsym **raw, size_t *n, size_t *cap);

/* Separate debuginfo (lib/sym_debuginfo.c): the file with the image's
 * build-id bid and a .symtab, its path malloc'd into *dpath and descriptor
 * into *dfd; NULL if none. */
Elf *sym_find_debug(const char *path, Elf *elf, const char *bid,
    const struct dcpi_symtab_opts *o, char **dpath, int *dfd);

/* DWARF (lib/sym_lines.c): sym_dwarf, the table's DWARF, from its file or
 * its separate debuginfo (looked for on first use), NULL if neither has
 * any; sym_cu, the compilation unit holding the ELF address addr into
 * *cu (0), -1 if none does or there is no DWARF.  Both owned by t. */
Dwarf *sym_dwarf(struct dcpi_symtab *t);
int sym_cu(struct dcpi_symtab *t, Dwarf_Addr addr, Dwarf_Die *cu);

#endif
