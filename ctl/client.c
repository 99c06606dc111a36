/*
 * dcpictl, the client side of the control protocol (daemon/control.c is
 * dcpid's): the commands status, flush, epoch, quit, reload, and the
 * exchange they share with label (ctl/labelcmd.c).  One request per
 * connection; the reply is STATUS_LINE records (status) and one RESULT.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <dcpi/ctl.h>

#include "commands.h"
#include "client.h"
#include "util.h"
#include "xmalloc.h"

/* Generous: a flush or an epoch rotation of a large database writes many
 * files, and a status request waits behind a flush in progress. */
#define REPLY_TIMEOUT_MS	(10 * 60 * 1000)

/* The daemon is trusted, but what it says holds names that are not its
 * own (labels, commands, paths): escaped as the tables escape them
 * (text_len), a tab kept, a NUL byte \x00. */
static char *
printable(const unsigned char *p, size_t n)
{
	char *t = xmalloc(n + 1), *s = xreallocarray(NULL, 4 * n + 1, 1);

	memcpy(t, p, n);
	t[n] = '\0';
	text_escape(s, t, n, TEXT_KEEP_TAB);
	free(t);
	return s;
}

/* connect(2) to dcpid's socket at path; -1 after a message naming cmd. */
static int
connect_daemon(const char *cmd, const char *path)
{
	struct sockaddr_un sun;
	int fd, saved;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "dcpictl: %s: socket path longer than %zu bytes: %s\n",
		    cmd, sizeof(sun.sun_path) - 1, path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "dcpictl: %s: socket: %s\n", cmd, strerror(errno));
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		saved = errno;
		close(fd);
		fprintf(stderr, "dcpictl: cannot connect to %s: %s%s\n", path,
		    strerror(saved),
		    saved == EACCES ? " (only root and the socket's group may connect)" :
		    saved == ENOENT || saved == ECONNREFUSED ? " (is dcpid running?)" : "");
		return -1;
	}
	return fd;
}

static void
print_lines(const struct ctl_line *lines, size_t n)
{
	size_t i, w = 14, k;

	for (i = 0; i < n; i++)
		if ((k = strlen(lines[i].key)) > w)
			w = k;
	for (i = 0; i < n; i++)
		printf("%-*s %s\n", (int)w, lines[i].key, lines[i].value);
}

int
ctl_exchange(const char *cmd, const char *socket, int type, const void *payload,
    size_t len, struct ctl_reply *r)
{
	static struct dcpi_ctl_msg msg;	/* 16 KiB: not on the stack */
	const char *text;
	size_t textlen;
	/* Never 0, which is the daemon's for the connection (ctl.h). */
	uint32_t seq = (uint32_t)getpid();
	struct dcpi_error err;
	char *s, *sp;
	int fd, rc, send_errno = 0;

	memset(r, 0, sizeof(*r));
	if ((fd = connect_daemon(cmd, socket)) < 0)
		return -1;
	if (dcpi_ctl_send(fd, (uint16_t)type, seq, payload, len) < 0) {
		/* A daemon that turned the connection away (too many
		 * connections) closed it after sending why: read that. */
		if (errno != EPIPE && errno != ECONNRESET) {
			fprintf(stderr, "dcpictl: %s: sending to %s: %s\n", cmd,
			    socket, strerror(errno));
			goto fail;
		}
		send_errno = errno;
	}
	for (;;) {
		rc = dcpi_ctl_recv(fd, REPLY_TIMEOUT_MS, DCPI_CTL_TO_CLIENT, &msg,
		    &err);
		if (rc < 0 && send_errno != 0) {
			fprintf(stderr, "dcpictl: %s: sending to %s: %s; dcpid "
			    "closed the connection without a reason\n", cmd,
			    socket, strerror(send_errno));
			goto fail;
		}
		if (rc < 0) {
			fprintf(stderr, "dcpictl: %s: %s\n", cmd,
			    errno == ECONNRESET ? "dcpid closed the connection "
			    "before its reply was complete" :
			    errno == ETIMEDOUT ? "no reply from dcpid within 10 minutes" :
			    strerror(errno));
			goto fail;
		}
		if (rc == DCPI_CTL_EVERSION) {
			fprintf(stderr, "dcpictl: %s: protocol version mismatch: dcpid "
			    "on %s speaks control protocol version %u, dcpictl speaks "
			    "version %u\n", cmd, socket, (unsigned)msg.hdr.version,
			    (unsigned)DCPI_CTL_VERSION);
			goto fail;
		}
		if (rc != DCPI_CTL_OK) {
			fprintf(stderr, "dcpictl: %s: bad reply from dcpid: %s\n", cmd, err.msg);
			goto fail;
		}
		if (msg.hdr.seq != seq && !(msg.hdr.seq == 0 &&
		    msg.hdr.type == DCPI_CTL_RESULT)) {
			fprintf(stderr, "dcpictl: %s: bad reply from dcpid: sequence "
			    "%lu, expected %lu\n", cmd, (unsigned long)msg.hdr.seq,
			    (unsigned long)seq);
			goto fail;
		}
		if (msg.hdr.type == DCPI_CTL_RESULT)
			break;
		/* STATUS_LINE: "KEY VALUE". */
		s = printable(msg.payload, msg.hdr.length);
		r->lines = xreallocarray(r->lines, r->nlines + 1, sizeof(*r->lines));
		r->lines[r->nlines].key = s;
		sp = strchr(s, ' ');
		if (sp != NULL) {
			*sp = '\0';
			r->lines[r->nlines].value = sp + 1;
		} else {
			r->lines[r->nlines].value = s + strlen(s);
		}
		r->nlines++;
	}
	r->code = dcpi_ctl_result(&msg, &text, &textlen);
	r->text = printable((const unsigned char *)text, textlen);
	close(fd);
	return 0;
fail:
	ctl_reply_free(r);
	close(fd);
	return -1;
}

