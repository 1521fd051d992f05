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

int td_json_init(td_json *j, td_json_read_fn read, void *ud, const char *path, td_error *err);
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

/* Reads a string value (the next token must be one). *s is valid until the
 * next call on j; it may hold NUL bytes (from \u0000). Lone surrogates are
 * kept as their 3-byte (WTF-8) encoding so distinct names stay distinct. */
int td_json_string_slow(td_json *j, const char **s, size_t *len);

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

static inline int td_json_string(td_json *j, const char **s, size_t *len)
{
#ifdef __SSE2__
    /* A plain string of up to 31 bytes right here: no call. */
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (p + 33 <= j->end && b[p] == '"') {
        size_t q = p + 1;
        unsigned m = td_json_stop16(b + q);
        if (!m) {
            q += 16;
            m = td_json_stop16(b + q);
        }
        if (m) {
            q += (size_t)__builtin_ctz(m);
            if (b[q] == '"') {
                *s = j->buf + p + 1;
                *len = q - p - 1;
                j->pos = q + 1;
                return 0;
            }
        }
    }
#endif
    return td_json_string_slow(j, s, len);
}

/* A plain integer (0 or up to 18 digits, no sign) followed by what may
 * follow a value, read inline: returns 1 with *out set. Anything else, or
 * too near the end of the buffer: returns 0 having consumed nothing (read it
 * with td_json_number). For ids read by the million (pid, tid). */
static inline int td_json_small_int(td_json *j, int64_t *out)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (j->end - p < 24)
        return 0;
    if (b[p] == ' ')
        p++;
    size_t q = p;
    int64_t v = 0;
    while (q < p + 18 && b[q] >= '0' && b[q] <= '9')
        v = v * 10 + (b[q++] - '0');
    if (q == p || (b[p] == '0' && q > p + 1) ||
        !(b[q] == ',' || b[q] == '}' || b[q] == ']' || td_json_ws(b[q])))
        return 0;
    j->pos = q;
    *out = v;
    return 1;
}

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

/* Reads a number. The usual one, an integer of up to 16 digits followed by
 * a byte that cannot continue a number, is read inline. */
int td_json_number_slow(td_json *j, td_json_num *out);
/* The rest of a number whose n integer digits (value v) at b + d are
 * followed by '.': a decimal read as number_in_window does, or the
 * general path. p is where the number starts ('-' or its first digit). */
int td_json_number_frac(td_json *j, size_t p, size_t d, unsigned n, uint64_t v, td_json_num *out);
static inline __attribute__((always_inline)) int td_json_number(td_json *j, td_json_num *out)
{
#ifdef __SSE2__
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (j->end - p >= 40 && p >= 16) { /* td_json_digits16 reads 15 bytes back */
        p += b[p] == ' ';
        size_t d = p + (b[p] == '-');
        uint64_t v;
        unsigned n = td_json_digits16(b + d, &v);
        unsigned char c = b[d + n];
        if (n && !(b[d] == '0' && n > 1)) {
            if (!td_json_num_byte(c)) {
                out->i = d > p ? -(int64_t)v : (int64_t)v;
                out->d = (double)out->i;
                out->is_int = true;
                out->decimal = false;
                j->pos = d + n;
                return 0;
            }
            if (c == '.')
                return td_json_number_frac(j, p, d, n, v, out);
        }
    }
#endif
    return td_json_number_slow(j, out);
}

/* Skips one value of any type, validating it. The most common skipped
 * values are read inline: a plain string of up to 31 bytes, and a number
 * without exponent ("0", "-12", "0.5925926") followed by what may follow a
 * value. Anything else, and anything near the window's edge, takes the
 * general path, which gives the errors. An array goes to
 * td_json_skip_array (its '[' at j->buf + p, p being j->pos or the byte
 * after one space), which reads the short ones args hold without the
 * general path (json_skip.c). */
int td_json_skip_slow(td_json *j);
int td_json_skip_array(td_json *j, size_t p);
static inline __attribute__((always_inline)) int td_json_skip(td_json *j)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end;
    if (e - p < 48)
        return td_json_skip_slow(j);
    if (b[p] == ' ')
        p++;
#ifdef __SSE2__
    if (b[p] == '"') {
        size_t q = p + 1;
        unsigned m = td_json_stop16(b + q);
        if (!m) {
            q += 16;
            m = td_json_stop16(b + q);
        }
        if (m) {
            q += (size_t)__builtin_ctz(m);
            if (b[q] == '"') {
                j->pos = q + 1;
                return 0;
            }
        }
        return td_json_skip_slow(j);
    }
#endif
    if (b[p] == '[')
        return td_json_skip_array(j, p);
    size_t q = td_json_plain_number_end(b, p, e);
    if (q < e && td_json_after_value(b[q])) { /* SIZE_MAX: not one */
        j->pos = q;
        return 0;
    }
    return td_json_skip_slow(j);
}

