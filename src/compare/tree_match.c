/* compare/tree_match.c: the same work matched across two stacks by their
 * call trees (docs/tree-match.md). TraceLens's TraceDiff rules, re-stated
 * there: children on the gpu path aligned by edit distance over normalised
 * names, same-named children re-paired by up to 4 levels of their
 * children's names, wrappers replaced by their gpu-path children; the
 * roots aligned the same way instead of by position. Each lowest common
 * ancestor (LCA) is reported with |U| of its unmatched gpu events. */
#include "compare/compare.h"
#include "model/model.h"
#include "model/selection.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The edit distance is quadratic in one node's children: above this many
 * cells (about 64 MB of table) the children are paired k-th same name to
 * k-th same name instead (docs/tree-match.md, "Caps"). */
#define WF_MAX_CELLS ((size_t)1 << 24)
/* Same-name re-pairing scores every pair of a name's nodes: skipped for a
 * name with more pairs than this; wrapper search likewise. */
#define PAIR_MAX ((size_t)1 << 16)
/* Names gathered per node for the 4 levels of the re-pairing. */
#define LEVEL_MAX 4096
/* Deeper merges than this report the pair as one LCA. */
#define DEPTH_MAX 2000

#define NONE TD_ATTR_NONE

typedef uint64_t ref; /* file << 32 | node */
#define RF(r) ((size_t)((r) >> 32))
#define RV(r) ((uint32_t)(r))
#define MKREF(f, v) (((uint64_t)(f) << 32) | (uint64_t)(v))

enum { NF_GRAPH = 1, NF_CROSS = 2 }; /* name flags: a graph launch; cuda/hipLaunchKernel */

typedef struct side {
    const td_set *set; /* during td_tree_match_run only */
    size_t nfiles;
    uint32_t **norm;  /* per file, per names id: the normalised name id (shared) */
    uint8_t **nflag;  /* per file, per names id: NF_ bits */
    uint8_t **bucket; /* per file, per gpu node (node - nhost): 0 or a B_ part */
    uint32_t **disp;  /* per file, per names id: its display id, or NONE until first asked */
    uint64_t capped;
    const struct pick *pk; /* the selection; NULL: every rank and iteration */
} side;

/* A side's selection: the files (ranks) taken and, per file, the
 * iterations (NULL: every one, a whole-trace side). */
typedef struct pick {
    uint8_t *fsel;
    uint8_t **iok;
    size_t nfiles;
} pick;

enum { B_MATCHED = 1, B_ONE, B_NOLAUNCH, B_OUTSIDE, B_OTHER, B_N };

typedef struct lrow {
    uint32_t name; /* display id (disp strtab) */
    uint32_t path; /* path node, or NONE */
    int live;
    ref *ev[2]; /* gpu events per side */
    size_t nev[2], cap[2];
    ref node[2]; /* the matched pair */
} lrow;

typedef struct pnode {
    uint32_t name, k, parent;
} pnode;

struct td_tree_match {
    side s[2];
    td_strtab *normtab, *disp;
    td_strtab *kn; /* kernel names for the lists (disp's strings must not move once handed out) */
    lrow *rows;
    size_t nrows, rowcap;
    pnode *paths;
    size_t npaths, pathcap;
    td_tree_lca *lcas;
    size_t nlcas;
    char **strs;
    size_t nstrs, strcap;
    td_tree_summary sum[2];
    char *notes[8];
    size_t nnotes;
    int flags;
    int oom;
    ref *stk; /* add_subtree's stack, kept from one call to the next */
    size_t stkcap;
};

/* ---- names ---- */

static int normalise(td_strtab *out, const char *s, size_t len, uint32_t *id, uint8_t *flag)
{
    char small[256];
    char *buf = len * 3 + 16 <= sizeof small ? small : malloc(len * 3 + 16);
    if (!buf)
        return TD_ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] == '0' && i + 2 < len + 1 && i + 1 < len && s[i + 1] == 'x' && i + 2 < len &&
            strchr("0123456789abcdefABCDEF", s[i + 2]) && s[i + 2]) {
            size_t j = i + 2;
            while (j < len && s[j] && strchr("0123456789abcdefABCDEF", s[j]))
                j++;
            memcpy(buf + o, "0xXXXX", 6);
            o += 6;
            i = j;
            continue;
        }
        if (s[i] == '.' && i + 4 < len && memcmp(s + i, ".py(", 4) == 0) {
            size_t j = i + 4;
            while (j < len && s[j] >= '0' && s[j] <= '9')
                j++;
            if (j > i + 4 && j + 1 < len && s[j] == ')' && s[j + 1] == ':') {
                memcpy(buf + o, ".py:", 4);
                o += 4;
                i = j + 2;
                continue;
            }
        }
        buf[o++] = s[i++];
    }
    *flag = 0;
    const char *use = buf;
    size_t ulen = o;
    if ((o == 14 && memcmp(buf, "cuLaunchKernel", 14) == 0) ||
        (o == 21 && memcmp(buf, "hipModuleLaunchKernel", 21) == 0)) {
        use = "__kernel_launch__";
        ulen = strlen(use);
    } else if ((o == 16 && memcmp(buf, "cudaLaunchKernel", 16) == 0) ||
               (o == 15 && memcmp(buf, "hipLaunchKernel", 15) == 0)) {
        use = "__launch_kernel__";
        ulen = strlen(use);
        *flag |= NF_CROSS;
    } else if ((o == 15 && memcmp(buf, "cudaGraphLaunch", 15) == 0) ||
               (o == 14 && memcmp(buf, "hipGraphLaunch", 14) == 0))
        *flag |= NF_GRAPH;
    int64_t r = td_strtab_intern(out, use, ulen);
    if (buf != small)
        free(buf);
    if (r < 0)
        return TD_ENOMEM;
    *id = (uint32_t)r;
    return 0;
}

/* The display name: the raw name without "(N)" groups (TraceLens's LCA name). */
static uint32_t disp_id(td_tree_match *m, const td_file *f, uint32_t name)
{
    size_t len;
    const char *s = td_strtab_get(f->names, name, &len);
    char *buf = malloc(len + 1);
    if (!buf) {
        m->oom = 1;
        return 0;
    }
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] == '(') {
            size_t j = i + 1;
            while (j < len && s[j] >= '0' && s[j] <= '9')
                j++;
            if (j > i + 1 && j < len && s[j] == ')') {
                i = j + 1;
                continue;
            }
        }
        buf[o++] = s[i++];
    }
    int64_t r = td_strtab_intern(m->disp, buf, o);
    free(buf);
    if (r < 0) {
        m->oom = 1;
        return 0;
    }
    return (uint32_t)r;
}

/* ---- node access ---- */

static const td_tree *TR(const side *s, ref r)
{
    return s->set->files[RF(r)]->tree;
}

static uint32_t NAME(const side *s, ref r)
{
    return s->norm[RF(r)][TR(s, r)->name[RV(r)]];
}

static uint8_t KIND(const side *s, ref r)
{
    return TR(s, r)->kind[RV(r)];
}

static double TS(const side *s, ref r)
{
    return TR(s, r)->ts[RV(r)];
}

static bool is_launch(const side *s, ref r)
{
    const td_tree *t = TR(s, r);
    return (t->kind[RV(r)] & TD_TREE_LAUNCH) && !(s->nflag[RF(r)][t->name[RV(r)]] & NF_GRAPH);
}

static bool is_gpu(const side *s, ref r)
{
    return (KIND(s, r) & TD_TREE_GPU) != 0;
}

static bool on_path(const side *s, ref r)
{
    return (KIND(s, r) & TD_TREE_PATH) != 0;
}

/* ---- lists ---- */

typedef struct rlist {
    ref *v;
    size_t n, cap;
} rlist;

static int rpush(rlist *l, ref r)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 8;
        ref *nv = realloc(l->v, c * sizeof *nv);
        if (!nv)
            return TD_ENOMEM;
        l->v = nv;
        l->cap = c;
    }
    l->v[l->n++] = r;
    return 0;
}

static void gpu_children(const side *s, ref r, rlist *out)
{
    const td_tree *t = TR(s, r);
    uint32_t v = RV(r);
    out->n = 0;
    for (uint32_t k = t->child0[v]; k < t->child0[v + 1]; k++)
        if (t->kind[t->child[k]] & TD_TREE_PATH)
            rpush(out, MKREF(RF(r), t->child[k]));
}

static _Thread_local const side *sort_side;

static int cmp_ref_ts(const void *a, const void *b)
{
    ref x = *(const ref *)a, y = *(const ref *)b;
    double p = TS(sort_side, x), q = TS(sort_side, y);
    if (p != q)
        return p < q ? -1 : 1;
    return (x > y) - (x < y);
}

static void sort_ts(const side *s, rlist *l)
{
    sort_side = s;
    qsort(l->v, l->n, sizeof *l->v, cmp_ref_ts);
}

/* ---- alignment ---- */

/* m1[i] = j or -1, m2[j] = i or -1 */
typedef struct align {
    long *m1, *m2;
} align;

typedef struct key {
    uint32_t name;
    size_t idx;
} key;

static int cmp_key(const void *a, const void *b)
{
    const key *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The k-th of a name on one side paired with its k-th on the other: the
 * fallback above WF_MAX_CELLS. */
static int pair_by_name(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, align *al)
{
    key *ka = malloc((na + 1) * sizeof *ka), *kb = malloc((nb + 1) * sizeof *kb);
    if (!ka || !kb) {
        free(ka);
        free(kb);
        return TD_ENOMEM;
    }
    for (size_t i = 0; i < na; i++)
        ka[i] = (key){a[i], i};
    for (size_t j = 0; j < nb; j++)
        kb[j] = (key){b[j], j};
    qsort(ka, na, sizeof *ka, cmp_key);
    qsort(kb, nb, sizeof *kb, cmp_key);
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        if (ka[i].name < kb[j].name)
            i++;
        else if (ka[i].name > kb[j].name)
            j++;
        else {
            al->m1[ka[i].idx] = (long)kb[j].idx;
            al->m2[kb[j].idx] = (long)ka[i].idx;
            i++;
            j++;
        }
    }
    free(ka);
    free(kb);
    return 0;
}

