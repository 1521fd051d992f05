/*
 * Spec §2 (rounding of decimal timestamps) and §3 (iteration numbers).
 *
 * Host events find their step by binary search over the elementary segments
 * between step boundaries, each labelled in advance with the step that wins
 * there (the one latest in the file), so overlapping or nested steps cost
 * nothing per event; the segment of the previous event is tried first, as
 * events mostly come in time order. Device events inherit the iteration of
 * their launching host event through a correlation map: pages indexed by
 * the id where the ids are dense (profilers count them up), a hash map
 * otherwise.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int td_step_number(const char *name, size_t len, int64_t *out)
{
    static const char word[] = "ProfilerStep";
    const size_t wl = sizeof word - 1;
    if (len < wl || memcmp(name, word, wl) != 0)
        return 0;
    /* ProfilerStep\s*#\s*(\d+), searched anywhere in the name. */
    for (size_t at = 0; at + wl <= len; at++) {
        if (memcmp(name + at, word, wl) != 0)
            continue;
        size_t k = at + wl;
        while (k < len && (name[k] == ' ' || (name[k] >= '\t' && name[k] <= '\r')))
            k++;
        if (k >= len || name[k] != '#')
            continue;
        k++;
        while (k < len && (name[k] == ' ' || (name[k] >= '\t' && name[k] <= '\r')))
            k++;
        size_t d = k;
        int64_t v = 0;
        int overflow = 0;
        while (k < len && name[k] >= '0' && name[k] <= '9') {
            int dig = name[k] - '0';
            if (v > (INT64_MAX - dig) / 10)
                overflow = 1; /* beyond 63 bits: not a step (docs/errors.md) */
            else
                v = v * 10 + dig;
            k++;
        }
        if (k == d || overflow)
            continue;
        *out = v;
        return 1;
    }
    return 0;
}

typedef struct step {
    double start, end;
    int64_t n;
    size_t order; /* position among the file's events */
} step;

typedef struct seg {
    double at;    /* segment [at, next.at) */
    int64_t n;    /* winning step number */
    int has;      /* any step covers it */
    int32_t iter; /* index of n in the file's iters[], or TD_ITER_NONE */
} seg;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_step_start(const void *a, const void *b)
{
    const step *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* The index of step number v in the sorted iters[], or TD_ITER_NONE. */
static int32_t iter_index(const int64_t *iters, size_t n, int64_t v)
{
    if (v < 0)
        return TD_ITER_NONE;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (iters[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && iters[lo] == v ? (int32_t)lo : TD_ITER_NONE;
}

/* Max-heap of steps by file order, for the sweep. */
typedef struct heap {
    const step **v;
    size_t n;
} heap;

static void heap_push(heap *h, const step *s)
{
    size_t i = h->n++;
    h->v[i] = s;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->v[p]->order >= h->v[i]->order)
            break;
        const step *t = h->v[p];
        h->v[p] = h->v[i];
        h->v[i] = t;
        i = p;
    }
}

static void heap_pop(heap *h)
{
    h->v[0] = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->v[l]->order > h->v[m]->order)
            m = l;
        if (r < h->n && h->v[r]->order > h->v[m]->order)
            m = r;
        if (m == i)
            break;
        const step *t = h->v[m];
        h->v[m] = h->v[i];
        h->v[i] = t;
        i = m;
    }
}

/* Builds the labelled segments; steps are sorted by start on return. */
static seg *build_segments(const td_file *f, step *st, size_t ns, size_t *nseg)
{
    double *b = malloc((2 * ns + 1) * sizeof *b);
    const step **hv = malloc((ns + 1) * sizeof *hv);
    seg *sg = malloc((2 * ns + 1) * sizeof *sg);
    if (!b || !hv || !sg) {
        free(b);
        free(hv);
        free(sg);
        return NULL;
    }
    size_t nb = 0;
    for (size_t i = 0; i < ns; i++) {
        b[nb++] = st[i].start;
        b[nb++] = st[i].end;
    }
    qsort(b, nb, sizeof *b, cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < nb; i++)
        if (u == 0 || b[i] != b[u - 1])
            b[u++] = b[i];
    if (ns > 0) /* st is NULL when there are no steps */
        qsort(st, ns, sizeof *st, cmp_step_start);
    heap h = {hv, 0};
    size_t next = 0;
    for (size_t k = 0; k < u; k++) {
        double at = b[k];
        while (next < ns && st[next].start <= at) {
            if (st[next].end > st[next].start)
                heap_push(&h, &st[next]);
            next++;
        }
        while (h.n > 0 && h.v[0]->end <= at)
            heap_pop(&h);
        sg[k].at = at;
        sg[k].has = h.n > 0;
        sg[k].n = h.n > 0 ? h.v[0]->n : -1;
        sg[k].iter = sg[k].has ? iter_index(f->iters, f->niters, sg[k].n) : TD_ITER_NONE;
    }
    free(b);
    free(hv);
    *nseg = u;
    return sg;
}

