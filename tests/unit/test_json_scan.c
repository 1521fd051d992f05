/* The streaming JSON scanner: src/read/json_*.c. Every document is read twice:
 * in one piece, and one byte per read call, so that every token meets the
 * edge of what the scanner has been given. */
#include "harness.h"
#include "util/util.h"
#include "util/strtab.h"
#include "read/json_scan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

typedef struct src {
    const char *p;
    size_t n, pos;
    size_t step;    /* bytes per read: 0 = all at once */
    size_t fail_at; /* a read at or past this offset fails (0 = never) */
} src;

static long src_read(void *ud, char *buf, size_t cap, td_error *err)
{
    src *s = ud;
    if (s->fail_at && s->pos >= s->fail_at)
        return td_fail(err, TD_EIO, "t.json", "disk on fire");
    size_t k = s->n - s->pos;
    if (k > cap)
        k = cap;
    if (s->step && k > s->step)
        k = s->step;
    if (s->fail_at && s->pos + k > s->fail_at)
        k = s->fail_at - s->pos;
    memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    return (long)k;
}

typedef struct doc {
    src s;
    td_json j;
    td_error err;
} doc;

static void open_doc(doc *d, const char *text, size_t len, size_t step)
{
    memset(d, 0, sizeof *d);
    d->s = (src){text, len, 0, step, 0};
    if (td_json_init(&d->j, src_read, &d->s, "t.json", &d->err) != 0)
        abort();
}

/* The one string value of "[...]"-less text: a JSON string literal. */
static int read_string(const char *lit, size_t step, char *out, size_t cap, size_t *len)
{
    doc d;
    open_doc(&d, lit, strlen(lit), step);
    const char *s;
    int rc = td_json_string(&d.j, &s, len);
    if (rc == 0 && *len <= cap)
        memcpy(out, s, *len);
    if (rc == 0)
        rc = td_json_end(&d.j);
    td_json_free(&d.j);
    return rc;
}

static void check_string(const char *file, int line, const char *lit, const char *want,
                         size_t want_len)
{
    for (size_t step = 0; step <= 1; step++) {
        char out[256];
        size_t len = 0;
        int rc = read_string(lit, step, out, sizeof out, &len);
        if (rc != 0)
            unit_fail(file, line, "%s: rc %d (step %zu)", lit, rc, step);
        else if (len != want_len || memcmp(out, want, len) != 0)
            unit_fail(file, line, "%s: decoded to %zu bytes, expected %zu (step %zu)", lit, len,
                      want_len, step);
    }
}
#define STRING(lit, want) check_string(__FILE__, __LINE__, (lit), (want), sizeof(want) - 1)

static td_json_num read_number(const char *text, size_t step, int *rc)
{
    doc d;
    open_doc(&d, text, strlen(text), step);
    td_json_num n;
    memset(&n, 0, sizeof n);
    *rc = td_json_number(&d.j, &n);
    if (*rc == 0)
        *rc = td_json_end(&d.j);
    td_json_free(&d.j);
    return n;
}

static void check_number(const char *file, int line, const char *text, double want, int is_int,
                         int64_t want_i)
{
    for (size_t step = 0; step <= 1; step++) {
        int rc;
        td_json_num n = read_number(text, step, &rc);
        if (rc != 0) {
            unit_fail(file, line, "%s: rc %d", text, rc);
            continue;
        }
        if (!(n.d == want && signbit(n.d) == signbit(want)))
            unit_fail(file, line, "%s read as %.17g, expected %.17g", text, n.d, want);
        if (n.is_int != is_int || (is_int && n.i != want_i))
            unit_fail(file, line, "%s: is_int %d i %lld, expected %d %lld", text, n.is_int,
                      (long long)n.i, is_int, (long long)want_i);
    }
}
#define NUMBER(text, want) check_number(__FILE__, __LINE__, (text), (want), 0, 0)
#define INTEGER(text, want) check_number(__FILE__, __LINE__, (text), (double)(want), 1, (want))

/* Skips the whole document; returns the result and the error. */
static int skip_doc(const char *text, size_t len, size_t step, td_error *err)
{
    doc d;
    open_doc(&d, text, len, step);
    int rc = td_json_skip(&d.j);
    if (rc == 0)
        rc = td_json_end(&d.j);
    *err = d.err;
    td_json_free(&d.j);
    return rc;
}

static void check_refused(const char *file, int line, const char *text, size_t len, uint64_t at,
                          const char *msg)
{
    for (size_t step = 0; step <= 1; step++) {
        td_error err;
        int rc = skip_doc(text, len, step, &err);
        if (rc != TD_EPARSE || err.code != TD_EPARSE)
            unit_fail(file, line, "%.40s: rc %d, expected TD_EPARSE", text, rc);
        else if (!err.has_offset || err.offset != at || strcmp(err.msg, msg) != 0)
            unit_fail(file, line, "%.40s: byte %llu: %s; expected byte %llu: %s", text,
                      (unsigned long long)err.offset, err.msg, (unsigned long long)at, msg);
    }
}
#define REFUSED(text, at, msg) check_refused(__FILE__, __LINE__, (text), strlen(text), (at), (msg))

TEST(test_json_scan__simple_escapes)
{
    STRING("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t");
    STRING("\"plain\"", "plain");
    STRING("\"\"", "");
}

/* Strings of every length to 200 (around the inline path's 16 and 31 bytes,
 * and longer ones found 16 bytes at a time), with a quote, a backslash or a
 * control byte at every place, read in one piece (inline where they fit)
 * and one byte per read (the general path). */
