/*
 * Touches N fresh pages, each one page fault, so a page-faults profile has
 * a known total.  Usage: faults N
 */
#include <sys/mman.h>

#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000, i;
	volatile char *p;

	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}
