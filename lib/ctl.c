/*
 * libdcpi: the control protocol's codec and framer, shared by dcpid and
 * dcpictl (lib/dcpi/ctl.h).  The decoder never trusts the peer: every field
 * is checked before the length is used to read anything.  The blocking
 * calls are the non-blocking framer plus poll(2), so both sides frame
 * messages with the same code.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "dcpi/ctl.h"
#include "dcpi/label.h"
#include "util.h"

_Static_assert(sizeof(struct dcpi_ctl_hdr) == 16, "the header has no padding");
/* dcpi_ctl_recv() reads the wire's bytes straight into a message. */
_Static_assert(offsetof(struct dcpi_ctl_msg, payload) == DCPI_CTL_HDR_SIZE,
    "a message is laid out as on the wire");
_Static_assert(sizeof(struct dcpi_ctl_label) == 8, "LABEL's fixed part has no padding");
_Static_assert(DCPI_CTL_REQUEST_MAX - DCPI_CTL_HDR_SIZE <= DCPI_CTL_MAX_PAYLOAD,
    "a LABEL fits in a message");

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

/* A one-line message into err->msg (err may be NULL); returns code and
 * leaves errno alone. */
static int __attribute__((format(printf, 3, 4)))
bad(int code, struct dcpi_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

static int
is_request(unsigned type)
{
	return type >= DCPI_CTL_STATUS && type <= DCPI_CTL_LABEL;
}

static int
is_reply(unsigned type)
{
	return type == DCPI_CTL_RESULT || type == DCPI_CTL_STATUS_LINE;
}

int
dcpi_ctl_decode_hdr(const void *buf, size_t len, int dir,
    struct dcpi_ctl_hdr *hdr, struct dcpi_error *err)
{
	const unsigned char *p = buf;
	struct dcpi_ctl_hdr h;

	if (err != NULL)
		err->msg[0] = '\0';
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
		return bad(DCPI_CTL_EVERSION, err,
		    "protocol version mismatch: message has version %u, expected %u",
		    (unsigned)h.version, (unsigned)DCPI_CTL_VERSION);
	if (len < sizeof(h))
		return -1;
	if (h.reserved != 0)
		return bad(DCPI_CTL_EHEADER, err,
		    "malformed header: reserved field (byte 12) is 0x%x, expected 0",
		    (unsigned)h.reserved);
	if (dir == DCPI_CTL_TO_DAEMON ? !is_request(h.type) : !is_reply(h.type))
		return bad(DCPI_CTL_ETYPE, err,
		    "unknown %s type 0x%x (byte 2)",
		    dir == DCPI_CTL_TO_DAEMON ? "request" : "reply", (unsigned)h.type);
	if (h.length > DCPI_CTL_MAX_PAYLOAD)
		return bad(DCPI_CTL_ELENGTH, err,
		    "payload length %lu (byte 4) exceeds the maximum %u",
		    (unsigned long)h.length, (unsigned)DCPI_CTL_MAX_PAYLOAD);
	if (h.type == DCPI_CTL_LABEL && (h.length <= sizeof(struct dcpi_ctl_label) ||
	    h.length > sizeof(struct dcpi_ctl_label) + DCPI_CTL_LABEL_MAX))
		return bad(DCPI_CTL_ELENGTH, err,
		    "payload length %lu (byte 4) for a label request, expected %zu to %zu",
		    (unsigned long)h.length, sizeof(struct dcpi_ctl_label) + 1,
		    sizeof(struct dcpi_ctl_label) + DCPI_CTL_LABEL_MAX);
	if (is_request(h.type) && h.type != DCPI_CTL_LABEL && h.length != 0)
		return bad(DCPI_CTL_ELENGTH, err,
		    "payload length %lu (byte 4) for a request, expected 0",
		    (unsigned long)h.length);
	if (h.type == DCPI_CTL_RESULT && h.length < sizeof(struct dcpi_ctl_result))
		return bad(DCPI_CTL_ELENGTH, err,
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
	uint32_t length;

	if (textlen > DCPI_CTL_MAX_PAYLOAD - sizeof(r))
		textlen = DCPI_CTL_MAX_PAYLOAD - sizeof(r);
	if (size < DCPI_CTL_HDR_SIZE + sizeof(r) + textlen) {
		errno = EMSGSIZE;
		return -1;
	}
	/* Header first with no payload, then the two payload parts in place. */
	if (dcpi_ctl_encode(buf, size, DCPI_CTL_RESULT, seq, NULL, 0) < 0)
		return -1;
	/* A queue packs messages at any byte offset: no struct access. */
	length = (uint32_t)(sizeof(r) + textlen);
	memcpy(p + offsetof(struct dcpi_ctl_hdr, length), &length, sizeof(length));
	memcpy(p + DCPI_CTL_HDR_SIZE, &r, sizeof(r));
	if (textlen > 0)
		memcpy(p + DCPI_CTL_HDR_SIZE + sizeof(r), msg, textlen);
	return (long)(DCPI_CTL_HDR_SIZE + sizeof(r) + textlen);
}

/* Makes room for n more bytes at the end of the queue. */
static unsigned char *
wbuf_reserve(struct dcpi_ctl_wbuf *wb, size_t n)
{
	unsigned char *p;
	size_t cap;

	if (wb->cap - wb->len < n) {
		cap = wb->cap > 0 ? wb->cap : 4096;
		while (cap - wb->len < n) {
			if (cap > SIZE_MAX / 2) {
				errno = ENOMEM;
				return NULL;
			}
			cap *= 2;
		}
		if ((p = realloc(wb->buf, cap)) == NULL)
			return NULL;
		wb->buf = p;
		wb->cap = cap;
	}
	return wb->buf + wb->len;
}

int
dcpi_ctl_wbuf_queue(struct dcpi_ctl_wbuf *wb, uint16_t type, uint32_t seq,
    const void *payload, size_t len)
{
	unsigned char *at;
	long n;

	if (len > DCPI_CTL_MAX_PAYLOAD) {
		errno = EMSGSIZE;
		return -1;
	}
	if ((at = wbuf_reserve(wb, DCPI_CTL_HDR_SIZE + len)) == NULL)
		return -1;
	if ((n = dcpi_ctl_encode(at, wb->cap - wb->len, type, seq, payload, len)) < 0)
		return -1;
	wb->len += (size_t)n;
	return 0;
}

int
dcpi_ctl_wbuf_queue_result(struct dcpi_ctl_wbuf *wb, uint32_t seq, int code,
    const char *msg)
{
	size_t textlen = msg != NULL ? strlen(msg) : 0;
	unsigned char *at;
	long n;

	/* As dcpi_ctl_encode_result() cuts it. */
	if (textlen > DCPI_CTL_MAX_PAYLOAD - sizeof(struct dcpi_ctl_result))
		textlen = DCPI_CTL_MAX_PAYLOAD - sizeof(struct dcpi_ctl_result);
	at = wbuf_reserve(wb, DCPI_CTL_HDR_SIZE + sizeof(struct dcpi_ctl_result) + textlen);
	if (at == NULL)
		return -1;
	if ((n = dcpi_ctl_encode_result(at, wb->cap - wb->len, seq, code, msg)) < 0)
		return -1;
	wb->len += (size_t)n;
	return 0;
}

int
dcpi_ctl_wbuf_flush(struct dcpi_ctl_wbuf *wb, int fd)
{
	ssize_t w;

	while (wb->off < wb->len) {
		w = send(fd, wb->buf + wb->off, wb->len - wb->off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EWOULDBLOCK)
				errno = EAGAIN;
			return -1;
		}
		wb->off += (size_t)w;
	}
	wb->off = wb->len = 0;
	return 0;
}

void
dcpi_ctl_wbuf_clear(struct dcpi_ctl_wbuf *wb)
{
	free(wb->buf);
	memset(wb, 0, sizeof(*wb));
}

int
dcpi_ctl_send(int fd, uint16_t type, uint32_t seq, const void *payload,
    size_t len)
{
	unsigned char buf[DCPI_CTL_HDR_SIZE + DCPI_CTL_MAX_PAYLOAD];
	/* Over the caller's one message: nothing is queued, nothing freed. */
	struct dcpi_ctl_wbuf wb = { .buf = buf, .cap = sizeof(buf) };
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	long n = dcpi_ctl_encode(buf, sizeof(buf), type, seq, payload, len);

	if (n < 0)
		return -1;
	wb.len = (size_t)n;
	while (dcpi_ctl_wbuf_flush(&wb, fd) < 0) {
		if (errno != EAGAIN)
			return -1;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

int
dcpi_ctl_rbuf_read(struct dcpi_ctl_rbuf *rb, int fd, struct dcpi_ctl_hdr *hdr,
    struct dcpi_error *err)
{
	unsigned char *p = rb->buf;
	struct dcpi_ctl_hdr h;
	uint32_t length;
	size_t want;
	ssize_t r;
	int rc;

	/* The header, then exactly its payload: never a byte of the next
	 * message, which a blocking caller may want to leave in the socket. */
	want = DCPI_CTL_HDR_SIZE;
	if (rb->len >= DCPI_CTL_HDR_SIZE) {
		memcpy(&length, p + offsetof(struct dcpi_ctl_hdr, length), sizeof(length));
		want += length;
	}
	r = read(fd, p + rb->len, want - rb->len);
	if (r < 0) {
		if (errno == EWOULDBLOCK)
			errno = EAGAIN;
		return -1;
	}
	if (r == 0) {
		errno = ECONNRESET;
		return -1;
	}
	rb->len += (size_t)r;
	rc = dcpi_ctl_decode_hdr(p, rb->len, rb->dir, &h, err);
	*hdr = h;
	if (rc == DCPI_CTL_OK && h.length > rb->size - DCPI_CTL_HDR_SIZE)
		rc = bad(DCPI_CTL_ELENGTH, err,
		    "payload length %lu (byte 4) exceeds the %zu bytes expected",
		    (unsigned long)h.length, rb->size - DCPI_CTL_HDR_SIZE);
	if (rc < 0 || (rc == DCPI_CTL_OK && rb->len < DCPI_CTL_HDR_SIZE + h.length)) {
		errno = EAGAIN;
		return -1;
	}
	rb->len = 0;
	return rc;
}

int
dcpi_ctl_recv(int fd, int timeout_ms, int dir, struct dcpi_ctl_msg *msg,
    struct dcpi_error *err)
{
	long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct dcpi_ctl_rbuf rb = { .buf = msg, .size = sizeof(*msg), .dir = dir };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct dcpi_ctl_hdr h;
	long long left;
	int n, rc;

	if (err != NULL)
		err->msg[0] = '\0';
	for (;;) {
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
		rc = dcpi_ctl_rbuf_read(&rb, fd, &h, err);
		if (rc < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (rc >= 0)
			msg->hdr = h;
		return rc;
	}
}

int
dcpi_ctl_label_check(const char *name, size_t len, struct dcpi_error *err)
{
	char s[DCPI_CTL_LABEL_MAX + 1], dir[NAME_MAX + 1];
	int rc;

	if (err != NULL)
		err->msg[0] = '\0';
	/* The messages quote the name only once it is known to be text of a
	 * bounded length without a newline. */
	if (len == 0)
		rc = bad(-1, err, "label name is empty");
	else if (len > DCPI_CTL_LABEL_MAX)
		rc = bad(-1, err, "label name is %zu bytes long, at most %u "
		    "allowed", len, (unsigned)DCPI_CTL_LABEL_MAX);
	else if (memchr(name, '\0', len) != NULL)
		rc = bad(-1, err, "label name holds a NUL byte (at byte %zu)",
		    (size_t)((const char *)memchr(name, '\0', len) - name));
	else if (memchr(name, '\n', len) != NULL)
		rc = bad(-1, err, "label name holds a newline (at byte %zu)",
		    (size_t)((const char *)memchr(name, '\n', len) - name));
	else if (name[0] == ' ' || name[0] == '\t')
		rc = bad(-1, err, "label '%.*s' starts with a blank",
		    (int)len, name);
	else if (name[0] == '[')
		rc = bad(-1, err, "label '%.*s': names in brackets are "
		    "dcpid's own", (int)len, name);
	else {
		memcpy(s, name, len);
		s[len] = '\0';
		/* Escapes can make a name's directory longer than the name. */
		rc = dcpi_label_dirname(s, dir, sizeof(dir)) == 0 ? 0 :
		    bad(-1, err, "label '%.64s%s' has no directory name: %s",
		    s, len > 64 ? "..." : "", strerror(errno));
	}
	if (rc != 0)
		errno = EINVAL;
	return rc;
}

long
dcpi_ctl_label_encode(void *buf, size_t size, uint32_t pid, const char *name,
    struct dcpi_error *err)
{
	struct dcpi_ctl_label l = { .pid = pid, .reserved = 0 };
	size_t len = strlen(name);

	if (dcpi_ctl_label_check(name, len, err) == -1)
		return -1;
	if (size < sizeof(l) || size - sizeof(l) < len) {
		errno = EMSGSIZE;
		return -1;
	}
	memcpy(buf, &l, sizeof(l));
	memcpy((unsigned char *)buf + sizeof(l), name, len);
	return (long)(sizeof(l) + len);
}

int
dcpi_ctl_label_decode(const void *payload, size_t len, uint32_t *pid,
    char *name, struct dcpi_error *err)
{
	const unsigned char *p = payload;
	struct dcpi_ctl_label l;
	int e = errno;

	if (err != NULL)
		err->msg[0] = '\0';
	if (len <= sizeof(l) || len > sizeof(l) + DCPI_CTL_LABEL_MAX)
		return bad(DCPI_CTL_ELENGTH, err, "payload length %zu for a "
		    "label request, expected %zu to %zu", len, sizeof(l) + 1,
		    sizeof(l) + DCPI_CTL_LABEL_MAX);
	memcpy(&l, p, sizeof(l));
	if (l.reserved != 0)
		return bad(DCPI_CTL_EFAIL, err, "malformed label request: "
		    "reserved field (payload byte 4) is 0x%x, expected 0",
		    (unsigned)l.reserved);
	if (dcpi_ctl_label_check((const char *)p + sizeof(l), len - sizeof(l),
	    err) == -1) {
		errno = e;
		return DCPI_CTL_EFAIL;
	}
	errno = e;
	*pid = l.pid;
	memcpy(name, p + sizeof(l), len - sizeof(l));
	name[len - sizeof(l)] = '\0';
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
