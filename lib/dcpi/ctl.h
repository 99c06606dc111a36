/*
 * libdcpi: the control protocol between dcpid and dcpictl (one header for
 * both sides, as bgpd's and chrony's are).
 *
 * A message is a fixed header followed by `length` bytes of payload, over a
 * local SOCK_STREAM UNIX socket, in host byte order.  Requests carry no
 * payload, except LABEL (struct dcpi_ctl_label and a name, below).  The
 * client sends one request; the daemon answers with zero or more records (STATUS sends one
 * DCPI_CTL_STATUS_LINE per line) and then exactly one DCPI_CTL_RESULT whose
 * payload is a struct dcpi_ctl_result followed by a message (not
 * NUL-terminated, length - sizeof(struct dcpi_ctl_result) bytes).  The
 * RESULT ends the reply.  A message with a bad version, an unknown type, or
 * a length over DCPI_CTL_MAX_PAYLOAD gets an error RESULT and the
 * connection is closed.
 *
 * Sequence 0 is the connection's rather than a request's: the daemon sends
 * a RESULT with seq 0 when it closes a connection on its own, before or
 * without reading a request (DCPI_CTL_EBUSY when the connection is over a
 * limit, sent at once, before the request was read; DCPI_CTL_EHEADER when
 * no complete request came in time).  So that the two cannot be confused,
 * a client's requests use a nonzero seq, and a client accepts a RESULT
 * with seq 0 as the answer to whatever it sent.  A refused client may find
 * the socket closed when it sends (EPIPE): the RESULT is still there to
 * read.
 *
 * Bump DCPI_CTL_VERSION whenever the layout or the meaning of any message
 * changes; both sides refuse other versions by name.
 *
 * Version history:
 *   1  The first: STATUS, FLUSH, EPOCH, QUIT; RESULT and STATUS_LINE;
 *      codes OK to EFAIL.  Added since, without a change in the layout or
 *      in the meaning of what was there (a version 1 peer of either age
 *      reads every message of the other): the codes DCPI_CTL_EHEADER and
 *      DCPI_CTL_EBUSY, which an older client prints as an unknown code;
 *      the rule above on sequence 0, which the daemon has followed since
 *      it first sent EBUSY (older clients report such a RESULT as a
 *      sequence mismatch); the request RELOAD (re-read dcpid.conf, as
 *      SIGHUP does, with the outcome in the RESULT: OK, or EFAIL and why
 *      the old configuration was kept), which an older daemon answers
 *      with ETYPE; the request LABEL (label a process's samples and its
 *      descendants', as DCPI's dcpilabel did), the first request with a
 *      payload, which an older daemon answers with ETYPE (dcpictl then
 *      says that dcpid is too old for label).
 */
#ifndef DCPI_CTL_H
#define DCPI_CTL_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCPI_CTL_VERSION	1
#define DCPI_CTL_SOCKET_DEFAULT	"/run/dcpid/dcpid.sock"
#define DCPI_CTL_MAX_PAYLOAD	16384

struct dcpi_ctl_hdr {
	uint16_t	version;	/* DCPI_CTL_VERSION */
	uint16_t	type;		/* enum dcpi_ctl_type */
	uint32_t	length;		/* payload bytes after this header */
	uint32_t	seq;		/* copied from the request into its replies */
	uint32_t	reserved;	/* 0 */
};

enum dcpi_ctl_type {
	/* Requests (no payload but LABEL's). */
	DCPI_CTL_STATUS = 1,
	DCPI_CTL_FLUSH,
	DCPI_CTL_EPOCH,
	DCPI_CTL_QUIT,
	DCPI_CTL_RELOAD,	/* since version 1's first release: see history */
	DCPI_CTL_LABEL,		/* the same; payload: see below */
	/* Replies. */
	DCPI_CTL_RESULT = 0x100,	/* struct dcpi_ctl_result + message */
	DCPI_CTL_STATUS_LINE,		/* "KEY VALUE" text, not NUL-terminated */
};

enum dcpi_ctl_code {
	DCPI_CTL_OK = 0,
	DCPI_CTL_EVERSION,	/* protocol version not spoken */
	DCPI_CTL_ETYPE,		/* unknown request type */
	DCPI_CTL_ELENGTH,	/* payload length wrong for the type or too large */
	DCPI_CTL_EPERM,		/* not allowed for this peer's uid/gid */
	DCPI_CTL_EFAIL,		/* the request was valid but failed: see message */
};

