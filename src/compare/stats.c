/*
 * Statistics per row of a diff (docs/stats.md): gather samples from exactly
 * the events the diff counted (td_pick_walk), then test each row and turn
 * the p-values into q-values and verdicts.
 *
 * Samples are gathered in a fixed order (files by rank, events in file
 * order) and sorted before medians and ranks, so the numbers do not depend
 * on the thread count or on the order of files on disk.
 */
#include "compare/compare.h"
#include "compare/gsl_dl.h"
#include "model/selection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct td_stats {
    td_row_stats *rows;
    size_t nrows;
    td_samples mode;
    double alpha, min_change;
    size_t side_samples[2];
    int too_few;
};

/* What one side collects. Iteration mode: per row, per (rank, iteration)
 * sample, a compensated sum (as the diff sums). Call mode: per row, its
 * calls' durations, rows laid end to end (off[row] is where a row starts). */
typedef struct side_acc {
    size_t nsamp;
    double *sum, *comp; /* nrows * nsamp */
    double *vals;
    size_t *off, *fill;
} side_acc;

typedef struct walk {
    const td_diff *diff;
    const td_file *f;
    int short_names;
    int normalize;
    const td_renames *renames;
    td_samples mode;
    side_acc *acc;
    long *map;     /* file name id -> row, -1 unknown, -2 not looked up */
    size_t base;   /* sample index of the file's rank (iteration mode) */
    size_t niters; /* iterations per rank (1 for a whole-trace side) */
} walk;

static long row_of(walk *w, uint32_t name)
{
    long r = w->map[name];
    if (r != -2)
        return r;
    size_t len;
    const char *s = td_strtab_get(w->f->names, name, &len);
    char *key;
    size_t kl;
    if (td_name_key(&key, &kl, s, len, w->short_names, w->normalize, w->renames) < 0)
        return -3;
    r = td_diff_find_row(w->diff, key ? key : s, kl);
    free(key);
    return w->map[name] = r;
}

/* One event's duration x into row r's samples. */
static void add_sample(side_acc *a, td_samples mode, size_t r, size_t base, long iter_pos, double x)
{
    if (mode == TD_SAMPLES_CALL) {
        a->vals[a->off[r] + a->fill[r]++] = x;
        return;
    }
    size_t cell = r * a->nsamp + base + (iter_pos < 0 ? 0 : (size_t)iter_pos);
    double s = a->sum[cell], t = s + x;
    double c = fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
    if (isfinite(c))
        a->comp[cell] += c;
    a->sum[cell] = t;
}

static int take_event(void *ud, const td_event *e, long iter_pos)
{
    walk *w = ud;
    long r = row_of(w, TD_EV_NAME(e));
    if (r == -3)
        return TD_ENOMEM;
    if (r < 0 || isnan(e->dur)) /* NaN: a missing value, skipped as the diff skips it */
        return 0;
    add_sample(w->acc, w->mode, (size_t)r, w->base, iter_pos, e->dur);
    return 0;
}

/* Rows by op, top op, annotation or class (docs/stats.md, "Rows other than
 * kernels"): each selected gpu event of f keyed as the diff keyed it
 * (by_op.c), so a row's samples add up to its total. */
typedef struct attr_walk {
    const td_diff *d;
    const td_file *f;
    const td_compare_opts *o;
    const td_classes *classes;
    long *map; /* names id -> row; -2 not looked up */
    long unattr;
    td_stk_rows *stk; /* by module or stack */
} attr_walk;

static uint32_t attr_key(const td_file *f, size_t k, td_by by)
{
    if (k >= f->nattr)
        return TD_ATTR_NONE;
    return by == TD_BY_OP ? f->attr_op[k] : by == TD_BY_TOP_OP ? f->attr_top[k] : f->attr_ann[k];
}

