/*
 * dcpid: samples every CPU with perf_event_open, attributes each sample to
 * its image and keeps the epoch's profile database up to date.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include <dcpi/ctl.h>
#include <dcpi/db.h>

#include "attr.h"
#include "cache.h"
#include "callchain.h"
#include "conf.h"
#include "labeler.h"
#include "control.h"
#include "bpfagg.h"
#include "core.h"
#include "fsio.h"
#include "flush.h"
#include "jit.h"
#include "log.h"
#include "loop.h"
#include "perf.h"
#include "status.h"
#include "util.h"
#include "xmalloc.h"

/* The tick: on the ring path the samples wait in the buffers for it (or
 * for a buffer a quarter full).  With aggregate = bpf the kernel counts
 * them and the buffers carry the sideband and the few samples the program
 * passes on: there the wake-up itself is half of dcpid's own CPU at a 1 s
 * tick (bench/bpf_cost.sh), and one every 5 s halves it. */
#define TICK_MS		1000
#define TICK_BPF_MS	5000

/* Exit statuses of a start that cannot succeed until an administrator acts
 * (dcpid(8) EXIT STATUS): the unit's RestartPreventExitStatus= lists them,
 * so systemd does not retry such a start every RestartSec= for ever. */
#define EXIT_NOPERM	77	/* sysexits' EX_NOPERM: perf_event_open refused */
#define EXIT_CONFIG	78	/* EX_CONFIG: the configuration or an event */
#define STATUS_MS	5000	/* between STATUS= notifications */

static volatile sig_atomic_t sig_quit, sig_hup;

/* The command line as config keys, applied again over the file on SIGHUP. */
#define MAX_SETTINGS	(CONF_MAX_EVENTS + 16)
struct cmdline {
	const char	*key[MAX_SETTINGS];
	const char	*value[MAX_SETTINGS];
	size_t		 n;
	char		*config;
	int		 verbose;
	int		 foreground;
	int		 check;
};

static void
setting(struct cmdline *cl, const char *key, const char *value)
{
	if (cl->n == MAX_SETTINGS)
		fatalx("too many options");
	cl->key[cl->n] = key;
	cl->value[cl->n++] = value;
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		sig_hup = 1;
	else
		sig_quit = 1;
}

static void
usage(FILE *fp)
{
	fprintf(fp,
	    "usage: dcpid [-f] [-e EVENT]... [-d DB] [--flush-interval S] [--socket PATH]\n"
	    "             [--cpus LIST] [-g] [--callchain auto|dwarf|fp|none]\n"
	    "             [--callchain-period Nx] [--label-by HOW]\n"
	    "             [--period-jitter PCT] [--aggregate auto|bpf|ring] [-v]\n"
	    "             [--config FILE] [--check-config]\n"
	    "             [--help] [--version]\n"
	    "  -e, --event EVENT      libpfm4 event to sample (repeatable; modifiers :u :k\n"
	    "                         :period=N); default cycles, else perf::cpu-clock\n"
	    "  -d, --db DB            profile database (default %s)\n"
	    "  --flush-interval S     seconds between flushes (default from the config)\n"
	    "  --socket PATH          control socket (default %s)\n"
	    "  --cpus LIST            CPUs to sample, e.g. 0-3,6 (default all, as they come online)\n"
	    "  -g, --callchains       sample call chains; --callchain auto\n"
	    "  --callchain HOW        call chains with each sample: dwarf (user frames\n"
	    "                         unwound from CFI), fp (frame pointers), auto (dwarf\n"
	    "                         where the kernel allows, else fp), none (default)\n"
	    "  --callchain-period Nx  call chains sampled at N times each event's period,\n"
	    "                         the flat profiles at the period (default 10x; 1x:\n"
	    "                         a chain with every sample)\n"
	    "  --label-by HOW         label samples by unit, cgroup or none (default unit)\n"
	    "  --period-jitter PCT    each sampling rate drawn uniformly within PCT%% of\n"
	    "                         the event's, 0 to 50 (default 0: fixed periods)\n"
	    "  --aggregate HOW        count samples in the kernel (bpf), through the ring\n"
	    "                         buffers (ring, default), or bpf where it loads (auto)\n"
	    "  -f, --foreground       log to stderr without sd-daemon priority prefixes\n"
	    "  -v, --verbose          more messages (twice: debug)\n"
	    "  --config FILE          configuration file (default %s)\n"
	    "  --check-config         print the effective configuration and exit\n",
	    DCPI_DB_DEFAULT, DCPI_CTL_SOCKET_DEFAULT, CONF_DEFAULT_PATH);
}

