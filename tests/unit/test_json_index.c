/* The JSON scanner's block index (src/read/json_index.c) at every SIMD
 * level this CPU has, against the scalar kernel; and td_json_skip's indexed
 * hot loop against its general path (documents read one byte at a time never
 * give the hot loop the 128 bytes it needs), on random and adversarial
 * documents: backslash runs, quotes and UTF-8 at 64-byte block edges and at
 * the window's edge, control characters, and one-byte mutations of all of
 * these. */
#include "harness.h"
#include "util/util.h"
#include "read/json_index.h"
#include "read/json_scan.h"

#include <stdlib.h>

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Bytes the kernels tell apart, and some they do not. */
static const unsigned char special[] = {'"',  '\\', ' ',  '\n', '\r', '\t', 0x00, 0x01, 0x1F,
                                        0x20, 0x21, 0x7F, 0x80, 0xC3, 0xFF, 'a',  ':',  ','};

TEST(test_json_index__every_level_matches_scalar)
{
    enum { NB = 9 };
    static unsigned char buf[NB * 64 + 1];
    uint64_t want_nw[NB], want_qs[NB], nw[NB], qs[NB];
    uint64_t s = 88172645463325252ull;
    td_json_index_fn ref = td_json_index_kernel(TD_SIMD_SCALAR);
    REQUIRE(ref != NULL);
    for (int round = 0; round < unit_rounds(400); round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            uint64_t r = rng_next(&s);
            buf[i] = (round & 1) ? (unsigned char)r : special[r % sizeof special];
        }
        /* Every alignment of the blocks in memory. */
        const unsigned char *p = buf + (round % 2);
        ref(p, NB, want_nw, want_qs);
        for (int l = 0; l < TD_SIMD_LEVELS; l++) {
            td_json_index_fn k = td_json_index_kernel(l);
            if (!k)
                continue;
            memset(nw, 0xA5, sizeof nw);
            memset(qs, 0xA5, sizeof qs);
            k(p, NB, nw, qs);
            for (int b = 0; b < NB; b++)
                if (nw[b] != want_nw[b] || qs[b] != want_qs[b])
                    unit_fail(__FILE__, __LINE__, "%s, round %d, block %d: %016llx %016llx",
                              td_json_simd_name(l), round, b, (unsigned long long)nw[b],
                              (unsigned long long)qs[b]);
        }
    }
    /* Each byte value alone, in each lane. */
    for (int c = 0; c < 256; c++) {
        memset(buf, 'x', sizeof buf);
        buf[c % 64] = (unsigned char)c;
        ref(buf, 1, want_nw, want_qs);
        int ws = c == ' ' || c == '\n' || c == '\r' || c == '\t';
        int stop = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
        CHECK_INT((want_nw[0] >> (c % 64)) & 1, !ws);
        CHECK_INT((want_qs[0] >> (c % 64)) & 1, stop);
        for (int l = 1; l < TD_SIMD_LEVELS; l++) {
            td_json_index_fn k = td_json_index_kernel(l);
            if (!k)
                continue;
            k(buf, 1, nw, qs);
            if (nw[0] != want_nw[0] || qs[0] != want_qs[0])
                unit_fail(__FILE__, __LINE__, "%s: byte 0x%02x", td_json_simd_name(l), c);
        }
    }
}

TEST(test_json_index__classify_every_level_matches_scalar)
{
    enum { NB = 9 };
    static unsigned char buf[NB * 64 + 1];
    td_json_class want[NB], got[NB];
    uint64_t s = 0x2545F4914F6CDD1Dull;
    static const unsigned char more[] = {'{', '}', '[', ']', ':', ',', ';', 'Z', 0x5B | 0x80};
    td_json_classify_fn ref = td_json_classify_kernel(TD_SIMD_SCALAR);
    REQUIRE(ref != NULL);
    for (int round = 0; round < unit_rounds(400); round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            uint64_t r = rng_next(&s);
            buf[i] = (round & 1)   ? (unsigned char)r
                     : (r & 0x100) ? more[r % sizeof more]
                                   : special[r % sizeof special];
        }
        const unsigned char *p = buf + (round % 2);
        ref(p, NB, want);
        for (int l = 0; l < TD_SIMD_LEVELS; l++) {
            td_json_classify_fn k = td_json_classify_kernel(l);
            if (!k)
                continue;
            memset(got, 0xA5, sizeof got);
            k(p, NB, got);
            for (int b = 0; b < NB; b++)
                if (memcmp(&got[b], &want[b], sizeof got[b]) != 0)
                    unit_fail(__FILE__, __LINE__, "%s, round %d, block %d", td_json_simd_name(l),
                              round, b);
        }
    }
    for (int c = 0; c < 256; c++) {
        memset(buf, 'x', sizeof buf);
        buf[c % 64] = (unsigned char)c;
        ref(buf, 1, want);
        unsigned k = (unsigned)c % 64;
        CHECK_INT((want[0].ws >> k) & 1, c == ' ' || c == '\n' || c == '\r' || c == '\t');
        CHECK_INT((want[0].quote >> k) & 1, c == '"');
        CHECK_INT((want[0].op >> k) & 1,
                  c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',');
        CHECK_INT((want[0].odd >> k) & 1, c == '\\' || c < 0x20 || c >= 0x80);
        CHECK_INT((want[0].digit >> k) & 1, c >= '0' && c <= '9');
        for (int l = 1; l < TD_SIMD_LEVELS; l++) {
            td_json_classify_fn f = td_json_classify_kernel(l);
            if (!f)
                continue;
            f(buf, 1, got);
            if (memcmp(&got[0], &want[0], sizeof got[0]) != 0)
                unit_fail(__FILE__, __LINE__, "%s: byte 0x%02x", td_json_simd_name(l), c);
        }
    }
}