static long attr_row(attr_walk *w, uint32_t name, size_t k)
{
    uint32_t id = w->o->by == TD_BY_CLASS ? name : attr_key(w->f, k, w->o->by);
    if (id >= TD_ATTR_REASON_BASE) {
        if (w->unattr == -2)
            w->unattr = td_diff_find_row(w->d, TD_UNATTRIBUTED, strlen(TD_UNATTRIBUTED));
        return w->unattr;
    }
    if (w->map[id] != -2)
        return w->map[id];
    size_t len, kl;
    const char *s = td_strtab_get(w->f->names, id, &len);
    if (w->o->by == TD_BY_CLASS) {
        const char *cls = td_classes_match(w->classes, s, len);
        return w->map[id] = td_diff_find_row(w->d, cls, strlen(cls));
    }
    char *key;
    if (td_name_key(&key, &kl, s, len, w->o->short_names, w->o->normalize_names, w->o->renames) < 0)
        return -3;
    long r = td_diff_find_row(w->d, key ? key : s, kl);
    free(key);
    return w->map[id] = r;
}

/* Call samples by op, top op or annotation: one per instance of the key
 * (an op call, a top op call, an annotation) that launched selected gpu
 * work, its attributed gpu time; a gpu event with no such instance (the
 * row TD_UNATTRIBUTED) is a sample of its own. */
typedef struct inst_part {
    long row;
    uint64_t inst; /* the instance, or 2^32 + event index when none */
    size_t ord;    /* file order: the sums add in it */
    double dur;
} inst_part;

static int cmp_part(const void *x, const void *y)
{
    const inst_part *a = x, *b = y;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->inst != b->inst)
        return a->inst < b->inst ? -1 : 1;
    return (a->ord > b->ord) - (a->ord < b->ord);
}

static uint64_t inst_of(const td_file *f, size_t k, td_by by, size_t i)
{
    const uint32_t *v = by == TD_BY_OP       ? f->attr_call
                        : by == TD_BY_TOP_OP ? f->attr_topc
                                             : f->attr_annc;
    uint32_t id = k < f->nattr && v ? v[k] : TD_ATTR_NONE;
    return id == TD_ATTR_NONE ? ((uint64_t)1 << 32) + i : id;
}

/* The parts summed into one sample per (row, instance). */
static void add_instances(side_acc *a, inst_part *parts, size_t n)
{
    qsort(parts, n, sizeof *parts, cmp_part);
    for (size_t i = 0; i < n;) {
        double sum = 0;
        size_t j = i;
        for (; j < n && parts[j].row == parts[i].row && parts[j].inst == parts[i].inst; j++)
            sum += parts[j].dur;
        add_sample(a, TD_SAMPLES_CALL, (size_t)parts[i].row, 0, 0, sum);
        i = j;
    }
}

static int64_t find_row(void *ud, const char *s, size_t len)
{
    return td_diff_find_row(ud, s, len);
}

/* A gpu event by module or stack: a sample (or its part) in each of its
 * rows; under no module, in the row TD_UNATTRIBUTED. Call samples are one
 * per gpu event (docs/stacks.md). */
static int stack_samples(side_acc *a, attr_walk *w, td_samples mode, size_t base, long ip,
                         uint32_t name, size_t k, double dur)
{
    const int64_t *rows;
    bool cut;
    long nr = td_stk_rows_of(w->stk, name, k, &rows, &cut);
    if (nr < 0)
        return nr;
    if (nr == 0) {
        long r = attr_row(w, name, TD_ATTR_NONE); /* k beyond nattr: unattributed */
        if (r >= 0)
            add_sample(a, mode, (size_t)r, base, ip, dur);
        return 0;
    }
    for (long j = 0; j < nr; j++)
        add_sample(a, mode, (size_t)rows[j], base, ip, dur);
    return 0;
}

