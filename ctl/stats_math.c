/*
 * The statistics of diff and stats: ctl/stats_math.h.  The normal tail is
 * libm's erfc; the quantiles and Student's t are GSL's.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats_math.h"
#include "xmalloc.h"

/* Wilson's score interval of x of n (Newcombe 1998, his method 3). */
static void
wilson(double x, double n, double z, double *lo, double *hi)
{
	double p = x / n, z2 = z * z, d = 1 + z2 / n;
	double c = (p + z2 / (2 * n)) / d;
	double h = z / d * sqrt(p * (1 - p) / n + z2 / (4 * n * n));

	*lo = c - h;
	*hi = c + h;
}

int
stats_prop2(uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb, double level,
    struct stats_change *out)
{
	double pa, pb, pool, se, z, l1, u1, l2, u2;

	if (na == 0 || nb == 0 || xa > na || xb > nb || !(level > 0 && level < 1)) {
		errno = EINVAL;
		return -1;
	}
	pa = (double)xa / (double)na;
	pb = (double)xb / (double)nb;
	pool = ((double)xa + (double)xb) / ((double)na + (double)nb);
	se = sqrt(pool * (1 - pool) * (1 / (double)na + 1 / (double)nb));
	out->delta = pb - pa;
	out->df = 0;
	if (se > 0) {
		out->stat = out->delta / se;
		out->p = erfc(fabs(out->stat) / M_SQRT2);
	} else {
		out->stat = 0;
		out->p = 1;
	}
	/* Newcombe's: the Wilson intervals of each side, combined; unlike
	 * Wald's it is not empty at 0 samples, nor outside [-1, 1]. */
	z = gsl_cdf_ugaussian_Qinv((1 - level) / 2);
	wilson((double)xa, (double)na, z, &l1, &u1);
	wilson((double)xb, (double)nb, z, &l2, &u2);
	out->lo = out->delta - sqrt((pb - l2) * (pb - l2) + (u1 - pa) * (u1 - pa));
	out->hi = out->delta + sqrt((u2 - pb) * (u2 - pb) + (pa - l1) * (pa - l1));
	return 0;
}

/* Mean and sample variance, two passes (no cancellation in the sums). */
static void
mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, d;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / (double)n;
	for (i = 0, s = 0; i < n; i++) {
		d = x[i] - *mean;
		s += d * d;
	}
	*var = n > 1 ? s / (double)(n - 1) : 0;
}

int
stats_welch(const double *a, size_t na, const double *b, size_t nb, double level,
    struct stats_change *out)
{
	double ma, va, mb, vb, sa, sb, se, t;

	if (na < 2 || nb < 2 || !(level > 0 && level < 1)) {
		errno = EINVAL;
		return -1;
	}
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sqrt(sa + sb);
	out->delta = mb - ma;
	if (se == 0) {
		out->stat = 0;
		out->df = (double)(na + nb - 2);
		out->p = out->delta == 0 ? 1 : 0;
		out->lo = out->hi = out->delta;
		return 0;
	}
	out->stat = out->delta / se;
	out->df = (sa + sb) * (sa + sb) /
	    (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	out->p = 2 * gsl_cdf_tdist_Q(fabs(out->stat), out->df);
	if (out->p > 1)
		out->p = 1;
	t = gsl_cdf_tdist_Qinv((1 - level) / 2, out->df);
	out->lo = out->delta - t * se;
	out->hi = out->delta + t * se;
	return 0;
}

static const double *bh_p;

static int
bh_cmp(const void *x, const void *y)
{
	double a = bh_p[*(const size_t *)x], b = bh_p[*(const size_t *)y];

	return a < b ? -1 : a > b;
}

void
stats_bh(const double *p, size_t n, double *q)
{
	size_t *ord, i;
	double run = 1, v;

	if (n == 0)
		return;
	ord = xcalloc(n, sizeof(*ord));
	for (i = 0; i < n; i++)
		ord[i] = i;
	bh_p = p;
	qsort(ord, n, sizeof(*ord), bh_cmp);
	/* From the largest p down, so that q keeps the order of p. */
	for (i = n; i-- > 0;) {
		v = p[ord[i]] * (double)n / (double)(i + 1);
		if (v < run)
			run = v;
		q[ord[i]] = run;
	}
	free(ord);
}

void
stats_describe(const double *x, size_t n, struct stats_desc *out)
{
	double var;
	size_t i;

	out->n = n;
	mean_var(x, n, &out->mean, &var);
	out->sd = sqrt(var);
	out->min = out->max = x[0];
	for (i = 1; i < n; i++) {
		if (x[i] < out->min)
			out->min = x[i];
		if (x[i] > out->max)
			out->max = x[i];
	}
	out->range = out->max - out->min;
	out->nrange = out->mean != 0 ? out->range / out->mean : 0;
}
