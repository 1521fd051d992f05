/*
 * tracediff roofline (docs/roofline.md): per (op, input dims, input types)
 * group that has a model, its work (perf_model.c), its GPU time and rate on
 * each side, against the side's GPU roofline (gpu_peaks.c), and the diff.
 *
 * An op call's GPU time is |U| of the kernels, memcpys and memsets its
 * launches and those of every op below it caused (the loader's attribution
 * gives each gpu-side event its innermost op call and the calls' nesting).
 * Rows are taken top-down: the first op on a path that has a model takes
 * its whole subtree; what no modelled op covers is the side's unmodelled
 * time, so modelled + unmodelled = GPU busy time.
 */
#include "compare/compare.h"
#include "model/selection.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string -> index map (rows, unmodelled ops). */
typedef struct smap {
    char **key;
    size_t *val;
    size_t cap, n;
} smap;

static size_t smap_slot(const smap *m, const char *k)
{
    size_t s = (size_t)td_hash_bytes(k, strlen(k)) & (m->cap - 1);
    while (m->key[s] && strcmp(m->key[s], k) != 0)
        s = (s + 1) & (m->cap - 1);
    return s;
}

/* The index of k, adding it as next when absent (*added). -1: no memory. */
static long smap_get(smap *m, const char *k, size_t next, bool *added)
{
    *added = false;
    if (2 * (m->n + 1) > m->cap) {
        size_t oc = m->cap, nc = oc ? 2 * oc : 64;
        char **ok = m->key;
        size_t *ov = m->val;
        m->key = calloc(nc, sizeof *m->key);
        m->val = calloc(nc, sizeof *m->val);
        if (!m->key || !m->val) {
            free(m->key);
            free(m->val);
            m->key = ok;
            m->val = ov;
            return -1;
        }
        m->cap = nc;
        for (size_t i = 0; i < oc; i++)
            if (ok[i]) {
                size_t s = smap_slot(m, ok[i]);
                m->key[s] = ok[i];
                m->val[s] = ov[i];
            }
        free(ok);
        free(ov);
    }
    size_t s = smap_slot(m, k);
    if (m->key[s])
        return (long)m->val[s];
    if (!(m->key[s] = strdup(k)))
        return -1;
    m->val[s] = next;
    m->n++;
    *added = true;
    return (long)next;
}

static void smap_free(smap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->key[i]);
    free(m->key);
    free(m->val);
}

/* A row as it is summed. */
typedef struct acc {
    char *op, *dims, *types;
    td_rl_class cls;
    td_precision prec;
    bool matrix;
    uint64_t count[2];
    double flops[2], bytes[2], time[2];
} acc;

typedef struct unm {
    char *op;
    double time[2];
} unm;

/* A sample's part (--stats): a modelled call's time, its row and (rank,
 * iteration) cell. */
typedef struct samp {
    uint32_t row, cell;
    double t;
} samp;

typedef struct rl_side {
    td_rl_coverage cov;
    samp *samp;
    size_t nsamp, sampcap;
    size_t cells; /* (rank, iteration) samples */
    td_rl_unmodelled *top;
    const td_gpu *gpu;
    td_gpu gpu_own;
    char *device;
    char **notes;
    size_t nnotes;
    bool shapes; /* some selected file has shapes */
} rl_side;

struct td_roofline {
    acc *acc;
    size_t nacc, acccap;
    smap rows;
    unm *unm;
    size_t nunm, unmcap;
    smap unms;
    td_rl_row *out;
    td_rl_class_row classes[TD_RL_NCLASSES];
    size_t nclasses;
    rl_side s[2];
    bool stats;
    td_samples mode;
};

