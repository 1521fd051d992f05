/*
 * Spec §2 (rounding of decimal timestamps) and §3 (iteration numbers).
 *
 * Host events find their step by binary search over the elementary segments
 * between step boundaries, each labelled in advance with the step that wins
 * there (the one latest in the file), so overlapping or nested steps cost
 * nothing per event. Device events inherit the iteration of their launching
 * host event through a correlation hash map.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int td_step_number(const char *name, size_t len, int64_t *out)
{
    static const char word[] = "ProfilerStep";
    const size_t wl = sizeof word - 1;
    if (len < wl || memcmp(name, word, wl) != 0)
        return 0;
    /* ProfilerStep\s*#\s*(\d+), searched anywhere in the name. */
    for (size_t at = 0; at + wl <= len; at++) {
        if (memcmp(name + at, word, wl) != 0)
            continue;
        size_t k = at + wl;
        while (k < len && (name[k] == ' ' || (name[k] >= '\t' && name[k] <= '\r')))
            k++;
        if (k >= len || name[k] != '#')
            continue;
        k++;
        while (k < len && (name[k] == ' ' || (name[k] >= '\t' && name[k] <= '\r')))
            k++;
        size_t d = k;
        int64_t v = 0;
        int overflow = 0;
        while (k < len && name[k] >= '0' && name[k] <= '9') {
            if (v > (INT64_MAX - 9) / 10)
                overflow = 1;
            else
                v = v * 10 + (name[k] - '0');
            k++;
        }
        if (k == d || overflow)
            continue;
        *out = v;
        return 1;
    }
    return 0;
}

typedef struct step {
    double start, end;
    int64_t n;
    size_t order; /* position among the file's events */
} step;

typedef struct seg {
    double at;  /* segment [at, next.at) */
    int64_t n;  /* winning step number */
    int has;    /* any step covers it */
} seg;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_step_start(const void *a, const void *b)
{
    const step *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* Max-heap of steps by file order, for the sweep. */
typedef struct heap {
    const step **v;
    size_t n;
} heap;

static void heap_push(heap *h, const step *s)
{
    size_t i = h->n++;
    h->v[i] = s;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->v[p]->order >= h->v[i]->order)
            break;
        const step *t = h->v[p];
        h->v[p] = h->v[i];
        h->v[i] = t;
        i = p;
    }
}

static void heap_pop(heap *h)
{
    h->v[0] = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->v[l]->order > h->v[m]->order)
            m = l;
        if (r < h->n && h->v[r]->order > h->v[m]->order)
            m = r;
        if (m == i)
            break;
        const step *t = h->v[m];
        h->v[m] = h->v[i];
        h->v[i] = t;
        i = m;
    }
}

/* Builds the labelled segments; steps are sorted by start on return. */
static seg *build_segments(step *st, size_t ns, size_t *nseg)
{
    double *b = malloc((2 * ns + 1) * sizeof *b);
    const step **hv = malloc((ns + 1) * sizeof *hv);
    seg *sg = malloc((2 * ns + 1) * sizeof *sg);
    if (!b || !hv || !sg) {
        free(b);
        free(hv);
        free(sg);
        return NULL;
    }
    size_t nb = 0;
    for (size_t i = 0; i < ns; i++) {
        b[nb++] = st[i].start;
        b[nb++] = st[i].end;
    }
    qsort(b, nb, sizeof *b, cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < nb; i++)
        if (u == 0 || b[i] != b[u - 1])
            b[u++] = b[i];
    qsort(st, ns, sizeof *st, cmp_step_start);
    heap h = {hv, 0};
    size_t next = 0;
    for (size_t k = 0; k < u; k++) {
        double at = b[k];
        while (next < ns && st[next].start <= at) {
            if (st[next].end > st[next].start)
                heap_push(&h, &st[next]);
            next++;
        }
        while (h.n > 0 && h.v[0]->end <= at)
            heap_pop(&h);
        sg[k].at = at;
        sg[k].has = h.n > 0;
        sg[k].n = h.n > 0 ? h.v[0]->n : -1;
    }
    free(b);
    free(hv);
    *nseg = u;
    return sg;
}

/* The step number containing ts, or -1. */
static int64_t find_step(const seg *sg, size_t nseg, double ts)
{
    if (nseg == 0 || !(ts >= sg[0].at))
        return -1;
    size_t lo = 0, hi = nseg; /* last segment with at <= ts */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sg[mid].at <= ts)
            lo = mid;
        else
            hi = mid;
    }
    return sg[lo].has ? sg[lo].n : -1;
}

/* Correlation id -> host iteration (open addressing). */
typedef struct corr_map {
    int64_t *key;
    int64_t *iter; /* step number or -1; INT64_MIN marks a host at index 0 */
    uint8_t *used;
    size_t cap;
} corr_map;

