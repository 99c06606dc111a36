/*
 * Writes one labelled (or unlabelled) profile of an ELF file into a
 * database, as dcpid lays them out, for test_label_analysis.sh:
 *
 *   mklabelled DB EPOCH HOST LABEL BINARY VADDR=COUNT...
 *
 * LABEL "-" is unlabelled; VADDR is an ELF virtual address in hex (what nm
 * prints), made relative to the text start as profiles count.  Event
 * perf::cpu-clock, period 1 ms.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/db.h>
#include <dcpi/export.h>
#include <dcpi/label.h>
#include <dcpi/profile.h>

#define EVENT	"perf::cpu-clock"

static int
die(const char *what, const struct dcpi_error *err)
{
	fprintf(stderr, "mklabelled: %s: %s\n", what, err ? err->msg : "bad argument");
	return 1;
}

int
main(int argc, char **argv)
{
	struct dcpi_image_info info;
	struct dcpi_profile *p;
	struct dcpi_error err;
	const char *label;
	char buf[64], name[1024], file[4096], *dir, *end;
	uint64_t vaddr, count;
	int i;

	if (argc < 7) {
		fprintf(stderr, "usage: mklabelled DB EPOCH HOST LABEL BINARY VADDR=COUNT...\n");
		return 2;
	}
	label = strcmp(argv[4], "-") == 0 ? NULL : argv[4];
	if (dcpi_image_info_read(argv[5], &info, &err) == -1)
		return die(argv[5], &err);
	if ((p = dcpi_profile_new()) == NULL)
		return die("out of memory", NULL);
	snprintf(buf, sizeof(buf), "%" PRIx64, info.tstart);
	if (dcpi_profile_set(p, "image", info.image, &err) < 0 ||
	    dcpi_profile_set(p, "epoch", argv[2], &err) < 0 ||
	    dcpi_profile_set(p, "platform", "Linux 6.1.0 x86_64", &err) < 0 ||
	    dcpi_profile_set(p, "event", EVENT, &err) < 0 ||
	    dcpi_profile_set(p, "period", "1000000", &err) < 0 ||
	    dcpi_profile_set(p, "tstart", buf, &err) < 0)
		return die("header", &err);
	snprintf(buf, sizeof(buf), "%" PRIu64, info.tsize);
	if (dcpi_profile_set(p, "tsize", buf, &err) < 0 ||
	    dcpi_profile_set(p, "cpuspeed", "2000", &err) < 0 ||
	    dcpi_profile_set(p, "path", info.path, &err) < 0 ||
	    (label != NULL && dcpi_profile_set(p, "label", label, &err) < 0))
		return die("header", &err);
	for (i = 6; i < argc; i++) {
		vaddr = strtoull(argv[i], &end, 16);
		if (*end != '=' || vaddr < info.tstart || vaddr - info.tstart >= info.tsize)
			return die(argv[i], NULL);
		count = strtoull(end + 1, &end, 10);
		if (*end != '\0' ||
		    dcpi_profile_add(p, (uint32_t)(vaddr - info.tstart), count) < 0)
			return die(argv[i], NULL);
	}
	if (dcpi_db_label_mkdirs(argv[1], argv[2], argv[3], EVENT, label, &err) == -1)
		return die(argv[1], &err);
	if ((dir = dcpi_db_label_path(argv[1], argv[2], argv[3], EVENT, label)) == NULL ||
	    dcpi_db_profile_name(info.path, info.image, name, sizeof(name)) == -1)
		return die("path", NULL);
	snprintf(file, sizeof(file), "%s/%s", dir, name);
	if (dcpi_profile_write(file, p, &err) == -1)
		return die(file, &err);
	free(dir);
	dcpi_profile_free(p);
	dcpi_image_info_clear(&info);
	return 0;
}
