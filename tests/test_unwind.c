/*
 * daemon/unwind_table.c: tables built from real images' CFI, this test's
 * own executable (built -O2 without frame pointers) and the C library it
 * runs with, checked against what their code is: a function's first row,
 * the PLT's expression, glibc's signal trampoline, the outermost frame
 * (_start), the gaps; and a program whose CFI is only in .debug_frame.
 * daemon/unwind.c: walks of copies of this process's own stack (below).
 */
#define _GNU_SOURCE
#include "config.h"

#include <sys/types.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gelf.h>

#include "unwind.h"
#include "unwind_table.h"

/* An image of this process: its file, load bias and table. */
struct img {
	char			 path[PATH_MAX];
	uint64_t		 bias;
	uint64_t		 lo, hi;	/* its executable segments, in this process */
	int			 fd;
	Elf			*elf;
	struct unwind_table	*t;
};

static struct img exe, libc;
/* The other objects loaded (libcmocka, libelf, the sanitizers' runtime,
 * which intercepts qsort), for the walk's look-up. */
#define OTHERS_MAX	32
static struct img others[OTHERS_MAX];
static int nothers;

static void
exec_range(struct dl_phdr_info *info, struct img *m)
{
	const ElfW(Phdr) *ph;
	int i;

	m->bias = info->dlpi_addr;
	m->lo = UINT64_MAX;
	m->hi = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0)
			continue;
		if (m->bias + ph->p_vaddr < m->lo)
			m->lo = m->bias + ph->p_vaddr;
		if (m->bias + ph->p_vaddr + ph->p_memsz > m->hi)
			m->hi = m->bias + ph->p_vaddr + ph->p_memsz;
	}
}

static int
find_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct img *want = arg;

	(void)size;
	if (want == &exe && info->dlpi_name[0] == '\0') {
		exec_range(info, want);
		return 1;
	}
	if (want == &libc && strstr(info->dlpi_name, "/libc.so.6") != NULL) {
		snprintf(want->path, sizeof(want->path), "%s", info->dlpi_name);
		exec_range(info, want);
		return 1;
	}
	return 0;
}

static int
find_others(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct img *m;

	(void)size;
	(void)arg;
	if (info->dlpi_name[0] != '/' || strstr(info->dlpi_name, "/libc.so.6") != NULL ||
	    nothers == OTHERS_MAX)
		return 0;
	m = &others[nothers];
	snprintf(m->path, sizeof(m->path), "%s", info->dlpi_name);
	exec_range(info, m);
	if ((m->fd = open(m->path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if ((m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL)) == NULL ||
	    (m->t = unwind_table_build(m->elf, NULL)) == NULL) {
		elf_end(m->elf);
		close(m->fd);
		return 0;
	}
	nothers++;
	return 0;
}

static void
img_open(struct img *m)
{
	if (m == &exe) {
		ssize_t n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);

		assert_true(n > 0);
		m->path[n] = '\0';
	}
	assert_int_equal(dl_iterate_phdr(find_phdr, m), 1);
	assert_true((m->fd = open(m->path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL));
	m->t = unwind_table_build(m->elf, NULL);
	assert_non_null(m->t);
}

static void
img_close(struct img *m)
{
	unwind_table_free(m->t);
	elf_end(m->elf);
	close(m->fd);
	memset(m, 0, sizeof(*m));
}

/* A symbol's ELF vaddr and size from .symtab, else .dynsym: 0, or -1. */
static int
img_sym(const struct img *m, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, n;
	const char *nm;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
			if (gelf_getshdr(scn, &sh) == NULL ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    (d = elf_getdata(scn, NULL)) == NULL || sh.sh_entsize == 0)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n; i++)
				if (gelf_getsym(d, (int)i, &s) != NULL && s.st_value != 0 &&
				    (nm = elf_strptr(m->elf, sh.sh_link, s.st_name)) != NULL &&
				    strcmp(nm, name) == 0) {
					*vaddr = s.st_value;
					*size = s.st_size;
					return 0;
				}
		}
	}
	return -1;
}

/* A section's address and size: 0, or -1. */
static int
img_scn(const struct img *m, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *nm;

	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL &&
		    (nm = elf_strptr(m->elf, shstrndx, sh.sh_name)) != NULL &&
		    strcmp(nm, name) == 0) {
			*vaddr = sh.sh_addr;
			*size = sh.sh_size;
			return 0;
		}
	return -1;
}

static int
setup(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	img_open(&exe);
	img_open(&libc);
	dl_iterate_phdr(find_others, NULL);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	img_close(&exe);
	img_close(&libc);
	while (nothers > 0)
		img_close(&others[--nothers]);
	return 0;
}

/* The rows are sorted, each starts after the one before, and the last
 * one is a gap (the end of the last FDE). */