/* Objects: td_json_obj_begin consumes '{'; td_json_obj_next returns 1 with
 * the next key read (and ':' consumed), 0 after the closing '}', < 0 on
 * error. first must start true. */
int td_json_obj_begin_slow(td_json *j);
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
static inline int td_json_obj_begin(td_json *j)
{
    size_t p = j->pos;
    if (p + 1 < j->end && j->depth < TD_JSON_MAX_DEPTH) { /* '{' right here, or after a space */
        p += j->buf[p] == ' ';
        if (j->buf[p] == '{') {
            td_json_enter(j, true);
            j->pos = p + 1;
            return 0;
        }
    }
    return td_json_obj_begin_slow(j);
}
int td_json_obj_next_slow(td_json *j, bool *first, const char **key, size_t *klen);

/* The usual member, [white space] [',' white space] "key" [' '] ':', and the
 * '}' after a member are read inline; anything else (an empty object, long
 * or escaped keys, the window's edge, errors) goes to the general path,
 * which starts afresh. */
/* The '}' at q ends the object being read. */
static inline int td_json_obj_end(td_json *j, size_t q)
{
    j->pos = q + 1;
    j->depth--;
    return 0;
}

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

static inline __attribute__((always_inline)) int td_json_obj_next(td_json *j, bool *first,
                                                                  const char **key, size_t *klen)
{
#ifdef __SSE2__
    /* Margins: every load below stays inside the window. */
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end, k;
    if (e - p < 80)
        goto slow;
    if (td_json_ws(b[p])) {
        do {
            k = td_json_ws16(b + p);
            p += k;
        } while (k == 16 && p + 80 <= e);
        if (p + 64 > e)
            goto slow;
    }
    if (!*first) {
        if (b[p] == '}')
            return td_json_obj_end(j, p);
        if (b[p] != ',')
            goto slow;
        p++;
        if (b[p] == ' ' && b[p + 1] > ' ') /* ", " as Kineto writes it */
            p++;
        else if (td_json_ws(b[p])) {
            do {
                k = td_json_ws16(b + p);
                p += k;
            } while (k == 16 && p + 80 <= e);
            if (p + 40 > e)
                goto slow;
        }
    }
    if (b[p] != '"')
        goto slow;
    {
        /* Keys up to 31 bytes. */
        unsigned m = td_json_stop16(b + p + 1);
        size_t q = p + 1;
        if (!m) {
            m = td_json_stop16(b + p + 17);
            q = p + 17;
            if (!m)
                goto slow;
        }
        q += (size_t)__builtin_ctz(m);
        if (b[q] != '"')
            goto slow;
        size_t c = q + 1;
        if (b[c] == ' ')
            c++;
        if (b[c] != ':')
            goto slow;
        *key = j->buf + p + 1;
        *klen = q - p - 1;
        *first = false;
        j->pos = c + 1;
        return 1;
    }
slow:
#endif
    return td_json_obj_next_slow(j, first, key, klen);
}

/* Member layouts seen before. The bytes from the end of one value to the
 * start of the next, "[ws] [',' ws] \"key\" [ws] ':' [' ']", repeat from object to
 * object of a kind (trace events, their args): a caller keeps a
 * td_json_keys per kind, which remembers each layout read through it (up
 * to 32 bytes, a plain key) and the two that last followed it. A member
 * whose bytes equal a predicted layout's is read with two 16-byte
 * compares, no scan: those bytes were accepted by the general path in the
 * same place (after '{' for a first member, after a value otherwise; a
 * layout's own bytes say which), so they are valid here too. Each layout
 * carries a tag for the caller (-1 until the caller sets it), so that a
 * key is classified once, not once per object. */
#define TD_JSON_KEYS_MAX 64
#define TD_JSON_KEY_BYTES 32
typedef struct td_json_key {
    unsigned char bytes[TD_JSON_KEY_BYTES]; /* zero past len */
    uint32_t care_not;                      /* bit k set: byte k is past len */
    uint8_t len, koff, klen;                /* the key: bytes[koff], klen bytes */
    int8_t tag;
    uint8_t next[2];       /* the layouts that followed, the latest learnt first; 0: none */
    unsigned char pad[22]; /* 64 bytes a layout */
} td_json_key;
_Static_assert(sizeof(td_json_key) == 64, "a layout is found by a shift");
/* k[TD_JSON_KEY_BEGIN] stands for an object's '{': its next[] holds the
 * layouts that began an object, and it is never matched itself. */
#define TD_JSON_KEY_BEGIN TD_JSON_KEYS_MAX
typedef struct td_json_keys {
    td_json_key k[TD_JSON_KEYS_MAX + 1]; /* k[0]: none, never matched */
    uint8_t n;                           /* layouts in k[1..n] */
    uint8_t cur;        /* the member just read (0: not a layout; TD_JSON_KEY_BEGIN: none yet) */
    int8_t scratch_tag; /* the tag of a member that is not a layout */
    uint8_t slot[2 * TD_JSON_KEYS_MAX]; /* by hash of the bytes: index, 0 empty */
} td_json_keys;