static int collect_attr_file(side_acc *a, attr_walk *w, const td_pick *pick0, td_samples mode,
                             size_t base)
{
    const td_file *f = w->f;
    int erc = td_file_events(f);
    if (erc < 0)
        return erc;
    td_pick pick = *pick0;
    pick.device = TD_DEVICE_ALL; /* attribution counts every gpu-side event */
    long stack_pos[64];
    long *pos = td_pick_positions(f, &pick, stack_pos);
    if (!pos)
        return TD_ENOMEM;
    bool by_inst = mode == TD_SAMPLES_CALL && w->o->by != TD_BY_CLASS && !w->stk;
    inst_part *parts = NULL;
    size_t nparts = 0;
    if (by_inst && !(parts = malloc((f->nattr + 1) * sizeof *parts))) {
        if (pos != stack_pos)
            free(pos);
        return TD_ENOMEM;
    }
    int rc = 0;
    size_t k = 0, ck = 0;
    bool cpu = w->stk && td_cpu_stacks(w->o); /* the cpu-side events' stacks */
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        if (!(e->name & TD_EV_GPU) != cpu) {
            ck += !(e->name & TD_EV_GPU);
            continue;
        }
        size_t gk = cpu ? ck++ : k++;
        long ip;
        if (!td_pick_takes(&pick, pos, e->name, e->iter, &ip) || isnan(e->dur))
            continue;
        if (w->stk) {
            if ((rc = stack_samples(a, w, mode, base, ip, TD_EV_NAME(e), gk, e->dur)) < 0)
                break;
            continue;
        }
        long r = attr_row(w, TD_EV_NAME(e), gk);
        if (r == -3) {
            rc = TD_ENOMEM;
            break;
        }
        if (r >= 0 && by_inst && nparts < f->nattr)
            parts[nparts++] = (inst_part){r, inst_of(f, gk, w->o->by, i), i, e->dur};
        else if (r >= 0 && !by_inst)
            add_sample(a, mode, (size_t)r, base, ip, e->dur);
    }
    if (rc == 0 && by_inst)
        add_instances(a, parts, nparts);
    free(parts);
    if (pos != stack_pos)
        free(pos);
    return rc;
}

static bool has_rank(const td_side_notes *sn, int64_t rank, size_t *pos)
{
    for (size_t i = 0; i < sn->nranks; i++)
        if (sn->ranks[i] == rank) {
            *pos = i;
            return true;
        }
    return false;
}

static int collect_attr_side(side_acc *a, const td_diff *d, const td_set *s,
                             const td_side_notes *sn, const td_pick *pick, const td_compare_opts *o,
                             td_samples mode, size_t niters, td_error *err)
{
    td_classes *own = NULL;
    const td_classes *classes = o->classes;
    int rc;
    if (o->by == TD_BY_CLASS && !classes) {
        if ((rc = td_classes_default(&own, err)) < 0)
            return rc;
        classes = own;
    }
    rc = 0;
    for (size_t i = 0; i < s->nfiles && rc == 0; i++) {
        const td_file *f = s->files[i];
        size_t rp;
        if (!has_rank(sn, f->rank, &rp))
            continue;
        size_t nn = td_strtab_count(f->names);
        attr_walk w = {d, f, o, classes, malloc((nn + 1) * sizeof(long)), -2, NULL};
        if ((o->by == TD_BY_MODULE || o->by == TD_BY_STACK) &&
            td_stk_rows_new(&w.stk, NULL, find_row, (void *)d, f, o) < 0) {
            free(w.map);
            w.map = NULL;
        }
        if (!w.map) {
            rc = td_fail(err, TD_ENOMEM, f->path, "out of memory");
            break;
        }
        for (size_t k = 0; k < nn; k++)
            w.map[k] = -2;
        int wrc = collect_attr_file(a, &w, pick, mode, rp * niters);
        free(w.map);
        td_stk_rows_free(w.stk);
        if (wrc < 0)
            rc = td_events_fail(err, wrc, f);
    }
    td_classes_free(own);
    return rc;
}

