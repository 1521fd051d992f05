/* model/tree.c: a trace file's call tree (TD_LOAD_TREE; docs/tree-match.md).
 * The cpu ops and launches of each (pid, tid) are nested by time with a
 * stack; an event that ends after the event it starts in is put one level
 * up when it overhangs by less than 1 us and the stack is at least 2 deep,
 * else left out. Kernels, memcpys and memsets hang under their launch (by
 * correlation id); every ancestor of a gpu node is on the gpu path. */
#include "model/load.h"

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

static int build(td_tree *t, const td_link *links, size_t n)
{
    size_t nh = 0, ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (links[i].kind & TD_LINK_GPU) {
            if ((links[i].kind & TD_LINK_KCAT) && !(links[i].kind & TD_LINK_HOST))
                ng++;
        } else if (links[i].kind & (TD_LINK_OP | TD_LINK_LAUNCH))
            nh++;
    }
    if (nh + ng >= TD_ATTR_NONE)
        return TD_ENOMEM;
    size_t total = nh + ng;
    uint32_t *order = malloc((nh + 1) * sizeof *order);
    uint32_t *gorder = malloc((ng + 1) * sizeof *gorder);
    uint32_t *rank = malloc((nh + 1) * sizeof *rank); /* time-ordered host index -> node */
    t->name = malloc((total + 1) * sizeof *t->name);
    t->parent = malloc((total + 1) * sizeof *t->parent);
    t->kind = calloc(total + 1, 1);
    t->ts = malloc((total + 1) * sizeof *t->ts);
    t->end = malloc((total + 1) * sizeof *t->end);
    t->child0 = calloc(total + 2, sizeof *t->child0);
    t->child = malloc((total + 1) * sizeof *t->child);
    t->roots = malloc((nh + 1) * sizeof *t->roots);
    uint32_t *stack = malloc((nh + 1) * sizeof *stack);
    uint32_t *fill = calloc(total + 1, sizeof *fill);
    cmap m = {0};
    size_t cap = 16;
    while (cap < 2 * nh + 2)
        cap *= 2;
    m.key = malloc(cap * sizeof *m.key);
    m.val = malloc(cap * sizeof *m.val);
    m.mask = cap - 1;
    int rc = TD_ENOMEM;
    if (!order || !gorder || !rank || !t->name || !t->parent || !t->kind || !t->ts || !t->end ||
        !t->child0 || !t->child || !t->roots || !stack || !fill || !m.key || !m.val)
        goto out;
    memset(m.val, 0xff, cap * sizeof *m.val);
    size_t a = 0, g = 0;
    for (size_t i = 0; i < n; i++) {
        if (links[i].kind & TD_LINK_GPU) {
            if ((links[i].kind & TD_LINK_KCAT) && !(links[i].kind & TD_LINK_HOST))
                gorder[g++] = (uint32_t)i;
        } else if (links[i].kind & (TD_LINK_OP | TD_LINK_LAUNCH))
            order[a++] = (uint32_t)i;
    }
    /* Host nodes are numbered in time order (TraceLens sorts all of them
     * by start before nesting): roots come out in that order. */
    sort_links_ts = links;
    qsort(order, nh, sizeof *order, cmp_ts);
    t->n = total;
    t->nhost = nh;
    for (size_t k = 0; k < nh; k++) {
        const td_link *l = &links[order[k]];
        t->name[k] = l->name;
        t->kind[k] = (l->kind & TD_LINK_OP) ? TD_TREE_OP : TD_TREE_LAUNCH;
        t->ts[k] = l->ts;
        t->end[k] = l->ts + (l->dur > 0 ? l->dur : 0);
        t->parent[k] = TD_ATTR_NONE;
        if ((l->kind & TD_LINK_LAUNCH) && !(l->kind & TD_LINK_OP)) {
            size_t s = cslot(&m, l->corr);
            if (m.val[s] == TD_ATTR_NONE) { /* the first host side of an id */
                m.key[s] = l->corr;
                m.val[s] = (uint32_t)k;
            }
        }
        rank[k] = order[k];
    }
    /* Nest per thread: the nodes in (pid, tid, ts, file order). */
    uint32_t *byth = order;
    for (size_t k = 0; k < nh; k++)
        byth[k] = (uint32_t)k;
    sort_links = links;
    sort_rank = rank;
    qsort(byth, nh, sizeof *byth, cmp_thread_ts);
    size_t depth = 0, nops = 0, nroots = 0;
    int64_t pid = 0, tid = 0;
    for (size_t k = 0; k < nh; k++) {
        uint32_t v = byth[k];
        const td_link *l = &links[rank[v]];
        if (k == 0 || l->pid != pid || l->tid != tid) {
            depth = nops = 0;
            pid = l->pid;
            tid = l->tid;
        }
        while (depth && t->ts[v] >= t->end[stack[depth - 1]]) {
            if (t->kind[stack[--depth]] & TD_TREE_OP)
                nops--;
        }
        if (depth && t->end[v] > t->end[stack[depth - 1]]) {
            double over = t->end[stack[depth - 1]] - t->ts[v];
            if (over < OVERHANG_US && depth >= 2) {
                if (t->kind[stack[--depth]] & TD_TREE_OP)
                    nops--;
            } else {
                t->dropped++;
                t->kind[v] |= 0x80; /* left out */
                continue;
            }
        }
        if (depth) {
            t->parent[v] = stack[depth - 1];
            t->child0[stack[depth - 1] + 1]++;
        }
        stack[depth++] = v;
        if (t->kind[v] & TD_TREE_OP) {
            if (nops == 0) {
                uint32_t top = v;
                while (t->parent[top] != TD_ATTR_NONE)
                    top = t->parent[top];
                if (!(t->kind[top] & 0x40)) {
                    t->kind[top] |= 0x40; /* a root */
                    t->roots[nroots++] = top;
                }
            }
            nops++;
        }
    }
    /* gpu nodes */
    for (size_t k = 0; k < ng; k++) {
        const td_link *l = &links[gorder[k]];
        size_t v = nh + k;
        t->name[v] = l->name;
        t->kind[v] = TD_TREE_GPU;
        t->ts[v] = l->ts;
        t->end[v] = l->ts + (l->dur > 0 ? l->dur : 0);
        size_t s = cslot(&m, l->corr);
        uint32_t p = m.val[s];
        t->parent[v] = p;
        if (p == TD_ATTR_NONE)
            t->no_launch++;
        else
            t->child0[p + 1]++;
    }
    for (size_t v = 0; v < total; v++)
        t->child0[v + 1] += t->child0[v];
    for (size_t v = 0; v < total; v++) {
        uint32_t p = t->parent[v];
        if (p != TD_ATTR_NONE && !(t->kind[v] & 0x80))
            t->child[t->child0[p] + fill[p]++] = (uint32_t)v;
    }
    child_ts = t->ts;
    for (size_t v = 0; v < total; v++)
        if (t->child0[v + 1] - t->child0[v] > 1)
            qsort(t->child + t->child0[v], t->child0[v + 1] - t->child0[v], sizeof *t->child,
                  cmp_child);
    /* the gpu path: gpu nodes and their ancestors */
    for (size_t v = nh; v < total; v++) {
        t->kind[v] |= TD_TREE_PATH;
        for (uint32_t p = t->parent[v]; p != TD_ATTR_NONE && !(t->kind[p] & TD_TREE_PATH);
             p = t->parent[p])
            t->kind[p] |= TD_TREE_PATH;
    }
    /* roots in time order: node numbers are */
    child_ts = t->ts;
    qsort(t->roots, nroots, sizeof *t->roots, cmp_child);
    t->nroots = nroots;
    for (size_t v = 0; v < total; v++)
        t->kind[v] &= (uint8_t)~0xC0u;
    rc = 0;
out:
    free(order);
    free(gorder);
    free(rank);
    free(stack);
    free(fill);
    free(m.key);
    free(m.val);
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