TEST(test_json_index__levels_named_and_forced)
{
    CHECK_INT(td_json_simd_parse("scalar"), TD_SIMD_SCALAR);
    CHECK_INT(td_json_simd_parse("avx512"), TD_SIMD_AVX512);
    CHECK_INT(td_json_simd_parse("mmx"), -1);
    CHECK_STR(td_json_simd_name(TD_SIMD_AVX2), "avx2");
    int was = td_json_simd_level();
    CHECK_INT(td_json_simd_set(TD_SIMD_SCALAR), TD_SIMD_SCALAR);
    CHECK_INT(td_json_simd_level(), TD_SIMD_SCALAR);
    int best = td_json_simd_set(-1);
    CHECK(td_json_simd_supported(best));
    td_json_simd_set(was);
}

/* A growing text. */
typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void put(text *t, const void *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}
static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}
#define PUTS(t, s) puts_((t), (s))

/* A string literal that is mostly plain, with escapes, backslash runs and
 * UTF-8 where the generator likes. */
static void gen_string(text *t, uint64_t *s)
{
    static const char *const pieces[] = {
        "kernel",  "\\\"",     "\\\\",         "\\\\\\\\\\\\\\\\",
        "\\/",     "\\n",      "\\u00e9",      "\\ud83d\\ude00",
        "\\uD800", "\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80",
        " ",       "x",        "::<float>",    "abcdefghijklmnopqrstuvwxyz0123456789"};
    PUTS(t, "\"");
    int n = (int)(rng_next(s) % 9);
    for (int i = 0; i < n; i++)
        PUTS(t, pieces[rng_next(s) % (sizeof pieces / sizeof *pieces)]);
    PUTS(t, "\"");
}

static void gen_ws(text *t, uint64_t *s)
{
    static const char ws[] = " \n\r\t";
    uint64_t r = rng_next(s);
    int n = (r & 3) == 0 ? (int)(r >> 8) % 70 : (int)(r >> 8) % 2;
    for (int i = 0; i < n; i++)
        put(t, &ws[(r >> (16 + i % 40)) & 3], 1);
}

static void gen_value(text *t, uint64_t *s, int depth)
{
    static const char *const scalars[] = {
        "0",     "-1",   "1661203463029566",    "0.5925926", "-2.5e-3", "1E+9", "true",
        "false", "null", "12345678901234567890"};
    uint64_t r = rng_next(s) % 10;
    gen_ws(t, s);
    if (depth < 5 && r < 2) {
        PUTS(t, "{");
        int n = (int)(rng_next(s) % 6);
        for (int i = 0; i < n; i++) {
            if (i)
                PUTS(t, ",");
            gen_ws(t, s);
            gen_string(t, s);
            gen_ws(t, s);
            PUTS(t, ":");
            gen_value(t, s, depth + 1);
        }
        gen_ws(t, s);
        PUTS(t, "}");
    } else if (depth < 5 && r < 4) {
        PUTS(t, "[");
        int n = (int)(rng_next(s) % 6);
        for (int i = 0; i < n; i++) {
            if (i)
                PUTS(t, ",");
            gen_value(t, s, depth + 1);
        }
        gen_ws(t, s);
        PUTS(t, "]");
    } else if (r < 7) {
        gen_string(t, s);
    } else {
        PUTS(t, scalars[rng_next(s) % (sizeof scalars / sizeof *scalars)]);
    }
    gen_ws(t, s);
}

typedef struct src {
    const char *p;
    size_t n, pos, step;
} src;