/* The iteration (index into iters[]) of the step containing ts, or
 * TD_ITER_NONE; *hint is the segment found last time, tried first. */
static inline int32_t find_step(const seg *sg, size_t nseg, double ts, size_t *hint)
{
    if (nseg == 0 || !(ts >= sg[0].at))
        return TD_ITER_NONE;
    size_t lo = *hint;
    if (!(sg[lo].at <= ts && (lo + 1 == nseg || ts < sg[lo + 1].at))) {
        lo = 0; /* last segment with at <= ts */
        size_t hi = nseg;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (sg[mid].at <= ts)
                lo = mid;
            else
                hi = mid;
        }
        *hint = lo;
    }
    return sg[lo].iter;
}

/* Correlation id -> host iteration. Every launch and kernel visits it.
 * Profilers number correlations with a counter, so the ids of one file
 * come in dense runs: then pages of 4096 ids (4 bytes each) found through a
 * directory from the smallest id to the largest, only the pages some id
 * falls in allocated, visited almost in order. Their memory comes zeroed
 * and untouched (a slot holds its value XOR CORR_UNSET, so 0 is unset): it
 * is faulted in as launches are stored, while the raw blocks they come
 * from shrink to compact events, and the file's peak stays the loader's.
 * Otherwise (ids spread out, or wider than 32 bits) open addressing, 12
 * bytes a slot, td_big_alloc'd: written at once, beside the raw events. */
#define CORR_EMPTY INT64_MIN
#define CORR_INDEX0 INT32_MIN      /* the host event is the first entry: spec §3.2 */
#define CORR_UNSET (INT32_MIN + 1) /* no host event took the id */
#define CORR_PAGE_SHIFT 12
#define CORR_PAGE ((size_t)1 << CORR_PAGE_SHIFT)
/* Paged while the pages hold at most this many slots per id: 32 bytes, what
 * the hash map takes at its lowest load. */
#define CORR_SLOTS_PER_ID 8

typedef struct corr_map {
    int32_t **dir;  /* page of ids lo + (d << CORR_PAGE_SHIFT)..., or NULL; dir NULL: hashed */
    int32_t *pages; /* every page, one block */
    int64_t lo;
    uint64_t ndir;
    int64_t *key;
    int32_t *iter; /* index into iters[], TD_ITER_NONE, or CORR_INDEX0 */
    size_t cap;
} corr_map;

