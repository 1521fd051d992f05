/*
 * The CI gate of tracediff check (docs/stats.md, "check"): which names got
 * significantly slower. Computed once here, so that the CLI and the Python
 * module report the same regressions in the same order.
 */
#include "compare/compare.h"
#include "model/selection.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct td_check {
    const td_diff *diff;
    const td_stats *stats;
    double max_regression, min_us;
    size_t *names; /* rows compared (control total >= min_us, or new), by name */
    size_t nnames;
    size_t *regs; /* regressions among them, most significant first */
    size_t nregs;
    size_t nfaster;
    size_t *waits; /* waits compared apart (not gate_waits), by name */
    size_t nwaits, nwait_regs;
    bool *failed, *is_new; /* per row */
    bool one_run;
    bool waits_unmeasured; /* some file keeps no op timing (a summary) */
    bool folded;           /* names folded (td_compare_opts.normalize_names) */
    td_check_step step;
};

static bool is_step_row(const td_row *r)
{
    return r->name_len >= 12 && memcmp(r->name, "ProfilerStep", 12) == 0;
}

static bool is_slower(const td_check *c, const td_row *row, const td_row_stats *rs)
{
    if (rs->verdict != TD_VERDICT_SLOWER)
        return false;
    /* A control mean of 0 is an infinite change. */
    if (!(isnan(rs->change_pct) || rs->change_pct >= c->max_regression))
        return false;
    if (!c->one_run)
        return true;
    /* One run a side: the calls' shift alone may be that run's noise. */
    double d0 = row->duration[0], d1 = row->duration[1];
    return d0 > 0 ? 100 * (d1 - d0) / d0 >= c->max_regression : d1 > 0;
}

static bool is_new(const td_check *c, const td_row *row)
{
    return row->counts[0] == 0 && row->counts[1] > 0 && row->duration[1] > 0 &&
           row->duration[1] >= c->min_us && !is_step_row(row);
}

/* Regressions by q (smallest first), then by change (largest first), then
 * by row: a total order, so the result does not depend on qsort. New names
 * (no q) come last, the largest total first. */
typedef struct reg_key {
    double q, change;
    size_t row;
} reg_key;

static int by_q(const void *a, const void *b)
{
    const reg_key *x = a, *y = b;
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    if (x->change != y->change)
        return x->change > y->change ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int sort_regressions(td_check *c)
{
    const td_row_stats *rs = td_stats_rows(c->stats);
    const td_row *rows = td_diff_rows(c->diff);
    reg_key *k = malloc((c->nregs + 1) * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < c->nregs; i++) {
        size_t r = c->regs[i];
        k[i] = c->is_new[r] ? (reg_key){2, rows[r].duration[1], r}
                            : (reg_key){isnan(rs[r].q) ? 1 : rs[r].q,
                                        isnan(rs[r].change_pct) ? INFINITY : rs[r].change_pct, r};
    }
    qsort(k, c->nregs, sizeof *k, by_q);
    for (size_t i = 0; i < c->nregs; i++)
        c->regs[i] = k[i].row;
    free(k);
    return 0;
}

/* ---- Waits: which rows are time the CPU spent waiting for the device ---- */

typedef struct wait_acc {
    bool *sync;      /* per row: a synchronize call */
    double *in, *of; /* per row and side: [2 * row + side] */
} wait_acc;

static int wait_side(wait_acc *w, const td_diff *d, const td_set *s, int side,
                     const td_compare_opts *o)
{
    for (size_t i = 0; s && i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        size_t nn = td_strtab_count(f->names);
        for (size_t k = 0; k < nn; k++) {
            size_t len, kl;
            const char *name = td_strtab_get(f->names, (uint32_t)k, &len);
            bool sync = td_is_sync_name(name, len);
            bool measured = f->wait_in && k < f->nwait && f->wait_of[k] > 0;
            if (!sync && !measured)
                continue;
            char *key;
            if (td_name_key(&key, &kl, name, len, o->short_names, o->normalize_names, o->renames) <
                0)
                return TD_ENOMEM;
            long r = td_diff_find_row(d, key ? key : name, kl);
            free(key);
            if (r < 0)
                continue;
            w->sync[r] = w->sync[r] || sync;
            if (measured) {
                w->in[2 * r + side] += f->wait_in[k];
                w->of[2 * r + side] += f->wait_of[k];
            }
        }
    }
    return 0;
}

/* is_wait[row]: a synchronize call, or an op at least 80% of whose time
 * (on either side) is inside waits. Only for rows of event names. */
static int find_wait_rows(bool *is_wait, const td_diff *d, const td_check_opts *oc)
{
    size_t n = td_diff_nrows(d);
    td_compare_opts dflt = TD_COMPARE_OPTS_INIT;
    const td_compare_opts *o = oc->compare ? oc->compare : &dflt;
    if (o->by != TD_BY_KERNEL)
        return 0;
    wait_acc w = {calloc(n + 1, sizeof *w.sync), calloc(2 * n + 2, sizeof *w.in),
                  calloc(2 * n + 2, sizeof *w.of)};
    int rc = TD_ENOMEM;
    if (!w.sync || !w.in || !w.of)
        goto done;
    if (!oc->control && !oc->test) { /* no sets: synchronize calls by name */
        const td_row *rows = td_diff_rows(d);
        for (size_t r = 0; r < n; r++)
            is_wait[r] = td_is_sync_name(rows[r].name, rows[r].name_len);
        rc = 0;
        goto done;
    }
    if ((rc = wait_side(&w, d, oc->control, 0, o)) < 0 ||
        (rc = wait_side(&w, d, oc->test, 1, o)) < 0)
        goto done;
    for (size_t r = 0; r < n; r++) {
        bool mostly = false;
        for (int s = 0; s < 2; s++)
            mostly = mostly || (w.of[2 * r + s] > 0 && w.in[2 * r + s] >= 0.8 * w.of[2 * r + s]);
        is_wait[r] = w.sync[r] || mostly;
    }
    rc = 0;
done:
    free(w.sync);
    free(w.in);
    free(w.of);
    return rc;
}

/* Whether every file of both sets had its ops' waits measured. */
static bool waits_measured(const td_check_opts *oc)
{
    td_compare_opts dflt = TD_COMPARE_OPTS_INIT;
    const td_compare_opts *o = oc->compare ? oc->compare : &dflt;
    if (o->by != TD_BY_KERNEL)
        return true; /* nothing is a wait */
    if (!oc->control || !oc->test)
        return false;
    const td_set *sets[2] = {oc->control, oc->test};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sets[s]->nfiles; i++)
            if (!sets[s]->files[i]->wait_in)
                return false;
    return true;
}