static int collect_side(side_acc *a, const td_diff *d, const td_set *s, int side,
                        const td_compare_opts *o, td_samples mode, td_error *err)
{
    const td_side_notes *sn = td_diff_notes(d, side);
    const td_row *rows = td_diff_rows(d);
    size_t nrows = td_diff_nrows(d);
    size_t niters = sn->whole_trace ? 1 : sn->niters;
    a->nsamp = sn->nranks * niters;
    if (mode == TD_SAMPLES_CALL) {
        size_t total = 0;
        a->off = malloc((nrows + 1) * sizeof *a->off);
        a->fill = calloc(nrows + 1, sizeof *a->fill);
        if (!a->off || !a->fill)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
        for (size_t r = 0; r < nrows; r++) {
            a->off[r] = total;
            total += rows[r].counts[side];
        }
        if (!(a->vals = malloc((total + 1) * sizeof *a->vals)))
            return td_fail(err, TD_ENOMEM, "", "out of memory");
    } else {
        size_t cells = nrows * a->nsamp;
        a->sum = calloc(cells + 1, sizeof *a->sum);
        a->comp = calloc(cells + 1, sizeof *a->comp);
        if (!a->sum || !a->comp)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    td_pick pick = td_pick_of(sn, o);
    if (o->by != TD_BY_KERNEL)
        return collect_attr_side(a, d, s, sn, &pick, o, mode, niters, err);
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        size_t rp;
        if (!has_rank(sn, f->rank, &rp))
            continue;
        size_t nn = td_strtab_count(f->names);
        walk w = {d,
                  f,
                  o->short_names,
                  o->normalize_names,
                  o->renames,
                  mode,
                  a,
                  malloc((nn + 1) * sizeof(long)),
                  rp * niters,
                  niters};
        if (!w.map)
            return td_fail(err, TD_ENOMEM, f->path, "out of memory");
        uint64_t mask = td_cat_mask(f, o);
        for (size_t k = 0; k < nn; k++) {
            bool mixed;
            w.map[k] = td_name_kept(f, mask, (uint32_t)k, &mixed) ? -2 : -1;
        }
        int rc = td_pick_walk(f, &pick, take_event, &w);
        free(w.map);
        if (rc < 0)
            return td_events_fail(err, rc, f);
    }
    return 0;
}

static void side_free(side_acc *a)
{
    free(a->sum);
    free(a->comp);
    free(a->vals);
    free(a->off);
    free(a->fill);
}

/* Descriptive numbers of one side of a row; x sorted ascending. */
static void describe(td_row_stats *st, int side, const double *x, size_t n)
{
    st->n[side] = n;
    st->mean[side] = st->stdev[side] = st->median[side] = st->min[side] = st->max[side] = NAN;
    if (n == 0)
        return;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    st->mean[side] = x[0] == x[n - 1] ? x[0] : s / (double)n;
    if (n >= 2) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (x[i] - st->mean[side]) * (x[i] - st->mean[side]);
        st->stdev[side] = x[0] == x[n - 1] ? 0 : sqrt(ss / (double)(n - 1));
    }
    st->median[side] = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    st->min[side] = x[0];
    st->max[side] = x[n - 1];
}

/* The samples of row r on a side, into buf (sorted), or a pointer into the
 * side's own array (sorted in place). */
static const double *samples_of(side_acc *a, td_samples mode, size_t r, double *buf, size_t *n)
{
    if (mode == TD_SAMPLES_CALL) {
        double *v = a->vals + a->off[r];
        *n = a->fill[r];
        qsort(v, *n, sizeof *v, td_cmp_double);
        return v;
    }
    for (size_t k = 0; k < a->nsamp; k++)
        buf[k] = a->sum[r * a->nsamp + k] + a->comp[r * a->nsamp + k];
    *n = a->nsamp;
    /* Welch needs no order, but the median does; sorting first also makes
     * the sums independent of the order of ranks. */
    qsort(buf, *n, sizeof *buf, td_cmp_double);
    return buf;
}

