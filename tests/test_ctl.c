/*
 * The control protocol codec (lib/ctl.c): every malformed header is
 * refused with its own code and a message naming the field; send/recv
 * frame exactly one message; the framer under them assembles messages split
 * across reads and queues what a full socket does not take; LABEL's payload
 * round-trips and every bad one is refused with its reason.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <dcpi/ctl.h>

static size_t
mkhdr(unsigned char *buf, unsigned version, unsigned type, uint32_t length,
    uint32_t seq, uint32_t reserved)
{
	struct dcpi_ctl_hdr h = {
		.version = (uint16_t)version, .type = (uint16_t)type,
		.length = length, .seq = seq, .reserved = reserved,
	};

	memcpy(buf, &h, sizeof(h));
	return sizeof(h);
}

static void
test_valid_requests(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;
	int t;

	for (t = DCPI_CTL_STATUS; t <= DCPI_CTL_RELOAD; t++) {
		mkhdr(b, DCPI_CTL_VERSION, t, 0, 1000 + t, 0);
		assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON,
		    &h, &err), DCPI_CTL_OK);
		assert_int_equal(h.type, t);
		assert_int_equal(h.seq, 1000 + t);
		assert_int_equal(h.length, 0);
		assert_string_equal(err.msg, "");
		/* A request is not a reply. */
		assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT,
		    &h, &err), DCPI_CTL_ETYPE);
	}
}

static void
test_partial_header(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	size_t n;

	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_FLUSH, 0, 77, 0);
	for (n = 0; n < sizeof(b); n++) {
		memset(&h, 0xff, sizeof(h));
		assert_int_equal(dcpi_ctl_decode_hdr(b, n, DCPI_CTL_TO_DAEMON, &h,
		    NULL), -1);
		/* Fields wholly received are filled, the rest are 0. */
		assert_int_equal(h.version, n >= 2 ? DCPI_CTL_VERSION : 0);
		assert_int_equal(h.type, n >= 4 ? DCPI_CTL_FLUSH : 0);
		assert_int_equal(h.seq, n >= 12 ? 77 : 0);
		assert_int_equal(h.reserved, 0);
	}
}

static void
test_bad_version(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;

	mkhdr(b, DCPI_CTL_VERSION + 1, DCPI_CTL_STATUS, 0, 0, 0);
	/* Known from the first two bytes, without waiting for the rest. */
	assert_int_equal(dcpi_ctl_decode_hdr(b, 2, DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_EVERSION);
	assert_int_equal(h.version, DCPI_CTL_VERSION + 1);
	assert_non_null(strstr(err.msg, "version 2"));
	assert_non_null(strstr(err.msg, "expected 1"));
	mkhdr(b, 0, DCPI_CTL_STATUS, 0, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_EVERSION);
	/* Text: "GE" as a version. */
	assert_int_equal(dcpi_ctl_decode_hdr("GET / HTTP/1.0\r\n", 16,
	    DCPI_CTL_TO_DAEMON, &h, &err), DCPI_CTL_EVERSION);
	/* The version is checked before anything else. */
	mkhdr(b, 9, 0xdead, 0xffffffff, 0, 5);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    NULL), DCPI_CTL_EVERSION);
}

static void
test_reserved(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;

	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS, 0, 0, 0x10);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_EHEADER);
	assert_non_null(strstr(err.msg, "reserved"));
	assert_non_null(strstr(err.msg, "0x10"));
}

static void
test_unknown_type(void **state)
{
	static const unsigned bad_req[] = { 0, DCPI_CTL_LABEL + 1, 0xff,
	    DCPI_CTL_RESULT, DCPI_CTL_STATUS_LINE, 0xffff };
	static const unsigned bad_rep[] = { 0, DCPI_CTL_STATUS, DCPI_CTL_QUIT,
	    DCPI_CTL_STATUS_LINE + 1, 0xffff };
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;
	char want[32];
	size_t i;

	for (i = 0; i < sizeof(bad_req) / sizeof(bad_req[0]); i++) {
		mkhdr(b, DCPI_CTL_VERSION, bad_req[i], 0, 0, 0);
		assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b),
		    DCPI_CTL_TO_DAEMON, &h, &err), DCPI_CTL_ETYPE);
		snprintf(want, sizeof(want), "type 0x%x", bad_req[i]);
		assert_non_null(strstr(err.msg, want));
	}
	for (i = 0; i < sizeof(bad_rep) / sizeof(bad_rep[0]); i++) {
		mkhdr(b, DCPI_CTL_VERSION, bad_rep[i], 4, 0, 0);
		assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b),
		    DCPI_CTL_TO_CLIENT, &h, &err), DCPI_CTL_ETYPE);
	}
}

