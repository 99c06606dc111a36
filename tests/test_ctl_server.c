/*
 * dcpid's control server (daemon/control.c, daemon/ctlsock.c) in dcpid's
 * loop run in a thread, with fake daemon callbacks.  Clients are real
 * sockets: garbage, oversized and half-sent messages, 100 concurrent
 * clients, the connection cap, and SO_PEERCRED authorization for an
 * unprivileged uid (fork + setuid, as the tests run as root), LABEL's
 * included: whose processes a uid may label.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <dcpi/ctl.h>

#include "control.h"
#include "loop.h"

#define SOCK_GID	4242	/* the socket's group; no one else has it */
#define NOBODY		65534

/* --- dcpid's loop (daemon/loop.c), run in a thread: the server's
 * callbacks and its timer run there, while the test's clients block in
 * the main thread. */

static volatile int stop_loop;
static pthread_t loop_thread;

static void *
loop_main(void *arg)
{
	while (!__atomic_load_n(&stop_loop, __ATOMIC_ACQUIRE))
		loop_wait(50, NULL);
	return NULL;
}

/* --- The daemon's side. */

static int nflush, nepoch, nquit;

static void
fake_status(struct status_writer *w)
{
	status_add(w, "samples", "%d", 12345);
	status_add(w, "epoch", "%s", "20261121223000");
}

static int
fake_flush(char *msg, size_t len)
{
	int n = __atomic_add_fetch(&nflush, 1, __ATOMIC_SEQ_CST);

	snprintf(msg, len, "flush %d written", n);
	return 0;
}

static int
fake_epoch(char *msg, size_t len)
{
	__atomic_add_fetch(&nepoch, 1, __ATOMIC_SEQ_CST);
	snprintf(msg, len, "epoch failed: /db: No space left on device");
	return -1;
}

static void
fake_quit(void)
{
	__atomic_add_fetch(&nquit, 1, __ATOMIC_SEQ_CST);
}

/* The last LABEL the core was asked for (written in the loop's thread
 * before the reply is queued, read after the reply came). */
static int nlabel;
static uint32_t label_pid;
static char label_name[DCPI_CTL_LABEL_MAX + 1];

static int
fake_label(uint32_t pid, const char *name, char *msg, size_t len)
{
	__atomic_add_fetch(&nlabel, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&label_pid, pid, __ATOMIC_SEQ_CST);
	snprintf(label_name, sizeof(label_name), "%s", name);
	if (strcmp(name, "fail") == 0) {
		snprintf(msg, len, "pid %lu has exited", (unsigned long)pid);
		return -1;
	}
	return 0;
}

static const struct control_ops ops = {
	.status = fake_status, .flush = fake_flush, .epoch = fake_epoch,
	.quit = fake_quit, .label = fake_label,
};
/* A core that cannot label. */
static const struct control_ops ops_nolabel = {
	.status = fake_status, .flush = fake_flush, .epoch = fake_epoch,
	.quit = fake_quit,
};
static const struct control_ops *start_ops = &ops;

static char dir[48], path[96];
static unsigned start_max = CONTROL_MAX_CONNS;

static int
start(unsigned idle_ms)
{
	snprintf(dir, sizeof(dir), "/tmp/dcpi-ctltest.XXXXXX");
	if (mkdtemp(dir) == NULL || chmod(dir, 0755) < 0)
		return -1;
	/* A directory that does not exist yet: control_init makes it. */
	snprintf(path, sizeof(path), "%s/run/dcpid.sock", dir);
	loop_init();
	control_set_limits(idle_ms, start_max);
	if (control_init(path, SOCK_GID, start_ops) < 0)
		return -1;
	nflush = nepoch = nquit = nlabel = 0;
	label_pid = 0;
	label_name[0] = '\0';
	stop_loop = 0;
	return pthread_create(&loop_thread, NULL, loop_main, NULL) == 0 ? 0 : -1;
}

static int setup_default(void **state) { return start(CONTROL_IDLE_TIMEOUT_MS); }
static int teardown(void **state);

/* Small limits: 12 in all, 4 per user, 3 kept for root (9 for the rest). */
#define FAIR_MAX	12
#define FAIR_PER_UID	4
#define FAIR_RESERVE	3
static int
setup_fair(void **state)
{
	control_set_user_limits(FAIR_PER_UID, FAIR_RESERVE);
	start_max = FAIR_MAX;
	return start(CONTROL_IDLE_TIMEOUT_MS);
}

static int
teardown_fair(void **state)
{
	start_max = CONTROL_MAX_CONNS;
	control_set_user_limits(CONTROL_MAX_CONNS_PER_UID, CONTROL_ROOT_RESERVE);
	return teardown(state);
}
static int setup_short(void **state) { return start(300); }

