/*
 * The interner's quick look-up, inline for the one caller that interns a
 * string per event (the trace loader); everything else goes through
 * td_strtab_intern (strtab_intern.c). Other code uses util/strtab.h only.
 */
#ifndef TD_UTIL_STRTAB_QUICK_H
#define TD_UTIL_STRTAB_QUICK_H

#include "util/strtab.h"
#include "util/strtab_layout.h"

/* td_strtab_intern itself, inline for the loader: a string in the quick
 * table is found with no call (lengths beyond UINT32_MAX never match a
 * quick entry's). */
static inline int64_t td_strtab_intern_inline(td_strtab *t, const char *s, size_t len)
{
    uint64_t a, z;
    td_strtab_quick_words(s, len, &a, &z);
    const struct td_strtab_quick *q = &t->quick[td_strtab_quick_key(a, z, len)];
    if (td_strtab_quick_hit(t, q, s, len, a, z))
        return (int64_t)q->id1 - 1;
    return td_strtab_intern_miss(t, s, len, a, z);
}

#endif