static void
test_length(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;

	/* Over the maximum, whatever the type. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, DCPI_CTL_MAX_PAYLOAD + 1, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT, &h,
	    &err), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(err.msg, "16385"));
	assert_non_null(strstr(err.msg, "maximum 16384"));
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS, 0xffffffff, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(err.msg, "4294967295"));
	/* At the maximum: fine for a status line. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, DCPI_CTL_MAX_PAYLOAD, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT, &h,
	    &err), DCPI_CTL_OK);
	assert_int_equal(h.length, DCPI_CTL_MAX_PAYLOAD);
	/* Requests carry nothing. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_FLUSH, 1, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(err.msg, "expected 0"));
	/* A result holds at least its code. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_RESULT, sizeof(struct dcpi_ctl_result) - 1, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT, &h,
	    &err), DCPI_CTL_ELENGTH);
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_RESULT, sizeof(struct dcpi_ctl_result), 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT, &h,
	    &err), DCPI_CTL_OK);
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, 0, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT, &h,
	    &err), DCPI_CTL_OK);
}

static void
test_err_terminated(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;

	memset(err.msg, 'x', sizeof(err.msg));
	mkhdr(b, 7, DCPI_CTL_STATUS, 0, 0, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_EVERSION);
	assert_non_null(memchr(err.msg, '\0', sizeof(err.msg)));
	assert_string_equal(err.msg, "protocol version mismatch: message has "
	    "version 7, expected 1");
}

static void
test_encode(void **state)
{
	unsigned char b[DCPI_CTL_HDR_SIZE + DCPI_CTL_MAX_PAYLOAD + 1];
	struct dcpi_ctl_msg m;
	struct dcpi_ctl_hdr h;
	const char *text;
	size_t textlen;
	char big[DCPI_CTL_MAX_PAYLOAD + 100];

	assert_int_equal(dcpi_ctl_encode(b, sizeof(b), DCPI_CTL_STATUS_LINE, 9,
	    "samples 12", 10), DCPI_CTL_HDR_SIZE + 10);
	assert_int_equal(dcpi_ctl_decode_hdr(b, DCPI_CTL_HDR_SIZE, DCPI_CTL_TO_CLIENT,
	    &h, NULL), DCPI_CTL_OK);
	assert_int_equal(h.length, 10);
	assert_int_equal(h.seq, 9);
	assert_memory_equal(b + DCPI_CTL_HDR_SIZE, "samples 12", 10);
	errno = 0;
	assert_int_equal(dcpi_ctl_encode(b, sizeof(b), DCPI_CTL_STATUS_LINE, 0,
	    b, DCPI_CTL_MAX_PAYLOAD + 1), -1);
	assert_int_equal(errno, EMSGSIZE);
	errno = 0;
	assert_int_equal(dcpi_ctl_encode(b, 20, DCPI_CTL_STATUS_LINE, 0, "12345", 5), -1);
	assert_int_equal(errno, EMSGSIZE);

	assert_int_equal(dcpi_ctl_encode_result(b, sizeof(b), 5, DCPI_CTL_EPERM,
	    "no"), DCPI_CTL_HDR_SIZE + 4 + 2);
	memcpy(&m.hdr, b, sizeof(m.hdr));
	memcpy(m.payload, b + DCPI_CTL_HDR_SIZE, m.hdr.length);
	assert_int_equal(dcpi_ctl_result(&m, &text, &textlen), DCPI_CTL_EPERM);
	assert_int_equal(textlen, 2);
	assert_memory_equal(text, "no", 2);
	/* A message too long for a payload is cut to fit. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(dcpi_ctl_encode_result(b, sizeof(b), 5, DCPI_CTL_EFAIL, big),
	    DCPI_CTL_HDR_SIZE + DCPI_CTL_MAX_PAYLOAD);
	assert_int_equal(dcpi_ctl_decode_hdr(b, DCPI_CTL_HDR_SIZE, DCPI_CTL_TO_CLIENT,
	    &h, NULL), DCPI_CTL_OK);
	assert_int_equal(dcpi_ctl_encode_result(b, 30, 5, DCPI_CTL_EFAIL, big), -1);
	assert_int_equal(dcpi_ctl_encode_result(b, sizeof(b), 5, DCPI_CTL_OK, NULL),
	    DCPI_CTL_HDR_SIZE + 4);
}

static void
test_send_recv(void **state)
{
	static struct dcpi_ctl_msg m;
	int sv[2];
	struct dcpi_error err;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(dcpi_ctl_send(sv[0], DCPI_CTL_STATUS_LINE, 3, "a 1", 3), 0);
	assert_int_equal(dcpi_ctl_send(sv[0], DCPI_CTL_STATUS_LINE, 3, "bb 2", 4), 0);
	/* Exactly one message per call: nothing of the next is consumed. */
	assert_int_equal(dcpi_ctl_recv(sv[1], 1000, DCPI_CTL_TO_CLIENT, &m,
	    &err), DCPI_CTL_OK);
	assert_int_equal(m.hdr.length, 3);
	assert_memory_equal(m.payload, "a 1", 3);
	assert_int_equal(dcpi_ctl_recv(sv[1], 1000, DCPI_CTL_TO_CLIENT, &m,
	    &err), DCPI_CTL_OK);
	assert_int_equal(m.hdr.length, 4);
	assert_memory_equal(m.payload, "bb 2", 4);
	/* Nothing comes: timeout. */
	errno = 0;
	assert_int_equal(dcpi_ctl_recv(sv[1], 50, DCPI_CTL_TO_CLIENT, &m,
	    &err), -1);
	assert_int_equal(errno, ETIMEDOUT);
	/* A payload that never completes: timeout too. */
	assert_int_equal(write(sv[0], "\1\0\1\1\10\0\0\0\0\0\0\0\0\0\0\0abc", 19), 19);
	errno = 0;
	assert_int_equal(dcpi_ctl_recv(sv[1], 50, DCPI_CTL_TO_CLIENT, &m,
	    &err), -1);
	assert_int_equal(errno, ETIMEDOUT);
	close(sv[0]);
	close(sv[1]);

	/* Another version: refused after its two bytes, not timed out. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[0], "\3\0", 2), 2);
	assert_int_equal(dcpi_ctl_recv(sv[1], 5000, DCPI_CTL_TO_CLIENT, &m,
	    &err), DCPI_CTL_EVERSION);
	assert_int_equal(m.hdr.version, 3);
	/* A bad header's payload is not read. */
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	{
		unsigned char b[16];

		mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, 1u << 30, 0, 0);
		assert_int_equal(write(sv[0], b, sizeof(b)), (ssize_t)sizeof(b));
	}
	assert_int_equal(dcpi_ctl_recv(sv[1], 5000, DCPI_CTL_TO_CLIENT, &m,
	    &err), DCPI_CTL_ELENGTH);
	/* The peer closes in mid-header. */
	assert_int_equal(write(sv[0], "\1\0\1\1", 4), 4);
	close(sv[0]);
	errno = 0;
	assert_int_equal(dcpi_ctl_recv(sv[1], 5000, DCPI_CTL_TO_CLIENT, &m,
	    &err), -1);
	assert_int_equal(errno, ECONNRESET);
	close(sv[1]);

	/* Sending to a closed peer is an error, not SIGPIPE. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	errno = 0;
	assert_int_equal(dcpi_ctl_send(sv[0], DCPI_CTL_STATUS, 1, NULL, 0), -1);
	assert_int_equal(errno, EPIPE);
	assert_int_equal(dcpi_ctl_send(sv[0], DCPI_CTL_STATUS, 1, NULL,
	    DCPI_CTL_MAX_PAYLOAD + 1), -1);
	assert_int_equal(errno, EMSGSIZE);
	close(sv[0]);
}

/* The framer on a non-blocking socket: a message arrives a byte at a time,
 * then two messages in one burst come out one per complete message. */
