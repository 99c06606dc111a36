/*
 * Sampling's set-up and ring-buffer reading (daemon/perf*.c), with
 * perf_event_open, mmap and ioctl replaced (-Wl,--wrap=perf_sys_*): the
 * events opened on each CPU, the dummy sideband event and its fallback,
 * the build-id fallback, the errors of perf_event_open and mmap, a record
 * that wraps around the end of its ring buffer, and the period jitter's
 * PERF_EVENT_IOC_PERIOD (an fd that refuses it keeps its fixed period).
 * Then the zero-copy reading of the sampling buffers through core.c
 * (attr_sample, proc_exit and order_push replaced too): samples older than
 * the safe time processed in place, in time order against the sideband,
 * a newer one left in its buffer behind the sideband it must follow.
 */
#include "config.h"

#include <sys/eventfd.h>
#include <sys/mman.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../daemon/attr.h"
#include "../daemon/core.h"
#include "../daemon/labeler.h"
#include "../daemon/loop.h"
#include "../daemon/order.h"
#include "../daemon/perf.h"
#include "../daemon/record.h"

#define MAXCALLS	64

/* What the set-up asked of the kernel, call by call. */
static struct perf_event_attr	opened[MAXCALLS];
static int			opened_cpu[MAXCALLS];
static size_t			nopen;
/* errno for open call i (0: succeeds); fail_build_id: EINVAL for any
 * attr asking for build-ids, as kernels before 5.12 answer. */
static int			open_errno[MAXCALLS];
static int			fail_build_id;
/* EINVAL for cgroup ids in samples or cgroup records: before 5.7. */
static int			fail_cgroup;
/* ENOENT for hardware events, as on a virtual machine without a PMU. */
static int			fail_hw;
static int			mmap_errno[MAXCALLS];
static size_t			nmmap, nmapped, nmunmap, nenable;

struct map {
	int		 fd;
	void		*base;
	size_t		 len;
	uint64_t	 id;
};
static struct map		maps[MAXCALLS];

/* PERF_EVENT_IOC_PERIOD calls: fd and value; period_refuse_fd's are
 * refused (EINVAL, as a PMU's limit_period refuses a small period) unless
 * the value is period_allowed. */
static int			period_fd[4 * MAXCALLS];
static uint64_t			period_value[4 * MAXCALLS];
static size_t			nperiod;
static int			period_refuse_fd;
static uint64_t			period_allowed;

int __wrap_perf_sys_open(struct perf_event_attr *, int);
void *__wrap_perf_sys_mmap(int, size_t);
int __wrap_perf_sys_munmap(void *, size_t);
int __wrap_perf_sys_ioctl(int, unsigned long, void *);
ssize_t __wrap_perf_sys_read(int, void *, size_t);
int __wrap_perf_sys_cpus(const char *, char *, size_t);

/* /sys/devices/system/cpu's lists, and the events taken off their CPU:
 * their time_enabled stands still; the others' goes on at every read. */
static const char	*mock_online, *mock_present, *mock_possible;
static int		 stopped_fd[MAXCALLS];
static size_t		 nstopped;
static uint64_t		 mock_clock;
static size_t		 nreads;	/* of time_enabled */

ssize_t
__wrap_perf_sys_read(int fd, void *buf, size_t len)
{
	uint64_t v[2] = { 0, ++mock_clock };
	size_t i;

	nreads++;
	assert_int_equal(len, sizeof(v));
	for (i = 0; i < nstopped; i++)
		if (stopped_fd[i] == fd)
			v[1] = 12345;
	memcpy(buf, v, sizeof(v));
	return (ssize_t)sizeof(v);
}

int
__wrap_perf_sys_cpus(const char *which, char *buf, size_t len)
{
	snprintf(buf, len, "%s\n", strcmp(which, "online") == 0 ? mock_online :
	    strcmp(which, "present") == 0 ? mock_present : mock_possible);
	return 0;
}

int
__wrap_perf_sys_open(struct perf_event_attr *a, int cpu)
{
	size_t i = nopen++;

	assert_true(i < MAXCALLS);
	opened[i] = *a;
	opened_cpu[i] = cpu;
	if (open_errno[i] != 0 || (fail_build_id && a->build_id) ||
	    (fail_cgroup && ((a->sample_type & PERF_SAMPLE_CGROUP) || a->cgroup))) {
		errno = open_errno[i] ? open_errno[i] : EINVAL;
		return -1;
	}
	if (fail_hw && a->type != PERF_TYPE_SOFTWARE) {
		errno = ENOENT;
		return -1;
	}
	/* A real fd, so that the loop can watch it. */
	return eventfd(0, EFD_CLOEXEC);
}

void *
__wrap_perf_sys_mmap(int fd, size_t len)
{
	size_t i = nmmap++;

	assert_true(i < MAXCALLS);
	if (mmap_errno[i] != 0) {
		errno = mmap_errno[i];
		return MAP_FAILED;
	}
	maps[i].fd = fd;
	maps[i].len = len;
	maps[i].base = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), len);
	assert_non_null(maps[i].base);
	memset(maps[i].base, 0, len);
	maps[i].id = 1000 + i;
	nmapped++;
	return maps[i].base;
}

int
__wrap_perf_sys_munmap(void *base, size_t len)
{
	size_t i;

	for (i = 0; i < nmmap; i++)
		if (maps[i].base == base) {
			assert_int_equal(maps[i].len, len);
			free(base);
			maps[i].base = NULL;
			nmunmap++;
			return 0;
		}
	fail_msg("munmap of %p, never mapped", base);
	return -1;
}

int
__wrap_perf_sys_ioctl(int fd, unsigned long request, void *arg)
{
	size_t i;

	if (request == PERF_EVENT_IOC_ENABLE) {
		nenable++;
		return 0;
	}
	if (request == PERF_EVENT_IOC_DISABLE)
		return 0;
	if (request == PERF_EVENT_IOC_PERIOD) {
		uint64_t v;

		memcpy(&v, arg, sizeof(v));
		assert_true(nperiod < 4 * MAXCALLS);
		period_fd[nperiod] = fd;
		period_value[nperiod++] = v;
		if (fd == period_refuse_fd && v != period_allowed) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	}
	assert_int_equal(request, PERF_EVENT_IOC_ID);
	for (i = 0; i < nmmap; i++)
		if (maps[i].base != NULL && maps[i].fd == fd) {
			memcpy(arg, &maps[i].id, sizeof(maps[i].id));
			return 0;
		}
	errno = EBADF;
	return -1;
}