static size_t corr_slot(const corr_map *m, int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    size_t i = h & (m->cap - 1);
    while (m->used[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int corr_init(corr_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2)
        m->cap *= 2;
    m->key = malloc(m->cap * sizeof *m->key);
    m->iter = malloc(m->cap * sizeof *m->iter);
    m->used = calloc(m->cap, 1);
    return (m->key && m->iter && m->used) ? 0 : -1;
}

static void corr_free(corr_map *m)
{
    free(m->key);
    free(m->iter);
    free(m->used);
}

static int32_t iter_index(const int64_t *iters, size_t n, int64_t v)
{
    if (v < 0)
        return TD_ITER_NONE;
    const int64_t *p = bsearch(&v, iters, n, sizeof *iters, cmp_i64);
    return p ? (int32_t)(p - iters) : TD_ITER_NONE;
}

static int is_sync_name(const td_strtab *names, uint32_t id, int64_t ev_sync, int64_t ctx_sync)
{
    (void)names;
    return (int64_t)id == ev_sync || (int64_t)id == ctx_sync;
}

static bool host_side(const td_raw_event *e)
{
    return e->stream < 0 || (e->stream == 0 && e->cpu_op);
}

int td_assign_iterations(td_file *f, td_raw_event *raw, size_t n, int round_ts, td_error *err)
{
    int rc = TD_ENOMEM;
    step *st = NULL;
    seg *sg = NULL;
    size_t ns = 0, nseg = 0, stcap = 0;
    int64_t *hostiter = NULL;
    corr_map cm = {0};

    if (round_ts) {
        for (size_t i = 0; i < n; i++) {
            td_raw_event *e = &raw[i];
            if (!e->has_ts) {
                e->ts = NAN;
                e->dur = NAN;
                continue;
            }
            double end = floor(e->ts + e->dur);
            e->ts = ceil(e->ts);
            e->dur = end - e->ts;
        }
    }
    /* Steps: per distinct name id, its number (names repeat: parse once). */
    size_t nnames = td_strtab_count(f->names);
    int64_t *name_step = malloc((nnames + 1) * sizeof *name_step);
    if (!name_step)
        goto done;
    for (size_t id = 0; id < nnames; id++) {
        size_t len;
        const char *s = td_strtab_get(f->names, (uint32_t)id, &len);
        int64_t v;
        name_step[id] = td_step_number(s, len, &v) ? v : -1;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t v = name_step[raw[i].name];
        if (v < 0)
            continue;
        step *ns2 = td_grow(st, &stcap, ns + 1, sizeof *st);
        if (!ns2)
            goto done;
        st = ns2;
        st[ns].start = raw[i].ts;
        st[ns].end = raw[i].ts + raw[i].dur;
        st[ns].n = v;
        st[ns].order = i;
        ns++;
    }
    f->steps = ns;
    f->iters = malloc((ns + 1) * sizeof *f->iters);
    if (!f->iters)
        goto done;
    for (size_t i = 0; i < ns; i++)
        f->iters[i] = st[i].n;
    qsort(f->iters, ns, sizeof *f->iters, cmp_i64);
    f->niters = 0;
    for (size_t i = 0; i < ns; i++)
        if (f->niters == 0 || f->iters[i] != f->iters[f->niters - 1])
            f->iters[f->niters++] = f->iters[i];
    /* NaN bounds never contain anything: leave such steps out of the sweep. */
    size_t kept = 0;
    for (size_t i = 0; i < ns; i++)
        if (!isnan(st[i].start) && !isnan(st[i].end))
            st[kept++] = st[i];
    sg = build_segments(st, kept, &nseg);
    if (!sg)
        goto done;

    /* Rule 1: host events. */
    hostiter = malloc((n + 1) * sizeof *hostiter);
    if (!hostiter)
        goto done;
    size_t ncorr = 0;
    for (size_t i = 0; i < n; i++) {
        hostiter[i] = host_side(&raw[i]) ? find_step(sg, nseg, raw[i].ts) : -1;
        if (raw[i].corr != -1)
            ncorr++;
    }
    /* Rule 2: the host side of each correlation, the last in the file. */
    if (corr_init(&cm, ncorr) < 0)
        goto done;
    int64_t ev_sync = td_strtab_find(f->names, "Event Sync", 10);
    int64_t ctx_sync = td_strtab_find(f->names, "Context Sync", 12);
    for (size_t i = 0; i < n; i++) {
        const td_raw_event *e = &raw[i];
        if (e->corr == -1 || (e->stream >= 0 && e->corr >= 0) ||
            is_sync_name(f->names, e->name, ev_sync, ctx_sync))
            continue;
        size_t s = corr_slot(&cm, e->corr);
        cm.used[s] = 1;
        cm.key[s] = e->corr;
        cm.iter[s] = e->index0 ? INT64_MIN : hostiter[i];
    }
    f->ev = malloc((n + 1) * sizeof *f->ev);
    if (!f->ev)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const td_raw_event *e = &raw[i];
        td_event *o = &f->ev[i];
        memset(o, 0, sizeof *o);
        o->dur = e->dur;
        o->name = e->name;
        o->gpu = e->stream != -1;
        if (o->gpu)
            f->events_gpu++;
        else
            f->events_cpu++;
        if (host_side(e)) {
            o->iter = iter_index(f->iters, f->niters, hostiter[i]);
        } else if (e->stream > 0) {
            int64_t it = -1;
            if (e->corr != -1) {
                size_t s = corr_slot(&cm, e->corr);
                if (cm.used[s] && cm.iter[s] != INT64_MIN)
                    it = cm.iter[s];
            }
            o->iter = iter_index(f->iters, f->niters, it);
        } else {
            o->iter = TD_ITER_UNASSIGNED;
            f->events_unassigned++;
        }
    }
    f->nev = n;
    rc = 0;
done:
    free(name_step);
    free(st);
    free(sg);
    free(hostiter);
    corr_free(&cm);
    if (rc < 0)
        return td_fail(err, rc, f->path, "out of memory");
    return 0;
}
