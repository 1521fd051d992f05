/* Cairo's functions, found at run time (cairo_dl.h says why). */
#define TD_CAIRO_DL_IMPL
#include "present/cairo_dl.h"
#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

td_cairo_api td_cairo;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;        /* 1 once every pointer is set */
static char problem[256]; /* why loading failed, kept for the next caller */

/* The soname of the cairo this was compiled against (major version 2 since
 * cairo 1.0). */
#define CAIRO_SONAME "libcairo.so.2"

static void load_locked(void)
{
    void *h = dlopen(CAIRO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(problem, sizeof problem, "%s", dlerror());
        return;
    }
    const char *missing = NULL;
    void *p;
#define TD_CAIRO_FIND(f)                                                                           \
    if (!missing) {                                                                                \
        if ((p = dlsym(h, #f)) != NULL)                                                            \
            memcpy(&td_cairo.f, &p, sizeof p);                                                     \
        else                                                                                       \
            missing = #f;                                                                          \
    }
    TD_CAIRO_FUNCS(TD_CAIRO_FIND)
#undef TD_CAIRO_FIND
    if (missing) {
        snprintf(problem, sizeof problem, "%s has no %s (too old a cairo)", CAIRO_SONAME, missing);
        dlclose(h);
        return;
    }
    loaded = 1; /* the handle stays open for the life of the process */
}

int td_cairo_load(td_error *err)
{
    pthread_mutex_lock(&lock);
    if (!loaded && !problem[0])
        load_locked();
    int ok = loaded;
    pthread_mutex_unlock(&lock);
    if (ok)
        return 0;
    return td_fail(err, TD_EIO, "",
                   "charts need the cairo library (Debian: apt-get install libcairo2): %s",
                   problem);
}
