#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "imagetab.h"
#include "kernel.h"
#include "log.h"
#include "xmalloc.h"

struct module {
	uint64_t	 start, size;
	struct img	*img;
};

static struct img	*kimg;		/* NULL when kallsyms hides addresses */
static uint64_t		 stext, etext;
static struct module	*mods;
static size_t		 nmods;
static time_t		 mods_read;	/* CLOCK_MONOTONIC_COARSE seconds */
static struct img	*vdso;
static const void	*vdso_elf;	/* dcpid's own vdso, vdso_len bytes */
static size_t		 vdso_len;
/* Overridable so that tests can load modules on a kernel without any. */
static const char	*modules_file = "/proc/modules";
static const char	*sysmodule_dir = "/sys/module";

void
kernel_set_paths(const char *modules, const char *sysmodule)
{
	modules_file = modules;
	sysmodule_dir = sysmodule;
}

static size_t
read_small(const char *path, void *buf, size_t len)
{
	int fd;
	ssize_t r;
	size_t got = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (got < len && (r = read(fd, (char *)buf + got, len - got)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		got += r;
	}
	close(fd);
	return got;
}

static void
read_kallsyms(void)
{
	FILE *f;
	char line[512], name[256], type;
	unsigned long long a;

	if ((f = fopen("/proc/kallsyms", "re")) == NULL) {
		log_warn("/proc/kallsyms");
		return;
	}
	while ((stext == 0 || etext == 0) && fgets(line, sizeof(line), f)) {
		if (strstr(line, "text") == NULL ||
		    sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (strcmp(name, "_stext") == 0)
			stext = a;
		else if (strcmp(name, "_etext") == 0)
			etext = a;
	}
	fclose(f);
}

static int
modcmp(const void *a, const void *b)
{
	const struct module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void
read_modules(void)
{
	FILE *f;
	char line[4096], name[256], path[4400];
	unsigned long long size, addr;
	size_t cap = 0;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	mods_read = ts.tv_sec;
	free(mods);
	mods = NULL;
	nmods = 0;
	if ((f = fopen(modules_file, "re")) == NULL)
		return;		/* a kernel without modules */
	while (fgets(line, sizeof(line), f)) {
		uint8_t bid[BUILD_ID_MAX], notes[4096];
		size_t blen = 0, n;
		struct img *im;
		char descr[400];

		if (sscanf(line, "%255s %llu %*s %*s %*s %llx", name, &size,
		    &addr) != 3 || addr == 0 || size == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/notes/.note.gnu.build-id",
		    sysmodule_dir, name);
		if ((n = read_small(path, notes, sizeof(notes))) > 0)
			blen = image_note_build_id(notes, n, bid);
		snprintf(descr, sizeof(descr), "module %s %llu", name, size);
		snprintf(path, sizeof(path), "[%s]", name);
		/* Dedup by id keeps the first load's tstart; offsets are
		 * always relative to the current load address. */
		if ((im = image_pseudo(bid, blen, descr, path, addr, size)) == NULL)
			continue;
		if (nmods == cap) {
			cap = cap ? 2 * cap : 64;
			mods = xreallocarray(mods, cap, sizeof(*mods));
		}
		mods[nmods].start = addr;
		mods[nmods].size = size;
		mods[nmods].img = im;
		nmods++;
	}
	fclose(f);
	qsort(mods, nmods, sizeof(*mods), modcmp);
}

static void
read_vdso(void)
{
	const unsigned char *e = (const void *)getauxval(AT_SYSINFO_EHDR);
	GElf_Ehdr eh;
	size_t len;

	if (e == NULL || memcmp(e, ELFMAG, SELFMAG) != 0)
		return;
	/* The vdso ends with its section headers; read that far. */
	if (e[EI_CLASS] == ELFCLASS64) {
		const Elf64_Ehdr *h = (const void *)e;

		eh.e_shoff = h->e_shoff;
		eh.e_shnum = h->e_shnum;
		eh.e_shentsize = h->e_shentsize;
	} else {
		const Elf32_Ehdr *h = (const void *)e;

		eh.e_shoff = h->e_shoff;
		eh.e_shnum = h->e_shnum;
		eh.e_shentsize = h->e_shentsize;
	}
	len = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	if (len > (1 << 20))
		return;
	if ((vdso = image_from_memory(e, len, "[vdso]")) == NULL)
		return;
	vdso_elf = e;
	vdso_len = len;
	/* Its symbols exist only in memory: the build-id cache keeps them
	 * for dcpictl, once per kernel (the vdso's build-id). */
	image_no_file(vdso);
	cache_add_memory(vdso->pub.id, e, len, "[vdso]");
}

void
kernel_init(void)
{
	uint8_t notes[8192], bid[BUILD_ID_MAX];
	size_t n, blen = 0;
	struct utsname u;
	char descr[600];

	read_kallsyms();
	if (stext != 0 && etext > stext) {
		if ((n = read_small("/sys/kernel/notes", notes, sizeof(notes))) > 0)
			blen = image_note_build_id(notes, n, bid);
		uname(&u);
		snprintf(descr, sizeof(descr), "kernel %s %s %s", u.release,
		    u.version, u.machine);
		kimg = image_pseudo(bid, blen, descr, "[kernel.kallsyms]",
		    stext, etext - stext);
	} else
		log_warnx("/proc/kallsyms: no _stext/_etext addresses (without "
		    "CAP_SYSLOG, with kernel.kptr_restrict=2, or hidden by a unit's "
		    "ProtectKernelTunables= or ProtectKernelLogs=): kernel samples "
		    "are unattributed");
	read_modules();
	read_vdso();
}

void
kernel_fini(void)
{
	free(mods);
	mods = NULL;
	nmods = 0;
	kimg = vdso = NULL;
	stext = etext = 0;
}

static struct module *
find_module(uint64_t pc)
{
	size_t lo = 0, hi = nmods;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pc < mods[mid].start)
			hi = mid;
		else if (pc - mods[mid].start >= mods[mid].size)
			lo = mid + 1;
		else
			return &mods[mid];
	}
	return NULL;
}

enum attr_reason
kernel_sample(uint64_t pc, struct image **img, uint32_t *offset)
{
	struct module *m;
	struct timespec ts;

	if (kimg && pc >= stext && pc < etext) {
		*img = &kimg->pub;
		*offset = pc - stext;
		return ATTR_OK;
	}
	if ((m = find_module(pc)) == NULL) {
		/* vdso clock read, no syscall: cheap enough on this path. */
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		if (ts.tv_sec == mods_read)
			return ATTR_KERNEL_UNKNOWN;
		read_modules();
		if ((m = find_module(pc)) == NULL)
			return ATTR_KERNEL_UNKNOWN;
	}
	*img = &m->img->pub;
	*offset = pc - m->start;
	return ATTR_OK;
}

struct img *
kernel_vdso(void)
{
	return vdso;
}

const void *
kernel_vdso_elf(size_t *len)
{
	*len = vdso_len;
	return vdso != NULL ? vdso_elf : NULL;
}

uint64_t
kernel_stext(void)
{
	return kimg ? stext : 0;
}

const char *
kernel_id(void)
{
	return kimg ? kimg->pub.id : NULL;
}

size_t
kernel_memory(void)
{
	return nmods * sizeof(*mods);
}
