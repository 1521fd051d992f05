/*
 * Building the sets of a command with every process of an MPI job.
 *
 *   1. Rank 0 lists the files of every set (and opens the summaries, which
 *      it alone reads) and broadcasts the list with each file's size.
 *   2. Every process computes the same division: files largest first, each
 *      to the process with the fewest bytes so far.
 *   3. Every process loads and packs its files, one at a time (packing keeps
 *      only the aggregates, so its memory follows its largest file). A
 *      process that fails tells the others, which stop after their current
 *      file; then all agree on the outcome (MPI_Allgather): the failed file
 *      with the lowest index wins, and its error goes to rank 0.
 *   4. The packed files are gathered to rank 0 (MPI_Gatherv, in rounds that
 *      keep every count under 2^31), which assembles the sets.
 *
 * Every process reaches every collective whatever fails, so a bad file ends
 * the job instead of hanging it.
 */
#include "mpi_sets.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { TAG_ABORT = 71, TAG_ERROR = 72 };
#define NO_FAIL INT64_MAX
#ifndef ROUND_BYTES /* gathered per round, over all processes (tests build it small) */
#define ROUND_BYTES ((size_t)64 << 20)
#endif

typedef struct plan {
    size_t nfiles;
    char **paths;
    uint64_t *bytes;
    uint32_t *set; /* the set each file belongs to */
} plan;

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int bad;
} wbuf;

