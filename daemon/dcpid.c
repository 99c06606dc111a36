/*
 * dcpid: samples every CPU with perf_event_open, attributes each sample to
 * its image and keeps the epoch's profile database up to date.
 */
#include "config.h"

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
#include "conf.h"
#include "control.h"
#include "core.h"
#include "flush.h"
#include "log.h"
#include "loop.h"
#include "perf.h"
#include "util.h"
#include "xmalloc.h"

#define TICK_MS		1000
#define STATUS_EVERY	5	/* ticks between STATUS= notifications */

static volatile sig_atomic_t sig_quit, sig_hup;

/* The command line as config keys, applied again over the file on SIGHUP. */
#define MAX_SETTINGS	(CONFIG_MAX_EVENTS + 16)
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
	    "             [--cpus LIST] [-v] [--config FILE] [--check-config]\n"
	    "             [--help] [--version]\n"
	    "  -e, --event EVENT      libpfm4 event to sample (repeatable; modifiers :u :k\n"
	    "                         :period=N); default cycles, else perf::cpu-clock\n"
	    "  -d, --db DB            profile database (default %s)\n"
	    "  --flush-interval S     seconds between flushes (default from the config)\n"
	    "  --socket PATH          control socket (default %s)\n"
	    "  --cpus LIST            CPUs to sample, e.g. 0-3,6 (default all online)\n"
	    "  -f, --foreground       log to stderr without sd-daemon priority prefixes\n"
	    "  -v, --verbose          more messages (twice: debug)\n"
	    "  --config FILE          configuration file (default %s)\n"
	    "  --check-config         print the effective configuration and exit\n",
	    DCPI_DB_DEFAULT, DCPI_CTL_SOCKET_DEFAULT, CONFIG_DEFAULT_PATH);
}

