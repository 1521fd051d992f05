/*
 * The reports of the CI gate (td_check_compute): the summary and its
 * regressions as text, Markdown or JSON, and the JUnit XML of every compared
 * name. tracediff check and the Python module print these.
 */
#include "util/util.h"
#include "util/utf8_text.h"
#include "present/out_common.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The check's numbers, read once through the public accessors. */
typedef struct gate {
    const td_diff *d;
    const td_stats *st;
    const size_t *names;
    size_t nnames;
    const size_t *regs;
    size_t nregs;
    size_t nfaster;
    double max_regression, min_us;
    const td_check *c;
    const size_t *waits;
    size_t nwaits, nwait_regs;
    const td_check_step *step;
} gate;

#define WAITS_BY_NAME_NOTE                                                                         \
    "waits are the synchronize calls only: these sets keep no timing of their ops (summaries, "    \
    "tracediff-mpi); give trace files to measure the ops that wait"
#define FOLDED_NOTE                                                                                \
    "names that differ only by addresses, line numbers, steps, graph hashes or Triton numbers "    \
    "are folded into one (--no-normalize-names keeps them apart)"
#define ONE_RUN_NOTE                                                                               \
    "one run a side: run-to-run noise is not measured; give several iterations or runs"

static void put_name(FILE *f, const td_row *r, size_t max)
{
    td_put_visible(f, r->name, r->name_len, 0, max);
}

/* Numbers as people write them (td_fmt_human); "-" when undefined. */
static void fmt(char *buf, size_t cap, double x)
{
    if (isnan(x))
        snprintf(buf, cap, "-");
    else
        td_fmt_human(buf, cap, x, true);
}

/* A q-value: "0.012", "3e-20" below 0.001; "-" when undefined. */
static void fmt_q(char *buf, size_t cap, double q)
{
    if (isnan(q))
        snprintf(buf, cap, "-");
    else
        td_fmt_pq(buf, cap, q);
}

static bool failed(const gate *g)
{
    return g->nregs || (g->step && (g->step->step_failed || g->step->gpu_failed));
}

static void summary_line(FILE *f, const gate *g)
{
    fprintf(f,
            "%s: %zu regression%s among %zu names (slower by >= %g%%, q <= %g); %zu faster; "
            "samples per %s (%zu control, %zu test)\n",
            failed(g) ? "FAIL" : "ok", g->nregs, g->nregs == 1 ? "" : "s", g->nnames,
            g->max_regression, td_stats_alpha(g->st), g->nfaster,
            td_samples_name(td_stats_samples(g->st)), td_stats_side_samples(g->st, 0),
            td_stats_side_samples(g->st, 1));
    if (td_check_names_folded(g->c))
        fprintf(f, "note: %s\n", FOLDED_NOTE);
    if (td_check_one_run(g->c))
        fprintf(f, "note: %s (a name fails only when its total grew by >= %g%% too)\n",
                ONE_RUN_NOTE, g->max_regression);
    if (td_check_waits_by_name(g->c))
        fprintf(f, "note: %s\n", WAITS_BY_NAME_NOTE);
}

/* "step time 1234 -> 1300 us (+5.3%, p = 0.01): FAIL" */
static void step_line(FILE *f, const char *what, const double mean[2], double change, double p,
                      bool fail, const char *eol)
{
    char a[32], b[32], q[32] = "";
    if (isnan(mean[0])) {
        fprintf(f, "%s: not known (a summary written before trace spans were kept)%s", what, eol);
        return;
    }
    td_fmt_human(a, sizeof a, mean[0], true);
    td_fmt_human(b, sizeof b, mean[1], true);
    if (!isnan(p)) {
        char pv[24];
        td_fmt_pq(pv, sizeof pv, p);
        snprintf(q, sizeof q, ", p = %s", pv);
    }
    fprintf(f, "%s per sample %s -> %s us (%+.1f%%%s): %s%s", what, a, b, change, q,
            fail ? "FAIL" : "ok", eol);
}

static void step_lines(FILE *f, const gate *g, const char *bullet, const char *eol)
{
    const td_check_step *s = g->step;
    if (!s)
        return;
    fputs(bullet, f);
    const char *what = s->span[0] && s->span[1] ? "step time (trace span, no ProfilerStep)"
                       : s->span[0]             ? "step time (control: trace span, no ProfilerStep)"
                       : s->span[1]             ? "step time (test: trace span, no ProfilerStep)"
                                                : "step time";
    step_line(f, what, s->step_mean, s->step_change_pct, s->step_p, s->step_failed, eol);
    fputs(bullet, f);
    step_line(f, "GPU time", s->gpu_mean, s->gpu_change_pct, s->gpu_p, s->gpu_failed, eol);
}