static void
parse_args(int argc, char **argv, struct cmdline *cl)
{
	/* Options that set a key are conf_keys' own, numbered O_KEY + its
	 * index unless they have a letter; they follow --foreground, so that
	 * getopt lists an ambiguous abbreviation's candidates in the order
	 * of --help. */
	enum { O_CONFIG = 256, O_CHECK, O_VERSION, O_KEY };
	static const struct option fixed[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "callchains", no_argument, NULL, 'g' },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "check-config", no_argument, NULL, O_CHECK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
	};
	struct option opts[sizeof(fixed) / sizeof(fixed[0]) + MAX_SETTINGS + 1];
	char optstring[2 * MAX_SETTINGS + 8] = "fvgh";
	const struct conf_key *k;
	size_t n = 1, len = strlen(optstring);
	int ch;

	opts[0] = fixed[0];
	for (k = conf_keys; k->name != NULL; k++) {
		if (k->longopt == NULL)
			continue;
		opts[n++] = (struct option){ k->longopt, required_argument,
		    NULL, k->shortopt ? k->shortopt : O_KEY + (int)(k - conf_keys) };
		if (k->shortopt) {
			optstring[len++] = (char)k->shortopt;
			optstring[len++] = ':';
		}
	}
	optstring[len] = '\0';
	memcpy(&opts[n], &fixed[1], sizeof(fixed) - sizeof(fixed[0]));
	n += sizeof(fixed) / sizeof(fixed[0]) - 1;
	memset(&opts[n], 0, sizeof(opts[n]));

	memset(cl, 0, sizeof(*cl));
	while ((ch = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			cl->foreground = 1;
			break;
		case 'v':
			cl->verbose++;
			break;
		case 'g':		/* as perf record -g, with the best route */
			setting(cl, "callchain", "auto");
			break;
		case O_CONFIG:
			cl->config = optarg;
			break;
		case O_CHECK:
			cl->check = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("dcpid %s\n", PACKAGE_VERSION);
			exit(0);
		default:
			for (k = conf_keys; k->name != NULL; k++)
				if (k->longopt != NULL && ch == (k->shortopt ?
				    k->shortopt : O_KEY + (int)(k - conf_keys)))
					break;
			if (k->name == NULL) {
				usage(stderr);
				exit(1);
			}
			setting(cl, k->name, optarg);
			break;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "dcpid: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		exit(1);
	}
}

/* Defaults, then the file, then the command line.  -1 with err set. */
static int
load_config(struct conf *c, const struct cmdline *cl, char *err, size_t errlen)
{
	char v[16];
	size_t i;

	conf_defaults(c);
	if (conf_load(c, cl->config ? cl->config : CONF_DEFAULT_PATH,
	    cl->config == NULL, err, errlen) == -1)
		goto fail;
	for (i = 0; i < cl->n; i++)
		if (conf_set(c, cl->key[i], cl->value[i], err, errlen) == -1)
			goto fail;
	if (cl->verbose) {
		snprintf(v, sizeof(v), "%d", cl->verbose);
		if (conf_set(c, "verbose", v, err, errlen) == -1)
			goto fail;
	}
	return 0;
fail:
	conf_free(c);
	return -1;
}

static int
same_events(const struct conf *a, const struct conf *b)
{
	size_t i;

	if (a->nevents != b->nevents)
		return 0;
	for (i = 0; i < a->nevents; i++)
		if (strcmp(a->events[i], b->events[i]) != 0)
			return 0;
	return 1;
}

