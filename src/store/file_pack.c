/*
 * One file's aggregates as bytes (docs/summaries.md, "The packed file"):
 * counters, categories, iterations, names and every kept event's duration,
 * grouped by (iteration, flags, name). Durations are lossless: whole numbers
 * as sorted, delta-coded varints; otherwise every event in file order with
 * its raw double. No SQLite here: the bytes can travel between processes.
 */
#include "store.h"
#include "model/bd_collect.h"
#include "util/utf8_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC "TDF5"      /* with the stacks and the roofline's inputs */
#define PACK_MAGIC_TDF4 "TDF4" /* with the breakdown's records */
#define PACK_MAGIC_TDF3 "TDF3" /* with the trace span and the ops' waits */
#define PACK_MAGIC_TDF2 "TDF2" /* with the attribution flag and per-group links */
#define PACK_MAGIC_OLD "TDF1"  /* without: read as a file with no attribution */

/* The stacks section's flag: the gpu events' stacks (schema 4), or those
 * of the cpu events too (schema 5 on), their nodes in every group head. */
enum { STK_NONE = 0, STK_GPU = 1, STK_GPU_CPU = 2 };
#define ENC_SORTED_INT 0    /* groups of sorted whole-number durations (read only) */
#define ENC_RAW 1           /* every event in file order, 8-byte doubles */
#define ENC_SORTED_TOTALS 2 /* the groups with their totals, then their durations */

void td_buf_free(td_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static int put(td_buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            return -1;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

static int put_u(td_buf *b, uint64_t v)
{
    unsigned char t[10];
    size_t k = 0;
    while (v >= 0x80) {
        t[k++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    t[k++] = (unsigned char)v;
    return put(b, t, k);
}

static uint64_t zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static int put_s(td_buf *b, const char *s, size_t len)
{
    return put_u(b, len) < 0 ? -1 : put(b, s, len);
}

/* ---- grouping ---- */

typedef struct keyed {
    uint64_t key;     /* (iter + 1) << 32 | name with its flag bits */
    uint32_t attr[4]; /* a gpu event's op, top op, annotation, stack node (0 otherwise) */
    double dur;
    size_t pos;   /* file order, to keep ties stable */
    size_t group; /* once grouped */
} keyed;

static int cmp_pos(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    int c = memcmp(x->attr, y->attr, sizeof x->attr);
    if (c)
        return c;
    if (x->dur != y->dur)
        return x->dur < y->dur ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static bool whole(double d)
{
    return isfinite(d) && d == floor(d) && fabs(d) < 9007199254740992.0 && !(d == 0 && signbit(d));
}

void td_groups_free(td_groups *g)
{
    free(g->g);
    free(g->durs);
    free(g->seq);
    free(g->seq_durs);
    free(g->iter_on);
    memset(g, 0, sizeof *g);
}

/* Per iteration of f: kept by keep? */
static bool *kept_iterations(const td_file *f, const td_keep *keep)
{
    bool *on = malloc((f->niters + 1) * sizeof *on);
    for (size_t i = 0; on && i < f->niters; i++) {
        on[i] = keep == NULL || keep->iters == NULL;
        for (size_t j = 0; !on[i] && j < keep->niters; j++)
            on[i] = keep->iters[j] == f->iters[i];
    }
    return on;
}

/* The kept events of f into k (file order); returns their count and sets
 * *integral when every duration is whole and their absolute sum small. */
static size_t collect_kept(keyed *k, const td_file *f, const td_keep *keep, const bool *iter_on,
                           int *integral, bool *any_nan)
{
    *any_nan = false;
    size_t n = 0;
    int device = keep ? keep->device : TD_DEVICE_ALL;
    bool whole_all = true;
    double abs_sum = 0;
    size_t gi = 0, ci = 0; /* gpu (cpu) events so far: the index of their attribution (stack) */
    bool cpu_stk = f->has_attr && f->stk_of && f->stk_cpu;
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        bool gpu = (e->name & TD_EV_GPU) != 0;
        size_t a = gpu ? gi++ : 0, c = gpu ? 0 : ci++;
        if ((device == TD_DEVICE_CPU && gpu) || (device == TD_DEVICE_GPU && !gpu))
            continue;
        if (keep && keep->iters && (e->iter < 0 || !iter_on[e->iter]))
            continue;
        memset(k[n].attr, 0, sizeof k[n].attr);
        if (gpu && f->has_attr && a < f->nattr) {
            k[n].attr[0] = f->attr_op[a];
            k[n].attr[1] = f->attr_top[a];
            k[n].attr[2] = f->attr_ann[a];
            /* the stacks split the groups too: every event of a group has one */
            k[n].attr[3] = f->stk_of ? f->stk_of[a] : 0;
        } else if (!gpu && cpu_stk) { /* a cpu group has one stack too */
            k[n].attr[3] = c < f->nstk_cpu ? f->stk_cpu[c] : TD_ATTR_NONE;
        }
        k[n].key = (uint64_t)(uint32_t)(e->iter + 1) << 32 | e->name;
        k[n].dur = e->dur;
        k[n].pos = i;
        if (whole_all && whole(e->dur))
            abs_sum += fabs(e->dur);
        else
            whole_all = false;
        *any_nan |= isnan(e->dur);
        n++;
    }
    /* Sums of whole numbers are exact in any order while they stay below
     * 2^53; 2^43 per file leaves room for 1024 files in one row. */
    *integral = whole_all && abs_sum < 8796093022208.0;
    return n;
}

/* k (sorted by key, then duration) into out's groups and durations. */
/* A group begun from its events' key and attribution, first at durs[first]. */
static void group_begin(td_group *g, uint64_t key, const uint32_t attr[4], size_t first)
{
    memset(g, 0, sizeof *g);
    g->iter = (int32_t)(uint32_t)(key >> 32) - 1;
    uint32_t nm = (uint32_t)key;
    g->name = nm & ~(TD_EV_GPU | TD_EV_STREAM0);
    g->flags = (nm & TD_EV_GPU ? TD_GROUP_GPU : 0) | (nm & TD_EV_STREAM0 ? TD_GROUP_STREAM0 : 0);
    g->first = first;
    memcpy(g->attr, attr, sizeof g->attr);
}

static int make_groups(td_groups *out, keyed *k, size_t n)
{
    size_t ng = 0, cap = 0;
    if (!(out->durs = malloc((n + 1) * sizeof *out->durs)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        out->durs[i] = k[i].dur;
        if (i == 0 || k[i].key != k[i - 1].key ||
            memcmp(k[i].attr, k[i - 1].attr, sizeof k[i].attr) != 0) {
            td_group *g = td_grow(out->g, &cap, ng + 1, sizeof *g);
            if (!g)
                return -1;
            out->g = g;
            group_begin(&out->g[ng++], k[i].key, k[i].attr, i);
        }
        out->g[ng - 1].count++;
        k[i].group = ng - 1;
    }
    out->n = ng;
    return 0;
}

/* The compensated sum of d[0 .. n), as compare sums. */
static double comp_sum(const double *d, size_t n)
{
    double s = 0, c = 0;
    for (size_t j = 0; j < n; j++) {
        double x = d[j], t = s + x;
        if (isnan(x))
            continue;
        double cc = fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
        if (isfinite(cc))
            c += cc;
        s = t;
    }
    return s + c;
}

/* Each group's total, compensated as compare sums. */
static void sum_groups(td_groups *out)
{
    for (size_t i = 0; i < out->n; i++)
        out->g[i].total = comp_sum(out->durs + out->g[i].first, (size_t)out->g[i].count);
}

/* The raw encoding keeps file order: each event's group and duration. */
static int keep_file_order(td_groups *out, keyed *k, size_t n)
{
    qsort(k, n, sizeof *k, cmp_pos);
    out->seq = malloc((n + 1) * sizeof *out->seq);
    out->seq_durs = malloc((n + 1) * sizeof *out->seq_durs);
    if (!out->seq || !out->seq_durs)
        return -1;
    for (size_t i = 0; i < n; i++) {
        out->seq[i] = k[i].group;
        out->seq_durs[i] = k[i].dur;
    }
    out->nseq = n;
    return 0;
}

/* The group of a (key, attr) pair met while hashing, in the order met. */
typedef struct met {
    uint64_t key;
    uint32_t attr[4];
    size_t count;
    size_t rank; /* its place among the groups in (key, attr) order */
} met;

static int cmp_met(const void *a, const void *b)
{
    const met *x = *(met *const *)a, *y = *(met *const *)b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return memcmp(x->attr, y->attr, sizeof x->attr);
}

static uint64_t met_hash(uint64_t key, const uint32_t attr[4])
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)attr[0] << 32 | attr[1]) * 0xC2B2AE3D27D4EB4Full;
    h ^= ((uint64_t)attr[2] << 32 | attr[3]) * 0x165667B19E3779F9ull;
    return h ^ (h >> 29);
}

/* The durations d[0..n) in ascending order, equal ones (-0 and 0 among
 * them) in the order given: insertion sort for short runs, then merges
 * through tmp. No NaN. */
static void sort_durs(double *d, size_t n, double *tmp)
{
    const size_t run = 16;
    for (size_t lo = 0; lo < n; lo += run) {
        size_t hi = lo + run < n ? lo + run : n;
        for (size_t i = lo + 1; i < hi; i++) {
            double x = d[i];
            size_t j = i;
            for (; j > lo && x < d[j - 1]; j--)
                d[j] = d[j - 1];
            d[j] = x;
        }
    }
    double *src = d, *dst = tmp;
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                dst[o++] = src[b] < src[a] ? src[b++] : src[a++];
            while (a < mid)
                dst[o++] = src[a++];
            while (b < hi)
                dst[o++] = src[b++];
        }
        double *t = src;
        src = dst;
        dst = t;
    }
    if (src != d)
        memcpy(d, src, n * sizeof *d);
}

/* The groups of the events as met: a hash table of (key, attr), each
 * event's group in gid[]. */
typedef struct met_table {
    uint32_t *slot; /* met index + 1; 0 empty */
    size_t cap;
    met *m;
    size_t n, mcap;
    uint32_t *gid;
} met_table;

static void met_free(met_table *t)
{
    free(t->slot);
    free(t->m);
    free(t->gid);
}

/* Doubles the table at half full: it grows with the groups (far fewer than
 * the events), so that it stays in the cache. */
static int met_grow(met_table *t)
{
    size_t cap = 2 * t->cap;
    uint32_t *ns = calloc(cap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t g = 0; g < t->n; g++) {
        size_t q = (size_t)met_hash(t->m[g].key, t->m[g].attr) & (cap - 1);
        while (ns[q])
            q = (q + 1) & (cap - 1);
        ns[q] = (uint32_t)(g + 1);
    }
    free(t->slot);
    t->slot = ns;
    t->cap = cap;
    return 0;
}

