/*
 * dcpictl's control commands: status, flush, epoch, quit.  One request per
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
#include "xmalloc.h"

/* Generous: a flush or an epoch rotation of a large database writes many
 * files, and a status request waits behind a flush in progress. */
#define REPLY_TIMEOUT_MS	(10 * 60 * 1000)

struct line {
	char	*key;
	char	*value;
};

/* The daemon is trusted, but a terminal should never receive control
 * characters from a socket. */
static char *
printable(const unsigned char *p, size_t n)
{
	char *s = xmalloc(n + 1);
	size_t i;

	for (i = 0; i < n; i++)
		s[i] = isprint(p[i]) || p[i] == '\t' ? (char)p[i] : '?';
	s[n] = '\0';
	return s;
}

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
print_lines(const struct line *lines, size_t n)
{
	size_t i, w = 14, k;

	for (i = 0; i < n; i++)
		if ((k = strlen(lines[i].key)) > w)
			w = k;
	for (i = 0; i < n; i++)
		printf("%-*s %s\n", (int)w, lines[i].key, lines[i].value);
}

static int
request(const struct ctl_globals *g, int argc, char **argv, int type)
{
	static struct dcpi_ctl_msg msg;	/* 16 KiB: not on the stack */
	const char *cmd = argv[0], *text;
	struct line *lines = NULL;
	size_t nlines = 0, textlen, i;
	/* Never 0, which is the daemon's for the connection (ctl.h). */
	uint32_t seq = (uint32_t)getpid();
	char err[256], *s, *sp;
	int fd, rc, code, status = 1, send_errno = 0;

	if (argc > 1) {
		fprintf(stderr, "dcpictl: %s: unexpected argument '%s'\n"
		    "usage: dcpictl [--socket PATH] %s\n", cmd, argv[1], cmd);
		return 2;
	}
	if ((fd = connect_daemon(cmd, g->socket)) < 0)
		return 1;
	if (dcpi_ctl_send(fd, (uint16_t)type, seq, NULL, 0) < 0) {
		/* A daemon that turned the connection away (too many
		 * connections) closed it after sending why: read that. */
		if (errno != EPIPE && errno != ECONNRESET) {
			fprintf(stderr, "dcpictl: %s: sending to %s: %s\n", cmd,
			    g->socket, strerror(errno));
			goto out;
		}
		send_errno = errno;
	}
	for (;;) {
		rc = dcpi_ctl_recv(fd, REPLY_TIMEOUT_MS, DCPI_CTL_TO_CLIENT, &msg,
		    err, sizeof(err));
		if (rc < 0 && send_errno != 0) {
			fprintf(stderr, "dcpictl: %s: sending to %s: %s; dcpid "
			    "closed the connection without a reason\n", cmd,
			    g->socket, strerror(send_errno));
			goto out;
		}
		if (rc < 0) {
			fprintf(stderr, "dcpictl: %s: %s\n", cmd,
			    errno == ECONNRESET ? "dcpid closed the connection "
			    "before its reply was complete" :
			    errno == ETIMEDOUT ? "no reply from dcpid within 10 minutes" :
			    strerror(errno));
			goto out;
		}
		if (rc == DCPI_CTL_EVERSION) {
			fprintf(stderr, "dcpictl: %s: protocol version mismatch: dcpid "
			    "on %s speaks control protocol version %u, dcpictl speaks "
			    "version %u\n", cmd, g->socket, (unsigned)msg.hdr.version,
			    (unsigned)DCPI_CTL_VERSION);
			goto out;
		}
		if (rc != DCPI_CTL_OK) {
			fprintf(stderr, "dcpictl: %s: bad reply from dcpid: %s\n", cmd, err);
			goto out;
		}
		if (msg.hdr.seq != seq && !(msg.hdr.seq == 0 &&
		    msg.hdr.type == DCPI_CTL_RESULT)) {
			fprintf(stderr, "dcpictl: %s: bad reply from dcpid: sequence "
			    "%lu, expected %lu\n", cmd, (unsigned long)msg.hdr.seq,
			    (unsigned long)seq);
			goto out;
		}
		if (msg.hdr.type == DCPI_CTL_RESULT)
			break;
		/* STATUS_LINE: "KEY VALUE". */
		s = printable(msg.payload, msg.hdr.length);
		lines = xreallocarray(lines, nlines + 1, sizeof(*lines));
		lines[nlines].key = s;
		sp = strchr(s, ' ');
		if (sp != NULL) {
			*sp = '\0';
			lines[nlines].value = sp + 1;
		} else {
			lines[nlines].value = s + strlen(s);
		}
		nlines++;
	}
	code = dcpi_ctl_result(&msg, &text, &textlen);
	s = printable((const unsigned char *)text, textlen);
	if (code == DCPI_CTL_OK) {
		print_lines(lines, nlines);
		if (*s != '\0')
			printf("%s\n", s);
		status = 0;
	} else if (code == DCPI_CTL_EVERSION) {
		fprintf(stderr, "dcpictl: %s: dcpid on %s does not speak control "
		    "protocol version %u: %s\n", cmd, g->socket,
		    (unsigned)DCPI_CTL_VERSION, s);
	} else {
		fprintf(stderr, "dcpictl: %s: %s%s%s\n", cmd, dcpi_ctl_strcode(code),
		    *s != '\0' ? ": " : "", s);
	}
	free(s);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "dcpictl: %s: writing the output: %s\n", cmd,
		    strerror(errno));
		status = 1;
	}
out:
	for (i = 0; i < nlines; i++)
		free(lines[i].key);
	free(lines);
	close(fd);
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