static void
check_sorted(const struct unwind_table *t)
{
	const struct unwind_row *r, *prev = NULL;
	size_t i, n = unwind_table_rows(t);

	assert_true(n >= 2);
	for (i = 0; i < n; i++, prev = r) {
		r = unwind_table_row(t, i);
		assert_non_null(r);
		if (prev != NULL) {
			assert_true(r->start > prev->start);
			/* Adjacent rows that say the same thing are one;
			 * an interned rule is one index. */
			assert_int_not_equal(r->rule, prev->rule);
			assert_int_not_equal(memcmp(unwind_rule_of(r), unwind_rule_of(prev),
			    sizeof(struct unwind_rule)), 0);
		}
	}
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_of(unwind_table_row(t, n - 1))), UNWIND_CFA_NONE);
	assert_null(unwind_table_row(t, n));
	assert_int_equal(unwind_table_memory(t) >= n * sizeof(struct unwind_row), 1);
}

/* A function's entry: CFA = SP + 8, the return address at CFA - 8, BP
 * unchanged. */
static void
check_entry(const struct img *m, const char *fn)
{
	const struct unwind_row *r;
	uint64_t v, sz;

	assert_int_equal(img_sym(m, fn, &v, &sz), 0);
	r = unwind_table_find(m->t, v);
	assert_non_null(r);
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_of(r)), UNWIND_CFA_SP);
	assert_int_equal(unwind_rule_of(r)->cfa_offset, 8);
	assert_int_equal(unwind_rule_of(r)->ra_offset, -8);
	assert_int_equal(UNWIND_RULE_BP(unwind_rule_of(r)), UNWIND_BP_SAME);
	assert_int_equal(unwind_rule_of(r)->kind & UNWIND_RULE_OUTERMOST, 0);
	assert_true(unwind_table_row_vaddr(m->t, r) <= v);
}

static void
test_table_exe(void **state)
{
	const struct unwind_row *r;
	uint64_t v, sz;

	(void)state;
	assert_int_equal(unwind_table_source(exe.t), UNWIND_SRC_EH_FRAME);
	assert_true(unwind_table_fdes(exe.t) >= 10);
	check_sorted(exe.t);
	check_entry(&exe, "main");
	check_entry(&exe, "img_sym");
	/* _start marks the return address undefined: the outermost frame. */
	assert_int_equal(img_sym(&exe, "_start", &v, &sz), 0);
	assert_non_null(r = unwind_table_find(exe.t, v + 1));
	assert_int_equal(unwind_rule_of(r)->kind & UNWIND_RULE_OUTERMOST, UNWIND_RULE_OUTERMOST);
	/* Before the first row and after the last: no information. */
	assert_null(unwind_table_find(exe.t, unwind_table_row_vaddr(exe.t,
	    unwind_table_row(exe.t, 0)) - 1));
	assert_null(unwind_table_find(exe.t, unwind_table_row_vaddr(exe.t,
	    unwind_table_row(exe.t, unwind_table_rows(exe.t) - 1))));
	assert_null(unwind_table_find(exe.t, 0));
	assert_null(unwind_table_find(exe.t, UINT64_MAX));
}

/* A function that saves registers: past its pushes, CFA = SP + 8 + 8 a
 * push, and a BP pushed is found at its place below the CFA; one that
 * keeps a frame pointer: CFA = BP + 16. */
static void
test_table_pushes(void **state)
{
	const struct unwind_row *r;
	uint64_t v, sz, a;
	int32_t max = 0;
	int bp_saved = 0, bp_cfa = 0;

	(void)state;
	assert_int_equal(img_sym(&libc, "__libc_start_main", &v, &sz), 0);
	for (a = v; a < v + sz && (r = unwind_table_find(libc.t, a)) != NULL; a++) {
		if (UNWIND_RULE_CFA(unwind_rule_of(r)) == UNWIND_CFA_SP && unwind_rule_of(r)->cfa_offset > max)
			max = unwind_rule_of(r)->cfa_offset;
		if (UNWIND_RULE_BP(unwind_rule_of(r)) == UNWIND_BP_CFA) {
			bp_saved = 1;
			assert_true(unwind_rule_of(r)->bp_offset < 0 && unwind_rule_of(r)->bp_offset % 8 == 0);
		}
	}
	assert_true(a > v + 16);
	assert_true(max > 16);
	assert_true(bp_saved);
	/* glibc's qsort_r keeps a frame pointer (its buffer is an alloca). */
	assert_int_equal(img_sym(&libc, "qsort_r", &v, &sz), 0);
	for (a = v; a < v + sz && (r = unwind_table_find(libc.t, a)) != NULL; a++)
		if (UNWIND_RULE_CFA(unwind_rule_of(r)) == UNWIND_CFA_BP) {
			bp_cfa = 1;
			assert_int_equal(unwind_rule_of(r)->cfa_offset, 16);
			assert_int_equal(UNWIND_RULE_BP(unwind_rule_of(r)), UNWIND_BP_CFA);
			assert_int_equal(unwind_rule_of(r)->bp_offset, -16);
		}
	assert_true(bp_cfa);
}

