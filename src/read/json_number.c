/* The JSON scanner's numbers: the general path of td_json_number, and
 * decimals made into the double strtod would give. */
#include "read/json_number.h"
#include "read/json_string.h"
#include "read/json_window_internal.h"

/* The value of eight ASCII digits (the first in the lowest byte). */
static inline uint64_t parse8(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return td_json_swar8(w);
}

static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* The error for a token at pos that starts like a number but is not one.
 * "-Infinity" is one: the number token there is only "-". */
int td_json_bad_number(td_json *j)
{
    long n = td_json_fill(j, 4);
    if (n >= 4 && memcmp(j->buf + j->pos, "-Inf", 4) == 0)
        return td_json_error(j, "NaN and Infinity are not JSON");
    return td_json_error(j, "invalid number");
}

#ifdef __SIZEOF_INT128__
/* x < (2m + 1) * 2^(e - 1), = or >: -1, 0, 1, for x = w / 10^f, exactly.
 * Both sides stay below 2^118 (w / 10^f is within an ulp of m * 2^e). */
static int cmp_midpoint(uint64_t w, uint64_t p10, uint64_t m, int e)
{
    unsigned __int128 lhs = w, rhs = (unsigned __int128)(2 * m + 1) * p10;
    if (e - 1 >= 0)
        rhs <<= (e - 1);
    else
        lhs <<= (1 - e);
    return lhs < rhs ? -1 : lhs > rhs;
}
#endif

/* The correctly rounded double of w / 10^f (w < 2^64), as strtod gives it;
 * false when it is not sure (strtod decides). With w <= 2^53 and f <= 22
 * both are exact doubles and one division rounds once (Clinger's fast
 * path): the "dur": 63.813 and "ts": 1419247332972.313 of newer traces.
 * Beyond (nanosecond "ts": 1712195495519689.047), the quotient is within an
 * ulp or so and is checked, and moved a step when needed, against the exact
 * midpoints between it and its neighbours, in 128-bit integers. */