TEST(test_json_scan__strings_inline_and_general_agree)
{
    /* every length, or an even spread of unit_rounds of them */
    size_t stride = 201 / (size_t)unit_rounds(201);
    for (size_t n = 0; n <= 200; n += stride)
        for (size_t at = 0; at <= n; at++)
            for (int kind = 0; kind < 3; kind++) {
                char text[400], body[256];
                for (size_t i = 0; i < n; i++)
                    body[i] = (char)('a' + i % 26);
                size_t bn = n;
                if (at < n) { /* one odd byte at position at */
                    static const char *odd[] = {"\\\"", "\\u00e9", "\t"};
                    size_t ol = strlen(odd[kind]);
                    memmove(body + at + ol, body + at + 1, n - at - 1);
                    memcpy(body + at, odd[kind], ol);
                    bn = n - 1 + ol;
                }
                int len = snprintf(text, sizeof text, "[\"%.*s\", \"%s\"]", (int)bn, body,
                                   "padding-padding-padding-padding-padding-padding");
                int rc[2];
                char got[2][256];
                size_t gl[2] = {0, 0};
                for (size_t step = 0; step <= 1; step++) {
                    doc d;
                    open_doc(&d, text, (size_t)len, step);
                    bool first = true;
                    const char *s;
                    rc[step] = td_json_arr_begin(&d.j);
                    if (rc[step] == 0 && (rc[step] = td_json_arr_next(&d.j, &first)) == 1)
                        rc[step] = td_json_string(&d.j, &s, &gl[step]);
                    if (rc[step] == 0 && gl[step] <= sizeof got[0])
                        memcpy(got[step], s, gl[step]);
                    td_json_free(&d.j);
                }
                if (rc[0] != rc[1] ||
                    (rc[0] == 0 && (gl[0] != gl[1] || memcmp(got[0], got[1], gl[0]) != 0)))
                    unit_fail(__FILE__, __LINE__, "%s: rc %d/%d, length %zu/%zu", text, rc[0],
                              rc[1], gl[0], gl[1]);
                if (kind < 2 && rc[0] != 0)
                    unit_fail(__FILE__, __LINE__, "%s: refused", text);
            }
}

TEST(test_json_scan__unicode_escapes_to_utf8)
{
    STRING("\"\\u0041\\u00e9\\u4E2D\"", "A\xC3\xA9\xE4\xB8\xAD");
    STRING("\"caf\xC3\xA9 \xF0\x9F\x98\x80\"", "caf\xC3\xA9 \xF0\x9F\x98\x80");
}

TEST(test_json_scan__surrogate_pair_joined)
{
    STRING("\"\\ud83d\\ude00\"", "\xF0\x9F\x98\x80");
    STRING("\"a\\uD834\\uDD1Eb\"", "a\xF0\x9D\x84\x9E"
                                   "b");
}

TEST(test_json_scan__lone_surrogates_kept_distinct)
{
    /* WTF-8: the surrogate's own 3 bytes, so "\ud800" and "\udc00" and ""
     * stay three different names. */
    STRING("\"\\ud800\"", "\xED\xA0\x80");
    STRING("\"\\udc00\"", "\xED\xB0\x80");
    STRING("\"x\\ud800\\u0041\"", "x\xED\xA0\x80"
                                  "A");
    STRING("\"\\udc00\\ud800\"", "\xED\xB0\x80\xED\xA0\x80");
    STRING("\"\\ud800\\ud83d\\ude00\"", "\xED\xA0\x80\xF0\x9F\x98\x80");
}

TEST(test_json_scan__escaped_nul_is_a_byte)
{
    STRING("\"a\\u0000b\"", "a\0b");
    STRING("\"\\u0000\"", "\0");
}

TEST(test_json_scan__bad_strings_refused)
{
    REFUSED("\"a\\x\"", 3, "invalid escape '\\x' in string");
    REFUSED("\"\\u12\"", 2, "invalid \\u escape in string");
    REFUSED("\"a\x01\"", 2, "control character in string");
    REFUSED("\"\xC0\xAF\"", 1, "invalid UTF-8 in string");
    REFUSED("\"\xED\xA0\x80\"", 1, "invalid UTF-8 in string");
    REFUSED("\"\xF4\x90\x80\x80\"", 1, "invalid UTF-8 in string");
    REFUSED("\"ab", 3, "unterminated string");
}

TEST(test_json_scan__integers_exact)
{
    INTEGER("0", 0);
    INTEGER("-7", -7);
    INTEGER("123456789012345678", 123456789012345678LL);
    INTEGER("9223372036854775807", INT64_MAX);
    CHECK_INT(INT64_MIN, -9223372036854775807LL - 1);
    check_number(__FILE__, __LINE__, "-9223372036854775808", -9223372036854775808.0, 1, INT64_MIN);
}

TEST(test_json_scan__big_integers_are_doubles)
{
    NUMBER("9223372036854775808", 9223372036854775808.0);
    NUMBER("99999999999999999999", 1e20);
    NUMBER("-99999999999999999999", -1e20);
    NUMBER("123456789012345678901234567890", 1.2345678901234568e29);
}

TEST(test_json_scan__decimals_correctly_rounded)
{
    NUMBER("1712195495502094.5", 1712195495502094.5);
    NUMBER("0.1", 0.1);
    NUMBER("5e-324", 5e-324);
    NUMBER("2.2250738585072011e-308", 2.2250738585072011e-308);
    NUMBER("1.7976931348623157e308", 1.7976931348623157e308);
    /* 2^53 + 1: an exact integer, and its double ties to even. */
    check_number(__FILE__, __LINE__, "9007199254740993", 9007199254740992.0, 1, 9007199254740993LL);
    NUMBER("0.30000000000000004", 0.30000000000000004);
    INTEGER("-0", 0); /* an integer, as in Python: no sign */
    NUMBER("-0.0", -0.0);
    NUMBER("1E+2", 100.0);
}

/* Decimals without exponent of up to 19 digits are converted without
 * strtod; every one must still be the double strtod gives, bit for bit:
 * random ones of every length and split, nanosecond timestamps, and ties
 * between two doubles (which go to even). */
static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

