/*
 * dcpictl's control commands (ctl/client.c, ctl/labelcmd.c) against a
 * scripted daemon: a thread that accepts one connection, checks the request
 * and answers with bytes the test chose.  Output, messages and exit
 * statuses; for label with a command, the command's (run in a child).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <dcpi/ctl.h>

#include "commands.h"

static char dir[48], path[96];
static int lfd = -1;
static pthread_t thr;

/* The script: bytes to answer with ({SEQ} headers get the request's seq). */
static unsigned char reply[4096];
static size_t replylen;
static struct dcpi_ctl_hdr got;	/* the request the fake daemon received */
static unsigned char got_payload[DCPI_CTL_REQUEST_MAX];	/* and its payload */
/* The fake daemon answers and closes at once, as dcpid does with a
 * connection over its limits, and connect() returns only after that. */
static int refuse_first;
static sem_t refused;

int __real_connect(int, const struct sockaddr *, socklen_t);
int __wrap_connect(int, const struct sockaddr *, socklen_t);

/* -Wl,--wrap=connect: lets the test order the daemon's close before
 * dcpictl's send, the race that made dcpictl report "Broken pipe". */
int
__wrap_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int rc = __real_connect(fd, sa, len);

	if (rc == 0 && refuse_first)
		sem_wait(&refused);
	return rc;
}

static void
add_msg(int version, int type, const void *payload, size_t len)
{
	struct dcpi_ctl_hdr h = { .version = (uint16_t)version, .type = (uint16_t)type,
	    .length = (uint32_t)len, .seq = UINT32_MAX /* patched */ };

	memcpy(reply + replylen, &h, sizeof(h));
	if (len > 0)
		memcpy(reply + replylen + sizeof(h), payload, len);
	replylen += sizeof(h) + len;
}

static void
add_line(const char *s)
{
	add_msg(DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, s, strlen(s));
}

static void
add_result(int code, const char *msg)
{
	unsigned char b[512];
	int32_t c = code;

	memcpy(b, &c, 4);
	memcpy(b + 4, msg, strlen(msg));
	add_msg(DCPI_CTL_VERSION, DCPI_CTL_RESULT, b, 4 + strlen(msg));
}

static void *
fake_daemon(void *arg)
{
	unsigned char req[DCPI_CTL_HDR_SIZE];
	struct dcpi_ctl_hdr h;
	size_t off, n = 0;
	ssize_t r;
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0)
		return NULL;
	if (refuse_first) {
		if (write(fd, reply, replylen) < 0)
			perror("fake daemon: write");
		close(fd);
		sem_post(&refused);
		return NULL;
	}
	while (n < sizeof(req) && (r = read(fd, req + n, sizeof(req) - n)) > 0)
		n += (size_t)r;
	memcpy(&got, req, sizeof(got));
	/* A LABEL's payload, read so that the close does not reset the
	 * connection under the reply. */
	n = 0;
	while (n < got.length && n < sizeof(got_payload) &&
	    (r = read(fd, got_payload + n, got.length - n)) > 0)
		n += (size_t)r;
	/* Replies carry the request's sequence number. */
	for (off = 0; off + sizeof(h) <= replylen; off += sizeof(h) + h.length) {
		memcpy(&h, reply + off, sizeof(h));
		if (h.seq == UINT32_MAX) {
			h.seq = got.seq;
			memcpy(reply + off, &h, sizeof(h));
		}
		if (h.length > replylen)
			break;
	}
	if (replylen > 0 && write(fd, reply, replylen) < 0)
		perror("fake daemon: write");
	close(fd);
	return NULL;
}

static int
setup(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	snprintf(dir, sizeof(dir), "/tmp/dcpi-ctlclient.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/s", dir);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(lfd, 4) < 0)
		return -1;
	replylen = 0;
	memset(&got, 0, sizeof(got));
	refuse_first = 0;
	return sem_init(&refused, 0, 0);
}

static int
teardown(void **state)
{
	close(lfd);
	unlink(path);
	sem_destroy(&refused);
	return rmdir(dir);
}

struct run {
	int	status;
	char	out[4096];
	char	err[4096];
};

static void
slurp(int fd, char *buf, size_t size)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* Runs a command with stdout and stderr captured; the fake daemon serves
 * one connection if serve. */
