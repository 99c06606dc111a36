/*
 * The flush (daemon/flush.c): merges the in-memory counts into the epoch's
 * files (DESIGN.md "The profile database", lib/dcpi/db.h).  The database,
 * its lock and its epochs are daemon/epoch.c's, set up and rotated through
 * the calls here.
 */
#ifndef DCPID_FLUSH_H
#define DCPID_FLUSH_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

/* Creates db if needed (mode 0750, group gid unless (gid_t)-1), refuses it
 * if others than root and that group (dcpid's own without one) may write
 * into it or another user owns it, and takes its lock file.  -1 with a
 * message in err[errlen]. */
int flush_init(const char *db, gid_t gid, char *err, size_t errlen);
/* Once sampling is set up: continues the epoch `current` points at or
 * starts a new one (so a start that fails leaves no epoch behind).  -1
 * with a message in err[errlen]. */
int flush_start(char *err, size_t errlen);
void flush_fini(void);
/* Merges all aggregated counts into the current epoch's files.  Counts
 * whose file could not be written stay in memory for the next try.
 * Returns 0, or -1 with the first error in msg[msglen]. */
int flush_run(char *msg, size_t msglen);
/* Flushes, then starts a new epoch and points `current` at it.  Fails
 * (leaving the epoch as it was) if the flush fails. */
int flush_rotate(char *msg, size_t msglen);

const char *flush_epoch(void);
/* Last flush: its time (0 if none), result and message; failed flushes
 * since start. */
time_t flush_last_time(void);
const char *flush_last_result(void);
unsigned long flush_errors(void);

#endif
