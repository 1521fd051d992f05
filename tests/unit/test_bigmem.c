/* Large blocks (src/util/bigmem.c): mapped up front or on first touch,
 * shrunk in place, freed without a size. */
#include "harness.h"
#include "util/util.h"
#include "util/bigmem.h"
#include "model/load.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

#if defined(MADV_POPULATE_WRITE)
/* Pages of [p, p + n) in place (mincore): how many of them, of how many. */
static size_t resident(void *p, size_t n, size_t *pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), np = n / page;
    unsigned char *v = calloc(np + 1, 1);
    size_t in = 0;
    if (v && mincore(p, n, v) == 0)
        for (size_t i = 0; i < np; i++)
            in += v[i] & 1;
    free(v);
    *pages = np;
    return in;
}
#endif

/* td_populate puts in the pages wholly inside the bytes it is given (none
 * of a neighbour's, none below 64 KiB), and changes no byte. */
TEST(test_bigmem__populate_puts_in_whole_pages_only)
{
#if defined(MADV_POPULATE_WRITE)
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 256 * page, np;
    unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    CHECK_INT(resident(m, len, &np), 0);
    CHECK(td_populate(m + 8 * page + 100, 16 * page - 200) ==
          m + 8 * page + 100); /* < 64 KiB: no */
    if (16 * page - 200 < (64u << 10))
        CHECK_INT(resident(m, len, &np), 0);
    /* From the second byte of page 32 to the end of page 159: pages 33..159. */
    unsigned char *at = m + 32 * page + 1;
    size_t n = 128 * page - 1;
    if (td_populate(at, n) != at)
        unit_fail(__FILE__, __LINE__, "td_populate returned another pointer");
    size_t in = resident(m, len, &np);
    /* A kernel that has MADV_POPULATE_WRITE (5.14 and later) must have put
     * pages in; an older one says EINVAL and puts in nothing. */
    unsigned char *probe =
        mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(probe != MAP_FAILED);
    if (madvise(probe, page, MADV_POPULATE_WRITE) == 0)
        CHECK(in > 0);
    munmap(probe, page);
    if (in > 0) {
        CHECK_INT(resident(m + 33 * page, 127 * page, &np), 127);
        CHECK_INT(resident(m, 33 * page, &np), 0);
        CHECK_INT(resident(m + 160 * page, 96 * page, &np), 0);
    }
    /* One byte short of page 191's end: 161..190 only. */
    td_populate(m + 161 * page, 31 * page - 1);
    if (in > 0) {
        CHECK_INT(resident(m + 161 * page, 30 * page, &np), 30);
        CHECK_INT(resident(m + 191 * page, 65 * page, &np), 0);
    }
    for (size_t i = 0; i < len; i++)
        if (m[i]) {
            unit_fail(__FILE__, __LINE__, "byte %zu written", i);
            break;
        }
    CHECK(td_populate(NULL, 1u << 20) == NULL);
    munmap(m, len);
#endif
}

#if defined(__SANITIZE_ADDRESS__)
#define SCRATCH_MAPPED 0 /* link_mem.c: plain malloc under AddressSanitizer */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCRATCH_MAPPED 0
#endif
#endif
#ifndef SCRATCH_MAPPED
#define SCRATCH_MAPPED 1
#endif

#if SCRATCH_MAPPED && defined(MADV_HUGEPAGE)
/* The VmFlags line of the mapping of /proc/self/smaps that holds p, into
 * out; false when not found. */
static bool vm_flags(const void *p, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4096];
    bool in = false, found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, cap, "%s", line + 8);
            found = true;
        }
    }
    if (f)
        fclose(f);
    return found;
}
#endif

/* Attribution's arrays (model/link_mem.c): one of 4 MiB or more asks for
 * transparent huge pages (VmFlags "hg"), a mapped one under that does not,
 * and every size, the small ones from malloc too, keeps what is written
 * in it. */
TEST(test_bigmem__large_scratch_asks_for_huge_pages)
{
    td_links_trim(); /* none kept from before: each mapped here */
    unsigned char *small = td_scratch_alloc(1u << 20), *big = td_scratch_alloc(6u << 20);
    unsigned char *tiny = td_scratch_alloc(100), *under = td_scratch_alloc((256u << 10) - 1);
    REQUIRE(big && small && tiny && under);
    fill_check(__FILE__, __LINE__, big, 6u << 20, 3);
    fill_check(__FILE__, __LINE__, small, 1u << 20, 4);
    fill_check(__FILE__, __LINE__, tiny, 100, 5);
    fill_check(__FILE__, __LINE__, under, (256u << 10) - 1, 6);
    td_scratch_free(tiny);
    td_scratch_free(under);
#if SCRATCH_MAPPED && defined(MADV_HUGEPAGE)
    char flags[4096];
    if (vm_flags(big, flags, sizeof flags)) { /* no /proc: nothing to read */
        if (!strstr(flags, " hg"))
            unit_fail(__FILE__, __LINE__, "6 MiB scratch: no hg in VmFlags:%s", flags);
        REQUIRE(vm_flags(small, flags, sizeof flags));
        if (strstr(flags, " hg"))
            unit_fail(__FILE__, __LINE__, "1 MiB scratch: hg in VmFlags:%s", flags);
    }
#endif
    td_scratch_free(small);
    td_scratch_free(big);
    td_links_trim();
}
