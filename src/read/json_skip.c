/* The JSON scanner's skipping of values: the hot loop of the usual tokens,
 * the structural walk over the block index and short arrays on bit masks. */
#include "read/json_number.h"
#include "read/json_skip.h"
#include "read/json_string.h"
#include "read/json_window_internal.h"

/* td_json_peek through the index: the next non-white-space byte (j->pos
 * moved there), -1 at the end, < -1 on a read error. */
static inline int next_token(td_json *j)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos;
    if (p < j->end && b[p] > ' ')
        return b[p];
    if (p + 1 < j->end && b[p] == ' ' && b[p + 1] > ' ') {
        j->pos = p + 1;
        return b[p + 1];
    }
    p = index_next(j, j->inw, p);
    if (p != NOPOS) {
        j->pos = p;
        return b[p];
    }
    return td_json_peek_slow(j);
}

/* Skips the string whose quote is at j->pos: through the index when it is
 * plain ASCII and ends in the window, else by the general (validating) path. */
static inline int skip_string(td_json *j)
{
    size_t q = string_stop(j, j->pos + 1);
    if (q != NOPOS && j->buf[q] == '"') {
        j->pos = q + 1;
        return 0;
    }
    return td_json_scan_string(j, false, NULL, NULL);
}

/* "key": with the next token, c, at j->pos; the errors of the general path. */
static inline int skip_key(td_json *j, int c)
{
    int rc = c == '"' ? skip_string(j) : td_json_scan_string(j, false, NULL, NULL);
    if (rc < 0)
        return c == '\'' ? td_json_error(j, "single quotes are not JSON") : rc;
    if (next_token(j) == ':') {
        j->pos++;
        return 0;
    }
    return td_json_expect_byte(j, ':', "':'");
}

/* A number, c its first byte, at j->pos. */
static inline int skip_number(td_json *j, int c)
{
    /* Plain integers, wholly in the window: no second pass. */
    const unsigned char *d = (const unsigned char *)j->buf + j->pos + (c == '-');
    const unsigned char *e = (const unsigned char *)j->buf + j->end;
    size_t nd = td_json_digit_run(d, e);
    const unsigned char *p = d + nd;
    if (nd > 0 && p < e && !td_json_num_char[*p] && !(*d == '0' && nd > 1)) {
        j->pos = (size_t)((const char *)p - j->buf);
        return 0;
    }
    long n = number_token(j);
    if (n < 0)
        return (int)n;
    bool decimal;
    if (!number_valid(j->buf + j->pos, (size_t)n, &decimal))
        return td_json_bad_number(j);
    j->pos += (size_t)n;
    return 0;
}

/* After '{' or '[' (pushed, consumed): 1 if it closed at once, 0 with the
 * first key (and ':') or nothing consumed before the first value, < 0. */
static inline int skip_open(td_json *j, int c)
{
    int d = next_token(j);
    if (d == (c == '{' ? '}' : ']')) {
        j->pos++;
        j->depth--;
        return 1;
    }
    if (c == '{') {
        if (d == '\'')
            return td_json_error(j, "single quotes are not JSON");
        return skip_key(j, d);
    }
    if (d == ']' || d == '}' || d == ',')
        return td_json_error(j, "expected a value");
    return 0;
}

/* The end of the number at b + p when it is one by the JSON grammar and
 * what follows (before e) cannot continue a number token; else NOPOS, and
 * the general path decides. */
static inline __attribute__((always_inline)) size_t number_end(const unsigned char *b, size_t p,
                                                               const unsigned char *e)
{
    const unsigned char *d = b + p;
    if (*d == '-')
        d++;
    size_t nd = td_json_digit_run(d, e);
    if (nd == 0 || (*d == '0' && nd > 1))
        return NOPOS;
    d += nd;
    if (d < e && *d == '.') {
        d++;
        if ((nd = td_json_digit_run(d, e)) == 0)
            return NOPOS;
        d += nd;
    }
    if (d < e && (*d == 'e' || *d == 'E')) {
        d++;
        if (d < e && (*d == '+' || *d == '-'))
            d++;
        if ((nd = td_json_digit_run(d, e)) == 0)
            return NOPOS;
        d += nd;
    }
    if (d >= e || td_json_num_char[*d])
        return NOPOS;
    return (size_t)(d - b);
}

/* Where td_json_skip_slow is between tokens: a value is due; a value has
 * ended; '{' or '[' was just consumed; ',' was; a key was (':' is due). */
enum { S_DONE, S_VALUE, S_AFTER, S_OPEN_OBJ, S_OPEN_ARR, S_COMMA, S_COLON };

/* After ',' inside a container: S_VALUE with the next value due (and any
 * key consumed), or < 0. */
