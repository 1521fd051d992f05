/*
 * The JSON scanner's index: for 64-byte blocks, one bit per byte saying
 * "not white space" and one saying "ends a plain string here" ('"', '\\', a
 * control byte or a non-ASCII byte). The scanner walks these masks with
 * count-trailing-zeros instead of looking at bytes one by one (json_skip.c).
 *
 * The masks depend on nothing but the 64 bytes themselves (no carried
 * in-string state), so a block can be indexed from any position and reused
 * by whatever reads there next; the scanner, which always knows whether it
 * is inside a string, supplies the context and validates every token.
 *
 * One kernel per instruction set, chosen once at run time from what the CPU
 * supports, or forced with TD_SIMD=scalar|sse2|avx2|avx512 (the tests run
 * every level): AVX-512BW one load per block, AVX2 two, SSE2 four, and a
 * portable scalar kernel that is also the reference the others are tested
 * against.
 */
#include "read/json_index.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define TD_X86 1
#include <immintrin.h>
#endif

static void index_scalar(const unsigned char *p, size_t nb, uint64_t *nw, uint64_t *qs)
{
    for (size_t b = 0; b < nb; b++, p += 64) {
        uint64_t w = 0, q = 0;
        for (unsigned k = 0; k < 64; k++) {
            unsigned c = p[k];
            uint64_t ws = c == ' ' || c == '\n' || c == '\r' || c == '\t';
            uint64_t stop = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
            w |= (ws ^ 1) << k;
            q |= stop << k;
        }
        nw[b] = w;
        qs[b] = q;
    }
}

/* The classifier (json_index.h): the scalar one is the reference. */
static void classify_scalar(const unsigned char *p, size_t nb, td_json_class *out)
{
    for (size_t b = 0; b < nb; b++, p += 64) {
        uint64_t w = 0, q = 0, o = 0, d = 0, g = 0;
        for (unsigned k = 0; k < 64; k++) {
            unsigned c = p[k];
            g |= (uint64_t)(c >= '0' && c <= '9') << k;
            uint64_t ws = c == ' ' || c == '\n' || c == '\r' || c == '\t';
            uint64_t op = c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',';
            uint64_t odd = c == '\\' || c < 0x20 || c >= 0x80;
            w |= ws << k;
            q |= (uint64_t)(c == '"') << k;
            o |= op << k;
            d |= odd << k;
        }
        out[b].ws = w;
        out[b].quote = q;
        out[b].op = o;
        out[b].odd = d;
        out[b].digit = g;
    }
}

#ifdef TD_X86
__attribute__((target("sse2"))) static void index_sse2(const unsigned char *p, size_t nb,
                                                       uint64_t *nw, uint64_t *qs)
{
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x20);
    for (size_t b = 0; b < nb; b++, p += 64) {
        uint64_t w = 0, q = 0;
        for (unsigned k = 0; k < 64; k += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + k));
            __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                      _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
            /* Signed compare: controls and non-ASCII bytes are both < 0x20. */
            __m128i st = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)),
                                      _mm_cmplt_epi8(v, ctl));
            w |= (uint64_t)(uint16_t)~_mm_movemask_epi8(ws) << k;
            q |= (uint64_t)(uint16_t)_mm_movemask_epi8(st) << k;
        }
        nw[b] = w;
        qs[b] = q;
    }
}

/* White space by table: the byte's low nibble picks the one white-space
 * byte with that nibble (' ' 0x20, '\t' 0x09, '\n' 0x0A, '\r' 0x0D; 0x80,
 * which no byte with another nibble equals, elsewhere); bytes from 0x80
 * shuffle to 0, which they are not. */
#define WS_TABLE                                                                                   \
    0x20, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80,      \
        (char)0x80, 0x09, 0x0A, (char)0x80, (char)0x80, 0x0D, (char)0x80, (char)0x80