static int note(rl_side *sd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(rl_side *sd, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nn = realloc(sd->notes, (sd->nnotes + 1) * sizeof *nn);
    if (!nn)
        return -1;
    sd->notes = nn;
    if (!(nn[sd->nnotes] = strdup(buf)))
        return -1;
    sd->nnotes++;
    return 0;
}

/* Per (name, shape) of a file: what the model says, and the row. */
typedef struct pm {
    uint64_t key;
    int rc; /* 1 modelled, -1 has a model but not these inputs; 2: empty slot */
    td_perf p;
    long row; /* acc index (rc 1), or unm index of the op (rc -1) */
} pm;

/* One GPU event of a selected file, for the unions. */
typedef struct gev {
    uint32_t who; /* op call (modelled) or unm index */
    int32_t ip;   /* the iteration's position in the selection (0: whole trace) */
    double ts, end;
} gev;

static int cmp_gev(const void *a, const void *b)
{
    const gev *x = a, *y = b;
    if (x->who != y->who)
        return x->who < y->who ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static int cmp_ts(const void *a, const void *b)
{
    const gev *x = a, *y = b;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* |U| of v[0..n) sorted by ts. */
static double union_len(const gev *v, size_t n)
{
    double tot = 0, lo = 0, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (v[i].ts > hi) {
            if (hi > lo)
                tot += hi - lo;
            lo = v[i].ts;
            hi = v[i].end;
        } else if (v[i].end > hi) {
            hi = v[i].end;
        }
    }
    if (hi > lo)
        tot += hi - lo;
    return tot;
}

typedef struct file_run {
    td_roofline *r;
    int side;
    const td_file *f;
    uint8_t *named;  /* per names id: 0 unknown, 1 no model, 2 a model */
    uint32_t *top;   /* per op call: its modelled root, or TD_ATTR_NONE; */
    uint8_t *topset; /* ... once known */
    pm *cache;       /* grown as (name, shape) pairs come: a file has few of them */
    size_t cmask, ncache;
    pm oom; /* the entry model_of gives when the cache could not grow */
    uint64_t problems[8];
    const char *problem_text[8];
    size_t nproblems;
    uint64_t unknown_type;
    size_t base; /* the first (rank, iteration) cell of the file's rank */
    int rc;      /* TD_ENOMEM once a sample did not fit */
} file_run;

static bool name_has_model(file_run *fr, uint32_t name)
{
    if (!fr->named[name]) {
        td_perf p;
        const char *s = td_strtab_get(fr->f->names, name, NULL);
        fr->named[name] = td_perf_model(&p, s, NULL, NULL, NULL) == 0 ? 1 : 2;
    }
    return fr->named[name] == 2;
}

/* The modelled root of op call c: the outermost op on its path with a model. */
static uint32_t root_of(file_run *fr, uint32_t c)
{
    const td_file *f = fr->f;
    uint32_t path[256];
    size_t n = 0;
    uint32_t at = c;
    while (at != TD_ATTR_NONE && !fr->topset[at] && n < 256) {
        path[n++] = at;
        at = f->op_parent[at];
    }
    uint32_t above = at == TD_ATTR_NONE ? TD_ATTR_NONE
                     : fr->topset[at]   ? fr->top[at]
                                        : TD_ATTR_NONE;
    while (n > 0) {
        uint32_t x = path[--n];
        if (above == TD_ATTR_NONE && name_has_model(fr, f->op_name[x]))
            above = x;
        fr->top[x] = above;
        fr->topset[x] = 1;
    }
    return fr->top[c];
}

static long unm_index(td_roofline *r, const char *op)
{
    bool added;
    long i = smap_get(&r->unms, op, r->nunm, &added);
    if (i < 0 || !added)
        return i;
    unm *nu = td_grow(r->unm, &r->unmcap, r->nunm + 1, sizeof *nu);
    if (!nu)
        return -1;
    r->unm = nu;
    nu[r->nunm] = (unm){strdup(op), {0, 0}};
    if (!nu[r->nunm].op)
        return -1;
    r->nunm++;
    return i;
}

static void count_problem(file_run *fr, const char *why)
{
    for (size_t i = 0; i < fr->nproblems; i++)
        if (fr->problem_text[i] == why) {
            fr->problems[i]++;
            return;
        }
    if (fr->nproblems < 8) {
        fr->problem_text[fr->nproblems] = why;
        fr->problems[fr->nproblems++] = 1;
    }
}

/* The model of op call c (its name and shape): cached per (name, shape). */
static size_t cache_slot(const pm *cache, size_t mask, uint64_t key)
{
    size_t s = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (cache[s].rc != 2 && cache[s].key != key)
        s = (s + 1) & mask;
    return s;
}

/* Twice the cache's slots, its entries moved over: 0, or -1 (cache intact). */
static int cache_grow(file_run *fr)
{
    size_t nc = 2 * (fr->cmask + 1);
    pm *n = malloc(nc * sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < nc; i++)
        n[i].rc = 2;
    for (size_t i = 0; i <= fr->cmask; i++)
        if (fr->cache[i].rc != 2)
            n[cache_slot(n, nc - 1, fr->cache[i].key)] = fr->cache[i];
    free(fr->cache);
    fr->cache = n;
    fr->cmask = nc - 1;
    return 0;
}

static pm *model_of(file_run *fr, uint32_t c)
{
    const td_file *f = fr->f;
    uint32_t name = f->op_name[c], shape = f->op_shape ? f->op_shape[c] : TD_ATTR_NONE;
    uint64_t key = ((uint64_t)name << 32) | shape;
    size_t s = cache_slot(fr->cache, fr->cmask, key);
    if (fr->cache[s].rc != 2)
        return &fr->cache[s];
    if (2 * (fr->ncache + 1) > fr->cmask + 1) { /* at most half full */
        if (cache_grow(fr) < 0) {
            fr->oom.rc = -1;
            fr->oom.row = -1;
            fr->oom.p.problem = "out of memory";
            return &fr->oom;
        }
        s = cache_slot(fr->cache, fr->cmask, key);
    }
    fr->ncache++;
    pm *e = &fr->cache[s];
    e->key = key;
    const char *op = td_strtab_get(f->names, name, NULL);
    char *sh = NULL;
    const char *parts[3] = {"", "", ""};
    if (shape != TD_ATTR_NONE) {
        sh = strdup(td_strtab_get(f->shapes, shape, NULL));
        if (!sh) {
            e->rc = -1;
            e->p.problem = "out of memory";
            return e;
        }
        char *p = sh;
        for (int i = 0; i < 3; i++) {
            parts[i] = p;
            char *us = strchr(p, 0x1f);
            if (!us)
                break;
            *us = '\0';
            p = us + 1;
        }
    }
    e->rc = td_perf_model(&e->p, op, parts[0], parts[1], parts[2]);
    e->row = -1;
    if (e->rc > 0) {
        size_t kl = strlen(op) + strlen(parts[0]) + strlen(parts[1]) + 3;
        char *k = malloc(kl);
        bool added = false;
        if (k) {
            snprintf(k, kl, "%s\x1f%s\x1f%s", op, parts[0], parts[1]);
            e->row = smap_get(&fr->r->rows, k, fr->r->nacc, &added);
            free(k);
        }
        if (added) {
            td_roofline *r = fr->r;
            acc *na = td_grow(r->acc, &r->acccap, r->nacc + 1, sizeof *na);
            if (na) {
                r->acc = na;
                acc *a = &na[r->nacc++];
                memset(a, 0, sizeof *a);
                a->op = strdup(op);
                a->dims = strdup(parts[0]);
                a->types = strdup(parts[1]);
                a->cls = e->p.cls;
                a->prec = e->p.precision;
                a->matrix = e->p.matrix;
                if (!a->op || !a->dims || !a->types)
                    e->row = -1;
            } else {
                e->row = -1;
            }
        }
        if (e->row < 0) {
            e->rc = -1;
            e->p.problem = "out of memory";
        }
    }
    if (e->rc < 0)
        e->row = unm_index(fr->r, op);
    free(sh);
    return e;
}

/* Adds call c's time t to its row or to its op's unmodelled time. */
static void add_call(file_run *fr, uint32_t c, double t, int32_t ip)
{
    pm *e = model_of(fr, c);
    td_roofline *r = fr->r;
    int s = fr->side;
    acc *a = &r->acc[e->row];
    a->count[s]++;
    a->flops[s] += e->p.flops;
    a->bytes[s] += e->p.bytes;
    a->time[s] += t;
    if (e->p.precision == TD_PREC_UNKNOWN)
        fr->unknown_type++;
    if (!r->stats)
        return;
    rl_side *sd = &r->s[s];
    samp *ns = td_grow(sd->samp, &sd->sampcap, sd->nsamp + 1, sizeof *ns);
    if (!ns) {
        fr->rc = TD_ENOMEM;
        return;
    }
    sd->samp = ns;
    ns[sd->nsamp++] = (samp){(uint32_t)e->row, (uint32_t)(fr->base + (size_t)ip), t};
}

/* One selected file of a side: its GPU events, their calls and unions. */
/* The selected GPU events of a file: all of them into all[], those of
 * modelled calls also into mod[] (who: the call); the others' who: their
 * unmodelled op's index | UNM. */
#define UNM 0x80000000u

static int split_events(file_run *fr, const td_pick *pick, const long *pos, gev *all, size_t *ng,
                        gev *mod, size_t *nm)
{
    const td_file *f = fr->f;
    size_t k = 0;
    const td_roof_ev *L = f->roof_list; /* a summary's file: its events listed */
    size_t n = L ? f->nroof_list : f->nev;
    for (size_t i = 0; i < n; i++) {
        td_roof_ev x;
        long ip;
        if (L) {
            x = L[i];
        } else {
            const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
            if (!(e->name & TD_EV_GPU))
                continue;
            size_t g = k++;
            if (g >= f->nroof || isnan(f->roof_ts[g]))
                continue;
            x = (td_roof_ev){f->roof_ts[g],
                             f->roof_end[g],
                             e->name,
                             e->iter,
                             g < f->nattr ? f->attr_call[g] : TD_ATTR_NONE,
                             g < f->nattr ? f->attr_op[g] : TD_ATTR_NONE};
        }
        if (!td_pick_takes(pick, pos, x.name, x.iter, &ip))
            continue;
        gev v = {TD_ATTR_NONE, ip < 0 ? 0 : (int32_t)ip, x.ts, x.end};
        uint32_t call = x.call;
        uint32_t root = call == TD_ATTR_NONE || !f->op_name ? TD_ATTR_NONE : root_of(fr, call);
        long u;
        if (root != TD_ATTR_NONE && f->shapes) {
            pm *m = model_of(fr, root);
            if (m->rc > 0) {
                all[(*ng)++] = v;
                v.who = root;
                mod[(*nm)++] = v;
                continue;
            }
            /* A model, but not for these inputs: the op's time, unmodelled. */
            if (!(fr->topset[root] & 2)) {
                fr->topset[root] |= 2;
                count_problem(fr, m->p.problem);
            }
            u = m->row;
        } else { /* under the innermost op around it */
            uint32_t op = x.op;
            u = unm_index(fr->r, op == TD_ATTR_NONE || TD_ATTR_IS_REASON(op)
                                     ? "(no op)"
                                     : td_strtab_get(f->names, op, NULL));
        }
        if (u < 0)
            return TD_ENOMEM;
        v.who = (uint32_t)u | UNM;
        all[(*ng)++] = v;
    }
    return 0;
}

/* Runs of equal who in v[0..n) (sorted by who, then ts): fn per run. */
static void per_who(file_run *fr, gev *v, size_t n,
                    void (*fn)(file_run *, uint32_t, double, int32_t))
{
    qsort(v, n, sizeof *v, cmp_gev);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].who == v[i].who)
            j++;
        fn(fr, v[i].who, union_len(v + i, j - i), v[i].ip);
        i = j;
    }
}

