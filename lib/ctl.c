/*
 * libdcpi: the control protocol's codec, shared by dcpid and dcpictl
 * (lib/dcpi/ctl.h).  The decoder never trusts the peer: every field is
 * checked before the length is used to read anything.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "dcpi/ctl.h"
#include "util.h"

_Static_assert(sizeof(struct dcpi_ctl_hdr) == 16, "the header has no padding");

const char *
dcpi_ctl_strcode(int code)
{
	switch (code) {
	case DCPI_CTL_OK:	return "ok";
	case DCPI_CTL_EVERSION:	return "protocol version mismatch";
	case DCPI_CTL_ETYPE:	return "unknown request type";
	case DCPI_CTL_ELENGTH:	return "bad message length";
	case DCPI_CTL_EPERM:	return "permission denied";
	case DCPI_CTL_EFAIL:	return "failed";
	case DCPI_CTL_EHEADER:	return "malformed message header";
	case DCPI_CTL_EBUSY:	return "busy";
	default:		return "unknown result code";
	}
}

static int __attribute__((format(printf, 4, 5)))
bad(int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static int
is_request(unsigned type)
{
	return type >= DCPI_CTL_STATUS && type <= DCPI_CTL_RELOAD;
}

static int
is_reply(unsigned type)
{
	return type == DCPI_CTL_RESULT || type == DCPI_CTL_STATUS_LINE;
}

int
dcpi_ctl_decode_hdr(const void *buf, size_t len, int dir,
    struct dcpi_ctl_hdr *hdr, char *err, size_t errlen)
{
	const unsigned char *p = buf;
	struct dcpi_ctl_hdr h;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	/* Copy only what arrived: the rest stays 0 for the caller. */
	memset(&h, 0, sizeof(h));
	if (len >= offsetof(struct dcpi_ctl_hdr, type) + sizeof(h.type))
		memcpy(&h.type, p + offsetof(struct dcpi_ctl_hdr, type), sizeof(h.type));
	if (len >= offsetof(struct dcpi_ctl_hdr, length) + sizeof(h.length))
		memcpy(&h.length, p + offsetof(struct dcpi_ctl_hdr, length), sizeof(h.length));
	if (len >= offsetof(struct dcpi_ctl_hdr, seq) + sizeof(h.seq))
		memcpy(&h.seq, p + offsetof(struct dcpi_ctl_hdr, seq), sizeof(h.seq));
	if (len >= sizeof(h))
		memcpy(&h.reserved, p + offsetof(struct dcpi_ctl_hdr, reserved), sizeof(h.reserved));
	if (len >= sizeof(h.version))
		memcpy(&h.version, p, sizeof(h.version));
	*hdr = h;

	if (len < sizeof(h.version))
		return -1;
	if (h.version != DCPI_CTL_VERSION)
		return bad(DCPI_CTL_EVERSION, err, errlen,
		    "protocol version mismatch: message has version %u, expected %u",
		    (unsigned)h.version, (unsigned)DCPI_CTL_VERSION);
	if (len < sizeof(h))
		return -1;
	if (h.reserved != 0)
		return bad(DCPI_CTL_EHEADER, err, errlen,
		    "malformed header: reserved field (byte 12) is 0x%x, expected 0",
		    (unsigned)h.reserved);
	if (dir == DCPI_CTL_TO_DAEMON ? !is_request(h.type) : !is_reply(h.type))
		return bad(DCPI_CTL_ETYPE, err, errlen,
		    "unknown %s type 0x%x (byte 2)",
		    dir == DCPI_CTL_TO_DAEMON ? "request" : "reply", (unsigned)h.type);
	if (h.length > DCPI_CTL_MAX_PAYLOAD)
		return bad(DCPI_CTL_ELENGTH, err, errlen,
		    "payload length %lu (byte 4) exceeds the maximum %u",
		    (unsigned long)h.length, (unsigned)DCPI_CTL_MAX_PAYLOAD);
	if (is_request(h.type) && h.length != 0)
		return bad(DCPI_CTL_ELENGTH, err, errlen,
		    "payload length %lu (byte 4) for a request, expected 0",
		    (unsigned long)h.length);
	if (h.type == DCPI_CTL_RESULT && h.length < sizeof(struct dcpi_ctl_result))
		return bad(DCPI_CTL_ELENGTH, err, errlen,
		    "payload length %lu (byte 4) for a result, expected at least %zu",
		    (unsigned long)h.length, sizeof(struct dcpi_ctl_result));
	return DCPI_CTL_OK;
}

