#include "config.h"
#include <stdio.h>
int
main(void)
{
	fprintf(stderr, "dcpid: not written yet\n");
	return 1;
}
