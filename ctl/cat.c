/*
 * dcpictl cat [--summary] FILE...: profile files as text, like DCPI's
 * dcpicat: the header lines as written, then "0xADDRESS COUNT" for every
 * address with samples (absolute: tstart + offset).  Files that are not
 * DCPI profiles go to cat_foreign (other tools' formats).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/export.h>
#include <dcpi/profile.h>

#include "commands.h"

/* Header values are any bytes but newline: control bytes go out as \xHH,
 * but for the tab, a blank of the header grammar. */
static void
fwrite_esc(const char *s, size_t n, FILE *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			fprintf(out, "\\x%02x", (unsigned char)s[i]);
		else
			putc(s[i], out);
	}
}

/* Prints the header lines as they are in the file, the terminator without
 * its padding.  The parser accepted buf, so a "samples" line ends it. */
static void
print_header(const char *buf, size_t len, FILE *out)
{
	const char *line = buf, *nl;
	size_t n;

	while ((nl = memchr(line, '\n', len - (line - buf))) != NULL) {
		n = nl - line;
		if (n >= 7 && memcmp(line, "samples", 7) == 0 &&
		    strspn(line + 7, " \t") >= n - 7) {
			fputs("samples\n", out);
			return;
		}
		fwrite_esc(line, n, out);
		putc('\n', out);
		line = nl + 1;
	}
}

static int
cat_one(const char *path, int summary, FILE *out)
{
	struct dcpi_profile *p;
	struct dcpi_error err;
	size_t len, i;
	void *vbuf;
	char *buf;
	int rc = 0;

	if (dcpi_read_file(path, &vbuf, &len, &err) < 0) {
		fprintf(stderr, "dcpictl: %s\n", err.msg);
		return -1;
	}
	buf = vbuf;
	/* Old Callgrind files begin with "version: 1" too. */
	if (len < 7 || memcmp(buf, "version", 7) != 0 ||
	    dcpi_format_detect(buf, len) == DCPI_FMT_CALLGRIND) {
		rc = cat_foreign(path, buf, len, out);
		free(buf);
		return rc;
	}
	if (dcpi_profile_parse(buf, len, path, &p, &err) < 0) {
		fprintf(stderr, "dcpictl: %s\n", err.msg);
		free(buf);
		return -1;
	}
	/* Counts are sorted by offset: the last one gives the highest address.
	 * An address past 2^64 would print wrapped, as some other address. */
	if (p->n_counts > 0 && p->tstart > UINT64_MAX - p->counts[p->n_counts - 1].offset) {
		const char *t = memmem(buf, len, "\ntstart", 7);

		fprintf(stderr, "dcpictl: %s: byte %zu: tstart 0x%" PRIx64 " plus offset 0x%" PRIx32
		    " is past 2^64 (expected addresses that fit in 64 bits)\n", path,
		    t ? (size_t)(t + 1 - buf) : 0, p->tstart, p->counts[p->n_counts - 1].offset);
		dcpi_profile_free(p);
		free(buf);
		return -1;
	}
	print_header(buf, len, out);
	if (summary) {
		fprintf(out, "total_offsets %" PRIu32 "\ntotal_samples %" PRIu32 "\n",
		    dcpi_profile_total_offsets(p), dcpi_profile_total_samples(p));
	} else {
		for (i = 0; i < p->n_counts; i++)
			fprintf(out, "0x%" PRIx64 " %" PRIu32 "\n",
			    p->tstart + p->counts[i].offset, p->counts[i].count);
	}
	dcpi_profile_free(p);
	free(buf);
	return rc;
}

int
cmd_cat(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary",	no_argument,	NULL, 's' },
		{ "help",	no_argument,	NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch, i, summary = 0, status = 0;

	(void)g;
	while ((ch = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (ch) {
		case 's': summary = 1; break;
		case 'h':
			printf("usage: dcpictl cat [--summary] FILE...\n");
			return 0;
		default:
			fprintf(stderr, "usage: dcpictl cat [--summary] FILE...\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: dcpictl cat [--summary] FILE...\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		if (cat_one(argv[i], summary, stdout) < 0)
			status = 1;
		if (fflush(stdout) != 0) {
			fprintf(stderr, "dcpictl: cat: standard output: %s\n", strerror(errno));
			return 1;
		}
	}
	return status;
}