void
ctl_reply_free(struct ctl_reply *r)
{
	size_t i;

	for (i = 0; i < r->nlines; i++)
		free(r->lines[i].key);
	free(r->lines);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

static int
request(const struct ctl_globals *g, int argc, char **argv, int type)
{
	const char *cmd = argv[0];
	struct ctl_reply r;
	int status = 1;

	if (argc > 1) {
		fprintf(stderr, "dcpictl: %s: unexpected argument '%s'\n"
		    "usage: dcpictl [--socket PATH] %s\n", cmd, argv[1], cmd);
		return 2;
	}
	if (ctl_exchange(cmd, g->socket, type, NULL, 0, &r) < 0)
		return 1;
	if (r.code == DCPI_CTL_OK) {
		print_lines(r.lines, r.nlines);
		if (*r.text != '\0')
			printf("%s\n", r.text);
		status = 0;
	} else if (r.code == DCPI_CTL_EVERSION) {
		fprintf(stderr, "dcpictl: %s: dcpid on %s does not speak control "
		    "protocol version %u: %s\n", cmd, g->socket,
		    (unsigned)DCPI_CTL_VERSION, r.text);
	} else {
		fprintf(stderr, "dcpictl: %s: %s%s%s\n", cmd, dcpi_ctl_strcode(r.code),
		    *r.text != '\0' ? ": " : "", r.text);
	}
	ctl_reply_free(&r);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "dcpictl: %s: writing the output: %s\n", cmd,
		    strerror(errno));
		status = 1;
	}
	return status;
}

int
cmd_status(const struct ctl_globals *g, int argc, char **argv)
{
	return request(g, argc, argv, DCPI_CTL_STATUS);
}

int
cmd_flush(const struct ctl_globals *g, int argc, char **argv)
{
	return request(g, argc, argv, DCPI_CTL_FLUSH);
}

int
cmd_epoch(const struct ctl_globals *g, int argc, char **argv)
{
	return request(g, argc, argv, DCPI_CTL_EPOCH);
}

int
cmd_quit(const struct ctl_globals *g, int argc, char **argv)
{
	return request(g, argc, argv, DCPI_CTL_QUIT);
}

int
cmd_reload(const struct ctl_globals *g, int argc, char **argv)
{
	return request(g, argc, argv, DCPI_CTL_RELOAD);
}