/* Each event's group, the groups counted. -1 when out of memory. */
static int met_fill(met_table *t, const keyed *k, size_t n)
{
    t->cap = 1024;
    t->mcap = 256;
    t->slot = calloc(t->cap, sizeof *t->slot);
    t->m = malloc(t->mcap * sizeof *t->m);
    t->gid = malloc((n + 1) * sizeof *t->gid);
    if (!t->slot || !t->m || !t->gid || n > UINT32_MAX - 1)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)met_hash(k[i].key, k[i].attr) & (t->cap - 1);
        uint32_t s;
        while ((s = t->slot[h]) != 0) {
            const met *g = &t->m[s - 1];
            if (g->key == k[i].key && memcmp(g->attr, k[i].attr, sizeof g->attr) == 0)
                break;
            h = (h + 1) & (t->cap - 1);
        }
        if (!s) { /* a new group */
            if (2 * (t->n + 1) > t->cap) {
                if (met_grow(t) < 0)
                    return -1;
                h = (size_t)met_hash(k[i].key, k[i].attr) & (t->cap - 1);
                while (t->slot[h])
                    h = (h + 1) & (t->cap - 1);
            }
            met *nm = td_grow(t->m, &t->mcap, t->n + 1, sizeof *t->m);
            if (!nm)
                return -1;
            t->m = nm;
            t->m[t->n] =
                (met){k[i].key, {k[i].attr[0], k[i].attr[1], k[i].attr[2], k[i].attr[3]}, 0, 0};
            t->slot[h] = s = (uint32_t)++t->n;
        }
        t->m[s - 1].count++;
        t->gid[i] = s - 1;
    }
    return 0;
}

/* out's groups in (key, attr) order, each group's rank set. -1 when out of
 * memory. */
static int met_rank(td_groups *out, met_table *t)
{
    met **order = malloc((t->n + 1) * sizeof *order);
    if (!order || !(out->g = calloc(t->n + 1, sizeof *out->g))) {
        free(order);
        return -1;
    }
    for (size_t g = 0; g < t->n; g++)
        order[g] = &t->m[g];
    qsort(order, t->n, sizeof *order, cmp_met);
    size_t first = 0;
    for (size_t r = 0; r < t->n; r++) {
        met *g = order[r];
        g->rank = r;
        group_begin(&out->g[r], g->key, g->attr, first);
        out->g[r].count = g->count;
        first += g->count;
    }
    out->n = t->n;
    free(order);
    return 0;
}

/* make_groups, sum_groups and keep_file_order on k (n events, file order,
 * no NaN duration) without sorting the events: each finds its group in a
 * hash table, the groups are sorted, the durations counted into them in
 * file order and each group's sorted on its own (stably: equal ones, -0
 * and 0 among them, stay in file order). The order of cmp_keyed, so the
 * same groups and bytes. -1 when out of memory. */
static int hash_groups(td_groups *out, const keyed *k, size_t n)
{
    met_table t = {0};
    size_t *fill = NULL; /* the next slot of each group's durations */
    double *tmp = malloc((n + 1) * sizeof *tmp);
    int rc = -1;
    if (!tmp || met_fill(&t, k, n) < 0 || met_rank(out, &t) < 0 ||
        !(out->durs = malloc((n + 1) * sizeof *out->durs)) ||
        !(fill = malloc((t.n + 1) * sizeof *fill)))
        goto done;
    for (size_t r = 0; r < out->n; r++)
        fill[r] = out->g[r].first;
    for (size_t i = 0; i < n; i++)
        out->durs[fill[t.m[t.gid[i]].rank]++] = k[i].dur;
    for (size_t r = 0; r < out->n; r++)
        sort_durs(out->durs + out->g[r].first, (size_t)out->g[r].count, tmp);
    sum_groups(out);
    if (!out->integral) { /* file order: each event's group and duration */
        out->seq = malloc((n + 1) * sizeof *out->seq);
        out->seq_durs = malloc((n + 1) * sizeof *out->seq_durs);
        if (!out->seq || !out->seq_durs)
            goto done;
        for (size_t i = 0; i < n; i++) {
            out->seq[i] = t.m[t.gid[i]].rank;
            out->seq_durs[i] = k[i].dur;
        }
        out->nseq = n;
    }
    rc = 0;
done:
    met_free(&t);
    free(fill);
    free(tmp);
    return rc;
}

int td_groups_row_totals(const td_groups *g, const size_t *row, size_t nrows, double *total)
{
    if (g->integral || !g->seq) { /* whole numbers: the groups' sums are exact */
        for (size_t r = 0; r < nrows; r++)
            total[r] = 0;
        for (size_t i = 0; i < g->n; i++)
            total[row[i]] += g->g[i].total;
        return 0;
    }
    double *comp = calloc(nrows + 1, sizeof *comp);
    if (!comp)
        return -1;
    for (size_t r = 0; r < nrows; r++)
        total[r] = 0;
    for (size_t i = 0; i < g->nseq; i++) { /* file order, as compare adds a trace's events */
        size_t r = row[g->seq[i]];
        double x = g->seq_durs[i], sum = total[r], t = sum + x;
        if (isnan(x))
            continue;
        double c = fabs(sum) >= fabs(x) ? (sum - t) + x : (x - t) + sum;
        if (isfinite(c))
            comp[r] += c;
        total[r] = t;
    }
    for (size_t r = 0; r < nrows; r++)
        total[r] += comp[r];
    free(comp);
    return 0;
}

int td_file_groups(td_groups *out, const td_file *f, const td_keep *keep, td_error *err)
{
    memset(out, 0, sizeof *out);
    out->has_attr = f->has_attr;
    out->has_stk = f->has_attr && f->stk_of != NULL;
    out->has_stk_cpu = out->has_stk && f->stk_cpu != NULL;
    out->keep_all = !keep || (!keep->iters && keep->device == TD_DEVICE_ALL);
    out->all_iters = !keep || !keep->iters;
    out->device = keep ? keep->device : TD_DEVICE_ALL;
    int erc = td_file_events(f);
    if (erc < 0)
        return td_events_fail(err, erc, f);
    bool *iter_on = kept_iterations(f, keep);
    keyed *k = malloc((f->nev + 1) * sizeof *k);
    int rc = -1;
    if (iter_on && k) {
        bool any_nan;
        size_t n = collect_kept(k, f, keep, iter_on, &out->integral, &any_nan);
        if (!any_nan) {
            rc = hash_groups(out, k, n);
        } else { /* cmp_keyed's order of NaNs is qsort's: the sort kept for them */
            qsort(k, n, sizeof *k, cmp_keyed);
            if ((rc = make_groups(out, k, n)) == 0) {
                sum_groups(out);
                if (!out->integral)
                    rc = keep_file_order(out, k, n);
            }
        }
    }
    free(k);
    out->iter_on = iter_on;
    if (rc < 0) {
        td_groups_free(out);
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    }
    return 0;
}

/* ---- packing ---- */

/* The word that held only "rounded" (0 or 1) in the first packed files,
 * now bits: 1 rounded, 2 loaded with ns (the trace's own resolution), 4
 * some ts decimal, 8 name categories split by side (td_name_cat_bit) and
 * each (name, side) of one category, so that they tell every event's (a
 * file that needed td_file.ev_cat is packed without it: --cat then needs
 * its trace). An
 * older file's 0 or 1 reads as it was made: HTA's rule, decimal exactly
 * when rounded, categories per name. */
enum { RULE_ROUNDED = 1, RULE_NS = 2, RULE_DECIMAL = 4, RULE_CATS_BY_SIDE = 8 };

static uint64_t pack_rule(const td_file *f)
{
    return (f->rounded ? RULE_ROUNDED : 0) | (f->ns ? RULE_NS : 0) |
           (f->decimal_ts ? RULE_DECIMAL : 0) |
           (f->cats_by_side && !f->ev_cat ? RULE_CATS_BY_SIDE : 0);
}

static void unpack_rule(td_file *f, uint64_t v)
{
    f->rounded = (v & RULE_ROUNDED) != 0;
    f->ns = (v & RULE_NS) != 0;
    f->decimal_ts = (v & (RULE_DECIMAL | RULE_ROUNDED)) != 0;
    f->cats_by_side = (v & RULE_CATS_BY_SIDE) != 0;
}

/* The file's metadata and counters, its categories, iterations and names. */
static int pack_head(td_buf *b, const td_file *f)
{
    int bad = 0;
    bad |= put(b, PACK_MAGIC, 4);
    bad |= put_s(b, f->path, strlen(f->path));
    bad |= put_u(b, f->device_name != NULL);
    if (f->device_name)
        bad |= put_s(b, f->device_name, strlen(f->device_name));
    const uint64_t nums[] = {zz(f->rank),       (uint64_t)f->has_rank, f->compression,
                             f->file_bytes,     f->json_bytes,         f->events_total,
                             f->events_skipped, pack_rule(f),          (uint64_t)f->bom,
                             f->steps,          f->events_cpu,         f->events_gpu,
                             f->events_stream0, f->events_no_launch,   f->events_no_launch0};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
        bad |= put_u(b, nums[i]);
    size_t nc = td_strtab_count(f->cats);
    bad |= put_u(b, nc);
    for (size_t i = 0; i < nc; i++) {
        size_t len;
        const char *s = td_strtab_get(f->cats, (uint32_t)i, &len);
        bad |= put_s(b, s, len);
        bad |= put_u(b, i < f->ncat_counts ? f->cat_counts[i] : 0);
    }
    bad |= put_u(b, f->niters);
    for (size_t i = 0; i < f->niters; i++)
        bad |= put_u(b, zz(f->iters[i] - (i ? f->iters[i - 1] : 0)));
    size_t nn = td_strtab_count(f->names);
    bad |= put_u(b, nn);
    for (size_t i = 0; i < nn; i++) {
        size_t len;
        const char *s = td_strtab_get(f->names, (uint32_t)i, &len);
        bad |= put_s(b, s, len);
    }
    return bad;
}

static int pack_group_head(td_buf *b, const td_group *x, const td_groups *g)
{
    int bad = put_u(b, (uint64_t)(x->iter + 1));
    bad |= put_u(b, x->flags);
    bad |= put_u(b, x->name);
    bad |= put_u(b, x->count);
    if (g->has_attr && (x->flags & TD_GROUP_GPU))
        for (int k = 0; k < 3; k++)
            bad |= put_u(b, x->attr[k]);
    if (g->has_attr && g->has_stk && ((x->flags & TD_GROUP_GPU) || g->has_stk_cpu))
        bad |= put_u(b, x->attr[3] == TD_ATTR_NONE ? 0 : (uint64_t)x->attr[3] + 1);
    return bad;
}

/* Whole durations: every group's head and exact total, then the durations
 * of every group in that order, each group's sorted and delta-coded. A
 * reader gets counts and totals from the heads alone. */
