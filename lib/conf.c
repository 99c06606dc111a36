/*
 * dcpid's configuration file: "key = value" lines, '#' comments, blank
 * lines.  conf_keys is the one list of keys: the file, dcpid's options
 * and the manual's test (from --check-config) all take it from there, so a
 * key cannot be known to one and missing from another.  conf_print()
 * writes the effective configuration back in the file's syntax, and what it
 * prints loads back to the same configuration.
 */
#include "config.h"


#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <perfmon/pfmlib_perf_event.h>

#include <dcpi/ctl.h>
#include <dcpi/db.h>

#include "conf.h"
#include "xmalloc.h"

#define DEFAULT_FLUSH_INTERVAL	600		/* seconds */
#define DEFAULT_MEMORY_CAP	(64UL << 20)	/* bytes */
#define DEFAULT_CACHE_SIZE	(512UL << 20)	/* bytes of the build-id cache */
#define DEFAULT_KEEP_DAYS	7		/* DCPI's default */
#define DEFAULT_KEEP_MIN	3
#define DEFAULT_LABEL_MAX	1000		/* labels per epoch */
#define DEFAULT_CALLCHAIN_DEPTH	64		/* frames */
/* A user stack copy that holds whole chains of most programs (python3's
 * deepest 1% needs more), at the price of its copy per sample. */
#define DEFAULT_CALLCHAIN_STACK	8192		/* bytes */
/* Call chains at a tenth of the samples' rate: 100 Hz a CPU at
 * cpu-clock's default 1 ms, the stack agents' rate, while the flat
 * profiles keep DCPI's density. */
#define DEFAULT_CALLCHAIN_PERIOD 10		/* times the event's period */
#define MAX_CALLCHAIN_STACK	65528		/* the kernel's: u16, 8-aligned */
#define DEFAULT_UNWIND_MEMORY	(64ull << 20)	/* bytes */
#define DEFAULT_UNWIND_BPF_MEMORY	(16ull << 20)	/* bytes: 2 Mi rows */
/* What any user's JIT code may make dcpid hold (daemon/jit.h has the
 * same, for its unit tests): 16 MiB in all, half of it for one user. */
#define DEFAULT_JIT_NAME_MAX	1024		/* bytes */
#define DEFAULT_JIT_MEMORY	(16ul << 20)	/* bytes */
#define DEFAULT_JIT_USER_MEMORY	(8ul << 20)
#define DEFAULT_JIT_PROCESS_MEMORY (4ul << 20)
#define DEFAULT_JIT_SYMBOLS	131072
#define DEFAULT_JIT_USER_SYMBOLS 65536
#define DEFAULT_JIT_PROCESS_SYMBOLS 32768
#define MAX_JIT_SYMBOLS		16777216
#define JIT_SYMBOLS		"a number of symbols, 1 to 16777216"
#define MIB_SIZE	"a number of bytes (optionally with K, M, G or T; at least 1M)"

static int
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void
free_events(struct conf *c)
{
	size_t i;

	for (i = 0; i < c->nevents; i++) {
		free(c->events[i]);
		c->events[i] = NULL;
	}
	c->nevents = 0;
}

void
conf_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->db = xstrdup(DCPI_DB_DEFAULT);
	c->socket = xstrdup(DCPI_CTL_SOCKET_DEFAULT);
	c->flush_interval = DEFAULT_FLUSH_INTERVAL;
	c->memory_cap = DEFAULT_MEMORY_CAP;
	c->cache_size = DEFAULT_CACHE_SIZE;
	c->keep_days = DEFAULT_KEEP_DAYS;
	c->keep_min = DEFAULT_KEEP_MIN;
	c->label_by = CONF_LABEL_BY_UNIT;
	c->label_max = DEFAULT_LABEL_MAX;
	c->callchain_depth = DEFAULT_CALLCHAIN_DEPTH;
	c->callchain_stack = DEFAULT_CALLCHAIN_STACK;
	c->callchain_period = DEFAULT_CALLCHAIN_PERIOD;
	c->unwind_memory = DEFAULT_UNWIND_MEMORY;
	c->unwind_bpf_memory = DEFAULT_UNWIND_BPF_MEMORY;
	c->jit.name_max = DEFAULT_JIT_NAME_MAX;
	c->jit.memory = DEFAULT_JIT_MEMORY;
	c->jit.user_memory = DEFAULT_JIT_USER_MEMORY;
	c->jit.process_memory = DEFAULT_JIT_PROCESS_MEMORY;
	c->jit.symbols = DEFAULT_JIT_SYMBOLS;
	c->jit.user_symbols = DEFAULT_JIT_USER_SYMBOLS;
	c->jit.process_symbols = DEFAULT_JIT_PROCESS_SYMBOLS;
	/* The ring buffers until in-kernel counting costs less: its program
	 * takes 1-2 us of the sampled CPU per sample (bench/README). */
	c->aggregate = CONF_AGGREGATE_RING;
	c->events_replace = 1;
}

