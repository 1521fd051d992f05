/*
 * Skipping values in the streaming JSON scanner (json_skip.c): the general
 * path of td_json_skip (json_scan.h skips short strings and plain numbers
 * inline), the short arrays Kineto's args hold, and the structural walk
 * that skips large values.
 */
#ifndef TD_JSON_SKIP_H
#define TD_JSON_SKIP_H

#include "read/json_window.h"

/* Skips one value of any type, validating it; the general path, which
 * gives the errors. */
int td_json_skip_slow(td_json *j);
/* Skips the array whose '[' is at j->buf + p (p being j->pos or the byte
 * after one space), reading the short ones args hold without the general
 * path. */
int td_json_skip_array(td_json *j, size_t p);
/* Fills the structural walk's tables (once, from td_json_init). */
void td_json_walk_init(void);

#endif
