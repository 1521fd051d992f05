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

/* The level scanners started from now on use: the best this CPU has, or the
 * one the TD_SIMD environment variable names (scalar, sse2, avx2, avx512;
 * read once), lowered to one the CPU has. */
int td_json_simd_level(void);

/* Sets that level (lowered likewise; out of range: the best); returns the
 * level set. For tests and the fuzz target: not thread-safe with scanners
 * being started. */
int td_json_simd_set(int level);

int td_json_simd_supported(int level);
const char *td_json_simd_name(int level);
int td_json_simd_parse(const char *name); /* -1 if not a level name */

#endif