/* Wagner-Fischer over the names, backtracked as TraceLens does (a match
 * whenever the names agree, else a delete when it is on a best path). */
static int wf(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, align *al,
              uint64_t *capped)
{
    for (size_t i = 0; i < na; i++)
        al->m1[i] = -1;
    for (size_t j = 0; j < nb; j++)
        al->m2[j] = -1;
    if (!na || !nb)
        return 0;
    if ((na + 1) > WF_MAX_CELLS / (nb + 1)) {
        ++*capped;
        return pair_by_name(a, na, b, nb, al);
    }
    /* The backtrack starts at the ends and pairs equal names there first,
     * and the table of the rest is the table's own corner: the common
     * suffix is paired without it (all of two equal lists). */
    while (na && nb && a[na - 1] == b[nb - 1]) {
        na--;
        nb--;
        al->m1[na] = (long)nb;
        al->m2[nb] = (long)na;
    }
    if (!na || !nb) /* the rest of one list: unpaired */
        return 0;
    size_t w = nb + 1;
    uint32_t *dp = malloc((na + 1) * w * sizeof *dp);
    if (!dp)
        return TD_ENOMEM;
    for (size_t i = 0; i <= na; i++)
        dp[i * w] = (uint32_t)i;
    for (size_t j = 0; j <= nb; j++)
        dp[j] = (uint32_t)j;
    for (size_t i = 1; i <= na; i++) {
        uint32_t *row = dp + i * w, *up = row - w;
        uint32_t ai = a[i - 1];
        for (size_t j = 1; j <= nb; j++) {
            uint32_t x = up[j] + 1, y = row[j - 1] + 1, z = up[j - 1] + (ai != b[j - 1]);
            uint32_t mn = x < y ? x : y;
            row[j] = mn < z ? mn : z;
        }
    }
    size_t i = na, j = nb;
    while (i > 0 || j > 0) {
        if (i > 0 && j > 0 && a[i - 1] == b[j - 1]) {
            al->m1[i - 1] = (long)(j - 1);
            al->m2[j - 1] = (long)(i - 1);
            i--;
            j--;
        } else if (i > 0 && (j == 0 || dp[i * w + j] == dp[(i - 1) * w + j] + 1))
            i--;
        else
            j--;
    }
    free(dp);
    return 0;
}

/* The sorted names of a node's gpu-path descendants, level by level (1..4). */
typedef struct levels {
    uint32_t *names;
    size_t start[5]; /* level d: names[start[d] .. start[d + 1]) */
    size_t nlev;
} levels;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int get_levels(const side *s, ref r, levels *lv)
{
    rlist cur = {0}, next = {0};
    size_t cap = 32; /* grown up to LEVEL_MAX: most subtrees are small */
    lv->names = malloc(cap * sizeof *lv->names);
    lv->nlev = 0;
    size_t n = 0;
    int rc = lv->names && rpush(&cur, r) == 0 ? 0 : TD_ENOMEM;
    for (int d = 0; rc == 0 && d < 4 && cur.n; d++) {
        lv->start[d] = n;
        next.n = 0;
        for (size_t i = 0; i < cur.n && rc == 0; i++) {
            const td_tree *t = TR(s, cur.v[i]);
            uint32_t v = RV(cur.v[i]);
            for (uint32_t k = t->child0[v]; k < t->child0[v + 1]; k++) {
                uint32_t c = t->child[k];
                if (!(t->kind[c] & TD_TREE_PATH) || n >= LEVEL_MAX)
                    continue;
                if (n == cap) {
                    size_t nc = 2 * cap < LEVEL_MAX ? 2 * cap : LEVEL_MAX;
                    uint32_t *nn = realloc(lv->names, nc * sizeof *nn);
                    if (!nn) {
                        rc = TD_ENOMEM;
                        break;
                    }
                    lv->names = nn;
                    cap = nc;
                }
                ref cr = MKREF(RF(cur.v[i]), c);
                lv->names[n++] = NAME(s, cr);
                if (rpush(&next, cr) < 0)
                    rc = TD_ENOMEM;
            }
        }
        qsort(lv->names + lv->start[d], n - lv->start[d], sizeof *lv->names, cmp_u32);
        lv->start[d + 1] = n;
        lv->nlev = (size_t)d + 1;
        rlist tmp = cur;
        cur = next;
        next = tmp;
    }
    free(cur.v);
    free(next.v);
    return rc;
}

/* (levels equal before the first difference, multiset overlap there) */
static void match_depth(const levels *x, const levels *y, size_t *d, size_t *ov)
{
    size_t mx = x->nlev > y->nlev ? x->nlev : y->nlev;
    for (size_t k = 0; k < mx; k++) {
        const uint32_t *a = k < x->nlev ? x->names + x->start[k] : NULL;
        const uint32_t *b = k < y->nlev ? y->names + y->start[k] : NULL;
        size_t na = k < x->nlev ? x->start[k + 1] - x->start[k] : 0;
        size_t nb = k < y->nlev ? y->start[k + 1] - y->start[k] : 0;
        if (na == nb && (!na || memcmp(a, b, na * sizeof *a) == 0))
            continue;
        size_t i = 0, j = 0, o = 0;
        while (i < na && j < nb) {
            if (a[i] == b[j]) {
                o++;
                i++;
                j++;
            } else if (a[i] < b[j])
                i++;
            else
                j++;
        }
        *d = k;
        *ov = o;
        return;
    }
    *d = mx;
    *ov = 0;
}

/* A candidate pair of repair_group as one sortable number: the best pairs
 * first (deeper agreement, then more overlap, then the first alignment's
 * pair), ties in (i, j) order, which is p * n2 + q since a name's nodes
 * are kept in index order. d <= 4, ov <= LEVEL_MAX, p * n2 + q < PAIR_MAX. */
#define CAND_PQ_BITS 17
#define CAND_ORIG_BIT CAND_PQ_BITS
#define CAND_OV_SHIFT (CAND_ORIG_BIT + 1)
#define CAND_D_SHIFT (CAND_OV_SHIFT + 13)
_Static_assert(LEVEL_MAX < (1 << 13) && PAIR_MAX <= ((size_t)1 << CAND_PQ_BITS),
               "candidate key fields");

static uint64_t cand_key(size_t d, size_t ov, bool orig, size_t pq)
{
    return ((uint64_t)(4 - d) << CAND_D_SHIFT) | ((uint64_t)(LEVEL_MAX - ov) << CAND_OV_SHIFT) |
           ((uint64_t)!orig << CAND_ORIG_BIT) | (uint64_t)pq;
}

/* Sorts the keys of n candidates generated in (p, q) order: a stable
 * radix sort on the bits above the (p, q) part (two passes of 8 bits, the
 * rank part being 17 bits: the third pass only when some key has the top
 * bit), insertion for a handful. tmp holds n. */