static int
setup_nolabel(void **state)
{
	start_ops = &ops_nolabel;
	return start(CONTROL_IDLE_TIMEOUT_MS);
}

static int
teardown_nolabel(void **state)
{
	start_ops = &ops;
	return teardown(state);
}

static int
teardown(void **state)
{
	struct stat st;
	char sub[160];

	__atomic_store_n(&stop_loop, 1, __ATOMIC_RELEASE);
	pthread_join(loop_thread, NULL);
	control_fini();
	/* control_fini removes its socket. */
	if (lstat(path, &st) == 0 || errno != ENOENT)
		return -1;
	loop_fini();
	snprintf(sub, sizeof(sub), "%s/run", dir);
	rmdir(sub);
	return rmdir(dir);
}

/* --- Clients. */

static int
client(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct reply {
	int	code;		/* RESULT code, or -1: none */
	int	nlines;
	char	lines[8][128];
	char	text[256];
};

/* Reads until the RESULT; returns its code, or -1 (errno) on EOF/timeout. */
static int
read_reply(int fd, struct reply *r)
{
	static __thread struct dcpi_ctl_msg m;
	const char *text;
	size_t len;
	struct dcpi_error err;
	int rc;

	memset(r, 0, sizeof(*r));
	r->code = -1;
	for (;;) {
		rc = dcpi_ctl_recv(fd, 10000, DCPI_CTL_TO_CLIENT, &m, &err);
		if (rc != DCPI_CTL_OK)
			return -1;
		if (m.hdr.type == DCPI_CTL_RESULT)
			break;
		if (r->nlines < 8)
			snprintf(r->lines[r->nlines], sizeof(r->lines[0]), "%.*s",
			    (int)m.hdr.length, (const char *)m.payload);
		r->nlines++;
	}
	r->code = dcpi_ctl_result(&m, &text, &len);
	snprintf(r->text, sizeof(r->text), "%.*s", (int)len, text);
	return r->code;
}

static int
request(int type, struct reply *r)
{
	int fd = client(), rc;

	if (fd < 0)
		return -1;
	/* A refused connection may be closed before the request: its reason
	 * is still there to read. */
	if (dcpi_ctl_send(fd, (uint16_t)type, 42, NULL, 0) < 0 && errno != EPIPE) {
		close(fd);
		return -1;
	}
	rc = read_reply(fd, r);
	close(fd);
	return rc;
}

/* A LABEL request for pid and name (its encoder's checks bypassed, so that
 * bad names reach the daemon). */
static int
request_label(uint32_t pid, const char *name, struct reply *r)
{
	struct dcpi_ctl_label l = { .pid = pid };
	unsigned char p[sizeof(l) + DCPI_CTL_LABEL_MAX];
	size_t len = strlen(name);
	int fd = client(), rc;

	if (fd < 0 || len > DCPI_CTL_LABEL_MAX)
		return -1;
	memcpy(p, &l, sizeof(l));
	memcpy(p + sizeof(l), name, len);
	if (dcpi_ctl_send(fd, DCPI_CTL_LABEL, 43, p, sizeof(l) + len) < 0) {
		close(fd);
		return -1;
	}
	rc = read_reply(fd, r);
	close(fd);
	return rc;
}

/* After an error reply the daemon closes: the next read sees the end. */
static void
assert_closed(int fd)
{
	char c;
	ssize_t n = read(fd, &c, 1);

	assert_true(n == 0 || (n < 0 && errno == ECONNRESET));
}

static void
send_raw(int fd, const void *buf, size_t len)
{
	assert_int_equal(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

static void
assert_still_answers(void)
{
	struct reply r;

	assert_int_equal(request(DCPI_CTL_STATUS, &r), DCPI_CTL_OK);
	assert_string_equal(r.lines[0], "samples 12345");
}

/* --- Tests. */

static void
test_socket_mode(void **state)
{
	struct stat st;
	char sub[160];

	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0660);
	assert_int_equal(st.st_gid, SOCK_GID);
	snprintf(sub, sizeof(sub), "%s/run", dir);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
}

static void
test_status(void **state)
{
	struct reply r;

	assert_int_equal(request(DCPI_CTL_STATUS, &r), DCPI_CTL_OK);
	assert_int_equal(r.nlines, 4);
	assert_string_equal(r.lines[0], "samples 12345");
	assert_string_equal(r.lines[1], "epoch 20261121223000");
	assert_string_equal(r.lines[2], "control-connections 1");
	assert_string_equal(r.lines[3], "control-refused 0");
	assert_int_equal(__atomic_load_n(&nflush, __ATOMIC_SEQ_CST), 0);
}

static void
test_flush_epoch_quit_root(void **state)
{
	struct reply r;

	assert_int_equal(request(DCPI_CTL_FLUSH, &r), DCPI_CTL_OK);
	assert_string_equal(r.text, "flush 1 written");
	assert_int_equal(request(DCPI_CTL_FLUSH, &r), DCPI_CTL_OK);
	assert_string_equal(r.text, "flush 2 written");
	/* A failure carries the daemon's message. */
	assert_int_equal(request(DCPI_CTL_EPOCH, &r), DCPI_CTL_EFAIL);
	assert_string_equal(r.text, "epoch failed: /db: No space left on device");
	assert_int_equal(__atomic_load_n(&nepoch, __ATOMIC_SEQ_CST), 1);
	assert_int_equal(request(DCPI_CTL_QUIT, &r), DCPI_CTL_OK);
	assert_int_equal(__atomic_load_n(&nquit, __ATOMIC_SEQ_CST), 1);
}

static void
test_sequence_and_pipelining(void **state)
{
	struct reply r;
	int fd = client();
	unsigned char b[2 * DCPI_CTL_HDR_SIZE];

	assert_true(fd >= 0);
	/* Two requests in one write, answered in order on one connection. */
	assert_int_equal(dcpi_ctl_encode(b, sizeof(b), DCPI_CTL_STATUS, 7, NULL, 0),
	    DCPI_CTL_HDR_SIZE);
	assert_int_equal(dcpi_ctl_encode(b + DCPI_CTL_HDR_SIZE, DCPI_CTL_HDR_SIZE,
	    DCPI_CTL_FLUSH, 8, NULL, 0), DCPI_CTL_HDR_SIZE);
	send_raw(fd, b, sizeof(b));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_OK);
	assert_int_equal(r.nlines, 4);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_OK);
	assert_string_equal(r.text, "flush 1 written");
	close(fd);
}