static void	 record(const union record *rec, size_t size, uint64_t time);

static int
setup(void **state)
{
	(void)state;
	memset(open_errno, 0, sizeof(open_errno));
	memset(mmap_errno, 0, sizeof(mmap_errno));
	memset(maps, 0, sizeof(maps));
	fail_build_id = fail_hw = fail_cgroup = 0;
	record_daemon_set_cgroup(1);
	nopen = nmmap = nmapped = nmunmap = nenable = 0;
	nperiod = 0;
	period_refuse_fd = -1;
	mock_online = "0-63";
	mock_present = "0-63";
	mock_possible = "0-63";
	nstopped = 0;
	perf_set_jitter(0);
	perf_set_consumer(record, NULL);
	loop_init();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	perf_fini();
	/* Every buffer mapped is unmapped, whatever failed. */
	assert_int_equal(nmunmap, nmapped);
	loop_fini();
	return 0;
}

static size_t	 nrecords;
static uint64_t	 last_time;
static unsigned char last[256];
static size_t	 last_size;

static void
record(const union record *rec, size_t size, uint64_t time)
{
	nrecords++;
	last_time = time;
	last_size = size;
	assert_true(size <= sizeof(last));
	memcpy(last, rec, size);
}

static char *cpu_clock[] = { "perf::cpu-clock" };

static void
test_each_cpu(void **state)
{
	static const int cpus[3] = { 0, 2, 3 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0,2-3", err, sizeof(err)), 0);
	/* The sideband's dummy event on each CPU, then the event's. */
	assert_int_equal(nopen, 6);
	for (i = 0; i < 6; i++) {
		const struct perf_event_attr *a = &opened[i];

		assert_int_equal(opened_cpu[i], cpus[i % 3]);
		assert_int_equal(a->sample_type, RECORD_SAMPLE_TYPE);
		assert_int_equal(a->sample_id_all, RECORD_SAMPLE_ID_ALL);
		assert_int_equal(a->use_clockid, 1);
		assert_int_equal(a->disabled, 1);
		assert_int_equal(a->type, PERF_TYPE_SOFTWARE);
		if (i < 3) {
			assert_int_equal(a->config, PERF_COUNT_SW_DUMMY);
			assert_int_equal(a->mmap2, 1);
			assert_int_equal(a->comm, 1);
			assert_int_equal(a->task, 1);
			assert_int_equal(a->build_id, 1);
			assert_int_equal(a->cgroup, 1);
			assert_int_equal(a->wakeup_watermark, 1);
		} else {
			assert_int_equal(a->config, PERF_COUNT_SW_CPU_CLOCK);
			assert_int_equal(a->sample_period, PERF_PERIOD_CLOCK);
			assert_int_equal(a->mmap2, 0);
			assert_int_equal(a->cgroup, 0);
			assert_true(a->wakeup_watermark > 1);
		}
	}
	assert_int_equal(perf_ncpus(), 3);
	assert_int_equal(perf_nevents(), 1);
	assert_string_equal(perf_event_name(0), "perf::cpu-clock");
	assert_int_equal(perf_event_period(0), PERF_PERIOD_CLOCK);
	assert_int_equal(perf_memory(), 3 * (128 + 1) * page + 3 * (128 + 1) * page);
	/* Samples name their event by id; the sideband's are no event. */
	for (i = 0; i < 6; i++)
		assert_int_equal(perf_event_of_id(maps[i].id), i < 3 ? -1 : 0);
	assert_int_equal(perf_event_of_id(999), -1);
	for (i = 0; i < 6; i++)
		assert_int_equal(perf_id_is_sideband(maps[i].id), i < 3);
	assert_int_equal(perf_id_is_sideband(999), 0);
	perf_enable();
	assert_int_equal(nenable, 6);
}

static void ring_sample(struct map *, uint64_t, uint64_t);

static void
test_sideband_fallback(void **state)
{
	uint64_t next;
	char err[512];

	(void)state;
	/* The dummy event opens on CPU 0, not on CPU 1. */
	open_errno[1] = ENOENT;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	assert_int_equal(nopen, 4);
	assert_int_equal(opened[0].config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(opened[1].config, PERF_COUNT_SW_DUMMY);
	/* CPU 0's dummy buffer is given back; the event carries the
	 * sideband, with the samples' watermark. */
	assert_int_equal(nmunmap, 1);
	assert_int_equal(opened[2].config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(opened[2].mmap2, 1);
	assert_int_equal(opened[2].build_id, 1);
	assert_true(opened[2].wakeup_watermark > 1);
	assert_int_equal(perf_memory(), 2 * (128 + 1) * (size_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(perf_event_of_id(maps[1].id), 0);
	/* Its buffers hold the sideband too: copied into the queue at each
	 * drain (a sample written inside an MMAP2 can precede it), never
	 * read in place. */
	ring_sample(&maps[1], 100, 1);
	nrecords = 0;
	assert_int_equal(perf_read_until(UINT64_MAX, record, NULL, 0, &next), 0);
	assert_int_equal(next, UINT64_MAX);
	assert_int_equal(nrecords, 0);
	perf_drain_queued();
	assert_int_equal(nrecords, 1);
}

static void
test_build_id_fallback(void **state)
{
	char err[512];

	(void)state;
	fail_build_id = 1;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	/* The dummy asked with build-ids, then without. */
	assert_int_equal(nopen, 3);
	assert_int_equal(opened[0].build_id, 1);
	assert_int_equal(opened[1].build_id, 0);
	assert_int_equal(opened[1].config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(opened[1].mmap2, 1);
	assert_int_equal(opened[2].config, PERF_COUNT_SW_CPU_CLOCK);
}

/* An error of perf_event_open for the event on its second CPU: perf_init
 * fails naming the event, the CPU and the reason, and closes all. */
static void
open_fails(int e)
{
	char err[512];

	open_errno[3] = e;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "perf::cpu-clock"));
	assert_non_null(strstr(err, "CPU 1"));
	assert_non_null(strstr(err, strerror(e)));
	assert_int_equal(nmunmap, nmmap);
	assert_int_equal(perf_memory(), 0);
	assert_int_equal(perf_nevents(), 0);
}

static void test_eacces(void **state) { (void)state; open_fails(EACCES); }
static void test_eperm(void **state) { (void)state; open_fails(EPERM); }
static void test_enoent(void **state) { (void)state; open_fails(ENOENT); }
/* EINVAL, also when asked without cgroup ids: not the kernel's age, so the
 * format stays as it was. */
static void
test_einval(void **state)
{
	(void)state;
	open_errno[4] = EINVAL;
	open_fails(EINVAL);
	assert_true(opened[3].sample_type & PERF_SAMPLE_CGROUP);
	assert_false(opened[4].sample_type & PERF_SAMPLE_CGROUP);
	assert_int_equal(record_daemon.sample_type, RECORD_SAMPLE_TYPE);
}

/* A kernel before 5.7 (so before 5.12's build-ids too): the first open
 * drops the build-ids, then the cgroup ids; the rest open without them,
 * and the records are read in the shorter format. */
static void
test_cgroup_fallback(void **state)
{
	char err[512];
	size_t i;

	(void)state;
	fail_cgroup = fail_build_id = 1;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	assert_true(opened[1].cgroup);
	assert_true(opened[1].sample_type & PERF_SAMPLE_CGROUP);
	assert_false(opened[1].build_id);
	assert_int_equal(nopen, 6);	/* the first thrice, then one per fd */
	for (i = 2; i < nopen; i++) {
		assert_false(opened[i].sample_type & PERF_SAMPLE_CGROUP);
		assert_false(opened[i].cgroup);
	}
	assert_int_equal(record_daemon.sample_size, RECORD_SAMPLE_MIN);
}

static void
test_mmap_fails(void **state)
{
	char err[512];

	(void)state;
	mmap_errno[3] = ENOMEM;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "perf::cpu-clock on CPU 1: mmap of the ring buffer"));
	assert_non_null(strstr(err, strerror(ENOMEM)));
	assert_int_equal(nmunmap, 3);
	assert_int_equal(perf_memory(), 0);
}

/* Over the locked-memory limit (EPERM from mmap): the buffer is halved,
 * for that CPU and the next, its fd opened again with the watermark
 * scaled; down to 8 pages, below which EPERM is the error. */
static void
test_mmap_memlock(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char err[512];

	(void)state;
	/* maps: sideband CPU 0, 1; the event's CPU 0 (refused twice), 1. */
	mmap_errno[2] = EPERM;
	mmap_errno[3] = EPERM;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	assert_int_equal(maps[0].len, (128 + 1) * page);
	assert_int_equal(maps[1].len, (128 + 1) * page);
	assert_int_equal(maps[4].len, (32 + 1) * page);
	assert_int_equal(maps[5].len, (32 + 1) * page);
	assert_int_equal(perf_memory(), 2 * (128 + 1) * page + 2 * (32 + 1) * page);
	/* The watermark of the reopened fd: a quarter of its buffer. */
	assert_int_equal(opened[nopen - 1].wakeup_watermark, 32 * page / 4);
}

/* Never below 8 pages: refused at 128, 64, 32, 16 and 8, the event fails
 * with EPERM. */
static void
test_mmap_memlock_floor(void **state)
{
	char err[512];

	(void)state;
	for (size_t i = 1; i <= 5; i++)
		mmap_errno[i] = EPERM;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), -1);
	assert_int_equal(nmmap, 6);
	assert_non_null(strstr(err, "perf::cpu-clock on CPU 0: mmap of the ring buffer"));
	assert_non_null(strstr(err, strerror(EPERM)));
}

