/*
 * daemon/record.c: the layouts of the perf records dcpid reads, decoded
 * with and without sample_id_all, and truncated records rejected.  The
 * records are written here byte by byte as the kernel writes them
 * (include/uapi/linux/perf_event.h), not through record.h's structs, so
 * that a wrong struct cannot agree with itself.
 */
#include "config.h"

#include <linux/perf_event.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../daemon/record.h"

/* A record under construction, 8-byte aligned like the ring buffer's. */
struct buf {
	uint64_t	 q[512];
	size_t		 len;
};

static void
put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->q));
	memcpy((unsigned char *)b->q + b->len, p, n);
	b->len += n;
}

static void
put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void
put32x2(struct buf *b, uint32_t x, uint32_t y)
{
	uint32_t v[2] = { x, y };

	put(b, v, 8);
}

/* A string padded with NULs to 8 bytes, as the kernel pads it. */
static void
putstr(struct buf *b, const char *s)
{
	size_t n = (strlen(s) + 8) & ~(size_t)7;
	char pad[256] = { 0 };

	assert_true(n <= sizeof(pad));
	memcpy(pad, s, strlen(s));
	put(b, pad, n);
}

static void
header(struct buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	b->len = 0;
	put(b, &h, sizeof(h));
}

/* The trailer of RECORD_SAMPLE_TYPE: TID, TIME, CPU, IDENTIFIER. */
static void
trailer(struct buf *b, uint32_t pid, uint64_t time, uint32_t cpu, uint64_t id)
{
	put32x2(b, pid, pid + 1);
	put64(b, time);
	put32x2(b, cpu, 0);
	put64(b, id);
}

static const union record *
done(struct buf *b)
{
	uint16_t size = (uint16_t)b->len;

	memcpy((unsigned char *)b->q + offsetof(struct perf_event_header, size),
	    &size, sizeof(size));
	return (const void *)b->q;
}

/* Ends a record with the usual trailer; it must pass record_check. */
static const union record *
finish(struct buf *b)
{
	const union record *r;

	trailer(b, 42, 123456789, 3, 77);
	r = done(b);
	assert_int_equal(record_check(&record_daemon, r, b->len), 0);
	return r;
}

static void
assert_trailer(const struct record_format *f, const union record *r, size_t size)
{
	struct record_sample s;

	assert_int_equal(record_parse_sample(f, r, size, &s), 0);
	assert_int_equal(s.pid, 42);
	assert_int_equal(s.tid, 43);
	assert_int_equal(s.time, 123456789);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.id, 77);
	assert_int_equal(s.ip, 0);
	assert_int_equal(record_time(f, r, size), 123456789);
}

/* Without sample_id_all a record other than SAMPLE identifies nothing. */
static void
assert_no_trailer(const struct record_format *f, const union record *r, size_t size)
{
	struct record_sample s;

	assert_int_equal(record_parse_sample(f, r, size, &s), -1);
	assert_int_equal(record_time(f, r, size), 0);
}

