/*
 * Symbol tables from ELF files (.symtab, else .dynsym and the functions
 * of .eh_frame: sym_ehframe.c), and the code they hold: dcpi_symtab_read.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>


#include "sym_int.h"

/* Function symbols of one symbol table section into raw. */
static int
elf_syms(Elf *elf, Elf_Scn *scn, uint64_t tstart, struct rawsym **raw, size_t *n,
    size_t *cap)
{
	GElf_Shdr sh, ssh;
	GElf_Sym sym;
	Elf_Data *data;
	Elf_Scn *s;
	const char *name;
	uint64_t limit;
	size_t i, cnt;
	int type;

	if (gelf_getshdr(scn, &sh) == NULL || (data = elf_getdata(scn, NULL)) == NULL ||
	    sh.sh_entsize == 0)
		return 0;
	cnt = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < cnt; i++) {
		if (gelf_getsym(data, (int)i, &sym) == NULL)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value < tstart || sym.st_value == 0)
			continue;
		if ((name = elf_strptr(elf, sh.sh_link, sym.st_name)) == NULL || *name == '\0')
			continue;
		limit = sym.st_value + (sym.st_size ? sym.st_size : 1);
		if (sym.st_shndx < SHN_LORESERVE && (s = elf_getscn(elf, sym.st_shndx)) != NULL &&
		    gelf_getshdr(s, &ssh) != NULL && ssh.sh_addr + ssh.sh_size > sym.st_value)
			limit = ssh.sh_addr + ssh.sh_size;
		if (sym_push(raw, n, cap, name, sym.st_value - tstart, sym.st_size, limit - tstart,
		    GELF_ST_BIND(sym.st_info) != STB_LOCAL ? 1 : 0) == -1)
			return -1;
	}
	return 0;
}

/* The functions of a Go program's .gopclntab (a PIE's is in
 * .data.rel.ro.gopclntab), if it has one: 0, or -1 as sym_gopclntab. */
static int
go_syms(Elf *elf, uint64_t tstart, struct rawsym **raw, size_t *n, size_t *cap)
{
	Elf_Scn *scn, *text;
	Elf_Data *data;
	GElf_Shdr sh;

	if ((scn = sym_find_section(elf, SHT_PROGBITS, ".gopclntab")) == NULL &&
	    (scn = sym_find_section(elf, SHT_PROGBITS, ".data.rel.ro.gopclntab")) == NULL)
		return 0;
	if ((text = sym_find_section(elf, SHT_PROGBITS, ".text")) == NULL ||
	    gelf_getshdr(text, &sh) == NULL || (data = elf_getdata(scn, NULL)) == NULL ||
	    data->d_buf == NULL) {
		errno = EINVAL;
		return -1;
	}
	return sym_gopclntab(data->d_buf, data->d_size, sh.sh_addr, tstart, raw, n, cap);
}

/* elfutils reads a section header table that does not fit in the file as
 * no sections at all, without an error: nonzero if that is what happened
 * to elf (and err set, when not NULL). */
static int
elf_shdrs_lost(Elf *elf, const char *path, struct dcpi_error *err)
{
	GElf_Ehdr eh;
	size_t shnum;

	if (gelf_getehdr(elf, &eh) == NULL || eh.e_shoff == 0)
		return 0;
	if (elf_getshdrnum(elf, &shnum) == 0 && shnum > 0)
		return 0;
	if (err != NULL)
		lib_seterr(err, EINVAL, "%s: cannot read its symbols: section header "
		    "table at byte %" PRIu64 " (%u entries) is corrupted", path,
		    (uint64_t)eh.e_shoff, eh.e_shnum);
	return 1;
}