static size_t corr_slot(const corr_map *m, int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    size_t i = h & (m->cap - 1);
    while (m->key[i] != CORR_EMPTY && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The hash map for n ids. */
static int corr_init_hash(corr_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n + n / 3 + 1)
        m->cap *= 2;
    m->key = td_big_alloc(m->cap * sizeof *m->key);
    m->iter = td_big_alloc(m->cap * sizeof *m->iter);
    if (!m->key || !m->iter)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        m->key[i] = CORR_EMPTY;
    return 0;
}

static void corr_free(corr_map *m)
{
    free(m->dir);
    free(m->pages);
    td_big_free(m->key);
    td_big_free(m->iter);
}

/* The page slot of id k (paged maps); NULL when no page holds it. */
static inline int32_t *corr_at(const corr_map *m, int64_t k)
{
    uint64_t off = (uint64_t)k - (uint64_t)m->lo;
    if ((off >> CORR_PAGE_SHIFT) >= m->ndir)
        return NULL;
    int32_t *pg = m->dir[off >> CORR_PAGE_SHIFT];
    return pg ? &pg[off & (CORR_PAGE - 1)] : NULL;
}

/* Stores id k's iteration (k is never CORR_EMPTY; paged: every host id has
 * its page). */
static inline void corr_put(corr_map *m, int64_t k, int32_t it)
{
    if (m->dir) {
        *corr_at(m, k) = it ^ CORR_UNSET;
        return;
    }
    size_t s = corr_slot(m, k);
    m->key[s] = k;
    m->iter[s] = it;
}

/* Id k's iteration, or CORR_UNSET. */
static inline int32_t corr_get(const corr_map *m, int64_t k)
{
    if (m->dir) {
        const int32_t *p = corr_at(m, k);
        return p ? *p ^ CORR_UNSET : CORR_UNSET;
    }
    size_t s = corr_slot(m, k);
    return m->key[s] == k ? m->iter[s] : CORR_UNSET;
}

_Static_assert(sizeof(td_raw_event) == 24, "raw events are compacted in place");
_Static_assert(sizeof(td_event) == 16, "events are smaller than raw records");

static int cmp_wide(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = ((const td_wide_corr *)b)->index;
    return (x > y) - (x < y);
}

/* The correlation id of event i, whose record holds corr. */
static int64_t event_corr(int32_t corr, size_t i, const td_wide_corr *wide, size_t nwide)
{
    if (corr != TD_CORR_WIDE)
        return corr;
    uint64_t key = i;
    const td_wide_corr *w = bsearch(&key, wide, nwide, sizeof *wide, cmp_wide);
    return w ? w->corr : -1;
}

/* Rule 2: a device event takes the iteration of its launch, the host side
 * of its correlation id; CORR_NO_LAUNCH when there is none (or it is the
 * file's first entry). */
#define CORR_NO_LAUNCH INT32_MIN
static inline int32_t device_iter(const corr_map *cm, int64_t corr)
{
    if (corr == -1 || corr == CORR_EMPTY)
        return CORR_NO_LAUNCH;
    int32_t it = corr_get(cm, corr);
    if (it == CORR_INDEX0 || it == CORR_UNSET)
        return CORR_NO_LAUNCH;
    return it;
}

#define RAW(i) (&blocks[(i) >> TD_BLOCK_SHIFT][(i) & (TD_BLOCK - 1)])

static void round_times(td_raw_event **blocks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        td_raw_event *e = RAW(i);
        if (!(e->flags & TD_RAW_HAS_TS)) {
            e->u.ts = NAN;
            e->dur = NAN;
            continue;
        }
        double end = floor(e->u.ts + e->dur);
        e->u.ts = ceil(e->u.ts);
        e->dur = end - e->u.ts;
    }
}

/* The steps of the file (spec §3) and its sorted distinct iterations. */
static int collect_steps(td_file *f, td_raw_event **blocks, size_t n, step **out, size_t *nout)
{
    size_t nnames = td_strtab_count(f->names), ns = 0, cap = 0;
    step *st = NULL;
    int64_t *name_step = malloc((nnames + 1) * sizeof *name_step);
    if (!name_step)
        return -1;
    /* Names repeat: parse each distinct one once. */
    for (size_t id = 0; id < nnames; id++) {
        size_t len;
        const char *s = td_strtab_get(f->names, (uint32_t)id, &len);
        int64_t v;
        name_step[id] = td_step_number(s, len, &v) ? v : -1;
    }
    for (size_t i = 0; i < n; i++) {
        const td_raw_event *e = RAW(i);
        int64_t v = name_step[e->name];
        if (v < 0)
            continue;
        step *ns2 = td_grow(st, &cap, ns + 1, sizeof *st);
        if (!ns2) {
            free(st);
            free(name_step);
            return -1;
        }
        st = ns2;
        st[ns].start = e->u.ts;
        st[ns].end = e->u.ts + e->dur;
        st[ns].n = v;
        st[ns].order = i;
        ns++;
    }
    free(name_step);
    f->steps = ns;
    f->iters = malloc((ns + 1) * sizeof *f->iters);
    if (!f->iters) {
        free(st);
        return -1;
    }
    for (size_t i = 0; i < ns; i++)
        f->iters[i] = st[i].n;
    qsort(f->iters, ns, sizeof *f->iters, cmp_i64);
    f->niters = 0;
    for (size_t i = 0; i < ns; i++)
        if (f->niters == 0 || f->iters[i] != f->iters[f->niters - 1])
            f->iters[f->niters++] = f->iters[i];
    *out = st;
    *nout = ns;
    return 0;
}

