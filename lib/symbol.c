/*
 * Symbolization: lib/dcpi/symbol.h.  Which reader a path is read by
 * (kallsyms, perf map, ELF file: sym_*.c) and, for an ELF image, which
 * file holds it: the recorded paths, the build-id cache, the debug
 * directory, debuginfod.  The table the readers fill is symtab.c's.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libelf.h>
#include <elfutils/debuginfod.h>

#include <dcpi/db.h>
#include <dcpi/image.h>

#include "sym_int.h"

/* Forgets what a failed try at one file left in t. */
static void
reset(struct dcpi_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free((char *)t->syms[i].name);
	free(t->syms);
	t->syms = NULL;
	t->n = 0;
	sym_close_files(t);
	free(t->debugpath);
	t->debugpath = NULL;
	t->is_file = 0;
	t->bid[0] = '\0';
}

/* Tries the file at cand for the image: t->path becomes cand, so that
 * code and lines are read from the file the symbols came from. */
static int
try_file(struct dcpi_symtab *t, const char *cand, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err)
{
	struct dcpi_elf_image ei;
	int same, rc, e;

	reset(t);
	free(t->path);
	if ((t->path = strdup(cand)) == NULL) {
		lib_seterr(err, ENOMEM, "%s: out of memory", cand);
		return -1;
	}
	/* A file without the image's symbols may still be another image,
	 * which tells ESTALE (show NAME+0xOFF) from ENODATA. */
	if ((rc = sym_load_elf(t, cand, imageid, o, err)) == -1 && errno != ENODATA)
		return -1;
	e = errno;
	if (imageid == NULL || t->bid[0] != '\0')
		return rc;
	/* A file without a build-id is checked by its content hash. */
	if (dcpi_elf_image_path(cand, 0, &ei, NULL) == -1) {
		errno = e;
		return rc;	/* not hashed (too large): used as is */
	}
	same = strcasecmp(ei.id, imageid) == 0;
	if (!same)
		lib_seterr(err, ESTALE, "%s: content hash %s on disk, the profile's "
		    "image is %s", cand, ei.id, imageid);
	dcpi_elf_image_clear(&ei);
	if (!same) {
		reset(t);
		errno = ESTALE;
		return -1;
	}
	errno = e;
	return rc;
}

/* The image's executable, else its debuginfo, from debuginfod: only when
 * DEBUGINFOD_URLS asks for it, as it may go to the network. */
static int
try_debuginfod(struct dcpi_symtab *t, const char *imageid,
    const struct dcpi_symtab_opts *o)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	unsigned char raw[DCPI_IMAGE_ID_LEN / 2];
	debuginfod_client *c;
	size_t len, i;
	char *p = NULL;
	int fd, rc = -1, pass;

	if (urls == NULL || *urls == '\0' || (o != NULL && o->no_debuginfod))
		return -1;
	len = strlen(imageid) / 2;
	for (i = 0; i < len && i < sizeof(raw); i++)
		if (sscanf(imageid + 2 * i, "%2hhx", &raw[i]) != 1)
			return -1;
	if ((c = debuginfod_begin()) == NULL)
		return -1;
	for (pass = 0; pass < 2 && rc == -1; pass++) {
		fd = pass == 0 ? debuginfod_find_executable(c, raw, (int)i, &p) :
		    debuginfod_find_debuginfo(c, raw, (int)i, &p);
		if (fd < 0)
			continue;
		close(fd);
		rc = try_file(t, p, imageid, o, NULL);
		free(p);
		p = NULL;
	}
	debuginfod_end(c);
	return rc;
}

/*
 * An ELF image's symbols, looked for in order: the recorded paths (path,
 * then o->paths) where one holds the image (same build-id or content
 * hash), the database's build-id cache (DB/buildid/ID/executable: images
 * of other mount namespaces, deleted files, the vdso), the separate debug
 * file by build-id (DEBUGDIR/.build-id/NN/REST.debug, also when the image
 * file is gone or changed), debuginfod.  The message of the first failure
 * is kept.
 */
static int
load_elsewhere(struct dcpi_symtab *t, const char *path, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err)
{
	const char *root = o && o->debugdir ? o->debugdir : "/usr/lib/debug";
	struct dcpi_error first;
	const char *rec;
	char *cand = NULL;
	size_t i, np = o != NULL && o->paths != NULL ? o->n_paths : 0;
	int rc = -1, e = 0;

	first.msg[0] = '\0';
	for (i = 0; i <= np; i++) {
		rec = i == 0 ? path : o->paths[i - 1];
		if (rec == NULL || rec[0] != '/' || (i > 0 && strcmp(rec, path) == 0))
			continue;
		if ((rc = try_file(t, rec, imageid, o, first.msg[0] ? NULL : &first)) == 0)
			goto out;
		if (e == 0)
			e = errno;
		if (imageid == NULL && i == 0)
			goto out;	/* nothing to check another file against */
	}
	if (first.msg[0] == '\0') {
		lib_seterr(&first, ENODATA, "%s: no file to read symbols from and "
		    "not in the build-id cache", path);
		e = ENODATA;
	}
	if (imageid == NULL || imageid[0] == '\0')
		goto out;
	if (o != NULL && o->db != NULL &&
	    (cand = dcpi_db_buildid_path(o->db, imageid, "executable")) != NULL) {
		struct dcpi_error cerr;

		if ((rc = try_file(t, cand, imageid, o, &cerr)) == 0)
			goto out;
		/* The cache holds the image, but no symbols (a stripped
		 * file): say so, as the file at its path would have, rather
		 * than that the path is gone. */
		if (errno == ENODATA) {
			first = cerr;
			e = ENODATA;
		}
	}
	free(cand);
	cand = NULL;
	if (strlen(imageid) > 2 && asprintf(&cand, "%s/.build-id/%.2s/%s.debug", root,
	    imageid, imageid + 2) != -1 && (rc = try_file(t, cand, imageid, o, NULL)) == 0)
		goto out;
	if ((rc = try_debuginfod(t, imageid, o)) == 0)
		goto out;
	errno = e;
out:
	free(cand);
	if (rc == -1 && err != NULL)
		*err = first;
	return rc;
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
		rc = load_elsewhere(t, path, imageid, opts, err);
	if (rc == -1) {
		int e = errno;
		dcpi_symtab_close(t);
		errno = e;
		return NULL;
	}
	return t;
}
