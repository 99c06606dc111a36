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
#include <dcpi/kallsyms.h>
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
	char *text, *from, *p, *end, *nl, type;
	size_t textlen, ll;
	int f;

	if (kallsyms == NULL) {
		lib_seterr(err, ENOENT, "%s: no kallsyms snapshot given", module ? module : "kernel");
		return -1;
	}
	/* The epoch's copy, or the snapshot kept once per kernel that its
	 * reference names (lib/dcpi/kallsyms.h). */
	if (dcpi_kallsyms_read(kallsyms, (void **)&text, &textlen, &from, err) == -1)
		return -1;
	ml = module ? strlen(module) : 0;
	for (p = text, end = text + textlen; p < end; p = nl + 1) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		ll = (size_t)(nl - p) < sizeof(line) - 1 ? (size_t)(nl - p) : sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = '\0';
		mod[0] = '\0';
		f = sscanf(line, "%llx %c %511s [%255[^]]]", &addr, &type, name, mod);
		if (f < 3) {
			sym_rawfree(raw, n);
			lib_seterr(err, EINVAL, "%s: line %zu: expected \"ADDRESS TYPE NAME [MODULE]\"",
			    from, lineno);
			free(text);
			free(from);
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
			sym_rawfree(raw, n);
			lib_seterr(err, ENOMEM, "%s: out of memory", kallsyms);
			free(text);
			free(from);
			return -1;
		}
	}
	free(text);
	free(from);
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