/* The host sides of correlation ids: how many, their range, whether any
 * needs 64 bits. */
typedef struct corr_ids {
    size_t n;
    int64_t lo, hi;
    bool wide;
} corr_ids;

/* Rule 1: host events find their step. The timestamp is not needed after
 * this, so its slot keeps the iteration (index into iters[]). Also counts
 * the host sides of correlation ids. */
static void assign_host_steps(td_raw_event **blocks, size_t n, const seg *sg, size_t nseg,
                              corr_ids *ids)
{
    size_t hint = 0;
    ids->n = 0;
    ids->lo = INT64_MAX;
    ids->hi = INT64_MIN;
    ids->wide = false;
    for (size_t i = 0; i < n; i++) {
        td_raw_event *e = RAW(i);
        double ts = e->u.ts;
        e->u.host_iter = (e->flags & TD_RAW_HOST) ? find_step(sg, nseg, ts, &hint) : TD_ITER_NONE;
        if (!(e->flags & TD_RAW_CORR_HOST))
            continue;
        ids->n++;
        if (e->corr == TD_CORR_WIDE) {
            ids->wide = true;
            continue;
        }
        ids->lo = e->corr < ids->lo ? e->corr : ids->lo;
        ids->hi = e->corr > ids->hi ? e->corr : ids->hi;
    }
}

/* Pages for the ids when they are dense enough (corr_map): 1 when made, 0
 * when the hash map should be used instead, -1 when out of memory. */
static int corr_pages(corr_map *m, td_raw_event **blocks, size_t n, const corr_ids *ids)
{
    if (ids->wide || ids->n == 0)
        return 0;
    uint64_t ndir = (((uint64_t)ids->hi - (uint64_t)ids->lo) >> CORR_PAGE_SHIFT) + 1;
    if (ndir > ids->n)
        return 0; /* a directory larger than the ids */
    int32_t **dir = calloc(ndir, sizeof *dir);
    if (!dir)
        return -1;
    int32_t *mark = (int32_t *)dir; /* any non-NULL pointer: "an id falls here" */
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const td_raw_event *e = RAW(i);
        if (!(e->flags & TD_RAW_CORR_HOST))
            continue;
        uint64_t d = ((uint64_t)(int64_t)e->corr - (uint64_t)ids->lo) >> CORR_PAGE_SHIFT;
        used += dir[d] == NULL;
        dir[d] = mark;
    }
    if (used > 1 && used * CORR_PAGE > CORR_SLOTS_PER_ID * (uint64_t)ids->n) {
        free(dir);
        return 0;
    }
    m->pages = calloc(used * CORR_PAGE, sizeof *m->pages); /* zero: unset */
    if (!m->pages) {
        free(dir);
        return -1;
    }
    for (uint64_t d = 0, k = 0; d < ndir; d++)
        if (dir[d])
            dir[d] = m->pages + (k++ << CORR_PAGE_SHIFT);
    m->dir = dir;
    m->lo = ids->lo;
    m->ndir = ndir;
    return 1;
}

static int corr_init(corr_map *m, td_raw_event **blocks, size_t n, const corr_ids *ids)
{
    int rc = corr_pages(m, blocks, n, ids);
    return rc != 0 ? (rc < 0 ? -1 : 0) : corr_init_hash(m, ids->n);
}

/* Marks a compact event whose iter holds its correlation id until the map
 * is complete (clear once assigned). */
#define EV_PENDING 0x20000000u
_Static_assert((EV_PENDING & (((1u << TD_NAME_BITS) - 1) | TD_EV_GPU | TD_EV_STREAM0)) == 0,
               "the pending bit is no name bit nor flag");

/* The compact event of raw event e (number i of the file): final for host
 * events; a device event keeps its correlation id, pending. Rule 2's map
 * takes the host side of each correlation id, the last in the file. */
