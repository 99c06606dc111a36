/*
 * The profile database as dcpid holds it (daemon/epoch.c; DESIGN.md "The
 * profile database", lib/dcpi/db.h): the lock that keeps a second dcpid off
 * the same database, the epoch directories with their reference to the
 * kernel's symbols (DB/kernels/, one snapshot per kernel, lib/dcpi/kallsyms.h)
 * and the `current` symlink.  daemon/flush.c writes the profiles into them.
 */
#ifndef DCPID_EPOCH_H
#define DCPID_EPOCH_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* What dcpid creates in the database: the group reads, no one else
 * (kernel addresses in kallsyms, what ran in the profiles). */
#define DB_DIR_MODE	0750
#define DB_FILE_MODE	0640

/* Creates db if needed (mode 0750, group gid unless (gid_t)-1), refuses it
 * if others than root and that group (dcpid's own without one) may write
 * into it or another user owns it, takes its lock file and removes the
 * temporary files an interrupted flush left.  -1 with a message in
 * err[errlen]. */
int epoch_init(const char *db, gid_t gid, char *err, size_t errlen);
/* Continues the epoch `current` points at or starts a new one.  -1 with a
 * message in err[errlen]. */
int epoch_start(char *err, size_t errlen);
/* Closes the lock (the lock file stays). */
void epoch_fini(void);

/* Before writing into the epoch: the database as its path names it now,
 * checked, locked again if its lock file was replaced, `current` naming
 * this epoch, whose directory and kernel symbols are there.  Holds the
 * database's directory open until epoch_release().  -1 with a message in
 * err[errlen]: then nothing may be written. */
int epoch_check(char *err, size_t errlen);
void epoch_release(void);
/* DB/EPOCH/HOST[/sub] (sub may be NULL), created, never through a link,
 * between epoch_check() and epoch_release(): its fd, or -1 with a message
 * in err[errlen]. */
int epoch_open_dir(const char *sub, char *err, size_t errlen);
/* Starts a new epoch named after t (or later, so names increase) and
 * points `current` at it: 0 with "new epoch ..." in msg[msglen], or -1
 * with "epoch failed: ..." and the epoch as it was. */
int epoch_rotate(time_t t, char *msg, size_t msglen);

/* The group that may write into the database (the configured one, else
 * dcpid's). */
gid_t epoch_group(void);
const char *epoch_db(void);
const char *epoch_name(void);
/* What each profile's header records: the host (its directory name), the
 * platform (uname), the CPU speed in MHz (0 when unknown). */
const char *epoch_host(void);
const char *epoch_platform(void);
uint64_t epoch_cpuspeed(void);

#endif
