// fuzz-sources: daemon/record.c
/*
 * The perf records dcpid reads from the ring buffers, on arbitrary bytes:
 * the first byte picks a sample format (with or without call chains,
 * cgroup ids and sample_id_all), the rest is one record, in a buffer of
 * exactly its size so that the sanitizer sees any read past it.  A record
 * that record_check takes is decoded by every reader without reading past
 * it; a call chain found lies inside it; a string is NUL-terminated within
 * the buffer given; the times agree.
 */
#include "config.h"

#include <linux/perf_event.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/record.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record_format f;
	struct record_sample s;
	const union record *r;
	const uint64_t *chain;
	struct record_user_stack u;
	uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU, nr = 0, t;
	char str[64];
	const char *p;
	void *buf;
	int pick;

	if (size < 1)
		return 0;
	pick = data[0];
	if (pick & 1)
		type |= PERF_SAMPLE_CALLCHAIN;
	if (pick & 2)
		type |= PERF_SAMPLE_CGROUP;
	/* The dwarf route's fields: BP, SP and IP, or (a mask's edge) none. */
	if (pick & 8)
		type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	CHECK(record_format_init_regs(&f, type, (pick & 4) != 0,
	    pick & 16 ? 0 : 7ull << 6) == 0);
	size--;
	/* Aligned as the ring buffer's records are, and exactly size. */
	if ((buf = aligned_alloc(8, (size + 7) & ~(size_t)7)) == NULL)
		return 0;
	memcpy(buf, data + 1, size);
	r = buf;
	/* (Records are at least their header: the readers are given no less.) */
	if (record_check(&f, r, size) == 0) {
		CHECK(size >= sizeof(r->header));
		if (record_parse_sample(&f, r, size, &s) == 0) {
			t = record_time(&f, r, size);
			CHECK(t == s.time);
		}
		if (r->header.type == PERF_RECORD_SAMPLE &&
		    (chain = record_callchain(&f, r, size, &nr)) != NULL) {
			CHECK((const unsigned char *)(chain + nr) <=
			    (const unsigned char *)buf + size);
			if (nr > 0)
				(void)*(volatile const uint64_t *)&chain[nr - 1];
		}
		if (r->header.type == PERF_RECORD_SAMPLE &&
		    record_user_stack(&f, r, size, &u) == 0) {
			if (u.regs != NULL)
				CHECK((const unsigned char *)(u.regs + u.nregs) <=
				    (const unsigned char *)buf + size);
			if (u.stack != NULL) {
				CHECK(u.stack + u.size <= (const unsigned char *)buf + size);
				if (u.size > 0)
					(void)*(volatile const unsigned char *)&u.stack[u.size - 1];
			}
		} else if (r->header.type == PERF_RECORD_SAMPLE)
			CHECK(!f.regs_user && !f.stack_user);
		if (r->header.type == PERF_RECORD_COMM || r->header.type == PERF_RECORD_MMAP2 ||
		    r->header.type == PERF_RECORD_CGROUP) {
			p = record_string(&f, r, size, str, sizeof(str));
			CHECK(p != NULL && memchr(p, '\0', sizeof(str)) != NULL);
		}
	} else if (size >= sizeof(r->header))
		/* The ring buffer's reader stamps every record whole enough
		 * for its header, checked or not (perf_ring.c's time_of). */
		(void)record_time(&f, r, size);
	free(buf);
	return 0;
}
