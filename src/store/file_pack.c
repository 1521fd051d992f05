/*
 * One file's aggregates as bytes (docs/summaries.md, "The packed file"):
 * counters, categories, iterations, names and every kept event's duration,
 * grouped by (iteration, flags, name). Durations are lossless: whole numbers
 * as sorted, delta-coded varints; otherwise every event in file order with
 * its raw double. No SQLite here: the bytes can travel between processes.
 */
#include "store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC "TDF1"
#define ENC_SORTED_INT 0 /* groups of sorted whole-number durations */
#define ENC_RAW 1        /* every event in file order, 8-byte doubles */

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
    uint64_t key; /* (iter + 1) << 32 | name with its flag bits */
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
    memset(g, 0, sizeof *g);
}

int td_file_groups(td_groups *out, const td_file *f, const td_keep *keep, td_error *err)
{
    memset(out, 0, sizeof *out);
    bool *iter_on = malloc((f->niters + 1) * sizeof *iter_on);
    keyed *k = malloc((f->nev + 1) * sizeof *k);
    if (!iter_on || !k)
        goto nomem;
    for (size_t i = 0; i < f->niters; i++) {
        iter_on[i] = keep == NULL || keep->iters == NULL;
        for (size_t j = 0; !iter_on[i] && j < keep->niters; j++)
            iter_on[i] = keep->iters[j] == f->iters[i];
    }
    size_t n = 0;
    int device = keep ? keep->device : TD_DEVICE_ALL;
    bool integral = true;
    double abs_sum = 0;
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        bool gpu = (e->name & TD_EV_GPU) != 0;
        if ((device == TD_DEVICE_CPU && gpu) || (device == TD_DEVICE_GPU && !gpu))
            continue;
        if (keep && keep->iters && (e->iter < 0 || !iter_on[e->iter]))
            continue;
        k[n].key = (uint64_t)(uint32_t)(e->iter + 1) << 32 | e->name;
        k[n].dur = e->dur;
        k[n].pos = i;
        if (integral && whole(e->dur))
            abs_sum += fabs(e->dur);
        else
            integral = false;
        n++;
    }
    /* Sums of whole numbers are exact in any order while they stay below
     * 2^53; 2^43 per file leaves room for 1024 files in one row. */
    out->integral = integral && abs_sum < 8796093022208.0;
    qsort(k, n, sizeof *k, cmp_keyed);
    out->durs = malloc((n + 1) * sizeof *out->durs);
    size_t ng = 0, cap = 0;
    if (!out->durs)
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        out->durs[i] = k[i].dur;
        if (i == 0 || k[i].key != k[i - 1].key) {
            td_group *g = td_grow(out->g, &cap, ng + 1, sizeof *g);
            if (!g)
                goto nomem;
            out->g = g;
            g = &out->g[ng++];
            memset(g, 0, sizeof *g);
            g->iter = (int32_t)(uint32_t)(k[i].key >> 32) - 1;
            uint32_t nm = (uint32_t)k[i].key;
            g->name = nm & ~(TD_EV_GPU | TD_EV_STREAM0);
            g->flags = (nm & TD_EV_GPU ? TD_GROUP_GPU : 0) |
                       (nm & TD_EV_STREAM0 ? TD_GROUP_STREAM0 : 0);
            g->first = i;
        }
        out->g[ng - 1].count++;
        k[i].group = ng - 1;
    }
    out->n = ng;
    for (size_t i = 0; i < ng; i++) { /* Neumaier, as compare sums */
        td_group *g = &out->g[i];
        double s = 0, c = 0;
        for (size_t j = 0; j < g->count; j++) {
            double x = out->durs[g->first + j], t = s + x;
            if (isnan(x))
                continue;
            double cc = fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
            if (isfinite(cc))
                c += cc;
            s = t;
        }
        g->total = s + c;
    }
    if (!out->integral) {
        /* The raw encoding keeps file order: each event's group and dur. */
        qsort(k, n, sizeof *k, cmp_pos);
        out->seq = malloc((n + 1) * sizeof *out->seq);
        out->seq_durs = malloc((n + 1) * sizeof *out->seq_durs);
        if (!out->seq || !out->seq_durs)
            goto nomem;
        for (size_t i = 0; i < n; i++) {
            out->seq[i] = k[i].group;
            out->seq_durs[i] = k[i].dur;
        }
        out->nseq = n;
    }
    free(k);
    free(iter_on);
    return 0;