static int pack_sorted_totals(td_buf *b, const td_groups *g)
{
    td_buf d = {0};
    int bad = put_u(b, ENC_SORTED_TOTALS);
    bad |= put_u(b, g->n);
    for (size_t i = 0; i < g->n && !bad; i++) {
        const td_group *x = &g->g[i];
        bad |= pack_group_head(b, x, g);
        int64_t prev = 0;
        for (size_t j = 0; j < x->count; j++) {
            int64_t v = (int64_t)g->durs[x->first + j];
            bad |= j ? put_u(&d, (uint64_t)(v - prev)) : put_u(&d, zz(v));
            prev = v;
        }
        /* whole and below 2^53 (docs/summaries.md, Exactness): sum_groups's
         * total is exact */
        bad |= put_u(b, zz((int64_t)x->total));
    }
    bad |= put_u(b, d.n);
    if (!bad && d.n)
        bad |= put(b, d.p, d.n);
    td_buf_free(&d);
    return bad;
}

/* Any durations: the groups, then the events in file order, each its group
 * index and the raw double, 8 bytes little-endian. */
static int pack_raw(td_buf *b, const td_groups *g)
{
    int bad = put_u(b, ENC_RAW);
    bad |= put_u(b, g->n);
    for (size_t i = 0; i < g->n; i++)
        bad |= pack_group_head(b, &g->g[i], g);
    for (size_t i = 0; i < g->nseq && !bad; i++) {
        uint64_t w;
        memcpy(&w, &g->seq_durs[i], 8);
        unsigned char le[8];
        for (int j = 0; j < 8; j++)
            le[j] = (unsigned char)(w >> (8 * j));
        bad |= put_u(b, g->seq[i]);
        bad |= put(b, le, 8);
    }
    return bad;
}

static int put_le64(td_buf *b, double d)
{
    uint64_t w;
    memcpy(&w, &d, 8);
    unsigned char le[8];
    for (int j = 0; j < 8; j++)
        le[j] = (unsigned char)(w >> (8 * j));
    return put(b, le, 8);
}

/* Per category its total duration, per name the categories it appears under
 * (info's time per category, the --cat filter). */
static int pack_categories(td_buf *b, const td_file *f)
{
    size_t nc = td_strtab_count(f->cats), nn = td_strtab_count(f->names);
    int bad = put_u(b, f->cat_dur != NULL);
    for (size_t i = 0; f->cat_dur && i < nc; i++)
        bad |= put_le64(b, i < f->ncat_counts ? f->cat_dur[i] : 0);
    bad |= put_u(b, f->name_cats != NULL);
    for (size_t i = 0; f->name_cats && i < nn; i++)
        bad |= put_u(b, i < f->nname_cats ? f->name_cats[i] : 0);
    return bad;
}

/* The trace's span (the step time without ProfilerStep) and, per name with
 * op time, its total and the part spent waiting for the device (check's
 * waits, docs/stats.md): what the gate measures on the traces. */
static int pack_extras(td_buf *b, const td_file *f)
{
    int bad = put_u(b, f->has_span != 0);
    if (f->has_span) {
        bad |= put_le64(b, f->span_lo);
        bad |= put_le64(b, f->span_hi);
    }
    size_t nw = 0;
    for (size_t i = 0; f->wait_in && i < f->nwait; i++)
        nw += f->wait_of[i] > 0;
    bad |= put_u(b, f->wait_in != NULL);
    if (!f->wait_in)
        return bad;
    bad |= put_u(b, nw);
    for (size_t i = 0; i < f->nwait; i++) {
        if (!(f->wait_of[i] > 0))
            continue;
        bad |= put_u(b, i);
        bad |= put_le64(b, f->wait_in[i]);
        bad |= put_le64(b, f->wait_of[i]);
    }
    return bad;
}

/* The breakdown's event times: 8-byte doubles, or whole numbers as varints
 * (every time whole and below 2^52 in magnitude, which HTA's rounding makes
 * nearly every file). */
enum { BD_DOUBLES = 0, BD_WHOLE = 1 };
#define BD_WHOLE_MAX 4503599627370496.0 /* 2^52: differences stay below 2^53 */

static bool whole_time(double t)
{
    return fabs(t) < BD_WHOLE_MAX && t == floor(t) && !(t == 0 && signbit(t));
}

/* The breakdown's records (model/bd_collect.h), files from "TDF4" on: a
 * word: 0 when the file was loaded without them, 2 when the summary keeps
 * a selection of it (the breakdown needs every event), else 1 and the gpu-side
 * events in file order (times as 8-byte doubles, the iteration, stream, type
 * and flags), the synchronize calls, the steps and the span. */
static int pack_bd(td_buf *b, const td_file *f, const td_groups *g)
{
    const td_bd_file *bd = f->bd;
    if (!bd || !g->keep_all)
        return put_u(b, bd ? 2 : 0);
    int bad = put_u(b, 1);
    bool whole_times = true; /* HTA's rounding: every time a whole number */
    for (size_t i = 0; i < bd->nev && whole_times; i++)
        whole_times = whole_time(bd->ev[i].ts) && whole_time(bd->ev[i].end) &&
                      (isnan(bd->ev[i].launch) || whole_time(bd->ev[i].launch));
    bad |= put_u(b, whole_times ? BD_WHOLE : BD_DOUBLES);
    bad |= put_u(b, bd->nev);
    int64_t prev = 0;
    for (size_t i = 0; i < bd->nev && !bad; i++) {
        const td_bd_ev *e = &bd->ev[i];
        if (whole_times) { /* ts from the previous one's, end and launch from ts */
            int64_t ts = (int64_t)e->ts;
            bad |= put_u(b, zz(ts - prev));
            bad |= put_u(b, zz((int64_t)e->end - ts));
            bad |= put_u(b, isnan(e->launch) ? 0 : zz((int64_t)e->launch - ts) + 1);
            prev = ts;
        } else {
            bad |= put_le64(b, e->ts);
            bad |= put_le64(b, e->end);
            bad |= put_le64(b, e->launch);
        }
        bad |= put_u(b, zz(e->iter));
        bad |= put_u(b, zz(e->stream));
        bad |= put_u(b, (uint64_t)e->type | (uint64_t)e->flags << 3);
    }
    bad |= put_u(b, bd->nsync);
    for (size_t i = 0; i < bd->nsync && !bad; i++) {
        bad |= put_le64(b, bd->sync[i].ts);
        bad |= put_le64(b, bd->sync[i].end);
    }
    bad |= put_u(b, bd->nsteps);
    for (size_t i = 0; i < bd->nsteps && !bad; i++) {
        bad |= put_le64(b, bd->steps[i].start);
        bad |= put_le64(b, bd->steps[i].end);
        bad |= put_u(b, zz(bd->steps[i].n));
    }
    bad |= put_le64(b, bd->span_lo);
    bad |= put_le64(b, bd->span_hi);
    return bad;
}

/* The stacks' frames (files from "TDF5" on): 0 when the file was loaded
 * without them, else 2 (1: the stacks of gpu events only, written by
 * schema 4), the node count, per node its parent + 1 (0: a root; a parent
 * comes before its children) and its name id + 1 (0: the cut frame), then
 * the count of CPU events folded into cut frames. Each gpu group's head
 * then names its node, and with 2 each cpu group's head too. */
static int pack_stacks(td_buf *b, const td_file *f, const td_groups *g)
{
    if (!g->has_stk)
        return put_u(b, 0);
    int bad = put_u(b, g->has_stk_cpu ? STK_GPU_CPU : STK_GPU);
    bad |= put_u(b, f->nstk);
    for (size_t i = 0; i < f->nstk && !bad; i++) {
        bad |= put_u(b, f->stk_parent[i] == TD_ATTR_NONE ? 0 : (uint64_t)f->stk_parent[i] + 1);
        bad |= put_u(b, f->stk_name[i] == TD_STK_CUT ? 0 : (uint64_t)f->stk_name[i] + 1);
    }
    bad |= put_u(b, f->stk_cut);
    return bad;
}

/* Whether gpu event a of f (attr_op's index) is one the roofline reads. */
static bool roof_event(const td_file *f, size_t a)
{
    return a < f->nroof && !isnan(f->roof_ts[a]);
}

/* Marks op call c and the calls around it in keep[]. */
static void mark_calls(const td_file *f, uint32_t c, uint8_t *keep)
{
    for (size_t depth = 0; c != TD_ATTR_NONE && c < f->nops && !keep[c] && depth <= f->nops;
         depth++) {
        keep[c] = 1;
        c = f->op_parent[c];
    }
}

/* Whether gpu event a of f, in iteration iter, is one the summary keeps. */
static bool roof_kept(const td_file *f, const td_groups *g, size_t a, int32_t iter)
{
    return roof_event(f, a) && (g->all_iters || (iter >= 0 && g->iter_on[iter]));
}

/* The shapes of the kept calls (has_shapes, [nshapes, each a string]),
 * numbered in the order first named: shape_id[] their new ids. */
static int pack_roof_shapes(td_buf *b, const td_file *f, const uint8_t *keep, uint32_t *shape_id,
                            size_t nsh)
{
    size_t nshk = 0;
    for (size_t i = 0; shape_id && i < nsh; i++)
        shape_id[i] = TD_ATTR_NONE;
    for (size_t c = 0; shape_id && c < f->nops; c++)
        if (keep[c] && f->op_shape[c] < nsh && shape_id[f->op_shape[c]] == TD_ATTR_NONE)
            shape_id[f->op_shape[c]] = (uint32_t)nshk++;
    int bad = put_u(b, f->shapes != NULL);
    if (!f->shapes)
        return bad;
    bad |= put_u(b, nshk);
    /* in their new ids' order: the trace's id of each */
    uint32_t *order = malloc((nshk + 1) * sizeof *order);
    bad |= !order;
    for (size_t i = 0; order && i < nsh; i++)
        if (shape_id[i] != TD_ATTR_NONE)
            order[shape_id[i]] = (uint32_t)i;
    for (size_t k = 0; order && k < nshk && !bad; k++) {
        size_t len;
        const char *sh = td_strtab_get(f->shapes, order[k], &len);
        bad |= put_s(b, sh, len);
    }
    free(order);
    return bad;
}

/* The kept events in file order: names id, flags, iteration + 1, times,
 * call + 1 (id[]: the calls' new ids) and innermost op. */
