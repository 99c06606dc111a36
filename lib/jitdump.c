/*
 * perf's jitdump files (lib/dcpi/jitdump.h).
 *
 * The files come from any user's process and dcpid runs as root, so every
 * length is checked against the record that holds it before a byte of it
 * is read; the fields are copied out with memcpy (records are not aligned
 * in general) and swapped when the magic says the writer's byte order is
 * not ours.
 */
#include "config.h"

#include <byteswap.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dcpi/jitdump.h>

#include "htab.h"
#include "internal.h"

#define JITDUMP_DEFAULT_MAX	((size_t)1 << 30)
#define HDR_SIZE		40	/* the version 1 file header */
#define REC_SIZE		16	/* {id, total_size, timestamp} */
#define LOAD_FIXED		(REC_SIZE + 2 * 4 + 4 * 8)
#define MOVE_FIXED		(REC_SIZE + 2 * 4 + 5 * 8)

enum {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
};

struct parse {
	const unsigned char	*b;
	int			 swap;
	struct dcpi_perfmap_entry *e;
	size_t			 n, cap;
	/* code_index -> index + 1 of its latest load's entry */
	struct htab		 idx;
};

static uint32_t
u32(const struct parse *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p->b + off, sizeof(v));
	return p->swap ? bswap_32(v) : v;
}

static uint64_t
u64(const struct parse *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p->b + off, sizeof(v));
	return p->swap ? bswap_64(v) : v;
}

/* The hash is code_index itself, so a value under it is its own. */
static int
idx_put(struct parse *p, uint64_t k, size_t v)
{
	struct htab_iter it;

	if (htab_first(&p->idx, k, &it) != 0) {
		htab_replace(&p->idx, &it, v + 1);
		return 0;
	}
	return htab_add(&p->idx, k, v + 1);
}

/* The entry of code_index k's latest load, or -1. */
static ssize_t
idx_get(const struct parse *p, uint64_t k)
{
	struct htab_iter it;
	uintptr_t v = htab_first(&p->idx, k, &it);

	return v != 0 ? (ssize_t)(v - 1) : -1;
}

/* Appends (start, size, a copy of name[0..len)). */
static int
add(struct parse *p, uint64_t start, uint64_t size, const char *name,
    size_t len)
{
	struct dcpi_perfmap_entry *ne;
	size_t cap;

	if (p->n == p->cap) {
		cap = p->cap ? 2 * p->cap : 64;
		if ((ne = reallocarray(p->e, cap, sizeof(*ne))) == NULL)
			return -1;
		p->e = ne;
		p->cap = cap;
	}
	if ((p->e[p->n].name = strndup(name, len)) == NULL)
		return -1;
	p->e[p->n].start = start;
	p->e[p->n].size = size;
	p->n++;
	return 0;
}

/* -1 with EINVAL in err if the code at addr (the record's field at byte
 * at) and its size bytes pass the end of the address space, else 0. */
static int
past_end(struct dcpi_error *err, const char *name, size_t at, const char *field,
    uint64_t addr, uint64_t size)
{
	if (addr + size >= addr)
		return 0;
	return lib_seterr(err, EINVAL, "%s: byte %zu: %s 0x%jx + code_size 0x%jx is past "
	    "the end of the address space", name, at, field, (uintmax_t)addr,
	    (uintmax_t)size);
}

