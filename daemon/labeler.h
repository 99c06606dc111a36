/*
 * Labels: whose sample this is (dcpi(5) "Labels").  Every
 * sample gets a label number for the aggregation's stream: the process's
 * `dcpictl label` run if it has one, else the label of its cgroup (the
 * systemd unit, container or cgroup path, by label-by; daemon/cgroup.c
 * makes the name), found from the sample's PERF_SAMPLE_CGROUP id or, on
 * kernels without it, from /proc/PID/cgroup.
 *
 * Numbers are dense: LABEL_NONE, LABEL_IDLE and LABEL_OTHER, then one per
 * distinct name, at most label-max of them used in one epoch (the rest
 * are [other]) and at most twice that held, so that memory and the
 * epoch's directories stay bounded whatever number of cgroups come and
 * go.  A number stays its name's until the epoch it was last used in has
 * ended (label_new_epoch), which is after its counts were written.
 */
#ifndef DCPID_LABELER_H
#define DCPID_LABELER_H

#include <stddef.h>
#include <stdint.h>

#define LABEL_NONE	0	/* unlabelled: root cgroup, label-by none */
#define LABEL_IDLE	1	/* the idle task, DCPI_LABEL_IDLE */
#define LABEL_OTHER	2	/* beyond label-max, DCPI_LABEL_OTHER */
#define LABEL_FIRST	3
/* Bytes of a label name with its NUL: its directory name must fit NAME_MAX. */
#define LABEL_NAME_MAX	256

/* by: CONF_LABEL_BY_* (lib/conf.h); max: labels per epoch (>= 1). */
void label_init(unsigned by, unsigned max);
/* A reload: a new label-by takes effect for the cgroups met from now on
 * (those known are looked up again); a new label-max at once. */
void label_configure(unsigned by, unsigned max);
void label_fini(void);
/* Learns the cgroups that exist (the cgroup2 hierarchy's directories),
 * so that the samples of a process gone before they are processed still
 * find their cgroup's name.  After the perf events are enabled. */
void label_scan(void);
/* PERF_RECORD_CGROUP: cgroup id was created at path (the kernel's cgroup
 * v2 path, from the hierarchy's root), in time order. */
void label_cgroup(uint64_t id, const char *path);
/* The same record at its arrival, while the cgroup surely exists: until
 * dcpid knows where its cgroup namespace is rooted (in a container, the
 * kernel's paths and the mount's differ by it), finds the cgroup under
 * the mount by its id. */
void label_cgroup_arrival(uint64_t id, const char *path);

/*
 * The label number of a sample of pid with PERF_SAMPLE_CGROUP id cgroup
 * (0: none in the sample, as on kernels before 5.7).  Per sample, so the
 * common case is inline: the answer for the sample's cgroup from a
 * direct-mapped table of recent answers, valid while its gen is
 * label_fast_gen (the epoch's; LABEL_GEN_SLOW while a process has a run
 * label or label-by is none, when label_of_slow decides).  The samples of
 * a server's few busy cgroups interleave, which one last answer misses.
 */
#define LABEL_RECENT	256
#define LABEL_KEY_PID	(1ull << 63)	/* keys of samples without a cgroup id */
#define LABEL_GEN_SLOW	UINT32_MAX
struct label_recent {
	uint64_t	 key;		/* cgroup id, or LABEL_KEY_PID | pid */
	uint32_t	 l, gen;
};
extern struct label_recent	label_recent[LABEL_RECENT];
extern uint32_t			label_fast_gen;
uint32_t label_of_slow(uint32_t pid, uint64_t cgroup);

static inline struct label_recent *
label_recent_of(uint64_t key)
{
	return &label_recent[(key * 0x9e3779b97f4a7c15ULL) >> 56];
}

static inline uint32_t
label_of(uint32_t pid, uint64_t cgroup)
{
	uint64_t key = cgroup ? cgroup : LABEL_KEY_PID | pid;
	const struct label_recent *r = label_recent_of(key);

	if (r->key == key && r->gen == label_fast_gen)
		return r->l;
	return label_of_slow(pid, cgroup);
}

/* `dcpictl label`: pid and the processes it forks from now on are
 * labelled name until they exit.  The caller orders it among the
 * records (daemon/core.c core_label).  0, or -1 with why in msg. */
int label_run(uint32_t pid, const char *name, char *msg, size_t msglen);
/* The process records, in time order: a new process inherits its
 * parent's run label; exec and exit forget what was known of pid. */
void label_fork(uint32_t pid, uint32_t ppid);
void label_exec(uint32_t pid);
void label_exit(uint32_t pid);

/* The name of label number l for its files: NULL for LABEL_NONE;
 * "[idle]", "[other]"; valid until label_new_epoch. */
const char *label_name(uint32_t l);
/* Keeps label l's number through the next label_new_epoch (counts not
 * yet aggregated, such as JIT samples waiting for their map, hold it). */
void label_keep(uint32_t l);
/* The epoch changed (after its counts were written): numbers not used in
 * the epoch that ended are given back, and label-max counts anew. */
void label_new_epoch(void);

/* For status: labels used this epoch, dropped to [other] (labels this
 * epoch, samples since start), processes with a run label, cgroups
 * known, and bytes held. */
struct label_stats {
	const char	*by;		/* "unit", "cgroup", "none" */
	size_t		 used, max, dropped, running, cgroups;
	uint64_t	 other_samples;
	size_t		 memory;
};
void label_stats(struct label_stats *st);
/* STATUS: label-by, labels, labels-running, labels-cgroups (the above but
 * memory). */
struct status_writer;
void label_status(struct status_writer *w);

#endif
