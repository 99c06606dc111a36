/*
 * A program whose own functions have their frame information only in
 * .debug_frame (no .eh_frame for them, no .eh_frame_hdr): test_unwind
 * builds its table from that.  Linked again as unwind_plt, with the PLT
 * of IBT (.plt.sec) and no FDEs of the linker's for its PLT sections.
 */
#include <stdio.h>

static __attribute__((noinline, used)) int
dbgframe_work(int n)
{
	volatile int s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i;
	return s;
}

int
main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", dbgframe_work(argc * 10));
	return 0;
}
