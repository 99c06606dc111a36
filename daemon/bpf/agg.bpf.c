/*
 * In-kernel aggregation of dcpid's samples (issue 17, route 1): attached to
 * every sampling perf fd, counts each sample it can key exactly in a
 * per-CPU hash map and returns 0, which keeps the kernel from writing the
 * sample to the ring buffer; any other sample (anonymous or JIT code, a
 * map full, bpf_find_vma busy, dcpid asking for everything while a run
 * label is in force) returns 1 and takes the ring-buffer path as before.
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

struct task_struct;

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
	__type(key, __u32);
	__type(value, struct bpfagg_ctl);
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, BPFAGG_MAX_KEYS);
	__type(key, struct bpfagg_key);
	__type(value, __u64);
} counts0 SEC(".maps"), counts1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BPFAGG_MAX_FILES);
	__type(key, struct bpfagg_file);
	__type(value, struct bpfagg_where);
} files SEC(".maps");

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

static __u64 one = 1;

SEC("perf_event")
int
dcpi_sample(struct bpf_perf_event_data *ctx)
{
	struct bpfagg_key k = {};
	struct vma_ctx v = {};
	struct bpfagg_ctl *c;
	__u32 zero = 0;
	__u64 pid_tgid, *n;
	void *map;

	if ((c = bpf_map_lookup_elem(&ctl, &zero)) == 0 || c->pass_all)
		return 1;
	map = c->gen ? (void *)&counts1 : (void *)&counts0;
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
		struct bpfagg_where w, *wp;

		v.pc = k.addr;
		if (bpf_find_vma(bpf_get_current_task_btf(), k.addr, vma_cb,
		    &v, 0) != 0 || !v.found)
			return 1;
		k.addr = v.off;
		k.ino = v.ino;
		k.dev = v.dev;
		fk.dev = v.dev;
		fk.ino = v.ino;
		if ((wp = bpf_map_lookup_elem(&files, &fk)) == 0) {
			w.pc = v.pc;
			w.pid = pid_tgid >> 32;
			w.pass = 0;
			if (bpf_map_update_elem(&files, &fk, &w, BPF_NOEXIST) != 0)
				return 1;
		} else if (wp->pass) {
			return 1;
		}
	}
	if ((n = bpf_map_lookup_elem(map, &k)) != 0) {
		*n += 1;	/* this CPU's own value: no atomic needed */
		return 0;
	}
	if (bpf_map_update_elem(map, &k, &one, BPF_NOEXIST) == 0)
		return 0;
	/* Full, or another program on this CPU added it in between (an NMI
	 * inside a timer sample): a lookup settles which. */
	if ((n = bpf_map_lookup_elem(map, &k)) != 0) {
		*n += 1;
		return 0;
	}
	return 1;
}
