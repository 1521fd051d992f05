/* The statistics of compare --stats: each test against values computed
 * elsewhere (SciPy 1.10, by hand, or by brute force in the test itself). */
#include "harness.h"
#include "compare/compare.h"
#include "unit_traces.h"

#include <math.h>
#include <stdlib.h>

#define CHECK_NEAR(got, want, rel)                                                                 \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!(fabs(g_ - w_) <= (rel)*fabs(w_)))                                                    \
            unit_fail(__FILE__, __LINE__, "%s is %.17g, expected %.17g", #got, g_, w_);            \
    } while (0)

static const double welch_a[] = {19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0};
static const double welch_b[] = {28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
                                 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3};

/* scipy.stats.ttest_ind(b, a, equal_var=False) and t.ppf(0.975, df). */
TEST(test_stats__welch_matches_scipy)
{
    td_test_result r = td_welch(welch_a, 10, welch_b, 20, 0.05);
    CHECK_NEAR(r.stat, 2.225512039969852, 1e-12);
    CHECK_NEAR(r.df, 24.524634944257343, 1e-12);
    CHECK_NEAR(r.p, 0.035484530830010325, 1e-9);
    CHECK_NEAR(r.ci_low, 0.16354134987944713, 1e-9);
    CHECK_NEAR(r.ci_high, 4.276458650120551, 1e-9);
    double a[] = {1, 2, 3}, b[] = {1, 2, 30};
    CHECK_NEAR(td_welch(a, 3, b, 3, 0.05).p, 0.4437042451268878, 1e-9);
}

TEST(test_stats__welch_zero_variance)
{
    double a[] = {0.1, 0.1, 0.1}, b[] = {0.1, 0.1}, c[] = {0.2, 0.2, 0.2};
    CHECK_DBL(td_welch(a, 3, b, 2, 0.05).p, 1);
    CHECK_DBL(td_welch(a, 3, c, 3, 0.05).p, 0);
    CHECK(isnan(td_welch(a, 1, c, 3, 0.05).p)); /* fewer than 2 samples */
}