/* With no event named: cycles, else perf::cpu-clock. */
static void
test_default_event(void **state)
{
	char err[512];

	(void)state;
	fail_hw = 1;
	assert_int_equal(perf_init(NULL, 0, "0", err, sizeof(err)), 0);
	assert_int_equal(perf_nevents(), 1);
	assert_string_equal(perf_event_name(0), "perf::cpu-clock");
	assert_int_equal(opened[nopen - 1].config, PERF_COUNT_SW_CPU_CLOCK);
}

/* Writes size bytes at byte position pos of the ring buffer, wrapping. */
static void
ring_write(struct map *m, uint64_t pos, const void *p, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), dsize = m->len - page, i;
	unsigned char *data = (unsigned char *)m->base + page;

	for (i = 0; i < size; i++)
		data[(pos + i) % dsize] = ((const unsigned char *)p)[i];
}

static void
test_drain_wrap(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct map *m;
	struct perf_event_mmap_page *pg;
	struct {
		struct record_task		t;
		struct record_daemon_id		id;
	} exit_rec;
	struct record_daemon_sample s;
	uint64_t pos;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	m = &maps[1];			/* the event's buffer (after the dummy) */
	assert_int_equal(m->len, (128 + 1) * page);
	pg = m->base;
	/* A SAMPLE just before the end, then an EXIT across it. */
	pos = (m->len - page) * 3 - sizeof(s) - 16;
	pg->data_tail = pos;
	memset(&s, 0, sizeof(s));
	s.header.type = PERF_RECORD_SAMPLE;
	s.header.size = sizeof(s);
	s.id = m->id;
	s.time = 5000;
	ring_write(m, pos, &s, sizeof(s));
	memset(&exit_rec, 0, sizeof(exit_rec));
	exit_rec.t.header.type = PERF_RECORD_EXIT;
	exit_rec.t.header.size = sizeof(exit_rec);
	exit_rec.t.pid = exit_rec.t.tid = 42;
	exit_rec.id.time = 6000;
	exit_rec.id.cpu = 0;
	ring_write(m, pos + sizeof(s), &exit_rec, sizeof(exit_rec));
	pg->data_head = pos + sizeof(s) + sizeof(exit_rec);
	nrecords = 0;
	perf_drain();
	assert_int_equal(nrecords, 2);
	/* The wrapped record arrives whole. */
	assert_int_equal(last_size, sizeof(exit_rec));
	assert_memory_equal(last, &exit_rec, sizeof(exit_rec));
	assert_int_equal(last_time, 6000);
	assert_int_equal(pg->data_tail, pg->data_head);
}

static void ring_exit(struct map *, uint64_t, uint32_t);

static uint64_t	 times[8];
static size_t	 ntimes;

static void
record_time_of(const union record *rec, size_t size, uint64_t time)
{
	record(rec, size, time);
	if (ntimes < 8)
		times[ntimes++] = time;
}

/*
 * What perf_hold takes out of a sideband buffer (two records, one
 * across its end) is handed to no one then, and the buffer's
 * space is given back; the next drain hands the held records first, whole
 * and in order, then the buffer's newer one.  An empty sampling buffer is
 * left as it is.
 */
