#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "log.h"
#include "xmalloc.h"

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		fatal("malloc %zu bytes", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		fatal("calloc %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		fatal("reallocarray %zu x %zu bytes", nmemb, size);
	}
	p = realloc(ptr, nmemb * size > 0 ? nmemb * size : 1);
	if (p == NULL)
		fatal("realloc %zu x %zu bytes", nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fatal("strdup");
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("asprintf");
	return n;
}

void
xhtab_add(struct htab *t, uint64_t h, uintptr_t val)
{
	if (htab_add(t, h, val) == -1)
		fatal("hash table of %zu entries", t->n + 1);
}
