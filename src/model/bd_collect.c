/*
 * The breakdown's records of one file (model/bd_collect.h): built from the
 * link records the loader keeps (td_link) once iterations are known; each
 * gpu-side link is the k-th gpu-side event of the file, whose iteration the
 * compact events hold.
 */
#include "model/load.h"
#include "model/bd_collect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

td_bd_file *td_bd_new(void)
{
    td_bd_file *bd = calloc(1, sizeof *bd);
    if (bd) {
        bd->span_lo = INFINITY;
        bd->span_hi = -INFINITY;
    }
    return bd;
}

int td_bd_add_step(td_bd_file *bd, double start, double end, int64_t n)
{
    td_bd_step *ns = td_grow(bd->steps, &bd->stepcap, bd->nsteps + 1, sizeof *ns);
    if (!ns)
        return -1;
    bd->steps = ns;
    ns[bd->nsteps++] = (td_bd_step){start, end, n};
    return 0;
}

void td_bd_span(td_bd_file *bd, double lo, double hi)
{
    bd->span_lo = lo < bd->span_lo ? lo : bd->span_lo;
    bd->span_hi = hi > bd->span_hi ? hi : bd->span_hi;
}

static bool prefix(const char *s, size_t len, const char *p)
{
    size_t pl = strlen(p);
    return len >= pl && memcmp(s, p, pl) == 0;
}

static bool contains_from(const char *s, size_t len, size_t from, const char *p)
{
    size_t pl = strlen(p);
    for (size_t i = from; i + pl <= len; i++)
        if (memcmp(s + i, p, pl) == 0)
            return true;
    return false;
}

static bool contains(const char *s, size_t len, const char *p)
{
    return contains_from(s, len, 0, p);
}

/* docs/breakdown.md, "Kernel types": what is not computation. */
static bool not_compute(const char *s, size_t len)
{
    static const char *const pre[] = {"nccl",        "Stream Wait Event",
                                      "runFunction", "hip",
                                      "job_exe",     "packet",
                                      "pe_exe",      "cpum_exe_subgraph",
                                      "hccl",        "collective_subgraph_execution"};
    static const char *const any[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (prefix(s, len, pre[i]))
            return true;
    for (size_t i = 0; i < sizeof any / sizeof *any; i++)
        if (contains(s, len, any[i]))
            return true;
    return prefix(s, len, "cuda") && contains_from(s, len, 4, "LaunchKernel");
}

int td_bd_kernel_type(const char *s, size_t len)
{
    if (prefix(s, len, "nccl") || prefix(s, len, "hip") || prefix(s, len, "hccl") ||
        contains(s, len, "ncclKernel"))
        return TD_KT_COMM;
    if (prefix(s, len, "Memcpy") || prefix(s, len, "Memset") || prefix(s, len, "dma"))
        return TD_KT_MEM;
    return not_compute(s, len) ? 0 : TD_KT_COMP;
}

/* The host sides of correlation ids: id -> ts, the last in the file. Kineto
 * numbers them densely, mostly in file order: then an array indexed by id -
 * lo (key NULL, NaN where none), which the gpu events, in about the same
 * order, read nearly in sequence; else an open-addressing hash. */
typedef struct launch_map {
    int64_t *key;
    double *ts;
    size_t mask;
    int64_t lo;
    uint64_t span; /* dense: the ids lo .. lo + span - 1 */
} launch_map;

#define MAP_EMPTY INT64_MIN

static size_t map_slot(const launch_map *m, int64_t k)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15u;
    size_t s = (size_t)(h >> 17) & m->mask;
    while (m->key[s] != MAP_EMPTY && m->key[s] != k)
        s = (s + 1) & m->mask;
    return s;
}

static int map_build(launch_map *m, const td_link *links, size_t n, int round_ts)
{
    size_t count = 0, cap = 16;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++)
        if ((links[i].kind & TD_LINK_LAUNCH) && links[i].corr != MAP_EMPTY) {
            count++;
            lo = links[i].corr < lo ? links[i].corr : lo;
            hi = links[i].corr > hi ? links[i].corr : hi;
        }
    /* dense: no more than 4 slots per launch (the hash has 2 to 4, with keys) */
    if (count && (uint64_t)hi - (uint64_t)lo < 4 * (uint64_t)count) {
        m->lo = lo;
        m->span = (uint64_t)hi - (uint64_t)lo + 1;
        if (!(m->ts = malloc(m->span * sizeof *m->ts)))
            return -1;
        for (uint64_t s = 0; s < m->span; s++)
            m->ts[s] = NAN;
        for (size_t i = 0; i < n; i++)
            if ((links[i].kind & TD_LINK_LAUNCH) && links[i].corr != MAP_EMPTY)
                m->ts[(uint64_t)links[i].corr - (uint64_t)lo] =
                    round_ts ? ceil(links[i].ts) : links[i].ts;
        return 0;
    }
    while (cap < 2 * count + 2)
        cap <<= 1;
    m->key = malloc(cap * sizeof *m->key);
    m->ts = malloc(cap * sizeof *m->ts);
    if (!m->key || !m->ts)
        return -1;
    for (size_t s = 0; s < cap; s++)
        m->key[s] = MAP_EMPTY;
    m->mask = cap - 1;
    for (size_t i = 0; i < n; i++) {
        if (!(links[i].kind & TD_LINK_LAUNCH) || links[i].corr == MAP_EMPTY)
            continue;
        size_t s = map_slot(m, links[i].corr);
        m->key[s] = links[i].corr;
        m->ts[s] = round_ts ? ceil(links[i].ts) : links[i].ts;
    }
    return 0;
}

