/*
 * Attribution: synthetic sideband sequences against real ELF files (this
 * test program, a shared library it links, the kernel, the vdso).
 * Expected offsets come from the files' own symbol tables and program
 * headers, read here independently of daemon/imagetab.c.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "attr.h"
#include "conf.h"
#include "imagetab.h"
#include "kernel.h"
#include "labeler.h"
#include "proc.h"
#include "stack.h"

#define USER	PERF_RECORD_MISC_USER
#define KERNEL	PERF_RECORD_MISC_KERNEL
#define BASE	0x7f1234000000ULL

/* A function of this program for the PIE cases. */
__attribute__((noinline)) unsigned long attr_test_target(unsigned long n);
__attribute__((noinline)) unsigned long
attr_test_target(unsigned long n)
{
	volatile unsigned long x = n;

	return x * 3 + 1;
}

/* What the test knows about a file from its own reading. */
struct felf {
	char		 path[4096];
	uint64_t	 xoff, xvaddr, xfilesz;	/* first executable PT_LOAD */
	uint8_t		 bid[64];
	size_t		 bidlen;
	struct stat	 st;
};

static void
read_felf(const char *path, struct felf *fe)
{
	int fd;
	Elf *elf;
	size_t n, i;
	GElf_Phdr ph;
	int found = 0;

	memset(fe, 0, sizeof(*fe));
	snprintf(fe->path, sizeof(fe->path), "%s", path);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &fe->st), 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n && !found; i++) {
		assert_non_null(gelf_getphdr(elf, i, &ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			fe->xoff = ph.p_offset;
			fe->xvaddr = ph.p_vaddr;
			fe->xfilesz = ph.p_filesz;
			found = 1;
		}
	}
	assert_true(found);
	{
		const void *b;
		ssize_t bl = dwelf_elf_gnu_build_id(elf, &b);

		if (bl > 0 && (size_t)bl <= sizeof(fe->bid)) {
			memcpy(fe->bid, b, bl);
			fe->bidlen = bl;
		}
	}
	elf_end(elf);
	close(fd);
}

