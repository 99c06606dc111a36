/*
 * The statistics of diff and stats (ctl/stats_math.c) against published
 * values, and values computed once with Python 3.11's statistics module
 * (NormalDist, mean, stdev), whose source is given by each.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats_math.h"

#define assert_near(x, want, tol) do {					\
	double x_ = (x), w_ = (want);					\
	if (!(fabs(x_ - w_) <= (tol)))					\
		fail_msg("%s = %.10g, want %.10g within %g", #x, x_, w_,	\
		    (double)(tol));					\
} while (0)

/* Newcombe, "Interval estimation for the difference between independent
 * proportions: comparison of eleven methods", Stat. Med. 17 (1998) 873-890,
 * Table II, method 10 (hybrid score): 56/70 - 48/80 gives 0.0524 to 0.3339
 * and 9/10 - 3/10 0.1705 to 0.8090.  Our change is B - A, so A is the
 * second proportion.  The pooled z and p from Python:
 * p=(48+56)/150; z=(56/70-48/80)/sqrt(p*(1-p)*(1/80+1/70));
 * 2*(1-NormalDist().cdf(z)) -> z 2.6501719512585336, p 0.008045081368196705. */
static void
test_prop2_newcombe(void **state)
{
	struct stats_change c;

	(void)state;
	assert_int_equal(stats_prop2(48, 80, 56, 70, 0.95, &c), 0);
	assert_near(c.delta, 0.2, 1e-12);
	assert_near(c.lo, 0.0524, 5e-5);
	assert_near(c.hi, 0.3339, 5e-5);
	assert_near(c.stat, 2.6501719512585336, 1e-9);
	assert_near(c.p, 0.008045081368196705, 1e-9);
	assert_true(c.df == 0);
	assert_int_equal(stats_prop2(3, 10, 9, 10, 0.95, &c), 0);
	assert_near(c.lo, 0.1705, 5e-5);
	assert_near(c.hi, 0.8090, 5e-5);
	/* Python as above: z 2.738612787525831, p 0.0061698993205441255. */
	assert_near(c.stat, 2.738612787525831, 1e-9);
	assert_near(c.p, 0.0061698993205441255, 1e-9);
	/* The other way round: the same test, the change negated. */
	assert_int_equal(stats_prop2(9, 10, 3, 10, 0.95, &c), 0);
	assert_near(c.delta, -0.6, 1e-12);
	assert_near(c.lo, -0.8090, 5e-5);
	assert_near(c.hi, -0.1705, 5e-5);
	assert_near(c.stat, -2.738612787525831, 1e-9);
}

/* Profile-sized counts and a side with none, from Python (the formulas of
 * stats_math.h with NormalDist().inv_cdf(0.975) for z):
 * 120/10000 -> 200/12000: z 2.8787510958884095, p 0.0039925330632617495,
 * interval 0.0015030926272735232 .. 0.00780080845923083;
 * 0/1000 -> 5/1000: z 2.238868314198225, p 0.025164485700318595,
 * interval 0.00022111065580110098 .. 0.011650955373375113. */
