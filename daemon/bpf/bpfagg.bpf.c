/*
 * In-kernel aggregation of dcpid's samples (aggregate = bpf): attached to
 * every sampling perf fd, counts each sample it can key exactly in a
 * per-CPU hash map and returns 0, which keeps the kernel from writing the
 * sample to the ring buffer; any other sample (anonymous or JIT code, a
 * map full, bpf_find_vma busy, dcpid asking for everything while a run
 * label is in force) returns 1 and takes the ring-buffer path.
 *
 * The kernel structures are declared here with only the fields read, and
 * preserve_access_index: libbpf relocates them against the running
 * kernel's BTF (CO-RE), so no vmlinux.h is needed to build.
 */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef long long __s64;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __be16;
typedef __u32 __wsum;

#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>	/* the context: the sample's registers */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>		/* PT_REGS_IP, by __TARGET_ARCH_* */

#include "../bpfagg_key.h"

struct mm_struct;

struct task_struct {
	struct mm_struct	*mm;
	__u64			 self_exec_id;	/* one more at each exec */
} __attribute__((preserve_access_index));

/* mm->mm_lock_seq (Linux 6.4, CONFIG_PER_VMA_LOCK): changes with every
 * write-locked change of the address space; an int until 6.11, a
 * seqcount_t (odd while a change is under way) since 6.12. */
struct seqcount {
	unsigned int	sequence;
} __attribute__((preserve_access_index));

struct mm_struct___seqcount {
	struct seqcount	mm_lock_seq;
} __attribute__((preserve_access_index));

struct mm_struct___int {
	int		mm_lock_seq;
} __attribute__((preserve_access_index));

struct super_block {
	__u32	s_dev;
} __attribute__((preserve_access_index));

struct inode {
	unsigned long		 i_ino;
	struct super_block	*i_sb;
} __attribute__((preserve_access_index));

struct file {
	struct inode	*f_inode;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long	 vm_start;
	unsigned long	 vm_end;
	unsigned long	 vm_pgoff;
	struct file	*vm_file;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct bpfagg_ctl);
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * BPFAGG_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} slot_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * BPFAGG_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct bpfagg_key);
} slot_key SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * BPFAGG_SLOTS);
	__type(key, struct bpfagg_key);
	__type(value, __u32);
} slot_of SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BPFAGG_MAX_FILES);
	__type(key, struct bpfagg_file);
	__type(value, __u32);		/* BPFAGG_FILE_* */
} files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, BPFAGG_MAX_NEWS);
	__type(value, struct bpfagg_news);
} news SEC(".maps");

/*
 * What bpf_find_vma found for a page of code, while its address space
 * stays unchanged.  bpf_find_vma from the sampling interrupt (interrupts
 * off) takes mmap_lock by trylock and releases it through an irq_work, a
 * self-interrupt per call: about 5 us on this VM, more than the rest of
 * the sample.  The cache keeps the answer per (process, mm, page) with the
 * mm's mm_lock_seq at the lookup: the same seq later means no mapping of
 * that mm has changed since, so the answer is still exact.  The mm's
 * address alone does not name one address space: an exited process's
 * mm_struct is freed, and the next one may be allocated at its address,
 * where a program with the same layout (two builds of one Go program)
 * reaches the same seq after the same start-up.  So the key also has the
 * process (its tgid) and its exec (self_exec_id): a key of an exited
 * process could be met again only by a process of its pid after the pids
 * have wrapped around, with the same mm address, execs and seq, while the
 * entry outlived the 8,192 more recent ones of an LRU.
 */
struct vma_key {
	__u64	mm;		/* the mm_struct's address */
	__u64	page;		/* pc >> 12 */
	__u64	exec_id;	/* the task's self_exec_id */
	__u32	tgid;
	__u32	pad;
};

struct vma_val {
	__u64	ino;
	__u64	off;		/* file offset of the page's first byte */
	__u64	start, end;	/* the mapping's (a walk's cache, find_row) */
	__u32	dev;
	__u32	seq;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct vma_key);
	__type(value, struct vma_val);
} vmacache SEC(".maps");