static void wput(wbuf *b, const void *p, size_t n)
{
    if (b->bad)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->bad = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void plan_free(plan *p)
{
    for (size_t i = 0; p->paths && i < p->nfiles; i++)
        free(p->paths[i]);
    free(p->paths);
    free(p->bytes);
    free(p->set);
    memset(p, 0, sizeof *p);
}

static int oom(mpi_sets *ms)
{
    memset(&ms->err, 0, sizeof ms->err);
    ms->err.code = TD_ENOMEM;
    strcpy(ms->err.msg, "out of memory");
    return ms->rc = TD_ENOMEM;
}

static void drop_sets(mpi_sets *ms)
{
    for (size_t i = 0; i < ms->n; i++) {
        td_set_free(ms->sets[i]);
        ms->sets[i] = NULL;
    }
}

/* Moves the listed files of every trace set into p, in set order. */
static int plan_fill(plan *p, mpi_sets *ms, char ***lists, const size_t *counts)
{
    size_t total = 0;
    for (size_t i = 0; i < ms->n; i++)
        total += counts[i];
    p->paths = calloc(total + 1, sizeof *p->paths);
    p->bytes = calloc(total + 1, sizeof *p->bytes);
    p->set = calloc(total + 1, sizeof *p->set);
    if (!p->paths || !p->bytes || !p->set)
        return oom(ms);
    for (size_t i = 0; i < ms->n; i++)
        for (size_t k = 0; k < counts[i]; k++) {
            struct stat st;
            p->paths[p->nfiles] = lists[i][k];
            lists[i][k] = NULL;
            p->bytes[p->nfiles] = stat(p->paths[p->nfiles], &st) == 0 ? (uint64_t)st.st_size : 0;
            p->set[p->nfiles++] = (uint32_t)i;
        }
    return 0;
}

/* Rank 0: the files of every set, the summaries opened, or the error
 * td_sets_open would give (summaries first, then listing, as it does). */
static int plan_make(plan *p, mpi_sets *ms)
{
    char ***lists = calloc(ms->n + 1, sizeof *lists);
    size_t *counts = calloc(ms->n + 1, sizeof *counts);
    int *kind = calloc(ms->n + 1, sizeof *kind);
    int list_rc = 0, rc = 0;
    td_error list_err = {0};
    if (!lists || !counts || !kind)
        rc = oom(ms);
    for (size_t i = 0; rc == 0 && i < ms->n; i++) {
        td_error e = {0};
        kind[i] = td_set_list_files(&lists[i], &counts[i], ms->paths[i], &e);
        if (kind[i] < 0 && list_rc == 0) {
            list_rc = kind[i];
            list_err = e;
        }
    }
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.ns = (ms->flags & TD_PACK_NS) != 0;
    for (size_t i = 0; rc == 0 && i < ms->n; i++)
        if (kind[i] == 1)
            rc = td_set_open(&ms->sets[i], ms->paths[i], &oo, &ms->err);
    if (rc == 0 && list_rc < 0) {
        rc = list_rc;
        ms->err = list_err;
    }
    if (rc == 0)
        rc = plan_fill(p, ms, lists, counts);
    for (size_t i = 0; lists && i < ms->n; i++) {
        for (size_t k = 0; k < counts[i]; k++)
            free(lists[i][k]);
        free(lists[i]);
    }
    free(lists);
    free(counts);
    free(kind);
    if (rc < 0)
        drop_sets(ms);
    return ms->rc = rc;
}

static int plan_encode(wbuf *b, const plan *p)
{
    uint64_t n = p->nfiles;
    wput(b, &n, sizeof n);
    for (size_t i = 0; i < p->nfiles; i++) {
        uint64_t len = strlen(p->paths[i]);
        wput(b, &p->set[i], sizeof p->set[i]);
        wput(b, &p->bytes[i], sizeof p->bytes[i]);
        wput(b, &len, sizeof len);
        wput(b, p->paths[i], len);
    }
    return b->bad ? -1 : 0;
}

static int take(const unsigned char **q, const unsigned char *end, void *out, size_t n)
{
    if ((size_t)(end - *q) < n)
        return -1;
    memcpy(out, *q, n);
    *q += n;
    return 0;
}

static int plan_decode(plan *p, const unsigned char *q, size_t size)
{
    const unsigned char *end = q + size;
    uint64_t n;
    if (take(&q, end, &n, sizeof n) < 0 || n > size)
        return -1;
    p->paths = calloc(n + 1, sizeof *p->paths);
    p->bytes = calloc(n + 1, sizeof *p->bytes);
    p->set = calloc(n + 1, sizeof *p->set);
    if (!p->paths || !p->bytes || !p->set)
        return -1;
    for (; p->nfiles < n; p->nfiles++) {
        uint64_t len;
        size_t i = p->nfiles;
        if (take(&q, end, &p->set[i], sizeof p->set[i]) < 0 ||
            take(&q, end, &p->bytes[i], sizeof p->bytes[i]) < 0 ||
            take(&q, end, &len, sizeof len) < 0 || len > (uint64_t)(end - q) ||
            !(p->paths[i] = malloc(len + 1)))
            return -1;
        memcpy(p->paths[i], q, len);
        p->paths[i][len] = '\0';
        q += len;
    }
    return 0;
}

/* Broadcasts n bytes from root in pieces of a fixed size (every process
 * makes the same calls); p NULL on a process that could not make room: it
 * takes part and drops the bytes. */
static void bcast_bytes(void *p, size_t n, int root, MPI_Comm comm)
{
    enum { PIECE = 1 << 20 };
    static unsigned char drop[PIECE];
    for (size_t off = 0; off < n; off += PIECE) {
        size_t k = n - off < PIECE ? n - off : PIECE;
        MPI_Bcast(p ? (unsigned char *)p + off : drop, (int)k, MPI_BYTE, root, comm);
    }
}

/* Rank 0 makes the plan and sends it (or that it failed) to every process.
 * Returns < 0 on every process when rank 0 failed; else 0, with p filled,
 * or *local < 0 on a process that could not hold it. */
static int plan_share(plan *p, mpi_sets *ms, int me, MPI_Comm comm, int *local)
{
    wbuf b = {0};
    int64_t head[2] = {0, 0}; /* status, bytes */
    *local = 0;
    if (me == 0) {
        if (plan_make(p, ms) == 0 && plan_encode(&b, p) < 0)
            oom(ms);
        head[0] = ms->rc;
        head[1] = (int64_t)b.n;
    }
    MPI_Bcast(head, 2, MPI_INT64_T, 0, comm);
    if (head[0] < 0) {
        free(b.p);
        return (int)head[0];
    }
    if (me != 0 && !(b.p = malloc((size_t)head[1] + 1)))
        *local = TD_ENOMEM;
    bcast_bytes(b.p, (size_t)head[1], 0, comm);
    if (*local == 0 && me != 0 && plan_decode(p, b.p, (size_t)head[1]) < 0)
        *local = TD_ENOMEM;
    free(b.p);
    return 0;
}

/* ---- dividing and loading ---- */

/* The few bookkeeping blocks whose loss would leave the processes unable to
 * agree: without them the job ends at once. */
static void *need(void *p, MPI_Comm comm)
{
    if (!p)
        MPI_Abort(comm, 1);
    return p;
}

static const uint64_t *g_sort_bytes;

static int cmp_larger(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (g_sort_bytes[x] != g_sort_bytes[y])
        return g_sort_bytes[x] > g_sort_bytes[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* owner[i]: largest file first, each to the least-loaded process (the lowest
 * rank on ties). Every process computes the same. */
static int divide(int *owner, const plan *p, int nproc)
{
    size_t *order = malloc((p->nfiles + 1) * sizeof *order);
    uint64_t *load = calloc((size_t)nproc, sizeof *load);
    if (!order || !load) {
        free(order);
        free(load);
        return -1;
    }
    for (size_t i = 0; i < p->nfiles; i++)
        order[i] = i;
    g_sort_bytes = p->bytes;
    qsort(order, p->nfiles, sizeof *order, cmp_larger);
    for (size_t k = 0; k < p->nfiles; k++) {
        int best = 0;
        for (int r = 1; r < nproc; r++)
            if (load[r] < load[best])
                best = r;
        owner[order[k]] = best;
        load[best] += p->bytes[order[k]] + 1; /* empty files spread too */
    }
    free(order);
    free(load);
    return 0;
}

/* What one process holds: its files' packed bytes, or its failure. */
typedef struct share {
    int me, nproc;
    MPI_Comm comm;
    int *owner;
    wbuf data;      /* the packed files of this process, concatenated */
    uint64_t *lens; /* each one's length, in index order */
    size_t nmine;
    int64_t fail; /* the failed file's index (-1: no room for the plan), or NO_FAIL */
    td_error err;
    MPI_Request *sent; /* the abort notices sent */
    int nsent, got;    /* ... and those received */
    int notice;
} share;

static int aborted(share *s)
{
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ABORT, s->comm, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, TAG_ABORT, s->comm, MPI_STATUS_IGNORE);
        s->got++;
    }
    return flag;
}

/* Tells every other process to stop loading. */
static void announce(share *s)
{
    s->sent = need(malloc((size_t)s->nproc * sizeof *s->sent), s->comm);
    for (int r = 0; r < s->nproc; r++)
        if (r != s->me)
            MPI_Isend(&s->notice, 1, MPI_INT, r, TAG_ABORT, s->comm, &s->sent[s->nsent++]);
}

static void load_fail(share *s, int64_t index, int code, const char *msg)
{
    s->fail = index;
    if (msg) {
        memset(&s->err, 0, sizeof s->err);
        s->err.code = code;
        snprintf(s->err.msg, sizeof s->err.msg, "%s", msg);
    }
    announce(s);
}

static void load_mine(share *s, const plan *p, unsigned flags)
{
    s->lens = calloc(p->nfiles + 1, sizeof *s->lens);
    if (!s->lens) {
        load_fail(s, -1, TD_ENOMEM, "out of memory");
        return;
    }
    for (size_t i = 0; i < p->nfiles; i++) {
        if (s->owner[i] != s->me)
            continue;
        if (aborted(s))
            return;
        unsigned char *b;
        size_t n;
        if (td_set_pack_file(&b, &n, p->paths[i], flags, &s->err) < 0) {
            load_fail(s, (int64_t)i, 0, NULL);
            return;
        }
        wput(&s->data, b, n);
        free(b);
        s->lens[s->nmine++] = n;
        if (s->data.bad) {
            load_fail(s, (int64_t)i, TD_ENOMEM, "out of memory");
            return;
        }
    }
}

/* Every process learns whether a file failed; rank 0 gets the error of the
 * lowest-indexed one (the one td_sets_open names). Returns 0 or < 0. */
static int agree(share *s, mpi_sets *ms)
{
    int64_t *all = need(malloc((size_t)s->nproc * sizeof *all), s->comm), mine = s->fail;
    MPI_Allgather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, s->comm);
    int64_t low = NO_FAIL;
    int who = 0, senders = 0;
    for (int r = 0; r < s->nproc; r++) {
        senders += all[r] != NO_FAIL;
        if (all[r] < low) {
            low = all[r];
            who = r;
        }
    }
    free(all);
    /* Collect the notices still on their way, then let ours complete. */
    for (int expect = senders - (s->fail != NO_FAIL); s->got < expect; s->got++)
        MPI_Recv(&mine, 1, MPI_INT, MPI_ANY_SOURCE, TAG_ABORT, s->comm, MPI_STATUS_IGNORE);
    if (s->nsent)
        MPI_Waitall(s->nsent, s->sent, MPI_STATUSES_IGNORE);
    if (low == NO_FAIL)
        return 0;
    if (s->me == who && who != 0)
        MPI_Send(&s->err, (int)sizeof s->err, MPI_BYTE, 0, TAG_ERROR, s->comm);
    if (s->me == 0) {
        if (who != 0)
            MPI_Recv(&s->err, (int)sizeof s->err, MPI_BYTE, who, TAG_ERROR, s->comm,
                     MPI_STATUS_IGNORE);
        ms->err = s->err;
        ms->rc = s->err.code < 0 ? s->err.code : TD_EIO;
        drop_sets(ms);
    }
    return -1;
}