static void
log_jitter(void)
{
	if (perf_jitter() > 0)
		log_notice("period jitter %u%%: the periods above are means, each "
		    "drawn anew about once a second", perf_jitter());
}

/* The call chains' route: dwarf (the kernel's frames, and the user's
 * unwound here from a copy of the user stack) where asked for and the
 * kernel samples user stacks, else frame pointers; none without chains. */
static void
set_callchain(const struct conf *c)
{
	unsigned depth = c->callchain == CONF_CALLCHAIN_NONE ? 0 : c->callchain_depth;
	unsigned stack = 0;
	char err[256];

	if (c->callchain == CONF_CALLCHAIN_DWARF || c->callchain == CONF_CALLCHAIN_AUTO) {
		if (perf_callchain_dwarf_probe(c->callchain_stack, err, sizeof(err)) == 0)
			stack = c->callchain_stack;
		else if (c->callchain == CONF_CALLCHAIN_DWARF)
			log_warnx("callchain = dwarf: %s; unwinding frame pointers "
			    "instead", err);
		else
			log_notice("call chains by frame pointers: %s", err);
	}
	perf_set_callchain_period(c->callchain_period);
	depth = perf_set_callchain(depth, stack);
	callchain_set_route(depth, stack, c->unwind_memory);
	bpfagg_set_unwind_memory(c->unwind_memory, c->unwind_bpf_memory);
	callchain_set_split(perf_callchain_period() > 1);
	if (depth > 0 && stack > 0)
		log_notice("call chains: kernel frames from the kernel, user frames "
		    "unwound from %u bytes of user stack a sample (dwarf), %u frames",
		    stack, depth);
	else if (depth > 0)
		log_notice("call chains: frame pointers (fp), %u frames", depth);
	if (depth > 0 && perf_callchain_period() > 1)
		log_notice("call chains sampled at %ux each event's period, the flat "
		    "profiles at the period itself", perf_callchain_period());
}

static int
start_sampling(const struct conf *c, char *err, size_t errlen)
{
	set_callchain(c);
	perf_set_jitter(c->period_jitter);
	if (perf_init(c->events, c->nevents, c->cpus, err, errlen) == -1)
		return -1;
	if (core_start_aggregate(c->aggregate, c->callchain != CONF_CALLCHAIN_NONE,
	    err, errlen) == -1) {
		perf_fini();
		return -1;
	}
	perf_enable();
	/* After enabling, so that a mapping made during the scan is in the
	 * scan or in a record; the records meanwhile are held. */
	attr_scan_proc(perf_hold);
	return 0;
}

static void
set_jit_limits(const struct conf *c)
{
	struct jit_limits l = {
		c->jit.name_max, c->jit.memory, c->jit.user_memory,
		c->jit.process_memory, c->jit.symbols, c->jit.user_symbols,
		c->jit.process_symbols
	};

	jit_set_limits(&l);
}

/* SIGHUP or dcpictl reload: re-read the configuration; a new event set
 * restarts sampling after a flush, so the counts of the old events are on
 * disk.  0, or -1 with why the old configuration (or events) were kept in
 * msg[msglen], which is also logged. */
