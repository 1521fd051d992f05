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
 *
 * Four passes over the events, bounded by memory more than by instructions:
 * rounding, steps and the range of the ids; host steps and the pages the ids
 * fall in; compaction, storing launches; device events. A file that several
 * threads read (a cut file) has each pass run by as many, each over a run
 * of whole blocks. Launches outside the first run are stored after the
 * pass, run by run, so that the last in the file still wins.
 */
#include "util/bigmem.h"
#include "util/pool.h"
#include "model/load.h"
#include "model/bd_collect.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
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
    qsort(b, nb, sizeof *b, td_cmp_double);
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

/* The host sides of correlation ids: how many, their range, whether any
 * needs 64 bits. */
typedef struct corr_ids {
    size_t n;
    int64_t lo, hi;
    bool wide;
} corr_ids;

/* A launch that a part after the first stores once the parts before it
 * have. */
typedef struct launch {
    int64_t corr;
    int32_t iter;
} launch;

/* One run of whole blocks, [lo, hi) of the file's events, and what each
 * pass over it found. A file that several threads read is compacted by as
 * many (td_assign_iterations' threads); otherwise there is one part. */
typedef struct part {
    size_t lo, hi;
    step *st; /* steps, in file order */
    size_t ns, stcap;
    corr_ids ids;
    unsigned char *mark; /* pass_host: the directory entries its ids fall in */
    launch *put;         /* pass_compact, parts after the first: in file order */
    size_t nput, putcap;
    uint64_t cpu, gpu, stream0, no_launch, no_launch0;
    int oom;
    double tlo, thi; /* the span of its timed events */
} part;

typedef struct passes passes;
typedef void pass_fn(passes *ps, part *p);

struct passes {
    td_file *f;
    td_raw_event **blocks;
    int round_ts;
    const int64_t *name_step; /* step number of each name id, or -1 */
    const void *marker;       /* td_open_opts.step_marker, compiled, or NULL */
    const seg *sg;
    size_t nseg;
    corr_map *cm;
    const td_wide_corr *wide;
    size_t nwide;
    part *parts;
    size_t nparts;
    pass_fn *pass; /* the pass run() runs on each part */
};

/* Counts a host side of a correlation id. */
static inline void count_id(corr_ids *ids, int32_t corr)
{
    ids->n++;
    if (corr == TD_CORR_WIDE) {
        ids->wide = true;
        return;
    }
    ids->lo = corr < ids->lo ? corr : ids->lo;
    ids->hi = corr > ids->hi ? corr : ids->hi;
}

/* Rounds part p's times (spec §2), lists its steps (§3) and counts the
 * host sides of its correlation ids. */
static void pass_steps(passes *ps, part *p)
{
    td_raw_event **blocks = ps->blocks;
    p->ids = (corr_ids){0, INT64_MAX, INT64_MIN, false};
    p->tlo = INFINITY;
    p->thi = -INFINITY;
    for (size_t i = p->lo; i < p->hi; i++) {
        td_raw_event *e = RAW(i);
        if (ps->round_ts) {
            double own = e->dur;
            if (!(e->flags & TD_RAW_HAS_TS)) {
                e->u.ts = NAN;
                e->dur = NAN;
            } else {
                double end = floor(e->u.ts + e->dur);
                e->u.ts = ceil(e->u.ts);
                e->dur = end - e->u.ts;
            }
            if (ps->f->rdelta)
                ps->f->rdelta[i] = (float)((isnan(e->dur) ? 0 : e->dur) - (isnan(own) ? 0 : own));
        }
        if ((e->flags & TD_RAW_HAS_TS) && !isnan(e->dur)) {
            p->tlo = e->u.ts < p->tlo ? e->u.ts : p->tlo;
            p->thi = e->u.ts + e->dur > p->thi ? e->u.ts + e->dur : p->thi;
        }
        if (e->flags & TD_RAW_CORR_HOST)
            count_id(&p->ids, e->corr);
        int64_t v = ps->name_step[e->name];
        if (v < 0 || (ps->marker && (e->flags & TD_RAW_GPU)))
            continue; /* a marker's steps are host events */
        step *ns2 = td_grow(p->st, &p->stcap, p->ns + 1, sizeof *p->st);
        if (!ns2) {
            p->oom = 1;
            return;
        }
        p->st = ns2;
        p->st[p->ns++] = (step){e->u.ts, e->u.ts + e->dur, v, i};
    }
}

