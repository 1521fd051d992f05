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
    uint32_t pad;
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
    uint32_t *up;   /* per TD_LINK_CPU link: the innermost frame around it, not itself */
    int failed;
} frames;

#define FRAME_KINDS (TD_LINK_OP | TD_LINK_ANN | TD_LINK_PY)

/* A frame's node: under the innermost frame that contains it whole (one
 * that ends before it does is not its parent: docs/stacks.md). */
static void frame_push(frames *fr, const td_link *links, const sweep_rec *r)
{
    const sweep_rec *up = stack_find(&fr->all, r->ts, r->end, 0);
    uint32_t n = td_stk_node(&fr->tree, up ? fr->node[up->idx] : TD_ATTR_NONE, links[r->idx].name);
    fr->failed |= n == UINT32_MAX;
    fr->node[r->idx] = n;
    stack_push(&fr->all, r);
}

static void sweep(const td_file *f, const td_link *links, sweep_rec *rec, size_t nrec,
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
        if (fr && (r->kind & (TD_LINK_LAUNCH | TD_LINK_CPU))) {
            const sweep_rec *in = stack_find(&fr->all, r->ts, r->end, 0);
            res[r->idx].node = fr->up[r->idx] = in ? fr->node[in->idx] : TD_ATTR_NONE;
        }
        if (fr && (r->kind & FRAME_KINDS))
            frame_push(fr, links, r);
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
 * (4 bytes a slot, no more than 4 slots a launch), else a hash. */
typedef struct cmap {
    int64_t *key; /* NULL: dense */
    uint32_t *val;
    size_t cap; /* hash slots, or the dense span */
    int64_t lo;
} cmap;

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
        return s < m->cap ? m->val[s] : TD_ATTR_NONE;
    }
    size_t s = cmap_slot(m, corr);
    return m->key[s] == corr ? m->val[s] : TD_ATTR_NONE;
}

static int cmap_build(cmap *m, const td_link *links, size_t n)
{
    size_t count = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++)
        if ((links[i].kind & TD_LINK_LAUNCH) && links[i].corr != CMAP_EMPTY) {
            count++;
            lo = links[i].corr < lo ? links[i].corr : lo;
            hi = links[i].corr > hi ? links[i].corr : hi;
        }
    if (count && (uint64_t)hi - (uint64_t)lo < 4 * (uint64_t)count) {
        m->lo = lo;
        m->cap = (size_t)((uint64_t)hi - (uint64_t)lo + 1);
        if (!(m->val = malloc(m->cap * sizeof *m->val)))
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            m->val[i] = TD_ATTR_NONE;
        for (size_t i = 0; i < n; i++)
            if ((links[i].kind & TD_LINK_LAUNCH) && links[i].corr != CMAP_EMPTY)
                m->val[(uint64_t)links[i].corr - (uint64_t)lo] = (uint32_t)i;
        return 0;
    }
    m->cap = 16;
    while (m->cap < count + count / 3 + 1)
        m->cap *= 2;
    m->key = malloc(m->cap * sizeof *m->key);
    m->val = malloc(m->cap * sizeof *m->val);
    if (!m->key || !m->val)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        m->key[i] = CMAP_EMPTY;
    for (size_t i = 0; i < n; i++) {
        if (!(links[i].kind & TD_LINK_LAUNCH) || links[i].corr == CMAP_EMPTY)
            continue;
        size_t s = cmap_slot(m, links[i].corr);
        m->key[s] = links[i].corr;
        m->val[s] = (uint32_t)i;
    }
    return 0;
}

/* Attribution of every gpu-side event, in file order; gpu-side events
 * without a link of their own (f->events_gpu counts more than the links
 * hold) are attributed to none, rather than left unwritten. */
