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
#include <stdint.h>
#include <time.h>

#include <dcpi/profile.h>

struct image;

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
/* fn is called between two files a flush writes (profiles, the build-id
 * cache's, the kallsyms snapshot), each written and fsynced: time a busy
 * disk can make long, in which whatever must not wait (the ring
 * buffers' records, perf_hold) is served.  NULL: nothing. */
void flush_set_yield(void (*fn)(void));

/*
 * One flush, driven by its caller (daemon/core.c), which hands in as
 * arguments what the modules upstream know, so that nothing here calls
 * back into them:
 *
 *	if (flush_begin(msg, msglen) == 0) {
 *		flush_profile() for each (event, image) holding counts;
 *		flush_unattr() for the unattributed samples;
 *	}
 *	rc = flush_end();
 *
 * flush_begin checks the database and holds the epoch: -1 when nothing
 * may be written (the failure is the flush's result).  flush_end writes
 * the build-id cache's queue, releases the epoch and records the result:
 * 0 with "flushed N files into epoch E" in msg[msglen], or -1 with the
 * flush's first error there ("flush failed: ...").  Failures are logged.
 */
int flush_begin(char *msg, size_t msglen);
/* What a profile file is written under (dcpi(5)): the image (the caller
 * keeps it valid during the call), the event's name and period (with its
 * jitter, a "period-jitter" header line), and the label (NULL: none). */
struct flush_desc {
	const struct image	*image;
	const char		*event;
	uint64_t		 period;	/* the mean when jitter > 0 */
	const char		*label;
	unsigned		 jitter;	/* percent (period-jitter); 0: fixed */
};
/* Merges c[0..n) (sorted by offset) into the epoch's profile of d.  0, or
 * -1 when it was not written: the caller keeps the counts for the next
 * flush. */
int flush_profile(const struct flush_desc *d, const struct dcpi_count *c,
    size_t n);
/* Unattributed samples of an event for a reason, as the unattributed
 * file names both (dcpi(5)). */
struct flush_unattr {
	const char	*event;
	const char	*reason;
	uint64_t	 n;
};
/* Adds u[0..n) to the epoch's unattributed file (read, add, atomic
 * write).  0, or -1 when it was not written: the caller keeps the counts
 * for the next flush. */
int flush_unattr(const struct flush_unattr *u, size_t n);
/* The call chains since the last flush (a file built for this epoch and
 * host), merged into the epoch's stack file DB/EPOCH/HOST/stacks, which
 * is replaced atomically: 0, or -1 with the failure noted as for a
 * profile (a corrupt file on disk is not merged into, and stays). */
struct dcpi_stackfile;
int flush_stacks(const struct dcpi_stackfile *sf);
const char *flush_host(void);
int flush_end(void);
/* After a flush that succeeded: starts a new epoch named after t (when
 * that flush began) and points `current` at it; epoch_rotate's result. */
int flush_new_epoch(time_t t, char *msg, size_t msglen);

const char *flush_epoch(void);
/* Last flush: its time (0 if none), result and message; failed flushes
 * since start. */
time_t flush_last_time(void);
const char *flush_last_result(void);
unsigned long flush_errors(void);
/* STATUS: epoch, last-flush (UTC), last-flush-result, flush-errors. */
struct status_writer;
void flush_status(struct status_writer *w);

#endif