static void sort_cands(uint64_t *k, uint64_t *tmp, size_t n)
{
    if (n < 32) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = k[i];
            size_t j = i;
            for (; j > 0 && k[j - 1] > x; j--)
                k[j] = k[j - 1];
            k[j] = x;
        }
        return;
    }
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++)
        top |= k[i];
    uint64_t *src = k, *dst = tmp;
    for (int shift = CAND_ORIG_BIT; shift < 64 && (top >> shift); shift += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++)
            cnt[((src[i] >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            cnt[b + 1] += cnt[b];
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, n * sizeof *k);
}

/* Same-named children re-paired by their subtrees (TraceLens's
 * disambiguation): for each name on both sides, more than once on one,
 * matched at least once, every pair scored by the levels that agree; the
 * best pairs first, the first alignment's pairs winning ties. */
/* One name's nodes (g1 on side 1, g2 on side 2) re-paired by their
 * subtrees; o1: the first alignment's pairs. */
static int repair_group(const side *s1, const side *s2, const rlist *c1, const rlist *c2,
                        const key *g1, size_t n1, const key *g2, size_t n2, const long *o1,
                        align *al)
{
    levels *l1 = calloc(n1, sizeof *l1), *l2 = calloc(n2, sizeof *l2);
    uint64_t *cd = malloc(2 * n1 * n2 * sizeof *cd);
    int rc = l1 && l2 && cd ? 0 : TD_ENOMEM;
    for (size_t k = 0; rc == 0 && k < n1; k++)
        rc = get_levels(s1, c1->v[g1[k].idx], &l1[k]);
    for (size_t k = 0; rc == 0 && k < n2; k++)
        rc = get_levels(s2, c2->v[g2[k].idx], &l2[k]);
    if (rc == 0) {
        size_t nc = 0;
        for (size_t p = 0; p < n1; p++)
            for (size_t q = 0; q < n2; q++) {
                size_t d, ov;
                match_depth(&l1[p], &l2[q], &d, &ov);
                cd[nc] = cand_key(d, ov, o1[g1[p].idx] == (long)g2[q].idx, nc);
                nc++;
            }
        sort_cands(cd, cd + nc, nc);
        for (size_t p = 0; p < n1; p++)
            al->m1[g1[p].idx] = -1;
        for (size_t q = 0; q < n2; q++)
            al->m2[g2[q].idx] = -1;
        size_t want = n1 < n2 ? n1 : n2, got = 0;
        for (size_t p = 0; p < nc && got < want; p++) {
            size_t pq = (size_t)(cd[p] & (((uint64_t)1 << CAND_PQ_BITS) - 1));
            size_t i = g1[pq / n2].idx, j = g2[pq % n2].idx;
            if (al->m1[i] >= 0 || al->m2[j] >= 0)
                continue;
            al->m1[i] = (long)j;
            al->m2[j] = (long)i;
            got++;
        }
    }
    for (size_t k = 0; l1 && k < n1; k++)
        free(l1[k].names);
    for (size_t k = 0; l2 && k < n2; k++)
        free(l2[k].names);
    free(l1);
    free(l2);
    free(cd);
    return rc;
}

static key *keys_of(const uint32_t *names, size_t n)
{
    key *k = malloc((n + 1) * sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < n; i++)
        k[i] = (key){names[i], i};
    qsort(k, n, sizeof *k, cmp_key);
    return k;
}

static int repair(const side *s1, const side *s2, const rlist *c1, const rlist *c2,
                  const uint32_t *a, const uint32_t *b, align *al, uint64_t *capped)
{
    size_t na = c1->n, nb = c2->n;
    key *ka = keys_of(a, na), *kb = keys_of(b, nb);
    long *o1 = malloc((na + 1) * sizeof *o1);
    int rc = ka && kb && o1 ? 0 : TD_ENOMEM;
    if (rc == 0)
        memcpy(o1, al->m1, na * sizeof *o1);
    for (size_t i = 0, j = 0; rc == 0 && i < na && j < nb;) {
        if (ka[i].name < kb[j].name) {
            i++;
            continue;
        }
        if (ka[i].name > kb[j].name) {
            j++;
            continue;
        }
        size_t ie = i, je = j;
        while (ie < na && ka[ie].name == ka[i].name)
            ie++;
        while (je < nb && kb[je].name == kb[j].name)
            je++;
        size_t n1 = ie - i, n2 = je - j;
        bool matched = false;
        for (size_t k = i; k < ie; k++)
            matched |= al->m1[ka[k].idx] >= 0;
        if ((n1 > 1 || n2 > 1) && matched && n1 * n2 > PAIR_MAX)
            ++*capped;
        else if ((n1 > 1 || n2 > 1) && matched)
            rc = repair_group(s1, s2, c1, c2, ka + i, n1, kb + j, n2, o1, al);
        i = ie;
        j = je;
    }
    free(ka);
    free(kb);
    free(o1);
    return rc;
}

static int names_of(const side *s, const rlist *l, uint32_t **out)
{
    *out = malloc((l->n + 1) * sizeof **out);
    if (!*out)
        return TD_ENOMEM;
    for (size_t i = 0; i < l->n; i++)
        (*out)[i] = NAME(s, l->v[i]);
    return 0;
}

/* Align two lists: positionally when asked and possible, else by edit
 * distance and same-name re-pairing. al sized for the lists. */
static int align_lists(td_tree_match *m, const rlist *c1, const rlist *c2, align *al,
                       bool positional_ok)
{
    const side *s1 = &m->s[0], *s2 = &m->s[1];
    if (positional_ok && c1->n == c2->n) {
        bool any = false;
        for (size_t i = 0; i < c1->n && !any; i++)
            any = is_launch(s1, c1->v[i]) || is_launch(s2, c2->v[i]);
        if (!any) {
            for (size_t i = 0; i < c1->n; i++)
                al->m1[i] = al->m2[i] = (long)i;
            return 0;
        }
    }
    uint32_t *a = NULL, *b = NULL;
    int rc = names_of(s1, c1, &a);
    if (rc == 0)
        rc = names_of(s2, c2, &b);
    if (rc == 0)
        rc = wf(a, c1->n, b, c2->n, al, &m->s[0].capped);
    if (rc == 0)
        rc = repair(s1, s2, c1, c2, a, b, al, &m->s[0].capped);
    free(a);
    free(b);
    return rc;
}

static int align_new(align *al, size_t n1, size_t n2)
{
    al->m1 = malloc((n1 + 1) * sizeof *al->m1);
    al->m2 = malloc((n2 + 1) * sizeof *al->m2);
    if (!al->m1 || !al->m2)
        return TD_ENOMEM;
    for (size_t i = 0; i < n1; i++)
        al->m1[i] = -1;
    for (size_t j = 0; j < n2; j++)
        al->m2[j] = -1;
    return 0;
}

static void align_free(align *al)
{
    free(al->m1);
    free(al->m2);
    al->m1 = al->m2 = NULL;
}

/* Down single gpu-path children to where the work branches (TraceLens's
 * collapse): stops at a launch, a cpu op with a launch child, or a node
 * with other than one gpu-path child (those are *kids). */
static ref collapse(const side *s, ref r, rlist *kids)
{
    kids->n = 0;
    for (;;) {
        if (is_launch(s, r))
            return r;
        const td_tree *t = TR(s, r);
        uint32_t v = RV(r);
        if (t->kind[v] & TD_TREE_OP) {
            for (uint32_t k = t->child0[v]; k < t->child0[v + 1]; k++)
                if (is_launch(s, MKREF(RF(r), t->child[k])))
                    return r;
        }
        size_t n = 0;
        uint32_t only = 0;
        for (uint32_t k = t->child0[v]; k < t->child0[v + 1]; k++)
            if (t->kind[t->child[k]] & TD_TREE_PATH) {
                n++;
                only = t->child[k];
            }
        if (n != 1) {
            gpu_children(s, r, kids);
            return r;
        }
        r = MKREF(RF(r), only);
    }
}

/* ---- rows, paths, buckets ---- */

static uint32_t new_row(td_tree_match *m, uint32_t name, uint32_t path)
{
    if (m->nrows == m->rowcap) {
        size_t c = m->rowcap ? m->rowcap * 2 : 64;
        lrow *nr = realloc(m->rows, c * sizeof *nr);
        if (!nr) {
            m->oom = 1;
            return NONE;
        }
        m->rows = nr;
        m->rowcap = c;
    }
    lrow *r = &m->rows[m->nrows];
    memset(r, 0, sizeof *r);
    r->name = name;
    r->path = path;
    return (uint32_t)m->nrows++;
}

static uint32_t new_path(td_tree_match *m, uint32_t name, uint32_t k, uint32_t parent)
{
    if (m->npaths == m->pathcap) {
        size_t c = m->pathcap ? m->pathcap * 2 : 64;
        pnode *np = realloc(m->paths, c * sizeof *np);
        if (!np) {
            m->oom = 1;
            return parent;
        }
        m->paths = np;
        m->pathcap = c;
    }
    m->paths[m->npaths] = (pnode){name, k, parent};
    return (uint32_t)m->npaths++;
}

/* Every gpu event under r (r itself when it is one) into row's side list. */
static void add_subtree(td_tree_match *m, int sd, lrow *row, ref r)
{
    side *s = &m->s[sd];
    rlist st = {m->stk, 0, m->stkcap};
    if (rpush(&st, r) < 0) {
        m->oom = 1;
        m->stk = st.v;
        m->stkcap = st.cap;
        return;
    }
    while (st.n) {
        ref x = st.v[--st.n];
        const td_tree *t = TR(s, x);
        uint32_t v = RV(x);
        if (t->kind[v] & TD_TREE_GPU) {
            if (row->nev[sd] == row->cap[sd]) {
                size_t c = row->cap[sd] ? row->cap[sd] * 2 : 4;
                ref *nv = realloc(row->ev[sd], c * sizeof *nv);
                if (!nv) {
                    m->oom = 1;
                    break;
                }
                row->ev[sd] = nv;
                row->cap[sd] = c;
            }
            row->ev[sd][row->nev[sd]++] = x;
            continue;
        }
        for (uint32_t k = t->child0[v]; k < t->child0[v + 1]; k++)
            if ((t->kind[t->child[k]] & TD_TREE_PATH) && rpush(&st, MKREF(RF(x), t->child[k])) < 0)
                m->oom = 1;
    }
    m->stk = st.v;
    m->stkcap = st.cap;
}

/* disp_id of a node's name, worked out once per file and name (a name
 * recurs on every step; its first request interns it, as before). */
static uint32_t disp_of(td_tree_match *m, int sd, ref r)
{
    const td_file *f = m->s[sd].set->files[RF(r)];
    uint32_t nm = f->tree->name[RV(r)];
    uint32_t *c = &m->s[sd].disp[RF(r)][nm];
    if (*c == NONE && !m->oom)
        *c = disp_id(m, f, nm);
    return *c == NONE ? 0 : *c;
}

static uint32_t pair_name(td_tree_match *m, ref u1, ref u2)
{
    uint32_t a = disp_of(m, 0, u1);
    uint32_t b = disp_of(m, 1, u2);
    if (a == b || m->oom)
        return a;
    size_t la, lb;
    const char *sa = td_strtab_get(m->disp, a, &la), *sb = td_strtab_get(m->disp, b, &lb);
    char *buf = malloc(la + lb + 4);
    if (!buf) {
        m->oom = 1;
        return a;
    }
    memcpy(buf, sa, la);
    memcpy(buf + la, " | ", 3);
    memcpy(buf + la + 3, sb, lb);
    int64_t r = td_strtab_intern(m->disp, buf, la + lb + 3);
    free(buf);
    if (r < 0) {
        m->oom = 1;
        return a;
    }
    return (uint32_t)r;
}

/* The "#k" of each entry of c1: its place among the same-named (0: the
 * name is alone). */
static uint32_t *sibling_k(const side *s, const rlist *c)
{
    uint32_t *k = calloc(c->n + 1, sizeof *k);
    key *ks = malloc((c->n + 1) * sizeof *ks);
    if (!k || !ks) {
        free(k);
        free(ks);
        return NULL;
    }
    for (size_t i = 0; i < c->n; i++)
        ks[i] = (key){NAME(s, c->v[i]), i};
    qsort(ks, c->n, sizeof *ks, cmp_key);
    for (size_t i = 0, j; i < c->n; i = j) {
        for (j = i + 1; j < c->n && ks[j].name == ks[i].name;)
            j++;
        if (j - i > 1)
            for (size_t q = i; q < j; q++)
                k[ks[q].idx] = (uint32_t)(q - i + 1);
    }
    free(ks);
    return k;
}

/* ---- the merge ---- */

static void merge(td_tree_match *m, ref u1, ref u2, uint32_t path, uint32_t up_row, int depth);

/* Adds the missing-by-name children (TraceLens: a name on the gpu path of
 * one side found off it on the other joins the other's list). */
static void add_missing(td_tree_match *m, ref u1, ref u2, rlist *c1, rlist *c2)
{
    const side *s[2] = {&m->s[0], &m->s[1]};
    ref u[2] = {u1, u2};
    rlist *c[2] = {c1, c2};
    size_t n0[2] = {c1->n, c2->n};
    if (n0[0] * n0[1] > PAIR_MAX)
        return;
    bool added[2] = {false, false};
    for (int a = 0; a < 2; a++) {
        int b = 1 - a;
        const td_tree *tb = TR(s[b], u[b]);
        uint32_t vb = RV(u[b]);
        for (size_t i = 0; i < n0[a]; i++) {
            uint32_t nm = NAME(s[a], c[a]->v[i]);
            bool dup = false;
            for (size_t q = 0; q < i && !dup; q++)
                dup = NAME(s[a], c[a]->v[q]) == nm;
            for (size_t q = 0; q < n0[b] && !dup; q++)
                dup = NAME(s[b], c[b]->v[q]) == nm;
            if (dup)
                continue;
            ref last = 0;
            bool found = false;
            for (uint32_t k = tb->child0[vb]; k < tb->child0[vb + 1]; k++) {
                ref cr = MKREF(RF(u[b]), tb->child[k]);
                if (NAME(s[b], cr) == nm) {
                    last = cr;
                    found = true;
                }
            }
            if (found && !on_path(s[b], last)) {
                if (rpush(c[b], last) < 0)
                    m->oom = 1;
                added[b] = true;
            }
        }
    }
    for (int a = 0; a < 2; a++)
        if (added[a])
            sort_ts(s[a], c[a]);
}

/* Replace wrappers: for unmatched pairs where one's name is among the
 * other's gpu-path children, or both have the same children's names. */
/* Marks in sub1/sub2 the unmatched wrappers: one's name among the other's
 * gpu-path children, or both with the same children's names. */
static void find_wrappers(td_tree_match *m, const rlist *c1, const rlist *c2, const align *al,
                          uint8_t *sub1, uint8_t *sub2)
{
    const side *s1 = &m->s[0], *s2 = &m->s[1];
    rlist k1 = {0}, k2 = {0};
    for (size_t i = 0; i < c1->n; i++) {
        ref d = c1->v[i];
        if (al->m1[i] >= 0 || is_gpu(s1, d) || is_launch(s1, d))
            continue;
        gpu_children(s1, d, &k1);
        for (size_t j = 0; j < c2->n; j++) {
            ref e = c2->v[j];
            if (al->m2[j] >= 0 || is_gpu(s2, e) || is_launch(s2, e))
                continue;
            gpu_children(s2, e, &k2);
            uint32_t nd = NAME(s1, d), ne = NAME(s2, e);
            for (size_t q = 0; q < k2.n; q++)
                sub2[j] |= NAME(s2, k2.v[q]) == nd;
            for (size_t q = 0; q < k1.n; q++)
                sub1[i] |= NAME(s1, k1.v[q]) == ne;
            bool same = k1.n && k1.n == k2.n;
            for (size_t q = 0; q < k1.n && same; q++)
                same = NAME(s1, k1.v[q]) == NAME(s2, k2.v[q]);
            if (same)
                sub1[i] = sub2[j] = 1;
        }
    }
    free(k1.v);
    free(k2.v);
}

/* c with the marked wrappers replaced by their gpu-path children, by start. */
static int expand(const side *s, const rlist *c, const uint8_t *sub, rlist *out)
{
    rlist k = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        if (!sub[i]) {
            rc = rpush(out, c->v[i]);
            continue;
        }
        gpu_children(s, c->v[i], &k);
        for (size_t q = 0; rc == 0 && q < k.n; q++)
            rc = rpush(out, k.v[q]);
    }
    free(k.v);
    sort_ts(s, out);
    return rc;
}