static td_event compact_event(td_file *f, const td_raw_event *e, size_t i, corr_map *cm,
                              const td_wide_corr *wide, size_t nwide)
{
    if (e->flags & TD_RAW_CORR_HOST) {
        int64_t corr = event_corr(e->corr, i, wide, nwide);
        /* An id of INT64_MIN cannot be stored: such kernels get -1. */
        if (corr != CORR_EMPTY)
            corr_put(cm, corr, (e->flags & TD_RAW_INDEX0) ? CORR_INDEX0 : (int32_t)e->u.host_iter);
    }
    td_event o;
    o.dur = e->dur;
    o.name = e->name | ((e->flags & TD_RAW_GPU) ? TD_EV_GPU : 0);
    if (e->flags & TD_RAW_GPU)
        f->events_gpu++;
    else
        f->events_cpu++;
    if (e->flags & TD_RAW_HOST) {
        o.iter = (int32_t)e->u.host_iter;
        return o;
    }
    o.iter = e->corr;
    o.name |= EV_PENDING;
    if (e->flags & TD_RAW_STREAM0) {
        o.name |= TD_EV_STREAM0;
        f->events_stream0++;
    }
    return o;
}

/* Compacts each block in place: event i of a block is written at byte
 * 16 i, over raw records (24 bytes each) the loop has already read; the
 * block then shrinks. */
static int compact_blocks(td_file *f, td_raw_event **blocks, size_t n, corr_map *cm,
                          const td_wide_corr *wide, size_t nwide)
{
    size_t nb = (n + TD_BLOCK - 1) / TD_BLOCK;
    f->evb = calloc(nb + 1, sizeof *f->evb);
    if (!f->evb)
        return -1;
    f->evb_big = true; /* the loader's blocks, from td_big_alloc */
    for (size_t b = 0; b < nb; b++) {
        td_raw_event *rb = blocks[b];
        td_event *eb = (td_event *)(void *)rb;
        size_t m = b + 1 < nb ? TD_BLOCK : n - b * TD_BLOCK;
        for (size_t k = 0; k < m; k++) {
            td_raw_event e = rb[k];
            td_event o = compact_event(f, &e, b * TD_BLOCK + k, cm, wide, nwide);
            memcpy(&eb[k], &o, sizeof o);
        }
        td_event *shrunk = td_big_shrink(eb, (m ? m : 1) * sizeof *eb);
        f->evb[b] = shrunk ? shrunk : eb;
        blocks[b] = NULL;
        f->nevb = b + 1;
    }
    f->nev = n;
    return 0;
}

/* Rule 2, once every launch is in the map: each device event takes the
 * iteration of its launch. */
static void assign_devices(td_file *f, const corr_map *cm, const td_wide_corr *wide, size_t nwide)
{
    for (size_t b = 0; b < f->nevb; b++) {
        td_event *eb = f->evb[b];
        size_t m = b + 1 < f->nevb ? TD_BLOCK : f->nev - b * TD_BLOCK;
        for (size_t k = 0; k < m; k++) {
            td_event *o = &eb[k];
            if (!(o->name & EV_PENDING))
                continue;
            o->name &= ~EV_PENDING;
            o->iter = device_iter(cm, event_corr(o->iter, b * TD_BLOCK + k, wide, nwide));
            if (o->iter == CORR_NO_LAUNCH) {
                o->iter = TD_ITER_NONE;
                f->events_no_launch++;
                f->events_no_launch0 += (o->name & TD_EV_STREAM0) != 0;
            }
        }
    }
}

int td_assign_iterations(td_file *f, td_raw_event **blocks, size_t n, const td_wide_corr *wide,
                         size_t nwide, int round_ts, td_error *err)
{
    step *st = NULL;
    seg *sg = NULL;
    size_t ns = 0, nseg = 0;
    corr_map cm = {0};
    int rc = -1;

    if (round_ts)
        round_times(blocks, n);
    if (collect_steps(f, blocks, n, &st, &ns) < 0)
        goto done;
    /* NaN bounds never contain anything: leave such steps out of the sweep. */
    size_t kept = 0;
    for (size_t i = 0; i < ns; i++)
        if (!isnan(st[i].start) && !isnan(st[i].end))
            st[kept++] = st[i];
    if (!(sg = build_segments(f, st, kept, &nseg)))
        goto done;
    corr_ids ids;
    assign_host_steps(blocks, n, sg, nseg, &ids);
    if (corr_init(&cm, blocks, n, &ids) < 0)
        goto done;
    rc = compact_blocks(f, blocks, n, &cm, wide, nwide);
    if (rc == 0)
        assign_devices(f, &cm, wide, nwide);
done:
    free(st);
    free(sg);
    corr_free(&cm);
    return rc < 0 ? td_fail(err, TD_ENOMEM, f->path, "out of memory") : 0;
}
