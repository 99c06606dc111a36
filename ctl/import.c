/*
 * dcpictl import: a gperftools CPU profile, a gmon.out or a pprof file
 * written by dcpictl export into the database as DCPI profiles
 * (lib/dcpi/export.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/export.h>
#include <dcpi/file.h>
#include <dcpi/profile.h>

#include "commands.h"
#include "output.h"

/* Fills the header fields an import cannot know from the profile file. */
static int
complete(struct dcpi_profile *p, const char *epoch, struct dcpi_error *err)
{
	struct utsname u;
	char plat[3 * sizeof(u.release)], n[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	uname(&u);
	snprintf(plat, sizeof(plat), "%s %s %s", u.sysname, u.release, u.machine);
	snprintf(n, sizeof(n), "%ld", ncpu > 0 ? ncpu : 1);
	if (dcpi_profile_set(p, "epoch", epoch, err) == -1 ||
	    dcpi_profile_set(p, "platform", plat, err) == -1 ||
	    dcpi_profile_set(p, "cpuspeed", "0", err) == -1 ||
	    dcpi_profile_set(p, "cpucount", n, err) == -1)
		return -1;
	return 0;
}

/* Byte index of the first control byte of s, or -1.  The last guard before
 * a name becomes a header line, a directory and terminal output: the
 * parsers reject what comes from the file with its offset, but the path
 * of --image comes from the command line. */
static long
ctl_byte(const char *s)
{
	const char *c;

	for (c = s; c != NULL && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return c - s;
	return -1;
}

/*
 * Adds p into DB/EPOCH/HOST/EVENT/NAME.ID (merging with what is there).
 * Everything that can be checked is checked before the first directory is
 * made, and the directories this call made are removed again on failure:
 * a rejected import leaves nothing behind.
 */
static int
store_check(const struct dcpi_profile *p, const char *what)
{
	static const char *const field[] = { "event", "path", "image" };
	const char *val[3] = { p->event, p->path, p->image };
	struct dcpi_error err;
	void *enc = NULL;
	size_t enclen, i;
	long at;

	for (i = 0; i < 3; i++)
		if ((at = ctl_byte(val[i])) != -1) {
			fprintf(stderr, "dcpictl: import: %s: %s holds control byte 0x%02x at "
			    "character %ld (expected printable text)\n", what, field[i],
			    (unsigned char)val[i][at], at);
			return -1;
		}
	/* What the writer would refuse, refused before anything is made. */
	if (dcpi_profile_encode(p, &enc, &enclen, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s: %s\n", what, err.msg);
		return -1;
	}
	free(enc);
	return 0;
}

static int
store(const char *db, const char *epoch, const char *host, struct dcpi_profile *p,
    const char *what)
{
	struct dcpi_profile *old = NULL;
	struct dcpi_error err;
	char name[1024], *dir = NULL, *path = NULL, *made[4] = { NULL };
	struct stat st;
	size_t nmade = 0, i;
	int rc = -1;

	if (store_check(p, what) == -1)
		return -1;
	if (dcpi_db_profile_name(p->path, p->image, name, sizeof(name)) == -1 ||
	    (dir = dcpi_db_event_path(db, epoch, host, p->event)) == NULL ||
	    asprintf(&path, "%s/%s", dir, name) == -1) {
		path = NULL;
		fprintf(stderr, "dcpictl: import: %s: %s\n", what, strerror(errno));
		goto out;
	}
	/* The directories missing now, innermost first, for the clean-up. */
	if (asprintf(&made[0], "%s", dir) == -1 ||
	    asprintf(&made[1], "%s/%s/%s", db, epoch, host) == -1 ||
	    asprintf(&made[2], "%s/%s", db, epoch) == -1 ||
	    asprintf(&made[3], "%s", db) == -1) {
		fprintf(stderr, "dcpictl: import: %s: %s\n", what, strerror(errno));
		goto out;
	}
	for (nmade = 0; nmade < 4 && lstat(made[nmade], &st) == -1 && errno == ENOENT; nmade++)
		;
	if (dcpi_db_mkdirs(db, epoch, host, p->event, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		goto out;
	}
	if (dcpi_profile_read(path, &old, &err) == 0) {
		if (dcpi_profile_merge(old, p, &err) == -1) {
			fprintf(stderr, "dcpictl: import: %s: cannot add to %s: %s\n", what, path, err.msg);
			goto out;
		}
	} else if (errno != ENOENT) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		goto out;
	}
	if (dcpi_profile_write(path, old ? old : p, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		goto out;
	}
	printf("%s: %" PRIu32 " samples at %" PRIu32 " addresses -> ", what,
	    dcpi_profile_total_samples(p), dcpi_profile_total_offsets(p));
	esc_puts(path, stdout);
	putc('\n', stdout);
	rc = 0;
out:
	/* rmdir removes only empty directories: never what another import
	 * filled meanwhile. */
	for (i = 0; rc == -1 && i < nmade; i++)
		(void)rmdir(made[i]);
	for (i = 0; i < 4; i++)
		free(made[i]);
	dcpi_profile_free(old);
	free(dir);
	free(path);
	return rc;
}

#define IMPORT_USAGE							\
	"usage: dcpictl import FILE [--image BINARY] [--epoch E] [--host H]\n"	\
	"FILE: a gperftools CPU profile or a gmon.out (--image required), or a\n" \
	"pprof file written by dcpictl export (--image optional)\n"

int
cmd_import(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "image",	required_argument,	NULL, 'i' },
		{ "epoch",	required_argument,	NULL, 'E' },
		{ "host",	required_argument,	NULL, 'H' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *binary = NULL, *epoch_arg = NULL, *file;
	struct dcpi_image_info info = { 0 };
	struct dcpi_profile *p = NULL, **v = NULL;
	struct dcpi_pprof *pp = NULL;
	struct dcpi_gmon *gm = NULL;
	struct dcpi_error err;
	char epoch[DCPI_EPOCH_LEN + 1], host[256];
	uint64_t dropped = 0;
	size_t len, nv = 0, i;
	struct stat st;
	void *buf = NULL;
	time_t t;
	int ch, rc = 1, x;

	host[0] = '\0';
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'i': binary = optarg; break;
		case 'E': epoch_arg = optarg; break;
		case 'H': snprintf(host, sizeof(host), "%s", optarg); break;
		default: return cmd_usage(ch == 'h', IMPORT_USAGE);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage(0, IMPORT_USAGE);
	file = argv[optind];
	if (epoch_arg != NULL && (dcpi_epoch_parse(epoch_arg, &t) == -1 ||
	    strlen(epoch_arg) != DCPI_EPOCH_LEN)) {
		fprintf(stderr, "dcpictl: import: --epoch %s: expected YYYYMMDDHHMMSS\n", epoch_arg);
		return 2;
	}
	if (host[0] == '\0' && gethostname(host, sizeof(host) - 1) == -1)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (stat(file, &st) == -1) {
		fprintf(stderr, "dcpictl: import: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (dcpi_read_file(file, &buf, &len, &err) == -1) {
		fprintf(stderr, "dcpictl: import: %s\n", err.msg);
		return 1;
	}
	/* By default, the epoch of the profile's own time. */
	if (epoch_arg != NULL)
		snprintf(epoch, sizeof(epoch), "%s", epoch_arg);
	else
		dcpi_epoch_name(st.st_mtime, epoch);
	if (binary != NULL) {
		/* The database names images by absolute path. */
		char *abs = realpath(binary, NULL);

		x = dcpi_image_info_read(abs ? abs : binary, &info, &err);
		free(abs);
		if (x == -1) {
			fprintf(stderr, "dcpictl: import: %s\n", err.msg);
			goto out;
		}
	}
	switch (dcpi_format_detect(buf, len)) {
	case DCPI_FMT_PPROF:
		if (dcpi_pprof_parse(buf, len, file, &pp, &err) == -1)
			goto fail;
		if (binary != NULL) {
			if (dcpi_pprof_to_profile(pp, file, &info, &p, &dropped, &err) == -1)
				goto fail;
		} else if (dcpi_pprof_to_profiles(pp, file, &v, &nv, &err) == -1)
			goto fail;
		break;
	case DCPI_FMT_GMON:
		if (binary == NULL) {
			fprintf(stderr, "dcpictl: import: %s: a gmon.out needs --image BINARY\n", file);
			rc = 2;
			goto out;
		}
		if (dcpi_gmon_parse(buf, len, file, &gm, &err) == -1 ||
		    dcpi_gmon_to_profile(gm, file, &info, &p, &dropped, &err) == -1)
			goto fail;
		break;
	default:
		fprintf(stderr, "dcpictl: import: %s: byte 0: not a gperftools CPU profile or a "
		    "gmon.out (found %s)\n", file, dcpi_format_name(dcpi_format_detect(buf, len)));
		goto out;
	}
	if (p != NULL) {
		v = &p;
		nv = 1;
	}
	/* All checked before the first is stored: a rejected file adds nothing. */
	for (i = 0; i < nv; i++) {
		if (complete(v[i], epoch, &err) == -1) {
			fprintf(stderr, "dcpictl: import: %s: %s\n", file, err.msg);
			goto out;
		}
		if (store_check(v[i], file) == -1)
			goto out;
	}
	for (i = 0; i < nv; i++)
		if (store(g->db, epoch, host, v[i], file) == -1)
			goto out;
	if (dropped > 0)
		fprintf(stderr, "dcpictl: import: %s: %" PRIu64 " samples outside %s's text "
		    "were left out\n", file, dropped, info.path);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "dcpictl: import: %s\n", err.msg);
out:
	if (v != NULL && v != &p) {
		for (i = 0; i < nv; i++)
			dcpi_profile_free(v[i]);
		free(v);
	}
	dcpi_profile_free(p);
	dcpi_pprof_free(pp);
	dcpi_gmon_free(gm);
	dcpi_image_info_clear(&info);
	free(buf);
	return rc;
}