/* Where r is in l (sorted by sort_ts), or -1. */
static long find_ref(const side *s, const rlist *l, ref r)
{
    size_t lo = 0, hi = l->n;
    sort_side = s;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_ref_ts(&l->v[mid], &r) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->v[lo] == r ? (long)lo : -1;
}

/* The pairs of al kept in the expanded lists n1, n2 (na), the rest aligned. */
static int realign(td_tree_match *m, const rlist *c1, const rlist *c2, const align *al,
                   const rlist *n1, const rlist *n2, align *na)
{
    int rc = align_new(na, n1->n, n2->n);
    for (size_t i = 0; rc == 0 && i < c1->n; i++) {
        if (al->m1[i] < 0)
            continue;
        long p = find_ref(&m->s[0], n1, c1->v[i]), q = find_ref(&m->s[1], n2, c2->v[al->m1[i]]);
        if (p >= 0 && q >= 0) {
            na->m1[p] = q;
            na->m2[q] = p;
        }
    }
    rlist f1 = {0}, f2 = {0};
    size_t *fi1 = malloc((n1->n + 1) * sizeof *fi1), *fi2 = malloc((n2->n + 1) * sizeof *fi2);
    if (!fi1 || !fi2)
        rc = TD_ENOMEM;
    for (size_t q = 0; rc == 0 && q < n1->n; q++)
        if (na->m1[q] < 0) {
            fi1[f1.n] = q;
            rc = rpush(&f1, n1->v[q]);
        }
    for (size_t q = 0; rc == 0 && q < n2->n; q++)
        if (na->m2[q] < 0) {
            fi2[f2.n] = q;
            rc = rpush(&f2, n2->v[q]);
        }
    if (rc == 0 && f1.n && f2.n) {
        align fa = {0};
        rc = align_new(&fa, f1.n, f2.n);
        if (rc == 0)
            rc = align_lists(m, &f1, &f2, &fa, true);
        for (size_t q = 0; rc == 0 && q < f1.n; q++)
            if (fa.m1[q] >= 0) {
                na->m1[fi1[q]] = (long)fi2[fa.m1[q]];
                na->m2[fi2[fa.m1[q]]] = (long)fi1[q];
            }
        align_free(&fa);
    }
    free(fi1);
    free(fi2);
    free(f1.v);
    free(f2.v);
    return rc;
}

/* Replace wrappers (TraceLens's reconciliation) and align again, keeping
 * the pairs already found. */
static int reconcile(td_tree_match *m, rlist *c1, rlist *c2, align *al)
{
    size_t nd = 0, ni = 0;
    for (size_t i = 0; i < c1->n; i++)
        nd += al->m1[i] < 0;
    for (size_t j = 0; j < c2->n; j++)
        ni += al->m2[j] < 0;
    if (!nd || !ni)
        return 0;
    if (nd * ni > PAIR_MAX) {
        m->s[0].capped++;
        return 0;
    }
    uint8_t *sub1 = calloc(c1->n + 1, 1), *sub2 = calloc(c2->n + 1, 1);
    int rc = sub1 && sub2 ? 0 : TD_ENOMEM;
    bool any = false;
    if (rc == 0) {
        find_wrappers(m, c1, c2, al, sub1, sub2);
        for (size_t i = 0; i < c1->n; i++)
            any |= sub1[i];
        for (size_t j = 0; j < c2->n; j++)
            any |= sub2[j];
    }
    rlist n1 = {0}, n2 = {0};
    align na = {0};
    if (rc == 0 && any) {
        rc = expand(&m->s[0], c1, sub1, &n1);
        if (rc == 0)
            rc = expand(&m->s[1], c2, sub2, &n2);
        if (rc == 0)
            rc = realign(m, c1, c2, al, &n1, &n2, &na);
        if (rc == 0) {
            rlist t1 = *c1, t2 = *c2;
            *c1 = n1;
            *c2 = n2;
            n1 = t1;
            n2 = t2;
            align ta = *al;
            *al = na;
            na = ta;
        }
    }
    align_free(&na);
    free(n1.v);
    free(n2.v);
    free(sub1);
    free(sub2);
    return rc;
}

/* The unmatched collapsed through single-child wrappers and aligned again. */
static int recollapse(td_tree_match *m, rlist *c1, rlist *c2, align *al)
{
    const side *s1 = &m->s[0], *s2 = &m->s[1];
    rlist u1 = {0}, u2 = {0}, kids = {0};
    size_t *i1 = malloc((c1->n + 1) * sizeof *i1), *i2 = malloc((c2->n + 1) * sizeof *i2);
    int rc = i1 && i2 ? 0 : TD_ENOMEM;
    for (size_t i = 0; rc == 0 && i < c1->n; i++)
        if (al->m1[i] < 0) {
            i1[u1.n] = i;
            rc = rpush(&u1, collapse(s1, c1->v[i], &kids));
        }
    for (size_t j = 0; rc == 0 && j < c2->n; j++)
        if (al->m2[j] < 0) {
            i2[u2.n] = j;
            rc = rpush(&u2, collapse(s2, c2->v[j], &kids));
        }
    if (rc == 0 && u1.n && u2.n) {
        align ua = {0};
        rc = align_new(&ua, u1.n, u2.n);
        if (rc == 0)
            rc = align_lists(m, &u1, &u2, &ua, false);
        for (size_t q = 0; rc == 0 && q < u1.n; q++) {
            c1->v[i1[q]] = u1.v[q];
            if (ua.m1[q] >= 0) {
                al->m1[i1[q]] = (long)i2[ua.m1[q]];
                al->m2[i2[ua.m1[q]]] = (long)i1[q];
            }
        }
        for (size_t q = 0; rc == 0 && q < u2.n; q++)
            c2->v[i2[q]] = u2.v[q];
        align_free(&ua);
    }
    free(u1.v);
    free(u2.v);
    free(kids.v);
    free(i1);
    free(i2);
    return rc;
}

/* Aligns two children lists with every rule. */
static int align_all(td_tree_match *m, rlist *c1, rlist *c2, align *al)
{
    int rc = align_new(al, c1->n, c2->n);
    if (rc == 0)
        rc = align_lists(m, c1, c2, al, true);
    bool any = false;
    for (size_t i = 0; rc == 0 && i < c1->n; i++)
        any |= al->m1[i] < 0;
    for (size_t j = 0; rc == 0 && j < c2->n; j++)
        any |= al->m2[j] < 0;
    if (rc == 0 && any)
        rc = reconcile(m, c1, c2, al);
    if (rc == 0 && any)
        rc = recollapse(m, c1, c2, al);
    return rc;
}

