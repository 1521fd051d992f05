/* model/tree.c: a trace file's call tree (TD_LOAD_TREE; docs/tree-match.md).
 * The cpu ops and launches of each (pid, tid) are nested by time with a
 * stack; an event that ends after the event it starts in is put one level
 * up when it overhangs by less than 1 us and the stack is at least 2 deep,
 * else left out. Kernels, memcpys and memsets hang under their launch (by
 * correlation id); every ancestor of a gpu node is on the gpu path. With
 * python frames (TD_LOAD_TREE_PY) the python_function events are host nodes
 * too, nested with the others. A cpu op's shapes id (TD_LOAD_TREE reads
 * them as the roofline does: f->shapes) is kept per host node. */
#include "model/load.h"
#include "model/run_sort.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define OVERHANG_US 1.0

void td_tree_free(td_tree *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->parent);
    free(t->kind);
    free(t->ts);
    free(t->end);
    free(t->child0);
    free(t->child);
    free(t->roots);
    free(t->shape);
    free(t);
}

/* Host nodes sorted by their link's (pid, tid, ts, file order): the links'
 * thread numbers are in (pid, tid) order (load.h). */
static _Thread_local const td_link *sort_links;
static _Thread_local const uint32_t *sort_rank;

static int cmp_thread_ts(const void *a, const void *b)
{
    uint32_t i = sort_rank[*(const uint32_t *)a], j = sort_rank[*(const uint32_t *)b];
    const td_link *x = &sort_links[i], *y = &sort_links[j];
    if (x->thr != y->thr)
        return x->thr < y->thr ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (i > j) - (i < j);
}

static _Thread_local const td_link *sort_links_ts;

static int cmp_ts(const void *a, const void *b)
{
    const td_link *x = &sort_links_ts[*(const uint32_t *)a],
                  *y = &sort_links_ts[*(const uint32_t *)b];
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    return (i > j) - (i < j);
}

static inline int cmp_ts_ctx(const void *ctx, const uint32_t *a, const uint32_t *b)
{
    const td_link *links = ctx;
    const td_link *x = &links[*a], *y = &links[*b];
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (*a > *b) - (*a < *b);
}

TD_RUN_SORT(sort_by_ts, uint32_t, cmp_ts_ctx)

/* Children of one node ordered by start, then node index. */
static _Thread_local const double *child_ts;

