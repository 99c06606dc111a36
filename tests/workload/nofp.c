/*
 * Call chains through code built as Debian builds it (-O2, no frame
 * pointers), for the dwarf route: nofp MODE [SECONDS].
 *   tree    main -> outer -> middle -> inner -> leaf, leaf hot
 *   zlib    main -> compress2 (Debian's libz, its own frames) in a loop
 *   thread  the tree on a thread of its own (the chain ends at clone3)
 *   signal  leaf hot in a SIGPROF handler that interrupts spin, called
 *           from main (the chain goes through __restore_rt)
 *   idle    maps the program and waits, unsampled, for the end of stdin
 * Each runs for SECONDS of CPU (default 2).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <zlib.h>

static volatile double sink;
static volatile sig_atomic_t handled;
static double seconds = 2;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static double
leaf(double x)
{
	int i;

	for (i = 0; i < 20000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}

/* Each keeps a value live across its call, so that it has a frame and
 * CFI of its own, and adds after it, so that the call is no tail call. */
__attribute__((noinline)) static double
inner(double x)
{
	double r = leaf(x);

	sink = r;
	return r + 1;
}

__attribute__((noinline)) static double
middle(double x)
{
	double r = inner(x) * 2;

	sink = r;
	return r - x;
}

__attribute__((noinline)) static double
outer(double x)
{
	double r = middle(x) - 1;

	sink = r;
	return r * 0.5;
}

static void *
tree(void *arg)
{
	double end = cpu_now() + seconds, s = 0;
	long i = 0;

	(void)arg;
	while (cpu_now() < end)
		s += outer((double)i++);
	sink = s;
	return NULL;
}

static void
zlib(void)
{
	size_t len = 1 << 20, i;
	unsigned char *in = malloc(len), *out = malloc(compressBound(len));
	unsigned s = 1;
	double end = cpu_now() + seconds;
	uLongf ol;

	if (in == NULL || out == NULL)
		exit(1);
	for (i = 0; i < len; i++) {
		s = s * 1103515245 + 12345;
		in[i] = (unsigned char)('a' + (s >> 16) % 16);
	}
	while (cpu_now() < end) {
		ol = compressBound(len);
		if (compress2(out, &ol, in, len, 9) != Z_OK)
			exit(1);
	}
	free(in);
	free(out);
}

/* A fifth of the time or so in the handler, whose samples are wanted. */
static void
on_prof(int sig)
{
	int i;

	(void)sig;
	for (i = 0; i < 16; i++)
		sink = leaf(sink);
	handled++;
}

__attribute__((noinline)) static void
spin(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		sink = sink + 1;
}

int
main(int argc, char **argv)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	pthread_t t;

	if (argc < 2) {
		fprintf(stderr, "usage: nofp tree|zlib|thread|signal|idle [SECONDS]\n");
		return 2;
	}
	if (argc > 2)
		seconds = atof(argv[2]);
	if (strcmp(argv[1], "tree") == 0)
		tree(NULL);
	else if (strcmp(argv[1], "zlib") == 0)
		zlib();
	else if (strcmp(argv[1], "thread") == 0) {
		if (pthread_create(&t, NULL, tree, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	} else if (strcmp(argv[1], "signal") == 0) {
		signal(SIGPROF, on_prof);
		setitimer(ITIMER_PROF, &it, NULL);
		spin();
		it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_PROF, &it, NULL);
		if (handled == 0)
			return 1;
	} else if (strcmp(argv[1], "idle") == 0) {
		while (getchar() != EOF)
			;
	} else
		return 2;
	return 0;
}