static void
run_argv(int (*cmd)(const struct ctl_globals *, int, char **), int argc,
    char **argv, int serve, struct run *res)
{
	struct ctl_globals g = { .db = "/nonexistent", .socket = path };
	char tmpl1[] = "/tmp/dcpi-ctlout.XXXXXX", tmpl2[] = "/tmp/dcpi-ctlerr.XXXXXX";
	int o = mkstemp(tmpl1), e = mkstemp(tmpl2), so, se;

	assert_true(o >= 0 && e >= 0);
	unlink(tmpl1);
	unlink(tmpl2);
	if (serve)
		assert_int_equal(pthread_create(&thr, NULL, fake_daemon, NULL), 0);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(o, 1);
	dup2(e, 2);
	optind = 0;	/* as dcpictl's main() leaves it for a command */
	res->status = cmd(&g, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	if (serve)
		pthread_join(thr, NULL);
	slurp(o, res->out, sizeof(res->out));
	slurp(e, res->err, sizeof(res->err));
}

static void
run(int (*cmd)(const struct ctl_globals *, int, char **), char *name,
    const char *extra, int serve, struct run *res)
{
	char *argv[] = { name, (char *)extra, NULL };

	run_argv(cmd, extra != NULL ? 2 : 1, argv, serve, res);
}

static void
test_status_aligned(void **state)
{
	struct run r;

	add_line("samples 12345");
	add_line("memory-attribution 56712");
	add_line("epoch 20261121223000");
	add_result(DCPI_CTL_OK, "");
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 0);
	assert_int_equal(got.type, DCPI_CTL_STATUS);
	assert_int_equal(got.version, DCPI_CTL_VERSION);
	assert_int_equal(got.length, 0);
	assert_string_equal(r.out,
	    "samples            12345\n"
	    "memory-attribution 56712\n"
	    "epoch              20261121223000\n");
	assert_string_equal(r.err, "");
}

static void
test_status_short_keys(void **state)
{
	struct run r;

	add_line("samples 1");
	add_line("lost 0");
	add_result(DCPI_CTL_OK, "");
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 0);
	/* At least 15 columns for the keys, as in "samples        12345". */
	assert_string_equal(r.out, "samples        1\nlost           0\n");
}

static void
test_flush_ok(void **state)
{
	struct run r;

	add_result(DCPI_CTL_OK, "flushed 19 files into epoch 20261121232425");
	run(cmd_flush, "flush", NULL, 1, &r);
	assert_int_equal(r.status, 0);
	assert_int_equal(got.type, DCPI_CTL_FLUSH);
	assert_string_equal(r.out, "flushed 19 files into epoch 20261121232425\n");
}

static void
test_denied(void **state)
{
	struct run r;

	add_result(DCPI_CTL_EPERM, "only root or members of group dcpi may flush");
	run(cmd_flush, "flush", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "dcpictl: flush: permission denied: only root "
	    "or members of group dcpi may flush\n");
	assert_string_equal(r.out, "");
}

static void
test_epoch_failed(void **state)
{
	struct run r;

	add_result(DCPI_CTL_EFAIL, "flush failed: /db/x: No space left on device");
	run(cmd_epoch, "epoch", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_int_equal(got.type, DCPI_CTL_EPOCH);
	assert_string_equal(r.err, "dcpictl: epoch: failed: flush failed: /db/x: "
	    "No space left on device\n");
}

static void
test_version_mismatch(void **state)
{
	struct run r;
	int32_t c = 0;

	add_msg(DCPI_CTL_VERSION + 1, DCPI_CTL_RESULT, &c, 4);
	run(cmd_quit, "quit", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_int_equal(got.type, DCPI_CTL_QUIT);
	assert_non_null(strstr(r.err, "protocol version mismatch"));
	assert_non_null(strstr(r.err, "speaks control protocol version 2, "
	    "dcpictl speaks version 1"));
}

static void
test_daemon_refuses_version(void **state)
{
	struct run r;

	add_result(DCPI_CTL_EVERSION, "protocol version mismatch: message has "
	    "version 1, expected 2");
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "does not speak control protocol version 1"));
}

static void
test_truncated_reply(void **state)
{
	struct run r;

	add_line("samples 1");
	replylen -= 3;	/* the line is cut and the connection closed */
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "dcpictl: status: dcpid closed the connection "
	    "before its reply was complete\n");
	assert_string_equal(r.out, "");
}

static void
test_bad_reply(void **state)
{
	struct run r;

	/* A request type where a reply belongs. */
	add_msg(DCPI_CTL_VERSION, DCPI_CTL_FLUSH, NULL, 0);
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "bad reply from dcpid: unknown reply type 0x2"));
}

static void
test_wrong_seq(void **state)
{
	struct dcpi_ctl_hdr h;
	struct run r;

	add_result(DCPI_CTL_OK, "");
	memcpy(&h, reply, sizeof(h));
	h.seq = 12345678;
	memcpy(reply, &h, sizeof(h));
	run(cmd_flush, "flush", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "sequence 12345678"));
}

/* dcpid's refusal of a connection over its limits: sequence 0, the
 * connection's (ctl.h), printed as the daemon's message. */
