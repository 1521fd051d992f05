/*
 * Where the step time went (docs/breakdown.md): per bd_side, per selected
 * rank, the breakdown's numbers over the rank's selection (or HTA's scope),
 * one sample per (rank, iteration) for the statistics; then the diff of the
 * sides' means and the waterfall from control's step to test's.
 */
#include "compare/breakdown_measure.h"
#include "model/selection.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One (rank, iteration) sample. */
typedef struct sample {
    double m[TD_BD_NMETRICS];
} sample;

typedef struct bd_side {
    td_bd_rank *ranks;
    td_bd_stream **streams; /* per rank, owned */
    size_t nranks;
    sample *samples;
    size_t nsamples, samplecap;
    char **notes;
    size_t nnotes;
    bool has_gpu;
} bd_side;

/* The rows of the diff: the metrics, the overlap, the labels, the causes. */
#define NLABEL_ROWS 7
#define NCAUSE_ROWS 3
#define NROWS (TD_BD_NMETRICS + 1 + NLABEL_ROWS + NCAUSE_ROWS)
#define NBARS 7

struct td_breakdown {
    bd_side s[2];
    td_bd_row rows[NROWS];
    size_t nrows;
    td_bd_bar bars[NBARS];
};

static const char *const metric_names[TD_BD_NMETRICS] = {
    "step_us",           "kernel_time_us",    "busy_us",
    "idle_us",           "compute_us",        "non_compute_us",
    "exposed_comm_us",   "exposed_memory_us", "exposed_other_us",
    "idle_host_wait_us", "idle_other_us",     "cpu_overhead_not_hidden_us",
    "sync_wait_us",      "comm_us",           "comm_comp_overlap_us"};

const char *td_bd_metric_name(td_bd_metric m)
{
    return (unsigned)m < TD_BD_NMETRICS ? metric_names[m] : NULL;
}

const char *td_bd_label_name(unsigned bits)
{
    static const char *const names[TD_BD_NLABELS] = {
        NULL,
        "COMPUTATION",
        "COMMUNICATION",
        "COMPUTATION overlapping COMMUNICATION",
        "MEMORY",
        "COMPUTATION overlapping MEMORY",
        "COMMUNICATION overlapping MEMORY",
        "COMPUTATION overlapping COMMUNICATION overlapping MEMORY"};
    return bits < TD_BD_NLABELS ? names[bits] : NULL;
}

static int note(bd_side *sd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(bd_side *sd, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < sd->nnotes; i++)
        if (strcmp(sd->notes[i], buf) == 0)
            return 0;
    char **nn = realloc(sd->notes, (sd->nnotes + 2) * sizeof *nn);
    if (!nn)
        return -1;
    sd->notes = nn;
    if (!(nn[sd->nnotes] = strdup(buf)))
        return -1;
    nn[++sd->nnotes] = NULL;
    return 0;
}

/* What a bd_side selects. */
typedef struct sel {
    bool whole, hta;
    int64_t *ranks, *iters;
    size_t nranks, niters;
    bool hta_cut; /* hta: the set has >= 2 steps: the last is dropped */
} sel;

static int resolve_side(sel *sl, const td_set *s, const td_list *ranks, const td_list *iters,
                        bool hta, const char *name, td_error *err)
{
    memset(sl, 0, sizeof *sl);
    td_list every = {true, false, 0, NULL}, steady = {false, true, 0, NULL};
    bool rank_default = !ranks->all && ranks->n == 0;
    int rc = td_resolve(&sl->ranks, &sl->nranks, rank_default ? &every : ranks, s->ranks, s->nranks,
                        "rank", name, err);
    if (rc < 0)
        return rc;
    sl->hta = hta;
    sl->hta_cut = hta && s->niters >= 2;
    bool iter_default = !iters->all && !iters->steady && iters->n == 0;
    sl->whole = !hta && (s->niters == 0 || (iter_default && s->niters < 2));
    if (hta || sl->whole)
        return 0;
    return td_resolve(&sl->iters, &sl->niters, iter_default ? &steady : iters, s->iters, s->niters,
                      "iteration", name, err);
}

