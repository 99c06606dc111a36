/*
 * JIT code: samples in anonymous or memfd executable memory (what the
 * attribution calls ATTR_ANON) are kept per process as raw PCs with counts
 * per event, and resolved against perf's symbol map of the process,
 * /tmp/perf-PID.map, at the process's exit and at each flush while the map
 * exists.  Resolved samples go into the aggregation under one pseudo-image
 * per command, path "[jit:COMM]", tstart 0, tsize UINT32_MAX: each JIT
 * symbol gets a range of its own in that offset space, and the flush
 * writes the symbols as DB/buildid/ID/perf-map (perf-map format, offsets
 * as addresses).  PCs in no symbol, or of a process without a map, go to
 * the command's "[anon]" symbol at offset 0.  A process's jitdump
 * (jit-PID.dump, announced by an executable mapping of it) names them too,
 * with the map.  man/dcpi.5 "JIT code".
 */
#ifndef DCPID_JIT_H
#define DCPID_JIT_H

#include <stddef.h>
#include <stdint.h>

struct attr_mmap;
struct image;
struct status_writer;

/*
 * What JIT code may make dcpid hold (dcpid.conf(5) jit-*): any user's
 * process writes its perf map or jitdump.  A name longer than name_max
 * is cut to name_max bytes, its end replaced by "..." and 8 hex digits of
 * a hash of the name as kept while read (a perf map's line up to
 * name_max + 128 bytes): two long names apart there stay apart.  The
 * maps and dumps read for one process, and the symbols of one user (the
 * processes' real uid, or the map's owner where the process was gone
 * before its uid was read) and of all JIT code together (those and the
 * [jit:COMM] images' symbols) are bounded in bytes and in symbols:
 * entries past a bound are dropped (logged once per process, counted in
 * status), and their samples go to [anon].
 */
struct jit_limits {
	size_t		 name_max;		/* bytes of a name, 64 at least */
	size_t		 memory, user_memory, process_memory;	/* bytes */
	size_t		 symbols, user_symbols, process_symbols;
};
/* The defaults, dcpid.conf(5)'s. */
#define JIT_NAME_MAX_DEFAULT		1024
#define JIT_MEMORY_DEFAULT		((size_t)16 << 20)
#define JIT_USER_MEMORY_DEFAULT		((size_t)8 << 20)
#define JIT_PROCESS_MEMORY_DEFAULT	((size_t)4 << 20)
#define JIT_SYMBOLS_DEFAULT		131072
#define JIT_USER_SYMBOLS_DEFAULT	65536
#define JIT_PROCESS_SYMBOLS_DEFAULT	32768

/* jit_init takes the defaults; jit_set_limits new ones (at a reload:
 * what is held over a new bound stays until its process exits). */
void jit_init(void);
void jit_fini(void);
void jit_set_limits(const struct jit_limits *l);

/* One user-mode sample of stream ev (agg.h AGG_STREAM: the event and the
 * label) in anonymous executable memory of pid, in timestamp order with
 * the sideband. */
void jit_sample(uint32_t ev, uint32_t pid, uint64_t pc);
/* Calls cb with the stream of every pending sample (a stream once or
 * more): the labels they hold must outlive an epoch's end. */
void jit_streams(void (*cb)(uint32_t stream, void *arg), void *arg);
/* A call chain's frame at pc in anonymous executable memory of pid, named
 * as its flat samples are ([jit:COMM] and the symbol's offset in it) by
 * the perf map or jitdump last read for pid (at a flush), read again here
 * when it names no entry there, 5 s apart at most per process (a map that
 * has not changed is only stat'ed).  0 with *img (jit.c's, valid until
 * jit_fini) and *off; -1 when pid has no JIT samples yet, no map, or no
 * entry of it covers pc. */
int jit_frame(uint32_t pid, uint64_t pc, struct image **img, uint32_t *off);
/* The processes jit.c knows (jit_sample, jit_unnamed) and has not
 * forgotten yet, each given to cb once; cb must not call jit_exit or
 * jit_flush. */
void jit_each_pid(void (*cb)(uint32_t pid, void *arg), void *arg);
/* A call chain's frame of pid in anonymous executable memory that
 * jit_frame could not name (pid is then known, as by jit_sample). */
void jit_unnamed(uint32_t pid);
/* Whether pid's unnamed frames should be named again now: if a frame of
 * pid went unnamed since the last call, reads pid's perf map or jitdump
 * again if it changed (jit_frame's wait of 5 s left out) and returns 1
 * when pid has one; else 0.  Before the chains of pid are named again,
 * at its exit (the JVM's -XX:+DumpPerfMapAtExit writes the map then) or
 * at a flush (a map written on request). */
int jit_name_again(uint32_t pid);
/* Whether path's last component is a jitdump's name, jit-<digits>.dump:
 * its mapping announces the file and is not code (no image to read). */
int jit_is_dump(const char *path);
/* An MMAP2 record, in timestamp order: when it maps a jitdump executable,
 * remembers the path for m->pid (read with its perf map from then on,
 * through the process's root) and returns 1; the caller then treats the
 * mapping as data.  Else 0, at the cost of a name compare. */
int jit_mmap(const struct attr_mmap *m);
/* The EXIT of pid's main thread as it arrives, ahead of its turn in time
 * order: pid's perf map and jitdump are read now if pid has JIT samples
 * or unnamed frames, so that a map deleted soon after the exit still
 * names them at jit_exit. */
void jit_exit_arrival(uint32_t pid);
/* EXIT of tid of pid (only pid == tid counts), or an exec of pid (tid ==
 * pid): resolves pid's pending samples against its map and forgets it.
 * Its process hooks (daemon/proc.h) call it before the attribution forgets
 * the process. */
void jit_exit(uint32_t pid, uint32_t tid);
/* Called by core_flush_run before the profiles are written: resolves the
 * pending samples of live processes whose map or jitdump exists (re-read
 * when it changed; PCs a dump does not name yet stay pending), and writes the perf-map of every pseudo-image whose symbols
 * grew.  Errors are logged; a perf-map not written is retried. */
void jit_flush(void);
/* Makes the next jit_flush resolve every pending sample, [anon] where no
 * map is there yet: over the memory cap and at the final flush. */
void jit_release(void);

/* After a flush that left no count or chain in memory: frees the symbols
 * of every [jit:COMM] image that no live process uses and whose perf-map
 * is written (the next process of that command and user starts another
 * image), and marks the others' images used (attr_image_used) so that
 * attr_reclaim keeps them. */
void jit_reclaim(void);

/* Bytes held (pending samples, maps read, pseudo-images' symbols); the
 * pending samples' part alone (the counts' memory cap counts it, not the
 * symbols, which have bounds of their own); distinct pending (event, PC)
 * pairs. */
size_t jit_memory(void);
size_t jit_count_memory(void);
size_t jit_pending(void);
void jit_status(struct status_writer *w);

#endif
