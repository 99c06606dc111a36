/*
 * Logging for the programs (never for libdcpi, which reports errors to its
 * caller).  OpenBSD style: log_warn appends strerror(errno), log_warnx does
 * not; fatal/fatalx log and exit(1).  Messages go to stderr, prefixed with
 * sd-daemon priorities ("<3>") when log_init() is told so, which journald
 * turns into log levels when dcpid runs as a service.
 */
#ifndef DCPI_LOG_H
#define DCPI_LOG_H

#include <stdarg.h>

#define LOG_FMT(a, b) __attribute__((format(printf, a, b)))

/* progname: prefix for messages when not using sd-daemon prefixes.
 * verbose: 0 = notices and above, 1 = info, 2 = debug.
 * sd_prefix: nonzero to prefix "<N>" priorities instead of progname. */
void log_init(const char *progname, int verbose, int sd_prefix);
void log_setverbose(int verbose);
int log_getverbose(void);

void log_warn(const char *, ...) LOG_FMT(1, 2);
void log_warnx(const char *, ...) LOG_FMT(1, 2);
void log_notice(const char *, ...) LOG_FMT(1, 2);
void log_info(const char *, ...) LOG_FMT(1, 2);
void log_debug(const char *, ...) LOG_FMT(1, 2);
void fatal(const char *, ...) LOG_FMT(1, 2) __attribute__((noreturn));
void fatalx(const char *, ...) LOG_FMT(1, 2) __attribute__((noreturn));
/* As fatalx, exiting with status (a daemon's "do not restart me" codes). */
void fatalx_status(int status, const char *, ...) LOG_FMT(2, 3)
    __attribute__((noreturn));

#endif