TEST(test_json_scan__decimals_read_as_strtod_does)
{
    enum { N = 300000 };
    size_t cap = (size_t)N * 24 + 16, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text)
        return;
    static const char *const fixed[] = {"9007199254740993.0",
                                        "9007199254740995.0",
                                        "4503599627370497.5",
                                        "4503599627370496.5",
                                        "9007199254740992.5",
                                        "1712195495519689.047",
                                        "1419247332972.313",
                                        "63.813",
                                        "0.000",
                                        "-0.5",
                                        "9999999999999999999.",
                                        "9999999999999999.999",
                                        "1.8446744073709551",
                                        "0.1000000000000000055",
                                        "18014398509481985.0"};
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    text[len++] = '[';
    for (size_t k = 0; k < N; k++) {
        if (k)
            text[len++] = ',';
        if (k < nfixed) {
            if (fixed[k][strlen(fixed[k]) - 1] == '.') { /* not JSON: made whole */
                len += (size_t)sprintf(text + len, "%s0", fixed[k]);
                continue;
            }
            len += (size_t)sprintf(text + len, "%s", fixed[k]);
            continue;
        }
        unsigned total = 2 + (unsigned)(rnd() % 18); /* 2..19 digits */
        unsigned intd = 1 + (unsigned)(rnd() % (total - 1));
        char dig[20];
        for (unsigned i = 0; i < total; i++)
            dig[i] = (char)('0' + rnd() % 10);
        if (intd > 1 && dig[0] == '0')
            dig[0] = '1';
        if (k % 7 == 0)
            text[len++] = '-';
        memcpy(text + len, dig, intd);
        len += intd;
        text[len++] = '.';
        memcpy(text + len, dig + intd, total - intd);
        len += total - intd;
    }
    text[len++] = ']';
    text[len] = '\0';
    for (size_t step = 0; step <= 1; step++) {
        doc d;
        open_doc(&d, text, len, step ? 4093 : 0);
        CHECK_INT(td_json_arr_begin(&d.j), 0);
        bool first = true;
        const char *at = text + 1;
        size_t bad = 0, n = 0;
        while (td_json_arr_next(&d.j, &first) > 0) {
            td_json_num v;
            memset(&v, 0, sizeof v);
            if (td_json_number(&d.j, &v) != 0)
                break;
            char *end;
            double want = strtod(at, &end);
            if (memcmp(&v.d, &want, sizeof want) != 0 || v.is_int || !v.decimal) {
                if (bad++ < 5)
                    unit_fail(__FILE__, __LINE__, "%.*s read as %.17g, strtod %.17g",
                              (int)(end - at), at, v.d, want);
            }
            at = end + 1;
            n++;
        }
        CHECK_INT(n, N);
        CHECK_INT(bad, 0);
        CHECK_INT(td_json_end(&d.j), 0);
        td_json_free(&d.j);
    }
    free(text);
}

/* Reads every element of the array text with td_json_number: the count
 * read, and the first error (rc, message, offset) if any. */
static int read_numbers(const char *text, size_t len, size_t step, td_json_num *out, size_t cap,
                        size_t *n, td_error *err)
{
    doc d;
    open_doc(&d, text, len, step);
    int rc = td_json_arr_begin(&d.j);
    bool first = true;
    *n = 0;
    while (rc == 0 && (rc = td_json_arr_next(&d.j, &first)) > 0) {
        td_json_num v;
        memset(&v, 0, sizeof v);
        if ((rc = td_json_number(&d.j, &v)) != 0)
            break;
        if (*n < cap)
            out[*n] = v;
        (*n)++;
    }
    if (rc == 0)
        rc = td_json_end(&d.j);
    *err = d.err;
    td_json_free(&d.j);
    return rc;
}

/* The run of digits at p, up to e (16 bytes in one compare, then eight,
 * then byte by byte):
 * runs of every length to 40 cut by every byte around the digits' range
 * (and high bytes), starting anywhere, with e anywhere after p. Bytes past
 * e are digits too, and must not count. */
TEST(test_json_scan__digit_runs_stop_at_a_non_digit_or_e)
{
    static const unsigned char stops[] = {'/', ':', ' ', '.', 'e', '-', 0x80, 0xB0, 0xFF, 0};
    unsigned char buf[96];
    int bad = 0;
    for (size_t s = 0; s < sizeof stops; s++)
        for (size_t run = 0; run <= 40; run++) {
            memset(buf, '7', sizeof buf);
            for (size_t i = 0; i < run; i++)
                buf[i] = (unsigned char)('0' + i % 10);
            buf[run] = stops[s];
            for (size_t p = 0; p <= run; p++)
                for (size_t e = p; e <= 48; e++) {
                    size_t want = (run < e ? run : e) - p;
                    size_t got = td_json_digit_run(buf + p, buf + e);
                    if (got != want && bad++ < 5)
                        unit_fail(__FILE__, __LINE__,
                                  "run %zu, stop 0x%02x, p %zu, e %zu: %zu, not %zu", run, stops[s],
                                  p, e, got, want);
                }
        }
    CHECK_INT(bad, 0);
}

/* Integers of every length from 1 to 19 digits, signed or not, followed by
 * each separator, read inline (a large window) and by the general path
 * (one byte per read): strtoll's value when it fits, else strtod's double. */
TEST(test_json_scan__integers_read_inline_as_strtoll_does)
{
    enum { N = 200000 };
    static const char *const sep[] = {",", ", ", " ,", ",\n    ", "\n,\t"};
    size_t cap = (size_t)N * 28 + 16, len = 0;
    char *text = malloc(cap);
    td_json_num *got = malloc(N * sizeof *got);
    size_t *at = malloc(N * sizeof *at);
    CHECK(text && got && at);
    if (!text || !got || !at) {
        free(text);
        free(got);
        free(at);
        return;
    }
    text[len++] = '[';
    for (size_t k = 0; k < N; k++) {
        if (k)
            len += (size_t)sprintf(text + len, "%s", sep[rnd() % 5]);
        at[k] = len;
        unsigned nd = 1 + (unsigned)(k % 19);
        if (rnd() % 3 == 0)
            text[len++] = '-';
        for (unsigned i = 0; i < nd; i++)
            text[len++] = (char)('0' + (i == 0 && nd > 1 ? 1 + rnd() % 9 : rnd() % 10));
    }
    text[len++] = ']';
    text[len] = '\0';
    for (size_t step = 0; step <= 1; step++) {
        size_t n, bad = 0;
        td_error err;
        CHECK_INT(read_numbers(text, len, step ? 1 : 0, got, N, &n, &err), 0);
        CHECK_INT(n, N);
        for (size_t k = 0; k < N && k < n; k++) {
            errno = 0;
            long long want = strtoll(text + at[k], NULL, 10);
            bool fits = errno == 0;
            double wd = strtod(text + at[k], NULL);
            /* ("-0" is the integer 0, as JSON readers take it.) */
            if (got[k].is_int != fits || got[k].decimal || (fits && got[k].i != want) ||
                (fits ? got[k].d != (double)want : memcmp(&got[k].d, &wd, sizeof wd) != 0)) {
                if (bad++ < 5)
                    unit_fail(__FILE__, __LINE__, "%.24s read as %lld / %.17g (step %zu)",
                              text + at[k], (long long)got[k].i, got[k].d, step);
            }
        }
        CHECK_INT(bad, 0);
    }
    free(text);
    free(got);
    free(at);
}

