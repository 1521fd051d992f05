/*
 * Rows by stack and by nn.Module path (docs/stacks.md), from a file's
 * stack tree (td_file.stk_*): the row of a gpu event is its whole stack,
 * frames as shown (--normalize-names, --short-names) joined by ';' with the
 * event's own name last; or the nn.Module frames of that stack, joined by
 * '/', with every enclosing module's row too unless exclusive.
 */
#include "compare/row_builder.h"

#include <stdlib.h>
#include <string.h>

#define MODULE_PREFIX "nn.Module: "
#define UNKNOWN (-2)

struct td_stk_rows {
    builder *b; /* rows made here, or looked up through find (-1: no such row) */
    td_stk_find_fn find;
    void *find_ud;
    const td_file *f;
    const td_compare_opts *o;
    bool cpu;   /* --device cpu: the stacks of the cpu-side events (td_file.stk_cpu) */
    char **key; /* per names id: the frame as shown, or NULL until needed */
    size_t *klen;
    int8_t *is_mod; /* per names id: an nn.Module frame; -1 until known */
    /* by stack: (node + 1) << 32 | name -> row; by module on the cpu
     * side: the same key -> the row of a module event itself (its leaf) */
    uint64_t *hk;
    int64_t *hv;
    size_t slots, used;
    /* by module, per node */
    int64_t *near; /* the nearest module node at or above, -1 none */
    int64_t *mrow; /* a module node's row */
    char **mpath;  /* a module node's path */
    size_t *mplen;
    int64_t *rows; /* what td_stk_rows_of returns */
    char *buf;     /* a stack's key as it is made */
    size_t bufcap;
    uint32_t *chain;
};

void td_stk_rows_free(td_stk_rows *x)
{
    if (!x)
        return;
    size_t nn = td_strtab_count(x->f->names);
    for (size_t i = 0; x->key && i < nn; i++)
        free(x->key[i]);
    for (size_t i = 0; x->mpath && i < x->f->nstk; i++)
        free(x->mpath[i]);
    free(x->key);
    free(x->klen);
    free(x->is_mod);
    free(x->hk);
    free(x->hv);
    free(x->near);
    free(x->mrow);
    free(x->mpath);
    free(x->mplen);
    free(x->rows);
    free(x->buf);
    free(x->chain);
    free(x);
}

int td_stk_rows_new(td_stk_rows **out, builder *b, td_stk_find_fn find, void *find_ud,
                    const td_file *f, const td_compare_opts *o)
{
    td_stk_rows *x = calloc(1, sizeof *x);
    *out = NULL;
    if (!x)
        return TD_ENOMEM;
    size_t nn = td_strtab_count(f->names), ns = f->nstk;
    x->b = b;
    x->find = find;
    x->find_ud = find_ud;
    x->f = f;
    x->o = o;
    x->cpu = o->device == TD_DEVICE_CPU;
    x->key = calloc(nn + 1, sizeof *x->key);
    x->klen = calloc(nn + 1, sizeof *x->klen);
    x->is_mod = malloc(nn + 1);
    x->near = malloc((ns + 1) * sizeof *x->near);
    x->mrow = malloc((ns + 1) * sizeof *x->mrow);
    x->mpath = calloc(ns + 1, sizeof *x->mpath);
    x->mplen = calloc(ns + 1, sizeof *x->mplen);
    x->rows = malloc((TD_STK_MAX_DEPTH + 1) * sizeof *x->rows);
    x->chain = malloc((TD_STK_MAX_DEPTH + 1) * sizeof *x->chain);
    x->slots = 256;
    x->hk = calloc(x->slots, sizeof *x->hk);
    x->hv = malloc(x->slots * sizeof *x->hv);
    if (!x->key || !x->klen || !x->is_mod || !x->near || !x->mrow || !x->mpath || !x->mplen ||
        !x->rows || !x->chain || !x->hk || !x->hv) {
        td_stk_rows_free(x);
        return TD_ENOMEM;
    }
    memset(x->is_mod, -1, nn + 1);
    for (size_t i = 0; i < ns; i++)
        x->near[i] = x->mrow[i] = UNKNOWN;
    *out = x;
    return 0;
}

/* A frame as shown: the name's key (normalized, shortened as asked) with
 * the bytes folded format cannot hold replaced (';' by ':', control bytes by
 * a space); an empty name is "(no name)". */