/* The mm's mm_lock_seq in *seq: 0, or -1 where the kernel has none or a
 * change is under way (odd seqcount). */
static __always_inline int
mm_seq(struct mm_struct *mm, __u32 *seq)
{
	/* Direct loads through the task's BTF pointer (the verifier makes
	 * them fault-safe), not bpf_probe_read_kernel calls: this runs at
	 * every user sample. */
	if (bpf_core_field_exists(((struct mm_struct___seqcount *)0)->mm_lock_seq)) {
		struct mm_struct___seqcount *m = (void *)mm;

		*seq = m->mm_lock_seq.sequence;
		return (*seq & 1) ? -1 : 0;
	}
	if (bpf_core_field_exists(((struct mm_struct___int *)0)->mm_lock_seq)) {
		struct mm_struct___int *m = (void *)mm;

		*seq = (__u32)m->mm_lock_seq;
		return 0;
	}
	return -1;
}

struct vma_ctx {
	__u64	pc;
	__u64	off;
	__u64	ino;
	__u64	start, end;
	__u32	dev;
	__u32	found;
};

static long
vma_cb(struct task_struct *task, struct vm_area_struct *vma, struct vma_ctx *v)
{
	struct file *f = BPF_CORE_READ(vma, vm_file);
	struct inode *in;

	if (f == 0)
		return 0;	/* anonymous: JIT code, trampolines */
	in = BPF_CORE_READ(f, f_inode);
	v->ino = BPF_CORE_READ(in, i_ino);
	v->dev = BPF_CORE_READ(in, i_sb, s_dev);
	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->off = v->pc - v->start + ((__u64)BPF_CORE_READ(vma, vm_pgoff) << 12);
	v->found = 1;
	return 0;
}

/* The cache's key for pc in the current task, and whether the mm's seq
 * allows the cache (0: it does). */
static __always_inline int
vma_key_of(struct task_struct *task, __u64 pid_tgid, __u64 pc, struct vma_key *vk,
    __u32 *seq)
{
	struct mm_struct *mm = task->mm;

	vk->mm = (__u64)mm;
	vk->page = pc >> 12;
	vk->exec_id = task->self_exec_id;
	vk->tgid = pid_tgid >> 32;
	vk->pad = 0;
	*seq = 0;
	return mm != 0 && mm_seq(mm, seq) == 0 ? 0 : -1;
}