static void attribute_gpu(td_file *f, const td_link *links, size_t n, const cmap *m,
                          const launch_res *res)
{
    size_t k = 0, ng = f->events_gpu;
    for (size_t i = 0; i < n && k < ng; i++) {
        const td_link *l = &links[i];
        if (!(l->kind & TD_LINK_GPU))
            continue;
        uint32_t reason = TD_ATTR_NONE;
        if (l->kind & TD_LINK_HOST)
            reason = TD_ATTR_REASON(R_HOST_EVENT);
        else if (l->corr == -1)
            reason = TD_ATTR_REASON(R_NO_CORR);
        uint32_t launch = TD_ATTR_NONE;
        if (reason == TD_ATTR_NONE && (launch = cmap_get(m, l->corr)) == TD_ATTR_NONE)
            reason = TD_ATTR_REASON(R_NO_LAUNCH);
        if (f->stk_of)
            f->stk_of[k] = reason != TD_ATTR_NONE ? TD_ATTR_NONE : res[launch].node;
        if (reason != TD_ATTR_NONE) {
            f->attr_op[k] = f->attr_top[k] = reason;
            f->attr_ann[k] = f->attr_call[k] = TD_ATTR_NONE;
            f->attr_topc[k] = f->attr_annc[k] = TD_ATTR_NONE;
        } else {
            const launch_res *lr = &res[launch];
            f->attr_op[k] = lr->op;
            f->attr_top[k] = lr->top;
            f->attr_ann[k] = lr->ann;
            f->attr_call[k] = lr->call; /* a link index until op_calls() */
            f->attr_topc[k] = lr->topc;
            f->attr_annc[k] = lr->annc;
        }
        k++;
    }
    for (; k < ng; k++) {
        f->attr_op[k] = f->attr_top[k] = f->attr_ann[k] = TD_ATTR_NONE;
        f->attr_call[k] = f->attr_topc[k] = f->attr_annc[k] = TD_ATTR_NONE;
    }
}

/* The sweep records: ops, annotations and launches with usable times;
 * *finite: every one's start and end are finite (cmp_sweep is then a
 * strict total order). Finite, they are grouped by thread (threads in
 * order, each one's in file order), so that sorting is sorting each
 * thread's few runs; else in file order, for qsort, whose order of NaN
 * depends on it. *thr_end: per thread, where its records end (NULL when
 * not grouped; the caller frees it). 0, or -1 when out of memory. */
static int sweep_records(sweep_rec *rec, const td_link *links, size_t n, size_t *nrec, bool *finite,
                         size_t **thr_end, size_t *nthr)
{
    size_t m = 0, nt = 0;
    bool fin = true;
    *thr_end = NULL;
    for (size_t i = 0; i < n; i++) {
        const td_link *l = &links[i];
        uint32_t kind = l->kind & (FRAME_KINDS | TD_LINK_LAUNCH | TD_LINK_CPU);
        if (!kind || isnan(l->ts) || isnan(l->dur))
            continue;
        fin = fin && isfinite(l->ts) && isfinite(l->ts + l->dur);
        nt = l->thr >= nt ? (size_t)l->thr + 1 : nt;
        m++;
    }
    *nrec = m;
    *finite = fin;
    size_t *pos = fin ? calloc(nt + 1, sizeof *pos) : NULL;
    if (fin && !pos)
        return -1;
    if (fin) {
        for (size_t i = 0; i < n; i++) {
            const td_link *l = &links[i];
            if ((l->kind & (FRAME_KINDS | TD_LINK_LAUNCH | TD_LINK_CPU)) && !isnan(l->ts) &&
                !isnan(l->dur))
                pos[l->thr + 1]++;
        }
        for (size_t t = 1; t <= nt; t++)
            pos[t] += pos[t - 1];
    }
    m = 0;
    for (size_t i = 0; i < n; i++) {
        const td_link *l = &links[i];
        uint32_t kind = l->kind & (FRAME_KINDS | TD_LINK_LAUNCH | TD_LINK_CPU);
        if (!kind || isnan(l->ts) || isnan(l->dur))
            continue; /* a launch without a time stays outside every op */
        size_t at = fin ? pos[l->thr]++ : m++;
        rec[at] = (sweep_rec){l->ts, l->ts + l->dur, l->thr, (uint32_t)i, kind, 0};
    }
    *thr_end = pos; /* pos[t]: where thread t's records end */
    *nthr = nt;
    return 0;
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

/* waits[i]: link i is a launch that waits for the device. 0, or -1 when
 * out of memory. */
static int find_waits(const td_file *f, const td_link *links, size_t n, const cmap *m, bool *waits)
{
    size_t nmemo = td_strtab_count(f->names);
    uint8_t *memo = calloc(nmemo + 1, 1);
    if (!memo)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const td_link *l = &links[i];
        bool gpu = (l->kind & TD_LINK_GPU) && !(l->kind & TD_LINK_HOST) && l->corr != CMAP_EMPTY &&
                   l->corr != -1;
        if (!(l->kind & TD_LINK_LAUNCH) && !gpu)
            continue;
        unsigned w = name_waits(f, memo, nmemo, l->name);
        if (l->kind & TD_LINK_LAUNCH)
            waits[i] = waits[i] || (w & NAME_SYNC);
        if (!gpu || !(w & NAME_DTOH))
            continue;
        uint32_t launch = cmap_get(m, l->corr);
        if (launch != TD_ATTR_NONE)
            waits[launch] = true;
    }
    free(memo);
    return 0;
}