static void add_unmodelled(file_run *fr, uint32_t who, double t, int32_t ip)
{
    (void)ip;
    fr->r->unm[who & ~UNM].time[fr->side] += t;
}

/* Busy, modelled and unmodelled time of the file; each modelled call's
 * time to its row, each unmodelled op's to its list entry. */
static void sum_times(file_run *fr, gev *all, size_t ng, gev *mod, size_t nm)
{
    rl_side *sd = &fr->r->s[fr->side];
    qsort(all, ng, sizeof *all, cmp_ts);
    double busy = union_len(all, ng);
    qsort(mod, nm, sizeof *mod, cmp_ts);
    double modelled = union_len(mod, nm);
    sd->cov.busy_us += busy;
    sd->cov.modelled_us += modelled;
    sd->cov.unmodelled_us += busy - modelled;
    per_who(fr, mod, nm, add_call);
    size_t nu = 0;
    for (size_t i = 0; i < ng; i++)
        if (all[i].who != TD_ATTR_NONE)
            all[nu++] = all[i];
    per_who(fr, all, nu, add_unmodelled);
}

static int file_notes(file_run *fr)
{
    rl_side *sd = &fr->r->s[fr->side];
    const char *path = fr->f->path;
    for (size_t i = 0; i < fr->nproblems; i++)
        if (note(sd, "%s: %llu op call%s left unmodelled: %s", path,
                 (unsigned long long)fr->problems[i], fr->problems[i] == 1 ? "" : "s",
                 fr->problem_text[i]) < 0)
            return TD_ENOMEM;
    if (fr->unknown_type &&
        note(sd,
             "%s: %llu op call%s whose first input's type is not a floating-point type of "
             "known width: no roofline columns",
             path, (unsigned long long)fr->unknown_type, fr->unknown_type == 1 ? "" : "s") < 0)
        return TD_ENOMEM;
    return 0;
}

