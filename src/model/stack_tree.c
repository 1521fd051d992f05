/*
 * The frames of a file's stacks (docs/stacks.md): a tree with a node per
 * distinct (parent node, frame name), so that a GPU event's whole stack is
 * one node id. A stack deeper than TD_STK_MAX_DEPTH frames ends in one
 * TD_STK_CUT frame that stands for every frame beyond it.
 */
#include "model/load.h"

#include <stdlib.h>
#include <string.h>

int td_stk_init(td_stk_tree *t, td_file *f)
{
    memset(t, 0, sizeof *t);
    t->f = f;
    t->slots = 1024;
    t->key = calloc(t->slots, sizeof *t->key);
    t->val = malloc(t->slots * sizeof *t->val);
    return t->key && t->val ? 0 : -1;
}

void td_stk_done(td_stk_tree *t)
{
    free(t->depth);
    free(t->key);
    free(t->val);
    memset(t, 0, sizeof *t);
}

static size_t slot_of(const td_stk_tree *t, uint64_t k)
{
    uint64_t h = k * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h ^ (h >> 31)) & (t->slots - 1);
    while (t->key[i] != 0 && t->key[i] != k)
        i = (i + 1) & (t->slots - 1);
    return i;
}

static int rehash(td_stk_tree *t)
{
    size_t n = t->slots * 2;
    uint64_t *ok = t->key;
    uint32_t *ov = t->val;
    size_t on = t->slots;
    t->key = calloc(n, sizeof *t->key);
    t->val = malloc(n * sizeof *t->val);
    t->slots = n;
    if (!t->key || !t->val) {
        free(t->key);
        free(t->val);
        t->key = ok; /* td_stk_done frees the old ones */
        t->val = ov;
        t->slots = on;
        return -1;
    }
    for (size_t i = 0; i < on; i++)
        if (ok[i]) {
            size_t s = slot_of(t, ok[i]);
            t->key[s] = ok[i];
            t->val[s] = ov[i];
        }
    free(ok);
    free(ov);
    return 0;
}

static int grow_nodes(td_stk_tree *t)
{
    td_file *f = t->f;
    size_t cap = t->cap ? t->cap * 2 : 256;
    uint32_t *p = realloc(f->stk_parent, cap * sizeof *p);
    if (p)
        f->stk_parent = p;
    uint32_t *nm = realloc(f->stk_name, cap * sizeof *nm);
    if (nm)
        f->stk_name = nm;
    uint32_t *d = realloc(t->depth, cap * sizeof *d);
    if (d)
        t->depth = d;
    if (!p || !nm || !d)
        return -1;
    t->cap = cap;
    return 0;
}

uint32_t td_stk_node(td_stk_tree *t, uint32_t parent, uint32_t name)
{
    td_file *f = t->f;
    uint32_t depth = parent == TD_ATTR_NONE ? 1 : t->depth[parent] + 1;
    if (parent != TD_ATTR_NONE && f->stk_name[parent] == TD_STK_CUT) {
        f->stk_cut++; /* beyond the cut: folded into it */
        return parent;
    }
    if (depth >= TD_STK_MAX_DEPTH) {
        name = TD_STK_CUT;
        f->stk_cut++;
    }
    uint64_t k = ((uint64_t)parent + 1) << 32 | name;
    if (parent == TD_ATTR_NONE)
        k = (uint64_t)1 << 63 | name; /* (TD_ATTR_NONE + 1) would wrap to 0 */
    size_t s = slot_of(t, k);
    if (t->key[s])
        return t->val[s];
    if (f->nstk >= UINT32_MAX - 1 || (f->nstk == t->cap && grow_nodes(t) < 0))
        return UINT32_MAX;
    uint32_t id = (uint32_t)f->nstk++;
    f->stk_parent[id] = parent;
    f->stk_name[id] = name;
    t->depth[id] = depth;
    t->key[s] = k;
    t->val[s] = id;
    if (f->nstk * 2 > t->slots && rehash(t) < 0)
        return UINT32_MAX;
    return id;
}