/* st_value of a symbol from .symtab or .dynsym; 0 if absent. */
static uint64_t
sym_value(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t v = 0;

	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	while (v == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *nm;

			gelf_getsym(d, i, &s);
			nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if (nm && strcmp(nm, name) == 0 && s.st_value) {
				v = s.st_value;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return v;
}

/* The build-id as `readelf -n` prints it. */
static int
readelf_build_id(const char *path, char *out, size_t len)
{
	char cmd[4200], line[512];
	FILE *p;
	int ok = 0;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");

		if (b && !ok) {
			snprintf(out, len, "%s", b + 10);
			out[strcspn(out, "\n ")] = '\0';
			ok = 1;
		}
	}
	pclose(p);
	return ok;
}

/* Feeds an MMAP2 of fe's executable segment at base for pid. */
static void
mmap_exec(uint32_t pid, const struct felf *fe, uint64_t base, int with_bid,
    const char *name)
{
	struct attr_mmap m;
	uint64_t pgoff = fe->xoff & ~0xfffULL;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.start = base;
	m.len = (fe->xoff - pgoff + fe->xfilesz + 0xfff) & ~0xfffULL;
	m.pgoff = pgoff;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	if (with_bid) {
		m.has_build_id = 1;
		m.build_id_size = fe->bidlen;
		memcpy(m.build_id, fe->bid, fe->bidlen);
	} else {
		m.maj = major(fe->st.st_dev);
		m.min = minor(fe->st.st_dev);
		m.ino = fe->st.st_ino;
	}
	m.filename = name ? name : fe->path;
	attr_mmap(&m);
}

/* The PC of ELF vaddr v of fe mapped by mmap_exec at base. */
static uint64_t
pc_of(const struct felf *fe, uint64_t base, uint64_t v)
{
	return base + (fe->xoff & 0xfff) + (v - fe->xvaddr);
}

static void
anon_mmap(uint32_t pid, uint64_t start, uint64_t len, uint32_t prot)
{
	struct attr_mmap m;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.start = start;
	m.len = len;
	m.prot = prot;
	m.filename = "//anon";
	attr_mmap(&m);
}

static struct felf self, lib;
static uint64_t self_sym, lib_sym;
static const char *lib_symname = "elf_version";

static int
setup(void **state)
{
	char exe[4096];
	ssize_t n;
	Dl_info di;
	void *fn;

	(void)state;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	read_felf(exe, &self);
	self_sym = sym_value(exe, "attr_test_target");
	assert_true(self_sym != 0);
	/* A shared library this test links: libelf. */
	fn = dlsym(RTLD_DEFAULT, lib_symname);
	assert_non_null(fn);
	assert_true(dladdr(fn, &di) != 0);
	/* Canonical, as the kernel's paths are (dcpid does not follow a
	 * symbolic link in the last component). */
	assert_non_null(realpath(di.dli_fname, exe));
	read_felf(exe, &lib);
	lib_sym = sym_value(exe, lib_symname);
	assert_true(lib_sym != 0);
	assert_int_equal(attr_init(), 0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	attr_fini();
	return 0;
}

static void
expect_ok(uint32_t pid, uint64_t pc, const char *path, uint64_t want)
{
	struct image *img = NULL;
	uint32_t off = 0;
	enum attr_reason r = attr_sample(pid, pc, USER, &img, &off);

	assert_string_equal(attr_reason_name(r), "ok");
	assert_non_null(img);
	if (path)
		assert_string_equal(img->path, path);
	assert_int_equal(off, want);
	assert_ptr_equal(attr_image(img->index), img);
}

static enum attr_reason
sample(uint32_t pid, uint64_t pc)
{
	struct image *img;
	uint32_t off;

	return attr_sample(pid, pc, USER, &img, &off);
}

/* A PIE and a shared library at arbitrary bases: offset = symbol - tstart. */
static void
test_pie_and_lib(void **state)
{
	struct image *img;
	uint32_t off;

	(void)state;
	mmap_exec(1000, &self, BASE, 0, NULL);
	mmap_exec(1000, &lib, BASE + 0x10000000, 0, NULL);
	assert_int_equal(sample(1000, pc_of(&self, BASE, self_sym)), ATTR_OK);
	attr_sample(1000, pc_of(&self, BASE, self_sym), USER, &img, &off);
	assert_int_equal(img->tstart, self.xvaddr);
	expect_ok(1000, pc_of(&self, BASE, self_sym), self.path,
	    self_sym - self.xvaddr);
	expect_ok(1000, pc_of(&lib, BASE + 0x10000000, lib_sym), lib.path,
	    lib_sym - lib.xvaddr);
	/* A second process at other bases shares the images, even under a
	 * path that does not exist here (another mount namespace): MMAP2's
	 * build-id names it. */
	assert_true(lib.bidlen > 0);
	mmap_exec(2000, &lib, BASE + 0x345000, 1, "/some/other/path/libelf.so");
	assert_int_equal(attr_sample(2000, pc_of(&lib, BASE + 0x345000,
	    lib_sym), USER, &img, &off), ATTR_OK);
	assert_int_equal(off, lib_sym - lib.xvaddr);
	assert_string_equal(img->path, lib.path);
	assert_int_equal(sample(1000, BASE - 1), ATTR_NO_MAP);
	assert_int_equal(sample(3000, BASE), ATTR_UNKNOWN_PID);
	assert_int_equal(attr_nprocs(), 2);
	attr_exit(1000, 1, 1000, 1);
	attr_exit(2000, 1, 2000, 1);
	assert_int_equal(attr_nprocs(), 0);
}

/* The process records through the process table's hooks: a process that
 * the attribution, a `dcpictl label` run and call chains hold, its child
 * forked and exec'd, then both exited: every module's part of them freed
 * (the chains', which wait for a fold, at the flush). */
static void
test_proc_records(void **state)
{
	static const uint64_t ips[] = { 0x401000, 0x402000 };
	uint64_t pc = pc_of(&self, BASE, self_sym);
	struct label_stats ls;
	char msg[256];

	(void)state;
	label_init(CONF_LABEL_BY_NONE, 10);
	stack_init();
	mmap_exec(1100, &self, BASE, 0, NULL);
	assert_int_equal(label_run(1100, "run", msg, sizeof(msg)), 0);
	proc_fork(1101, 1100, 1101, 1100);
	assert_int_equal(attr_nprocs(), 2);
	expect_ok(1101, pc, self.path, self_sym - self.xvaddr);
	label_stats(&ls);
	assert_int_equal(ls.running, 2);
	assert_int_equal(label_of(1101, 0), LABEL_FIRST);
	stack_add(1, 1101, ips, 2, 0, NULL, 0, (struct stack_frame){ 1, 0x10 });
	proc_comm(1101, 1101, "hot", 1);
	assert_int_equal(sample(1101, pc), ATTR_NO_MAP);
	assert_string_equal(attr_proc_comm(1101), "hot");
	assert_int_equal(label_of(1101, 0), LABEL_FIRST);
	proc_exit(1101, 1100, 1101, 1100);
	proc_exit(1100, 1, 1100, 1);
	assert_int_equal(attr_nprocs(), 0);
	assert_int_equal(sample(1100, pc), ATTR_UNKNOWN_PID);
	label_stats(&ls);
	assert_int_equal(ls.running, 0);
	assert_int_equal(label_of(1101, 0), LABEL_NONE);
	assert_int_equal(proc_count(PROC_STACK), 1);
	stack_clear();
	assert_int_equal(proc_memory(), 0);
	stack_fini();
	label_fini();
}

/* The id is the build-id readelf prints; MMAP2 build-ids name the image
 * without reading; a wrong build-id for the path is not trusted. */
static void
test_build_id(void **state)
{
	char want[200];
	struct image *img;
	uint32_t off;
	size_t i;

	(void)state;
	if (!readelf_build_id(lib.path, want, sizeof(want)))
		skip();
	mmap_exec(1000, &lib, BASE, 0, NULL);
	attr_sample(1000, pc_of(&lib, BASE, lib_sym), USER, &img, &off);
	assert_string_equal(img->id, want);
	/* MMAP2 style: the raw bytes of the hex id. */
	assert_int_equal(lib.bidlen, strlen(want) / 2);
	for (i = 0; i < lib.bidlen; i++) {
		unsigned x;

		sscanf(want + 2 * i, "%2x", &x);
		assert_int_equal(lib.bid[i], x);
	}
	mmap_exec(1001, &lib, BASE, 1, "/nonexistent/libelf.so");
	expect_ok(1001, pc_of(&lib, BASE, lib_sym), lib.path,
	    lib_sym - lib.xvaddr);
	/* The file at the path has another build-id, and pid 1002 has no
	 * map_files to fall back on. */
	lib.bid[0] ^= 0xff;
	mmap_exec(1002, &lib, BASE, 1, self.path);
	assert_int_equal(sample(1002, pc_of(&lib, BASE, lib_sym)),
	    ATTR_UNREADABLE);
	lib.bid[0] ^= 0xff;
	attr_exit(1000, 1, 1000, 1);
	attr_exit(1001, 1, 1001, 1);
	attr_exit(1002, 1, 1002, 1);
}

static void
test_fork_exec_exit(void **state)
{
	uint64_t pc = pc_of(&self, BASE, self_sym);

	(void)state;
	mmap_exec(1000, &self, BASE, 0, NULL);
	attr_fork(1001, 1000, 1001, 1000);
	assert_int_equal(attr_nprocs(), 2);
	expect_ok(1001, pc, self.path, self_sym - self.xvaddr);
	/* A thread of 1000: no new process; its exit keeps the process. */
	attr_fork(1000, 1000, 1005, 1000);
	assert_int_equal(attr_nprocs(), 2);
	attr_exit(1000, 1000, 1005, 1000);
	expect_ok(1000, pc, self.path, self_sym - self.xvaddr);
	/* exec drops the maps; the new image's MMAP2 brings new ones. */
	attr_comm(1001, 1001, "hot", 0);
	expect_ok(1001, pc, self.path, self_sym - self.xvaddr);
	attr_comm(1001, 1001, "hot", 1);
	assert_int_equal(sample(1001, pc), ATTR_NO_MAP);
	mmap_exec(1001, &lib, BASE, 0, NULL);
	expect_ok(1001, pc_of(&lib, BASE, lib_sym), lib.path,
	    lib_sym - lib.xvaddr);
	/* The parent is unchanged. */
	expect_ok(1000, pc, self.path, self_sym - self.xvaddr);
	attr_exit(1000, 1, 1000, 1);
	assert_int_equal(sample(1000, pc), ATTR_UNKNOWN_PID);
	assert_int_equal(attr_nprocs(), 1);
	attr_exit(1001, 1, 1001, 1);
	assert_int_equal(attr_nprocs(), 0);
	/* Children and threads of unmodelled processes stay unknown. */
	attr_fork(1003, 2, 1003, 2);
	attr_fork(1004, 1004, 1006, 1004);
	assert_int_equal(attr_nprocs(), 0);
	assert_int_equal(sample(1003, pc), ATTR_UNKNOWN_PID);
	/* A process known only from its exec, with no maps yet, forks (the
	 * sanitizer build once caught a copy of its absent map array). */
	attr_comm(1007, 1007, "sh", 1);
	attr_fork(1008, 1007, 1008, 1007);
	assert_int_equal(sample(1008, pc), ATTR_NO_MAP);
	mmap_exec(1008, &self, BASE, 0, NULL);
	expect_ok(1008, pc, self.path, self_sym - self.xvaddr);
	assert_int_equal(sample(1007, pc), ATTR_NO_MAP);
	attr_exit(1008, 1007, 1008, 1007);
	attr_exit(1007, 1, 1007, 1);
	assert_int_equal(attr_nprocs(), 0);
}

/* A new mapping replaces what it overlaps; the rest keeps its offsets. */
static void
test_overlap(void **state)
{
	/* A page in the middle of the text, with pages either side. */
	uint64_t v = self.xvaddr + ((self.xfilesz / 2) & ~0xfffULL) + 0x123;
	uint64_t pc = pc_of(&self, BASE, v), hole = pc & ~0xfffULL;
	uint64_t want = v - self.xvaddr;

	(void)state;
	assert_true(self.xfilesz >= 0x5000);
	mmap_exec(1000, &self, BASE, 0, NULL);
	expect_ok(1000, pc, self.path, want);
	anon_mmap(1000, hole, 0x1000, PROT_READ | PROT_EXEC | PROT_WRITE);
	assert_int_equal(sample(1000, pc), ATTR_ANON);
	assert_string_equal(attr_reason_name(ATTR_ANON), "anon");
	/* Both sides of the split still map the file right. */
	expect_ok(1000, pc - 0x1000, self.path, want - 0x1000);
	expect_ok(1000, pc + 0x1000, self.path, want + 0x1000);
	/* A data mapping over the hole removes it and its neighbours. */
	anon_mmap(1000, hole - 0x1000, 0x3000, PROT_READ | PROT_WRITE);
	assert_int_equal(sample(1000, pc), ATTR_NO_MAP);
	assert_int_equal(sample(1000, pc + 0x1000), ATTR_NO_MAP);
	assert_int_equal(sample(1000, pc - 0x1000), ATTR_NO_MAP);
	expect_ok(1000, pc - 0x2000, self.path, want - 0x2000);
	expect_ok(1000, pc + 0x2000, self.path, want + 0x2000);
	/* Remapping the whole range with the library replaces everything. */
	mmap_exec(1000, &lib, BASE, 0, NULL);
	expect_ok(1000, pc_of(&lib, BASE, lib_sym), lib.path,
	    lib_sym - lib.xvaddr);
	attr_exit(1000, 1, 1000, 1);
}

static void
test_cpumodes(void **state)
{
	struct image *img;
	uint32_t off;

	(void)state;
	mmap_exec(1000, &self, BASE, 0, NULL);
	assert_int_equal(attr_sample(1000, BASE, PERF_RECORD_MISC_HYPERVISOR,
	    &img, &off), ATTR_HYPERVISOR);
	assert_int_equal(attr_sample(1000, BASE,
	    PERF_RECORD_MISC_GUEST_KERNEL, &img, &off), ATTR_HYPERVISOR);
	assert_int_equal(attr_sample(1000, BASE, PERF_RECORD_MISC_GUEST_USER,
	    &img, &off), ATTR_HYPERVISOR);
	attr_exit(1000, 1, 1000, 1);
}

/* Hex of the GNU build-id note in /sys/kernel/notes; "" if none. */
static void
kernel_notes_id(char *out, size_t len)
{
	unsigned char b[8192];
	size_t n = 0, off = 0, i;
	FILE *f = fopen("/sys/kernel/notes", "r");

	out[0] = '\0';
	if (f == NULL)
		return;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	while (off + 12 <= n) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, b + off, 4);
		memcpy(&dsz, b + off + 4, 4);
		memcpy(&type, b + off + 8, 4);
		off += 12 + ((nsz + 3) & ~3u);
		if (type == 3 && nsz == 4 && 2 * dsz < len && off + dsz <= n) {
			for (i = 0; i < dsz; i++)
				sprintf(out + 2 * i, "%02x", b[off + i]);
			return;
		}
		off += (dsz + 3) & ~3u;
	}
}

