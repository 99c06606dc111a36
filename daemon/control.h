/*
 * dcpid's control server (daemon/control.c, its socket daemon/ctlsock.c):
 * accepts dcpictl connections on the UNIX socket, checks every message
 * (lib/dcpi/ctl.h) and answers each request with one result code and a
 * message.  It calls back into the
 * daemon core through control_ops; the core is single-threaded, so a FLUSH
 * or EPOCH callback returns only once the files are on disk.
 */
#ifndef DCPID_CONTROL_H
#define DCPID_CONTROL_H

#include <stddef.h>
#include <stdint.h>
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
	/* Re-reads the configuration: 0, or -1 with why the old one was
	 * kept in msg[msglen]. */
	int	(*reload)(char *msg, size_t msglen);
	/* Labels the samples of process pid and of the children it forks
	 * from now on NAME until they exit (DCPI_CTL_LABEL).  0, or -1 with
	 * why in msg[msglen].  control.c has resolved pid 0 to the peer's
	 * pid, checked that the peer may label pid and that name is valid
	 * (dcpi_ctl_label_check(); NUL-terminated). */
	int	(*label)(uint32_t pid, const char *name, char *msg, size_t msglen);
};

/* Creates the socket at path (its directory too, mode 0755), mode 0660,
 * group gid (or unchanged when gid is (gid_t)-1), and registers it with the
 * loop.  Privileged requests (FLUSH, EPOCH, QUIT, RELOAD) are allowed for
 * uid 0 and members of gid (by SO_PEERCRED); STATUS and LABEL for anyone
 * who can connect, LABEL only of a process whose real and effective uid
 * are the peer's (any process for uid 0).
 * Returns 0, or -1 with errno after logging. */
int control_init(const char *path, gid_t gid, const struct control_ops *ops);
/* Closes every connection and removes the socket. */
void control_fini(void);

/* Defaults for control_set_limits() and control_set_user_limits(),
 * documented in dcpid(8), SECURITY. */
#define CONTROL_IDLE_TIMEOUT_MS		10000
#define CONTROL_MAX_CONNS		128
#define CONTROL_MAX_CONNS_PER_UID	16
#define CONTROL_ROOT_RESERVE		8
/* A connection that has not completed a request and read its reply within
 * idle_ms milliseconds of connecting or of its last reply (a half-sent
 * request, even one trickling in a byte at a time; a reply the client
 * does not read) is closed; connections beyond max_conns get a
 * DCPI_CTL_EBUSY result and are closed.  For tests; call before
 * control_init. */
void control_set_limits(unsigned idle_ms, unsigned max_conns);
/* Fairness among the socket's users, by SO_PEERCRED uid: at most per_uid
 * connections for each uid other than 0 (0: the default), and the last
 * root_reserve of max_conns only for uid 0, so that root's status is
 * answered however many connections others hold.  A connection over a
 * limit gets one DCPI_CTL_EBUSY result with sequence 0, "too many control
 * connections ...", and is closed.  For tests; call before control_init. */
void control_set_user_limits(unsigned per_uid, unsigned root_reserve);

#endif
