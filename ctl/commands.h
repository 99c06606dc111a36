/*
 * dcpictl's commands.  Each takes the global options and its own argv
 * (argv[0] is the command's name) and returns the process exit status:
 * 0 success, 1 failure (a message was printed on stderr), 2 usage error.
 */
#ifndef DCPICTL_COMMANDS_H
#define DCPICTL_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

/* Prints a command's usage text: on stdout for --help, returning 0, else
 * on stderr, returning 2 (a usage error).  In ctl/selection.c, with the
 * other option parsing. */
int cmd_usage(int help, const char *text);

struct ctl_globals {
	const char	*db;		/* -d DB, else $DCPIDB, else /var/lib/dcpi */
	const char	*socket;	/* --socket PATH, else $DCPI_SOCKET, else default */
};

/* Control commands (ctl/client.c). */
int cmd_status(const struct ctl_globals *, int, char **);
int cmd_flush(const struct ctl_globals *, int, char **);
int cmd_epoch(const struct ctl_globals *, int, char **);
int cmd_quit(const struct ctl_globals *, int, char **);
int cmd_reload(const struct ctl_globals *, int, char **);
/* Labelling a command or a process (ctl/labelcmd.c). */
int cmd_label(const struct ctl_globals *, int, char **);
/* Profile files (ctl/cat.c). */
int cmd_cat(const struct ctl_globals *, int, char **);
/* Analysis (ctl/prof.c, ctl/list.c, ctl/diff.c, ctl/epochs.c). */
int cmd_prof(const struct ctl_globals *, int, char **);
int cmd_list(const struct ctl_globals *, int, char **);
int cmd_diff(const struct ctl_globals *, int, char **);
/* The spread of shares across runs: DCPI's dcpistats (ctl/stats.c). */
int cmd_stats(const struct ctl_globals *, int, char **);
int cmd_epochs(const struct ctl_globals *, int, char **);
int cmd_gc(const struct ctl_globals *, int, char **);
int cmd_compress(const struct ctl_globals *, int, char **);
/* Call chains (ctl/stacks.c; prof --callers and --callees go there too). */
int cmd_stacks(const struct ctl_globals *, int, char **);
/* Call chains drawn: an SVG flame graph (ctl/flamegraph.c). */
int cmd_flamegraph(const struct ctl_globals *, int, char **);
/* Other tools' formats (ctl/export.c, ctl/import.c). */
int cmd_export(const struct ctl_globals *, int, char **);
int cmd_import(const struct ctl_globals *, int, char **);
/* The fleet: epochs pushed to ClickHouse (ctl/push.c). */
int cmd_push(const struct ctl_globals *, int, char **);

#endif
