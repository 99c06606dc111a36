/*
 * dcpid's control protocol, after OpenBSD bgpd's control.c: a header
 * checked before anything else is read, one RESULT per request, and
 * privileged requests only for the peers daemon/ctlsock.c found privileged.
 *
 * Only LABEL carries a payload, of at most a few hundred bytes, and its
 * header's length is checked before a byte of it is read, so a connection
 * holds at most one short request at a time; a connection with a reply
 * still queued is not read, so a client that sends without reading cannot
 * make dcpid buffer without bound.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include <dcpi/ctl.h>

#include "control.h"
#include "ctlsock.h"
#include "log.h"
#include "procstatus.h"

struct status_writer {
	struct ctl_conn	*c;
	uint32_t	 seq;
};

static const struct control_ops *ops;

static void conn_cb(int, uint32_t, void *);

static void
conn_result(struct ctl_conn *c, uint32_t seq, int code, const char *msg)
{
	if (dcpi_ctl_wbuf_queue_result(&c->wb, seq, code, msg) < 0)
		fatal("control: queueing a result");
}

/* Sends what is queued without blocking.  Returns -1 once c is closed
 * (peer gone, or the error reply sent), else 0. */
static int
conn_flush(struct ctl_conn *c)
{
	if (dcpi_ctl_wbuf_flush(&c->wb, c->fd) < 0) {
		if (errno == EAGAIN) {
			ctlsock_watch(c, EPOLLOUT);
			return 0;
		}
		log_debug("control: pid %d: send: %s", (int)c->cred.pid,
		    strerror(errno));
		ctlsock_drop(c);
		return -1;
	}
	ctlsock_served(c);
	if (c->closing) {
		ctlsock_drop(c);
		return -1;
	}
	ctlsock_watch(c, EPOLLIN);
	return 0;
}

void
status_add(struct status_writer *w, const char *key, const char *fmt, ...)
{
	char line[DCPI_CTL_MAX_PAYLOAD];
	va_list ap;
	int n, m;

	n = snprintf(line, sizeof(line), "%s ", key);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	/* A line too long for one record is cut, not dropped. */
	if ((size_t)m >= sizeof(line) - (size_t)n)
		m = (int)(sizeof(line) - (size_t)n - 1);
	if (dcpi_ctl_wbuf_queue(&w->c->wb, DCPI_CTL_STATUS_LINE, w->seq, line,
	    (size_t)(n + m)) < 0)
		fatal("control: queueing a status line");
}

static const char *
request_verb(int type)
{
	switch (type) {
	case DCPI_CTL_FLUSH:	return "flush";
	case DCPI_CTL_EPOCH:	return "rotate the epoch";
	case DCPI_CTL_QUIT:	return "stop dcpid";
	case DCPI_CTL_RELOAD:	return "reload the configuration";
	case DCPI_CTL_LABEL:	return "label";
	default:		return "do that";
	}
}

/* LABEL: the payload checked, pid 0 made the peer's, the peer authorized
 * by its SO_PEERCRED uid against the process's uids, then the core.
 * Queues the one RESULT.  The name is logged with control characters as
 * '?', for it is the client's text. */
