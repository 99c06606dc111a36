#include "config.h"
#include <stdio.h>
#include "commands.h"
/* Placeholder until the command is written. */
int
cmd_export(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: export: not implemented yet\n");
	return 1;
}
int
cmd_import(const struct ctl_globals *g, int argc, char **argv)
{
	fprintf(stderr, "dcpictl: import: not implemented yet\n");
	return 1;
}

int
cat_foreign(const char *path, const void *buf, size_t len, FILE *out)
{
	fprintf(stderr, "dcpictl: %s: not a DCPI profile (no 'version' line at byte 0)\n", path);
	return -1;
}
