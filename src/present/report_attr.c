/*
 * The report's "Where the GPU time moved" section (docs/attribution.md): the
 * ops whose GPU time changed most, each with the kernels behind the change,
 * and the GPU time by kernel class (which lines up traces from different
 * hardware, whose kernel names differ).
 */
#include "util/util.h"
#include "present/html.h"
#include "present/out_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_OPS 10
#define TOP_KERNELS 6

static bool has_attribution(const td_report_input *in)
{
    td_attr_stats a, b;
    if (td_set_attr_stats(in->control, &a) < 0 || td_set_attr_stats(in->test, &b) < 0)
        return true; /* the section's diffs then report the damaged file */
    return a.available && b.available;
}

/* A diff of the report's selection keyed by, or limited to one op (only). */
static int attr_diff(td_diff **out, const td_report_input *in, td_by by, const char *only,
                     td_error *err)
{
    td_compare_opts o = *in->opts; /* shallow: the lists stay the caller's */
    o.by = by;
    o.only = only;
    o.only_by = TD_BY_OP;
    return td_diff_compute(out, in->control, in->test, &o, err);
}

static long biggest(size_t **rows, const td_diff *d, size_t top, td_error *err)
{
    td_view_opts v = TD_VIEW_OPTS_INIT;
    v.sort = TD_COL_ABS_DIFF_DURATION;
    v.has_sort = true;
    v.top = top;
    return td_view_make(rows, d, &v, err);
}

/* Counts divided as the diff's writers divide them (--per-iteration). */
static void row_cells(FILE *f, const td_diff *d, const td_row *r)
{
    char a[48], b[48];
    fputs("</td><td class=\"num\">", f);
    td_html_us(f, r->duration[0]);
    fputs("</td><td class=\"num\">", f);
    td_html_us(f, r->duration[1]);
    fputs("</td><td class=\"num\">", f);
    td_html_change(f, r->duration[0], r->duration[1]);
    td_fmt_num(a, sizeof a, td_row_count(d, r, 0));
    td_fmt_num(b, sizeof b, td_row_count(d, r, 1));
    fprintf(f, "</td><td class=\"num\">%s &rarr; %s</td></tr>\n", a, b);
}

/* The kernels of one op, the largest changes first. */
static int kernels_of(FILE *f, const td_report_input *in, const td_row *op, td_error *err)
{
    char *name = strndup(op->name, op->name_len);
    td_diff *d = NULL;
    size_t *rows = NULL;
    int rc = name ? attr_diff(&d, in, TD_BY_KERNEL, name, err)
                  : td_fail(err, TD_ENOMEM, "", "out of memory");
    long n = rc < 0 ? rc : biggest(&rows, d, TOP_KERNELS, err);
    if (n >= 0) {
        fputs("<table class=\"kernels\"><tbody>\n", f);
        for (long i = 0; i < n; i++) {
            const td_row *k = &td_diff_rows(d)[rows[i]];
            fputs("<tr><td class=\"name\">", f);
            td_html_text(f, k->name, k->name_len);
            row_cells(f, d, k);
        }
        if ((size_t)n < td_diff_nrows(d))
            fprintf(f, "<tr><td colspan=\"5\">and %zu more kernels</td></tr>\n",
                    td_diff_nrows(d) - (size_t)n);
        fputs("</tbody></table>", f);
        rc = 0;
    } else {
        rc = (int)n;
    }
    free(rows);
    td_diff_free(d);
    free(name);
    return rc;
}

/* The labels are the user's text: escaped like every name in the report. */
static void head_row(FILE *f, const char *first, const char *const label[2])
{
    fprintf(f, "<thead><tr><th>%s</th><th>", first);
    td_html_text(f, label[0], strlen(label[0]));
    fputs("</th><th>", f);
    td_html_text(f, label[1], strlen(label[1]));
    fputs("</th><th>change</th><th>GPU events</th></tr></thead><tbody>\n", f);
}

static int top_ops(FILE *f, const td_report_input *in, const char *const label[2], td_error *err)
{
    td_diff *d = NULL;
    size_t *rows = NULL;
    int rc = attr_diff(&d, in, TD_BY_OP, NULL, err);
    long n = rc < 0 ? rc : biggest(&rows, d, TOP_OPS, err);
    if (n < 0) {
        td_diff_free(d);
        return (int)n;
    }
    fputs("<table class=\"moved\" id=\"moved-ops\">", f);
    head_row(f, "op (click for its kernels)", label);
    for (long i = 0; i < n && rc >= 0; i++) {
        const td_row *r = &td_diff_rows(d)[rows[i]];
        fputs("<tr><td class=\"name\"><details><summary>", f);
        td_html_text(f, r->name, r->name_len);
        fputs("</summary>", f);
        if (strcmp(r->name, TD_UNATTRIBUTED) != 0)
            rc = kernels_of(f, in, r, err);
        fputs("</details>", f);
        row_cells(f, d, r);
    }
    fputs("</tbody></table>\n", f);
    free(rows);
    td_diff_free(d);
    return rc;
}

static int by_class(FILE *f, const td_report_input *in, const char *const label[2], td_error *err)
{
    td_diff *d = NULL;
    size_t *rows = NULL;
    int rc = attr_diff(&d, in, TD_BY_CLASS, NULL, err);
    long n = rc < 0 ? rc : biggest(&rows, d, 0, err);
    if (n < 0) {
        td_diff_free(d);
        return (int)n;
    }
    fputs("<h3>By kernel class</h3>\n<table class=\"moved\" id=\"moved-classes\">", f);
    head_row(f, "class", label);
    for (long i = 0; i < n; i++) {
        const td_row *r = &td_diff_rows(d)[rows[i]];
        fputs("<tr><td class=\"name\">", f);
        td_html_text(f, r->name, r->name_len);
        row_cells(f, d, r);
    }
    fputs("</tbody></table>\n", f);
    free(rows);
    td_diff_free(d);
    return 0;
}

int td_report_attr_section(FILE *f, const td_report_input *in, td_error *err)
{
    if (!has_attribution(in))
        return 0;
    const char *label[2] = {in->control_label ? in->control_label : "control",
                            in->test_label ? in->test_label : "test"};
    fputs("<h2 id=\"moved\">Where the GPU time moved</h2>\n<p class=\"sub\">GPU time by the "
          "op that launched it (the innermost cpu_op around the launch; "
          "docs/attribution.md), the largest changes first; GPU time with no op is "
          "(unattributed). Open an op for its kernels.</p>\n",
          f);
    int rc = top_ops(f, in, label, err);
    if (rc >= 0)
        rc = by_class(f, in, label, err);
    return rc < 0 ? rc : 0;
}