/* A file's step of number n: the first start and last end of its host
 * events of that number; false when it has none. */
static bool step_of(const td_bd_file *bd, int64_t n, double *start, double *end)
{
    bool found = false;
    for (size_t i = 0; i < bd->nsteps; i++) {
        if (bd->steps[i].n != n || isnan(bd->steps[i].start) || isnan(bd->steps[i].end))
            continue;
        *start = found && *start < bd->steps[i].start ? *start : bd->steps[i].start;
        *end = found && *end > bd->steps[i].end ? *end : bd->steps[i].end;
        found = true;
    }
    return found;
}

/* HTA's cut: the start of the file's last host step, or INFINITY. */
static double cut_of(const td_bd_file *bd)
{
    double cut = -INFINITY;
    for (size_t i = 0; i < bd->nsteps; i++)
        cut = bd->steps[i].start > cut ? bd->steps[i].start : cut;
    return cut == -INFINITY ? INFINITY : cut;
}

static bool hta_keeps(const td_bd_ev *e, double cut)
{
    return (e->flags & TD_BDF_GPUDEF) ? e->launch < cut : e->ts < cut;
}

static double sync_within(const td_bd_file *bd, double lo, double hi)
{
    double t = 0;
    for (size_t i = 0; i < bd->nsync; i++)
        if (bd->sync[i].ts >= lo && bd->sync[i].ts < hi)
            t += bd->sync[i].end - bd->sync[i].ts;
    return t;
}

static void finish_numbers(double *m, double step, double sync)
{
    m[TD_BD_STEP] = step;
    m[TD_BD_SYNC_WAIT] = sync;
    m[TD_BD_OUTSIDE_GPU] = step - m[TD_BD_KERNEL_TIME];
}

static int add_sample(bd_side *sd, const td_bd_rank *r)
{
    sample *ns = td_grow(sd->samples, &sd->samplecap, sd->nsamples + 1, sizeof *ns);
    if (!ns)
        return -1;
    sd->samples = ns;
    memcpy(ns[sd->nsamples++].m, r->m, sizeof r->m);
    return 0;
}

/* The per-iteration samples of one file: each selected iteration's records. */
static int iteration_samples(bd_side *sd, const td_file *f, const sel *sl, const td_bd_ev **buf)
{
    const td_bd_file *bd = f->bd;
    for (size_t k = 0; k < sl->niters; k++) {
        double start, end;
        if (!step_of(bd, sl->iters[k], &start, &end))
            continue;
        size_t n = 0;
        for (size_t i = 0; i < bd->nev; i++) {
            int32_t it = bd->ev[i].iter;
            if (it >= 0 && (size_t)it < f->niters && f->iters[it] == sl->iters[k])
                buf[n++] = &bd->ev[i];
        }
        td_bd_rank r = {0};
        if (td_bd_measure(buf, n, &r, NULL, NULL) < 0)
            return -1;
        finish_numbers(r.m, end - start, sync_within(bd, start, end));
        if (add_sample(sd, &r) < 0)
            return -1;
    }
    return 0;
}

static bool iter_selected(const td_file *f, const sel *sl, int32_t it)
{
    if (it < 0 || (size_t)it >= f->niters)
        return false;
    for (size_t k = 0; k < sl->niters; k++)
        if (sl->iters[k] == f->iters[it])
            return true;
    return false;
}

/* The rank's records, step and synchronize time over its selection. */
static size_t select_rank(const td_file *f, const sel *sl, const td_bd_ev **buf, double *step,
                          double *sync, size_t *niters)
{
    const td_bd_file *bd = f->bd;
    double span = bd->span_hi > bd->span_lo ? bd->span_hi - bd->span_lo : 0;
    size_t n = 0;
    if (sl->whole || sl->hta) {
        double cut = sl->hta_cut ? cut_of(bd) : INFINITY;
        for (size_t i = 0; i < bd->nev; i++)
            if (sl->whole || hta_keeps(&bd->ev[i], cut))
                buf[n++] = &bd->ev[i];
        *step = cut < INFINITY ? cut - bd->span_lo : span;
        *sync = sync_within(bd, -INFINITY, cut);
        *niters = 1;
        return n;
    }
    *step = *sync = 0;
    *niters = 0;
    for (size_t k = 0; k < sl->niters; k++) {
        double start, end;
        if (!step_of(bd, sl->iters[k], &start, &end))
            continue;
        *step += end - start;
        *sync += sync_within(bd, start, end);
        (*niters)++;
    }
    for (size_t i = 0; i < bd->nev; i++)
        if (iter_selected(f, sl, bd->ev[i].iter))
            buf[n++] = &bd->ev[i];
    return n;
}

