/*
 * A small unit-test harness. Every .c file of tests/unit is linked into one
 * program (build/unit_tests) with the library; main() is in main.c.
 *
 *     TEST(test_module__what_it_pins) { CHECK(x == 1); CHECK_STR(s, "a"); }
 *
 * Tests register themselves before main() runs, and run in file order then
 * name order. A failed CHECK prints where and what, marks the test failed
 * and carries on; REQUIRE returns from the test. The closing line is
 * "unit: N passed, N failed". `unit_tests SUBSTR` runs the tests whose name
 * holds SUBSTR.
 */
#ifndef TD_UNIT_HARNESS_H
#define TD_UNIT_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*unit_fn)(void);
void unit_register(const char *name, unit_fn fn, const char *file);
/* Records a failure of the running test; returns 0. */
int unit_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A scratch directory for the run, removed at the end with what the tests
 * wrote there through unit_write(). */
const char *unit_tmpdir(void);
/* Writes len bytes to NAME in the scratch directory (NAME may hold one level
 * of subdirectory, created as needed); returns the path, valid for the run. */
const char *unit_write(const char *name, const void *data, size_t len);
#define unit_write_str(name, text) unit_write((name), (text), strlen(text))
/* n bytes of text gzipped (zlib, fastest level) into a new buffer of *len
 * bytes; NULL when out of memory. */
unsigned char *unit_gzip(const char *text, size_t n, size_t *len);

/* The number of rounds a randomized test runs: n, or n / TD_UNIT_SCALE (at
 * least 1) when that is set, as the sanitizer pass sets it (make sanitize:
 * UNIT_SCALE). Every test still runs there, on fewer random inputs. */
int unit_rounds(int n);

#define TEST(name)                                                                                 \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void name##__register(void)                                \
    {                                                                                              \
        unit_register(#name, name, __FILE__);                                                      \
    }                                                                                              \
    static void name(void)

#define CHECK(cond) ((cond) ? 1 : unit_fail(__FILE__, __LINE__, "%s", #cond))
#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!CHECK(cond))                                                                          \
            return;                                                                                \
    } while (0)

#define CHECK_INT(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (g_ != w_)                                                                              \
            unit_fail(__FILE__, __LINE__, "%s is %lld, expected %lld", #got, g_, w_);              \
    } while (0)

/* Doubles compared exactly (bit for bit but -0 == 0); NaN equals NaN. */
#define CHECK_DBL(got, want)                                                                       \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!(g_ == w_ || (g_ != g_ && w_ != w_)))                                                 \
            unit_fail(__FILE__, __LINE__, "%s is %.17g, expected %.17g", #got, g_, w_);            \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!g_ || strcmp(g_, w_) != 0)                                                            \
            unit_fail(__FILE__, __LINE__, "%s is \"%s\", expected \"%s\"", #got,                   \
                      g_ ? g_ : "(null)", w_);                                                     \
    } while (0)

/* A byte string of known length (may hold NUL bytes). */
#define CHECK_MEM(got, got_len, want, want_len)                                                    \
    do {                                                                                           \
        size_t gl_ = (got_len), wl_ = (want_len);                                                  \
        if (gl_ != wl_ || memcmp((got), (want), gl_) != 0)                                         \
            unit_fail(__FILE__, __LINE__,                                                          \
                      "%s (%zu bytes) differs from %s "                                            \
                      "(%zu bytes)",                                                               \
                      #got, gl_, #want, wl_);                                                      \
    } while (0)

#endif