/* One selected file of a side: its GPU events, their calls and unions. */
static int measure_file(td_roofline *r, int side, const td_file *f, const td_pick *pick,
                        size_t base)
{
    if ((!f->roof_ts && !f->roof_list) || !f->has_attr)
        return 0;
    int rc = td_file_events(f);
    if (rc < 0)
        return rc;
    file_run fr = {.r = r, .side = side, .f = f, .base = base};
    size_t nn = td_strtab_count(f->names), nc = 256, ng = 0, nm = 0;
    fr.named = calloc(nn + 1, 1);
    fr.top = malloc((f->nops + 1) * sizeof *fr.top);
    fr.topset = calloc(f->nops + 1, 1);
    fr.cache = malloc(nc * sizeof *fr.cache);
    fr.cmask = nc - 1;
    size_t nroof = f->roof_list ? f->nroof_list : f->nroof;
    gev *all = malloc((nroof + 1) * sizeof *all), *mod = malloc((nroof + 1) * sizeof *mod);
    long stack[64], *pos = td_pick_positions(f, pick, stack);
    if (!fr.named || !fr.top || !fr.topset || !fr.cache || !all || !mod || !pos) {
        rc = TD_ENOMEM;
    } else {
        for (size_t i = 0; i < nc; i++)
            fr.cache[i].rc = 2;
        rc = split_events(&fr, pick, pos, all, &ng, mod, &nm);
        if (rc == 0) {
            sum_times(&fr, all, ng, mod, nm);
            rc = fr.rc < 0 ? fr.rc : file_notes(&fr);
        }
    }
    if (pos && pos != stack)
        free(pos);
    free(fr.named);
    free(fr.top);
    free(fr.topset);
    free(fr.cache);
    free(all);
    free(mod);
    return rc;
}

/* The position of rank r in ranks[0..n), or -1. */
static long rank_pos(const int64_t *ranks, size_t n, int64_t r)
{
    for (size_t i = 0; i < n; i++)
        if (ranks[i] == r)
            return (long)i;
    return -1;
}

