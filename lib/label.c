/*
 * Labels and the unattributed samples file: lib/dcpi/label.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dcpi/db.h>
#include <dcpi/file.h>
#include <dcpi/label.h>

#include "internal.h"

const char *
dcpi_profile_label(const struct dcpi_profile *p)
{
	const char *s;
	size_t i;

	for (i = 0; i < p->n_unknown; i++) {
		s = p->unknown[i];
		if (strncmp(s, "label", 5) == 0 && (s[5] == ' ' || s[5] == '\t'))
			return s + 5 + strspn(s + 5, " \t");
	}
	return NULL;
}

/* A header value: rest_of_line of the pdb grammar. */
static int
valid_value(const char *s)
{
	return *s != '\0' && *s != ' ' && *s != '\t' && strchr(s, '\n') == NULL;
}

int
dcpi_label_dirname(const char *label, char *out, size_t outlen)
{
	if (!valid_value(label)) {
		errno = EINVAL;
		return -1;
	}
	/* As event directories, but a leading dot would hide the directory
	 * (hidden names are temporary files). */
	return lib_name_escape(label, 1, out, outlen);
}

int
dcpi_label_from_dirname(const char *dirname, char *out, size_t outlen)
{
	/* The event rule decodes the same three escapes. */
	return dcpi_db_event_from_dirname(dirname, out, outlen);
}

char *
dcpi_db_label_path(const char *db, const char *epoch, const char *host,
    const char *event, const char *label)
{
	char dir[NAME_MAX + 1], *ev, *s;

	if ((ev = dcpi_db_event_path(db, epoch, host, event)) == NULL || label == NULL)
		return ev;
	if (dcpi_label_dirname(label, dir, sizeof(dir)) == -1) {
		free(ev);
		return NULL;
	}
	if (asprintf(&s, "%s/%s", ev, dir) < 0) {
		free(ev);
		errno = ENOMEM;
		return NULL;
	}
	free(ev);
	return s;
}

int
dcpi_db_label_mkdirs(const char *db, const char *epoch, const char *host,
    const char *event, const char *label, struct dcpi_error *err)
{
	char evdir[NAME_MAX + 1], ldir[NAME_MAX + 1], *rel;
	int rc, e;

	if (label == NULL)
		return dcpi_db_mkdirs(db, epoch, host, event, err);
	if (dcpi_db_event_dirname(event, evdir, sizeof(evdir)) == -1)
		return lib_seterr(err, errno, "event '%.200s': cannot name its "
		    "directory: %s", event, strerror(errno));
	if (dcpi_label_dirname(label, ldir, sizeof(ldir)) == -1)
		return lib_seterr(err, errno, "label '%.200s': cannot name its "
		    "directory: %s", label, strerror(errno));
	if (asprintf(&rel, "%s/%s/%s/%s", epoch, host, evdir, ldir) < 0)
		return lib_seterr(err, ENOMEM, "%s: out of memory", db);
	rc = lib_db_mkdirs_below(db, rel, err);
	e = errno;
	free(rel);
	errno = e;
	return rc;
}

static int
valid_reason(const char *s, size_t n)
{
	return n > 0 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") >= n;
}

/* Index where (event, reason) is or belongs; *found says which. */
static size_t
find(const struct dcpi_unattr *u, const char *event, const char *reason, int *found)
{
	size_t lo = 0, hi = u->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(u->v[mid].event, event)) == 0)
			c = strcmp(u->v[mid].reason, reason);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

/* Inserts a new entry at i; -1/ENOMEM. */
static int
insert(struct dcpi_unattr *u, size_t i, const char *event, const char *reason,
    uint64_t samples)
{
	struct dcpi_unattr_entry *v, e;
	size_t nc;

	if ((e.event = strdup(event)) == NULL || (e.reason = strdup(reason)) == NULL) {
		free(e.event);
		errno = ENOMEM;
		return -1;
	}
	e.samples = samples;
	if (u->n == u->cap) {
		nc = u->cap ? u->cap * 2 : 8;
		if ((v = reallocarray(u->v, nc, sizeof(*v))) == NULL) {
			free(e.event);
			free(e.reason);
			errno = ENOMEM;
			return -1;
		}
		u->v = v;
		u->cap = nc;
	}
	memmove(u->v + i + 1, u->v + i, (u->n - i) * sizeof(*u->v));
	u->v[i] = e;
	u->n++;
	return 0;
}

int
dcpi_unattr_add(struct dcpi_unattr *u, const char *event, const char *reason,
    uint64_t samples)
{
	size_t i;
	int found;

	if (!valid_reason(reason, strlen(reason)) || !valid_value(event)) {
		errno = EINVAL;
		return -1;
	}
	i = find(u, event, reason, &found);
	if (!found)
		return insert(u, i, event, reason, samples);
	u->v[i].samples = samples > UINT64_MAX - u->v[i].samples ? UINT64_MAX :
	    u->v[i].samples + samples;
	return 0;
}

int
dcpi_unattr_parse(const void *buf, size_t len, const char *name,
    struct dcpi_unattr *u, struct dcpi_error *err)
{
	struct dcpi_unattr add = { NULL, 0, 0 };
	const char *s = buf, *end = s + len, *nl, *sp, *num;
	char reason[64], *event = NULL;
	size_t line, n, i, mlen = strlen(DCPI_UNATTR_MAGIC);
	uint64_t v;
	int found;