static void
conn_label(struct ctl_conn *c, uint32_t seq, const unsigned char *payload,
    size_t len)
{
	char name[DCPI_CTL_LABEL_MAX + 1], shown[DCPI_CTL_LABEL_MAX + 1];
	char msg[1024];
	struct dcpi_error derr;
	uid_t ruid, euid, uid = c->cred.uid;
	struct procstatus ps;
	uint32_t pid;
	size_t i;
	int code, rc;

	code = dcpi_ctl_label_decode(payload, len, &pid, name, &derr);
	if (code != DCPI_CTL_OK) {
		log_info("control: label request of uid %u (pid %d) refused: %s",
		    (unsigned)uid, (int)c->cred.pid, derr.msg);
		conn_result(c, seq, code, derr.msg);
		/* The header's check makes this unreachable; as there, a
		 * length that is wrong leaves the stream out of step. */
		if (code == DCPI_CTL_ELENGTH)
			c->closing = 1;
		return;
	}
	for (i = 0; name[i] != '\0'; i++)
		shown[i] = iscntrl((unsigned char)name[i]) ? '?' : name[i];
	shown[i] = '\0';
	if (pid == 0) {
		/* 0 when the peer's pid has no number in dcpid's pid
		 * namespace. */
		if (c->cred.pid <= 0) {
			conn_result(c, seq, DCPI_CTL_EFAIL, "dcpid cannot see the "
			    "requesting process (another pid namespace?): give its pid");
			return;
		}
		pid = (uint32_t)c->cred.pid;
	}
	rc = pid > INT_MAX ? -1 : procstatus_read(pid, &ps);
	if (rc == -1 || !(ps.have & PROCSTATUS_UID)) {
		if (rc == -1 && (pid > INT_MAX || errno == ENOENT))
			snprintf(msg, sizeof(msg), "no such process %lu",
			    (unsigned long)pid);
		else
			snprintf(msg, sizeof(msg), "pid %lu: reading /proc/%lu/status: "
			    "%s", (unsigned long)pid, (unsigned long)pid, rc == -1 ?
			    strerror(errno) : "no readable \"Uid:\" line");
		conn_result(c, seq, DCPI_CTL_EFAIL, msg);
		return;
	}
	ruid = (uid_t)ps.uid[0];
	euid = (uid_t)ps.uid[1];
	/* Both uids, so that a set-uid program is not labelled by the user
	 * who runs it (nor by the owner it runs as).  The peer's uid is its
	 * effective uid when it connected. */
	if (uid != 0 && (ruid != uid || euid != uid)) {
		if (ruid == euid)
			snprintf(msg, sizeof(msg), "uid %u may not label pid %lu "
			    "(uid %u's)", (unsigned)uid, (unsigned long)pid,
			    (unsigned)ruid);
		else
			snprintf(msg, sizeof(msg), "uid %u may not label pid %lu "
			    "(real uid %u, effective uid %u)", (unsigned)uid,
			    (unsigned long)pid, (unsigned)ruid, (unsigned)euid);
		log_notice("control: label '%s' of pid %lu denied to uid %u (pid %d)",
		    shown, (unsigned long)pid, (unsigned)uid, (int)c->cred.pid);
		conn_result(c, seq, DCPI_CTL_EPERM, msg);
		return;
	}
	log_info("control: label '%s' for pid %lu requested by uid %u (pid %d)",
	    shown, (unsigned long)pid, (unsigned)uid, (int)c->cred.pid);
	msg[0] = '\0';
	if (ops->label == NULL) {
		snprintf(msg, sizeof(msg), "labelling is not supported by this dcpid");
		rc = -1;
	} else {
		rc = ops->label(pid, name, msg, sizeof(msg));
	}
	msg[sizeof(msg) - 1] = '\0';
	if (msg[0] == '\0')
		snprintf(msg, sizeof(msg), rc == 0 ? "pid %lu labelled '%s'" :
		    "labelling pid %lu '%s' failed", (unsigned long)pid, shown);
	conn_result(c, seq, rc == 0 ? DCPI_CTL_OK : DCPI_CTL_EFAIL, msg);
}

