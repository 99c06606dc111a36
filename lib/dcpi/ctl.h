/*
 * libdcpi: the control protocol between dcpid and dcpictl (one header for
 * both sides, as bgpd's and chrony's are).
 *
 * A message is a fixed header followed by `length` bytes of payload, over a
 * local SOCK_STREAM UNIX socket, in host byte order.  The client sends one
 * request; the daemon answers with zero or more records (STATUS sends one
 * DCPI_CTL_STATUS_LINE per line) and then exactly one DCPI_CTL_RESULT whose
 * payload is a struct dcpi_ctl_result followed by a message (not
 * NUL-terminated, length - sizeof(struct dcpi_ctl_result) bytes).  The
 * RESULT ends the reply.  A message with a bad version, an unknown type, or
 * a length over DCPI_CTL_MAX_PAYLOAD gets an error RESULT and the
 * connection is closed.
 *
 * Bump DCPI_CTL_VERSION whenever the layout or the meaning of any message
 * changes; both sides refuse other versions by name.
 */
#ifndef DCPI_CTL_H
#define DCPI_CTL_H

#include <stddef.h>
#include <stdint.h>

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
	/* Requests (no payload). */
	DCPI_CTL_STATUS = 1,
	DCPI_CTL_FLUSH,
	DCPI_CTL_EPOCH,
	DCPI_CTL_QUIT,
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

#ifdef __cplusplus
}
#endif
#endif