static void
test_table_libc(void **state)
{
	const struct unwind_row *r;
	uint64_t v, sz, plt, pltsz;
	const unsigned char *code;

	(void)state;
	assert_int_equal(unwind_table_source(libc.t), UNWIND_SRC_EH_FRAME);
	assert_true(unwind_table_fdes(libc.t) >= 1000);
	check_sorted(libc.t);
	check_entry(&libc, "__libc_start_main");
	check_entry(&libc, "qsort");
	/* The lazy PLT's entries (after PLT0's 16 bytes): the expression
	 * SP + 8 + (PC & 15 >= 11 ? 8 : 0). */
	if (img_scn(&libc, ".plt", &plt, &pltsz) == 0 && pltsz >= 32) {
		assert_non_null(r = unwind_table_find(libc.t, plt + 16));
		if (UNWIND_RULE_CFA(unwind_rule_of(r)) == UNWIND_CFA_PLT) {
			assert_int_equal(unwind_rule_of(r)->cfa_offset, 8);
			assert_int_equal(UNWIND_PLT_MASK(unwind_rule_of(r)), 15);
			assert_int_equal(UNWIND_PLT_THRESHOLD(unwind_rule_of(r)), 11);
			assert_int_equal(unwind_rule_of(r)->ra_offset, -8);
		}
		assert_true(unwind_table_find(libc.t, plt + 16) ==
		    unwind_table_find(libc.t, plt + pltsz - 1));
	}
	/* glibc's __restore_rt (not exported: found by the handler's return
	 * address in a signal, below), at "mov $15, %rax": a signal frame
	 * from the byte before it, where a return address minus one looks. */
	for (r = NULL, v = 0; v + 1 < unwind_table_rows(libc.t); v++) {
		const struct unwind_row *x = unwind_table_row(libc.t, v);

		if (UNWIND_RULE_CFA(unwind_rule_of(x)) == UNWIND_CFA_SIGNAL) {
			r = x;
			break;
		}
	}
	assert_non_null(r);
	code = (const unsigned char *)(uintptr_t)(libc.bias +
	    unwind_table_row_vaddr(libc.t, r) + 1);
	assert_memory_equal(code, "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05", 9);
	(void)sz;
}

/* The table of the image of an fd, and the errors. */
static void
test_table_fd(void **state)
{
	struct unwind_table *t;
	int fd;

	(void)state;
	assert_non_null(t = unwind_table_build_fd(libc.fd, -1));
	assert_int_equal(unwind_table_rows(t), unwind_table_rows(libc.t));
	unwind_table_free(t);
	assert_true((fd = open("/proc/self/status", O_RDONLY)) >= 0);
	errno = 0;
	assert_null(unwind_table_build_fd(fd, -1));
	assert_int_equal(errno, EINVAL);
	close(fd);
	errno = 0;
	assert_null(unwind_table_build(NULL, NULL));
	assert_int_equal(errno, ENOTSUP);
	unwind_table_free(NULL);
}

/* CFI only in .debug_frame: a table from it, with the program's own
 * functions. */