/* ---- The step gate ---- */

typedef struct step_walk {
    const td_file *f;
    double *step, *gpu; /* per sample */
    size_t base;
    bool any_step;
} step_walk;

static int take_step(void *ud, const td_event *e, long iter_pos)
{
    step_walk *w = ud;
    if (isnan(e->dur))
        return 0;
    size_t cell = w->base + (iter_pos < 0 ? 0 : (size_t)iter_pos);
    if (e->name & TD_EV_GPU) {
        w->gpu[cell] += e->dur;
        return 0;
    }
    size_t len;
    const char *s = td_strtab_get(w->f->names, TD_EV_NAME(e), &len);
    int64_t num;
    if (td_step_number(s, len, &num)) {
        w->step[cell] += e->dur;
        w->any_step = true;
    }
    return 0;
}

/* A side without ProfilerStep: its step time is the span of each rank's
 * files (the first start to the last end); false when a file has none. */
static bool span_steps(const td_set *s, const td_side_notes *sn, double *step)
{
    for (size_t k = 0; k < sn->nranks; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < s->nfiles; i++) {
            const td_file *f = s->files[i];
            if (f->rank != sn->ranks[k])
                continue;
            if (!f->has_span)
                return false;
            lo = f->span_lo < lo ? f->span_lo : lo;
            hi = f->span_hi > hi ? f->span_hi : hi;
        }
        if (!(hi >= lo))
            return false;
        step[k] = hi - lo;
    }
    return true;
}

static int step_side(const td_diff *d, const td_set *s, int side, const td_compare_opts *o,
                     double **step, double **gpu, size_t *n, bool *any_step, bool *span,
                     td_error *err)
{
    const td_side_notes *sn = td_diff_notes(d, side);
    size_t niters = sn->whole_trace ? 1 : sn->niters;
    *n = sn->nranks * niters;
    *step = calloc(*n + 1, sizeof **step);
    *gpu = calloc(*n + 1, sizeof **gpu);
    if (!*step || !*gpu)
        return td_fail(err, TD_ENOMEM, NULL, "out of memory");
    td_pick pick = td_pick_of(sn, o);
    pick.device = TD_DEVICE_ALL;
    *any_step = false;
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        size_t rp = SIZE_MAX;
        for (size_t k = 0; k < sn->nranks; k++)
            if (sn->ranks[k] == f->rank)
                rp = k;
        if (rp == SIZE_MAX)
            continue;
        step_walk w = {f, *step, *gpu, rp * niters, false};
        int rc = td_pick_walk(f, &pick, take_step, &w);
        if (rc < 0)
            return td_events_fail(err, rc, f);
        *any_step = *any_step || w.any_step;
    }
    *span = false;
    if (sn->whole_trace && !*any_step)
        *any_step = *span = span_steps(s, sn, *step);
    return 0;
}