static const char *frame_key(td_stk_rows *x, uint32_t id, size_t *len)
{
    if (id == TD_STK_CUT) {
        *len = strlen(TD_STACK_CUT_FRAME);
        return TD_STACK_CUT_FRAME;
    }
    if (x->key[id]) {
        *len = x->klen[id];
        return x->key[id];
    }
    size_t sl, kl;
    const char *s = td_strtab_get(x->f->names, id, &sl);
    char *k = NULL;
    if (td_name_key(&k, &kl, s, sl, x->o->short_names, x->o->normalize_names, x->o->renames) < 0)
        return NULL;
    const char *src = k ? k : s;
    if (kl == 0) {
        src = "(no name)";
        kl = strlen(src);
    }
    char *d = malloc(kl + 1);
    if (!d) {
        free(k);
        return NULL;
    }
    for (size_t i = 0; i < kl; i++) {
        unsigned char c = (unsigned char)src[i];
        d[i] = c == ';' ? ':' : c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    d[kl] = '\0';
    free(k);
    x->key[id] = d;
    x->klen[id] = kl;
    *len = kl;
    return d;
}

static int buf_put(td_stk_rows *x, size_t *at, const char *s, size_t n)
{
    if (*at + n + 1 > x->bufcap) {
        size_t cap = x->bufcap ? x->bufcap : 256;
        while (cap < *at + n + 1)
            cap *= 2;
        char *nb = realloc(x->buf, cap);
        if (!nb)
            return -1;
        x->buf = nb;
        x->bufcap = cap;
    }
    memcpy(x->buf + *at, s, n);
    *at += n;
    return 0;
}

/* The row of key s: made in the builder (-3 when out of memory), or the
 * diff's (-1 when it has none). */
static int64_t key_row(td_stk_rows *x, const char *s, size_t len)
{
    if (!x->b)
        return x->find(x->find_ud, s, len);
    int64_t r = td_builder_row(x->b, s, len, true);
    return r < 0 ? -3 : r;
}

/* The row of the stack ending at node (TD_ATTR_NONE: none) with the event
 * named name; -1 when out of memory. */
static int64_t make_stack_row(td_stk_rows *x, uint32_t node, uint32_t name)
{
    const td_file *f = x->f;
    size_t depth = 0, at = 0, kl;
    for (uint32_t n = node; n != TD_ATTR_NONE && n < f->nstk && depth < TD_STK_MAX_DEPTH;
         n = f->stk_parent[n])
        x->chain[depth++] = n;
    for (size_t d = depth; d-- > 0;) {
        const char *k = frame_key(x, f->stk_name[x->chain[d]], &kl);
        if (!k || buf_put(x, &at, k, kl) < 0 || buf_put(x, &at, ";", 1) < 0)
            return -3;
    }
    const char *k = frame_key(x, name, &kl);
    if (!k || buf_put(x, &at, k, kl) < 0)
        return -3;
    return key_row(x, x->buf, at);
}

static size_t hslot(const td_stk_rows *x, uint64_t k)
{
    uint64_t h = k * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h ^ (h >> 29)) & (x->slots - 1);
    while (x->hk[i] && x->hk[i] != k)
        i = (i + 1) & (x->slots - 1);
    return i;
}