static void
test_hold(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg, *spg;
	struct map *m;
	char err[512];
	size_t mapped;

	(void)state;
	perf_set_consumer(record_time_of, NULL);
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	mapped = perf_memory();
	m = &maps[0];			/* the sideband's buffer */
	assert_int_equal(perf_id_is_sideband(m->id), 1);
	pg = m->base;
	spg = maps[1].base;
	/* Near the end of the data: a record wraps. */
	pg->data_tail = pg->data_head = (m->len - page) * 2 - 48 - 16;
	ring_exit(m, 1000, 41);
	ring_exit(m, 2000, 42);
	spg->data_head = spg->data_tail = 0;
	nrecords = ntimes = 0;
	perf_hold();
	assert_int_equal(nrecords, 0);
	assert_int_equal(pg->data_tail, pg->data_head);
	assert_int_equal(spg->data_tail, 0);
	/* The copy counts in the memory status shows (64 KiB at first). */
	assert_int_equal(perf_memory(), mapped + 65536);
	/* Held twice over: the second adds nothing. */
	perf_hold();
	ring_exit(m, 3000, 43);
	perf_drain();
	assert_int_equal(nrecords, 3);
	assert_int_equal(ntimes, 3);
	assert_int_equal(times[0], 1000);
	assert_int_equal(times[1], 2000);
	assert_int_equal(times[2], 3000);
	assert_int_equal(((const union record *)last)->exit.pid, 43);
	assert_int_equal(pg->data_tail, pg->data_head);
	/* Nothing is handed twice. */
	perf_drain();
	assert_int_equal(nrecords, 3);
}

/* The rate uniform on [(1 - j) / P, (1 + j) / P]: periods within
 * [P / (1 + j), P / (1 - j)], both ends nearly reached, and a mean rate of
 * 1/P (the profile multiplies samples by P; samples in a stretch of time
 * are time / L).  100,000 draws of a rate of standard deviation j / sqrt(3)
 * relative: the mean's error is about 0.0002 at 10%, and 0.002 is ten of
 * those. */
static void
test_jitter_draws(void **state)
{
	const uint64_t p = 1000000, lo_end = 909091, hi_end = 1111111;
	uint64_t v, lo = UINT64_MAX, hi = 0;
	double rate = 0, sum = 0;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		v = perf_jitter_period(p, 10);
		assert_in_range(v, lo_end, hi_end);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		rate += (double)p / (double)v;
		sum += (double)v;
	}
	assert_true(lo < lo_end + 1000 && hi > hi_end - 1000);
	assert_true(rate / 100000 > 0.998 && rate / 100000 < 1.002);
	/* The periods' own mean is above P (by about j^2 / 3): were it P,
	 * the counts would be high by as much. */
	assert_true(sum / 100000 > (double)p * 1.002);
	/* No jitter, a small period, no period over 2^63 - 1. */
	assert_int_equal(perf_jitter_period(p, 0), p);
	assert_in_range(perf_jitter_period(5, 10), 4, 6);
	assert_in_range(perf_jitter_period(1, 50), 1, 2);
	for (i = 0; i < 1000; i++)
		assert_in_range(perf_jitter_period(UINT64_C(1) << 62, 50),
		    (UINT64_C(1) << 62) / 3 * 2, INT64_MAX);
}

/* The index of the fd opened for (event, CPU): the sideband's come first. */
static int
event_fd(size_t cpu)
{
	return maps[2 + cpu].fd;
}

/* Every period set since call first: on the sampling fds only, of a rate
 * within pct% of 1/period.  Returns how many. */
static size_t
check_periods(size_t first, uint64_t period, unsigned pct)
{
	size_t i;

	for (i = first; i < nperiod; i++) {
		assert_true(period_fd[i] == event_fd(0) || period_fd[i] == event_fd(1));
		assert_in_range(period_value[i], period * 100 / (100 + pct),
		    period * 100 / (100 - pct) + 1);
	}
	return nperiod - first;
}

static void
jitter_event(const char *name, uint64_t period)
{
	char *ev[] = { (char *)name };
	char err[512];
	size_t n;

	perf_set_jitter(20);
	assert_int_equal(perf_init(ev, 1, "0-1", err, sizeof(err)), 0);
	assert_int_equal(perf_event_period(0), period);
	/* Nothing before the start; then a period per CPU, set before the
	 * events are enabled (nothing of an interval is lost). */
	assert_int_equal(nperiod, 0);
	perf_enable();
	assert_int_equal(check_periods(0, period, 20), 2);
	assert_int_not_equal(period_fd[0], period_fd[1]);
	/* The timer's work: new periods each time, the mean untouched. */
	perf_jitter_now();
	perf_jitter_now();
	assert_int_equal(check_periods(0, period, 20), 6);
	assert_int_equal(perf_jitter_changes(), 6);
	/* Rounds 1 and 2 mirror each other on each fd: rates 1 + k, 1 - k. */
	for (n = 0; n < 2; n++) {
		double r = (double)period / (double)period_value[n] +
		    (double)period / (double)period_value[n + 2];

		assert_int_equal(period_fd[n], period_fd[n + 2]);
		assert_true(r > 2 - 1e-5 && r < 2 + 1e-5);
	}
	assert_int_equal(perf_jitter_refused(), 0);
	assert_int_equal(perf_event_period(0), period);
	/* Two draws of a wide range alike in all six would be a broken
	 * generator, not chance. */
	for (n = 1; n < 6 && period_value[n] == period_value[0]; n++)
		;
	assert_true(n < 6);
}

/* Chains on a period of their own: the sparse twin's period is drawn
 * within 20% of its 10 ms even without period-jitter, the dense event's
 * is left alone (its profile's period exact). */
static void
test_jitter_chain_twin(void **state)
{
	char err[512];
	size_t i;

	(void)state;
	perf_set_callchain(16, 0);
	perf_set_callchain_period(10);
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	assert_int_equal(perf_jitter(), 0);
	assert_int_equal(perf_jitter_chains(), 20);
	assert_true(perf_jitter_any());
	perf_enable();
	perf_jitter_now();
	assert_int_equal(nperiod, 2);
	for (i = 0; i < nperiod; i++) {
		assert_int_equal(period_fd[i], maps[2].fd);	/* the twin's */
		assert_in_range(period_value[i], 10000000 * 100 / 120, 10000000 * 100 / 80 + 1);
	}
	perf_set_callchain_period(0);
	perf_set_callchain(0, 0);
}

