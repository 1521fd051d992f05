/* model/tree.c: a trace file's call tree (TD_LOAD_TREE; docs/tree-match.md).
 * The cpu ops and launches of each (pid, tid) are nested by time with a
 * stack; an event that ends after the event it starts in is put one level
 * up when it overhangs by less than 1 us and the stack is at least 2 deep,
 * else left out. Kernels, memcpys and memsets hang under their launch (by
 * correlation id); every ancestor of a gpu node is on the gpu path. */
#include "model/load.h"

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
    free(t);
}

/* Host nodes sorted by their link's (pid, tid, ts, file order). */
static _Thread_local const td_link *sort_links;
static _Thread_local const uint32_t *sort_rank;

static int cmp_thread_ts(const void *a, const void *b)
{
    uint32_t i = sort_rank[*(const uint32_t *)a], j = sort_rank[*(const uint32_t *)b];
    const td_link *x = &sort_links[i], *y = &sort_links[j];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
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

/* Children of one node ordered by start, then node index. */
static _Thread_local const double *child_ts;

static int cmp_child(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (child_ts[i] != child_ts[j])
        return child_ts[i] < child_ts[j] ? -1 : 1;
    return (i > j) - (i < j);
}

/* Correlation id -> host node, open addressing. */
typedef struct cmap {
    int64_t *key;
    uint32_t *val;
    size_t mask;
} cmap;

static size_t cslot(const cmap *m, int64_t k)
{
    size_t h = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ull >> 17) & m->mask;
    while (m->val[h] != TD_ATTR_NONE && m->key[h] != k)
        h = (h + 1) & m->mask;
    return h;
}

/* What build() works with. */
typedef struct bld {
    td_tree *t;
    const td_link *links;
    size_t n, nh, ng;
    uint32_t *order, *gorder, *rank, *stack, *fill;
    cmap m;
    size_t depth, nops, nroots;
} bld;

static void bld_free(bld *b)
{
    free(b->order);
    free(b->gorder);
    free(b->rank);
    free(b->stack);
    free(b->fill);
    free(b->m.key);
    free(b->m.val);
}

static bool is_gpu_link(const td_link *l)
{
    return (l->kind & TD_LINK_GPU) && (l->kind & TD_LINK_KCAT) && !(l->kind & TD_LINK_HOST);
}

static bool is_host_link(const td_link *l)
{
    return !(l->kind & TD_LINK_GPU) && (l->kind & (TD_LINK_OP | TD_LINK_LAUNCH));
}

static int bld_alloc(bld *b)
{
    td_tree *t = b->t;
    for (size_t i = 0; i < b->n; i++) {
        b->ng += is_gpu_link(&b->links[i]);
        b->nh += is_host_link(&b->links[i]);
    }
    if (b->nh + b->ng >= TD_ATTR_NONE)
        return TD_ENOMEM;
    size_t total = b->nh + b->ng, nh = b->nh;
    b->order = malloc((nh + 1) * sizeof *b->order);
    b->gorder = malloc((b->ng + 1) * sizeof *b->gorder);
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
    size_t cap = 16;
    while (cap < 2 * nh + 2)
        cap *= 2;
    b->m.key = malloc(cap * sizeof *b->m.key);
    b->m.val = malloc(cap * sizeof *b->m.val);
    b->m.mask = cap - 1;
    if (!b->order || !b->gorder || !b->rank || !t->name || !t->parent || !t->kind || !t->ts ||
        !t->end || !t->child0 || !t->child || !t->roots || !b->stack || !b->fill || !b->m.key ||
        !b->m.val)
        return TD_ENOMEM;
    memset(b->m.val, 0xff, cap * sizeof *b->m.val);
    t->n = total;
    t->nhost = nh;
    return 0;
}

/* Host nodes numbered in time order (TraceLens sorts all of them by start
 * before nesting: roots come out in that order); launches by correlation. */