static void
parse_args(int argc, char **argv, struct cmdline *cl)
{
	/* Options that set a key are config_keys' own, numbered O_KEY + its
	 * index unless they have a letter; they follow --foreground, so that
	 * getopt lists an ambiguous abbreviation's candidates in the order
	 * of --help. */
	enum { O_CONFIG = 256, O_CHECK, O_VERSION, O_KEY };
	static const struct option fixed[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "check-config", no_argument, NULL, O_CHECK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
	};
	struct option opts[sizeof(fixed) / sizeof(fixed[0]) + MAX_SETTINGS + 1];
	char optstring[2 * MAX_SETTINGS + 8] = "fvh";
	const struct config_key *k;
	size_t n = 1, len = strlen(optstring);
	int ch;

	opts[0] = fixed[0];
	for (k = config_keys; k->name != NULL; k++) {
		if (k->longopt == NULL)
			continue;
		opts[n++] = (struct option){ k->longopt, required_argument,
		    NULL, k->shortopt ? k->shortopt : O_KEY + (int)(k - config_keys) };
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
			for (k = config_keys; k->name != NULL; k++)
				if (k->longopt != NULL && ch == (k->shortopt ?
				    k->shortopt : O_KEY + (int)(k - config_keys)))
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
load_config(struct config *c, const struct cmdline *cl, char *err, size_t errlen)
{
	char v[16];
	size_t i;

	config_defaults(c);
	if (config_load(c, cl->config ? cl->config : CONFIG_DEFAULT_PATH,
	    cl->config == NULL, err, errlen) == -1)
		goto fail;
	for (i = 0; i < cl->n; i++)
		if (config_set(c, cl->key[i], cl->value[i], err, errlen) == -1)
			goto fail;
	if (cl->verbose) {
		snprintf(v, sizeof(v), "%d", cl->verbose);
		if (config_set(c, "verbose", v, err, errlen) == -1)
			goto fail;
	}
	return 0;
fail:
	config_free(c);
	return -1;
}

static int
same_events(const struct config *a, const struct config *b)
{
	size_t i;

	if (a->nevents != b->nevents)
		return 0;
	for (i = 0; i < a->nevents; i++)
		if (strcmp(a->events[i], b->events[i]) != 0)
			return 0;
	return 1;
}

static int
start_sampling(const struct config *c, char *err, size_t errlen)
{
	if (perf_init(c->events, c->nevents, c->cpus, core_record, err, errlen) == -1)
		return -1;
	perf_enable();
	/* After enabling, so that a mapping made during the scan is in the
	 * scan or in a record. */
	attr_scan_proc();
	return 0;
}

/* SIGHUP: re-read the configuration; a new event set restarts sampling
 * after a flush, so the counts of the old events are on disk. */
static void
reload(struct config *c, const struct cmdline *cl)
{
	struct config n;
	char err[1024], msg[512];
	size_t i;

	if (load_config(&n, cl, err, sizeof(err)) == -1) {
		log_warnx("SIGHUP: %s; keeping the old configuration", err);
		return;
	}
	if (strcmp(n.db, c->db) != 0 || strcmp(n.socket, c->socket) != 0)
		log_warnx("SIGHUP: changes of the database or socket take effect at restart");
	log_setverbose(n.verbose);
	c->flush_interval = n.flush_interval;
	c->memory_cap = n.memory_cap;
	core_set_memory_cap(c->memory_cap);
	c->cache_size = n.cache_size;
	cache_set_limit(c->cache_size);
	if (!same_events(c, &n) || (n.cpus == NULL) != (c->cpus == NULL) ||
	    (n.cpus && strcmp(n.cpus, c->cpus) != 0)) {
		perf_disable();
		core_process(1);
		if (flush_run(msg, sizeof(msg)) == -1) {
			log_warnx("SIGHUP: %s; keeping the old events", msg);
			perf_enable();
			config_free(&n);
			return;
		}
		perf_fini();
		if (start_sampling(&n, err, sizeof(err)) == -1) {
			log_warnx("SIGHUP: %s; keeping the old events", err);
			if (start_sampling(c, err, sizeof(err)) == -1)
				fatalx("%s", err);
			config_free(&n);
			return;
		}
		for (i = 0; i < c->nevents; i++)
			free(c->events[i]);
		memcpy(c->events, n.events, sizeof(n.events));
		c->nevents = n.nevents;
		n.nevents = 0;
		free(c->cpus);
		c->cpus = n.cpus;
		n.cpus = NULL;
		for (i = 0; i < perf_nevents(); i++)
			log_notice("sampling %s, period %ju", perf_event_name(i),
			    (uintmax_t)perf_event_period(i));
	}
	config_free(&n);
	log_notice("configuration reloaded");
}

int
main(int argc, char **argv)
{
	struct cmdline cl;
	struct config c;
	struct sigaction sa;
	sigset_t block, waitmask;
	char err[1024], msg[512];
	uint64_t watchdog_us = 0, next_tick, next_wd = UINT64_MAX, next_flush, now;
	unsigned ticks = 0;
	gid_t gid = (gid_t)-1;
	size_t i;
	int rc = 0;

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
		fatalx("%s", err);
	}
	log_setverbose(c.verbose);
	if (cl.check) {
		for (i = 0; i < c.nevents; i++)
			if (perf_check_event(c.events[i], err, sizeof(err)) == -1) {
				fprintf(stderr, "dcpid: %s\n", err);
				config_free(&c);
				return 1;
			}
		config_print(&c, stdout);
		config_free(&c);
		return 0;
	}
	if (c.group != NULL) {
		struct group *gr = getgrnam(c.group);

		if (gr == NULL)
			fatalx("group %s: no such group", c.group);
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

	loop_init();
	/* The database first: its lock keeps a second dcpid from sampling. */
	/* The database's modes (dcpid.conf(5): 0750 and 0640, the group
	 * reads) must not depend on how dcpid was started. */
	umask(027);
	if (flush_init(c.db, gid, err, sizeof(err)) == -1)
		fatalx("%s", err);
	cache_set_limit(c.cache_size);
	if (attr_init() == -1)
		fatalx("attribution failed to start");
	core_init(c.memory_cap);
	if (perf_init(c.events, c.nevents, c.cpus, core_record, err, sizeof(err)) == -1)
		fatalx("%s", err);
	if (control_init(c.socket, gid, &core_ops) == -1)
		fatalx("control socket %s could not be set up", c.socket);
	perf_enable();
	attr_scan_proc();
	for (i = 0; i < perf_nevents(); i++)
		log_notice("sampling %s, period %ju, on %zu CPUs", perf_event_name(i),
		    (uintmax_t)perf_event_period(i), perf_ncpus());
	log_notice("database %s, epoch %s, socket %s", c.db, flush_epoch(), c.socket);
	sd_notify(0, "READY=1\nSTATUS=sampling");
	if (sd_watchdog_enabled(0, &watchdog_us) > 0 && watchdog_us > 0)
		next_wd = now_ms();

	next_tick = now_ms() + TICK_MS;
	next_flush = now_ms() + (uint64_t)c.flush_interval * 1000;
	while (!sig_quit && !core_quit_requested) {
		uint64_t deadline = next_tick < next_wd ? next_tick : next_wd;

		now = now_ms();
		loop_wait(deadline > now ? (int)(deadline - now) : 0, &waitmask);
		if (sig_quit || core_quit_requested)
			break;
		if (sig_hup) {
			sig_hup = 0;
			reload(&c, &cl);
			next_flush = now_ms() + (uint64_t)c.flush_interval * 1000;
		}
		now = now_ms();
		if (now >= next_wd) {
			sd_notify(0, "WATCHDOG=1");
			next_wd = now + watchdog_us / 2000;
		}
		if (now < next_tick)
			continue;
		next_tick = now + TICK_MS;
		core_process(0);
		core_tick();
		if (++ticks % STATUS_EVERY == 0)
			sd_notifyf(0, "STATUS=%.0f samples/s, %ju samples, epoch %s",
			    core_rate(), (uintmax_t)core_samples(), flush_epoch());
		if (now >= next_flush) {
			flush_run(msg, sizeof(msg));
			next_flush = now + (uint64_t)c.flush_interval * 1000;
		}
	}

	sd_notify(0, "STOPPING=1\nSTATUS=flushing");
	log_notice("flushing and exiting");
	perf_disable();
	core_process(1);
	if (flush_run(msg, sizeof(msg)) == -1) {
		log_warnx("final %s", msg);
		rc = 1;
	}
	control_fini();
	perf_fini();
	core_fini();
	attr_fini();
	flush_fini();
	loop_fini();
	config_free(&c);
	return rc;
}
