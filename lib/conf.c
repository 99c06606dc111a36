/*
 * dcpid's configuration file: "key = value" lines, '#' comments, blank
 * lines.  config_keys is the one list of keys: the file, dcpid's options
 * and the manual's test (from --check-config) all take it from there, so a
 * key cannot be known to one and missing from another.  config_print()
 * writes the effective configuration back in the file's syntax, and what it
 * prints loads back to the same configuration.
 */
#include "config.h"


#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
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
free_events(struct config *c)
{
	size_t i;

	for (i = 0; i < c->nevents; i++) {
		free(c->events[i]);
		c->events[i] = NULL;
	}
	c->nevents = 0;
}

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->db = xstrdup(DCPI_DB_DEFAULT);
	c->socket = xstrdup(DCPI_CTL_SOCKET_DEFAULT);
	c->flush_interval = DEFAULT_FLUSH_INTERVAL;
	c->memory_cap = DEFAULT_MEMORY_CAP;
	c->cache_size = DEFAULT_CACHE_SIZE;
	c->keep_days = DEFAULT_KEEP_DAYS;
	c->keep_min = DEFAULT_KEEP_MIN;
	c->events_replace = 1;
}

void
config_free(struct config *c)
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

static void
set_string(char **dst, const char *value)
{
	free(*dst);
	*dst = xstrdup(value);
}

static int
set_event(struct config *c, const char *value, char *err, size_t errlen)
{
	if (check_event(value, err, errlen) == -1)
		return -1;
	/* A source that names events replaces the previous source's list
	 * rather than adding to it. */
	if (c->events_replace) {
		free_events(c);
		c->events_replace = 0;
	}
	if (c->nevents == CONFIG_MAX_EVENTS)
		return seterr(err, errlen, "event: too many events (at most %d)",
		    CONFIG_MAX_EVENTS);
	c->events[c->nevents++] = xstrdup(value);
	return 0;
}

static void
print_event(const struct config *c, FILE *fp)
{
	size_t i;

	if (c->nevents == 0)
		fprintf(fp, "# event: none given, dcpid samples cycles, "
		    "else perf::cpu-clock\n");
	for (i = 0; i < c->nevents; i++)
		fprintf(fp, "event = %s\n", c->events[i]);
}

static int
set_flush_interval(struct config *c, const char *value, char *err,
    size_t errlen)
{
	if (parse_seconds(value, &c->flush_interval) == -1)
		return seterr(err, errlen, "flush-interval: expected a number "
		    "of seconds (optionally with s, m, h or d), got '%s'", value);
	return 0;
}

static void
print_flush_interval(const struct config *c, FILE *fp)
{
	fprintf(fp, "flush-interval = %u\n", c->flush_interval);
}

static int
set_database(struct config *c, const char *value, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	set_string(&c->db, value);
	return 0;
}

static void
print_database(const struct config *c, FILE *fp)
{
	fprintf(fp, "database = %s\n", c->db);
}

