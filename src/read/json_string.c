/* The JSON scanner's strings: the general path of td_json_string (escapes,
 * UTF-8, strings longer than the window). */
#include "read/json_string.h"
#include "read/json_window_internal.h"

/* Length of a valid UTF-8 sequence at p (n bytes available), 0 if invalid,
 * -1 if more bytes are needed. Follows the strict decoder: no overlongs,
 * no encoded surrogates, nothing above U+10FFFF. */
static int utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    int len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    for (int k = 1; k < len; k++) {
        if ((size_t)k >= n)
            return -1;
        unsigned b = p[k];
        if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
            return 0;
    }
    return len;
}

int td_json_scratch_reserve(td_json *j, size_t need)
{
    if (need <= j->scap)
        return 0;
    size_t ncap = j->scap;
    while (ncap < need)
        ncap *= 2;
    char *ns = realloc(j->scratch, ncap);
    if (!ns) {
        j->failed = 1;
        return td_fail(j->err, TD_ENOMEM, j->path, "out of memory");
    }
    j->scratch = ns;
    j->scap = ncap;
    return 0;
}

static int hex4(const unsigned char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned c = p[k], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* Decodes one escape at j->pos (just after the backslash) into o; returns the
 * bytes written or < 0. */
static int decode_escape(td_json *j, char *o)
{
    long n = td_json_fill(j, 12);
    if (n < 0)
        return (int)n;
    if (n < 1)
        return td_json_error(j, "unterminated string");
    const unsigned char *p = (const unsigned char *)j->buf + j->pos;
    switch (p[0]) {
    case '"':
        o[0] = '"';
        j->pos++;
        return 1;
    case '\\':
        o[0] = '\\';
        j->pos++;
        return 1;
    case '/':
        o[0] = '/';
        j->pos++;
        return 1;
    case 'b':
        o[0] = '\b';
        j->pos++;
        return 1;
    case 'f':
        o[0] = '\f';
        j->pos++;
        return 1;
    case 'n':
        o[0] = '\n';
        j->pos++;
        return 1;
    case 'r':
        o[0] = '\r';
        j->pos++;
        return 1;
    case 't':
        o[0] = '\t';
        j->pos++;
        return 1;
    case 'u':
        break;
    default:
        return td_json_error(j, "invalid escape '\\%c' in string",
                             p[0] >= 0x20 && p[0] < 0x7F ? p[0] : '?');
    }
    unsigned cp;
    if (n < 5 || hex4(p + 1, &cp) < 0)
        return td_json_error(j, "invalid \\u escape in string");
    j->pos += 5;
    if (cp >= 0xD800 && cp <= 0xDBFF && n >= 11 && p[5] == '\\' && p[6] == 'u') {
        unsigned lo;
        if (hex4(p + 7, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
            j->pos += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
    }
    /* A lone surrogate is kept as its 3-byte form (WTF-8), as Python keeps it
     * in a str: two names differing only there stay two names. */
    return (int)td_utf8_encode(o, cp);
}

/* The string scanner. With decode, returns the string's bytes in *s and *len;
 * without, only validates and skips. The fast path never copies. */

/* The common string: plain ASCII, closed within the window. Returns 1 and
 * consumes it, or 0 (nothing consumed) for the general path. j->pos is at
 * the opening quote. Kept small so that it inlines into its callers. */
static inline int string_fast(td_json *j, const char **s, size_t *len)
{
    size_t q = string_stop(j, j->pos + 1);
    if (q == NOPOS || j->buf[q] != '"')
        return 0;
    *s = j->buf + j->pos + 1;
    *len = q - j->pos - 1;
    j->pos = q + 1;
    return 1;
}

int td_json_scan_string(td_json *j, bool decode, const char **s, size_t *len)
{
    int c = td_json_peek(j);
    if (c == '"') {
        const char *ds;
        size_t dl;
        if (string_fast(j, decode ? s : &ds, decode ? len : &dl))
            return 0;
    }
    if (c != '"') {
        if (c < -1)
            return TD_EIO;
        if (c == -1)
            return td_json_error(j, "unexpected end of input, expected a string");
        return td_json_error(j, "expected a string");
    }
    size_t start = j->pos; /* the quote */
    size_t i = start + 1;
    for (;;) {
        const unsigned char *b = (const unsigned char *)j->buf;
        const unsigned char *p = b + i, *e = b + j->end;
        p = skip_plain(p, e);
        i = (size_t)(p - b);
        if (p < e && *p == '"') {
            if (decode) {
                *s = j->buf + start + 1;
                *len = i - start - 1;
            }
            j->pos = i + 1;
            return 0;
        }
        if (p < e && *p >= 0x80) {
            int l = utf8_len(p, (size_t)(e - p));
            if (l > 0) {
                i += (size_t)l;
                continue;
            }
            if (l == 0)
                return td_json_error_at(j, i, "invalid UTF-8 in string");
        } else if (p < e && *p == '\\') {
            break;
        } else if (p < e) {
            return td_json_error_at(j, i, "control character in string");
        }
        /* Window edge (or a UTF-8 sequence cut by it): read more, keeping
         * the string. */
        size_t tail = (size_t)(e - p);
        size_t rel = i - start;
        j->keep = start;
        j->pos = i;
        long n = td_json_fill(j, tail + 4);
        start = j->keep;
        j->keep = NO_KEEP;
        if (n < 0)
            return (int)n;
        i = start + rel;
        if ((size_t)n <= tail) {
            /* No more input: unterminated, or UTF-8 cut by the end. */
            if (tail == 0)
                return td_json_error_at(j, j->end, "unterminated string");
            return td_json_error_at(j, i, "invalid UTF-8 in string");
        }
    }
    /* Slow path: escapes. Copy what we have, then decode byte by byte. */
    size_t olen = 0;
    if (decode) {
        if (td_json_scratch_reserve(j, i - start + 16) < 0)
            return TD_ENOMEM;
        olen = i - start - 1;
        memcpy(j->scratch, j->buf + start + 1, olen);
    }
    j->pos = i;
    for (;;) {
        long n = td_json_fill(j, 4);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return td_json_error(j, "unterminated string");
        const unsigned char *p = (const unsigned char *)j->buf + j->pos;
        if (decode && td_json_scratch_reserve(j, olen + 8) < 0)
            return TD_ENOMEM;
        if (*p == '"') {
            j->pos++;
            if (decode) {
                *s = j->scratch;
                *len = olen;
            }
            return 0;
        }
        if (*p == '\\') {
            j->pos++;
            char tmp[8];
            int w = decode_escape(j, decode ? j->scratch + olen : tmp);
            if (w < 0)
                return w;
            olen += (size_t)w;
        } else if (*p < 0x20) {
            return td_json_error(j, "control character in string");
        } else if (*p >= 0x80) {
            int l = utf8_len(p, (size_t)n);
            if (l <= 0)
                return td_json_error(j, "invalid UTF-8 in string");
            if (decode)
                memcpy(j->scratch + olen, p, (size_t)l);
            olen += (size_t)l;
            j->pos += (size_t)l;
        } else {
            if (decode)
                j->scratch[olen] = (char)*p;
            olen++;
            j->pos++;
        }
    }
}

int td_json_string_slow(td_json *j, const char **s, size_t *len)
{
    return td_json_scan_string(j, true, s, len);
}