static void
test_format(void **state)
{
	struct record_format f;

	(void)state;
	assert_int_equal(record_format_init(&f, RECORD_SAMPLE_TYPE, RECORD_SAMPLE_ID_ALL), 0);
	assert_memory_equal(&f, &record_daemon, sizeof(f));
	assert_int_equal(record_daemon.sample_size, 56);
	assert_int_equal(record_daemon.sample_size, sizeof(struct record_daemon_sample));
	assert_int_equal(record_daemon.id_size, 32);
	/* A kernel before 5.7: the same without the cgroup id, whose trailer
	 * is unchanged (CGROUP is no sample_id field). */
	record_daemon_set_cgroup(0);
	assert_int_equal(record_daemon.sample_size, RECORD_SAMPLE_MIN);
	assert_int_equal(record_daemon.s_cgroup, RECORD_NONE);
	assert_int_equal(record_daemon.id_size, 32);
	record_daemon_set_cgroup(1);
	assert_memory_equal(&f, &record_daemon, sizeof(f));
	/* CGROUP after a field of variable size: not decodable. */
	assert_int_equal(record_format_init(&f, PERF_SAMPLE_IP | PERF_SAMPLE_RAW |
	    PERF_SAMPLE_CGROUP, 1), -1);
	assert_int_equal(record_format_init(&f, RECORD_SAMPLE_TYPE, 0), 0);
	assert_int_equal(f.id_size, 0);
	/* Fields of variable size other than the call chain: not decodable
	 * by offsets. */
	assert_int_equal(record_format_init(&f, RECORD_SAMPLE_TYPE |
	    PERF_SAMPLE_READ, 1), -1);
	assert_int_equal(record_format_init(&f, PERF_SAMPLE_RAW, 1), -1);
	/* The kernel's field offsets (uapi perf_event.h). */
	assert_int_equal(offsetof(struct record_mmap2, build_id), 44);
	assert_int_equal(offsetof(struct record_mmap2, ino), 48);
	assert_int_equal(offsetof(struct record_mmap2, prot), 64);
	assert_int_equal(offsetof(struct record_mmap2, filename), 72);
	assert_int_equal(offsetof(struct record_comm, comm), 16);
	assert_int_equal(sizeof(struct record_task), 32);
	assert_int_equal(sizeof(struct record_throttle), 32);
}

static void
test_sample(void **state)
{
	struct buf b;
	const union record *r;
	struct record_sample s;

	(void)state;
	header(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 77);				/* IDENTIFIER */
	put64(&b, 0x401000);			/* IP */
	put32x2(&b, 42, 43);			/* TID */
	put64(&b, 123456789);			/* TIME */
	put32x2(&b, 3, 0);			/* CPU */
	put64(&b, 0x1234);			/* CGROUP */
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, b.len), 0);
	assert_int_equal(record_parse_sample(&record_daemon, r, b.len, &s), 0);
	assert_int_equal(s.cgroup, 0x1234);
	assert_int_equal(s.id, 77);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.pid, 42);
	assert_int_equal(s.tid, 43);
	assert_int_equal(s.time, 123456789);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(record_time(&record_daemon, r, b.len), 123456789);
	/* The sample path reads the same in place. */
	assert_int_equal(r->sample.id, s.id);
	assert_int_equal(r->sample.ip, s.ip);
	assert_int_equal(r->sample.pid, s.pid);
	assert_int_equal(r->sample.time, s.time);
	assert_int_equal(r->sample.cgroup, s.cgroup);
	/* Truncated: one field short. */
	assert_int_equal(record_check(&record_daemon, r, b.len - 8), -1);
	assert_int_equal(record_parse_sample(&record_daemon, r, b.len - 8, &s), -1);
	assert_int_equal(record_time(&record_daemon, r, b.len - 8), 0);
}

/* With call chains (-g): the chain after CPU, the cgroup id after it, at
 * the record's end; a chain longer than the record is refused. */
static void
test_sample_callchain(void **state)
{
	struct buf b;
	const union record *r;
	struct record_sample s;
	const uint64_t *ips;
	uint64_t nr;

	(void)state;
	record_daemon_set_callchain(1);
	assert_int_equal(record_daemon.s_callchain, 48);
	assert_int_equal(record_daemon.s_cgroup, RECORD_LAST);
	assert_int_equal(record_daemon.sample_size, 64);
	header(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 77);				/* IDENTIFIER */
	put64(&b, 0x401000);			/* IP */
	put32x2(&b, 42, 43);			/* TID */
	put64(&b, 123456789);			/* TIME */
	put32x2(&b, 3, 0);			/* CPU */
	put64(&b, 3);				/* CALLCHAIN: nr */
	put64(&b, PERF_CONTEXT_USER);
	put64(&b, 0x401000);
	put64(&b, 0x402345);
	put64(&b, 0x1234);			/* CGROUP */
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, b.len), 0);
	assert_int_equal(record_parse_sample(&record_daemon, r, b.len, &s), 0);
	assert_int_equal(s.cgroup, 0x1234);
	assert_int_equal(s.time, 123456789);
	assert_non_null(ips = record_callchain(&record_daemon, r, b.len, &nr));
	assert_int_equal(nr, 3);
	assert_true(ips[0] == PERF_CONTEXT_USER);
	assert_int_equal(ips[2], 0x402345);
	/* Cut short: the chain says more than there is. */
	assert_int_equal(record_check(&record_daemon, r, b.len - 8), -1);
	assert_null(record_callchain(&record_daemon, r, b.len - 16, &nr));
	record_daemon_set_callchain(0);
	assert_int_equal(record_daemon.s_callchain, RECORD_NONE);
	assert_int_equal(record_daemon.sample_size, 56);
}