/* A bad number deep in a long array, where the inline path would read it:
 * the same error, at the same place in it, as in a short array, which only
 * the general path reads. */
TEST(test_json_scan__bad_numbers_refused_inline_as_by_the_general_path)
{
    static const char *const bad[] = {"01",   "-01", "1.",  "-",    "1e", "12-3",
                                      "1+2",  "00",  "-0.", "1.e5", "-a", "0x10",
                                      "1.5.", "1ee", "1E+", "--1",  "+1", "1234567890123456-",
                                      "7-"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        char text[512], shorter[64];
        size_t len = 0;
        text[len++] = '[';
        for (int k = 0; k < 12; k++)
            len += (size_t)sprintf(text + len, "1661203462598738, ");
        size_t off = len - 1;
        len += (size_t)sprintf(text + len, "%s, 19, 20, 21, 22, 23, 24, 25, 26, 27]", bad[b]);
        size_t slen = (size_t)sprintf(shorter, "[%s]", bad[b]);
        td_json_num v[32];
        size_t n0, n1;
        td_error e0, e1;
        int rc0 = read_numbers(text, len, 0, v, 32, &n0, &e0);
        int rc1 = read_numbers(shorter, slen, 0, v, 32, &n1, &e1);
        if (rc0 != TD_EPARSE || rc1 != TD_EPARSE || n0 != n1 + 12 || e0.offset != e1.offset + off ||
            strcmp(e0.msg, e1.msg) != 0)
            unit_fail(__FILE__, __LINE__,
                      "%s: long rc %d n %zu at %llu \"%s\"; short rc %d n %zu at %llu+%zu \"%s\"",
                      bad[b], rc0, n0, (unsigned long long)e0.offset, e0.msg, rc1, n1,
                      (unsigned long long)e1.offset, off, e1.msg);
    }
}

TEST(test_json_scan__out_of_range_decimals)
{
    /* As Python reads them: an infinity, or zero. */
    NUMBER("1e400", INFINITY);
    NUMBER("-1e400", -INFINITY);
    NUMBER("1e-400", 0.0);
}

TEST(test_json_scan__bad_numbers_refused)
{
    REFUSED("01", 0, "invalid number");
    REFUSED("[01]", 1, "invalid number");
    REFUSED("[1.]", 1, "invalid number");
    REFUSED("[.5]", 1, "unexpected character");
    REFUSED("[-]", 1, "invalid number");
    REFUSED("[1e]", 1, "invalid number");
    REFUSED("[NaN]", 1, "NaN and Infinity are not JSON");
    REFUSED("[-Infinity]", 1, "NaN and Infinity are not JSON");
}

TEST(test_json_scan__grammar_errors_with_offsets)
{
    REFUSED("[1,]", 3, "trailing comma");
    REFUSED("{\"a\": 1,}", 8, "trailing comma");
    REFUSED("{'a': 1}", 1, "single quotes are not JSON");
    REFUSED("// x\n{}", 0, "comments are not JSON");
    REFUSED("{\"a\" 1}", 5, "expected ':'");
    REFUSED("[1 2]", 3, "expected ',' or ']'");
    REFUSED("[1", 2, "unexpected end of input, expected ',' or ']'");
    REFUSED("", 0, "unexpected end of input, expected a value");
    REFUSED("{} {}", 3, "unexpected data after the top-level value");
    REFUSED("[tru]", 1, "unexpected character");
}

TEST(test_json_scan__nul_byte_is_not_json)
{
    check_refused(__FILE__, __LINE__, "\0{}", 3, 0, "unexpected character");
    check_refused(__FILE__, __LINE__, "{}\0", 3, 2, "unexpected data after the top-level value");
}

static char *nested(int depth)
{
    char *t = malloc(2 * (size_t)depth + 1);
    memset(t, '[', (size_t)depth);
    memset(t + depth, ']', (size_t)depth);
    t[2 * depth] = '\0';
    return t;
}

TEST(test_json_scan__depth_limit)
{
    char *ok = nested(TD_JSON_MAX_DEPTH);
    td_error err;
    CHECK_INT(skip_doc(ok, strlen(ok), 0, &err), 0);
    free(ok);
    char *deep = nested(TD_JSON_MAX_DEPTH + 1);
    REFUSED(deep, TD_JSON_MAX_DEPTH, "nesting deeper than 4096 levels");
    free(deep);
}

TEST(test_json_scan__nested_values_skipped)
{
    static const char text[] =
        "{\"args\": {\"a\": [1, {\"b\": [[], {}, \"}]\"]}], \"c\": \"x\"}, \"d\": 5}";
    for (size_t step = 0; step <= 1; step++) {
        doc d;
        open_doc(&d, text, strlen(text), step);
        bool first = true;
        const char *k;
        size_t kl;
        int64_t dval = -1;
        int rc = td_json_obj_begin(&d.j);
        while (rc >= 0 && (rc = td_json_obj_next(&d.j, &first, &k, &kl)) > 0) {
            if (kl == 1 && k[0] == 'd') {
                td_json_num n;
                rc = td_json_number(&d.j, &n);
                dval = n.i;
            } else {
                CHECK_MEM(k, kl, "args", 4);
                rc = td_json_skip(&d.j);
            }
        }
        CHECK_INT(rc, 0);
        CHECK_INT(dval, 5);
        CHECK_INT(td_json_end(&d.j), 0);
        CHECK_INT(td_json_offset(&d.j), strlen(text));
        td_json_free(&d.j);
    }
}