__attribute__((target("avx2"))) static void index_avx2(const unsigned char *p, size_t nb,
                                                       uint64_t *nw, uint64_t *qs)
{
    const __m256i tbl = _mm256_setr_epi8(WS_TABLE, WS_TABLE);
    const __m256i quote = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\');
    const __m256i ctl = _mm256_set1_epi8(0x20);
    for (size_t b = 0; b < nb; b++, p += 64) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)p);
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
        __m256i w0 = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(tbl, v0), v0);
        __m256i w1 = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(tbl, v1), v1);
        __m256i s0 = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v0, quote), _mm256_cmpeq_epi8(v0, bs)),
            _mm256_cmpgt_epi8(ctl, v0));
        __m256i s1 = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v1, quote), _mm256_cmpeq_epi8(v1, bs)),
            _mm256_cmpgt_epi8(ctl, v1));
        uint64_t ws =
            (uint32_t)_mm256_movemask_epi8(w0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(w1) << 32;
        nw[b] = ~ws;
        qs[b] = (uint32_t)_mm256_movemask_epi8(s0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(s1)
                                                         << 32;
    }
}

__attribute__((target("avx512f,avx512bw"))) static void
index_avx512(const unsigned char *p, size_t nb, uint64_t *nw, uint64_t *qs)
{
    const __m512i tbl = _mm512_broadcast_i32x4(_mm_setr_epi8(WS_TABLE));
    const __m512i quote = _mm512_set1_epi8('"'), bs = _mm512_set1_epi8('\\');
    const __m512i ctl = _mm512_set1_epi8(0x20);
    for (size_t b = 0; b < nb; b++, p += 64) {
        __m512i v = _mm512_loadu_si512((const void *)p);
        nw[b] = ~(uint64_t)_mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(tbl, v), v);
        qs[b] = (uint64_t)(_mm512_cmpeq_epi8_mask(v, quote) | _mm512_cmpeq_epi8_mask(v, bs) |
                           _mm512_cmplt_epi8_mask(v, ctl));
    }
}

/* '{' and '[' are '{' once 0x20 is set, '}' and ']' likewise '}'. */
__attribute__((target("sse2"))) static void classify_sse2(const unsigned char *p, size_t nb,
                                                          td_json_class *out)
{
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x20), lo = _mm_set1_epi8(0x20);
    const __m128i ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}');
    const __m128i colon = _mm_set1_epi8(':'), comma = _mm_set1_epi8(',');
    const __m128i d0 = _mm_set1_epi8('0' - 1), d9 = _mm_set1_epi8('9' + 1);
    for (size_t b = 0; b < nb; b++, p += 64) {
        uint64_t w = 0, q = 0, o = 0, d = 0, g = 0;
        for (unsigned k = 0; k < 64; k += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + k));
            __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                      _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
            __m128i v20 = _mm_or_si128(v, lo);
            __m128i op =
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v20, ob), _mm_cmpeq_epi8(v20, cb)),
                             _mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)));
            __m128i odd = _mm_or_si128(_mm_cmpeq_epi8(v, bs), _mm_cmplt_epi8(v, ctl));
            w |= (uint64_t)(uint16_t)_mm_movemask_epi8(ws) << k;
            q |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << k;
            o |= (uint64_t)(uint16_t)_mm_movemask_epi8(op) << k;
            d |= (uint64_t)(uint16_t)_mm_movemask_epi8(odd) << k;
            /* Signed: bytes from 0x80 are below '0'. */
            __m128i dg = _mm_and_si128(_mm_cmpgt_epi8(v, d0), _mm_cmplt_epi8(v, d9));
            g |= (uint64_t)(uint16_t)_mm_movemask_epi8(dg) << k;
        }
        out[b].ws = w;
        out[b].quote = q;
        out[b].op = o;
        out[b].odd = d;
        out[b].digit = g;
    }
}

#ifdef __x86_64__
__attribute__((target("avx2"))) static void classify_avx2(const unsigned char *p, size_t nb,
                                                          td_json_class *out)
{
    for (size_t b = 0; b < nb; b++, p += 64)
        td_json_classify_block_avx2(p, &out[b]);
}
#endif

