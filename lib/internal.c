#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "internal.h"

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

/* buf[0..len) as one gzip member into *out (malloc'd), *outlen bytes. */
int
lib_gzip(const void *buf, size_t len, int level, const char *show, void **out, size_t *outlen,
    struct dcpi_error *err)
{
	z_stream z;
	uLong cap;
	void *o;
	int r;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer, so that zcat reads it. */
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return lib_seterr(err, ENOMEM, "%s: cannot start compressing", show);
	/* deflateBound is the most one call can need: one pass, no loop. */
	cap = deflateBound(&z, (uLong)len);
	if ((o = malloc(cap)) == NULL) {
		deflateEnd(&z);
		return lib_seterr(err, ENOMEM, "%s: out of memory", show);
	}
	z.next_in = (Bytef *)(uintptr_t)buf;
	z.avail_in = (uInt)len;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(o);
		return lib_seterr(err, EIO, "%s: compression failed (zlib %d)", show, r);
	}
	*out = o;
	return 0;
}

/* One gzip member in[0..inlen) decompressed into *out (malloc'd, a NUL
 * after the data), at most max bytes. */
int
lib_gunzip(const void *in, size_t inlen, size_t max, const char *show, void **out,
    size_t *outlen, struct dcpi_error *err)
{
	size_t cap = inlen < (1u << 20) ? 1u << 20 : inlen * 8, used;
	char *o = NULL, *n;
	z_stream z;
	int r;

	*out = NULL;
	*outlen = 0;
	if (cap > max)
		cap = max;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return lib_seterr(err, ENOMEM, "%s: cannot start decompressing", show);
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)inlen;
	for (;;) {
		used = z.total_out;
		if (o == NULL || used == cap) {
			if (o != NULL) {
				if (cap >= max) {
					r = Z_MEM_ERROR;
					break;
				}
				cap = cap * 2 > max ? max : cap * 2;
			}
			if ((n = realloc(o, cap + 1)) == NULL) {
				free(o);
				inflateEnd(&z);
				return lib_seterr(err, ENOMEM, "%s: out of memory", show);
			}
			o = n;
		}
		z.next_out = (Bytef *)o + used;
		z.avail_out = (uInt)(cap - used);
		r = inflate(&z, Z_NO_FLUSH);
		if (r == Z_STREAM_END || (r != Z_OK && r != Z_BUF_ERROR) ||
		    (r == Z_BUF_ERROR && z.avail_out != 0))
			break;
	}
	if (r == Z_STREAM_END && z.avail_in != 0)
		r = Z_DATA_ERROR + 1000;	/* trailing bytes */
	if (r != Z_STREAM_END) {
		size_t at = z.total_in;

		inflateEnd(&z);
		free(o);
		if (r == Z_MEM_ERROR && cap >= max)
			return lib_seterr(err, EFBIG, "%s: more than %zu bytes once "
			    "decompressed, the most this file may hold", show, max);
		if (r == Z_DATA_ERROR + 1000)
			return lib_seterr(err, EINVAL, "%s: byte %zu: data after the "
			    "end of the gzip stream", show, at);
		if (r == Z_BUF_ERROR || r == Z_OK)
			return lib_seterr(err, EINVAL, "%s: byte %zu: truncated gzip "
			    "data (the file ends early)", show, at);
		return lib_seterr(err, EINVAL, "%s: byte %zu: not gzip data "
		    "(%s)", show, at, z.msg ? z.msg : "corrupt");
	}
	*outlen = z.total_out;
	o[*outlen] = '\0';
	*out = o;
	inflateEnd(&z);
	return 0;
}