static void
test_kernel(void **state)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], t;
	unsigned long long a, stext = 0, etext = 0;
	struct image *img;
	uint32_t off;

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3) {
			if (strcmp(name, "_stext") == 0)
				stext = a;
			if (strcmp(name, "_etext") == 0)
				etext = a;
		}
	fclose(f);
	if (stext == 0)
		skip();
	assert_int_equal(attr_sample(0, stext + 0x1234, KERNEL, &img, &off),
	    ATTR_OK);
	assert_string_equal(img->path, "[kernel.kallsyms]");
	assert_int_equal(off, 0x1234);
	assert_int_equal(img->tstart, stext);
	assert_int_equal(img->tsize, etext - stext);
	/* Unknown cpumode with a kernel address. */
	assert_int_equal(attr_sample(77, etext - 1,
	    PERF_RECORD_MISC_CPUMODE_UNKNOWN, &img, &off), ATTR_OK);
	assert_int_equal(off, etext - 1 - stext);
	assert_int_equal(attr_sample(0, stext - 1, KERNEL, &img, &off),
	    ATTR_KERNEL_UNKNOWN);
	/* The id is the build-id note of /sys/kernel/notes, parsed here. */
	assert_int_equal(attr_sample(0, stext, KERNEL, &img, &off), ATTR_OK);
	kernel_notes_id(line, sizeof(line));
	if (line[0])
		assert_string_equal(img->id, line);
}