static void
test_rbuf_split(void **state)
{
	static struct dcpi_ctl_msg m;
	struct dcpi_ctl_rbuf rb = { .buf = &m, .size = sizeof(m),
	    .dir = DCPI_CTL_TO_CLIENT };
	unsigned char wire[2 * (DCPI_CTL_HDR_SIZE + 5)];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;
	long n1, n2;
	size_t i;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	/* Nothing there yet. */
	errno = 0;
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(rb.len, 0);

	n1 = dcpi_ctl_encode(wire, sizeof(wire), DCPI_CTL_STATUS_LINE, 7, "k 123", 5);
	assert_int_equal(n1, DCPI_CTL_HDR_SIZE + 5);
	for (i = 0; i + 1 < (size_t)n1; i++) {
		assert_int_equal(write(sv[0], wire + i, 1), 1);
		errno = 0;
		assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
		assert_int_equal(errno, EAGAIN);
		assert_int_equal(rb.len, i + 1);
	}
	assert_int_equal(write(sv[0], wire + i, 1), 1);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err),
	    DCPI_CTL_OK);
	assert_int_equal(h.seq, 7);
	assert_int_equal(h.length, 5);
	assert_memory_equal(m.payload, "k 123", 5);
	assert_int_equal(rb.len, 0);

	/* Two messages in one write: each read stops at a message's end. */
	n1 = dcpi_ctl_encode(wire, sizeof(wire), DCPI_CTL_STATUS_LINE, 8, "a 1", 3);
	n2 = dcpi_ctl_encode_result(wire + n1, sizeof(wire) - (size_t)n1, 8,
	    DCPI_CTL_OK, NULL);
	assert_int_equal(write(sv[0], wire, (size_t)(n1 + n2)), n1 + n2);
	/* The header, then the payload of the first. */
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
	assert_int_equal(rb.len, DCPI_CTL_HDR_SIZE);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err),
	    DCPI_CTL_OK);
	assert_int_equal(h.type, DCPI_CTL_STATUS_LINE);
	assert_memory_equal(m.payload, "a 1", 3);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err),
	    DCPI_CTL_OK);
	assert_int_equal(h.type, DCPI_CTL_RESULT);
	/* The peer leaves in mid-header: reset, and how far it got. */
	assert_int_equal(write(sv[0], wire, 3), 3);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
	close(sv[0]);
	errno = 0;
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
	assert_int_equal(errno, ECONNRESET);
	assert_int_equal(rb.len, 3);
	close(sv[1]);
}