static int rank_notes(bd_side *sd, const td_bd_rank *r)
{
    if (!r->has_gpu)
        return note(sd, "rank %lld: no GPU events in the selection", (long long)r->rank);
    if (r->m[TD_BD_NON_COMPUTE] < 0)
        return note(sd,
                    "rank %lld: non_compute is negative (%.0f us): sub-us events got negative "
                    "durations from HTA's rounding of decimal timestamps",
                    (long long)r->rank, r->m[TD_BD_NON_COMPUTE]);
    return 0;
}

static bool has_rank(const sel *sl, int64_t rank)
{
    for (size_t i = 0; i < sl->nranks; i++)
        if (sl->ranks[i] == rank)
            return true;
    return false;
}

static int measure_file(bd_side *sd, const td_file *f, const sel *sl)
{
    const td_bd_ev **buf = malloc((f->bd->nev + 1) * sizeof *buf);
    if (!buf)
        return -1;
    td_bd_rank *r = &sd->ranks[sd->nranks];
    memset(r, 0, sizeof *r);
    r->rank = f->rank;
    double step, sync;
    size_t n = select_rank(f, sl, buf, &step, &sync, &r->niters);
    int rc = td_bd_measure(buf, n, r, &sd->streams[sd->nranks], &r->nstreams);
    r->streams = sd->streams[sd->nranks];
    sd->nranks++;
    finish_numbers(r->m, step, sync);
    sd->has_gpu |= r->has_gpu;
    if (rc == 0 && (sl->whole || sl->hta))
        rc = add_sample(sd, r);
    else if (rc == 0)
        rc = iteration_samples(sd, f, sl, buf);
    free(buf);
    return rc < 0 ? rc : rank_notes(sd, r);
}

/* Why a file has no breakdown records, and what to do. */
static const char *bd_lost_why(int lost)
{
    switch (lost) {
    case TD_BD_LOST_OLD:
        return "this summary was written before summaries kept what the breakdown needs: "
               "re-summarize its traces (tracediff summarize) to get a breakdown from it";
    case TD_BD_LOST_SELECTION:
        return "this summary keeps a selection of the traces (--iteration or --device), "
               "the breakdown needs all of them: re-summarize them without it";
    default:
        return "the breakdown needs the files loaded with what it measures";
    }
}

static int measure_side(bd_side *sd, const td_set *s, const sel *sl, const char *name,
                        td_error *err)
{
    sd->ranks = calloc(s->nfiles + 1, sizeof *sd->ranks);
    sd->streams = calloc(s->nfiles + 1, sizeof *sd->streams);
    if (!sd->ranks || !sd->streams)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        if (!has_rank(sl, f->rank))
            continue;
        int rc = td_file_bd(f); /* a summary's section, decoded now */
        if (rc < 0)
            return td_roof_fail(err, rc, f);
        if (!f->bd)
            /* a summary that lacks them is input to make again (exit 1, as a
             * summary lacking a rank); a set opened without them, a misuse */
            return td_fail(
                err, f->bd_lost == TD_BD_LOST_UNLOADED || !f->bd_lost ? TD_EUSAGE : TD_ETRACE,
                f->origin ? f->origin : f->path, "%s: %s", name, bd_lost_why(f->bd_lost));
        if (measure_file(sd, f, sl) < 0)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    int rc = 0;
    if (!sd->has_gpu)
        rc = note(sd, "no GPU events: the GPU numbers do not apply");
    if (rc == 0 && sl->whole)
        rc = note(sd, "no ProfilerStep (or one): the whole trace is one iteration, its step the "
                      "span of its events");
    if (rc == 0 && sl->hta)
        rc = note(sd, sl->hta_cut ? "HTA's scope: the last step and what it launched dropped"
                                  : "HTA's scope: the whole trace (under 2 steps)");
    return rc < 0 ? td_fail(err, TD_ENOMEM, "", "out of memory") : 0;
}

