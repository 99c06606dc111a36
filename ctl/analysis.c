#include "config.h"
#include <stdio.h>
#include "commands.h"
/* Placeholder until the command is written. */
int
cmd_prof(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: prof: not implemented yet\n");
	return 1;
}
int
cmd_list(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: list: not implemented yet\n");
	return 1;
}
int
cmd_diff(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: diff: not implemented yet\n");
	return 1;
}
int
cmd_epochs(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: epochs: not implemented yet\n");
	return 1;
}
int
cmd_gc(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: gc: not implemented yet\n");
	return 1;
}
