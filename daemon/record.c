#include "config.h"

#include <string.h>

#include "record.h"

/* The format of dcpid's samples without call chains: both formats start
 * so, until dcpid asks for chains. */
#define DAEMON_FORMAT	{						\
	.sample_type = RECORD_SAMPLE_TYPE,	\
	.sample_id_all = RECORD_SAMPLE_ID_ALL,	\
	.sample_size = sizeof(struct record_daemon_sample),	\
	.s_id = offsetof(struct record_daemon_sample, id),	\
	.s_ip = offsetof(struct record_daemon_sample, ip),	\
	.s_tid = offsetof(struct record_daemon_sample, pid),	\
	.s_time = offsetof(struct record_daemon_sample, time),	\
	.s_cpu = offsetof(struct record_daemon_sample, cpu),	\
	.s_cgroup = offsetof(struct record_daemon_sample, cgroup),	\
	.s_callchain = RECORD_NONE,	\
	.id_size = sizeof(struct record_daemon_id),	\
	.i_id = offsetof(struct record_daemon_id, id),	\
	.i_tid = offsetof(struct record_daemon_id, pid),	\
	.i_time = offsetof(struct record_daemon_id, time),	\
	.i_cpu = offsetof(struct record_daemon_id, cpu),		\
}
struct record_format record_daemon = DAEMON_FORMAT, record_chain = DAEMON_FORMAT;

/* The fields a SAMPLE may have here, in the kernel's order
 * (perf_output_sample): u64s, then CALLCHAIN (nr and nr u64s), REGS_USER
 * (abi, then a u64 a register unless abi is NONE), STACK_USER (size,
 * then size bytes and dyn_size unless size is 0), then CGROUP, which is
 * the last when none of the fields between is asked for. */
#define SAMPLE_KNOWN	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
	PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
	PERF_SAMPLE_CGROUP)

static uint16_t
field(uint64_t type, uint64_t bit, uint16_t *at)
{
	uint16_t here = *at;

	if (!(type & bit))
		return RECORD_NONE;
	*at += 8;
	return here;
}

int
record_format_init(struct record_format *f, uint64_t type, int sample_id_all)
{
	return record_format_init_regs(f, type, sample_id_all, 0);
}

int
record_format_init_regs(struct record_format *f, uint64_t type,
    int sample_id_all, uint64_t regs_mask)
{
	uint16_t at = sizeof(struct perf_event_header);

	if (type & ~(uint64_t)SAMPLE_KNOWN)
		return -1;
	memset(f, 0, sizeof(*f));
	f->sample_type = type;
	f->sample_id_all = sample_id_all != 0;
	/* perf_output_sample: IDENTIFIER, IP, TID, TIME, ADDR, ID,
	 * STREAM_ID, CPU, PERIOD. */
	f->s_id = field(type, PERF_SAMPLE_IDENTIFIER, &at);
	f->s_ip = field(type, PERF_SAMPLE_IP, &at);
	f->s_tid = field(type, PERF_SAMPLE_TID, &at);
	f->s_time = field(type, PERF_SAMPLE_TIME, &at);
	field(type, PERF_SAMPLE_ADDR, &at);
	if (f->s_id == RECORD_NONE)
		f->s_id = field(type, PERF_SAMPLE_ID, &at);
	else
		field(type, PERF_SAMPLE_ID, &at);
	field(type, PERF_SAMPLE_STREAM_ID, &at);
	f->s_cpu = field(type, PERF_SAMPLE_CPU, &at);
	field(type, PERF_SAMPLE_PERIOD, &at);
	/* After a call chain, registers or a stack copy the cgroup id is at
	 * the end; sample_size is then that of an empty chain, no registers
	 * (abi NONE) and an empty copy. */
	f->s_callchain = field(type, PERF_SAMPLE_CALLCHAIN, &at);
	f->regs_user = field(type, PERF_SAMPLE_REGS_USER, &at) != RECORD_NONE;
	f->nregs_user = f->regs_user ? (uint16_t)__builtin_popcountll(regs_mask) : 0;
	f->stack_user = field(type, PERF_SAMPLE_STACK_USER, &at) != RECORD_NONE;
	f->s_cgroup = field(type, PERF_SAMPLE_CGROUP, &at);
	if ((f->s_callchain != RECORD_NONE || f->regs_user || f->stack_user) &&
	    f->s_cgroup != RECORD_NONE)
		f->s_cgroup = RECORD_LAST;
	f->sample_size = at;
	f->i_id = f->i_tid = f->i_time = f->i_cpu = RECORD_NONE;
	if (!f->sample_id_all)
		return 0;
	/* perf_event__output_id_sample: TID, TIME, ID, STREAM_ID, CPU,
	 * IDENTIFIER. */
	at = 0;
	f->i_tid = field(type, PERF_SAMPLE_TID, &at);
	f->i_time = field(type, PERF_SAMPLE_TIME, &at);
	f->i_id = field(type, PERF_SAMPLE_ID, &at);
	field(type, PERF_SAMPLE_STREAM_ID, &at);
	f->i_cpu = field(type, PERF_SAMPLE_CPU, &at);
	if (type & PERF_SAMPLE_IDENTIFIER)
		f->i_id = field(type, PERF_SAMPLE_IDENTIFIER, &at);
	f->id_size = at;
	return 0;
}