SEC("perf_event")
int
dcpi_sample(struct bpf_perf_event_data *ctx)
{
	struct bpfagg_key k = {};
	struct vma_ctx v = {};
	struct bpfagg_ctl *c;
	__u32 zero = 0;
	__u64 pid_tgid, *n;
	__u32 gen, slot, *sp;
	struct bpfagg_key *kp;

	if ((c = bpf_map_lookup_elem(&ctl, &zero)) == 0 || c->pass_all)
		return 1;
	gen = c->gen & 1;
	k.addr = PT_REGS_IP(&ctx->regs);
	k.event = (__u32)bpf_get_attach_cookie(ctx);
	k.cgroup = bpf_get_current_cgroup_id();
	pid_tgid = bpf_get_current_pid_tgid();
	if ((pid_tgid >> 32) == 0)
		k.flags |= BPFAGG_IDLE;
	/* Kernel addresses are the upper half (attr_sample decides alike). */
	if ((__s64)k.addr < 0) {
		k.flags |= BPFAGG_KERNEL;
	} else {
		struct bpfagg_file fk;
		struct bpfagg_news nw;
		__u32 *st;
		struct task_struct *task = bpf_get_current_task_btf();
		struct vma_key vk;
		struct vma_val vv, *vp;
		__u32 seq;
		int seq_ok;

		seq_ok = vma_key_of(task, pid_tgid, k.addr, &vk, &seq) == 0;
		if (seq_ok && (vp = bpf_map_lookup_elem(&vmacache, &vk)) != 0 &&
		    vp->seq == seq) {
			v.ino = vp->ino;
			v.dev = vp->dev;
			v.off = vp->off + (k.addr & 0xfff);
			v.pc = k.addr;
		} else {
			v.pc = k.addr;
			if (bpf_find_vma(task, k.addr, vma_cb, &v, 0) != 0 || !v.found)
				return 1;
			/* Counted here only once dcpid knows the file (see
			 * bpfagg_key.h); a file met anew is queued for it. */
			fk.dev = v.dev;
			fk.ino = v.ino;
			if ((st = bpf_map_lookup_elem(&files, &fk)) == 0) {
				__u32 fresh = BPFAGG_FILE_NEW;

				if (bpf_map_update_elem(&files, &fk, &fresh, BPF_NOEXIST) == 0) {
					nw.dev = v.dev;
					nw.ino = v.ino;
					nw.pc = v.pc;
					nw.pid = pid_tgid >> 32;
					nw.pad = 0;
					if (bpf_map_push_elem(&news, &nw, 0) != 0)
						bpf_map_delete_elem(&files, &fk);
				}
				return 1;
			}
			if (*st != BPFAGG_FILE_KNOWN)
				return 1;
			if (seq_ok) {
				vv.ino = v.ino;
				vv.dev = v.dev;
				vv.off = v.off - (k.addr & 0xfff);
				vv.start = v.start;
				vv.end = v.end;
				vv.seq = seq;
				bpf_map_update_elem(&vmacache, &vk, &vv, BPF_ANY);
			}
		}
		k.addr = v.off;
		k.ino = v.ino;
		k.dev = v.dev;
	}
	k.pad = gen;
	if ((sp = bpf_map_lookup_elem(&slot_of, &k)) != 0) {
		slot = *sp;
	} else {
		/* A new key: the next slot of the set, its key written before
		 * the slot is published (dcpid reads a slot's key only once
		 * its count is not 0). */
		slot = __sync_fetch_and_add(&c->used[gen & 1], 1);
		if (slot >= BPFAGG_SLOTS)
			return 1;
		slot += gen * BPFAGG_SLOTS;
		if ((kp = bpf_map_lookup_elem(&slot_key, &slot)) == 0)
			return 1;
		*kp = k;
		if (bpf_map_update_elem(&slot_of, &k, &slot, BPF_NOEXIST) != 0) {
			/* Another CPU published it first (this slot stays
			 * empty), or the map is full. */
			if ((sp = bpf_map_lookup_elem(&slot_of, &k)) == 0)
				return 1;
			slot = *sp;
		}
	}
	if ((n = bpf_map_lookup_elem(&slot_count, &slot)) == 0)
		return 1;
	__sync_fetch_and_add(n, 1);
	return 0;
}

/*
 * The call chains' walk (dcpi_chain, bpfagg_key.h): attached to the
 * chains' sparse twins on the dwarf route, which sample the user's
 * registers, a user stack copy and the kernel's own frames.  It walks the
 * user stack as daemon/unwind.c walks the copy, reading the process's
 * memory itself (bpf_probe_read_user) but nothing the copy would not have
 * held, and hands the frames to dcpid through the ring buffer map chains
 * (returning 0: the kernel copies no stack).  Wherever unwind.c would do
 * something this walk does not (frame pointers for code no table covers,
 * a walk cut short by the copy, a loop) or a table is not loaded yet, it
 * returns 1, and the sample takes the ring with its copy, to be walked by
 * dcpid: the same chain either way.
 */
#define UNW_STEP_FRAMES	4	/* frames a call of unw_step */
#define UC_RIP	168	/* offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]) */
#define UC_RSP	160
#define UC_RBP	120