static void
test_prop2_counts(void **state)
{
	struct stats_change c;

	(void)state;
	assert_int_equal(stats_prop2(120, 10000, 200, 12000, 0.95, &c), 0);
	assert_near(c.stat, 2.8787510958884095, 1e-9);
	assert_near(c.p, 0.0039925330632617495, 1e-9);
	assert_near(c.lo, 0.0015030926272735232, 1e-9);
	assert_near(c.hi, 0.00780080845923083, 1e-9);
	assert_int_equal(stats_prop2(0, 1000, 5, 1000, 0.95, &c), 0);
	assert_near(c.p, 0.025164485700318595, 1e-9);
	assert_near(c.lo, 0.00022111065580110098, 1e-9);
	assert_near(c.hi, 0.011650955373375113, 1e-9);
	/* Nothing on either side: no evidence, an interval around 0. */
	assert_int_equal(stats_prop2(0, 1000, 0, 2000, 0.95, &c), 0);
	assert_true(c.p == 1 && c.stat == 0 && c.delta == 0);
	assert_true(c.lo < 0 && c.hi > 0);
	/* A wider level, a wider interval. */
	{
		struct stats_change w;

		assert_int_equal(stats_prop2(120, 10000, 200, 12000, 0.99, &w), 0);
		assert_true(w.lo < 0.0015030926272735232);
		assert_true(w.hi > 0.00780080845923083);
	}
	errno = 0;
	assert_int_equal(stats_prop2(1, 0, 1, 10, 0.95, &c), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(stats_prop2(11, 10, 1, 10, 0.95, &c), -1);
	assert_int_equal(stats_prop2(1, 10, 1, 10, 1.0, &c), -1);
}

/* Student's sleep data (Biometrika 6, 1908), as R's documentation of
 * t.test runs it: t.test(extra ~ group, data = sleep) gives t = -1.8608,
 * df = 17.776, p-value = 0.07939, 95 percent confidence interval
 * -3.3654832 0.2054832 (group 1 - group 2; ours is B - A with A = group 2).
 * t and df to more places from Python's mean and stdev:
 * -1.860813467486853, 17.776473516178488. */
static void
test_welch_sleep(void **state)
{
	static const double g1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
	static const double g2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };
	struct stats_change c;

	(void)state;
	assert_int_equal(stats_welch(g2, 10, g1, 10, 0.95, &c), 0);
	assert_near(c.delta, 0.75 - 2.33, 1e-12);
	assert_near(c.stat, -1.860813467486853, 1e-9);
	assert_near(c.df, 17.776473516178488, 1e-9);
	assert_near(c.p, 0.07939, 5e-6);
	assert_near(c.lo, -3.3654832, 5e-8);
	assert_near(c.hi, 0.2054832, 5e-8);
	/* No spread: certain either way. */
	{
		static const double x[] = { 0.25, 0.25, 0.25 }, y[] = { 0.5, 0.5 };

		assert_int_equal(stats_welch(x, 3, y, 2, 0.95, &c), 0);
		assert_true(c.p == 0 && c.lo == 0.25 && c.hi == 0.25);
		assert_int_equal(stats_welch(x, 3, x, 2, 0.95, &c), 0);
		assert_true(c.p == 1 && c.delta == 0);
	}
	assert_int_equal(stats_welch(g1, 1, g2, 10, 0.95, &c), -1);
	assert_int_equal(errno, EINVAL);
}

/* Benjamini and Hochberg, "Controlling the false discovery rate", J. R.
 * Statist. Soc. B 57 (1995) 289-300, section 4.1: of these 15 p-values
 * the procedure rejects the four smallest at 0.05.  Their q-values from
 * Python (the running minimum of p * 15 / rank from the largest down). */
static void
test_bh(void **state)
{
	static const double p[] = { 0.0459, 0.0001, 0.3240, 0.0004, 0.0019, 0.0095, 0.0201,
	    0.0278, 0.0298, 0.0344, 0.4262, 0.5719, 0.6528, 0.7590, 1.000 };
	static const double want[] = { 0.0765, 0.0015, 0.486, 0.003, 0.0095, 0.035625,
	    0.0603, 0.06385714285714286, 0.06385714285714286, 0.0645, 0.5811818181818182,
	    0.714875, 0.7532307692307694, 0.8132142857142857, 1 };
	double q[15];
	size_t i, rejected = 0;

	(void)state;
	stats_bh(p, 15, q);
	for (i = 0; i < 15; i++) {
		assert_near(q[i], want[i], 1e-12);
		rejected += q[i] <= 0.05;
	}
	assert_int_equal(rejected, 4);
	/* In place, and none above 1. */
	{
		double x[] = { 0.9, 0.8, 0.95 };

		stats_bh(x, 3, x);
		assert_near(x[0], 0.95, 1e-12);
		assert_near(x[1], 0.95, 1e-12);
		assert_near(x[2], 0.95, 1e-12);
	}
}

/* Python: mean([2.5, 3.25, 1.0, 4.75, 3.0]) 2.9, stdev 1.3532368602724358,
 * (max - min) / mean 1.293103448275862. */
static void
test_describe(void **state)
{
	static const double x[] = { 2.5, 3.25, 1.0, 4.75, 3.0 };
	struct stats_desc d;

	(void)state;
	stats_describe(x, 5, &d);
	assert_int_equal(d.n, 5);
	assert_near(d.mean, 2.9, 1e-12);
	assert_near(d.sd, 1.3532368602724358, 1e-12);
	assert_true(d.min == 1.0 && d.max == 4.75 && d.range == 3.75);
	assert_near(d.nrange, 1.293103448275862, 1e-12);
	stats_describe(x, 1, &d);
	assert_true(d.sd == 0 && d.range == 0 && d.nrange == 0 && d.mean == 2.5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prop2_newcombe),
		cmocka_unit_test(test_prop2_counts),
		cmocka_unit_test(test_welch_sleep),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
