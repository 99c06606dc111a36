/*
 * What the BPF program (daemon/bpf/bpfagg.bpf.c) and dcpid (daemon/bpfagg.c)
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

/*
 * The files the program has met, by (dev, ino): a file is counted in the
 * kernel only once dcpid has learnt which image it is (state KNOWN); until
 * then, and while dcpid takes it as anonymous (a memfd: PASS), its
 * samples take the ring buffer.  A file met anew is entered NEW and queued
 * (the news queue) with a process that maps it and a PC in it, for dcpid
 * to look at; dcpid then sets KNOWN or PASS, or deletes the entry (it
 * could not tell yet: the next sample queues it again).  dcpid also
 * deletes the entries of files it has forgotten (not counted for two
 * flushes, or their image freed: attr_reclaim), so that the table holds
 * the files in use, not every file ever met.
 */
struct bpfagg_file {
	__u64	dev;
	__u64	ino;
};
#define BPFAGG_FILE_NEW		0
#define BPFAGG_FILE_KNOWN	1
#define BPFAGG_FILE_PASS	2
struct bpfagg_news {
	__u64	dev;
	__u64	ino;
	__u64	pc;
	__u32	pid;
	__u32	pad;
};

/*
 * The counts: two sets (generations) of BPFAGG_SLOTS slots, in arrays
 * that dcpid maps into its memory (BPF_F_MMAPABLE), so that a drain reads
 * and zeroes them without a system call or any work in the kernel: slot
 * gen * BPFAGG_SLOTS + i holds a key (written once, before its first
 * count) and its count (added atomically by the program, taken with an
 * atomic exchange by dcpid).  A hash map finds a key's slot (the key's
 * pad holds the generation).  Slots are handed out in order by
 * used[gen]; a set that fills up sends its new keys to the ring buffer
 * until dcpid, having switched gen, empties it.
 */
#define BPFAGG_SLOTS		16384
/* Files the program keeps a state for; news queued at once. */
#define BPFAGG_MAX_FILES	16384
#define BPFAGG_MAX_NEWS		1024

/* The control array's one element (mapped by dcpid too). */
struct bpfagg_ctl {
	__u32	gen;		/* set the program adds to: 0 or 1 */
	__u32	pass_all;	/* nonzero: every sample to the ring buffer */
	__u32	used[2];	/* slots handed out per set (may pass BPFAGG_SLOTS) */
};

#endif