/* Set by dcpid before the load (tests): a walk the verifier refuses. */
const volatile __u32 unw_reject = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BPFUNW_ROWS);
	__uint(map_flags, BPF_F_MMAPABLE);	/* written by dcpid in place */
	__type(key, __u32);
	__type(value, struct bpfunw_row);
} unw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BPFUNW_RULES);
	__uint(map_flags, BPF_F_MMAPABLE);	/* written by dcpid in place */
	__type(key, __u32);
	__type(value, struct bpfunw_rule);
} unw_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BPFUNW_FILES);
	__type(key, struct bpfagg_file);
	__type(value, struct bpfunw_file);
} unw_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, BPFUNW_MAX_NEED);
	__type(value, struct bpfunw_need);
} unw_need SEC(".maps");

/* The walk's own page cache (vmacache holds only files counted flat). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct vma_key);
	__type(value, struct vma_val);
} unw_vmacache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpfunw_chain);
} unw_scratch SEC(".maps");

/*
 * The stack bytes a walk read last: one bpf_probe_read_user costs about
 * 65 ns here whatever its size up to a few hundred bytes (the fault-safe
 * copy's set-up, not the bytes), and a walk peeks once or twice a frame,
 * so it reads the stack in pieces of up to BPFUNW_CHUNK bytes and peeks
 * into the piece.
 */
struct unw_chunk {
	__u8	b[BPFUNW_CHUNK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_chunk);
} unw_stack SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * BPFUNW_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} unw_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} chains SEC(".maps");

struct walk {
	__u64	pc, sp, bp;
	__u64	sp0, top;	/* the copy: [sp0, top) */
	__u64	pid_tgid;
	__u32	n, max;
	__u32	exact, bp_known;
	__u32	c_len;		/* unw_stack holds [c_at, c_at + c_len) */
	__u64	c_at;
	__u32	stop;		/* 0: go on; 1: chain complete; 2: to the ring */
	__u32	why;		/* enum bpfunw_stat when stop is 2 */
	__u32	misc;
	/* find_row's: the mapping looked up last, [c_start, c_end) (empty:
	 * none), the row key of its first byte, its file's rows; the last
	 * row's rule and its range [c_lo, c_hi) (c_hi 0: none). */
	__u64	c_start, c_end;
	__s64	c_startkey;
	__u32	c_first, c_nrows, c_npages, c_pbase;
	__u32	c_row, c_lo, c_hi;
	__u32	pad;
};

static __always_inline int
give_up(struct walk *w, __u32 why)
{
	w->stop = 2;
	w->why = why;
	return 1;
}

/*
 * The 8 bytes at addr, where the copy would hold them: 0, or -1.  From
 * the piece of the stack in unw_stack, read anew from addr up, within
 * addr's page (the next page may not be mapped, where the copy would stop
 * too), where the piece lacks them.  A global function: the verifier
 * checks it once, not on every path of each of its callers.
 */
__noinline int
unw_peek(struct walk *w, __u64 addr, __u64 *v)
{
	struct unw_chunk *c;
	__u32 zero = 0;
	__u64 off, len;

	if (w == 0 || v == 0 || addr < w->sp0 || addr > w->top || w->top - addr < 8 ||
	    (c = bpf_map_lookup_elem(&unw_stack, &zero)) == 0)
		return -1;
	off = addr - w->c_at;
	if (addr < w->c_at || off + 8 > w->c_len) {
		len = 4096 - (addr & 4095);
		if (len > w->top - addr)
			len = w->top - addr;
		if (len > BPFUNW_CHUNK)
			len = BPFUNW_CHUNK;
		w->c_len = 0;
		if (len < 8 || bpf_probe_read_user(c->b, len, (const void *)addr) != 0)
			return bpf_probe_read_user(v, 8, (const void *)addr) == 0 ? 0 : -1;
		w->c_at = addr;
		w->c_len = len;
		off = 0;
	}
	if (off > BPFUNW_CHUNK - 8)
		return -1;
	*v = *(__u64 *)&c->b[off];
	return 0;
}

