/*
 * Call chains through C++ built as Debian builds it (g++ -O2, no frame
 * pointers), for the dwarf route: main -> run -> step, which calls the
 * hot functions in turn, for SECONDS of CPU (default 2):
 *   sorted    std::sort of a std::vector<double>
 *   lookup    std::map<long, long> filled, looked up and erased
 *   rethrown  throws a std::runtime_error from two frames down (deep ->
 *             deeper) and catches it: libstdc++'s __cxa_throw and
 *             libgcc_s's unwinder run under it
 *
 *	cxxchain [SECONDS]
 */
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <map>
#include <stdexcept>
#include <vector>

#define NOINLINE	__attribute__((noinline))

static volatile double sink;

static double
cpu_now()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static double
sorted(unsigned seed)
{
	std::vector<double> v(4096);

	for (double &x : v) {
		seed = seed * 1103515245 + 12345;
		x = (seed >> 8) % 100000;
	}
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

NOINLINE static long
lookup(unsigned seed)
{
	std::map<long, long> m;
	long s = 0;
	int i;

	for (i = 0; i < 2000; i++) {
		seed = seed * 1103515245 + 12345;
		m[(seed >> 8) % 5000] += i;
	}
	for (i = 0; i < 2000; i++) {
		auto it = m.find(i);
		if (it != m.end())
			s += it->second;
	}
	m.erase(m.begin(), m.find(2500));
	return s + (long)m.size();
}

NOINLINE static void
deeper(int i)
{
	if (i >= 0)
		throw std::runtime_error("cxxchain");
	sink = i;
}

NOINLINE static void
deep(int i)
{
	deeper(i);
	sink = sink + 1;
}

NOINLINE static int
rethrown(int n)
{
	int caught = 0, i;

	for (i = 0; i < n; i++) {
		try {
			deep(i);
		} catch (const std::runtime_error &e) {
			caught++;
		}
	}
	return caught;
}

NOINLINE static void
step(unsigned seed)
{
	sink = sorted(seed);
	sink = lookup(seed);
	sink = rethrown(200);
}

NOINLINE static void
run(double seconds)
{
	double end = cpu_now() + seconds;
	unsigned seed = 1;

	while (cpu_now() < end)
		step(seed++);
}

int
main(int argc, char **argv)
{
	run(argc > 1 ? atof(argv[1]) : 2);
	return 0;
}
