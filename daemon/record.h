/*
 * The perf records dcpid reads from its ring buffers, typed as tools/lib/perf
 * types them (include/perf/event.h, union perf_event), and their decoding.
 * The fixed part of each record type is a struct; what depends on the
 * event's attributes (a SAMPLE's fields, by sample_type; the sample_id
 * trailer of every other record, by sample_id_all) is found through a
 * struct record_format, so that no other file knows a byte offset.
 * Layouts: include/uapi/linux/perf_event.h, enum perf_event_type.
 */
#ifndef DCPID_RECORD_H
#define DCPID_RECORD_H

#include <linux/perf_event.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What every event of perf_open.c samples, and that every record carries
 * the sample_id trailer: the ordering needs every record's TIME, the loss
 * counts the CPU, the labels the CGROUP (which kernels before 5.7 refuse:
 * perf_open.c then opens without it, record_daemon_set_cgroup(0)). */
#define RECORD_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CGROUP)
#define RECORD_SAMPLE_ID_ALL	1

/* The layouts RECORD_SAMPLE_TYPE and RECORD_SAMPLE_ID_ALL give, for code
 * that writes records (tests, benchmarks). */
struct record_daemon_sample {		/* PERF_RECORD_SAMPLE */
	struct perf_event_header header;
	uint64_t	id;		/* PERF_SAMPLE_IDENTIFIER */
	uint64_t	ip;
	uint32_t	pid, tid;
	uint64_t	time;
	uint32_t	cpu, res;
	uint64_t	cgroup;		/* absent without PERF_SAMPLE_CGROUP */
};
/* The sample's size without its cgroup id. */
#define RECORD_SAMPLE_MIN	offsetof(struct record_daemon_sample, cgroup)
struct record_daemon_id {		/* trailer of every other record */
	uint32_t	pid, tid;
	uint64_t	time;
	uint32_t	cpu, res;
	uint64_t	id;
};

/* The fixed parts; the sample_id trailer follows the last field (after
 * the string of COMM and MMAP2, padded to 8 bytes). */