static int skip_comma(td_json *j)
{
    bool obj = top_is_object(j);
    int e = next_token(j);
    if (e == (obj ? '}' : ']'))
        return td_json_error(j, "trailing comma");
    if (obj) {
        int rc = skip_key(j, e);
        if (rc < 0)
            return rc;
    }
    return S_VALUE;
}

/* After a value: S_VALUE with the next value due, S_DONE when the value
 * begun at depth base has ended, or < 0. */
static int skip_after(td_json *j, int base)
{
    for (;;) {
        if (j->depth == base)
            return S_DONE;
        int d = next_token(j);
        bool obj = top_is_object(j);
        if (d == ',') {
            j->pos++;
            return skip_comma(j);
        }
        if (d == (obj ? '}' : ']')) {
            j->pos++;
            j->depth--;
            continue;
        }
        if (d < -1)
            return TD_EIO;
        if (d == -1)
            return td_json_error(j, obj ? "unexpected end of input, expected ',' or '}'"
                                        : "unexpected end of input, expected ',' or ']'");
        return td_json_error(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

/* One step of the general path from state st: the next state or < 0. */
static int skip_step(td_json *j, int base, int st)
{
    int c, rc;
    switch (st) {
    case S_OPEN_OBJ:
    case S_OPEN_ARR:
        rc = skip_open(j, st == S_OPEN_OBJ ? '{' : '[');
        return rc < 0 ? rc : rc ? S_AFTER : S_VALUE;
    case S_AFTER:
        return skip_after(j, base);
    case S_COMMA:
        return skip_comma(j);
    case S_COLON:
        if ((rc = td_json_expect_byte(j, ':', "':'")) < 0)
            return rc;
        return S_VALUE;
    default:
        break;
    }
    c = next_token(j);
    if (c == '"') {
        rc = skip_string(j);
    } else if (c == '{' || c == '[') {
        if ((rc = push(j, c == '{')) < 0)
            return rc;
        j->pos++;
        return c == '{' ? S_OPEN_OBJ : S_OPEN_ARR;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        rc = skip_number(j, c);
    } else if (c < -1) {
        return TD_EIO;
    } else if (c == -1) {
        return td_json_error(j, "unexpected end of input, expected a value");
    } else {
        rc = td_json_literal(j);
    }
    return rc < 0 ? rc : S_AFTER;
}

/* The hot loop of td_json_skip_slow: the usual tokens, with the position
 * and depth in registers and white space and strings found through the
 * block index, while at least 64 bytes of window are left. Anything else
 * (errors included) stops it in a state the general path takes up. */
static int skip_fast(td_json *j, int base, int st, size_t stop)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    const unsigned char *e = b + j->end;
    size_t p = j->pos, q, lim = j->end - 64;
    unsigned m16;
    int depth = j->depth, c;
    bool obj = depth > 0 && ((j->stack[(depth - 1) >> 3] >> ((depth - 1) & 7)) & 1);
    /* Moves p to the next token (one space, a run of up to 15 bytes such as
     * an indentation, or through the index); stops in state s at the
     * window's edge. */
#ifdef __SSE2__
#define WS16(x) td_json_ws16(x)
#else
#define WS16(x) 16u
#endif
#define WS(s)                                                                                      \
    do {                                                                                           \
        if (p >= lim) {                                                                            \
            st = (s);                                                                              \
            goto out;                                                                              \
        }                                                                                          \
        if (b[p] <= ' ') {                                                                         \
            if (b[p] == ' ' && b[p + 1] > ' ') {                                                   \
                p++;                                                                               \
            } else if ((m16 = WS16(b + p)) < 16) {                                                 \
                p += m16;                                                                          \
            } else {                                                                               \
                q = index_next(j, j->inw, p + 16);                                                 \
                if (q >= lim) {                                                                    \
                    st = (s);                                                                      \
                    goto out;                                                                      \
                }                                                                                  \
                p = q;                                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#define POP()                                                                                      \
    do {                                                                                           \
        depth--;                                                                                   \
        obj = depth > 0 && ((j->stack[(depth - 1) >> 3] >> ((depth - 1) & 7)) & 1);                \
    } while (0)
    /* The end of the string whose quote is at p: a quote within 16 bytes,
     * else through the index; NOPOS when it is not a plain one. */
#ifdef __SSE2__
#define STRING_END()                                                                               \
    (((m16 = td_json_stop16(b + p + 1)) != 0) ? p + 1 + (size_t)__builtin_ctz(m16)                 \
                                              : index_next(j, j->iqs, p + 17))
#else
#define STRING_END() ((void)m16, index_next(j, j->iqs, p + 1))
#endif
    switch (st) {
    case S_AFTER:
        goto after;
    case S_OPEN_OBJ:
        goto open_obj;
    case S_OPEN_ARR:
        goto open_arr;
    case S_COMMA:
        goto comma;
    case S_COLON:
        goto colon;
    default:
        break;
    }
value:
    WS(S_VALUE);
    c = b[p];
    if (c == '"') {
        q = STRING_END();
        if (q == NOPOS || b[q] != '"') {
            st = S_VALUE;
            goto out;
        }
        p = q + 1;
        goto after;
    }
    if ((c >= '0' && c <= '9') || c == '-') {
        q = number_end(b, p, e);
        if (q == NOPOS) {
            st = S_VALUE;
            goto out;
        }
        p = q;
        goto after;
    }
    if (c == '{' || c == '[') {
        if (depth >= TD_JSON_MAX_DEPTH) {
            st = S_VALUE;
            goto out;
        }
        uint8_t bit = (uint8_t)(1u << (depth & 7));
        if (c == '{')
            j->stack[depth >> 3] |= bit;
        else
            j->stack[depth >> 3] &= (uint8_t)~bit;
        depth++;
        obj = c == '{';
        p++;
        if (c == '[')
            goto open_arr;
        goto open_obj;
    }
    if ((c == 't' && memcmp(b + p, "true", 4) == 0) ||
        (c == 'n' && memcmp(b + p, "null", 4) == 0)) {
        p += 4;
        goto after;
    }
    if (c == 'f' && memcmp(b + p, "false", 5) == 0) {
        p += 5;
        goto after;
    }
    st = S_VALUE; /* '-', decimals, errors */
    goto out;
after:
    if (depth == base) {
        st = S_DONE;
        goto out;
    }
    if (p >= stop) {
        st = S_AFTER;
        goto out;
    }
    WS(S_AFTER);
    c = b[p];
    if (c == ',') {
        p++;
        goto comma;
    }
    if (c == (obj ? '}' : ']')) {
        p++;
        POP();
        goto after;
    }
    st = S_AFTER;
    goto out;
comma:
    WS(S_COMMA);
    if (!obj) {
        if (b[p] == ']') {
            st = S_COMMA; /* trailing comma */
            goto out;
        }
        goto value;
    }
    if (b[p] != '"') {
        st = S_COMMA;
        goto out;
    }
    q = STRING_END();
    if (q == NOPOS || b[q] != '"') {
        st = S_COMMA;
        goto out;
    }
    p = q + 1;
colon:
    WS(S_COLON);
    if (b[p] != ':') {
        st = S_COLON;
        goto out;
    }
    p++;
    goto value;
open_obj:
    WS(S_OPEN_OBJ);
    if (b[p] == '}') {
        p++;
        POP();
        goto after;
    }
    if (b[p] == '"')
        goto key_after_open;
    st = S_OPEN_OBJ;
    goto out;
key_after_open:
    q = STRING_END();
    if (q == NOPOS || b[q] != '"') {
        st = S_OPEN_OBJ;
        goto out;
    }
    p = q + 1;
    goto colon;
open_arr:
    WS(S_OPEN_ARR);
    c = b[p];
    if (c == ']') {
        p++;
        POP();
        goto after;
    }
    if (c == '}' || c == ',') {
        st = S_OPEN_ARR;
        goto out;
    }
    goto value;
out:
    j->pos = p;
    j->depth = depth;
    return st;
#undef WS
#undef WS16
#undef POP
#undef STRING_END
}

/* Bit k set when an odd number of bits at or below k are set in x. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

#ifdef __x86_64__
/* The same by one carry-less multiplication by all ones. */
__attribute__((target("pclmul,sse2"))) static inline uint64_t prefix_xor_clmul(uint64_t x)
{
    __m128i v = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(v);
}
#define PREFIX_XOR_FAST(x) prefix_xor_clmul(x)
#else
#define PREFIX_XOR_FAST(x) prefix_xor(x)
#endif

/* Blocks classified per call of the classifier at most; the first call
 * classifies one, so that a small value costs one block. */
#define WALK_BATCH 8

/* The structural walk of td_json_skip_slow, for large values: the window
 * is classified 64 bytes at a time (json_index.h) and only the tokens are
 * visited, found with count-trailing-zeros in the mask of structural bytes,
 * opening quotes and first bytes of scalars (numbers, literals, and any
 * other run of bytes) outside strings. White space and the insides of
 * strings are never looked at one by one; each token costs a look-up in a
 * table of states by byte (walk_tab).
 *
 * It accepts only what is certainly valid: a block holding a backslash, a
 * control byte or a non-ASCII byte inside a string, any token out of place
 * (a byte that is no JSON outside strings is a scalar that is not valid), a
 * scalar not followed by white space, '"' or a structural byte, and the
 * window's edge all stop it, either before the token at fault, in the state
 * before it, or (at a block it leaves) after the last token it read, taken
 * back to its first byte when it is a string or scalar; the other paths
 * take up from there and give the same errors and offsets as ever. *stop
 * says how far they should go before the walk is tried again. */

/* What the walk needs of a classified block, m being the prefix XOR of its
 * quotes: its tokens (*t: structural bytes outside strings, opening quotes,
 * first bytes of runs of scalar bytes) and, for integers, *xend: the byte
 * after each run of scalar bytes that starts and ends in the block, *iend:
 * those of them after a run of digits only. *instr and *xprev carry
 * "inside a string" and "a scalar byte" from block to block. False,
 * carrying nothing, when a string holds a byte the walk leaves to the
 * other paths. */
static inline __attribute__((always_inline)) bool walk_tokens(const td_json_class *cl, uint64_t m,
                                                              uint64_t *instr, uint64_t *xprev,
                                                              uint64_t *t, uint64_t *xend,
                                                              uint64_t *iend)
{
    m ^= *instr; /* opening quote and inside */
    if (cl->odd & m)
        return false;
    *instr = (uint64_t)0 - (m >> 63);
    uint64_t x = ~(cl->ws | cl->quote | cl->op | m);
    uint64_t first = x & ~((x << 1) | *xprev), dig = cl->digit & x;
    *t = (cl->op & ~m) | (cl->quote & m) | first;
    *xprev = x >> 63;
    /* The carry of first's bit runs to the end of its run. */
    *xend = (x + first) & ~x;
    *iend = *xend & (dig + (first & dig)) & ~dig;
    return true;
}

/* Whether the number or literal at b + at is valid and followed by what
 * may follow it (the 64 bytes after its block are in the window). */
static bool walk_scalar(const unsigned char *b, const unsigned char *e, size_t at)
{
    unsigned ch = b[at];
    if (ch >= '1' && ch <= '9') { /* most often an integer past its block */
        const unsigned char *p = b + at + td_json_digit_run(b + at, e);
        if (p < e && td_json_ends_scalar[*p])
            return true;
    }
    if ((ch >= '0' && ch <= '9') || ch == '-') {
        size_t q = number_end(b, at, e);
        return q != NOPOS && td_json_ends_scalar[b[q]];
    }
    if ((ch == 't' && memcmp(b + at, "true", 4) == 0) ||
        (ch == 'n' && memcmp(b + at, "null", 4) == 0))
        return td_json_ends_scalar[b[at + 4]];
    return ch == 'f' && memcmp(b + at, "false", 5) == 0 && td_json_ends_scalar[b[at + 5]];
}

/* Classifies up to nb blocks from blk (at most WALK_BATCH), whole ones with
 * 64 bytes after the last for scalars' look-ahead; returns how many, 0 at
 * the window's edge. */
static inline size_t walk_batch(td_json *j, size_t blk, size_t nb, td_json_class *cls)
{
    size_t room = (j->end - blk) / 64;
    if (room < 2)
        return 0;
    if (nb > WALK_BATCH)
        nb = WALK_BATCH;
    if (nb > room - 1)
        nb = room - 1;
    j->classify((const unsigned char *)j->buf + blk, nb, cls);
    return nb;
}

/* walk_batch, or for the fast walk one block at a time, classified in
 * registers (AVX2). */
static inline __attribute__((always_inline)) size_t walk_classify(td_json *j, size_t blk, size_t nb,
                                                                  td_json_class *cls, bool fast)
{
#ifdef __x86_64__
    if (fast) {
        if (j->end - blk < 128)
            return 0;
        td_json_classify_block_avx2((const unsigned char *)j->buf + blk, cls);
        return 1;
    }
#endif
    return walk_batch(j, blk, nb, cls);
}

/* The walk's states between tokens, the kind of the enclosing container
 * folded in (rows of walk_tab): a value due at depth base (only '{' or '['
 * is walked), after ':', after ',' in an array, in an array as entered from
 * S_VALUE; after a value in an object, in an array; a key due after ',';
 * ':' due; just after '{', '['. */
enum { W_TOP, W_VOBJ, W_VARR, W_VARR0, W_AOBJ, W_AARR, W_KEY, W_COLON, W_OOBJ, W_OARR, W_ROWS };
/* An entry of walk_tab: the next state's row offset (row * 256) when
 * nothing else is to be done; else an action (A_ACT times its number) plus
 * the next row, or for A_BAIL the general path's state before the token.
 * A_INT: a digit 1-9 begins a scalar, A_ZERO: '0' does, A_SCALAR: '-' or a
 * literal's first letter. */
#define ROW(s) ((unsigned)(s) << 8)
#define A_ACT 0x1000u
enum { A_INT = 1, A_PUSH_OBJ, A_PUSH_ARR, A_POP, A_ZERO, A_SCALAR, A_BAIL };
static uint16_t walk_tab[W_ROWS * 256];
/* The state of the general path equivalent to each row before its token. */
static const unsigned char walk_general[W_ROWS] = {
    S_VALUE, S_VALUE, S_COMMA, S_VALUE, S_AFTER, S_AFTER, S_COMMA, S_COLON, S_OPEN_OBJ, S_OPEN_ARR};

static uint16_t entry(unsigned act, unsigned row)
{
    return (uint16_t)(act * A_ACT + ROW(row));
}

void td_json_walk_init(void)
{
    for (unsigned s = 0; s < W_ROWS; s++) {
        uint16_t *r = walk_tab + ROW(s);
        for (unsigned c = 0; c < 256; c++)
            r[c] = (uint16_t)(A_BAIL * A_ACT + walk_general[s]);
        if (s == W_AOBJ || s == W_AARR) {
            r[','] = entry(0, s == W_AOBJ ? W_KEY : W_VARR);
            r[s == W_AOBJ ? '}' : ']'] = entry(A_POP, 0);
        } else if (s == W_KEY || s == W_OOBJ) {
            r['"'] = entry(0, W_COLON);
            if (s == W_OOBJ)
                r['}'] = entry(A_POP, 0);
        } else if (s == W_COLON) {
            r[':'] = entry(0, W_VOBJ);
        } else {
            r['{'] = entry(A_PUSH_OBJ, W_OOBJ);
            r['['] = entry(A_PUSH_ARR, W_OARR);
            if (s == W_TOP)
                continue;
            unsigned after = s == W_VOBJ ? W_AOBJ : W_AARR;
            r['"'] = entry(0, after);
            for (unsigned c = '1'; c <= '9'; c++)
                r[c] = entry(A_INT, after);
            r['0'] = entry(A_ZERO, after);
            r['-'] = r['t'] = r['f'] = r['n'] = entry(A_SCALAR, after);
            if (s == W_OARR)
                r[']'] = entry(A_POP, 0);
        }
    }
}

/* Marks nesting level depth an object or an array. */
static inline void set_level(td_json *j, int depth, bool object)
{
    uint8_t bit = (uint8_t)(1u << (depth & 7));
    if (object)
        j->stack[depth >> 3] |= bit;
    else
        j->stack[depth >> 3] &= (uint8_t)~bit;
}

/* The row a walk starts in from the general path's state st. */
static inline unsigned walk_row(const td_json *j, int base, int st)
{
    if (st == S_VALUE && j->depth == base) /* a value skipped: the usual start */
        return W_TOP;
    bool obj = top_is_object(j);
    switch (st) {
    case S_AFTER:
        return obj ? W_AOBJ : W_AARR;
    case S_OPEN_OBJ:
        return W_OOBJ;
    case S_OPEN_ARR:
        return W_OARR;
    case S_COMMA:
        return obj ? W_KEY : W_VARR;
    case S_COLON:
        return W_COLON;
    default:
        return obj ? W_VOBJ : W_VARR0;
    }
}

/* The walk left a block after the token at a (accepted, leaving row s):
 * where and in which state the general path takes up. Strings and scalars
 * (values and keys) are read again from their first byte; after anything
 * else it goes on behind it. */
static int walk_resume(td_json *j, const unsigned char *a, unsigned s)
{
    size_t at = (size_t)(a - (const unsigned char *)j->buf);
    j->pos = at + 1;
    switch (s) {
    case W_AOBJ:
    case W_AARR:
        if (*a == '}' || *a == ']')
            return S_AFTER;
        j->pos = at;
        return S_VALUE;
    case W_COLON:
        j->pos = at;
        return S_COMMA;
    case W_VOBJ:
        return S_VALUE;
    case W_OOBJ:
        return S_OPEN_OBJ;
    case W_OARR:
        return S_OPEN_ARR;
    default: /* W_KEY, W_VARR: after ',' */
        return S_COMMA;
    }
}

/* The rows after a value at the depths from base + 1 to j->depth, for
 * pops back to them; the walk sets those of the levels it opens. */
static inline void walk_after_init(const td_json *j, int base, uint8_t *after)
{
    for (int d = base + 1; d <= j->depth; d++)
        after[d] = (j->stack[(d - 1) >> 3] >> ((d - 1) & 7)) & 1 ? W_AOBJ : W_AARR;
}

/* The walk; fast: classifying a block at a time with AVX2, with the
 * carry-less multiplication (and whatever the caller's target allows for
 * the rest). */
static inline __attribute__((always_inline)) int walk_body(td_json *j, int base, int st0,
                                                           size_t *stop, bool fast)
{
    const unsigned char *b = (const unsigned char *)j->buf, *e = b + j->end, *bp;
    size_t blk = j->pos, nb = 1, st = ROW(walk_row(j, base, st0)), off, lastblk = 0;
    int depth = j->depth;
    uint64_t instr = 0, xprev = 0, t, xend, iend, v, lastt = 0;
    td_json_class cls[WALK_BATCH];
    uint8_t after[TD_JSON_MAX_DEPTH + 1]; /* the row after a value at each depth */
    walk_after_init(j, base, after);
    *stop = SIZE_MAX;
    for (;; nb *= 2) {
        size_t nk = walk_classify(j, blk, nb, cls, fast);
        if (nk == 0)
            goto bail;
        for (size_t k = 0; k < nk; k++, blk += 64) {
            uint64_t m = fast ? PREFIX_XOR_FAST(cls[k].quote) : prefix_xor(cls[k].quote);
            if (!walk_tokens(&cls[k], m, &instr, &xprev, &t, &xend, &iend)) {
                *stop = blk + 64;
                goto bail;
            }
            bp = b + blk;
            if (t) { /* the last block with tokens, for bail */
                lastt = t;
                lastblk = blk;
            }
            while (t) {
                off = (size_t)__builtin_ctzll(t);
                t &= t - 1;
                st = walk_tab[st + bp[off]];
                if (st < A_ACT)
                    continue;
                /* Actions by the entry's range, most frequent first. */
                if (st < (A_INT + 1) * A_ACT) { /* digits alone, or checked in full */
                    v = xend >> off;
                    if (!(v & (0 - v) & (iend >> off)) && !walk_scalar(b, e, blk + off))
                        goto bail_value;
                    st -= A_INT * A_ACT;
                } else if (st < (A_PUSH_ARR + 1) * A_ACT) {
                    bool obj = st < A_PUSH_ARR * A_ACT;
                    if (depth >= TD_JSON_MAX_DEPTH)
                        goto bail_value;
                    st &= A_ACT - 1;
                    set_level(j, depth++, obj);
                    after[depth] = obj ? W_AOBJ : W_AARR;
                } else if (st < (A_POP + 1) * A_ACT) {
                    if (--depth == base) {
                        j->pos = blk + off + 1;
                        j->depth = depth;
                        return S_DONE;
                    }
                    st = ROW(after[depth]);
                } else if (st >= A_BAIL * A_ACT) {
                    st &= A_ACT - 1;
                    goto bail_here;
                } else if (st < (A_ZERO + 1) * A_ACT
                               ? !((xend >> off) & 2) && !walk_scalar(b, e, blk + off)
                               : !walk_scalar(b, e, blk + off)) {
                    goto bail_value; /* not "0" alone, nor valid in full */
                } else {
                    st &= A_ACT - 1;
                }
            }
        }
    }
bail_value: /* a value at bp + off, whatever came before it */
    st = S_VALUE;
bail_here: /* before the token at bp + off: st is the general path's state */
    *stop = blk + off + 1;
    j->pos = blk + off;
    j->depth = depth;
    return (int)st;
bail: /* after the last token read */
    j->depth = depth;
    if (!lastt)
        return st0;
    return walk_resume(j, b + lastblk + (63 ^ __builtin_clzll(lastt)), (unsigned)(st >> 8));
}

static int walk_plain(td_json *j, int base, int st, size_t *stop)
{
    return walk_body(j, base, st, stop, false);
}

#ifdef __x86_64__
__attribute__((target("avx2,bmi,bmi2,pclmul"))) static int walk_fast(td_json *j, int base, int st,
                                                                     size_t *stop)
{
    return walk_body(j, base, st, stop, true);
}
#else
#define walk_fast walk_plain
#endif

/* Whether the value at j->pos (at least 2 bytes in the window) may be an
 * object or an array: '{' or '[' there or after one space, or more white
 * space first. */
static inline bool may_open(const td_json *j)
{
    unsigned c = (unsigned char)j->buf[j->pos];
    if (c == ' ')
        c = (unsigned char)j->buf[j->pos + 1];
    return c == '{' || c == '[' || td_json_is_ws[c];
}

/* Where a short plain string at b + p ('"' there, at most 15 bytes, no
 * escape, control or non-ASCII byte) ends, or NOPOS. 17 bytes from p are in
 * the window. */
static inline size_t short_string_end(const unsigned char *b, size_t p)
{
#ifdef __SSE2__
    unsigned m = td_json_stop16(b + p + 1);
    if (!m)
        return NOPOS;
    size_t q = p + 1 + (size_t)__builtin_ctz(m);
#else
    size_t q = p + 1;
    while (q < p + 17 && b[q] != '"' && b[q] != '\\' && b[q] >= 0x20 && b[q] < 0x80)
        q++;
#endif
    return b[q] == '"' ? q + 1 : NOPOS;
}

/* Kineto's short arrays in args ("Input Dims": [[1, 128], [], [768]],
 * "Input type": ["float", "", "Scalar"], "grid": [64, 1, 1]) in one pass
 * over their bytes: arrays three deep at most of short plain strings and of
 * numbers without exponent, single spaces, all before lim (at least 64
 * bytes before the window's end), nesting no deeper than the general path
 * allows (the caller sees to it). The end of the array at b + p ('[' there),
 * or NOPOS, and the general path reads it and gives any error. */
static size_t short_array_end(const unsigned char *b, size_t p, size_t lim)
{
    int depth = 0;
    for (;;) { /* a value (or, just after '[', ']') is due at p */
        if (p >= lim)
            return NOPOS;
        if (b[p] == '[') {
            if (++depth > 3)
                return NOPOS;
            p += 1 + (b[p + 1] == ' ');
            if (b[p] != ']')
                continue;
            p++;
            if (--depth == 0)
                return p;
        } else if (b[p] == '"') {
            if ((p = short_string_end(b, p)) == NOPOS)
                return NOPOS;
        } else if ((p = td_json_plain_number_end(b, p, lim)) == NOPOS) {
            return NOPOS;
        }
        for (;;) { /* after a value */
            p += b[p] == ' ';
            if (p >= lim)
                return NOPOS;
            if (b[p] == ',') {
                p += 1 + (b[p + 1] == ' ');
                break;
            }
            if (b[p] != ']')
                return NOPOS;
            p++;
            if (--depth == 0)
                return p;
        }
    }
}

/* What a short array's 32 bytes are, a bit per byte: '"', '[', ']', ',',
 * ' ', digits, '0', '-', and bytes that may stand in a plain string
 * (0x20 to 0x7F but '\\'). */
typedef struct {
    uint32_t quote, open, close, comma, space, digit, zero, minus, plain;
} array_bytes;

/* The classes from a classifier's EQ32(c), DIGIT32 and PLAIN32. */
#define ARRAY_BYTES                                                                                \
    {                                                                                              \
        .quote = EQ32('"'), .open = EQ32('['), .close = EQ32(']'), .comma = EQ32(','),             \
        .space = EQ32(' '), .digit = DIGIT32, .zero = EQ32('0'), .minus = EQ32('-'),               \
        .plain = PLAIN32,                                                                          \
    }

/* The end of the array whose '[' is byte 0 of the 32 classified in m, or
 * NOPOS: the grammar of short_array_end32 checked on the masks. */
static inline __attribute__((always_inline)) size_t array_end_bits(array_bytes m, size_t p)
{
    uint32_t in_str = m.quote; /* from an opening quote to the byte before its closing one */
    in_str ^= in_str << 1;
    in_str ^= in_str << 2;
    in_str ^= in_str << 4;
    in_str ^= in_str << 8;
    in_str ^= in_str << 16;
    uint32_t out = ~in_str;
    uint32_t open = m.open & out, close = m.close & out;
    /* The ']' that closes the first '[' (bit 0). */
    uint32_t br = open | close, end = 0;
    int depth = 0;
    while (br) {
        uint32_t bit = br & -br;
        if (open & bit) {
            if (++depth > 3)
                return NOPOS;
        } else if (--depth == 0) {
            end = bit;
            break;
        }
        br ^= bit;
    }
    if (!end)
        return NOPOS;
    uint32_t in = end | (end - 1); /* the array's bytes */
    uint32_t comma = m.comma & out, space = m.space & out;
    uint32_t digit = m.digit & out, minus = m.minus & out, zero = m.zero & out;
    uint32_t num = digit | minus, closing = m.quote & out;
    uint32_t num_start = num & ~(num << 1), num_end = num & ~(num >> 1);
    uint32_t value_start = open | (m.quote & in_str) | num_start;
    uint32_t value_end = (close | closing | num_end) & in & ~end;
    uint32_t after_comma = ((comma << 1) & ~space) | (((comma << 1) & space) << 1);
    uint32_t bad = ~(open | close | comma | space | num | closing | (in_str & m.plain));
    bad |= (open << 1) & ~(value_start | close); /* '[' then a value or ']' */
    bad |= after_comma & ~value_start;           /* ',' and a space at most, then a value */
    bad |= (value_end << 1) & ~(comma | close);  /* a value then ',' or ']' */
    bad |= minus & ~num_start;                   /* '-' first in a number */
    bad |= (minus << 1) & ~digit;                /* and a digit after it */
    bad |= ((zero & (num_start | (minus << 1))) << 1) & digit; /* no leading zero */
    if (bad & in)
        return NOPOS;
    return p + (size_t)__builtin_ctz(end) + 1;
}

#ifdef __SSE2__
/* Bits of the 32 bytes in x0, x1 where f0, f1 are set. */
#define BITS32(f0, f1) ((uint32_t)_mm_movemask_epi8(f0) | (uint32_t)_mm_movemask_epi8(f1) << 16)
#define EQ32(c) BITS32(_mm_cmpeq_epi8(x0, _mm_set1_epi8(c)), _mm_cmpeq_epi8(x1, _mm_set1_epi8(c)))

/* The end of a short array at b + p ('[' there; 32 bytes in the window)
 * that ends within those 32 bytes, in the layout Kineto and Python's json
 * write: integers, plain strings of printable ASCII, arrays three deep at
 * most, and white space only as one space after a comma. The bytes are
 * classified into bit masks and the grammar is checked on the masks: what
 * may follow '[', ',' and the end of a value, where '-' and '0' may stand
 * in a number. Only the brackets are visited one by one, to find the end.
 * NOPOS for anything else, which short_array_end or the general path then
 * reads. This classifier takes SSE2, short_array_end32_avx2 AVX2. */
static size_t short_array_end32(const unsigned char *b, size_t p)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)(b + p));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(b + p + 16));
    __m128i z = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9), ctl = _mm_set1_epi8(0x1F);
    __m128i bs = _mm_set1_epi8('\\');
    __m128i d0 = _mm_sub_epi8(x0, z), d1 = _mm_sub_epi8(x1, z);
#define DIGIT32                                                                                    \
    BITS32(_mm_cmpeq_epi8(_mm_min_epu8(d0, nine), d0), _mm_cmpeq_epi8(_mm_min_epu8(d1, nine), d1))
/* signed: bytes from 0x80 are below 0x1F */
#define PLAIN32                                                                                    \
    BITS32(_mm_andnot_si128(_mm_cmpeq_epi8(x0, bs), _mm_cmpgt_epi8(x0, ctl)),                      \
           _mm_andnot_si128(_mm_cmpeq_epi8(x1, bs), _mm_cmpgt_epi8(x1, ctl)))
    array_bytes m = ARRAY_BYTES;
#undef DIGIT32
#undef PLAIN32
    return array_end_bits(m, p);
}
#undef EQ32
#undef BITS32
#endif

