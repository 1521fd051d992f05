/*
 * The link records of a file being read (load.h): one array that grows as
 * the file is read. Mapped rather than taken from malloc, so that growing
 * moves page tables (mremap) instead of copying the records, and the pages
 * it adds are put in with one call (MADV_POPULATE_WRITE) rather than a fault
 * each, which on a virtual machine costs more than writing the records
 * (util/bigmem.c). Under AddressSanitizer, plain realloc, so that overruns
 * are still caught.
 *
 * Freed arrays (the links, and attribution's own through td_scratch_alloc)
 * are kept for the next file read, until the set's files are all read
 * (td_links_trim): their pages are already in place, which on a virtual
 * machine saves the first touch of each (the 4x pair of BENCHMARKS.md:
 * about 10,000 pages a file).
 *
 * A mapping that reaches HUGE_MIN bytes asks for transparent huge pages
 * (MADV_HUGEPAGE; the kernel's default, "madvise", gives them only to those
 * who ask): one fault and one TLB entry per 2 MiB instead of 512. The links
 * and the sweep's records are written and read whole, so nothing is wasted
 * but the rounding of the last page. Small files never ask, and their
 * scratch arrays (under SCRATCH_MIN) come from malloc.
 */
#define _GNU_SOURCE /* mremap */
#include "model/load.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
 * size; 0 for a small scratch array from malloc), how many of its bytes
 * have their pages in place, and whether it has asked for huge pages; 64
 * bytes keep the records cache-line aligned. */
#define HEAD 64
#define PAGE 4096u
/* Pages are put in this many bytes at a time, as the records reach them:
 * a whole doubling at once put in up to twice the pages the file needed. */
#define CHUNK (1u << 20)
/* Bytes in place from which a mapping asks for huge pages. */
#define HUGE_MIN (4u << 20)
/* Scratch arrays smaller than this come from malloc: a mapping puts in a
 * whole CHUNK, more pages than a small file's arrays touch. */
#define SCRATCH_MIN (256u << 10)

#if LINKS_MMAP
/* Freed mappings kept for the next file (links and attribution's arrays:
 * up to eight a file being read), each whole, its size and pages at its
 * start. */
#define NSPARE 8
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *spare[NSPARE];

static size_t *head_of(unsigned char *m)
{
    return (size_t *)(void *)m;
}

/* A kept mapping: the smallest with at least want bytes in place, else the
 * largest; NULL when none is kept. */
static unsigned char *take_spare(size_t want)
{
    pthread_mutex_lock(&spare_lock);
    int best = -1;
    for (int i = 0; i < NSPARE; i++) {
        if (!spare[i])
            continue;
        size_t d = head_of(spare[i])[1];
        if (best < 0) {
            best = i;
            continue;
        }
        size_t b = head_of(spare[best])[1];
        if (b >= want ? d >= want && d < b : d > b)
            best = i;
    }
    unsigned char *m = best < 0 ? NULL : spare[best];
    if (best >= 0)
        spare[best] = NULL;
    pthread_mutex_unlock(&spare_lock);
    return m;
}

/* Keeps m, in place of the smallest kept one when all slots are taken;
 * what is not kept is unmapped. */
static void put_spare(unsigned char *m)
{
    pthread_mutex_lock(&spare_lock);
    int at = 0;
    for (int i = 0; i < NSPARE; i++) {
        if (!spare[i]) {
            at = i;
            break;
        }
        if (head_of(spare[i])[1] < head_of(spare[at])[1])
            at = i;
    }
    if (!spare[at] || head_of(spare[at])[1] < head_of(m)[1]) {
        unsigned char *t = spare[at];
        spare[at] = m;
        m = t;
    }
    pthread_mutex_unlock(&spare_lock);
    if (m)
        munmap(m, head_of(m)[0]);
}

/* Mapping m (took: a kept one, which the caller does not know of yet)
 * with at least want bytes in place, a multiple of CHUNK: grown by mremap
 * when needed. NULL when out of memory (m unmapped when taken). */
