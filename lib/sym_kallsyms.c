/*
 * Symbol tables from the text snapshots in the database: kallsyms (the
 * kernel and its modules) and the perf maps of JIT code.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/perfmap.h>

#include "sym_int.h"

/* Kernel (module NULL) or module text symbols from a kallsyms snapshot. */
int
sym_load_kallsyms(struct dcpi_symtab *t, const char *kallsyms, const char *module,
    struct dcpi_error *err)
{
	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0, lineno = 0, ml;
	char line[1024], name[512], mod[256];
	unsigned long long addr;
	struct stat kst;
	char type;
	FILE *fp;
	int f, e = 0;

	if (kallsyms == NULL) {
		lib_seterr(err, ENOENT, "%s: no kallsyms snapshot given", module ? module : "kernel");
		return -1;
	}
	/* The epoch's copy may have been replaced by anything. */
	fp = NULL;
	if ((f = open(kallsyms, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) == -1)
		e = errno;
	else if (fstat(f, &kst) == -1)
		e = errno;
	else if (!S_ISREG(kst.st_mode))
		e = EINVAL;
	else if ((fp = fdopen(f, "r")) == NULL)
		e = errno;
	if (fp == NULL) {
		if (f != -1)
			close(f);
		lib_seterr(err, e, "%s: %s", kallsyms, e == EINVAL ?
		    "not a regular file" : strerror(e));
		return -1;
	}
	ml = module ? strlen(module) : 0;
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		mod[0] = '\0';
		f = sscanf(line, "%llx %c %511s [%255[^]]]", &addr, &type, name, mod);
		if (f < 3) {
			fclose(fp);
			sym_rawfree(raw, n);
			lib_seterr(err, EINVAL, "%s: line %zu: expected \"ADDRESS TYPE NAME [MODULE]\"",
			    kallsyms, lineno);
			return -1;
		}
		if (strchr("tTwW", type) == NULL || addr < t->tstart || addr == 0)
			continue;
		if (module == NULL ? mod[0] != '\0' :
		    strlen(mod) != ml || strcmp(mod, module) != 0)
			continue;
		/*
		 * Sizes are unknown: each runs to the next, the last one page.
		 * Of aliases the last line wins, as in perf report (6.1: its
		 * kallsyms loader gives every alias but the last a size of 0,
		 * then drops those), so that names agree with perf's:
		 * __x64_sys_getppid over __ia32_sys_getppid,
		 * __x86_indirect_thunk_rax over __pi___x86_indirect_thunk_rax.
		 */
		if (sym_push(&raw, &n, &cap, name, addr - t->tstart, 0, addr - t->tstart + 4096,
		    lineno) == -1) {
			fclose(fp);
			sym_rawfree(raw, n);
			lib_seterr(err, ENOMEM, "%s: out of memory", kallsyms);
			return -1;
		}
	}
	fclose(fp);
	f = sym_finish(t, raw, n, kallsyms, err);
	free(raw);
	return f;
}

/*
 * A JIT pseudo-image ("[jit:COMM]"): its symbols are the perf-map the
 * daemon keeps in the build-id cache, offsets from tstart in a synthetic
 * space.  A later line wins over an earlier one at the same start, as
 * code moved or reused is written again later.
 */
int
sym_load_perfmap(struct dcpi_symtab *t, const char *path, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err)
{
	struct dcpi_perfmap_entry *e = NULL;
	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0, ne = 0, i;
	char *map;
	int rc;

	if (o == NULL || o->db == NULL || imageid == NULL ||
	    (map = dcpi_db_buildid_path(o->db, imageid, "perf-map")) == NULL) {
		lib_seterr(err, ENOENT, "%s: no build-id cache to read its perf-map from",
		    path);
		return -1;
	}
	if (dcpi_perfmap_read(map, 0, &e, &ne, err) == -1) {
		free(map);
		return -1;
	}
	for (i = 0; i < ne; i++) {
		if (e[i].start < t->tstart)
			continue;
		if (sym_push(&raw, &n, &cap, e[i].name, e[i].start - t->tstart, e[i].size,
		    e[i].start - t->tstart + e[i].size, i + 1) == -1) {
			dcpi_perfmap_free(e, ne);
			sym_rawfree(raw, n);
			lib_seterr(err, ENOMEM, "%s: out of memory", map);
			free(map);
			return -1;
		}
	}
	dcpi_perfmap_free(e, ne);
	rc = sym_finish(t, raw, n, map, err);
	free(raw);
	/* No code to read: JIT code is gone with its process. */
	t->is_file = 0;
	free(t->path);
	t->path = map;
	return rc;
}