static void
add_busy(void)
{
	struct dcpi_ctl_hdr h;

	add_result(DCPI_CTL_EBUSY, "too many control connections from uid 65534 "
	    "(16 open, the limit per user); try again later");
	memcpy(&h, reply, sizeof(h));
	h.seq = 0;
	memcpy(reply, &h, sizeof(h));
}

static const char busy_err[] = "dcpictl: status: busy: too many control "
    "connections from uid 65534 (16 open, the limit per user); try again later\n";

static void
test_busy_read_after_request(void **state)
{
	struct run r;

	add_busy();
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, busy_err);
	assert_string_equal(r.out, "");
}

/* Refused and closed before dcpictl sent its request: the send fails with
 * EPIPE, and the reason is still there to read. */
static void
test_busy_closed_before_request(void **state)
{
	struct run r;

	add_busy();
	refuse_first = 1;
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, busy_err);
	assert_null(strstr(r.err, "Broken pipe"));
}

/* Closed before the request with nothing said: the send's error, named. */
static void
test_closed_without_reason(void **state)
{
	struct run r;

	refuse_first = 1;
	run(cmd_flush, "flush", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "dcpictl: flush: sending to "));
	assert_non_null(strstr(r.err, "Broken pipe; dcpid closed the connection "
	    "without a reason"));
}

/* Only a RESULT may carry sequence 0 in answer to a request. */
static void
test_seq0_line_rejected(void **state)
{
	struct dcpi_ctl_hdr h;
	struct run r;

	add_line("samples 1");
	add_result(DCPI_CTL_OK, "");
	memcpy(&h, reply, sizeof(h));
	h.seq = 0;
	memcpy(reply, &h, sizeof(h));
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "bad reply from dcpid: sequence 0, expected"));
}

static void
test_control_characters(void **state)
{
	struct run r;

	/* ESC, a CSI as a byte and as UTF-8, a NUL: escaped as prof's names;
	 * a tab and an é as they are. */
	add_line("evil \033[2Jx\233[1m\302\233[0m\tcaf\303\251");
	add_result(DCPI_CTL_OK, "");
	run(cmd_status, "status", NULL, 1, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
	    "evil           \\x1b[2Jx\\x9b[1m\\xc2\\x9b[0m\tcaf\303\251\n");
}

static void
test_no_daemon(void **state)
{
	struct run r;
	char want[256];

	close(lfd);
	unlink(path);
	lfd = -1;
	run(cmd_status, "status", NULL, 0, &r);
	assert_int_equal(r.status, 1);
	snprintf(want, sizeof(want), "dcpictl: cannot connect to %s: No such file "
	    "or directory (is dcpid running?)\n", path);
	assert_string_equal(r.err, want);
}

static void
test_usage(void **state)
{
	struct run r;

	run(cmd_flush, "flush", "now", 0, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "unexpected argument 'now'"));
}

/* The LABEL the fake daemon received: its pid and name. */
static void
assert_label_request(uint32_t pid, const char *name)
{
	struct dcpi_ctl_label l;

	assert_int_equal(got.type, DCPI_CTL_LABEL);
	assert_int_equal(got.length, sizeof(l) + strlen(name));
	memcpy(&l, got_payload, sizeof(l));
	assert_int_equal(l.pid, pid);
	assert_int_equal(l.reserved, 0);
	assert_memory_equal(got_payload + sizeof(l), name, strlen(name));
}

static void
test_label_pid(void **state)
{
	char *argv[] = { "label", "-p", "4321", "web/front end", NULL };
	struct run r;

	add_result(DCPI_CTL_OK, "pid 4321 labelled 'web/front end'");
	run_argv(cmd_label, 4, argv, 1, &r);
	assert_int_equal(r.status, 0);
	assert_label_request(4321, "web/front end");
	assert_string_equal(r.out, "pid 4321 labelled 'web/front end'\n");
	assert_string_equal(r.err, "");
}

static void
test_label_refused(void **state)
{
	char *argv[] = { "label", "--pid", "1", "x", NULL };
	struct run r;

	add_result(DCPI_CTL_EPERM, "uid 1000 may not label pid 1 (uid 0's)");
	run_argv(cmd_label, 4, argv, 1, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "dcpictl: label: uid 1000 may not label pid 1 "
	    "(uid 0's)\n");
}

static void
test_label_old_daemon(void **state)
{
	char *argv[] = { "label", "-p", "1", "x", NULL };
	struct run r;

	/* What a dcpid from before LABEL answers, and then it closes. */
	add_result(DCPI_CTL_ETYPE, "unknown request type 0x6 (byte 2)");
	run_argv(cmd_label, 4, argv, 1, &r);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "dcpictl: label: this dcpid is too old for label\n");
}

