/*
 * Call chains (issue 15): the stacks of the samples since the last flush,
 * counted per (stream, process, chain as the kernel gave it).  A chain
 * seen again in the same process is counted without being attributed
 * again, which is what keeps a sample with a deep chain cheap; a new one
 * is attributed by the caller, frame by frame, in time order (the maps of
 * that moment), and stored with its frames.  The flush names the frames
 * (images, offsets) and writes them to the epoch's stack file.
 */
#ifndef DCPID_STACK_H
#define DCPID_STACK_H

#include <stddef.h>
#include <stdint.h>

#define STACK_NOIMAGE	UINT32_MAX	/* a frame that could not be attributed */

struct stack_frame {
	uint32_t	 image;		/* attr's image index, or STACK_NOIMAGE */
	uint32_t	 offset;	/* from the image's tstart; 0 without image */
};

void stack_init(void);
void stack_fini(void);

/* Counts one more sample of stream in pid with the raw chain ips[0..nr)
 * if that chain was met since the last flush: 1; else 0 and nothing
 * counted (the caller attributes it and calls stack_add). */
int stack_count(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t nr);
/* A new chain's first sample, with its attributed frames f[0..depth)
 * (leaf first; depth >= 1). */
void stack_add(uint32_t stream, uint32_t pid, const uint64_t *ips, uint32_t nr,
    const struct stack_frame *f, uint32_t depth);

/* Calls cb for every chain counted (frames f[0..depth), owned by stack.c,
 * valid during the call); a nonzero return stops the walk and is
 * returned.  stack_clear forgets them all, once the stack file holding
 * them is written (a failed write keeps them for the next flush). */
typedef int (*stack_cb)(uint32_t stream, const struct stack_frame *f,
    uint32_t depth, uint64_t count, void *arg);
int stack_each(stack_cb cb, void *arg);
void stack_clear(void);

/* Bytes held; chains held. */
size_t stack_memory(void);
size_t stack_entries(void);

#endif