/* Per name: its ops' total duration, and the part of it inside waits. */
static int wait_totals(td_file *f, const td_link *links, size_t n, const uint32_t *id,
                       const double *opwait)
{
    size_t nn = td_strtab_count(f->names);
    f->wait_in = calloc(nn + 1, sizeof *f->wait_in);
    f->wait_of = calloc(nn + 1, sizeof *f->wait_of);
    if (!f->wait_in || !f->wait_of)
        return -1;
    f->nwait = nn;
    for (size_t i = 0; i < n; i++) {
        const td_link *l = &links[i];
        if (id[i] == TD_ATTR_NONE || l->name >= nn)
            continue;
        double w = opwait[id[i]];
        f->wait_of[l->name] += l->dur;
        f->wait_in[l->name] += w < l->dur ? w : l->dur;
    }
    return 0;
}

/* The op calls (ops with a start and a duration), numbered in file order:
 * id[] per link index (TD_ATTR_NONE: not an op call), their names and
 * shapes; their parents are set by the sweep. 0, or -1. */
static int op_ids(td_file *f, const td_link *links, size_t n, uint32_t *id)
{
    size_t nops = 0;
    for (size_t i = 0; i < n; i++)
        id[i] = (links[i].kind & TD_LINK_OP) && !isnan(links[i].ts) && !isnan(links[i].dur)
                    ? (uint32_t)nops++
                    : TD_ATTR_NONE;
    f->op_name = malloc((nops + 1) * sizeof *f->op_name);
    f->op_parent = malloc((nops + 1) * sizeof *f->op_parent);
    if (f->shapes && !(f->op_shape = malloc((nops + 1) * sizeof *f->op_shape)))
        f->op_name = (free(f->op_name), NULL);
    if (!f->op_name || !f->op_parent)
        return -1;
    f->nops = nops;
    for (size_t i = 0; i < n; i++) {
        if (id[i] == TD_ATTR_NONE)
            continue;
        f->op_name[id[i]] = links[i].name;
        f->op_parent[id[i]] = TD_ATTR_NONE;
        if (f->op_shape)
            f->op_shape[id[i]] = links[i].shape;
    }
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

static void round_links(td_link *links, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double end = floor(links[i].ts + links[i].dur);
        links[i].ts = ceil(links[i].ts);
        links[i].dur = end - links[i].ts;
    }
}

/* The stacks' arrays and the sweep's own (docs/stacks.md): 0 or -1. */
static int frames_init(frames *fr, td_file *f, size_t n)
{
    memset(fr, 0, sizeof *fr);
    fr->all.v = malloc((n + 1) * sizeof *fr->all.v);
    fr->node = malloc((n + 1) * sizeof *fr->node);
    fr->up = malloc((n + 1) * sizeof *fr->up);
    f->stk_of = malloc((f->events_gpu + 1) * sizeof *f->stk_of);
    if (td_stk_init(&fr->tree, f) < 0 || !fr->all.v || !fr->node || !fr->up || !f->stk_of)
        return -1;
    for (size_t i = 0; i < f->events_gpu; i++)
        f->stk_of[i] = TD_ATTR_NONE;
    for (size_t i = 0; i < n; i++)
        fr->up[i] = TD_ATTR_NONE;
    return 0;
}

static void frames_free(frames *fr)
{
    free(fr->all.v);
    free(fr->node);
    free(fr->up);
    td_stk_done(&fr->tree);
}