/* The file and offset of pc in the current process: 0, or -1 (no file). */
static __always_inline int
pc_file(const struct walk *w, __u64 pc, struct vma_ctx *v)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vma_key vk;
	struct vma_val vv, *vp;
	__u32 seq;
	int seq_ok = vma_key_of(task, w->pid_tgid, pc, &vk, &seq) == 0;

	v->pc = pc;
	v->found = 0;
	if (seq_ok && (((vp = bpf_map_lookup_elem(&vmacache, &vk)) != 0 &&
	    vp->seq == seq) || ((vp = bpf_map_lookup_elem(&unw_vmacache, &vk)) != 0 &&
	    vp->seq == seq))) {
		v->ino = vp->ino;
		v->dev = vp->dev;
		v->off = vp->off + (pc & 0xfff);
		v->start = vp->start;
		v->end = vp->end;
		return 0;
	}
	if (bpf_find_vma(task, pc, vma_cb, v, 0) != 0 || !v->found)
		return -1;
	if (seq_ok) {
		vv.ino = v->ino;
		vv.dev = v->dev;
		vv.off = v->off - (pc & 0xfff);
		vv.start = v->start;
		vv.end = v->end;
		vv.seq = seq;
		bpf_map_update_elem(&unw_vmacache, &vk, &vv, BPF_ANY);
	}
	return 0;
}

static __always_inline struct bpfunw_rule *
no_row(struct walk *w)
{
	give_up(w, BPFUNW_TO_RING_ROW);
	return 0;
}

/*
 * The row that holds pc; NULL where the walk must give up (why set).
 * The last mapping's range, file and rows, and the last row's range, are
 * kept in the walk: a caller in the callee's mapping (an interpreter's
 * frames, a library's) needs neither the page's nor the file's lookup
 * (about 100 ns each), and a recursion's callers not the search either.
 */
