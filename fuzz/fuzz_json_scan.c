/*
 * Fuzz target: the streaming JSON scanner (src/read/json_*.c).
 *
 * The input is a JSON text. A walker without recursion reads every value
 * through the td_json_* calls (strings, numbers, objects, arrays, and
 * td_json_skip on a random-but-deterministic share of them), digesting
 * everything it sees. The same input is scanned three times:
 *
 *   1. through a read callback that hands out the whole input at once;
 *   2. in small random-sized chunks (1 to 64 bytes), so that every token
 *      meets the window's edge somewhere;
 *   3. in chunks again, with a read error injected at a random offset.
 *
 * The first input byte picks the SIMD level of the block index.
 *
 * Properties: runs 1 and 2 agree exactly (digest, result, error offset and
 * message); run 3 agrees with run 1 or fails with TD_EIO; one td_json_skip
 * over the whole document accepts exactly what the walker accepts; decoded
 * strings are well-formed (generalised) UTF-8; integers read back exactly;
 * td_json_skip gives the same verdict, message and offset whole and chunked.
 */
#include "fuzz_util.h"
#include "read/json_scan.h"
#include "read/json_index.h"
#include "util/util.h"

#include <math.h>

typedef struct source {
    const uint8_t *data;
    size_t size, pos;
    uint64_t rng;
    int chunked;
    size_t fail_at; /* inject a read error once pos reaches this; SIZE_MAX: never */
    int failed;
} source;

static long source_read(void *ud, char *buf, size_t cap, td_error *err)
{
    source *s = ud;
    if (s->pos >= s->fail_at) {
        s->failed = 1;
        return td_fail(err, TD_EIO, "fuzz", "injected read error");
    }
    size_t n = s->size - s->pos;
    if (n > cap)
        n = cap;
    if (s->chunked && n > 0) {
        uint64_t r = fuzz_rand(&s->rng);
        /* Mostly tiny chunks (one byte a quarter of the time), some larger. */
        size_t k = (r & 3) == 0 ? 1 : 1 + (size_t)((r >> 8) % ((r & 4) ? 7 : 64));
        if (k < n)
            n = k;
    }
    if (s->fail_at != SIZE_MAX && s->pos + n > s->fail_at)
        n = s->fail_at - s->pos;
    if (n == 0 && s->pos < s->size) {
        s->failed = 1;
        return td_fail(err, TD_EIO, "fuzz", "injected read error");
    }
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long)n;
}

static void mix(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 1099511628211ull;
    }
}

static void mix_u64(uint64_t *h, uint64_t v)
{
    mix(h, &v, sizeof v);
}

/* Generalised UTF-8 (WTF-8): like UTF-8, but surrogate code points encoded
 * alone are allowed, as the scanner keeps lone \uD8xx escapes that way. */
static int wtf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int len;
        unsigned cp;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if (i + (size_t)len > n)
            return 0;
        for (int k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return 0;
        i += (size_t)len;
    }
    return 1;
}

/* A high surrogate directly followed by a low one must have been joined
 * into one 4-byte character: if they are adjacent in the output, two
 * different inputs ("\uD83D\uDE00" and the same via two strings) could not
 * be told apart, and names would stop round-tripping. */
static int no_joinable_pair(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i + 6 <= n; i++)
        if (s[i] == 0xED && s[i + 1] >= 0xA0 && s[i + 1] <= 0xAF && s[i + 3] == 0xED &&
            s[i + 4] >= 0xB0 && s[i + 4] <= 0xBF)
            return 0;
    return 1;
}

typedef struct result {
    int rc;
    uint64_t digest;
    td_error err;
} result;

static uint8_t kind[TD_JSON_MAX_DEPTH + 1]; /* 1 = object */
static bool first[TD_JSON_MAX_DEPTH + 1];

static int check_string(const char *s, size_t n)
{
    FUZZ_CHECK(wtf8_valid((const unsigned char *)s, n), "string of %zu bytes is not WTF-8", n);
    FUZZ_CHECK(no_joinable_pair((const unsigned char *)s, n),
               "surrogate pair left unjoined in a %zu-byte string", n);
    return 0;
}

static void check_number(const td_json_num *num)
{
    if (num->is_int) {
        FUZZ_CHECK(!num->decimal, "an integer written with '.' or 'e'");
        FUZZ_CHECK((double)num->i == num->d, "integer %lld read as %.17g", (long long)num->i,
                   num->d);
    }
    FUZZ_CHECK(!isnan(num->d), "a JSON number read as NaN");
}