static void
test_garbage(void **state)
{
	struct reply r;
	int fd = client();

	assert_true(fd >= 0);
	send_raw(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_EVERSION);
	assert_non_null(strstr(r.text, "expected 1"));
	assert_closed(fd);
	close(fd);
	assert_still_answers();
}

static void
test_wrong_version(void **state)
{
	struct reply r;
	int fd = client();

	assert_true(fd >= 0);
	/* Two bytes are enough to know; no waiting for a full header. */
	send_raw(fd, "\2\0", 2);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_EVERSION);
	assert_non_null(strstr(r.text, "version 2"));
	assert_closed(fd);
	close(fd);
}

static void
test_oversized(void **state)
{
	struct dcpi_ctl_hdr h = { .version = DCPI_CTL_VERSION, .type = DCPI_CTL_STATUS,
	    .length = 1u << 31, .seq = 99 };
	struct reply r;
	int fd = client();

	assert_true(fd >= 0);
	send_raw(fd, &h, sizeof(h));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(r.text, "2147483648"));
	assert_closed(fd);
	close(fd);

	/* A request with a payload is refused before the payload is read,
	 * and the request is not carried out. */
	fd = client();
	h.type = DCPI_CTL_FLUSH;
	h.length = 4;
	{
		unsigned char b[sizeof(h) + 4];

		memcpy(b, &h, sizeof(h));
		memcpy(b + sizeof(h), "abcd", 4);
		send_raw(fd, b, sizeof(b));
	}
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_ELENGTH);
	assert_closed(fd);
	close(fd);
	assert_int_equal(__atomic_load_n(&nflush, __ATOMIC_SEQ_CST), 0);
	assert_still_answers();
}

static void
test_unknown_type_reserved(void **state)
{
	struct dcpi_ctl_hdr h = { .version = DCPI_CTL_VERSION, .type = 77 };
	struct reply r;
	int fd = client();

	send_raw(fd, &h, sizeof(h));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_ETYPE);
	assert_closed(fd);
	close(fd);
	/* A reply type sent to the daemon is not a request either. */
	fd = client();
	h.type = DCPI_CTL_RESULT;
	h.length = 4;
	send_raw(fd, &h, sizeof(h));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_ETYPE);
	close(fd);
	fd = client();
	h.type = DCPI_CTL_STATUS;
	h.length = 0;
	h.reserved = 1;
	send_raw(fd, &h, sizeof(h));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_EHEADER);
	assert_closed(fd);
	close(fd);
	assert_still_answers();
}

static void
test_half_sent_then_close(void **state)
{
	struct dcpi_ctl_hdr h = { .version = DCPI_CTL_VERSION, .type = DCPI_CTL_FLUSH };
	int i, fd;

	for (i = 1; i < (int)sizeof(h); i++) {
		fd = client();
		assert_true(fd >= 0);
		send_raw(fd, &h, (size_t)i);
		close(fd);
	}
	assert_still_answers();
	assert_int_equal(__atomic_load_n(&nflush, __ATOMIC_SEQ_CST), 0);
}