static unsigned char *map_to(unsigned char *m, bool took, size_t want)
{
    size_t had = m ? head_of(m)[0] : 0, done = m ? head_of(m)[1] : 0, huge = m ? head_of(m)[2] : 0;
    if (want > had) {
        size_t bytes = had ? had : 16 * (size_t)CHUNK;
        while (bytes < want)
            bytes *= 2;
        void *nm =
            m ? mremap(m, had, bytes, MREMAP_MAYMOVE)
              : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (nm == MAP_FAILED) {
            if (took)
                munmap(m, had);
            return NULL;
        }
        m = nm;
        had = bytes;
    }
    if (want >= HUGE_MIN && !huge) {
#ifdef MADV_HUGEPAGE
        /* Best effort: a kernel without them says EINVAL. */
        (void)madvise(m, had, MADV_HUGEPAGE);
#endif
        huge = 1;
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
    head_of(m)[2] = huge;
    return m;
}

/* Bytes in place for n bytes after the head; 0 when too many. */
static size_t chunks_for(size_t n)
{
    if (n > SIZE_MAX / 4 - HEAD - CHUNK)
        return 0;
    return (HEAD + n + CHUNK - 1) / CHUNK * CHUNK;
}

static td_link *grow_mapped(td_link *links, size_t *cap, size_t need)
{
    unsigned char *m = links ? (unsigned char *)links - HEAD : NULL;
    bool took = false;
    if (!m)
        took = (m = take_spare(SIZE_MAX)) != NULL; /* the largest: links grow */
    size_t want = need <= SIZE_MAX / 4 / sizeof *links ? chunks_for(need * sizeof *links) : 0;
    if (!want || !(m = map_to(m, took, want))) {
        if (!want && took)
            munmap(m, head_of(m)[0]);
        return NULL;
    }
    *cap = (head_of(m)[1] - HEAD) / sizeof *links;
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
    put_spare((unsigned char *)links - HEAD);
#else
    free(links);
#endif
}

void *td_scratch_alloc(size_t n)
{
#if LINKS_MMAP
    if (n < SCRATCH_MIN) { /* from malloc, marked by a size of 0 */
        unsigned char *b = malloc(HEAD + n);
        if (!b)
            return NULL;
        head_of(b)[0] = 0;
        return b + HEAD;
    }
    size_t want = chunks_for(n);
    if (!want)
        return NULL;
    unsigned char *m = take_spare(want);
    if (!(m = map_to(m, m != NULL, want)))
        return NULL;
    return m + HEAD;
#else
    return malloc(n ? n : 1);
#endif
}

void td_scratch_free(void *p)
{
    if (!p)
        return;
#if LINKS_MMAP
    unsigned char *m = (unsigned char *)p - HEAD;
    if (head_of(m)[0] == 0)
        free(m);
    else
        put_spare(m);
#else
    free(p);
#endif
}

void td_links_trim(void)
{
#if LINKS_MMAP
    for (;;) {
        unsigned char *m = take_spare(0);
        if (!m)
            break;
        munmap(m, head_of(m)[0]);
    }
#endif
}

/* Threads: a few, met in runs (td_thread keeps the last), so a small open
 * hash with linear probing. */
static size_t thread_hash(int64_t pid, int64_t tid, size_t mask)
{
    uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Full);
    return (size_t)(h ^ (h >> 29)) & mask;
}

static size_t thread_find(const td_threads *t, int64_t pid, int64_t tid)
{
    size_t i = thread_hash(pid, tid, t->mask);
    while (t->slot[i] &&
           (t->id[2 * (t->slot[i] - 1)] != pid || t->id[2 * (t->slot[i] - 1) + 1] != tid))
        i = (i + 1) & t->mask;
    return i;
}

uint32_t td_thread_slow(td_threads *t, int64_t pid, int64_t tid)
{
    if (!t->slot) {
        t->mask = 63;
        if (!(t->slot = calloc(t->mask + 1, sizeof *t->slot)))
            return UINT32_MAX;
    }
    size_t s = thread_find(t, pid, tid);
    if (!t->slot[s]) {
        if (t->n >= UINT32_MAX - 1)
            return UINT32_MAX;
        if (t->n == t->cap) {
            size_t nc = t->cap ? 2 * t->cap : 16;
            int64_t *ni = realloc(t->id, 2 * nc * sizeof *ni);
            if (!ni)
                return UINT32_MAX;
            t->id = ni;
            t->cap = nc;
        }
        t->id[2 * t->n] = pid;
        t->id[2 * t->n + 1] = tid;
        t->slot[s] = (uint32_t)++t->n;
        if (2 * t->n > t->mask + 1) { /* rehash into twice the slots */
            uint32_t *ns = calloc(2 * (t->mask + 1), sizeof *ns);
            if (!ns)
                return UINT32_MAX;
            free(t->slot);
            t->slot = ns;
            t->mask = 2 * t->mask + 1;
            for (size_t k = 0; k < t->n; k++)
                t->slot[thread_find(t, t->id[2 * k], t->id[2 * k + 1])] = (uint32_t)(k + 1);
            s = thread_find(t, pid, tid);
        }
    }
    t->last_pid = pid;
    t->last_tid = tid;
    t->last = t->slot[s] - 1;
    return t->last;
}

static _Thread_local const int64_t *rank_ids;

static int cmp_thread(const void *a, const void *b)
{
    const int64_t *x = &rank_ids[2 * *(const uint32_t *)a],
                  *y = &rank_ids[2 * *(const uint32_t *)b];
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int td_threads_rank(td_threads *t, td_link *links, size_t n)
{
    if (t->n < 2)
        return 0;
    uint32_t *order = malloc(t->n * sizeof *order), *rank = malloc(t->n * sizeof *rank);
    if (!order || !rank) {
        free(order);
        free(rank);
        return -1;
    }
    for (size_t k = 0; k < t->n; k++)
        order[k] = (uint32_t)k;
    rank_ids = t->id;
    qsort(order, t->n, sizeof *order, cmp_thread);
    bool same = true;
    for (size_t r = 0; r < t->n; r++) {
        rank[order[r]] = (uint32_t)r;
        same = same && order[r] == r;
    }
    if (!same) /* met in (pid, tid) order already: nothing to renumber */
        for (size_t i = 0; i < n; i++)
            links[i].thr = rank[links[i].thr];
    free(order);
    free(rank);
    return 0;
}

void td_threads_free(td_threads *t)
{
    free(t->id);
    free(t->slot);
    memset(t, 0, sizeof *t);
}
_Static_assert(sizeof(td_link) == 40, "td_link: 40 bytes");