struct record_mmap2 {			/* PERF_RECORD_MMAP2 */
	struct perf_event_header header;
	uint32_t	pid, tid;
	uint64_t	start, len, pgoff;
	union {
		struct {
			uint32_t	maj, min;
			uint64_t	ino, ino_generation;
		};
		struct {		/* PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t		build_id_size;
			uint8_t		reserved_1;
			uint16_t	reserved_2;
			uint8_t		build_id[20];
		};
	};
	uint32_t	prot, flags;
	char		filename[];
};
struct record_comm {			/* PERF_RECORD_COMM */
	struct perf_event_header header;
	uint32_t	pid, tid;
	char		comm[];
};
struct record_task {			/* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	struct perf_event_header header;
	uint32_t	pid, ppid, tid, ptid;
	uint64_t	time;
};
struct record_lost {			/* PERF_RECORD_LOST */
	struct perf_event_header header;
	uint64_t	id, lost;
};
struct record_lost_samples {		/* PERF_RECORD_LOST_SAMPLES */
	struct perf_event_header header;
	uint64_t	lost;
};
struct record_cgroup {			/* PERF_RECORD_CGROUP */
	struct perf_event_header header;
	uint64_t	id;
	char		path[];
};
struct record_throttle {		/* PERF_RECORD_(UN)THROTTLE */
	struct perf_event_header header;
	uint64_t	time, id, stream_id;
};

/* One record, 8-byte aligned, header.size bytes; only the member that
 * header.type names, and only once record_check() has accepted it.
 * sample is the layout of record_daemon's format only: the sample path
 * reads its fields in place (record_parse_sample would cost it a tenth). */
union record {
	struct perf_event_header	header;
	struct record_daemon_sample	sample;
	struct record_mmap2		mmap2;
	struct record_comm		comm;
	struct record_task		fork, exit;
	struct record_lost		lost;
	struct record_lost_samples	lost_samples;
	struct record_throttle		throttle;
	struct record_cgroup		cgroup;
};

/* Where the attribute-dependent fields are: byte offsets of a SAMPLE's
 * fields from the record's start, and of the trailer's fields from the
 * trailer's start; RECORD_NONE where the attributes leave one out. */
#define RECORD_NONE	0xffff
#define RECORD_LAST	0xfffe		/* the record's last u64 (after a call chain) */
struct record_format {
	uint64_t	sample_type;
	int		sample_id_all;
	uint16_t	sample_size;	/* header and fields */
	uint16_t	s_id, s_ip, s_tid, s_time, s_cpu, s_cgroup;
	uint16_t	s_callchain;	/* its nr, then nr u64s */
	/* PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER follow the call
	 * chain, each of variable size (record_user_stack finds them):
	 * nregs_user registers in the order of the mask's bits. */
	uint8_t		regs_user, stack_user;
	uint16_t	nregs_user;
	uint16_t	id_size;	/* trailer bytes; 0 without sample_id_all */
	uint16_t	i_id, i_tid, i_time, i_cpu;
};

/* The format of perf_open.c's events (RECORD_SAMPLE_TYPE, RECORD_SAMPLE_ID_ALL;
 * without PERF_SAMPLE_CGROUP after record_daemon_set_cgroup(0)), and that
 * of the samples that carry call chains: the same one, but for call chains
 * sampled on a period of their own (record_daemon_set_split(1)), where
 * record_daemon is that of the dense events, without chain, registers or
 * stack, and record_chain that of their sparse twins.  Both share the
 * fixed fields (struct record_daemon_sample's) and the trailer; the cgroup
 * id is the last u64 of a sample in either.  The setters below change
 * record_chain, and record_daemon with it unless split. */
extern struct record_format record_daemon, record_chain;
void record_daemon_set_split(int on);
void record_daemon_set_cgroup(int on);
/* With PERF_SAMPLE_CALLCHAIN (dcpid.conf callchain): the cgroup id then
 * follows the chain, at the record's end (s_cgroup RECORD_LAST). */
void record_daemon_set_callchain(int on);
/* With PERF_SAMPLE_REGS_USER (the registers of regs_mask, the kernel's
 * PERF_REG_* bits: sample_regs_user) and PERF_SAMPLE_STACK_USER, for
 * call chains unwound from a copy of the user stack; 0: neither.  The
 * cgroup id then follows the stack copy, at the record's end. */
void record_daemon_set_user_stack(uint64_t regs_mask);
/* A SAMPLE's call chain: a pointer to its nr u64s in r (context markers
 * such as PERF_CONTEXT_USER included, as the kernel wrote them) and *nr;
 * NULL when f has no chain or r is too short for the nr it says.  (Inline:
 * it is on the sample path, twice with chains.) */
static inline const uint64_t *
record_callchain(const struct record_format *f, const union record *r,
    size_t size, uint64_t *nr)
{
	const unsigned char *p = (const unsigned char *)r;
	uint64_t n;

	if (f->s_callchain == RECORD_NONE || size < f->sample_size)
		return NULL;
	memcpy(&n, p + f->s_callchain, sizeof(n));
	if (n > (size - f->sample_size) / 8)
		return NULL;
	*nr = n;
	return (const uint64_t *)(const void *)(p + f->s_callchain + 8);
}

/* Fills *f for events opened with sample_type and sample_id_all.  -1 if
 * sample_type has a field other than the u64s, CALLCHAIN, REGS_USER,
 * STACK_USER and CGROUP (READ, RAW, BRANCH_STACK, ...), which these
 * records never carry.  record_format_init_regs: with REGS_USER, the
 * registers sampled (sample_regs_user); record_format_init has none. */
int record_format_init(struct record_format *f, uint64_t sample_type,
    int sample_id_all);
int record_format_init_regs(struct record_format *f, uint64_t sample_type,
    int sample_id_all, uint64_t regs_mask);

/* A SAMPLE's user registers and user stack copy (REGS_USER, STACK_USER),
 * pointing into the record: abi is PERF_SAMPLE_REGS_ABI_* (NONE: the
 * sample has no user context, a kernel thread's, and regs is NULL);
 * regs[nregs] in the order of the mask's bits; stack[size] the bytes
 * from the user SP at the sample, size the part the kernel filled
 * (dyn_size, never more than the copy); 0 for a format without them. */
struct record_user_stack {
	uint64_t		 abi;
	const uint64_t		*regs;
	uint32_t		 nregs;
	const unsigned char	*stack;
	uint64_t		 size;
};
/* Fills *u from the SAMPLE r of size bytes.  -1 if r is too short for
 * what its call chain, registers and stack say (record_check refuses
 * such a record). */
int record_user_stack(const struct record_format *f, const union record *r,
    size_t size, struct record_user_stack *u);

/* 0 if the size bytes at r hold the fixed part of r's type (a SAMPLE's
 * whole call chain, user registers and stack copy; for COMM, MMAP2 and CGROUP, whose string ends where
 * the trailer begins, the trailer);
 * -1 if the record is truncated.  Types not listed in union record have
 * nothing to check. */
int record_check(const struct record_format *f, const union record *r, size_t size);

/* The fields that identify a record: a SAMPLE's own, or another record's
 * sample_id trailer.  Fields the format leaves out are 0. */
struct record_sample {
	uint64_t	id, ip, time, cgroup;	/* cgroup: a SAMPLE's */
	uint32_t	pid, tid, cpu;
};
/* Decodes r's identifying fields (ip for a SAMPLE only) into *s.  -1 if r
 * is too short for them or, without sample_id_all, is not a SAMPLE. */
int record_parse_sample(const struct record_format *f, const union record *r,
    size_t size, struct record_sample *s);
/* r's timestamp (perf clock, ns) for the ordering; 0 if it has none. */
uint64_t record_time(const struct record_format *f, const union record *r,
    size_t size);
/* The NUL-padded string of a COMM, MMAP2 or CGROUP record (the command, the file
 * name), copied to buf[buflen] and NUL-terminated; "" if r has no room
 * for one.  r must have passed record_check(). */
const char *record_string(const struct record_format *f, const union record *r,
    size_t size, char *buf, size_t buflen);

#endif
