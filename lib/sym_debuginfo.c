/*
 * Where an ELF image's symbols are found: the recorded paths, the
 * database's build-id cache, separate debuginfo (/usr/lib/debug/.build-id,
 * .gnu_debuglink) and debuginfod.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <elfutils/debuginfod.h>

#include <dcpi/db.h>
#include <dcpi/image.h>

#include "sym_int.h"

/* A separate debuginfo file for the image that has the same build-id (if
 * the image has one) and a .symtab; its path is malloc'd, and its fd and
 * Elf are returned. */
Elf *
sym_find_debug(const char *path, Elf *elf, const char *bid, const struct dcpi_symtab_opts *o,
    char **dpath, int *dfd)
{
	const char *root = o && o->debugdir ? o->debugdir : "/usr/lib/debug";
	char *cand[4] = { NULL, NULL, NULL, NULL }, dir[4096], hex[DCPI_IMAGE_ID_LEN];
	const char *link, *slash, *urls;
	GElf_Word crc;
	Elf *d = NULL;
	size_t i;
	int fd;

	if (bid[0] != '\0' && strlen(bid) > 2 &&
	    asprintf(&cand[0], "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2) == -1)
		cand[0] = NULL;
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if ((link = dwelf_elf_gnu_debuglink(elf, &crc)) != NULL && strchr(link, '/') == NULL) {
		if (asprintf(&cand[1], "%s/%s", dir, link) == -1)
			cand[1] = NULL;
		if (asprintf(&cand[2], "%s/.debug/%s", dir, link) == -1)
			cand[2] = NULL;
		if (asprintf(&cand[3], "%s%s/%s", root, dir, link) == -1)
			cand[3] = NULL;
	}
	for (i = 0; i < 4 && d == NULL; i++) {
		if (cand[i] == NULL || strcmp(cand[i], path) == 0)
			continue;
		if ((d = sym_open_elf(cand[i], &fd)) == NULL)
			continue;
		if (sym_find_section(d, SHT_SYMTAB, NULL) == NULL ||
		    (bid[0] != '\0' && (lib_build_id_hex(d, hex) == 0 ||
		    strcasecmp(hex, bid) != 0))) {
			elf_end(d);
			close(fd);
			d = NULL;
			continue;
		}
		*dpath = cand[i];
		cand[i] = NULL;
		*dfd = fd;
	}
	for (i = 0; i < 4; i++)
		free(cand[i]);
	/* Only when asked for: debuginfod may go to the network. */
	urls = getenv("DEBUGINFOD_URLS");
	if (d == NULL && bid[0] != '\0' && urls != NULL && *urls != '\0' &&
	    (o == NULL || !o->no_debuginfod)) {
		unsigned char raw[64];
		size_t len = strlen(bid) / 2;
		debuginfod_client *c;
		char *p = NULL;

		for (i = 0; i < len && i < sizeof(raw); i++)
			sscanf(bid + 2 * i, "%2hhx", &raw[i]);
		if ((c = debuginfod_begin()) != NULL) {
			fd = debuginfod_find_debuginfo(c, raw, (int)i, &p);
			debuginfod_end(c);
			if (fd >= 0) {
				close(fd);
				if ((d = sym_open_elf(p, dfd)) != NULL)
					*dpath = p;
				else
					free(p);
			}
		}
	}
	return d;
}

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
int
sym_load_elsewhere(struct dcpi_symtab *t, const char *path, const char *imageid,
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