void
conf_free(struct conf *c)
{
	free_events(c);
	free(c->db);
	free(c->socket);
	free(c->group);
	free(c->cpus);
	memset(c, 0, sizeof(*c));
}

/* Decimal digits only: strtoull alone would take "-1", " 1" and "0x10". */
static int
parse_uint(const char *s, unsigned long long max, unsigned long long *out,
    const char **end)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (d > max || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	if (end != NULL)
		*end = p;
	else if (*p != '\0')
		return -1;
	return 0;
}

/* Seconds, optionally with an s, m, h or d suffix. */
static int
parse_seconds(const char *s, unsigned *out)
{
	unsigned long long v, mult = 1;
	const char *end;

	if (parse_uint(s, UINT_MAX, &v, &end) == -1)
		return -1;
	if (*end != '\0') {
		switch (*end) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return -1;
		}
		if (end[1] != '\0')
			return -1;
	}
	if (v == 0 || v > UINT_MAX / mult)
		return -1;
	*out = (unsigned)(v * mult);
	return 0;
}

/* Bytes, optionally with a binary K, M, G or T suffix. */
static int
parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	const char *end;
	unsigned shift = 0;

	if (parse_uint(s, SIZE_MAX, &v, &end) == -1)
		return -1;
	if (*end != '\0') {
		switch (toupper((unsigned char)*end)) {
		case 'K': shift = 10; break;
		case 'M': shift = 20; break;
		case 'G': shift = 30; break;
		case 'T': shift = 40; break;
		default: return -1;
		}
		if (end[1] != '\0')
			return -1;
	}
	if (v == 0 || v > (unsigned long long)SIZE_MAX >> shift)
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

