/*
 * dcpictl epochs (the database's epochs with their size) and gc (retention).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/dataset.h>
#include <dcpi/db.h>

#include "analysis.h"
#include "commands.h"
#include "../daemon/conf.h"
#include "xmalloc.h"

static uint64_t du_bytes;

static int
du_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F)
		du_bytes += (uint64_t)st->st_size;
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) == -1) {
		fprintf(stderr, "dcpictl: gc: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
fmt_time(time_t t, char *out, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%d %H:%M:%S", &tm);
}

static void
fmt_duration(time_t d, char *out, size_t len)
{
	if (d < 0)
		snprintf(out, len, "-");
	else if (d >= 86400)
		snprintf(out, len, "%lldd%02lldh", (long long)d / 86400, (long long)d % 86400 / 3600);
	else
		snprintf(out, len, "%lldh%02lldm", (long long)d / 3600, (long long)d % 3600 / 60);
}

int
cmd_epochs(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv",	no_argument,		NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const head[] = { "epoch", "current", "start", "duration", "hosts",
	    "events", "samples", "bytes" };
	static const int right[] = { 0, 0, 0, 1, 0, 0, 1, 1 };
	struct dcpi_dataset_filter f;
	struct dcpi_dataset *d;
	struct dcpi_error err;
	struct table t;
	enum fmt fm = FMT_TEXT;
	char **ep, cur[DCPI_EPOCH_LEN + 1], path[4096], buf[64], *list;
	const char *one[1];
	size_t n, i, j, len;
	time_t start, next;
	uint64_t samples;
	int ch, has_cur;

	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': fm = FMT_CSV; break;
		case 'j': fm = FMT_JSON; break;
		default:
			fprintf(ch == 'h' ? stdout : stderr, "usage: dcpictl epochs [--csv | --json]\n");
			return ch == 'h' ? 0 : 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: dcpictl epochs [--csv | --json]\n");
		return 2;
	}
	if (dcpi_db_epochs(g->db, &ep, &n, &err) == -1) {
		fprintf(stderr, "dcpictl: epochs: %s\n", err.msg);
		return 1;
	}
	has_cur = dcpi_db_current(g->db, cur, NULL) == 0;
	table_init(&t, 8, head, right);
	for (i = 0; i < n; i++) {
		memset(&f, 0, sizeof(f));
		one[0] = ep[i];
		f.epochs = one;
		f.n_epochs = 1;
		f.idle = 1;	/* an epoch's samples are all of them */
		if (dcpi_dataset_load(g->db, &f, &d, &err) == -1) {
			fprintf(stderr, "dcpictl: epochs: %s\n", err.msg);
			continue;
		}
		for (j = 0; j < d->n_skipped; j++)
			fprintf(stderr, "dcpictl: warning: skipped %s\n", d->skipped[j]);
		table_addf(&t, 0, "%s", ep[i]);
		table_addf(&t, 1, "%s", has_cur && strcmp(cur, ep[i]) == 0 ? "yes" : "");
		dcpi_epoch_parse(ep[i], &start);
		fmt_time(start, buf, sizeof(buf));
		table_addf(&t, 2, "%s", buf);
		/* An epoch lasts until the next one starts; the newest until now. */
		if (i + 1 < n && dcpi_epoch_parse(ep[i + 1], &next) == 0)
			fmt_duration(next - start, buf, sizeof(buf));
		else
			fmt_duration(time(NULL) - start, buf, sizeof(buf));
		table_addf(&t, 3, "%s", buf);
		for (list = NULL, len = 0, j = 0; j < d->n_hosts; j++)
			len += strlen(d->hosts[j]) + 1;
		list = xcalloc(len + 1, 1);
		for (j = 0; j < d->n_hosts; j++)
			strcat(strcat(list, j ? "," : ""), d->hosts[j]);
		table_addf(&t, 4, "%s", list);
		free(list);
		for (len = 0, j = 0; j < d->n_events; j++)
			len += strlen(d->events[j].name) + 1;
		list = xcalloc(len + 1, 1);
		for (samples = 0, j = 0; j < d->n_events; j++) {
			strcat(strcat(list, j ? "," : ""), d->events[j].name);
			samples += d->events[j].samples;
		}
		table_addf(&t, 5, "%s", list);
		free(list);
		table_addf(&t, 6, "%llu", (unsigned long long)samples);
		snprintf(path, sizeof(path), "%s/%s", g->db, ep[i]);
		du_bytes = 0;
		nftw(path, du_one, 16, FTW_PHYS);
		table_addf(&t, 7, "%llu", (unsigned long long)du_bytes);
		dcpi_dataset_free(d);
	}
	table_print(&t, fm, stdout);
	if (fm == FMT_JSON)
		putchar('\n');
	table_free(&t);
	dcpi_strv_free(ep, n);
	return fflush(stdout) == 0 ? 0 : 1;
}