static void test_row(td_row_stats *st, const uint64_t counts[2], const double *x0, size_t n0,
                     const double *x1, size_t n1, td_samples mode, double alpha)
{
    describe(st, 0, x0, n0);
    describe(st, 1, x1, n1);
    st->diff_mean = st->mean[1] - st->mean[0];
    st->change_pct = st->mean[0] != 0 ? 100 * st->diff_mean / st->mean[0] : NAN;
    st->ci_low = st->ci_high = st->hl_shift = st->shift_low = st->shift_high = st->p = st->q = NAN;
    if (counts[0] == 0 && counts[1] > 0)
        st->verdict = TD_VERDICT_ADDED;
    else if (counts[1] == 0 && counts[0] > 0)
        st->verdict = TD_VERDICT_REMOVED;
    else
        st->verdict = TD_VERDICT_NA;
    if (st->verdict == TD_VERDICT_NA && (n0 < 2 || n1 < 2))
        st->reason =
            mode == TD_SAMPLES_ITERATION ? "under 2 samples a side" : "under 2 calls a side";
    if (n0 < 2 || n1 < 2)
        return;
    td_test_result t;
    if (mode == TD_SAMPLES_ITERATION) {
        t = td_welch(x0, n0, x1, n1, alpha);
    } else {
        t = td_mann_whitney(x0, n0, x1, n1);
        td_test_result hl = td_hodges_lehmann(x0, n0, x1, n1, alpha);
        st->hl_shift = hl.stat;
        st->shift_low = hl.ci_low;
        st->shift_high = hl.ci_high;
        t.ci_low = t.ci_high = NAN; /* one interval, of the statistic shown: the shift */
    }
    st->p = t.p;
    st->ci_low = t.ci_low;
    st->ci_high = t.ci_high;
}

static void judge(td_row_stats *st, double alpha, double min_change)
{
    if (st->verdict == TD_VERDICT_ADDED || st->verdict == TD_VERDICT_REMOVED)
        return;
    if (isnan(st->p)) {
        st->verdict = TD_VERDICT_NA;
        return;
    }
    /* A control mean of 0 makes any change infinitely large. */
    double ch = isnan(st->change_pct) ? (st->diff_mean > 0   ? INFINITY
                                         : st->diff_mean < 0 ? -INFINITY
                                                             : 0)
                                      : st->change_pct;
    if (st->q <= alpha && ch >= min_change && ch > 0)
        st->verdict = TD_VERDICT_SLOWER;
    else if (st->q <= alpha && ch <= -min_change && ch < 0)
        st->verdict = TD_VERDICT_FASTER;
    else
        st->verdict = TD_VERDICT_NOISE;
}

/* Short: a CSV cell (docs/stats.md explains it). */
#define NO_CALLS_REASON "no op calls in a summary"

static bool calls_kept(const td_set *const sets[2], td_by by)
{
    if (by != TD_BY_OP && by != TD_BY_TOP_OP && by != TD_BY_ANNOTATION)
        return true;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sets[s]->nfiles; i++)
            if (!sets[s]->files[i]->attr_call)
                return false;
    return true;
}

td_samples td_stats_mode(const td_stats_opts *so, const size_t side_samples[2])
{
    if (so->samples == TD_SAMPLES_ITERATION || so->samples == TD_SAMPLES_CALL)
        return so->samples;
    return side_samples[0] >= 3 && side_samples[1] >= 3 ? TD_SAMPLES_ITERATION : TD_SAMPLES_CALL;
}

/* Each row's test from its samples; p[r] its p-value. */
static void test_rows(td_stats *st, const td_row *rows, side_acc acc[2], double *buf[2],
                      bool no_calls, double *p)
{
    for (size_t r = 0; r < st->nrows; r++) {
        size_t n0 = 0, n1 = 0;
        const double *x0 = buf[0], *x1 = buf[1];
        if (!no_calls) {
            x0 = samples_of(&acc[0], st->mode, r, buf[0], &n0);
            x1 = samples_of(&acc[1], st->mode, r, buf[1], &n1);
        }
        test_row(&st->rows[r], rows[r].counts, x0, n0, x1, n1, st->mode, st->alpha);
        if (no_calls && st->rows[r].verdict == TD_VERDICT_NA)
            st->rows[r].reason = NO_CALLS_REASON;
        p[r] = st->rows[r].p;
    }
}

static int check_opts(const td_stats_opts *so, td_error *err)
{
    if (so->alpha < 0 || so->alpha >= 1 || isnan(so->alpha))
        return td_fail(err, TD_EUSAGE, "", "alpha %g: expected a number above 0 and below 1",
                       so->alpha);
    if (so->has_min_change && !(so->min_change >= 0))
        return td_fail(err, TD_EUSAGE, "", "min-change %g%%: expected 0 or more", so->min_change);
    return td_gsl_load(err);
}