static int pack_roof_events(td_buf *b, const td_file *f, const td_groups *g, const uint32_t *id,
                            bool whole_times, size_t nev)
{
    int bad = put_u(b, whole_times ? BD_WHOLE : BD_DOUBLES);
    bad |= put_u(b, nev);
    int64_t prev = 0;
    size_t gi = 0;
    for (size_t i = 0; i < f->nev && !bad; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        if (!(e->name & TD_EV_GPU))
            continue;
        size_t a = gi++;
        if (!roof_kept(f, g, a, e->iter))
            continue;
        bad |= put_u(b, TD_EV_NAME(e));
        bad |= put_u(b, e->name & TD_EV_STREAM0 ? TD_GROUP_GPU | TD_GROUP_STREAM0 : TD_GROUP_GPU);
        bad |= put_u(b, (uint64_t)(e->iter + 1));
        if (whole_times) {
            int64_t ts = (int64_t)f->roof_ts[a];
            bad |= put_u(b, zz(ts - prev));
            bad |= put_u(b, zz((int64_t)f->roof_end[a] - ts));
            prev = ts;
        } else {
            bad |= put_le64(b, f->roof_ts[a]);
            bad |= put_le64(b, f->roof_end[a]);
        }
        uint32_t c = a < f->nattr && f->op_name ? f->attr_call[a] : TD_ATTR_NONE;
        bad |= put_u(b, c == TD_ATTR_NONE || c >= f->nops ? 0 : (uint64_t)id[c] + 1);
        bad |= put_u(b, a < f->nattr ? f->attr_op[a] : TD_ATTR_NONE);
    }
    return bad;
}

/* Whether roofline event e of a summary's file is one the summary keeps. */
static bool roof_list_kept(const td_groups *g, const td_roof_ev *e)
{
    return g->all_iters || (e->iter >= 0 && g->iter_on[e->iter]);
}

/* pack_roof_events for a file read from a summary: its decoded roofline
 * events (roof_list) in their order. */
static int pack_roof_list_events(td_buf *b, const td_file *f, const td_groups *g,
                                 const uint32_t *id, bool whole_times, size_t nev)
{
    int bad = put_u(b, whole_times ? BD_WHOLE : BD_DOUBLES);
    bad |= put_u(b, nev);
    int64_t prev = 0;
    for (size_t i = 0; i < f->nroof_list && !bad; i++) {
        const td_roof_ev *e = &f->roof_list[i];
        if (!roof_list_kept(g, e))
            continue;
        bad |= put_u(b, TD_EV_NAME(e));
        bad |= put_u(b, e->name & TD_EV_STREAM0 ? TD_GROUP_GPU | TD_GROUP_STREAM0 : TD_GROUP_GPU);
        bad |= put_u(b, (uint64_t)(e->iter + 1));
        if (whole_times) {
            int64_t ts = (int64_t)e->ts;
            bad |= put_u(b, zz(ts - prev));
            bad |= put_u(b, zz((int64_t)e->end - ts));
            prev = ts;
        } else {
            bad |= put_le64(b, e->ts);
            bad |= put_le64(b, e->end);
        }
        uint32_t c = e->call;
        bad |= put_u(b, c == TD_ATTR_NONE || c >= f->nops ? 0 : (uint64_t)id[c] + 1);
        bad |= put_u(b, e->op);
    }
    return bad;
}

/* What pack_roof and pack_roof_list share: the calls the kept events name
 * (keep, marked by mark_calls), numbered in the trace's order into id; the
 * section's head, its shapes and its calls. */
typedef struct {
    uint8_t *keep;      /* nops + 1: the calls to write */
    uint32_t *id;       /* nops + 1: each kept call's number in the section */
    uint32_t *shape_id; /* nshapes + 1, or NULL without shapes */
    size_t nsh;
} roof_calls;

static int roof_calls_init(roof_calls *rc, const td_file *f)
{
    rc->nsh = f->shapes ? td_strtab_count(f->shapes) : 0;
    rc->keep = calloc(f->nops + 1, 1);
    rc->id = malloc((f->nops + 1) * sizeof *rc->id);
    rc->shape_id = f->shapes && f->op_shape ? malloc((rc->nsh + 1) * sizeof *rc->shape_id) : NULL;
    return !rc->keep || !rc->id || (f->shapes && f->op_shape && !rc->shape_id);
}

static void roof_calls_free(roof_calls *rc)
{
    free(rc->keep);
    free(rc->id);
    free(rc->shape_id);
}

static int pack_roof_calls(td_buf *b, const td_file *f, roof_calls *rc)
{
    const uint8_t *keep = rc->keep;
    uint32_t *id = rc->id, *shape_id = rc->shape_id;
    size_t ncalls = 0, nsh = rc->nsh;
    for (size_t c = 0; c < f->nops; c++)
        id[c] = keep[c] ? (uint32_t)ncalls++ : TD_ATTR_NONE;
    int bad = put_u(b, 1);
    bad |= pack_roof_shapes(b, f, rc->keep, shape_id, nsh);
    bad |= put_u(b, ncalls);
    for (size_t c = 0; c < f->nops && !bad; c++) {
        if (!keep[c])
            continue;
        uint32_t p = f->op_parent[c], sh = f->op_shape ? f->op_shape[c] : TD_ATTR_NONE;
        bad |= put_u(b, f->op_name[c]);
        bad |= put_u(b, p == TD_ATTR_NONE || p >= f->nops ? 0 : (uint64_t)id[p] + 1);
        bad |= put_u(b, shape_id && sh < nsh ? (uint64_t)shape_id[sh] + 1 : 0);
    }
    return bad;
}

/* pack_roof for a file read from a summary (td_file_roof has decoded its
 * section): the same section again, so that a summary of a summary keeps
 * the roofline its input had. */
static int pack_roof_list(td_buf *b, const td_file *f, const td_groups *g)
{
    roof_calls rc;
    int bad = roof_calls_init(&rc, f);
    size_t nev = 0;
    bool whole_times = true;
    for (size_t i = 0; i < f->nroof_list && !bad; i++) {
        const td_roof_ev *e = &f->roof_list[i];
        if (!roof_list_kept(g, e))
            continue;
        nev++;
        whole_times = whole_times && whole_time(e->ts) && whole_time(e->end);
        mark_calls(f, e->call, rc.keep);
    }
    if (!bad)
        bad |= pack_roof_calls(b, f, &rc);
    if (!bad)
        bad |= pack_roof_list_events(b, f, g, rc.id, whole_times, nev);
    roof_calls_free(&rc);
    return bad;
}

/* The roofline's inputs (files from "TDF5" on): 0 when the file was loaded
 * without them, 2 when the summary keeps only CPU events, else 1 and: the
 * shapes (has_shapes: varint, [nshapes, each a string]); the op calls
 * the events name and those around them (ncalls, each its names id, parent
 * + 1, shape + 1; ids in the order of the trace's); the times' encoding (1
 * whole numbers below 2^52: ts minus the previous event's ts and end minus
 * ts, zz; 0 doubles); the events (nev, each its names id, flags, iteration
 * + 1, times, call + 1 and innermost op as in a group head). */
static int pack_roof(td_buf *b, const td_file *f, const td_groups *g)
{
    if (g->device == TD_DEVICE_CPU && (f->roof_list || f->roof_lost == TD_BD_LOST_SELECTION))
        return put_u(b, 2);
    if (f->roof_list && f->has_attr)
        return pack_roof_list(b, f, g);
    if (!f->roof_ts || !f->has_attr || !f->attr_call)
        return put_u(b, 0);
    if (g->device == TD_DEVICE_CPU)
        return put_u(b, 2);
    roof_calls rc;
    int bad = roof_calls_init(&rc, f);
    size_t nev = 0, gi = 0;
    bool whole_times = true;
    for (size_t i = 0; i < f->nev && !bad; i++) { /* the kept events, their calls */
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        if (!(e->name & TD_EV_GPU))
            continue;
        size_t a = gi++;
        if (!roof_kept(f, g, a, e->iter))
            continue;
        nev++;
        whole_times = whole_times && whole_time(f->roof_ts[a]) && whole_time(f->roof_end[a]);
        if (a < f->nattr && f->op_name)
            mark_calls(f, f->attr_call[a], rc.keep);
    }
    if (!bad)
        bad |= pack_roof_calls(b, f, &rc);
    if (!bad)
        bad |= pack_roof_events(b, f, g, rc.id, whole_times, nev);
    roof_calls_free(&rc);
    return bad;
}

int td_file_pack(td_buf *b, const td_file *f, const td_groups *g, td_error *err)
{
    int rc = td_file_roof(f); /* a summary's roofline section, decoded to be packed again */
    if (rc == 0)
        rc = td_file_bd(f); /* and its breakdown's */
    if (rc < 0)
        return td_roof_fail(err, rc, f);
    int bad = pack_head(b, f);
    bad |= pack_categories(b, f);
    bad |= put_u(b, (uint64_t)(g->has_attr != 0));
    bad |= pack_extras(b, f);
    bad |= pack_bd(b, f, g);
    bad |= pack_stacks(b, f, g);
    bad |= pack_roof(b, f, g);
    bad |= g->integral ? pack_sorted_totals(b, g) : pack_raw(b, g);
    if (bad)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    return 0;
}

/* ---- unpacking ---- */

typedef struct rd {
    const unsigned char *p, *end;
    int bad;
    unsigned char *owned; /* the malloc'd bytes p points into, or NULL */
    int stk_cpu;          /* the cpu group heads name a stack node too (STK_GPU_CPU) */
} rd;

enum { UNPACK_BAD = -1, UNPACK_NOMEM = -2 };

