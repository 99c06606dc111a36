/*
 * A process's memory from /proc/self/status, for the tests and benchmarks
 * that bound or report it (tests/test_stackfile_flush.c,
 * bench/stack_flush.c): memory is measured, never timed.
 */
#ifndef DCPI_TESTS_PROC_STATUS_H
#define DCPI_TESTS_PROC_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kB of the line KEY ("VmRSS:", "VmHWM:") of /proc/self/status; -1 when
 * it cannot be read. */
static inline long
status_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *fp;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, key, strlen(key)) == 0)
			v = atol(line + strlen(key));
	fclose(fp);
	return v;
}

#endif