/* "0-3,6": numbers and ascending ranges separated by commas. */
static int
valid_cpulist(const char *s)
{
	unsigned long long lo, hi;
	const char *p = s;

	for (;;) {
		if (parse_uint(p, 65535, &lo, &p) == -1)
			return 0;
		if (*p == '-') {
			if (parse_uint(p + 1, 65535, &hi, &p) == -1 || hi < lo)
				return 0;
		}
		if (*p == '\0')
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

static int
check_event(const char *ev, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	ret = pfm_initialize();
	if (ret != PFM_SUCCESS)
		return seterr(err, errlen, "cannot initialize libpfm4: %s",
		    pfm_strerror(ret));
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	/* The _EXT encoding is the one that knows :period=N and :freq=N. */
	ret = pfm_get_os_event_encoding(ev, PFM_PLM0 | PFM_PLM3,
	    PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return seterr(err, errlen, "event '%s': %s (a libpfm4 event "
		    "string was expected, e.g. perf::cpu-clock:period=1000000)",
		    ev, pfm_strerror(ret));
	return 0;
}

/* The field of c that key k sets. */
#define FIELD(c, k, type)	((type *)(void *)((char *)(c) + (k)->off))

static int
expected(const struct conf_key *k, const char *value, char *err,
    size_t errlen)
{
	return seterr(err, errlen, "%s: expected %s, got '%s'", k->name,
	    k->expected, value);
}

static void
set_string(char **dst, const char *value)
{
	free(*dst);
	*dst = xstrdup(value);
}

static int
set_event(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	(void)k;
	if (check_event(value, err, errlen) == -1)
		return -1;
	/* A source that names events replaces the previous source's list
	 * rather than adding to it. */
	if (c->events_replace) {
		free_events(c);
		c->events_replace = 0;
	}
	if (c->nevents == CONF_MAX_EVENTS)
		return seterr(err, errlen, "event: too many events (at most %d)",
		    CONF_MAX_EVENTS);
	c->events[c->nevents++] = xstrdup(value);
	return 0;
}

static void
print_event(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	size_t i;

	if (c->nevents == 0)
		fprintf(fp, "# %s: %s\n", k->name, k->unset);
	for (i = 0; i < c->nevents; i++)
		fprintf(fp, "%s = %s\n", k->name, c->events[i]);
}

static int
set_path(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	set_string(FIELD(c, k, char *), value);
	return 0;
}

static int
set_socket(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (strlen(value) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return seterr(err, errlen, "socket: path too long (at most %zu "
		    "bytes)", sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	return set_path(k, c, value, err, errlen);
}

static int
set_group(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	errno = 0;
	if (getgrnam(value) == NULL)
		return seterr(err, errlen, "group: no such group '%s'%s%s",
		    value, errno ? ": " : "", errno ? strerror(errno) : "");
	return set_path(k, c, value, err, errlen);
}

/* A string; NULL is printed as the comment k->unset.  A value that
 * begins with '#' (a file's "database =#x") follows the '=' at once: after
 * a blank it would start a comment. */
static void
print_string(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	const char *v = *FIELD(c, k, char *);

	if (v != NULL)
		fprintf(fp, "%s =%s%s\n", k->name, v[0] == '#' ? "" : " ", v);
	else
		fprintf(fp, "# %s: %s\n", k->name, k->unset);
}

static int
set_cpus(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (strcmp(value, "all") == 0) {
		free(c->cpus);
		c->cpus = NULL;
	} else if (!valid_cpulist(value))
		return expected(k, value, err, errlen);
	else
		set_string(&c->cpus, value);
	return 0;
}

static void
print_cpus(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	fprintf(fp, "%s = %s\n", k->name, c->cpus != NULL ? c->cpus : "all");
}

static int
set_seconds(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (parse_seconds(value, FIELD(c, k, unsigned)) == -1)
		return expected(k, value, err, errlen);
	return 0;
}

static int
set_uint(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(value, k->max, &v, NULL) == -1)
		return expected(k, value, err, errlen);
	*FIELD(c, k, unsigned) = (unsigned)v;
	return 0;
}

static void
print_uint(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	fprintf(fp, "%s = %u\n", k->name, *FIELD(c, k, unsigned));
}

static int
set_size(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (parse_size(value, FIELD(c, k, size_t)) == -1)
		return expected(k, value, err, errlen);
	return 0;
}

/* With the largest binary suffix that keeps it whole. */
static void
print_size(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	static const char suffix[] = "KMGT";
	size_t n = *FIELD(c, k, size_t);
	int i = -1;

	while (i < 3 && n >= 1024 && n % 1024 == 0) {
		n /= 1024;
		i++;
	}
	if (i < 0)
		fprintf(fp, "%s = %zu\n", k->name, n);
	else
		fprintf(fp, "%s = %zu%c\n", k->name, n, suffix[i]);
}

/* Keys whose value is one word of a list, stored as its index. */
static const char *const label_by_names[] = { "none", "unit", "cgroup", NULL };
static const char *const callchain_names[] = { "none", "fp", "dwarf", "auto", NULL };
static const char *const aggregate_names[] = { "auto", "bpf", "ring", NULL };

static const char *const *
words_of(const struct conf_key *k)
{
	if (strcmp(k->name, "aggregate") == 0)
		return aggregate_names;
	return strcmp(k->name, "label-by") == 0 ? label_by_names : callchain_names;
}

static int
set_word(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	const char *const *w = words_of(k);
	unsigned i;

	for (i = 0; w[i] != NULL; i++)
		if (strcmp(value, w[i]) == 0) {
			*FIELD(c, k, unsigned) = i;
			return 0;
		}
	return expected(k, value, err, errlen);
}

static void
print_word(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	fprintf(fp, "%s = %s\n", k->name, words_of(k)[*FIELD(c, k, unsigned)]);
}

/* At least one: a label-max of 0 would make every labelled sample
 * [other], a callchain-depth of 0 leave out the sampled PC itself. */
static int
set_positive(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (set_uint(k, c, value, err, errlen) == -1 || *FIELD(c, k, unsigned) == 0)
		return expected(k, value, err, errlen);
	return 0;
}

/* A size of at least a MiB (a table or two). */
static int
set_size_mib(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (set_size(k, c, value, err, errlen) == -1 || *FIELD(c, k, size_t) < (1u << 20))
		return expected(k, value, err, errlen);
	return 0;
}

/* A JIT symbol's name: room for the mark of a cut name and some of it. */
static int
set_name_max(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (set_uint(k, c, value, err, errlen) == -1 || *FIELD(c, k, unsigned) < 64)
		return expected(k, value, err, errlen);
	return 0;
}

/* The user stack's copy: 64 bytes to the kernel's most, rounded down to
 * the 8 bytes it wants. */
static int
set_stack(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	if (set_uint(k, c, value, err, errlen) == -1 || *FIELD(c, k, unsigned) < 64)
		return expected(k, value, err, errlen);
	*FIELD(c, k, unsigned) &= ~7u;
	return 0;
}

/* A multiple of the event's period, "N" or "Nx". */
static int
set_multiple(const struct conf_key *k, struct conf *c, const char *value,
    char *err, size_t errlen)
{
	unsigned long long v;
	const char *end;

	if (parse_uint(value, k->max, &v, &end) == -1 ||
	    (*end != '\0' && strcmp(end, "x") != 0))
		return expected(k, value, err, errlen);
	*FIELD(c, k, unsigned) = (unsigned)v;
	return 0;
}

static void
print_multiple(const struct conf_key *k, const struct conf *c, FILE *fp)
{
	fprintf(fp, "%s = %ux\n", k->name, *FIELD(c, k, unsigned));
}

#define OFF(f)	offsetof(struct conf, f)

/* In --check-config's order.  dcpid's -v counts rather than takes a value,
 * so verbose has no option here. */
const struct conf_key conf_keys[] = {
	{ "event", "event", 'e', set_event, print_event, 0, 0, NULL,
	    "none given, dcpid samples cycles, else perf::cpu-clock" },
	{ "flush-interval", "flush-interval", 0, set_seconds, print_uint,
	    OFF(flush_interval), 0, "a number of seconds (optionally with s, "
	    "m, h or d)", NULL },
	{ "database", "db", 'd', set_path, print_string, OFF(db), 0, NULL,
	    NULL },
	{ "socket", "socket", 0, set_socket, print_string, OFF(socket), 0,
	    NULL, NULL },
	{ "group", NULL, 0, set_group, print_string, OFF(group), 0, NULL,
	    "none, the socket and database keep dcpid's group" },
	{ "cpus", "cpus", 0, set_cpus, print_cpus, OFF(cpus), 0, "'all' or a "
	    "CPU list such as 0-3,6", NULL },
	{ "memory-cap", NULL, 0, set_size, print_size, OFF(memory_cap), 0,
	    "a number of bytes (optionally with K, M, G or T)", NULL },
	{ "buildid-cache-size", NULL, 0, set_size, print_size, OFF(cache_size),
	    0, "a number of bytes (optionally with K, M, G or T; 0: no limit)",
	    NULL },
	{ "keep-days", NULL, 0, set_uint, print_uint, OFF(keep_days), UINT_MAX,
	    "a number of days (0: no limit)", NULL },
	{ "keep-min", NULL, 0, set_uint, print_uint, OFF(keep_min), UINT_MAX,
	    "a number of epochs", NULL },
	{ "verbose", NULL, 0, set_uint, print_uint, OFF(verbose), 2,
	    "0, 1 or 2", NULL },
	{ "label-by", "label-by", 0, set_word, print_word,
	    OFF(label_by), 0, "unit, cgroup or none", NULL },
	{ "label-max", NULL, 0, set_positive, print_uint, OFF(label_max), 65536,
	    "a number of labels per epoch, 1 to 65536", NULL },
	{ "callchain", "callchain", 0, set_word, print_word, OFF(callchain), 0,
	    "none, fp, dwarf or auto", NULL },
	{ "callchain-depth", NULL, 0, set_positive, print_uint, OFF(callchain_depth),
	    1024, "a number of frames, 1 to 1024", NULL },
	{ "callchain-stack", NULL, 0, set_stack, print_uint, OFF(callchain_stack),
	    MAX_CALLCHAIN_STACK, "a number of bytes, 64 to 65528", NULL },
	{ "callchain-period", "callchain-period", 0, set_multiple, print_multiple,
	    OFF(callchain_period), 1000000, "a multiple of the event's period, "
	    "0x or 1x (a chain with every sample) to 1000000x", NULL },
	{ "unwind-memory", NULL, 0, set_size_mib, print_size, OFF(unwind_memory), 0,
	    "a number of bytes (optionally with K, M, G or T; at least 1M)", NULL },
	{ "unwind-bpf-memory", NULL, 0, set_size_mib, print_size,
	    OFF(unwind_bpf_memory), 0, "a number of bytes (optionally with K, M, "
	    "G or T; at least 1M)", NULL },
	{ "period-jitter", "period-jitter", 0, set_uint, print_uint,
	    OFF(period_jitter), 50, "a percentage of the period, 0 (fixed "
	    "periods) to 50", NULL },
	{ "aggregate", "aggregate", 0, set_word, print_word, OFF(aggregate), 0,
	    "auto, bpf or ring", NULL },
	{ "jit-name-max", NULL, 0, set_name_max, print_uint, OFF(jit.name_max),
	    65536, "a number of bytes, 64 to 65536", NULL },
	{ "jit-memory", NULL, 0, set_size_mib, print_size, OFF(jit.memory), 0,
	    MIB_SIZE, NULL },
	{ "jit-user-memory", NULL, 0, set_size_mib, print_size,
	    OFF(jit.user_memory), 0, MIB_SIZE, NULL },
	{ "jit-process-memory", NULL, 0, set_size_mib, print_size,
	    OFF(jit.process_memory), 0, MIB_SIZE, NULL },
	{ "jit-symbols", NULL, 0, set_positive, print_uint, OFF(jit.symbols),
	    MAX_JIT_SYMBOLS, JIT_SYMBOLS, NULL },
	{ "jit-user-symbols", NULL, 0, set_positive, print_uint,
	    OFF(jit.user_symbols), MAX_JIT_SYMBOLS, JIT_SYMBOLS, NULL },
	{ "jit-process-symbols", NULL, 0, set_positive, print_uint,
	    OFF(jit.process_symbols), MAX_JIT_SYMBOLS, JIT_SYMBOLS, NULL },
	{ NULL, NULL, 0, NULL, NULL, 0, 0, NULL, NULL }
};

int
conf_set(struct conf *c, const char *key, const char *value, char *err,
    size_t errlen)
{
	const struct conf_key *k;
	const char *p;

	for (p = value; *p != '\0'; p++)
		if (iscntrl((unsigned char)*p))
			return seterr(err, errlen, "%s: control character in "
			    "value", key);
	if (*value == '\0')
		return seterr(err, errlen, "%s: expected a value", key);
	for (k = conf_keys; k->name != NULL; k++)
		if (strcmp(key, k->name) == 0)
			return k->set(k, c, value, err, errlen);
	return seterr(err, errlen, "unknown key '%s'", key);
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int
conf_load(struct conf *c, const char *path, int missing_ok, char *err,
    size_t errlen)
{
	FILE *fp;
	char *line = NULL, *key, *value, *eq, *hash, msg[512];
	size_t cap = 0;
	unsigned long lineno = 0;
	int ret = 0;

	fp = fopen(path, "re");
	if (fp == NULL) {
		if (errno == ENOENT && missing_ok)
			return 0;
		return seterr(err, errlen, "%s: %s", path, strerror(errno));
	}
	c->events_replace = 1;
	while (getline(&line, &cap, fp) != -1) {
		lineno++;
		/* A comment starts a line or follows white space, so that a
		 * '#' inside a value (an event never has one) is kept. */
		for (hash = line; (hash = strchr(hash, '#')) != NULL; hash++)
			if (hash == line || isspace((unsigned char)hash[-1])) {
				*hash = '\0';
				break;
			}
		key = trim(line);
		if (*key == '\0')
			continue;
		eq = strchr(key, '=');
		if (eq == NULL) {
			ret = seterr(err, errlen, "%s:%lu: expected 'key = value', "
			    "got '%s'", path, lineno, key);
			break;
		}
		*eq = '\0';
		key = trim(key);
		value = trim(eq + 1);
		if (conf_set(c, key, value, msg, sizeof(msg)) == -1) {
			ret = seterr(err, errlen, "%s:%lu: %s", path, lineno, msg);
			break;
		}
	}
	if (ret == 0 && ferror(fp))
		ret = seterr(err, errlen, "%s: %s", path, strerror(errno));
	c->events_replace = 1;
	free(line);
	fclose(fp);
	return ret;
}

void
conf_print(const struct conf *c, FILE *fp)
{
	const struct conf_key *k;

	for (k = conf_keys; k->name != NULL; k++)
		k->print(k, c, fp);
}