struct dcpi_ctl_result {
	int32_t		code;		/* enum dcpi_ctl_code */
};

/* Text for a code: "ok", "protocol version mismatch", ... (static). */
const char *dcpi_ctl_strcode(int code);

/*
 * Codes added after version 1's first six; they travel in the same RESULT
 * field.  DCPI_CTL_EHEADER: a header field other than version, type and
 * length is wrong (reserved not 0).  DCPI_CTL_EBUSY: the daemon has too many
 * control connections open; retry later.
 */
#define DCPI_CTL_EHEADER	(DCPI_CTL_EFAIL + 1)
#define DCPI_CTL_EBUSY		(DCPI_CTL_EFAIL + 2)

/* Direction of a message, for the type check of dcpi_ctl_decode_hdr(). */
#define DCPI_CTL_TO_DAEMON	1	/* requests: STATUS ... LABEL */
#define DCPI_CTL_TO_CLIENT	2	/* replies: RESULT, STATUS_LINE */

/* Bytes of a header on the wire (the struct has no padding). */
#define DCPI_CTL_HDR_SIZE	sizeof(struct dcpi_ctl_hdr)

/*
 * Checks the header at the start of buf[len], where len is the number of
 * bytes received so far (any number, 0 included; only the first
 * DCPI_CTL_HDR_SIZE are looked at).  The version is checked as soon as its
 * two bytes are there, so a peer speaking another protocol is told at once
 * rather than left waiting for a header of another size.  Checks, in order:
 * version == DCPI_CTL_VERSION, reserved == 0, a type known for dir
 * (DCPI_CTL_TO_DAEMON or DCPI_CTL_TO_CLIENT), length <= DCPI_CTL_MAX_PAYLOAD
 * and a length valid for the type (0 for requests other than LABEL;
 * sizeof(struct dcpi_ctl_label) + 1 to + DCPI_CTL_LABEL_MAX for LABEL; at
 * least sizeof(struct dcpi_ctl_result) for RESULT).
 *
 * Returns DCPI_CTL_OK when the whole header is there and valid (the payload,
 * hdr->length bytes after it, may still be on its way); -1 when fewer than
 * DCPI_CTL_HDR_SIZE bytes are there and those are valid (read more);
 * otherwise the enum dcpi_ctl_code of the first failed check
 * (DCPI_CTL_EVERSION, DCPI_CTL_EHEADER, DCPI_CTL_ETYPE, DCPI_CTL_ELENGTH),
 * with a one-line message naming the field, its value and what was expected
 * in err->msg (error.h; emptied first, so "" when no check failed; err may
 * be NULL).
 * In every case *hdr gets the fields wholly within buf[len] (host byte
 * order, as sent), the others 0.  Does not touch errno.
 * Protocol: this header, "A message is a fixed header ...".
 */
int dcpi_ctl_decode_hdr(const void *buf, size_t len, int dir,
    struct dcpi_ctl_hdr *hdr, struct dcpi_error *err);

/*
 * Encodes a message of type with payload[len] (payload may be NULL when len
 * is 0) into buf[size].  Returns the message's size (DCPI_CTL_HDR_SIZE +
 * len), or -1 with errno EMSGSIZE when len > DCPI_CTL_MAX_PAYLOAD or the
 * message does not fit in size bytes.
 */
long dcpi_ctl_encode(void *buf, size_t size, uint16_t type, uint32_t seq,
    const void *payload, size_t len);

/*
 * Encodes a RESULT with code and the text msg (a C string, may be NULL for
 * none; cut to fit DCPI_CTL_MAX_PAYLOAD) into buf[size].  Returns the
 * message's size or -1 with errno EMSGSIZE when size is too small.
 */
long dcpi_ctl_encode_result(void *buf, size_t size, uint32_t seq, int code,
    const char *msg);

/*
 * Sends one message on the blocking stream socket fd, all of it (retrying
 * short writes and EINTR; MSG_NOSIGNAL, so a closed peer gives EPIPE rather
 * than SIGPIPE).  Returns 0, or -1 with errno (EMSGSIZE for len >
 * DCPI_CTL_MAX_PAYLOAD, else send(2)'s).
 */
int dcpi_ctl_send(int fd, uint16_t type, uint32_t seq, const void *payload,
    size_t len);

/* One received message: the header, then hdr.length payload bytes. */
struct dcpi_ctl_msg {
	struct dcpi_ctl_hdr	hdr;
	unsigned char		payload[DCPI_CTL_MAX_PAYLOAD];
};