/* Rule 1: host events find their step. The timestamp is not needed after
 * this, so its slot keeps the iteration (index into iters[]). Also marks
 * the pages the host sides of correlation ids fall in, when paged. */
static void pass_host(passes *ps, part *p)
{
    td_raw_event **blocks = ps->blocks;
    size_t hint = 0;
    uint64_t lo = (uint64_t)ps->cm->lo;
    for (size_t i = p->lo; i < p->hi; i++) {
        td_raw_event *e = RAW(i);
        double ts = e->u.ts;
        e->u.host_iter =
            (e->flags & TD_RAW_HOST) ? find_step(ps->sg, ps->nseg, ts, &hint) : TD_ITER_NONE;
        if (p->mark && (e->flags & TD_RAW_CORR_HOST))
            p->mark[((uint64_t)(int64_t)e->corr - lo) >> CORR_PAGE_SHIFT] = 1;
    }
}

/* Before pass_host: whether the ids might be paged (corr_map): then each
 * part gets a map of the directory's entries to mark. -1 when out of
 * memory. */
static int corr_plan(passes *ps, const corr_ids *ids)
{
    if (ids->wide || ids->n == 0)
        return 0;
    uint64_t ndir = (((uint64_t)ids->hi - (uint64_t)ids->lo) >> CORR_PAGE_SHIFT) + 1;
    if (ndir > ids->n)
        return 0; /* a directory larger than the ids */
    ps->cm->lo = ids->lo;
    ps->cm->ndir = ndir;
    for (size_t k = 0; k < ps->nparts; k++)
        if (!(ps->parts[k].mark = calloc(ndir, 1)))
            return -1;
    return 0;
}

/* After pass_host: pages for the ids when they are dense enough, else the
 * hash map. -1 when out of memory. */
static int corr_init(passes *ps, const corr_ids *ids)
{
    corr_map *m = ps->cm;
    unsigned char *mark = ps->parts[0].mark;
    if (!mark) {
        m->lo = 0;
        m->ndir = 0;
        return corr_init_hash(m, ids->n);
    }
    size_t used = 0;
    for (uint64_t d = 0; d < m->ndir; d++) {
        for (size_t k = 1; k < ps->nparts; k++)
            mark[d] |= ps->parts[k].mark[d];
        used += mark[d];
    }
    if (used > 1 && used * CORR_PAGE > CORR_SLOTS_PER_ID * (uint64_t)ids->n) {
        m->lo = 0;
        m->ndir = 0;
        return corr_init_hash(m, ids->n);
    }
    m->dir = calloc(m->ndir, sizeof *m->dir);
    m->pages = calloc(used * CORR_PAGE, sizeof *m->pages); /* zero: unset */
    if (!m->dir || !m->pages)
        return -1;
    for (uint64_t d = 0, k = 0; d < m->ndir; d++)
        if (mark[d])
            m->dir[d] = m->pages + (k++ << CORR_PAGE_SHIFT);
    return 0;
}

/* Marks a compact event whose iter holds its correlation id until the map
 * is complete (clear once assigned). */
#define EV_PENDING 0x20000000u
_Static_assert((EV_PENDING & (((1u << TD_NAME_BITS) - 1) | TD_EV_GPU | TD_EV_STREAM0)) == 0,
               "the pending bit is no name bit nor flag");

/* Rule 2's map takes the host side of each correlation id, the last in the
 * file: the first part stores at once, the others once the parts before
 * theirs have (td_assign_iterations). */
static void put_launch(passes *ps, part *p, int64_t corr, int32_t it)
{
    if (p == ps->parts) {
        corr_put(ps->cm, corr, it);
        return;
    }
    launch *put = td_grow(p->put, &p->putcap, p->nput + 1, sizeof *put);
    if (!put) {
        p->oom = 1;
        return;
    }
    p->put = put;
    put[p->nput++] = (launch){corr, it};
}

/* The compact event of raw event e (number i of the file): final for host
 * events; a device event keeps its correlation id, pending. */
