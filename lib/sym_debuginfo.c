/*
 * An ELF image's separate debuginfo: /usr/lib/debug/.build-id,
 * .gnu_debuglink and debuginfod.  Which file holds the image itself is
 * symbol.c's.
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

#include <dcpi/image.h>

#include "sym_int.h"

/* A separate debuginfo file for the image that has the same build-id (if
 * the image has one) and a .symtab; its path is malloc'd, and its fd and
 * Elf are returned.  root_only: only under the debug root (never the
 * image's own directory, never debuginfod). */
static Elf *
find_debug(const char *path, Elf *elf, const char *bid, const struct dcpi_symtab_opts *o,
    int root_only, char **dpath, int *dfd)
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
		if (!root_only && asprintf(&cand[1], "%s/%s", dir, link) == -1)
			cand[1] = NULL;
		if (!root_only && asprintf(&cand[2], "%s/.debug/%s", dir, link) == -1)
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
	if (d == NULL && !root_only && bid[0] != '\0' && urls != NULL && *urls != '\0' &&
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

Elf *
sym_find_debug(const char *path, Elf *elf, const char *bid, const struct dcpi_symtab_opts *o,
    char **dpath, int *dfd)
{
	return find_debug(path, elf, bid, o, 0, dpath, dfd);
}

int
dcpi_debuginfo_fd(int fd, const char *path, const char *imageid, const char *debugdir)
{
	struct dcpi_symtab_opts o;
	char *dpath = NULL;
	Elf *elf, *d;
	int dfd = -1;

	memset(&o, 0, sizeof(o));
	o.debugdir = debugdir;
	o.no_debuginfod = 1;
	elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL || elf_kind(elf) != ELF_K_ELF) {
		if (elf != NULL)
			elf_end(elf);
		errno = EINVAL;
		return -1;
	}
	d = find_debug(path, elf, imageid != NULL ? imageid : "", &o, 1, &dpath, &dfd);
	elf_end(elf);
	if (d == NULL) {
		errno = ENOENT;
		return -1;
	}
	elf_end(d);
	free(dpath);
	return dfd;
}