#ifdef __x86_64__
/* short_array_end32 with one 32-byte AVX2 register per class. */
__attribute__((target("avx2,bmi,bmi2"))) static size_t
short_array_end32_avx2(const unsigned char *b, size_t p)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(b + p));
    __m256i d = _mm256_sub_epi8(x, _mm256_set1_epi8('0'));
#define EQ32(c) (uint32_t) _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(c)))
#define DIGIT32                                                                                    \
    (uint32_t) _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d))
#define PLAIN32                                                                                    \
    (uint32_t)                                                                                     \
        _mm256_movemask_epi8(_mm256_andnot_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('\\')),     \
                                                 _mm256_cmpgt_epi8(x, _mm256_set1_epi8(0x1F))))
    array_bytes m = ARRAY_BYTES;
#undef DIGIT32
#undef PLAIN32
#undef EQ32
    return array_end_bits(m, p);
}
#endif

/* Validates and skips one value: the structural walk for large ones, the
 * hot loop above for the usual tokens, the general path (one step at a
 * time, the same errors and offsets as always) for the rest and at the
 * window's edge. */
static __attribute__((noinline)) int skip_value(td_json *j)
{
    int base = j->depth, st = S_VALUE;
    for (;;) {
        size_t stop = SIZE_MAX;
        /* (At depth base only a value not yet begun is left to walk, and
         * only an object or array is worth it.) */
        if (j->end - j->pos > 256 && (j->depth > base || (st == S_VALUE && may_open(j)))) {
            st = (j->fast_walk ? walk_fast : walk_plain)(j, base, st, &stop);
            if (st == S_DONE)
                return 0;
        }
        if (j->end - j->pos > 128) {
            st = skip_fast(j, base, st, stop);
            if (st == S_DONE)
                return 0;
        }
        st = skip_step(j, base, st);
        if (st <= 0)
            return st;
    }
}

int td_json_skip_array(td_json *j, size_t p)
{
    if (j->end - j->pos > 80 && j->depth + 3 <= TD_JSON_MAX_DEPTH) {
        const unsigned char *b = (const unsigned char *)j->buf;
#if defined(__x86_64__)
        size_t q = j->fast_walk ? short_array_end32_avx2(b, p) : short_array_end32(b, p);
#elif defined(__SSE2__)
        size_t q = short_array_end32(b, p);
#else
        size_t q = NOPOS;
#endif
        if (q == NOPOS) {
            size_t lim = j->end - 64 < p + 128 ? j->end - 64 : p + 128;
            q = short_array_end(b, p, lim);
        }
        if (q != NOPOS) {
            j->pos = q;
            return 0;
        }
    }
    return skip_value(j);
}

/* Short arrays first, then skip_value. */
int td_json_skip_slow(td_json *j)
{
    if (j->end - j->pos > 80) {
        size_t p = j->pos + (j->buf[j->pos] == ' ');
        if (j->buf[p] == '[')
            return td_json_skip_array(j, p);
    }
    return skip_value(j);
}