static td_event compact_event(passes *ps, part *p, const td_raw_event *e, size_t i)
{
    if (e->flags & TD_RAW_CORR_HOST) {
        int64_t corr = event_corr(e->corr, i, ps->wide, ps->nwide);
        /* An id of INT64_MIN cannot be stored: such kernels get -1. */
        if (corr != CORR_EMPTY)
            put_launch(ps, p, corr,
                       (e->flags & TD_RAW_INDEX0) ? CORR_INDEX0 : (int32_t)e->u.host_iter);
    }
    td_event o;
    o.dur = e->dur;
    o.name = e->name | ((e->flags & TD_RAW_GPU) ? TD_EV_GPU : 0);
    if (e->flags & TD_RAW_GPU)
        p->gpu++;
    else
        p->cpu++;
    if (e->flags & TD_RAW_HOST) {
        o.iter = (int32_t)e->u.host_iter;
        return o;
    }
    o.iter = e->corr;
    o.name |= EV_PENDING;
    if (e->flags & TD_RAW_STREAM0) {
        o.name |= TD_EV_STREAM0;
        p->stream0++;
    }
    return o;
}

/* Compacts part p's blocks in place: event i of a block is written at byte
 * 16 i, over raw records (24 bytes each) the loop has already read; the
 * block then shrinks. */
static void pass_compact(passes *ps, part *p)
{
    td_file *f = ps->f;
    for (size_t b = p->lo / TD_BLOCK; b * TD_BLOCK < p->hi; b++) {
        td_raw_event *rb = ps->blocks[b];
        td_event *eb = (td_event *)(void *)rb;
        size_t m = p->hi - b * TD_BLOCK < TD_BLOCK ? p->hi - b * TD_BLOCK : TD_BLOCK;
        for (size_t k = 0; k < m; k++) {
            td_raw_event e = rb[k];
            td_event o = compact_event(ps, p, &e, b * TD_BLOCK + k);
            memcpy(&eb[k], &o, sizeof o);
        }
        td_event *shrunk = td_big_shrink(eb, (m ? m : 1) * sizeof *eb);
        f->evb[b] = shrunk ? shrunk : eb;
        ps->blocks[b] = NULL;
    }
}

/* Rule 2, once every launch is in the map: each device event takes the
 * iteration of its launch. */
static void pass_devices(passes *ps, part *p)
{
    td_file *f = ps->f;
    for (size_t i = p->lo; i < p->hi; i++) {
        td_event *o = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        if (!(o->name & EV_PENDING))
            continue;
        o->name &= ~EV_PENDING;
        o->iter = device_iter(ps->cm, event_corr(o->iter, i, ps->wide, ps->nwide));
        if (o->iter == CORR_NO_LAUNCH) {
            o->iter = TD_ITER_NONE;
            p->no_launch++;
            p->no_launch0 += (o->name & TD_EV_STREAM0) != 0;
        }
    }
}

static int run_pass(void *ud, size_t i)
{
    passes *ps = ud;
    ps->pass(ps, &ps->parts[i]);
    return 0;
}

/* Runs pass on every part: on as many threads as parts. */
static void run(passes *ps, pass_fn *pass)
{
    ps->pass = pass;
    if (ps->nparts == 1)
        run_pass(ps, 0);
    else
        td_pool_run(ps->nparts, (int)ps->nparts, run_pass, ps);
}

/* The step number of each name, -1 for names that are not steps. Names
 * repeat: each distinct one is parsed once. */
static int64_t *name_steps(const td_file *f, const void *marker)
{
    size_t nnames = td_strtab_count(f->names);
    int64_t *name_step = malloc((nnames + 1) * sizeof *name_step);
    pcre2_match_data *md =
        marker ? pcre2_match_data_create_from_pattern((const pcre2_code *)marker, NULL) : NULL;
    if (!name_step || (marker && !md)) {
        free(name_step);
        pcre2_match_data_free(md);
        return NULL;
    }
    for (size_t id = 0; id < nnames; id++) {
        size_t len;
        const char *s = td_strtab_get(f->names, (uint32_t)id, &len);
        int64_t v;
        if (marker) /* numbered in time order once the steps are known */
            name_step[id] = pcre2_match(marker, (PCRE2_SPTR)s, len, 0, 0, md, NULL) >= 0 ? 0 : -1;
        else
            name_step[id] = td_step_number(s, len, &v) ? v : -1;
    }
    pcre2_match_data_free(md);
    return name_step;
}

int td_step_marker_compile(void **out, const char *re, td_error *err)
{
    *out = NULL;
    if (!re)
        return 0;
    int code;
    PCRE2_SIZE at;
    pcre2_code *c =
        pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
                      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C,
                      &code, &at, NULL);
    if (!c) {
        PCRE2_UCHAR why[160];
        pcre2_get_error_message(code, why, sizeof why);
        return td_fail(err, TD_EUSAGE, "", "--step-marker '%s': %s at offset %zu", re,
                       (const char *)why, (size_t)at);
    }
    *out = c;
    return 0;
}