int
dcpi_jitdump_parse(const void *buf, size_t len, const char *name,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err)
{
	struct parse p;
	const char *nm, *nul;
	uint64_t addr, size, cidx, old;
	uint32_t magic, id, rsize, hsize;
	size_t off, nlen;
	ssize_t at;
	int ret = -1, saved;

	if (name == NULL)
		name = "jitdump";
	*out = NULL;
	*n = 0;
	memset(&p, 0, sizeof(p));
	p.b = buf;
	if (len < HDR_SIZE) {
		lib_seterr(err, EINVAL, "%s: byte 0: %zu bytes; expected a jitdump "
		    "header of %d", name, len, HDR_SIZE);
		goto done;
	}
	memcpy(&magic, p.b, sizeof(magic));
	if (magic == bswap_32(DCPI_JITDUMP_MAGIC))
		p.swap = 1;
	else if (magic != DCPI_JITDUMP_MAGIC) {
		lib_seterr(err, EINVAL, "%s: byte 0: magic 0x%08x; expected "
		    "0x%08x (\"JiTD\") in either byte order", name, magic,
		    DCPI_JITDUMP_MAGIC);
		goto done;
	}
	if (u32(&p, 4) != DCPI_JITDUMP_VERSION) {
		lib_seterr(err, EINVAL, "%s: byte 4: version %u; expected %d",
		    name, u32(&p, 4), DCPI_JITDUMP_VERSION);
		goto done;
	}
	hsize = u32(&p, 8);
	if (hsize < HDR_SIZE || hsize > len) {
		lib_seterr(err, EINVAL, "%s: byte 8: header total_size %u; "
		    "expected %d to the file's %zu bytes", name, hsize, HDR_SIZE,
		    len);
		goto done;
	}
	for (off = hsize; len - off >= REC_SIZE; off += rsize) {
		id = u32(&p, off);
		rsize = u32(&p, off + 4);
		if (rsize < REC_SIZE) {
			lib_seterr(err, EINVAL, "%s: byte %zu: record total_size "
			    "%u; expected at least %d", name, off, rsize, REC_SIZE);
			goto done;
		}
		/* The writer is still at it. */
		if (rsize > len - off)
			break;
		switch (id) {
		case JIT_CODE_LOAD:
			if (rsize < LOAD_FIXED + 1) {
				lib_seterr(err, EINVAL, "%s: byte %zu: "
				    "JIT_CODE_LOAD of %u bytes; expected at least "
				    "%d", name, off, rsize, LOAD_FIXED + 1);
				goto done;
			}
			addr = u64(&p, off + 32);
			size = u64(&p, off + 40);
			cidx = u64(&p, off + 48);
			nm = (const char *)p.b + off + LOAD_FIXED;
			nul = memchr(nm, '\0', rsize - LOAD_FIXED);
			if (nul == NULL || nul == nm ||
			    memchr(nm, '\n', (size_t)(nul - nm)) != NULL) {
				lib_seterr(err, EINVAL, "%s: byte %zu: JIT_CODE_LOAD "
				    "name %s; expected a non-empty name ending in "
				    "NUL within the record, without newlines", name,
				    off + LOAD_FIXED, nul == NULL ? "not terminated" :
				    nul == nm ? "empty" : "holds a newline");
				goto done;
			}
			nlen = (size_t)(nul - nm);
			if (size > rsize - LOAD_FIXED - nlen - 1) {
				lib_seterr(err, EINVAL, "%s: byte %zu: JIT_CODE_LOAD "
				    "code_size %ju; expected at most the record's "
				    "%zu bytes after the name", name, off + 40,
				    (uintmax_t)size, rsize - LOAD_FIXED - nlen - 1);
				goto done;
			}
			if (size == 0)
				break;
			if (past_end(err, name, off + 32, "code_addr", addr, size) == -1)
				goto done;
			if (add(&p, addr, size, nm, nlen) == -1 ||
			    idx_put(&p, cidx, p.n - 1) == -1)
				goto nomem;
			break;
		case JIT_CODE_MOVE:
			if (rsize < MOVE_FIXED) {
				lib_seterr(err, EINVAL, "%s: byte %zu: JIT_CODE_MOVE "
				    "of %u bytes; expected at least %d", name, off,
				    rsize, MOVE_FIXED);
				goto done;
			}
			old = u64(&p, off + 32);
			addr = u64(&p, off + 40);
			size = u64(&p, off + 48);
			cidx = u64(&p, off + 56);
			if ((at = idx_get(&p, cidx)) == -1) {
				lib_seterr(err, EINVAL, "%s: byte %zu: JIT_CODE_MOVE "
				    "of code_index %ju from 0x%jx; expected the index "
				    "of an earlier JIT_CODE_LOAD", name, off + 56,
				    (uintmax_t)cidx, (uintmax_t)old);
				goto done;
			}
			if (size == 0)
				break;
			if (past_end(err, name, off + 40, "new_code_addr", addr, size) == -1)
				goto done;
			nm = p.e[at].name;
			if (add(&p, addr, size, nm, strlen(nm)) == -1)
				goto nomem;
			break;
		default:
			/* Debug and unwinding information, the close marker,
			 * and records of later versions: nothing to name. */
			break;
		}
	}
	ret = 0;
	goto done;
nomem:
	lib_seterr(err, ENOMEM, "%s: byte %zu: out of memory", name, off);
done:
	saved = errno;
	htab_fini(&p.idx);
	*out = p.e;
	*n = p.n;
	errno = saved;
	return ret;
}

int
dcpi_jitdump_read(const char *path, size_t max_bytes,
    struct dcpi_perfmap_entry **out, size_t *n, struct dcpi_error *err)
{
	return lib_map_read(path, max_bytes ? max_bytes : JITDUMP_DEFAULT_MAX,
	    dcpi_jitdump_parse, out, n, err);
}