static int	daemon_cgroup = 1, daemon_callchain, daemon_split;
static uint64_t	daemon_regs;

static void
daemon_format(void)
{
	uint64_t type = RECORD_SAMPLE_TYPE;

	if (!daemon_cgroup)
		type &= ~(uint64_t)PERF_SAMPLE_CGROUP;
	if (daemon_split)
		record_format_init(&record_daemon, type, RECORD_SAMPLE_ID_ALL);
	if (daemon_callchain)
		type |= PERF_SAMPLE_CALLCHAIN;
	if (daemon_regs != 0)
		type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	record_format_init_regs(&record_chain, type, RECORD_SAMPLE_ID_ALL,
	    daemon_regs);
	if (!daemon_split)
		record_daemon = record_chain;
}

void
record_daemon_set_cgroup(int on)
{
	daemon_cgroup = on;
	daemon_format();
}

void
record_daemon_set_callchain(int on)
{
	daemon_callchain = on;
	daemon_format();
}

void
record_daemon_set_user_stack(uint64_t regs_mask)
{
	daemon_regs = regs_mask;
	daemon_format();
}

void
record_daemon_set_split(int on)
{
	daemon_split = on;
	daemon_format();
}

static uint64_t u64_at(const union record *, size_t);

/* Where the variable fields after the u64s begin: the call chain's nr,
 * else the registers' abi, else the stack's size. */
static size_t
var_start(const struct record_format *f)
{
	if (f->s_callchain != RECORD_NONE)
		return f->s_callchain;
	return (size_t)f->sample_size - 8 * ((size_t)f->regs_user +
	    f->stack_user + (f->s_cgroup == RECORD_LAST));
}

int
record_user_stack(const struct record_format *f, const union record *r,
    size_t size, struct record_user_stack *u)
{
	const unsigned char *p = (const unsigned char *)r;
	/* What must follow the part read so far: the cgroup id at the end. */
	size_t tail = f->s_cgroup == RECORD_LAST ? 8 : 0;
	size_t at;
	uint64_t v;

	memset(u, 0, sizeof(*u));
	if (!f->regs_user && !f->stack_user)
		return 0;
	if (size < f->sample_size)
		return -1;
	at = var_start(f);
	if (f->s_callchain != RECORD_NONE) {
		v = u64_at(r, at);
		if (v > (size - at - 8) / 8)
			return -1;
		at += 8 + v * 8;
	}
	if (f->regs_user) {
		if (at + 8 + tail > size)
			return -1;
		u->abi = u64_at(r, at);
		at += 8;
		if (u->abi != PERF_SAMPLE_REGS_ABI_NONE) {
			if ((size - at - tail) / 8 < f->nregs_user)
				return -1;
			u->regs = (const uint64_t *)(const void *)(p + at);
			u->nregs = f->nregs_user;
			at += 8 * (size_t)f->nregs_user;
		}
	}
	if (f->stack_user) {
		if (at + 8 + tail > size)
			return -1;
		v = u64_at(r, at);
		at += 8;
		if (v != 0) {
			/* The copy, then dyn_size: the bytes filled. */
			if (v > size - at || size - at - v < 8 + tail)
				return -1;
			u->stack = p + at;
			u->size = u64_at(r, at + v);
			if (u->size > v)
				u->size = v;
			at += v + 8;
		}
	}
	return at + tail <= size ? 0 : -1;
}

