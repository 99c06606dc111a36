/*
 * Helpers of the analysis tests: the test binary's own layout (build-id,
 * tstart, offsets of its functions) and hand-written profile databases.
 */
#ifndef TESTS_ANALYSIS_UTIL_H
#define TESTS_ANALYSIS_UTIL_H

#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>

#include <dcpi/db.h>
#include <dcpi/profile.h>

#include "commands.h"

struct self {
	char		 path[4096];
	char		 buildid[130];
	uint64_t	 tstart;	/* first executable PT_LOAD's p_vaddr */
	uint64_t	 tsize;
	uintptr_t	 base;		/* load bias */
};

static inline int
self_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	/* The main program comes first, with an empty name. */
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;
}

/* Fills s for the running test program; aborts on failure. */
static inline void
self_load(struct self *s)
{
	const unsigned char *id;
	GElf_Phdr ph;
	size_t nph, i;
	ssize_t len, l;
	Elf *e;
	int fd;

	memset(s, 0, sizeof(*s));
	if ((l = readlink("/proc/self/exe", s->path, sizeof(s->path) - 1)) <= 0)
		abort();
	s->path[l] = '\0';
	elf_version(EV_CURRENT);
	if ((fd = open(s->path, O_RDONLY)) == -1 || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		abort();
	len = dwelf_elf_gnu_build_id(e, (const void **)&id);
	for (i = 0; len > 0 && i < (size_t)len; i++)
		snprintf(s->buildid + 2 * i, 3, "%02x", id[i]);
	if (elf_getphdrnum(e, &nph) != 0)
		abort();
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			s->tstart = ph.p_vaddr;
			s->tsize = ph.p_memsz;
			break;
		}
	elf_end(e);
	close(fd);
	dl_iterate_phdr(self_base, &s->base);
}

/* Image-relative offset of a function of the test program. */
static inline uint64_t
self_offset(const struct self *s, const void *fn)
{
	return (uint64_t)((uintptr_t)fn - s->base) - s->tstart;
}

/* Writes DB/EPOCH/HOST/EVENT/NAME.ID with n (offset, count) pairs. */
static inline void
write_profile(const char *db, const char *epoch, const char *host, const char *event,
    uint64_t period, const char *path, const char *id, uint64_t tstart, uint64_t tsize,
    const struct dcpi_count *c, size_t n)
{
	struct dcpi_profile *p = dcpi_profile_new();
	struct dcpi_error err;
	char buf[64], name[1024], *dir, file[4096];
	size_t i;

	if (p == NULL || dcpi_db_mkdirs(db, epoch, host, event, &err) == -1)
		abort();
	dcpi_profile_set(p, "image", id, &err);
	dcpi_profile_set(p, "epoch", epoch, &err);
	dcpi_profile_set(p, "platform", "Linux 6.1.0 x86_64", &err);
	dcpi_profile_set(p, "event", event, &err);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)period);
	dcpi_profile_set(p, "period", buf, &err);
	snprintf(buf, sizeof(buf), "%llx", (unsigned long long)tstart);
	dcpi_profile_set(p, "tstart", buf, &err);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)tsize);
	dcpi_profile_set(p, "tsize", buf, &err);
	dcpi_profile_set(p, "cpuspeed", "2000", &err);
	dcpi_profile_set(p, "path", path, &err);
	for (i = 0; i < n; i++)
		if (dcpi_profile_add(p, c[i].offset, c[i].count) == -1)
			abort();
	dir = dcpi_db_event_path(db, epoch, host, event);
	if (dir == NULL || dcpi_db_profile_name(path, id, name, sizeof(name)) == -1)
		abort();
	snprintf(file, sizeof(file), "%s/%s", dir, name);
	if (dcpi_profile_write(file, p, &err) == -1) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	free(dir);
	dcpi_profile_free(p);
}

static inline char *
slurp(FILE *fp)
{
	char *buf;
	long len;

	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	if ((buf = calloc(1, (size_t)len + 1)) == NULL ||
	    fread(buf, 1, (size_t)len, fp) != (size_t)len)
		abort();
	return buf;
}

/* Runs a dcpictl command with argv (NULL-terminated) and returns its exit
 * status, with its stdout and stderr in *out and *err (caller frees). */
static inline int
run_cmd(int (*fn)(const struct ctl_globals *, int, char **), const struct ctl_globals *g, char **out, char **errs,
    char **argv)
{
	FILE *o = tmpfile(), *e = tmpfile();
	int so, se, rc, argc;
	extern int optind;

	for (argc = 0; argv[argc] != NULL; argc++)
		;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	optind = 0;
	rc = fn(g, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	*out = slurp(o);
	*errs = slurp(e);
	fclose(o);
	fclose(e);
	return rc;
}

#endif
