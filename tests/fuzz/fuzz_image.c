// fuzz-sources: daemon/imagetab.c daemon/cache.c daemon/fsio.c daemon/procstatus.c lib/image.c lib/internal.c lib/error.c lib/log.c lib/xmalloc.c lib/db.c lib/file.c lib/profile.c lib/util.c lib/htab.c lib/pack.c
// fuzz-libs: -lelf -ldw -lz -lpthread
/*
 * dcpid reads the ELF of whatever a process maps executable, which any
 * user can point at a file of their making: the image reader and the
 * build-id note parser on arbitrary bytes.  What they accept must make
 * sense: a build-id of at most 20 bytes within the input, an image with
 * executable segments, a text range that fits the 32-bit offsets, and the
 * same id when read twice.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/imagetab.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

struct status_writer;
void status_add(struct status_writer *w, const char *key, const char *fmt, ...);

/* daemon/control.c's, which cache.c's and fsio.c's status lines call: no
 * status is asked for here. */
void
status_add(struct status_writer *w, const char *key, const char *fmt, ...)
{
	(void)w;
	(void)key;
	(void)fmt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t bid[BUILD_ID_MAX];
	size_t n;
	struct img *im, *again;
	char *id;

	n = image_note_build_id(data, size, bid);
	CHECK(n <= BUILD_ID_MAX && n <= size);
	if (n > 0)
		CHECK(memmem(data, size, bid, n) != NULL);

	image_init();
	if ((im = image_from_memory(data, size, "[fuzz]")) != NULL) {
		CHECK(im->nsegs >= 1 && im->segs != NULL);
		CHECK(im->pub.tsize <= UINT32_MAX);
		CHECK(im->pub.tstart == im->segs[0].vaddr);
		CHECK(im->pub.id[0] != '\0');
		CHECK(strcmp(im->pub.path, "[fuzz]") == 0);
		CHECK(image_count() == 1 && image_at(0) == im);
		id = strdup(im->pub.id);
		CHECK(id != NULL);
		image_fini();
		image_init();
		again = image_from_memory(data, size, "[fuzz]");
		CHECK(again != NULL && strcmp(again->pub.id, id) == 0);
		free(id);
	}
	image_fini();
	return 0;
}