static long src_read(void *ud, char *buf, size_t cap, td_error *err)
{
    (void)err;
    src *s = ud;
    size_t k = s->n - s->pos;
    if (k > cap)
        k = cap;
    if (s->step && k > s->step)
        k = s->step;
    memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    return (long)k;
}

typedef struct verdict {
    int rc;
    uint64_t offset;
    char msg[256];
} verdict;

static verdict skip_doc(const char *p, size_t n, size_t step)
{
    verdict v = {0, 0, ""};
    src s = {p, n, 0, step};
    td_error err = {0};
    td_json j;
    if (td_json_init(&j, src_read, &s, "t.json", &err) != 0)
        abort();
    v.rc = td_json_skip(&j);
    if (v.rc == 0)
        v.rc = td_json_end(&j);
    if (v.rc < 0) {
        v.offset = err.offset;
        snprintf(v.msg, sizeof v.msg, "%s", err.msg);
    }
    td_json_free(&j);
    return v;
}

/* The document at every level, whole and in 200-byte reads, against the
 * general path (one byte a read). */
static int same_verdicts(const char *p, size_t n, int line, int round)
{
    int was = td_json_simd_level();
    verdict want = skip_doc(p, n, 1);
    int ok = 1;
    for (int l = 0; l < TD_SIMD_LEVELS; l++) {
        if (!td_json_simd_supported(l))
            continue;
        td_json_simd_set(l);
        for (size_t step = 0; step <= 200; step += 200) {
            verdict got = skip_doc(p, n, step);
            if (got.rc != want.rc || got.offset != want.offset || strcmp(got.msg, want.msg) != 0) {
                unit_fail(__FILE__, line,
                          "round %d, %s, step %zu: %d byte %llu %s; general path: %d byte %llu %s",
                          round, td_json_simd_name(l), step, got.rc, (unsigned long long)got.offset,
                          got.msg, want.rc, (unsigned long long)want.offset, want.msg);
                ok = 0;
            }
        }
    }
    td_json_simd_set(was);
    return ok;
}

TEST(test_json_index__skip_matches_general_path)
{
    static const char mut[] = {'"', '\\', 0x01, '\n', (char)0xC3, (char)0x80, (char)0xFF,
                               ',', '}',  ']',  ':',  '{',        '[',        ' ',
                               '0', '-',  '.',  'e',  't',        'x',        '\''};
    uint64_t s = 0x9E3779B97F4A7C15ull;
    int failures = 0;
    for (int round = 0; round < unit_rounds(1500) && failures < 5; round++) {
        text t = {0};
        PUTS(&t, "[");
        int n = 1 + (int)(rng_next(&s) % 12);
        for (int i = 0; i < n; i++) {
            if (i)
                PUTS(&t, ",");
            gen_value(&t, &s, 1);
        }
        PUTS(&t, "]");
        uint64_t r = rng_next(&s);
        if (r % 3 != 0 && t.n > 2) /* two thirds mutated */
            t.p[(r >> 8) % t.n] = mut[(r >> 32) % sizeof mut];
        if (r % 11 == 0) /* some cut short */
            t.n = (size_t)((r >> 16) % t.n);
        failures += !same_verdicts(t.p, t.n, __LINE__, round);
        free(t.p);
    }
}

/* Documents of several blocks, where the structural walk of large values
 * does most of the work, with up to three bytes mutated; and scalars
 * followed by what may not follow them. */
TEST(test_json_index__walk_matches_general_path)
{
    static const char mut[] = {'"', '\\', 0x01, '\n', (char)0xC3, (char)0x80, (char)0xFF, ',',
                               '}', ']',  ':',  '{',  '[',        ' ',        '0',        '-',
                               '.', 'e',  't',  'x',  '\'',       'u',        'E',        '+'};
    uint64_t s = 0xD1B54A32D192ED03ull;
    int failures = 0;
    for (int round = 0; round < unit_rounds(1200) && failures < 5; round++) {
        text t = {0};
        PUTS(&t, (round & 1) ? "{\"k\": [" : "[");
        int n = 20 + (int)(rng_next(&s) % 60);
        for (int i = 0; i < n; i++) {
            if (i)
                PUTS(&t, (i & 3) ? ", " : ",\n  ");
            gen_value(&t, &s, 1);
        }
        PUTS(&t, (round & 1) ? "]}" : "]");
        uint64_t r = rng_next(&s);
        for (unsigned m = 0; m < r % 4 && t.n > 2; m++) {
            uint64_t q = rng_next(&s);
            t.p[(q >> 8) % t.n] = mut[(q >> 32) % sizeof mut];
        }
        if (r % 13 == 0)
            t.n = (size_t)((r >> 16) % t.n);
        failures += !same_verdicts(t.p, t.n, __LINE__, round);
        free(t.p);
    }
    static const char *const tails[] = {
        "truex", "1x",  "1\"a\"", "null1", "falsee", "-",       "1.",       "1e",   "01",
        "1:2",   "tru", "[1}",    "{1}",   "[,]",    "{\"a\"}", "{\"a\":}", "[1,]", "\"a\"\"b\""};
    for (size_t k = 0; k < sizeof tails / sizeof *tails && failures < 5; k++) {
        for (size_t shift = 0; shift < 70 && failures < 5; shift += 70 / unit_rounds(70)) {
            text t = {0};
            PUTS(&t, "[\"");
            for (size_t i = 0; i < shift; i++)
                PUTS(&t, "s");
            PUTS(&t, "\", {\"x\": [");
            PUTS(&t, tails[k]);
            PUTS(&t, "]}");
            for (int i = 0; i < 100; i++)
                PUTS(&t, ", [true, null, false, -1.5e3, {}]");
            PUTS(&t, "]");
            failures += !same_verdicts(t.p, t.n, __LINE__, (int)(k * 1000 + shift));
            free(t.p);
        }
    }
}

