/*
 * Errors (lib/dcpi/error.h): the one function that fills a struct
 * dcpi_error, below every other source of libdcpi.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <dcpi/error.h>

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
