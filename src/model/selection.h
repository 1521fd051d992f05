#ifndef TD_SELECTION_H
#define TD_SELECTION_H

#include "tracediff.h"

/* The values of want among have (sorted): all of them for "all", the lowest
 * for the default, else each listed value, which must be in have. *out is
 * malloc'd. what/side name them in the error ("iteration", "control"). */
int td_resolve(int64_t **out, size_t *nout, const td_list *want, const int64_t *have,
               size_t nhave, const char *what, const char *side, td_error *err);

#endif