/* Backslash runs, quotes, UTF-8 and control bytes placed on every byte
 * around 64-byte block edges and the window's (1 MiB) edge. */
TEST(test_json_index__tokens_across_block_and_window_edges)
{
    static const char *const tokens[] = {"\"\\\\\\\\\\\\\\\"\"",
                                         "\"\\\\\\\\\"",
                                         "\"ab\\\"cd\"",
                                         "\"\xE4\xB8\xAD\xF0\x9F\x98\x80\"",
                                         "\"\xE4\xB8\"",
                                         "\"a\x01z\"",
                                         "\"tab\there\"",
                                         "\"\\u12\"",
                                         "1.5e+3",
                                         "-0",
                                         "01",
                                         "\"\"",
                                         "{\"k\":\"v\"}",
                                         "[1, 2,]",
                                         "{\"a\" \"b\"}",
                                         "nul",
                                         "\"a\xC0\xAF\""};
    size_t ntok = sizeof tokens / sizeof *tokens;
    int failures = 0;
    for (size_t k = 0; k < ntok && failures < 5; k++) {
        /* Inside one block region: every shift over two blocks (an even spread
         * of them under TD_UNIT_SCALE). */
        for (size_t shift = 0; shift < 130 && failures < 5; shift += 130 / unit_rounds(130)) {
            text t = {0};
            PUTS(&t, "[\"");
            for (size_t i = 0; i < shift; i++)
                PUTS(&t, "s");
            PUTS(&t, "\", ");
            PUTS(&t, tokens[k]);
            PUTS(&t, ", \"tail\"");
            for (int i = 0; i < 300; i++)
                PUTS(&t, ", 7");
            PUTS(&t, "]");
            failures += !same_verdicts(t.p, t.n, __LINE__, (int)(k * 1000 + shift));
            free(t.p);
        }
    }
    /* Around the window's edge: a padding string ends near 1 MiB; every
     * (token, back) pair, or an even spread of unit_rounds of them. */
    size_t pairs = ntok * 5, stride = pairs / (size_t)unit_rounds((int)pairs);
    for (size_t pi = 0; pi < pairs && failures < 5; pi += stride) {
        size_t k = pi / 5, back = (pi % 5) * 5;
        {
            size_t pad = (1u << 20) - 8 - back;
            text t = {0};
            PUTS(&t, "[\"");
            char *fill = malloc(pad);
            memset(fill, 'p', pad);
            put(&t, fill, pad);
            free(fill);
            PUTS(&t, "\", ");
            PUTS(&t, tokens[k]);
            for (int i = 0; i < 100; i++)
                PUTS(&t, ", \"more\\\\\"");
            PUTS(&t, "]");
            int was = td_json_simd_level();
            verdict want = skip_doc(t.p, t.n, 1); /* the general path */
            for (int l = 0; l < TD_SIMD_LEVELS; l++) {
                if (!td_json_simd_supported(l))
                    continue;
                td_json_simd_set(l);
                verdict got = skip_doc(t.p, t.n, 0);
                if (got.rc != want.rc || got.offset != want.offset ||
                    strcmp(got.msg, want.msg) != 0) {
                    unit_fail(__FILE__, __LINE__,
                              "token %zu, back %zu, %s: byte %llu %s; want %llu %s", k, back,
                              td_json_simd_name(l), (unsigned long long)got.offset, got.msg,
                              (unsigned long long)want.offset, want.msg);
                    failures++;
                }
            }
            td_json_simd_set(was);
            free(t.p);
        }
    }
}