static __always_inline struct bpfunw_rule *
find_row(struct walk *w, __u64 pc)
{
	struct bpfunw_row *r;
	struct bpfunw_rule *u;
	__u32 lo, hi, mid, i, first, key;
	__s64 k;

	if (pc < w->c_start || pc >= w->c_end) {
		struct bpfunw_file *f;
		struct bpfagg_file fk;
		struct vma_ctx v;

		if (pc_file(w, pc, &v) != 0) {
			give_up(w, BPFUNW_TO_RING_FILE);
			return 0;
		}
		fk.dev = v.dev;
		fk.ino = v.ino;
		if ((f = bpf_map_lookup_elem(&unw_files, &fk)) == 0) {
			struct bpfunw_file nf = {};
			struct bpfunw_need nw = { v.dev, v.ino, v.pc, v.off,
			    w->pid_tgid >> 32, 0 };

			if (bpf_map_update_elem(&unw_files, &fk, &nf, BPF_NOEXIST) == 0 &&
			    bpf_map_push_elem(&unw_need, &nw, 0) != 0)
				bpf_map_delete_elem(&unw_files, &fk);
			give_up(w, BPFUNW_TO_RING_TABLE);
			return 0;
		}
		if (f->state != BPFUNW_READY) {
			give_up(w, f->state == BPFUNW_NONE ? BPFUNW_TO_RING_NONE :
			    BPFUNW_TO_RING_TABLE);
			return 0;
		}
		w->c_start = v.start;
		w->c_end = v.end;
		w->c_startkey = (__s64)(v.off - (pc - v.start)) + f->adj;
		w->c_first = f->first;
		w->c_nrows = f->nrows;
		w->c_npages = f->npages;
		w->c_pbase = f->pbase;
		w->c_hi = 0;		/* no row kept */
	}
	k = w->c_startkey + (__s64)(pc - w->c_start);
	if (k < 0 || k > 0xffffffffll) {
		give_up(w, BPFUNW_TO_RING_ROW);
		return 0;
	}
	key = (__u32)k;
	if (key >= w->c_lo && key < w->c_hi) {
		mid = w->c_row;		/* the row's rule */
		if ((u = bpf_map_lookup_elem(&unw_rules, &mid)) == 0) {
			give_up(w, BPFUNW_TO_RING_ROW);
			return 0;
		}
		return u;
	}
	first = w->c_first;
	/* The last row whose start is at or before key: between the rows
	 * of key's page and of the next, by the page index. */
	lo = 0;
	hi = w->c_nrows;
	if (hi == 0 || hi > BPFUNW_TABLE_MAX) {
		give_up(w, BPFUNW_TO_RING_ROW);
		return 0;
	}
	if (key >= w->c_pbase && ((key - w->c_pbase) >> 12) + 1 < w->c_npages) {
		__u32 p = (key - w->c_pbase) >> 12, l, h;

		mid = first + w->c_nrows + p / BPFUNW_PAGE_IDX;
		if ((r = bpf_map_lookup_elem(&unw_rows, &mid)) == 0)
			return no_row(w);
		l = ((__u32 *)r)[p % BPFUNW_PAGE_IDX];
		p++;
		mid = first + w->c_nrows + p / BPFUNW_PAGE_IDX;
		if ((r = bpf_map_lookup_elem(&unw_rows, &mid)) == 0)
			return no_row(w);
		h = ((__u32 *)r)[p % BPFUNW_PAGE_IDX] + 1;
		if (l >= h || h > hi)
			return no_row(w);
		lo = l;
		hi = h;
	}
	for (i = 0; i < BPFUNW_SEARCH && lo + 1 < hi; i++) {
		mid = first + lo + (hi - lo) / 2;
		if ((r = bpf_map_lookup_elem(&unw_rows, &mid)) == 0)
			break;
		if (r->start <= key)
			lo = mid - first;
		else
			hi = mid - first;
	}
	if (hi != lo + 1) {
		give_up(w, BPFUNW_TO_RING_ROW);
		return 0;
	}
	/* The row's range, to its next row's start (the last row, a gap
	 * row, is not kept: it is never walked from). */
	mid = first + hi;
	w->c_hi = 0;
	if (hi < w->c_nrows && (r = bpf_map_lookup_elem(&unw_rows, &mid)) != 0)
		w->c_hi = r->start;
	mid = first + lo;
	if ((r = bpf_map_lookup_elem(&unw_rows, &mid)) == 0 || r->start > key) {
		give_up(w, BPFUNW_TO_RING_ROW);
		return 0;
	}
	w->c_lo = r->start;
	w->c_row = mid = r->rule;
	if ((u = bpf_map_lookup_elem(&unw_rules, &mid)) == 0 || (u->kind & 7) == 0) {
		give_up(w, BPFUNW_TO_RING_ROW);
		return 0;
	}
	return u;
}

/* The caller ra passed on, unless the walk is as deep as it goes; its
 * row looked up at ra itself (exact: a signal's interrupted PC) or at
 * ra - 1 (a return address).  bpf_loop's return: 1 ends the walk. */
static __always_inline long
next_frame(struct walk *w, __u64 ra, __u32 exact)
{
	__u32 zero = 0, i = w->n;
	struct bpfunw_chain *c;

	if (i == w->max) {
		w->misc |= BPFUNW_MISC_DEPTH;
		w->stop = 1;
		return 1;
	}
	/* w[0] is the IP, the callers from w[1]. */
	if ((c = bpf_map_lookup_elem(&unw_scratch, &zero)) == 0 ||
	    i >= BPFUNW_DEPTH_MAX)
		return give_up(w, BPFUNW_TO_RING_FULL);
	c->w[i + 1] = ra;
	w->n = i + 1;
	w->pc = ra;
	w->exact = exact;
	return 0;
}

/* One frame: the caller of w->pc (daemon/unwind.c's loop, once); 1 ends
 * the walk. */
