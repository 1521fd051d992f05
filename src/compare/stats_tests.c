/*
 * The statistical tests behind `compare --stats` (docs/stats.md): Welch's
 * t-test, Mann-Whitney U (normal approximation, tie and continuity
 * corrections, as SciPy's method='asymptotic'), the Hodges-Lehmann shift and
 * Benjamini-Hochberg q-values. The distributions come from GSL, loaded at
 * first use (gsl_dl.h).
 */
#include "compare/compare.h"

#include "compare/gsl_dl.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const td_test_result none = {NAN, NAN, NAN, NAN, NAN};

/* Mean and sample variance in two passes, summed in index order. A side
 * whose values are all equal has variance exactly 0 (a two-pass formula can
 * leave a rounding residue there). */
static void mean_var(const double *x, size_t n, double *mean, double *var)
{
    double s = 0, lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    *mean = s / (double)n;
    if (lo == hi) {
        *mean = lo;
        *var = 0;
        return;
    }
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *var = ss / (double)(n - 1);
}

td_test_result td_welch(const double *a, size_t na, const double *b, size_t nb, double alpha)
{
    td_test_result r = none;
    if (na < 2 || nb < 2)
        return r;
    double ma, va, mb, vb;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    double d = mb - ma;
    if (va == 0 && vb == 0) {
        r.p = d == 0 ? 1 : 0;
        r.stat = d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
        r.ci_low = r.ci_high = d;
        return r;
    }
    double ea = va / (double)na, eb = vb / (double)nb, se2 = ea + eb;
    double df = se2 * se2 / (ea * ea / (double)(na - 1) + eb * eb / (double)(nb - 1));
    double se = sqrt(se2), t = d / se;
    r.stat = t;
    r.df = df;
    r.p = 2 * td_gsl_cdf_tdist_Q(fabs(t), df);
    if (r.p > 1)
        r.p = 1;
    double crit = td_gsl_cdf_tdist_Qinv(alpha / 2, df);
    r.ci_low = d - crit * se;
    r.ci_high = d + crit * se;
    return r;
}

td_test_result td_mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
    td_test_result r = none;
    if (na == 0 || nb == 0)
        return r;
    /* Merge the two sorted samples; a run of equal values gets their mean rank. */
    double rank_b = 0, ties = 0;
    size_t i = 0, j = 0, pos = 0;
    while (i < na || j < nb) {
        double v = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
        size_t ka = 0, kb = 0;
        while (i < na && a[i] == v)
            i++, ka++;
        while (j < nb && b[j] == v)
            j++, kb++;
        double t = (double)(ka + kb);
        double mid = (double)pos + (t + 1) / 2; /* ranks pos+1 .. pos+t */
        rank_b += mid * (double)kb;
        ties += t * t * t - t;
        pos += ka + kb;
    }
    double n1 = (double)nb, n2 = (double)na, n = n1 + n2;
    double u_b = rank_b - n1 * (n1 + 1) / 2;
    r.stat = u_b;
    double mu = n1 * n2 / 2;
    double s2 = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (!(s2 > 0)) { /* every value equal */
        r.p = 1;
        return r;
    }
    double u = u_b > n1 * n2 - u_b ? u_b : n1 * n2 - u_b;
    double z = (u - mu - 0.5) / sqrt(s2);
    r.p = 2 * td_gsl_cdf_ugaussian_Q(z);
    if (r.p > 1)
        r.p = 1;
    return r;
}

/* Doubles as unsigned integers in the same order. */
static uint64_t dkey(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double dval(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* How many pairs have b[j] - a[i] <= v. fl(b - a) is monotone in both, so
 * one pointer sweeps b as a grows. */
static double pairs_at_most(const double *a, size_t na, const double *b, size_t nb, double v)
{
    double c = 0;
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && b[j] - a[i] <= v)
            j++;
        c += (double)j;
    }
    return c;
}

/* The k-th smallest (1-based) of the na * nb differences b[j] - a[i],
 * without listing them: bisection over the doubles, O((na + nb) * 64). */
static double kth_difference(const double *a, size_t na, const double *b, size_t nb, double k)
{
    uint64_t lo = dkey(b[0] - a[na - 1]), hi = dkey(b[nb - 1] - a[0]);
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (pairs_at_most(a, na, b, nb, dval(mid)) >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return dval(lo);
}

td_test_result td_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
                                 double alpha)
{
    td_test_result r = none;
    if (na == 0 || nb == 0)
        return r;
    for (size_t i = 0; i < na; i++)
        if (isnan(a[i]))
            return r;
    for (size_t j = 0; j < nb; j++)
        if (isnan(b[j]))
            return r;
    double n = (double)na * (double)nb;
    double lo_k = floor((n + 1) / 2), hi_k = floor(n / 2) + 1; /* the median's ranks */
    r.stat = (kth_difference(a, na, b, nb, lo_k) + kth_difference(a, na, b, nb, hi_k)) / 2;
    /* Distribution-free interval: the C-th smallest and C-th largest
     * difference, C from the normal approximation of U's distribution. */
    double z = td_gsl_cdf_ugaussian_Qinv(alpha / 2);
    double c = floor(n / 2 - z * sqrt(n * ((double)na + (double)nb + 1) / 12));
    if (c < 1)
        c = 1;
    r.ci_low = kth_difference(a, na, b, nb, c);
    r.ci_high = kth_difference(a, na, b, nb, n + 1 - c);
    return r;
}

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int cmp_pidx(const void *x, const void *y)
{
    const pidx *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int td_bh_qvalues(double *q, const double *p, size_t n)
{
    pidx *v = malloc((n + 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        q[i] = NAN;
        if (v && !isnan(p[i]))
            v[m++] = (pidx){p[i], i};
    }
    if (!v)
        return TD_ENOMEM;
    qsort(v, m, sizeof *v, cmp_pidx);
    double run = 1;
    for (size_t k = m; k-- > 0;) {
        double x = v[k].p * (double)m / (double)(k + 1);
        if (x < run)
            run = x;
        q[v[k].i] = run;
    }
    free(v);
    return 0;
}