/* ---- gathering and assembling ---- */

/* Rank 0: every process's packed bytes, in rounds of at most ROUND_BYTES
 * (each count fits an int). Returns rank 0's copy per process (malloc'd). */
static unsigned char **gather_bytes(share *s, const uint64_t *totals)
{
    size_t n = (size_t)s->nproc, chunk = ROUND_BYTES / n ? ROUND_BYTES / n : 1, most = 0;
    for (size_t r = 0; r < n; r++)
        most = totals[r] > most ? (size_t)totals[r] : most;
    unsigned char **dst = need(calloc(n, sizeof *dst), s->comm);
    int *counts = need(calloc(n, sizeof *counts), s->comm);
    int *displs = need(calloc(n, sizeof *displs), s->comm);
    unsigned char *round = NULL;
    for (size_t r = 0; s->me == 0 && r < n; r++)
        dst[r] = need(malloc(totals[r] + 1), s->comm);
    if (s->me == 0)
        round = need(malloc(chunk * n), s->comm);
    for (size_t off = 0; off < most; off += chunk) {
        int pos = 0;
        for (size_t r = 0; r < n; r++) {
            size_t left = totals[r] > off ? (size_t)totals[r] - off : 0;
            counts[r] = (int)(left < chunk ? left : chunk);
            displs[r] = pos;
            pos += counts[r];
        }
        MPI_Gatherv(counts[s->me] ? s->data.p + off : NULL, counts[s->me], MPI_BYTE, round, counts,
                    displs, MPI_BYTE, 0, s->comm);
        for (size_t r = 0; s->me == 0 && r < n; r++)
            memcpy(dst[r] + off, round + displs[r], (size_t)counts[r]);
    }
    free(round);
    free(counts);
    free(displs);
    return dst;
}

