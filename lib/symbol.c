/*
 * Symbolization: lib/dcpi/symbol.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/debuginfod.h>

#include <dcpi/db.h>
#include <dcpi/image.h>
#include <dcpi/perfmap.h>
#include <dcpi/symbol.h>

#include "internal.h"

/* libstdc++'s demangler (cxxabi.h is C++ only). */
char *__cxa_demangle(const char *, char *, size_t *, int *);

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


/* Rust legacy escapes left in the Itanium demangling. */
static void
rust_unescape(char *s)
{
	static const struct { const char *from, *to; } esc[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
		{ "$u7e$", "~" }, { "$u20$", " " }, { "$u27$", "'" }, { "$u5b$", "[" },
		{ "$u5d$", "]" }, { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u3b$", ";" },
		{ "$u2b$", "+" }, { "$u22$", "\"" }, { "..", "::" },
	};
	char *r = s, *w = s;
	size_t i, l;

	while (*r != '\0') {
		/* rustc prefixes '_' to a component that starts with '$'. */
		if (r[0] == '_' && r[1] == '$' && (w == s || w[-1] == ':')) {
			r++;
			continue;
		}
		for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
			l = strlen(esc[i].from);
			if (strncmp(r, esc[i].from, l) == 0)
				break;
		}
		if (i < sizeof(esc) / sizeof(esc[0])) {
			/* Every replacement is no longer than what it replaces. */
			memcpy(w, esc[i].to, strlen(esc[i].to));
			w += strlen(esc[i].to);
			r += l;
		} else
			*w++ = *r++;
	}
	*w = '\0';
}

char *
dcpi_demangle(const char *name)
{
	char *d;
	size_t l;
	int status, i;

	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (d == NULL || status != 0) {
		if (status == -1)
			errno = ENOMEM;
		free(d);
		return NULL;
	}
	/* Rust legacy: the last path component is "h" and 16 hex digits. */
	l = strlen(d);
	if (l > 19 && strncmp(d + l - 19, "::h", 3) == 0) {
		for (i = 0; i < 16 && isxdigit((unsigned char)d[l - 16 + i]); i++)
			;
		if (i == 16) {
			d[l - 19] = '\0';
			rust_unescape(d);
		}
	}
	return d;
}

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
static int
finish(struct dcpi_symtab *t, struct rawsym *raw, size_t n, const char *what,
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

static int
push(struct rawsym **raw, size_t *n, size_t *cap, const char *name, uint64_t start,
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

static void
rawfree(struct rawsym *raw, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(raw[i].name);
	free(raw);
}

/* Kernel (module NULL) or module text symbols from a kallsyms snapshot. */
static int
load_kallsyms(struct dcpi_symtab *t, const char *kallsyms, const char *module,
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
			rawfree(raw, n);
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
		if (push(&raw, &n, &cap, name, addr - t->tstart, 0, addr - t->tstart + 4096,
		    lineno) == -1) {
			fclose(fp);
			rawfree(raw, n);
			lib_seterr(err, ENOMEM, "%s: out of memory", kallsyms);
			return -1;
		}
	}
	fclose(fp);
	f = finish(t, raw, n, kallsyms, err);
	free(raw);
	return f;
}

/*
 * A JIT pseudo-image ("[jit:COMM]"): its symbols are the perf-map the
 * daemon keeps in the build-id cache, offsets from tstart in a synthetic
 * space.  A later line wins over an earlier one at the same start, as
 * code moved or reused is written again later.
 */
static int
load_perfmap(struct dcpi_symtab *t, const char *path, const char *imageid,
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
		if (push(&raw, &n, &cap, e[i].name, e[i].start - t->tstart, e[i].size,
		    e[i].start - t->tstart + e[i].size, i + 1) == -1) {
			dcpi_perfmap_free(e, ne);
			rawfree(raw, n);
			lib_seterr(err, ENOMEM, "%s: out of memory", map);
			free(map);
			return -1;
		}
	}
	dcpi_perfmap_free(e, ne);
	rc = finish(t, raw, n, map, err);
	free(raw);
	/* No code to read: JIT code is gone with its process. */
	t->is_file = 0;
	free(t->path);
	t->path = map;
	return rc;
}

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
		if (push(raw, n, cap, name, sym.st_value - tstart, sym.st_size, limit - tstart,
		    GELF_ST_BIND(sym.st_info) != STB_LOCAL ? 1 : 0) == -1)
			return -1;
	}
	return 0;
}

