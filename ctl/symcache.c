/*
 * Symbol table cache of the analysis commands: ctl/symcache.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symcache.h"
#include "xmalloc.h"

const char *
image_name(const struct dcpi_profile *p)
{
	const char *s;

	if (p->path == NULL)
		return "unknown";
	s = strrchr(p->path, '/');
	return s != NULL && s[1] != '\0' ? s + 1 : p->path;
}

/* Symbol table cache: a short list searched linearly per dataset image
 * would be quadratic over 1,000 images, so it is a sorted array. */
struct symentry {
	char		*key;
	struct dcpi_symtab *t;
	int		 stale;
};
struct symcache {
	struct symentry	*e;
	size_t		 n, cap;
	int		 quiet;
};

void
symcache_quiet(struct symcache *c, int quiet)
{
	c->quiet = quiet;
}

struct symcache *
symcache_new(void)
{
	return xcalloc(1, sizeof(struct symcache));
}

void
symcache_free(struct symcache *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->e[i].key);
		dcpi_symtab_close(c->e[i].t);
	}
	free(c->e);
	free(c);
}

struct dcpi_symtab *
symcache_open(const struct dcpi_dataset_image *im, struct dcpi_error *err)
{
	const struct dcpi_profile *p = im->prof;
	struct dcpi_symtab_opts o;
	struct dcpi_symtab *t;
	char *dbdir, *slash;
	int r, e;

	memset(&o, 0, sizeof(o));
	o.kallsyms = im->kallsyms;
	/* The dataset names the image's database through its epoch's
	 * kallsyms, DB/EPOCH/HOST/kallsyms: its build-id cache is there. */
	dbdir = xstrdup(im->kallsyms ? im->kallsyms : "");
	for (r = 0; r < 3 && (slash = strrchr(dbdir, '/')) != NULL; r++)
		*slash = '\0';
	o.db = r == 3 && dbdir[0] != '\0' ? dbdir : NULL;
	/* An image seen at several paths (chroots, epochs) is symbolized
	 * through whichever still holds it. */
	o.paths = (const char *const *)im->paths;
	o.n_paths = im->n_paths;
	t = dcpi_symtab_open(p->path, p->image, p->tstart, &o, err);
	e = errno;
	free(dbdir);
	errno = e;
	return t;
}

struct dcpi_symtab *
symcache_get(struct symcache *c, const struct dcpi_dataset_image *im, int *stale)
{
	const struct dcpi_profile *p = im->prof;
	struct dcpi_error err;
	size_t lo = 0, hi = c->n, mid;
	char *key;
	int r;

	xasprintf(&key, "%s\t%s\t%llx\t%s", p->path ? p->path : "", p->image ? p->image : "",
	    (unsigned long long)p->tstart, p->path && p->path[0] == '[' ? im->kallsyms : "");
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if ((r = strcmp(c->e[mid].key, key)) == 0) {
			free(key);
			*stale = c->e[mid].stale;
			return c->e[mid].t;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->e = xreallocarray(c->e, c->cap, sizeof(*c->e));
	}
	memmove(&c->e[lo + 1], &c->e[lo], (c->n - lo) * sizeof(*c->e));
	c->n++;
	c->e[lo].key = key;
	c->e[lo].stale = 0;
	if (p->path == NULL)
		c->e[lo].t = NULL;
	else if ((c->e[lo].t = symcache_open(im, &err)) == NULL) {
		if (errno == ESTALE || errno == ENOENT) {
			c->e[lo].stale = 1;
			if (!c->quiet)
				fprintf(stderr, "dcpictl: warning: %s; its samples show as "
				    "%s+0xOFFSET\n", err.msg, image_name(p));
		} else if (errno != ENODATA && !c->quiet)
			fprintf(stderr, "dcpictl: warning: %s\n", err.msg);
	}
	*stale = c->e[lo].stale;
	return c->e[lo].t;
}
