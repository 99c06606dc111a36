/*
 * Attribution: maps a sample's (pid, PC) to (image, image-relative offset).
 * Keeps a model of every process's address space built from a /proc scan
 * and the perf sideband records (MMAP2, COMM, FORK, EXIT), which the core
 * feeds in timestamp order.  Images (ELF objects, the kernel, modules, the
 * vdso) are identified by GNU build-id, else by a stable hash.
 * Implemented in daemon/attr.c (address spaces), daemon/imagetab.c (images)
 * and daemon/kernel.c (the kernel, modules and the vdso); struct image and
 * the reasons are daemon/imagetab.h's.
 */
#ifndef DCPID_ATTR_H
#define DCPID_ATTR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "imagetab.h"

const char *attr_reason_name(enum attr_reason r);	/* "anon", "unknown-pid", ... */

int attr_init(void);
void attr_fini(void);
/* Reads /proc/PID/maps (and comm) of every process.  Called after the
 * perf fds are enabled so nothing falls between the scan and the records.
 * yield, if not NULL, is called after each process: a host of thousands
 * of processes takes a second or more to scan, in which the ring buffers
 * fill (daemon/perf.h perf_hold, a few loads a buffer when they are
 * empty, against the tens of microseconds of a process's maps). */
void attr_scan_proc(void (*yield)(void));

/* The PERF_RECORD_MMAP2 fields that matter; filename is NUL-terminated. */
struct attr_mmap {
	uint32_t	 pid, tid;
	uint64_t	 start, len, pgoff;
	uint32_t	 prot, flags;
	int		 has_build_id;	/* PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t		 build_id_size;
	uint8_t		 build_id[20];
	uint32_t	 maj, min;
	uint64_t	 ino, ino_generation;
	const char	*filename;
};
void attr_mmap(const struct attr_mmap *m);
/* The same record at its arrival, before the ordering: reads the mapped
 * file while the process surely lives (a program in a chroot or another
 * mount namespace that runs for a millisecond is gone by the time its
 * samples are attributed), unless its build-id names a known image. */
void attr_prefetch(const struct attr_mmap *m);
/* The file of the image sampled at pc in pid, held until the next flush
 * (once per image and flush interval; nothing for kernel and pseudo
 * images, or when the mapping cannot be opened). */
void attr_hold(uint32_t pid, uint64_t pc);
/* At each flush: hands the files of sampled images that are no longer at
 * their recorded path to the build-id cache, and closes the held files
 * (daemon/imagetab.h image_release). */
void attr_release_images(void);
/* The file of img, mapped at pc in pid, opened afresh through the
 * mapping (/proc/PID/map_files: the file the process maps, in its mount
 * namespace, even deleted) and checked to be img's: the fd (the caller's
 * to close), or -1 (no such mapping of img, or it cannot be opened). */
int attr_open_mapped(uint32_t pid, uint64_t pc, const struct image *img);
/* The file of img, which has a build-id, when no process need map it: at
 * its recorded path if the file there has that build-id, else the
 * build-id cache's copy (*cached set; of its symbols and call-frame
 * information only, when it was large).  The fd (the caller's to close),
 * or -1. */
int attr_open_file(const struct image *img, int *cached);
/* Images read at arrival, for status. */
uint64_t attr_prefetched(void);
void attr_comm(uint32_t pid, uint32_t tid, const char *comm, int exec);
/* The command of pid (its main thread's comm, from COMM records and the
 * /proc scan), valid until the next record; NULL when unknown. */
const char *attr_proc_comm(uint32_t pid);
void attr_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);
void attr_exit(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);

/* Attributes one sample.  cpumode is header.misc & PERF_RECORD_MISC_CPUMODE_MASK.
 * On ATTR_OK sets *img and *offset (pc's ELF vaddr - img->tstart). */
enum attr_reason attr_sample(uint32_t pid, uint64_t pc, uint16_t cpumode,
    struct image **img, uint32_t *offset);

/* Attributes a count the kernel keyed by file (dev in the kernel's
 * encoding, MAJOR << 20 | MINOR; ino) and file offset foff
 * (daemon/bpfagg_key.h): ATTR_OK with *img and *offset as attr_sample;
 * ATTR_NO_MAP when the file is not known yet (attr_file_learn_at). */
enum attr_reason attr_file_sample(uint64_t dev, uint64_t ino, uint64_t foff,
    struct image **img, uint32_t *offset);
/* Learns file (dev, ino) from the mapping at pc of pid, checked to be that
 * file: ATTR_OK, or why not (ATTR_ANON: the attribution takes the mapping
 * as anonymous, whose samples must take the ring-buffer path). */
enum attr_reason attr_file_learn_at(uint64_t dev, uint64_t ino, uint32_t pid,
    uint64_t pc);

/* A file (dev, ino) whose image was learnt since the last call (at most
 * the last 64): 0, or -1 when there is none. */
int attr_file_learnt(uint64_t *dev, uint64_t *ino);

/* Images held, and the bound of their indexes; attr_image(index) is NULL
 * for an index no image has now. */
size_t attr_nimages(void);
size_t attr_image_slots(void);
struct image *attr_image(uint32_t index);
/* Says that the image at index had counts or chains written by this flush:
 * used, as if a mapping held it, at the next attr_reclaim. */
void attr_image_used(uint32_t index);
/* Frees what no process, count or chain holds any more (attr.c's comment
 * above it says what and when): called after a flush that wrote every
 * count and chain, never while any is held.  forget (or NULL) is told each
 * file (dev, ino) to be dropped from the table attr_file_sample reads;
 * then drain (or NULL) is called, which may count samples of those files
 * through attr_file_sample; an image to be freed for which counted(index)
 * then says 1 is kept.  Returns the number of images freed. */
size_t attr_reclaim(void (*forget)(uint64_t dev, uint64_t ino), void (*drain)(void),
    int (*counted)(uint32_t index));
/* Processes modelled and bytes of memory held (the process table's,
 * daemon/proc.h, included), for status. */
size_t attr_nprocs(void);
size_t attr_memory(void);
/* STATUS: images (held), images-freed (by attr_reclaim since the start),
 * images-read-live (attr_prefetched). */
struct status_writer;
void attr_status(struct status_writer *w);

#endif