/* A length over the protocol's maximum, or over what the caller's buffer
 * holds, is refused on the header, before any payload is read. */
static void
test_rbuf_oversized(void **state)
{
	unsigned char small[DCPI_CTL_HDR_SIZE + 8], b[DCPI_CTL_HDR_SIZE];
	struct dcpi_ctl_rbuf rb = { .buf = small, .size = sizeof(small),
	    .dir = DCPI_CTL_TO_CLIENT };
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;
	char more[16];
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, DCPI_CTL_MAX_PAYLOAD + 1, 4, 0);
	assert_int_equal(write(sv[0], b, sizeof(b)), (ssize_t)sizeof(b));
	assert_int_equal(write(sv[0], "0123456789", 10), 10);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err),
	    DCPI_CTL_ELENGTH);
	assert_non_null(strstr(err.msg, "exceeds the maximum"));
	assert_int_equal(h.seq, 4);
	assert_int_equal(rb.len, 0);
	/* The payload is still in the socket. */
	assert_int_equal(read(sv[1], more, sizeof(more)), 10);

	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, 9, 5, 0);
	assert_int_equal(write(sv[0], b, sizeof(b)), (ssize_t)sizeof(b));
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err),
	    DCPI_CTL_ELENGTH);
	assert_string_equal(err.msg, "payload length 9 (byte 4) exceeds the 8 bytes expected");
	/* What fits is read. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_STATUS_LINE, 8, 6, 0);
	assert_int_equal(write(sv[0], b, sizeof(b)), (ssize_t)sizeof(b));
	assert_int_equal(write(sv[0], "abcdefgh", 8), 8);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err), -1);
	assert_int_equal(dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err),
	    DCPI_CTL_OK);
	assert_memory_equal(small + DCPI_CTL_HDR_SIZE, "abcdefgh", 8);
	close(sv[0]);
	close(sv[1]);
}

/* The queue meets a full socket: flush sends what fits, says EAGAIN, keeps
 * the rest in order, and finishes once the peer reads. */
