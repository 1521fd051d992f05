/*
 * td_strtab_intern: the quick look-up of util/strtab_quick.h, out of line
 * for every caller but the trace loader.
 */
#include "util/strtab_quick.h"

int64_t td_strtab_intern(td_strtab *t, const char *s, size_t len)
{
    return td_strtab_intern_inline(t, s, len);
}