static Elf_Scn *
find_section(Elf *elf, Elf64_Word type, const char *name)
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

/* elfutils reads a section header table that does not fit in the file as
 * no sections at all, without an error: nonzero (and err set) if that is
 * what happened to elf. */
static int
elf_shdrs_lost(Elf *elf, const char *path, struct dcpi_error *err)
{
	GElf_Ehdr eh;
	size_t shnum;

	if (gelf_getehdr(elf, &eh) == NULL || eh.e_shoff == 0)
		return 0;
	if (elf_getshdrnum(elf, &shnum) == 0 && shnum > 0)
		return 0;
	lib_seterr(err, EINVAL, "%s: cannot read its symbols: section header table at byte %"
	    PRIu64 " (%u entries) is corrupted", path, (uint64_t)eh.e_shoff, eh.e_shnum);
	return 1;
}

static Elf *
open_elf(const char *path, int *fdp)
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

/* A separate debuginfo file for the image that has the same build-id (if
 * the image has one) and a .symtab; its path is malloc'd, and its fd and
 * Elf are returned. */
static Elf *
find_debug(const char *path, Elf *elf, const char *bid, const struct dcpi_symtab_opts *o,
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
		if ((d = open_elf(cand[i], &fd)) == NULL)
			continue;
		if (find_section(d, SHT_SYMTAB, NULL) == NULL ||
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
				if ((d = open_elf(p, dfd)) != NULL)
					*dpath = p;
				else
					free(p);
			}
		}
	}
	return d;
}

static void
close_files(struct dcpi_symtab *t)
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