static double mean_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return n ? s / (double)n : NAN;
}

/* One measure's verdict: grew by more than max percent (and, with enough
 * samples, significantly). */
static bool step_judge(const double *x0, size_t n0, const double *x1, size_t n1, double alpha,
                       double max, double *mean0, double *mean1, double *change, double *p)
{
    *mean0 = mean_of(x0, n0);
    *mean1 = mean_of(x1, n1);
    *change = *mean0 > 0 ? 100 * (*mean1 - *mean0) / *mean0 : NAN;
    *p = NAN;
    if (n0 >= 3 && n1 >= 3)
        *p = td_welch(x0, n0, x1, n1, alpha).p;
    if (!(*change > max))
        return false;
    return isnan(*p) ? !(n0 >= 3 && n1 >= 3) : *p <= alpha;
}

static int step_gate(td_check *c, const td_check_opts *oc, td_error *err)
{
    td_check_step *st = &c->step;
    *st = (td_check_step){.asked = true};
    if (!oc->control || !oc->test)
        return td_fail(err, TD_EUSAGE, NULL, "max_step_regression needs the sets (control, test)");
    td_compare_opts dflt = TD_COMPARE_OPTS_INIT;
    const td_compare_opts *o = oc->compare ? oc->compare : &dflt;
    double *step[2] = {NULL, NULL}, *gpu[2] = {NULL, NULL};
    bool any[2];
    int rc = step_side(c->diff, oc->control, 0, o, &step[0], &gpu[0], &st->n[0], &any[0],
                       &st->span[0], err);
    if (rc == 0)
        rc = step_side(c->diff, oc->test, 1, o, &step[1], &gpu[1], &st->n[1], &any[1], &st->span[1],
                       err);
    if (rc == 0) {
        double alpha = td_stats_alpha(c->stats), max = oc->max_step_regression;
        if (any[0] && any[1])
            st->step_failed =
                step_judge(step[0], st->n[0], step[1], st->n[1], alpha, max, &st->step_mean[0],
                           &st->step_mean[1], &st->step_change_pct, &st->step_p);
        else
            st->step_mean[0] = st->step_mean[1] = st->step_change_pct = st->step_p = NAN;
        st->gpu_failed =
            step_judge(gpu[0], st->n[0], gpu[1], st->n[1], alpha, max, &st->gpu_mean[0],
                       &st->gpu_mean[1], &st->gpu_change_pct, &st->gpu_p);
    }
    for (int s = 0; s < 2; s++) {
        free(step[s]);
        free(gpu[s]);
    }
    return rc;
}

static bool takes_row(const td_check_opts *oc, const bool *in_view, size_t r)
{
    return !oc->rows || in_view[r];
}

/* Each row of the diff: compared or not, a wait or not, failed or not. */
static void classify_rows(td_check *c, const td_check_opts *oc, const bool *wait,
                          const bool *in_view)
{
    size_t n = td_diff_nrows(c->diff);
    double min_us = c->min_us;
    const td_row *rows = td_diff_rows(c->diff);
    const td_row_stats *rs = td_stats_rows(c->stats);
    for (size_t r = 0; r < n; r++) {
        if (!takes_row(oc, in_view, r))
            continue;
        bool fresh = is_new(c, &rows[r]);
        if (rows[r].duration[0] < min_us && !fresh)
            continue;
        if (rows[r].counts[0] == 0 && rows[r].counts[1] > 0 && !fresh)
            continue; /* only in test, under min_us or no time: nothing to compare */
        c->is_new[r] = fresh;
        bool failed = fresh ? !oc->allow_new : is_slower(c, &rows[r], &rs[r]);
        if (wait[r]) {
            c->waits[c->nwaits++] = r;
            c->nwait_regs += failed;
            c->failed[r] = failed;
            continue;
        }
        c->names[c->nnames++] = r;
        if (failed) {
            c->regs[c->nregs++] = r;
            c->failed[r] = true;
        } else if (rs[r].verdict == TD_VERDICT_FASTER) {
            c->nfaster++;
        }
    }
}