__attribute__((target("avx512f,avx512bw"))) static void
classify_avx512(const unsigned char *p, size_t nb, td_json_class *out)
{
    const __m512i tbl = _mm512_broadcast_i32x4(_mm_setr_epi8(WS_TABLE));
    const __m512i quote = _mm512_set1_epi8('"'), bs = _mm512_set1_epi8('\\');
    const __m512i ctl = _mm512_set1_epi8(0x20), lo = _mm512_set1_epi8(0x20);
    const __m512i ob = _mm512_set1_epi8('{'), cb = _mm512_set1_epi8('}');
    const __m512i colon = _mm512_set1_epi8(':'), comma = _mm512_set1_epi8(',');
    const __m512i d0 = _mm512_set1_epi8('0'), d9 = _mm512_set1_epi8('9');
    for (size_t b = 0; b < nb; b++, p += 64) {
        __m512i v = _mm512_loadu_si512((const void *)p);
        out[b].digit = (uint64_t)(_mm512_cmpge_epu8_mask(v, d0) & _mm512_cmple_epu8_mask(v, d9));
        __m512i v20 = _mm512_or_si512(v, lo);
        out[b].ws = (uint64_t)_mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(tbl, v), v);
        out[b].quote = (uint64_t)_mm512_cmpeq_epi8_mask(v, quote);
        out[b].op = (uint64_t)(_mm512_cmpeq_epi8_mask(v20, ob) | _mm512_cmpeq_epi8_mask(v20, cb) |
                               _mm512_cmpeq_epi8_mask(v, colon) | _mm512_cmpeq_epi8_mask(v, comma));
        out[b].odd = (uint64_t)(_mm512_cmpeq_epi8_mask(v, bs) | _mm512_cmplt_epi8_mask(v, ctl));
    }
}
#endif

static const char *const level_names[TD_SIMD_LEVELS] = {"scalar", "sse2", "avx2", "avx512"};

const char *td_json_simd_name(int level)
{
    return level >= 0 && level < TD_SIMD_LEVELS ? level_names[level] : "?";
}

int td_json_simd_parse(const char *name)
{
    for (int l = 0; l < TD_SIMD_LEVELS; l++)
        if (name && strcmp(name, level_names[l]) == 0)
            return l;
    return -1;
}

int td_json_simd_supported(int level)
{
    switch (level) {
    case TD_SIMD_SCALAR:
        return 1;
#ifdef TD_X86
    case TD_SIMD_SSE2:
        return __builtin_cpu_supports("sse2");
    case TD_SIMD_AVX2:
        return __builtin_cpu_supports("avx2");
    case TD_SIMD_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#endif
    default:
        return 0;
    }
}

int td_json_walk_fast_supported(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("pclmul");
#else
    return 0;
#endif
}

td_json_index_fn td_json_index_kernel(int level)
{
    if (!td_json_simd_supported(level))
        return NULL;
    switch (level) {
#ifdef TD_X86
    case TD_SIMD_SSE2:
        return index_sse2;
    case TD_SIMD_AVX2:
        return index_avx2;
    case TD_SIMD_AVX512:
        return index_avx512;
#endif
    default:
        return index_scalar;
    }
}

static int current = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The best level the CPU has, or the one TD_SIMD asks for (or the best
 * below it that the CPU has). */
static void choose(void)
{
    __builtin_cpu_init();
    int want = td_json_simd_parse(getenv("TD_SIMD"));
    int l = want >= 0 ? want : TD_SIMD_LEVELS - 1;
    while (l > 0 && !td_json_simd_supported(l))
        l--;
    current = l;
}

int td_json_simd_level(void)
{
    pthread_once(&once, choose);
    return current;
}

int td_json_simd_set(int level)
{
    pthread_once(&once, choose);
    if (level < 0 || level >= TD_SIMD_LEVELS)
        level = TD_SIMD_LEVELS - 1;
    while (level > 0 && !td_json_simd_supported(level))
        level--;
    current = level;
    return level;
}

td_json_classify_fn td_json_classify_kernel(int level)
{
    if (!td_json_simd_supported(level))
        return NULL;
    switch (level) {
#ifdef TD_X86
    case TD_SIMD_SSE2:
        return classify_sse2;
#ifdef __x86_64__
    case TD_SIMD_AVX2:
        return classify_avx2;
#endif
    case TD_SIMD_AVX512:
        return classify_avx512;
#endif
    default:
        return classify_scalar;
    }
}
