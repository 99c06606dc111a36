/*
 * dcpid's control server, after OpenBSD bgpd's control.c: a non-blocking
 * UNIX socket in the event loop, a header checked before anything else is
 * read, one RESULT per request, and the peer's identity taken from the
 * kernel (SO_PEERCRED, SO_PEERGROUPS), never from the message.
 *
 * Requests carry no payload, so a connection reads at most one header at a
 * time; a connection with a reply still queued is not read, so a client
 * that sends without reading cannot make dcpid buffer without bound.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>

#include <dcpi/ctl.h>

#include "control.h"
#include "log.h"
#include "loop.h"
#include "xmalloc.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS	59	/* Linux 4.13 */
#endif

struct conn {
	struct conn	*next;
	int		 fd;
	struct ucred	 cred;		/* from the kernel at accept */
	int		 privileged;	/* uid 0 or in the socket's group */
	unsigned char	 in[DCPI_CTL_HDR_SIZE];	/* requests have no payload */
	struct dcpi_ctl_rbuf rb;	/* reads into in */
	struct dcpi_ctl_wbuf wb;	/* queued replies */
	uint32_t	 events;	/* what the loop watches now */
	int		 closing;	/* close once out is sent */
	/* ms, monotonic: since when dcpid has been waiting for this client
	 * (accept, or its last reply sent).  Bytes trickling in do not
	 * move it, so a client sending a byte at a time is still timed
	 * out. */
	long long	 since;
};

struct status_writer {
	struct conn	*c;
	uint32_t	 seq;
};

static const struct control_ops *ops;
static char		*sock_path;
static ino_t		 sock_ino;
static gid_t		 sock_gid;
static char		 sock_group[64];
static int		 listen_fd = -1;
static int		 timer_fd = -1;
static int		 timer_armed;
static int		 accept_paused;
static struct conn	*conns;
static unsigned		 nconns;
static unsigned		 idle_ms = CONTROL_IDLE_TIMEOUT_MS;
static unsigned		 max_conns = CONTROL_MAX_CONNS;
static unsigned		 per_uid = CONTROL_MAX_CONNS_PER_UID;
static unsigned		 root_reserve = CONTROL_ROOT_RESERVE;
static uint64_t		 nrefused;
static long long	 last_busy_log;

static void accept_cb(int, uint32_t, void *);
static void conn_cb(int, uint32_t, void *);
static void timer_cb(int, uint32_t, void *);

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
control_set_limits(unsigned idle, unsigned maxc)
{
	idle_ms = idle > 0 ? idle : CONTROL_IDLE_TIMEOUT_MS;
	max_conns = maxc > 0 ? maxc : CONTROL_MAX_CONNS;
}

void
control_set_user_limits(unsigned peruid, unsigned reserve)
{
	per_uid = peruid > 0 ? peruid : CONTROL_MAX_CONNS_PER_UID;
	root_reserve = reserve;
}

/* The timer only runs while there is something to time out or retry. */
static void
timer_update(void)
{
	int want = nconns > 0 || accept_paused;
	long tick = idle_ms / 4;
	struct itimerspec its;

	if (timer_fd < 0 || want == timer_armed)
		return;
	if (tick < 50)
		tick = 50;
	if (tick > 1000)
		tick = 1000;
	memset(&its, 0, sizeof(its));
	if (want) {
		its.it_interval.tv_sec = tick / 1000;
		its.it_interval.tv_nsec = (tick % 1000) * 1000000L;
		its.it_value = its.it_interval;
	}
	if (timerfd_settime(timer_fd, 0, &its, NULL) < 0)
		fatal("control: timerfd_settime");
	timer_armed = want;
}

static void
conn_watch(struct conn *c, uint32_t events)
{
	if (c->events != events) {
		loop_mod(c->fd, events);
		c->events = events;
	}
}

static void
conn_close(struct conn *c)
{
	struct conn **pp;

	for (pp = &conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	loop_del(c->fd);
	close(c->fd);
	dcpi_ctl_wbuf_clear(&c->wb);
	free(c);
	nconns--;
	if (accept_paused) {
		loop_add(listen_fd, EPOLLIN, accept_cb, NULL);
		accept_paused = 0;
	}
	timer_update();
}

/* Events are matched to connections by fd rather than by a pointer given
 * to the loop, so an event already fetched for a connection closed earlier
 * in the same batch can never reach freed memory. */
static struct conn *
conn_find(int fd)
{
	struct conn *c;

	for (c = conns; c != NULL; c = c->next)
		if (c->fd == fd)
			return c;
	return NULL;
}

static void
conn_result(struct conn *c, uint32_t seq, int code, const char *msg)
{
	if (dcpi_ctl_wbuf_queue_result(&c->wb, seq, code, msg) < 0)
		fatal("control: queueing a result");
}

/* Sends what is queued without blocking.  Returns -1 once c is closed
 * (peer gone, or the error reply sent), else 0. */
static int
conn_flush(struct conn *c)
{
	if (dcpi_ctl_wbuf_flush(&c->wb, c->fd) < 0) {
		if (errno == EAGAIN) {
			conn_watch(c, EPOLLOUT);
			return 0;
		}
		log_debug("control: pid %d: send: %s", (int)c->cred.pid,
		    strerror(errno));
		conn_close(c);
		return -1;
	}
	c->since = now_ms();
	if (c->closing) {
		conn_close(c);
		return -1;
	}
	conn_watch(c, EPOLLIN);
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
	default:		return "do that";
	}
}