int
sym_load_elf(struct dcpi_symtab *t, const char *path, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err)
{
	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0;
	char bid[DCPI_IMAGE_ID_LEN] = "";
	Elf_Scn *scn;
	int rc;

	if ((t->elf = sym_open_elf(path, &t->fd)) == NULL) {
		if (errno == EINVAL)
			lib_seterr(err, EINVAL, "%s: not an ELF file", path);
		else
			lib_seterr(err, errno, "%s: %s", path, strerror(errno));
		return -1;
	}
	lib_build_id_hex(t->elf, bid);
	if (imageid != NULL && bid[0] != '\0' && strcasecmp(bid, imageid) != 0) {
		lib_seterr(err, ESTALE, "%s: build-id %s on disk, the profile's image is %s",
		    path, bid, imageid);
		return -1;
	}
	/* find_section and elf_syms skip what libelf cannot read; an image
	 * left without symbols that way is reported, not shown as stripped. */
	(void)elf_errno();
	if ((scn = sym_find_section(t->elf, SHT_SYMTAB, NULL)) != NULL)
		rc = elf_syms(t->elf, scn, t->tstart, &raw, &n, &cap);
	else if ((t->dwelf = sym_find_debug(path, t->elf, bid, o, &t->debugpath, &t->dwfd)) != NULL)
		rc = elf_syms(t->dwelf, sym_find_section(t->dwelf, SHT_SYMTAB, NULL), t->tstart,
		    &raw, &n, &cap);
	else {
		/* A stripped Go program still has its function table; a cgo
		 * one its C exports beside it. */
		rc = go_syms(t->elf, t->tstart, &raw, &n, &cap);
		if (rc == 0 && (scn = sym_find_section(t->elf, SHT_DYNSYM, NULL)) != NULL)
			rc = elf_syms(t->elf, scn, t->tstart, &raw, &n, &cap);
		/* Its static functions: by their frame information; not
		 * in a file whose sections are lost (said below). */
		if (rc == 0 && !elf_shdrs_lost(t->elf, path, NULL))
			rc = sym_ehframe(t->elf, t->tstart, &raw, &n, &cap);
	}
	if (rc == -1 && errno == EINVAL) {
		sym_rawfree(raw, n);
		lib_seterr(err, EINVAL, "%s: its Go function table (.gopclntab) cannot be "
		    "read: corrupt, or a layout newer than Go 1.20's", path);
		return -1;
	}
	if (rc == -1) {
		sym_rawfree(raw, n);
		lib_seterr(err, ENOMEM, "%s: out of memory", path);
		return -1;
	}
	if (n == 0 && (rc = elf_errno()) != 0) {
		lib_seterr(err, EINVAL, "%s: cannot read its symbols (corrupted section headers "
		    "or symbol table?): %s", path, elf_errmsg(rc));
		return -1;
	}
	if (n == 0 && elf_shdrs_lost(t->elf, path, err))
		return -1;
	rc = sym_finish(t, raw, n, path, err);
	free(raw);
	/* Symbols are copied: release the files, so that 1,000s of tables
	 * do not hold 1,000s of descriptors.  Reopened when code or lines
	 * are asked for. */
	snprintf(t->bid, sizeof(t->bid), "%s", bid);
	t->is_file = 1;
	sym_close_files(t);
	return rc;
}

int
dcpi_symtab_read(struct dcpi_symtab *t, uint64_t offset, size_t len, void **buf,
    size_t *got)
{
	uint64_t addr = t->tstart + offset;
	Elf_Scn *scn = NULL;
	size_t i, nph;
	GElf_Shdr sh;
	GElf_Phdr ph;
	ssize_t r;
	void *b;

	if (sym_reopen(t) == -1)
		return -1;
	/* A separate debug file keeps the program headers but not the code
	 * (its sections are SHT_NOBITS): read nothing rather than zeros. */
	while ((scn = elf_nextscn(t->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_ALLOC) ||
		    addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			errno = EFAULT;
			return -1;
		}
		break;
	}
	if (elf_getphdrnum(t->elf, &nph) != 0)
		nph = 0;
	for (i = 0; i < nph; i++) {
		if (gelf_getphdr(t->elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		if (len > ph.p_filesz - (addr - ph.p_vaddr))
			len = ph.p_filesz - (addr - ph.p_vaddr);
		if ((b = malloc(len ? len : 1)) == NULL)
			return -1;
		r = pread(t->fd, b, len, (off_t)(ph.p_offset + (addr - ph.p_vaddr)));
		if (r < 0) {
			free(b);
			return -1;
		}
		*buf = b;
		*got = (size_t)r;
		return 0;
	}
	errno = EFAULT;
	return -1;
}
