/*
 * The images' unwind tables (daemon/unwind_table.h) for the walks of user
 * stacks (daemon/unwind.h): an image's table is built from its file the
 * first time a walk meets one of its PCs, kept under the image's id (so
 * every process that maps the image shares it, and an image freed and met
 * again finds it), within a memory bound past which the tables used least
 * recently are dropped, to be built again if met again.  An image whose
 * table cannot be built is remembered with why: for good when its file
 * has no usable CFI, for a second when the file could not be opened (a
 * process that exited, a file system that did not answer).
 */
#ifndef DCPID_UNWIND_CACHE_H
#define DCPID_UNWIND_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct image;
struct status_writer;
struct unwind_table;

/* Tables of max bytes at most (their rows: unwind_table_memory); a table
 * larger than max alone is not kept. */
void unwind_cache_init(size_t max);
void unwind_cache_fini(void);
/* A new bound: tables over it are dropped at once. */
void unwind_cache_set_limit(size_t max);

/* The table of img, whose mapping at pc in pid holds pc (attr_sample said
 * so), built now from the file that mapping maps (attr_open_mapped; the
 * vdso from dcpid's own, the same kernel's) if it is not held; NULL where
 * img has none (no CFI, its file unreadable, over the bound).  The table
 * lives until the next unwind_cache_* call that builds or drops one: a
 * walk uses it and forgets it. */
const struct unwind_table *unwind_cache_table(const struct image *img,
    uint32_t pid, uint64_t pc);
/* 1 if unwind_cache_table would build img's table now (it has none, and
 * no failure to build one is remembered), else 0: a caller that cannot
 * afford the build's time where it is (tens to hundreds of ms for a large
 * image) does it later. */
int unwind_cache_would_build(const struct image *img);

/* Tables held and their bytes, for the memory status. */
size_t unwind_cache_tables(void);
size_t unwind_cache_memory(void);

/* STATUS: tables held, bytes of the bound, built (and the time it took),
 * dropped, and the images without one by reason. */
void unwind_cache_status(struct status_writer *w);

#endif