/* td_json_obj_begin for an object whose members are read through ks:
 * the next member is a first one, so only layouts that began an object
 * are tried. */
static inline int td_json_obj_begin_keys(td_json *j, td_json_keys *ks)
{
    ks->cur = TD_JSON_KEY_BEGIN;
    return td_json_obj_begin(j);
}

/* The general path of td_json_member: td_json_obj_next, then the layout
 * learnt. */
int td_json_member_slow(td_json *j, td_json_keys *ks, const char **key, size_t *klen, int8_t **tag);

#ifdef __SSE2__
/* Whether the 32 bytes x0, x1 start with layout t. */
static inline bool td_json_key_at(const td_json_key *t, __m128i x0, __m128i x1)
{
    uint32_t eq = (uint32_t)_mm_movemask_epi8(
                      _mm_cmpeq_epi8(x0, _mm_loadu_si128((const __m128i *)t->bytes))) |
                  (uint32_t)_mm_movemask_epi8(
                      _mm_cmpeq_epi8(x1, _mm_loadu_si128((const __m128i *)(t->bytes + 16))))
                      << 16;
    return (eq | t->care_not) == 0xFFFFFFFFu;
}
#endif

/* td_json_obj_next through the layouts of ks (zeroed before first use),
 * in an object begun by td_json_obj_begin_keys, which also stands for
 * td_json_obj_next's first. On 1, *tag points to the member's tag, which
 * the caller may set; *key and *klen are set only while that tag is < 0
 * (the caller has not classified the key yet): a tagged layout's key is
 * known by its tag. The '}' that ends an object, after white space or
 * not, is read inline too. */
static inline __attribute__((always_inline)) int
td_json_member(td_json *j, td_json_keys *ks, const char **key, size_t *klen, int8_t **tag)
{
#ifdef __SSE2__
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (j->end - p >= 64) {
        const uint8_t *pred = ks->k[ks->cur].next;
        __m128i x0 = _mm_loadu_si128((const __m128i *)(b + p));
        __m128i x1 = _mm_loadu_si128((const __m128i *)(b + p + 16));
        uint8_t i = pred[0];
        const td_json_key *t = &ks->k[i];
        if (!i || !td_json_key_at(t, x0, x1)) {
            i = pred[1];
            t = &ks->k[i];
            if (!i || !td_json_key_at(t, x0, x1)) {
                size_t q = p + td_json_ws16(b + p);
                if (b[q] != '}')
                    return td_json_member_slow(j, ks, key, klen, tag);
                return td_json_obj_end(j, q);
            }
        }
        if (t->tag < 0) {
            *key = j->buf + p + t->koff;
            *klen = t->klen;
        }
        *tag = &ks->k[i].tag;
        j->pos = p + t->len;
        ks->cur = i;
        return 1;
    }
#endif
    return td_json_member_slow(j, ks, key, klen, tag);
}

/* Arrays: likewise; td_json_arr_next returns 1 when a value follows. The
 * usual step between elements, ',' and the white space before the next
 * value (none, one byte, or Kineto's line feed and indent), is read
 * inline. */
int td_json_arr_begin(td_json *j);
int td_json_arr_next_slow(td_json *j, bool *first);
static inline int td_json_arr_next(td_json *j, bool *first)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end;
    if (!*first && e - p > 48 && b[p] == ',') {
        p++;
        p += b[p] == ' ' || b[p] == '\n';
        if (td_json_ws(b[p])) {
#ifdef __SSE2__
            size_t k;
            do {
                k = td_json_ws16(b + p);
                p += k;
            } while (k == 16 && p + 32 <= e);
#else
            while (p + 1 < e && td_json_ws(b[p]))
                p++;
#endif
        }
        if (p < e && b[p] > ' ' && b[p] != ']') {
            j->pos = p;
            return 1;
        }
    }
    return td_json_arr_next_slow(j, first);
}

/* Drops the window: the next byte read is taken to be the one at absolute
 * offset off (the caller has moved its source there). The nesting stays:
 * a walk goes on from another place in the same document. */
void td_json_restart(td_json *j, uint64_t off);

/* Enters an object or array (object true / false) without reading its
 * opening byte: a walk begun in the middle of a document, inside values it
 * did not read, says what encloses it. */
int td_json_assume(td_json *j, bool object);

/* After the top-level value: nothing but white space may follow. */
int td_json_end(td_json *j);

/* Sets a parse error at the current offset. */
int td_json_error(td_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips a UTF-8 byte order mark at the start; returns 1 if there was one. */
int td_json_skip_bom(td_json *j);

#endif