/* The dwarf route's fields: the kernel's chain, then REGS_USER (abi and
 * BP, SP, IP: the mask's bits in order), then STACK_USER (size, the
 * bytes, dyn_size), then the cgroup id at the end.  A kernel thread's
 * sample has abi NONE and an empty copy; a dyn_size over the copy is
 * cut to it; a record shorter than its fields say is refused. */
static void
test_sample_user_stack(void **state)
{
	struct buf b;
	const union record *r;
	struct record_sample s;
	struct record_user_stack u;
	const uint64_t *ips;
	uint64_t nr, mask = (1ull << 6) | (1ull << 7) | (1ull << 8);
	unsigned char stack[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(stack); i++)
		stack[i] = (unsigned char)i;
	record_daemon_set_callchain(1);
	record_daemon_set_user_stack(mask);
	assert_true(record_daemon.regs_user && record_daemon.stack_user);
	assert_int_equal(record_daemon.nregs_user, 3);
	assert_int_equal(record_daemon.s_cgroup, RECORD_LAST);
	assert_int_equal(record_daemon.sample_size, 80);
	header(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 77);				/* IDENTIFIER */
	put64(&b, 0x401000);			/* IP */
	put32x2(&b, 42, 43);			/* TID */
	put64(&b, 123456789);			/* TIME */
	put32x2(&b, 3, 0);			/* CPU */
	put64(&b, 1);				/* CALLCHAIN: nr */
	put64(&b, PERF_CONTEXT_USER);
	put64(&b, PERF_SAMPLE_REGS_ABI_64);	/* REGS_USER */
	put64(&b, 0x7ffd0100);			/* BP */
	put64(&b, 0x7ffd0000);			/* SP */
	put64(&b, 0x401000);			/* IP */
	put64(&b, sizeof(stack));		/* STACK_USER: size */
	put(&b, stack, sizeof(stack));
	put64(&b, 24);				/* dyn_size */
	put64(&b, 0x1234);			/* CGROUP */
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, b.len), 0);
	assert_int_equal(record_parse_sample(&record_daemon, r, b.len, &s), 0);
	assert_int_equal(s.cgroup, 0x1234);
	assert_non_null(ips = record_callchain(&record_daemon, r, b.len, &nr));
	assert_int_equal(nr, 1);
	assert_int_equal(record_user_stack(&record_daemon, r, b.len, &u), 0);
	assert_int_equal(u.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(u.nregs, 3);
	assert_int_equal(u.regs[0], 0x7ffd0100);
	assert_int_equal(u.regs[1], 0x7ffd0000);
	assert_int_equal(u.regs[2], 0x401000);
	assert_int_equal(u.size, 24);
	assert_memory_equal(u.stack, stack, 24);
	/* Each cut refused: in the cgroup id, dyn_size, the copy. */
	for (i = 8; i <= 8 + 8 + sizeof(stack); i += 8) {
		assert_int_equal(record_check(&record_daemon, r, b.len - i), -1);
		assert_int_equal(record_user_stack(&record_daemon, r, b.len - i, &u), -1);
	}

	/* dyn_size over the copy: cut to it. */
	b.q[b.len / 8 - 2] = 4096;
	r = done(&b);
	assert_int_equal(record_user_stack(&record_daemon, r, b.len, &u), 0);
	assert_int_equal(u.size, sizeof(stack));

	/* A kernel thread: abi NONE, no registers, size 0 and no dyn_size. */
	header(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b, 77);
	put64(&b, 0xffffffff81000000ull);
	put32x2(&b, 0, 0);
	put64(&b, 5);
	put32x2(&b, 1, 0);
	put64(&b, 2);				/* CALLCHAIN */
	put64(&b, PERF_CONTEXT_KERNEL);
	put64(&b, 0xffffffff81000000ull);
	put64(&b, PERF_SAMPLE_REGS_ABI_NONE);
	put64(&b, 0);				/* STACK_USER: size 0 */
	put64(&b, 0x99);			/* CGROUP */
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, b.len), 0);
	assert_int_equal(record_user_stack(&record_daemon, r, b.len, &u), 0);
	assert_int_equal(u.abi, PERF_SAMPLE_REGS_ABI_NONE);
	assert_null(u.regs);
	assert_null(u.stack);
	assert_int_equal(u.size, 0);
	assert_int_equal(record_parse_sample(&record_daemon, r, b.len, &s), 0);
	assert_int_equal(s.cgroup, 0x99);
	/* A chain whose nr runs into the registers' place. */
	b.q[6] = 4;
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, b.len), -1);
	assert_int_equal(record_user_stack(&record_daemon, r, b.len, &u), -1);

	record_daemon_set_user_stack(0);
	assert_false(record_daemon.regs_user || record_daemon.stack_user);
	record_daemon_set_callchain(0);
	assert_int_equal(record_daemon.sample_size, 56);
}