/* Rank 0: the length of every file, by index. */
static uint64_t *gather_lens(share *s, size_t nfiles)
{
    size_t n = (size_t)s->nproc;
    int *counts = need(calloc(n, sizeof *counts), s->comm);
    int *displs = need(calloc(n, sizeof *displs), s->comm);
    uint64_t *got = need(malloc((nfiles + 1) * sizeof *got), s->comm);
    uint64_t *lens = need(malloc((nfiles + 1) * sizeof *lens), s->comm);
    for (size_t i = 0; i < nfiles; i++)
        counts[s->owner[i]]++;
    for (size_t r = 1; r < n; r++)
        displs[r] = displs[r - 1] + counts[r - 1];
    MPI_Gatherv(s->lens, (int)s->nmine, MPI_UINT64_T, got, counts, displs, MPI_UINT64_T, 0,
                s->comm);
    for (size_t i = 0; i < nfiles; i++) /* each process sent its own in index order */
        lens[i] = got[displs[s->owner[i]]++];
    free(got);
    free(counts);
    free(displs);
    return lens;
}

/* Rank 0: the trace sets from their packed files (summaries are open). */
static void assemble(mpi_sets *ms, const share *s, const plan *p, unsigned char **dst,
                     const uint64_t *lens)
{
    const unsigned char **bufs = calloc(p->nfiles + 1, sizeof *bufs);
    size_t *sizes = calloc(p->nfiles + 1, sizeof *sizes);
    size_t *used = calloc((size_t)s->nproc, sizeof *used);
    int rc = bufs && sizes && used ? 0 : oom(ms);
    for (size_t i = 0; rc == 0 && i < p->nfiles; i++) {
        bufs[i] = dst[s->owner[i]] + used[s->owner[i]];
        sizes[i] = (size_t)lens[i];
        used[s->owner[i]] += sizes[i];
    }
    for (size_t k = 0, i = 0; rc == 0 && k < ms->n; k++) {
        size_t first = i;
        while (i < p->nfiles && p->set[i] == k)
            i++;
        if (!ms->sets[k])
            rc = td_set_from_packed(&ms->sets[k], ms->paths[k], bufs + first, sizes + first,
                                    i - first, &ms->err);
    }
    if (rc < 0) {
        ms->rc = rc;
        drop_sets(ms);
    }
    free(bufs);
    free(sizes);
    free(used);
}

