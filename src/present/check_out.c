/*
 * The reports of the CI gate (td_check_compute): the summary and its
 * regressions as text, Markdown or JSON, and the JUnit XML of every compared
 * name. tracediff check and the Python module print these.
 */
#include "internal.h"
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
} gate;

static void put_name(FILE *f, const td_row *r, size_t max)
{
    td_put_visible(f, r->name, r->name_len, 0, max);
}

static void fmt(char *buf, size_t cap, double x)
{
    if (isnan(x))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.4g", x);
}

static void summary_line(FILE *f, const gate *g)
{
    fprintf(f,
            "%s: %zu regression%s among %zu names (slower by >= %g%%, q <= %g); %zu faster; "
            "samples per %s (%zu control, %zu test)\n",
            g->nregs ? "FAIL" : "ok", g->nregs, g->nregs == 1 ? "" : "s", g->nnames,
            g->max_regression, td_stats_alpha(g->st), g->nfaster,
            td_samples_name(td_stats_samples(g->st)), td_stats_side_samples(g->st, 0),
            td_stats_side_samples(g->st, 1));
}

static void write_table(FILE *f, const gate *g)
{
    summary_line(f, g);
    if (!g->nregs)
        return;
    fprintf(f, "\n%-28s  %10s  %12s  %12s  %s\n", "change [interval]", "q", "control mean",
            "test mean", "name");
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < g->nregs; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[g->regs[k]];
        char ch[64], q[32], cm[32], tm[32];
        double m = rs->mean[0];
        if (!isnan(rs->ci_low) && m != 0)
            snprintf(ch, sizeof ch, "%+.1f%% [%+.1f, %+.1f]", rs->change_pct, 100 * rs->ci_low / m,
                     100 * rs->ci_high / m);
        else
            snprintf(ch, sizeof ch, "%+.1f%%", rs->change_pct);
        fmt(q, sizeof q, rs->q);
        fmt(cm, sizeof cm, rs->mean[0]);
        fmt(tm, sizeof tm, rs->mean[1]);
        fprintf(f, "%-28s  %10s  %12s  %12s  ", ch, q, cm, tm);
        put_name(f, &rows[g->regs[k]], 200);
        fputc('\n', f);
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
    fprintf(f, "### tracediff check: %s\n\n", g->nregs ? "regressions found" : "no regression");
    fprintf(f,
            "%zu regression%s among %zu names (slower by at least %g%%, q <= %g), %zu "
            "faster. Samples per %s: %zu control, %zu test.\n",
            g->nregs, g->nregs == 1 ? "" : "s", g->nnames, g->max_regression, td_stats_alpha(g->st),
            g->nfaster, td_samples_name(td_stats_samples(g->st)), td_stats_side_samples(g->st, 0),
            td_stats_side_samples(g->st, 1));
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
        fmt(q, sizeof q, rs->q);
        fmt(cm, sizeof cm, rs->mean[0]);
        fmt(tm, sizeof tm, rs->mean[1]);
        fputs("| ", f);
        md_cell_name(f, &rows[g->regs[k]]);
        fprintf(f, " | **%+.1f%%** | %s | %s | %s | %s |\n", rs->change_pct, iv, q, cm, tm);
    }
}

static void json_num(FILE *f, const char *key, double x)
{
    char b[40];
    td_format_number(b, sizeof b, x);
    fprintf(f, ", \"%s\": %s", key, isfinite(x) ? b : "null");
}

static void write_json(FILE *f, const gate *g)
{
    fprintf(f, "{\"result\": \"%s\", \"regressions\": %zu, \"compared\": %zu, \"faster\": %zu",
            g->nregs ? "regression" : "ok", g->nregs, g->nnames, g->nfaster);
    fprintf(f, ", \"samples\": \"%s\"", td_samples_name(td_stats_samples(g->st)));
    json_num(f, "alpha", td_stats_alpha(g->st));
    json_num(f, "min_change", td_stats_min_change(g->st));
    json_num(f, "max_regression", g->max_regression);
    json_num(f, "min_us", g->min_us);
    fputs(",\n \"rows\": [", f);
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < g->nregs; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[g->regs[k]];
        const td_row *r = &rows[g->regs[k]];
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
        fputs(", \"verdict\": \"slower\"}", f);
    }
    fputs(g->nregs ? "\n ]}\n" : "]}\n", f);
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
            "<testsuite name=\"tracediff check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
            g->nnames, g->nregs, g->nnames, g->nregs);
    for (size_t i = 0; i < g->nnames; i++) {
        size_t r = g->names[i];
        fputs("  <testcase classname=\"tracediff\" name=\"", f);
        td_xml_text(f, rows[r].name, rows[r].name_len);
        fputc('"', f);
        if (!reg[r]) {
            fputs("/>\n", f);
            continue;
        }
        char q[32], cm[32], tm[32];
        fmt(q, sizeof q, rs[r].q);
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
    gate g = {.d = td_check_diff(c),
              .st = td_check_stats(c),
              .nfaster = td_check_nfaster(c),
              .max_regression = td_check_max_regression(c),
              .min_us = td_check_min_us(c)};
    g.nnames = td_check_compared(c, &g.names);
    g.nregs = td_check_regressions(c, &g.regs);
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
