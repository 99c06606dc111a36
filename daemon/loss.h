/*
 * What the profile lacks, counted for STATUS and the unattributed file:
 * records the kernel could not write (LOST, LOST_SAMPLES: samples, or the
 * sideband's records, whose loss costs attribution rather than counts),
 * throttling, by CPU and when last; samples of no known event; samples
 * that could not be attributed, by event and reason, until a flush
 * stores them.
 */
#ifndef DCPID_LOSS_H
#define DCPID_LOSS_H

#include <stddef.h>
#include <stdint.h>

#include "attr.h"

union record;
struct status_writer;

/* Frees what the counts by CPU and event hold, and zeroes the counts of
 * losses and throttling (those of unknown and unattributed samples stay
 * for the life of dcpid). */
void loss_fini(void);

/* A LOST or LOST_SAMPLES record of size bytes (record_check'ed), n
 * records lost; placed by its sample_id trailer. */
void loss_lost(const union record *rec, size_t size, uint64_t n);
/* A THROTTLE record; an UNTHROTTLE record. */
void loss_throttle(const union record *rec, size_t size);
void loss_unthrottle(void);
/* n samples of an event id (or a BPF key's event index) no event has. */
void loss_unknown_event(uint64_t n);

/* A sample of event index ev left unattributed for reason r. */
void loss_unattr(uint32_t ev, enum attr_reason r);
/* Those of ev for r since the last loss_unattr_written (the flush's
 * unattributed file); loss_unattr_written zeroes them once written. */
uint64_t loss_unattr_pending(size_t ev, enum attr_reason r);
void loss_unattr_written(void);

/* STATUS: lost, lost-sideband, sideband-watch, throttled, then the last
 * loss and throttling and the CPUs that had some (loss_status);
 * unattributed by reason and unknown-event (loss_unattr_status). */
void loss_status(struct status_writer *w);
void loss_unattr_status(struct status_writer *w);

#endif