/* scipy.stats.mannwhitneyu(y, x, method='asymptotic'): ties across samples. */
TEST(test_stats__mann_whitney_ties_matches_scipy)
{
    double x[] = {1, 2, 2, 3, 4}, y[] = {2, 3, 5, 6, 6, 7};
    td_test_result r = td_mann_whitney(x, 5, y, 6);
    CHECK_DBL(r.stat, 25.5);
    CHECK_NEAR(r.p, 0.06414661873440437, 1e-9);
    /* By hand: all equal -> p = 1; complete separation of 3 and 3 gives
     * U = 9, mu = 4.5, s^2 = 5.25, z = (9 - 4.5 - 0.5) / sqrt(5.25). */
    double e[] = {5, 5, 5}, lo[] = {1, 2, 3}, hi[] = {4, 5, 6};
    CHECK_DBL(td_mann_whitney(e, 3, e, 3).p, 1);
    CHECK_NEAR(td_mann_whitney(lo, 3, hi, 3).p, erfc(4 / sqrt(5.25) / sqrt(2)), 1e-12);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Every pairwise difference listed and sorted, the obvious way. */
TEST(test_stats__hodges_lehmann_matches_brute_force)
{
    double a[] = {1.5, 2, 2, 3.25, 7, 9}, b[] = {0.5, 2, 4, 4, 6.5, 10, 11.75};
    size_t na = 6, nb = 7, n = na * nb;
    double d[42];
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            d[i * nb + j] = b[j] - a[i];
    qsort(d, n, sizeof *d, cmp_d);
    td_test_result r = td_hodges_lehmann(a, na, b, nb, 0.05);
    CHECK_DBL(r.stat, (d[20] + d[21]) / 2);
    double c = floor(n / 2.0 - 1.959963984540054 * sqrt(n * (na + nb + 1) / 12.0));
    CHECK_DBL(r.ci_low, d[(size_t)c - 1]);
    CHECK_DBL(r.ci_high, d[n - (size_t)c]);
    double one[] = {3}, two[] = {5};
    CHECK_DBL(td_hodges_lehmann(one, 1, two, 1, 0.05).stat, 2);
}

/* By hand: sorted p 0.005 0.01 0.03 0.04 0.5, m = 5: p*m/rank = 0.025 0.025
 * 0.05 0.05 0.5, already monotone. NaN p: no q, not counted in m. */
TEST(test_stats__benjamini_hochberg_by_hand)
{
    double p[] = {0.01, 0.04, NAN, 0.03, 0.005, 0.5}, q[6];
    CHECK_INT(td_bh_qvalues(q, p, 6), 0);
    CHECK_NEAR(q[0], 0.025, 1e-15);
    CHECK_NEAR(q[1], 0.05, 1e-15);
    CHECK(isnan(q[2]));
    CHECK_NEAR(q[3], 0.05, 1e-15);
    CHECK_NEAR(q[4], 0.025, 1e-15);
    CHECK_NEAR(q[5], 0.5, 1e-15);
    double p2[] = {0.04, 0.03}; /* 0.04*2/2 = 0.04; 0.03*2/1 = 0.06 -> min 0.04 */
    td_bh_qvalues(q, p2, 2);
    CHECK_NEAR(q[0], 0.04, 1e-15);
    CHECK_NEAR(q[1], 0.04, 1e-15);
}

/* Three steps; "k" runs 10+20 us in step 1, 30 in step 2 and not in step 3:
 * iteration samples 30, 30, 0 (the 0 counts); call samples 10, 20, 30. */
static const char trace3[] =
    "{\"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"ts\":100,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"ts\":200,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"ts\":10,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"ts\":30,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"ts\":110,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"m\",\"ts\":250,\"dur\":5}]}";

static const td_row_stats *stats_of(const td_stats *st, const td_diff *d, const char *name)
{
    const td_row *r = unit_row(d, name, strlen(name));
    return r ? &td_stats_rows(st)[r - td_diff_rows(d)] : NULL;
}

TEST(test_stats__samples_follow_the_selection)
{
    td_set *s = unit_open(unit_write_str("stats/three.json", trace3));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.control_iters.all = co.test_iters.all = true;
    td_stats *st = NULL;
    td_error err = {0};
    td_stats_opts so = TD_STATS_OPTS_INIT;
    REQUIRE(td_stats_compute(&st, d, s, s, &co, &so, &err) == 0);
    CHECK_INT(td_stats_samples(st), TD_SAMPLES_ITERATION); /* 3 a side */
    const td_row_stats *k = stats_of(st, d, "k");
    REQUIRE(k);
    CHECK_INT(k->n[0], 3);
    CHECK_DBL(k->mean[0], 20);
    CHECK_DBL(k->median[0], 30);
    CHECK_DBL(k->min[0], 0);
    CHECK_DBL(k->p, 1);
    CHECK_INT(k->verdict, TD_VERDICT_NOISE);
    td_stats_free(st);
    so.samples = TD_SAMPLES_CALL;
    REQUIRE(td_stats_compute(&st, d, s, s, &co, &so, &err) == 0);
    k = stats_of(st, d, "k");
    CHECK_INT(k->n[0], 3);
    CHECK_DBL(k->median[0], 20);
    CHECK_DBL(k->stdev[0], 10);
    CHECK_DBL(k->hl_shift, 0);
    const td_row_stats *m = stats_of(st, d, "m");
    CHECK_INT(m->verdict, TD_VERDICT_NA); /* one call a side */
    CHECK(isnan(m->p) && isnan(m->q));
    td_stats_free(st);
    /* One iteration a side: iteration mode has 1 sample, every row n/a. */
    td_diff_free(d);
    td_compare_opts one = TD_COMPARE_OPTS_INIT;
    REQUIRE(td_diff_compute(&d, s, s, &one, &err) == 0);
    so.samples = TD_SAMPLES_ITERATION;
    REQUIRE(td_stats_compute(&st, d, s, s, &one, &so, &err) == 0);
    CHECK(td_stats_too_few(st));
    CHECK_INT(stats_of(st, d, "k")->verdict, TD_VERDICT_NA);
    td_stats_free(st);
    so.samples = TD_SAMPLES_AUTO;
    REQUIRE(td_stats_compute(&st, d, s, s, &one, &so, &err) == 0);
    CHECK_INT(td_stats_samples(st), TD_SAMPLES_CALL);
    td_stats_free(st);
    td_diff_free(d);
    td_set_free(s);
}
