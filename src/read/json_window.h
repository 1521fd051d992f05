/*
 * The streaming JSON scanner's lowest layer: the scanner's state (the
 * window over the input, the nesting, the block index), the window's
 * functions (json_window.c) and the inline byte-level helpers that every
 * file of the scanner shares. The value readers are one floor up
 * (json_string.h, json_number.h, json_skip.h), and the pull interface
 * callers use is json_scan.h, which includes them all.
 */
#ifndef TD_JSON_WINDOW_H
#define TD_JSON_WINDOW_H

#include "tracediff.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Reads up to cap bytes into buf; returns the count, 0 at the end, < 0 on
 * error (having filled err). */
typedef long (*td_json_read_fn)(void *ud, char *buf, size_t cap, td_error *err);
/* A source that can hand over its own buffer as the window, without a copy
 * (td_reader_swap's contract); optional, set with td_json_set_swap. */
typedef long (*td_json_swap_fn)(void *ud, const char *left, size_t nleft, char **buf,
                                td_error *err);

#define TD_JSON_MAX_DEPTH 4096
/* Blocks of 64 bytes indexed at a time (json_index.h). */
#define TD_JSON_IBLOCKS 8

struct td_json_class;

typedef struct td_json {
    td_json_read_fn read;
    void *ud;
    td_error *err;
    const char *path; /* for messages */
    const char *ctx;  /* what is being read, for messages ("traceEvents") */

    char *buf;
    size_t cap, pos, end;
    char *own; /* the window's own memory: buf, unless buf is the source's (swap) */
    size_t owncap;
    td_json_swap_fn swap;
    uint64_t base; /* absolute offset of buf[0] */
    bool eof;
    size_t keep; /* bytes from this position on survive a refill (SIZE_MAX: none) */

    char *scratch; /* decoded strings with escapes, number text */
    size_t scap;

    int depth;
    uint8_t stack[TD_JSON_MAX_DEPTH / 8]; /* bit per level: 1 = object */
    int failed;

    /* The block index of buf[ib, ib + ilen): bit k of inw[b] / iqs[b] for
     * byte ib + 64 * b + k is "not white space" / "stops a plain string". */
    size_t ib, ilen;
    void (*index)(const unsigned char *p, size_t nb, uint64_t *nw, uint64_t *qs);
    uint64_t inw[TD_JSON_IBLOCKS], iqs[TD_JSON_IBLOCKS];
    /* The classifier of the structural walk that skips large values. */
    void (*classify)(const unsigned char *p, size_t nb, struct td_json_class *out);
    bool fast_walk; /* the walk built for BMI and PCLMUL (json_skip.c) */
} td_json;

typedef struct td_json_num {
    double d;     /* correctly rounded value */
    int64_t i;    /* exact value when is_int */
    bool is_int;  /* no fraction, no exponent, fits in int64 */
    bool decimal; /* written with '.', 'e' or 'E' */
} td_json_num;

/* Lets the source hand over its buffers (before the first read). */
void td_json_set_swap(td_json *j, td_json_swap_fn swap);
void td_json_free(td_json *j);

/* Absolute byte offset of the next unread byte. */
uint64_t td_json_offset(const td_json *j);

/* Skips white space and returns the next byte without consuming it, -1 at the
 * end of input, or < -1 on a read error. The scanner peeks dozens of times
 * per event: the common case (a token byte right there) is inline. */
static inline bool td_json_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

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

#ifdef __SSE2__
/* Where in the 16 bytes at p a string's fast path stops: a quote, a
 * backslash, a control byte or a non-ASCII byte (0 if none). */
static inline unsigned td_json_stop16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    __m128i stop = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    return (unsigned)_mm_movemask_epi8(stop);
}
#endif

static inline bool td_json_digit(unsigned char c)
{
    return (unsigned)(c - '0') < 10u;
}
/* A byte that may appear in a number token: after a number's digits, one
 * that continues it (the general path reads the token whole). */
