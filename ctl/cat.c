#include "config.h"
#include <stdio.h>
#include "commands.h"
/* Placeholder until the command is written. */
int
cmd_cat(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: cat: not implemented yet\n");
	return 1;
}
