/*
 * Sends raw bytes to a control socket, for the integration tests' garbage,
 * oversized, half-sent and concurrent clients:
 *
 *   ctlraw [-n CONNS] [-c] [-w MS] SOCKET SPEC...
 *
 * SPEC: hdr:VERSION,TYPE,LENGTH[,SEQ[,RESERVED]] (a header, numbers in C
 * syntax), hex:BYTES, or str:TEXT; they are concatenated.  CONNS
 * connections are all opened before the bytes are sent on each, then each
 * reply is read (up to MS milliseconds in all, default 15000) and printed
 * as one line per connection:
 *   N lines=L result=CODE msg=TEXT     (a RESULT after L status lines)
 *   N eof | N timeout | N error=TEXT   (no RESULT)
 * With -c each connection is closed right after sending, nothing read.
 * Exit 0 if every connection was served as asked, else 1.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <dcpi/ctl.h>

static unsigned char out[1 << 20];
static size_t outlen;

static void
add(const void *p, size_t n)
{
	if (n > sizeof(out) - outlen) {
		fprintf(stderr, "ctlraw: too many bytes\n");
		exit(2);
	}
	memcpy(out + outlen, p, n);
	outlen += n;
}

static void
parse(const char *spec)
{
	if (strncmp(spec, "hdr:", 4) == 0) {
		unsigned long v[5] = { 0, 0, 0, 0, 0 };
		struct dcpi_ctl_hdr h;
		const char *p = spec + 4;
		char *end;
		int i;

		for (i = 0; i < 5 && *p; i++) {
			v[i] = strtoul(p, &end, 0);
			if (end == p || (*end != ',' && *end != '\0'))
				goto bad;
			p = *end == ',' ? end + 1 : end;
		}
		if (i < 3)
			goto bad;
		h.version = (uint16_t)v[0];
		h.type = (uint16_t)v[1];
		h.length = (uint32_t)v[2];
		h.seq = (uint32_t)v[3];
		h.reserved = (uint32_t)v[4];
		add(&h, sizeof(h));
	} else if (strncmp(spec, "hex:", 4) == 0) {
		const char *p = spec + 4;
		unsigned b;

		for (; p[0] && p[1]; p += 2) {
			if (sscanf(p, "%2x", &b) != 1)
				goto bad;
			add(&(unsigned char){ (unsigned char)b }, 1);
		}
		if (*p)
			goto bad;
	} else if (strncmp(spec, "str:", 4) == 0) {
		add(spec + 4, strlen(spec + 4));
	} else {
		goto bad;
	}
	return;
bad:
	fprintf(stderr, "ctlraw: bad SPEC '%s'\n", spec);
	exit(2);
}

int
main(int argc, char **argv)
{
	static struct dcpi_ctl_msg m;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int n = 1, close_early = 0, wait_ms = 15000, ch, i, *fds, ok = 0, rc;
	int lines;
	struct dcpi_error err;
	const char *text;
	size_t textlen;

	while ((ch = getopt(argc, argv, "n:cw:")) != -1) {
		switch (ch) {
		case 'n': n = atoi(optarg); break;
		case 'c': close_early = 1; break;
		case 'w': wait_ms = atoi(optarg); break;
		default: return 2;
		}
	}
	if (argc - optind < 2 || n < 1) {
		fprintf(stderr, "usage: ctlraw [-n CONNS] [-c] [-w MS] SOCKET SPEC...\n");
		return 2;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", argv[optind]);
	for (i = optind + 1; i < argc; i++)
		parse(argv[i]);
	fds = calloc((size_t)n, sizeof(*fds));
	for (i = 0; i < n; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fds[i] < 0 || connect(fds[i], (struct sockaddr *)&sun, sizeof(sun)) < 0) {
			fprintf(stderr, "ctlraw: connect %s: %s\n", sun.sun_path,
			    strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		if (outlen > 0 && send(fds[i], out, outlen, MSG_NOSIGNAL) != (ssize_t)outlen) {
			printf("%d error=send: %s\n", i, strerror(errno));
			continue;
		}
		if (close_early) {
			close(fds[i]);
			fds[i] = -1;
			ok++;
		}
	}
	for (i = 0; i < n && !close_early; i++) {
		lines = 0;
		for (;;) {
			rc = dcpi_ctl_recv(fds[i], wait_ms, DCPI_CTL_TO_CLIENT, &m,
			    &err);
			if (rc != DCPI_CTL_OK || m.hdr.type == DCPI_CTL_RESULT)
				break;
			lines++;
		}
		if (rc == DCPI_CTL_OK) {
			int code = dcpi_ctl_result(&m, &text, &textlen);

			printf("%d lines=%d result=%d msg=%.*s\n", i, lines, code,
			    (int)textlen, text);
			ok++;
		} else if (rc > 0) {
			printf("%d error=%s\n", i, err.msg);
		} else {
			printf("%d %s\n", i, errno == ECONNRESET ? "eof" :
			    errno == ETIMEDOUT ? "timeout" : strerror(errno));
		}
		close(fds[i]);
	}
	free(fds);
	return ok == n ? 0 : 1;
}
