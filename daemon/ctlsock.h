/*
 * The control server's socket (daemon/ctlsock.c): its path, claimed from a
 * stale predecessor but never from a live one; the connections, each with
 * the peer's credentials as the kernel recorded them; admission by uid and
 * the idle limit (control.h's control_set_limits()).  What travels over a
 * connection is the protocol's business (daemon/control.c), which reads and
 * answers through the buffers here.
 */
#ifndef DCPID_CTLSOCK_H
#define DCPID_CTLSOCK_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <dcpi/ctl.h>

#include "loop.h"

struct ctl_conn {
	struct ctl_conn	*next;
	int		 fd;
	struct ucred	 cred;		/* from the kernel at accept */
	int		 privileged;	/* uid 0 or in the socket's group */
	/* The longest request (a LABEL), so one that claims more is refused
	 * by its header before a payload byte is read. */
	unsigned char	 in[DCPI_CTL_REQUEST_MAX];
	struct dcpi_ctl_rbuf rb;	/* reads into in */
	struct dcpi_ctl_wbuf wb;	/* queued replies */
	uint32_t	 events;	/* what the loop watches now */
	int		 closing;	/* close once wb is sent */
	/* ms, monotonic: since when dcpid has been waiting for this client
	 * (accept, or its last reply sent).  Bytes trickling in do not
	 * move it, so a client sending a byte at a time is still timed
	 * out. */
	long long	 since;
};

/* Creates the socket at path as control_init() describes and registers it
 * with the loop; each accepted connection's events go to conn_cb(fd, ...),
 * which finds it with ctlsock_find().  0, or -1 with errno after logging. */
int ctlsock_open(const char *path, gid_t gid, loop_cb conn_cb);
/* Sends what each connection has queued if the socket takes it at once,
 * closes them all, and removes the socket if it is still ours. */
void ctlsock_close(void);

/* The open connection on fd, or NULL (closed since the loop saw it). */
struct ctl_conn *ctlsock_find(int fd);
/* Closes c and frees it. */
void ctlsock_drop(struct ctl_conn *c);
/* Watches c for events (EPOLLIN or EPOLLOUT) from now on. */
void ctlsock_watch(struct ctl_conn *c, uint32_t events);
/* c's client has had its reply: its idle time starts again. */
void ctlsock_served(struct ctl_conn *c);

/* The socket's group by name (or number), for messages. */
const char *ctlsock_group(void);
/* Connections open now, and refused since ctlsock_open(). */
unsigned ctlsock_nconns(void);
uint64_t ctlsock_nrefused(void);

#endif
