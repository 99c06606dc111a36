// fuzz-sources: daemon/procstatus.c lib/label.c lib/db.c lib/profile.c lib/file.c lib/internal.c lib/error.c lib/util.c lib/pack.c
// fuzz-libs: -lz
/*
 * /proc/PID/status texts (daemon/procstatus.c) on arbitrary bytes.  A bit
 * of have is set only where the input holds its line's name, the fields
 * of a bit not set are 0, and each value read stands in the input as a
 * number: a uid's digits, the last NSpid, the capabilities in hex.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/procstatus.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
holds(const uint8_t *data, size_t size, const char *s)
{
	return memmem(data, size, s, strlen(s)) != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procstatus ps, again;
	char num[32];
	uint32_t i;

	CHECK(procstatus_parse((const char *)data, size, &ps) == 0);
	CHECK((ps.have & ~(unsigned)(PROCSTATUS_UID | PROCSTATUS_GID |
	    PROCSTATUS_GROUPS | PROCSTATUS_NSPID | PROCSTATUS_CAPEFF |
	    PROCSTATUS_SECCOMP)) == 0);
	/* The same text, the same result. */
	CHECK(procstatus_parse((const char *)data, size, &again) == 0);
	CHECK(memcmp(&ps, &again, sizeof(ps)) == 0);

	if (ps.have & PROCSTATUS_UID) {
		CHECK(holds(data, size, "Uid:"));
		for (i = 0; i < 4; i++) {
			snprintf(num, sizeof(num), "%" PRIu32, ps.uid[i]);
			CHECK(holds(data, size, num));
		}
	} else
		CHECK(ps.uid[0] == 0 && ps.uid[1] == 0 && ps.uid[2] == 0 && ps.uid[3] == 0);
	if (ps.have & PROCSTATUS_GID)
		CHECK(holds(data, size, "Gid:"));
	else
		CHECK(ps.gid[0] == 0 && ps.gid[3] == 0);
	if (ps.have & PROCSTATUS_GROUPS) {
		CHECK(holds(data, size, "Groups:"));
		CHECK(ps.ngroups <= PROCSTATUS_GROUPS_MAX);
		for (i = 0; i < ps.ngroups; i++) {
			snprintf(num, sizeof(num), "%" PRIu32, ps.groups[i]);
			CHECK(holds(data, size, num));
		}
	} else
		CHECK(ps.ngroups == 0);
	if (ps.have & PROCSTATUS_NSPID) {
		CHECK(holds(data, size, "NSpid:") && ps.nspid > 0);
		snprintf(num, sizeof(num), "%" PRIu32, ps.nspid);
		CHECK(holds(data, size, num));
	} else
		CHECK(ps.nspid == 0);
	if (ps.have & PROCSTATUS_CAPEFF)
		CHECK(holds(data, size, "CapEff:"));
	else
		CHECK(ps.cap_eff == 0);
	if (ps.have & PROCSTATUS_SECCOMP)
		CHECK(holds(data, size, "Seccomp:") && ps.seccomp >= 0 && ps.seccomp <= 2);
	else
		CHECK(ps.seccomp == 0);
	return 0;
}
