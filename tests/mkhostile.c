/*
 * Writes the hostile and large inputs of tests/integration/test_hostile_import.sh:
 *   mkhostile dcpi FILE N TSTART   DCPI profile of /bin/true under image id
 *                                  abc123 (not its build-id) with N addresses
 *   mkhostile cg FILE N            Callgrind file defining N compressed fn
 *                                  names, then using each once more
 *   mkhostile pprof FILE PERIOD_US gperftools profile of one sample in /bin/true
 *   mkhostile gmon FILE DIMEN      gmon.out of one histogram record whose
 *                                  dimension is DIMEN (C escapes: \033)
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
le(FILE *f, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		putc((int)(v >> (8 * i) & 0xff), f);
}

int
main(int argc, char **argv)
{
	uint64_t n, i;
	FILE *f;
	int hlen;

	if (argc != 4 && argc != 5)
		goto usage;
	if ((f = fopen(argv[2], "wb")) == NULL) {
		perror(argv[2]);
		return 1;
	}
	n = strtoull(argv[3], NULL, 0);
	if (strcmp(argv[1], "dcpi") == 0 && argc == 5) {
		hlen = fprintf(f, "version pdb-0.07\nimage abc123\nepoch 20260101000000\n"
		    "platform Linux test x86_64\nevent perf::cpu-clock\nperiod 1000000\n"
		    "tstart %s\ntsize %" PRIu64 "\ncpuspeed 0\npath /bin/true\nsamples",
		    argv[4], n + 16);
		for (hlen++; hlen % 4 != 0; hlen++)
			putc(' ', f);
		putc('\n', f);
		/* One chunk: offsets 0 .. N-1, one sample each. */
		le(f, 0, 4);
		le(f, n, 4);
		for (i = 0; i < n; i++)
			le(f, 1, 4);
		le(f, n, 4);
		le(f, n, 4);
	} else if (strcmp(argv[1], "cg") == 0 && argc == 4) {
		fprintf(f, "# callgrind format\nversion: 1\npositions: instr\nevents: Ir\n"
		    "ob=(1) /bin/true\n");
		for (i = 1; i <= n; i++)
			fprintf(f, "fn=(%" PRIu64 ") f%" PRIu64 "\n0x%" PRIx64 " 1\n", i, i, i);
		for (i = 1; i <= n; i++)
			fprintf(f, "fn=(%" PRIu64 ")\n0x%" PRIx64 " 1\n", i, i);
	} else if (strcmp(argv[1], "pprof") == 0 && argc == 4) {
		le(f, 0, 8); le(f, 3, 8); le(f, 0, 8); le(f, n, 8); le(f, 0, 8);
		le(f, 1, 8); le(f, 1, 8); le(f, 0x401000, 8);
		le(f, 0, 8); le(f, 1, 8); le(f, 0, 8);
		fprintf(f, "00400000-00500000 r-xp 00000000 00:00 0 /bin/true\n");
	} else if (strcmp(argv[1], "gmon") == 0 && argc == 4) {
		char dimen[15] = { 0 };
		const char *s = argv[3];
		size_t k = 0;

		for (; *s && k < sizeof(dimen); k++) {
			if (s[0] == '\\' && s[1] == '0') {
				dimen[k] = (char)strtoul(s + 1, (char **)&s, 8);
				continue;
			}
			dimen[k] = *s++;
		}
		fwrite("gmon\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 1, 20, f);
		putc(0, f);
		le(f, 0x1000, 8);
		le(f, 0x1010, 8);
		le(f, 8, 4);
		le(f, 1, 4);
		fwrite(dimen, 1, sizeof(dimen), f);
		putc('1', f);
		for (i = 0; i < 8; i++)
			le(f, i == 2 ? 5 : 0, 2);
	} else
		goto usage;
	return fclose(f) != 0;
usage:
	fprintf(stderr, "usage: mkhostile dcpi|cg|pprof|gmon FILE ARG [TSTART]\n");
	return 2;
}