int
record_check(const struct record_format *f, const union record *r, size_t size)
{
	struct record_user_stack u;
	size_t need;

	if (size < sizeof(r->header))
		return -1;
	switch (r->header.type) {
	case PERF_RECORD_SAMPLE:
		need = f->sample_size;
		if ((f->regs_user || f->stack_user) &&
		    record_user_stack(f, r, size, &u) == -1)
			return -1;
		if (f->s_callchain != RECORD_NONE && size >= need) {
			uint64_t nr;

			memcpy(&nr, (const unsigned char *)r + f->s_callchain, sizeof(nr));
			if (nr > (size - need) / 8)
				return -1;
			need += nr * 8;
		}
		break;
	case PERF_RECORD_MMAP2:
		need = sizeof(r->mmap2) + f->id_size;
		break;
	case PERF_RECORD_COMM:
		need = sizeof(r->comm) + f->id_size;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		need = sizeof(r->fork);
		break;
	case PERF_RECORD_LOST:
		need = sizeof(r->lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		need = sizeof(r->lost_samples);
		break;
	case PERF_RECORD_CGROUP:
		need = sizeof(r->cgroup) + f->id_size;
		break;
	default:
		/* THROTTLE and UNTHROTTLE count even when short: the count
		 * matters, their fields are not read. */
		need = sizeof(r->header);
	}
	return size >= need ? 0 : -1;
}

static uint64_t
u64_at(const union record *r, size_t at)
{
	uint64_t v;

	memcpy(&v, (const unsigned char *)r + at, sizeof(v));
	return v;
}

/* TID and CPU are two u32 in one u64: pid then tid, cpu then reserved. */
static void
u32_pair(const union record *r, size_t at, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];

	memcpy(v, (const unsigned char *)r + at, sizeof(v));
	*a = v[0];
	if (b != NULL)
		*b = v[1];
}

int
record_parse_sample(const struct record_format *f, const union record *r,
    size_t size, struct record_sample *s)
{
	size_t base;

	memset(s, 0, sizeof(*s));
	if (r->header.type == PERF_RECORD_SAMPLE) {
		if (size < f->sample_size)
			return -1;
		if (f->s_id != RECORD_NONE)
			s->id = u64_at(r, f->s_id);
		if (f->s_ip != RECORD_NONE)
			s->ip = u64_at(r, f->s_ip);
		if (f->s_tid != RECORD_NONE)
			u32_pair(r, f->s_tid, &s->pid, &s->tid);
		if (f->s_time != RECORD_NONE)
			s->time = u64_at(r, f->s_time);
		if (f->s_cpu != RECORD_NONE)
			u32_pair(r, f->s_cpu, &s->cpu, NULL);
		if (f->s_cgroup == RECORD_LAST)
			s->cgroup = u64_at(r, size - 8);
		else if (f->s_cgroup != RECORD_NONE)
			s->cgroup = u64_at(r, f->s_cgroup);
		return 0;
	}
	if (!f->sample_id_all || size < sizeof(r->header) + f->id_size)
		return -1;
	base = size - f->id_size;
	if (f->i_id != RECORD_NONE)
		s->id = u64_at(r, base + f->i_id);
	if (f->i_tid != RECORD_NONE)
		u32_pair(r, base + f->i_tid, &s->pid, &s->tid);
	if (f->i_time != RECORD_NONE)
		s->time = u64_at(r, base + f->i_time);
	if (f->i_cpu != RECORD_NONE)
		u32_pair(r, base + f->i_cpu, &s->cpu, NULL);
	return 0;
}

uint64_t
record_time(const struct record_format *f, const union record *r, size_t size)
{
	struct record_sample s;

	return record_parse_sample(f, r, size, &s) == 0 ? s.time : 0;
}

const char *
record_string(const struct record_format *f, const union record *r,
    size_t size, char *buf, size_t buflen)
{
	size_t at, end, n;

	if (r->header.type == PERF_RECORD_MMAP2)
		at = offsetof(struct record_mmap2, filename);
	else if (r->header.type == PERF_RECORD_COMM)
		at = offsetof(struct record_comm, comm);
	else if (r->header.type == PERF_RECORD_CGROUP)
		at = offsetof(struct record_cgroup, path);
	else
		return "";
	if (size < f->id_size || (end = size - f->id_size) <= at || buflen == 0)
		return "";
	n = end - at < buflen - 1 ? end - at : buflen - 1;
	memcpy(buf, (const unsigned char *)r + at, n);
	buf[n] = '\0';
	return buf;
}