/* cpu-clock's hrtimer and a PMU counter take the same ioctl. */
static void test_jitter_clock(void **state) { (void)state; jitter_event("perf::cpu-clock", 1000000); }
static void test_jitter_hw(void **state) { (void)state; jitter_event("cycles", 2000000); }

/* perf_enable and n more rounds of new periods with stderr (the log) in a
 * temporary file, returned rewound. */
static FILE *
jitter_logged(int n)
{
	FILE *log = tmpfile();
	int saved;

	assert_non_null(log);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(log), 2);
	perf_enable();
	while (n-- > 0)
		perf_jitter_now();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(log);
	return log;
}

/* An fd that refuses PERF_EVENT_IOC_PERIOD: logged once, set back to the
 * configured period and left there; the other CPU's keeps its jitter. */
static void
test_jitter_refused(void **state)
{
	char err[512], line[512];
	FILE *log;
	int n = 0;
	size_t i, first;

	(void)state;
	perf_set_jitter(10);
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	period_refuse_fd = event_fd(1);
	period_allowed = 1000000;
	log = jitter_logged(2);
	assert_int_equal(perf_jitter_refused(), 1);
	/* CPU 1: the refused draw, then the configured period, then nothing. */
	for (i = 0, first = nperiod; i < nperiod; i++)
		if (period_fd[i] == event_fd(1) && first == nperiod)
			first = i;
	assert_true(first + 1 < nperiod);
	assert_int_equal(period_fd[first + 1], event_fd(1));
	assert_int_equal(period_value[first + 1], 1000000);
	for (i = first + 2; i < nperiod; i++)
		assert_int_equal(period_fd[i], event_fd(0));
	/* CPU 0 at every round: 3 periods set, and those are the changes. */
	assert_int_equal(perf_jitter_changes(), 3);
	while (fgets(line, sizeof(line), log) != NULL)
		if (strstr(line, "PERF_EVENT_IOC_PERIOD") != NULL) {
			assert_non_null(strstr(line, "fixed period 1000000"));
			n++;
		}
	fclose(log);
	assert_int_equal(n, 1);
}

/* Refused, and so is the configured period when it is put back: said,
 * since that CPU's counts may then be off. */
static void
test_jitter_refused_twice(void **state)
{
	char err[512], line[512];
	FILE *log;
	int back = 0;

	(void)state;
	perf_set_jitter(10);
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	period_refuse_fd = event_fd(0);
	period_allowed = 0;		/* never asked for: all refused */
	log = jitter_logged(1);
	assert_int_equal(perf_jitter_refused(), 1);
	assert_int_equal(perf_jitter_changes(), 2);	/* CPU 1's */
	while (fgets(line, sizeof(line), log) != NULL)
		back += strstr(line, "so was the configured period 1000000") != NULL;
	fclose(log);
	assert_int_equal(back, 1);
}

/*
 * Zero-copy reading.  What core.c did, in order: 'S' and the sample's ip
 * (attr_sample), 'E' and the pid (proc_exit); and the records copied into
 * the ordering queue (order_push).
 */
struct step {
	char		 what;
	uint64_t	 v;
};
static struct step	 steps[64];
static size_t		 nsteps, npushed;

enum attr_reason __wrap_attr_sample(uint32_t, uint64_t, uint16_t, struct image **,
    uint32_t *);
void __wrap_proc_exit(uint32_t, uint32_t, uint32_t, uint32_t);
void __wrap_order_push(const void *, size_t, uint64_t);
void __real_order_push(const void *, size_t, uint64_t);

enum attr_reason
__wrap_attr_sample(uint32_t pid, uint64_t pc, uint16_t cpumode, struct image **img,
    uint32_t *offset)
{
	(void)pid;
	(void)cpumode;
	(void)img;
	(void)offset;
	assert_true(nsteps < 64);
	steps[nsteps++] = (struct step){ 'S', pc };
	return ATTR_UNKNOWN_PID;
}

void
__wrap_proc_exit(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	(void)ppid;
	(void)tid;
	(void)ptid;
	assert_true(nsteps < 64);
	steps[nsteps++] = (struct step){ 'E', pid };
}

void
__wrap_order_push(const void *rec, size_t size, uint64_t time)
{
	npushed++;
	__real_order_push(rec, size, time);
}

/* Appends a SAMPLE (tag in ip) or an EXIT of pid 42 (tag: the exit's tid)
 * at the buffer's head. */
static void
ring_sample(struct map *m, uint64_t time, uint64_t tag)
{
	struct perf_event_mmap_page *pg = m->base;
	struct record_daemon_sample s;

	memset(&s, 0, sizeof(s));
	s.header.type = PERF_RECORD_SAMPLE;
	s.header.size = sizeof(s);
	s.header.misc = PERF_RECORD_MISC_USER;
	s.id = m->id;
	s.ip = tag;
	s.pid = s.tid = 42;
	s.time = time;
	ring_write(m, pg->data_head, &s, sizeof(s));
	pg->data_head += sizeof(s);
}

static void
ring_exit(struct map *m, uint64_t time, uint32_t pid)
{
	struct perf_event_mmap_page *pg = m->base;
	struct {
		struct record_task		t;
		struct record_daemon_id		id;
	} e;

	memset(&e, 0, sizeof(e));
	e.t.header.type = PERF_RECORD_EXIT;
	e.t.header.size = sizeof(e);
	e.t.pid = e.t.tid = pid;
	e.id.pid = e.id.tid = pid;
	e.id.time = time;
	e.id.id = m->id;
	ring_write(m, pg->data_head, &e, sizeof(e));
	pg->data_head += sizeof(e);
}

static int
step_is(size_t i, char what, uint64_t v)
{
	return i < nsteps && steps[i].what == what && steps[i].v == v;
}

/* Bytes the kernel wrote that dcpid has not given back. */
static uint64_t
unread(const struct map *m)
{
	const struct perf_event_mmap_page *pg = m->base;

	return pg->data_head - pg->data_tail;
}

static int
setup_core(void **state)
{
	setup(state);
	label_init(0, 1000);
	core_init(0);
	nsteps = npushed = 0;
	return 0;
}

static int
teardown_core(void **state)
{
	core_fini();
	label_fini();
	return teardown(state);
}

static const void	*inplace_at[8];
static size_t		 ninplace;

static void
record_where(const union record *rec, size_t size, uint64_t time)
{
	record(rec, size, time);
	assert_true(ninplace < 8);
	inplace_at[ninplace++] = rec;
}

static int
in_map(const struct map *m, const void *p)
{
	return (const unsigned char *)p >= (const unsigned char *)m->base &&
	    (const unsigned char *)p < (const unsigned char *)m->base + m->len;
}

