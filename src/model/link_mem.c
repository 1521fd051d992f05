/*
 * The link records of a file being read (load.h): one array that grows as
 * the file is read. Mapped rather than taken from malloc, so that growing
 * moves page tables (mremap) instead of copying the records, and the pages
 * it adds are put in with one call (MADV_POPULATE_WRITE) rather than a fault
 * each, which on a virtual machine costs more than writing the records
 * (util/bigmem.c). Under AddressSanitizer, plain realloc, so that overruns
 * are still caught.
 *
 * A freed array is kept (one, the largest) for the next file read, until
 * the set's files are all read (td_links_trim): its pages are already in
 * place, which on a virtual machine saves the first touch of each (the 4x
 * pair of BENCHMARKS.md: 4,700 pages of links a file).
 */
#define _GNU_SOURCE /* mremap */
#include "model/load.h"

#include <pthread.h>
#include <stdbool.h>
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
 * size), then how many of its bytes have their pages in place; 64 bytes
 * keep the records cache-line aligned. */
#define HEAD 64
#define PAGE 4096u
/* Pages are put in this many bytes at a time, as the records reach them:
 * a whole doubling at once put in up to twice the pages the file needed. */
#define CHUNK (1u << 20)

#if LINKS_MMAP
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *spare; /* a freed mapping, whole */

static unsigned char *take_spare(void)
{
    pthread_mutex_lock(&spare_lock);
    unsigned char *m = spare;
    spare = NULL;
    pthread_mutex_unlock(&spare_lock);
    return m;
}

static size_t *head_of(unsigned char *m)
{
    return (size_t *)(void *)m;
}

static td_link *grow_mapped(td_link *links, size_t *cap, size_t need)
{
    unsigned char *m = links ? (unsigned char *)links - HEAD : NULL;
    bool took = false; /* the spare, which the caller does not know of yet */
    if (!m)
        took = (m = take_spare()) != NULL;
    size_t had = m ? head_of(m)[0] : 0, done = m ? head_of(m)[1] : 0;
    size_t want = 0;
    if (need <= (SIZE_MAX / 4 - HEAD - CHUNK) / sizeof *links)
        want = (HEAD + need * sizeof *links + CHUNK - 1) / CHUNK * CHUNK;
    if (want && want > had) {
        size_t bytes = had ? had : 16 * (size_t)CHUNK;
        while (bytes < want)
            bytes *= 2;
        void *nm =
            m ? mremap(m, had, bytes, MREMAP_MAYMOVE)
              : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (nm == MAP_FAILED)
            want = 0;
        else
            m = nm, had = bytes;
    }
    if (!want) {
        if (took)
            munmap(m, had);
        return NULL;
    }
    if (want > done) {
#ifdef MADV_POPULATE_WRITE
        /* Best effort: an older kernel says EINVAL and the pages fault in. */
        (void)madvise(m + done, want - done, MADV_POPULATE_WRITE);
#endif
        done = want;
    }
    head_of(m)[0] = had;
    head_of(m)[1] = done;
    *cap = (done - HEAD) / sizeof *links;
    return (td_link *)(void *)(m + HEAD);
}
#endif

td_link *td_links_grow(td_link *links, size_t *cap, size_t need)
{
    if (need <= *cap)
        return links;
#if LINKS_MMAP
    return grow_mapped(links, cap, need);
#else
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / sizeof *links)
            return NULL;
        ncap *= 2;
    }
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
    pthread_mutex_lock(&spare_lock);
    if (!spare || head_of(spare)[1] < head_of(p)[1]) { /* keep the one with more pages in */
        unsigned char *t = spare;
        spare = p;
        p = t;
    }
    pthread_mutex_unlock(&spare_lock);
    if (p)
        munmap(p, head_of(p)[0]);
#else
    free(links);
#endif
}

void td_links_trim(void)
{
#if LINKS_MMAP
    unsigned char *m = take_spare();
    if (m)
        munmap(m, head_of(m)[0]);
#endif
}
