/* A shared library opened at run time, once, with every symbol the caller
 * needs: GSL for --stats (compare/gsl_dl.c) and cairo for PNG and PDF
 * (present/cairo_dl.c), so that neither is a link-time dependency. */
#ifndef TD_UTIL_DL_H
#define TD_UTIL_DL_H

#include <stddef.h>

/* Opens soname and finds names[0 .. n - 1], storing each function pointer
 * at slots[i] (a pointer to the caller's function-pointer variable). 1 when
 * all are found (the library then stays open for the life of the process);
 * 0 otherwise, with why in problem (cap bytes): dlopen's message, or the
 * first name missing followed by hint. Not thread-safe: callers serialize
 * (pthread_once, a mutex). */
int td_dl_load(const char *soname, const char *const *names, void *const *slots, size_t n,
               const char *hint, char *problem, size_t cap);

#endif
