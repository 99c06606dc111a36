/*
 * Allocation wrappers for the programs: they check for overflow and die
 * (fatal) on exhaustion, so callers need no error path.  libdcpi itself
 * does not use them: a library returns ENOMEM to its caller.
 */
#ifndef DCPI_XMALLOC_H
#define DCPI_XMALLOC_H

#include <stddef.h>
#include <stdint.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
int xasprintf(char **ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct htab;
void xhtab_add(struct htab *t, uint64_t h, uintptr_t val);

#endif