static int
reload(struct conf *c, const struct cmdline *cl, char *msg, size_t msglen)
{
	struct conf n;
	char err[1024];
	size_t i;

	if (load_config(&n, cl, err, sizeof(err)) == -1) {
		snprintf(msg, msglen, "%s; keeping the old configuration", err);
		log_warnx("reload: %s", msg);
		return -1;
	}
	if (strcmp(n.db, c->db) != 0 || strcmp(n.socket, c->socket) != 0)
		log_warnx("reload: changes of the database or socket take effect at restart");
	log_setverbose(n.verbose);
	c->flush_interval = n.flush_interval;
	c->memory_cap = n.memory_cap;
	core_set_memory_cap(c->memory_cap);
	c->cache_size = n.cache_size;
	cache_set_limit(c->cache_size);
	c->label_by = n.label_by;
	c->label_max = n.label_max;
	label_configure(c->label_by, c->label_max);
	c->unwind_memory = n.unwind_memory;
	callchain_set_unwind_memory(c->unwind_memory);
	/* The array's size at the walk's next load. */
	c->unwind_bpf_memory = n.unwind_bpf_memory;
	bpfagg_set_unwind_memory(c->unwind_memory, c->unwind_bpf_memory);
	c->jit = n.jit;
	set_jit_limits(c);
	if (!same_events(c, &n) || (n.cpus == NULL) != (c->cpus == NULL) ||
	    (n.cpus && strcmp(n.cpus, c->cpus) != 0) || n.callchain != c->callchain ||
	    n.callchain_depth != c->callchain_depth ||
	    n.callchain_stack != c->callchain_stack ||
	    n.callchain_period != c->callchain_period ||
	    n.period_jitter != c->period_jitter || n.aggregate != c->aggregate) {
		perf_disable();
		core_process(1);
		core_stop_aggregate();
		if (core_flush_run(err, sizeof(err)) == -1) {
			snprintf(msg, msglen, "%s; keeping the old events", err);
			log_warnx("reload: %s", msg);
			if (core_start_aggregate(c->aggregate, c->callchain !=
			    CONF_CALLCHAIN_NONE, err, sizeof(err)) == -1)
				fatalx("%s", err);
			perf_enable();
			conf_free(&n);
			return -1;
		}
		perf_fini();
		if (start_sampling(&n, err, sizeof(err)) == -1) {
			snprintf(msg, msglen, "%s; keeping the old events", err);
			log_warnx("reload: %s", msg);
			if (start_sampling(c, err, sizeof(err)) == -1)
				fatalx("%s", err);
			conf_free(&n);
			return -1;
		}
		for (i = 0; i < c->nevents; i++)
			free(c->events[i]);
		memcpy(c->events, n.events, sizeof(n.events));
		c->nevents = n.nevents;
		n.nevents = 0;
		free(c->cpus);
		c->cpus = n.cpus;
		n.cpus = NULL;
		c->callchain = n.callchain;
		c->callchain_depth = n.callchain_depth;
		c->callchain_stack = n.callchain_stack;
		c->callchain_period = n.callchain_period;
		c->period_jitter = n.period_jitter;
		c->aggregate = n.aggregate;
		for (i = 0; i < perf_nevents(); i++)
			log_notice("sampling %s, period %ju", perf_event_name(i),
			    (uintmax_t)perf_event_period(i));
		log_jitter();
	}
	conf_free(&n);
	snprintf(msg, msglen, "configuration reloaded");
	log_notice("%s", msg);
	return 0;
}

/* The control socket's RELOAD (dcpictl reload, the unit's ExecReload=)
 * reaches reload() through these. */
static struct conf *running_config;
static const struct cmdline *running_cmdline;
static int reload_requested;

static int
control_reload(char *msg, size_t msglen)
{
	if (reload(running_config, running_cmdline, msg, msglen) == -1)
		return -1;
	reload_requested = 1;	/* the loop picks up the new flush interval */
	return 0;
}

/* The loop's timers: the tick (the drain, the rate, the memory cap and
 * the status line), the flush interval and the systemd watchdog. */
struct timers {
	struct loop_timer	*tick, *flush, *watchdog;
	const struct conf	*config;
	uint64_t		 watchdog_ms;
	uint64_t		 status_ms;	/* since the last STATUS= */
};

static uint64_t
tick_ms(void)
{
	return bpfagg_active() ? TICK_BPF_MS : TICK_MS;
}

static void
on_tick(struct loop_timer *t, void *arg)
{
	struct timers *tm = arg;
	char msg[512];
	uint64_t ms = tick_ms();

	loop_timer_set(t, ms);
	loop_timer_set_slack(t, ms / 2);
	core_process(0);
	/* Here, not on the sample path: the flush runs between waits. */
	if (core_over_cap())
		core_flush_over_cap(msg, sizeof(msg));
	core_tick();
	if ((tm->status_ms += ms) >= STATUS_MS) {
		tm->status_ms = 0;
		sd_notifyf(0, "STATUS=%.0f samples/s, %ju samples, epoch %s",
		    core_rate(), (uintmax_t)core_samples(), flush_epoch());
	}
}

