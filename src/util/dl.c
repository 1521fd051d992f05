/* Shared libraries opened at run time (dl.h). */
#include "util/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int td_dl_load(const char *soname, const char *const *names, void *const *slots, size_t n,
               const char *hint, char *problem, size_t cap)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(problem, cap, "%s", why ? why : soname);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        void *p = dlsym(h, names[i]);
        if (!p) {
            snprintf(problem, cap, "%s has no %s%s", soname, names[i], hint ? hint : "");
            dlclose(h);
            return 0;
        }
        /* A data pointer to a function pointer: POSIX guarantees the copy. */
        memcpy(slots[i], &p, sizeof p);
    }
    return 1;
}