/* Another sample_type: ID instead of IDENTIFIER, PERIOD last, no CPU. */
static void
test_sample_other_type(void **state)
{
	struct record_format f;
	struct buf b;
	const union record *r;
	struct record_sample s;

	(void)state;
	assert_int_equal(record_format_init(&f, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD, 0), 0);
	header(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b, 0xffffffff81000000ull);	/* IP */
	put32x2(&b, 7, 8);			/* TID */
	put64(&b, 999);				/* TIME */
	put64(&b, 0xdead);			/* ADDR */
	put64(&b, 55);				/* ID */
	put64(&b, 1000000);			/* PERIOD */
	r = done(&b);
	assert_int_equal(f.sample_size, b.len);
	assert_int_equal(record_parse_sample(&f, r, b.len, &s), 0);
	assert_int_equal(s.ip, 0xffffffff81000000ull);
	assert_int_equal(s.pid, 7);
	assert_int_equal(s.tid, 8);
	assert_int_equal(s.time, 999);
	assert_int_equal(s.id, 55);
	assert_int_equal(s.cpu, 0);
}

static size_t
mmap2(struct buf *b, uint16_t misc, int id_all)
{
	header(b, PERF_RECORD_MMAP2, misc);
	put32x2(b, 42, 43);
	put64(b, 0x7f0000001000ull);		/* start */
	put64(b, 0x5000);			/* len */
	put64(b, 0x1000);			/* pgoff */
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		unsigned char bid[24] = { 20, 0, 0, 0 };
		size_t i;

		for (i = 0; i < 20; i++)
			bid[4 + i] = (unsigned char)(0xa0 + i);
		put(b, bid, sizeof(bid));
	} else {
		put32x2(b, 8, 1);		/* maj, min */
		put64(b, 123456);		/* ino */
		put64(b, 9);			/* ino_generation */
	}
	put32x2(b, 5, 2);			/* prot, flags */
	putstr(b, "/usr/lib/libc.so.6");
	if (id_all)
		trailer(b, 42, 123456789, 3, 77);
	done(b);
	return b->len;
}