/* Modules from a fake /proc/modules and /sys/module. */
static void
test_modules(void **state)
{
	char dir[] = "/tmp/attrmodXXXXXX", path[300], mods[100], sysm[100];
	static const uint8_t note[] = {
		4, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
		0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04 };
	struct image *img;
	uint32_t off;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(mods, sizeof(mods), "%s/modules", dir);
	f = fopen(mods, "w");
	assert_non_null(f);
	fprintf(f, "foo 16384 0 - Live 0xffffffffc0010000\n"
	    "bar 8192 1 foo, Live 0xffffffffc0000000 (OE)\n"
	    "hidden 4096 0 - Live 0x0000000000000000\n");
	fclose(f);
	snprintf(sysm, sizeof(sysm), "%s/sys", dir);
	assert_int_equal(mkdir(sysm, 0700), 0);
	snprintf(path, sizeof(path), "%s/foo", sysm);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/foo/notes", sysm);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/foo/notes/.note.gnu.build-id", sysm);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(note, 1, sizeof(note), f);
	fclose(f);
	attr_fini();
	kernel_set_paths(mods, sysm);
	assert_int_equal(attr_init(), 0);
	assert_int_equal(attr_sample(0, 0xffffffffc0010000ULL + 0x123, KERNEL,
	    &img, &off), ATTR_OK);
	assert_string_equal(img->path, "[foo]");
	assert_string_equal(img->id, "deadbeef01020304");
	assert_int_equal(img->tstart, 0xffffffffc0010000ULL);
	assert_int_equal(img->tsize, 16384);
	assert_int_equal(off, 0x123);
	assert_int_equal(attr_sample(0, 0xffffffffc0000000ULL + 8191, KERNEL,
	    &img, &off), ATTR_OK);
	assert_string_equal(img->path, "[bar]");
	/* No notes: a stable hash of its name, plain hex as the format wants,
	 * and marked as such. */
	assert_int_equal(strlen(img->id), 16);
	assert_int_equal(strspn(img->id, "0123456789abcdef"), 16);
	assert_string_equal(img->idkind, DCPI_IDKIND_NAME);
	assert_int_equal(off, 8191);
	assert_int_equal(attr_sample(0, 0xffffffffc0000000ULL + 8192, KERNEL,
	    &img, &off), ATTR_KERNEL_UNKNOWN);
	assert_int_equal(attr_sample(0, 0xffffffffc0014000ULL, KERNEL,
	    &img, &off), ATTR_KERNEL_UNKNOWN);
	attr_fini();
	kernel_set_paths("/proc/modules", "/sys/module");
	assert_int_equal(attr_init(), 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/foo/notes", sysm);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/foo", sysm);
	rmdir(path);
	rmdir(sysm);
	unlink(mods);
	rmdir(dir);
}

