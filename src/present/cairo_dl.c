/* Cairo's functions, found at run time (cairo_dl.h says why). */
#define TD_CAIRO_DL_IMPL
#include "present/cairo_dl.h"
#include "util/util.h"
#include "util/dl.h"

#include <pthread.h>

td_cairo_api td_cairo;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded;        /* 1 once every pointer is set */
static char problem[256]; /* why loading failed, kept for the next caller */

/* The soname of the cairo this was compiled against (major version 2 since
 * cairo 1.0). */
#define CAIRO_SONAME "libcairo.so.2"

static void load_locked(void)
{
#define TD_CAIRO_NAME(f) #f,
#define TD_CAIRO_SLOT(f) &td_cairo.f,
    static const char *const names[] = {TD_CAIRO_FUNCS(TD_CAIRO_NAME)};
    void *const slots[] = {TD_CAIRO_FUNCS(TD_CAIRO_SLOT)};
#undef TD_CAIRO_NAME
#undef TD_CAIRO_SLOT
    loaded = td_dl_load(CAIRO_SONAME, names, slots, sizeof names / sizeof *names,
                        " (too old a cairo)", problem, sizeof problem);
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