/* perf_read_until: the sampling buffer's records handed out where they
 * lie, up to until (inclusive), the first later one left with its space;
 * one that wraps is put together.  The sideband's buffer is not read. */
static void
test_read_in_place(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct map *sb, *m;
	struct perf_event_mmap_page *pg;
	uint64_t start, next;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	sb = &maps[0];
	m = &maps[1];
	pg = m->base;
	ring_exit(sb, 50, 7);
	/* The second sample ends 8 bytes past the end of the data. */
	start = (m->len - page) - 2 * sizeof(struct record_daemon_sample) + 8;
	pg->data_tail = pg->data_head = start;
	ring_sample(m, 100, 1);
	ring_sample(m, 200, 2);
	ring_sample(m, 300, 3);
	ninplace = nrecords = 0;
	assert_int_equal(perf_read_until(99, record_where, NULL, 0, &next), 0);
	assert_int_equal(next, 100);
	assert_int_equal(pg->data_tail, start);
	assert_int_equal(perf_read_until(200, record_where, NULL, 0, &next), 2);
	assert_int_equal(next, 300);
	assert_true(in_map(m, inplace_at[0]));
	assert_false(in_map(m, inplace_at[1]));		/* wrapped: a copy */
	assert_int_equal(last_time, 200);
	assert_int_equal(((struct record_daemon_sample *)last)->ip, 2);
	assert_int_equal(pg->data_tail, start + 2 * sizeof(struct record_daemon_sample));
	assert_int_equal(perf_read_until(UINT64_MAX, record_where, NULL, 0, &next), 1);
	assert_int_equal(next, UINT64_MAX);
	assert_true(in_map(m, inplace_at[2]));
	assert_int_equal(last_time, 300);
	assert_int_equal(unread(m), 0);
	/* The sideband's buffer is left to perf_drain_queued. */
	assert_int_not_equal(unread(sb), 0);
	perf_drain_queued();
	assert_int_equal(nrecords, 4);
	assert_int_equal(last_time, 50);
}

/* A sampling buffer's samples held (perf_hold) are read in place's way:
 * before the buffer's newer ones, up to until and no further, the next
 * time left in *next; the buffer's own wait behind them. */
static void
test_read_held(void **state)
{
	struct map *m;
	struct perf_event_mmap_page *pg;
	uint64_t next;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	m = &maps[1];
	pg = m->base;
	ring_sample(m, 100, 1);
	ring_sample(m, 200, 2);
	perf_hold();
	assert_int_equal(unread(m), 0);
	ring_sample(m, 300, 3);
	ninplace = nrecords = 0;
	assert_int_equal(perf_read_until(99, record_where, NULL, 0, &next), 0);
	assert_int_equal(next, 100);
	assert_int_equal(perf_read_until(100, record_where, NULL, 0, &next), 1);
	assert_int_equal(next, 200);
	assert_false(in_map(m, inplace_at[0]));		/* held: a copy */
	assert_int_equal(((struct record_daemon_sample *)last)->ip, 1);
	/* The buffer's sample is not read while a held one waits. */
	assert_int_equal(unread(m), sizeof(struct record_daemon_sample));
	assert_int_equal(perf_read_until(UINT64_MAX, record_where, NULL, 0, &next), 2);
	assert_int_equal(last_time, 300);
	assert_int_equal(((struct record_daemon_sample *)last)->ip, 3);
	assert_true(in_map(m, inplace_at[2]));
	assert_int_equal(unread(m), 0);
	assert_int_equal(pg->data_tail, pg->data_head);
	assert_int_equal(perf_read_until(UINT64_MAX, record_where, NULL, 0, &next), 0);
}

/* A buffer read in place that is more than a quarter full (its wake-up
 * mark) after a read is held, one less full is not; a copy read in part
 * is compacted by the next hold, so that at a steady rate of records too
 * new to read the copies stay the size of what waits, and every record
 * comes once and in order. */
static uint64_t		 order_last;
static size_t		 order_n;

static void
record_order(const union record *rec, size_t size, uint64_t time)
{
	(void)rec;
	(void)size;
	assert_true(time > order_last);
	order_last = time;
	order_n++;
}

static void
test_hold_crowded(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), quarter, i, round, mem = 0;
	struct map *m;
	uint64_t next, t = 0;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	m = &maps[1];
	quarter = (m->len - page) / 4 / sizeof(struct record_daemon_sample);
	for (i = 0; i < quarter - 1; i++, t++)
		ring_sample(m, t + 1, t + 1);
	perf_hold_crowded();
	assert_int_equal(unread(m), (quarter - 1) * sizeof(struct record_daemon_sample));
	for (i = 0; i < 2; i++, t++)
		ring_sample(m, t + 1, t + 1);
	perf_hold_crowded();
	assert_int_equal(unread(m), 0);
	order_last = 0;
	order_n = 0;
	for (round = 0; round < 16; round++) {
		/* The older half of what waits is read; a quarter more comes. */
		perf_read_until(t - quarter / 2, record_order, NULL, 0, &next);
		assert_int_equal(order_last, t - quarter / 2);
		for (i = 0; i < quarter + 1; i++, t++)
			ring_sample(m, t + 1, t + 1);
		perf_hold_crowded();
		assert_int_equal(unread(m), 0);
		if (round == 3)
			mem = perf_memory();
		else if (round > 3)
			assert_int_equal(perf_memory(), mem);
	}
	assert_true(perf_read_until(UINT64_MAX, record_order, NULL, 0, &next) > 0);
	assert_int_equal(order_n, t);
	assert_int_equal(order_last, t);
}

/* perf_read_stop from the callback: the record it was handed stays first
 * in its buffer, or in its held copy, its time in *next, and comes again
 * at the next read, once; nothing after it is read before. */
static uint64_t		 stop_at;	/* the tag to stop at, once */

static void
record_stop(const union record *rec, size_t size, uint64_t time)
{
	if (((const struct record_daemon_sample *)rec)->ip == stop_at) {
		stop_at = 0;
		perf_read_stop();
		return;
	}
	record_order(rec, size, time);
}