/* Returns -1 if c was closed. */
static int
conn_request(struct conn *c, const struct dcpi_ctl_hdr *h)
{
	struct status_writer w = { .c = c, .seq = h->seq };
	char msg[1024], deny[256];
	int rc;

	if (h->type != DCPI_CTL_STATUS && !c->privileged) {
		snprintf(deny, sizeof(deny), "only root or members of group %s may %s",
		    sock_group, request_verb(h->type));
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
		status_add(&w, "control-connections", "%u", nconns);
		status_add(&w, "control-refused", "%ju", (uintmax_t)nrefused);
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
		c->since = now_ms();
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
	}
	return conn_flush(c);
}

/* Reads and answers requests; a few per call, so that one busy client
 * cannot starve the others (the loop calls back while data is waiting). */
static void
conn_read(struct conn *c)
{
	struct dcpi_ctl_hdr h;
	char err[256];
	int n, rc;

	for (n = 0; n < 16 && !c->closing && c->wb.len == 0; n++) {
		rc = dcpi_ctl_rbuf_read(&c->rb, c->fd, &h, err, sizeof(err));
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
				    "after %zu of %zu header bytes", (int)c->cred.pid,
				    c->rb.len, sizeof(c->in));
			conn_close(c);
			return;
		}
		if (rc != DCPI_CTL_OK) {
			log_info("control: pid %d uid %u: %s; closing",
			    (int)c->cred.pid, (unsigned)c->cred.uid, err);
			conn_result(c, h.seq, rc, err);
			c->closing = 1;
			conn_flush(c);
			return;
		}
		if (conn_request(c, &h) < 0)
			return;
	}
}

static void
conn_cb(int fd, uint32_t events, void *arg)
{
	struct conn *c = conn_find(fd);

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

static int
in_group(gid_t g, const gid_t *groups, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (groups[i] == g)
			return 1;
	return 0;
}

/* uid 0 or the socket's group, as primary or supplementary group at the
 * time the peer connected (SO_PEERGROUPS), as the kernel recorded it. */
static int
peer_privileged(int fd, const struct ucred *cred)
{
	gid_t small[64], *groups = small;
	socklen_t len = sizeof(small);
	int ok, ng;

	if (cred->uid == 0 || cred->gid == sock_gid)
		return 1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		if (errno == ERANGE) {
			groups = xmalloc(len);
			if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
				log_warn("control: SO_PEERGROUPS");
				free(groups);
				return 0;
			}
		} else if (errno == ENOPROTOOPT) {
			/* Kernels before 4.13: the user's groups from the
			 * group database instead. */
			struct passwd *pw = getpwuid(cred->uid);

			ng = sizeof(small) / sizeof(small[0]);
			if (pw == NULL || getgrouplist(pw->pw_name, cred->gid,
			    small, &ng) < 0)
				return 0;
			return in_group(sock_gid, small, (size_t)ng);
		} else {
			log_warn("control: SO_PEERGROUPS");
			return 0;
		}
	}
	ok = in_group(sock_gid, groups, len / sizeof(gid_t));
	if (groups != small)
		free(groups);
	return ok;
}

/*
 * Whether a connection from uid fits: the total cap for everyone; for
 * others than root, also a cap per uid and the total less the slots kept
 * for root, so that neither one user nor many together can lock root (or
 * each other) out.  The newcomer is the one refused: those already in are
 * at most idle_ms from being served or closed.  Returns 1, or 0 with the
 * reason in why[whylen].
 */
