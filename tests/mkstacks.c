/*
 * Writes call chains of an ELF file into a database, as dcpid lays them
 * out, for test_stacks_ctl.sh: the stacks into DB/EPOCH/HOST/stacks and
 * their leaves into the image's profile (the analysis commands select
 * epochs by their profiles, and dcpid writes both):
 *
 *   mkstacks DB EPOCH HOST LABEL BINARY STACK=COUNT...
 *
 * LABEL "-" is unlabelled.  STACK is comma-separated frames, the sampled
 * PC first, its callers after: an ELF virtual address in hex (what nm
 * prints), or "-" for a frame dcpid could not attribute (the kernel's,
 * say, without kallsyms).  Event perf::cpu-clock, period 1 ms.  Stack
 * files and profiles already there are added to, not replaced, so that
 * several runs build one epoch.  MKSTACKS_CHAINS="PERIOD ROUTE" (ROUTE 0
 * fp, 1 dwarf) gives the event's chains line (dcpid's callchain-period).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/db.h>
#include <dcpi/export.h>
#include <dcpi/label.h>
#include <dcpi/profile.h>
#include <dcpi/stackfile.h>

#define EVENT	"perf::cpu-clock"

static int
die(const char *what, const struct dcpi_error *err)
{
	fprintf(stderr, "mkstacks: %s: %s\n", what, err ? err->msg : "bad argument");
	return 1;
}

/* The profile of the image in file, read if there is one (so that runs
 * add up), else a new one with dcpid's header. */
static struct dcpi_profile *
profile_open(const char *file, const struct dcpi_image_info *info, const char *epoch,
    const char *label, struct dcpi_error *err)
{
	struct dcpi_profile *p;
	char buf[64];

	if (dcpi_profile_read(file, &p, err) == 0)
		return p;
	if (errno != ENOENT)
		return NULL;
	if ((p = dcpi_profile_new()) == NULL) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return NULL;
	}
	snprintf(buf, sizeof(buf), "%" PRIx64, info->tstart);
	if (dcpi_profile_set(p, "image", info->image, err) < 0 ||
	    dcpi_profile_set(p, "epoch", epoch, err) < 0 ||
	    dcpi_profile_set(p, "platform", "Linux 6.1.0 x86_64", err) < 0 ||
	    dcpi_profile_set(p, "event", EVENT, err) < 0 ||
	    dcpi_profile_set(p, "period", "1000000", err) < 0 ||
	    dcpi_profile_set(p, "tstart", buf, err) < 0)
		goto bad;
	snprintf(buf, sizeof(buf), "%" PRIu64, info->tsize);
	if (dcpi_profile_set(p, "tsize", buf, err) < 0 ||
	    dcpi_profile_set(p, "cpuspeed", "2000", err) < 0 ||
	    dcpi_profile_set(p, "path", info->path, err) < 0 ||
	    (label != NULL && dcpi_profile_set(p, "label", label, err) < 0))
		goto bad;
	return p;
bad:
	dcpi_profile_free(p);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct dcpi_stack_addframe fr[DCPI_STACK_DEPTH_MAX];
	struct dcpi_image_info info;
	struct dcpi_stackfile *sf;
	struct dcpi_profile *p;
	struct dcpi_error err;
	const char *label, *s, *chains;
	char name[1024], file[4096], sfile[4096], *dir, *end;
	uint64_t vaddr, count, period;
	uint32_t depth;
	unsigned route;
	int i;

	if (argc < 7) {
		fprintf(stderr, "usage: mkstacks DB EPOCH HOST LABEL BINARY STACK=COUNT...\n");
		return 2;
	}
	label = strcmp(argv[4], "-") == 0 ? NULL : argv[4];
	if (dcpi_image_info_read(argv[5], &info, &err) == -1)
		return die(argv[5], &err);
	if (dcpi_db_label_mkdirs(argv[1], argv[2], argv[3], EVENT, label, &err) == -1)
		return die(argv[1], &err);
	if ((dir = dcpi_db_label_path(argv[1], argv[2], argv[3], EVENT, label)) == NULL ||
	    dcpi_db_profile_name(info.path, info.image, name, sizeof(name)) == -1)
		return die("path", NULL);
	snprintf(file, sizeof(file), "%s/%s", dir, name);
	snprintf(sfile, sizeof(sfile), "%s/%s/%s/%s", argv[1], argv[2], argv[3],
	    DCPI_STACKS_FILE);
	if ((p = profile_open(file, &info, argv[2], label, &err)) == NULL)
		return die(file, &err);
	if (dcpi_stackfile_read(sfile, &sf, &err) == -1) {
		if (errno != ENOENT)
			return die(sfile, &err);
		if ((sf = dcpi_stackfile_new(argv[2], argv[3])) == NULL)
			return die(sfile, NULL);
	}
	for (i = 6; i < argc; i++) {
		memset(fr, 0, sizeof(fr));
		for (s = argv[i], depth = 0; depth < DCPI_STACK_DEPTH_MAX; s = end + 1) {
			if (s[0] == '-' && (s[1] == ',' || s[1] == '=')) {
				fr[depth++].id = NULL;
				end = (char *)s + 1;
			} else {
				vaddr = strtoull(s, &end, 16);
				if (end == s || (*end != ',' && *end != '=') ||
				    vaddr < info.tstart || vaddr - info.tstart >= info.tsize)
					return die(argv[i], NULL);
				fr[depth].id = info.image;
				fr[depth].tstart = info.tstart;
				fr[depth].tsize = info.tsize;
				fr[depth].path = info.path;
				fr[depth++].offset = (uint32_t)(vaddr - info.tstart);
			}
			if (*end == '=')
				break;
		}
		count = strtoull(end + 1, &end, 10);
		if (*end != '\0' || count == 0)
			return die(argv[i], NULL);
		if (dcpi_stackfile_add(sf, EVENT, label, fr, depth, count, &err) == -1)
			return die(argv[i], &err);
		/* The profile counts the sampled PC, when it is the image's. */
		if (fr[0].id != NULL && dcpi_profile_add(p, fr[0].offset, count) < 0)
			return die(argv[i], NULL);
	}
	if (p->n_counts > 0 && dcpi_profile_write(file, p, &err) == -1)
		return die(file, &err);
	if ((chains = getenv("MKSTACKS_CHAINS")) != NULL) {
		if (sscanf(chains, "%" SCNu64 " %u", &period, &route) != 2)
			return die(chains, NULL);
		if (dcpi_stackfile_set_chains(sf, EVENT, period, route, &err) == -1)
			return die(chains, &err);
	}
	if (dcpi_stackfile_write(sfile, sf, &err) == -1)
		return die(sfile, &err);
	free(dir);
	dcpi_stackfile_free(sf);
	dcpi_profile_free(p);
	dcpi_image_info_clear(&info);
	return 0;
}