/* The file's attribution arrays, one entry per gpu-side event: 0 or -1. */
static int attr_alloc(td_file *f, size_t ng)
{
    f->attr_call = malloc((ng + 1) * sizeof *f->attr_call);
    f->attr_topc = malloc((ng + 1) * sizeof *f->attr_topc);
    f->attr_annc = malloc((ng + 1) * sizeof *f->attr_annc);
    f->attr_op = malloc((ng + 1) * sizeof *f->attr_op);
    f->attr_top = malloc((ng + 1) * sizeof *f->attr_top);
    f->attr_ann = malloc((ng + 1) * sizeof *f->attr_ann);
    return f->attr_op && f->attr_top && f->attr_ann && f->attr_call && f->attr_topc && f->attr_annc
               ? 0
               : -1;
}

int td_attribute(td_file *f, td_link *links, size_t n, int round_ts, bool stacks, td_error *err)
{
    int rc = -1;
    size_t ng = f->events_gpu, nrec, nthr = 0, *thr_end = NULL;
    cmap m = {0};
    if (n > UINT32_MAX)
        return td_fail(err, TD_ETRACE, f->path, "too many events for attribution");
    /* Written whole: their pages mapped at once, and kept for the next
     * file (model/link_mem.c); the stacks and the waits are touched sparsely. */
    sweep_rec *rec = td_scratch_alloc((n + 1) * sizeof *rec);
    const sweep_rec **sv = malloc((2 * n + 2) * sizeof *sv);
    /* The merge sort's buffer, then the launches' results: one set of pages. */
    size_t one = sizeof(sweep_rec) > sizeof(launch_res) ? sizeof(sweep_rec) : sizeof(launch_res);
    void *scratch = td_scratch_alloc((n + 1) * one);
    launch_res *res = scratch;
    bool *waits = calloc(n + 1, sizeof *waits);
    double *opwait = NULL;
    uint32_t *id = td_scratch_alloc((n + 1) * sizeof *id);
    frames fr;
    bool fr_ok = !stacks || frames_init(&fr, f, n) == 0;
    if (!fr_ok || !rec || !sv || !res || !waits || !id || attr_alloc(f, ng) < 0)
        goto done;
    if (round_ts)
        round_links(links, n);
    bool finite;
    if (sweep_records(rec, links, n, &nrec, &finite, &thr_end, &nthr) < 0)
        goto done;
    if (!finite) /* an infinite start or end: the order qsort makes of NaN */
        qsort(rec, nrec, sizeof *rec, cmp_sweep);
    for (size_t t = 0, at = 0; finite && t < nthr; at = thr_end[t++])
        if (sort_sweep_in(rec + at, thr_end[t] - at, NULL, scratch) < 0)
            goto done;
    /* Per op call, not per link: the waits inside it. */
    if (op_ids(f, links, n, id) < 0 || !(opwait = calloc(f->nops + 1, sizeof *opwait)))
        goto done;
    for (size_t i = 0; i < n; i++) {
        res[i] = (launch_res){TD_ATTR_REASON(R_NO_OP),
                              TD_ATTR_REASON(R_NO_OP),
                              TD_ATTR_NONE,
                              TD_ATTR_NONE,
                              TD_ATTR_NONE,
                              TD_ATTR_NONE,
                              TD_ATTR_NONE};
    }
    if (cmap_build(&m, links, n) < 0)
        goto done;
    if (find_waits(f, links, n, &m, waits) < 0)
        goto done;
    sweep(f, links, rec, nrec, sv, sv + n + 1, res, waits, opwait, id, f->op_parent,
          stacks ? &fr : NULL);
    if (stacks && (fr.failed || td_stk_cpu_fill(f, links, n, fr.up) < 0))
        goto done;
    attribute_gpu(f, links, n, &m, res);
    f->nattr = ng;
    for (size_t k = 0; k < ng; k++) /* link indices become op call indices */
        if (f->attr_call[k] != TD_ATTR_NONE)
            f->attr_call[k] = id[f->attr_call[k]];
    if (wait_totals(f, links, n, id, opwait) < 0)
        goto done;
    f->has_attr = 1;
    rc = 0;
done:
    free(thr_end);
    td_scratch_free(rec);
    free(sv);
    td_scratch_free(scratch);
    free(waits);
    free(opwait);
    td_scratch_free(id);
    free(m.key);
    free(m.val);
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