void td_step_marker_free(void *marker)
{
    pcre2_code_free((pcre2_code *)marker);
}

static int cmp_step_time(const void *a, const void *b)
{
    const step *x = a, *y = b;
    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->order > y->order) - (x->order < y->order);
}

static int cmp_step_order(const void *a, const void *b)
{
    const step *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

/* A marker's steps: numbered 0, 1, ... by start time (NaN last), back in
 * file order. */
static void number_markers(step *st, size_t ns)
{
    qsort(st, ns, sizeof *st, cmp_step_time);
    for (size_t i = 0; i < ns; i++)
        st[i].n = (int64_t)i;
    qsort(st, ns, sizeof *st, cmp_step_order);
}

/* The parts' steps in file order, and the file's sorted distinct
 * iterations. */
static int gather_steps(td_file *f, passes *ps, step **out, size_t *nout)
{
    size_t ns = 0;
    for (size_t k = 0; k < ps->nparts; k++)
        ns += ps->parts[k].ns;
    step *st = malloc((ns + 1) * sizeof *st);
    f->iters = malloc((ns + 1) * sizeof *f->iters);
    if (!st || !f->iters) {
        free(st);
        return -1;
    }
    ns = 0;
    for (size_t k = 0; k < ps->nparts; k++) {
        if (ps->parts[k].ns)
            memcpy(st + ns, ps->parts[k].st, ps->parts[k].ns * sizeof *st);
        ns += ps->parts[k].ns;
    }
    if (ps->marker)
        number_markers(st, ns);
    f->steps = ns;
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

/* All parts' host ids as one. */
static corr_ids all_ids(const passes *ps)
{
    corr_ids a = ps->parts[0].ids;
    for (size_t k = 1; k < ps->nparts; k++) {
        const corr_ids *b = &ps->parts[k].ids;
        a.n += b->n;
        a.lo = b->lo < a.lo ? b->lo : a.lo;
        a.hi = b->hi > a.hi ? b->hi : a.hi;
        a.wide |= b->wide;
    }
    return a;
}

/* The launches of the parts after the first, in file order; then the
 * counts of the compaction. */
static int finish_compact(td_file *f, passes *ps)
{
    for (size_t k = 0; k < ps->nparts; k++) {
        part *p = &ps->parts[k];
        if (p->oom)
            return -1;
        for (size_t i = 0; i < p->nput; i++)
            corr_put(ps->cm, p->put[i].corr, p->put[i].iter);
        free(p->put);
        p->put = NULL;
        p->nput = 0;
        f->events_cpu += p->cpu;
        f->events_gpu += p->gpu;
        f->events_stream0 += p->stream0;
    }
    return 0;
}

/* Splits the n events into k parts of whole blocks. */
static part *make_parts(size_t n, size_t *k)
{
    size_t nb = (n + TD_BLOCK - 1) / TD_BLOCK;
    if (*k > nb)
        *k = nb ? nb : 1;
    part *parts = calloc(*k, sizeof *parts);
    for (size_t r = 0; parts && r < *k; r++) {
        size_t lo = nb * r / *k * TD_BLOCK, hi = nb * (r + 1) / *k * TD_BLOCK;
        parts[r].lo = lo < n ? lo : n;
        parts[r].hi = hi < n ? hi : n;
    }
    return parts;
}

/* The breakdown's steps (host events only) and span (model/bd_collect.h). */
static int keep_steps(passes *ps, const step *st, size_t ns)
{
    td_raw_event **blocks = ps->blocks;
    for (size_t k = 0; k < ps->nparts; k++)
        td_bd_span(ps->f->bd, ps->parts[k].tlo, ps->parts[k].thi);
    for (size_t i = 0; i < ns; i++)
        if (!(RAW(st[i].order)->flags & TD_RAW_GPU) &&
            td_bd_add_step(ps->f->bd, st[i].start, st[i].end, st[i].n) < 0)
            return -1;
    return 0;
}

/* Steps (§3) and the segments of the sweep; NULL when out of memory. */
static seg *steps_and_segments(td_file *f, passes *ps, size_t *nseg)
{
    int64_t *name_step = name_steps(f, ps->marker);
    if (!name_step)
        return NULL;
    ps->name_step = name_step;
    run(ps, pass_steps);
    free(name_step);
    ps->name_step = NULL;
    step *st = NULL;
    size_t ns = 0;
    for (size_t k = 0; k < ps->nparts; k++)
        if (ps->parts[k].oom)
            return NULL;
    if (gather_steps(f, ps, &st, &ns) < 0)
        return NULL;
    f->span_lo = INFINITY;
    f->span_hi = -INFINITY;
    for (size_t k = 0; k < ps->nparts; k++) {
        f->span_lo = ps->parts[k].tlo < f->span_lo ? ps->parts[k].tlo : f->span_lo;
        f->span_hi = ps->parts[k].thi > f->span_hi ? ps->parts[k].thi : f->span_hi;
    }
    f->has_span = f->span_hi >= f->span_lo;
    if (f->bd && keep_steps(ps, st, ns) < 0) {
        free(st);
        return NULL;
    }
    /* NaN bounds never contain anything: leave such steps out of the sweep. */
    size_t kept = 0;
    for (size_t i = 0; i < ns; i++)
        if (!isnan(st[i].start) && !isnan(st[i].end))
            st[kept++] = st[i];
    seg *sg = build_segments(f, st, kept, nseg);
    free(st);
    return sg;
}

/* The sweep kept in f (step_at, step_iter) for td_file_step_iter. */
static int keep_sweep(td_file *f, const seg *sg, size_t nseg)
{
    free(f->step_at);
    free(f->step_iter);
    f->nstep_seg = 0;
    f->step_at = malloc((nseg + 1) * sizeof *f->step_at);
    f->step_iter = malloc((nseg + 1) * sizeof *f->step_iter);
    if (!f->step_at || !f->step_iter)
        return -1;
    for (size_t k = 0; k < nseg; k++) {
        f->step_at[k] = sg[k].at;
        f->step_iter[k] = sg[k].iter;
    }
    f->nstep_seg = nseg;
    return 0;
}

int32_t td_file_step_iter(const td_file *f, double ts)
{
    size_t n = f->nstep_seg;
    if (n == 0 || !(ts >= f->step_at[0]))
        return TD_ITER_NONE;
    size_t lo = 0, hi = n; /* last segment with at <= ts */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->step_at[mid] <= ts)
            lo = mid;
        else
            hi = mid;
    }
    return f->step_iter[lo];
}

