/* GSL's distribution functions, found at run time (gsl_dl.h says why). */
#include "compare/gsl_dl.h"
#include "util/util.h"
#include "util/dl.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <pthread.h>

/* The soname of the GSL this was compiled against, found by the build
 * (Makefile, setup.py); the development link name otherwise. */
#ifndef TD_GSL_SONAME
#define TD_GSL_SONAME "libgsl.so"
#endif

/* The pointers have GSL's own prototypes: a changed signature fails here. */
static struct {
    __typeof__(gsl_cdf_tdist_Q) *tdist_Q;
    __typeof__(gsl_cdf_tdist_Qinv) *tdist_Qinv;
    __typeof__(gsl_cdf_ugaussian_Q) *ugaussian_Q;
    __typeof__(gsl_cdf_ugaussian_Qinv) *ugaussian_Qinv;
} gsl_fns;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;        /* 1 once every pointer is set */
static char problem[256]; /* why loading failed */

static void load_once(void)
{
    static const char *const names[] = {"gsl_cdf_tdist_Q", "gsl_cdf_tdist_Qinv",
                                        "gsl_cdf_ugaussian_Q", "gsl_cdf_ugaussian_Qinv"};
    void *const slots[] = {&gsl_fns.tdist_Q, &gsl_fns.tdist_Qinv, &gsl_fns.ugaussian_Q,
                           &gsl_fns.ugaussian_Qinv};
    loaded = td_dl_load(TD_GSL_SONAME, names, slots, sizeof names / sizeof *names, NULL, problem,
                        sizeof problem);
}

static int ready(void)
{
    pthread_once(&once, load_once);
    return loaded;
}

int td_gsl_load(td_error *err)
{
    if (ready())
        return 0;
    return td_fail(err, TD_EIO, "",
                   "--stats needs the GNU Scientific Library, %s (on Debian, installing "
                   "libgsl-dev brings it): %s",
                   TD_GSL_SONAME, problem);
}

double td_gsl_cdf_tdist_Q(double x, double nu)
{
    return ready() ? gsl_fns.tdist_Q(x, nu) : NAN;
}

double td_gsl_cdf_tdist_Qinv(double q, double nu)
{
    return ready() ? gsl_fns.tdist_Qinv(q, nu) : NAN;
}

double td_gsl_cdf_ugaussian_Q(double x)
{
    return ready() ? gsl_fns.ugaussian_Q(x) : NAN;
}

double td_gsl_cdf_ugaussian_Qinv(double q)
{
    return ready() ? gsl_fns.ugaussian_Qinv(q) : NAN;
}