static bool decimal_value(uint64_t w, unsigned f, double *out)
{
    static const double p10d[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (w <= ((uint64_t)1 << 53) && f <= 22) {
        *out = (double)w / p10d[f];
        return true;
    }
#ifdef __SIZEOF_INT128__
    if (f > 19)
        return false;
    uint64_t p10 = pow10_u64[f];
    double d = (double)w / p10d[f];
    for (int step = 0; step < 3; step++) {
        /* d = m * 2^e, m of 53 bits: d is normal here (w > 2^53, f <= 19),
         * its bits are the 52 below m's leading one and e's biased value. */
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        uint64_t m = (bits & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52);
        int e = (int)((bits >> 52) & 0x7FF) - 1075;
        if (m == ((uint64_t)1 << 52))
            return false; /* a power of two: the gap below is half the gap above */
        int hi = cmp_midpoint(w, p10, m, e);
        int lo = cmp_midpoint(w, p10, m - 1, e);
        if (hi < 0 && lo > 0) {
            *out = d;
            return true;
        }
        if (hi == 0 || lo == 0)
            return false; /* a tie: strtod rounds it to even */
        d = nextafter(d, hi > 0 ? INFINITY : 0.0);
    }
#endif
    return false;
}

/* The value of the n (<= 19) ASCII digits at d. */
static inline uint64_t digits_value(const unsigned char *d, size_t n)
{
    uint64_t v = 0;
    size_t k = 0;
    for (; k + 8 <= n; k += 8)
        v = v * 100000000 + parse8(d + k);
    for (; k < n; k++)
        v = v * 10 + (uint64_t)(d[k] - '0');
    return v;
}

/* The usual numbers, wholly in the window with a byte after them: an
 * integer of up to 18 digits (ts, dur, stream, correlation), a decimal of up
 * to 19 digits without exponent ("ts" and "dur" of newer traces) whose
 * value is certain without strtod. Returns true having read one into *out;
 * false having consumed nothing. c is the number's first byte. */
static inline bool number_in_window(td_json *j, int c, td_json_num *out)
{
    const unsigned char *p = (const unsigned char *)j->buf + j->pos;
    const unsigned char *e = (const unsigned char *)j->buf + j->end;
    const unsigned char *d = p + (c == '-');
    size_t nd = td_json_digit_run(d, e);
    const unsigned char *q = d + nd;
    if (nd > 0 && nd <= 18 && q < e && !td_json_num_char[*q] && !(*d == '0' && nd > 1)) {
        int64_t v = (int64_t)digits_value(d, nd); /* 18 digits fit int64 */
        out->i = c == '-' ? -v : v;
        out->d = (double)out->i;
        out->is_int = true;
        out->decimal = false;
        j->pos += (size_t)(q - p);
        return true;
    }
    if (nd > 0 && q + 1 < e && *q == '.' && !(*d == '0' && nd > 1)) {
        const unsigned char *fr = q + 1;
        size_t nf = td_json_digit_run(fr, e);
        const unsigned char *t = fr + nf;
        double v;
        if (nf > 0 && nd + nf <= 19 && t < e && !td_json_num_char[*t] &&
            decimal_value(digits_value(d, nd) * pow10_u64[nf] + digits_value(fr, nf), (unsigned)nf,
                          &v)) {
            out->d = c == '-' ? -v : v;
            out->is_int = false;
            out->decimal = true;
            j->pos += (size_t)(t - p);
            return true;
        }
    }
    return false;
}

int td_json_number_frac(td_json *j, size_t p, size_t d, unsigned n, uint64_t v, td_json_num *out)
{
    const unsigned char *b = (const unsigned char *)j->buf;
    const unsigned char *e = b + j->end, *fr = b + d + n + 1;
    size_t nf = td_json_digit_run(fr, e);
    const unsigned char *t = fr + nf;
    double x;
    if (nf > 0 && n + nf <= 19 && t < e && !td_json_num_char[*t] &&
        decimal_value(v * pow10_u64[nf] + digits_value(fr, nf), (unsigned)nf, &x)) {
        out->d = d > p ? -x : x;
        out->is_int = false;
        out->decimal = true;
        j->pos = (size_t)(t - b);
        return 0;
    }
    return td_json_number_slow(j, out);
}

int td_json_number_slow(td_json *j, td_json_num *out)
{
    int c = td_json_peek(j);
    if (c < -1)
        return TD_EIO;
    if (number_in_window(j, c, out))
        return 0;
    if (c != '-' && !(c >= '0' && c <= '9'))
        return td_json_error(j, c == -1 ? "unexpected end of input, expected a number"
                                        : "expected a number");
    long n = number_token(j);
    if (n < 0)
        return (int)n;
    const char *t = j->buf + j->pos;
    bool decimal;
    if (!number_valid(t, (size_t)n, &decimal))
        return td_json_bad_number(j);
    out->decimal = decimal;
    out->is_int = false;
    if (!decimal) {
        /* Integers of up to 18 digits are exact in int64: no strtod. */
        size_t k = t[0] == '-' ? 1 : 0;
        if ((size_t)n - k <= 18) {
            int64_t v = 0;
            for (; k < (size_t)n; k++)
                v = v * 10 + (t[k] - '0');
            if (t[0] == '-')
                v = -v;
            out->i = v;
            out->is_int = true;
            out->d = (double)v;
            j->pos += (size_t)n;
            return 0;
        }
    }
    if (td_json_scratch_reserve(j, (size_t)n + 1) < 0)
        return TD_ENOMEM;
    memcpy(j->scratch, t, (size_t)n);
    j->scratch[n] = '\0';
    errno = 0;
    out->d = strtod(j->scratch, NULL);
    if (!decimal && errno == 0) {
        errno = 0;
        long long v = strtoll(j->scratch, NULL, 10);
        if (errno == 0) {
            out->i = v;
            out->is_int = true;
        }
    }
    j->pos += (size_t)n;
    return 0;
}