static void
test_wbuf_eagain(void **state)
{
	static struct dcpi_ctl_msg m;
	static char payload[DCPI_CTL_MAX_PAYLOAD];
	struct dcpi_ctl_rbuf rb = { .buf = &m, .size = sizeof(m),
	    .dir = DCPI_CTL_TO_CLIENT };
	struct dcpi_ctl_wbuf wb = { 0 };
	struct dcpi_ctl_hdr h;
	int sv[2], sndbuf = 4096, i, n, rc;
	struct dcpi_error err;
	const char *text;
	size_t textlen;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    sizeof(sndbuf)), 0);
	memset(payload, 'x', sizeof(payload));
	n = 64;
	for (i = 0; i < n; i++) {
		payload[0] = (char)('0' + i % 10);
		assert_int_equal(dcpi_ctl_wbuf_queue(&wb, DCPI_CTL_STATUS_LINE,
		    (uint32_t)i + 1, payload, sizeof(payload)), 0);
	}
	/* A result behind an odd length lies at an odd offset of the queue. */
	assert_int_equal(dcpi_ctl_wbuf_queue(&wb, DCPI_CTL_STATUS_LINE, 98, "odd", 3), 0);
	assert_int_equal(dcpi_ctl_wbuf_queue_result(&wb, 99, DCPI_CTL_EFAIL, "no"), 0);
	assert_int_equal(dcpi_ctl_wbuf_queue(&wb, DCPI_CTL_STATUS_LINE, 1, payload,
	    DCPI_CTL_MAX_PAYLOAD + 1), -1);
	assert_int_equal(errno, EMSGSIZE);
	errno = 0;
	assert_int_equal(dcpi_ctl_wbuf_flush(&wb, sv[0]), -1);
	assert_int_equal(errno, EAGAIN);
	assert_true(wb.off < wb.len);
	/* Read everything back, flushing whenever the peer made room. */
	for (i = 0; i <= n + 1; i++) {
		while ((rc = dcpi_ctl_rbuf_read(&rb, sv[1], &h, &err)) < 0) {
			assert_int_equal(errno, EAGAIN);
			rc = dcpi_ctl_wbuf_flush(&wb, sv[0]);
			assert_true(rc == 0 || errno == EAGAIN);
		}
		assert_int_equal(rc, DCPI_CTL_OK);
		m.hdr = h;
		if (i < n) {
			assert_int_equal(h.seq, i + 1);
			assert_int_equal(h.length, sizeof(payload));
			assert_int_equal(m.payload[0], '0' + i % 10);
		} else if (i == n) {
			assert_int_equal(h.seq, 98);
			assert_memory_equal(m.payload, "odd", 3);
		}
	}
	assert_int_equal(m.hdr.seq, 99);
	assert_int_equal(dcpi_ctl_result(&m, &text, &textlen), DCPI_CTL_EFAIL);
	assert_int_equal(textlen, 2);
	assert_memory_equal(text, "no", 2);
	assert_int_equal(wb.len, 0);
	assert_int_equal(wb.off, 0);
	/* A closed peer: an error, not SIGPIPE, and the queue kept. */
	assert_int_equal(dcpi_ctl_wbuf_queue(&wb, DCPI_CTL_STATUS_LINE, 1, "z", 1), 0);
	close(sv[1]);
	errno = 0;
	assert_int_equal(dcpi_ctl_wbuf_flush(&wb, sv[0]), -1);
	assert_int_equal(errno, EPIPE);
	assert_int_equal(wb.len, DCPI_CTL_HDR_SIZE + 1);
	dcpi_ctl_wbuf_clear(&wb);
	assert_null(wb.buf);
	assert_int_equal(wb.len, 0);
	close(sv[0]);
}