/* {"k": VALUE, "pad": "..."} with member k skipped: in one piece the usual
 * values take td_json_skip's inline path, one byte per read the general
 * one; both must accept the same values, stop at the same byte, and refuse
 * the rest with the same error at the same offset. */
static int skip_member(const char *value, size_t step, uint64_t *after, td_error *err)
{
    char text[512], pad[321];
    memset(pad, 'x', sizeof pad - 1); /* more than the margins of the inline paths */
    pad[sizeof pad - 1] = '\0';
    snprintf(text, sizeof text, "{\"k\": %s, \"pad\": \"%s\"}", value, pad);
    doc d;
    open_doc(&d, text, strlen(text), step);
    bool first = true;
    const char *k;
    size_t kl;
    int rc = td_json_obj_begin(&d.j);
    if (rc == 0 && (rc = td_json_obj_next(&d.j, &first, &k, &kl)) == 1)
        rc = td_json_skip(&d.j);
    *after = td_json_offset(&d.j);
    if (rc == 0) { /* what follows must be read as ever */
        while ((rc = td_json_obj_next(&d.j, &first, &k, &kl)) > 0)
            rc = td_json_skip(&d.j);
        if (rc == 0)
            rc = td_json_end(&d.j);
    }
    *err = d.err;
    td_json_free(&d.j);
    return rc;
}

/* Skips value whole and byte by byte (the general path): both must accept,
 * stop at the same byte, or refuse with the same error at the same offset.
 * The return code of the whole one. */
static int skip_agrees(const char *file, int line, const char *value)
{
    td_error e0, e1;
    uint64_t a0, a1;
    int r0 = skip_member(value, 0, &a0, &e0);
    int r1 = skip_member(value, 1, &a1, &e1);
    if (r0 != r1)
        unit_fail(file, line, "%s: rc %d in one piece, %d byte by byte", value, r0, r1);
    else if (r0 == 0 && a0 != a1)
        unit_fail(file, line, "%s: skipped to byte %llu and %llu", value, (unsigned long long)a0,
                  (unsigned long long)a1);
    else if (r0 != 0 && (e0.offset != e1.offset || strcmp(e0.msg, e1.msg) != 0))
        unit_fail(file, line, "%s: byte %llu: %s; byte by byte: byte %llu: %s", value,
                  (unsigned long long)e0.offset, e0.msg, (unsigned long long)e1.offset, e1.msg);
    return r0;
}

/* Skips value in one piece: rc, and on success the value must end where
 * it does (the member's "{\"k\": " is 6 bytes). */
static void skip_ends(const char *file, int line, const char *value, int want)
{
    td_error err;
    uint64_t after;
    int rc = skip_member(value, 0, &after, &err);
    if (rc != want)
        unit_fail(file, line, "%s: rc %d, expected %d", value, rc, want);
    else if (rc == 0 && after != 6 + strlen(value))
        unit_fail(file, line, "%s: skipped to byte %llu, expected %zu", value,
                  (unsigned long long)after, 6 + strlen(value));
}
#define SKIPS(value) skip_ends(__FILE__, __LINE__, (value), 0)
#define SKIP_REFUSES(value) skip_ends(__FILE__, __LINE__, (value), TD_EPARSE)

TEST(test_json_scan__inline_skip_agrees_with_the_general_path)
{
    static const char *values[] = {
        "0",
        "-0",
        "7",
        "-12",
        "1869554",
        "1661203462598738",
        "0.5925926",
        "925.4252873563219",
        "-0.5",
        "123456789012345678901234567890",
        "0.",
        "-",
        "-x",
        "01",
        "00",
        "-01",
        "1.",
        "1.e5",
        "0.5e3",
        "1E-7",
        "2e",
        ".5",
        "+1",
        "1.5.5",
        "0x10",
        "1a",
        "0.5x",
        "\"\"",
        "\"PyTorch Profiler\"",
        "\"seventeen bytes!!\"",
        "\"0123456789abcdefghijklmnopqrstu\"",
        "\"0123456789abcdefghijklmnopqrstuv\"",
        "\"a\\\"b\"",
        "\"tab\there\"",
        "\"caf\xC3\xA9\"",
        "\"unterminated",
        "[[], [], [], [], []]",
        "[\"\", \"Scalar\"]",
        "[64, 1, 1]",
        "true",
        "null",
        "nul",
        "[1,]",
        "{}",
        "[]",
        "[ ]",
        "[[]]",
        "[[], []]",
        "[[1, 128], [], [768]]",
        "[[[1]]]",
        "[[[[1]]]]",
        "[[[[]]]]",
        "[1 ,2]",
        "[1,  2]",
        "[1 2]",
        "[1\"a\"]",
        "[\"a\"\"b\"]",
        "[01]",
        "[-]",
        "[1.]",
        "[0.5, -3, \"x\"]",
        "[1e5]",
        "[\"\\n\"]",
        "[[1], ]",
        "[,1]",
        "[\"0123456789abcdefg\"]",
        "[[1,2],[3,4]]",
        "[1]]",
        "[[1]",
        "[\n1]",
        "[true]",
    };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++)
        skip_agrees(__FILE__, __LINE__, values[i]);
    /* And the ones the loader meets most, accepted. */
    SKIPS("0.5925926");
    SKIPS("\"PyTorch Profiler\"");
    SKIP_REFUSES("01");
}

/* A random array of the shapes Kineto writes in args, at most depth deep. */
static void random_array(char *out, size_t cap, int depth)
{
    static const char *scalars[] = {"0",      "7",       "-1",        "128",        "768",
                                    "-0",     "\"\"",    "\"float\"", "\"Scalar\"", "\"a[b\"",
                                    "\"x]\"", "\"c,d\"", "\"e \""};
    size_t n = strlen(out);
    snprintf(out + n, cap - n, "[");
    unsigned k = (unsigned)(rnd() % 5);
    for (unsigned i = 0; i < k; i++) {
        n = strlen(out);
        if (i)
            snprintf(out + n, cap - n, "%s", rnd() % 8 ? ", " : ",");
        if (depth > 1 && rnd() % 3 == 0) {
            random_array(out, cap, depth - 1);
        } else {
            n = strlen(out);
            snprintf(out + n, cap - n, "%s", scalars[rnd() % (sizeof scalars / sizeof *scalars)]);
        }
    }
    n = strlen(out);
    snprintf(out + n, cap - n, "]");
}