static void gather(share *s, mpi_sets *ms, const plan *p)
{
    uint64_t mine = s->data.n;
    uint64_t *totals = need(malloc((size_t)s->nproc * sizeof *totals), s->comm);
    MPI_Allgather(&mine, 1, MPI_UINT64_T, totals, 1, MPI_UINT64_T, s->comm);
    uint64_t *lens = gather_lens(s, p->nfiles);
    unsigned char **dst = gather_bytes(s, totals);
    if (s->me == 0)
        assemble(ms, s, p, dst, lens);
    for (int r = 0; r < s->nproc; r++)
        free(dst[r]);
    free(dst);
    free(lens);
    free(totals);
}

int mpi_sets_build(mpi_sets *ms, const char *const *paths, size_t n, unsigned flags, MPI_Comm comm)
{
    memset(ms, 0, sizeof *ms);
    ms->n = n;
    ms->paths = paths;
    ms->flags = flags;
    share s = {.comm = comm, .fail = NO_FAIL};
    MPI_Comm_rank(comm, &s.me);
    MPI_Comm_size(comm, &s.nproc);
    ms->sets = need(calloc(n + 1, sizeof *ms->sets), comm);
    plan p = {0};
    int local;
    int rc = plan_share(&p, ms, s.me, comm, &local);
    if (rc < 0)
        return rc;
    s.owner = need(calloc(p.nfiles + 1, sizeof *s.owner), comm);
    if (local < 0 || divide(s.owner, &p, s.nproc) < 0)
        load_fail(&s, -1, TD_ENOMEM, "out of memory");
    else
        load_mine(&s, &p, flags);
    rc = agree(&s, ms);
    if (rc == 0)
        gather(&s, ms, &p);
    free(s.owner);
    free(s.lens);
    free(s.data.p);
    free(s.sent);
    plan_free(&p);
    return rc;
}

int mpi_sets_take(mpi_sets *ms, td_set **out, const char *const *paths, size_t n, td_error *err)
{
    if (!ms->sets || ms->taken || n != ms->n)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(paths[i], ms->paths[i]) != 0)
            return 1;
    ms->taken = 1;
    for (size_t i = 0; i < n; i++) {
        out[i] = ms->sets[i];
        ms->sets[i] = NULL;
    }
    if (ms->rc < 0 && err)
        *err = ms->err;
    return ms->rc;
}

void mpi_sets_free(mpi_sets *ms)
{
    if (ms->sets)
        drop_sets(ms);
    free(ms->sets);
    ms->sets = NULL;
}