int td_check_compute(td_check **out, const td_diff *diff, const td_stats *stats,
                     const td_check_opts *opts, td_error *err)
{
    *out = NULL;
    if (!diff || !stats)
        return td_fail(err, TD_EUSAGE, NULL, "check needs a diff and its statistics");
    td_check_opts oc;
    int rc = TD_OPTS_TAKE(&oc, opts, td_check_opts, TD_CHECK_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    double maxr = oc.has_max_regression ? oc.max_regression : 5;
    double min_us = oc.min_us;
    if (!(maxr >= 0) || !(min_us >= 0))
        return td_fail(err, TD_EUSAGE, NULL,
                       "max_regression and min_us must be numbers of 0 or more");
    if (oc.has_max_step_regression && !(oc.max_step_regression >= 0))
        return td_fail(err, TD_EUSAGE, NULL, "max_step_regression must be a number of 0 or more");
    size_t n = td_diff_nrows(diff);
    td_check *c = calloc(1, sizeof *c);
    bool *wait = calloc(n + 1, sizeof *wait), *in_view = calloc(n + 1, sizeof *in_view);
    if (c) {
        c->names = malloc((n + 1) * sizeof *c->names);
        c->regs = malloc((n + 1) * sizeof *c->regs);
        c->waits = malloc((n + 1) * sizeof *c->waits);
        c->failed = calloc(n + 1, sizeof *c->failed);
        c->is_new = calloc(n + 1, sizeof *c->is_new);
    }
    rc = TD_ENOMEM;
    if (!c || !c->names || !c->regs || !c->waits || !c->failed || !c->is_new || !wait || !in_view)
        goto fail;
    c->diff = diff;
    c->stats = stats;
    c->max_regression = maxr;
    c->min_us = min_us;
    c->folded = oc.compare && oc.compare->normalize_names;
    c->one_run = td_stats_samples(stats) == TD_SAMPLES_CALL &&
                 (td_stats_side_samples(stats, TD_CONTROL) <= 1 ||
                  td_stats_side_samples(stats, TD_TEST) <= 1);
    for (size_t k = 0; oc.rows && k < oc.nrows; k++)
        if (oc.rows[k] < n)
            in_view[oc.rows[k]] = true;
    if (!oc.gate_waits && (rc = find_wait_rows(wait, diff, &oc)) < 0)
        goto fail;
    c->waits_unmeasured = !oc.gate_waits && !waits_measured(&oc);
    classify_rows(c, &oc, wait, in_view);
    rc = TD_ENOMEM;
    if (sort_regressions(c) < 0)
        goto fail;
    if (oc.has_max_step_regression && (rc = step_gate(c, &oc, err)) < 0)
        goto fail_err;
    free(wait);
    free(in_view);
    *out = c;
    return 0;
fail:
    td_fail(err, TD_ENOMEM, NULL, "out of memory");
fail_err:
    free(wait);
    free(in_view);
    td_check_free(c);
    return rc;
}

void td_check_free(td_check *c)
{
    if (!c)
        return;
    free(c->names);
    free(c->regs);
    free(c->waits);
    free(c->failed);
    free(c->is_new);
    free(c);
}

bool td_check_names_folded(const td_check *c)
{
    return c->folded;
}

int td_check_passed(const td_check *c)
{
    return c->nregs == 0 && !c->step.step_failed && !c->step.gpu_failed;
}

const td_diff *td_check_diff(const td_check *c)
{
    return c->diff;
}

const td_stats *td_check_stats(const td_check *c)
{
    return c->stats;
}

double td_check_max_regression(const td_check *c)
{
    return c->max_regression;
}

double td_check_min_us(const td_check *c)
{
    return c->min_us;
}

size_t td_check_compared(const td_check *c, const size_t **rows)
{
    if (rows)
        *rows = c->names;
    return c->nnames;
}

size_t td_check_regressions(const td_check *c, const size_t **rows)
{
    if (rows)
        *rows = c->regs;
    return c->nregs;
}

size_t td_check_nfaster(const td_check *c)
{
    return c->nfaster;
}

size_t td_check_waits(const td_check *c, const size_t **rows)
{
    if (rows)
        *rows = c->waits;
    return c->nwaits;
}

size_t td_check_wait_regressions(const td_check *c)
{
    return c->nwait_regs;
}

bool td_check_row_failed(const td_check *c, size_t row)
{
    return row < td_diff_nrows(c->diff) && c->failed[row];
}

bool td_check_row_new(const td_check *c, size_t row)
{
    return row < td_diff_nrows(c->diff) && c->is_new[row];
}

bool td_check_one_run(const td_check *c)
{
    return c->one_run;
}

const td_check_step *td_check_step_result(const td_check *c)
{
    return c->step.asked ? &c->step : NULL;
}

bool td_check_waits_by_name(const td_check *c)
{
    return c->waits_unmeasured;
}
