/*
 * dcpictl label, after DCPI's dcpilabel: the samples of a command, or of a
 * running process, and of the processes they fork from then on, kept
 * under a label until they exit.  With a command, dcpictl asks dcpid to
 * label its own pid and then execs the command, so that the command is
 * the labelled process from its first instruction and its exit status is
 * the command's; no sample of it escapes the label, as none was taken
 * before the request was answered.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/ctl.h>

#include "commands.h"
#include "client.h"

#define LABEL_USAGE							\
	"usage: dcpictl label [-s SOCKET] NAME -- COMMAND [ARG...]\n"	\
	"       dcpictl label [-s SOCKET] -p PID NAME\n"			\
	"Labels the samples of COMMAND (or of the running process PID) and of\n" \
	"the processes it forks NAME, until they exit.\n"

/* A process id as dcpid sees it: 1 to INT_MAX. */
static int
parse_pid(const char *arg, uint32_t *pid)
{
	unsigned long v;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0 || v > INT_MAX)
		return -1;
	*pid = (uint32_t)v;
	return 0;
}

int
cmd_label(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket",	required_argument,	NULL, 's' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned char payload[DCPI_CTL_REQUEST_MAX - DCPI_CTL_HDR_SIZE];
	const char *socket = g->socket, *name;
	char **command = NULL;
	struct dcpi_error err;
	struct ctl_reply r;
	uint32_t pid = 0;	/* 0: dcpictl itself, then the command */
	long n;
	int ch, e;

	/* "+": the command's own options are not dcpictl's. */
	while ((ch = getopt_long(argc, argv, "+s:p:h", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			socket = optarg;
			break;
		case 'p':
			if (parse_pid(optarg, &pid) < 0) {
				fprintf(stderr, "dcpictl: label: -p %s: expected a "
				    "process id, 1 to %d\n", optarg, INT_MAX);
				return 2;
			}
			break;
		default:
			/* As cmd_usage(), which lives with the analysis
			 * commands' options: the control client is built
			 * (and tested) without them. */
			fputs(LABEL_USAGE, ch == 'h' ? stdout : stderr);
			return ch == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		fputs(LABEL_USAGE, stderr);
		return 2;
	}
	name = argv[optind++];
	if (optind < argc) {
		/* Required, so that an option misplaced after NAME is not
		 * run as a command. */
		if (strcmp(argv[optind], "--") != 0) {
			fprintf(stderr, "dcpictl: label: expected '--' before the "
			    "command, found '%s'\n%s", argv[optind], LABEL_USAGE);
			return 2;
		}
		if (++optind >= argc) {
			fprintf(stderr, "dcpictl: label: no command after '--'\n%s",
			    LABEL_USAGE);
			return 2;
		}
		command = argv + optind;
	}
	if ((pid != 0) == (command != NULL)) {
		fprintf(stderr, "dcpictl: label: %s\n%s", pid != 0 ?
		    "-p PID and a command exclude each other" :
		    "give a command to run, or -p PID", LABEL_USAGE);
		return 2;
	}
	n = dcpi_ctl_label_encode(payload, sizeof(payload), pid, name, &err);
	if (n < 0) {
		fprintf(stderr, "dcpictl: label: %s\n", err.msg);
		return 2;
	}
	if (ctl_exchange("label", socket, DCPI_CTL_LABEL, payload, (size_t)n, &r) < 0)
		return 1;
	if (r.code != DCPI_CTL_OK) {
		if (r.code == DCPI_CTL_ETYPE)
			fprintf(stderr, "dcpictl: label: this dcpid is too old for "
			    "label\n");
		else if (r.code == DCPI_CTL_EVERSION)
			fprintf(stderr, "dcpictl: label: dcpid on %s does not speak "
			    "control protocol version %u: %s\n", socket,
			    (unsigned)DCPI_CTL_VERSION, r.text);
		else
			fprintf(stderr, "dcpictl: label: %s\n", *r.text != '\0' ?
			    r.text : dcpi_ctl_strcode(r.code));
		ctl_reply_free(&r);
		return 1;
	}
	if (command == NULL) {
		if (*r.text != '\0')
			printf("%s\n", r.text);
		ctl_reply_free(&r);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "dcpictl: label: writing the output: %s\n",
			    strerror(errno));
			return 1;
		}
		return 0;
	}
	ctl_reply_free(&r);
	execvp(command[0], command);
	/* As env(1): 127 for a command not found, 126 for one that could
	 * not be run. */
	e = errno;
	fprintf(stderr, "dcpictl: label: %s: %s\n", command[0], strerror(e));
	return e == ENOENT ? 127 : 126;
}
