/*
 * Strings of the streaming JSON scanner (json_string.c): the general path of
 * td_json_string (json_scan.h reads the short plain ones inline) and the
 * scratch buffer that decoded strings and number texts are copied into.
 */
#ifndef TD_JSON_STRING_H
#define TD_JSON_STRING_H

#include "read/json_window.h"

/* Reads a string value (the next token must be one). *s is valid until the
 * next call on j; it may hold NUL bytes (from \u0000). Lone surrogates are
 * kept as their 3-byte (WTF-8) encoding so distinct names stay distinct. */
int td_json_string_slow(td_json *j, const char **s, size_t *len);
/* Reads the string at j->pos, decoded into the scratch buffer when decode
 * (else only validated; *s and *len may be NULL then). */
int td_json_scan_string(td_json *j, bool decode, const char **s, size_t *len);
/* Makes the scratch buffer hold at least need bytes. */
int td_json_scratch_reserve(td_json *j, size_t need);

#endif