static void
test_mmap2(void **state)
{
	struct record_format nofmt;
	struct buf b;
	const union record *r = (const void *)b.q;
	char str[64];
	size_t size, i;

	(void)state;
	size = mmap2(&b, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, 1);
	assert_int_equal(record_check(&record_daemon, r, size), 0);
	assert_int_equal(r->mmap2.pid, 42);
	assert_int_equal(r->mmap2.tid, 43);
	assert_int_equal(r->mmap2.start, 0x7f0000001000ull);
	assert_int_equal(r->mmap2.len, 0x5000);
	assert_int_equal(r->mmap2.pgoff, 0x1000);
	assert_int_equal(r->mmap2.build_id_size, 20);
	for (i = 0; i < 20; i++)
		assert_int_equal(r->mmap2.build_id[i], 0xa0 + i);
	assert_int_equal(r->mmap2.prot, 5);
	assert_int_equal(r->mmap2.flags, 2);
	assert_string_equal(record_string(&record_daemon, r, size, str, sizeof(str)),
	    "/usr/lib/libc.so.6");
	/* A short buffer truncates the name, NUL-terminated. */
	assert_string_equal(record_string(&record_daemon, r, size, str, 5), "/usr");
	assert_trailer(&record_daemon, r, size);

	size = mmap2(&b, PERF_RECORD_MISC_USER, 1);
	assert_int_equal(record_check(&record_daemon, r, size), 0);
	assert_int_equal(r->mmap2.maj, 8);
	assert_int_equal(r->mmap2.min, 1);
	assert_int_equal(r->mmap2.ino, 123456);
	assert_int_equal(r->mmap2.ino_generation, 9);
	assert_int_equal(r->mmap2.prot, 5);
	assert_string_equal(record_string(&record_daemon, r, size, str, sizeof(str)),
	    "/usr/lib/libc.so.6");
	assert_trailer(&record_daemon, r, size);

	/* Without sample_id_all the name runs to the record's end. */
	assert_int_equal(record_format_init(&nofmt, RECORD_SAMPLE_TYPE, 0), 0);
	size = mmap2(&b, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, 0);
	assert_int_equal(record_check(&nofmt, r, size), 0);
	assert_string_equal(record_string(&nofmt, r, size, str, sizeof(str)),
	    "/usr/lib/libc.so.6");
	assert_no_trailer(&nofmt, r, size);
	/* ... and read with the trailer expected, it is too short. */
	assert_int_equal(record_check(&record_daemon, r, 72 + 24), -1);
}

static void
test_comm(void **state)
{
	struct record_format nofmt;
	struct buf b;
	const union record *r;
	char str[64];

	(void)state;
	header(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32x2(&b, 42, 43);
	putstr(&b, "python3");
	r = finish(&b);
	assert_int_equal(r->comm.pid, 42);
	assert_int_equal(r->comm.tid, 43);
	assert_true(r->header.misc & PERF_RECORD_MISC_COMM_EXEC);
	assert_string_equal(record_string(&record_daemon, r, b.len, str, sizeof(str)),
	    "python3");
	assert_trailer(&record_daemon, r, b.len);

	header(&b, PERF_RECORD_COMM, 0);
	put32x2(&b, 42, 42);
	putstr(&b, "sh");
	r = done(&b);
	assert_int_equal(record_format_init(&nofmt, RECORD_SAMPLE_TYPE, 0), 0);
	assert_int_equal(record_check(&nofmt, r, b.len), 0);
	assert_string_equal(record_string(&nofmt, r, b.len, str, sizeof(str)), "sh");
	assert_no_trailer(&nofmt, r, b.len);
	/* With a trailer expected there is no room for it. */
	assert_int_equal(record_check(&record_daemon, r, b.len), -1);
}

/* PERF_RECORD_CGROUP: the id, the path, the trailer. */
static void
test_cgroup(void **state)
{
	struct buf b;
	const union record *r;
	char str[64];

	(void)state;
	header(&b, PERF_RECORD_CGROUP, 0);
	put64(&b, 0x2a5f);
	putstr(&b, "/system.slice/nginx.service");
	r = finish(&b);
	assert_int_equal(offsetof(struct record_cgroup, path), 16);
	assert_int_equal(record_check(&record_daemon, r, b.len), 0);
	assert_int_equal(r->cgroup.id, 0x2a5f);
	assert_string_equal(record_string(&record_daemon, r, b.len, str, sizeof(str)),
	    "/system.slice/nginx.service");
	assert_trailer(&record_daemon, r, b.len);
	/* Too short for the id and the trailer. */
	assert_int_equal(record_check(&record_daemon, r, 16 + 24), -1);
}

static void
test_fork_exit(void **state)
{
	struct buf b;
	const union record *r;
	uint32_t types[2] = { PERF_RECORD_FORK, PERF_RECORD_EXIT };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		header(&b, types[i], 0);
		put32x2(&b, 42, 1);		/* pid, ppid */
		put32x2(&b, 44, 1);		/* tid, ptid */
		put64(&b, 123456789);
		r = finish(&b);
		assert_int_equal(r->fork.pid, 42);
		assert_int_equal(r->fork.ppid, 1);
		assert_int_equal(r->exit.tid, 44);
		assert_int_equal(r->exit.ptid, 1);
		assert_int_equal(r->exit.time, 123456789);
		assert_trailer(&record_daemon, r, b.len);
		/* The fixed part is all that is needed. */
		assert_int_equal(record_check(&record_daemon, r, 32), 0);
		assert_int_equal(record_check(&record_daemon, r, 24), -1);
	}
}

