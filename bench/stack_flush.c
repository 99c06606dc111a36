/*
 * The memory and time of dcpid's stack-file flush (bench/README, "Call
 * chains"): DIR/stacks merged with one new stack and replaced, as
 * daemon/flush.c's write_stacks does it, then the process's peak RSS
 * (VmHWM) and the wall time.  --old runs the flush as it was before the
 * file was mapped and streamed (whole file read into the heap, parsed,
 * merged, encoded into a buffer, written) for comparison.
 *
 *   stack_flush [--old] DIR
 *
 * DIR/stacks is rewritten: run it on a copy.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dcpi/file.h>
#include <dcpi/stackfile.h>

#include "proc_status.h"

int
main(int argc, char **argv)
{
	struct dcpi_stack_addframe f = { "abcd", 0x1000, 100, "/bench/stack_flush", 5 };
	struct dcpi_stackfile *disk = NULL, *sf;
	struct dcpi_error err;
	struct timespec t0, t1;
	int old = argc == 3 && strcmp(argv[1], "--old") == 0, dfd;
	long rss0;
	void *buf;
	size_t len;

	if (argc != 2 + old) {
		fprintf(stderr, "usage: stack_flush [--old] DIR\n");
		return 2;
	}
	if ((dfd = open(argv[1 + old], O_RDONLY | O_DIRECTORY)) < 0) {
		perror(argv[1 + old]);
		return 1;
	}
	rss0 = status_kb("VmRSS:");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (old) {
		if (dcpi_read_fileat(dfd, DCPI_STACKS_FILE, NULL, SIZE_MAX, &buf, &len,
		    &err) == -1 || dcpi_stackfile_parse(buf, len, "stacks", &disk, &err) == -1)
			goto fail;
		free(buf);
	} else if (dcpi_stackfile_readat(dfd, DCPI_STACKS_FILE, NULL, &disk, &err) == -1)
		goto fail;
	if ((sf = dcpi_stackfile_new(disk->epoch, disk->host)) == NULL ||
	    dcpi_stackfile_add(sf, "perf::cpu-clock", NULL, &f, 1, 1, &err) == -1 ||
	    dcpi_stackfile_merge(disk, sf, &err) == -1)
		goto fail;
	if (old) {
		if (dcpi_stackfile_encode(disk, &buf, &len, &err) == -1 ||
		    dcpi_atomic_writeat(dfd, DCPI_STACKS_FILE, NULL, buf, len, 0644,
		    &err) == -1)
			goto fail;
		free(buf);
	} else if (dcpi_stackfile_writeat(dfd, DCPI_STACKS_FILE, NULL, disk, 0644,
	    &err) == -1)
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s: %zu frames, %zu stacks; RSS before %ld kB, peak %ld kB; %.2f s\n",
	    old ? "old" : "new", disk->n_frames, disk->n_stacks, rss0,
	    status_kb("VmHWM:"), (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	dcpi_stackfile_free(disk);
	dcpi_stackfile_free(sf);
	return 0;
fail:
	fprintf(stderr, "stack_flush: %s\n", err.msg);
	return 1;
}
