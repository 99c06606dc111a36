/*
 * Aggregation: sparse sample counts per (event, image) keyed by the
 * image-relative offset, in memory proportional to the distinct PCs seen
 * since the last flush.
 */
#ifndef DCPID_AGG_H
#define DCPID_AGG_H

#include <stddef.h>
#include <stdint.h>

#include <dcpi/profile.h>

/*
 * The first key, "event" below, is a stream: an event index (daemon/perf.h)
 * and a label, so that the idle task's samples of the kernel keep apart
 * from the others' without another dimension (dcpi(5) "LABELS").
 */
#define AGG_LABEL_NONE		0
#define AGG_LABEL_IDLE		1	/* dcpi/label.h DCPI_LABEL_IDLE */
#define AGG_NLABELS		2
#define AGG_STREAM(ev, label)	((uint32_t)(ev) * AGG_NLABELS + (label))
#define AGG_STREAM_EVENT(s)	((s) / AGG_NLABELS)
#define AGG_STREAM_LABEL(s)	((s) % AGG_NLABELS)

void agg_init(void);
void agg_fini(void);
/* One sample of event at image's offset.  Counts saturate at UINT32_MAX.
 * Returns 1 when it is the first of (event, image) since its counts were
 * last written, else 0. */
int agg_add(uint32_t event, uint32_t image, uint32_t offset);
/* Calls cb for every (event, image) holding samples with its counts sorted
 * by offset (c[0..n), owned by agg and valid during the call).  When cb
 * returns 0 the table is emptied (its counts are on disk); otherwise it is
 * kept for the next flush. */
typedef int (*agg_cb)(uint32_t event, uint32_t image, const struct dcpi_count *c,
    size_t n, void *arg);
void agg_flush(agg_cb cb, void *arg);
/* Bytes held by the tables; distinct (event, image, offset) triples. */
size_t agg_memory(void);
size_t agg_entries(void);

#endif