/*
 * Reads exactly one message from the stream socket fd (blocking or not: it
 * polls) into *msg, checking its header with dcpi_ctl_decode_hdr(dir) before
 * reading the payload.  timeout_ms bounds the wait for the whole message
 * (milliseconds; -1 waits forever).  Reads nothing past the message.
 * Returns DCPI_CTL_OK; a positive enum dcpi_ctl_code for a bad header, with
 * err (may be NULL) and msg->hdr as dcpi_ctl_decode_hdr() leaves them; or
 * -1 with errno: ETIMEDOUT, ECONNRESET when the peer closed the connection
 * (before or within the message), else poll(2)'s or read(2)'s.
 */
int dcpi_ctl_recv(int fd, int timeout_ms, int dir, struct dcpi_ctl_msg *msg,
    struct dcpi_error *err);

/*
 * The framer: both sides' way of moving whole messages over a stream socket,
 * non-blocking (dcpid's event loop) or blocking (dcpi_ctl_send() and
 * dcpi_ctl_recv() are these calls plus poll(2)), as OpenBSD's imsg serves
 * bgpd and bgpctl.
 *
 * Receiving: a struct dcpi_ctl_rbuf assembles one message at a time in the
 * caller's memory, buf[size] (DCPI_CTL_HDR_SIZE plus the longest payload
 * expected: sizeof(struct dcpi_ctl_msg) takes any; DCPI_CTL_REQUEST_MAX
 * takes every request).  Set buf, size and dir, and len to
 * 0; the framer keeps len, the bytes of the message received so far.
 */
struct dcpi_ctl_rbuf {
	void	*buf;	/* the message as on the wire: header, then payload */
	size_t	 size;	/* bytes at buf */
	size_t	 len;	/* bytes of the message received so far */
	int	 dir;	/* DCPI_CTL_TO_DAEMON or DCPI_CTL_TO_CLIENT: what arrives */
};

/*
 * One read(2) from fd into rb of at most the bytes the message still lacks,
 * so that nothing past it is consumed, then the header check of
 * dcpi_ctl_decode_hdr(rb->dir), whose results it returns: DCPI_CTL_OK when
 * the whole message is in rb->buf (header in *hdr, hdr->length payload bytes
 * at rb->buf + DCPI_CTL_HDR_SIZE; rb->len is set back to 0, so the next call
 * starts the next message and the bytes stay at rb->buf until then); a
 * positive enum dcpi_ctl_code for a bad header (err and *hdr as
 * dcpi_ctl_decode_hdr() leaves them; DCPI_CTL_ELENGTH too for a payload
 * longer than rb->size allows); or -1 with errno: EAGAIN when the message is
 * not complete yet (nothing to read on a non-blocking fd, or only part of
 * it came), ECONNRESET when the peer closed the connection (rb->len tells
 * how far into a message), else read(2)'s (EINTR included).
 */
int dcpi_ctl_rbuf_read(struct dcpi_ctl_rbuf *rb, int fd, struct dcpi_ctl_hdr *hdr,
    struct dcpi_error *err);

/*
 * Sending: a struct dcpi_ctl_wbuf queues whole messages, buf[off..len)
 * waiting, and flushes as far as the socket takes them.  Zero it to start;
 * dcpi_ctl_wbuf_clear() frees it.
 */
struct dcpi_ctl_wbuf {
	unsigned char	*buf;	/* malloc'd by dcpi_ctl_wbuf_queue*() */
	size_t		 off;	/* bytes of buf already sent */
	size_t		 len;	/* bytes of buf queued */
	size_t		 cap;	/* bytes allocated at buf */
};

/*
 * Appends one message of type with payload[len] (payload may be NULL when
 * len is 0), or a RESULT with code and the text msg (a C string or NULL,
 * cut as dcpi_ctl_encode_result() cuts it), to the queue.  Sends nothing.
 * Returns 0, or -1 with errno: EMSGSIZE for len > DCPI_CTL_MAX_PAYLOAD,
 * ENOMEM (the queue is left as it was).
 */
int dcpi_ctl_wbuf_queue(struct dcpi_ctl_wbuf *wb, uint16_t type, uint32_t seq,
    const void *payload, size_t len);
int dcpi_ctl_wbuf_queue_result(struct dcpi_ctl_wbuf *wb, uint32_t seq, int code,
    const char *msg);

