#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "util.h"

static const char *log_progname = "dcpi";
static int log_verbose;
static int log_sd_prefix;

void
log_init(const char *progname, int verbose, int sd_prefix)
{
	log_progname = progname;
	log_verbose = verbose;
	log_sd_prefix = sd_prefix;
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return log_verbose;
}

static void
vlog(int pri, const char *fmt, va_list ap, int with_errno)
{
	int saved = errno;
	char raw[2048], msg[4 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* Paths, commands and names in a message are not ours: a newline in
	 * one would forge a line of the log, an escape drive the terminal.
	 * Escaped as dcpictl prints names, a tab kept. */
	text_escape(msg, raw, strlen(raw), TEXT_KEEP_TAB);
	/* One fprintf per message so that lines from concurrent writers do
	 * not interleave. */
	if (log_sd_prefix)
		fprintf(stderr, "<%d>%s%s%s\n", pri, msg,
		    with_errno ? ": " : "", with_errno ? strerror(saved) : "");
	else
		fprintf(stderr, "%s: %s%s%s\n", log_progname, msg,
		    with_errno ? ": " : "", with_errno ? strerror(saved) : "");
	errno = saved;
}

#define LOG_BODY(pri, with_errno) do {		\
	va_list ap;				\
	va_start(ap, fmt);			\
	vlog(pri, fmt, ap, with_errno);		\
	va_end(ap);				\
} while (0)

void log_warn(const char *fmt, ...) { LOG_BODY(LOG_WARNING, 1); }
void log_warnx(const char *fmt, ...) { LOG_BODY(LOG_WARNING, 0); }
void log_notice(const char *fmt, ...) { LOG_BODY(LOG_NOTICE, 0); }

void
log_info(const char *fmt, ...)
{
	if (log_verbose >= 1)
		LOG_BODY(LOG_INFO, 0);
}

void
log_debug(const char *fmt, ...)
{
	if (log_verbose >= 2)
		LOG_BODY(LOG_DEBUG, 0);
}

void
fatal(const char *fmt, ...)
{
	LOG_BODY(LOG_ERR, 1);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	LOG_BODY(LOG_ERR, 0);
	exit(1);
}

void
fatalx_status(int status, const char *fmt, ...)
{
	LOG_BODY(LOG_ERR, 0);
	exit(status);
}