/* Returns -1 if c was closed.  payload: the request's h->length bytes. */
static int
conn_request(struct ctl_conn *c, const struct dcpi_ctl_hdr *h,
    const unsigned char *payload)
{
	struct status_writer w = { .c = c, .seq = h->seq };
	char msg[1024], deny[256];
	int rc;

	/* LABEL checks the peer against the process it names instead. */
	if (h->type != DCPI_CTL_STATUS && h->type != DCPI_CTL_LABEL &&
	    !c->privileged) {
		snprintf(deny, sizeof(deny), "only root or members of group %s may %s",
		    ctlsock_group(), request_verb(h->type));
		log_notice("control: %s denied to uid %u (pid %d)",
		    request_verb(h->type), (unsigned)c->cred.uid, (int)c->cred.pid);
		conn_result(c, h->seq, DCPI_CTL_EPERM, deny);
		return conn_flush(c);
	}
	msg[0] = '\0';
	switch (h->type) {
	case DCPI_CTL_STATUS:
		if (ops->status == NULL) {
			conn_result(c, h->seq, DCPI_CTL_EFAIL, "status is not available");
			break;
		}
		ops->status(&w);
		status_add(&w, "control-connections", "%u", ctlsock_nconns());
		status_add(&w, "control-refused", "%ju", (uintmax_t)ctlsock_nrefused());
		conn_result(c, h->seq, DCPI_CTL_OK, NULL);
		break;
	case DCPI_CTL_FLUSH:
	case DCPI_CTL_EPOCH:
	case DCPI_CTL_RELOAD:
		log_info("control: %s requested by uid %u (pid %d)",
		    request_verb(h->type), (unsigned)c->cred.uid, (int)c->cred.pid);
		if (h->type == DCPI_CTL_FLUSH)
			rc = ops->flush != NULL ? ops->flush(msg, sizeof(msg)) : -1;
		else if (h->type == DCPI_CTL_EPOCH)
			rc = ops->epoch != NULL ? ops->epoch(msg, sizeof(msg)) : -1;
		else
			rc = ops->reload != NULL ? ops->reload(msg, sizeof(msg)) : -1;
		msg[sizeof(msg) - 1] = '\0';
		if (msg[0] == '\0')
			snprintf(msg, sizeof(msg), "%s %s", h->type == DCPI_CTL_FLUSH ?
			    "flush" : h->type == DCPI_CTL_EPOCH ? "epoch rotation" :
			    "reload", rc == 0 ? "done" : "failed");
		conn_result(c, h->seq, rc == 0 ? DCPI_CTL_OK : DCPI_CTL_EFAIL, msg);
		/* A long flush is dcpid's time, not the client's. */
		ctlsock_served(c);
		break;
	case DCPI_CTL_QUIT:
		log_notice("control: quit requested by uid %u (pid %d)",
		    (unsigned)c->cred.uid, (int)c->cred.pid);
		conn_result(c, h->seq, DCPI_CTL_OK, "dcpid is flushing and stopping");
		/* quit() only sets a flag the loop acts on later; the reply goes
		 * out now, or from control_fini if the socket cannot take it. */
		if (ops->quit != NULL)
			ops->quit();
		break;
	case DCPI_CTL_LABEL:
		conn_label(c, h->seq, payload, h->length);
		ctlsock_served(c);
		break;
	}
	return conn_flush(c);
}

/* Reads and answers requests; a few per call, so that one busy client
 * cannot starve the others (the loop calls back while data is waiting). */
static void
conn_read(struct ctl_conn *c)
{
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;
	int n, rc;

	for (n = 0; n < 16 && !c->closing && c->wb.len == 0; n++) {
		rc = dcpi_ctl_rbuf_read(&c->rb, c->fd, &h, &err);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;	/* partial header: wait for the rest */
			if (errno != ECONNRESET)
				log_debug("control: pid %d: read: %s",
				    (int)c->cred.pid, strerror(errno));
			else if (c->rb.len > 0)
				log_info("control: pid %d closed the connection "
				    "after %zu bytes of a request", (int)c->cred.pid,
				    c->rb.len);
			ctlsock_drop(c);
			return;
		}
		if (rc != DCPI_CTL_OK) {
			log_info("control: pid %d uid %u: %s; closing",
			    (int)c->cred.pid, (unsigned)c->cred.uid, err.msg);
			conn_result(c, h.seq, rc, err.msg);
			c->closing = 1;
			conn_flush(c);
			return;
		}
		if (conn_request(c, &h, c->in + DCPI_CTL_HDR_SIZE) < 0)
			return;
	}
}

static void
conn_cb(int fd, uint32_t events, void *arg)
{
	struct ctl_conn *c = ctlsock_find(fd);

	if (c == NULL)
		return;
	if (c->wb.len > 0) {
		if (conn_flush(c) < 0 || c->wb.len > 0)
			return;
	}
	/* A hang-up is noticed by read() returning 0, after what the peer
	 * sent before it. */
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		conn_read(c);
}

int
control_init(const char *path, gid_t gid, const struct control_ops *o)
{
	const struct control_ops *was = ops;

	/* Set before the socket is in the loop; kept if another server's
	 * socket is in the way, for that server is still answering. */
	ops = o;
	if (ctlsock_open(path, gid, conn_cb) < 0) {
		ops = was;
		return -1;
	}
	return 0;
}

void
control_fini(void)
{
	ctlsock_close();
	ops = NULL;
}