static int measure_side(td_roofline *r, int side, const td_set *s, const td_list *ranks,
                        const td_list *iters, const char *gpu, const char *name, td_error *err)
{
    rl_side *sd = &r->s[side];
    for (size_t i = 0; s->origin && i < s->nfiles; i++)
        if (s->files[i]->roof_lost) /* the report's Why section says it in its place */
            return td_fail(err, TD_EUSAGE, s->files[i]->origin ? s->files[i]->origin : s->origin,
                           "%s: %s", name,
                           s->files[i]->roof_lost == TD_BD_LOST_OLD
                               ? "this summary was written before summaries kept the "
                                 "roofline's inputs (shapes): re-summarize its traces "
                                 "(tracediff summarize) for the roofline"
                           : s->files[i]->roof_lost == TD_BD_LOST_SELECTION
                               ? "this summary keeps only CPU events (--device cpu): the "
                                 "roofline needs the GPU's: re-summarize its traces without it"
                               : "the roofline needs the files loaded with its inputs");
    int64_t *rk = NULL, *it = NULL;
    size_t nrk = 0, nit = 0;
    int rc = td_resolve(&rk, &nrk, ranks, s->ranks, s->nranks, "rank", name, err);
    bool whole = s->niters == 0;
    if (rc == 0 && !whole)
        rc = td_resolve(&it, &nit, iters, s->iters, s->niters, "iteration", name, err);
    /* a summary of a selection: what it lacks is an error, never other numbers */
    if (rc == 0 && s->partial)
        rc = td_set_check_selection(s, rk, nrk, it, nit, TD_DEVICE_GPU, err);
    td_pick pick = {it, nit, whole, TD_DEVICE_GPU, false, NULL, false};
    size_t per_rank = whole ? 1 : nit;
    sd->cells = nrk * per_rank;
    bool any_attr = false;
    for (size_t i = 0; rc == 0 && i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        long rp = rank_pos(rk, nrk, f->rank);
        if (rp < 0)
            continue;
        if ((rc = td_file_roof(f)) < 0) { /* a summary's section, decoded now */
            rc = td_roof_fail(err, rc, f);
            break;
        }
        any_attr |= f->roof_ts != NULL || f->roof_list != NULL;
        sd->shapes |= f->shapes != NULL;
        if (!sd->device && f->device_name && !(sd->device = strdup(f->device_name)))
            rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        if (rc == 0 && (rc = measure_file(r, side, f, &pick, (size_t)rp * per_rank)) < 0)
            rc = rc == TD_ENOMEM ? td_fail(err, TD_ENOMEM, f->path, "out of memory")
                                 : td_events_fail(err, rc, f);
    }
    free(rk);
    free(it);
    if (rc < 0)
        return rc;
    if (!any_attr)
        return td_fail(err, TD_EUSAGE, s->path, "%s was loaded without the roofline's inputs",
                       name);
    if (!sd->shapes &&
        note(sd, "no input shapes in the trace: record it with record_shapes=True for FLOPs and "
                 "bytes; the GPU time is still measured") < 0)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    if (gpu) {
        if ((rc = td_gpu_resolve(&sd->gpu_own, gpu, err)) < 0)
            return rc;
        sd->gpu = &sd->gpu_own;
    } else {
        sd->gpu = td_gpu_detect(sd->device);
        if (!sd->gpu &&
            note(sd,
                 "%s: no peaks known for this GPU: no roofline columns (give one with --%s-gpu)",
                 sd->device ? sd->device : "no deviceProperties in the trace", name) < 0)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    sd->cov.modelled_pct = sd->cov.busy_us > 0 ? 100 * sd->cov.modelled_us / sd->cov.busy_us : NAN;
    return 0;
}

/* A GPU's peak for a precision and unit: vector 8/16-bit figures the
 * datasheets leave out fall back to the vector fp32 figure. */
static double peak_of(const td_gpu *g, bool matrix, td_precision p)
{
    if (!g || p == TD_PREC_UNKNOWN)
        return NAN;
    double v = g->tflops[matrix ? 0 : 1][p];
    if (isnan(v) && !matrix && p >= TD_PREC_FP16)
        v = g->tflops[1][TD_PREC_FP32];
    return v;
}

/* Roofline time (us) of F flops and B bytes; its bound. */
static double roof_time(double F, double B, double peak, double bwgb, td_rl_bound *bound)
{
    *bound = TD_RL_BOUND_UNKNOWN;
    if (isnan(peak) || isnan(B) || isnan(bwgb) || !(peak > 0) || !(bwgb > 0))
        return NAN;
    double tc = F / (peak * 1e6), tm = B / (bwgb * 1e3);
    *bound = tc >= tm ? TD_RL_COMPUTE : TD_RL_MEMORY;
    return tc > tm ? tc : tm;
}

static void fill_side(td_rl_side *o, const acc *a, int s, const td_gpu *g)
{
    o->count = a->count[s];
    double n = (double)a->count[s];
    o->time_us = n > 0 ? a->time[s] : NAN;
    o->flops = n > 0 ? a->flops[s] / n : NAN;
    o->bytes = n > 0 ? a->bytes[s] / n : NAN;
    o->tflops = n > 0 && a->time[s] > 0 ? a->flops[s] / (a->time[s] * 1e6) : NAN;
    o->tbps = n > 0 && a->time[s] > 0 ? a->bytes[s] / (a->time[s] * 1e6) : NAN;
    o->intensity = n > 0 && a->bytes[s] > 0 ? a->flops[s] / a->bytes[s] : NAN;
    o->peak_tflops = n > 0 ? peak_of(g, a->matrix, a->prec) : NAN;
    o->peak_tbps = n > 0 && g ? g->mem_bw_gbps / 1000 : NAN;
    double rt = n > 0 ? roof_time(a->flops[s], a->bytes[s], o->peak_tflops,
                                  g ? g->mem_bw_gbps : NAN, &o->bound)
                      : NAN;
    if (n == 0)
        o->bound = TD_RL_BOUND_UNKNOWN;
    o->efficiency_pct = a->time[s] > 0 ? 100 * rt / a->time[s] : NAN;
}

static double pct(double a, double b)
{
    return a > 0 && !isnan(b) ? 100 * (b - a) / a : NAN;
}

/* The row's rate: TFLOP/s when it does floating-point work, else TB/s. */
static double rate(const td_rl_side *s)
{
    return s->flops > 0 ? s->tflops : s->tbps;
}

/* docs/roofline.md, "Readings": the first rule that applies. */
static const char *reading(const td_rl_row *w)
{
    const td_rl_side *c = &w->side[0], *t = &w->side[1];
    if (c->count == 0)
        return "test only";
    if (t->count == 0)
        return "control only";
    double dw = c->flops > 0   ? (t->flops - c->flops) / c->flops
                : c->bytes > 0 ? (t->bytes - c->bytes) / c->bytes
                               : 0;
    if (dw > 0.01)
        return "more work";
    if (dw < -0.01)
        return "less work";
    if (c->bound == TD_RL_COMPUTE && t->bound == TD_RL_MEMORY)
        return "became memory-bound";
    if (c->bound == TD_RL_MEMORY && t->bound == TD_RL_COMPUTE)
        return "became compute-bound";
    double tc = w->time_change_pct;
    if (isnan(tc) || fabs(tc) < 5)
        return "same";
    return tc > 0 ? "same work, lower rate" : "same work, higher rate";
}

static int cmp_row(const void *a, const void *b)
{
    const td_rl_row *x = a, *y = b;
    double dx = fabs((isnan(x->side[1].time_us) ? 0 : x->side[1].time_us) -
                     (isnan(x->side[0].time_us) ? 0 : x->side[0].time_us));
    double dy = fabs((isnan(y->side[1].time_us) ? 0 : y->side[1].time_us) -
                     (isnan(y->side[0].time_us) ? 0 : y->side[0].time_us));
    if (dx != dy)
        return dx > dy ? -1 : 1;
    int c = strcmp(x->op, y->op);
    if (c)
        return c;
    c = strcmp(x->input_dims, y->input_dims);
    return c ? c : strcmp(x->input_types, y->input_types);
}

static int cmp_unm(const void *a, const void *b)
{
    const td_rl_unmodelled *x = a, *y = b;
    if (x->time_us != y->time_us)
        return x->time_us > y->time_us ? -1 : 1;
    return strcmp(x->op, y->op);
}

static int cmp_samp(const void *a, const void *b)
{
    const samp *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    if (x->cell != y->cell)
        return x->cell < y->cell ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

/* One side's samples per row (before the rows are sorted): per (rank,
 * iteration) cell the row's summed time, or one per call; each row's
 * sorted ascending. */
static int side_samples(td_roofline *r, int side, double **vals, const double **x, size_t *n)
{
    rl_side *sd = &r->s[side];
    size_t nr = r->nacc, cells = sd->cells;
    if (sd->nsamp) /* samp is NULL without samples */
        qsort(sd->samp, sd->nsamp, sizeof *sd->samp, cmp_samp);
    if (r->mode == TD_SAMPLES_ITERATION) {
        if (!(*vals = calloc(nr * cells + 1, sizeof **vals)))
            return -1;
        for (size_t i = 0; i < sd->nsamp; i++)
            if (sd->samp[i].cell < cells)
                (*vals)[(size_t)sd->samp[i].row * cells + sd->samp[i].cell] += sd->samp[i].t;
        for (size_t k = 0; k < nr; k++) {
            x[k] = *vals + k * cells;
            n[k] = cells;
            qsort(*vals + k * cells, cells, sizeof **vals, td_cmp_double);
        }
        return 0;
    }
    if (!(*vals = malloc((sd->nsamp + 1) * sizeof **vals)))
        return -1;
    size_t at = 0;
    for (size_t k = 0; k < nr; k++) {
        x[k] = *vals + at;
        n[k] = 0;
        for (; at < sd->nsamp && sd->samp[at].row == k; at++)
            (*vals)[at] = sd->samp[at].t;
        n[k] = (size_t)(*vals + at - x[k]);
        qsort(*vals + (x[k] - *vals), n[k], sizeof **vals, td_cmp_double);
    }
    return 0;
}

/* Each row's statistics and verdict (r->out parallel to r->acc). */
static int rows_stats(td_roofline *r, const td_stats_opts *so, td_error *err)
{
    size_t nr = r->nacc, cells[2] = {r->s[0].cells, r->s[1].cells};
    r->mode = td_stats_mode(so, cells);
    double *vals[2] = {NULL, NULL};
    const double **x[2] = {calloc(nr + 1, sizeof *x[0]), calloc(nr + 1, sizeof *x[1])};
    size_t *n[2] = {calloc(nr + 1, sizeof *n[0]), calloc(nr + 1, sizeof *n[1])};
    uint64_t *count[2] = {calloc(nr + 1, sizeof *count[0]), calloc(nr + 1, sizeof *count[1])};
    td_row_stats *st = calloc(nr + 1, sizeof *st);
    int rc = !x[0] || !x[1] || !n[0] || !n[1] || !count[0] || !count[1] || !st ? -1 : 0;
    for (int s = 0; s < 2 && rc == 0; s++) {
        rc = side_samples(r, s, &vals[s], x[s], n[s]);
        for (size_t k = 0; k < nr; k++)
            count[s][k] = r->acc[k].count[s];
    }
    if (rc < 0) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
    } else {
        td_stats_input in = {{x[0], x[1]}, {n[0], n[1]}, {count[0], count[1]}};
        rc = td_stats_judge(st, nr, &in, r->mode, so, err);
    }
    for (size_t k = 0; rc == 0 && k < nr; k++)
        r->out[k].stats = st[k];
    for (int s = 0; s < 2; s++) {
        free(vals[s]);
        free(x[s]);
        free(n[s]);
        free(count[s]);
    }
    free(st);
    if (rc == 0 && r->mode == TD_SAMPLES_ITERATION)
        for (int s = 0; s < 2; s++)
            if (cells[s] < 2 &&
                note(&r->s[s],
                     "--stats: %zu (rank, iteration) sample%s: no verdicts; select more "
                     "iterations (--control-iteration all) or use --samples call",
                     cells[s], cells[s] == 1 ? "" : "s") < 0)
                return td_fail(err, TD_ENOMEM, "", "out of memory");
    return rc;
}

static int finish(td_roofline *r, size_t ntop, const td_stats_opts *so, td_error *err)
{
    r->out = calloc(r->nacc + 1, sizeof *r->out);
    if (!r->out)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    double cf[TD_RL_NCLASSES][2] = {{0}}, ct[TD_RL_NCLASSES][2] = {{0}},
           cr[TD_RL_NCLASSES][2] = {{0}};
    bool cseen[TD_RL_NCLASSES] = {0}, rt_ok[TD_RL_NCLASSES][2];
    for (int c = 0; c < TD_RL_NCLASSES; c++)
        rt_ok[c][0] = rt_ok[c][1] = true;
    for (size_t i = 0; i < r->nacc; i++) {
        const acc *a = &r->acc[i];
        td_rl_row *w = &r->out[i];
        w->op = a->op;
        w->input_dims = a->dims;
        w->input_types = a->types;
        w->cls = a->cls;
        w->precision = a->prec;
        for (int s = 0; s < 2; s++) {
            fill_side(&w->side[s], a, s, r->s[s].gpu);
            if (!a->count[s])
                continue;
            cseen[a->cls] = true;
            cf[a->cls][s] += a->flops[s];
            ct[a->cls][s] += a->time[s];
            td_rl_bound b;
            double rt = roof_time(a->flops[s], a->bytes[s], w->side[s].peak_tflops,
                                  r->s[s].gpu ? r->s[s].gpu->mem_bw_gbps : NAN, &b);
            if (isnan(rt))
                rt_ok[a->cls][s] = false;
            else
                cr[a->cls][s] += rt;
        }
        w->time_change_pct = pct(w->side[0].time_us, w->side[1].time_us);
        w->rate_change_pct = pct(rate(&w->side[0]), rate(&w->side[1]));
        w->efficiency_change_pts = w->side[1].efficiency_pct - w->side[0].efficiency_pct;
        w->reading = reading(w);
    }
    int rc = r->stats ? rows_stats(r, so, err) : 0;
    if (rc < 0)
        return rc;
    qsort(r->out, r->nacc, sizeof *r->out, cmp_row);
    for (int c = 0; c < TD_RL_NCLASSES; c++) {
        if (!cseen[c])
            continue;
        td_rl_class_row *k = &r->classes[r->nclasses++];
        k->cls = (td_rl_class)c;
        for (int s = 0; s < 2; s++) {
            k->flops[s] = cf[c][s];
            k->time_us[s] = ct[c][s];
            k->tflops[s] = ct[c][s] > 0 ? cf[c][s] / (ct[c][s] * 1e6) : NAN;
            k->efficiency_pct[s] = ct[c][s] > 0 && rt_ok[c][s] ? 100 * cr[c][s] / ct[c][s] : NAN;
        }
        k->time_change_pct = pct(k->time_us[0], k->time_us[1]);
        k->rate_change_pct = pct(k->tflops[0], k->tflops[1]);
        k->efficiency_change_pts = k->efficiency_pct[1] - k->efficiency_pct[0];
    }
    for (int s = 0; s < 2; s++) {
        rl_side *sd = &r->s[s];
        sd->top = calloc(r->nunm + 1, sizeof *sd->top);
        if (!sd->top)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < r->nunm; i++)
            if (r->unm[i].time[s] > 0)
                sd->top[n++] = (td_rl_unmodelled){r->unm[i].op, r->unm[i].time[s]};
        qsort(sd->top, n, sizeof *sd->top, cmp_unm);
        sd->cov.top = sd->top;
        sd->cov.ntop = n < ntop ? n : ntop;
    }
    return 0;
}

