/*
 * Attribution (docs/attribution.md): each gpu-side event is linked to its
 * launch (the host side of its correlation id, as for iterations, spec §3.2)
 * and the launch to the cpu ops and user annotation around it on its thread.
 *
 * The ops, annotations and launches of a thread are swept in time order with
 * a stack of ops whose start is behind the sweep; an op that ended before the
 * sweep position is dropped from the top. Innermost is the latest start
 * (ties: shorter, then later in the file): the first op from the top that
 * covers the launch. Outermost is the first from the bottom.
 */
#include "model/load.h"
#include "model/run_sort.h"
#include "util/bigmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    R_HOST_EVENT = TD_ATTR_HOST_EVENT,
    R_NO_CORR = TD_ATTR_NO_CORR,
    R_NO_LAUNCH = TD_ATTR_NO_LAUNCH,
    R_NO_OP = TD_ATTR_NO_OP,
    R_COUNT = TD_ATTR_NREASONS
};

/* 32 bytes: a record of every op, annotation and launch is written, sorted
 * and read again. */
typedef struct sweep_rec {
    double ts, end;
    uint32_t thr;  /* the link's thread number, in (pid, tid) order */
    uint32_t idx;  /* link index */
    uint32_t kind; /* TD_LINK_OP / ANN / LAUNCH */
    uint32_t cpu;  /* a TD_LINK_CPU link's place among them (td_file.stk_cpu), else TD_ATTR_NONE */
} sweep_rec;

