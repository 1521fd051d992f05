/*
 * The report's "Why" section (docs/roofline.md): the roofline of the
 * report's selection, as `tracediff roofline` computes it: the chart
 * (chart_roofline.c) and the rows whose time changed most. Traces without
 * shapes get one line (record_shapes=True); sets the roofline cannot read
 * (summaries, sets opened without want_roofline) one line saying why.
 */
#include "present/html.h"
#include "present/out_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WHY_ROWS 10

static void num_attr(FILE *f, const char *name, double v)
{
    fprintf(f, " %s=\"", name);
    if (!isnan(v) && !isinf(v))
        fprintf(f, "%.17g", v == 0 ? 0 : v);
    fputc('"', f);
}

static void cell(FILE *f, const char *fmt, double v)
{
    fputs("<td class=\"num\">", f);
    if (isnan(v) || isinf(v))
        fputs("-", f);
    else
        fprintf(f, fmt, v == 0 ? 0 : v);
    fputs("</td>", f);
}

static void rows_table(FILE *f, const td_roofline *r, const char *label[2])
{
    size_t n;
    const td_rl_row *w = td_roofline_rows(r, &n);
    fputs("<table class=\"why\"><thead><tr><th>op</th><th>input dims</th><th>calls</th>", f);
    for (int s = 0; s < 2; s++) {
        fputs("<th>", f);
        td_html_text(f, label[s], strlen(label[s]));
        fputs(" us</th>", f);
    }
    for (int s = 0; s < 2; s++) {
        fputs("<th>", f);
        td_html_text(f, label[s], strlen(label[s]));
        fputs(" TFLOP/s</th>", f);
    }
    for (int s = 0; s < 2; s++) {
        fputs("<th>", f);
        td_html_text(f, label[s], strlen(label[s]));
        fputs(" % of roof</th>", f);
    }
    fputs("<th>reading</th></tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < n && i < WHY_ROWS; i++) {
        const td_rl_row *x = &w[i];
        fputs("<tr class=\"why-row\" data-op=\"", f);
        td_html_text(f, x->op, strlen(x->op));
        fputs("\" data-input-dims=\"", f);
        td_html_text(f, x->input_dims, strlen(x->input_dims));
        fputs("\" data-input-types=\"", f);
        td_html_text(f, x->input_types, strlen(x->input_types));
        fputc('"', f);
        num_attr(f, "data-control-time-us", x->side[0].time_us);
        num_attr(f, "data-test-time-us", x->side[1].time_us);
        num_attr(f, "data-control-tflops", x->side[0].tflops);
        num_attr(f, "data-test-tflops", x->side[1].tflops);
        num_attr(f, "data-control-efficiency-pct", x->side[0].efficiency_pct);
        num_attr(f, "data-test-efficiency-pct", x->side[1].efficiency_pct);
        fputs("><td>", f);
        td_html_text(f, x->op, strlen(x->op));
        fputs("</td><td>", f);
        td_html_text(f, x->input_dims, strlen(x->input_dims));
        fprintf(f, "</td><td class=\"num\">%llu &rarr; %llu</td>",
                (unsigned long long)x->side[0].count, (unsigned long long)x->side[1].count);
        cell(f, "%.1f", x->side[0].time_us);
        cell(f, "%.1f", x->side[1].time_us);
        cell(f, "%.2f", x->side[0].tflops);
        cell(f, "%.2f", x->side[1].tflops);
        cell(f, "%.1f", x->side[0].efficiency_pct);
        cell(f, "%.1f", x->side[1].efficiency_pct);
        fputs("<td>", f);
        td_html_text(f, x->reading, strlen(x->reading));
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

int td_report_why_section(FILE *f, const td_report_input *in, td_error *err)
{
    const char *label[2] = {in->control_label ? in->control_label : "control",
                            in->test_label ? in->test_label : "test"};
    fputs("<h2 id=\"why\">Why: work, rate and the roofline</h2>\n", f);
    td_roofline_opts ro = TD_ROOFLINE_OPTS_INIT;
    ro.control_ranks = in->opts->control_ranks;
    ro.test_ranks = in->opts->test_ranks;
    ro.control_iters = in->opts->control_iters;
    ro.test_iters = in->opts->test_iters;
    td_roofline *r = NULL;
    td_error rerr = {0};
    if (td_roofline_compute(&r, in->control, in->test, &ro, &rerr) < 0) {
        if (rerr.code == TD_ENOMEM) {
            *err = rerr;
            return TD_ENOMEM;
        }
        fputs("<p class=\"sub\" id=\"why-none\">No roofline: ", f);
        td_html_text(f, rerr.msg, strlen(rerr.msg));
        fputs(".</p>\n", f);
        return 0;
    }
    size_t n;
    td_roofline_rows(r, &n);
    if (!td_roofline_has_shapes(r, TD_CONTROL) && !td_roofline_has_shapes(r, TD_TEST)) {
        fputs("<p class=\"sub\" id=\"why-none\">The traces carry no input shapes: record them "
              "with record_shapes=True for FLOPs, bytes and the roofline "
              "(docs/roofline.md).</p>\n",
              f);
    } else if (n == 0) {
        fputs("<p class=\"sub\" id=\"why-none\">No op of the selection has a model "
              "(docs/roofline.md).</p>\n",
              f);
    } else {
        fputs("<p class=\"sub\">Per op and input shape with a model (GEMM, attention, "
              "convolution, elementwise, layer norm; docs/roofline.md): achieved TFLOP/s "
              "against arithmetic intensity and each GPU's roofs, an arrow from ",
              f);
        td_html_text(f, label[0], strlen(label[0]));
        fputs(" to ", f);
        td_html_text(f, label[1], strlen(label[1]));
        fputs(" for the rows with most GPU time; below, the rows whose time changed most "
              "(tracediff roofline has them all).</p>\n<div class=\"chart\" id=\"why-chart\">\n",
              f);
        td_roofline_chart_opts co = TD_ROOFLINE_CHART_OPTS_INIT;
        co.control_label = label[0];
        co.test_label = label[1];
        int rc = td_roofline_svg(f, r, &co, err);
        fputs("</div>\n", f);
        if (rc < 0) {
            td_roofline_free(r);
            return rc;
        }
        rows_table(f, r, label);
    }
    td_roofline_free(r);
    return 0;
}
