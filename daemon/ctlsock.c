/*
 * The control server's socket, after OpenBSD bgpd's control.c: a
 * non-blocking UNIX socket in the event loop, the peer's identity taken
 * from the kernel (SO_PEERCRED, SO_PEERGROUPS), never from a message, and
 * limits on how many connections each user may hold and for how long, so
 * that no client can lock out another or make dcpid hold memory without
 * bound.  The requests themselves are daemon/control.c's.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <dcpi/ctl.h>

#include "control.h"
#include "ctlsock.h"
#include "log.h"
#include "loop.h"
#include "util.h"
#include "xmalloc.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS	59	/* Linux 4.13 */
#endif

static char		*sock_path;
static ino_t		 sock_ino;
static gid_t		 sock_gid;
static char		 sock_group[64];
static int		 listen_fd = -1;
static struct loop_timer *timer;
static int		 accept_paused;
static struct ctl_conn	*conns;
static unsigned		 nconns;
static unsigned		 idle_ms = CONTROL_IDLE_TIMEOUT_MS;
static unsigned		 max_conns = CONTROL_MAX_CONNS;
static unsigned		 per_uid = CONTROL_MAX_CONNS_PER_UID;
static unsigned		 root_reserve = CONTROL_ROOT_RESERVE;
static uint64_t		 nrefused;
static long long	 last_busy_log;
static loop_cb		 conn_cb;	/* control.c's, for each connection */

static void accept_cb(int, uint32_t, void *);
static void timer_cb(struct loop_timer *, void *);


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

/*
 * One timer for all connections, due at the earliest one's time-out (an
 * answer moves a deadline only later, so a timer that fires early just
 * looks again), and only while there is something to time out or retry.
 * A paused accept is retried after a quarter of the idle limit (50 ms to
 * 1 s), time enough for descriptors to be given back.
 */
static void
timer_update(void)
{
	long long now = now_ms(), due = -1, pause = idle_ms / 4;
	struct ctl_conn *c;

	if (listen_fd < 0)
		return;
	for (c = conns; c != NULL; c = c->next)
		if (due == -1 || c->since + (long long)idle_ms < due)
			due = c->since + (long long)idle_ms;
	if (accept_paused) {
		pause = pause < 50 ? 50 : pause > 1000 ? 1000 : pause;
		if (due == -1 || now + pause < due)
			due = now + pause;
	}
	if (due == -1) {
		if (timer != NULL)
			loop_timer_stop(timer);
		return;
	}
	due = due > now ? due - now : 0;
	if (timer == NULL)
		timer = loop_timer_add((uint64_t)due, timer_cb, NULL);
	else
		loop_timer_set(timer, (uint64_t)due);
}

void
ctlsock_watch(struct ctl_conn *c, uint32_t events)
{
	if (c->events != events) {
		loop_mod(c->fd, events);
		c->events = events;
	}
}

void
ctlsock_drop(struct ctl_conn *c)
{
	struct ctl_conn **pp;

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
struct ctl_conn *
ctlsock_find(int fd)
{
	struct ctl_conn *c;

	for (c = conns; c != NULL; c = c->next)
		if (c->fd == fd)
			return c;
	return NULL;
}

void
ctlsock_served(struct ctl_conn *c)
{
	c->since = now_ms();
}

const char *
ctlsock_group(void)
{
	return sock_group;
}

unsigned
ctlsock_nconns(void)
{
	return nconns;
}

uint64_t
ctlsock_nrefused(void)
{
	return nrefused;
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
	struct ctl_conn *c;

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
	struct ctl_conn *c;
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
				 * timer fires, not in a busy loop. */
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
timer_cb(struct loop_timer *t, void *arg)
{
	struct ctl_conn *c, *next;
	long long now = now_ms();
	char msg[128];

	for (c = conns; c != NULL; c = next) {
		next = c->next;
		if (now - c->since < (long long)idle_ms)
			continue;
		log_info("control: closing the connection of pid %d uid %u: "
		    "no complete exchange within %u ms (%zu request bytes "
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
		ctlsock_drop(c);
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

/* A stream socket (socket(2) flags) and *sun naming path, which fits. */
static int
unix_socket(int flags, const char *path, struct sockaddr_un *sun)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | flags, 0);

	if (fd < 0) {
		log_warn("control: socket");
		return -1;
	}
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return fd;
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
	if ((fd = unix_socket(SOCK_CLOEXEC, path, &sun)) < 0)
		return -1;
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
ctlsock_open(const char *path, gid_t gid, loop_cb cb)
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
	if ((fd = unix_socket(SOCK_NONBLOCK | SOCK_CLOEXEC, path, &sun)) < 0)
		return -1;
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
	sock_ino = st.st_ino;
	sock_gid = st.st_gid;
	if ((gr = getgrgid(sock_gid)) != NULL)
		snprintf(sock_group, sizeof(sock_group), "%s", gr->gr_name);
	else
		snprintf(sock_group, sizeof(sock_group), "%u", (unsigned)sock_gid);
	sock_path = xstrdup(path);
	conn_cb = cb;
	listen_fd = fd;
	accept_paused = 0;
	nrefused = 0;
	loop_add(listen_fd, EPOLLIN, accept_cb, NULL);
	log_info("control: listening on %s (group %s)", path, sock_group);
	return 0;
fail:
	close(fd);
	errno = saved;
	return -1;
}

void
ctlsock_close(void)
{
	struct stat st;

	while (conns != NULL) {
		/* Last chance for a queued reply, e.g. QUIT's. */
		if (dcpi_ctl_wbuf_flush(&conns->wb, conns->fd) < 0)
			log_debug("control: %s", strerror(errno));
		ctlsock_drop(conns);
	}
	if (listen_fd >= 0) {
		if (!accept_paused)
			loop_del(listen_fd);
		close(listen_fd);
		listen_fd = -1;
		accept_paused = 0;
	}
	loop_timer_del(timer);
	timer = NULL;
	/* Only our own socket: never one that replaced it. */
	if (sock_path != NULL) {
		if (lstat(sock_path, &st) == 0 && st.st_ino == sock_ino)
			unlink(sock_path);
		free(sock_path);
		sock_path = NULL;
	}
}
