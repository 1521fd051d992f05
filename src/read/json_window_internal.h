/*
 * The streaming JSON scanner's private header (read/ only): what its files
 * share, as zstd's compress/zstd_compress_internal.h does for its own.
 * json_window.c holds the window, errors and the byte classes;
 * json_string.c the strings; json_number.c the numbers; json_skip.c the
 * skipping of values (the structural walk, short arrays); json_scan.c
 * opening a scanner, objects and arrays. Each calls only files listed
 * before it; each has its header (json_window.h ... json_scan.h), and
 * this one is of the lowest floor, beside json_window.h. The helpers of the hot paths are
 * static inline here, so that splitting the file moved no call out of line.
 */
#ifndef TD_JSON_WINDOW_INTERNAL_H
#define TD_JSON_WINDOW_INTERNAL_H

#include "read/json_window.h"

#include "read/json_index.h"
#include "read/reader.h"
#include "util/strtab.h"
#include "util/utf8_text.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef __x86_64__
#include <immintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* The fuzz build shrinks the window (-DTD_JSON_WINDOW=256) so that tokens
 * longer than it, and the window's growth, are reached by small inputs. */
#ifndef TD_JSON_WINDOW
#define TD_JSON_WINDOW (1u << 20)
#endif
#define WINDOW TD_JSON_WINDOW
/* The window starts at a sixteenth of its size and takes the whole size once
 * the input proves longer: a small document (a summary's packed blob, a test's
 * string, a short trace) costs a small buffer, which allocators keep at hand
 * instead of mapping and unmapping it each time. */
#define WINDOW_START (WINDOW / 16)
#define NO_KEEP SIZE_MAX

/* The byte classes (json_window.c), filled once by the first td_json_init. */
/* Bytes that end the fast path of a string: '"', '\\', controls, non-ASCII. */
extern unsigned char td_json_str_stop[256];
/* JSON white space. */
extern unsigned char td_json_is_ws[256];
/* Bytes that may appear in a number token. */
extern unsigned char td_json_num_char[256];
/* Bytes that may follow a number or a literal without continuing it: white
 * space, '"' and the six structural bytes. */
extern unsigned char td_json_ends_scalar[256];

/* Between the scanner's files: the window (json_window.c), strings
 * (json_string.c), numbers (json_number.c), skipping (json_skip.c). */
void td_json_tables_init(void);
long td_json_fill(td_json *j, size_t need);
int td_json_error_at(td_json *j, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int td_json_expect_byte(td_json *j, int want, const char *what);
int td_json_literal(td_json *j);

#define NOPOS SIZE_MAX

/* Indexes the blocks from pos on: TD_JSON_IBLOCKS of them where the index
 * just ended (a walk going on through the window), one elsewhere (a caller
 * that mostly reads inline and wants a few bytes); false when fewer than 64
 * bytes are left in the window. */
static inline bool index_from(td_json *j, size_t pos)
{
    size_t nb = (j->end - pos) / 64;
    if (nb == 0)
        return false;
    size_t most = pos == j->ib + j->ilen ? TD_JSON_IBLOCKS : 1;
    if (nb > most)
        nb = most;
    j->index((const unsigned char *)j->buf + pos, nb, j->inw, j->iqs);
    j->ib = pos;
    j->ilen = nb * 64;
    return true;
}

/* The first position from pos on whose bit is set in the mask array m of the
 * index (j->inw or j->iqs), indexing further as needed; NOPOS when the window
 * ends (fewer than 64 bytes unindexed) before one. */
static inline size_t index_next(td_json *j, const uint64_t *m, size_t pos)
{
    for (;;) {
        size_t off = pos - j->ib; /* wraps when pos < ib: then indexed afresh */
        if (off >= j->ilen) {
            if (!index_from(j, pos))
                return NOPOS;
            off = 0;
        }
        uint64_t bits = m[off >> 6] >> (off & 63);
        if (bits)
            return pos + (size_t)__builtin_ctzll(bits);
        pos += 64 - (off & 63);
    }
}

/* First non-white-space byte in [p, e), or e. Indentation runs of pretty
 * printed traces are long enough for 16 bytes at a time to pay. */
static inline const unsigned char *skip_ws(const unsigned char *p, const unsigned char *e)
{
    if (p < e && !td_json_is_ws[*p])
        return p;
#ifdef __SSE2__
    while (e - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                              _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                                              _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
        unsigned m = ~(unsigned)_mm_movemask_epi8(w) & 0xFFFFu;
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < e && td_json_is_ws[*p])
        p++;
    return p;
}

/* First byte in [p, e) that ends the fast path of a string, or e. */
static inline const unsigned char *skip_plain(const unsigned char *p, const unsigned char *e)
{
#ifdef __SSE2__
    while (e - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        /* Signed compare: bytes below 0x20 and from 0x80 up are both < 0x20. */
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                 _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                    _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < e && !td_json_str_stop[*p])
        p++;
    return p;
}

/* The first byte from pos on that stops a plain string, or NOPOS when the
 * window ends first: through the index where it covers pos already, else
 * 16 bytes at a time (indexing for a long string met alone, such as a
 * kernel's name, would index far past its end). */
static inline size_t string_stop(td_json *j, size_t pos)
{
    if (pos - j->ib < j->ilen)
        return index_next(j, j->iqs, pos);
    const unsigned char *b = (const unsigned char *)j->buf;
    const unsigned char *p = skip_plain(b + pos, b + j->end);
    return p < b + j->end ? (size_t)(p - b) : NOPOS;
}

/* Makes the whole number token available from pos; returns its length. */
static inline long number_token(td_json *j)
{
    size_t i = j->pos;
    for (;;) {
        const unsigned char *b = (const unsigned char *)j->buf;
        while (i < j->end && td_json_num_char[b[i]])
            i++;
        if (i < j->end || j->eof)
            return (long)(i - j->pos);
        size_t rel = i - j->pos;
        long n = td_json_fill(j, rel + 64);
        if (n < 0)
            return n;
        i = j->pos + rel;
    }
}

/* Checks the JSON number grammar on t[0..n); sets *decimal. */
static inline bool number_valid(const char *t, size_t n, bool *decimal)
{
    size_t k = 0;
    *decimal = false;
    if (k < n && t[k] == '-')
        k++;
    if (k >= n)
        return false;
    if (t[k] == '0')
        k++;
    else if (t[k] >= '1' && t[k] <= '9')
        while (k < n && t[k] >= '0' && t[k] <= '9')
            k++;
    else
        return false;
    if (k < n && t[k] == '.') {
        *decimal = true;
        k++;
        size_t d = k;
        while (k < n && t[k] >= '0' && t[k] <= '9')
            k++;
        if (k == d)
            return false;
    }
    if (k < n && (t[k] == 'e' || t[k] == 'E')) {
        *decimal = true;
        k++;
        if (k < n && (t[k] == '+' || t[k] == '-'))
            k++;
        size_t d = k;
        while (k < n && t[k] >= '0' && t[k] <= '9')
            k++;
        if (k == d)
            return false;
    }
    return k == n;
}

static inline int push(td_json *j, bool object)
{
    if (j->depth >= TD_JSON_MAX_DEPTH)
        return td_json_error(j, "nesting deeper than %d levels", TD_JSON_MAX_DEPTH);
    td_json_enter(j, object);
    return 0;
}

static inline bool top_is_object(const td_json *j)
{
    int d = j->depth - 1;
    return (j->stack[d >> 3] >> (d & 7)) & 1;
}

#endif
