/* util/: errors, options structs and growable arrays, the ground every
 * folder of the library stands on (util/ includes nothing above it). */
#ifndef TD_UTIL_H
#define TD_UTIL_H

#include "tracediff.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* error.c */
int td_fail(td_error *err, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int td_fail_at(td_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The ABI check of an options struct (tracediff.h, "Options structs"):
 * *dst (own bytes, alignment align) becomes *dflt with the caller's first
 * opts->size bytes copied over it, and dst's size becomes own; NULL opts
 * gives *dflt. A size of 0, below sizeof(size_t) + 1, not a multiple of
 * align or above own is refused: TD_EUSAGE naming type and its _INIT macro. */
int td_opts_take(void *dst, const void *opts, const void *dflt, size_t own, size_t align,
                 const char *type, td_error *err);
/* TD_OPTS_TAKE(&copy, opts, td_x_opts, TD_X_OPTS_INIT, err) */
#define TD_OPTS_TAKE(dst, opts, type, init, err)                                                   \
    td_opts_take(dst, opts, &(const type)init, sizeof(type), _Alignof(type), #type, err)

/* Whether s ends with suf, byte for byte. */
bool td_has_suffix(const char *s, const char *suf);
/* Whether the file name s ends with the extension ext in any case, after
 * something (".svg" alone has no name before it). */
bool td_has_ext(const char *s, const char *ext);

/* Growable arrays of plain data. */
void *td_grow(void *ptr, size_t *cap, size_t need, size_t elem);

/* qsort's order of doubles, ascending. */
static inline int td_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
