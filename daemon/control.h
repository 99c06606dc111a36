/*
 * dcpid's control server (daemon/control.c): accepts dcpictl connections on
 * the UNIX socket, checks every message (lib/dcpi/ctl.h) and answers each
 * request with one result code and a message.  It calls back into the
 * daemon core through control_ops; the core is single-threaded, so a FLUSH
 * or EPOCH callback returns only once the files are on disk.
 */
#ifndef DCPID_CONTROL_H
#define DCPID_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

/* Collects STATUS output: one "key value" line per call, in order. */
struct status_writer;
void status_add(struct status_writer *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct control_ops {
	/* Fills the status lines (samples, lost, throttled, unattributed by
	 * reason, images, memory, epoch, last flush ...). */
	void	(*status)(struct status_writer *w);
	/* Flush / rotate the epoch.  0 on success; -1 with a message for the
	 * client in msg[msglen] (e.g. "flush failed: /var/lib/dcpi/...: No
	 * space left on device"). */
	int	(*flush)(char *msg, size_t msglen);
	int	(*epoch)(char *msg, size_t msglen);
	/* Asks the daemon to flush and exit after this reply is sent. */
	void	(*quit)(void);
};

/* Creates the socket at path (its directory too, mode 0755), mode 0660,
 * group gid (or unchanged when gid is (gid_t)-1), and registers it with the
 * loop.  Privileged requests (FLUSH, EPOCH, QUIT) are allowed for uid 0 and
 * members of gid (by SO_PEERCRED); STATUS for anyone who can connect.
 * Returns 0, or -1 with errno after logging. */
int control_init(const char *path, gid_t gid, const struct control_ops *ops);
/* Closes every connection and removes the socket. */
void control_fini(void);

/* Defaults for control_set_limits(). */
#define CONTROL_IDLE_TIMEOUT_MS	10000
#define CONTROL_MAX_CONNS	128
/* A connection that makes no progress (a half-sent request, a reply the
 * client does not read) for idle_ms milliseconds is closed; connections
 * beyond max_conns get a DCPI_CTL_EBUSY result and are closed.  For tests;
 * call before control_init. */
void control_set_limits(unsigned idle_ms, unsigned max_conns);

#endif