/* Notes as the kernel writes them, with hostile sizes. */
static void
test_notes(void **state)
{
	uint32_t buf[32];
	uint8_t out[BUILD_ID_MAX];
	size_t i;

	(void)state;
	memset(buf, 0, sizeof(buf));
	buf[0] = 4; buf[1] = 4; buf[2] = 1;		/* "Xen", 4 bytes */
	memcpy(&buf[3], "Xen", 4);
	buf[5] = 4; buf[6] = 20; buf[7] = NT_GNU_BUILD_ID;
	memcpy(&buf[8], "GNU", 4);
	for (i = 0; i < 20; i++)
		((uint8_t *)&buf[9])[i] = i * 13;
	assert_int_equal(image_note_build_id(buf, 14 * 4, out), 20);
	for (i = 0; i < 20; i++)
		assert_int_equal(out[i], (uint8_t)(i * 13));
	/* Cut in the descriptor, and a size that runs past the end. */
	assert_int_equal(image_note_build_id(buf, 12 * 4, out), 0);
	buf[6] = 0xfffffff0;
	assert_int_equal(image_note_build_id(buf, sizeof(buf), out), 0);
	buf[6] = 20;
	buf[1] = 0xfffffffc;
	assert_int_equal(image_note_build_id(buf, sizeof(buf), out), 0);
}

static size_t	 nyields;

/* The pid directories in /proc. */
static size_t
pid_dirs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] >= '0' && de->d_name[0] <= '9';
	closedir(d);
	return n;
}

static void
count_yield(void)
{
	nyields++;
}

/* The scan models this process: its own function, its vdso.  It yields
 * (to perf_hold, in dcpid) after each process: 64 children at least, in
 * a container's pid namespace too. */
static void
test_scan_self(void **state)
{
	struct image *img = NULL;
	uint32_t off = 0;
	const unsigned char *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)vdso;
	const Elf64_Phdr *ph;
	uint64_t vx = 0;
	pid_t kids[64];
	size_t ndirs, n;
	int i;

	(void)state;
	for (i = 0; i < 64; i++) {
		assert_true((kids[i] = fork()) != -1);
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	nyields = 0;
	ndirs = pid_dirs();
	attr_scan_proc(count_yield);
	if ((n = pid_dirs()) > ndirs)
		ndirs = n;
	for (i = 0; i < 64; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	assert_true(attr_nprocs() >= 64 + 1);
	/* One a pid directory (the host's others may come and go
	 * meanwhile: 8 more). */
	assert_true(nyields >= 64 + 1);
	assert_true(nyields <= ndirs + 8);
	expect_ok(getpid(), (uintptr_t)attr_test_target, self.path,
	    self_sym - self.xvaddr);
	expect_ok(getpid(), (uintptr_t)dlsym(RTLD_DEFAULT, lib_symname), NULL,
	    lib_sym - lib.xvaddr);
	if (vdso == NULL)
		return;
	/* The vdso: offset = vaddr - tstart, the mapping starting at its
	 * file offset 0. */
	ph = (const void *)(vdso + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			vx = ph[i].p_vaddr;
			break;
		}
	assert_int_equal(attr_sample(getpid(),
	    (uintptr_t)vdso + ph[i].p_offset + 0x40, USER, &img, &off),
	    ATTR_OK);
	assert_string_equal(img->path, "[vdso]");
	assert_int_equal(img->tstart, vx);
	assert_int_equal(off, 0x40);
	assert_true(strlen(img->id) > 0);
	attr_fini();
	assert_int_equal(attr_init(), 0);
}

/* The kernel's dev_t, as the BPF program reads it from the superblock. */
static uint64_t
kdev_of(dev_t d)
{
	return (uint64_t)major(d) << 20 | minor(d);
}

/* Counts keyed by file and offset (daemon/bpfagg_key.h): unknown until a
 * mapping of the file is resolved or the file is learnt from where the
 * program met it; checked against the mapping's inode. */
static void
test_file_keys(void **state)
{
	struct image *img = NULL;
	uint32_t off = 0;
	uint64_t dev = kdev_of(self.st.st_dev), ino = self.st.st_ino;
	uint64_t foff = self_sym - self.xvaddr + self.xoff;
	uint64_t ldev = kdev_of(lib.st.st_dev), lino = lib.st.st_ino;

	(void)state;
	attr_fini();
	assert_int_equal(attr_init(), 0);
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_NO_MAP);
	/* This process, from the scan: its own mapping, live. */
	attr_scan_proc(NULL);
	assert_int_equal(attr_file_learn_at(dev, ino + 1, getpid(),
	    (uintptr_t)attr_test_target), ATTR_NO_MAP);
	while (attr_file_learnt(&ldev, &lino) == 0)
		;
	assert_int_equal(attr_file_learn_at(dev, ino, getpid(),
	    (uintptr_t)attr_test_target), ATTR_OK);
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_OK);
	/* Learnt once: the core hands it on to the kernel's file map. */
	assert_int_equal(attr_file_learnt(&ldev, &lino), 0);
	assert_int_equal(ldev, dev);
	assert_int_equal(lino, ino);
	assert_int_equal(attr_file_learnt(&ldev, &lino), -1);
	ldev = kdev_of(lib.st.st_dev);
	lino = lib.st.st_ino;
	assert_string_equal(img->path, self.path);
	assert_int_equal(off, self_sym - self.xvaddr);
	/* Outside the text: as attr_sample says. */
	assert_int_equal(attr_file_sample(dev, ino, self.xoff + self.xfilesz + 0x100000,
	    &img, &off), ATTR_OUTSIDE_TEXT);
	/* A process gone (no map_files): the MMAP2's inode vouches for the
	 * mapping; a build-id MMAP2 names no inode, so it cannot. */
	mmap_exec(5000, &lib, BASE, 0, NULL);
	mmap_exec(5001, &lib, BASE, 1, NULL);
	assert_int_equal(attr_file_learn_at(ldev, lino, 5001,
	    pc_of(&lib, BASE, lib_sym)), ATTR_NO_MAP);
	assert_int_equal(attr_file_learn_at(ldev, lino, 5000, BASE - 1), ATTR_NO_MAP);
	assert_int_equal(attr_file_learn_at(ldev, lino, 5002, BASE), ATTR_UNKNOWN_PID);
	assert_int_equal(attr_file_learn_at(ldev, lino, 5000,
	    pc_of(&lib, BASE, lib_sym)), ATTR_OK);
	assert_int_equal(attr_file_sample(ldev, lino, lib_sym - lib.xvaddr + lib.xoff,
	    &img, &off), ATTR_OK);
	assert_int_equal(off, lib_sym - lib.xvaddr);
	attr_exit(5000, 1, 5000, 1);
	attr_exit(5001, 1, 5001, 1);
	/* Known files stay known after their processes exit. */
	assert_int_equal(attr_file_sample(ldev, lino, lib_sym - lib.xvaddr + lib.xoff,
	    &img, &off), ATTR_OK);
	attr_fini();
	assert_int_equal(attr_init(), 0);
}

