/*
 * Cutting one plain trace file into pieces for several threads: where to
 * cut, and the hand-over between the threads (model/trace_split.h). The
 * reading itself is trace_load.c's.
 */
#include "model/trace_split.h"
#include "util/bigmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files below this are read whole by one thread: a piece costs a window,
 * a thread hand-over and a merge. */
#define SPLIT_MIN ((uint64_t)32 << 20)
/* How far past the planned offset a cut is looked for. */
#define SPLIT_SEARCH ((uint64_t)4 << 20)

size_t td_split_count(uint64_t size, uint64_t total, int threads)
{
    const char *force = getenv("TD_SPLIT");
    if (force && *force) {
        long n = strtol(force, NULL, 10);
        return n < 1 ? 1 : n > 64 ? 64 : (size_t)n;
    }
    if (threads < 2 || size < SPLIT_MIN || total == 0)
        return 1;
    /* The file's share of the threads, rounded: a file of half the bytes on
     * two threads is read whole beside the other half. */
    uint64_t k = (size * (uint64_t)threads + total / 2) / total;
    if (k > (uint64_t)threads)
        k = (uint64_t)threads;
    if (k > size / (SPLIT_MIN / 2))
        k = size / (SPLIT_MIN / 2);
    return k < 1 ? 1 : (size_t)k;
}

/* The depth of traceEvents by the file's first byte: 2 for an object, 1 for
 * a bare array of events, 0 for anything else (not cut). */
static int events_depth(int fd)
{
    unsigned char b[4096];
    ssize_t n = pread(fd, b, sizeof b, 0);
    ssize_t i = 0;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF)
        i = 3;
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
        i++;
    if (i >= n)
        return 0;
    if (i + 1 < n && ((b[i] == 0x1f && b[i + 1] == 0x8b) || b[i] == 0x28))
        return 0; /* gzip or zstd */
    return b[i] == '{' ? 2 : b[i] == '[' ? 1 : 0;
}

/* The first offset at or after off where "}" [ws] "," [ws] "{" [ws] "\""
 * starts an object (the offset of its '{'), or 0 when none is found soon.
 * Only a guess: the serial reader proves it (trace_split.h). */
static uint64_t find_cut(int fd, uint64_t off, uint64_t size)
{
    unsigned char b[1 << 16];
    int st = 0; /* 1: after '}', 2: after "},", 3: after "},{" */
    uint64_t brace = 0, limit = off + SPLIT_SEARCH;
    while (off < size && off < limit) {
        ssize_t n = pread(fd, b, sizeof b, (off_t)off);
        if (n <= 0)
            return 0;
        for (ssize_t i = 0; i < n; i++) {
            unsigned char c = b[i];
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
                continue;
            if (st == 3 && c == '"')
                return brace;
            if (c == '}')
                st = 1;
            else if (st == 1 && c == ',')
                st = 2;
            else if (st == 2 && c == '{') {
                st = 3;
                brace = off + (uint64_t)i;
            } else
                st = 0;
        }
        off += (uint64_t)n;
    }
    return 0;
}

static int plan_cuts(td_split *sp, int fd, uint64_t size, size_t pieces)
{
    sp->p = calloc(pieces, sizeof *sp->p);
    if (!sp->p)
        return TD_ENOMEM;
    sp->n = 1;
    uint64_t last = 0;
    for (size_t i = 1; i < pieces; i++) {
        uint64_t at = size / pieces * i;
        uint64_t cut = find_cut(fd, at > last ? at : last + 1, size);
        if (cut == 0 || cut <= last)
            continue;
        td_piece *p = &sp->p[sp->n++];
        p->start = cut;
        atomic_init(&p->state, PIECE_FREE);
        last = cut;
    }
    return 0;
}

int td_split_plan(td_split **out, const char *path, size_t pieces, td_error *err)
{
    *out = NULL;
    if (pieces < 2)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* the reader says why */
    struct stat st;
    int depth = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? events_depth(fd) : 0;
    td_split *sp = depth ? calloc(1, sizeof *sp) : NULL;
    int rc = 0;
    if (sp) {
        sp->depth = depth;
        pthread_mutex_init(&sp->mu, NULL);
        pthread_cond_init(&sp->cv, NULL);
        if (!(sp->path = strdup(path)) || plan_cuts(sp, fd, (uint64_t)st.st_size, pieces) < 0)
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    } else if (depth) {
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    close(fd);
    if (rc < 0 || (sp && sp->n < 2)) {
        td_split_free(sp);
        return rc;
    }
    *out = sp;
    return 0;
}

size_t td_split_pieces(const td_split *sp)
{
    return sp ? sp->n : 1;
}

int td_split_claim(td_split *sp, td_piece *p)
{
    int expect = PIECE_FREE;
    if (atomic_compare_exchange_strong(&p->state, &expect, PIECE_CANCELLED))
        return 0;
    if (expect == PIECE_CANCELLED)
        return 0;
    pthread_mutex_lock(&sp->mu);
    while (atomic_load(&p->state) != PIECE_DONE)
        pthread_cond_wait(&sp->cv, &sp->mu);
    pthread_mutex_unlock(&sp->mu);
    return 1;
}

void td_split_cancel(td_piece *p)
{
    int expect = PIECE_FREE;
    atomic_compare_exchange_strong(&p->state, &expect, PIECE_CANCELLED);
}

void td_split_finish(td_split *sp, td_piece *p)
{
    pthread_mutex_lock(&sp->mu);
    atomic_store(&p->state, PIECE_DONE);
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
}

void td_piece_clear(td_piece *p)
{
    for (size_t b = 0; b < p->nblk; b++)
        td_big_free(p->blk[b]);
    free(p->blk);
    free(p->cat);
    free(p->wide);
    td_links_free(p->links);
    td_threads_free(&p->thr);
    td_strtab_free(p->names);
    td_strtab_free(p->cats);
    p->blk = NULL;
    p->cat = NULL;
    p->wide = NULL;
    p->links = NULL;
    p->names = p->cats = NULL;
    p->nblk = p->nraw = p->nwide = p->nlinks = 0;
}

void td_split_free(td_split *sp)
{
    if (!sp)
        return;
    for (size_t i = 1; i < sp->n; i++)
        td_piece_clear(&sp->p[i]);
    free(sp->p);
    free(sp->path);
    pthread_mutex_destroy(&sp->mu);
    pthread_cond_destroy(&sp->cv);
    free(sp);
}