/*
 * Sends what is queued on the stream socket fd, as far as it takes without
 * blocking (MSG_DONTWAIT; MSG_NOSIGNAL, so a closed peer gives EPIPE rather
 * than SIGPIPE; EINTR retried).  Returns 0 once all is sent (the queue is
 * then empty, off = len = 0), or -1 with errno: EAGAIN when the socket took
 * only part (off tells how much; call again when fd is writable), else
 * send(2)'s.
 */
int dcpi_ctl_wbuf_flush(struct dcpi_ctl_wbuf *wb, int fd);

/* Frees the queue, sent or not; wb is then empty and usable again. */
void dcpi_ctl_wbuf_clear(struct dcpi_ctl_wbuf *wb);

/*
 * LABEL: label the samples of process pid, and of the processes it forks
 * from then on, with a name until they exit (dcpictl label; dcpid(8) says
 * who may label what).  The payload is this struct, then the name:
 *
 *   bytes 0-3   pid        uint32: the process; 0 for the requesting
 *                          process itself, as SO_PEERCRED names it
 *   bytes 4-7   reserved   0
 *   bytes 8-    the name   1 to DCPI_CTL_LABEL_MAX bytes, no NUL, not
 *                          NUL-terminated (length - 8 bytes)
 *
 * A valid name is a label with a directory name (dcpi_label_dirname() in
 * <dcpi/label.h>): no NUL or newline, not starting with a blank; and it
 * does not start with '[', for names in brackets ("[idle]") are dcpid's
 * own.  The reply is one RESULT: OK, ELENGTH (closing the connection) for
 * a length out of range, EFAIL for a bad name, reserved field or pid,
 * EPERM for a process the peer may not label.
 */
#define DCPI_CTL_LABEL_MAX	255	/* bytes of a label's name */

struct dcpi_ctl_label {
	uint32_t	pid;		/* 0: the requesting process */
	uint32_t	reserved;	/* 0 */
};

/* Bytes of the longest request on the wire (a LABEL with the longest
 * name): the receive buffer a daemon needs. */
#define DCPI_CTL_REQUEST_MAX \
	(DCPI_CTL_HDR_SIZE + sizeof(struct dcpi_ctl_label) + DCPI_CTL_LABEL_MAX)

/*
 * Checks name[len] (a label's name, not necessarily NUL-terminated) as
 * LABEL requires it: 1 to DCPI_CTL_LABEL_MAX bytes, no NUL, no newline, not
 * starting with a blank or '[', with a directory name.  Returns 0, or -1
 * with errno EINVAL and a one-line message saying what is wrong with the
 * name in err->msg (error.h; emptied first; err may be NULL).
 */
int dcpi_ctl_label_check(const char *name, size_t len, struct dcpi_error *err);

/*
 * Encodes LABEL's payload for pid (0: the sender itself) and the C string
 * name into buf[size].  Returns the payload's size
 * (sizeof(struct dcpi_ctl_label) + strlen(name), at most
 * DCPI_CTL_REQUEST_MAX - DCPI_CTL_HDR_SIZE), to send with
 * dcpi_ctl_send(DCPI_CTL_LABEL); or -1 with errno EINVAL and err as
 * dcpi_ctl_label_check() leaves them for a bad name, or EMSGSIZE when buf
 * is too small.
 */
long dcpi_ctl_label_encode(void *buf, size_t size, uint32_t pid,
    const char *name, struct dcpi_error *err);

/*
 * Decodes and checks LABEL's payload[len] (the bytes after a header that
 * dcpi_ctl_decode_hdr() accepted; any len is safe: it is checked before
 * anything is read).  On success returns DCPI_CTL_OK with the pid in *pid
 * (0 as sent: resolving it is the daemon's) and the name, NUL-terminated,
 * in name[DCPI_CTL_LABEL_MAX + 1].  Otherwise returns DCPI_CTL_ELENGTH (len
 * out of range) or DCPI_CTL_EFAIL (reserved not 0, or a bad name), with a
 * one-line message in err->msg (error.h; emptied first; err may be NULL);
 * *pid and name are then unspecified.  Does not touch errno.
 */
int dcpi_ctl_label_decode(const void *payload, size_t len, uint32_t *pid,
    char *name, struct dcpi_error *err);

/*
 * The parts of a RESULT message (one that dcpi_ctl_decode_hdr() accepted):
 * returns its code and points *text at its message, *textlen bytes, not
 * NUL-terminated, inside msg.
 */
int dcpi_ctl_result(const struct dcpi_ctl_msg *msg, const char **text,
    size_t *textlen);

#ifdef __cplusplus
}
#endif
#endif