static void host_nodes(bld *b)
{
    td_tree *t = b->t;
    size_t a = 0, g = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (is_gpu_link(&b->links[i]))
            b->gorder[g++] = (uint32_t)i;
        else if (is_host_link(&b->links[i]))
            b->order[a++] = (uint32_t)i;
    }
    sort_links_ts = b->links;
    qsort(b->order, b->nh, sizeof *b->order, cmp_ts);
    for (size_t k = 0; k < b->nh; k++) {
        const td_link *l = &b->links[b->order[k]];
        t->name[k] = l->name;
        t->kind[k] = (l->kind & TD_LINK_OP) ? TD_TREE_OP : TD_TREE_LAUNCH;
        t->ts[k] = l->ts;
        t->end[k] = l->ts + (l->dur > 0 ? l->dur : 0);
        t->parent[k] = TD_ATTR_NONE;
        if ((l->kind & TD_LINK_LAUNCH) && !(l->kind & TD_LINK_OP)) {
            size_t s = cslot(&b->m, l->corr);
            if (b->m.val[s] == TD_ATTR_NONE) { /* the first host side of an id */
                b->m.key[s] = l->corr;
                b->m.val[s] = (uint32_t)k;
            }
        }
        b->rank[k] = b->order[k];
    }
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

/* Nest per thread: the nodes in (pid, tid, ts, file order). */
static void nest(bld *b)
{
    uint32_t *byth = b->order;
    for (size_t k = 0; k < b->nh; k++)
        byth[k] = (uint32_t)k;
    sort_links = b->links;
    sort_rank = b->rank;
    qsort(byth, b->nh, sizeof *byth, cmp_thread_ts);
    int64_t pid = 0, tid = 0;
    for (size_t k = 0; k < b->nh; k++) {
        const td_link *l = &b->links[b->rank[byth[k]]];
        if (k == 0 || l->pid != pid || l->tid != tid) {
            b->depth = b->nops = 0;
            pid = l->pid;
            tid = l->tid;
        }
        nest_one(b, byth[k]);
    }
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
        uint32_t p = b->m.val[cslot(&b->m, l->corr)];
        t->parent[v] = p;
        if (p == TD_ATTR_NONE)
            t->no_launch++;
        else
            t->child0[p + 1]++;
    }
}

/* Children lists in time order, the gpu path, the roots in time order. */
static void finish(bld *b)
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
    for (size_t v = 0; v < total; v++)
        if (t->child0[v + 1] - t->child0[v] > 1)
            qsort(t->child + t->child0[v], t->child0[v + 1] - t->child0[v], sizeof *t->child,
                  cmp_child);
    for (size_t v = b->nh; v < total; v++) {
        t->kind[v] |= TD_TREE_PATH;
        for (uint32_t p = t->parent[v]; p != TD_ATTR_NONE && !(t->kind[p] & TD_TREE_PATH);
             p = t->parent[p])
            t->kind[p] |= TD_TREE_PATH;
    }
    qsort(t->roots, b->nroots, sizeof *t->roots, cmp_child);
    t->nroots = b->nroots;
    for (size_t v = 0; v < total; v++)
        t->kind[v] &= (uint8_t)~0xC0u;
}

static int build(td_tree *t, const td_link *links, size_t n)
{
    bld b = {0};
    b.t = t;
    b.links = links;
    b.n = n;
    int rc = bld_alloc(&b);
    if (rc == 0) {
        host_nodes(&b);
        nest(&b);
        gpu_nodes(&b);
        finish(&b);
    }
    bld_free(&b);
    return rc;
}

int td_tree_build(td_file *f, const td_link *links, size_t n, td_error *err)
{
    td_tree *t = calloc(1, sizeof *t);
    if (!t)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    int rc = build(t, links, n);
    if (rc < 0) {
        td_tree_free(t);
        return td_fail(err, rc, f->path, "out of memory");
    }
    f->tree = t;
    return 0;
}