static void change_text(char *ch, size_t cap, const gate *g, size_t row)
{
    const td_row_stats *rs = &td_stats_rows(g->st)[row];
    const td_row *r = &td_diff_rows(g->d)[row];
    double m = rs->mean[0];
    if (td_check_row_new(g->c, row)) {
        char t[40];
        td_fmt_human(t, sizeof t, r->duration[1], true);
        snprintf(ch, cap, "new (%s us)", t);
    } else if (!isnan(rs->ci_low) && m != 0)
        snprintf(ch, cap, "%+.1f%% [%+.1f, %+.1f]", rs->change_pct, 100 * rs->ci_low / m,
                 100 * rs->ci_high / m);
    else
        snprintf(ch, cap, "%+.1f%%", rs->change_pct);
}

static void table_rows(FILE *f, const gate *g, const size_t *idx, size_t n, bool mark)
{
    fprintf(f, "\n%-28s  %10s  %12s  %12s  %s\n", "change [interval]", "q", "control mean",
            "test mean", "name");
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < n; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[idx[k]];
        char ch[64], q[32], cm[32], tm[32];
        change_text(ch, sizeof ch, g, idx[k]);
        fmt_q(q, sizeof q, td_check_row_new(g->c, idx[k]) ? NAN : rs->q);
        fmt(cm, sizeof cm, rs->mean[0]);
        fmt(tm, sizeof tm, rs->mean[1]);
        fprintf(f, "%-28s  %10s  %12s  %12s  ", ch, q, cm, tm);
        put_name(f, &rows[idx[k]], 200);
        if (mark && td_check_row_failed(g->c, idx[k]))
            fputs("  (would fail with --gate-waits)", f);
        fputc('\n', f);
    }
}

static void write_table(FILE *f, const gate *g)
{
    summary_line(f, g);
    step_lines(f, g, "", "\n");
    if (g->nregs)
        table_rows(f, g, g->regs, g->nregs, false);
    if (g->nwaits) {
        fprintf(f,
                "\nwaits: %zu name%s whose time is the CPU waiting for the device (not gating; "
                "--gate-waits), %zu slower\n",
                g->nwaits, g->nwaits == 1 ? "" : "s", g->nwait_regs);
        if (g->nwait_regs) {
            size_t *w = malloc(g->nwait_regs * sizeof *w), m = 0;
            for (size_t k = 0; w && k < g->nwaits; k++)
                if (td_check_row_failed(g->c, g->waits[k]))
                    w[m++] = g->waits[k];
            if (w)
                table_rows(f, g, w, m, true);
            free(w);
        }
    }
}

/* In a code span: a '`' would end it early, so it is shown as '\''. */
static void md_cell_name(FILE *f, const td_row *r)
{
    char *v = td_visible_dup(r->name, r->name_len, TD_TEXT_MARKDOWN);
    for (char *c = v; c && (c = strchr(c, '`')) != NULL;)
        *c = '\'';
    fputc('`', f);
    td_put_visible(f, v ? v : "?", v ? strlen(v) : 1, 0, 300);
    fputc('`', f);
    free(v);
}

static void write_markdown(FILE *f, const gate *g)
{
    fprintf(f, "### tracediff check: %s\n\n", failed(g) ? "regressions found" : "no regression");
    fprintf(f,
            "%zu regression%s among %zu names (slower by at least %g%%, q <= %g), %zu "
            "faster. Samples per %s: %zu control, %zu test.\n",
            g->nregs, g->nregs == 1 ? "" : "s", g->nnames, g->max_regression, td_stats_alpha(g->st),
            g->nfaster, td_samples_name(td_stats_samples(g->st)), td_stats_side_samples(g->st, 0),
            td_stats_side_samples(g->st, 1));
    if (td_check_names_folded(g->c))
        fprintf(f, "\n*Note: %s.*\n", FOLDED_NOTE);
    if (td_check_one_run(g->c))
        fprintf(f, "\n*Note: %s.*\n", ONE_RUN_NOTE);
    if (g->step) {
        fputc('\n', f);
        step_lines(f, g, "- ", "\n");
    }
    if (g->nwaits)
        fprintf(f, "\n%zu wait%s (the CPU waiting for the device) listed apart, %zu slower.\n",
                g->nwaits, g->nwaits == 1 ? "" : "s", g->nwait_regs);
    if (!g->nregs)
        return;
    fputs("\n| name | change | interval | q | control mean (us) | test mean (us) |\n"
          "|:---|---:|---:|---:|---:|---:|\n",
          f);
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < g->nregs; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[g->regs[k]];
        char q[32], cm[32], tm[32], iv[64] = "";
        double m = rs->mean[0];
        if (!isnan(rs->ci_low) && m != 0)
            snprintf(iv, sizeof iv, "[%+.1f%%, %+.1f%%]", 100 * rs->ci_low / m,
                     100 * rs->ci_high / m);
        fmt_q(q, sizeof q, rs->q);
        fmt(cm, sizeof cm, rs->mean[0]);
        fmt(tm, sizeof tm, rs->mean[1]);
        fputs("| ", f);
        md_cell_name(f, &rows[g->regs[k]]);
        if (td_check_row_new(g->c, g->regs[k])) {
            char t[40];
            td_fmt_human(t, sizeof t, rows[g->regs[k]].duration[1], true);
            fprintf(f, " | **new** | | | | %s (total) |\n", t);
        } else
            fprintf(f, " | **%+.1f%%** | %s | %s | %s | %s |\n", rs->change_pct, iv, q, cm, tm);
    }
}

