// fuzz-sources: lib/ctl.c lib/util.c lib/label.c lib/db.c lib/profile.c lib/file.c lib/internal.c lib/error.c lib/pack.c
// fuzz-libs: -lz
/*
 * The control-protocol decoder on arbitrary bytes.  The first byte picks
 * the direction (even: to the daemon, odd: to the client); the rest is read
 * as a stream of messages, as the daemon and dcpictl read it.  Whatever the
 * decoder accepts must satisfy every rule of lib/dcpi/ctl.h and re-encode
 * to the same bytes; a prefix of a header is never accepted, and never
 * refused for a reason the whole header does not have.  A LABEL's payload
 * goes through its decoder too: what it accepts re-encodes to the same
 * bytes, what it refuses has a reason.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/ctl.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static struct dcpi_ctl_msg msg;
static unsigned char enc[DCPI_CTL_HDR_SIZE + DCPI_CTL_MAX_PAYLOAD];

/* LABEL's payload p[len], whose length the header check bounded. */
static void
check_label(const unsigned char *p, size_t len)
{
	char name[DCPI_CTL_LABEL_MAX + 1];
	struct dcpi_error err;
	uint32_t pid;
	long n;
	int rc;

	CHECK(len > sizeof(struct dcpi_ctl_label) &&
	    len <= sizeof(struct dcpi_ctl_label) + DCPI_CTL_LABEL_MAX);
	rc = dcpi_ctl_label_decode(p, len, &pid, name, &err);
	CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
	if (rc != DCPI_CTL_OK) {
		CHECK(rc == DCPI_CTL_EFAIL && err.msg[0] != '\0');
		return;
	}
	CHECK(strlen(name) == len - sizeof(struct dcpi_ctl_label));
	CHECK(strchr(name, '\n') == NULL && name[0] != '[' && name[0] != ' ' &&
	    name[0] != '\t');
	n = dcpi_ctl_label_encode(enc, sizeof(enc), pid, name, &err);
	CHECK(n == (long)len && memcmp(enc, p, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcpi_ctl_hdr h, hp;
	struct dcpi_error err, errp;
	const char *text;
	size_t off, n, textlen, avail;
	int dir, rc, rcp;

	if (size < 1)
		return 0;
	dir = data[0] & 1 ? DCPI_CTL_TO_CLIENT : DCPI_CTL_TO_DAEMON;
	for (off = 1; off < size; ) {
		avail = size - off;
		rc = dcpi_ctl_decode_hdr(data + off, avail, dir, &h, &err);
		CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		if (rc == -1) {
			CHECK(avail < DCPI_CTL_HDR_SIZE);
			CHECK(err.msg[0] == '\0');
			break;
		}
		for (n = 0; n < DCPI_CTL_HDR_SIZE && n < avail; n++) {
			rcp = dcpi_ctl_decode_hdr(data + off, n, dir, &hp, &errp);
			CHECK(rcp == -1 || (rcp == rc && rc == DCPI_CTL_EVERSION));
		}
		if (rc != DCPI_CTL_OK) {
			CHECK(rc == DCPI_CTL_EVERSION || rc == DCPI_CTL_EHEADER ||
			    rc == DCPI_CTL_ETYPE || rc == DCPI_CTL_ELENGTH);
			CHECK(err.msg[0] != '\0');
			CHECK(strcmp(dcpi_ctl_strcode(rc), "unknown result code") != 0);
			break;	/* the connection is closed after an error */
		}
		CHECK(h.version == DCPI_CTL_VERSION && h.reserved == 0);
		CHECK(h.length <= DCPI_CTL_MAX_PAYLOAD);
		if (dir == DCPI_CTL_TO_DAEMON) {
			CHECK(h.type >= DCPI_CTL_STATUS && h.type <= DCPI_CTL_LABEL);
			CHECK(h.type == DCPI_CTL_LABEL || h.length == 0);
		} else {
			CHECK(h.type == DCPI_CTL_RESULT || h.type == DCPI_CTL_STATUS_LINE);
		}
		if (avail - DCPI_CTL_HDR_SIZE < h.length)
			break;	/* the payload is still to come */
		CHECK(dcpi_ctl_encode(enc, sizeof(enc), h.type, h.seq,
		    data + off + DCPI_CTL_HDR_SIZE, h.length) ==
		    (long)(DCPI_CTL_HDR_SIZE + h.length));
		CHECK(memcmp(enc, data + off, DCPI_CTL_HDR_SIZE + h.length) == 0);
		if (dir == DCPI_CTL_TO_DAEMON && h.type == DCPI_CTL_LABEL)
			check_label(data + off + DCPI_CTL_HDR_SIZE, h.length);
		if (h.type == DCPI_CTL_RESULT) {
			msg.hdr = h;
			memcpy(msg.payload, data + off + DCPI_CTL_HDR_SIZE, h.length);
			(void)dcpi_ctl_result(&msg, &text, &textlen);
			CHECK(textlen == h.length - sizeof(struct dcpi_ctl_result));
			CHECK(text == (const char *)msg.payload + sizeof(struct dcpi_ctl_result));
			(void)dcpi_ctl_strcode(dcpi_ctl_result(&msg, &text, &textlen));
		}
		off += DCPI_CTL_HDR_SIZE + h.length;
	}
	return 0;
}
