/*
 * Opening the events: libpfm4's encodings of their names, perf_event_open
 * on each CPU (with the fall-backs older kernels need, and what a refusal
 * means), the ring buffers mapped, the sideband's dummy event, and the map
 * from a record's IDENTIFIER to its event.
 */
#include "config.h"

#include <sys/epoll.h>
#include <sys/mman.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "perf.h"
#include "perf_int.h"
#include "perf_sys.h"
#include "procstatus.h"
#include "record.h"
#include "xmalloc.h"

/* Told of each sampling fd opened again (perf_set_fd_cb). */
static void	(*fd_cb)(int oldfd, int newfd, int event);

/* Frames of the call chains sampled (0: none), bytes of user stack copied
 * a sample (0: the kernel walks frame pointers); perf_set_callchain. */
static unsigned	 callchain_depth, callchain_stack;
/* The chains' period as a multiple of their event's (0 or 1: the chains
 * come with every sample of the event); perf_set_callchain_period. */
static unsigned	 chain_mult;

/* Whether the chains are sampled by events of their own, beside the
 * dense ones that count the flat profiles. */
static int
split(void)
{
	return callchain_depth > 0 && chain_mult > 1;
}

#define RB_PAGES	128	/* data pages per buffer: 512 KiB with 4 KiB pages */
/* A stack copy makes a sample 8 KiB or more: twice the pages, so that a
 * buffer still holds a few dozen milliseconds of samples at its wake-up. */
#define RB_PAGES_STACK	(2 * RB_PAGES)

#if defined(__x86_64__)
/* What daemon/unwind.c reads: in the order of their bits, BP, SP, IP. */
#define UNWIND_REGS	((1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) | \
	(1ull << PERF_REG_X86_IP))
#else
#define UNWIND_REGS	0ull
#endif

/* The data pages of a buffer of samples with chains (chain: of the
 * sparse twin of an event). */
static size_t
rb_pages(int chain)
{
	return callchain_stack > 0 && (chain || !split()) ? RB_PAGES_STACK : RB_PAGES;
}

/* The attributes of a chain unwound by dcpid: the kernel's own frames in
 * the chain, the user's registers and stack for the unwinder. */
static void
user_stack_attr(struct perf_event_attr *a, unsigned stack)
{
	a->sample_regs_user = UNWIND_REGS;
	a->sample_stack_user = stack;
	a->exclude_callchain_user = 1;
}
/* The sideband's: 512 KiB.  It wakes dcpid at every record, but a loaded
 * host (compilers exec'ing beside a storm of cgroups, CI's sanitizer pass)
 * can keep dcpid off the CPU for a second, and a record lost here is an
 * image never mapped. */
#define SB_PAGES	128
/* The least a buffer is made when the locked-memory limit refuses more. */
#define RB_PAGES_MIN	8

struct idmap {
	uint64_t	id;
	size_t		event;
};

static struct idmap	*ids;
static struct perf_event_attr sb_attr;	/* the sideband's, as taken */
static size_t		 sb_pages;
static int		 pfm_ready;
static int		 memlock_said;	/* smaller buffers than asked, logged */
/* perf_event_of_id's last id looked up: a buffer read in place is a run
 * of samples of one id, and the bsearch was a twentieth of the sample
 * path.  Forgotten whenever the buffers change. */
static uint64_t		 last_id;
static int		 last_event = -2;	/* -2: none */