	if (memchr(s, '\0', len) != NULL) {
		n = (size_t)((const char *)memchr(s, '\0', len) - s);
		lib_seterr(err, EINVAL, "%s: byte %zu: NUL in a text file", name, n);
		return -1;
	}
	for (line = 1; s < end; line++, s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL) {
			lib_seterr(err, EINVAL, "%s: line %zu: expected a newline at the end "
			    "of the file", name, line);
			goto fail;
		}
		n = (size_t)(nl - s);
		if (line == 1) {
			if (n != mlen || memcmp(s, DCPI_UNATTR_MAGIC, mlen) != 0) {
				lib_seterr(err, EINVAL, "%s: line 1: expected '%s'", name,
				    DCPI_UNATTR_MAGIC);
				goto fail;
			}
			continue;
		}
		if ((sp = memchr(s, ' ', n)) == NULL || !valid_reason(s, (size_t)(sp - s)) ||
		    (size_t)(sp - s) >= sizeof(reason)) {
			lib_seterr(err, EINVAL, "%s: line %zu: expected a reason of "
			    "[a-z0-9-] (at most %zu characters) and a blank", name, line,
			    sizeof(reason) - 1);
			goto fail;
		}
		memcpy(reason, s, (size_t)(sp - s));
		reason[sp - s] = '\0';
		num = sp + 1;
		for (v = 0, sp = num; sp < nl && *sp >= '0' && *sp <= '9'; sp++) {
			if (v > (UINT64_MAX - (uint64_t)(*sp - '0')) / 10) {
				lib_seterr(err, EINVAL, "%s: line %zu: sample count does not "
				    "fit in 64 bits", name, line);
				goto fail;
			}
			v = v * 10 + (uint64_t)(*sp - '0');
		}
		if (sp == num || sp == nl || *sp != ' ' || sp + 1 == nl || sp[1] == ' ' ||
		    sp[1] == '\t') {
			lib_seterr(err, EINVAL, "%s: line %zu: expected 'REASON SAMPLES EVENT' "
			    "(decimal samples, one blank, the event)", name, line);
			goto fail;
		}
		if ((event = strndup(sp + 1, (size_t)(nl - sp - 1))) == NULL)
			goto nomem;
		find(&add, event, reason, &found);
		if (found) {
			lib_seterr(err, EINVAL, "%s: line %zu: reason '%s' of event '%.200s' "
			    "given twice", name, line, reason, event);
			goto fail;
		}
		if (dcpi_unattr_add(&add, event, reason, v) == -1)
			goto nomem;
		free(event);
		event = NULL;
	}
	if (len == 0) {
		lib_seterr(err, EINVAL, "%s: line 1: expected '%s'", name, DCPI_UNATTR_MAGIC);
		return -1;
	}
	/* Into u only when the whole file is good. */
	for (i = 0; i < add.n; i++)
		if (dcpi_unattr_add(u, add.v[i].event, add.v[i].reason, 0) == -1)
			goto nomem;
	for (i = 0; i < add.n; i++)
		dcpi_unattr_add(u, add.v[i].event, add.v[i].reason, add.v[i].samples);
	dcpi_unattr_clear(&add);
	return 0;
nomem:
	lib_seterr(err, ENOMEM, "%s: out of memory", name);
fail:
	free(event);
	dcpi_unattr_clear(&add);
	errno = errno == ENOMEM ? ENOMEM : EINVAL;
	return -1;
}

int
dcpi_unattr_read(const char *path, struct dcpi_unattr *u, struct dcpi_error *err)
{
	void *buf;
	size_t len;
	int rc;

	if (dcpi_read_file(path, &buf, &len, err) == -1)
		return -1;
	rc = dcpi_unattr_parse(buf, len, path, u, err);
	free(buf);
	return rc;
}

int
dcpi_unattr_encode(const struct dcpi_unattr *u, char **buf, size_t *len)
{
	size_t i;
	FILE *fp;

	*buf = NULL;
	*len = 0;
	if ((fp = open_memstream(buf, len)) == NULL)
		return -1;
	fprintf(fp, "%s\n", DCPI_UNATTR_MAGIC);
	for (i = 0; i < u->n; i++)
		fprintf(fp, "%s %ju %s\n", u->v[i].reason, (uintmax_t)u->v[i].samples,
		    u->v[i].event);
	if (fclose(fp) != 0) {
		free(*buf);
		*buf = NULL;
		*len = 0;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int
dcpi_unattr_write(const char *path, const struct dcpi_unattr *u, struct dcpi_error *err)
{
	char *buf;
	size_t len;
	int rc;

	if (dcpi_unattr_encode(u, &buf, &len) == -1)
		return lib_seterr(err, ENOMEM, "%s: out of memory", path);
	rc = dcpi_atomic_write(path, buf, len, 0644, err);
	free(buf);
	return rc;
}

void
dcpi_unattr_clear(struct dcpi_unattr *u)
{
	size_t i;

	for (i = 0; i < u->n; i++) {
		free(u->v[i].event);
		free(u->v[i].reason);
	}
	free(u->v);
	u->v = NULL;
	u->n = u->cap = 0;
}

char *
dcpi_db_unattr_path(const char *db, const char *epoch, const char *host)
{
	char *s;

	if (asprintf(&s, "%s/%s/%s/%s", db, epoch, host, DCPI_UNATTR_FILE) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}