static void
test_table_debug_frame(void **state)
{
	struct img m;
	struct unwind_table *t;
	const struct unwind_row *r;
	uint64_t v, sz;
	size_t n;
	int fd;

	(void)state;
	memset(&m, 0, sizeof(m));
	snprintf(m.path, sizeof(m.path), "%s", DBGFRAME_PROG);
	assert_true((m.fd = open(m.path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(m.elf = elf_begin(m.fd, ELF_C_READ_MMAP, NULL));
	assert_non_null(m.t = unwind_table_build(m.elf, NULL));
	assert_int_equal(unwind_table_source(m.t), UNWIND_SRC_DEBUG_FRAME);
	check_sorted(m.t);
	check_entry(&m, "dbgframe_work");
	check_entry(&m, "main");
	assert_int_equal(img_sym(&m, "dbgframe_work", &v, &sz), 0);
	/* Its last byte (a ret): SP-based, or BP-based where the sanitizers
	 * keep frame pointers. */
	assert_non_null(r = unwind_table_find(m.t, v + sz - 1));
	assert_true(UNWIND_RULE_CFA(unwind_rule_of(r)) == UNWIND_CFA_SP || UNWIND_RULE_CFA(unwind_rule_of(r)) == UNWIND_CFA_BP);
	/* The same file given as the debug file of itself. */
	n = unwind_table_rows(m.t);
	unwind_table_free(m.t);
	assert_non_null(m.t = unwind_table_build(m.elf, m.elf));
	assert_int_equal(unwind_table_source(m.t), UNWIND_SRC_DEBUG_FRAME);
	unwind_table_free(m.t);
	/* By descriptors: the debug file's .debug_frame, the same rows; a
	 * debug file that is no ELF refused. */
	assert_non_null(m.t = unwind_table_build_fd(m.fd, m.fd));
	assert_int_equal(unwind_table_source(m.t), UNWIND_SRC_DEBUG_FRAME);
	assert_int_equal(unwind_table_rows(m.t), n);
	assert_true((fd = open("/proc/self/status", O_RDONLY)) >= 0);
	errno = 0;
	assert_null(unwind_table_build_fd(m.fd, fd));
	assert_int_equal(errno, EINVAL);
	close(fd);
	/* A debug file without .debug_frame adds nothing. */
	assert_non_null(t = unwind_table_build_fd(libc.fd, libc.fd));
	assert_int_equal(unwind_table_source(t), UNWIND_SRC_EH_FRAME);
	assert_int_equal(unwind_table_rows(t), unwind_table_rows(libc.t));
	unwind_table_free(t);
	img_close(&m);
}

/*
 * The walk (daemon/unwind.c) over copies of this process's own stack,
 * taken before the tests run, from main: a chain of this program's
 * functions, one through qsort's internals, one through a signal
 * handler, one in a thread.  Each capture is what the kernel gives a
 * sample: the registers at a point of the leaf, and the stack's bytes
 * from SP (up to STACK_COPY, or the end of the stack's mapping).
 */
#define STACK_COPY	8192
#define NOINLINE	__attribute__((noinline, noclone))
#define BARRIER()	__asm__ volatile("" ::: "memory")

struct capture {
	struct unwind_regs	 regs;
	struct unwind_stack	 stack;
	unsigned char		 data[STACK_COPY];
};

static struct capture cap_chain, cap_qsort, cap_signal, cap_thread;
static volatile int sink;

/* The end of the mapping that holds addr, from /proc/self/maps; 0 if none. */
static uint64_t
mapping_end(uint64_t addr)
{
	unsigned long lo, hi;
	char line[512];
	FILE *f;
	uint64_t end = 0;

	if ((f = fopen("/proc/self/maps", "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && addr >= lo && addr < hi) {
			end = hi;
			break;
		}
	fclose(f);
	return end;
}

/* A copy the sanitizers do not check, as the kernel's: a stack holds
 * AddressSanitizer's redzones between its frames' variables. */
static void
raw_copy(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) :: "memory");
}

/* The copy of the stack above c's captured SP (below it, this function's
 * own frame changes nothing the walk reads). */
static NOINLINE void
copy_stack(struct capture *c)
{
	uint64_t end = mapping_end(c->regs.sp);
	size_t n = STACK_COPY;

	if (end > c->regs.sp && end - c->regs.sp < n)
		n = (size_t)(end - c->regs.sp);
	raw_copy(c->data, (const void *)(uintptr_t)c->regs.sp, n);
	c->stack = (struct unwind_stack){ c->data, n, c->regs.sp };
}

/* The registers of this point of the function it is in, then the copy. */
#define CAPTURE(c) do {							\
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" \
	    : "=r"((c)->regs.ip), "=r"((c)->regs.sp), "=r"((c)->regs.bp)	\
	    :: "memory");						\
	copy_stack(c);							\
} while (0)

/* The chain main -> outer -> middle -> inner -> leaf. */
static NOINLINE void
leaf(struct capture *c)
{
	CAPTURE(c);
	sink++;
}

static NOINLINE void
inner(struct capture *c)
{
	leaf(c);
	BARRIER();
	sink++;
}

static NOINLINE void
middle(struct capture *c)
{
	inner(c);
	BARRIER();
	sink++;
}

static NOINLINE void
outer(struct capture *c)
{
	middle(c);
	BARRIER();
	sink++;
}

/* qsort's comparison calls the leaf once: main -> qsort_caller -> qsort
 * (libc) -> its internals -> cmp -> leaf. */
static struct capture *qsort_cap;

static NOINLINE int
cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (qsort_cap != NULL) {
		leaf(qsort_cap);
		qsort_cap = NULL;
	}
	BARRIER();
	return x < y ? -1 : x > y;
}

static NOINLINE void
qsort_caller(struct capture *c)
{
	int v[16], i;

	for (i = 0; i < 16; i++)
		v[i] = (i * 7) % 16;
	qsort_cap = c;
	qsort(v, 16, sizeof(v[0]), cmp);
	BARRIER();
	sink += v[0];
}

/* A signal: main -> signal_caller -> victim, whose ud2 raises SIGILL; the
 * handler captures (handler -> __restore_rt -> victim, at the ud2). */

static uint64_t victim_pc;

static void
on_sigill(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;

	(void)sig;
	(void)si;
	CAPTURE(&cap_signal);
	victim_pc = (uint64_t)u->uc_mcontext.gregs[REG_RIP];
	u->uc_mcontext.gregs[REG_RIP] += 2;	/* past the ud2 */
}

static NOINLINE void
victim(void)
{
	sink++;
	__asm__ volatile("ud2" ::: "memory");
	sink++;
}

static NOINLINE void
signal_caller(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigill;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &old);
	victim();
	BARRIER();
	sigaction(SIGILL, &old, NULL);

}

/* A thread: start_thread -> thread_main -> leaf. */
static NOINLINE void *
thread_main(void *arg)
{
	leaf(arg);
	BARRIER();
	return NULL;
}

static NOINLINE void
thread_caller(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, thread_main, &cap_thread) == 0)
		pthread_join(th, NULL);
}

/* The walk's look-up: the tables of this program and the objects it
 * loaded. */
static int
lookup(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	const struct img *m = NULL;
	int i;

	(void)arg;
	if (pc >= exe.lo && pc < exe.hi)
		m = &exe;
	else if (pc >= libc.lo && pc < libc.hi)
		m = &libc;
	for (i = 0; m == NULL && i < nothers; i++)
		if (pc >= others[i].lo && pc < others[i].hi)
			m = &others[i];
	if (m == NULL)
		return -1;
	*t = m->t;
	*bias = m->bias;
	return 0;
}

/* The same without this program's table. */
static int
lookup_libc(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	if (pc >= exe.lo && pc < exe.hi)
		return -1;
	return lookup(arg, pc, t, bias);
}

/* Whether pc (a return address: ra, else the exact PC) is in fn of m
 * (in m, any function, for fn NULL). */
