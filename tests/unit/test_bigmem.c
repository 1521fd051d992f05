/* Large blocks (src/util/bigmem.c): mapped up front or on first touch,
 * shrunk in place, freed without a size. */
#include "harness.h"
#include "util/util.h"
#include "util/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fill_check(const char *file, int line, unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed);
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 31 + seed)) {
            unit_fail(file, line, "byte %zu of %zu lost", i, n);
            return;
        }
}

TEST(test_bigmem__blocks_shrink_and_keep_their_bytes)
{
    /* Small (malloc) and large (mapped) sizes, populated and lazy. */
    size_t sizes[] = {1, 4096, 300 << 10, (size_t)16384 * 24, 3u << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int lazy = 0; lazy <= 1; lazy++) {
            size_t n = sizes[s];
            unsigned char *p = lazy ? td_big_alloc_lazy(n) : td_big_alloc(n);
            REQUIRE(p);
            CHECK_INT((uintptr_t)p % 16, 0);
            fill_check(__FILE__, __LINE__, p, n, (unsigned)s);
            size_t keep = n * 2 / 3 + 1;
            unsigned char *q = td_big_shrink(p, keep);
            REQUIRE(q);
            for (size_t i = 0; i < keep; i++)
                if (q[i] != (unsigned char)(i * 31 + s)) {
                    unit_fail(__FILE__, __LINE__, "size %zu: byte %zu changed by the shrink", n, i);
                    break;
                }
            fill_check(__FILE__, __LINE__, q, keep, (unsigned)s + 7); /* still writable */
            q = td_big_shrink(q, keep); /* the same size again: nothing to give back */
            REQUIRE(q);
            td_big_free(q);
        }
    td_big_free(NULL);
}