/* The value of one rank for a row (rows past the metrics: the labels, then
 * the causes), per iteration. */
static double rank_value(const td_bd_rank *r, size_t row)
{
    double v;
    if (row < TD_BD_NMETRICS) {
        v = r->m[row];
    } else if (row < TD_BD_NMETRICS + 1 + NLABEL_ROWS) {
        v = r->labels[row - TD_BD_NMETRICS]; /* row TD_BD_NMETRICS is the overlap */
    } else {
        v = 0;
        size_t c = row - (TD_BD_NMETRICS + 1 + NLABEL_ROWS);
        for (size_t i = 0; i < r->nstreams; i++)
            v += c == 0   ? r->streams[i].host_wait
                 : c == 1 ? r->streams[i].kernel_wait
                          : r->streams[i].other;
    }
    return v / (double)r->niters;
}

static double side_mean(const bd_side *sd, size_t row)
{
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < sd->nranks; i++) {
        if (sd->ranks[i].niters == 0)
            continue;
        s += rank_value(&sd->ranks[i], row);
        n++;
    }
    return n ? s / (double)n : NAN;
}

static bool gpu_row(size_t row)
{
    return row != TD_BD_STEP && row != TD_BD_SYNC_WAIT && row != TD_BD_OUTSIDE_GPU;
}

static double side_value(const bd_side *sd, size_t row)
{
    if (!sd->has_gpu && gpu_row(row))
        return NAN;
    if (row == TD_BD_NMETRICS) { /* the overlap, over the bd_side's ranks */
        double comm = side_mean(sd, TD_BD_COMM), both = side_mean(sd, TD_BD_COMM_COMP);
        return comm > 0 ? 100 * both / comm : NAN;
    }
    return side_mean(sd, row);
}

static const char *row_name(size_t row)
{
    static char label_names[NLABEL_ROWS][80];
    static const char *const causes[NCAUSE_ROWS] = {
        "idle_gaps_host_wait_us", "idle_gaps_kernel_wait_us", "idle_gaps_other_us"};
    if (row < TD_BD_NMETRICS)
        return metric_names[row];
    if (row == TD_BD_NMETRICS)
        return "comm_comp_overlap_pct";
    if (row < TD_BD_NMETRICS + 1 + NLABEL_ROWS) {
        size_t b = row - TD_BD_NMETRICS;
        if (!label_names[b - 1][0])
            snprintf(label_names[b - 1], sizeof label_names[b - 1], "kernel_type:%s",
                     td_bd_label_name((unsigned)b));
        return label_names[b - 1];
    }
    return causes[row - (TD_BD_NMETRICS + 1 + NLABEL_ROWS)];
}

static void describe(td_row_stats *st, int s, double *x, size_t n)
{
    qsort(x, n, sizeof *x, td_cmp_double);
    st->n[s] = n;
    double sum = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    st->mean[s] = n ? sum / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - st->mean[s]) * (x[i] - st->mean[s]);
    st->stdev[s] = n >= 2 ? sqrt(ss / (double)(n - 1)) : NAN;
    st->median[s] = n == 0 ? NAN : n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    st->min[s] = n ? x[0] : NAN;
    st->max[s] = n ? x[n - 1] : NAN;
}

/* Welch's test of one metric over the sides' (rank, iteration) samples, as
 * compare --stats in iteration mode (docs/stats.md). */
