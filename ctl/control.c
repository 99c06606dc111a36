#include "config.h"
#include <stdio.h>
#include "commands.h"
/* Placeholder until the command is written. */
int
cmd_status(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: status: not implemented yet\n");
	return 1;
}
int
cmd_flush(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: flush: not implemented yet\n");
	return 1;
}
int
cmd_epoch(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: epoch: not implemented yet\n");
	return 1;
}
int
cmd_quit(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: quit: not implemented yet\n");
	return 1;
}