static int
admit(uid_t uid, char *why, size_t whylen)
{
	unsigned mine = 0, unprivileged = 0, open_to_others;
	struct conn *c;

	for (c = conns; c != NULL; c = c->next) {
		if (c->cred.uid == uid)
			mine++;
		if (c->cred.uid != 0)
			unprivileged++;
	}
	open_to_others = max_conns > root_reserve ? max_conns - root_reserve : 0;
	if (nconns >= max_conns)
		snprintf(why, whylen, "too many control connections (%u open, "
		    "the limit); try again later", nconns);
	else if (uid != 0 && mine >= per_uid)
		snprintf(why, whylen, "too many control connections from uid %u "
		    "(%u open, the limit per user); try again later",
		    (unsigned)uid, mine);
	else if (uid != 0 && unprivileged >= open_to_others)
		snprintf(why, whylen, "too many control connections (%u open; "
		    "the other %u are kept for root); try again later",
		    unprivileged, max_conns - open_to_others);
	else
		return 1;
	return 0;
}

/* A RESULT with sequence 0 (the connection's), on a connection about to be
 * closed: as much as the socket takes at once, no waiting, no queue kept. */
static void
send_result_now(int fd, int code, const char *msg, const char *doing)
{
	unsigned char buf[DCPI_CTL_HDR_SIZE + 256];
	struct dcpi_ctl_wbuf wb = { .buf = buf, .cap = sizeof(buf) };
	long n = dcpi_ctl_encode_result(buf, sizeof(buf), 0, code, msg);

	if (n <= 0)
		return;
	wb.len = (size_t)n;
	if (dcpi_ctl_wbuf_flush(&wb, fd) < 0)
		log_debug("control: %s%s", doing, strerror(errno));
}

/*
 * Turned away at the door with a reason, rather than left hanging: one
 * RESULT with sequence 0 (the connection's, not a request's: ctl.h), sent
 * before anything is read, then the close.  A UNIX socket keeps what was
 * sent for the peer to read even after the close, so a client that sends
 * its request afterwards and gets EPIPE still reads the reason.
 */
static void
refuse_busy(int fd, uid_t uid, const char *why)
{
	long long now = now_ms();

	nrefused++;
	send_result_now(fd, DCPI_CTL_EBUSY, why, "refusing a connection: ");
	close(fd);
	/* A flood of refusals must not flood the log too. */
	if (now - last_busy_log >= 10000) {
		log_warnx("control: refused uid %u: %s (%ju refused so far)",
		    (unsigned)uid, why, (uintmax_t)nrefused);
		last_busy_log = now;
	}
}

static void
accept_cb(int fd, uint32_t events, void *arg)
{
	struct ucred cred;
	struct conn *c;
	socklen_t len;
	char why[160];
	int cfd, i;

	for (i = 0; i < 64; i++) {
		cfd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			log_warn("control: accept");
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/* Retried when a connection closes or the
				 * timer ticks, not in a busy loop. */
				loop_del(listen_fd);
				accept_paused = 1;
			}
			break;
		}
		len = sizeof(cred);
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			log_warn("control: SO_PEERCRED");
			close(cfd);
			continue;
		}
		if (!admit(cred.uid, why, sizeof(why))) {
			refuse_busy(cfd, cred.uid, why);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = cfd;
		c->cred = cred;
		c->privileged = peer_privileged(cfd, &c->cred);
		c->since = now_ms();
		c->events = EPOLLIN;
		c->rb.buf = c->in;
		c->rb.size = sizeof(c->in);
		c->rb.dir = DCPI_CTL_TO_DAEMON;
		c->next = conns;
		conns = c;
		nconns++;
		loop_add(cfd, EPOLLIN, conn_cb, NULL);
		log_debug("control: connection from pid %d uid %u gid %u%s",
		    (int)c->cred.pid, (unsigned)c->cred.uid, (unsigned)c->cred.gid,
		    c->privileged ? " (privileged)" : "");
	}
	timer_update();
}

static void
timer_cb(int fd, uint32_t events, void *arg)
{
	struct conn *c, *next;
	uint64_t ticks;
	long long now = now_ms();
	char msg[128];

	if (read(timer_fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		log_warn("control: timerfd");
	for (c = conns; c != NULL; c = next) {
		next = c->next;
		if (now - c->since < (long long)idle_ms)
			continue;
		log_info("control: closing the connection of pid %d uid %u: "
		    "no complete exchange within %u ms (%zu header bytes "
		    "received, %zu reply bytes unsent)", (int)c->cred.pid,
		    (unsigned)c->cred.uid, idle_ms, c->rb.len,
		    c->wb.len - c->wb.off);
		if (c->wb.len == 0) {
			/* Tell a client stuck in mid-request why, if the
			 * socket takes it; no waiting. */
			snprintf(msg, sizeof(msg), "timed out after %u ms waiting "
			    "for a complete request", idle_ms);
			send_result_now(c->fd, DCPI_CTL_EHEADER, msg, "");
		}
		conn_close(c);
	}
	if (accept_paused) {
		loop_add(listen_fd, EPOLLIN, accept_cb, NULL);
		accept_paused = 0;
	}
	timer_update();
}

/* Creates the missing directories of path's parent, mode 0755. */
static int
make_parent(const char *path)
{
	char *dir = xstrdup(path), *p;
	int rc = 0;

	p = strrchr(dir, '/');
	if (p == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; rc == 0; p++) {
		int last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) == 0) {
			/* Whatever the umask, others must reach the socket. */
			if (chmod(dir, 0755) < 0)
				rc = -1;
		} else if (errno != EEXIST) {
			rc = -1;
		}
		if (last)
			break;
		*p = '/';
	}
	if (rc < 0)
		log_warn("control: cannot create the directory %s", dir);
	free(dir);
	return rc;
}

