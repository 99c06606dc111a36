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
	v->off = v->pc - BPF_CORE_READ(vma, vm_start) +
	    ((__u64)BPF_CORE_READ(vma, vm_pgoff) << 12);
	v->found = 1;
	return 0;
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
		__u32 seq = 0;
		int seq_ok;

		struct mm_struct *mm = task->mm;

		vk.mm = (__u64)mm;
		vk.page = k.addr >> 12;
		vk.exec_id = task->self_exec_id;
		vk.tgid = pid_tgid >> 32;
		vk.pad = 0;
		seq_ok = mm != 0 && mm_seq(mm, &seq) == 0;
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