/* Anonymous mappings one below the other (a JIT's thousands) make one
 * range: what lies between them is anonymous code too, until a file is
 * mapped there, which splits the range as any mapping does. */
static void
test_anon_ranges(void **state)
{
	uint64_t lo = BASE, hi = BASE + 0x10000000, mid = BASE + 0x1000000;

	(void)state;
	anon_mmap(6000, hi, 0x2000, PROT_READ | PROT_EXEC);
	anon_mmap(6000, lo, 0x2000, PROT_READ | PROT_EXEC);
	assert_int_equal(sample(6000, hi + 0x10), ATTR_ANON);
	assert_int_equal(sample(6000, lo + 0x10), ATTR_ANON);
	assert_int_equal(sample(6000, mid), ATTR_ANON);
	assert_int_equal(sample(6000, hi + 0x2000), ATTR_NO_MAP);
	assert_int_equal(sample(6000, lo - 1), ATTR_NO_MAP);
	mmap_exec(6000, &lib, mid, 0, NULL);
	expect_ok(6000, pc_of(&lib, mid, lib_sym), NULL, lib_sym - lib.xvaddr);
	assert_int_equal(sample(6000, mid - 1), ATTR_ANON);
	assert_int_equal(sample(6000, hi + 0x10), ATTR_ANON);
	/* Below the range: joins it, not a map of its own. */
	anon_mmap(6000, lo - 0x3000, 0x1000, PROT_READ | PROT_EXEC);
	assert_int_equal(sample(6000, lo - 0x1000), ATTR_ANON);
	attr_exit(6000, 1, 6000, 1);
}

/* One page of self's text, file page k of it, mapped at page slot of a
 * window for pid. */
static void
page_mmap(uint32_t pid, uint64_t slot, uint64_t k)
{
	struct attr_mmap m;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.start = BASE + slot * 0x1000;
	m.len = 0x1000;
	m.pgoff = (self.xoff & ~0xfffULL) + k * 0x1000;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.maj = major(self.st.st_dev);
	m.min = minor(self.st.st_dev);
	m.ino = self.st.st_ino;
	m.filename = self.path;
	attr_mmap(&m);
}

/* pid's page at each slot against the model: no map (-1) or file page k,
 * probed in the page's middle. */
static void
pages_check(uint32_t pid, const int *model, size_t w)
{
	size_t s;

	for (s = 0; s < w; s++) {
		uint64_t pc = BASE + s * 0x1000 + 0x800;

		if (model[s] < 0)
			assert_int_equal(sample(pid, pc), ATTR_NO_MAP);
		else
			expect_ok(pid, pc, self.path, (self.xoff & ~0xfffULL) +
			    (uint64_t)model[s] * 0x1000 + 0x800 - self.xoff);
	}
}

/* Thousands of single-page mappings in mmap's order (each below the
 * last), in address order and at random, with data mappings punching
 * holes: the sorted array of maps, which moves its shorter side, keeps
 * every page where a model of the address space has it, and a fork copies
 * it whole. */
static void
test_many_maps(void **state)
{
	enum { W = 3000 };
	static int model[W];
	uint64_t k0 = 1, nk = (self.xoff + self.xfilesz - 0x800) / 0x1000 -
	    self.xoff / 0x1000 - 1;	/* pages whose middle is text */
	size_t s, op;
	unsigned seed = 12345;

	(void)state;
	assert_true(nk >= 4);
	for (s = 0; s < W; s++)
		model[s] = -1;
	/* Downward, then upward in the rest: one side moves each time. */
	for (s = W / 2; s-- > 0;) {
		page_mmap(7000, s, k0 + s % nk);
		model[s] = k0 + s % nk;
	}
	for (s = W / 2; s < W; s++) {
		page_mmap(7000, s, k0 + (s * 7) % nk);
		model[s] = k0 + (s * 7) % nk;
	}
	pages_check(7000, model, W);
	for (op = 0; op < 20000; op++) {
		size_t at = rand_r(&seed) % W, len = 1 + rand_r(&seed) % 3, j;

		if (rand_r(&seed) % 5 == 0) {
			/* Data memory over [at, at + len): a hole. */
			len = at + len > W ? W - at : len;
			anon_mmap(7000, BASE + at * 0x1000, len * 0x1000,
			    PROT_READ | PROT_WRITE);
			for (j = at; j < at + len; j++)
				model[j] = -1;
		} else {
			int k = k0 + rand_r(&seed) % nk;

			page_mmap(7000, at, k);
			model[at] = k;
		}
		if (op % 2500 == 0)
			pages_check(7000, model, W);
	}
	pages_check(7000, model, W);
	attr_fork(7001, 7000, 7001, 7000);
	pages_check(7001, model, W);
	attr_exit(7000, 1, 7000, 1);
	pages_check(7001, model, W);
	attr_exit(7001, 1, 7001, 1);
	assert_int_equal(attr_nprocs(), 0);
}