static int
parse_count(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return *s == '\0' || *end != '\0' || *out < 0 ? -1 : 0;
}

int
cmd_gc(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keep-days",	required_argument,	NULL, 'k' },
		{ "keep-min",	required_argument,	NULL, 'm' },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "config",	required_argument,	NULL, 'c' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct dcpi_error err;
	char **ep, cur[DCPI_EPOCH_LEN + 1], path[4096], tmp[4096];
	long days = -1, keep = -1;
	const char *conf = NULL;
	struct config c;
	char cerr[1024];
	size_t n, i;
	time_t end, cutoff;
	int ch, has_cur, dry = 0, rc = 0;
	struct dirent *de;
	DIR *dir;

	while ((ch = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			if (parse_count(optarg, &days) == -1)
				goto usage;
			break;
		case 'm':
			if (parse_count(optarg, &keep) == -1)
				goto usage;
			break;
		case 'n': dry = 1; break;
		case 'c': conf = optarg; break;
		default:
		usage:
			fprintf(ch == 'h' ? stdout : stderr,
			    "usage: dcpictl gc [--keep-days N] [--keep-min M] [--dry-run] [--config FILE]\n"
			    "deletes the epochs that ended more than N days ago, always keeping\n"
			    "the M newest and the current one; N and M default to keep-days and\n"
			    "keep-min of dcpid.conf (%s), else 7 and 3\n", CONFIG_DEFAULT_PATH);
			return ch == 'h' ? 0 : 2;
		}
	}
	if (optind != argc)
		goto usage;
	/* The retention is dcpid's setting: the same file, the same parser. */
	if (days < 0 || keep < 0) {
		config_defaults(&c);
		if (config_load(&c, conf ? conf : CONFIG_DEFAULT_PATH, conf == NULL,
		    cerr, sizeof(cerr)) == -1) {
			fprintf(stderr, "dcpictl: gc: %s\n", cerr);
			config_free(&c);
			return 1;
		}
		if (days < 0)
			days = c.keep_days;
		if (keep < 0)
			keep = c.keep_min;
		config_free(&c);
	}
	if (dcpi_db_epochs(g->db, &ep, &n, &err) == -1) {
		fprintf(stderr, "dcpictl: gc: %s\n", err.msg);
		return 1;
	}
	has_cur = dcpi_db_current(g->db, cur, NULL) == 0;
	/* Finish what an interrupted gc left hidden. */
	if (!dry && (dir = opendir(g->db)) != NULL) {
		while ((de = readdir(dir)) != NULL)
			if (strncmp(de->d_name, ".gc.", 4) == 0) {
				snprintf(tmp, sizeof(tmp), "%s/%s", g->db, de->d_name);
				if (nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
					rc = 1;
			}
		closedir(dir);
	}
	cutoff = time(NULL) - (time_t)days * 86400;
	for (i = 0; i + (size_t)keep < n; i++) {
		if (has_cur && strcmp(cur, ep[i]) == 0)
			continue;
		/* An epoch ends when the next one starts. */
		if (i + 1 == n || dcpi_epoch_parse(ep[i + 1], &end) == -1 || end > cutoff)
			continue;
		snprintf(path, sizeof(path), "%s/%s", g->db, ep[i]);
		printf("%s %s\n", dry ? "would delete" : "deleted", ep[i]);
		if (dry)
			continue;
		/* Hidden first, so that a crash never leaves half an epoch
		 * that looks whole to the analysis commands. */
		snprintf(tmp, sizeof(tmp), "%s/.gc.%s", g->db, ep[i]);
		if (rename(path, tmp) == -1) {
			fprintf(stderr, "dcpictl: gc: %s: %s\n", path, strerror(errno));
			rc = 1;
			continue;
		}
		if (nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
			rc = 1;
	}
	dcpi_strv_free(ep, n);
	return fflush(stdout) == 0 ? rc : 1;
}
