/*
 * A streaming, validating JSON pull scanner over a sliding window.
 *
 * It knows nothing of traces: a caller walks objects and arrays with
 * td_json_obj_next / td_json_arr_next, reads the scalars it wants and skips
 * every other value with td_json_skip, which validates without building
 * anything. Memory is the window plus the longest single token, never the
 * document.
 */
#ifndef TD_JSON_SCAN_H
#define TD_JSON_SCAN_H

#include "tracediff.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads up to cap bytes into buf; returns the count, 0 at the end, < 0 on
 * error (having filled err). */
typedef long (*td_json_read_fn)(void *ud, char *buf, size_t cap, td_error *err);

#define TD_JSON_MAX_DEPTH 4096

typedef struct td_json {
    td_json_read_fn read;
    void *ud;
    td_error *err;
    const char *path; /* for messages */
    const char *ctx;  /* what is being read, for messages ("traceEvents") */

    char *buf;
    size_t cap, pos, end;
    uint64_t base; /* absolute offset of buf[0] */
    bool eof;
    size_t keep; /* bytes from this position on survive a refill (SIZE_MAX: none) */

    char *scratch; /* decoded strings with escapes, number text */
    size_t scap;

    int depth;
    uint8_t stack[TD_JSON_MAX_DEPTH / 8]; /* bit per level: 1 = object */
    int failed;
} td_json;

typedef struct td_json_num {
    double d;     /* correctly rounded value */
    int64_t i;    /* exact value when is_int */
    bool is_int;  /* no fraction, no exponent, fits in int64 */
    bool decimal; /* written with '.', 'e' or 'E' */
} td_json_num;

int td_json_init(td_json *j, td_json_read_fn read, void *ud, const char *path, td_error *err);
void td_json_free(td_json *j);

/* Absolute byte offset of the next unread byte. */
uint64_t td_json_offset(const td_json *j);

/* Skips white space and returns the next byte without consuming it, -1 at the
 * end of input, or < -1 on a read error. The scanner peeks dozens of times
 * per event: the common case (a token byte right there) is inline. */
int td_json_peek_slow(td_json *j);
static inline int td_json_peek(td_json *j)
{
    if (j->pos + 1 < j->end) {
        unsigned char c = (unsigned char)j->buf[j->pos];
        if (c > ' ')
            return c;
        /* One space, as after every ", " and ": " of Kineto's output. */
        unsigned char d = (unsigned char)j->buf[j->pos + 1];
        if (c == ' ' && d > ' ') {
            j->pos++;
            return d;
        }
    }
    return td_json_peek_slow(j);
}

/* Reads a string value (the next token must be one). *s is valid until the
 * next call on j; it may hold NUL bytes (from \u0000). Lone surrogates are
 * kept as their 3-byte (WTF-8) encoding so distinct names stay distinct. */
int td_json_string(td_json *j, const char **s, size_t *len);

/* Reads a number. */
int td_json_number(td_json *j, td_json_num *out);

/* Skips one value of any type, validating it. */
int td_json_skip(td_json *j);

/* Objects: td_json_obj_begin consumes '{'; td_json_obj_next returns 1 with
 * the next key read (and ':' consumed), 0 after the closing '}', < 0 on
 * error. first must start true. */
int td_json_obj_begin(td_json *j);
int td_json_obj_next(td_json *j, bool *first, const char **key, size_t *klen);

/* Arrays: likewise; td_json_arr_next returns 1 when a value follows. */
int td_json_arr_begin(td_json *j);
int td_json_arr_next(td_json *j, bool *first);

/* After the top-level value: nothing but white space may follow. */
int td_json_end(td_json *j);

/* Sets a parse error at the current offset. */
int td_json_error(td_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips a UTF-8 byte order mark at the start; returns 1 if there was one. */
int td_json_skip_bom(td_json *j);

#endif
