/*
 * The real program of the AutoFDO cycle (test_afdo_cycle.sh,
 * bench/afdo.sh): stb_image's JPEG decoder (Debian's libstb-dev, one
 * header nobody here wrote) decoding one file again and again.
 *   stbdecode make FILE       writes a 1024x1024 JPEG (stb_image_write,
 *                             quality 90) of a fixed, textured picture
 *   stbdecode FILE [SECONDS]  decodes FILE until SECONDS (default 2) of
 *                             CPU time, then prints the decodes and a sum
 *                             of the pixels
 */
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
make(const char *path)
{
	enum { W = 1024, H = 1024 };
	unsigned char *p = malloc((size_t)W * H * 3);
	unsigned long s = 12345;
	int x, y, c, ok;

	if (p == NULL)
		return 1;
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			for (c = 0; c < 3; c++) {
				s = s * 6364136223846793005UL + 1442695040888963407UL;
				p[(y * W + x) * 3 + c] = (unsigned char)(((x * (c + 1)) ^ (y * (3 - c))) +
				    (int)((s >> 59) & 15));
			}
	ok = stbi_write_jpg(path, W, H, 3, p, 90);
	free(p);
	return !ok;
}

int
main(int argc, char **argv)
{
	unsigned long sum = 0, n = 0;
	unsigned char *buf, *px;
	double secs;
	long len;
	FILE *f;
	int w, h, ch;

	if (argc == 3 && strcmp(argv[1], "make") == 0)
		return make(argv[2]);
	if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
		fprintf(stderr, "usage: stbdecode FILE [SECONDS] | stbdecode make FILE\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	if ((buf = malloc((size_t)len)) == NULL || fread(buf, 1, (size_t)len, f) != (size_t)len)
		return 1;
	fclose(f);
	secs = argc > 2 ? atof(argv[2]) : 2.0;
	do {
		if ((px = stbi_load_from_memory(buf, (int)len, &w, &h, &ch, 3)) == NULL) {
			fprintf(stderr, "stbdecode: %s: %s\n", argv[1], stbi_failure_reason());
			return 1;
		}
		sum += px[(size_t)(n % (unsigned long)h) * (size_t)w * 3];
		stbi_image_free(px);
		n++;
	} while (cpu_seconds() < secs);
	printf("%lu decodes, sum %lu\n", n, sum);
	free(buf);
	return 0;
}
