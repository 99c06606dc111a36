/*
 * dcpictl: control client for dcpid and analysis of the profile database.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/ctl.h>
#include <dcpi/db.h>

#include "commands.h"
#include "log.h"

static const struct {
	const char *name;
	int (*fn)(const struct ctl_globals *, int, char **);
	const char *usage;
} commands[] = {
	{ "status",	cmd_status,	"status                      show the daemon's counters" },
	{ "flush",	cmd_flush,	"flush                       write the counts to the database now" },
	{ "epoch",	cmd_epoch,	"epoch                       flush and start a new epoch" },
	{ "quit",	cmd_quit,	"quit                        flush and stop the daemon" },
	{ "reload",	cmd_reload,	"reload                      re-read dcpid.conf; fails if it is bad" },
	{ "label",	cmd_label,	"label NAME -- COMMAND [ARG...]  run COMMAND with its samples labelled" },
	{ "cat",	cmd_cat,	"cat [--summary] FILE...     print profile files as text" },
	{ "prof",	cmd_prof,	"prof [-i] [-e EVENT]...     procedures (or images) by samples" },
	{ "stacks",	cmd_stacks,	"stacks [-e EVENT]           call chains as folded stacks (flame graphs)" },
	{ "flamegraph",	cmd_flamegraph,	"flamegraph -o FILE.svg      call chains as an interactive SVG flame graph" },
	{ "list",	cmd_list,	"list PROCEDURE              annotated disassembly" },
	{ "diff",	cmd_diff,	"diff A B                    compare two epochs or databases" },
	{ "stats",	cmd_stats,	"stats [--by epoch|host|label]  shares' spread across runs" },
	{ "epochs",	cmd_epochs,	"epochs                      list the database's epochs" },
	{ "compress",	cmd_compress,	"compress [EPOCH...]         pack ended epochs into one gzip file a host" },
	{ "gc",		cmd_gc,		"gc [--keep-days N] [--keep-min M]  delete old epochs" },
	{ "export",	cmd_export,	"export --format=F -o FILE   write pprof, pprof-proto, gmon, callgrind, xprof or afdo" },
	{ "push",	cmd_push,	"push --to clickhouse://HOST/DB  ship epochs to a ClickHouse store" },
	{ "import",	cmd_import,	"import FILE --image BINARY  read a gperftools or gmon.out profile" },
};

static void __attribute__((noreturn))
usage(FILE *fp, int status)
{
	size_t i;

	fprintf(fp, "usage: dcpictl [-d DB] [--socket PATH] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %s\n", commands[i].usage);
	fprintf(fp, "\nDB defaults to $DCPIDB or %s; PATH to $DCPI_SOCKET or %s.\n",
	    DCPI_DB_DEFAULT, DCPI_CTL_SOCKET_DEFAULT);
	exit(status);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db",		required_argument,	NULL, 'd' },
		{ "socket",	required_argument,	NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl_globals g;
	const char *s;
	size_t i;
	int ch;

	log_init("dcpictl", 0, 0);
	g.db = dcpi_db_default();
	g.socket = (s = getenv("DCPI_SOCKET")) != NULL && *s ? s : DCPI_CTL_SOCKET_DEFAULT;

	/* "+": stop at the command; its options are its own. */
	while ((ch = getopt_long(argc, argv, "+d:s:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'd': g.db = optarg; break;
		case 's': g.socket = optarg; break;
		case 'h': usage(stdout, 0);
		case 'V': printf("dcpictl %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr, 2);
		}
	}
	if (optind >= argc)
		usage(stderr, 2);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			argc -= optind;
			argv += optind;
			optind = 0;	/* reset getopt for the command */
			return commands[i].fn(&g, argc, argv);
		}
	}
	fprintf(stderr, "dcpictl: unknown command '%s'\n", argv[optind]);
	usage(stderr, 2);
}