static void json_num(FILE *f, const char *key, double x)
{
    char b[40];
    td_format_number(b, sizeof b, x);
    fprintf(f, ", \"%s\": %s", key, isfinite(x) ? b : "null");
}

static void json_rows(FILE *f, const gate *g, const size_t *idx, size_t n);

static void write_json(FILE *f, const gate *g)
{
    fprintf(f, "{\"result\": \"%s\", \"regressions\": %zu, \"compared\": %zu, \"faster\": %zu",
            failed(g) ? "regression" : "ok", g->nregs, g->nnames, g->nfaster);
    fprintf(f, ", \"one_run\": %s, \"waits\": %zu, \"wait_regressions\": %zu",
            td_check_one_run(g->c) ? "true" : "false", g->nwaits, g->nwait_regs);
    fprintf(f, ", \"waits_measured\": %s", td_check_waits_by_name(g->c) ? "false" : "true");
    fprintf(f, ", \"samples\": \"%s\"", td_samples_name(td_stats_samples(g->st)));
    json_num(f, "alpha", td_stats_alpha(g->st));
    json_num(f, "min_change", td_stats_min_change(g->st));
    json_num(f, "max_regression", g->max_regression);
    json_num(f, "min_us", g->min_us);
    if (g->step) {
        const td_check_step *s = g->step;
        fprintf(f, ",\n \"step\": {\"control_n\": %zu, \"test_n\": %zu", s->n[0], s->n[1]);
        json_num(f, "control_step_mean", s->step_mean[0]);
        json_num(f, "test_step_mean", s->step_mean[1]);
        json_num(f, "step_change_pct", s->step_change_pct);
        json_num(f, "step_p_value", s->step_p);
        fprintf(f, ", \"step_failed\": %s", s->step_failed ? "true" : "false");
        fprintf(f, ", \"control_step_is_span\": %s, \"test_step_is_span\": %s",
                s->span[0] ? "true" : "false", s->span[1] ? "true" : "false");
        json_num(f, "control_gpu_mean", s->gpu_mean[0]);
        json_num(f, "test_gpu_mean", s->gpu_mean[1]);
        json_num(f, "gpu_change_pct", s->gpu_change_pct);
        json_num(f, "gpu_p_value", s->gpu_p);
        fprintf(f, ", \"gpu_failed\": %s}", s->gpu_failed ? "true" : "false");
    }
    fputs(",\n \"rows\": [", f);
    json_rows(f, g, g->regs, g->nregs);
    fputs(g->nregs ? "\n ]" : "]", f);
    fputs(",\n \"wait_rows\": [", f);
    json_rows(f, g, g->waits, g->nwaits);
    fputs(g->nwaits ? "\n ]}\n" : "]}\n", f);
}