/* Split in pieces with pauses: the server waits for the rest. */
static void
test_slow_request(void **state)
{
	struct dcpi_ctl_hdr h = { .version = DCPI_CTL_VERSION, .type = DCPI_CTL_FLUSH,
	    .seq = 5 };
	const unsigned char *p = (const unsigned char *)&h;
	struct reply r;
	int fd = client();

	send_raw(fd, p, 3);
	usleep(20000);
	send_raw(fd, p + 3, 10);
	usleep(20000);
	send_raw(fd, p + 13, 3);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_OK);
	close(fd);
}

/* With a 300 ms idle limit, a half-sent request is dropped with a reason
 * and does not hold its slot. */
static void
test_idle_timeout(void **state)
{
	struct reply r;
	int fd = client(), fd2 = client();

	assert_true(fd >= 0 && fd2 >= 0);
	send_raw(fd, "\1\0\2", 3);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_EHEADER);
	assert_non_null(strstr(r.text, "timed out"));
	assert_closed(fd);
	close(fd);
	/* One that sends nothing at all goes the same way. */
	assert_int_equal(read_reply(fd2, &r), DCPI_CTL_EHEADER);
	close(fd2);
	assert_still_answers();
}

#define NCLIENTS 100

static void
test_concurrent(void **state)
{
	int fds[NCLIENTS], i, max = 0, n;
	struct reply r;

	for (i = 0; i < NCLIENTS; i++) {
		fds[i] = client();
		assert_true(fds[i] >= 0);
	}
	for (i = 0; i < NCLIENTS; i++)
		assert_int_equal(dcpi_ctl_send(fds[i], DCPI_CTL_STATUS, (uint32_t)i,
		    NULL, 0), 0);
	for (i = NCLIENTS - 1; i >= 0; i--) {
		assert_int_equal(read_reply(fds[i], &r), DCPI_CTL_OK);
		assert_int_equal(r.nlines, 4);
		assert_int_equal(sscanf(r.lines[2], "control-connections %d", &n), 1);
		if (n > max)
			max = n;
	}
	/* They were open at the same time. */
	assert_true(max > 1 && max <= NCLIENTS);
	for (i = 0; i < NCLIENTS; i++)
		close(fds[i]);
	assert_still_answers();
}

static void
test_connection_cap(void **state)
{
	int fds[CONTROL_MAX_CONNS], extra, i;
	struct reply r;

	for (i = 0; i < CONTROL_MAX_CONNS; i++) {
		fds[i] = client();
		assert_true(fds[i] >= 0);
	}
	/* Accepted in order: this one is past the cap. */
	extra = client();
	assert_true(extra >= 0);
	assert_int_equal(read_reply(extra, &r), DCPI_CTL_EBUSY);
	assert_non_null(strstr(r.text, "too many"));
	close(extra);
	/* Those inside still work. */
	assert_int_equal(dcpi_ctl_send(fds[5], DCPI_CTL_STATUS, 1, NULL, 0), 0);
	assert_int_equal(read_reply(fds[5], &r), DCPI_CTL_OK);
	for (i = 0; i < CONTROL_MAX_CONNS; i++)
		close(fds[i]);
	/* Once they are gone, new clients are served again. */
	for (i = 0; i < 100; i++) {
		if (request(DCPI_CTL_STATUS, &r) == DCPI_CTL_OK)
			break;
		usleep(20000);
	}
	assert_int_equal(r.code, DCPI_CTL_OK);
}

/* Out of descriptors, dcpid stops accepting rather than spin on EMFILE,
 * and its timer takes the waiting client in once there are some again. */
static void
test_accept_paused(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct rlimit old, low;
	struct reply r;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), lowest;

	assert_true(fd >= 0);
	assert_true((lowest = dup(0)) >= 0);
	close(lowest);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	/* Every descriptor below lowest is in use: accept gets none. */
	low = old;
	low.rlim_cur = (rlim_t)lowest;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(dcpi_ctl_send(fd, DCPI_CTL_STATUS, 7, NULL, 0), 0);
	usleep(200000);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_OK);
	assert_string_equal(r.lines[0], "samples 12345");
	close(fd);
	assert_still_answers();
}

/* A client whose reply is not read is closed after the idle limit, and its
 * output does not stop the others. */
