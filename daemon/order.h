/*
 * Orders the records of all CPUs' ring buffers by timestamp, as perf's
 * ordered events do, so that a sample is attributed with the address-space
 * model in force when it was taken even when the mmap, fork or exit that
 * changed it was recorded on another CPU.  Records are queued as they are
 * read and handed out only up to a safe timestamp: one before which no CPU
 * can still publish a record.
 */
#ifndef DCPID_ORDER_H
#define DCPID_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* Handler for one record, called in timestamp order (ties in queue order).
 * rec points to a private, 8-byte aligned copy of size bytes, valid until
 * the handler returns; the handler must not call order_push. */
typedef void (*order_cb)(const void *rec, size_t size, uint64_t time, void *arg);

void order_init(void);
void order_fini(void);
/* Queues a copy of the record rec[0..size) taken at time (perf clock, ns). */
void order_push(const void *rec, size_t size, uint64_t time);
/* Hands every queued record with time <= safe to cb, oldest first, and
 * drops it; later ones stay queued.  Returns the number handed out.
 * Cheap to call once per timestamp: the queue is sorted only after a
 * push, and compacted once half of it has been handed out. */
size_t order_process(uint64_t safe, order_cb cb, void *arg);
/* The same, and ahead(rec, size, arg) sees each of those records (in the
 * same order, rec the same pointer cb then gets) dist records before cb
 * does: for work that can start early, such as a prefetch, so that a cache
 * miss is paid while the records before are handled.  ahead must not call
 * order_push either. */
typedef void (*order_ahead_cb)(const void *rec, size_t size, void *arg);
size_t order_process_ahead(uint64_t safe, order_cb cb, order_ahead_cb ahead,
    size_t dist, void *arg);
/* The time of the oldest queued record in *time: 0, or -1 if none is
 * queued.  (core.c reads the sampling buffers in place up to it.) */
int order_next(uint64_t *time);
/* Records queued and bytes held, for status and tests. */
size_t order_queued(void);
size_t order_memory(void);

#endif