/* Short arrays (args' "Input Dims", "Input type", "grid") are skipped by
 * bit masks when they end within 32 bytes: random ones, valid and with a
 * byte changed, inserted or removed, must be accepted and refused as the
 * general path does, byte by byte. */
TEST(test_json_scan__short_arrays_skipped_as_the_general_path_does)
{
    static const char alphabet[] = "[]\",- 0129.ae\\\t\n{}:\x01\xC3";
    unsigned accepted = 0, refused = 0, short_ok = 0;
    int rounds = unit_rounds(40000);
    for (int it = 0; it < rounds; it++) {
        char v[256] = "";
        random_array(v, 200, 1 + (int)(rnd() % 4));
        size_t len = strlen(v);
        unsigned edits = (unsigned)(rnd() % 3);
        for (unsigned e = 0; e < edits && len > 1; e++) {
            size_t at = 1 + (size_t)(rnd() % (len - 1));
            char c = alphabet[rnd() % (sizeof alphabet - 1)];
            switch (rnd() % 3) {
            case 0:
                v[at] = c;
                break;
            case 1:
                memmove(v + at + 1, v + at, len - at + 1);
                v[at] = c;
                len++;
                break;
            default:
                memmove(v + at, v + at + 1, len - at);
                len--;
                break;
            }
        }
        int r0 = skip_agrees(__FILE__, __LINE__, v);
        if (r0 == 0) {
            accepted++;
            short_ok += len < 32;
        } else {
            refused++;
        }
    }
    /* Both outcomes, and many short arrays accepted, were met. */
    CHECK(accepted > (unsigned)rounds / 4);
    CHECK(refused > (unsigned)rounds / 8);
    CHECK(short_ok > (unsigned)rounds / 8);
    /* Kineto's own, read whole. */
    SKIPS("[[1, 128], [], [768]]");
    SKIPS("[\"float\", \"\", \"Scalar\"]");
    SKIPS("[[\"]\"], 0]");
    SKIP_REFUSES("[[1, 128], [], [0768]]");
    SKIP_REFUSES("[1, -]");
}

TEST(test_json_scan__keys_survive_the_window_edge)
{
    /* One byte per read: the key must still be intact after ':' is read. */
    static const char text[] = "{\"a_rather_long_key_name\"   :   1, \"k\\u00e9y\": 2}";
    doc d;
    open_doc(&d, text, strlen(text), 1);
    bool first = true;
    const char *k;
    size_t kl;
    REQUIRE(td_json_obj_begin(&d.j) == 0);
    REQUIRE(td_json_obj_next(&d.j, &first, &k, &kl) == 1);
    CHECK_MEM(k, kl, "a_rather_long_key_name", 22);
    REQUIRE(td_json_skip(&d.j) == 0);
    REQUIRE(td_json_obj_next(&d.j, &first, &k, &kl) == 1);
    CHECK_MEM(k, kl, "k\xC3\xA9y", 4);
    REQUIRE(td_json_skip(&d.j) == 0);
    CHECK_INT(td_json_obj_next(&d.j, &first, &k, &kl), 0);
    td_json_free(&d.j);
}

TEST(test_json_scan__long_tokens_one_byte_at_a_time)
{
    size_t n = 5000;
    char *text = malloc(n + 64);
    size_t k = 0;
    text[k++] = '[';
    text[k++] = '"';
    for (size_t i = 0; i < n / 2; i++)
        text[k++] = (char)('a' + i % 26);
    memcpy(text + k, "\\u00e9\", 1234567.25e-3]", 23);
    k += 23;
    text[k] = '\0';
    td_error err;
    CHECK_INT(skip_doc(text, k, 1, &err), 0);
    free(text);
}

/* A string decoded into the scanner's scratch buffer, long enough that the
 * buffer grows several times (an escape every 37 bytes, 3,000 bytes in
 * all), whole and one byte a read: the bytes decoded are the bytes meant. */
TEST(test_json_scan__long_escaped_string_grows_the_scratch)
{
    size_t n = 3000, k = 0, w = 0;
    char *lit = malloc(2 * n + 8), *want = malloc(2 * n), *out = malloc(2 * n);
    REQUIRE(lit && want && out);
    lit[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (i % 37 == 36) {
            memcpy(lit + k, "\\u00e9", 6);
            k += 6;
            want[w++] = (char)0xC3;
            want[w++] = (char)0xA9;
        } else {
            lit[k++] = (char)('a' + i % 26);
            want[w++] = (char)('a' + i % 26);
        }
    }
    lit[k++] = '"';
    lit[k] = '\0';
    for (size_t step = 0; step <= 1; step++) {
        size_t len = 0;
        CHECK_INT(read_string(lit, step, out, 2 * n, &len), 0);
        CHECK_MEM(out, len, want, w);
    }
    free(lit);
    free(want);
    free(out);
}

TEST(test_json_scan__bom_skipped_only_when_asked)
{
    static const char text[] = "\xEF\xBB\xBF{}";
    doc d;
    open_doc(&d, text, 5, 1);
    CHECK_INT(td_json_skip_bom(&d.j), 1);
    CHECK_INT(td_json_skip(&d.j), 0);
    CHECK_INT(td_json_end(&d.j), 0);
    td_json_free(&d.j);
    REFUSED(text, 0, "unexpected character");
}

