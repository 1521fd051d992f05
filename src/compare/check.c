/*
 * The CI gate of tracediff check (docs/stats.md, "check"): which names got
 * significantly slower. Computed once here, so that the CLI and the Python
 * module report the same regressions in the same order.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

struct td_check {
    const td_diff *diff;
    const td_stats *stats;
    double max_regression, min_us;
    size_t *names; /* rows compared (control total >= min_us), by name */
    size_t nnames;
    size_t *regs; /* regressions among them, most significant first */
    size_t nregs;
    size_t nfaster;
};

static int is_regression(const td_row_stats *rs, double max_regression)
{
    if (rs->verdict != TD_VERDICT_SLOWER)
        return 0;
    /* A control mean of 0 is an infinite change. */
    return isnan(rs->change_pct) || rs->change_pct >= max_regression;
}

/* Regressions by q (smallest first), then by change (largest first), then
 * by row: a total order, so the result does not depend on qsort. */
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
    reg_key *k = malloc((c->nregs + 1) * sizeof *k);
    if (!k)
        return -1;
    for (size_t i = 0; i < c->nregs; i++)
        k[i] = (reg_key){rs[c->regs[i]].q, rs[c->regs[i]].change_pct, c->regs[i]};
    qsort(k, c->nregs, sizeof *k, by_q);
    for (size_t i = 0; i < c->nregs; i++)
        c->regs[i] = k[i].row;
    free(k);
    return 0;
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
    size_t n = td_diff_nrows(diff);
    td_check *c = calloc(1, sizeof *c);
    if (c) {
        c->names = malloc((n + 1) * sizeof *c->names);
        c->regs = malloc((n + 1) * sizeof *c->regs);
    }
    if (!c || !c->names || !c->regs) {
        td_check_free(c);
        return td_fail(err, TD_ENOMEM, NULL, "out of memory");
    }
    *c = (td_check){diff, stats, maxr, min_us, c->names, 0, c->regs, 0, 0};
    const td_row *rows = td_diff_rows(diff);
    const td_row_stats *rs = td_stats_rows(stats);
    for (size_t r = 0; r < n; r++) {
        if (rows[r].duration[0] < min_us)
            continue;
        c->names[c->nnames++] = r;
        if (is_regression(&rs[r], maxr))
            c->regs[c->nregs++] = r;
        else if (rs[r].verdict == TD_VERDICT_FASTER)
            c->nfaster++;
    }
    if (sort_regressions(c) < 0) {
        td_check_free(c);
        return td_fail(err, TD_ENOMEM, NULL, "out of memory");
    }
    *out = c;
    return 0;
}

void td_check_free(td_check *c)
{
    if (!c)
        return;
    free(c->names);
    free(c->regs);
    free(c);
}

int td_check_passed(const td_check *c)
{
    return c->nregs == 0;
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
