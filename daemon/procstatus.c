/*
 * /proc/PID/status, parsed once for everyone (daemon/procstatus.h).  The
 * text is the kernel's, but a process may exit while it is read (an empty
 * file), and the fuzz target gives it anything: every number is checked
 * for range and every line for its count, by hand, since strtoul would
 * read past a text that is not NUL-terminated.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/file.h>

#include "procstatus.h"

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The numbers in s[0..e) in base 10 or 16, separated and surrounded by
 * blanks, into out[max]: how many, or -1 for anything else (a number
 * above max_value, more than max of them). */
static int
numbers(const char *s, const char *e, unsigned base, uint64_t max_value,
    uint64_t *out, int max)
{
	int n = 0;

	for (;;) {
		uint64_t v = 0;
		const char *d;
		unsigned x;

		while (s < e && blank(*s))
			s++;
		if (s == e)
			return n;
		if (n == max)
			return -1;
		for (d = s; s < e && !blank(*s); s++) {
			if (*s >= '0' && *s <= '9')
				x = (unsigned)(*s - '0');
			else if (base == 16 && *s >= 'a' && *s <= 'f')
				x = (unsigned)(*s - 'a' + 10);
			else if (base == 16 && *s >= 'A' && *s <= 'F')
				x = (unsigned)(*s - 'A' + 10);
			else
				return -1;
			if (x > max_value || v > (max_value - x) / base)
				return -1;
			v = v * base + x;
		}
		if (s - d > 0)
			out[n++] = v;
	}
}

/* A line of 1 to max 32-bit ids (exactly max when exact) into ids. */
static int
id_line(const char *s, const char *e, uint32_t *ids, int max, int exact,
    uint32_t *count)
{
	uint64_t v[PROCSTATUS_GROUPS_MAX];
	int n, i;

	if ((n = numbers(s, e, 10, UINT32_MAX, v, max)) < 0 || (exact && n != max))
		return 0;
	for (i = 0; i < n; i++)
		ids[i] = (uint32_t)v[i];
	if (count != NULL)
		*count = (uint32_t)n;
	return 1;
}

int
procstatus_parse(const char *text, size_t len, struct procstatus *ps)
{
	const char *s = text, *end = text + len, *e, *v;
	uint64_t one[PROCSTATUS_GROUPS_MAX];
	size_t namelen;
	unsigned bit;
	int ok, n;

	memset(ps, 0, sizeof(*ps));
	for (; s < end; s = e + (e < end)) {
		if ((e = memchr(s, '\n', (size_t)(end - s))) == NULL)
			e = end;
		if ((v = memchr(s, ':', (size_t)(e - s))) == NULL)
			continue;
		namelen = (size_t)(v++ - s);
#define IS(name) (namelen == sizeof(name) - 1 && \
		    memcmp(s, name, sizeof(name) - 1) == 0)
		ok = 0;
		if (IS("Uid")) {
			bit = PROCSTATUS_UID;
			if (!(ps->have & bit))
				ok = id_line(v, e, ps->uid, 4, 1, NULL);
		} else if (IS("Gid")) {
			bit = PROCSTATUS_GID;
			if (!(ps->have & bit))
				ok = id_line(v, e, ps->gid, 4, 1, NULL);
		} else if (IS("Groups")) {
			bit = PROCSTATUS_GROUPS;
			if (!(ps->have & bit))
				ok = id_line(v, e, ps->groups, PROCSTATUS_GROUPS_MAX, 0,
				    &ps->ngroups);
		} else if (IS("NSpid")) {
			/* Outermost first: the last is the process's own
			 * namespace's.  As deep as the kernel nests them (32). */
			bit = PROCSTATUS_NSPID;
			if (!(ps->have & bit) && (n = numbers(v, e, 10, UINT32_MAX,
			    one, PROCSTATUS_GROUPS_MAX)) > 0 && one[n - 1] > 0) {
				ps->nspid = (uint32_t)one[n - 1];
				ok = 1;
			}
		} else if (IS("CapEff")) {
			bit = PROCSTATUS_CAPEFF;
			if (!(ps->have & bit) &&
			    numbers(v, e, 16, UINT64_MAX, one, 1) == 1) {
				ps->cap_eff = one[0];
				ok = 1;
			}
		} else if (IS("Seccomp")) {
			bit = PROCSTATUS_SECCOMP;
			if (!(ps->have & bit) &&
			    numbers(v, e, 10, 2, one, 1) == 1) {
				ps->seccomp = (int)one[0];
				ok = 1;
			}
		} else
			continue;
#undef IS
		if (ok)
			ps->have |= bit;
	}
	return 0;
}

int
procstatus_read(uint32_t pid, struct procstatus *ps)
{
	char path[64];
	void *buf;
	size_t len;

	memset(ps, 0, sizeof(*ps));
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/status");
	else
		snprintf(path, sizeof(path), "/proc/%lu/status", (unsigned long)pid);
	if (dcpi_read_file(path, &buf, &len, NULL) == -1) {
		/* ESRCH: the process exited between the open and the read. */
		if (errno == ESRCH)
			errno = ENOENT;
		return -1;
	}
	procstatus_parse(buf, len, ps);
	free(buf);
	/* A process that exits while the file is read leaves it empty. */
	if (len == 0) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}