static void
test_strcode(void **state)
{
	int a, b;

	for (a = DCPI_CTL_OK; a <= DCPI_CTL_EBUSY; a++) {
		assert_non_null(dcpi_ctl_strcode(a));
		assert_string_not_equal(dcpi_ctl_strcode(a), "unknown result code");
		for (b = a + 1; b <= DCPI_CTL_EBUSY; b++)
			assert_string_not_equal(dcpi_ctl_strcode(a), dcpi_ctl_strcode(b));
	}
	assert_string_equal(dcpi_ctl_strcode(DCPI_CTL_EBUSY + 1), "unknown result code");
	assert_string_equal(dcpi_ctl_strcode(-1), "unknown result code");
	assert_string_equal(dcpi_ctl_strcode(DCPI_CTL_EPERM), "permission denied");
}

/* A LABEL payload by hand: pid, reserved, then name[len]. */
static size_t
mklabel(unsigned char *buf, uint32_t pid, uint32_t reserved, const char *name,
    size_t len)
{
	struct dcpi_ctl_label l = { .pid = pid, .reserved = reserved };

	memcpy(buf, &l, sizeof(l));
	memcpy(buf + sizeof(l), name, len);
	return sizeof(l) + len;
}

static void
test_label_header(void **state)
{
	unsigned char b[16];
	struct dcpi_ctl_hdr h;
	struct dcpi_error err;

	/* The one request with a payload: 8 bytes and a name of 1 to 255. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_LABEL, 9, 5, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_OK);
	assert_int_equal(h.length, 9);
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_LABEL, 8 + DCPI_CTL_LABEL_MAX, 5, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_OK);
	assert_int_equal(DCPI_CTL_REQUEST_MAX, DCPI_CTL_HDR_SIZE + 8 + 255);
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_LABEL, 8, 5, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_ELENGTH);
	assert_string_equal(err.msg, "payload length 8 (byte 4) for a label request, "
	    "expected 9 to 263");
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_LABEL, 0, 5, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_ELENGTH);
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_LABEL, 8 + DCPI_CTL_LABEL_MAX + 1, 5, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_DAEMON, &h,
	    &err), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(err.msg, "264"));
	/* Not a reply. */
	mkhdr(b, DCPI_CTL_VERSION, DCPI_CTL_LABEL, 9, 5, 0);
	assert_int_equal(dcpi_ctl_decode_hdr(b, sizeof(b), DCPI_CTL_TO_CLIENT, &h,
	    &err), DCPI_CTL_ETYPE);
}

static void
test_label_round_trip(void **state)
{
	static struct dcpi_ctl_msg m;
	unsigned char p[DCPI_CTL_REQUEST_MAX];
	char name[DCPI_CTL_LABEL_MAX + 1], longest[DCPI_CTL_LABEL_MAX + 1];
	struct dcpi_error err;
	uint32_t pid;
	long n;
	int sv[2];

	n = dcpi_ctl_label_encode(p, sizeof(p), 1234, "web/frontend %.x", &err);
	assert_int_equal(n, 8 + 16);
	assert_int_equal(memcmp(p + 8, "web/frontend %.x", 16), 0);
	errno = 0;
	memset(name, 'x', sizeof(name));
	assert_int_equal(dcpi_ctl_label_decode(p, (size_t)n, &pid, name,
	    &err), DCPI_CTL_OK);
	assert_int_equal(errno, 0);
	assert_int_equal(pid, 1234);
	assert_string_equal(name, "web/frontend %.x");
	assert_string_equal(err.msg, "");

	/* The longest name, pid 0, through the socket and the framer. */
	memset(longest, 'a', DCPI_CTL_LABEL_MAX);
	longest[DCPI_CTL_LABEL_MAX] = '\0';
	n = dcpi_ctl_label_encode(p, sizeof(p), 0, longest, &err);
	assert_int_equal(n, 8 + DCPI_CTL_LABEL_MAX);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(dcpi_ctl_send(sv[0], DCPI_CTL_LABEL, 7, p, (size_t)n), 0);
	assert_int_equal(dcpi_ctl_recv(sv[1], 1000, DCPI_CTL_TO_DAEMON, &m,
	    &err), DCPI_CTL_OK);
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(m.hdr.type, DCPI_CTL_LABEL);
	assert_int_equal(m.hdr.length, n);
	pid = 99;
	assert_int_equal(dcpi_ctl_label_decode(m.payload, m.hdr.length, &pid, name,
	    &err), DCPI_CTL_OK);
	assert_int_equal(pid, 0);
	assert_string_equal(name, longest);

	/* The encoder refuses what the decoder would, and small buffers. */
	errno = 0;
	assert_int_equal(dcpi_ctl_label_encode(p, sizeof(p), 0, "", &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "label name is empty");
	assert_int_equal(dcpi_ctl_label_encode(p, sizeof(p), 0, "[idle]",
	    &err), -1);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err.msg, "label '[idle]': names in brackets are dcpid's own");
	assert_int_equal(dcpi_ctl_label_encode(p, 8 + 2, 0, "abc", &err), -1);
	assert_int_equal(errno, EMSGSIZE);
	assert_int_equal(dcpi_ctl_label_encode(p, 8 + 3, 0, "abc", &err), 8 + 3);
}