static inline bool td_json_num_byte(unsigned char c)
{
    return td_json_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
#ifdef __SSE2__
/* How many of the 16 bytes at p are ASCII digits before the first that is
 * not (16: all of them). */
static inline __attribute__((always_inline)) unsigned td_json_digits_at16(const unsigned char *p)
{
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
    return (unsigned)__builtin_ctz(~(unsigned)_mm_movemask_epi8(dig));
}
#endif
/* Length of the run of ASCII digits at p (before e), eight bytes a step. A
 * byte is a digit when its high nibble is 3 and adding 6 keeps it so. A
 * carry out of a byte >= 0xFA can only spoil bytes above the first
 * non-digit, which is the one ctz finds. */
static inline __attribute__((always_inline)) size_t td_json_digit_run8(const unsigned char *p,
                                                                       const unsigned char *e)
{
    const unsigned char *q = p;
    while (e - q >= 8) {
        uint64_t w;
        memcpy(&w, q, 8);
        uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, three = 0x3030303030303030ull;
        uint64_t bad = ((w & hi) ^ three) | (((w + 0x0606060606060606ull) & hi) ^ three);
        if (bad)
            return (size_t)(q - p) + ((size_t)__builtin_ctzll(bad) >> 3);
        q += 8;
    }
    while (q < e && td_json_digit(*q))
        q++;
    return (size_t)(q - p);
}
/* The same, the first 16 bytes in one compare when they are all before e. */
static inline __attribute__((always_inline)) size_t td_json_digit_run(const unsigned char *p,
                                                                      const unsigned char *e)
{
#ifdef __SSE2__
    if (e - p >= 16) {
        unsigned n = td_json_digits_at16(p);
        return n < 16 ? n : 16 + td_json_digit_run8(p + 16, e);
    }
#endif
    return td_json_digit_run8(p, e);
}
static inline __attribute__((always_inline)) bool td_json_after_value(unsigned char c)
{
    return c == ',' || c == '}' || c == ']' || td_json_ws(c);
}
/* The end of a number without exponent at b + p ("0", "-12", "0.5925926"):
 * the offset of the byte after it, or SIZE_MAX when the bytes before e do
 * not start one. A leading "0" ends the integer part ("01" ends after the
 * "0"), so the caller's check of the byte that follows refuses it. The
 * grammar of the inline paths (td_json_skip, Kineto's short arrays), whose
 * callers have bytes to spare: b[p + 1] is read even when p + 1 == e. */
static inline __attribute__((always_inline)) size_t td_json_plain_number_end(const unsigned char *b,
                                                                             size_t p, size_t e)
{
    size_t q = p + (b[p] == '-');
    if (!td_json_digit(b[q]))
        return SIZE_MAX;
    if (b[q++] != '0')
        q += td_json_digit_run(b + q, b + e);
    if (q < e && b[q] == '.') {
        size_t f = ++q;
        q += td_json_digit_run(b + q, b + e);
        if (q == f)
            return SIZE_MAX;
    }
    return q;
}
/* The value of the eight ASCII digits in w (the first in the low byte). */
static inline uint64_t td_json_swar8(uint64_t w)
{
    w -= 0x3030303030303030ull;
    w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFull;        /* pairs */
    w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFull;      /* quads */
    return (w * 10000 + (w >> 32)) & 0x00000000FFFFFFFFull; /* eight */
}

#ifdef __SSE2__
/* The run of ASCII digits among the 16 bytes at p: its length (16 when all
 * are digits) and, when it is 1 to 16 long, its value in *v. The 15 bytes
 * before p must be readable: the 16 bytes that end with the run are read
 * again, those before the run cleared, so that the run stands right-aligned
 * as a 16-digit number, and its value is summed on SSE2's multiply-add:
 * pairs of digits, then quads, then eights, then the two eights. */
static inline unsigned td_json_digits16(const unsigned char *p, uint64_t *v)
{
    /* Read at keep + n: 0xFF from byte 16 - n on, where the run begins. */
    static const unsigned char keep[32] = {0,    0,    0,    0,    0,    0,    0,    0,
                                           0,    0,    0,    0,    0,    0,    0,    0,
                                           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    unsigned n = td_json_digits_at16(p);
    if (n == 0)
        return 0;
    __m128i x = _mm_loadu_si128((const __m128i *)(p + n - 16));
    __m128i d = _mm_and_si128(_mm_sub_epi8(x, _mm_set1_epi8('0')),
                              _mm_loadu_si128((const __m128i *)(keep + n)));
    __m128i z = _mm_setzero_si128();
    /* Each step multiplies the even value of a pair by 10^k and adds the odd. */
    __m128i pairs =
        _mm_packs_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(d, z), _mm_set1_epi32(10 | 1 << 16)),
                        _mm_madd_epi16(_mm_unpackhi_epi8(d, z), _mm_set1_epi32(10 | 1 << 16)));
    __m128i quads = _mm_madd_epi16(pairs, _mm_set1_epi32(100 | 1 << 16));
    __m128i eights = _mm_madd_epi16(_mm_packs_epi32(quads, quads), _mm_set1_epi32(10000 | 1 << 16));
    uint64_t hi = (uint32_t)_mm_cvtsi128_si32(eights);
    uint64_t lo = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(eights, 4));
    *v = hi * 100000000u + lo;
    return n;
}
#endif

/* Leading JSON white space among the 16 bytes at p (16: all of them). */
static inline unsigned td_json_ws16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    __m128i w = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
    unsigned m = ~(unsigned)_mm_movemask_epi8(w) & 0xFFFFu;
    return m ? (unsigned)__builtin_ctz(m) : 16;
}

/* One level deeper, into an object or an array (the caller has checked
 * the depth): the stack keeps a bit per level, set for an object. */
static inline void td_json_enter(td_json *j, bool object)
{
    uint8_t bit = (uint8_t)(1u << (j->depth & 7));
    if (object)
        j->stack[j->depth >> 3] |= bit;
    else
        j->stack[j->depth >> 3] &= (uint8_t)~bit;
    j->depth++;
}

/* Drops the window: the next byte read is taken to be the one at absolute
 * offset off (the caller has moved its source there). The nesting stays:
 * a walk goes on from another place in the same document. */
void td_json_restart(td_json *j, uint64_t off);

/* Enters an object or array (object true / false) without reading its
 * opening byte: a walk begun in the middle of a document, inside values it
 * did not read, says what encloses it. */
int td_json_assume(td_json *j, bool object);

/* Sets a parse error at the current offset. */
int td_json_error(td_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips a UTF-8 byte order mark at the start; returns 1 if there was one. */
int td_json_skip_bom(td_json *j);

#endif