static void
test_lost(void **state)
{
	struct buf b;
	const union record *r;

	(void)state;
	header(&b, PERF_RECORD_LOST, 0);
	put64(&b, 77);
	put64(&b, 1234);
	r = finish(&b);
	assert_int_equal(r->lost.id, 77);
	assert_int_equal(r->lost.lost, 1234);
	assert_trailer(&record_daemon, r, b.len);
	assert_int_equal(record_check(&record_daemon, r, 16), -1);

	header(&b, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&b, 99);
	r = finish(&b);
	assert_int_equal(r->lost_samples.lost, 99);
	assert_trailer(&record_daemon, r, b.len);
	assert_int_equal(record_check(&record_daemon, r, 8), -1);
}

static void
test_throttle(void **state)
{
	struct buf b;
	const union record *r;
	uint32_t types[2] = { PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		header(&b, types[i], 0);
		put64(&b, 123456789);
		put64(&b, 77);
		put64(&b, 78);
		r = finish(&b);
		assert_int_equal(r->throttle.time, 123456789);
		assert_int_equal(r->throttle.id, 77);
		assert_int_equal(r->throttle.stream_id, 78);
		assert_trailer(&record_daemon, r, b.len);
		/* Counted even when short; no trailer to read then. */
		assert_int_equal(record_check(&record_daemon, r, 8), 0);
		assert_int_equal(record_time(&record_daemon, r, 8), 0);
	}
}

static void
test_truncated(void **state)
{
	struct buf b;
	const union record *r;
	struct record_sample s;

	(void)state;
	/* Shorter than a header. */
	header(&b, PERF_RECORD_MMAP2, 0);
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, 4), -1);
	/* A header and half a trailer. */
	header(&b, PERF_RECORD_EXIT, 0);
	put64(&b, 1);
	put64(&b, 2);
	r = done(&b);
	assert_int_equal(record_parse_sample(&record_daemon, r, b.len, &s), -1);
	assert_int_equal(record_time(&record_daemon, r, b.len), 0);
	/* An MMAP2 cut inside its fixed part. */
	mmap2(&b, 0, 1);
	r = (const void *)b.q;
	assert_int_equal(record_check(&record_daemon, r, 64), -1);
	/* Types without a struct have nothing to check. */
	header(&b, PERF_RECORD_KSYMBOL, 0);
	r = done(&b);
	assert_int_equal(record_check(&record_daemon, r, b.len), 0);
	assert_string_equal(record_string(&record_daemon, r, b.len, (char[8]){ 0 }, 8), "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_sample_other_type),
		cmocka_unit_test(test_sample_callchain),
		cmocka_unit_test(test_sample_user_stack),
		cmocka_unit_test(test_mmap2),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_fork_exit),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
