/*
 * Symbol tables per (path, image id, tstart), opened once; a failure is
 * warned about once and remembered.
 */
#ifndef DCPICTL_SYMCACHE_H
#define DCPICTL_SYMCACHE_H

#include <dcpi/dataset.h>
#include <dcpi/symbol.h>

struct symcache;
struct symcache *symcache_new(void);
void symcache_free(struct symcache *);
/* Nonzero: no warnings about images that cannot be symbolized (list
 * searches every image for one procedure). */
void symcache_quiet(struct symcache *, int quiet);
/* The table for a dataset image, or NULL; *stale is set when samples must
 * show as NAME+0xOFFSET (file changed or gone), else they go to [unknown]. */
struct dcpi_symtab *symcache_get(struct symcache *, const struct dcpi_dataset_image *,
    int *stale);

/* A dataset image's symbol table, opened as symcache_get opens it (the
 * database's build-id cache, the image's other paths), outside the cache:
 * the caller closes it.  NULL with errno and err as dcpi_symtab_open's. */
struct dcpi_symtab *symcache_open(const struct dcpi_dataset_image *im,
    struct dcpi_error *err);

/* Display name of an image: basename of its path. */
const char *image_name(const struct dcpi_profile *p);

#endif
