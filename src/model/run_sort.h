/* Private to model/: a merge sort that finds the runs already in order and
 * merges them, for the loader's arrays, which come in a few sorted runs (a
 * thread's ops, then its launches, each in time order): about n compares
 * per level over the runs (one pass when already sorted) where qsort does
 * log2(n) levels whatever the input.
 *
 * TD_RUN_SORT(name, T, cmp) defines
 *     static int name(T *a, size_t n, const void *ctx)
 * sorting a[0..n) by int cmp(const void *ctx, const T *x, const T *y) (< 0,
 * 0, > 0 as for qsort): 0, or -1 when out of memory (a holding the same
 * elements, perhaps reordered).
 * When cmp orders every two distinct elements (a strict total order: ties
 * broken by an index, no NaN among the keys) the result is the only sorted
 * order, the one qsort gives; callers whose keys may hold NaN use qsort.
 * It also defines
 *     static int name_in(T *a, size_t n, const void *ctx, T *tmp)
 * which merges through the caller's tmp (room for n elements; NULL: its
 * own), for a caller that has such a buffer to spare: fresh pages cost
 * more than the merge itself on a virtual machine. */
#ifndef TD_MODEL_RUN_SORT_H
#define TD_MODEL_RUN_SORT_H

#include "util/bigmem.h"

#include <stdlib.h>
#include <string.h>

/* An element out of order by at most this many places joins the run it
 * interrupts (moved into place there) instead of starting a new one:
 * Kineto's ops of one start come in either order, each such pair a run
 * of its own otherwise, and every run costs a merge. */
#define TD_RUN_NEAR 8

#define TD_RUN_SORT(name, T, cmp)                                                                  \
    __attribute__((unused)) static int name##_in(T *a, size_t n, const void *ctx, T *own)          \
    {                                                                                              \
        size_t *run = NULL, nrun = 0, cap = 0;                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (i > 0 && cmp(ctx, &a[i - 1], &a[i]) <= 0)                                          \
                continue;                                                                          \
            if (i > 0) { /* a few places back in the run: put there */                             \
                size_t lo_ = nrun ? run[nrun - 1] : 0, k_ = i - 1;                                 \
                while (k_ > lo_ && i - k_ < TD_RUN_NEAR && cmp(ctx, &a[k_ - 1], &a[i]) > 0)        \
                    k_--;                                                                          \
                if (k_ == lo_ || cmp(ctx, &a[k_ - 1], &a[i]) <= 0) {                               \
                    T v_ = a[i];                                                                   \
                    memmove(&a[k_ + 1], &a[k_], (i - k_) * sizeof *a);                             \
                    a[k_] = v_;                                                                    \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            if (nrun + 2 > cap) {                                                                  \
                size_t nc = cap ? 2 * cap : 64;                                                    \
                size_t *nr = realloc(run, nc * sizeof *nr);                                        \
                if (!nr) {                                                                         \
                    free(run);                                                                     \
                    return -1;                                                                     \
                }                                                                                  \
                run = nr;                                                                          \
                cap = nc;                                                                          \
            }                                                                                      \
            run[nrun++] = i;                                                                       \
        }                                                                                          \
        if (nrun <= 1) {                                                                           \
            free(run);                                                                             \
            return 0;                                                                              \
        }                                                                                          \
        run[nrun] = n;                                                                             \
        T *tmp = own ? own : td_big_alloc(n * sizeof *tmp);                                        \
        if (!tmp) {                                                                                \
            free(run);                                                                             \
            return -1;                                                                             \
        }                                                                                          \
        T *src = a, *dst = tmp;                                                                    \
        while (nrun > 1) {                                                                         \
            size_t w = 0, k = 0;                                                                   \
            for (; k + 1 < nrun; k += 2) {                                                         \
                T *l = src + run[k], *le = src + run[k + 1], *r = le, *re = src + run[k + 2];      \
                T *o = dst + run[k];                                                               \
                run[w++] = run[k];                                                                 \
                if (cmp(ctx, le - 1, r) <= 0) { /* already in order: one copy */                   \
                    memcpy(o, l, (size_t)(re - l) * sizeof *o);                                    \
                    continue;                                                                      \
                }                                                                                  \
                while (l < le && r < re)                                                           \
                    *o++ = cmp(ctx, l, r) <= 0 ? *l++ : *r++;                                      \
                if (l < le)                                                                        \
                    memcpy(o, l, (size_t)(le - l) * sizeof *o);                                    \
                else if (r < re)                                                                   \
                    memcpy(o, r, (size_t)(re - r) * sizeof *o);                                    \
            }                                                                                      \
            if (k < nrun) { /* an odd run out: copied as it is */                                  \
                memcpy(dst + run[k], src + run[k], (n - run[k]) * sizeof *dst);                    \
                run[w++] = run[k];                                                                 \
            }                                                                                      \
            run[w] = n;                                                                            \
            nrun = w;                                                                              \
            T *t_ = src;                                                                           \
            src = dst;                                                                             \
            dst = t_;                                                                              \
        }                                                                                          \
        if (src != a)                                                                              \
            memcpy(a, src, n * sizeof *a);                                                         \
        if (!own)                                                                                  \
            td_big_free(tmp);                                                                      \
        free(run);                                                                                 \
        return 0;                                                                                  \
    }                                                                                              \
    __attribute__((unused)) static int name(T *a, size_t n, const void *ctx)                       \
    {                                                                                              \
        return name##_in(a, n, ctx, NULL);                                                         \
    }

#endif