static int cmp_sweep(const void *a, const void *b)
{
    const sweep_rec *x = a, *y = b;
    if (x->thr != y->thr)
        return x->thr < y->thr ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    /* At one start: ops and annotations before launches, longer first. */
    int xl = (x->kind & (TD_LINK_OP | TD_LINK_ANN | TD_LINK_PY)) == 0,
        yl = (y->kind & (TD_LINK_OP | TD_LINK_ANN | TD_LINK_PY)) == 0;
    if (xl != yl)
        return xl - yl;
    double dx = x->end - x->ts, dy = y->end - y->ts;
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static inline int cmp_sweep_ctx(const void *ctx, const sweep_rec *x, const sweep_rec *y)
{
    (void)ctx;
    return cmp_sweep(x, y);
}

TD_RUN_SORT(sort_sweep, sweep_rec, cmp_sweep_ctx)

typedef struct stack {
    const sweep_rec **v;
    size_t n;
} stack;

/* Drops ended entries from the top, then pushes r. */
static void stack_push(stack *s, const sweep_rec *r)
{
    while (s->n > 0 && s->v[s->n - 1]->end < r->ts)
        s->n--;
    s->v[s->n++] = r;
}

/* Innermost (from the top) or outermost (from the bottom) entry covering
 * [ts, end]; NULL if none. */
static const sweep_rec *stack_find(const stack *s, double ts, double end, int outer)
{
    for (size_t k = 0; k < s->n; k++) {
        const sweep_rec *o = s->v[outer ? k : s->n - 1 - k];
        if (o->ts <= ts && o->end >= end)
            return o;
    }
    return NULL;
}

static bool is_step_name(const td_file *f, uint32_t name)
{
    size_t len;
    const char *s = td_strtab_get(f->names, name, &len);
    return len >= 12 && memcmp(s, "ProfilerStep", 12) == 0;
}

/* Per launch (link index): op, top op, annotation; reason when no op;
 * call, topc, annc: the link index of the innermost op call, of the
 * outermost op call and of the annotation (TD_ATTR_NONE: none). */
typedef struct launch_res {
    uint32_t op, top, ann, call, topc, annc;
    uint32_t node; /* the stack's innermost frame (td_file.stk_of) */
} launch_res;

/* A wait (waits[] of a launch): its time goes to every op around it. */
static void add_wait(const stack *ops, const sweep_rec *r, const uint32_t *id, double *opwait)
{
    for (size_t k = 0; k < ops->n; k++) {
        const sweep_rec *o = ops->v[k];
        if (o->ts <= r->ts && o->end >= r->end)
            opwait[id[o->idx]] += r->end - r->ts;
    }
}

/* The stacks (docs/stacks.md), when asked for: every cpu_op, user
 * annotation and python_function of a thread on one stack of its own;
 * node[] per link index the frame's tree node, and per launch the node of
 * the innermost of them that contains it whole. */
typedef struct frames {
    stack all;
    td_stk_tree tree;
    uint32_t *node; /* per link index */
    int failed;
} frames;

#define FRAME_KINDS (TD_LINK_OP | TD_LINK_ANN | TD_LINK_PY)

/* The node of the innermost frame that contains r whole (one that ends
 * before it does is not around it: docs/stacks.md): a launch's stack, a
 * cpu-side event's, and the parent of a frame's own node, which is pushed. */
static void frame_step(frames *fr, td_file *f, const td_link *links, const sweep_rec *r,
                       launch_res *res)
{
    const sweep_rec *in = stack_find(&fr->all, r->ts, r->end, 0);
    uint32_t up = in ? fr->node[in->idx] : TD_ATTR_NONE;
    if (r->kind & TD_LINK_LAUNCH)
        res[r->idx].node = up;
    if (r->cpu < f->nstk_cpu)
        f->stk_cpu[r->cpu] = up;
    if (!(r->kind & FRAME_KINDS))
        return;
    uint32_t n = td_stk_node(&fr->tree, up, links[r->idx].name);
    fr->failed |= n == UINT32_MAX;
    fr->node[r->idx] = n;
    stack_push(&fr->all, r);
}

static void sweep(td_file *f, const td_link *links, sweep_rec *rec, size_t nrec,
                  const sweep_rec **ops_v, const sweep_rec **ann_v, launch_res *res,
                  const bool *waits, double *opwait, const uint32_t *id, uint32_t *op_parent,
                  frames *fr)
{
    stack ops = {ops_v, 0}, ann = {ann_v, 0};
    for (size_t i = 0; i < nrec; i++) {
        const sweep_rec *r = &rec[i];
        if (i == 0 || r->thr != rec[i - 1].thr) {
            ops.n = ann.n = 0;
            if (fr)
                fr->all.n = 0;
        }
        if (fr && (r->kind & (TD_LINK_LAUNCH | TD_LINK_CPU | FRAME_KINDS)))
            frame_step(fr, f, links, r, res);
        if (r->kind & TD_LINK_OP) {
            const sweep_rec *up = stack_find(&ops, r->ts, r->end, 0);
            op_parent[id[r->idx]] = up ? id[up->idx] : TD_ATTR_NONE;
            stack_push(&ops, r);
        }
        if ((r->kind & TD_LINK_ANN) && !is_step_name(f, links[r->idx].name))
            stack_push(&ann, r);
        if (!(r->kind & TD_LINK_LAUNCH))
            continue;
        if (waits[r->idx])
            add_wait(&ops, r, id, opwait);
        launch_res *lr = &res[r->idx];
        const sweep_rec *in = stack_find(&ops, r->ts, r->end, 0);
        const sweep_rec *out = stack_find(&ops, r->ts, r->end, 1);
        const sweep_rec *an = stack_find(&ann, r->ts, r->end, 0);
        lr->op = in ? links[in->idx].name : TD_ATTR_REASON(R_NO_OP);
        lr->top = out ? links[out->idx].name : TD_ATTR_REASON(R_NO_OP);
        lr->ann = an ? links[an->idx].name : TD_ATTR_NONE;
        lr->call = in ? in->idx : TD_ATTR_NONE;
        lr->topc = out ? out->idx : TD_ATTR_NONE;
        lr->annc = an ? an->idx : TD_ATTR_NONE;
    }
}

/* Correlation id -> link index of its launch (the last in the file).
 * Kineto numbers correlations densely: then an array indexed by id - lo
 * (4 bytes a slot, no more than 4 slots a launch). Ids dense in runs with
 * gaps between them (several captures, or files made of copies, whose ids
 * are offset): the same array cut in pages of CMAP_PAGE slots, only those
 * the ids fall in allocated, written in file order as the ids rise. Else
 * a hash. */
typedef struct cmap {
    int64_t *key;  /* NULL: dense or paged */
    uint32_t *val; /* the hash's values, the dense array, or the pages */
    uint32_t *dir; /* paged: per page of the span, its page in val, or TD_ATTR_NONE */
    size_t cap;    /* hash slots, or the dense span */
    size_t npage;  /* paged: the pages in use */
    int64_t lo;
} cmap;

#define CMAP_PAGE_BITS 10
#define CMAP_PAGE ((size_t)1 << CMAP_PAGE_BITS)
#define CMAP_EMPTY INT64_MIN

static size_t cmap_slot(const cmap *m, int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    size_t i = h & (m->cap - 1);
    while (m->key[i] != CMAP_EMPTY && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* The link index of corr's launch, or TD_ATTR_NONE. */
static uint32_t cmap_get(const cmap *m, int64_t corr)
{
    if (corr == CMAP_EMPTY)
        return TD_ATTR_NONE;
    if (!m->key) {
        uint64_t s = (uint64_t)corr - (uint64_t)m->lo;
        if (s >= m->cap)
            return TD_ATTR_NONE;
        if (!m->dir)
            return m->val[s];
        uint32_t p = m->dir[s >> CMAP_PAGE_BITS];
        return p == TD_ATTR_NONE ? TD_ATTR_NONE
                                 : m->val[(size_t)p << CMAP_PAGE_BITS | (s & (CMAP_PAGE - 1))];
    }
    size_t s = cmap_slot(m, corr);
    return m->key[s] == corr ? m->val[s] : TD_ATTR_NONE;
}

/* Waiting for the device (docs/stats.md, "Waits"): a synchronize call, or
 * a launch whose device event copies device memory to the host. */
static bool has_prefix(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

static bool contains(const char *s, size_t len, const char *w)
{
    size_t n = strlen(w);
    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(s + i, w, n) == 0)
            return true;
    return false;
}

bool td_is_sync_name(const char *s, size_t len)
{
    return (has_prefix(s, len, "cuda") || has_prefix(s, len, "hip") || has_prefix(s, len, "cu")) &&
           contains(s, len, "Synchronize");
}

static bool is_dtoh_name(const char *s, size_t len)
{
    return has_prefix(s, len, "Memcpy DtoH") || contains(s, len, "CopyDeviceToHost");
}

/* What a name says about waiting (find_waits), worked out once per name. */
enum { NAME_SEEN = 1, NAME_SYNC = 2, NAME_DTOH = 4 };

static unsigned name_waits(const td_file *f, uint8_t *memo, size_t nmemo, uint32_t name)
{
    if (name < nmemo && memo[name])
        return memo[name];
    size_t len;
    const char *s = td_strtab_get(f->names, name, &len);
    unsigned w = NAME_SEEN | (td_is_sync_name(s, len) ? NAME_SYNC : 0) |
                 (is_dtoh_name(s, len) ? NAME_DTOH : 0);
    if (name < nmemo)
        memo[name] = (uint8_t)w;
    return w;
}

/* The two passes over the links before the sweep: count_links counts what
 * the arrays need (and rounds the times, spec §2), fill_links writes them
 * (the sweep records, the op calls, the launches' map and waits). The
 * records of a thread go in buckets by kind, in this order: annotations,
 * python frames, the rest (launches, other cpu-side events), ops. Kineto
 * writes a thread's ops in time order and its runtime calls in a few runs
 * of it, between the ops: sorted by bucket, then merged, the records take
 * a few merges of the runtime calls and one of the whole thread, where the
 * runs of the whole thread in file order took a dozen merges. */
enum { B_ANN, B_PY, B_REST, B_OP, NB };

#define REC_KINDS (FRAME_KINDS | TD_LINK_LAUNCH | TD_LINK_CPU)

typedef struct scan {
    size_t nrec, nops, nlaunch, nthr;
    size_t idruns;  /* runs of launches whose ids share a CMAP_PAGE-aligned page */
    bool finite;    /* every record's start and end finite (cmp_sweep: a strict total order) */
    int64_t lo, hi; /* the launches' correlation ids */
    size_t *end;    /* per (thread, bucket) b, at b + 1: its count, then where it ends; NULL
                     * when not finite (the records in file order, for qsort) */
    size_t nend;    /* buckets end holds */
    int64_t *dtoh;  /* the correlation ids of the gpu-side copies to the host */
    size_t ndtoh, dtohcap;
} scan;

static size_t bucket_of(const td_link *l, uint32_t kind)
{
    size_t b = kind & TD_LINK_OP    ? B_OP
               : kind & TD_LINK_ANN ? B_ANN
               : kind & TD_LINK_PY  ? B_PY
                                    : B_REST;
    return (size_t)l->thr * NB + b;
}

static int count_bucket(scan *s, size_t b)
{
    if (b >= s->nend) {
        size_t nn = s->nend ? s->nend : 16 * NB, had = s->end ? s->nend + 1 : 0;
        while (nn <= b)
            nn *= 2;
        size_t *ne = realloc(s->end, (nn + 1) * sizeof *ne);
        if (!ne)
            return -1;
        memset(ne + had, 0, (nn + 1 - had) * sizeof *ne);
        s->end = ne;
        s->nend = nn;
    }
    s->end[b + 1]++;
    return 0;
}

/* The first pass: 0, or -1 when out of memory. */
static int count_links(scan *s, td_link *links, size_t n, int round_ts)
{
    bool fin = true;
    s->lo = INT64_MAX;
    s->hi = INT64_MIN;
    uint64_t page = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        td_link *l = &links[i];
        if (round_ts) {
            double end = floor(l->ts + l->dur);
            l->ts = ceil(l->ts);
            l->dur = end - l->ts;
        }
        if ((l->kind & TD_LINK_LAUNCH) && l->corr != CMAP_EMPTY) {
            s->nlaunch++;
            s->idruns += (uint64_t)l->corr >> CMAP_PAGE_BITS != page;
            page = (uint64_t)l->corr >> CMAP_PAGE_BITS;
            s->lo = l->corr < s->lo ? l->corr : s->lo;
            s->hi = l->corr > s->hi ? l->corr : s->hi;
        }
        uint32_t kind = l->kind & REC_KINDS;
        if (!kind || isnan(l->ts) || isnan(l->dur))
            continue; /* a launch without a time stays outside every op */
        s->nops += (kind & TD_LINK_OP) != 0;
        fin = fin && isfinite(l->ts) && isfinite(l->ts + l->dur);
        s->nthr = l->thr >= s->nthr ? (size_t)l->thr + 1 : s->nthr;
        s->nrec++;
        if (count_bucket(s, bucket_of(l, kind)) < 0)
            return -1;
    }
    s->finite = fin;
    if (!fin) { /* an infinite start or end: the order qsort makes of NaN */
        free(s->end);
        s->end = NULL;
    }
    for (size_t b = 1; s->end && b <= s->nthr * NB; b++)
        s->end[b] += s->end[b - 1]; /* where each bucket starts */
    return 0;
}

/* The paged map (cmap), when its pages and their directory take no more
 * than the hash would at most (32 bytes a launch): 1, 0 when not worth it,
 * or -1. The span starts at a page's start: the pages that hold ids are no
 * more than the runs of ids in one page (count_links). */
static int cmap_alloc_paged(cmap *m, const scan *s)
{
    size_t count = s->nlaunch;
    int64_t lo = (int64_t)((uint64_t)s->lo & ~(uint64_t)(CMAP_PAGE - 1));
    uint64_t span = (uint64_t)s->hi - (uint64_t)lo;
    uint64_t dirs = (span >> CMAP_PAGE_BITS) + 1, pages = s->idruns < dirs ? s->idruns : dirs;
    if (dirs * sizeof *m->dir > 8 * (uint64_t)count ||
        pages * CMAP_PAGE * sizeof *m->val > 32 * (uint64_t)count)
        return 0;
    m->lo = lo;
    m->cap = (size_t)span + 1;
    m->dir = td_scratch_alloc((size_t)dirs * sizeof *m->dir);
    m->val = td_scratch_alloc((size_t)pages * CMAP_PAGE * sizeof *m->val);
    if (!m->dir || !m->val)
        return -1;
    memset(m->dir, 0xFF, (size_t)dirs * sizeof *m->dir);
    return 1;
}

/* Correlation id -> launch, sized from the first pass: 0, or -1. Kineto
 * numbers correlations densely: then an array indexed by id - lo. */
static int cmap_alloc(cmap *m, const scan *s)
{
    size_t count = s->nlaunch;
    uint64_t span = (uint64_t)s->hi - (uint64_t)s->lo;
    if (count && span < 4 * (uint64_t)count) {
        m->lo = s->lo;
        m->cap = (size_t)span + 1;
        if (!(m->val = td_scratch_alloc(m->cap * sizeof *m->val)))
            return -1;
        memset(m->val, 0xFF, m->cap * sizeof *m->val); /* TD_ATTR_NONE */
        return 0;
    }
    int rc = count ? cmap_alloc_paged(m, s) : 0;
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    m->cap = 16;
    while (m->cap < count + count / 3 + 1)
        m->cap *= 2;
    m->key = td_scratch_alloc(m->cap * sizeof *m->key);
    m->val = td_scratch_alloc(m->cap * sizeof *m->val);
    if (!m->key || !m->val)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        m->key[i] = CMAP_EMPTY;
    return 0;
}

/* corr's launch is link i (the last in the file wins). */
static void cmap_put(cmap *m, int64_t corr, uint32_t i)
{
    if (!m->key) {
        uint64_t s = (uint64_t)corr - (uint64_t)m->lo;
        if (m->dir) {
            uint32_t *p = &m->dir[s >> CMAP_PAGE_BITS];
            if (*p == TD_ATTR_NONE) { /* a page the ids reach first: all empty */
                *p = (uint32_t)m->npage++;
                memset(m->val + (size_t)*p * CMAP_PAGE, 0xFF, CMAP_PAGE * sizeof *m->val);
            }
            s = (size_t)*p << CMAP_PAGE_BITS | (s & (CMAP_PAGE - 1));
        }
        m->val[s] = i;
        return;
    }
    size_t s = cmap_slot(m, corr);
    m->key[s] = corr;
    m->val[s] = i;
}

/* The arrays fill_links writes. */
typedef struct fill {
    sweep_rec *rec;
    uint32_t *id; /* per link index: its op call number, TD_ATTR_NONE when none */
    bool *waits;  /* per link index: a launch that waits for the device */
    cmap m;
    uint8_t *memo; /* per name: name_waits */
    size_t nmemo;
} fill;

/* Waiting for the device (docs/stats.md, "Waits"): a launch whose name is
 * a synchronize call waits; a gpu-side copy to the host makes its launch
 * wait, once every launch is in the map (resolve_dtoh). 0, or -1. */
static int link_waits(scan *s, const td_file *f, fill *w, const td_link *l, size_t i)
{
    if ((l->kind & TD_LINK_LAUNCH) && (name_waits(f, w->memo, w->nmemo, l->name) & NAME_SYNC))
        w->waits[i] = true;
    bool gpu = (l->kind & TD_LINK_GPU) && !(l->kind & TD_LINK_HOST) && l->corr != CMAP_EMPTY &&
               l->corr != -1;
    if (!gpu || !(name_waits(f, w->memo, w->nmemo, l->name) & NAME_DTOH))
        return 0;
    int64_t *nd = td_grow(s->dtoh, &s->dtohcap, s->ndtoh + 1, sizeof *nd);
    if (!nd)
        return -1;
    s->dtoh = nd;
    s->dtoh[s->ndtoh++] = l->corr;
    return 0;
}

static void resolve_dtoh(const scan *s, fill *w)
{
    for (size_t k = 0; k < s->ndtoh; k++) {
        uint32_t launch = cmap_get(&w->m, s->dtoh[k]);
        if (launch != TD_ATTR_NONE)
            w->waits[launch] = true;
    }
}

/* The second pass: 0, or -1 when out of memory. The k-th TD_LINK_CPU link
 * is the k-th cpu-side event (f->stk_cpu), as the k-th TD_LINK_GPU link is
 * the k-th gpu-side one; one without a time is under no frame. */
static int fill_links(scan *s, td_file *f, fill *w, const td_link *links, const uint32_t *shape,
                      size_t n)
{
    size_t nops = 0, at = 0;
    uint32_t ncpu = 0;
    for (size_t i = 0; i < n; i++) {
        const td_link *l = &links[i];
        if ((l->kind & TD_LINK_LAUNCH) && l->corr != CMAP_EMPTY)
            cmap_put(&w->m, l->corr, (uint32_t)i);
        if ((l->kind & (TD_LINK_LAUNCH | TD_LINK_GPU)) && link_waits(s, f, w, l, i) < 0)
            return -1;
        uint32_t cpu = (l->kind & TD_LINK_CPU) ? ncpu++ : TD_ATTR_NONE;
        uint32_t kind = l->kind & REC_KINDS;
        w->id[i] = TD_ATTR_NONE;
        if (!kind || isnan(l->ts) || isnan(l->dur)) {
            if (cpu < f->nstk_cpu)
                f->stk_cpu[cpu] = TD_ATTR_NONE;
            continue;
        }
        if (kind & TD_LINK_OP) {
            w->id[i] = (uint32_t)nops;
            f->op_name[nops] = l->name;
            f->op_parent[nops] = TD_ATTR_NONE;
            if (f->op_shape)
                f->op_shape[nops] = shape ? shape[i] : TD_ATTR_NONE;
            nops++;
        }
        size_t to = s->end ? s->end[bucket_of(l, kind)]++ : at++;
        w->rec[to] = (sweep_rec){l->ts, l->ts + l->dur, l->thr, (uint32_t)i, kind, cpu};
    }
    for (size_t k = ncpu; k < f->nstk_cpu; k++)
        f->stk_cpu[k] = TD_ATTR_NONE;
    resolve_dtoh(s, w);
    return 0;
}

/* The records in sweep order: each thread's buckets but its ops, its ops,
 * then the two merged (sort_sweep finds the runs); qsort's order when some
 * time is not finite. 0, or -1 when out of memory. */
static int sort_records(const scan *s, sweep_rec *rec, sweep_rec *tmp)
{
    if (!s->finite) {
        qsort(rec, s->nrec, sizeof *rec, cmp_sweep);
        return 0;
    }
    for (size_t t = 0; t < s->nthr; t++) {
        size_t b = t * NB, at = b ? s->end[b - 1] : 0, ops = s->end[b + B_REST],
               to = s->end[b + B_OP];
        if (sort_sweep_in(rec + at, ops - at, NULL, tmp) < 0 ||
            sort_sweep_in(rec + ops, to - ops, NULL, tmp) < 0 ||
            sort_sweep_in(rec + at, to - at, NULL, tmp) < 0)
            return -1;
    }
    return 0;
}

/* A gpu-side event's attribution, the k-th: its launch's, else why none
 * (its link index stands for an op call's number in attr_call until
 * here). A launch without a time is under no op. */
static void attribute_one(td_file *f, size_t k, const td_link *l, const td_link *links,
                          const cmap *m, const launch_res *res, const uint32_t *id)
{
    uint32_t reason = TD_ATTR_NONE, launch = TD_ATTR_NONE;
    if (l->kind & TD_LINK_HOST)
        reason = TD_ATTR_REASON(R_HOST_EVENT);
    else if (l->corr == -1)
        reason = TD_ATTR_REASON(R_NO_CORR);
    if (reason == TD_ATTR_NONE && (launch = cmap_get(m, l->corr)) == TD_ATTR_NONE)
        reason = TD_ATTR_REASON(R_NO_LAUNCH);
    const launch_res none = {TD_ATTR_REASON(R_NO_OP),
                             TD_ATTR_REASON(R_NO_OP),
                             TD_ATTR_NONE,
                             TD_ATTR_NONE,
                             TD_ATTR_NONE,
                             TD_ATTR_NONE,
                             TD_ATTR_NONE};
    const launch_res *lr = &none;
    if (reason == TD_ATTR_NONE && !isnan(links[launch].ts) && !isnan(links[launch].dur))
        lr = &res[launch];
    if (f->stk_of)
        f->stk_of[k] = reason != TD_ATTR_NONE ? TD_ATTR_NONE : lr->node;
    if (reason != TD_ATTR_NONE) {
        f->attr_op[k] = f->attr_top[k] = reason;
        f->attr_ann[k] = f->attr_call[k] = TD_ATTR_NONE;
        f->attr_topc[k] = f->attr_annc[k] = TD_ATTR_NONE;
        return;
    }
    f->attr_op[k] = lr->op;
    f->attr_top[k] = lr->top;
    f->attr_ann[k] = lr->ann;
    f->attr_call[k] = lr->call != TD_ATTR_NONE ? id[lr->call] : TD_ATTR_NONE;
    f->attr_topc[k] = lr->topc;
    f->attr_annc[k] = lr->annc;
}

/* After the sweep, one pass in file order: every gpu-side event's
 * attribution (those without a link of their own, f->events_gpu counting
 * more than the links hold, are attributed to none rather than left
 * unwritten), and per name its ops' total duration and the part of it
 * inside waits. 0, or -1 when out of memory. */
static int finish_links(td_file *f, const td_link *links, size_t n, const cmap *m,
                        const launch_res *res, const uint32_t *id, const double *opwait)
{
    size_t nn = td_strtab_count(f->names), ng = f->events_gpu, k = 0;
    f->wait_in = calloc(nn + 1, sizeof *f->wait_in);
    f->wait_of = calloc(nn + 1, sizeof *f->wait_of);
    if (!f->wait_in || !f->wait_of)
        return -1;
    f->nwait = nn;
    for (size_t i = 0; i < n; i++) {
        const td_link *l = &links[i];
        if (id[i] != TD_ATTR_NONE && l->name < nn) {
            double w = opwait[id[i]];
            f->wait_of[l->name] += l->dur;
            f->wait_in[l->name] += w < l->dur ? w : l->dur;
        }
        if ((l->kind & TD_LINK_GPU) && k < ng)
            attribute_one(f, k++, l, links, m, res, id);
    }
    for (; k < ng; k++) {
        f->attr_op[k] = f->attr_top[k] = f->attr_ann[k] = TD_ATTR_NONE;
        f->attr_call[k] = f->attr_topc[k] = f->attr_annc[k] = TD_ATTR_NONE;
        if (f->stk_of)
            f->stk_of[k] = TD_ATTR_NONE;
    }
    f->nattr = ng;
    return 0;
}

int td_roof_times(td_file *f, const td_link *links, size_t n, bool any_gpu, td_error *err)
{
    size_t ng = f->events_gpu, k = 0;
    f->roof_ts = malloc((ng + 1) * sizeof *f->roof_ts);
    f->roof_end = malloc((ng + 1) * sizeof *f->roof_end);
    if (!f->roof_ts || !f->roof_end)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    for (size_t i = 0; i < n && k < ng; i++) {
        const td_link *l = &links[i];
        if (!(l->kind & TD_LINK_GPU))
            continue;
        bool ok = (any_gpu || (l->kind & TD_LINK_KCAT)) && !(l->kind & TD_LINK_HOST) &&
                  isfinite(l->ts) && isfinite(l->dur);
        f->roof_ts[k] = ok ? l->ts : NAN;
        f->roof_end[k] = ok ? l->ts + l->dur : NAN;
        k++;
    }
    for (; k < ng; k++)
        f->roof_ts[k] = f->roof_end[k] = NAN;
    f->nroof = ng;
    return 0;
}

/* An array of the file's that the passes write whole: its pages put in at
 * once (a fault each costs more than the writes on a virtual machine). */
static void *whole(size_t count, size_t size)
{
    return td_populate(malloc(count * size), count * size);
}

/* The stacks' arrays and the sweep's own (docs/stacks.md): 0 or -1.
 * stk_of and stk_cpu are written whole by the passes over the links. */
static int frames_init(frames *fr, td_file *f, size_t n, size_t nrec)
{
    memset(fr, 0, sizeof *fr);
    fr->all.v = malloc((nrec + 1) * sizeof *fr->all.v);
    fr->node = td_scratch_alloc((n + 1) * sizeof *fr->node);
    f->stk_of = whole(f->events_gpu + 1, sizeof *f->stk_of);
    f->stk_cpu = whole(f->events_cpu + 1, sizeof *f->stk_cpu);
    if (td_stk_init(&fr->tree, f) < 0 || !fr->all.v || !fr->node || !f->stk_of || !f->stk_cpu)
        return -1;
    f->nstk_cpu = f->events_cpu;
    return 0;
}

static void frames_free(frames *fr)
{
    free(fr->all.v);
    td_scratch_free(fr->node);
    td_stk_done(&fr->tree);
}

/* The file's attribution arrays, one entry per gpu-side event, and its op
 * calls' (numbered in file order: names, shapes; their parents are set by
 * the sweep): 0 or -1. */
static int attr_alloc(td_file *f, size_t ng, size_t nops)
{
    f->attr_call = whole(ng + 1, sizeof *f->attr_call);
    f->attr_topc = whole(ng + 1, sizeof *f->attr_topc);
    f->attr_annc = whole(ng + 1, sizeof *f->attr_annc);
    f->attr_op = whole(ng + 1, sizeof *f->attr_op);
    f->attr_top = whole(ng + 1, sizeof *f->attr_top);
    f->attr_ann = whole(ng + 1, sizeof *f->attr_ann);
    f->op_name = whole(nops + 1, sizeof *f->op_name);
    f->op_parent = whole(nops + 1, sizeof *f->op_parent);
    if (f->shapes && !(f->op_shape = whole(nops + 1, sizeof *f->op_shape)))
        return -1;
    f->nops = nops;
    return f->attr_op && f->attr_top && f->attr_ann && f->attr_call && f->attr_topc &&
                   f->attr_annc && f->op_name && f->op_parent
               ? 0
               : -1;
}

int td_attribute(td_file *f, td_link *links, const uint32_t *shape, size_t n, int round_ts,
                 bool stacks, td_error *err)
{
    int rc = -1;
    scan s;
    memset(&s, 0, sizeof s);
    fill w = {0};
    frames fr;
    if (n > UINT32_MAX)
        return td_fail(err, TD_ETRACE, f->path, "too many events for attribution");
    if (count_links(&s, links, n, round_ts) < 0)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    /* Written whole: their pages mapped at once, and kept for the next
     * file (model/link_mem.c); the stacks and the waits are touched sparsely. */
    w.rec = td_scratch_alloc((s.nrec + 1) * sizeof *w.rec);
    const sweep_rec **sv = malloc((2 * s.nrec + 2) * sizeof *sv);
    /* The merge sort's buffer, then the launches' results: one set of pages. */
    size_t one = sizeof(sweep_rec) > sizeof(launch_res) ? sizeof(sweep_rec) : sizeof(launch_res);
    void *scratch = td_scratch_alloc((n + 1) * one);
    launch_res *res = scratch;
    w.waits = calloc(n + 1, sizeof *w.waits);
    double *opwait = NULL;
    w.id = td_scratch_alloc((n + 1) * sizeof *w.id);
    w.nmemo = td_strtab_count(f->names);
    w.memo = calloc(w.nmemo + 1, 1);
    bool fr_ok = !stacks || frames_init(&fr, f, n, s.nrec) == 0;
    if (!fr_ok || !w.rec || !sv || !res || !w.waits || !w.id || !w.memo ||
        attr_alloc(f, f->events_gpu, s.nops) < 0 || cmap_alloc(&w.m, &s) < 0 ||
        fill_links(&s, f, &w, links, shape, n) < 0 || sort_records(&s, w.rec, scratch) < 0 ||
        !(opwait = td_scratch_alloc((s.nops + 1) * sizeof *opwait)))
        goto done;
    memset(opwait, 0, (s.nops + 1) * sizeof *opwait);
    sweep(f, links, w.rec, s.nrec, sv, sv + s.nrec + 1, res, w.waits, opwait, w.id, f->op_parent,
          stacks ? &fr : NULL);
    if ((stacks && fr.failed) || finish_links(f, links, n, &w.m, res, w.id, opwait) < 0)
        goto done;
    f->has_attr = 1;
    rc = 0;
done:
    free(s.end);
    free(s.dtoh);
    td_scratch_free(w.rec);
    free(sv);
    td_scratch_free(scratch);
    free(w.waits);
    free(w.memo);
    td_scratch_free(opwait);
    td_scratch_free(w.id);
    td_scratch_free(w.m.key);
    td_scratch_free(w.m.val);
    td_scratch_free(w.m.dir);
    if (stacks)
        frames_free(&fr);
    return rc < 0 ? td_fail(err, TD_ENOMEM, f->path, "out of memory") : 0;
}

const char *td_attr_reason_name(td_attr_reason reason)
{
    static const char *const names[R_COUNT] = {"host event on a gpu stream", "no correlation id",
                                               "no launch found", "launch outside any op"};
    return (int)reason >= 0 && (int)reason < R_COUNT ? names[reason] : "unknown";
}

int td_set_attr_stats(const td_set *set, td_attr_stats *out)
{
    memset(out, 0, sizeof *out);
    out->available = set->nfiles > 0;
    for (size_t i = 0; i < set->nfiles; i++) {
        const td_file *f = set->files[i];
        if (!f->has_attr) {
            out->available = 0;
            continue;
        }
        int rc = td_file_events(f);
        if (rc < 0)
            return rc;
        size_t k = 0;
        for (size_t j = 0; j < f->nev; j++) {
            const td_event *e = &f->evb[j >> TD_BLOCK_SHIFT][j & (TD_BLOCK - 1)];
            if (!(e->name & TD_EV_GPU))
                continue;
            uint32_t op = k < f->nattr ? f->attr_op[k] : TD_ATTR_NONE;
            k++;
            double d = isnan(e->dur) ? 0 : e->dur;
            out->gpu_events++;
            out->gpu_time += d;
            if (op >= TD_ATTR_REASON_BASE) {
                int r = op == TD_ATTR_NONE ? R_NO_OP : (int)(op & 0xFF);
                out->count[r]++;
                out->time[r] += d;
            } else {
                out->attributed++;
                out->attributed_time += d;
            }
        }
    }
    return 0;
}