nomem:
    free(k);
    free(iter_on);
    td_groups_free(out);
    return td_fail(err, TD_ENOMEM, f->path, "out of memory");
}

/* ---- packing ---- */

/* The file's metadata and counters, its categories, iterations and names. */
static int pack_head(td_buf *b, const td_file *f)
{
    int bad = 0;
    bad |= put(b, PACK_MAGIC, 4);
    bad |= put_s(b, f->path, strlen(f->path));
    bad |= put_u(b, f->device_name != NULL);
    if (f->device_name)
        bad |= put_s(b, f->device_name, strlen(f->device_name));
    const uint64_t nums[] = {zz(f->rank),       (uint64_t)f->has_rank,
                             f->compression,    f->file_bytes,
                             f->json_bytes,     f->events_total,
                             f->events_skipped, (uint64_t)f->rounded,
                             (uint64_t)f->bom,  f->steps,
                             f->events_cpu,     f->events_gpu,
                             f->events_stream0, f->events_no_launch,
                             f->events_no_launch0};
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

static int pack_group_head(td_buf *b, const td_group *x)
{
    int bad = put_u(b, (uint64_t)(x->iter + 1));
    bad |= put_u(b, x->flags);
    bad |= put_u(b, x->name);
    bad |= put_u(b, x->count);
    return bad;
}

/* Whole durations: per group, sorted and delta-coded. */
static int pack_sorted_int(td_buf *b, const td_groups *g)
{
    int bad = put_u(b, ENC_SORTED_INT);
    bad |= put_u(b, g->n);
    for (size_t i = 0; i < g->n && !bad; i++) {
        const td_group *x = &g->g[i];
        bad |= pack_group_head(b, x);
        int64_t prev = 0;
        for (size_t j = 0; j < x->count; j++) {
            int64_t d = (int64_t)g->durs[x->first + j];
            bad |= j ? put_u(b, (uint64_t)(d - prev)) : put_u(b, zz(d));
            prev = d;
        }
    }
    return bad;
}

/* Any durations: the groups, then the events in file order, each its group
 * index and the raw double, 8 bytes little-endian. */
static int pack_raw(td_buf *b, const td_groups *g)
{
    int bad = put_u(b, ENC_RAW);
    bad |= put_u(b, g->n);
    for (size_t i = 0; i < g->n; i++)
        bad |= pack_group_head(b, &g->g[i]);
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

int td_file_pack(td_buf *b, const td_file *f, const td_groups *g, td_error *err)
{
    int bad = pack_head(b, f);
    bad |= g->integral ? pack_sorted_int(b, g) : pack_raw(b, g);
    if (bad)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    return 0;
}

/* ---- unpacking ---- */

typedef struct rd {
    const unsigned char *p, *end;
    int bad;
} rd;

static uint64_t get_u(rd *r)
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

static int add_event(td_file *f, double dur, uint32_t name, int32_t iter)
{
    if ((f->nev & (TD_BLOCK - 1)) == 0) {
        td_event **nb = realloc(f->evb, (f->nevb + 1) * sizeof *nb);
        if (!nb)
            return -1;
        f->evb = nb;
        if (!(f->evb[f->nevb] = malloc(TD_BLOCK * sizeof **f->evb)))
            return -1;
        f->nevb++;
    }
    td_event *e = &f->evb[f->nev >> TD_BLOCK_SHIFT][f->nev & (TD_BLOCK - 1)];
    e->dur = dur;
    e->name = name;
    e->iter = iter;
    f->nev++;
    return 0;
}

static uint32_t ev_name(uint64_t name, uint64_t flags)
{
    return (uint32_t)name | (flags & TD_GROUP_GPU ? TD_EV_GPU : 0) |
           (flags & TD_GROUP_STREAM0 ? TD_EV_STREAM0 : 0);
}

int td_file_unpack(td_file **out, const unsigned char *p, size_t n, const char *where,
                   td_error *err)
{
    *out = NULL;
    rd r = {p, p + n, 0};
    uint64_t *gv = NULL; /* per group: iter + 1, flags, name, count */
    int nomem = 0;
    if (n < 4 || memcmp(p, PACK_MAGIC, 4) != 0)
        return td_fail(err, TD_ETRACE, where, "not a packed trace file (bad magic)");
    r.p += 4;
    td_file *f = calloc(1, sizeof *f);
    if (!f || !(f->names = td_strtab_new()) || !(f->cats = td_strtab_new()))
        goto nomem;
    size_t len;
    const char *s = get_s(&r, &len);
    if (!(f->path = dup_n(s, len)))
        goto nomem;
    if (get_u(&r)) {
        s = get_s(&r, &len);
        if (!(f->device_name = dup_n(s, len)))
            goto nomem;
    }
    f->rank = unzz(get_u(&r));
    f->has_rank = (int)get_u(&r);
    f->compression = (td_compression)get_u(&r);
    f->file_bytes = get_u(&r);
    f->json_bytes = get_u(&r);
    f->events_total = get_u(&r);
    f->events_skipped = get_u(&r);
    f->rounded = (int)get_u(&r);
    f->bom = (int)get_u(&r);
    f->steps = get_u(&r);
    f->events_cpu = get_u(&r);
    f->events_gpu = get_u(&r);
    f->events_stream0 = get_u(&r);
    f->events_no_launch = get_u(&r);
    f->events_no_launch0 = get_u(&r);
    uint64_t nc = get_u(&r);
    if (r.bad || nc > n)
        goto bad;
    f->cat_counts = calloc(nc + 1, sizeof *f->cat_counts);
    if (!f->cat_counts)
        goto nomem;
    f->ncat_counts = nc;
    for (uint64_t i = 0; i < nc && !r.bad; i++) {
        s = get_s(&r, &len);
        if (td_strtab_intern(f->cats, s, len) != (int64_t)i)
            goto bad;
        f->cat_counts[i] = get_u(&r);
    }
    uint64_t ni = get_u(&r);
    if (r.bad || ni > n)
        goto bad;
    if (!(f->iters = malloc((ni + 1) * sizeof *f->iters)))
        goto nomem;
    for (uint64_t i = 0; i < ni; i++)
        f->iters[i] = (i ? f->iters[i - 1] : 0) + unzz(get_u(&r));
    f->niters = ni;
    uint64_t nn = get_u(&r);
    if (r.bad || nn > n)
        goto bad;
    for (uint64_t i = 0; i < nn && !r.bad; i++) {
        s = get_s(&r, &len);
        int64_t id = td_strtab_intern(f->names, s, len);
        if (id < 0)
            goto nomem;
        if (id != (int64_t)i)
            goto bad;
    }
    uint64_t enc = get_u(&r), ng = get_u(&r);
    if (r.bad || (enc != ENC_SORTED_INT && enc != ENC_RAW) || ng > n)
        goto bad;
    if (!(gv = malloc((ng + 1) * 4 * sizeof *gv)))
        goto nomem;
    for (uint64_t i = 0; i < ng && !r.bad; i++) {
        uint64_t *v = &gv[4 * i];
        v[0] = get_u(&r);
        v[1] = get_u(&r);
        v[2] = get_u(&r);
        v[3] = get_u(&r);
        if (v[0] > ni || v[2] >= nn || v[1] > 3 || v[3] > n)
            goto bad;
        if (enc == ENC_RAW)
            continue;
        int64_t d = 0;
        for (uint64_t j = 0; j < v[3] && !r.bad; j++) {
            d = j ? d + (int64_t)get_u(&r) : unzz(get_u(&r));
            if (add_event(f, (double)d, ev_name(v[2], v[1]), (int32_t)v[0] - 1) < 0)
                goto nomem;
        }
    }
    if (enc == ENC_RAW) {
        uint64_t total = 0;
        for (uint64_t i = 0; i < ng; i++)
            total += gv[4 * i + 3];
        for (uint64_t k = 0; k < total && !r.bad; k++) {
            uint64_t gi = get_u(&r);
            if (gi >= ng || r.end - r.p < 8)
                goto bad;
            uint64_t w = 0;
            for (int j = 0; j < 8; j++)
                w |= (uint64_t)r.p[j] << (8 * j);
            r.p += 8;
            double d;
            memcpy(&d, &w, 8);
            const uint64_t *v = &gv[4 * gi];
            if (add_event(f, d, ev_name(v[2], v[1]), (int32_t)v[0] - 1) < 0)
                goto nomem;
        }
    }
    if (r.bad || r.p != r.end)
        goto bad;
    free(gv);
    *out = f;
    return 0;
bad:
    free(gv);
    td_file_free(f);
    return td_fail(err, TD_ETRACE, where, "damaged summary: a packed file does not decode");
nomem:
    nomem = 1;
    free(gv);
    td_file_free(f);
    (void)nomem;
    return td_fail(err, TD_ENOMEM, where, "out of memory");
}