static bool cross_launch(const td_tree_match *m, ref u1, ref u2)
{
    const side *s1 = &m->s[0], *s2 = &m->s[1];
    if (!is_launch(s1, u1) || !is_launch(s2, u2))
        return false;
    const td_tree *t1 = TR(s1, u1), *t2 = TR(s2, u2);
    uint32_t n1 = t1->name[RV(u1)], n2 = t2->name[RV(u2)];
    return (s1->nflag[RF(u1)][n1] & NF_CROSS) && (s2->nflag[RF(u2)][n2] & NF_CROSS) &&
           !(s1->set->files[RF(u1)]->names == s2->set->files[RF(u2)]->names) &&
           strcmp(td_strtab_get(s1->set->files[RF(u1)]->names, n1, NULL),
                  td_strtab_get(s2->set->files[RF(u2)]->names, n2, NULL)) != 0;
}

/* Merges a matched pair: its LCA row (when it has one) gets the gpu events
 * of its unmatched gpu-path children; a launch pair that only the
 * cudaLaunchKernel/hipLaunchKernel rule matched gives its events to the
 * row of the pair above (up_row), as if unmatched there. */
/* One side has a single child, the other more: follow the single child
 * down through wrappers to where the work branches. */
static void branch_point(const side *s, ref *u, rlist *c, rlist *kids)
{
    ref r = collapse(s, c->v[0], kids);
    if (!kids->n)
        return;
    *u = r;
    rlist t = *c;
    *c = *kids;
    *kids = t;
}

static void take(td_tree_match *m, int sd, uint32_t row, ref r)
{
    m->rows[row].live = 1;
    add_subtree(m, sd, &m->rows[row], r);
}

/* The row's gpu events: a matched kernel pair, the unmatched gpu-path children. */
static void take_unmatched(td_tree_match *m, uint32_t row, ref u1, ref u2, const rlist *c1,
                           const rlist *c2, const align *al)
{
    const side *s1 = &m->s[0], *s2 = &m->s[1];
    if (is_gpu(s1, u1) && is_gpu(s2, u2)) {
        take(m, 0, row, u1);
        take(m, 1, row, u2);
    }
    for (size_t i = 0; i < c1->n; i++)
        if (al->m1[i] < 0 && on_path(s1, c1->v[i]))
            take(m, 0, row, c1->v[i]);
    for (size_t j = 0; j < c2->n; j++)
        if (al->m2[j] < 0 && on_path(s2, c2->v[j]))
            take(m, 1, row, c2->v[j]);
}

static void merge_children(td_tree_match *m, const rlist *c1, const rlist *c2, const align *al,
                           uint32_t path, uint32_t row, uint32_t up_row, int depth)
{
    uint32_t *k = sibling_k(&m->s[0], c1);
    for (size_t i = 0; i < c1->n && !m->oom; i++) {
        if (al->m1[i] < 0)
            continue;
        ref a = c1->v[i], b = c2->v[al->m1[i]];
        uint32_t pn = new_path(m, pair_name(m, a, b), k ? k[i] : 0, path);
        /* the row above for a cross-vendor launch pair: this one's, or,
         * when this pair has none, the one it was given */
        merge(m, a, b, pn, row != NONE ? row : up_row, depth + 1);
        if (row != NONE && (m->rows[row].nev[0] || m->rows[row].nev[1]))
            m->rows[row].live = 1;
    }
    free(k);
}

static void merge(td_tree_match *m, ref u1, ref u2, uint32_t path, uint32_t up_row, int depth)
{
    side *s1 = &m->s[0], *s2 = &m->s[1];
    if (m->oom)
        return;
    if (up_row != NONE && cross_launch(m, u1, u2)) {
        add_subtree(m, 0, &m->rows[up_row], u1);
        add_subtree(m, 1, &m->rows[up_row], u2);
        return;
    }
    rlist c1 = {0}, c2 = {0}, kids = {0};
    gpu_children(s1, u1, &c1);
    gpu_children(s2, u2, &c2);
    add_missing(m, u1, u2, &c1, &c2);
    if (c1.n != c2.n && c1.n == 1)
        branch_point(s1, &u1, &c1, &kids);
    else if (c1.n != c2.n && c2.n == 1)
        branch_point(s2, &u2, &c2, &kids);
    bool both_path = on_path(s1, u1) && on_path(s2, u2);
    uint32_t row = both_path ? new_row(m, pair_name(m, u1, u2), path) : NONE;
    if (row != NONE) {
        m->rows[row].node[0] = u1;
        m->rows[row].node[1] = u2;
    }
    align al = {0};
    if (row == NONE && both_path) {
        /* out of memory: m->oom is set */
    } else if (depth >= DEPTH_MAX) {
        s1->capped++;
        if (row != NONE) {
            take(m, 0, row, u1);
            take(m, 1, row, u2);
        }
    } else if (align_all(m, &c1, &c2, &al) < 0) {
        m->oom = 1;
    } else {
        if (row != NONE)
            take_unmatched(m, row, u1, u2, &c1, &c2, &al);
        merge_children(m, &c1, &c2, &al, path, row, up_row, depth);
    }
    align_free(&al);
    free(c1.v);
    free(c2.v);
    free(kids.v);
}

/* ---- totals ---- */

typedef struct ivl {
    double lo, hi;
    uint8_t b;
} ivl;

static int cmp_ivl(const void *a, const void *b)
{
    const ivl *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* |U| of the intervals with b <= upto (sorted by lo). */
static double union_upto(const ivl *v, size_t n, int upto)
{
    double tot = 0, lo = 0, hi = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        if (v[i].b > upto)
            continue;
        if (!open || v[i].lo > hi) {
            if (open)
                tot += hi - lo;
            lo = v[i].lo;
            hi = v[i].hi;
            open = true;
        } else if (v[i].hi > hi)
            hi = v[i].hi;
    }
    if (open)
        tot += hi - lo;
    return tot;
}

static double union_refs(const side *s, const ref *r, size_t n, bool *oom)
{
    ivl *v = malloc((n + 1) * sizeof *v);
    if (!v) {
        *oom = true;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const td_tree *t = TR(s, r[i]);
        v[i] = (ivl){t->ts[RV(r[i])], t->end[RV(r[i])], 0};
    }
    qsort(v, n, sizeof *v, cmp_ivl);
    double u = union_upto(v, n, 0);
    free(v);
    return u;
}

/* ---- the selection ---- */

/* Whether the side's selection takes a host event of file f starting at
 * ts: its rank, and the iteration the loader's rule gives ts. */
static bool host_taken(const side *s, size_t f, double ts)
{
    if (!s->pk)
        return true;
    if (!s->pk->fsel[f])
        return false;
    const uint8_t *ok = s->pk->iok[f];
    if (!ok)
        return true;
    int32_t it = td_file_step_iter(s->set->files[f], ts);
    return it >= 0 && ok[it];
}

/* A gpu event (node g of file f) is taken with its launch, as compare's
 * device events take their launch's iteration; one with no launch only
 * when the file's iterations are not selected (a whole-trace side). */
static bool gpu_taken(const side *s, size_t f, uint32_t g)
{
    if (!s->pk)
        return true;
    if (!s->pk->fsel[f])
        return false;
    if (!s->pk->iok[f])
        return true;
    const td_tree *t = s->set->files[f]->tree;
    return t->parent[g] != NONE && host_taken(s, f, t->ts[t->parent[g]]);
}

static bool file_taken(const side *s, size_t f)
{
    return !s->pk || s->pk->fsel[f];
}

static void set_bucket(side *s, ref r, uint8_t b)
{
    const td_tree *t = TR(s, r);
    uint8_t *bk = &s->bucket[RF(r)][RV(r) - t->nhost];
    if (!*bk || b < *bk)
        *bk = b;
}

static int summarise(td_tree_match *m, int sd)
{
    side *s = &m->s[sd];
    td_tree_summary *sum = &m->sum[sd];
    size_t n = 0;
    for (size_t f = 0; f < s->set->nfiles; f++) {
        const td_tree *t = s->set->files[f]->tree;
        n += t->n - t->nhost;
        if (file_taken(s, f))
            sum->dropped += t->dropped;
    }
    ivl *v = malloc((n + 1) * sizeof *v);
    if (!v)
        return TD_ENOMEM;
    size_t k = 0;
    for (size_t f = 0; f < s->set->nfiles; f++) {
        const td_tree *t = s->set->files[f]->tree;
        for (size_t g = t->nhost; g < t->n; g++) {
            if (!gpu_taken(s, f, (uint32_t)g))
                continue;
            uint8_t b = s->bucket[f][g - t->nhost];
            if (!b)
                b = t->parent[g] == NONE ? B_NOLAUNCH : B_OUTSIDE;
            v[k++] = (ivl){t->ts[g], t->end[g], b};
        }
    }
    n = k;
    qsort(v, n, sizeof *v, cmp_ivl);
    double prev = 0, part[B_N] = {0};
    for (int b = 1; b < B_N; b++) {
        double u = union_upto(v, n, b);
        part[b] = u - prev;
        prev = u;
    }
    free(v);
    sum->total_us = prev;
    sum->matched_us = part[B_MATCHED];
    sum->one_sided_us = part[B_ONE];
    sum->no_launch_us = part[B_NOLAUNCH];
    sum->outside_us = part[B_OUTSIDE] + part[B_OTHER];
    return 0;
}

/* ---- output strings ---- */

static const char *keep_str(td_tree_match *m, char *s)
{
    if (!s) {
        m->oom = 1;
        return "";
    }
    if (m->nstrs == m->strcap) {
        size_t c = m->strcap ? m->strcap * 2 : 64;
        char **ns = realloc(m->strs, c * sizeof *ns);
        if (!ns) {
            free(s);
            m->oom = 1;
            return "";
        }
        m->strs = ns;
        m->strcap = c;
    }
    m->strs[m->nstrs++] = s;
    return s;
}