static int cmp_child(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (child_ts[i] != child_ts[j])
        return child_ts[i] < child_ts[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static inline int cmp_child_ctx(const void *ctx, const uint32_t *a, const uint32_t *b)
{
    const double *ts = ctx;
    if (ts[*a] != ts[*b])
        return ts[*a] < ts[*b] ? -1 : 1;
    return (*a > *b) - (*a < *b);
}

TD_RUN_SORT(sort_by_child_ts, uint32_t, cmp_child_ctx)

/* Correlation id -> host node, open addressing. */
typedef struct cent {
    int64_t key;
    uint32_t val; /* TD_ATTR_NONE: empty */
} cent;           /* key and value side by side: one cache line a probe */
typedef struct cmap {
    cent *e;
    size_t mask;
} cmap;

static size_t cslot(const cmap *m, int64_t k)
{
    size_t h = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ull >> 17) & m->mask;
    while (m->e[h].val != TD_ATTR_NONE && m->e[h].key != k)
        h = (h + 1) & m->mask;
    return h;
}

/* What build() works with. */
typedef struct bld {
    td_tree *t;
    const td_link *links;
    const uint32_t *shape; /* per link, or NULL */
    size_t n, nh, ng;
    uint32_t *order, *gorder, *rank, *stack, *fill;
    cmap m;
    size_t depth, nops, nroots;
    bool finite; /* every node's start is finite: the sorts' orders are total */
    bool py;     /* python_function events are host nodes (TD_LOAD_TREE_PY) */
    const td_file *f;
} bld;

static void bld_free(bld *b)
{
    free(b->order);
    free(b->gorder);
    free(b->rank);
    free(b->stack);
    free(b->fill);
    free(b->m.e);
}

static bool is_gpu_link(const td_link *l)
{
    return (l->kind & TD_LINK_GPU) && (l->kind & TD_LINK_KCAT) && !(l->kind & TD_LINK_HOST);
}

/* Whether a step boundary (the start of an iteration's segment) falls
 * inside (ts, end): a python frame around the training loop spans the
 * steps, and as a node it would put every iteration under one root. */
static bool spans_steps(const td_file *f, double ts, double end)
{
    size_t lo = 0, hi = f->nstep_seg; /* the first boundary after ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->step_at[mid] <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nstep_seg && f->step_at[lo] < end;
}

static bool is_host_link(const bld *b, const td_link *l)
{
    if (l->kind & TD_LINK_GPU)
        return false;
    if (l->kind & (TD_LINK_OP | TD_LINK_LAUNCH))
        return true;
    return b->py && (l->kind & TD_LINK_PY) && isfinite(l->ts) &&
           !spans_steps(b->f, l->ts, l->ts + (l->dur > 0 ? l->dur : 0));
}

static int bld_alloc(bld *b)
{
    td_tree *t = b->t;
    b->finite = true;
    if (b->n >= TD_ATTR_NONE)
        return TD_ENOMEM;
    /* one pass over the links (the largest array) sorts them out */
    b->order = malloc((b->n + 1) * sizeof *b->order);
    b->gorder = malloc((b->n + 1) * sizeof *b->gorder);
    if (!b->order || !b->gorder)
        return TD_ENOMEM;
    for (size_t i = 0; i < b->n; i++) {
        const td_link *l = &b->links[i];
        if (is_gpu_link(l))
            b->gorder[b->ng++] = (uint32_t)i;
        else if (is_host_link(b, l))
            b->order[b->nh++] = (uint32_t)i;
        else
            continue;
        if (!isfinite(l->ts))
            b->finite = false;
    }
    size_t total = b->nh + b->ng, nh = b->nh;
    b->rank = malloc((nh + 1) * sizeof *b->rank);
    b->stack = malloc((nh + 1) * sizeof *b->stack);
    b->fill = calloc(total + 1, sizeof *b->fill);
    t->name = malloc((total + 1) * sizeof *t->name);
    t->parent = malloc((total + 1) * sizeof *t->parent);
    t->kind = calloc(total + 1, 1);
    t->ts = malloc((total + 1) * sizeof *t->ts);
    t->end = malloc((total + 1) * sizeof *t->end);
    t->child0 = calloc(total + 2, sizeof *t->child0);
    t->child = malloc((total + 1) * sizeof *t->child);
    t->roots = malloc((nh + 1) * sizeof *t->roots);
    t->shape = malloc((nh + 1) * sizeof *t->shape);
    size_t cap = 16;
    while (cap < 2 * nh + 2)
        cap *= 2;
    b->m.e = malloc(cap * sizeof *b->m.e);
    b->m.mask = cap - 1;
    if (!b->rank || !t->name || !t->parent || !t->kind || !t->ts || !t->end || !t->child0 ||
        !t->child || !t->roots || !t->shape || !b->stack || !b->fill || !b->m.e)
        return TD_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        b->m.e[i].val = TD_ATTR_NONE;
    t->n = total;
    t->nhost = nh;
    return 0;
}

/* Host nodes numbered in time order (TraceLens sorts all of them by start
 * before nesting: roots come out in that order); launches by correlation. */
static int host_nodes(bld *b)
{
    td_tree *t = b->t;
    if (!b->finite) { /* NaN among the starts: qsort's own order */
        sort_links_ts = b->links;
        qsort(b->order, b->nh, sizeof *b->order, cmp_ts);
    } else if (sort_by_ts(b->order, b->nh, b->links) < 0) {
        return TD_ENOMEM;
    }
    for (size_t k = 0; k < b->nh; k++) {
        const td_link *l = &b->links[b->order[k]];
        t->name[k] = l->name;
        t->kind[k] = (l->kind & TD_LINK_OP)       ? TD_TREE_OP
                     : (l->kind & TD_LINK_LAUNCH) ? TD_TREE_LAUNCH
                                                  : TD_TREE_PY;
        t->shape[k] = (l->kind & TD_LINK_OP) && b->shape ? b->shape[b->order[k]] : TD_ATTR_NONE;
        t->ts[k] = l->ts;
        t->end[k] = l->ts + (l->dur > 0 ? l->dur : 0);
        t->parent[k] = TD_ATTR_NONE;
        if ((l->kind & TD_LINK_LAUNCH) && !(l->kind & TD_LINK_OP)) {
            size_t s = cslot(&b->m, l->corr);
            if (b->m.e[s].val == TD_ATTR_NONE) { /* the first host side of an id */
                b->m.e[s].key = l->corr;
                b->m.e[s].val = (uint32_t)k;
            }
        }
        b->rank[k] = b->order[k];
    }
    return 0;
}

static void pop(bld *b)
{
    if (b->t->kind[b->stack[--b->depth]] & TD_TREE_OP)
        b->nops--;
}

/* One host node v onto its thread's stack (the 1 us overhang rule). */
static void nest_one(bld *b, uint32_t v)
{
    td_tree *t = b->t;
    while (b->depth && t->ts[v] >= t->end[b->stack[b->depth - 1]])
        pop(b);
    if (b->depth && t->end[v] > t->end[b->stack[b->depth - 1]]) {
        double over = t->end[b->stack[b->depth - 1]] - t->ts[v];
        if (!(over < OVERHANG_US && b->depth >= 2)) {
            t->dropped++;
            t->kind[v] |= 0x80; /* left out */
            return;
        }
        pop(b);
    }
    if (b->depth) {
        t->parent[v] = b->stack[b->depth - 1];
        t->child0[b->stack[b->depth - 1] + 1]++;
    }
    b->stack[b->depth++] = v;
    if (!(t->kind[v] & TD_TREE_OP))
        return;
    if (b->nops == 0) {
        uint32_t top = v;
        while (t->parent[top] != TD_ATTR_NONE)
            top = t->parent[top];
        if (!(t->kind[top] & 0x40)) {
            t->kind[top] |= 0x40; /* a root */
            t->roots[b->nroots++] = top;
        }
    }
    b->nops++;
}

/* A thread of host nodes: its (pid, tid) and its number in order of first
 * node. */
typedef struct thread_key {
    int64_t pid, tid;
    uint32_t id;
} thread_key;

static int cmp_thread_key(const void *a, const void *b)
{
    const thread_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static size_t thread_slot(const uint32_t *slot, size_t mask, const thread_key *keys, int64_t pid,
                          int64_t tid)
{
    uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Full);
    size_t i = (size_t)(h ^ (h >> 29)) & mask;
    while (slot[i] != TD_ATTR_NONE && (keys[slot[i]].pid != pid || keys[slot[i]].tid != tid))
        i = (i + 1) & mask;
    return i;
}

/* byth: the host nodes (in time order) grouped by thread, threads in
 * (pid, tid) order, each thread's nodes still in time order: the order
 * cmp_thread_ts gives, as the nodes are numbered by (ts, file order). One
 * pass to number the threads, one to place the nodes. */
static int by_thread(bld *b, uint32_t *byth)
{
    size_t nh = b->nh, nthr = 0, kcap = 16, mask = 63;
    thread_key *keys = malloc(kcap * sizeof *keys);
    uint32_t *slot = malloc((mask + 1) * sizeof *slot), *tix = malloc((nh + 1) * sizeof *tix);
    size_t *pos = NULL;
    int rc = TD_ENOMEM;
    if (!keys || !slot || !tix)
        goto done;
    memset(slot, 0xff, (mask + 1) * sizeof *slot);
    for (size_t k = 0; k < nh; k++) {
        const td_link *l = &b->links[b->rank[k]];
        size_t s = thread_slot(slot, mask, keys, l->thr, 0);
        if (slot[s] == TD_ATTR_NONE) {
            if (nthr == kcap) {
                thread_key *nk = realloc(keys, 2 * kcap * sizeof *nk);
                if (!nk)
                    goto done;
                keys = nk;
                kcap *= 2;
            }
            keys[nthr] = (thread_key){l->thr, 0, (uint32_t)nthr};
            slot[s] = (uint32_t)nthr++;
            if (nthr * 2 > mask + 1) { /* rehash into twice the slots */
                uint32_t *ns = malloc(2 * (mask + 1) * sizeof *ns);
                if (!ns)
                    goto done;
                free(slot);
                slot = ns;
                mask = 2 * mask + 1;
                memset(slot, 0xff, (mask + 1) * sizeof *slot);
                for (size_t t = 0; t < nthr; t++)
                    slot[thread_slot(slot, mask, keys, keys[t].pid, keys[t].tid)] = (uint32_t)t;
            }
        }
        tix[k] = slot[thread_slot(slot, mask, keys, l->thr, 0)];
    }
    /* pos[id]: where the nodes of thread id start */
    pos = calloc(nthr + 1, sizeof *pos);
    if (!pos)
        goto done;
    for (size_t k = 0; k < nh; k++)
        pos[tix[k]]++;
    qsort(keys, nthr, sizeof *keys, cmp_thread_key);
    size_t at = 0;
    for (size_t r = 0; r < nthr; r++) {
        size_t c = pos[keys[r].id];
        pos[keys[r].id] = at;
        at += c;
    }
    for (size_t k = 0; k < nh; k++)
        byth[pos[tix[k]]++] = (uint32_t)k;
    rc = 0;
done:
    free(keys);
    free(slot);
    free(tix);
    free(pos);
    return rc;
}

/* Nest per thread: the nodes in (pid, tid, ts, file order). */
static int nest(bld *b)
{
    uint32_t *byth = b->order;
    if (b->finite) {
        int rc = by_thread(b, byth);
        if (rc < 0)
            return rc;
    } else { /* NaN among the starts: qsort's own order */
        for (size_t k = 0; k < b->nh; k++)
            byth[k] = (uint32_t)k;
        sort_links = b->links;
        sort_rank = b->rank;
        qsort(byth, b->nh, sizeof *byth, cmp_thread_ts);
    }
    uint32_t thr = 0;
    for (size_t k = 0; k < b->nh; k++) {
        const td_link *l = &b->links[b->rank[byth[k]]];
        if (k == 0 || l->thr != thr) {
            b->depth = b->nops = 0;
            thr = l->thr;
        }
        nest_one(b, byth[k]);
    }
    return 0;
}

static void gpu_nodes(bld *b)
{
    td_tree *t = b->t;
    for (size_t k = 0; k < b->ng; k++) {
        const td_link *l = &b->links[b->gorder[k]];
        size_t v = b->nh + k;
        t->name[v] = l->name;
        t->kind[v] = TD_TREE_GPU;
        t->ts[v] = l->ts;
        t->end[v] = l->ts + (l->dur > 0 ? l->dur : 0);
        uint32_t p = b->m.e[cslot(&b->m, l->corr)].val;
        t->parent[v] = p;
        if (p == TD_ATTR_NONE)
            t->no_launch++;
        else
            t->child0[p + 1]++;
    }
}

/* Children lists in time order, the gpu path, the roots in time order. */
static int finish(bld *b)
{
    td_tree *t = b->t;
    size_t total = t->n;
    for (size_t v = 0; v < total; v++)
        t->child0[v + 1] += t->child0[v];
    for (size_t v = 0; v < total; v++) {
        uint32_t p = t->parent[v];
        if (p != TD_ATTR_NONE && !(t->kind[v] & 0x80))
            t->child[t->child0[p] + b->fill[p]++] = (uint32_t)v;
    }
    child_ts = t->ts;
    for (size_t v = 0; v < total; v++) {
        size_t nc = t->child0[v + 1] - t->child0[v];
        if (nc <= 1)
            continue;
        uint32_t *c = t->child + t->child0[v];
        if (!b->finite) { /* NaN among the starts: qsort's own order */
            qsort(c, nc, sizeof *t->child, cmp_child);
            continue;
        }
        /* most lists are in order already (host nodes are numbered by
         * start) or short: the one sorted order without the run sort's
         * buffers */
        size_t k = 1;
        while (k < nc && cmp_child_ctx(t->ts, &c[k - 1], &c[k]) < 0)
            k++;
        if (k == nc)
            continue;
        if (nc <= 32) {
            for (size_t i = k; i < nc; i++) {
                uint32_t x = c[i];
                size_t j = i;
                for (; j > 0 && cmp_child_ctx(t->ts, &c[j - 1], &x) > 0; j--)
                    c[j] = c[j - 1];
                c[j] = x;
            }
        } else if (sort_by_child_ts(c, nc, t->ts) < 0) {
            return TD_ENOMEM;
        }
    }
    for (size_t v = b->nh; v < total; v++) {
        t->kind[v] |= TD_TREE_PATH;
        for (uint32_t p = t->parent[v]; p != TD_ATTR_NONE && !(t->kind[p] & TD_TREE_PATH);
             p = t->parent[p])
            t->kind[p] |= TD_TREE_PATH;
    }
    if (!b->finite)
        qsort(t->roots, b->nroots, sizeof *t->roots, cmp_child);
    else if (sort_by_child_ts(t->roots, b->nroots, t->ts) < 0)
        return TD_ENOMEM;
    t->nroots = b->nroots;
    for (size_t v = 0; v < total; v++)
        t->kind[v] &= (uint8_t)~0xC0u;
    return 0;
}

static int build(td_tree *t, const td_file *f, const td_link *links, const uint32_t *shape,
                 size_t n, bool py)
{
    bld b = {0};
    b.py = py;
    b.f = f;
    b.t = t;
    b.links = links;
    b.shape = shape;
    b.n = n;
    int rc = bld_alloc(&b);
    if (rc == 0 && (rc = host_nodes(&b)) == 0 && (rc = nest(&b)) == 0) {
        gpu_nodes(&b);
        rc = finish(&b);
    }
    bld_free(&b);
    return rc;
}

int td_tree_build(td_file *f, const td_link *links, const uint32_t *shape, size_t n, bool py,
                  td_error *err)
{
    td_tree *t = calloc(1, sizeof *t);
    if (!t)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    int rc = build(t, f, links, shape, n, py);
    if (rc < 0) {
        td_tree_free(t);
        return td_fail(err, rc, f->path, "out of memory");
    }
    f->tree = t;
    return 0;
}