static __always_inline int
step1(struct walk *w)
{
	struct bpfunw_rule *r;
	__u64 at, cfa, ra, sp;
	__u32 rule;

	if (w->stop)
		return 1;
	at = w->exact ? w->pc : w->pc - 1;
	if ((r = find_row(w, at)) == 0)
		return 1;
	rule = r->kind;
	switch (rule & 7) {
	case 1:		/* UNWIND_CFA_SP */
		cfa = w->sp + (__u64)(__s64)r->cfa_offset;
		break;
	case 2:		/* UNWIND_CFA_BP */
		if (!w->bp_known)
			return give_up(w, BPFUNW_TO_RING_RULE);
		cfa = w->bp + (__u64)(__s64)r->cfa_offset;
		break;
	case 3:		/* UNWIND_CFA_PLT */
		cfa = w->sp + (__u64)(__s64)r->cfa_offset +
		    ((w->pc & (__u8)((__u16)r->bp_offset >> 8)) >=
		    (__u8)((__u16)r->bp_offset & 0xff) ? 8 : 0);
		break;
	case 4:		/* UNWIND_CFA_SIGNAL */
		if (unw_peek(w, w->sp + UC_RIP, &ra) || unw_peek(w, w->sp + UC_RSP, &sp) ||
		    unw_peek(w, w->sp + UC_RBP, &w->bp))
			return give_up(w, BPFUNW_TO_RING_STACK);
		if (ra == 0) {
			w->stop = 1;
			return 1;
		}
		if (ra == w->pc && sp == w->sp)
			return give_up(w, BPFUNW_TO_RING_RULE);
		w->sp = sp;
		w->bp_known = 1;
		return next_frame(w, ra, 1);
	default:
		return give_up(w, BPFUNW_TO_RING_RULE);
	}
	if (rule & 0x20) {	/* UNWIND_ROW_OUTERMOST */
		w->stop = 1;
		return 1;
	}
	if (cfa <= w->sp)
		return give_up(w, BPFUNW_TO_RING_RULE);
	if (unw_peek(w, cfa + (__u64)(__s64)r->ra_offset, &ra))
		return give_up(w, BPFUNW_TO_RING_STACK);
	switch ((rule >> 3) & 3) {
	case 0:		/* UNWIND_BP_SAME */
		break;
	case 1:		/* UNWIND_BP_CFA */
		w->bp_known = unw_peek(w, cfa + (__u64)(__s64)r->bp_offset, &w->bp) == 0;
		break;
	default:
		w->bp_known = 0;
		break;
	}
	w->sp = cfa;
	if (ra == 0) {
		w->stop = 1;
		return 1;
	}
	return next_frame(w, ra, 0);
}

/*
 * UNW_STEP_FRAMES frames; 1 ends the walk.  A global function, verified
 * once on its own (0.1 s of the load at one frame a call, 0.7 s at four,
 * against 1.5 s for bpf_loop's callback), called from a plain loop: no
 * indirect call a frame, and fewer calls with their loads and stores of
 * the walk.
 */
__noinline int
unw_step(struct walk *w)
{
	__u32 j;

	if (w == 0)
		return 1;
	for (j = 0; j < UNW_STEP_FRAMES; j++)
		if (step1(w) != 0)
			return 1;
	return 0;
}

/* A walk's end counted, with its time since t0 (ns); the program's
 * return. */
static __always_inline int
count(__u32 what, __u64 t0)
{
	__u64 *n = bpf_map_lookup_elem(&unw_stats, &what);
	__u32 t = what + BPFUNW_NSTATS;

	if (n != 0)
		*n += 1;
	if ((n = bpf_map_lookup_elem(&unw_stats, &t)) != 0)
		*n += bpf_ktime_get_ns() - t0;
	return what == BPFUNW_WALKED ? 0 : 1;
}

/* The uapi pt_regs (the kernel's, field for field), for bpf_task_pt_regs. */
struct user_regs {
	__u64	r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
	__u64	orig_ax, ip, cs, flags, sp, ss;
};