TEST(test_json_scan__read_error_is_not_hidden)
{
    /* A read error right after a comma used to come back as "expected a
     * key": the scanner must report the read error, and not read again. */
    static const char text[] = "{\"a\": 1, \"b\": [1, 2], \"c\": {\"d\": \"e\"}}";
    for (size_t at = 1; at < sizeof text - 1; at++) {
        for (size_t step = 0; step <= 1; step++) {
            doc d;
            open_doc(&d, text, strlen(text), step);
            d.s.fail_at = at;
            int rc = td_json_skip(&d.j);
            if (rc == 0)
                rc = td_json_end(&d.j);
            if (rc != TD_EIO || d.err.code != TD_EIO || strcmp(d.err.msg, "disk on fire") != 0)
                unit_fail(__FILE__, __LINE__, "failing read at %zu: rc %d, \"%s\"", at, rc,
                          d.err.msg);
            td_json_free(&d.j);

            /* The same through obj_next, as the trace loader walks. */
            open_doc(&d, text, strlen(text), step);
            d.s.fail_at = at;
            bool first = true;
            const char *k;
            size_t kl;
            rc = td_json_obj_begin(&d.j);
            while (rc >= 0 && (rc = td_json_obj_next(&d.j, &first, &k, &kl)) > 0)
                rc = td_json_skip(&d.j);
            if (rc != TD_EIO || d.err.code != TD_EIO || strcmp(d.err.msg, "disk on fire") != 0)
                unit_fail(__FILE__, __LINE__, "obj_next, failing read at %zu: rc %d, \"%s\"", at,
                          rc, d.err.msg);
            td_json_free(&d.j);
        }
    }
}

/* The keys a walk has seen, by tag: a tagged layout gives no key. */
static struct seen_key {
    uint64_t hash;
    int level;
    bool args;
} seen[120];
static int8_t n_seen;

/* One object of the walk below: its keys and numbers into *h, "args"
 * objects read as objects of their own kind. */