long
dcpi_ctl_encode(void *buf, size_t size, uint16_t type, uint32_t seq,
    const void *payload, size_t len)
{
	struct dcpi_ctl_hdr h;

	if (len > DCPI_CTL_MAX_PAYLOAD || size < sizeof(h) || size - sizeof(h) < len) {
		errno = EMSGSIZE;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.version = DCPI_CTL_VERSION;
	h.type = type;
	h.length = (uint32_t)len;
	h.seq = seq;
	memcpy(buf, &h, sizeof(h));
	if (len > 0)
		memcpy((unsigned char *)buf + sizeof(h), payload, len);
	return (long)(sizeof(h) + len);
}

long
dcpi_ctl_encode_result(void *buf, size_t size, uint32_t seq, int code,
    const char *msg)
{
	struct dcpi_ctl_result r = { .code = code };
	size_t textlen = msg != NULL ? strlen(msg) : 0;
	unsigned char *p = buf;

	if (textlen > DCPI_CTL_MAX_PAYLOAD - sizeof(r))
		textlen = DCPI_CTL_MAX_PAYLOAD - sizeof(r);
	if (size < DCPI_CTL_HDR_SIZE + sizeof(r) + textlen) {
		errno = EMSGSIZE;
		return -1;
	}
	/* Header first with no payload, then the two payload parts in place. */
	if (dcpi_ctl_encode(buf, size, DCPI_CTL_RESULT, seq, NULL, 0) < 0)
		return -1;
	((struct dcpi_ctl_hdr *)buf)->length = (uint32_t)(sizeof(r) + textlen);
	memcpy(p + DCPI_CTL_HDR_SIZE, &r, sizeof(r));
	if (textlen > 0)
		memcpy(p + DCPI_CTL_HDR_SIZE + sizeof(r), msg, textlen);
	return (long)(DCPI_CTL_HDR_SIZE + sizeof(r) + textlen);
}

int
dcpi_ctl_send(int fd, uint16_t type, uint32_t seq, const void *payload,
    size_t len)
{
	unsigned char buf[DCPI_CTL_HDR_SIZE + DCPI_CTL_MAX_PAYLOAD];
	long n = dcpi_ctl_encode(buf, sizeof(buf), type, seq, payload, len);
	size_t off = 0;
	ssize_t w;

	if (n < 0)
		return -1;
	while (off < (size_t)n) {
		w = send(fd, buf + off, (size_t)n - off, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pfd = { .fd = fd, .events = POLLOUT };
				if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
					return -1;
				continue;
			}
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* Reads buf[want] completely, polling until the deadline (-1: none). */
static int
read_full(int fd, void *buf, size_t want, size_t *got, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long long left;
	ssize_t r;
	int n;

	while (*got < want) {
		left = deadline < 0 ? -1 : deadline - now_ms();
		if (deadline >= 0 && left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = poll(&pfd, 1, left > 0x7fffffff ? 0x7fffffff : (int)left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			continue;	/* the deadline check above reports it */
		r = read(fd, (unsigned char *)buf + *got, want - *got);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		if (r == 0) {
			errno = ECONNRESET;
			return -1;
		}
		*got += (size_t)r;
	}
	return 0;
}

int
dcpi_ctl_recv(int fd, int timeout_ms, int dir, struct dcpi_ctl_msg *msg,
    char *err, size_t errlen)
{
	long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	unsigned char hbuf[DCPI_CTL_HDR_SIZE];
	size_t got = 0;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	/* The version first, so that another protocol is named even when its
	 * header is shorter than ours. */
	if (read_full(fd, hbuf, sizeof(msg->hdr.version), &got, deadline) < 0)
		return -1;
	rc = dcpi_ctl_decode_hdr(hbuf, got, dir, &msg->hdr, err, errlen);
	if (rc > 0)
		return rc;
	if (read_full(fd, hbuf, sizeof(hbuf), &got, deadline) < 0)
		return -1;
	rc = dcpi_ctl_decode_hdr(hbuf, got, dir, &msg->hdr, err, errlen);
	if (rc != DCPI_CTL_OK)
		return rc;
	got = 0;
	if (read_full(fd, msg->payload, msg->hdr.length, &got, deadline) < 0)
		return -1;
	return DCPI_CTL_OK;
}

int
dcpi_ctl_result(const struct dcpi_ctl_msg *msg, const char **text,
    size_t *textlen)
{
	struct dcpi_ctl_result r;

	if (msg->hdr.length < sizeof(r) || msg->hdr.length > DCPI_CTL_MAX_PAYLOAD) {
		*text = "";
		*textlen = 0;
		return DCPI_CTL_ELENGTH;
	}
	memcpy(&r, msg->payload, sizeof(r));
	*text = (const char *)msg->payload + sizeof(r);
	*textlen = msg->hdr.length - sizeof(r);
	return r.code;
}
