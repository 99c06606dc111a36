/*
 * Symbol tables (lib/dcpi/symbol.h): the table, below the readers that
 * fill it.  The builder the readers (sym_*.c) push their raw symbols to
 * and finish a table with; the table's look-ups; and the image files a
 * table holds (opened, reopened for code and lines, closed), which the
 * readers share.  Nothing here calls a reader: which reader a path takes
 * is symbol.c's, above them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_int.h"

static int
rawsym_cmp(const void *a, const void *b)
{
	const struct rawsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sorts raw symbols, drops aliases, bounds sizes, demangles names into
 * t->syms.  Takes ownership of raw's names.  0 or -1/ENOMEM, ENODATA. */
int
sym_finish(struct dcpi_symtab *t, struct rawsym *raw, size_t n, const char *what,
    struct dcpi_error *err)
{
	size_t i, j, k;
	uint64_t end;
	char *d;

	if (n > 1)
		qsort(raw, n, sizeof(*raw), rawsym_cmp);
	t->syms = calloc(n ? n : 1, sizeof(*t->syms));
	if (t->syms == NULL) {
		for (i = 0; i < n; i++)
			free(raw[i].name);
		lib_seterr(err, ENOMEM, "%s: out of memory", what);
		return -1;
	}
	for (i = 0, k = 0; i < n; i = j) {
		for (j = i + 1; j < n && raw[j].start == raw[i].start; j++)
			free(raw[j].name);
		end = raw[i].size ? raw[i].start + raw[i].size : raw[i].limit;
		if (j < n && end > raw[j].start)
			end = raw[j].start;
		if (end <= raw[i].start) {
			free(raw[i].name);
			continue;
		}
		if ((d = dcpi_demangle(raw[i].name)) != NULL) {
			free(raw[i].name);
			raw[i].name = d;
		}
		t->syms[k].name = raw[i].name;
		t->syms[k].start = raw[i].start;
		t->syms[k].size = end - raw[i].start;
		k++;
	}
	t->n = k;
	if (k == 0) {
		lib_seterr(err, ENODATA, "%s: no function symbols", what);
		return -1;
	}
	return 0;
}

int
sym_push(struct rawsym **raw, size_t *n, size_t *cap, const char *name, uint64_t start,
    uint64_t size, uint64_t limit, size_t prio)
{
	struct rawsym *r;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		if ((r = reallocarray(*raw, nc, sizeof(**raw))) == NULL)
			return -1;
		*raw = r;
		*cap = nc;
	}
	r = &(*raw)[*n];
	if ((r->name = strdup(name)) == NULL)
		return -1;
	r->start = start;
	r->size = size;
	r->limit = limit;
	r->prio = prio;
	(*n)++;
	return 0;
}

void
sym_rawfree(struct rawsym *raw, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(raw[i].name);
	free(raw);
}

Elf_Scn *
sym_find_section(Elf *elf, Elf64_Word type, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || (type && sh.sh_type != type))
			continue;
		if (name == NULL || ((s = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL &&
		    strcmp(s, name) == 0))
			return scn;
	}
	return NULL;
}

Elf *
sym_open_elf(const char *path, int *fdp)
{
	struct stat st;
	Elf *elf;
	int fd;

	/* A profile's path may name anything: a FIFO must not hang the
	 * open, nor a device the read. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
		if (elf != NULL)
			elf_end(elf);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	*fdp = fd;
	return elf;
}

void
sym_close_files(struct dcpi_symtab *t)
{
	if (t->dw != NULL)
		dwarf_end(t->dw);
	if (t->dwelf != NULL)
		elf_end(t->dwelf);
	if (t->dwfd != -1)
		close(t->dwfd);
	if (t->elf != NULL)
		elf_end(t->elf);
	if (t->fd != -1)
		close(t->fd);
	t->dw = NULL;
	t->dwelf = t->elf = NULL;
	t->dwfd = t->fd = -1;
}

/* The image file again, after the symbols were read; -1/ESTALE if it has
 * changed since. */
int
sym_reopen(struct dcpi_symtab *t)
{
	char hex[DCPI_IMAGE_ID_LEN] = "";

	if (t->elf != NULL)
		return 0;
	if (!t->is_file) {
		errno = ENOENT;
		return -1;
	}
	if ((t->elf = sym_open_elf(t->path, &t->fd)) == NULL)
		return -1;
	lib_build_id_hex(t->elf, hex);
	if (strcasecmp(hex, t->bid) != 0) {
		elf_end(t->elf);
		close(t->fd);
		t->elf = NULL;
		t->fd = -1;
		errno = ESTALE;
		return -1;
	}
	return 0;
}

void
dcpi_symtab_close(struct dcpi_symtab *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free((char *)t->syms[i].name);
	free(t->syms);
	sym_close_files(t);
	free(t->debugpath);
	free(t->path);
	free((char *)t->opts.debugdir);
	free(t);
}

const struct dcpi_symbol *
dcpi_symtab_lookup(const struct dcpi_symtab *t, uint64_t offset)
{
	size_t lo = 0, hi = t->n, mid;

	/* The last symbol starting at or before offset. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->syms[mid].start <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || offset - t->syms[lo - 1].start >= t->syms[lo - 1].size)
		return NULL;
	return &t->syms[lo - 1];
}

const char *
dcpi_symtab_path(const struct dcpi_symtab *t)
{
	return t->path;
}

const struct dcpi_symbol *
dcpi_symtab_symbols(const struct dcpi_symtab *t, size_t *n)
{
	*n = t->n;
	return t->syms;
}

const struct dcpi_symbol *
dcpi_symtab_find(const struct dcpi_symtab *t, const char *name)
{
	size_t i, l = strlen(name);

	for (i = 0; i < t->n; i++)
		if (strcmp(t->syms[i].name, name) == 0)
			return &t->syms[i];
	/* "f" finds "f(int)" and "ns::f(char const*)" finds itself above. */
	for (i = 0; i < t->n; i++)
		if (strncmp(t->syms[i].name, name, l) == 0 && t->syms[i].name[l] == '(')
			return &t->syms[i];
	return NULL;
}
