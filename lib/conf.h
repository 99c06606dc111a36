/*
 * dcpid's configuration: defaults, then /etc/dcpi/dcpid.conf (key = value
 * lines, '#' comments), then the command line.  Implemented in
 * lib/conf.c; dcpictl gc reads the retention keys with the same code.
 */
#ifndef DCPI_CONF_H
#define DCPI_CONF_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define CONF_DEFAULT_PATH	DCPI_SYSCONFDIR "/dcpi/dcpid.conf"
#define CONF_MAX_EVENTS	16
/* label-by: what a sample's label is taken from (daemon/cgroup.h's enum
 * cgroup_label_by has the same values). */
#define CONF_LABEL_BY_NONE	0
#define CONF_LABEL_BY_UNIT	1	/* systemd unit or container, else cgroup */
#define CONF_LABEL_BY_CGROUP	2	/* the cgroup path */
/* callchain: the stacks sampled with each PC. */
#define CONF_CALLCHAIN_NONE	0
#define CONF_CALLCHAIN_FP	1	/* frame pointers, kernel and user */
#define CONF_CALLCHAIN_DWARF	2	/* user frames unwound by dcpid from CFI */
#define CONF_CALLCHAIN_AUTO	3	/* dwarf where it works, else fp (-g) */
/* aggregate: where the samples are counted (daemon/bpfagg.h). */
#define CONF_AGGREGATE_AUTO	0	/* in the kernel (BPF) where it loads */
					/* (the default: RING) */
#define CONF_AGGREGATE_BPF	1	/* in the kernel, or dcpid does not start */
#define CONF_AGGREGATE_RING	2	/* every sample through the ring buffers */

struct conf {
	char		*events[CONF_MAX_EVENTS];	/* libpfm4 strings, malloc'd */
	size_t		 nevents;		/* 0: default (cycles, else cpu-clock) */
	char		*db;			/* database directory */
	char		*socket;		/* control socket path */
	char		*group;			/* control/database group name, or NULL */
	char		*cpus;			/* CPU list "0-3,6", or NULL: every CPU, as it comes online */
	unsigned	 flush_interval;	/* seconds */
	size_t		 memory_cap;		/* bytes of counts before an early flush */
	size_t		 cache_size;		/* bytes of the build-id cache, 0: no limit */
	unsigned	 keep_days;		/* retention for dcpictl gc */
	unsigned	 keep_min;
	unsigned	 verbose;
	unsigned	 label_by;		/* CONF_LABEL_BY_* */
	unsigned	 label_max;		/* labels per epoch before [other] */
	unsigned	 callchain;		/* CONF_CALLCHAIN_* */
	unsigned	 callchain_depth;	/* frames per sample, at most */
	unsigned	 callchain_stack;	/* bytes of user stack a sample (dwarf) */
	unsigned	 callchain_period;	/* times the event's period; 0, 1: every sample */
	size_t		 unwind_memory;		/* bytes of unwind tables, at most */
	size_t		 unwind_bpf_memory;	/* of them, the kernel walk's rows array */
	unsigned	 period_jitter;		/* percent of each period, 0: fixed */
	unsigned	 aggregate;		/* CONF_AGGREGATE_* */
	/* What JIT code may make dcpid hold (daemon/jit.h struct jit_limits). */
	struct conf_jit {
		unsigned	 name_max;	/* bytes of a symbol's name */
		unsigned	 symbols;	/* JIT symbols, all */
		unsigned	 user_symbols;	/* of one user */
		unsigned	 process_symbols; /* of one process's maps */
		size_t		 memory;	/* bytes of JIT symbols, all */
		size_t		 user_memory;
		size_t		 process_memory;
	}		 jit;
	/* Set by conf_defaults and after conf_load: the next "event"
	 * starts a new list, so that the command line's events replace the
	 * file's and a file's replace the defaults rather than add to them. */
	int		 events_replace;
};

/* One key: its name in the file, the dcpid option that sets it, and its
 * parser and printer, most of them shared by keys of one kind through off,
 * max, expected and unset.  conf_keys ends with a NULL name. */
struct conf_key {
	const char	*name;
	const char	*longopt;	/* dcpid's --option, or NULL: file only */
	int		 shortopt;	/* its one-letter form, or 0 */
	int		(*set)(const struct conf_key *, struct conf *,
			    const char *, char *, size_t);
	void		(*print)(const struct conf_key *,
			    const struct conf *, FILE *);
	size_t		 off;		/* its field in struct conf */
	unsigned long long max;		/* largest number taken */
	const char	*expected;	/* "KEY: expected EXPECTED, got 'VALUE'" */
	const char	*unset;		/* "# KEY: UNSET" printed for no value */
};
extern const struct conf_key conf_keys[];

/* Fills c with the built-in defaults (strings malloc'd). */
void conf_defaults(struct conf *c);
/* Reads path into c, overriding what it sets.  Returns 0; -1 with a message
 * "PATH:LINE: what was expected" in err[errlen] on a bad line or an
 * unreadable file; a missing file is 0 when missing_ok. */
int conf_load(struct conf *c, const char *path, int missing_ok, char *err, size_t errlen);
/* Sets one key from its text (shared by the file and the command line);
 * -1 with a message in err. */
int conf_set(struct conf *c, const char *key, const char *value, char *err, size_t errlen);
/* Prints the effective configuration in the file's own syntax. */
void conf_print(const struct conf *c, FILE *fp);
void conf_free(struct conf *c);

#endif
