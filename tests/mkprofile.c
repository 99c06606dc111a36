/*
 * Writes a known profile with libdcpi for tests/integration/test_cat.sh:
 * mkprofile FILE [IMAGEID PATH] (test_buildid_cache.sh gives other images).  Offsets 0, 1 and 4 share a chunk (gaps of at most two
 * zero counts), 8 and 8191 start new ones; 8191 saturates.
 */
#include "config.h"

#include <stdio.h>

#include <dcpi/profile.h>

int
main(int argc, char **argv)
{
	static const char *const kv[][2] = {
		{ "image", "abc123" }, { "epoch", "20261121223000" },
		{ "platform", "Linux test x86_64" }, { "event", "perf::cpu-clock" },
		{ "period", "250000" }, { "tstart", "7f0000001000" }, { "tsize", "8192" },
		{ "cpuspeed", "2000" }, { "path", "/bin/true" }, { "x-tool", "mkprofile" },
	};
	struct dcpi_profile *p;
	struct dcpi_error err;
	size_t i;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: mkprofile FILE [IMAGEID PATH]\n");
		return 2;
	}
	if ((p = dcpi_profile_new()) == NULL)
		return 1;
	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (dcpi_profile_set(p, kv[i][0], kv[i][1], &err) < 0) {
			fprintf(stderr, "mkprofile: %s\n", err.msg);
			return 1;
		}
	if (argc == 4 && (dcpi_profile_set(p, "image", argv[2], &err) < 0 ||
	    dcpi_profile_set(p, "path", argv[3], &err) < 0)) {
		fprintf(stderr, "mkprofile: %s\n", err.msg);
		return 1;
	}
	if (dcpi_profile_add(p, 0, 1) < 0 || dcpi_profile_add(p, 1, 2) < 0 ||
	    dcpi_profile_add(p, 4, 3) < 0 || dcpi_profile_add(p, 8, 4) < 0 ||
	    dcpi_profile_add(p, 8191, 3000000000u) < 0 ||
	    dcpi_profile_add(p, 8191, 3000000000u) < 0 ||
	    dcpi_profile_write(argv[1], p, &err) < 0) {
		fprintf(stderr, "mkprofile: %s\n", err.msg);
		return 1;
	}
	dcpi_profile_free(p);
	return 0;
}