static void
test_label_socket_option(void **state)
{
	char *argv[] = { "label", "-s", path, "-p", "7", "x", NULL };
	struct ctl_globals g = { .db = "/nonexistent", .socket = "/nonexistent" };
	int status;

	/* -s overrides the global socket. */
	add_result(DCPI_CTL_OK, "");
	assert_int_equal(pthread_create(&thr, NULL, fake_daemon, NULL), 0);
	optind = 0;
	status = cmd_label(&g, 6, argv);
	pthread_join(thr, NULL);
	assert_int_equal(status, 0);
	assert_label_request(7, "x");
}

/* cmd_label with a command, in a child (it execs): its exit status and
 * what it wrote on stderr into err[errlen]. */
static int
label_child(char **argv, char *err, size_t errlen)
{
	struct ctl_globals g = { .db = "/nonexistent", .socket = path };
	char tmpl[] = "/tmp/dcpi-ctlerr.XXXXXX";
	int e = mkstemp(tmpl), status, argc;
	pid_t pid;

	assert_true(e >= 0);
	unlink(tmpl);
	for (argc = 0; argv[argc] != NULL; argc++)
		continue;
	assert_int_equal(pthread_create(&thr, NULL, fake_daemon, NULL), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(e, 2);
		optind = 0;
		_exit(cmd_label(&g, argc, argv));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	pthread_join(thr, NULL);
	slurp(e, err, errlen);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void
test_label_command(void **state)
{
	char *argv[] = { "label", "nightly", "--", "sh", "-c", "exit 7", NULL };
	char err[512];

	/* The command is dcpictl's process, labelled as pid 0; its exit
	 * status is dcpictl's. */
	add_result(DCPI_CTL_OK, "pid 1 labelled 'nightly'");
	assert_int_equal(label_child(argv, err, sizeof(err)), 7);
	assert_label_request(0, "nightly");
	assert_string_equal(err, "");
}

static void
test_label_command_fails(void **state)
{
	char *notfound[] = { "label", "x", "--", "/nonexistent/cmd", NULL };
	char *notexec[] = { "label", "x", "--", dir, NULL };
	char *denied[] = { "label", "x", "--", "true", NULL };
	char err[512];

	/* As env(1): 127 for a command not found, 126 for one not run. */
	add_result(DCPI_CTL_OK, "");
	assert_int_equal(label_child(notfound, err, sizeof(err)), 127);
	assert_string_equal(err, "dcpictl: label: /nonexistent/cmd: No such file "
	    "or directory\n");
	replylen = 0;
	add_result(DCPI_CTL_OK, "");
	assert_int_equal(label_child(notexec, err, sizeof(err)), 126);
	assert_non_null(strstr(err, "Permission denied"));
	/* Not run at all when dcpid refuses. */
	replylen = 0;
	add_result(DCPI_CTL_EFAIL, "labelling is not supported by this dcpid");
	assert_int_equal(label_child(denied, err, sizeof(err)), 1);
	assert_string_equal(err, "dcpictl: label: labelling is not supported by "
	    "this dcpid\n");
}

static void
test_label_usage(void **state)
{
	static char *bad[][6] = {
		{ "label", NULL },
		{ "label", "x", NULL },				/* nothing to label */
		{ "label", "-p", "1", "x", "--", "true" },	/* both */
		{ "label", "-p", "0", "x", NULL },
		{ "label", "-p", "12ab", "x", NULL },
		{ "label", "-p", "-5", "x", NULL },
	};
	char *nodash[] = { "label", "x", "true", NULL };
	char *nocmd[] = { "label", "x", "--", NULL };
	char *bracket[] = { "label", "-p", "1", "[idle]", NULL };
	char *newline[] = { "label", "-p", "1", "a\nb", NULL };
	char *help[] = { "label", "--help", NULL };
	struct run r;
	size_t i;
	int argc;

	/* None reaches the daemon (there is none to serve them). */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (argc = 0; argc < 6 && bad[i][argc] != NULL; argc++)
			continue;
		run_argv(cmd_label, argc, bad[i], 0, &r);
		assert_int_equal(r.status, 2);
		assert_true(strstr(r.err, "usage: dcpictl label") != NULL ||
		    strstr(r.err, "expected a process id") != NULL);
	}
	run_argv(cmd_label, 3, nodash, 0, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "expected '--' before the command, found 'true'"));
	run_argv(cmd_label, 3, nocmd, 0, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "no command after '--'"));
	run_argv(cmd_label, 4, bracket, 0, &r);
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "dcpictl: label: label '[idle]': names in "
	    "brackets are dcpid's own\n");
	run_argv(cmd_label, 4, newline, 0, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "newline"));
	run_argv(cmd_label, 2, help, 0, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: dcpictl label"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_status_aligned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_short_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_denied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epoch_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_daemon_refuses_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_seq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_read_after_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_closed_before_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closed_without_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seq0_line_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_characters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_daemon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_old_daemon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_socket_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_command_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_label_usage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