static void
test_read_stop(void **state)
{
	struct map *m;
	uint64_t next;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	m = &maps[1];
	ring_sample(m, 100, 1);
	ring_sample(m, 200, 2);
	ring_sample(m, 300, 3);
	order_last = 0;
	order_n = 0;
	stop_at = 2;
	assert_int_equal(perf_read_until(UINT64_MAX, record_stop, NULL, 0, &next), 1);
	assert_int_equal(next, 200);
	assert_int_equal(unread(m), 2 * sizeof(struct record_daemon_sample));
	/* Held, the same. */
	perf_hold();
	assert_int_equal(unread(m), 0);
	stop_at = 3;
	assert_int_equal(perf_read_until(UINT64_MAX, record_stop, NULL, 0, &next), 1);
	assert_int_equal(next, 300);
	assert_int_equal(order_last, 200);
	ring_sample(m, 400, 4);
	assert_int_equal(perf_read_until(UINT64_MAX, record_stop, NULL, 0, &next), 2);
	assert_int_equal(order_n, 4);
	assert_int_equal(order_last, 400);
	assert_int_equal(unread(m), 0);
}

/* The look-ahead: ahead sees each record cb gets, at the same address and
 * dist / 2 to dist records before it; never one stamped after until, nor
 * one that wraps, and goes on after it. */
static const void	*ahead_at[8];
static size_t		 nahead, ahead_when[8];

static void
record_ahead(const union record *rec, size_t size)
{
	(void)size;
	assert_true(nahead < 8);
	ahead_when[nahead] = ninplace;	/* records cb had then */
	ahead_at[nahead++] = rec;
}

static void
test_read_ahead(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;
	struct map *m;
	struct perf_event_mmap_page *pg;
	uint64_t start, next;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0", err, sizeof(err)), 0);
	m = &maps[1];
	pg = m->base;
	for (i = 0; i < 8; i++)
		ring_sample(m, 100 + i, i);
	ninplace = nrecords = nahead = 0;
	assert_int_equal(perf_read_until(106, record_where, record_ahead, 4, &next), 7);
	assert_int_equal(next, 107);
	/* Samples 100 - 106 seen ahead, 107 (after until) not. */
	assert_int_equal(nahead, 7);
	for (i = 0; i < 7; i++) {
		assert_ptr_equal(ahead_at[i], inplace_at[i]);
		/* Record i seen 2 to 4 records before cb gets it. */
		assert_true(i - ahead_when[i] <= 4);
		assert_true(i < 2 || i - ahead_when[i] >= 2);
	}
	/* In runs: 0 - 4 at once, then 5 and 6 once cb has had 3. */
	assert_int_equal(ahead_when[4], 0);
	assert_int_equal(ahead_when[5], 3);
	assert_int_equal(ahead_when[6], 3);
	/* The wrapped record is not shown ahead; the one after it is. */
	assert_int_equal(perf_read_until(UINT64_MAX, record_where, NULL, 0, &next), 1);
	start = (m->len - page) - 2 * sizeof(struct record_daemon_sample) + 8;
	pg->data_tail = pg->data_head = start;
	ring_sample(m, 200, 1);
	ring_sample(m, 201, 2);
	ring_sample(m, 202, 3);
	ninplace = nahead = 0;
	assert_int_equal(perf_read_until(UINT64_MAX, record_where, record_ahead, 4, &next), 3);
	assert_int_equal(nahead, 2);
	assert_ptr_equal(ahead_at[0], inplace_at[0]);
	assert_false(in_map(m, inplace_at[1]));
	assert_ptr_equal(ahead_at[1], inplace_at[2]);
}

/* Old samples of two CPUs processed in place, nothing copied; the wrap
 * around the end of a buffer too. */
static void
test_core_in_place(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct map *m0, *m1;
	uint64_t old = perf_now() - 1000000000ull;
	char err[512];

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	m0 = &maps[2];		/* after the two CPUs' sideband buffers */
	m1 = &maps[3];
	((struct perf_event_mmap_page *)m1->base)->data_tail =
	    ((struct perf_event_mmap_page *)m1->base)->data_head = (m1->len - page) - 40;
	ring_sample(m0, old + 10, 1);
	ring_sample(m1, old + 20, 2);	/* wraps */
	ring_sample(m0, old + 30, 3);
	ring_sample(m1, old + 40, 4);
	core_process(0);
	assert_int_equal(nsteps, 4);
	assert_int_equal(core_samples(), 4);
	assert_int_equal(npushed, 0);
	assert_int_equal(order_memory(), 0);
	assert_int_equal(unread(m0), 0);
	assert_int_equal(unread(m1), 0);
	perf_fini();
}

/* The sideband orders the samples of every CPU: those before an EXIT
 * (on another CPU) before it, those after it after it; a sample stamped
 * after the safe time waits in its buffer, behind an EXIT queued before
 * it, and comes after that EXIT at the next processing. */