static void
test_label_rejected(void **state)
{
	unsigned char p[2 * DCPI_CTL_REQUEST_MAX] = { 0 };
	char name[DCPI_CTL_LABEL_MAX + 1], big[DCPI_CTL_LABEL_MAX + 2];
	struct dcpi_error err;
	uint32_t pid;
	size_t n;

	errno = 0;
	/* Short payloads, none of which is read past its length. */
	assert_int_equal(dcpi_ctl_label_decode(p, 0, &pid, name,
	    &err), DCPI_CTL_ELENGTH);
	assert_int_equal(dcpi_ctl_label_decode(NULL, 0, &pid, name, NULL),
	    DCPI_CTL_ELENGTH);
	n = mklabel(p, 1, 0, "", 0);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_ELENGTH);
	assert_string_equal(err.msg, "payload length 8 for a label request, "
	    "expected 9 to 263");
	assert_int_equal(dcpi_ctl_label_decode(p, 5, &pid, name,
	    &err), DCPI_CTL_ELENGTH);
	/* Too long: 256 bytes of name. */
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	n = mklabel(p, 1, 0, big, strlen(big));
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_ELENGTH);
	assert_non_null(strstr(err.msg, "264"));
	assert_int_equal(dcpi_ctl_label_check(big, strlen(big), &err), -1);
	assert_string_equal(err.msg, "label name is 256 bytes long, at most 255 allowed");
	assert_int_equal(errno, EINVAL);
	errno = 0;
	/* Reserved not 0. */
	n = mklabel(p, 1, 0x80, "x", 1);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	assert_string_equal(err.msg, "malformed label request: reserved field "
	    "(payload byte 4) is 0x80, expected 0");
	/* Bad names. */
	n = mklabel(p, 1, 0, "a\nb", 3);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	assert_string_equal(err.msg, "label name holds a newline (at byte 1)");
	n = mklabel(p, 1, 0, "ab\0", 3);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	assert_string_equal(err.msg, "label name holds a NUL byte (at byte 2)");
	n = mklabel(p, 1, 0, "[other]", 7);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	assert_string_equal(err.msg, "label '[other]': names in brackets are dcpid's own");
	n = mklabel(p, 1, 0, " x", 2);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	assert_string_equal(err.msg, "label ' x' starts with a blank");
	n = mklabel(p, 1, 0, "\tx", 2);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	/* 255 bytes that need more than NAME_MAX once escaped. */
	memset(big, '/', DCPI_CTL_LABEL_MAX);
	n = mklabel(p, 1, 0, big, DCPI_CTL_LABEL_MAX);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_EFAIL);
	assert_non_null(strstr(err.msg, "has no directory name"));
	/* A bracket or a blank inside the name is fine. */
	n = mklabel(p, 1, 0, "a [b]\tc", 7);
	assert_int_equal(dcpi_ctl_label_decode(p, n, &pid, name,
	    &err), DCPI_CTL_OK);
	assert_string_equal(name, "a [b]\tc");
	/* The decoder leaves errno alone, as the header decoder does. */
	assert_int_equal(errno, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_requests),
		cmocka_unit_test(test_partial_header),
		cmocka_unit_test(test_bad_version),
		cmocka_unit_test(test_reserved),
		cmocka_unit_test(test_unknown_type),
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_err_terminated),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_rbuf_split),
		cmocka_unit_test(test_rbuf_oversized),
		cmocka_unit_test(test_wbuf_eagain),
		cmocka_unit_test(test_strcode),
		cmocka_unit_test(test_label_header),
		cmocka_unit_test(test_label_round_trip),
		cmocka_unit_test(test_label_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