typedef struct kcount {
    uint32_t disp;
    uint64_t n;
} kcount;

static int cmp_kc(const void *a, const void *b)
{
    const kcount *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return (x->disp > y->disp) - (x->disp < y->disp);
}

static int cmp_kd(const void *a, const void *b)
{
    const kcount *x = a, *y = b;
    return (x->disp > y->disp) - (x->disp < y->disp);
}

static const char *kernel_list(td_tree_match *m, int sd, const lrow *r)
{
    side *s = &m->s[sd];
    size_t n = r->nev[sd];
    kcount *kc = malloc((n + 1) * sizeof *kc);
    if (!kc)
        return keep_str(m, NULL);
    for (size_t i = 0; i < n; i++) {
        const td_file *f = s->set->files[RF(r->ev[sd][i])];
        size_t len;
        const char *nm = td_strtab_get(f->names, f->tree->name[RV(r->ev[sd][i])], &len);
        int64_t id = td_strtab_intern(m->kn, nm, len);
        if (id < 0)
            m->oom = 1;
        kc[i] = (kcount){id < 0 ? 0 : (uint32_t)id, 1};
    }
    qsort(kc, n, sizeof *kc, cmp_kd);
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (u && kc[u - 1].disp == kc[i].disp)
            kc[u - 1].n++;
        else
            kc[u++] = kc[i];
    }
    qsort(kc, u, sizeof *kc, cmp_kc);
    size_t need = 1;
    for (size_t i = 0; i < u; i++) {
        size_t len;
        td_strtab_get(m->kn, kc[i].disp, &len);
        need += len + 32;
    }
    char *out = malloc(need);
    size_t o = 0;
    if (out) {
        out[0] = 0;
        for (size_t i = 0; i < u; i++) {
            size_t len;
            const char *nm = td_strtab_get(m->kn, kc[i].disp, &len);
            if (i) {
                memcpy(out + o, "; ", 2);
                o += 2;
            }
            memcpy(out + o, nm, len);
            o += len;
            o += (size_t)snprintf(out + o, need - o, " (%llu)", (unsigned long long)kc[i].n);
        }
        out[o] = 0;
    }
    free(kc);
    return keep_str(m, out);
}

static const char *path_str(td_tree_match *m, uint32_t p)
{
    size_t need = 1, depth = 0;
    for (uint32_t q = p; q != NONE; q = m->paths[q].parent) {
        size_t len;
        td_strtab_get(m->disp, m->paths[q].name, &len);
        need += len + 16;
        depth++;
    }
    char *out = malloc(need);
    if (!out)
        return keep_str(m, NULL);
    /* written from the end, then moved to the front */
    size_t o = need - 1;
    out[o] = 0;
    bool first = true;
    for (uint32_t q = p; q != NONE; q = m->paths[q].parent) {
        char kbuf[16] = "";
        if (m->paths[q].k)
            snprintf(kbuf, sizeof kbuf, "#%u", m->paths[q].k);
        size_t len, kl = strlen(kbuf);
        const char *nm = td_strtab_get(m->disp, m->paths[q].name, &len);
        if (!first)
            out[--o] = '>';
        o -= kl;
        memcpy(out + o, kbuf, kl);
        o -= len;
        memcpy(out + o, nm, len);
        first = false;
    }
    memmove(out, out + o, need - o);
    (void)depth;
    return keep_str(m, out);
}

/* ---- entry ---- */

static int side_init(td_tree_match *m, int sd, const td_set *set, td_error *err)
{
    side *s = &m->s[sd];
    s->set = set;
    s->norm = calloc(set->nfiles + 1, sizeof *s->norm);
    s->nflag = calloc(set->nfiles + 1, sizeof *s->nflag);
    s->bucket = calloc(set->nfiles + 1, sizeof *s->bucket);
    s->disp = calloc(set->nfiles + 1, sizeof *s->disp);
    if (!s->norm || !s->nflag || !s->bucket || !s->disp)
        return td_fail(err, TD_ENOMEM, set->path, "out of memory");
    s->nfiles = set->nfiles;
    for (size_t f = 0; f < set->nfiles; f++) {
        const td_file *fl = set->files[f];
        if (!fl->tree && fl->format)
            return td_fail(err, TD_EUSAGE, fl->path,
                           "no call tree: --match tree needs PyTorch profiler trace files, "
                           "and this file (%s) has none",
                           fl->format);
        if (!fl->tree)
            return td_fail(err, TD_EUSAGE, fl->origin ? fl->origin : fl->path,
                           "no call tree: --match tree needs PyTorch profiler trace files "
                           "loaded with their call trees (a summary keeps none)");
        size_t nn = td_strtab_count(fl->names);
        s->norm[f] = malloc((nn + 1) * sizeof **s->norm);
        s->nflag[f] = malloc(nn + 1);
        s->bucket[f] = calloc(fl->tree->n - fl->tree->nhost + 1, 1);
        s->disp[f] = malloc((nn + 1) * sizeof **s->disp);
        if (!s->norm[f] || !s->nflag[f] || !s->bucket[f] || !s->disp[f])
            return td_fail(err, TD_ENOMEM, fl->path, "out of memory");
        memset(s->disp[f], 0xff, (nn + 1) * sizeof **s->disp);
        for (size_t i = 0; i < nn; i++) {
            size_t len;
            const char *nm = td_strtab_get(fl->names, (uint32_t)i, &len);
            if (normalise(m->normtab, nm, len, &s->norm[f][i], &s->nflag[f][i]) < 0)
                return td_fail(err, TD_ENOMEM, fl->path, "out of memory");
        }
    }
    return 0;
}

static void add_note(td_tree_match *m, const char *fmt, const char *a)
{
    if (m->nnotes >= sizeof m->notes / sizeof *m->notes)
        return;
    char buf[256];
    snprintf(buf, sizeof buf, fmt, a);
    m->notes[m->nnotes] = strdup(buf);
    if (m->notes[m->nnotes])
        m->nnotes++;
}

static void collect_roots(td_tree_match *m, int sd, rlist *r)
{
    const td_set *set = m->s[sd].set;
    for (size_t f = 0; f < set->nfiles; f++) {
        const td_tree *t = set->files[f]->tree;
        for (size_t k = 0; k < t->nroots; k++)
            if (host_taken(&m->s[sd], f, t->ts[t->roots[k]]) && rpush(r, MKREF(f, t->roots[k])) < 0)
                m->oom = 1;
    }
    m->sum[sd].roots = r->n;
}

/* The roots aligned (by edit distance and same-name re-pairing, or by
 * position with TD_TREE_ROOTS_BY_POSITION), each pair merged. */
static void match_roots(td_tree_match *m, rlist *r1, rlist *r2, align *al)
{
    int rc = 0;
    if (m->flags & TD_TREE_ROOTS_BY_POSITION) {
        rc = align_new(al, r1->n, r2->n);
        for (size_t i = 0; rc == 0 && i < r1->n && i < r2->n; i++)
            al->m1[i] = al->m2[i] = (long)i;
    } else {
        /* edit distance and same-name re-pairing; not the wrapper rules,
         * which would pair unrelated top-level ops by their launches */
        rc = align_new(al, r1->n, r2->n);
        if (rc == 0)
            rc = align_lists(m, r1, r2, al, false);
    }
    if (rc < 0) {
        m->oom = 1;
        return;
    }
    uint32_t *k = sibling_k(&m->s[0], r1);
    for (size_t i = 0; i < r1->n && !m->oom; i++) {
        if (al->m1[i] < 0)
            continue;
        ref a = r1->v[i], b = r2->v[al->m1[i]];
        m->sum[0].roots_matched++;
        m->sum[1].roots_matched++;
        uint32_t pn = new_path(m, pair_name(m, a, b), k ? k[i] : 0, NONE);
        merge(m, a, b, pn, NONE, 0);
    }
    free(k);
}

/* Which part of the summary each gpu event is in: the rows', then those
 * of the unmatched roots, then what the rows did not take. */
static void assign_buckets(td_tree_match *m, const rlist *r1, const rlist *r2, const align *al)
{
    for (size_t i = 0; i < m->nrows && !m->oom; i++) {
        lrow *r = &m->rows[i];
        if (!r->live || (!r->nev[0] && !r->nev[1])) {
            r->live = 0;
            continue;
        }
        uint8_t b = r->nev[0] && r->nev[1] ? B_MATCHED : B_ONE;
        for (int sd = 0; sd < 2; sd++)
            for (size_t q = 0; q < r->nev[sd]; q++)
                set_bucket(&m->s[sd], r->ev[sd][q], b);
    }
    for (int sd = 0; sd < 2 && !m->oom; sd++) {
        const rlist *r = sd ? r2 : r1;
        const long *mm = sd ? al->m2 : al->m1;
        for (int matched = 0; matched < 2; matched++) {
            lrow tmp = {0};
            for (size_t i = 0; i < r->n; i++)
                if ((mm[i] >= 0) == matched)
                    add_subtree(m, sd, &tmp, r->v[i]);
            for (size_t q = 0; q < tmp.nev[sd]; q++)
                set_bucket(&m->s[sd], tmp.ev[sd][q], matched ? B_OTHER : B_ONE);
            free(tmp.ev[sd]);
        }
    }
}

/* The input dims and types of a row's side: its node's shapes, or for a
 * launch or gpu node those of the nearest cpu op above it (as TraceLens
 * gives each kernel its cpu op's); NULL parts when there are none. */