/* A copy of libelf at tmp (a mkstemp template), its build-id changed
 * when newbid (a new image, not libelf's), its text mapped into this
 * process: *len bytes at the address returned.  The copy is closed and
 * left on disk; its MMAP2 record (under the copy's inode, no build-id)
 * is filled into *m, less its filename. */
static void *
map_lib_copy(char *tmp, int newbid, struct attr_mmap *m, uint64_t *len)
{
	int in, out, flipped = !newbid;
	char buf[65536];
	ssize_t n, i;
	void *p;
	uint64_t pgoff = lib.xoff & ~0xfffULL;
	struct stat st;

	in = open(lib.path, O_RDONLY);
	out = mkstemp(tmp);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		/* The build-id's bytes changed where they lie whole in one read. */
		for (i = 0; !flipped && i + (ssize_t)lib.bidlen <= n; i++)
			if (memcmp(buf + i, lib.bid, lib.bidlen) == 0) {
				buf[i] ^= 0x5a;
				flipped = 1;
			}
		assert_int_equal(write(out, buf, n), n);
	}
	assert_true(flipped);
	close(in);
	*len = (lib.xoff - pgoff + lib.xfilesz + 0xfff) & ~0xfffULL;
	p = mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, out, pgoff);
	assert_true(p != MAP_FAILED);
	fstat(out, &st);
	close(out);
	memset(m, 0, sizeof(*m));
	m->pid = m->tid = getpid();
	m->start = (uintptr_t)p;
	m->len = *len;
	m->pgoff = pgoff;
	m->prot = PROT_READ | PROT_EXEC;
	m->maj = major(st.st_dev);
	m->min = minor(st.st_dev);
	m->ino = st.st_ino;
	return p;
}

/* A deleted binary still mapped by a live process is read through
 * /proc/PID/map_files. */
static void
test_deleted(void **state)
{
	char tmp[] = "/tmp/attrtestXXXXXX", name[4200];
	struct attr_mmap m;
	uint64_t len;
	void *p;

	(void)state;
	p = map_lib_copy(tmp, 0, &m, &len);
	unlink(tmp);
	snprintf(name, sizeof(name), "%s (deleted)", tmp);
	m.filename = name;
	attr_mmap(&m);
	expect_ok(getpid(), pc_of(&lib, (uintptr_t)p, lib_sym), NULL,
	    lib_sym - lib.xvaddr);
	munmap(p, len);
	attr_exit(getpid(), 1, getpid(), 1);
}

/* A path may hold a newline, which a profile's header line cannot: the
 * image's recorded path writes it \012, as /proc/PID/maps does. */
static void
test_newline_path(void **state)
{
	char tmp[] = "/tmp/attr\ntestXXXXXX", want[64];
	struct attr_mmap m;
	struct image *img = NULL;
	uint32_t off = 0;
	uint64_t len;
	void *p;

	(void)state;
	assert_true(lib.bidlen > 0);
	p = map_lib_copy(tmp, 1, &m, &len);
	m.filename = tmp;
	attr_mmap(&m);
	assert_int_equal(attr_sample(getpid(), pc_of(&lib, (uintptr_t)p, lib_sym), USER,
	    &img, &off), ATTR_OK);
	assert_int_equal(off, lib_sym - lib.xvaddr);
	snprintf(want, sizeof(want), "/tmp/attr\\012test%s", tmp + strlen("/tmp/attr\ntest"));
	assert_string_equal(img->path, want);
	munmap(p, len);
	unlink(tmp);
	attr_exit(getpid(), 1, getpid(), 1);
}

/* A mapped path since replaced by a FIFO neither blocks nor attributes. */
static void
test_fifo(void **state)
{
	char dir[] = "/tmp/attrfifoXXXXXX", path[100];
	struct felf fe = lib;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(stat(path, &st), 0);
	fe.st = st;
	mmap_exec(1000, &fe, BASE, 0, path);
	assert_int_equal(sample(1000, pc_of(&lib, BASE, lib_sym)),
	    ATTR_UNREADABLE);
	attr_exit(1000, 1, 1000, 1);
	unlink(path);
	rmdir(dir);
}

/* The files attr_reclaim told the kernel's table to forget. */
static uint64_t forgot_dev[64], forgot_ino[64];
static size_t nforgot;

static void
forget(uint64_t dev, uint64_t ino)
{
	if (nforgot < 64) {
		forgot_dev[nforgot] = dev;
		forgot_ino[nforgot] = ino;
	}
	nforgot++;
}

static int
forgotten(uint64_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < nforgot && i < 64; i++)
		if (forgot_dev[i] == dev && forgot_ino[i] == ino)
			return 1;
	return 0;
}

/* A drain of the kernel's counts during attr_reclaim: this program's
 * file counted, as the image at drain_img. */
static uint32_t drain_img;
static enum attr_reason drained;

static void
drain(void)
{
	struct image *img;
	uint32_t off;

	drained = attr_file_sample(kdev_of(self.st.st_dev), self.st.st_ino,
	    self_sym - self.xvaddr + self.xoff, &img, &off);
}