static void
test_core_waits_behind_sideband(void **state)
{
	uint64_t old = perf_now() - 1000000000ull, later = perf_now() + 3600000000000ull;
	struct map *sb1, *m0, *m1;
	char err[512];
	size_t i;

	(void)state;
	assert_int_equal(perf_init(cpu_clock, 1, "0-1", err, sizeof(err)), 0);
	sb1 = &maps[1];
	m0 = &maps[2];
	m1 = &maps[3];
	ring_sample(m0, old + 10, 1);
	ring_sample(m0, old + 30, 3);
	ring_sample(m0, later + 20, 6);		/* after the safe time */
	ring_sample(m1, old + 15, 2);
	ring_sample(m1, old + 40, 4);
	ring_exit(sb1, old + 20, 100);
	ring_exit(sb1, old + 35, 101);
	ring_exit(sb1, later + 10, 102);	/* after the safe time */
	core_process(0);
	/* Samples 1 and 2 (either order), EXIT 100, 3, EXIT 101, 4. */
	assert_int_equal(nsteps, 6);
	assert_true(step_is(0, 'S', 1) ? step_is(1, 'S', 2) :
	    step_is(0, 'S', 2) && step_is(1, 'S', 1));
	assert_true(step_is(2, 'E', 100) && step_is(3, 'S', 3) &&
	    step_is(4, 'E', 101) && step_is(5, 'S', 4));
	/* Only the sideband was copied; the late EXIT is still queued, the
	 * late sample still in its buffer. */
	assert_int_equal(npushed, 3);
	assert_int_equal(order_queued(), 1);
	assert_int_equal(unread(m0), sizeof(struct record_daemon_sample));
	/* At the end (all): EXIT 102, then sample 6. */
	core_process(1);
	assert_int_equal(nsteps, 8);
	assert_true(step_is(6, 'E', 102) && step_is(7, 'S', 6));
	assert_int_equal(npushed, 3);
	assert_int_equal(order_queued(), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(unread(&maps[i]), 0);
	perf_fini();
}

/* The index in maps[] of the buffer of open call i (one mmap each). */
static size_t
map_of_open(size_t i)
{
	return i;
}

/*
 * CPU hotplug: of the machine's CPUs 0-2 (3 possible, not present), 2 is
 * offline at the start and comes online later (opened then); 1 goes offline (its events' time
 * stands still) and comes back, when its events are opened anew in their
 * slots, once its buffer is read to its end, and the old ids no longer
 * name an event.
 */
static void
test_hotplug(void **state)
{
	char err[512];
	size_t i, n;
	uint64_t old_sb, old_ev;

	(void)state;
	mock_possible = "0-3";
	mock_present = "0-2";
	mock_online = "0-1";
	assert_int_equal(perf_init(cpu_clock, 1, NULL, err, sizeof(err)), 0);
	/* Sideband and cpu-clock on CPUs 0 and 1; 3, a slot for hot-add
	 * that holds no CPU, is not offline. */
	assert_int_equal(nopen, 4);
	assert_int_equal(perf_ncpus(), 2);
	assert_int_equal(perf_cpus_offline(), 1);
	perf_enable();
	assert_int_equal(nenable, 4);
	/* One read of time_enabled a CPU, not one a buffer: a read of an
	 * event active on another CPU is a cross-CPU call. */
	nreads = 0;
	perf_hotplug_check();
	assert_int_equal(nopen, 4);
	assert_int_equal(nreads, 2);

	/* CPU 2 comes online: its two events opened and enabled. */
	mock_online = "0-2";
	perf_hotplug_check();
	assert_int_equal(nopen, 6);
	assert_int_equal(opened_cpu[4], 2);
	assert_int_equal(opened_cpu[5], 2);
	assert_int_equal(opened[4].config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(opened[5].config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(opened[5].read_format, PERF_FORMAT_TOTAL_TIME_ENABLED);
	assert_int_equal(nenable, 6);
	assert_int_equal(perf_ncpus(), 3);
	assert_int_equal(perf_cpus_offline(), 0);
	assert_int_equal(perf_cpus_hotplugged(), 1);
	assert_int_equal(perf_event_of_id(maps[map_of_open(5)].id), 0);
	assert_int_equal(perf_id_is_sideband(maps[map_of_open(4)].id), 1);

	/* CPU 1 goes offline: its events stop (open calls 1 and 3). */
	mock_online = "0,2";
	stopped_fd[nstopped++] = maps[map_of_open(1)].fd;
	stopped_fd[nstopped++] = maps[map_of_open(3)].fd;
	perf_hotplug_check();
	perf_hotplug_check();
	assert_int_equal(nopen, 6);
	assert_int_equal(perf_ncpus(), 2);
	assert_int_equal(perf_cpus_offline(), 1);

	/* Back online, a sample still unread in its cpu-clock buffer: the
	 * sideband's event is opened again, the other waits for its read. */
	ring_sample(&maps[map_of_open(3)], 100, 0x1234);
	mock_online = "0-2";
	perf_hotplug_check();
	assert_int_equal(nopen, 7);
	assert_int_equal(opened_cpu[6], 1);
	assert_int_equal(opened[6].config, PERF_COUNT_SW_DUMMY);
	old_sb = maps[map_of_open(1)].id;
	assert_int_equal(perf_id_is_sideband(old_sb), 0);
	assert_int_equal(perf_id_is_sideband(maps[map_of_open(6)].id), 1);
	nrecords = 0;
	perf_drain();
	assert_int_equal(nrecords, 1);
	perf_hotplug_check();
	assert_int_equal(nopen, 8);
	assert_int_equal(opened_cpu[7], 1);
	assert_int_equal(opened[7].config, PERF_COUNT_SW_CPU_CLOCK);
	old_ev = maps[map_of_open(3)].id;
	assert_int_equal(perf_event_of_id(old_ev), -1);
	assert_int_equal(perf_event_of_id(maps[map_of_open(7)].id), 0);
	assert_int_equal(nenable, 8);
	assert_int_equal(perf_ncpus(), 3);
	assert_int_equal(perf_cpus_hotplugged(), 2);
	/* The old buffers are unmapped: 8 mapped, 2 given back. */
	for (i = 0, n = 0; i < nmmap; i++)
		n += maps[i].base != NULL;
	assert_int_equal(n, 6);
	/* Nothing more to do. */
	perf_hotplug_check();
	assert_int_equal(nopen, 8);
}

/* A kernel whose possible CPUs run past dcpid's MAX_CPUS starts all the
 * same (those CPUs are not sampled); a list given past it is refused. */
static void
test_hotplug_many_possible(void **state)
{
	char err[512];

	(void)state;
	mock_possible = "0-99999";
	mock_present = "0-1";
	mock_online = "0-1";
	assert_int_equal(perf_init(cpu_clock, 1, NULL, err, sizeof(err)), 0);
	assert_int_equal(nopen, 4);
	assert_int_equal(perf_ncpus(), 2);
	assert_int_equal(perf_cpus_offline(), 0);
	perf_fini();
	assert_int_equal(perf_init(cpu_clock, 1, "0,99999", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad CPU list"));
}

/* Sampling off (a reload, the exit): no event is taken for stopped. */
static void
test_hotplug_not_sampling(void **state)
{
	char err[512];

	(void)state;
	mock_possible = "0-1";
	mock_online = "0-1";
	assert_int_equal(perf_init(cpu_clock, 1, NULL, err, sizeof(err)), 0);
	assert_int_equal(nopen, 4);
	stopped_fd[nstopped++] = maps[1].fd;
	perf_hotplug_check();
	perf_hotplug_check();
	assert_int_equal(nopen, 4);
	/* No CPU online of those asked for. */
	perf_fini();
	mock_online = "0";
	assert_int_equal(perf_init(cpu_clock, 1, "2-3", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no CPU of 2-3 is online"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_each_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hotplug, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hotplug_not_sampling, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hotplug_many_possible, setup, teardown),
		cmocka_unit_test(test_jitter_draws),
		cmocka_unit_test_setup_teardown(test_jitter_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jitter_hw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jitter_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jitter_refused_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sideband_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_id_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eacces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eperm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_einval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_memlock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_memlock_floor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hold_crowded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jitter_chain_twin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_core_in_place, setup_core, teardown_core),
		cmocka_unit_test_setup_teardown(test_core_waits_behind_sideband, setup_core,
		    teardown_core),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