static double map_get(const launch_map *m, int64_t k)
{
    if (k == MAP_EMPTY || k == -1)
        return NAN;
    if (!m->key) { /* dense */
        uint64_t s = (uint64_t)k - (uint64_t)m->lo;
        return s < m->span ? m->ts[s] : NAN;
    }
    size_t s = map_slot(m, k);
    return m->key[s] == k ? m->ts[s] : NAN;
}

/* What a name is, cached per names id: its kernel type (bits 0-2), a
 * synchronize call, Event Sync / Context Sync; KNOWN once computed. */
enum { NAME_SYNC = 8, NAME_EVENT_SYNC = 16, NAME_KNOWN = 128 };

static bool is_named(const char *s, size_t len, const char *what)
{
    return len == strlen(what) && memcmp(s, what, len) == 0;
}

static int name_info(const td_file *f, uint8_t *cache, uint32_t name)
{
    if (!cache[name]) {
        size_t len;
        const char *s = td_strtab_get(f->names, name, &len);
        int v = td_bd_kernel_type(s, len) | NAME_KNOWN;
        v |= td_is_sync_name(s, len) ? NAME_SYNC : 0;
        v |= is_named(s, len, "Event Sync") || is_named(s, len, "Context Sync") ? NAME_EVENT_SYNC
                                                                                : 0;
        cache[name] = (uint8_t)v;
    }
    return cache[name];
}

/* The next gpu-side compact event's iteration, from *at on. */
static int32_t next_gpu_iter(const td_file *f, size_t *at)
{
    while (*at < f->nev) {
        const td_event *e = &f->evb[*at >> TD_BLOCK_SHIFT][*at & (TD_BLOCK - 1)];
        (*at)++;
        if (e->name & TD_EV_GPU)
            return e->iter;
    }
    return TD_ITER_NONE;
}

typedef struct collect {
    td_file *f;
    td_bd_file *bd;
    launch_map m;
    uint8_t *types;
    int round_ts;
    size_t evcap, synccap, at;
} collect;

static void times(const td_link *l, int round_ts, double *ts, double *end)
{
    if (round_ts) {
        *end = floor(l->ts + l->dur);
        *ts = ceil(l->ts);
    } else {
        *ts = l->ts;
        *end = l->ts + l->dur;
    }
}

static int add_gpu(collect *c, const td_link *l)
{
    int32_t iter = next_gpu_iter(c->f, &c->at);
    double ts, end;
    times(l, c->round_ts, &ts, &end);
    if (isnan(ts) || isnan(end))
        return 0;
    td_bd_ev *ne = td_grow(c->bd->ev, &c->evcap, c->bd->nev + 1, sizeof *ne);
    if (!ne)
        return -1;
    c->bd->ev = ne;
    td_bd_ev *e = &ne[c->bd->nev++];
    e->ts = ts;
    e->end = end;
    e->launch = map_get(&c->m, l->corr);
    e->iter = iter;
    e->stream = l->stream;
    int info = name_info(c->f, c->types, l->name);
    e->type = (uint8_t)(info & 7);
    e->flags = (uint8_t)((l->kind & TD_LINK_KCAT) ? TD_BDF_KERNEL : 0);
    if ((l->stream >= 0 && l->corr >= 0) || (info & NAME_EVENT_SYNC))
        e->flags |= TD_BDF_GPUDEF;
    return 0;
}

static int add_sync(collect *c, const td_link *l)
{
    if (!(name_info(c->f, c->types, l->name) & NAME_SYNC))
        return 0;
    double ts, end;
    times(l, c->round_ts, &ts, &end);
    if (isnan(ts) || isnan(end))
        return 0;
    td_bd_call *nc = td_grow(c->bd->sync, &c->synccap, c->bd->nsync + 1, sizeof *nc);
    if (!nc)
        return -1;
    c->bd->sync = nc;
    nc[c->bd->nsync++] = (td_bd_call){ts, end};
    return 0;
}

int td_bd_collect(td_file *f, const td_link *links, size_t n, int round_ts, td_error *err)
{
    collect c = {.f = f, .bd = f->bd, .round_ts = round_ts};
    int rc = 0;
    if (td_file_events(f) < 0 || map_build(&c.m, links, n, round_ts) < 0 ||
        !(c.types = calloc(td_strtab_count(f->names) + 1, 1)))
        rc = -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const td_link *l = &links[i];
        if (l->kind & TD_LINK_GPU)
            rc = add_gpu(&c, l);
        else
            rc = add_sync(&c, l);
    }
    free(c.m.key);
    free(c.m.ts);
    free(c.types);
    return rc < 0 ? td_fail(err, TD_ENOMEM, f->path, "out of memory") : 0;
}