/* Refuses to take the socket over from a live daemon; removes a stale one. */
static int
claim_path(const char *path)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : (log_warn("control: %s", path), -1);
	if (!S_ISSOCK(st.st_mode)) {
		log_warnx("control: %s exists and is not a socket; not replacing it",
		    path);
		errno = EEXIST;
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("control: socket");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	if (rc == 0) {
		log_warnx("control: another dcpid is answering on %s; "
		    "stop it or choose another --socket", path);
		errno = EADDRINUSE;
		return -1;
	}
	if (errno != ECONNREFUSED) {
		log_warn("control: cannot probe %s", path);
		return -1;
	}
	log_info("control: removing the stale socket %s", path);
	if (unlink(path) < 0 && errno != ENOENT) {
		log_warn("control: cannot remove the stale socket %s", path);
		return -1;
	}
	return 0;
}

int
control_init(const char *path, gid_t gid, const struct control_ops *o)
{
	struct sockaddr_un sun;
	struct group *gr;
	struct stat st;
	mode_t old;
	int fd, saved;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("control: socket path longer than %zu bytes: %s",
		    sizeof(sun.sun_path) - 1, path);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (make_parent(path) < 0 || claim_path(path) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("control: socket");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	/* Never wider than 0660, not even between bind and chmod. */
	old = umask(0117);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		saved = errno;
		umask(old);
		log_warn("control: bind %s", path);
		goto fail;
	}
	umask(old);
	/* Under the unit (Group=dcpi) the socket has its group already, and
	 * chown is outside the unit's SystemCallFilter=. */
	if (stat(path, &st) < 0 || (gid != (gid_t)-1 && st.st_gid != gid &&
	    chown(path, (uid_t)-1, gid) < 0) ||
	    chmod(path, 0660) < 0 || stat(path, &st) < 0) {
		saved = errno;
		log_warn("control: setting the owner and mode of %s", path);
		unlink(path);
		goto fail;
	}
	if (listen(fd, 128) < 0) {
		saved = errno;
		log_warn("control: listen %s", path);
		unlink(path);
		goto fail;
	}
	timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (timer_fd < 0) {
		saved = errno;
		log_warn("control: timerfd_create");
		unlink(path);
		goto fail;
	}
	sock_ino = st.st_ino;
	sock_gid = st.st_gid;
	if ((gr = getgrgid(sock_gid)) != NULL)
		snprintf(sock_group, sizeof(sock_group), "%s", gr->gr_name);
	else
		snprintf(sock_group, sizeof(sock_group), "%u", (unsigned)sock_gid);
	sock_path = xstrdup(path);
	ops = o;
	listen_fd = fd;
	timer_armed = 0;
	accept_paused = 0;
	nrefused = 0;
	loop_add(listen_fd, EPOLLIN, accept_cb, NULL);
	loop_add(timer_fd, EPOLLIN, timer_cb, NULL);
	log_info("control: listening on %s (group %s)", path, sock_group);
	return 0;
fail:
	close(fd);
	errno = saved;
	return -1;
}

void
control_fini(void)
{
	struct stat st;

	while (conns != NULL) {
		/* Last chance for a queued reply, e.g. QUIT's. */
		if (dcpi_ctl_wbuf_flush(&conns->wb, conns->fd) < 0)
			log_debug("control: %s", strerror(errno));
		conn_close(conns);
	}
	if (listen_fd >= 0) {
		if (!accept_paused)
			loop_del(listen_fd);
		close(listen_fd);
		listen_fd = -1;
		accept_paused = 0;
	}
	if (timer_fd >= 0) {
		loop_del(timer_fd);
		close(timer_fd);
		timer_fd = -1;
		timer_armed = 0;
	}
	/* Only our own socket: never one that replaced it. */
	if (sock_path != NULL) {
		if (lstat(sock_path, &st) == 0 && st.st_ino == sock_ino)
			unlink(sock_path);
		free(sock_path);
		sock_path = NULL;
	}
	ops = NULL;
}
