/* GSL, loaded when the first statistical test runs: most commands compute
 * none, and start faster without GSL's two shared libraries to map and
 * relocate (about a fifth of the start-up of `compare` on two summaries).
 *
 * The four distribution functions stats_tests.c needs, under their GSL
 * names with a td_ prefix. Each loads GSL on first use and returns NaN when
 * it cannot; td_gsl_load() before a computation turns that into an error. */
#ifndef TD_GSL_DL_H
#define TD_GSL_DL_H

#include "tracediff.h"

/* 0, or TD_EIO naming the library that could not be loaded. */
int td_gsl_load(td_error *err);

double td_gsl_cdf_tdist_Q(double x, double nu);
double td_gsl_cdf_tdist_Qinv(double q, double nu);
double td_gsl_cdf_ugaussian_Q(double x);
double td_gsl_cdf_ugaussian_Qinv(double q);

#endif