static int hgrow(td_stk_rows *x)
{
    size_t on = x->slots, n = on * 2;
    uint64_t *ok = x->hk;
    int64_t *ov = x->hv;
    uint64_t *nk = calloc(n, sizeof *nk);
    int64_t *nv = malloc(n * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    x->hk = nk;
    x->hv = nv;
    x->slots = n;
    for (size_t i = 0; i < on; i++)
        if (ok[i]) {
            size_t s = hslot(x, ok[i]);
            x->hk[s] = ok[i];
            x->hv[s] = ov[i];
        }
    free(ok);
    free(ov);
    return 0;
}

static int64_t leaf_module_row(td_stk_rows *x, uint32_t node, uint32_t name);

/* The row of (node, name) by stack, or by module for a cpu-side module
 * event (the key is the same, the table one per td_stk_rows). */
static int64_t stack_row(td_stk_rows *x, uint32_t node, uint32_t name)
{
    uint64_t k = ((uint64_t)(node == TD_ATTR_NONE ? 0 : node + 1) << 32) | name;
    k |= (uint64_t)1 << 63; /* never 0 (the empty slot) */
    size_t s = hslot(x, k);
    if (x->hk[s])
        return x->hv[s];
    int64_t r =
        x->o->by == TD_BY_STACK ? make_stack_row(x, node, name) : leaf_module_row(x, node, name);
    if (r == -3)
        return -3;
    x->hk[s] = k;
    x->hv[s] = r;
    if (++x->used * 2 > x->slots && hgrow(x) < 0)
        return -3;
    return r;
}

static bool is_module(td_stk_rows *x, uint32_t id)
{
    if (id == TD_STK_CUT)
        return false;
    if (x->is_mod[id] < 0) {
        size_t sl;
        const char *s = td_strtab_get(x->f->names, id, &sl);
        size_t pl = strlen(MODULE_PREFIX);
        x->is_mod[id] = sl > pl && memcmp(s, MODULE_PREFIX, pl) == 0;
    }
    return x->is_mod[id] == 1;
}

/* The nearest nn.Module node at or above node, -1 for none. */
static int64_t near_module(td_stk_rows *x, uint32_t node)
{
    const td_file *f = x->f;
    size_t depth = 0;
    int64_t found = -1;
    uint32_t n = node;
    for (; n != TD_ATTR_NONE && n < f->nstk && depth <= TD_STK_MAX_DEPTH; n = f->stk_parent[n]) {
        if (x->near[n] != UNKNOWN) {
            found = x->near[n];
            break;
        }
        if (is_module(x, f->stk_name[n])) {
            found = n;
            break;
        }
        x->chain[depth++] = n;
    }
    for (size_t d = 0; d < depth; d++)
        x->near[x->chain[d]] = found;
    if (n != TD_ATTR_NONE && n < f->nstk)
        x->near[n] = found;
    return found;
}

/* A module's path component: the frame after "nn.Module: ", with its
 * instance number (a trailing _N) folded to _* under --normalize-names. */
static bool component(td_stk_rows *x, uint32_t id, const char **s, size_t *len)
{
    size_t sl, pl = strlen(MODULE_PREFIX);
    const char *n = td_strtab_get(x->f->names, id, &sl);
    *s = n + pl;
    *len = sl - pl;
    if (!x->o->normalize_names)
        return false;
    size_t k = *len;
    while (k > 0 && (*s)[k - 1] >= '0' && (*s)[k - 1] <= '9')
        k--;
    if (k == *len || k == 0 || (*s)[k - 1] != '_')
        return false;
    *len = k; /* "_" kept; "*" added by the caller */
    return true;
}

/* The path of module node m from the outermost module (x->mpath[m]): 0,
 * or -3 when out of memory. Only the path: an enclosing module gets a row
 * only when an event is counted in it (with --exclusive, an ancestor
 * whose time is all its children's has no row). */
static int module_path(td_stk_rows *x, uint32_t m, int depth)
{
    const td_file *f = x->f;
    if (x->mpath[m])
        return 0;
    uint32_t up = f->stk_parent[m];
    int64_t pm = up == TD_ATTR_NONE ? -1 : near_module(x, up);
    if (pm >= 0 && depth < TD_STK_MAX_DEPTH && module_path(x, (uint32_t)pm, depth + 1) == -3)
        return -3;
    const char *c;
    size_t cl;
    bool star = component(x, f->stk_name[m], &c, &cl);
    size_t pl = pm >= 0 ? x->mplen[pm] : 0;
    char *p = malloc(pl + 1 + cl + 2);
    if (!p)
        return -3;
    size_t at = 0;
    if (pm >= 0 && x->mpath[pm]) {
        memcpy(p, x->mpath[pm], pl);
        p[pl] = '/';
        at = pl + 1;
    }
    memcpy(p + at, c, cl);
    at += cl;
    if (star)
        p[at++] = '*';
    for (size_t i = 0; i < at; i++)
        if ((unsigned char)p[i] < 0x20)
            p[i] = ' ';
    p[at] = '\0';
    x->mpath[m] = p;
    x->mplen[m] = at;
    return 0;
}

/* The row of module node m (its path from the outermost module). */
static int64_t module_row(td_stk_rows *x, uint32_t m, int depth)
{
    if (x->mrow[m] != UNKNOWN)
        return x->mrow[m];
    if (module_path(x, m, depth) == -3)
        return -3;
    x->mrow[m] = key_row(x, x->mpath[m], x->mplen[m]);
    return x->mrow[m];
}

/* The row of a cpu-side module event itself (names id name) under node:
 * its parent module's path, then its own component. */
static int64_t leaf_module_row(td_stk_rows *x, uint32_t node, uint32_t name)
{
    int64_t pm = node == TD_ATTR_NONE ? -1 : near_module(x, node);
    if (pm >= 0 && module_path(x, (uint32_t)pm, 0) == -3)
        return -3;
    const char *c;
    size_t cl;
    bool star = component(x, name, &c, &cl);
    size_t pl = pm >= 0 && x->mpath[pm] ? x->mplen[pm] : 0, at = 0;
    char *p = malloc(pl + 1 + cl + 2);
    if (!p)
        return -3;
    if (pl) {
        memcpy(p, x->mpath[pm], pl);
        p[pl] = '/';
        at = pl + 1;
    }
    memcpy(p + at, c, cl);
    at += cl;
    if (star)
        p[at++] = '*';
    for (size_t i = pl; i < at; i++)
        if ((unsigned char)p[i] < 0x20)
            p[i] = ' ';
    int64_t r = key_row(x, p, at);
    free(p);
    return r;
}

/* The stack of event k of its side: the node of the innermost frame
 * around it (TD_ATTR_NONE: none). */
static uint32_t node_of(const td_stk_rows *x, size_t k)
{
    const td_file *f = x->f;
    uint32_t node = TD_ATTR_NONE;
    if (x->cpu)
        node = k < f->nstk_cpu && f->stk_cpu ? f->stk_cpu[k] : TD_ATTR_NONE;
    else
        node = k < f->nattr && f->stk_of ? f->stk_of[k] : TD_ATTR_NONE;
    return node != TD_ATTR_NONE && node >= f->nstk ? TD_ATTR_NONE : node;
}

long td_stk_rows_of(td_stk_rows *x, uint32_t name, size_t k, const int64_t **rows, bool *cut)
{
    const td_file *f = x->f;
    uint32_t node = node_of(x, k);
    *rows = x->rows;
    *cut = false;
    if (x->o->by == TD_BY_STACK) {
        for (uint32_t n = node; n != TD_ATTR_NONE && !*cut; n = f->stk_parent[n])
            *cut = f->stk_name[n] == TD_STK_CUT; /* the cut frame is innermost */
        if ((x->rows[0] = stack_row(x, node, name)) == -3)
            return TD_ENOMEM;
        return x->rows[0] >= 0;
    }
    long nr = 0;
    if (x->cpu && is_module(x, name)) { /* a module event: its own row first */
        if ((x->rows[0] = stack_row(x, node, name)) == -3)
            return TD_ENOMEM;
        nr = x->rows[0] >= 0;
        if (x->o->exclusive)
            return nr;
    }
    for (int64_t m = node == TD_ATTR_NONE ? -1 : near_module(x, node); m >= 0;) {
        int64_t r = module_row(x, (uint32_t)m, 0);
        if (r == -3)
            return TD_ENOMEM;
        if (r >= 0)
            x->rows[nr++] = r;
        uint32_t up = f->stk_parent[m];
        if (x->o->exclusive || up == TD_ATTR_NONE || nr >= TD_STK_MAX_DEPTH)
            break;
        m = near_module(x, up);
    }
    return nr; /* 0: under no module */
}

bool td_stk_has_modules(const td_file *f)
{
    size_t pl = strlen(MODULE_PREFIX);
    for (size_t i = 0; i < f->nstk; i++) {
        if (f->stk_name[i] == TD_STK_CUT)
            continue;
        size_t sl;
        const char *s = td_strtab_get(f->names, f->stk_name[i], &sl);
        if (sl > pl && memcmp(s, MODULE_PREFIX, pl) == 0)
            return true;
    }
    return false;
}

int td_stk_in_module(td_stk_rows *x, size_t k, const char *path, size_t len)
{
    const td_file *f = x->f;
    uint32_t node = node_of(x, k);
    int depth = 0;
    for (int64_t m = node == TD_ATTR_NONE ? -1 : near_module(x, node);
         m >= 0 && depth < TD_STK_MAX_DEPTH; depth++) {
        if (module_path(x, (uint32_t)m, 0) == -3)
            return TD_ENOMEM;
        if (x->mpath[m] && x->mplen[m] == len && memcmp(x->mpath[m], path, len) == 0)
            return 1;
        uint32_t up = f->stk_parent[m];
        if (x->o->exclusive || up == TD_ATTR_NONE)
            break;
        m = near_module(x, up);
    }
    return 0;
}
