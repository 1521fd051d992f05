/*
 * The link records of a file being read (load.h): one array that grows as
 * the file is read. Mapped rather than taken from malloc, so that growing
 * moves page tables (mremap) instead of copying the records, and the pages
 * it adds are put in with one call (MADV_POPULATE_WRITE) rather than a fault
 * each, which on a virtual machine costs more than writing the records
 * (util/bigmem.c). Under AddressSanitizer, plain realloc, so that overruns
 * are still caught.
 */
#define _GNU_SOURCE /* mremap */
#include "model/load.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define LINKS_MMAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LINKS_MMAP 0
#endif
#endif
#if !defined(LINKS_MMAP) && defined(MREMAP_MAYMOVE)
#define LINKS_MMAP 1
#endif
#ifndef LINKS_MMAP
#define LINKS_MMAP 0
#endif

/* Before the records: the mapping's size in bytes (a multiple of the page
 * size); 64 bytes keep the records cache-line aligned. */
#define HEAD 64
#define PAGE 4096u

td_link *td_links_grow(td_link *links, size_t *cap, size_t need)
{
    if (need <= *cap)
        return links;
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < need) {
        if (ncap > (SIZE_MAX - HEAD - PAGE) / 2 / sizeof *links)
            return NULL;
        ncap *= 2;
    }
#if LINKS_MMAP
    size_t bytes = (HEAD + ncap * sizeof *links + PAGE - 1) / PAGE * PAGE;
    unsigned char *old = links ? (unsigned char *)links - HEAD : NULL;
    size_t had = old ? *(size_t *)old : 0;
    void *m = old ? mremap(old, had, bytes, MREMAP_MAYMOVE)
                  : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
#ifdef MADV_POPULATE_WRITE
    /* Best effort: an older kernel says EINVAL and the pages fault in. */
    (void)madvise((unsigned char *)m + had, bytes - had, MADV_POPULATE_WRITE);
#endif
    *(size_t *)m = bytes;
    *cap = (bytes - HEAD) / sizeof *links;
    return (td_link *)(void *)((unsigned char *)m + HEAD);
#else
    td_link *nl = realloc(links, ncap * sizeof *nl);
    if (nl)
        *cap = ncap;
    return nl;
#endif
}

void td_links_free(td_link *links)
{
    if (!links)
        return;
#if LINKS_MMAP
    unsigned char *p = (unsigned char *)links - HEAD;
    munmap(p, *(size_t *)p);
#else
    free(links);
#endif
}