static void json_rows(FILE *f, const gate *g, const size_t *idx, size_t n)
{
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < n; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[idx[k]];
        const td_row *r = &rows[idx[k]];
        fputs(k ? ",\n  {\"name\": \"" : "\n  {\"name\": \"", f);
        td_write_json_string(f, r->name, r->name_len);
        fputc('"', f);
        fprintf(f, ", \"control_n\": %llu, \"test_n\": %llu", (unsigned long long)rs->n[0],
                (unsigned long long)rs->n[1]);
        json_num(f, "control_mean", rs->mean[0]);
        json_num(f, "test_mean", rs->mean[1]);
        json_num(f, "change_pct", rs->change_pct);
        json_num(f, "ci_low", rs->ci_low);
        json_num(f, "ci_high", rs->ci_high);
        json_num(f, "p_value", rs->p);
        json_num(f, "q_value", rs->q);
        json_num(f, "control_total", r->duration[0]);
        json_num(f, "test_total", r->duration[1]);
        fprintf(f, ", \"verdict\": \"%s\", \"failed\": %s}",
                td_check_row_new(g->c, idx[k]) ? "new" : td_verdict_name(rs->verdict),
                td_check_row_failed(g->c, idx[k]) ? "true" : "false");
    }
}

static int write_junit(FILE *f, const gate *g)
{
    bool *reg = calloc(td_diff_nrows(g->d) + 1, sizeof *reg);
    if (!reg)
        return TD_ENOMEM;
    for (size_t k = 0; k < g->nregs; k++)
        reg[g->regs[k]] = true;
    const td_row *rows = td_diff_rows(g->d);
    const td_row_stats *rs = td_stats_rows(g->st);
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites tests=\"%zu\" failures=\"%zu\">\n"
            "<testsuite name=\"tracediff check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
            "skipped=\"%zu\">\n",
            g->nnames + g->nwaits, g->nregs, g->nnames + g->nwaits, g->nregs, g->nwaits);
    for (size_t i = 0; i < g->nwaits; i++) {
        size_t r = g->waits[i];
        fputs("  <testcase classname=\"tracediff\" name=\"", f);
        td_xml_text(f, rows[r].name, rows[r].name_len);
        fprintf(f,
                "\">\n    <skipped message=\"a wait: the CPU waiting for the device (%s; "
                "--gate-waits gates it)\"/>\n  </testcase>\n",
                td_check_row_failed(g->c, r) ? "slower" : "not slower");
    }
    for (size_t i = 0; i < g->nnames; i++) {
        size_t r = g->names[i];
        fputs("  <testcase classname=\"tracediff\" name=\"", f);
        td_xml_text(f, rows[r].name, rows[r].name_len);
        fputc('"', f);
        if (!reg[r]) {
            fputs("/>\n", f);
            continue;
        }
        if (td_check_row_new(g->c, r)) {
            char t[40];
            td_fmt_human(t, sizeof t, rows[r].duration[1], true);
            fprintf(f,
                    ">\n    <failure message=\"new: only in test (%s us)\" type=\"regression\">"
                    "a name only in test, total %s us</failure>\n  </testcase>\n",
                    t, t);
            continue;
        }
        char q[32], cm[32], tm[32];
        fmt_q(q, sizeof q, rs[r].q);
        fmt(cm, sizeof cm, rs[r].mean[0]);
        fmt(tm, sizeof tm, rs[r].mean[1]);
        fprintf(f,
                ">\n    <failure message=\"slower by %.1f%% (q = %s)\" type=\"regression\">"
                "mean %s us -&gt; %s us, %s samples (%llu control, %llu test)</failure>\n"
                "  </testcase>\n",
                rs[r].change_pct, q, cm, tm, td_samples_name(td_stats_samples(g->st)),
                (unsigned long long)rs[r].n[0], (unsigned long long)rs[r].n[1]);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
    free(reg);
    return 0;
}

int td_check_write(FILE *f, const td_check *c, td_check_format format, td_error *err)
{
    gate g = {.c = c,
              .step = td_check_step_result(c),
              .d = td_check_diff(c),
              .st = td_check_stats(c),
              .nfaster = td_check_nfaster(c),
              .max_regression = td_check_max_regression(c),
              .min_us = td_check_min_us(c)};
    g.nnames = td_check_compared(c, &g.names);
    g.nregs = td_check_regressions(c, &g.regs);
    g.nwaits = td_check_waits(c, &g.waits);
    g.nwait_regs = td_check_wait_regressions(c);
    int rc = 0;
    switch (format) {
    case TD_CHECK_TEXT:
        write_table(f, &g);
        break;
    case TD_CHECK_MARKDOWN:
        write_markdown(f, &g);
        break;
    case TD_CHECK_JSON:
        write_json(f, &g);
        break;
    case TD_CHECK_JUNIT:
        rc = write_junit(f, &g);
        break;
    default:
        return td_fail(err, TD_EUSAGE, NULL, "unknown check format %d", (int)format);
    }
    if (rc == TD_ENOMEM)
        return td_fail(err, rc, NULL, "out of memory");
    return td_write_end(f, err); /* "cannot write: <why>"; the caller names the file */
}