static int
in_fn(const struct img *m, const char *fn, uint64_t pc, int ra)
{
	uint64_t v, sz, a = pc - (ra ? 1 : 0);

	if (fn == NULL)
		return a >= m->lo && a < m->hi;
	if (img_sym(m, fn, &v, &sz) == -1) {
		print_error("no symbol %s in %s\n", fn, m->path);
		return 0;
	}
	return a >= m->bias + v && a < m->bias + v + sz;
}

#define MAXC	64

static size_t
walk(const struct capture *c, uint64_t *callers, enum unwind_end *e)
{
	size_t n = unwind_walk(&c->regs, &c->stack, lookup, NULL, callers, MAXC, e);
	size_t i;

	for (i = 0; i < n; i++) {
		const struct img *m = NULL;
		const char *base;
		Dl_info di;
		int k;

		if (in_fn(&exe, NULL, callers[i], 1))
			m = &exe;
		else if (in_fn(&libc, NULL, callers[i], 1))
			m = &libc;
		for (k = 0; m == NULL && k < nothers; k++)
			if (in_fn(&others[k], NULL, callers[i], 1))
				m = &others[k];
		if (m == NULL) {
			print_message("  #%zu %#" PRIx64 "\n", i, callers[i]);
			continue;
		}
		base = strrchr(m->path, '/') != NULL ? strrchr(m->path, '/') + 1 : m->path;
		print_message("  #%zu %#" PRIx64 " %s+%#" PRIx64 " %s\n", i, callers[i],
		    m == &exe ? "exe" : base, callers[i] - m->bias,
		    dladdr((void *)(uintptr_t)(callers[i] - 1), &di) &&
		    di.dli_sname != NULL ? di.dli_sname : "");
	}
	print_message("  end: %s\n", unwind_end_name(*e));
	return n;
}

/* The frames below main, as glibc starts a program: __libc_start_call_main
 * (not exported), __libc_start_main, _start, where the walk ends. */
static void
check_below_main(const uint64_t *c, size_t n, enum unwind_end e)
{
	assert_int_equal(n, 3);
	assert_true(in_fn(&libc, NULL, c[0], 1));
	assert_true(in_fn(&libc, "__libc_start_main", c[1], 1));
	assert_true(in_fn(&exe, "_start", c[2], 1));
	assert_int_equal(e, UNWIND_END_OUTERMOST);
}

static void
test_walk_chain(void **state)
{
	uint64_t c[MAXC];
	enum unwind_end e;
	size_t n;

	(void)state;
	assert_true(in_fn(&exe, "leaf", cap_chain.regs.ip, 0));
	n = walk(&cap_chain, c, &e);
	assert_true(n >= 4);
	assert_true(in_fn(&exe, "inner", c[0], 1));
	assert_true(in_fn(&exe, "middle", c[1], 1));
	assert_true(in_fn(&exe, "outer", c[2], 1));
	assert_true(in_fn(&exe, "main", c[3], 1));
	check_below_main(c + 4, n - 4, e);
}

static void
test_walk_qsort(void **state)
{
	uint64_t c[MAXC];
	enum unwind_end e;
	size_t n, i, libc_frames;

	(void)state;
	n = walk(&cap_qsort, c, &e);
	assert_true(n >= 4);
	assert_true(in_fn(&exe, "cmp", c[0], 1));
	/* qsort's internals (msort_with_tmp, recursive) in libc; where
	 * AddressSanitizer intercepts qsort, its own sort in its runtime. */
	for (i = 1, libc_frames = 0; i < n && !in_fn(&exe, NULL, c[i], 1); i++)
		libc_frames += in_fn(&libc, NULL, c[i], 1);
	assert_true(i >= 2);
#ifndef __SANITIZE_ADDRESS__
	assert_true(libc_frames >= 1);
#endif
	assert_true(i + 2 <= n);
	assert_true(in_fn(&exe, "qsort_caller", c[i], 1));
	assert_true(in_fn(&exe, "main", c[i + 1], 1));
	check_below_main(c + i + 2, n - i - 2, e);
}

static void
test_walk_signal(void **state)
{
	uint64_t c[MAXC];
	enum unwind_end e;
	size_t n;

	(void)state;
	assert_true(in_fn(&exe, "on_sigill", cap_signal.regs.ip, 0));
	n = walk(&cap_signal, c, &e);
	assert_true(n >= 4);
	/* The handler returns to glibc's trampoline, "mov $15, %rax; syscall". */
	assert_true(in_fn(&libc, NULL, c[0], 1));
	assert_memory_equal((const void *)(uintptr_t)c[0], "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05", 9);
	/* Then the interrupted PC itself, the ud2. */
	assert_int_equal(c[1], victim_pc);
	assert_true(in_fn(&exe, "victim", c[1], 0));
	assert_memory_equal((const void *)(uintptr_t)c[1], "\x0f\x0b", 2);
	assert_true(in_fn(&exe, "signal_caller", c[2], 1));
	assert_true(in_fn(&exe, "main", c[3], 1));
	check_below_main(c + 4, n - 4, e);
}

