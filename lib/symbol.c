/*
 * Symbolization: lib/dcpi/symbol.h.  The symtab API, which source a path
 * is read from (kallsyms, perf map, ELF file), and the building of a
 * table from raw symbols shared by those readers.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libelf.h>

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

struct dcpi_symtab *
dcpi_symtab_open(const char *path, const char *imageid, uint64_t tstart,
    const struct dcpi_symtab_opts *opts, struct dcpi_error *err)
{
	struct dcpi_symtab *t;
	char module[256];
	size_t l;
	int rc;

	if ((t = calloc(1, sizeof(*t))) == NULL) {
		lib_seterr(err, ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	t->tstart = tstart;
	t->fd = t->dwfd = -1;
	if (opts != NULL)
		t->opts = *opts;
	t->opts.kallsyms = t->opts.debugdir = t->opts.db = NULL;
	t->opts.paths = NULL;
	t->opts.n_paths = 0;
	if ((t->path = strdup(path)) == NULL ||
	    (opts && opts->debugdir && (t->opts.debugdir = strdup(opts->debugdir)) == NULL)) {
		dcpi_symtab_close(t);
		lib_seterr(err, ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	elf_version(EV_CURRENT);
	l = strlen(path);
	if (strcmp(path, "[kernel.kallsyms]") == 0)
		rc = sym_load_kallsyms(t, opts ? opts->kallsyms : NULL, NULL, err);
	else if (strncmp(path, "[jit:", 5) == 0)
		rc = sym_load_perfmap(t, path, imageid, opts, err);
	else if (path[0] == '[' && l > 2 && path[l - 1] == ']' && l - 2 < sizeof(module) &&
	    strcmp(path, "[vdso]") != 0 && strcmp(path, "[vsyscall]") != 0) {
		snprintf(module, sizeof(module), "%.*s", (int)(l - 2), path + 1);
		rc = sym_load_kallsyms(t, opts ? opts->kallsyms : NULL, module, err);
	} else if (path[0] != '/' && strcmp(path, "[vdso]") != 0) {
		lib_seterr(err, ENODATA, "%s: no file to read symbols from", path);
		rc = -1;
	} else
		rc = sym_load_elsewhere(t, path, imageid, opts, err);
	if (rc == -1) {
		int e = errno;
		dcpi_symtab_close(t);
		errno = e;
		return NULL;
	}
	return t;
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