static int test_metric(td_breakdown *b, td_bd_row *row, size_t k)
{
    td_row_stats *st = &row->stats;
    double *x[2] = {malloc((b->s[0].nsamples + 1) * sizeof(double)),
                    malloc((b->s[1].nsamples + 1) * sizeof(double))};
    if (!x[0] || !x[1]) {
        free(x[0]);
        free(x[1]);
        return -1;
    }
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < b->s[s].nsamples; i++)
            x[s][i] = b->s[s].samples[i].m[k];
        describe(st, s, x[s], b->s[s].nsamples);
    }
    st->diff_mean = st->mean[1] - st->mean[0];
    st->change_pct = st->mean[0] != 0 ? 100 * st->diff_mean / st->mean[0] : NAN;
    td_test_result t = td_welch(x[0], st->n[0], x[1], st->n[1], 0.05);
    st->p = t.p;
    st->ci_low = t.ci_low;
    st->ci_high = t.ci_high;
    st->hl_shift = st->shift_low = st->shift_high = st->q = NAN;
    free(x[0]);
    free(x[1]);
    return 0;
}

static void judge(td_row_stats *st)
{
    const double alpha = 0.05, min_change = 1;
    double ch = isnan(st->change_pct) ? (st->diff_mean > 0   ? INFINITY
                                         : st->diff_mean < 0 ? -INFINITY
                                                             : 0)
                                      : st->change_pct;
    if (isnan(st->p))
        st->verdict = TD_VERDICT_NA;
    else if (st->q <= alpha && ch >= min_change && ch > 0)
        st->verdict = TD_VERDICT_SLOWER;
    else if (st->q <= alpha && ch <= -min_change && ch < 0)
        st->verdict = TD_VERDICT_FASTER;
    else
        st->verdict = TD_VERDICT_NOISE;
}

/* The statistics of the metric rows, when each bd_side has >= 3 samples. */
static int row_stats(td_breakdown *b)
{
    if (b->s[0].nsamples < 3 || b->s[1].nsamples < 3)
        return 0;
    double p[TD_BD_NMETRICS], q[TD_BD_NMETRICS];
    for (size_t k = 0; k < TD_BD_NMETRICS; k++) {
        if (test_metric(b, &b->rows[k], k) < 0)
            return -1;
        p[k] = b->rows[k].stats.p;
    }
    if (td_bh_qvalues(q, p, TD_BD_NMETRICS) < 0)
        return -1;
    for (size_t k = 0; k < TD_BD_NMETRICS; k++) {
        b->rows[k].stats.q = q[k];
        judge(&b->rows[k].stats);
    }
    return 0;
}

static int make_rows(td_breakdown *b)
{
    b->nrows = NROWS;
    for (size_t r = 0; r < NROWS; r++) {
        td_bd_row *row = &b->rows[r];
        row->name = row_name(r);
        for (int s = 0; s < 2; s++)
            row->value[s] = side_value(&b->s[s], r);
        row->diff = row->value[1] - row->value[0];
        row->pct = row->value[0] != 0 ? 100 * row->diff / row->value[0] : NAN;
    }
    return row_stats(b);
}

/* Control's step, the components' changes, test's step: the last component
 * is what remains of each bd_side's step, so the diffs add up to the step's. */
static void make_bars(td_breakdown *b)
{
    static const struct {
        const char *name;
        int metric;
    } comp[NBARS] = {{"compute", TD_BD_COMPUTE},
                     {"exposed communication", TD_BD_EXPOSED_COMM},
                     {"memory", TD_BD_EXPOSED_MEM},
                     {"other kernels", TD_BD_EXPOSED_OTHER},
                     {"idle: host wait", TD_BD_IDLE_HOST_WAIT},
                     {"idle: other", TD_BD_IDLE_OTHER},
                     {"CPU overhead not hidden", -1}};
    double step[2] = {side_mean(&b->s[0], TD_BD_STEP), side_mean(&b->s[1], TD_BD_STEP)};
    double diffs = 0;
    for (size_t i = 0; i < NBARS; i++) {
        td_bd_bar *bar = &b->bars[i];
        bar->component = comp[i].name;
        for (int s = 0; s < 2; s++) {
            if (comp[i].metric >= 0) {
                bar->value[s] = side_mean(&b->s[s], (size_t)comp[i].metric);
                continue;
            }
            double used = 0;
            for (size_t k = 0; k + 1 < NBARS; k++)
                used += b->bars[k].value[s];
            bar->value[s] = step[s] - used;
        }
        bar->diff = i + 1 < NBARS ? bar->value[1] - bar->value[0] : (step[1] - step[0]) - diffs;
        diffs += bar->diff;
    }
}

