/*
 * The statistics of diff and stats (ctl/stats_math.c): whether a share
 * changed between two sides, by the counts (a two-proportion z-test with
 * Newcombe's interval) or by the spread of several runs a side (Welch's t),
 * Benjamini-Hochberg q-values across the rows, and a sample's description
 * (dcpistats' columns).  Shares are fractions (0..1), never percentages.
 * dcpictl(1) gives the formulas and their sources.
 */
#ifndef DCPICTL_STATS_MATH_H
#define DCPICTL_STATS_MATH_H

#include <stddef.h>
#include <stdint.h>

/* A change B - A of a share, tested. */
struct stats_change {
	double	 delta;		/* share of B - share of A */
	double	 lo, hi;	/* the confidence interval of delta at the level */
	double	 stat;		/* z, or Welch's t */
	double	 df;		/* t's degrees of freedom; 0 for z */
	double	 p;		/* two-sided p-value */
};

/*
 * Counts: xa of na samples on side A, xb of nb on B (x <= n, n > 0).
 * The pooled two-proportion z-test, p = erfc(|z| / sqrt 2); the interval
 * is Newcombe's hybrid score interval (his method 10) at `level' (e.g.
 * 0.95).  Where the pooled share is 0 or 1, z is 0 and p 1.  -1 (EINVAL)
 * if na or nb is 0, x > n or level is not within (0, 1).
 */
int stats_prop2(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb, double level,
    struct stats_change *out);

/*
 * Runs: the shares a[0..na-1] of side A's runs and b[0..nb-1] of B's
 * (na, nb >= 2).  Welch's t-test on the means, with the Welch-Satterthwaite
 * degrees of freedom; the interval is delta +- t(1 - (1 - level) / 2, df)
 * times the standard error.  Where both sides' runs are all equal
 * (standard error 0), p is 1 if the means are equal, else 0, and the
 * interval is delta itself.  -1 (EINVAL) if na or nb < 2 or level is not
 * within (0, 1).
 */
int stats_welch(const double *a, size_t na, const double *b, size_t nb, double level,
    struct stats_change *out);

/*
 * Benjamini-Hochberg: q[i] for each of the n p-values p[i] (any order), the
 * smallest false discovery rate at which p[i]'s test is rejected:
 * min over p[j] >= p[i] of p[j] * n / rank(j), at most 1.  q may be p.
 * Allocates (dies on exhaustion, xmalloc.h).
 */
void stats_bh(const double *p, size_t n, double *q);

/* dcpistats' description of n values (n >= 1). */
struct stats_desc {
	size_t	 n;
	double	 mean;
	double	 sd;		/* sample standard deviation (n - 1); 0 if n is 1 */
	double	 min, max;
	double	 range;		/* max - min */
	double	 nrange;	/* range / mean; 0 if the mean is 0 */
};
void stats_describe(const double *x, size_t n, struct stats_desc *out);

#endif
