/* The program's heap in transparent huge pages (2 MiB), where the system
 * gives them on request (/sys/kernel/mm/transparent_hugepage/enabled:
 * "madvise" or "always").
 *
 * A command touches most of its fresh heap once: the names, the groups,
 * the tables. Each 4 KiB page first touched is a page fault, and on a
 * virtual machine a fault costs about 13 us (BENCHMARKS.md, "The heap in
 * huge pages"): a compare of two small traces spent a fifth of its CPU time
 * in them. One huge page is one fault for 512 pages. glibc's heap grows
 * with brk from an address that is not 2 MiB aligned, by small steps,
 * and its huge-page tunable is read from the environment before main
 * runs; so, once at start:
 *
 *  - malloc's thresholds are set as glibc's own dynamic ones end up
 *    (mmap at 32 MiB, trim at 64 MiB; setting one turns the dynamic
 *    adjustment off, so both are set);
 *  - the heap is grown at once by PAD, with one block (virtual memory:
 *    only its head and the next one are written), which is then cut down
 *    in place to end on the next 2 MiB boundary, so that what is allocated
 *    next starts on it; the block is kept and never touched;
 *  - the aligned range up to the top's old head is marked MADV_HUGEPAGE
 *    before anything in it is touched (a 2 MiB range with one page in
 *    place stays in small pages);
 *  - every thread allocates from this heap (M_ARENA_MAX 1): a thread's own
 *    arena is a mapping of its own, in small pages (the reading threads'
 *    buffers). The threads allocate little once a file's tables are
 *    sized, so they seldom wait for each other.
 *
 * Growth past PAD is the usual brk in 4 KiB pages. The cost: up to
 * 2 MiB more resident memory, from the last huge page partly used.
 * Left out under the sanitizers and when malloc is not glibc's heap
 * (valgrind's, any other: the heap then is not where brk says).
 * TD_SMALL_PAGES=1 in the environment turns it off (to measure). */
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CLI_HEAP_HUGE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLI_HEAP_HUGE 0
#endif
#endif
#if !defined(CLI_HEAP_HUGE) && defined(__GLIBC__) && defined(MADV_HUGEPAGE) &&                     \
    defined(M_TOP_PAD) && __GLIBC__ * 100 + __GLIBC_MINOR__ >= 233
#define CLI_HEAP_HUGE 1
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define PAD ((size_t)30 << 20) /* under the mmap threshold set below */

#if CLI_HEAP_HUGE
/* The block below the first boundary: kept, so that it stays reachable. */
static void *below;
#endif

int cli_heap_huge(void)
{
#if CLI_HEAP_HUGE
    const char *off = getenv("TD_SMALL_PAGES");
    if (off && *off)
        return 0;
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    /* One block of PAD: from the top, which grows by it. malloc writes
     * only the heads: this block's, below it, and the top's, after it. */
    unsigned char *probe = malloc(PAD);
    if (!probe)
        return 0;
    uintptr_t at = (uintptr_t)probe;
    struct mallinfo2 mi = mallinfo2();
    uintptr_t end = (uintptr_t)sbrk(0);
    /* Only glibc's own heap, grown above: the block inside it. */
    if (mi.arena == 0 || at < end - mi.arena || at >= end || end - at < PAD) {
        free(probe);
        return 0;
    }
    uintptr_t first = (at + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    /* Cut down in place to end where the next block starts at first: the
     * rest goes back to the top. Kept, never touched past its head. */
    below = realloc(probe, first - at >= 64 ? first - at - 16 : 1);
    if (below != probe)
        return 0;
    /* Up to the 2 MiB page that holds the top's old head, written before
     * the mark: a page touched in a 2 MiB range leaves it in small pages. */
    uintptr_t last = (at + PAD) & ~(HUGE_PAGE - 1);
    if (last <= first || madvise((void *)first, last - first, MADV_HUGEPAGE) != 0)
        return 0;
    return 1;
#else
    return 0;
#endif
}