static void
test_walk_thread(void **state)
{
	uint64_t c[MAXC];
	enum unwind_end e;
	size_t n;

	(void)state;
	n = walk(&cap_thread, c, &e);
	/* thread_main, start_thread, clone3's child (the outermost frame). */
	assert_int_equal(n, 3);
	assert_true(in_fn(&exe, "thread_main", c[0], 1));
	assert_true(in_fn(&libc, NULL, c[1], 1));
	assert_true(in_fn(&libc, NULL, c[2], 1));
	assert_int_equal(e, UNWIND_END_OUTERMOST);
}

/* Copies cut short, 0 to all of it by 8 bytes: each walk a prefix of the
 * whole one, ended by the copy's end where it is not all of it. */
static void
test_walk_truncated(void **state)
{
	struct capture *c;
	uint64_t full[MAXC], part[MAXC];
	enum unwind_end e, ef;
	size_t nf, n, size;

	(void)state;
	c = malloc(sizeof(*c));
	assert_non_null(c);
	nf = unwind_walk(&cap_signal.regs, &cap_signal.stack, lookup, NULL, full, MAXC, &ef);
	assert_int_equal(ef, UNWIND_END_OUTERMOST);
	for (size = 0; size <= cap_signal.stack.size; size += 8) {
		*c = cap_signal;
		c->stack.data = c->data;
		c->stack.size = size;
		n = unwind_walk(&c->regs, &c->stack, lookup, NULL, part, MAXC, &e);
		assert_true(n <= nf);
		assert_memory_equal(part, full, n * sizeof(part[0]));
		if (n < nf)
			assert_int_equal(e, UNWIND_END_TRUNCATED);
	}
	/* 64 bytes of the chain's: less than the leaf's frame. */
	*c = cap_chain;
	c->stack.data = c->data;
	c->stack.size = 64;
	n = unwind_walk(&c->regs, &c->stack, lookup, NULL, part, MAXC, &e);
	assert_int_equal(e, UNWIND_END_TRUNCATED);
	nf = unwind_walk(&cap_chain.regs, &cap_chain.stack, lookup, NULL, full, MAXC, &ef);
	assert_true(n < nf);
	assert_memory_equal(part, full, n * sizeof(part[0]));
	free(c);
}

static void
test_walk_depth(void **state)
{
	uint64_t full[MAXC], part[MAXC];
	enum unwind_end e;
	size_t n, nf, max;

	(void)state;
	nf = unwind_walk(&cap_chain.regs, &cap_chain.stack, lookup, NULL, full, MAXC, &e);
	for (max = 0; max < nf; max++) {
		n = unwind_walk(&cap_chain.regs, &cap_chain.stack, lookup, NULL, part, max, &e);
		assert_int_equal(n, max);
		assert_int_equal(e, UNWIND_END_DEPTH);
		assert_memory_equal(part, full, n * sizeof(part[0]));
	}
}

/* A PC no table covers, without a frame pointer chain: the end, nothing
 * guessed. */