/* Walks the whole document; returns the first error or 0. */
static int walk(td_json *j, uint64_t seed, uint64_t *h)
{
    uint64_t rng = seed;
    int depth = 0, rc;
    if (seed & 1) {
        if ((rc = td_json_skip_bom(j)) < 0)
            return rc;
        mix_u64(h, (uint64_t)rc);
    }
    for (;;) {
        if (depth > 0) {
            int d = depth - 1;
            if (kind[d]) {
                const char *k;
                size_t kl;
                rc = td_json_obj_next(j, &first[d], &k, &kl);
                if (rc > 0) {
                    check_string(k, kl);
                    mix(h, k, kl);
                }
            } else {
                rc = td_json_arr_next(j, &first[d]);
            }
            if (rc < 0)
                return rc;
            if (rc == 0) {
                mix_u64(h, 0x100 + (uint64_t)kind[d]);
                if (--depth == 0)
                    break;
                continue;
            }
        }
        int c = td_json_peek(j);
        if (c < -1)
            return TD_EIO;
        bool skip = fuzz_rand(&rng) % 5 == 0;
        mix_u64(h, td_json_offset(j));
        if (!skip && (c == '{' || c == '[')) {
            rc = c == '{' ? td_json_obj_begin(j) : td_json_arr_begin(j);
            if (rc < 0)
                return rc;
            FUZZ_CHECK(depth <= TD_JSON_MAX_DEPTH, "depth %d beyond the limit", depth);
            kind[depth] = c == '{';
            first[depth] = true;
            depth++;
            continue;
        }
        if (!skip && c == '"') {
            const char *s;
            size_t n;
            if ((rc = td_json_string(j, &s, &n)) < 0)
                return rc;
            check_string(s, n);
            mix(h, s, n);
        } else if (!skip && (c == '-' || (c >= '0' && c <= '9'))) {
            td_json_num num;
            if ((rc = td_json_number(j, &num)) < 0)
                return rc;
            check_number(&num);
            mix_u64(h, (uint64_t)num.i * num.is_int);
            mix(h, &num.d, sizeof num.d);
        } else {
            if ((rc = td_json_skip(j)) < 0)
                return rc;
        }
        if (depth == 0)
            break;
    }
    return td_json_end(j);
}

static result scan(const uint8_t *data, size_t size, uint64_t seed, int chunked, size_t fail_at,
                   int *injected)
{
    result r;
    memset(&r, 0, sizeof r);
    r.digest = 1469598103934665603ull;
    source src = {data, size, 0, seed * 31 + 7, chunked, fail_at, 0};
    td_json j;
    if (td_json_init(&j, source_read, &src, "fuzz", &r.err) < 0) {
        r.rc = TD_ENOMEM;
        return r;
    }
    r.rc = walk(&j, seed, &r.digest);
    if (r.rc < 0)
        FUZZ_CHECK(r.err.code == r.rc && r.err.msg[0], "error %d without a message", r.rc);
    td_json_free(&j);
    if (injected)
        *injected = src.failed;
    return r;
}

/* One td_json_skip over the whole document, read in chunks (mostly the
 * general path) or all at once (mostly the indexed hot loop). */
static int skip_all(const uint8_t *data, size_t size, uint64_t seed, int chunked, td_error *err)
{
    memset(err, 0, sizeof *err);
    source src = {data, size, 0, seed, chunked, SIZE_MAX, 0};
    td_json j;
    if (td_json_init(&j, source_read, &src, "fuzz", err) < 0)
        return TD_ENOMEM;
    int rc = 0;
    if (seed & 1)
        rc = td_json_skip_bom(&j);
    if (rc >= 0)
        rc = td_json_skip(&j);
    if (rc >= 0)
        rc = td_json_end(&j);
    td_json_free(&j);
    return rc < 0 ? rc : 0;
}

static void same(const result *a, const result *b, const char *what)
{
    FUZZ_CHECK(a->rc == b->rc, "%s: result %d vs %d (%s / %s)", what, a->rc, b->rc, a->err.msg,
               b->err.msg);
    FUZZ_CHECK(a->digest == b->digest, "%s: different values read", what);
    if (a->rc < 0) {
        FUZZ_CHECK(a->err.has_offset == b->err.has_offset && a->err.offset == b->err.offset,
                   "%s: error at byte %llu vs %llu", what, (unsigned long long)a->err.offset,
                   (unsigned long long)b->err.offset);
        FUZZ_CHECK(strcmp(a->err.msg, b->err.msg) == 0, "%s: '%s' vs '%s'", what, a->err.msg,
                   b->err.msg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks the SIMD level of the scanner's block index, so
     * that every level meets every input. */
    td_json_simd_set(size > 0 ? data[0] % TD_SIMD_LEVELS : TD_SIMD_LEVELS - 1);
    uint64_t seed = fuzz_hash(data, size);
    result whole = scan(data, size, seed, 0, SIZE_MAX, NULL);
    result chunks = scan(data, size, seed, 1, SIZE_MAX, NULL);
    same(&whole, &chunks, "whole vs chunked");

    if (size > 0) {
        int injected = 0;
        uint64_t s2 = seed ^ 0x5bd1e995u;
        size_t at = (size_t)(fuzz_rand(&s2) % size);
        result broken = scan(data, size, seed, 1, at, &injected);
        if (injected) {
            FUZZ_CHECK(broken.rc < 0, "a read error went unnoticed");
            if (broken.err.code != TD_EIO)
                same(&whole, &broken, "whole vs read error");
        }
    }

    td_error e1, e2;
    int sk = skip_all(data, size, seed, 1, &e1);
    FUZZ_CHECK((sk == 0) == (whole.rc == 0), "td_json_skip says %d, the walker %d (%s)", sk,
               whole.rc, whole.err.msg);
    /* The indexed hot loop and the general path: the same verdict, message
     * and offset. */
    int sk2 = skip_all(data, size, seed, 0, &e2);
    FUZZ_CHECK(sk == sk2, "td_json_skip chunked %d vs whole %d (%s / %s)", sk, sk2, e1.msg, e2.msg);
    if (sk < 0 && sk == sk2)
        FUZZ_CHECK(e1.offset == e2.offset && strcmp(e1.msg, e2.msg) == 0,
                   "td_json_skip chunked: byte %llu %s; whole: byte %llu %s",
                   (unsigned long long)e1.offset, e1.msg, (unsigned long long)e2.offset, e2.msg);
    return 0;
}