static void row_shapes(td_tree_match *m, int sd, const lrow *r, td_tree_lca *l)
{
    const td_file *f = m->s[sd].set->files[RF(r->node[sd])];
    const td_tree *t = f->tree;
    uint32_t v = RV(r->node[sd]);
    while (v != NONE && !(t->kind[v] & (TD_TREE_OP | TD_TREE_PY)))
        v = t->parent[v];
    if (v == NONE || !(t->kind[v] & TD_TREE_OP) || t->shape[v] == NONE || !f->shapes)
        return;
    size_t len;
    const char *sh = td_strtab_get(f->shapes, t->shape[v], &len);
    const char *us1 = memchr(sh, 0x1f, len);
    if (!us1)
        return;
    const char *us2 = memchr(us1 + 1, 0x1f, len - (size_t)(us1 + 1 - sh));
    if (!us2)
        us2 = sh + len;
    if (us1 > sh)
        l->input_dims[sd] = keep_str(m, strndup(sh, (size_t)(us1 - sh)));
    if (us2 > us1 + 1)
        l->input_types[sd] = keep_str(m, strndup(us1 + 1, (size_t)(us2 - us1 - 1)));
}

static void make_lcas(td_tree_match *m)
{
    size_t live = 0;
    for (size_t i = 0; i < m->nrows; i++)
        live += m->rows[i].live;
    m->lcas = calloc(live + 1, sizeof *m->lcas);
    if (!m->lcas)
        m->oom = 1;
    for (size_t i = 0; i < m->nrows && !m->oom; i++) {
        lrow *r = &m->rows[i];
        if (!r->live)
            continue;
        td_tree_lca *l = &m->lcas[m->nlcas++];
        l->name = td_strtab_get(m->disp, r->name, NULL);
        l->path = path_str(m, r->path);
        bool oom = false;
        for (int sd = 0; sd < 2; sd++) {
            l->us[sd] = union_refs(&m->s[sd], r->ev[sd], r->nev[sd], &oom);
            l->nkernels[sd] = r->nev[sd];
            l->kernels[sd] = kernel_list(m, sd, r);
            row_shapes(m, sd, r, l);
        }
        if (oom)
            m->oom = 1;
    }
}

static void make_notes(td_tree_match *m)
{
    static const char *const who[2] = {"control", "test"};
    char buf[160];
    for (int sd = 0; sd < 2; sd++) {
        const td_set *set = m->s[sd].set;
        uint64_t gpu = 0;
        for (size_t f = 0; f < set->nfiles; f++)
            if (file_taken(&m->s[sd], f))
                gpu += set->files[f]->tree->n - set->files[f]->tree->nhost;
        if (!gpu) {
            snprintf(buf, sizeof buf,
                     "%s has no kernels, memcpys or memsets (a CPU-only trace?): nothing to match",
                     who[sd]);
            add_note(m, "%s", buf);
        }
        if (m->sum[sd].dropped) {
            snprintf(buf, sizeof buf,
                     "%s: %llu host events overhang their parent by 1 us or more and are left "
                     "out of the nesting",
                     who[sd], (unsigned long long)m->sum[sd].dropped);
            add_note(m, "%s", buf);
        }
    }
    if (m->s[0].capped) {
        snprintf(buf, sizeof buf,
                 "%llu alignments were above the caps (docs/tree-match.md, \"Caps\") and took "
                 "the bounded fallback",
                 (unsigned long long)m->s[0].capped);
        add_note(m, "%s", buf);
    }
}

static int run_picked(td_tree_match **out, const td_set *control, const td_set *test,
                      const pick *pk[2], int flags, td_error *err)
{
    *out = NULL;
    td_tree_match *m = calloc(1, sizeof *m);
    if (!m)
        return td_fail(err, TD_ENOMEM, NULL, "out of memory");
    m->flags = flags;
    m->s[0].pk = pk[0];
    m->s[1].pk = pk[1];
    m->normtab = td_strtab_new();
    m->disp = td_strtab_new();
    m->kn = td_strtab_new();
    int rc = m->normtab && m->disp && m->kn ? 0 : td_fail(err, TD_ENOMEM, NULL, "out of memory");
    if (rc == 0)
        rc = side_init(m, 0, control, err);
    if (rc == 0)
        rc = side_init(m, 1, test, err);
    if (rc < 0) {
        td_tree_match_free(m);
        return rc;
    }
    rlist r1 = {0}, r2 = {0};
    align al = {0};
    collect_roots(m, 0, &r1);
    collect_roots(m, 1, &r2);
    if (!m->oom)
        match_roots(m, &r1, &r2, &al);
    if (!m->oom)
        assign_buckets(m, &r1, &r2, &al);
    align_free(&al);
    free(r1.v);
    free(r2.v);
    for (int sd = 0; sd < 2 && !m->oom; sd++)
        if (summarise(m, sd) < 0)
            m->oom = 1;
    if (!m->oom)
        make_lcas(m);
    m->sum[0].capped = m->sum[1].capped = m->s[0].capped;
    if (!m->oom)
        make_notes(m);
    m->s[0].pk = m->s[1].pk = NULL; /* the caller's */
    if (m->oom) {
        td_tree_match_free(m);
        return td_fail(err, TD_ENOMEM, NULL, "out of memory");
    }
    *out = m;
    return 0;
}

int td_tree_match_run(td_tree_match **out, const td_set *control, const td_set *test, int flags,
                      td_error *err)
{
    const pick *pk[2] = {NULL, NULL};
    return run_picked(out, control, test, pk, flags, err);
}

void td_tree_match_free(td_tree_match *m)
{
    if (!m)
        return;
    free(m->stk);
    for (int sd = 0; sd < 2; sd++) {
        side *s = &m->s[sd];
        for (size_t f = 0; f < s->nfiles; f++) {
            if (s->norm)
                free(s->norm[f]);
            if (s->nflag)
                free(s->nflag[f]);
            if (s->bucket)
                free(s->bucket[f]);
            if (s->disp)
                free(s->disp[f]);
        }
        free(s->norm);
        free(s->nflag);
        free(s->bucket);
        free(s->disp);
    }
    for (size_t i = 0; i < m->nrows; i++) {
        free(m->rows[i].ev[0]);
        free(m->rows[i].ev[1]);
    }
    free(m->rows);
    free(m->paths);
    free(m->lcas);
    for (size_t i = 0; i < m->nstrs; i++)
        free(m->strs[i]);
    free(m->strs);
    for (size_t i = 0; i < m->nnotes; i++)
        free(m->notes[i]);
    td_strtab_free(m->normtab);
    td_strtab_free(m->disp);
    td_strtab_free(m->kn);
    free(m);
}

const td_tree_lca *td_tree_match_lcas(const td_tree_match *m, size_t *n)
{
    *n = m->nlcas;
    return m->lcas;
}

const td_tree_summary *td_tree_match_summary(const td_tree_match *m, td_side which)
{
    return &m->sum[which == TD_TEST];
}

const char *td_tree_match_note(const td_tree_match *m, size_t i)
{
    return i < m->nnotes ? m->notes[i] : NULL;
}

/* ---- selection and statistics (docs/tree-match.md, "Ranks, iterations, --stats") ---- */

/* One (rank, iteration) of a side: a file and its iteration index (-1: the
 * whole file, a side without ProfilerStep). */
typedef struct unit {
    size_t file;
    int32_t iter;
} unit;

typedef struct side_sel {
    pick pk;
    unit *units;
    size_t nunits;
} side_sel;

static void sel_free(side_sel *ss)
{
    for (size_t f = 0; ss->pk.iok && f < ss->pk.nfiles; f++)
        free(ss->pk.iok[f]);
    free(ss->pk.iok);
    free(ss->pk.fsel);
    free(ss->units);
    memset(ss, 0, sizeof *ss);
}

