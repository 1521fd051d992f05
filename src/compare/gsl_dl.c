/* GSL's distribution functions, found at run time (gsl_dl.h says why). */
#include "compare/gsl_dl.h"
#include "internal.h"

#include <dlfcn.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

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
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;        /* 1 once every pointer is set */
static char problem[256]; /* why loading failed */

static void find(void *h, const char *name, void *slot)
{
    void *p = dlsym(h, name);
    if (!p && !problem[0])
        snprintf(problem, sizeof problem, "%s has no %s", TD_GSL_SONAME, name);
    memcpy(slot, &p, sizeof p);
}

static void load_once(void)
{
    void *h = dlopen(TD_GSL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(problem, sizeof problem, "%s", dlerror());
        return;
    }
    find(h, "gsl_cdf_tdist_Q", &fn.tdist_Q);
    find(h, "gsl_cdf_tdist_Qinv", &fn.tdist_Qinv);
    find(h, "gsl_cdf_ugaussian_Q", &fn.ugaussian_Q);
    find(h, "gsl_cdf_ugaussian_Qinv", &fn.ugaussian_Qinv);
    if (problem[0]) {
        dlclose(h);
        return;
    }
    loaded = 1; /* the handle stays open for the life of the process */
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
    return ready() ? fn.tdist_Q(x, nu) : NAN;
}

double td_gsl_cdf_tdist_Qinv(double q, double nu)
{
    return ready() ? fn.tdist_Qinv(q, nu) : NAN;
}

double td_gsl_cdf_ugaussian_Q(double x)
{
    return ready() ? fn.ugaussian_Q(x) : NAN;
}

double td_gsl_cdf_ugaussian_Qinv(double q)
{
    return ready() ? fn.ugaussian_Qinv(q) : NAN;
}
