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

/*
 * Tables whose rows live in memory another holds (the kernel walk's
 * array, daemon/bpfagg.h), so that a table is held once, not twice:
 * img's table (unwind_cache_table returned it) has its rows moved to dst
 * (unwind_table_move_rows), where dcpid's walks read them too; it then
 * counts toward the bound for itself alone, and is not dropped for room
 * here (the array makes its own).  0; -1 if img holds no table, or its
 * rows are moved already.
 */
struct unwind_row;
int unwind_cache_move_rows(const struct image *img, struct unwind_row *dst);
/* The rows of t, moved, are going away (their place reused): t takes
 * them back into memory of its own, within the bound (the tables used
 * least recently dropped for room), or is dropped, to be built again if
 * met again. */
void unwind_cache_rows_gone(const struct unwind_table *t);
/* fn(t) is called before the cache frees a table whose rows it moved
 * other than by unwind_cache_rows_gone (unwind_cache_fini), for the
 * rows' owner to forget t. */
void unwind_cache_set_moved_hook(void (*fn)(const struct unwind_table *t));
/* Bytes of the bound that tables hold elsewhere (the kernel walk's
 * maps): the tables here get the bound less them. */
void unwind_cache_set_reserved(size_t reserved);
/* The bound (unwind_cache_init, _set_limit), tables whose rows are moved,
 * and tables dropped for room, for the memory status. */
size_t unwind_cache_limit(void);
size_t unwind_cache_moved(void);
uint64_t unwind_cache_dropped(void);

/* Tables held and their bytes, for the memory status. */
size_t unwind_cache_tables(void);
size_t unwind_cache_memory(void);

/* STATUS: tables held, bytes of the bound, built (and the time it took),
 * dropped, and the images without one by reason. */
void unwind_cache_status(struct status_writer *w);

#endif