static void
test_unread_replies(void **state)
{
	unsigned char b[64 * DCPI_CTL_HDR_SIZE];
	int fd = client(), i;

	for (i = 0; i < 64; i++)
		dcpi_ctl_encode(b + i * DCPI_CTL_HDR_SIZE, DCPI_CTL_HDR_SIZE,
		    DCPI_CTL_STATUS, (uint32_t)i, NULL, 0);
	for (i = 0; i < 50; i++)
		if (send(fd, b, sizeof(b), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			break;
	assert_still_answers();
	close(fd);
	assert_still_answers();
}

/*
 * A user holding connections: a child that becomes uid (in the socket's
 * group), opens n connections, asks STATUS on each and keeps them open
 * until told to go.  It reports how many were answered and how many were
 * refused with EBUSY, sequence 0 and "too many control connections"
 * (with want_text in it, if given); anything else is an error.
 */
struct holder {
	pid_t	pid;
	int	go;		/* write end: closing it releases the child */
	int	ok, busy, other;
};

static int
hold(struct holder *h, uid_t uid, int n, const char *want_text)
{
	int rep[2], go[2], fds[256], i, counts[3] = { 0, 0, 0 };
	gid_t g = SOCK_GID;
	struct reply r;
	char c;

	assert_true(n <= 256);
	if (pipe(rep) < 0 || pipe(go) < 0)
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		close(rep[0]);
		close(go[1]);
		if (setgroups(1, &g) < 0 || setgid(SOCK_GID) < 0 || setuid(uid) < 0)
			_exit(10);
		for (i = 0; i < n; i++)
			if ((fds[i] = client()) < 0)
				_exit(11);
		for (i = 0; i < n; i++) {
			/* A refused one may be closed already: EPIPE. */
			(void)dcpi_ctl_send(fds[i], DCPI_CTL_STATUS, (uint32_t)i + 1,
			    NULL, 0);
			switch (read_reply(fds[i], &r)) {
			case DCPI_CTL_OK:
				counts[0]++;
				break;
			case DCPI_CTL_EBUSY:
				if (strstr(r.text, "too many control connections") &&
				    (want_text == NULL || strstr(r.text, want_text)))
					counts[1]++;
				else {
					fprintf(stderr, "busy: '%s'\n", r.text);
					counts[2]++;
				}
				break;
			default:
				counts[2]++;
			}
		}
		if (write(rep[1], counts, sizeof(counts)) != sizeof(counts))
			_exit(12);
		/* Held until the parent closes go: EOF or a byte alike. */
		_exit(read(go[0], &c, 1) == -1 ? 13 : 0);
	}
	close(rep[1]);
	close(go[0]);
	h->go = go[1];
	i = read(rep[0], counts, sizeof(counts)) == sizeof(counts) ? 0 : -1;
	close(rep[0]);
	h->ok = counts[0];
	h->busy = counts[1];
	h->other = counts[2];
	return i;
}

static void
release(struct holder *h)
{
	int status;

	close(h->go);
	assert_int_equal(waitpid(h->pid, &status, 0), h->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* One user with far more connections than its share (the default limits):
 * its extra ones are told why, and root is still answered. */
static void
test_user_limit(void **state)
{
	struct holder h;
	struct reply r;

	assert_int_equal(hold(&h, NOBODY, CONTROL_MAX_CONNS + 8,
	    "from uid 65534"), 0);
	assert_int_equal(h.ok, CONTROL_MAX_CONNS_PER_UID);
	assert_int_equal(h.busy, CONTROL_MAX_CONNS + 8 - CONTROL_MAX_CONNS_PER_UID);
	assert_int_equal(h.other, 0);
	assert_int_equal(request(DCPI_CTL_STATUS, &r), DCPI_CTL_OK);
	assert_string_equal(r.lines[2], "control-connections 17");
	assert_int_equal(request(DCPI_CTL_FLUSH, &r), DCPI_CTL_OK);
	release(&h);
}

/* Many users together fill what is not kept for root; root gets the rest;
 * past the total, root too is told. */
static void
test_root_reserve(void **state)
{
	struct holder a, b, c;
	int fds[FAIR_RESERVE], i, rc, busy;
	struct reply r;
	char want[64];

	assert_int_equal(hold(&a, NOBODY, FAIR_PER_UID + 2, "limit per user"), 0);
	assert_int_equal(a.ok, FAIR_PER_UID);
	assert_int_equal(a.busy, 2);
	assert_int_equal(hold(&b, NOBODY - 1, FAIR_PER_UID + 2, "from uid 65533"), 0);
	assert_int_equal(b.ok, FAIR_PER_UID);
	assert_int_equal(b.busy, 2);
	/* 8 held, 9 open to users other than root. */
	assert_int_equal(hold(&c, NOBODY - 2, 3, "kept for root"), 0);
	assert_int_equal(c.ok, 1);
	assert_int_equal(c.busy, 2);
	assert_int_equal(a.other + b.other + c.other, 0);
	/* Root's slots, all of them. */
	for (i = 0; i < FAIR_RESERVE; i++) {
		fds[i] = client();
		assert_true(fds[i] >= 0);
		assert_int_equal(dcpi_ctl_send(fds[i], DCPI_CTL_STATUS, 7, NULL, 0), 0);
		assert_int_equal(read_reply(fds[i], &r), DCPI_CTL_OK);
	}
	assert_string_equal(r.lines[2], "control-connections 12");
	assert_int_equal(request(DCPI_CTL_STATUS, &r), DCPI_CTL_EBUSY);
	assert_non_null(strstr(r.text, "too many control connections (12 open, "
	    "the limit)"));
	for (i = 0; i < FAIR_RESERVE; i++)
		close(fds[i]);
	release(&c);
	release(&b);
	release(&a);
	/* All given back.  A request made while the holders' connections are
	 * still being closed may be refused too, and counted. */
	for (i = 0, busy = 0; i < 100; i++) {
		rc = request(DCPI_CTL_STATUS, &r);
		if (rc == DCPI_CTL_OK && strcmp(r.lines[2], "control-connections 1") == 0)
			break;
		busy += rc == DCPI_CTL_EBUSY;
		usleep(20000);
	}
	assert_string_equal(r.lines[2], "control-connections 1");
	snprintf(want, sizeof(want), "control-refused %d", 7 + busy);
	assert_string_equal(r.lines[3], want);
}

/* A slowloris client trickling its header a byte at a time, each sooner
 * than the 300 ms limit, is still closed once 300 ms have passed without a
 * complete request. */
static void
test_slowloris(void **state)
{
	struct dcpi_ctl_hdr h = { .version = DCPI_CTL_VERSION, .type = DCPI_CTL_STATUS,
	    .seq = 9 };
	const unsigned char *p = (const unsigned char *)&h;
	struct reply r;
	int fd = client();
	size_t i;

	assert_true(fd >= 0);
	for (i = 0; i < sizeof(h); i++) {
		if (send(fd, p + i, 1, MSG_NOSIGNAL) < 0)
			break;	/* closed already */
		usleep(100000);
	}
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_EHEADER);
	assert_non_null(strstr(r.text, "timed out"));
	close(fd);
	assert_still_answers();
}

/* In a child (no cmocka there): take the uids (real and saved ruid,
 * effective euid), the group gid and the supplementary groups, then send
 * type (for LABEL: of pid, SELF for the child's own by number, and name)
 * and expect want, and want_text in the message; exit 0 if so.  Returns
 * the child's exit status; its pid is left in last_child. */
#define SELF	UINT32_MAX
static pid_t last_child;

static int
as_user(uid_t ruid, uid_t euid, gid_t gid, const gid_t *groups, size_t ngroups,
    int type, uint32_t pid, const char *name, int want, const char *want_text)
{
	struct reply r;
	pid_t child;
	int status;

	memset(&r, 0, sizeof(r));
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		if (setgroups(ngroups, groups) < 0 || setresgid(gid, gid, gid) < 0 ||
		    setresuid(ruid, euid, ruid) < 0)
			_exit(10);
		if (pid == SELF)
			pid = (uint32_t)getpid();
		if ((type == DCPI_CTL_LABEL ? request_label(pid, name, &r) :
		    request(type, &r)) != want) {
			fprintf(stderr, "type %d: got %d (%s), want %d\n", type,
			    r.code, r.text, want);
			_exit(11);
		}
		if (want_text != NULL && strstr(r.text, want_text) == NULL) {
			fprintf(stderr, "type %d: message '%s'\n", type, r.text);
			_exit(12);
		}
		_exit(0);
	}
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	last_child = child;
	return WEXITSTATUS(status);
}

static int
as_nobody(gid_t gid, const gid_t *groups, size_t ngroups, int type, int want,
    const char *want_text)
{
	return as_user(NOBODY, NOBODY, gid, groups, ngroups, type, 0, NULL, want,
	    want_text);
}

static void
test_permissions(void **state)
{
	gid_t in = SOCK_GID, other = 100;
	char want[128];
	struct group *gr = getgrgid(SOCK_GID);

	snprintf(want, sizeof(want), "only root or members of group %s may",
	    gr != NULL ? gr->gr_name : "4242");
	/* Others may connect only where the admin opened the socket up. */
	assert_int_equal(as_nobody(NOBODY, NULL, 0, DCPI_CTL_STATUS, -1, NULL), 0);
	assert_int_equal(chmod(path, 0666), 0);

	/* Not root, not in the group: status yes, the rest no. */
	assert_int_equal(as_nobody(NOBODY, &other, 1, DCPI_CTL_STATUS, DCPI_CTL_OK,
	    NULL), 0);
	assert_int_equal(as_nobody(NOBODY, &other, 1, DCPI_CTL_FLUSH, DCPI_CTL_EPERM,
	    want), 0);
	assert_int_equal(as_nobody(NOBODY, &other, 1, DCPI_CTL_EPOCH, DCPI_CTL_EPERM,
	    "rotate the epoch"), 0);
	assert_int_equal(as_nobody(NOBODY, NULL, 0, DCPI_CTL_QUIT, DCPI_CTL_EPERM,
	    "stop dcpid"), 0);
	assert_int_equal(__atomic_load_n(&nflush, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(__atomic_load_n(&nepoch, __ATOMIC_SEQ_CST), 0);
	assert_int_equal(__atomic_load_n(&nquit, __ATOMIC_SEQ_CST), 0);

	/* In the group, as a supplementary or as the primary group. */
	assert_int_equal(as_nobody(NOBODY, &in, 1, DCPI_CTL_FLUSH, DCPI_CTL_OK,
	    "written"), 0);
	assert_int_equal(as_nobody(SOCK_GID, NULL, 0, DCPI_CTL_FLUSH, DCPI_CTL_OK,
	    "written"), 0);
	assert_int_equal(__atomic_load_n(&nflush, __ATOMIC_SEQ_CST), 2);
}

static void
test_second_server_refused(void **state)
{
	static const struct control_ops none;
	char other[160];
	int fd;

	/* Someone answers on the path: refuse, and leave it alone. */
	errno = 0;
	assert_int_equal(control_init(path, (gid_t)-1, &none), -1);
	assert_int_equal(errno, EADDRINUSE);
	assert_still_answers();
	/* Not a socket: refuse rather than delete it. */
	snprintf(other, sizeof(other), "%s/file", dir);
	fd = open(other, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	errno = 0;
	assert_int_equal(control_init(other, (gid_t)-1, &none), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(unlink(other), 0);
}

static void
test_stale_socket(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct reply r;
	int fd;

	/* Stop the server set up for this test and leave a dead socket. */
	__atomic_store_n(&stop_loop, 1, __ATOMIC_RELEASE);
	pthread_join(loop_thread, NULL);
	control_fini();
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	assert_int_equal(control_init(path, SOCK_GID, &ops), 0);
	stop_loop = 0;
	assert_int_equal(pthread_create(&loop_thread, NULL, loop_main, NULL), 0);
	assert_int_equal(request(DCPI_CTL_STATUS, &r), DCPI_CTL_OK);
}

static void
test_label(void **state)
{
	struct reply r;

	/* pid 0: the requesting process, as the kernel names it. */
	assert_int_equal(request_label(0, "nightly build", &r), DCPI_CTL_OK);
	assert_int_equal(__atomic_load_n(&label_pid, __ATOMIC_SEQ_CST), getpid());
	assert_string_equal(label_name, "nightly build");
	assert_non_null(strstr(r.text, "labelled"));
	/* Root may label anyone's process: pid 1's. */
	assert_int_equal(request_label(1, "init/x", &r), DCPI_CTL_OK);
	assert_int_equal(__atomic_load_n(&label_pid, __ATOMIC_SEQ_CST), 1);
	assert_string_equal(label_name, "init/x");
	/* The core's failure, with its reason. */
	assert_int_equal(request_label(0, "fail", &r), DCPI_CTL_EFAIL);
	assert_int_equal(strtoul(r.text + strlen("pid "), NULL, 10), getpid());
	assert_non_null(strstr(r.text, "has exited"));
	assert_int_equal(__atomic_load_n(&nlabel, __ATOMIC_SEQ_CST), 3);

	/* No such process: the core is not asked. */
	assert_int_equal(request_label(0x7ffffffe, "x", &r), DCPI_CTL_EFAIL);
	assert_string_equal(r.text, "no such process 2147483646");
	assert_int_equal(request_label(0xfffffff0, "x", &r), DCPI_CTL_EFAIL);
	assert_string_equal(r.text, "no such process 4294967280");
	/* Bad names. */
	assert_int_equal(request_label(0, "[idle]", &r), DCPI_CTL_EFAIL);
	assert_string_equal(r.text, "label '[idle]': names in brackets are "
	    "dcpid's own");
	assert_int_equal(request_label(0, "a\nb", &r), DCPI_CTL_EFAIL);
	assert_non_null(strstr(r.text, "newline"));
	assert_int_equal(__atomic_load_n(&nlabel, __ATOMIC_SEQ_CST), 3);
	assert_still_answers();
}

static void
test_label_malformed(void **state)
{
	struct dcpi_ctl_hdr h = { .version = DCPI_CTL_VERSION,
	    .type = DCPI_CTL_LABEL, .length = 8, .seq = 5 };
	unsigned char b[sizeof(h) + 8 + 1];
	struct dcpi_ctl_label l = { .pid = 0, .reserved = 3 };
	struct reply r;
	int fd;

	/* A name of 0 bytes: refused by its length, the connection closed. */
	fd = client();
	memcpy(b, &h, sizeof(h));
	memset(b + sizeof(h), 0, 8);
	send_raw(fd, b, sizeof(h) + 8);
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(r.text, "label request"));
	assert_closed(fd);
	close(fd);
	/* Longer than a label may be: refused before the payload is read. */
	fd = client();
	h.length = 8 + DCPI_CTL_LABEL_MAX + 1;
	send_raw(fd, &h, sizeof(h));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_ELENGTH);
	assert_closed(fd);
	close(fd);
	/* Reserved not 0: a plain failure, the connection kept. */
	fd = client();
	h.length = 9;
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), &l, sizeof(l));
	b[sizeof(h) + 8] = 'x';
	send_raw(fd, b, sizeof(b));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_EFAIL);
	assert_non_null(strstr(r.text, "reserved"));
	h.type = DCPI_CTL_STATUS;
	h.length = 0;
	send_raw(fd, &h, sizeof(h));
	assert_int_equal(read_reply(fd, &r), DCPI_CTL_OK);
	close(fd);
	assert_int_equal(__atomic_load_n(&nlabel, __ATOMIC_SEQ_CST), 0);
	assert_still_answers();
}