static int walk_object(td_json *j, td_json_keys *ks, int level, bool layouts, uint64_t *h)
{
    int rc = layouts ? td_json_obj_begin_keys(j, &ks[level]) : td_json_obj_begin(j);
    if (rc < 0)
        return rc;
    bool first = true;
    const char *k = NULL;
    size_t kl = 0;
    int8_t *tag, none;
    while ((rc = layouts ? td_json_member(j, &ks[level], &k, &kl, &tag)
                         : td_json_obj_next(j, &first, &k, &kl)) > 0) {
        if (!layouts) {
            none = -1;
            tag = &none;
        }
        /* A key is tagged with its place among the keys seen; a tagged
         * layout gives no key, so its tag says which one it is. Some keys
         * are left untagged: their layouts must give the key every time. */
        int8_t at;
        if (*tag < 0) {
            if (!k)
                return unit_fail(__FILE__, __LINE__, "an untagged member without its key"),
                       TD_EPARSE;
            uint64_t kh = td_hash_bytes(k, kl);
            at = 0;
            while (at < n_seen && (seen[at].hash != kh || seen[at].level != level))
                at++;
            if (at == n_seen) {
                if (n_seen == (int8_t)(sizeof seen / sizeof seen[0]))
                    abort();
                seen[n_seen++] = (struct seen_key){kh, level, kl == 4 && memcmp(k, "args", 4) == 0};
            }
            if (kh % 3)
                *tag = at;
        } else if (*tag >= n_seen || seen[*tag].level != level) {
            return unit_fail(__FILE__, __LINE__, "tag %d: no key of level %d", *tag, level),
                   TD_EPARSE;
        } else {
            at = *tag;
            if (k && td_hash_bytes(k, kl) != seen[at].hash)
                unit_fail(__FILE__, __LINE__, "tag %d given to \"%.*s\"", at, (int)kl, k);
        }
        k = NULL; /* a key given must be this member's own */
        const struct seen_key *sk = &seen[at];
        *h = (*h ^ sk->hash) * 0xbf58476d1ce4e5b9ull;
        int c = td_json_peek(j);
        td_json_num n;
        if (level == 0 && c == '{' && sk->args) {
            rc = walk_object(j, ks, 1, layouts, h);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if ((rc = td_json_number(j, &n)) == 0) {
                /* n.i holds the value only when is_int: else the double's bits */
                uint64_t v;
                memcpy(&v, &n.d, sizeof v);
                *h = (*h ^ (n.is_int ? (uint64_t)n.i : v)) * 0xbf58476d1ce4e5b9ull;
            }
        } else {
            rc = td_json_skip(j);
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* An array of objects walked through td_json_member (layouts learnt from
 * object to object, args by a td_json_keys of their own) or through
 * td_json_obj_next: a hash of what was read, the result and the error. */
static uint64_t walk_members(const char *text, size_t len, size_t step, bool layouts, int *rc_out,
                             td_error *err)
{
    doc d;
    open_doc(&d, text, len, step);
    td_json_keys *ks = calloc(2, sizeof *ks);
    if (!ks)
        abort();
    uint64_t h = 0x9E3779B97F4A7C15ull;
    bool first = true;
    n_seen = 0;
    int rc = td_json_arr_begin(&d.j);
    while (rc == 0 && (rc = td_json_arr_next(&d.j, &first)) > 0)
        rc = td_json_peek(&d.j) == '{' ? walk_object(&d.j, ks, 0, layouts, &h) : td_json_skip(&d.j);
    if (rc == 0)
        rc = td_json_end(&d.j);
    h ^= (uint64_t)d.j.depth; /* every level left as entered */
    *rc_out = rc;
    *err = d.err;
    td_json_free(&d.j);
    free(ks);
    return h;
}

/* Objects with the members of trace events in varying order, spacing and
 * indentation, some keys escaped, long or not ASCII, and more than 64
 * layouts: read through layouts as through td_json_obj_next. Then the same
 * text with one byte changed, inserted or removed, again and again: the
 * same result, the same error at the same offset. A layout's bytes are
 * never taken where they would not be valid (a first member's after a
 * value, a member's after a '}'). */
TEST(test_json_scan__member_layouts_read_as_obj_next)
{
    static const char *const keys[] = {
        "\"ph\"",         "\"cat\"",         "\"name\"",
        "\"pid\"",        "\"tid\"",         "\"ts\"",
        "\"dur\"",        "\"id\"",          "\"bp\"",
        "\"s\"",          "\"External id\"", "\"Profiler Event Index\"",
        "\"stream\"",     "\"correlation\"", "\"a key that is longer than thirty-two bytes\"",
        "\"caf\\u00e9\"", "\"na\\\"me\"",    "\"\xc3\xa9t\xc3\xa9\""};
    static const char *const vals[] = {
        "\"X\"",        "1661203462598738",  "19",   "-3",   "\"cpu_op\"",
        "[[], [1, 2]]", "{\"x\": [1]}",      "true", "null", "0.5",
        "\"aten::mm\"", "[\"\", \"Scalar\"]"};
    static const char *const seps[] = {", ", ",", ",\n    ", " , ", ",\n\t", ",\n      "};
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text)
        return;
    text[len++] = '[';
    size_t edit_len = 0; /* the first 300 objects: where the edits go */
    for (int o = 0; o < 2000 && len < cap - 4096; o++) {
        if (o == 300)
            edit_len = len;
        if (o)
            len += (size_t)sprintf(text + len, ",\n  ");
        const char *sep = seps[rnd() % 6];
        size_t nm = 2 + rnd() % 8;
        len += (size_t)sprintf(text + len, "{%s", rnd() % 2 ? "\n    " : "");
        for (size_t m = 0; m < nm; m++) {
            size_t kk = o % 5 ? (m * 3 + (size_t)o % 2) % 18 : rnd() % 18;
            if (m)
                len += (size_t)sprintf(text + len, "%s", sep);
            len += (size_t)sprintf(text + len, "%s%s", keys[kk], rnd() % 4 ? ": " : ":");
            if (m == nm - 1 && o % 3 == 0) { /* args */
                len += (size_t)sprintf(text + len, "{\"stream\": 7, %s: %s, \"correlation\": %d}",
                                       keys[rnd() % 18], vals[rnd() % 12], o);
            } else {
                len += (size_t)sprintf(text + len, "%s", vals[rnd() % 12]);
            }
        }
        len += (size_t)sprintf(text + len, "%s}", rnd() % 2 ? "\n  " : "");
    }
    text[len++] = ']';
    int rc0, rc1;
    td_error e0, e1;
    for (size_t step = 0; step <= 1; step++) {
        uint64_t h0 = walk_members(text, len, step ? 4093 : 0, false, &rc0, &e0);
        uint64_t h1 = walk_members(text, len, step ? 4093 : 0, true, &rc1, &e1);
        CHECK_INT(rc0, 0);
        CHECK_INT(rc1, 0);
        CHECK(h0 == h1);
    }
    /* The edits go into the first 300 objects, closed as a document of
     * their own: the same kinds of members, separators and layouts as the
     * whole (read whole above), at a seventh of the cost of each walk. */
    if (!edit_len)
        edit_len = len - 1;
    text[edit_len] = ']';
    len = edit_len + 1;
    static const char edits[] = ",\":}{]0a\\ \n";
    char *bad = malloc(len + 2);
    CHECK(bad != NULL);
    size_t differ = 0, refused = 0;
    int edits_run = unit_rounds(3000);
    for (int t = 0; bad && t < edits_run; t++) {
        size_t at = 1 + rnd() % (len - 2), blen = len;
        memcpy(bad, text, len);
        int kind = (int)(rnd() % 3);
        if (kind == 0) { /* change */
            bad[at] = edits[rnd() % (sizeof edits - 1)];
        } else if (kind == 1) { /* insert */
            memmove(bad + at + 1, bad + at, len - at);
            bad[at] = edits[rnd() % (sizeof edits - 1)];
            blen++;
        } else { /* remove */
            memmove(bad + at, bad + at + 1, len - at - 1);
            blen--;
        }
        uint64_t h0 = walk_members(bad, blen, 0, false, &rc0, &e0);
        uint64_t h1 = walk_members(bad, blen, 0, true, &rc1, &e1);
        refused += rc0 < 0;
        if (rc0 != rc1 || (rc0 == 0 && h0 != h1) ||
            (rc0 < 0 && (e0.offset != e1.offset || strcmp(e0.msg, e1.msg) != 0))) {
            if (differ++ < 5)
                unit_fail(__FILE__, __LINE__,
                          "edit %d at %zu: obj_next rc %d at %llu \"%s\"; layouts rc %d at %llu "
                          "\"%s\"",
                          kind, at, rc0, (unsigned long long)e0.offset, rc0 < 0 ? e0.msg : "", rc1,
                          (unsigned long long)e1.offset, rc1 < 0 ? e1.msg : "");
        }
    }
    CHECK_INT(differ, 0);
    CHECK(refused > (size_t)edits_run / 3); /* most edits break the document */
    free(bad);
    free(text);
}

/* A member right after a value with no ',' between, where its bytes are a
 * layout that began an object; a '}' or ']' where a member's layout was
 * predicted; a layout that follows a value right after '{' (the member
 * before the object's '{' was one it follows); members after an object
 * that ended inline. */
TEST(test_json_scan__member_layouts_only_where_valid)
{
    static const char *const docs[] = {
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2\"ph\": 3}, %s]",
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2 \"ph\": 3}, %s]",
        "[{\n \"ph\": 1, \"cat\": 2}, {\n \"ph\": 1, \"cat\": 2\n \"ph\": 3}, %s]",
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1] , %s]",
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}}, %s]",
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, , \"cat\": 2}, %s]",
        "[{\"ph\": 1, \"cat\": 2}, {, \"ph\": 1, \"cat\": 2}, %s]",
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1}, {, \"cat\": 2}, %s]",
        "[{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, %s]",
    };
    const char *pad = "{\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": "
                      "2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1, \"cat\": 2}, {\"ph\": 1}";
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        char text[1024];
        int len = snprintf(text, sizeof text, docs[k], pad);
        int rc0, rc1;
        td_error e0, e1;
        uint64_t h0 = walk_members(text, (size_t)len, 0, false, &rc0, &e0);
        uint64_t h1 = walk_members(text, (size_t)len, 0, true, &rc1, &e1);
        if (rc0 != rc1 || h0 != h1 ||
            (rc0 < 0 && (e0.offset != e1.offset || strcmp(e0.msg, e1.msg) != 0)))
            unit_fail(__FILE__, __LINE__, "doc %zu: obj_next rc %d at %llu; layouts rc %d at %llu",
                      k, rc0, (unsigned long long)e0.offset, rc1, (unsigned long long)e1.offset);
        CHECK_INT(rc0, k + 1 < sizeof docs / sizeof docs[0] ? TD_EPARSE : 0);
    }
}