static int cmp_step(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The slowest rank of a bd_side, and those more than pct above the median. */
static int mark_stragglers(bd_side *sd, double pct)
{
    double *v = malloc((sd->nranks + 1) * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0, slow = 0;
    for (size_t i = 0; i < sd->nranks; i++) {
        if (sd->ranks[i].niters == 0)
            continue;
        v[n++] = rank_value(&sd->ranks[i], TD_BD_STEP);
        if (rank_value(&sd->ranks[i], TD_BD_STEP) > rank_value(&sd->ranks[slow], TD_BD_STEP) ||
            sd->ranks[slow].niters == 0)
            slow = i;
    }
    if (n) {
        qsort(v, n, sizeof *v, cmp_step);
        double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        sd->ranks[slow].slowest = true;
        for (size_t i = 0; i < sd->nranks; i++)
            sd->ranks[i].straggler = sd->ranks[i].niters > 0 &&
                                     rank_value(&sd->ranks[i], TD_BD_STEP) > med * (1 + pct / 100);
    }
    free(v);
    return 0;
}

void td_breakdown_free(td_breakdown *b)
{
    if (!b)
        return;
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < b->s[s].nranks; i++)
            free(b->s[s].streams[i]);
        free(b->s[s].streams);
        free(b->s[s].ranks);
        free(b->s[s].samples);
        for (size_t i = 0; i < b->s[s].nnotes; i++)
            free(b->s[s].notes[i]);
        free(b->s[s].notes);
    }
    free(b);
}

static void sel_free(sel *sl)
{
    free(sl->ranks);
    free(sl->iters);
}

int td_breakdown_compute(td_breakdown **out, const td_set *control, const td_set *test,
                         const td_breakdown_opts *opts, td_error *err)
{
    *out = NULL;
    td_breakdown_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_breakdown_opts, TD_BREAKDOWN_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    td_breakdown *b = calloc(1, sizeof *b);
    if (!b)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    const td_set *sets[2] = {control, test};
    const td_list *ranks[2] = {&o.control_ranks, &o.test_ranks};
    const td_list *iters[2] = {&o.control_iters, &o.test_iters};
    static const char *const names[2] = {"control", "test"};
    double pct = o.straggler_pct > 0 ? o.straggler_pct : 5;
    for (int s = 0; s < 2 && rc == 0; s++) {
        sel sl;
        rc = resolve_side(&sl, sets[s], ranks[s], iters[s], o.hta_scope, names[s], err);
        if (rc == 0)
            rc = measure_side(&b->s[s], sets[s], &sl, names[s], err);
        if (rc == 0 && mark_stragglers(&b->s[s], pct) < 0)
            rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        sel_free(&sl);
    }
    if (rc == 0 && make_rows(b) < 0)
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
    if (rc < 0) {
        td_breakdown_free(b);
        return rc;
    }
    make_bars(b);
    *out = b;
    return 0;
}

size_t td_breakdown_nranks(const td_breakdown *b, td_side which)
{
    return b->s[which].nranks;
}

const td_bd_rank *td_breakdown_rank(const td_breakdown *b, td_side which, size_t i)
{
    return i < b->s[which].nranks ? &b->s[which].ranks[i] : NULL;
}

bool td_breakdown_has_gpu(const td_breakdown *b, td_side which)
{
    return b->s[which].has_gpu;
}

size_t td_breakdown_samples(const td_breakdown *b, td_side which)
{
    return b->s[which].nsamples;
}

const td_bd_row *td_breakdown_rows(const td_breakdown *b, size_t *n)
{
    *n = b->nrows;
    return b->rows;
}

const td_bd_bar *td_breakdown_waterfall(const td_breakdown *b, size_t *n)
{
    *n = NBARS;
    return b->bars;
}

const char *td_breakdown_note(const td_breakdown *b, td_side which, size_t i)
{
    return i < b->s[which].nnotes ? b->s[which].notes[i] : NULL;
}
