/*
 * Builds the database of the prof benchmark (bench/README): one epoch, one
 * host, one event, N images with M distinct sampled addresses each.  Each
 * image is a copy of TEMPLATE (an ELF file with a GNU build-id and a
 * symbol table) whose build-id bytes are rewritten so that every copy is a
 * distinct image that symbolizes for real.
 * Usage: mkprofdb TEMPLATE DIR N M [HOSTS EPOCHS [PREFIX]]
 * (writes DIR/images/ and DIR/db/).  With HOSTS and EPOCHS, a synthetic
 * fleet for the push benchmark and the ClickHouse tests: hosts PREFIX000..
 * (default "host"), hourly epochs from EPOCH, counts varying per host and
 * epoch; the last epoch is the current one.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdwelf.h>

#include <dcpi/db.h>
#include <dcpi/profile.h>

#define EPOCH	"20261121000000"
#define EVENT	"perf::cpu-clock"

static void __attribute__((noreturn))
die(const char *what)
{
	fprintf(stderr, "mkprofdb: %s\n", what);
	exit(1);
}

int
main(int argc, char **argv)
{
	const unsigned char *id;
	unsigned char *buf, *at;
	struct dcpi_profile *p;
	struct dcpi_error err;
	char path[4096], hex[41], val[64], name[1024], *evdir;
	uint64_t tstart = 0, tsize = 0;
	size_t len, nph, i, j, n, m, hosts = 1, epochs = 1, h, ep;
	char epoch[DCPI_EPOCH_LEN + 1], host[64];
	const char *prefix = "host";
	time_t t0;
	ssize_t idlen;
	GElf_Phdr ph;
	FILE *fp;
	Elf *e;
	int fd;

	if (argc != 5 && argc != 7 && argc != 8)
		die("usage: mkprofdb TEMPLATE DIR N M [HOSTS EPOCHS [PREFIX]]");
	n = strtoul(argv[3], NULL, 10);
	m = strtoul(argv[4], NULL, 10);
	if (argc >= 7) {
		hosts = strtoul(argv[5], NULL, 10);
		epochs = strtoul(argv[6], NULL, 10);
		if (argc == 8)
			prefix = argv[7];
	}
	if (dcpi_epoch_parse(EPOCH, &t0) == -1)
		die("bad epoch");
	elf_version(EV_CURRENT);
	if ((fd = open(argv[1], O_RDONLY)) == -1 || (e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		die("cannot read the template");
	if ((idlen = dwelf_elf_gnu_build_id(e, (const void **)&id)) < 8)
		die("the template has no build-id");
	if (elf_getphdrnum(e, &nph) != 0)
		die("the template has no program headers");
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			tstart = ph.p_vaddr;
			tsize = ph.p_memsz;
			break;
		}
	if (tsize < m)
		die("the template's text is smaller than M bytes");
	if ((fp = fopen(argv[1], "rb")) == NULL)
		die("cannot open the template");
	fseek(fp, 0, SEEK_END);
	len = (size_t)ftell(fp);
	rewind(fp);
	if ((buf = malloc(len)) == NULL || fread(buf, 1, len, fp) != len)
		die("cannot read the template");
	fclose(fp);
	if ((at = memmem(buf, len, id, (size_t)idlen)) == NULL)
		die("build-id not found in the file");
	snprintf(path, sizeof(path), "%s/images", argv[2]);
	mkdir(argv[2], 0755);
	mkdir(path, 0755);
	for (i = 0; i < n; i++) {
		/* A distinct build-id: the image's number in the first bytes. */
		memset(at, 0xb0, 4);
		memcpy(at + 4, &i, sizeof(uint32_t));
		snprintf(path, sizeof(path), "%s/images/libbench%04zu.so", argv[2], i);
		if ((fp = fopen(path, "wb")) == NULL || fwrite(buf, 1, len, fp) != len ||
		    fclose(fp) != 0)
			die("cannot write an image");
	}
	for (ep = 0; ep < epochs; ep++)
	for (h = 0; h < hosts; h++) {
	if (argc >= 7) {
		dcpi_epoch_name(t0 + (time_t)ep * 3600, epoch);
		snprintf(host, sizeof(host), "%s%03zu", prefix, h);
	} else {
		snprintf(epoch, sizeof(epoch), "%s", EPOCH);
		snprintf(host, sizeof(host), "bench");
	}
	snprintf(path, sizeof(path), "%s/db", argv[2]);
	if (dcpi_db_mkdirs(path, epoch, host, EVENT, &err) == -1 ||
	    dcpi_db_set_current(path, epoch, &err) == -1)
		die(err.msg);
	evdir = dcpi_db_event_path(path, epoch, host, EVENT);
	for (i = 0; i < n; i++) {
		memset(at, 0xb0, 4);
		memcpy(at + 4, &i, sizeof(uint32_t));
		for (j = 0; j < 20 && j < (size_t)idlen; j++)
			snprintf(hex + 2 * j, 3, "%02x", at[j]);
		snprintf(path, sizeof(path), "%s/images/libbench%04zu.so", argv[2], i);
		if ((p = dcpi_profile_new()) == NULL)
			die("out of memory");
		dcpi_profile_set(p, "image", hex, &err);
		dcpi_profile_set(p, "epoch", epoch, &err);
		dcpi_profile_set(p, "platform", "Linux 6.1.0 x86_64", &err);
		dcpi_profile_set(p, "event", EVENT, &err);
		dcpi_profile_set(p, "period", "1000000", &err);
		snprintf(val, sizeof(val), "%llx", (unsigned long long)tstart);
		dcpi_profile_set(p, "tstart", val, &err);
		snprintf(val, sizeof(val), "%llu", (unsigned long long)tsize);
		dcpi_profile_set(p, "tsize", val, &err);
		dcpi_profile_set(p, "cpuspeed", "2000", &err);
		dcpi_profile_set(p, "path", path, &err);
		/* M distinct addresses spread over the text. */
		for (j = 0; j < m; j++)
			if (dcpi_profile_add(p, (uint32_t)(j * (tsize / m)),
			    (uint32_t)(1 + (i + j + h * 3 + ep * 5) % 7)) == -1)
				die("dcpi_profile_add failed");
		if (dcpi_db_profile_name(path, hex, name, sizeof(name)) == -1)
			die("profile name too long");
		snprintf(path, sizeof(path), "%s/%s", evdir, name);
		if (dcpi_profile_write(path, p, &err) == -1)
			die(err.msg);
		dcpi_profile_free(p);
	}
	free(evdir);
	}
	free(buf);
	elf_end(e);
	close(fd);
	return 0;
}