SEC("perf_event")
int
dcpi_chain(struct bpf_perf_event_data *ctx)
{
	struct bpfagg_ctl *cl;
	struct bpfunw_chain *c;
	struct walk w = {};
	__u32 zero = 0, nk, nu, i;
	__u64 ip, t0 = bpf_ktime_get_ns();
	long kb;

	if (unw_reject) {
		__u64 *p = bpf_map_lookup_elem(&unw_stats, &zero);

		/* Past the value's 8 bytes: the verifier refuses. */
		return p != 0 ? (int)p[1 << 20] : 1;
	}
	/* Labelled runs too (not pass_all): a chain carries its pid, and
	 * dcpid labels it in time order with the FORK records. */
	if ((cl = bpf_map_lookup_elem(&ctl, &zero)) == 0 ||
	    (c = bpf_map_lookup_elem(&unw_scratch, &zero)) == 0)
		return 1;
	w.pid_tgid = bpf_get_current_pid_tgid();
	c->type = BPFUNW_RECORD;
	c->time = t0;
	c->cgroup = bpf_get_current_cgroup_id();
	c->pid = w.pid_tgid >> 32;
	c->event = (__u32)bpf_get_attach_cookie(ctx);
	c->tid = (__u32)w.pid_tgid;
	ip = PT_REGS_IP(&ctx->regs);
	/* The user's registers: the sample's, or those the task entered the
	 * kernel with; none for a kernel thread. */
	if ((__s64)ip >= 0) {
		w.pc = ip;
		w.sp = PT_REGS_SP(&ctx->regs);
		w.bp = PT_REGS_FP(&ctx->regs);
	} else {
		struct task_struct *task = bpf_get_current_task_btf();
		struct user_regs u;

		if (task->mm == 0) {
			w.misc = BPFUNW_MISC_NO_USER;
			c->sp = 0;
			goto out;
		}
		if (bpf_probe_read_kernel(&u, sizeof(u), (void *)bpf_task_pt_regs(task)))
			return count(BPFUNW_TO_RING_STACK, t0);
		w.pc = u.ip;
		w.sp = u.sp;
		w.bp = u.bp;
	}
	w.sp0 = w.sp;
	c->sp = w.sp;
	w.top = w.sp + cl->chain_stack;
	w.max = cl->chain_depth;
	if (w.max > BPFUNW_DEPTH_MAX)
		w.max = BPFUNW_DEPTH_MAX;
	w.exact = 1;
	w.bp_known = 1;
	c->w[0] = w.pc;
	for (i = 0; i <= BPFUNW_DEPTH_MAX; i += UNW_STEP_FRAMES)
		if (unw_step(&w) != 0)
			break;
	if (w.stop == 2)
		return count(w.why, t0);
	if (w.stop == 0)
		return count(BPFUNW_TO_RING_RULE, t0);
out:
	nu = w.misc & BPFUNW_MISC_NO_USER ? 0 : w.n + 1;
	if (nu > BPFUNW_DEPTH_MAX + 1)
		nu = BPFUNW_DEPTH_MAX + 1;
	c->nkern = 0;
	c->nuser = (__u16)nu;
	c->misc = (__u16)w.misc;
	c->size = (__u16)(BPFUNW_HDR + nu * 8);
	if ((__s64)ip < 0) {
		/* The kernel's frames (the sample's own chain: the events
		 * exclude the user's), after the user's in the record. */
		kb = bpf_get_stack(ctx, &c->w[nu], BPFUNW_KERNEL_MAX * 8, 0);
		nk = kb > 0 ? (__u32)kb / 8 : 0;
		if (nk > BPFUNW_KERNEL_MAX)
			nk = BPFUNW_KERNEL_MAX;
		c->nkern = (__u16)nk;
		c->size = (__u16)(BPFUNW_HDR + (nu + nk) * 8);
	}
	i = c->size;
	if (i > sizeof(*c))
		return count(BPFUNW_TO_RING_FULL, t0);
	/* No wake-up: dcpid reads the chains when it reads the records
	 * (the irq_work of a wake-up costs a few us here). */
	if (bpf_ringbuf_output(&chains, c, i, BPF_RB_NO_WAKEUP) != 0)
		return count(BPFUNW_TO_RING_FULL, t0);
	/* Checked against dcpid's walk of the same sample's copy. */
	return count(BPFUNW_WALKED, t0) | (cl->chain_check != 0);
}
