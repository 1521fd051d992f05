/*
 * Numbers of the streaming JSON scanner (json_number.c): the general path
 * of td_json_number (json_scan.h reads the usual integers inline) and the
 * decimals that follow an integer part read inline.
 */
#ifndef TD_JSON_NUMBER_H
#define TD_JSON_NUMBER_H

#include "read/json_window.h"

/* Reads a number: the general path, which gives the errors. */
int td_json_number_slow(td_json *j, td_json_num *out);
/* The rest of a number whose n integer digits (value v) at b + d are
 * followed by '.': a decimal read as number_in_window does, or the
 * general path. p is where the number starts ('-' or its first digit). */
int td_json_number_frac(td_json *j, size_t p, size_t d, unsigned n, uint64_t v, td_json_num *out);
/* The error for a token that is not a JSON number. */
int td_json_bad_number(td_json *j);

#endif
