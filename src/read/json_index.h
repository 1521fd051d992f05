/*
 * The JSON scanner's block index (json_index.c): per 64-byte block, a bit
 * per byte for "not white space" and for "stops a plain string" ('"', '\\',
 * bytes below 0x20 and from 0x80), computed with the widest SIMD the CPU
 * has.
 */
#ifndef TD_JSON_INDEX_H
#define TD_JSON_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* SIMD levels, narrowest first. */
enum { TD_SIMD_SCALAR, TD_SIMD_SSE2, TD_SIMD_AVX2, TD_SIMD_AVX512, TD_SIMD_LEVELS };

/* Indexes the nb 64-byte blocks at p: bit k of nw[b] is set when byte
 * 64 * b + k is not JSON white space, of qs[b] when it is '"', '\\', below
 * 0x20 or from 0x80. */
typedef void (*td_json_index_fn)(const unsigned char *p, size_t nb, uint64_t *nw, uint64_t *qs);

/* The kernel of a level, NULL when this CPU lacks it. */
td_json_index_fn td_json_index_kernel(int level);

/* A 64-byte block classified for the structural walk (json_skip.c): bit k
 * of each mask for byte 64 * b + k. */
typedef struct td_json_class {
    uint64_t ws;    /* ' ', '\t', '\n', '\r' */
    uint64_t quote; /* '"' */
    uint64_t op;    /* '{', '}', '[', ']', ':', ',' */
    uint64_t odd;   /* '\\', below 0x20 (white space included), from 0x80 */
    uint64_t digit; /* '0' to '9' */
} td_json_class;

typedef void (*td_json_classify_fn)(const unsigned char *p, size_t nb, td_json_class *out);

#ifdef __x86_64__
#include <immintrin.h>

/* The five masks of the 32 bytes at p (AVX2), by two tables indexed by a
 * byte's low nibble (pshufb; bytes from 0x80 look up 0). White space: the
 * one white-space byte with that nibble (0x80, which no byte with another
 * nibble equals, elsewhere). Structural bytes: the one with that nibble
 * once 0x20 is set ('[' is '{' then, ']' is '}'), which controls that
 * become one with 0x20 set are not. */
__attribute__((target("avx2"))) static inline void td_json_classify32_avx2(const unsigned char *p,
                                                                           uint32_t m[5])
{
#define TD_WS_TBL                                                                                  \
    0x20, -128, -128, -128, -128, -128, -128, -128, -128, 0x09, 0x0A, -128, -128, 0x0D, -128, -128
#define TD_OP_TBL                                                                                  \
    -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, ':', '{', ',', '}', -128, -128
    const __m256i ws_tbl = _mm256_setr_epi8(TD_WS_TBL, TD_WS_TBL);
    const __m256i op_tbl = _mm256_setr_epi8(TD_OP_TBL, TD_OP_TBL);
#undef TD_WS_TBL
#undef TD_OP_TBL
    const __m256i x20 = _mm256_set1_epi8(0x20);
    __m256i v = _mm256_loadu_si256((const __m256i *)p);
    /* Signed: controls and bytes from 0x80 are both below 0x20. */
    __m256i low = _mm256_cmpgt_epi8(x20, v);
    __m256i op = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(op_tbl, v), _mm256_or_si256(v, x20));
    m[0] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(ws_tbl, v), v));
    m[1] = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')));
    m[2] = (uint32_t)_mm256_movemask_epi8(_mm256_andnot_si256(low, op));
    m[3] = (uint32_t)_mm256_movemask_epi8(
        _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')), low));
    m[4] = (uint32_t)_mm256_movemask_epi8(
        _mm256_and_si256(_mm256_cmpgt_epi8(v, _mm256_set1_epi8('0' - 1)),
                         _mm256_cmpgt_epi8(_mm256_set1_epi8('9' + 1), v)));
}

/* One 64-byte block classified (AVX2), for the classifier and for callers
 * built for AVX2 that classify a block at a time (json_skip.c's walk). */
__attribute__((target("avx2"))) static inline void
td_json_classify_block_avx2(const unsigned char *p, td_json_class *out)
{
    uint32_t lo[5], hi[5];
    td_json_classify32_avx2(p, lo);
    td_json_classify32_avx2(p + 32, hi);
    out->ws = lo[0] | (uint64_t)hi[0] << 32;
    out->quote = lo[1] | (uint64_t)hi[1] << 32;
    out->op = lo[2] | (uint64_t)hi[2] << 32;
    out->odd = lo[3] | (uint64_t)hi[3] << 32;
    out->digit = lo[4] | (uint64_t)hi[4] << 32;
}
#endif

/* The classifier of a level, NULL when this CPU lacks it. */
td_json_classify_fn td_json_classify_kernel(int level);

/* The level scanners started from now on use: the best this CPU has, or the
 * one the TD_SIMD environment variable names (scalar, sse2, avx2, avx512;
 * read once), lowered to one the CPU has. */
int td_json_simd_level(void);

/* Sets that level (lowered likewise; out of range: the best); returns the
 * level set. For tests and the fuzz target: not thread-safe with scanners
 * being started. */
int td_json_simd_set(int level);

int td_json_simd_supported(int level);
/* Whether the CPU has what the structural walk's fast build uses (BMI1,
 * BMI2, PCLMULQDQ). */
int td_json_walk_fast_supported(void);
const char *td_json_simd_name(int level);
int td_json_simd_parse(const char *name); /* -1 if not a level name */

#endif
