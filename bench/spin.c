/*
 * A 5 ms busy loop, linked many times with distinct build-ids by
 * bench/image_churn.sh and bench/flush_sync.sh: a host that runs new
 * programs all day.
 */
#include <time.h>

int
main(void)
{
	struct timespec a, b;
	volatile unsigned long x = 0;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (i = 0; i < 10000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 5000000L);
	return 0;
}