static int
load_elf(struct dcpi_symtab *t, const char *path, const char *imageid,
    const struct dcpi_symtab_opts *o, struct dcpi_error *err)
{
	struct rawsym *raw = NULL;
	size_t n = 0, cap = 0;
	char bid[DCPI_IMAGE_ID_LEN] = "";
	Elf_Scn *scn;
	int rc;

	if ((t->elf = open_elf(path, &t->fd)) == NULL) {
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
	if ((scn = find_section(t->elf, SHT_SYMTAB, NULL)) != NULL)
		rc = elf_syms(t->elf, scn, t->tstart, &raw, &n, &cap);
	else if ((t->dwelf = find_debug(path, t->elf, bid, o, &t->debugpath, &t->dwfd)) != NULL)
		rc = elf_syms(t->dwelf, find_section(t->dwelf, SHT_SYMTAB, NULL), t->tstart,
		    &raw, &n, &cap);
	else if ((scn = find_section(t->elf, SHT_DYNSYM, NULL)) != NULL)
		rc = elf_syms(t->elf, scn, t->tstart, &raw, &n, &cap);
	else
		rc = 0;
	if (rc == -1) {
		rawfree(raw, n);
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
	rc = finish(t, raw, n, path, err);
	free(raw);
	/* Symbols are copied: release the files, so that 1,000s of tables
	 * do not hold 1,000s of descriptors.  Reopened when code or lines
	 * are asked for. */
	snprintf(t->bid, sizeof(t->bid), "%s", bid);
	t->is_file = 1;
	close_files(t);
	return rc;
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
	close_files(t);
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
	if ((rc = load_elf(t, cand, imageid, o, err)) == -1 && errno != ENODATA)
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
	    (cand = dcpi_db_buildid_path(o->db, imageid, "executable")) != NULL &&
	    (rc = try_file(t, cand, imageid, o, NULL)) == 0)
		goto out;
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

/* The image file again, after the symbols were read; -1/ESTALE if it has
 * changed since. */
static int
reopen(struct dcpi_symtab *t)
{
	char hex[DCPI_IMAGE_ID_LEN] = "";

	if (t->elf != NULL)
		return 0;
	if (!t->is_file) {
		errno = ENOENT;
		return -1;
	}
	if ((t->elf = open_elf(t->path, &t->fd)) == NULL)
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
		rc = load_kallsyms(t, opts ? opts->kallsyms : NULL, NULL, err);
	else if (strncmp(path, "[jit:", 5) == 0)
		rc = load_perfmap(t, path, imageid, opts, err);
	else if (path[0] == '[' && l > 2 && path[l - 1] == ']' && l - 2 < sizeof(module) &&
	    strcmp(path, "[vdso]") != 0 && strcmp(path, "[vsyscall]") != 0) {
		snprintf(module, sizeof(module), "%.*s", (int)(l - 2), path + 1);
		rc = load_kallsyms(t, opts ? opts->kallsyms : NULL, module, err);
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

void
dcpi_symtab_close(struct dcpi_symtab *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		free((char *)t->syms[i].name);
	free(t->syms);
	close_files(t);
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

static Dwarf *
get_dwarf(struct dcpi_symtab *t)
{
	char hex[DCPI_IMAGE_ID_LEN] = "";

	if (t->dw_tried)
		return t->dw;
	t->dw_tried = 1;
	if (reopen(t) == -1)
		return NULL;
	if ((t->dw = dwarf_begin_elf(t->elf, DWARF_C_READ, NULL)) != NULL)
		return t->dw;
	if (t->debugpath != NULL) {
		if ((t->dwelf = open_elf(t->debugpath, &t->dwfd)) == NULL)
			return NULL;
	} else {
		/* Symbols came from the file itself, which has no DWARF: its
		 * debuginfo is only looked for now, when lines are asked for. */
		lib_build_id_hex(t->elf, hex);
		t->dwelf = find_debug(t->path, t->elf, hex, &t->opts, &t->debugpath, &t->dwfd);
		if (t->dwelf == NULL)
			return NULL;
	}
	t->dw = dwarf_begin_elf(t->dwelf, DWARF_C_READ, NULL);
	return t->dw;
}

int
dcpi_symtab_srcline(struct dcpi_symtab *t, uint64_t offset, const char **file, int *line)
{
	Dwarf_Addr addr = t->tstart + offset;
	Dwarf_Die cu, *cup = NULL;
	Dwarf_Off off = 0, next;
	Dwarf_Line *l;
	size_t hsize;
	Dwarf *dw;
	int ln;

	if ((dw = get_dwarf(t)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (t->have_cu && dwarf_haspc(&t->last_cu, addr) == 1) {
		cu = t->last_cu;
		cup = &cu;
	} else if (dwarf_addrdie(dw, addr, &cu) != NULL)
		cup = &cu;
	else {
		/* No .debug_aranges (recent GCC omits them): scan the CUs. */
		while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			if (dwarf_offdie(dw, off + hsize, &cu) != NULL && dwarf_haspc(&cu, addr) == 1) {
				cup = &cu;
				break;
			}
			off = next;
		}
	}
	if (cup != NULL) {
		t->last_cu = *cup;
		t->have_cu = 1;
	}
	if (cup == NULL || (l = dwarf_getsrc_die(cup, addr)) == NULL ||
	    (*file = dwarf_linesrc(l, NULL, NULL)) == NULL || dwarf_lineno(l, &ln) != 0 ||
	    ln <= 0) {
		errno = ENOENT;
		return -1;
	}
	*line = ln;
	return 0;
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

	if (reopen(t) == -1)
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