int td_stats_judge(td_row_stats *out, size_t nrows, const td_stats_input *in, td_samples mode,
                   const td_stats_opts *so, td_error *err)
{
    int rc = check_opts(so, err);
    if (rc < 0)
        return rc;
    double alpha = so->alpha > 0 ? so->alpha : 0.05;
    double min_change = so->has_min_change ? so->min_change : 1.0;
    double *p = malloc((nrows + 1) * sizeof *p), *q = malloc((nrows + 1) * sizeof *q);
    if (!p || !q) {
        free(p);
        free(q);
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    for (size_t r = 0; r < nrows; r++) {
        uint64_t counts[2] = {in->count[0][r], in->count[1][r]};
        test_row(&out[r], counts, in->x[0][r], in->n[0][r], in->x[1][r], in->n[1][r], mode, alpha);
        p[r] = out[r].p;
    }
    rc = td_bh_qvalues(q, p, nrows);
    for (size_t r = 0; rc == 0 && r < nrows; r++) {
        out[r].q = q[r];
        judge(&out[r], alpha, min_change);
    }
    free(p);
    free(q);
    return rc < 0 ? td_fail(err, TD_ENOMEM, "", "out of memory") : 0;
}

int td_stats_compute(td_stats **out, const td_diff *d, const td_set *control, const td_set *test,
                     const td_compare_opts *opts, const td_stats_opts *sopts, td_error *err)
{
    *out = NULL;
    td_compare_opts oc;
    td_stats_opts sc;
    int rc = TD_OPTS_TAKE(&oc, opts, td_compare_opts, TD_COMPARE_OPTS_INIT, err);
    if (rc < 0 || (rc = TD_OPTS_TAKE(&sc, sopts, td_stats_opts, TD_STATS_OPTS_INIT, err)) < 0)
        return rc;
    oc.by = td_diff_by_of(d); /* by module falls back to top op without modules */
    opts = &oc;
    sopts = &sc;
    if ((rc = check_opts(sopts, err)) < 0)
        return rc;
    td_stats *st = calloc(1, sizeof *st);
    side_acc acc[2] = {{0}, {0}};
    double *buf[2] = {NULL, NULL}, *p = NULL, *q = NULL;
    rc = TD_ENOMEM;
    if (!st)
        goto nomem;
    st->alpha = sopts->alpha > 0 ? sopts->alpha : 0.05;
    st->min_change = sopts->has_min_change ? sopts->min_change : 1.0;
    for (int s = 0; s < 2; s++) {
        const td_side_notes *sn = td_diff_notes(d, s);
        st->side_samples[s] = sn->nranks * (sn->whole_trace ? 1 : sn->niters);
    }
    st->mode = td_stats_mode(sopts, st->side_samples);
    const td_set *sets[2] = {control, test};
    st->too_few =
        st->mode == TD_SAMPLES_ITERATION && (st->side_samples[0] < 2 || st->side_samples[1] < 2);
    /* A summary keeps each kernel's op, not which call of it: no call
     * samples by op, top op or annotation from one (each row says so). */
    bool no_calls = st->mode == TD_SAMPLES_CALL && !calls_kept(sets, opts->by);
    for (int s = 0; s < 2 && !no_calls; s++)
        if ((rc = collect_side(&acc[s], d, sets[s], s, opts, st->mode, err)) < 0)
            goto fail;
    size_t n = st->nrows = td_diff_nrows(d);
    const td_row *rows = td_diff_rows(d);
    st->rows = calloc(n + 1, sizeof *st->rows);
    buf[0] = malloc((acc[0].nsamp + 1) * sizeof(double));
    buf[1] = malloc((acc[1].nsamp + 1) * sizeof(double));
    p = malloc((n + 1) * sizeof *p);
    q = malloc((n + 1) * sizeof *q);
    if (!st->rows || !buf[0] || !buf[1] || !p || !q)
        goto nomem;
    test_rows(st, rows, acc, buf, no_calls, p);
    if (td_bh_qvalues(q, p, n) < 0)
        goto nomem;
    for (size_t r = 0; r < n; r++) {
        st->rows[r].q = q[r];
        judge(&st->rows[r], st->alpha, st->min_change);
    }
    rc = 0;
    *out = st;
    st = NULL;
    goto done;
nomem:
    rc = td_fail(err, TD_ENOMEM, "", "out of memory");
fail:
    td_stats_free(st);
done:
    side_free(&acc[0]);
    side_free(&acc[1]);
    free(buf[0]);
    free(buf[1]);
    free(p);
    free(q);
    return rc;
}

int td_stats_from_samples(td_stats **out, size_t nrows, double *const x[2], const size_t nsamp[2],
                          const uint64_t *const counts[2], const td_stats_opts *sopts,
                          td_error *err)
{
    *out = NULL;
    td_stats_opts sc;
    int rc = TD_OPTS_TAKE(&sc, sopts, td_stats_opts, TD_STATS_OPTS_INIT, err);
    if (rc < 0 || (rc = check_opts(&sc, err)) < 0)
        return rc;
    if (sc.samples == TD_SAMPLES_CALL)
        return td_fail(err, TD_EUSAGE, "",
                       "call samples: these rows have one sample per (rank, iteration), "
                       "never per call (leave --samples out, or use iteration)");
    td_stats *st = calloc(1, sizeof *st);
    double *p = malloc((nrows + 1) * sizeof *p), *q = malloc((nrows + 1) * sizeof *q);
    double *buf[2] = {malloc((nsamp[0] + 1) * sizeof(double)),
                      malloc((nsamp[1] + 1) * sizeof(double))};
    if (!st || !p || !q || !buf[0] || !buf[1] || !(st->rows = calloc(nrows + 1, sizeof *st->rows)))
        goto nomem;
    st->nrows = nrows;
    st->mode = TD_SAMPLES_ITERATION;
    st->alpha = sc.alpha > 0 ? sc.alpha : 0.05;
    st->min_change = sc.has_min_change ? sc.min_change : 1.0;
    st->side_samples[0] = nsamp[0];
    st->side_samples[1] = nsamp[1];
    st->too_few = nsamp[0] < 2 || nsamp[1] < 2;
    for (size_t r = 0; r < nrows; r++) {
        for (int sd = 0; sd < 2; sd++) {
            memcpy(buf[sd], x[sd] + r * nsamp[sd], nsamp[sd] * sizeof(double));
            qsort(buf[sd], nsamp[sd], sizeof(double), td_cmp_double);
        }
        const uint64_t c[2] = {counts[0][r], counts[1][r]};
        test_row(&st->rows[r], c, buf[0], nsamp[0], buf[1], nsamp[1], st->mode, st->alpha);
        p[r] = st->rows[r].p;
    }
    if (td_bh_qvalues(q, p, nrows) < 0)
        goto nomem;
    for (size_t r = 0; r < nrows; r++) {
        st->rows[r].q = q[r];
        judge(&st->rows[r], st->alpha, st->min_change);
    }
    *out = st;
    st = NULL;
    rc = 0;
    goto done;
nomem:
    rc = td_fail(err, TD_ENOMEM, "", "out of memory");
done:
    td_stats_free(st);
    free(p);
    free(q);
    free(buf[0]);
    free(buf[1]);
    return rc;
}

void td_stats_free(td_stats *st)
{
    if (!st)
        return;
    free(st->rows);
    free(st);
}

const td_row_stats *td_stats_rows(const td_stats *st)
{
    return st->rows;
}

td_samples td_stats_samples(const td_stats *st)
{
    return st->mode;
}

double td_stats_alpha(const td_stats *st)
{
    return st->alpha;
}

double td_stats_min_change(const td_stats *st)
{
    return st->min_change;
}

size_t td_stats_side_samples(const td_stats *st, td_side side)
{
    return st->side_samples[side ? 1 : 0];
}

bool td_stats_too_few(const td_stats *st)
{
    return st->too_few;
}

const char *td_verdict_name(td_verdict v)
{
    static const char *const names[] = {"n/a", "noise", "slower", "faster", "added", "removed"};
    return v >= 0 && v <= TD_VERDICT_REMOVED ? names[v] : "n/a";
}

const char *td_samples_name(td_samples s)
{
    return s == TD_SAMPLES_ITERATION ? "iteration" : s == TD_SAMPLES_CALL ? "call" : "auto";
}