static void
test_walk_no_table(void **state)
{
	struct unwind_regs r = cap_chain.regs;
	uint64_t c[MAXC];
	enum unwind_end e;

	(void)state;
	r.bp = 0;
	assert_int_equal(unwind_walk(&r, &cap_chain.stack, lookup_libc, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_NO_TABLE);
	/* BP outside the copy. */
	r.bp = r.sp + STACK_COPY * 2;
	assert_int_equal(unwind_walk(&r, &cap_chain.stack, lookup_libc, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_NO_TABLE);
	/* A PC in a table's gap. */
	r = cap_chain.regs;
	r.ip = exe.bias + unwind_table_row_vaddr(exe.t, unwind_table_row(exe.t,
	    unwind_table_rows(exe.t) - 1));
	assert_int_equal(unwind_walk(&r, &cap_chain.stack, lookup, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_NO_ROW);
}

/* Code without a table (JIT) that keeps frame pointers: followed by
 * them, BP to the saved BP and return address above it. */
static int
lookup_none(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	(void)arg;
	(void)pc;
	(void)t;
	(void)bias;
	return -1;
}

/* Every PC in the executable's table's last row, its end: no rule. */
static int
lookup_gap(void *arg, uint64_t pc, const struct unwind_table **t, uint64_t *bias)
{
	(void)arg;
	*t = exe.t;
	*bias = pc - unwind_table_row_vaddr(exe.t, unwind_table_row(exe.t,
	    unwind_table_rows(exe.t) - 1));
	return 0;
}

static void
test_walk_frame_pointers(void **state)
{
	const uint64_t base = 0x7ff000000000;
	uint64_t st[16] = { 0 }, c[MAXC];
	struct unwind_stack s = { (const unsigned char *)st, sizeof(st), base };
	struct unwind_regs r = { 0x1234, base, base + 16 };
	enum unwind_end e;

	(void)state;
	st[2] = base + 48;	/* the caller's BP */
	st[3] = 0xaaaa;		/* the return address */
	st[6] = 0;		/* the outermost frame's */
	st[7] = 0xbbbb;
	assert_int_equal(unwind_walk(&r, &s, lookup_none, NULL, c, MAXC, &e), 2);
	assert_int_equal(c[0], 0xaaaa);
	assert_int_equal(c[1], 0xbbbb);
	assert_int_equal(e, UNWIND_END_NO_TABLE);
	/* The same in a range of an image without rules (node's embedded
	 * builtins): the frame pointers, then the end says no-row. */
	assert_int_equal(unwind_walk(&r, &s, lookup_gap, NULL, c, MAXC, &e), 2);
	assert_int_equal(c[0], 0xaaaa);
	assert_int_equal(c[1], 0xbbbb);
	assert_int_equal(e, UNWIND_END_NO_ROW);
	/* A saved BP below its frame's is no chain. */
	st[2] = base + 8;
	assert_int_equal(unwind_walk(&r, &s, lookup_none, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_NO_TABLE);
	assert_int_equal(unwind_walk(&r, &s, lookup_gap, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_NO_ROW);
}

/* The PLT's rule at a lazy entry: before its push, the return address at
 * SP; after it, at SP + 8.  And a CFA at BP + 16 with BP below SP: a loop. */
static void
test_walk_plt_loop(void **state)
{
	const uint64_t base = 0x7ff000000000;
	uint64_t st[16] = { 0 }, c[MAXC], plt, pltsz, v, sz, a;
	struct unwind_stack s = { (const unsigned char *)st, sizeof(st), base };
	struct unwind_regs r = { 0, base, 0 };
	const struct unwind_row *row;
	enum unwind_end e;

	(void)state;
	st[0] = 0x1000;
	st[1] = 0x2000;
	if (img_scn(&libc, ".plt", &plt, &pltsz) == 0 && pltsz >= 32 &&
	    (row = unwind_table_find(libc.t, plt + 16)) != NULL &&
	    UNWIND_RULE_CFA(unwind_rule_of(row)) == UNWIND_CFA_PLT) {
		r.ip = libc.bias + plt + 16 + 6;	/* push $N */
		assert_int_equal(unwind_walk(&r, &s, lookup, NULL, c, 1, &e), 1);
		assert_int_equal(c[0], 0x1000);
		r.ip = libc.bias + plt + 16 + 11;	/* jmp PLT0 */
		assert_int_equal(unwind_walk(&r, &s, lookup, NULL, c, 1, &e), 1);
		assert_int_equal(c[0], 0x2000);
	}
	assert_int_equal(img_sym(&libc, "qsort_r", &v, &sz), 0);
	for (a = v; a < v + sz; a++)
		if ((row = unwind_table_find(libc.t, a)) != NULL &&
		    UNWIND_RULE_CFA(unwind_rule_of(row)) == UNWIND_CFA_BP)
			break;
	assert_true(a < v + sz);
	r.ip = libc.bias + a;
	r.sp = base + 64;
	r.bp = base;
	assert_int_equal(unwind_walk(&r, &s, lookup, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_LOOP);
	assert_string_equal(unwind_end_name(e), "loop");
}

/* A signal frame whose saved context is itself (a forged stack): a loop,
 * not max callers of the same; one whose saved PC is 0: the end. */
static void
test_walk_signal_loop(void **state)
{
	const uint64_t base = 0x7ff000000000;
	ucontext_t uc;
	struct unwind_stack s = { (const unsigned char *)&uc, sizeof(uc), base };
	struct unwind_regs r = { 0, base, 0 };
	const struct unwind_row *row = NULL;
	uint64_t c[MAXC];
	enum unwind_end e;
	size_t i;

	(void)state;
	for (i = 0; i < unwind_table_rows(libc.t); i++)
		if (UNWIND_RULE_CFA(unwind_rule_of(row = unwind_table_row(libc.t, i))) == UNWIND_CFA_SIGNAL)
			break;
	assert_true(i < unwind_table_rows(libc.t));
	/* __restore_rt, the byte after the FDE's start. */
	r.ip = libc.bias + unwind_table_row_vaddr(libc.t, row) + 1;
	memset(&uc, 0, sizeof(uc));
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)r.ip;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)base;
	assert_int_equal(unwind_walk(&r, &s, lookup, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_LOOP);
	uc.uc_mcontext.gregs[REG_RIP] = 0;
	assert_int_equal(unwind_walk(&r, &s, lookup, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_OUTERMOST);
	/* The context cut off by the copy's end. */
	s.size = offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]);
	assert_int_equal(unwind_walk(&r, &s, lookup, NULL, c, MAXC, &e), 0);
	assert_int_equal(e, UNWIND_END_TRUNCATED);
}

static int
find_ldso(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (strstr(info->dlpi_name, "/ld-linux-x86-64.so") == NULL)
		return 0;
	snprintf(arg, PATH_MAX, "%s", info->dlpi_name);
	return 1;
}

/* The dynamic linker's entry point (_start, with no CFI in glibc: it
 * calls _dl_start while programs start): the outermost frame. */
static void
test_table_entry(void **state)
{
	struct img m;
	const struct unwind_row *r;
	GElf_Ehdr eh;

	(void)state;
	memset(&m, 0, sizeof(m));
	if (dl_iterate_phdr(find_ldso, m.path) != 1)
		skip();
	assert_true((m.fd = open(m.path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(m.elf = elf_begin(m.fd, ELF_C_READ_MMAP, NULL));
	assert_non_null(m.t = unwind_table_build(m.elf, NULL));
	assert_non_null(gelf_getehdr(m.elf, &eh));
	assert_non_null(r = unwind_table_find(m.t, eh.e_entry));
	assert_int_equal(unwind_rule_of(r)->kind & UNWIND_RULE_OUTERMOST, UNWIND_RULE_OUTERMOST);
	/* Its call's return address minus one. */
	assert_true(unwind_table_find(m.t, eh.e_entry + 7) == r);
	img_close(&m);
}

/* An FDE naming register 512 (DW_CFA_undefined), which libdw would make
 * room for in every row it computes (2 GiB for register 2^27): refused
 * before libdw runs it. */
static void
test_table_hostile(void **state)
{
	int fd;
	Elf *elf;

	(void)state;
	assert_true((fd = open(HOSTILE_IMAGE, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL));
	errno = 0;
	assert_null(unwind_table_build(elf, NULL));
	assert_int_equal(errno, EINVAL);
	elf_end(elf);
	close(fd);
}

/* A shared object of two functions: eh_fn (0x20d) with its FDE in
 * .eh_frame, df_fn (0x219, built -fno-asynchronous-unwind-tables -g) with
 * its FDE in .debug_frame only (tests/fuzz/corpus/unwind): rows for both. */
static void
test_table_eh_and_debug(void **state)
{
	const struct unwind_row *r;
	struct unwind_table *t;
	char path[4096];
	int fd;
	Elf *elf;

	(void)state;
	snprintf(path, sizeof(path), "%.*s/eh_and_debug_frame.so",
	    (int)(strrchr(HOSTILE_IMAGE, '/') - HOSTILE_IMAGE), HOSTILE_IMAGE);
	assert_true((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL));
	assert_non_null(t = unwind_table_build(elf, NULL));
	assert_int_equal(unwind_table_source(t), UNWIND_SRC_BOTH);
	assert_int_equal(unwind_table_fdes(t), 2);
	assert_non_null(r = unwind_table_find(t, 0x20d));
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_of(r)), UNWIND_CFA_SP);
	assert_non_null(r = unwind_table_find(t, 0x219));
	assert_int_equal(UNWIND_RULE_CFA(unwind_rule_of(r)), UNWIND_CFA_SP);
	assert_int_equal(unwind_rule_of(r)->cfa_offset, 8);
	assert_null(unwind_table_find(t, 0x225));
	unwind_table_free(t);
	elf_end(elf);
	close(fd);
}

/* PLT sections no FDE covers: the jumps of .plt.got and .plt.sec leave
 * the stack as the call made it; the lazy .plt has no information. */
static void
test_table_plt_fill(void **state)
{
	struct img m;
	const struct unwind_row *r;
	uint64_t v, sz;
	const char *const *s;
	static const char *const jumps[] = { ".plt.got", ".plt.sec", NULL };

	(void)state;
	memset(&m, 0, sizeof(m));
	snprintf(m.path, sizeof(m.path), "%s", PLT_PROG);
	assert_true((m.fd = open(m.path, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_non_null(m.elf = elf_begin(m.fd, ELF_C_READ_MMAP, NULL));
	assert_non_null(m.t = unwind_table_build(m.elf, NULL));
	assert_int_equal(unwind_table_source(m.t), UNWIND_SRC_EH_FRAME);
	check_sorted(m.t);
	assert_int_equal(img_scn(&m, ".plt.sec", &v, &sz), 0);
	for (s = jumps; *s != NULL; s++) {
		if (img_scn(&m, *s, &v, &sz) == -1)
			continue;
		assert_non_null(r = unwind_table_find(m.t, v));
		assert_int_equal(UNWIND_RULE_CFA(unwind_rule_of(r)), UNWIND_CFA_SP);
		assert_int_equal(unwind_rule_of(r)->cfa_offset, 8);
		assert_int_equal(unwind_rule_of(r)->ra_offset, -8);
		assert_true(unwind_table_find(m.t, v + sz - 1) == r);
	}
	if (img_scn(&m, ".plt", &v, &sz) == 0)
		assert_null(unwind_table_find(m.t, v + 16));
	img_close(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_exe),
		cmocka_unit_test(test_table_libc),
		cmocka_unit_test(test_table_pushes),
		cmocka_unit_test(test_table_fd),
		cmocka_unit_test(test_table_debug_frame),
		cmocka_unit_test(test_table_plt_fill),
		cmocka_unit_test(test_table_entry),
		cmocka_unit_test(test_table_hostile),
		cmocka_unit_test(test_table_eh_and_debug),
		cmocka_unit_test(test_walk_chain),
		cmocka_unit_test(test_walk_qsort),
		cmocka_unit_test(test_walk_signal),
		cmocka_unit_test(test_walk_thread),
		cmocka_unit_test(test_walk_truncated),
		cmocka_unit_test(test_walk_depth),
		cmocka_unit_test(test_walk_no_table),
		cmocka_unit_test(test_walk_frame_pointers),
		cmocka_unit_test(test_walk_plt_loop),
		cmocka_unit_test(test_walk_signal_loop),
	};

	/* The captures, from main, before cmocka's frames. */
	outer(&cap_chain);
	qsort_caller(&cap_qsort);
	signal_caller();
	thread_caller();
	return cmocka_run_group_tests(tests, setup, teardown);
}

