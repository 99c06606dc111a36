/*
 * dcpictl's side of one control exchange with dcpid (ctl/client.c), for
 * the commands that send requests: status, flush, epoch, quit, reload
 * (ctl/client.c) and label (ctl/labelcmd.c).
 */
#ifndef DCPICTL_CLIENT_H
#define DCPICTL_CLIENT_H

#include <stddef.h>

/* One STATUS_LINE, "KEY VALUE", split at the first blank. */
struct ctl_line {
	char	*key;		/* malloc'd; value points into the same block */
	char	*value;
};

/* What dcpid answered: its lines and its RESULT.  Free with
 * ctl_reply_free(). */
struct ctl_reply {
	struct ctl_line	*lines;		/* malloc'd array of nlines */
	size_t		 nlines;
	int		 code;		/* the RESULT's enum dcpi_ctl_code */
	char		*text;		/* its message, malloc'd, NUL-terminated,
					 * control characters as '?' */
};

/*
 * Connects to dcpid at socket, sends the request type with payload[len]
 * (payload may be NULL when len is 0), reads the reply to its end and
 * closes the connection.  Returns 0 with the reply in *r, whatever its
 * code; or -1 after a message on stderr, "dcpictl: CMD: ..." (cannot
 * connect, send or read; a reply that breaks the protocol; another
 * protocol version), with *r empty.  Replies longer than 10 minutes in
 * coming are given up.
 */
int ctl_exchange(const char *cmd, const char *socket, int type,
    const void *payload, size_t len, struct ctl_reply *r);
/* Frees what *r holds and empties it. */
void ctl_reply_free(struct ctl_reply *r);

#endif