static bool in_list(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* The side's selection by compare's rules (diff.c, resolve_side): the
 * ranks, then the iterations, or the whole traces when the set has no
 * ProfilerStep; and its units, files in set order, iterations ascending. */
static int resolve(side_sel *ss, const td_set *s, const td_list *ranks, const td_list *iters,
                   const char *label, td_error *err)
{
    int64_t *rk = NULL, *it = NULL;
    size_t nrk = 0, nit = 0;
    bool whole = s->niters == 0;
    int rc = td_resolve(&rk, &nrk, ranks, s->ranks, s->nranks, "rank", label, err);
    if (rc == 0 && whole && iters->steady)
        rc = td_fail(err, TD_EUSAGE, "", "steady: %s has no ProfilerStep", label);
    else if (rc == 0 && whole && iters->n > 0)
        rc = td_fail(err, TD_EUSAGE, "",
                     "no such iteration %lld: %s has no ProfilerStep (leave the iteration out "
                     "to compare whole traces)",
                     (long long)iters->v[0], label);
    else if (rc == 0 && !whole)
        rc = td_resolve(&it, &nit, iters, s->iters, s->niters, "iteration", label, err);
    size_t nf = s->nfiles, nu = 0;
    if (rc == 0) {
        ss->pk.nfiles = nf;
        ss->pk.fsel = calloc(nf + 1, 1);
        ss->pk.iok = calloc(nf + 1, sizeof *ss->pk.iok);
        size_t cap = 0;
        for (size_t f = 0; f < nf; f++)
            cap += whole ? 1 : s->files[f]->niters;
        ss->units = malloc((cap + 1) * sizeof *ss->units);
        if (!ss->pk.fsel || !ss->pk.iok || !ss->units)
            rc = td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    for (size_t f = 0; rc == 0 && f < nf; f++) {
        const td_file *fl = s->files[f];
        if (!in_list(rk, nrk, fl->rank))
            continue;
        ss->pk.fsel[f] = 1;
        if (whole) {
            ss->units[nu++] = (unit){f, -1};
            continue;
        }
        if (!(ss->pk.iok[f] = calloc(fl->niters + 1, 1))) {
            rc = td_fail(err, TD_ENOMEM, "", "out of memory");
            break;
        }
        for (size_t i = 0; i < fl->niters; i++)
            if (in_list(it, nit, fl->iters[i])) {
                ss->pk.iok[f][i] = 1;
                ss->units[nu++] = (unit){f, (int32_t)i};
            }
    }
    ss->nunits = nu;
    free(rk);
    free(it);
    if (rc < 0)
        sel_free(ss);
    return rc;
}

static int resolve_both(side_sel ss[2], const td_set *control, const td_set *test,
                        const td_compare_opts *sel, td_error *err)
{
    td_compare_opts o;
    int rc = TD_OPTS_TAKE(&o, sel, td_compare_opts, TD_COMPARE_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    if ((rc = resolve(&ss[0], control, &o.control_ranks, &o.control_iters, "control", err)) < 0)
        return rc;
    if ((rc = resolve(&ss[1], test, &o.test_ranks, &o.test_iters, "test", err)) < 0)
        sel_free(&ss[0]);
    return rc;
}

int td_tree_match_select(td_tree_match **out, const td_set *control, const td_set *test,
                         const td_compare_opts *sel, int flags, td_error *err)
{
    *out = NULL;
    if (!sel)
        return td_tree_match_run(out, control, test, flags, err);
    side_sel ss[2] = {{{0}}};
    int rc = resolve_both(ss, control, test, sel, err);
    if (rc < 0)
        return rc;
    const pick *pk[2] = {&ss[0].pk, &ss[1].pk};
    rc = run_picked(out, control, test, pk, flags, err);
    sel_free(&ss[0]);
    sel_free(&ss[1]);
    return rc;
}

/* One unit alone as a selection: its file, its iteration. */
static int unit_pick(pick *p, const td_set *s, const unit *u)
{
    memset(p->fsel, 0, p->nfiles);
    for (size_t f = 0; f < p->nfiles; f++) {
        free(p->iok[f]);
        p->iok[f] = NULL;
    }
    p->fsel[u->file] = 1;
    if (u->iter >= 0) {
        if (!(p->iok[u->file] = calloc(s->files[u->file]->niters + 1, 1)))
            return TD_ENOMEM;
        p->iok[u->file][u->iter] = 1;
    }
    return 0;
}

struct td_tree_stats {
    td_tree_lca *rows;
    size_t nrows, cap;
    td_strtab *keys; /* path "\x1f" name -> row */
    char **strs;
    size_t nstrs;
    double *x[2]; /* per row, per unit of the side */
    size_t nunits[2];
    uint64_t *counts[2];
    td_stats *stats;
};

void td_tree_stats_free(td_tree_stats *ts)
{
    if (!ts)
        return;
    for (size_t i = 0; i < ts->nstrs; i++)
        free(ts->strs[i]);
    free(ts->strs);
    free(ts->rows);
    td_strtab_free(ts->keys);
    for (int sd = 0; sd < 2; sd++) {
        free(ts->x[sd]);
        free(ts->counts[sd]);
    }
    td_stats_free(ts->stats);
    free(ts);
}

static const char *ts_keep(td_tree_stats *ts, const char *s, bool *oom)
{
    char *c = strdup(s ? s : "");
    char **ns = realloc(ts->strs, (ts->nstrs + 1) * sizeof *ns);
    if (!c || !ns) {
        free(c);
        if (ns)
            ts->strs = ns;
        *oom = true;
        return "";
    }
    ts->strs = ns;
    ts->strs[ts->nstrs++] = c;
    return c;
}

/* The row of an LCA's key, made on first sight. */
static long ts_row(td_tree_stats *ts, const td_tree_lca *l, bool *oom)
{
    size_t pl = strlen(l->path), nl = strlen(l->name);
    char *k = malloc(pl + nl + 2);
    if (!k) {
        *oom = true;
        return -1;
    }
    memcpy(k, l->path, pl);
    k[pl] = '\x1f';
    memcpy(k + pl + 1, l->name, nl + 1);
    int64_t id = td_strtab_intern(ts->keys, k, pl + nl + 1);
    free(k);
    if (id < 0) {
        *oom = true;
        return -1;
    }
    if ((size_t)id < ts->nrows)
        return (long)id;
    if (ts->nrows == ts->cap) {
        size_t c = ts->cap ? 2 * ts->cap : 64;
        td_tree_lca *nr = realloc(ts->rows, c * sizeof *nr);
        double *x0 = nr ? realloc(ts->x[0], c * ts->nunits[0] * sizeof *x0 + 1) : NULL;
        if (x0)
            ts->x[0] = x0;
        double *x1 = x0 ? realloc(ts->x[1], c * ts->nunits[1] * sizeof *x1 + 1) : NULL;
        if (x1)
            ts->x[1] = x1;
        if (nr)
            ts->rows = nr;
        if (!nr || !x0 || !x1) {
            *oom = true;
            return -1;
        }
        ts->cap = c;
    }
    size_t r = ts->nrows++;
    td_tree_lca *row = &ts->rows[r];
    memset(row, 0, sizeof *row);
    row->name = ts_keep(ts, l->name, oom);
    row->path = ts_keep(ts, l->path, oom);
    row->kernels[0] = row->kernels[1] = NULL;
    for (int sd = 0; sd < 2; sd++)
        for (size_t u = 0; u < ts->nunits[sd]; u++)
            ts->x[sd][r * ts->nunits[sd] + u] = 0;
    return (long)r;
}

/* One unit pair's LCAs into the rows: side sd's sample u when take[sd]. */
static void ts_add(td_tree_stats *ts, const td_tree_match *m, const long u[2], const bool take[2],
                   bool *oom)
{
    size_t n;
    const td_tree_lca *l = td_tree_match_lcas(m, &n);
    for (size_t i = 0; i < n && !*oom; i++) {
        if (!(take[0] && l[i].nkernels[0]) && !(take[1] && l[i].nkernels[1]))
            continue;
        long r = ts_row(ts, &l[i], oom);
        if (r < 0)
            return;
        td_tree_lca *row = &ts->rows[r];
        for (int sd = 0; sd < 2; sd++) {
            if (!take[sd] || !l[i].nkernels[sd])
                continue;
            ts->x[sd][(size_t)r * ts->nunits[sd] + (size_t)u[sd]] += l[i].us[sd];
            row->us[sd] += l[i].us[sd];
            row->nkernels[sd] += l[i].nkernels[sd];
            if (!row->kernels[sd]) {
                row->kernels[sd] = ts_keep(ts, l[i].kernels[sd], oom);
                if (l[i].input_dims[sd])
                    row->input_dims[sd] = ts_keep(ts, l[i].input_dims[sd], oom);
                if (l[i].input_types[sd])
                    row->input_types[sd] = ts_keep(ts, l[i].input_types[sd], oom);
            }
        }
    }
}

int td_tree_match_stats(td_tree_stats **out, const td_set *control, const td_set *test,
                        const td_compare_opts *sel, int flags, const td_stats_opts *so,
                        td_error *err)
{
    *out = NULL;
    side_sel ss[2] = {{{0}}};
    int rc = resolve_both(ss, control, test, sel, err);
    if (rc < 0)
        return rc;
    td_tree_stats *ts = calloc(1, sizeof *ts);
    pick one[2] = {{0}, {0}};
    bool oom = !ts;
    for (int sd = 0; sd < 2 && !oom; sd++) {
        one[sd].nfiles = ss[sd].pk.nfiles;
        one[sd].fsel = calloc(one[sd].nfiles + 1, 1);
        one[sd].iok = calloc(one[sd].nfiles + 1, sizeof *one[sd].iok);
        oom = !one[sd].fsel || !one[sd].iok;
        ts->nunits[sd] = ss[sd].nunits;
    }
    if (!oom)
        oom = !(ts->keys = td_strtab_new());
    const td_set *sets[2] = {control, test};
    /* The i-th unit of one side with the i-th of the other; a side with
     * fewer units lends its (i mod n)-th as the other's reference, taking
     * no sample from it. */
    size_t n0 = ss[0].nunits, n1 = ss[1].nunits, n = n0 > n1 ? n0 : n1;
    for (size_t i = 0; i < n && n0 && n1 && !oom && rc == 0; i++) {
        long u[2] = {(long)(i % n0), (long)(i % n1)};
        bool take[2] = {i < n0, i < n1};
        for (int sd = 0; sd < 2 && !oom; sd++)
            oom = unit_pick(&one[sd], sets[sd], &ss[sd].units[u[sd]]) < 0;
        if (oom)
            break;
        const pick *pk[2] = {&one[0], &one[1]};
        td_tree_match *m = NULL;
        if ((rc = run_picked(&m, control, test, pk, flags, err)) < 0)
            break;
        ts_add(ts, m, u, take, &oom);
        td_tree_match_free(m);
    }
    for (int sd = 0; sd < 2 && !oom && rc == 0; sd++) {
        ts->counts[sd] = malloc((ts->nrows + 1) * sizeof *ts->counts[sd]);
        oom = !ts->counts[sd];
        for (size_t r = 0; !oom && r < ts->nrows; r++)
            ts->counts[sd][r] = ts->rows[r].nkernels[sd];
    }
    if (!oom && rc == 0) {
        double *const x[2] = {ts->x[0], ts->x[1]};
        const uint64_t *const c[2] = {ts->counts[0], ts->counts[1]};
        rc = td_stats_from_samples(&ts->stats, ts->nrows, x, ts->nunits, c, so, err);
    }
    for (int sd = 0; sd < 2; sd++) {
        for (size_t f = 0; one[sd].iok && f < one[sd].nfiles; f++)
            free(one[sd].iok[f]);
        free(one[sd].iok);
        free(one[sd].fsel);
        sel_free(&ss[sd]);
    }
    if (oom && rc == 0)
        rc = td_fail(err, TD_ENOMEM, NULL, "out of memory");
    if (rc < 0) {
        td_tree_stats_free(ts);
        return rc;
    }
    *out = ts;
    return 0;
}

const td_tree_lca *td_tree_stats_lcas(const td_tree_stats *ts, size_t *n)
{
    *n = ts->nrows;
    return ts->rows;
}

const td_stats *td_tree_stats_stats(const td_tree_stats *ts)
{
    return ts->stats;
}

size_t td_tree_stats_units(const td_tree_stats *ts, td_side which)
{
    return ts->nunits[which == TD_TEST];
}
