/*
 * Aggregation: sparse sample counts per (stream, image) keyed by the
 * image-relative offset, in memory proportional to the distinct PCs seen
 * since the last flush.
 */
#ifndef DCPID_AGG_H
#define DCPID_AGG_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/profile.h>

/*
 * The first key is a stream: an event index (daemon/perf.h)
 * and a label number (daemon/labeler.h), so that the samples of one image
 * for different owners (and the idle task's) keep apart without another
 * dimension (dcpi(5) "Labels").  Label-major, so that the per-stream array
 * grows with the labels in use, not with the largest one times events.
 */
#define AGG_MAX_EVENTS		16	/* lib/conf.h CONF_MAX_EVENTS */
#define AGG_LABEL_NONE		0	/* daemon/labeler.h LABEL_NONE */
#define AGG_LABEL_IDLE		1	/* LABEL_IDLE */
#define AGG_STREAM(ev, label)	((uint32_t)(label) * AGG_MAX_EVENTS + (uint32_t)(ev))
#define AGG_STREAM_EVENT(s)	((s) % AGG_MAX_EVENTS)
#define AGG_STREAM_LABEL(s)	((s) / AGG_MAX_EVENTS)

void agg_init(void);
void agg_fini(void);
/* One sample of stream at image's offset.  Counts saturate at UINT32_MAX.
 * Returns 1 when it is the first of (stream, image) since its counts were
 * last written, else 0.  The count itself may be made a few calls later
 * (its table's line prefetched meanwhile); every other function here
 * counts those pending first, so none sees the difference. */
int agg_add(uint32_t stream, uint32_t image, uint32_t offset);
/* n samples at once (the kernel's aggregated counts, daemon/bpfagg.h). */
int agg_add_n(uint32_t stream, uint32_t image, uint32_t offset, uint32_t n);
/* Calls cb for every (stream, image) holding samples with its counts sorted
 * by offset (c[0..n), owned by agg and valid during the call).  When cb
 * returns 0 the table is emptied (its counts are on disk); otherwise it is
 * kept for the next flush. */
typedef int (*agg_cb)(uint32_t stream, uint32_t image, const struct dcpi_count *c,
    size_t n, void *arg);
void agg_flush(agg_cb cb, void *arg);
/* Bytes held by the tables; distinct (stream, image, offset) triples. */
size_t agg_memory(void);
size_t agg_entries(void);
/* Whether any stream holds counts of image (its index): 1 or 0. */
int agg_image_counted(uint32_t image);

#endif