static void
on_flush(struct loop_timer *t, void *arg)
{
	struct timers *tm = arg;
	char msg[512];

	core_process(0);
	core_flush_run(msg, sizeof(msg));
	loop_timer_set(t, (uint64_t)tm->config->flush_interval * 1000);
}

static void
on_watchdog(struct loop_timer *t, void *arg)
{
	struct timers *tm = arg;

	sd_notify(0, "WATCHDOG=1");
	loop_timer_set(t, tm->watchdog_ms);
}

/*
 * dcpid holds a perf fd per event and CPU and one per CPU for the
 * sideband, the file of every image sampled since the last flush (for the
 * build-id cache) and processes' roots for their JIT maps: on a host of 64
 * CPUs, past the soft limit of 1,024 that systemd leaves to programs that
 * need more to raise to the hard limit (dcpid uses no select()).
 */
#define NOFILE_MAX	((rlim_t)1 << 20)

static void
raise_nofile(void)
{
	struct rlimit r;
	rlim_t was;

	if (getrlimit(RLIMIT_NOFILE, &r) == -1 || r.rlim_cur >= r.rlim_max ||
	    r.rlim_cur >= NOFILE_MAX)
		return;
	was = r.rlim_cur;
	r.rlim_cur = r.rlim_max < NOFILE_MAX ? r.rlim_max : NOFILE_MAX;
	if (setrlimit(RLIMIT_NOFILE, &r) == -1)
		log_warn("raising the open files limit from %ju to %ju",
		    (uintmax_t)was, (uintmax_t)r.rlim_cur);
	else
		log_debug("open files limit raised from %ju to %ju",
		    (uintmax_t)was, (uintmax_t)r.rlim_cur);
}

