/*
 * libdcpi: how its functions report errors (every lib/dcpi/ header).
 *
 * Functions returning int give 0 on success and -1 on failure with errno
 * set (EINVAL for a malformed file or argument, ENOMEM, or the errno of the
 * failed system call); functions returning a pointer give NULL with errno.
 * When their err argument is not NULL they also write a one-line message
 * into err->msg (NUL-terminated, cut to fit) naming the file, the line
 * number or byte offset, and the rule broken, e.g. "p.dat: byte 84: chunk
 * at offset 0x10 overlaps the previous chunk (ends at 0x18)".  The
 * caller owns err (on its stack, typically); NULL asks for no message.
 */
#ifndef DCPI_ERROR_H
#define DCPI_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

struct dcpi_error {
	char msg[512];
};

#ifdef __cplusplus
}
#endif
#endif