static int
encode(const char *name, struct perf_event_attr *a, char *err, size_t errlen)
{
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(a, 0, sizeof(*a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = a;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
	    PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "event %s: %s; try -e perf::cpu-clock",
		    name, pfm_strerror(ret));
		errno = EINVAL;
		return -1;
	}
	if (a->freq) {
		snprintf(err, errlen, "event %s: frequency mode gives no fixed "
		    "period for the profile; use :period=N", name);
		errno = EINVAL;
		return -1;
	}
	a->size = sizeof(*a);
	if (a->sample_period == 0) {
		if (a->type == PERF_TYPE_SOFTWARE &&
		    (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		    a->config == PERF_COUNT_SW_TASK_CLOCK))
			a->sample_period = PERF_PERIOD_CLOCK;
		else if (a->type == PERF_TYPE_SOFTWARE)
			a->sample_period = PERF_PERIOD_SW;
		else
			a->sample_period = PERF_PERIOD_HW;
	}
	/* No PERF_SAMPLE_PERIOD: the period is fixed, and with it the
	 * kernel samples software events such as page-faults at every
	 * occurrence whatever sample_period says (perf_swevent_event). */
	a->sample_type = record_daemon.sample_type;
	a->sample_id_all = RECORD_SAMPLE_ID_ALL;
	/* For perf_hotplug_check: a time that stops, an event taken off. */
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	a->exclude_guest = 1;
	if (callchain_depth > 0 && !split())
		a->sample_max_stack = (uint16_t)callchain_depth;
	if (callchain_stack > 0 && !split())
		user_stack_attr(a, callchain_stack);
	/* Monotonic timestamps can be compared with clock_gettime, which is
	 * how the ordering knows that no CPU still holds an older record. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(rb_pages(0) * (size_t)sysconf(_SC_PAGESIZE) / 4);
	return 0;
}

/* The sparse twin of the dense event a (as the kernel took it): the same
 * event at chain_mult times its period, with the call chain (and on the
 * dwarf route the user registers and stack); never the sideband. */
static void
chain_attr(const struct perf_event_attr *a, struct perf_event_attr *c)
{
	*c = *a;
	c->mmap = c->mmap2 = c->comm = c->comm_exec = c->task = 0;
	c->build_id = c->cgroup = 0;
	c->sample_type = record_chain.sample_type;
	c->sample_period = a->sample_period > UINT64_MAX / chain_mult ? UINT64_MAX :
	    a->sample_period * chain_mult;
	c->sample_max_stack = (uint16_t)callchain_depth;
	if (callchain_stack > 0)
		user_stack_attr(c, callchain_stack);
	c->wakeup_watermark = (uint32_t)(rb_pages(1) * (size_t)sysconf(_SC_PAGESIZE) / 4);
}

static const char *
paranoid(void)
{
	static char buf[32];
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	strcpy(buf, "?");
	if (fp != NULL) {
		if (fgets(buf, sizeof(buf), fp) != NULL)
			buf[strcspn(buf, "\n")] = '\0';
		fclose(fp);
	}
	return buf;
}

/* From /proc/self/status: whether a seccomp filter is installed (a
 * container's, or systemd's SystemCallFilter=), and whether the effective
 * capabilities include CAP_PERFMON or CAP_SYS_ADMIN.  A refusal despite the
 * capability is the filter's. */
static void
self_status(int *filtered, int *capable)
{
	struct procstatus me;

	*filtered = *capable = 0;
	if (procstatus_read(0, &me) == -1)
		return;
	*filtered = (me.have & PROCSTATUS_SECCOMP) && me.seccomp == 2;
	/* CAP_PERFMON is 38, CAP_SYS_ADMIN 21. */
	*capable = (me.have & PROCSTATUS_CAPEFF) &&
	    ((me.cap_eff >> 38 & 1) || (me.cap_eff >> 21 & 1));
}

static void
denied(const char *name, int cpu, int e, char *err, size_t errlen)
{
	int filtered, capable;

	self_status(&filtered, &capable);
	if (filtered && capable)
		snprintf(err, errlen, "event %s on CPU %d: %s: perf_event_open is "
		    "blocked by a seccomp filter (Seccomp: 2 in /proc/self/status): "
		    "allow the system call, e.g. systemd-nspawn "
		    "--system-call-filter=perf_event_open, docker --security-opt "
		    "seccomp=PROFILE, or SystemCallFilter=perf_event_open in the unit",
		    name, cpu, strerror(e));
	else
		snprintf(err, errlen, "event %s on CPU %d: %s: system-wide sampling "
		    "needs root or CAP_PERFMON, and /proc/sys/kernel/perf_event_paranoid "
		    "(now %s) low enough%s", name, cpu, strerror(e), paranoid(),
		    filtered ? "; a seccomp filter is also installed, which may "
		    "block perf_event_open" : "");
}

static int
open_one(const char *name, struct perf_event_attr *a, int cpu, char *err, size_t errlen)
{
	int fd, e;

	fd = perf_sys_open(a, cpu);
	if (fd == -1 && errno == EINVAL && a->build_id) {
		/* Kernels before 5.12 refuse build_id: the attribution then
		 * reads the build-id from the file. */
		log_info("kernel refuses build-ids in MMAP2 records; reading them from the files");
		a->build_id = 0;
		fd = perf_sys_open(a, cpu);
	}
	if (fd == -1 && errno == EINVAL && (a->sample_type & PERF_SAMPLE_CGROUP)) {
		int records = a->cgroup;

		/* Kernels before 5.7: the labels come from /proc/PID/cgroup,
		 * once per process and exec. */
		record_daemon_set_cgroup(0);
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_CGROUP;
		a->cgroup = 0;
		if ((fd = perf_sys_open(a, cpu)) != -1) {
			log_info("kernel refuses cgroup ids in samples; labels "
			    "are read from /proc/PID/cgroup");
		} else {
			/* Refused for another reason: as it was. */
			record_daemon_set_cgroup(1);
			a->sample_type |= PERF_SAMPLE_CGROUP;
			a->cgroup = records & 1;
			errno = EINVAL;
		}
	}
	if (fd != -1)
		return fd;
	switch ((e = errno)) {
	case EACCES:
	case EPERM:
		denied(name, cpu, e, err, errlen);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(err, errlen, "event %s on CPU %d: %s: not supported on this "
		    "machine (a virtual machine often has no PMU for hardware "
		    "events); try -e perf::cpu-clock", name, cpu, strerror(errno));
		break;
	default:
		snprintf(err, errlen, "event %s on CPU %d: perf_event_open: %s; "
		    "try -e perf::cpu-clock", name, cpu, strerror(errno));
	}
	errno = e;	/* dcpid's exit status tells refusals from the rest */
	return -1;
}

/* Closes the buffers from index first on (all when 0). */
void
perf_rbs_close(size_t first)
{
	size_t i;

	last_event = -2;
	for (i = first; i < perf.nrbs; i++) {
		if (perf.rbs[i].inloop)
			loop_del(perf.rbs[i].fd);
		perf_sys_munmap(perf.rbs[i].base, perf.rbs[i].mapsize);
		close(perf.rbs[i].fd);
		perf.held_total -= perf.rbs[i].nheld;
		free(perf.rbs[i].held);
	}
	perf.nrbs = first;
	if (perf.nrbs == 0) {
		free(perf.rbs);
		free(ids);
		perf.rbs = NULL;
		ids = NULL;
	}
}

static void
want_sideband(struct perf_event_attr *a)
{
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	a->build_id = 1;
	/* New cgroups' paths, for the labels of their samples. */
	a->cgroup = (record_daemon.sample_type & PERF_SAMPLE_CGROUP) != 0;
}

/* Opens r: event ev (SIDEBAND: not a sampling event, its records have
 * no event index) as a on cpu, with *pages data pages, halved (and said
 * once) while the locked-memory limit refuses them, down to RB_PAGES_MIN:
 * 0, or -1 with a message.  r is not in the loop yet. */
int
perf_rb_open(struct rb *r, const char *name, struct perf_event_attr *a,
    size_t ev, int chain, int cpu, size_t *pages, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t id;

	for (;;) {
		memset(r, 0, sizeof(*r));
		if ((r->fd = open_one(name, a, cpu, err, errlen)) == -1)
			return -1;
		r->cpu = cpu;
		r->event = ev;
		r->chain = chain;
		r->datasize = *pages * page;
		/* Samples only, in time order: read in place.  A buffer
		 * that carries the sideband too is copied into the queue
		 * at each wake-up, as the sideband's are: its MMAP2s are
		 * read at their arrival (core_record), and a sample
		 * written inside one (interrupt) can precede it. */
		r->inplace = ev != SIDEBAND && !perf.sideband_on_first;
		r->mapsize = r->datasize + page;
		r->base = perf_sys_mmap(r->fd, r->mapsize);
		if (r->base != MAP_FAILED)
			break;
		if (errno != EPERM || *pages <= RB_PAGES_MIN) {
			snprintf(err, errlen, "event %s on CPU %d: mmap of the ring buffer: %s",
			    name, r->cpu, strerror(errno));
			close(r->fd);
			return -1;
		}
		/* Over the locked-memory limit: smaller buffers, for this
		 * CPU and the next, said once. */
		if (!memlock_said)
			log_warnx("event %s on CPU %d: a ring buffer of %zu KiB "
			    "is over dcpid's locked-memory limit (RLIMIT_MEMLOCK "
			    "beyond kernel.perf_event_mlock_kb per CPU): smaller "
			    "buffers lose samples sooner; give dcpid "
			    "LimitMEMLOCK=infinity or CAP_IPC_LOCK", name,
			    r->cpu, r->datasize / 1024);
		memlock_said = 1;
		close(r->fd);
		*pages /= 2;
		if (a->watermark && a->wakeup_watermark > 1)
			a->wakeup_watermark = (uint32_t)(*pages * page / 4);
	}
	if (perf_sys_ioctl(r->fd, PERF_EVENT_IOC_ID, &id) == -1) {
		snprintf(err, errlen, "event %s: PERF_EVENT_IOC_ID: %s", name, strerror(errno));
		perf_sys_munmap(r->base, r->mapsize);
		close(r->fd);
		return -1;
	}
	r->id = id;
	return 0;
}

/* Opens a's buffers on every CPU of the list online now as event ev;
 * *pages: as perf_rb_open's, for all of them. */
static int
open_rbs(const char *name, struct perf_event_attr *a, size_t ev, int chain,
    size_t *pages, char *err, size_t errlen)
{
	size_t c, pages0 = *pages, last_pages = 0;
	int first = 1;

	perf.rbs = xreallocarray(perf.rbs, perf.nrbs + perf.ncpu, sizeof(*perf.rbs));
	for (c = 0; c < perf.ncpu; c++) {
		if (!perf.cpu_on[perf.cpulist[c]])
			continue;
		if (perf_rb_open(&perf.rbs[perf.nrbs], name, a, ev, chain, perf.cpulist[c],
		    pages, err, errlen) == -1)
			return -1;
		if (*pages < pages0 && (first || *pages != last_pages))
			log_notice("event %s on CPU %d: ring buffer of %zu KiB", name,
			    perf.cpulist[c], perf.rbs[perf.nrbs].datasize / 1024);
		last_pages = *pages;
		first = 0;
		perf.nrbs++;
	}
	return 0;
}

int
perf_open_event(const char *name, size_t ev, char *err, size_t errlen)
{
	struct perf_event_attr a;

	if (encode(name, &a, err, errlen) == -1)
		return -1;
	if (ev == 0 && perf.sideband_on_first)
		want_sideband(&a);
	perf.events = xreallocarray(perf.events, ev + 1, sizeof(*perf.events));
	perf.events[ev].name = xstrdup(name);
	perf.events[ev].period = a.sample_period;
	perf.events[ev].chain_period = a.sample_period;
	perf.events[ev].refused = 0;
	perf.events[ev].pages = rb_pages(0);
	perf.nevents = ev + 1;
	if (open_rbs(name, &a, ev, 0, &perf.events[ev].pages, err, errlen) == -1)
		return -1;
	perf.events[ev].attr = a;
	if (!split())
		return 0;
	chain_attr(&a, &perf.events[ev].chain_attr);
	perf.events[ev].chain_period = perf.events[ev].chain_attr.sample_period;
	perf.events[ev].chain_pages = rb_pages(1);
	return open_rbs(name, &perf.events[ev].chain_attr, ev, 1,
	    &perf.events[ev].chain_pages, err, errlen);
}

/*
 * The sideband (MMAP2, COMM, FORK, EXIT) in buffers of its own that wake
 * dcpid at every record: the files a process maps are read through
 * /proc/PID/map_files while it lives, which for a program that runs for a
 * millisecond in a chroot or another mount namespace is only just after
 * its exec.  The samples' buffers keep their large watermark.  Without the
 * dummy event (kernels before 3.12) the first event carries the sideband.
 */
int
perf_open_sideband(void)
{
	struct perf_event_attr a;
	char err[512];

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.sample_type = record_daemon.sample_type;
	a.sample_id_all = RECORD_SAMPLE_ID_ALL;
	/* It never samples, but the kernel checks the user stack's attributes
	 * of every sample_type that asks for them. */
	if (record_daemon.stack_user)
		user_stack_attr(&a, callchain_stack);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
	a.exclude_guest = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.disabled = 1;
	a.watermark = 1;
	a.wakeup_watermark = 1;
	want_sideband(&a);
	sb_pages = SB_PAGES;
	if (open_rbs("sideband (dummy)", &a, SIDEBAND, 0, &sb_pages, err, sizeof(err)) == 0) {
		sb_attr = a;
		return 0;
	}
	perf_rbs_close(0);
	log_notice("%s; the sampling event carries MMAP2, COMM, FORK and EXIT", err);
	perf.sideband_on_first = 1;
	return -1;
}

void
perf_events_free(void)
{
	size_t i;

	for (i = 0; i < perf.nevents; i++)
		free(perf.events[i].name);
	free(perf.events);
	perf.events = NULL;
	perf.nevents = 0;
}

static int cmp_id(const void *, const void *);

static int
pfm_init(char *err, size_t errlen)
{
	int ret;

	if (!pfm_ready) {
		if ((ret = pfm_initialize()) != PFM_SUCCESS) {
			snprintf(err, errlen, "libpfm4: %s", pfm_strerror(ret));
			return -1;
		}
		pfm_ready = 1;
	}
	return 0;
}

int
perf_check_event(const char *name, char *err, size_t errlen)
{
	struct perf_event_attr a;

	if (pfm_init(err, errlen) == -1)
		return -1;
	return encode(name, &a, err, errlen);
}

unsigned
perf_set_callchain(unsigned depth, unsigned stack)
{
	unsigned max = 127;
	FILE *fp;

	/* The kernel refuses more than kernel.perf_event_max_stack. */
	if (depth > 0 && (fp = fopen("/proc/sys/kernel/perf_event_max_stack", "re")) != NULL) {
		if (fscanf(fp, "%u", &max) != 1)
			max = 127;
		fclose(fp);
	}
	if (depth > max) {
		log_notice("callchain-depth %u is over kernel.perf_event_max_stack; "
		    "sampling %u frames", depth, max);
		depth = max;
	}
	callchain_depth = depth;
	callchain_stack = depth > 0 && UNWIND_REGS != 0 ? stack & ~7u : 0;
	record_daemon_set_split(split());
	record_daemon_set_callchain(depth > 0);
	record_daemon_set_user_stack(callchain_stack > 0 ? UNWIND_REGS : 0);
	return depth;
}

void
perf_set_callchain_period(unsigned mult)
{
	chain_mult = mult;
	record_daemon_set_split(split());
}

unsigned
perf_callchain_period(void)
{
	return split() ? chain_mult : 1;
}

int
perf_callchain_dwarf_probe(unsigned stack, char *err, size_t errlen)
{
	struct perf_event_attr a;
	int cpu, fd, e;

	if (UNWIND_REGS == 0) {
		snprintf(err, errlen, "dcpid unwinds user stacks on x86_64 only");
		errno = ENOTSUP;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = PERF_PERIOD_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
	    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.disabled = 1;
	user_stack_attr(&a, stack & ~7u);
	if ((cpu = sched_getcpu()) < 0)
		cpu = 0;
	if ((fd = perf_sys_open(&a, cpu)) == -1) {
		e = errno;
		snprintf(err, errlen, "the kernel refuses to sample user registers "
		    "and %u bytes of user stack: %s", stack, strerror(e));
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

/* Every sample looks its event up by id: the ids of rbs[0..nrbs), sorted. */
void
perf_ids_rebuild(void)
{
	size_t i;

	ids = xreallocarray(ids, perf.nrbs > 0 ? perf.nrbs : 1, sizeof(*ids));
	for (i = 0; i < perf.nrbs; i++)
		ids[i] = (struct idmap){ perf.rbs[i].id, perf.rbs[i].chain ?
		    perf.rbs[i].event | PERF_EVENT_CHAIN : perf.rbs[i].event };
	qsort(ids, perf.nrbs, sizeof(*ids), cmp_id);
	last_event = -2;
}

struct perf_event_attr *
perf_rb_attr(const struct rb *r, size_t *pages)
{
	if (r->event == SIDEBAND) {
		*pages = sb_pages;
		return &sb_attr;
	}
	if (r->chain) {
		*pages = perf.events[r->event].chain_pages;
		return &perf.events[r->event].chain_attr;
	}
	*pages = perf.events[r->event].pages;
	return &perf.events[r->event].attr;
}

static int
cmp_id(const void *a, const void *b)
{
	const struct idmap *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int
perf_event_of_id(uint64_t id)
{
	struct idmap key = { id, 0 }, *m;

	if (id == last_id && last_event != -2)
		return last_event;
	m = perf.nrbs > 0 ? bsearch(&key, ids, perf.nrbs, sizeof(*ids), cmp_id) : NULL;
	last_id = id;
	last_event = m ? (int)m->event : -1;
	return last_event;
}

int
perf_id_is_sideband(uint64_t id)
{
	struct idmap key = { id, 0 }, *m;

	/* No buffers (the tests' records without perf_init): ids is NULL,
	 * which bsearch must not be given. */
	if (perf.nrbs == 0)
		return 0;
	m = bsearch(&key, ids, perf.nrbs, sizeof(*ids), cmp_id);
	return m != NULL && m->event == SIDEBAND;
}

int
perf_open_init(char *err, size_t errlen)
{
	memlock_said = 0;
	return pfm_init(err, errlen);
}

void
perf_set_fd_cb(void (*cb)(int, int, int))
{
	fd_cb = cb;
}

void
perf_rb_start(struct rb *r, int oldfd)
{
	loop_add(r->fd, EPOLLIN, perf_rb_ready, r);
	r->inloop = 1;
	if (r->event != SIDEBAND && fd_cb != NULL)
		fd_cb(oldfd, r->fd, (int)(r->chain ? r->event | PERF_EVENT_CHAIN :
		    r->event));
	if (!perf.sampling)
		return;
	perf_jitter_first(r);
	if (perf_sys_ioctl(r->fd, PERF_EVENT_IOC_ENABLE, NULL) == -1)
		log_warn("CPU %d: enabling event %s", r->cpu, rb_name(r));
}
