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
	__u32	chain_depth;	/* callers a walk gives at most (dcpi_chain) */
	__u32	chain_stack;	/* bytes above the sample's SP a walk may read */
	__u32	chain_check;	/* nonzero: every walked sample to the ring too */
	__u32	pad;
};

/*
 * Call chains walked in the kernel (dcpi_chain, attached to the chains'
 * sparse twins on the dwarf route): the rows of daemon/unwind_table.h,
 * moved by dcpid into one array map (unwind-bpf-memory: BPFUNW_ROWS
 * rows by default), their rules into another (unw_rules); a
 * file's rows are found by its (dev, ino) (struct bpfagg_file) in the
 * unw_files hash, in the coordinates of the file: row start = file
 * offset + adj.  A walk does exactly what daemon/unwind.c does over a
 * stack copy of chain_stack bytes, or gives up and returns 1: the kernel
 * then writes the sample, with its stack copy, to the ring, where dcpid
 * unwinds it.  So the chains are the same on both routes; only where they
 * are walked differs.
 */
#define BPFUNW_ROWS		(1u << 21)	/* the array's rows by default: 16 MiB */
#define BPFUNW_TABLE_MAX	(1u << 21)	/* a table's rows at most */
#define BPFUNW_FILES		4096
#define BPFUNW_DEPTH_MAX	127	/* callers; deeper settings take the ring */
#define BPFUNW_KERNEL_MAX	128	/* kernel words (bpf_get_stack) */
#define BPFUNW_CHUNK		512	/* stack bytes a read (dcpi_chain's peek) */
#define BPFUNW_SEARCH		21	/* binary search steps: 2^21 = BPFUNW_TABLE_MAX */
#define BPFUNW_RULES		32768	/* daemon/unwind_table.h's UNWIND_RULES_MAX */

/* daemon/unwind_table.h's struct unwind_row and struct unwind_rule, field
 * for field: a row names its rule by index in the array map unw_rules,
 * which dcpid writes before any row that names the rule. */
struct bpfunw_row {
	__u32	start;
	__u32	rule;
};
struct bpfunw_rule {
	__s32	cfa_offset;
	__s16	bp_offset;
	__s8	ra_offset;
	__u8	kind;
};

/*
 * A file's rows: rows [first, first + nrows); nrows 0: none (state).
 * After them, its page index: for each page p of npages (4 KiB of row
 * keys from pbase, the first row's page), the number of the last row that
 * starts at or before the page's first byte (relative to first; a u32,
 * BPFUNW_PAGE_IDX of them a row).  A walk's search for a key in page p
 * looks only between the rows of p and p + 1: a few rows, a cache line or
 * two, where a search of the whole table misses the cache once a step.
 * npages 0: no index (a table with fewer rows than pages), the whole
 * table searched.
 */
struct bpfunw_file {
	__s64	adj;
	__u32	first;
	__u32	nrows;
	__u32	state;		/* BPFUNW_* */
	__u32	npages;
	__u32	pbase;
	__u32	pad;
};
#define BPFUNW_PAGE_IDX		(sizeof(struct bpfunw_row) / sizeof(__u32))
#define BPFUNW_PENDING		0	/* queued for dcpid (unw_need) */
#define BPFUNW_READY		1
#define BPFUNW_NONE		2	/* no table: every walk there takes the ring */
#define BPFUNW_MAX_NEED		256
/* A file whose rows a walk wanted (unw_need): a process that maps it, a
 * PC in it and its file offset. */
struct bpfunw_need {
	__u64	dev;
	__u64	ino;
	__u64	pc;
	__u64	off;
	__u32	pid;
	__u32	pad;
};

/* A chain walked, to dcpid through the ring buffer map chains: the header
 * (type BPFUNW_RECORD, size in bytes), then nkern kernel words as
 * bpf_get_stack gives them, then nuser: the user IP and its callers. */
#define BPFUNW_RECORD		0x7d01
#define BPFUNW_MISC_DEPTH	1	/* the walk ended at chain_depth */
#define BPFUNW_MISC_NO_USER	2	/* no user context (a kernel thread) */
struct bpfunw_chain {
	__u32	type;
	__u16	misc;
	__u16	size;
	__u64	time;		/* CLOCK_MONOTONIC ns, the records' clock */
	__u64	cgroup;
	__u64	sp;		/* the user SP the walk started from */
	__u32	pid;
	__u32	event;
	__u16	nkern;
	__u16	nuser;
	__u32	tid;
	__u64	w[BPFUNW_KERNEL_MAX + 1 + BPFUNW_DEPTH_MAX];
};
#define BPFUNW_HDR		48	/* bytes before w */

/* How the program's walks ended (unw_stats, per CPU: the count of each,
 * then at BPFUNW_NSTATS + each their time in ns, bpf_ktime_get_ns from
 * the program's start to its end). */
enum bpfunw_stat {
	BPFUNW_WALKED = 0,	/* passed on as a chain */
	BPFUNW_TO_RING_FILE,	/* a PC in no file (anonymous, JIT, vdso) */
	BPFUNW_TO_RING_TABLE,	/* its file's table not loaded (yet) */
	BPFUNW_TO_RING_NONE,	/* its file has no table here (none, too large) */
	BPFUNW_TO_RING_ROW,	/* no row for the PC (the ring tries frame pointers) */
	BPFUNW_TO_RING_RULE,	/* a rule not evaluated here, a BP not known, a loop */
	BPFUNW_TO_RING_STACK,	/* memory outside the stack copy, unreadable */
	BPFUNW_TO_RING_FULL,	/* the ring buffer map full */
	BPFUNW_NSTATS
};

#endif
