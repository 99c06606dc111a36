#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int
lib_seterr(struct dcpi_error *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	if (e != 0)
		errno = e;
	return -1;
}


int
lib_grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	if ((p = reallocarray(*v, nc, size)) == NULL)
		return -1;
	*v = p;
	*cap = nc;
	return 0;
}