int
main(int argc, char **argv)
{
	struct cmdline cl;
	struct conf c;
	struct control_ops ops;
	struct sigaction sa;
	sigset_t block, waitmask;
	char err[1024], msg[512];
	struct timers tm = { .config = &c };
	uint64_t watchdog_us = 0;
	gid_t gid = (gid_t)-1;
	size_t i;
	int rc = 0;
	unsigned held;

	/* A daemon that runs for months must give memory back after a burst
	 * (a storm of processes, a flood of records).  glibc raises its mmap
	 * threshold after the first large free, after which the big buffers
	 * (the ordering arenas) come from the heap and stay there; a fixed
	 * threshold keeps them in their own mappings, returned when freed. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	parse_args(argc, argv, &cl);
	log_init("dcpid", cl.verbose, !cl.foreground &&
	    (getenv("JOURNAL_STREAM") != NULL || getenv("NOTIFY_SOCKET") != NULL));
	if (load_config(&c, &cl, err, sizeof(err)) == -1) {
		if (cl.check) {
			fprintf(stderr, "dcpid: %s\n", err);
			return 1;
		}
		fatalx_status(EXIT_CONFIG, "%s", err);
	}
	log_setverbose(c.verbose);
	if (cl.check) {
		for (i = 0; i < c.nevents; i++)
			if (perf_check_event(c.events[i], err, sizeof(err)) == -1) {
				fprintf(stderr, "dcpid: %s\n", err);
				conf_free(&c);
				return 1;
			}
		conf_print(&c, stdout);
		conf_free(&c);
		return 0;
	}
	if (c.group != NULL) {
		struct group *gr = getgrnam(c.group);

		if (gr == NULL)
			fatalx_status(EXIT_CONFIG, "group %s: no such group "
			    "(systemd-sysusers creates it from sysusers.d/dcpi.conf)",
			    c.group);
		gid = gr->gr_gid;
	}

	/* Signals are blocked except while the loop waits, so the flags
	 * are only ever looked at between waits. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGHUP);

	raise_nofile();
	loop_init();
	/* The database first: its lock keeps a second dcpid from sampling. */
	/* The database's modes (dcpid.conf(5): 0750 and 0640, the group
	 * reads) must not depend on how dcpid was started. */
	umask(027);
	if (flush_init(c.db, gid, err, sizeof(err)) == -1)
		fatalx("%s", err);
	running_config = &c;
	running_cmdline = &cl;
	cache_set_limit(c.cache_size);
	fsio_init();
	if (attr_init() == -1)
		fatalx("attribution failed to start");
	label_init(c.label_by, c.label_max);
	core_init(c.memory_cap);
	set_jit_limits(&c);
	set_callchain(&c);
	perf_set_jitter(c.period_jitter);
	if (perf_init(c.events, c.nevents, c.cpus, err, sizeof(err)) == -1)
		fatalx_status(errno == EACCES || errno == EPERM ? EXIT_NOPERM :
		    errno == EINVAL || errno == ENOENT || errno == EOPNOTSUPP ||
		    errno == ENODEV ? EXIT_CONFIG : 1, "%s", err);
	if (core_start_aggregate(c.aggregate, c.callchain != CONF_CALLCHAIN_NONE,
	    err, sizeof(err)) == -1)
		fatalx_status(EXIT_CONFIG, "%s", err);
	ops = core_ops;
	ops.status = status_report;
	ops.reload = control_reload;
	if (control_init(c.socket, gid, &ops) == -1)
		fatalx("control socket %s could not be set up", c.socket);
	/* Only a start that will sample makes an epoch, so that an epoch's
	 * start time is when its sampling began. */
	if (flush_start(err, sizeof(err)) == -1)
		fatalx("%s", err);
	perf_enable();
	/* (The records that come meanwhile are held, not lost.) */
	attr_scan_proc(perf_hold);
	label_scan();
	for (i = 0; i < perf_nevents(); i++)
		log_notice("sampling %s, period %ju, on %zu CPUs", perf_event_name(i),
		    (uintmax_t)perf_event_period(i), perf_ncpus());
	log_jitter();
	log_notice("database %s, epoch %s, socket %s", c.db, flush_epoch(), c.socket);
	sd_notify(0, "READY=1\nSTATUS=sampling");
	/* Half the watchdog's interval, as sd_watchdog_enabled(3) advises;
	 * the first at once. */
	if (sd_watchdog_enabled(0, &watchdog_us) > 0 && watchdog_us > 0) {
		tm.watchdog_ms = watchdog_us / 2000;
		tm.watchdog = loop_timer_add(0, on_watchdog, &tm);
	}
	tm.tick = loop_timer_add(tick_ms(), on_tick, &tm);
	loop_timer_set_slack(tm.tick, tick_ms() / 2);
	tm.flush = loop_timer_add((uint64_t)c.flush_interval * 1000, on_flush, &tm);
	while (!sig_quit && !core_quit_requested) {
		loop_wait(-1, &waitmask);
		if (sig_quit || core_quit_requested)
			break;
		if (sig_hup) {
			sig_hup = 0;
			if (reload(&c, &cl, msg, sizeof(msg)) == 0)
				reload_requested = 1;
		}
		if (reload_requested) {
			reload_requested = 0;
			loop_timer_set(tm.flush, (uint64_t)c.flush_interval * 1000);
		}
	}
	loop_timer_del(tm.tick);
	loop_timer_del(tm.flush);
	loop_timer_del(tm.watchdog);

	sd_notify(0, "STOPPING=1\nSTATUS=flushing");
	log_notice("flushing and exiting");
	perf_disable();
	core_process(1);
	if (core_flush_run(msg, sizeof(msg)) == -1) {
		log_warnx("final %s", msg);
		rc = 1;
	}
	control_fini();
	core_stop_aggregate();
	perf_fini();
	core_fini();
	label_fini();
	attr_fini();
	held = fsio_held();
	fsio_fini();
	flush_fini();
	loop_fini();
	conf_free(&c);
	/* A helper held up in the kernel may never return: no atexit
	 * handler may wait for it (LeakSanitizer's stops every thread). */
	if (held > 0) {
		fflush(NULL);
		_exit(rc);
	}
	return rc;
}