static int
set_socket(struct config *c, const char *value, char *err, size_t errlen)
{
	if (strlen(value) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return seterr(err, errlen, "socket: path too long (at most %zu "
		    "bytes)", sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	set_string(&c->socket, value);
	return 0;
}

static void
print_socket(const struct config *c, FILE *fp)
{
	fprintf(fp, "socket = %s\n", c->socket);
}

static int
set_group(struct config *c, const char *value, char *err, size_t errlen)
{
	errno = 0;
	if (getgrnam(value) == NULL)
		return seterr(err, errlen, "group: no such group '%s'%s%s",
		    value, errno ? ": " : "", errno ? strerror(errno) : "");
	set_string(&c->group, value);
	return 0;
}

static void
print_group(const struct config *c, FILE *fp)
{
	if (c->group != NULL)
		fprintf(fp, "group = %s\n", c->group);
	else
		fprintf(fp, "# group: none, the socket and database keep "
		    "dcpid's group\n");
}

static int
set_cpus(struct config *c, const char *value, char *err, size_t errlen)
{
	if (strcmp(value, "all") == 0) {
		free(c->cpus);
		c->cpus = NULL;
	} else if (!valid_cpulist(value)) {
		return seterr(err, errlen, "cpus: expected 'all' or a CPU list "
		    "such as 0-3,6, got '%s'", value);
	} else
		set_string(&c->cpus, value);
	return 0;
}

static void
print_cpus(const struct config *c, FILE *fp)
{
	fprintf(fp, "cpus = %s\n", c->cpus != NULL ? c->cpus : "all");
}

static void
print_size(FILE *fp, const char *key, size_t n)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	while (i < 3 && n >= 1024 && n % 1024 == 0) {
		n /= 1024;
		i++;
	}
	if (i < 0)
		fprintf(fp, "%s = %zu\n", key, n);
	else
		fprintf(fp, "%s = %zu%c\n", key, n, suffix[i]);
}

static int
set_memory_cap(struct config *c, const char *value, char *err, size_t errlen)
{
	if (parse_size(value, &c->memory_cap) == -1)
		return seterr(err, errlen, "memory-cap: expected a number of "
		    "bytes (optionally with K, M, G or T), got '%s'", value);
	return 0;
}

static void
print_memory_cap(const struct config *c, FILE *fp)
{
	print_size(fp, "memory-cap", c->memory_cap);
}

static int
set_cache_size(struct config *c, const char *value, char *err, size_t errlen)
{
	if (parse_size(value, &c->cache_size) == -1)
		return seterr(err, errlen, "buildid-cache-size: expected a "
		    "number of bytes (optionally with K, M, G or T; 0: no "
		    "limit), got '%s'", value);
	return 0;
}

static void
print_cache_size(const struct config *c, FILE *fp)
{
	print_size(fp, "buildid-cache-size", c->cache_size);
}

static int
set_keep_days(struct config *c, const char *value, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(value, UINT_MAX, &v, NULL) == -1)
		return seterr(err, errlen, "keep-days: expected a number of "
		    "days (0: no limit), got '%s'", value);
	c->keep_days = (unsigned)v;
	return 0;
}

static void
print_keep_days(const struct config *c, FILE *fp)
{
	fprintf(fp, "keep-days = %u\n", c->keep_days);
}

static int
set_keep_min(struct config *c, const char *value, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(value, UINT_MAX, &v, NULL) == -1)
		return seterr(err, errlen, "keep-min: expected a number of "
		    "epochs, got '%s'", value);
	c->keep_min = (unsigned)v;
	return 0;
}

static void
print_keep_min(const struct config *c, FILE *fp)
{
	fprintf(fp, "keep-min = %u\n", c->keep_min);
}

static int
set_verbose(struct config *c, const char *value, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(value, 2, &v, NULL) == -1)
		return seterr(err, errlen, "verbose: expected 0, 1 or 2, got "
		    "'%s'", value);
	c->verbose = (int)v;
	return 0;
}

static void
print_verbose(const struct config *c, FILE *fp)
{
	fprintf(fp, "verbose = %d\n", c->verbose);
}

/* In --check-config's order.  dcpid's -v counts rather than takes a value,
 * so verbose has no option here. */
const struct config_key config_keys[] = {
	{ "event", "event", 'e', set_event, print_event },
	{ "flush-interval", "flush-interval", 0, set_flush_interval,
	    print_flush_interval },
	{ "database", "db", 'd', set_database, print_database },
	{ "socket", "socket", 0, set_socket, print_socket },
	{ "group", NULL, 0, set_group, print_group },
	{ "cpus", "cpus", 0, set_cpus, print_cpus },
	{ "memory-cap", NULL, 0, set_memory_cap, print_memory_cap },
	{ "buildid-cache-size", NULL, 0, set_cache_size, print_cache_size },
	{ "keep-days", NULL, 0, set_keep_days, print_keep_days },
	{ "keep-min", NULL, 0, set_keep_min, print_keep_min },
	{ "verbose", NULL, 0, set_verbose, print_verbose },
	{ NULL, NULL, 0, NULL, NULL }
};

int
config_set(struct config *c, const char *key, const char *value, char *err,
    size_t errlen)
{
	const struct config_key *k;
	const char *p;

	for (p = value; *p != '\0'; p++)
		if (iscntrl((unsigned char)*p))
			return seterr(err, errlen, "%s: control character in "
			    "value", key);
	if (*value == '\0')
		return seterr(err, errlen, "%s: expected a value", key);
	for (k = config_keys; k->name != NULL; k++)
		if (strcmp(key, k->name) == 0)
			return k->set(c, value, err, errlen);
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
config_load(struct config *c, const char *path, int missing_ok, char *err,
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
		if (config_set(c, key, value, msg, sizeof(msg)) == -1) {
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
config_print(const struct config *c, FILE *fp)
{
	const struct config_key *k;

	for (k = config_keys; k->name != NULL; k++)
		k->print(c, fp);
}
