/*
 * What the BPF program (daemon/bpf/agg.bpf.c) and dcpid (daemon/bpfagg.c)
 * share: the in-kernel aggregation's map layouts.  Fixed-width fields, no
 * padding, the same on both sides of the map.
 */
#ifndef DCPID_BPFAGG_KEY_H
#define DCPID_BPFAGG_KEY_H

/* key.flags */
#define BPFAGG_KERNEL	1u	/* addr is a kernel PC */
#define BPFAGG_IDLE	2u	/* the idle task (pid 0) was running */

/*
 * One count's key.  A user PC in a file-backed mapping is keyed by the
 * file (the superblock's device in the kernel's encoding, MAJOR << 20 |
 * MINOR, and the inode number) and the PC's offset in that file, which
 * stay the same whatever the process does after the sample (exec, munmap,
 * exit): dcpid maps (dev, ino) to its image.  A kernel PC is keyed by
 * itself.  event is the perf event's index (daemon/perf.h), from the
 * attachment's cookie; cgroup the task's cgroup v2 id, as
 * PERF_SAMPLE_CGROUP gives it.
 */
struct bpfagg_key {
	__u64	addr;		/* file offset, or kernel PC */
	__u64	ino;
	__u64	cgroup;
	__u32	dev;
	__u32	event;
	__u32	flags;
	__u32	pad;		/* 0 */
};

/* Where a file was first seen since dcpid last looked: a process that
 * maps it and a PC in it, so that dcpid can find the file of a (dev, ino)
 * it has not met in MMAP2 records (processes that predate it). */
struct bpfagg_file {
	__u64	dev;
	__u64	ino;
};
struct bpfagg_where {
	__u64	pc;
	__u32	pid;
	__u32	pass;		/* set by dcpid: the file's samples to the ring */
};

/* The control array's one element. */
struct bpfagg_ctl {
	__u32	gen;		/* counts map the program adds to: 0 or 1 */
	__u32	pass_all;	/* nonzero: every sample to the ring buffer */
};

/* Entries of each counts map (per CPU); a sample that finds its map full
 * goes to the ring buffer. */
#define BPFAGG_MAX_KEYS		16384
#define BPFAGG_MAX_FILES	4096

#endif
