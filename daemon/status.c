/*
 * STATUS (daemon/status.h): each module's lines, in a fixed order.
 */
#include "config.h"

#include <stdint.h>

#include "agg.h"
#include "attr.h"
#include "bpfagg.h"
#include "cache.h"
#include "callchain.h"
#include "control.h"
#include "core.h"
#include "flush.h"
#include "fsio.h"
#include "jit.h"
#include "labeler.h"
#include "loss.h"
#include "order.h"
#include "perf.h"
#include "stack.h"
#include "unwind_cache.h"
#include "status.h"

/* What the modules hold, against the memory cap (core_over_cap). */
static void
memory_status(struct status_writer *w)
{
	struct label_stats ls;

	label_stats(&ls);
	status_add(w, "memory", "%zu", agg_memory() + attr_memory() + order_memory() +
	    jit_memory() + ls.memory + stack_memory() + unwind_cache_memory());
	status_add(w, "memory-counts", "%zu", agg_memory());
	status_add(w, "memory-attribution", "%zu", attr_memory());
	status_add(w, "memory-labels", "%zu", ls.memory);
	status_add(w, "memory-stacks", "%zu", stack_memory());
	status_add(w, "memory-unwind-tables", "%zu", unwind_cache_memory());
	status_add(w, "memory-ringbuffers", "%zu", perf_memory());
}

void
status_report(struct status_writer *w)
{
	status_add(w, "samples", "%ju", (uintmax_t)core_samples());
	status_add(w, "samples/s", "%.1f", core_rate());
	loss_status(w);
	fsio_status(w);
	loss_unattr_status(w);
	perf_events_status(w);
	bpfagg_status(w);
	perf_cpus_status(w);
	attr_status(w);
	cache_status(w);
	status_add(w, "processes", "%zu", attr_nprocs());
	label_status(w);
	callchain_status(w);
	memory_status(w);
	jit_status(w);
	flush_status(w);
}