static int
counted(uint32_t index)
{
	return drained == ATTR_OK && index == drain_img;
}

/* Images read from files are freed once no mapping holds them and no
 * count was flushed for them at two reclaim passes in a row; their file
 * entries go (the kernel's table told), their indexes serve new images. */
static void
test_reclaim(void **state)
{
	struct image *img = NULL, *limg = NULL;
	uint32_t off, si, li;
	uint64_t dev = kdev_of(self.st.st_dev), ino = self.st.st_ino;
	uint64_t foff = self_sym - self.xvaddr + self.xoff;
	size_t n0;
	int i;

	(void)state;
	attr_fini();
	assert_int_equal(attr_init(), 0);
	n0 = attr_nimages();	/* the kernel's and the vdso's: never freed */
	mmap_exec(6000, &self, BASE, 0, NULL);
	mmap_exec(6000, &lib, BASE + 0x10000000, 0, NULL);
	assert_int_equal(attr_sample(6000, pc_of(&self, BASE, self_sym), USER, &img,
	    &off), ATTR_OK);
	assert_int_equal(attr_sample(6000, pc_of(&lib, BASE + 0x10000000, lib_sym),
	    USER, &limg, &off), ATTR_OK);
	si = img->index;
	li = limg->index;
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_OK);
	assert_int_equal(attr_nimages(), n0 + 2);
	/* Mapped: kept, however many passes. */
	nforgot = 0;
	for (i = 0; i < 4; i++)
		assert_int_equal(attr_reclaim(forget, NULL, NULL), 0);
	assert_int_equal(attr_nimages(), n0 + 2);
	/* But its file entry, not counted for two passes, went (the kernel's
	 * table told); the program's next sample learns it again. */
	assert_true(forgotten(dev, ino));
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_NO_MAP);
	assert_int_equal(attr_file_learn_at(dev, ino, 6000, pc_of(&self, BASE, self_sym)),
	    ATTR_OK);
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_OK);
	assert_int_equal(img->index, si);
	/* Unmapped, but the library's counts flushed at each pass: only the
	 * program goes, at the second pass. */
	attr_exit(6000, 1, 6000, 1);
	nforgot = 0;
	attr_image_used(li);
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 0);
	assert_non_null(attr_image(si));
	attr_image_used(li);
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 1);
	assert_null(attr_image(si));
	assert_non_null(attr_image(li));
	assert_int_equal(attr_nimages(), n0 + 1);
	assert_true(forgotten(dev, ino));
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_NO_MAP);
	/* The library too, two passes after its last count. */
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 0);
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 1);
	assert_null(attr_image(li));
	assert_int_equal(attr_nimages(), n0);
	/* Mapped again: read again, under a freed index, whole. */
	mmap_exec(6001, &self, BASE, 0, NULL);
	expect_ok(6001, pc_of(&self, BASE, self_sym), self.path, self_sym - self.xvaddr);
	attr_sample(6001, pc_of(&self, BASE, self_sym), USER, &img, &off);
	assert_true(img->index == si || img->index == li);
	assert_true(attr_image_slots() <= n0 + 2);
	attr_exit(6001, 1, 6001, 1);
	/* Unmapped two passes, but the kernel had counted it (a process that
	 * mapped it during the flush): the drain, its file still known,
	 * counts it, and it stays; freed two passes after. */
	drain_img = img->index;
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 0);
	nforgot = 0;
	assert_int_equal(attr_reclaim(forget, drain, counted), 0);
	assert_true(forgotten(dev, ino));	/* told first, */
	assert_int_equal(drained, ATTR_OK);	/* drained while known */
	assert_non_null(attr_image(drain_img));
	assert_int_equal(attr_file_sample(dev, ino, foff, &img, &off), ATTR_OK);
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 0);
	assert_int_equal(attr_reclaim(forget, NULL, NULL), 1);
	assert_null(attr_image(drain_img));
	attr_fini();
	assert_int_equal(attr_init(), 0);
}

/* Processes come and go; memory returns to where it was. */
static void
test_memory(void **state)
{
	size_t base = 0;
	int round, i;

	(void)state;
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 300; i++) {
			uint32_t pid = 5000 + i;

			if (i == 0)
				mmap_exec(pid, &self, BASE, 0, NULL);
			else
				attr_fork(pid, 5000 + i / 2, pid, 5000 + i / 2);
			mmap_exec(pid, &lib, BASE + 0x1000000 * (i % 7), 0,
			    NULL);
			anon_mmap(pid, BASE + 0x80000000ULL, 0x10000,
			    PROT_READ | PROT_EXEC);
			expect_ok(pid, pc_of(&self, BASE, self_sym), NULL,
			    self_sym - self.xvaddr);
		}
		assert_int_equal(attr_nprocs(), 300);
		for (i = 299; i >= 0; i--)
			attr_exit(5000 + i, 1, 5000 + i, 1);
		assert_int_equal(attr_nprocs(), 0);
		if (round == 0)
			base = attr_memory();
		else
			assert_int_equal(attr_memory(), base);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_and_lib),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_fork_exec_exit),
		cmocka_unit_test(test_proc_records),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_cpumodes),
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_scan_self),
		cmocka_unit_test(test_file_keys),
		cmocka_unit_test(test_deleted),
		cmocka_unit_test(test_newline_path),
		cmocka_unit_test(test_anon_ranges),
		cmocka_unit_test(test_many_maps),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_reclaim),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