static uint64_t get_u_slow(rd *r)
{
    uint64_t v = 0;
    for (int sh = 0; sh < 64; sh += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        unsigned char c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* Most varints of a summary are one or two bytes: sorted durations differ
 * little, and name ids and counts are small. */
static inline uint64_t get_u(rd *r)
{
    const unsigned char *p = r->p;
    if (r->end - p >= 2) {
        if (p[0] < 0x80) {
            r->p = p + 1;
            return p[0];
        }
        if (p[1] < 0x80) {
            r->p = p + 2;
            return ((uint64_t)p[0] & 0x7f) | (uint64_t)p[1] << 7;
        }
    }
    return get_u_slow(r);
}

static const char *get_s(rd *r, size_t *len)
{
    uint64_t n = get_u(r);
    if (r->bad || n > (uint64_t)(r->end - r->p)) {
        r->bad = 1;
        *len = 0;
        return "";
    }
    const char *s = (const char *)r->p;
    r->p += n;
    *len = (size_t)n;
    return s;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The path, the device name and the counters (pack_head's order). */
static int unpack_meta(rd *r, td_file *f)
{
    size_t len;
    const char *s = get_s(r, &len);
    if (!(f->path = dup_n(s, len)))
        return UNPACK_NOMEM;
    if (get_u(r)) {
        s = get_s(r, &len);
        if (!(f->device_name = dup_n(s, len)))
            return UNPACK_NOMEM;
    }
    f->rank = unzz(get_u(r));
    uint64_t has_rank = get_u(r), comp = get_u(r);
    if (has_rank > 1 || comp > TD_COMP_ZSTD)
        return UNPACK_BAD;
    f->has_rank = (int)has_rank;
    f->compression = (td_compression)comp;
    f->file_bytes = get_u(r);
    f->json_bytes = get_u(r);
    f->events_total = get_u(r);
    f->events_skipped = get_u(r);
    uint64_t rule = get_u(r), bom = get_u(r);
    if (rule > (RULE_ROUNDED | RULE_NS | RULE_DECIMAL | RULE_CATS_BY_SIDE) || bom > 1)
        return UNPACK_BAD;
    unpack_rule(f, rule);
    f->bom = (int)bom;
    f->steps = get_u(r);
    f->events_cpu = get_u(r);
    f->events_gpu = get_u(r);
    f->events_stream0 = get_u(r);
    f->events_no_launch = get_u(r);
    f->events_no_launch0 = get_u(r);
    return r->bad ? UNPACK_BAD : 0;
}

/* A count of things that take at least a byte each: no more than remain. */
static bool plausible(const rd *r, uint64_t count)
{
    return !r->bad && count <= (uint64_t)(r->end - r->p);
}

/* A count of records that take at least min bytes each: no more than the
 * bytes left hold, nor than max. 0 with r->bad set otherwise. */
static uint64_t get_count(rd *r, uint64_t min, uint64_t max)
{
    uint64_t n = get_u(r);
    if (r->bad || n > max || n > (uint64_t)(r->end - r->p) / min) {
        r->bad = 1;
        return 0;
    }
    return n;
}

/* A bound of get_id_rows: a row's index + 1, or 0 (at most the count). */
#define ROW_OR_NONE UINT64_MAX

/* A count (below max), then that many rows of nf varints, column j into
 * col[j] (count + 1 entries, malloc'd here; NULL: checked, not kept),
 * each value below bound[j] (ROW_OR_NONE: at most the count) and below
 * 2^32. The callers check what relates rows to each other. 0, UNPACK_BAD
 * or UNPACK_NOMEM. */
static int get_id_rows(rd *r, uint64_t max, int nf, const uint64_t *bound, uint32_t **col[],
                       uint64_t *count)
{
    uint64_t n = *count = get_count(r, (uint64_t)nf, max);
    if (r->bad)
        return UNPACK_BAD;
    for (int j = 0; j < nf; j++)
        if (col[j] && !(*col[j] = malloc((n + 1) * sizeof **col[j])))
            return UNPACK_NOMEM;
    for (uint64_t i = 0; i < n; i++)
        for (int j = 0; j < nf; j++) {
            uint64_t v = get_u(r), b = bound[j] == ROW_OR_NONE ? n + 1 : bound[j];
            if (r->bad || v >= b || v > UINT32_MAX)
                return UNPACK_BAD;
            if (col[j])
                (*col[j])[i] = (uint32_t)v;
        }
    return 0;
}

static int unpack_cats(rd *r, td_file *f)
{
    uint64_t nc = get_count(r, 1, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    if (!(f->cat_counts = calloc(nc + 1, sizeof *f->cat_counts)))
        return UNPACK_NOMEM;
    f->ncat_counts = nc;
    for (uint64_t i = 0; i < nc && !r->bad; i++) {
        size_t len;
        const char *s = get_s(r, &len);
        int64_t id = td_strtab_intern(f->cats, s, len);
        if (id < 0)
            return UNPACK_NOMEM;
        if (id != (int64_t)i)
            return UNPACK_BAD;
        f->cat_counts[i] = get_u(r);
    }
    return r->bad ? UNPACK_BAD : 0;
}

static uint64_t get_le64(rd *r);

static int unpack_categories(rd *r, td_file *f)
{
    size_t nc = td_strtab_count(f->cats), nn = td_strtab_count(f->names);
    if (get_u(r) == 1) {
        if (!(f->cat_dur = calloc(f->ncat_counts + 1, sizeof *f->cat_dur)))
            return UNPACK_NOMEM;
        for (size_t i = 0; i < nc && !r->bad; i++) {
            uint64_t w = get_le64(r);
            memcpy(&f->cat_dur[i], &w, 8);
        }
    }
    if (get_u(r) == 1) {
        if (!plausible(r, nn))
            return UNPACK_BAD;
        if (!(f->name_cats = calloc(nn + 1, sizeof *f->name_cats)))
            return UNPACK_NOMEM;
        f->nname_cats = nn;
        for (size_t i = 0; i < nn && !r->bad; i++)
            f->name_cats[i] = get_u(r);
    }
    return r->bad ? UNPACK_BAD : 0;
}

/* The file's step numbers, ascending and distinct as the model keeps them:
 * a step that does not follow the one before (or would not fit) is
 * damage. */
static int unpack_iters(rd *r, td_file *f)
{
    uint64_t ni = get_count(r, 1, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    if (!(f->iters = malloc((ni + 1) * sizeof *f->iters)))
        return UNPACK_NOMEM;
    for (uint64_t i = 0; i < ni && !r->bad; i++) {
        int64_t d = unzz(get_u(r));
        if (i > 0 && (d <= 0 || f->iters[i - 1] > INT64_MAX - d))
            return UNPACK_BAD;
        f->iters[i] = i ? f->iters[i - 1] + d : d;
        f->niters = i + 1;
    }
    return r->bad ? UNPACK_BAD : 0;
}

static int unpack_names(rd *r, td_file *f)
{
    uint64_t nn = get_count(r, 1, (uint64_t)1 << TD_NAME_BITS);
    if (r->bad)
        return UNPACK_BAD;
    for (uint64_t i = 0; i < nn && !r->bad; i++) {
        size_t len;
        const char *s = get_s(r, &len);
        /* names as the JSON reader keeps them: UTF-8, lone surrogates too */
        if (r->bad || !td_utf8_valid(s, len, true))
            return UNPACK_BAD;
        int64_t id = td_strtab_intern(f->names, s, len);
        if (id < 0)
            return UNPACK_NOMEM;
        if (id != (int64_t)i)
            return UNPACK_BAD;
    }
    return r->bad ? UNPACK_BAD : 0;
}

static uint32_t ev_name(uint64_t name, uint64_t flags)
{
    return (uint32_t)name | (flags & TD_GROUP_GPU ? TD_EV_GPU : 0) |
           (flags & TD_GROUP_STREAM0 ? TD_EV_STREAM0 : 0);
}

/* An attribution as a summary may hold it: a names id of the file, none,
 * or a reason (docs/attribution.md). */
static bool attr_ok(uint64_t v, size_t nnames)
{
    return v < nnames || v == TD_ATTR_NONE ||
           (v >= TD_ATTR_REASON_BASE && v < TD_ATTR_REASON_BASE + TD_ATTR_NREASONS);
}

/* A group's head (pack_group_head) into g, checked against the file. The
 * cursor is copied in and out: in a local it stays in registers. */
static int get_group_head(rd *rp, td_event_group *g, const td_file *f, size_t nnames)
{
    rd r = *rp;
    uint64_t iter = get_u(&r), flags = get_u(&r), name = get_u(&r), count = get_u(&r);
    uint64_t attr[3] = {0, 0, 0}, stk = 0;
    if (f->has_attr && (flags & TD_GROUP_GPU))
        for (int k = 0; k < 3; k++)
            attr[k] = get_u(&r);
    if (f->has_attr && f->stk_parent && ((flags & TD_GROUP_GPU) || r.stk_cpu))
        stk = get_u(&r); /* its stack node + 1, 0 none */
    *rp = r;
    if (!plausible(&r, count) || iter > f->niters || flags > 3 || name >= nnames ||
        !attr_ok(attr[0], nnames) || !attr_ok(attr[1], nnames) || !attr_ok(attr[2], nnames) ||
        stk > f->nstk)
        return UNPACK_BAD;
    g->iter = (int32_t)iter - 1;
    g->name = ev_name(name, flags);
    g->count = count;
    g->total = 0;
    for (int k = 0; k < 3; k++)
        g->attr[k] = (uint32_t)attr[k];
    g->stk = stk ? (uint32_t)(stk - 1) : TD_ATTR_NONE;
    return 0;
}

/* Room for the attribution of n gpu events. */
static int alloc_attr(td_file *f, size_t n)
{
    f->attr_op = malloc((n + 1) * sizeof *f->attr_op);
    f->attr_top = malloc((n + 1) * sizeof *f->attr_top);
    f->attr_ann = malloc((n + 1) * sizeof *f->attr_ann);
    f->nattr = 0;
    return f->attr_op && f->attr_top && f->attr_ann ? 0 : UNPACK_NOMEM;
}

static void push_attr(td_file *f, const td_event_group *g)
{
    f->attr_op[f->nattr] = g->attr[0];
    f->attr_top[f->nattr] = g->attr[1];
    f->attr_ann[f->nattr] = g->attr[2];
    f->nattr++;
}

/* The attribution of sorted groups: events come out group by group. */
static int attr_of_groups(td_file *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->ngroups; i++)
        n += (f->groups[i].name & TD_EV_GPU) ? f->groups[i].count : 0;
    if (alloc_attr(f, n) < 0)
        return UNPACK_NOMEM;
    for (size_t i = 0; i < f->ngroups; i++)
        if (f->groups[i].name & TD_EV_GPU)
            for (uint64_t j = 0; j < f->groups[i].count; j++)
                push_attr(f, &f->groups[i]);
    return 0;
}

/* The stack node of each gpu event of sorted groups (as attr_of_groups
 * orders them), filled from the heads at once: the stacks' users look for
 * stk_of before they walk the events. With cpu (STK_GPU_CPU), room for the
 * node of each cpu event (stk_cpu), which decode_lazy fills as the events
 * come out: only a walk of the events reads it. */
static int stk_of_groups(td_file *f, bool cpu)
{
    if (!f->stk_parent)
        return 0;
    size_t n = 0, nc = 0, k = 0;
    for (size_t i = 0; i < f->ngroups; i++)
        *((f->groups[i].name & TD_EV_GPU) ? &n : &nc) += f->groups[i].count;
    if (!(f->stk_of = malloc((n + 1) * sizeof *f->stk_of)) ||
        (cpu && !(f->stk_cpu = malloc((nc + 1) * sizeof *f->stk_cpu))))
        return UNPACK_NOMEM;
    for (size_t i = 0; i < f->ngroups; i++)
        if (f->groups[i].name & TD_EV_GPU)
            for (uint64_t j = 0; j < f->groups[i].count; j++)
                f->stk_of[k++] = f->groups[i].stk;
    return 0;
}

/* Room for n events in f->evb, the blocks allocated at once. */
static int alloc_events(td_file *f, size_t n)
{
    size_t nb = (n + TD_BLOCK - 1) >> TD_BLOCK_SHIFT;
    if (!(f->evb = calloc(nb + 1, sizeof *f->evb)))
        return UNPACK_NOMEM;
    f->evb_big = true; /* written at once: pages mapped up front */
    for (size_t b = 0; b < nb; b++) {
        size_t k = n - (b << TD_BLOCK_SHIFT) < TD_BLOCK ? n - (b << TD_BLOCK_SHIFT) : TD_BLOCK;
        if (!(f->evb[b] = td_big_alloc(k * sizeof **f->evb)))
            return UNPACK_NOMEM;
        f->nevb = b + 1;
    }
    return 0;
}

/* One varint at p (advanced), for the loops over durations: one- and
 * two-byte values inline, longer ones (and the end of the bytes) through r.
 * The cursor is a local: stores through r could alias the bytes read. */
#define TAKE_U(r, p, end, out)                                                                     \
    do {                                                                                           \
        if ((end) - (p) >= 2 && (p)[0] < 0x80) {                                                   \
            (out) = *(p)++;                                                                        \
        } else if ((end) - (p) >= 2 && (p)[1] < 0x80) {                                            \
            (out) = ((uint64_t)(p)[0] & 0x7f) | (uint64_t)(p)[1] << 7;                             \
            (p) += 2;                                                                              \
        } else {                                                                                   \
            (r)->p = (p);                                                                          \
            (out) = get_u_slow(r);                                                                 \
            (p) = (r)->p;                                                                          \
        }                                                                                          \
    } while (0)

/* A varint at *pp with at least 10 bytes behind it: no bound to check. */
static inline uint64_t take_u_unchecked(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    uint64_t c = *p++, v = c & 0x7f;
    for (int sh = 7; c >= 0x80 && sh < 70; sh += 7) {
        c = *p++;
        v |= (c & 0x7f) << sh;
    }
    *pp = p;
    return v;
}

/* The sum of a group's count durations (sorted: the first zigzag-coded, the
 * others deltas), decoded and dropped. Unsigned arithmetic: damaged bytes
 * give wrong numbers, never undefined behaviour. Most groups lie 10 bytes an
 * event before the end of the bytes, and decode without bound checks. */
static uint64_t sum_sorted(rd *r, uint64_t count)
{
    if (count == 0)
        return 0;
    const unsigned char *p = r->p, *end = r->end;
    uint64_t d, v, sum;
    TAKE_U(r, p, end, v);
    sum = d = (uint64_t)unzz(v);
    uint64_t j = 1;
    if ((uint64_t)(end - p) / 10 >= count)
        for (; j < count; j++) {
            d += take_u_unchecked(&p);
            sum += d;
        }
    for (; j < count; j++) {
        TAKE_U(r, p, end, v);
        d += v;
        sum += d;
    }
    r->p = p;
    return sum;
}

/* Keeps the packed durations from body to r->p in f->lazy, in the bytes read
 * when the file owns them, until a walk needs them. */
static int decode_lazy(td_file *f);

static int keep_lazy(rd *r, td_file *f, const unsigned char *body)
{
    f->fill = decode_lazy; /* td_file_events decodes them when first asked */
    f->nlazy = (size_t)(r->p - body);
    if (r->owned) { /* kept where it lies */
        f->lazy_mem = r->owned;
        r->owned = NULL;
        f->lazy = body;
        return 0;
    }
    if (!(f->lazy_mem = td_big_alloc(f->nlazy + 1)))
        return UNPACK_NOMEM;
    memcpy(f->lazy_mem, body, f->nlazy);
    f->lazy = f->lazy_mem;
    return 0;
}

/* Sorted whole durations with heads and durations interleaved (encoding 0,
 * written by older versions): each group's count and exact total summed
 * now; the durations stay packed until a walk needs them. */
static int unpack_sorted_int(rd *r, td_file *f, uint64_t ng)
{
    size_t nnames = td_strtab_count(f->names);
    const unsigned char *body = r->p;
    if (!(f->groups = td_big_alloc((ng + 1) * sizeof *f->groups)))
        return UNPACK_NOMEM;
    uint64_t nev = 0;
    for (uint64_t i = 0; i < ng; i++) {
        td_event_group *g = &f->groups[i];
        if (get_group_head(r, g, f, nnames) < 0)
            return UNPACK_BAD;
        uint64_t sum = sum_sorted(r, g->count);
        if (r->bad)
            return UNPACK_BAD;
        g->total = (double)(int64_t)sum; /* below 2^53: exact */
        nev += g->count;
    }
    f->ngroups = ng;
    f->nev = nev;
    f->lazy_heads = 1;
    if (stk_of_groups(f, r->stk_cpu) < 0)
        return UNPACK_NOMEM;
    return keep_lazy(r, f, body);
}

/* The same with the totals in the heads (encoding 2): the durations are
 * not read at all until a walk needs them, and checked against the totals
 * then. */
static int unpack_sorted_totals(rd *r, td_file *f, uint64_t ng)
{
    size_t nnames = td_strtab_count(f->names);
    if (!(f->groups = td_big_alloc((ng + 1) * sizeof *f->groups)))
        return UNPACK_NOMEM;
    uint64_t nev = 0;
    for (uint64_t i = 0; i < ng; i++) {
        td_event_group *g = &f->groups[i];
        if (get_group_head(r, g, f, nnames) < 0)
            return UNPACK_BAD;
        int64_t total = unzz(get_u(r));
        if (r->bad || total >= (int64_t)1 << 53 || total <= -((int64_t)1 << 53))
            return UNPACK_BAD;
        g->total = (double)total;
        nev += g->count;
    }
    uint64_t nbytes = get_u(r);
    /* a varint at least per event */
    if (r->bad || nbytes != (uint64_t)(r->end - r->p) || nev > nbytes)
        return UNPACK_BAD;
    const unsigned char *body = r->p;
    r->p = r->end;
    f->ngroups = ng;
    f->nev = nev;
    f->lazy_heads = 0;
    if (stk_of_groups(f, r->stk_cpu) < 0)
        return UNPACK_NOMEM;
    return keep_lazy(r, f, body);
}

/* f->fill: f->lazy into f->evb (td_file_events calls it once, under its
 * lock): the groups in order, each one's durations ascending;
 * the gpu events' attribution beside them. TD_ETRACE when the durations do
 * not decode to the groups' counts and totals (damaged bytes). */
static int decode_lazy(td_file *f)
{
    if (alloc_events(f, f->nev) < 0 || (f->has_attr && attr_of_groups(f) < 0))
        return TD_ENOMEM;
    rd r = {f->lazy, f->lazy + f->nlazy, 0, NULL, 0};
    size_t k = 0;
    int damaged = 0;
    for (size_t i = 0; i < f->ngroups; i++) {
        const td_event_group *g = &f->groups[i];
        if (f->lazy_heads) { /* the head, known from groups[] */
            bool gpu = (g->name & TD_EV_GPU) != 0;
            int head = 4 + (f->has_attr && gpu ? 3 : 0) +
                       (f->has_attr && f->stk_parent && (gpu || f->stk_cpu) ? 1 : 0);
            for (int h = 0; h < head; h++)
                get_u(&r);
        }
        const unsigned char *p = r.p, *end = r.end;
        uint64_t d = 0, v, sum = 0;
        for (uint64_t j = 0; j < g->count; j++, k++) {
            td_event *e = &f->evb[k >> TD_BLOCK_SHIFT][k & (TD_BLOCK - 1)];
            TAKE_U(&r, p, end, v);
            d = j ? d + v : (uint64_t)unzz(v);
            sum += d;
            e->dur = (double)(int64_t)d;
            e->name = g->name;
            e->iter = g->iter;
        }
        r.p = p;
        damaged |= (double)(int64_t)sum != g->total;
        for (uint64_t j = 0; f->stk_cpu && !(g->name & TD_EV_GPU) && j < g->count; j++)
            f->stk_cpu[f->nstk_cpu++] = g->stk; /* stk_of_groups made room */
    }
    if (damaged || r.bad || r.p != r.end) {
        f->lazy_damaged = 1; /* evb stays allocated, freed with f */
        return TD_ETRACE;
    }
    td_big_free(f->lazy_mem);
    f->lazy_mem = NULL;
    f->lazy = NULL;
    f->nlazy = 0;
    return 0;
}

static uint64_t get_le64(rd *r)
{
    if (r->end - r->p < 8) {
        r->bad = 1;
        return 0;
    }
    uint64_t w = 0;
    for (int j = 0; j < 8; j++)
        w |= (uint64_t)r->p[j] << (8 * j);
    r->p += 8;
    return w;
}

/* Any durations: the group heads, then every event in file order. The file
 * keeps no groups: its sums must be made event by event, in this order. */
static int unpack_raw(rd *r, td_file *f, uint64_t ng)
{
    size_t nnames = td_strtab_count(f->names);
    td_event_group *heads = malloc((ng + 1) * sizeof *heads);
    uint64_t nev = 0;
    int rc = heads ? 0 : UNPACK_NOMEM;
    for (uint64_t i = 0; i < ng && rc == 0; i++) {
        rc = get_group_head(r, &heads[i], f, nnames);
        nev += heads[i].count;
    }
    /* 9 bytes at least per event */
    if (rc == 0 && !plausible(r, nev))
        rc = UNPACK_BAD;
    if (rc == 0)
        rc = alloc_events(f, (size_t)nev);
    if (rc == 0 && f->has_attr)
        rc = alloc_attr(f, (size_t)nev);
    if (rc == 0 && f->stk_parent && !(f->stk_of = malloc((nev + 1) * sizeof *f->stk_of)))
        rc = UNPACK_NOMEM;
    if (rc == 0 && f->stk_parent && r->stk_cpu &&
        !(f->stk_cpu = malloc((nev + 1) * sizeof *f->stk_cpu)))
        rc = UNPACK_NOMEM;
    for (uint64_t k = 0; k < nev && rc == 0; k++) {
        uint64_t gi = get_u(r), w = get_le64(r);
        if (r->bad || gi >= ng) {
            rc = UNPACK_BAD;
            break;
        }
        td_event *e = &f->evb[k >> TD_BLOCK_SHIFT][k & (TD_BLOCK - 1)];
        memcpy(&e->dur, &w, 8);
        e->name = heads[gi].name;
        e->iter = heads[gi].iter;
        if (f->has_attr && (e->name & TD_EV_GPU)) {
            if (f->stk_of)
                f->stk_of[f->nattr] = heads[gi].stk;
            push_attr(f, &heads[gi]);
        } else if (f->stk_cpu) {
            f->stk_cpu[f->nstk_cpu++] = heads[gi].stk;
        }
    }
    if (rc == 0)
        f->nev = (size_t)nev;
    free(heads);
    return rc;
}

static int unpack_events(rd *r, td_file *f)
{
    uint64_t enc = get_u(r), ng = get_count(r, 1, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    if (enc == ENC_SORTED_TOTALS)
        return unpack_sorted_totals(r, f, ng);
    if (enc == ENC_SORTED_INT)
        return unpack_sorted_int(r, f, ng);
    if (enc == ENC_RAW)
        return unpack_raw(r, f, ng);
    return UNPACK_BAD;
}

static double get_dbl(rd *r)
{
    uint64_t w = get_le64(r);
    double d;
    memcpy(&d, &w, 8);
    return d;
}

/* pack_extras' section (files from "TDF3" on). */
static int unpack_extras(rd *r, td_file *f)
{
    uint64_t has_span = get_u(r);
    if (has_span > 1)
        return UNPACK_BAD;
    if (has_span) {
        f->span_lo = get_dbl(r);
        f->span_hi = get_dbl(r);
        if (!(f->span_hi >= f->span_lo) || !isfinite(f->span_hi - f->span_lo))
            return UNPACK_BAD;
        f->has_span = 1;
    }
    uint64_t has_wait = get_u(r);
    if (has_wait > 1)
        return UNPACK_BAD;
    if (!has_wait)
        return r->bad ? UNPACK_BAD : 0;
    size_t nn = td_strtab_count(f->names);
    uint64_t nw = get_count(r, 1, nn);
    if (r->bad)
        return UNPACK_BAD;
    f->wait_in = calloc(nn + 1, sizeof *f->wait_in);
    f->wait_of = calloc(nn + 1, sizeof *f->wait_of);
    if (!f->wait_in || !f->wait_of)
        return UNPACK_NOMEM;
    f->nwait = nn;
    for (uint64_t i = 0; i < nw; i++) {
        uint64_t id = get_u(r);
        double in = get_dbl(r), of = get_dbl(r);
        /* HTA's rounding can make an op's duration -1: any finite sums */
        if (r->bad || id >= nn || !isfinite(in) || !isfinite(of))
            return UNPACK_BAD;
        f->wait_in[id] = in;
        f->wait_of[id] = of;
    }
    return 0;
}

/* pack_bd's section after its flag: every count checked against the
 * bytes left, every iteration against the file's, the types and flags
 * against theirs, and no event time NaN (td_bd_collect keeps none; a launch
 * is NaN when there is none). An end may precede its ts: HTA's rounding of
 * sub-us events. */
static int bd_body(rd *r, td_file *f)
{
    td_bd_file *bd = f->bd = td_bd_new();
    if (!bd)
        return UNPACK_NOMEM;
    uint64_t enc = get_u(r);
    /* 6 bytes at least per record (whole times), 27 with doubles */
    uint64_t nev = get_count(r, enc == BD_WHOLE ? 6 : 27, UINT64_MAX);
    if (r->bad || enc > BD_WHOLE)
        return UNPACK_BAD;
    if (!(bd->ev = malloc((nev + 1) * sizeof *bd->ev)))
        return UNPACK_NOMEM;
    int64_t prev = 0;
    for (uint64_t i = 0; i < nev; i++) {
        td_bd_ev *e = &bd->ev[i];
        if (enc == BD_WHOLE) {
            int64_t ts = unzz(get_u(r)), dend = unzz(get_u(r));
            uint64_t l = get_u(r);
            /* each time within 2^52 as written: no overflow below */
            if (r->bad || ts > (int64_t)1 << 53 || ts < -((int64_t)1 << 53) ||
                dend > (int64_t)1 << 53 || dend < -((int64_t)1 << 53) || l > (uint64_t)1 << 55 ||
                fabs((double)(prev + ts)) >= BD_WHOLE_MAX)
                return UNPACK_BAD;
            prev += ts;
            e->ts = (double)prev;
            e->end = (double)(prev + dend);
            e->launch = l ? (double)(prev + unzz(l - 1)) : NAN;
        } else {
            e->ts = get_dbl(r);
            e->end = get_dbl(r);
            e->launch = get_dbl(r);
        }
        int64_t it = unzz(get_u(r)), st = unzz(get_u(r));
        uint64_t tf = get_u(r), type = tf & 7, flags = tf >> 3;
        if (r->bad || isnan(e->ts) || isnan(e->end) ||
            !(it == TD_ITER_NONE || (it >= 0 && (uint64_t)it < f->niters)) || st < INT32_MIN ||
            st > INT32_MAX || flags > (TD_BDF_KERNEL | TD_BDF_GPUDEF))
            return UNPACK_BAD;
        e->iter = (int32_t)it;
        e->stream = (int32_t)st;
        e->type = (uint8_t)type;
        e->flags = (uint8_t)flags;
    }
    bd->nev = (size_t)nev;
    uint64_t nsync = get_count(r, 16, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    if (!(bd->sync = malloc((nsync + 1) * sizeof *bd->sync)))
        return UNPACK_NOMEM;
    for (uint64_t i = 0; i < nsync; i++) {
        bd->sync[i].ts = get_dbl(r);
        bd->sync[i].end = get_dbl(r);
        if (r->bad || isnan(bd->sync[i].ts) || isnan(bd->sync[i].end))
            return UNPACK_BAD;
    }
    bd->nsync = (size_t)nsync;
    uint64_t nsteps = get_count(r, 17, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    for (uint64_t i = 0; i < nsteps; i++) {
        double start = get_dbl(r), end = get_dbl(r);
        int64_t num = unzz(get_u(r));
        if (r->bad)
            return UNPACK_BAD;
        /* a step without a time is NaN (iterations.c), as it was */
        if (td_bd_add_step(bd, start, end, num) < 0)
            return UNPACK_NOMEM;
    }
    bd->span_lo = get_dbl(r); /* no events at all: td_bd_new's infinities */
    bd->span_hi = get_dbl(r);
    return r->bad ? UNPACK_BAD : 0;
}

/* pack_stacks' section: every parent before its node and not the cut
 * frame, every name one of the file's, no stack deeper than the loader
 * makes them. */
static int unpack_stacks(rd *r, td_file *f)
{
    uint64_t has = get_u(r);
    if (r->bad || has > STK_GPU_CPU || (has && !f->has_attr))
        return UNPACK_BAD;
    if (!has) {
        f->stk_lost = TD_BD_LOST_UNLOADED;
        return 0;
    }
    r->stk_cpu = has == STK_GPU_CPU;
    /* per node its parent + 1 and its name id + 1 (0: the cut frame); ids
     * below TD_STK_CUT */
    uint64_t n, bound[2] = {ROW_OR_NONE, td_strtab_count(f->names) + 1};
    uint32_t **col[2] = {&f->stk_parent, &f->stk_name};
    int rc = get_id_rows(r, UINT32_MAX - 0x201, 2, bound, col, &n);
    if (rc < 0)
        return rc;
    uint32_t *depth = malloc((n + 1) * sizeof *depth);
    if (!depth)
        return UNPACK_NOMEM;
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        uint32_t p = f->stk_parent[i], nm = f->stk_name[i];
        uint32_t parent = p ? p - 1 : TD_ATTR_NONE;
        if (p > i || (parent != TD_ATTR_NONE &&
                      (f->stk_name[parent] == TD_STK_CUT || depth[parent] >= TD_STK_MAX_DEPTH))) {
            rc = UNPACK_BAD;
            break;
        }
        f->stk_parent[i] = parent;
        f->stk_name[i] = nm ? nm - 1 : TD_STK_CUT;
        depth[i] = parent == TD_ATTR_NONE ? 1 : depth[parent] + 1;
    }
    free(depth);
    if (rc < 0)
        return rc;
    f->nstk = (size_t)n;
    f->stk_cut = get_u(r);
    return r->bad ? UNPACK_BAD : 0;
}

/* pack_roof_shapes' part: each shape UTF-8 as names are, and distinct. */
static int unpack_roof_shapes(rd *r, td_file *f, size_t *nsh)
{
    uint64_t has_shapes = get_u(r);
    if (r->bad || has_shapes > 1)
        return UNPACK_BAD;
    if (!has_shapes)
        return 0;
    if (!(f->shapes = td_strtab_new()))
        return UNPACK_NOMEM;
    uint64_t ns = get_count(r, 1, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    for (uint64_t i = 0; i < ns; i++) {
        size_t len;
        const char *sh = get_s(r, &len);
        if (r->bad || !td_utf8_valid(sh, len, true))
            return UNPACK_BAD;
        int64_t id = td_strtab_intern(f->shapes, sh, len);
        if (id < 0)
            return UNPACK_NOMEM;
        if (id != (int64_t)i)
            return UNPACK_BAD;
    }
    *nsh = (size_t)ns;
    return 0;
}

/* pack_roof's op calls: names of the file, parents among the calls (not
 * the call itself), shapes among nsh. */
static int unpack_roof_calls(rd *r, td_file *f, size_t nsh)
{
    /* per call its name id, parent + 1 and shape + 1; ids below TD_ATTR_NONE */
    uint64_t nc, bound[3] = {td_strtab_count(f->names), ROW_OR_NONE, (uint64_t)nsh + 1};
    uint32_t **col[3] = {&f->op_name, &f->op_parent, f->shapes ? &f->op_shape : NULL};
    int rc = get_id_rows(r, UINT32_MAX - 1, 3, bound, col, &nc);
    if (rc < 0)
        return rc;
    for (uint64_t i = 0; i < nc; i++) {
        uint32_t p = f->op_parent[i];
        if (p == i + 1) /* not its own parent */
            return UNPACK_BAD;
        f->op_parent[i] = p ? p - 1 : TD_ATTR_NONE;
        if (f->op_shape)
            f->op_shape[i] = f->op_shape[i] ? f->op_shape[i] - 1 : TD_ATTR_NONE;
    }
    f->nops = (size_t)nc;
    return 0;
}

/* pack_roof's section after its flag: every name, call, shape, iteration
 * and op checked against the file's, the shapes UTF-8 as names are, every
 * time finite. */
static int roof_body(rd *r, td_file *f)
{
    size_t nsh = 0;
    int rc = unpack_roof_shapes(r, f, &nsh);
    if (rc == 0)
        rc = unpack_roof_calls(r, f, nsh);
    if (rc < 0)
        return rc;
    size_t nn = td_strtab_count(f->names);
    uint64_t nc = f->nops;
    uint64_t enc = get_u(r);
    /* 7 bytes at least per event (whole times), 21 with doubles */
    uint64_t nev = get_count(r, enc == BD_WHOLE ? 7 : 21, UINT64_MAX);
    if (r->bad || enc > BD_WHOLE)
        return UNPACK_BAD;
    if (!(f->roof_list = malloc((nev + 1) * sizeof *f->roof_list)))
        return UNPACK_NOMEM;
    int64_t prev = 0;
    for (uint64_t i = 0; i < nev; i++) {
        td_roof_ev *e = &f->roof_list[i];
        uint64_t nm = get_u(r), flags = get_u(r), iter = get_u(r);
        if (enc == BD_WHOLE) {
            int64_t ts = unzz(get_u(r)), dend = unzz(get_u(r));
            if (r->bad || ts > (int64_t)1 << 53 || ts < -((int64_t)1 << 53) ||
                dend > (int64_t)1 << 53 || dend < -((int64_t)1 << 53) ||
                fabs((double)(prev + ts)) >= BD_WHOLE_MAX)
                return UNPACK_BAD;
            prev += ts;
            e->ts = (double)prev;
            e->end = (double)(prev + dend);
        } else {
            e->ts = get_dbl(r);
            e->end = get_dbl(r);
        }
        uint64_t call = get_u(r), op = get_u(r);
        if (r->bad || nm >= nn || !(flags & TD_GROUP_GPU) || flags > 3 || iter > f->niters ||
            !isfinite(e->ts) || !isfinite(e->end) || call > nc || !attr_ok(op, nn))
            return UNPACK_BAD;
        e->name = ev_name(nm, flags);
        e->iter = (int32_t)iter - 1;
        e->call = call ? (uint32_t)(call - 1) : TD_ATTR_NONE;
        e->op = (uint32_t)op;
    }
    f->nroof_list = (size_t)nev;
    return 0;
}

/* Past n varints at r->p: eight bytes at a time while fewer than n end in
 * them (a varint ends at a byte below 0x80), then byte by byte. */
static void skip_varints(rd *r, uint64_t n)
{
    const unsigned char *p = r->p, *end = r->end;
    while (n > 8 && end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        /* a 1 per byte that ends a varint, summed into the top byte */
        uint64_t ends = (((~w & 0x8080808080808080ull) >> 7) * 0x0101010101010101ull) >> 56;
        if (ends >= n)
            break;
        n -= ends;
        p += 8;
    }
    for (; n && p < end; p++)
        n -= !(*p & 0x80);
    r->p = p;
    if (n)
        r->bad = 1;
}

/* Past pack_roof's section after its flag, reading only its counts and
 * lengths (roof_body checks the rest when the roofline is asked for). */
static int skip_roof(rd *r)
{
    uint64_t has_shapes = get_u(r);
    if (r->bad || has_shapes > 1)
        return UNPACK_BAD;
    uint64_t ns = has_shapes ? get_count(r, 1, UINT64_MAX) : 0;
    if (r->bad)
        return UNPACK_BAD;
    for (uint64_t i = 0; i < ns && !r->bad; i++) {
        size_t len;
        get_s(r, &len);
    }
    uint64_t nc = get_count(r, 3, UINT32_MAX - 1);
    skip_varints(r, 3 * nc);
    uint64_t enc = get_u(r), nev = get_count(r, enc == BD_WHOLE ? 7 : 21, UINT64_MAX);
    if (r->bad || enc > BD_WHOLE)
        return UNPACK_BAD;
    if (enc == BD_WHOLE)
        skip_varints(r, 7 * nev);
    for (uint64_t i = 0; enc != BD_WHOLE && i < nev && !r->bad; i++) {
        skip_varints(r, 3);
        if (r->end - r->p < 16)
            return UNPACK_BAD;
        r->p += 16;
        skip_varints(r, 2);
    }
    return r->bad ? UNPACK_BAD : 0;
}

/* Past pack_bd's section after its flag, reading only its counts
 * (bd_body checks the rest when the breakdown is asked for). */
static int skip_bd(rd *r)
{
    uint64_t enc = get_u(r);
    uint64_t nev = get_count(r, enc == BD_WHOLE ? 6 : 27, UINT64_MAX);
    if (r->bad || enc > BD_WHOLE)
        return UNPACK_BAD;
    if (enc == BD_WHOLE)
        skip_varints(r, 6 * nev);
    for (uint64_t i = 0; enc != BD_WHOLE && i < nev && !r->bad; i++) {
        if (r->end - r->p < 24)
            return UNPACK_BAD;
        r->p += 24;
        skip_varints(r, 3);
    }
    uint64_t nsync = get_count(r, 16, UINT64_MAX);
    if (r->bad)
        return UNPACK_BAD;
    r->p += 16 * nsync; /* within the bytes left: get_count */
    uint64_t nsteps = get_count(r, 17, UINT64_MAX);
    for (uint64_t i = 0; i < nsteps && !r->bad; i++) {
        if (r->end - r->p < 16)
            return UNPACK_BAD;
        r->p += 16;
        skip_varints(r, 1);
    }
    if (r->bad || r->end - r->p < 16)
        return UNPACK_BAD;
    r->p += 16; /* the span */
    return 0;
}

/* A section kept packed (*lazy, *n bytes) decoded by body, which must use
 * every byte; what body made is dropped when it fails (*damaged set when
 * the bytes were bad). 0, TD_ETRACE or TD_ENOMEM. */
static int decode_section(td_file *f, unsigned char **lazy, size_t *n, int (*body)(rd *, td_file *),
                          void (*drop)(td_file *), int *damaged)
{
    rd r = {*lazy, *lazy + *n, 0, NULL, 0};
    int rc = body(&r, f);
    if (rc == 0 && r.p != r.end)
        rc = UNPACK_BAD;
    if (rc < 0) {
        drop(f);
        *damaged = rc == UNPACK_BAD;
        return rc == UNPACK_BAD ? TD_ETRACE : TD_ENOMEM;
    }
    free(*lazy);
    *lazy = NULL;
    *n = 0;
    return 0;
}

/* The bytes from start to r->p, copied into *lazy (*n of them) to be
 * decoded later: 0 or UNPACK_NOMEM. */
static int keep_section(const rd *r, const unsigned char *start, unsigned char **lazy, size_t *n)
{
    *n = (size_t)(r->p - start);
    if (!(*lazy = malloc(*n + 1)))
        return UNPACK_NOMEM;
    memcpy(*lazy, start, *n);
    return 0;
}

static void bd_drop(td_file *f)
{
    td_bd_file_free(f->bd);
    f->bd = NULL;
}

/* f->bd_fill: the section kept by unpack_bd, decoded (td_file_bd calls it
 * under its lock). */
static int decode_bd(td_file *f)
{
    return decode_section(f, &f->bd_lazy, &f->nbd_lazy, bd_body, bd_drop, &f->bd_damaged);
}

/* pack_bd's section: its flag, and the rest kept as it is, to be decoded
 * only when a command reads the breakdown (td_file_bd): a plain compare of
 * summaries does not pay for it (every GPU event's times, a third of a
 * summary compare's CPU). */
static int unpack_bd(rd *r, td_file *f)
{
    uint64_t has = get_u(r);
    if (r->bad || has > 2)
        return UNPACK_BAD;
    if (has != 1) {
        f->bd_lost = has ? TD_BD_LOST_SELECTION : TD_BD_LOST_UNLOADED;
        return 0;
    }
    const unsigned char *start = r->p;
    if (skip_bd(r) < 0)
        return UNPACK_BAD;
    if (keep_section(r, start, &f->bd_lazy, &f->nbd_lazy) < 0)
        return UNPACK_NOMEM;
    f->bd_fill = decode_bd;
    return 0;
}

/* Frees what roof_body made of f. */
static void roof_drop(td_file *f)
{
    free(f->roof_list);
    free(f->op_name);
    free(f->op_parent);
    free(f->op_shape);
    td_strtab_free(f->shapes);
    f->roof_list = NULL;
    f->op_name = f->op_parent = f->op_shape = NULL;
    f->shapes = NULL;
    f->nroof_list = f->nops = 0;
}

/* f->roof_fill: the section kept by unpack_roof, decoded (td_file_roof
 * calls it under its lock). */
static int decode_roof(td_file *f)
{
    return decode_section(f, &f->roof_lazy, &f->nroof_lazy, roof_body, roof_drop, &f->roof_damaged);
}

/* pack_roof's section: its flag, and the rest kept as it is, to be decoded
 * only when a command reads the roofline (td_file_roof): a plain compare
 * of summaries does not pay for it. */
static int unpack_roof(rd *r, td_file *f)
{
    uint64_t has = get_u(r);
    if (r->bad || has > 2 || (has == 1 && !f->has_attr))
        return UNPACK_BAD;
    if (has != 1) {
        f->roof_lost = has ? TD_BD_LOST_SELECTION : TD_BD_LOST_UNLOADED;
        return 0;
    }
    const unsigned char *start = r->p;
    if (skip_roof(r) < 0)
        return UNPACK_BAD;
    if (keep_section(r, start, &f->roof_lazy, &f->nroof_lazy) < 0)
        return UNPACK_NOMEM;
    f->roof_fill = decode_roof;
    return 0;
}

static int unpack(td_file **out, const unsigned char *p, size_t n, unsigned char *owned,
                  const char *where, td_error *err)
{
    *out = NULL;
    bool old = n >= 4 && memcmp(p, PACK_MAGIC_OLD, 4) == 0;
    bool tdf2 = n >= 4 && memcmp(p, PACK_MAGIC_TDF2, 4) == 0;
    bool tdf3 = n >= 4 && memcmp(p, PACK_MAGIC_TDF3, 4) == 0;
    bool tdf4 = n >= 4 && memcmp(p, PACK_MAGIC_TDF4, 4) == 0;
    if (n < 4 || (memcmp(p, PACK_MAGIC, 4) != 0 && !old && !tdf2 && !tdf3 && !tdf4)) {
        td_big_free(owned);
        return td_fail(err, TD_ETRACE, where, "not a packed trace file (bad magic)");
    }
    rd r = {p + 4, p + n, 0, owned, 0};
    td_file *f = calloc(1, sizeof *f);
    int rc = UNPACK_NOMEM;
    if (f && (f->origin = dup_n(where, strlen(where))) && (f->names = td_strtab_new()) &&
        (f->cats = td_strtab_new()))
        rc = unpack_meta(&r, f);
    if (rc == 0)
        rc = unpack_cats(&r, f);
    if (rc == 0)
        rc = unpack_iters(&r, f);
    if (rc == 0)
        rc = unpack_names(&r, f);
    if (rc == 0 && !old)
        rc = unpack_categories(&r, f);
    if (rc == 0 && !old) {
        uint64_t a = get_u(&r);
        f->has_attr = a == 1;
        rc = r.bad || a > 1 ? UNPACK_BAD : 0;
    }
    if (rc == 0 && !old && !tdf2)
        rc = unpack_extras(&r, f);
    if (rc == 0 && (old || tdf2 || tdf3))
        f->bd_lost = TD_BD_LOST_OLD;
    else if (rc == 0)
        rc = unpack_bd(&r, f);
    if (rc == 0 && (old || tdf2 || tdf3 || tdf4))
        f->stk_lost = f->roof_lost = TD_BD_LOST_OLD;
    if (rc == 0 && !(old || tdf2 || tdf3 || tdf4))
        rc = unpack_stacks(&r, f);
    if (rc == 0 && !(old || tdf2 || tdf3 || tdf4))
        rc = unpack_roof(&r, f);
    if (rc == 0)
        rc = unpack_events(&r, f);
    if (rc == 0 && r.p != r.end)
        rc = UNPACK_BAD;
    td_big_free(r.owned); /* NULL when the file kept it */
    if (rc == 0) {
        *out = f;
        return 0;
    }
    td_file_free(f);
    if (rc == UNPACK_NOMEM)
        return td_fail(err, TD_ENOMEM, where, "out of memory");
    return td_fail(err, TD_ETRACE, where, "damaged summary: a packed file does not decode");
}

int td_file_unpack(td_file **out, const unsigned char *p, size_t n, const char *where,
                   td_error *err)
{
    return unpack(out, p, n, NULL, where, err);
}

int td_file_unpack_owned(td_file **out, unsigned char *p, size_t n, const char *where,
                         td_error *err)
{
    return unpack(out, p, n, p, where, err);
}
