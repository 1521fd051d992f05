/* The diff's rows as they are built: a key per row (a name, short-named or
 * folded as asked, or an op, annotation or class) and each side's sums.
 * Used by diff.c and by_op.c. */
#include "compare/row_builder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void td_acc_add_dur(acc *a, int side, double x)
{
    if (isnan(x))
        return; /* a missing value, skipped as pandas' sum does */
    double s = a->sum[side], t = s + x;
    double c = fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
    /* Once the sum overflows (or meets an infinite dur) the correction is
     * infinite or NaN: drop it, as pandas does, so that the total is the
     * infinity and not NaN. */
    if (isfinite(c))
        a->comp[side] += c;
    a->sum[side] = t;
}

int64_t td_builder_row(builder *b, const char *s, size_t len, bool whole)
{
    char *key = NULL;
    size_t kl = len;
    if (!whole && td_name_key(&key, &kl, s, len, b->short_names, b->normalize, b->renames) < 0)
        return -1;
    int64_t id = td_strtab_intern(b->names, key ? key : s, kl);
    free(key);
    if (id < 0)
        return -1;
    if ((size_t)id >= b->cap) {
        size_t old = b->cap;
        acc *na = td_grow(b->acc, &b->cap, (size_t)id + 1, sizeof *na);
        if (!na)
            return -1;
        memset(na + old, 0, (b->cap - old) * sizeof *na);
        b->acc = na;
    }
    return id;
}