void td_roofline_free(td_roofline *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nacc; i++) {
        free(r->acc[i].op);
        free(r->acc[i].dims);
        free(r->acc[i].types);
    }
    free(r->acc);
    for (size_t i = 0; i < r->nunm; i++)
        free(r->unm[i].op);
    free(r->unm);
    smap_free(&r->rows);
    smap_free(&r->unms);
    free(r->out);
    for (int s = 0; s < 2; s++) {
        free(r->s[s].top);
        free(r->s[s].samp);
        free(r->s[s].device);
        for (size_t i = 0; i < r->s[s].nnotes; i++)
            free(r->s[s].notes[i]);
        free(r->s[s].notes);
    }
    free(r);
}

int td_roofline_compute(td_roofline **out, const td_set *control, const td_set *test,
                        const td_roofline_opts *opts, td_error *err)
{
    *out = NULL;
    td_roofline_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_roofline_opts, TD_ROOFLINE_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    td_roofline *r = calloc(1, sizeof *r);
    if (!r)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    r->stats = o.stats;
    const td_set *sets[2] = {control, test};
    const td_list *ranks[2] = {&o.control_ranks, &o.test_ranks};
    const td_list *iters[2] = {&o.control_iters, &o.test_iters};
    const char *gpus[2] = {o.control_gpu, o.test_gpu};
    static const char *const names[2] = {"control", "test"};
    for (int s = 0; s < 2 && rc == 0; s++)
        rc = measure_side(r, s, sets[s], ranks[s], iters[s], gpus[s], names[s], err);
    if (rc == 0)
        rc = finish(r, o.top_unmodelled ? o.top_unmodelled : 5, &o.sopts, err);
    if (rc < 0) {
        td_roofline_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

const td_rl_row *td_roofline_rows(const td_roofline *r, size_t *n)
{
    *n = r->nacc;
    return r->out;
}

const td_rl_class_row *td_roofline_classes(const td_roofline *r, size_t *n)
{
    *n = r->nclasses;
    return r->classes;
}

const td_rl_coverage *td_roofline_coverage(const td_roofline *r, td_side side)
{
    return &r->s[side].cov;
}

const td_gpu *td_roofline_gpu(const td_roofline *r, td_side side)
{
    return r->s[side].gpu;
}

const char *td_roofline_device(const td_roofline *r, td_side side)
{
    return r->s[side].device;
}

int td_roofline_op_rates(td_op_rate **out, const td_roofline *r, const td_diff *d, td_error *err)
{
    size_t nd = td_diff_nrows(d);
    double(*sum)[2][3] = calloc(nd + 1, sizeof *sum); /* flops, calls, time */
    td_op_rate *o = malloc((nd + 1) * sizeof *o);
    if (!sum || !o) {
        free(sum);
        free(o);
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    for (size_t i = 0; i < r->nacc; i++) {
        const acc *a = &r->acc[i];
        long k = td_diff_find_row(d, a->op, strlen(a->op));
        if (k < 0)
            continue;
        for (int s = 0; s < 2; s++) {
            sum[k][s][0] += a->flops[s];
            sum[k][s][1] += (double)a->count[s];
            sum[k][s][2] += a->time[s];
        }
    }
    for (size_t k = 0; k < nd; k++)
        for (int s = 0; s < 2; s++) {
            double f = sum[k][s][0], n = sum[k][s][1], t = sum[k][s][2];
            o[k].flops[s] = n > 0 ? f / n : NAN;
            o[k].tflops[s] = n > 0 && t > 0 ? f / (t * 1e6) : NAN;
        }
    free(sum);
    *out = o;
    return 0;
}

bool td_roofline_has_shapes(const td_roofline *r, td_side side)
{
    return r->s[side ? 1 : 0].shapes;
}

td_samples td_roofline_samples(const td_roofline *r)
{
    return r->stats ? r->mode : TD_SAMPLES_AUTO;
}

size_t td_roofline_side_samples(const td_roofline *r, td_side side)
{
    return r->s[side ? 1 : 0].cells;
}

const char *td_roofline_note(const td_roofline *r, td_side side, size_t i)
{
    return i < r->s[side].nnotes ? r->s[side].notes[i] : NULL;
}