int td_assign_iterations(td_file *f, td_raw_event **blocks, size_t n, const td_wide_corr *wide,
                         size_t nwide, int round_ts, int threads, const void *marker, td_error *err)
{
    corr_map cm = {0};
    seg *sg = NULL;
    size_t nb = (n + TD_BLOCK - 1) / TD_BLOCK;
    size_t nparts = threads > 1 ? (size_t)threads : 1;
    part *parts = make_parts(n, &nparts);
    passes ps = {f, blocks, round_ts, NULL, marker, NULL, 0, &cm, wide, nwide, parts, nparts, NULL};
    int rc = -1;
    if (round_ts && !(f->rdelta = malloc((n + 1) * sizeof *f->rdelta)))
        goto done;
    if (!parts || !(sg = steps_and_segments(f, &ps, &ps.nseg)))
        goto done;
    ps.sg = sg;
    if (keep_sweep(f, sg, ps.nseg) < 0)
        goto done;
    corr_ids ids = all_ids(&ps);
    if (corr_plan(&ps, &ids) < 0)
        goto done;
    run(&ps, pass_host);
    if (corr_init(&ps, &ids) < 0)
        goto done;
    if (!(f->evb = calloc(nb + 1, sizeof *f->evb)))
        goto done;
    f->evb_big = true; /* the loader's blocks, from td_big_alloc */
    run(&ps, pass_compact);
    f->nevb = nb;
    f->nev = n;
    if (finish_compact(f, &ps) < 0)
        goto done;
    run(&ps, pass_devices);
    for (size_t k = 0; k < nparts; k++) {
        f->events_no_launch += parts[k].no_launch;
        f->events_no_launch0 += parts[k].no_launch0;
    }
    rc = 0;
done:
    for (size_t b = 0; rc < 0 && b < nb; b++) {
        td_big_free(blocks[b]); /* not compacted: nobody else frees them */
        blocks[b] = NULL;
    }
    for (size_t k = 0; parts && k < nparts; k++) {
        free(parts[k].st);
        free(parts[k].put);
        free(parts[k].mark);
    }
    free(parts);
    free(sg);
    corr_free(&cm);
    return rc < 0 ? td_fail(err, TD_ENOMEM, f->path, "out of memory") : 0;
}
