/* Large buffers that are written right away, mapped with their pages in
 * place. Touching fresh memory page by page costs one fault per 4 KiB; on a
 * virtual machine a fault costs several microseconds, so a 1 MiB buffer
 * filled after malloc took longer than the work done in it. MAP_POPULATE
 * asks the kernel for all pages in one call (about 5x faster for 2 MiB on
 * the machine of BENCHMARKS.md). Small sizes use malloc. */
#include "util/util.h"
#include "util/bigmem.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A header before the caller's bytes: how the block was made, so td_big_free
 * needs no size. 64 bytes keep the caller's bytes cache-line aligned. */
#define HEAD 64
#define BIG_MIN (256u << 10)

/* Under AddressSanitizer every block comes from malloc, so that overruns of
 * these buffers are still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define TD_BIG_MMAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TD_BIG_MMAP 0
#endif
#endif
#if !defined(TD_BIG_MMAP) && defined(MAP_POPULATE)
#define TD_BIG_MMAP 1
#endif

static void *big_alloc(size_t n, bool populate)
{
    if (n > SIZE_MAX - HEAD)
        return NULL;
    size_t total = n + HEAD;
    unsigned char *p = NULL;
    (void)populate;
#if TD_BIG_MMAP
    if (populate && total >= BIG_MIN) {
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (m != MAP_FAILED) {
            p = m;
            *(size_t *)p = total;
            return p + HEAD;
        }
    }
#endif
    if (!(p = malloc(total)))
        return NULL;
    *(size_t *)p = 0; /* from malloc */
    return p + HEAD;
}

void *td_big_alloc(size_t n)
{
    return big_alloc(n, true);
}

void *td_big_alloc_lazy(size_t n)
{
    return big_alloc(n, false);
}

void *td_big_shrink(void *ptr, size_t n)
{
    unsigned char *p = (unsigned char *)ptr - HEAD;
    size_t total = *(size_t *)p;
    if (n > SIZE_MAX - HEAD)
        return NULL;
    if (!total) {
        unsigned char *q = realloc(p, n + HEAD);
        if (!q)
            return NULL;
        return q + HEAD;
    }
#if TD_BIG_MMAP
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t keep = (n + HEAD + page - 1) / page * page;
    if (keep < total && munmap(p + keep, total - keep) == 0)
        *(size_t *)p = keep;
#endif
    return ptr;
}

void td_big_free(void *ptr)
{
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HEAD;
    size_t total = *(size_t *)p;
    if (total)
        munmap(p, total);
    else
        free(p);
}

/* Below this a fault per page costs less than the call. */
#define POPULATE_MIN (64u << 10)

void *td_populate(void *ptr, size_t n)
{
#if defined(MADV_POPULATE_WRITE)
    if (!ptr || n < POPULATE_MIN)
        return ptr;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)ptr + page - 1) / page * page,
              hi = ((uintptr_t)ptr + n) / page * page;
    if (hi > lo) /* whole pages inside the caller's bytes only; an older kernel says EINVAL */
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)n;
#endif
    return ptr;
}