static void
test_label_unsupported(void **state)
{
	struct reply r;

	assert_int_equal(request_label(0, "x", &r), DCPI_CTL_EFAIL);
	assert_string_equal(r.text, "labelling is not supported by this dcpid");
}

/* LABEL of pid as a user not in the socket's group. */
static int
label_as(uid_t ruid, uid_t euid, uint32_t pid, const char *name, int want,
    const char *want_text)
{
	return as_user(ruid, euid, NOBODY, NULL, 0, DCPI_CTL_LABEL, pid, name,
	    want, want_text);
}

static void
test_label_permissions(void **state)
{
	char want[128];

	/* Anyone who can connect may ask; not in the socket's group. */
	assert_int_equal(chmod(path, 0666), 0);
	/* Its own process, by 0 or by number. */
	assert_int_equal(label_as(NOBODY, NOBODY, 0, "mine", DCPI_CTL_OK, NULL), 0);
	assert_int_equal(__atomic_load_n(&label_pid, __ATOMIC_SEQ_CST), last_child);
	assert_string_equal(label_name, "mine");
	assert_int_equal(label_as(NOBODY, NOBODY, SELF, "mine too", DCPI_CTL_OK,
	    NULL), 0);
	assert_int_equal(__atomic_load_n(&label_pid, __ATOMIC_SEQ_CST), last_child);
	/* Root's process (this test's): refused, the core not asked. */
	snprintf(want, sizeof(want), "uid %u may not label pid %d (uid 0's)",
	    (unsigned)NOBODY, (int)getpid());
	assert_int_equal(label_as(NOBODY, NOBODY, (uint32_t)getpid(), "theirs",
	    DCPI_CTL_EPERM, want), 0);
	assert_int_equal(__atomic_load_n(&nlabel, __ATOMIC_SEQ_CST), 2);
	/* A process whose real uid is root's (as a set-uid program run by
	 * root) is not the effective uid's to label, not even itself. */
	assert_int_equal(label_as(0, NOBODY, 0, "setuid", DCPI_CTL_EPERM,
	    "(real uid 0, effective uid 65534)"), 0);
	assert_int_equal(__atomic_load_n(&nlabel, __ATOMIC_SEQ_CST), 2);
	/* No such process says so, whoever asks. */
	assert_int_equal(label_as(NOBODY, NOBODY, 0x7ffffffe, "x", DCPI_CTL_EFAIL,
	    "no such process"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_socket_mode, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_status, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_flush_epoch_quit_root, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_sequence_and_pipelining, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_garbage, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_version, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_oversized, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_type_reserved, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_half_sent_then_close, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_slow_request, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_idle_timeout, setup_short, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_connection_cap, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_accept_paused, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_unread_replies, setup_short, teardown),
		cmocka_unit_test_setup_teardown(test_user_limit, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_root_reserve, setup_fair, teardown_fair),
		cmocka_unit_test_setup_teardown(test_slowloris, setup_short, teardown),
		cmocka_unit_test_setup_teardown(test_permissions, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_second_server_refused, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_stale_socket, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_label, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_label_malformed, setup_default, teardown),
		cmocka_unit_test_setup_teardown(test_label_unsupported, setup_nolabel,
		    teardown_nolabel),
		cmocka_unit_test_setup_teardown(test_label_permissions, setup_default, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
