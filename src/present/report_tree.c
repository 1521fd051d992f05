/*
 * The report's "Matched by structure" section (docs/tree-match.md): with
 * report --match tree, each side's GPU time and the part the call trees
 * matched, then the lowest common ancestors (LCAs) whose time changed most,
 * with their input dims, paths and kernels. Each row carries its exact
 * numbers in data attributes (those of compare --match tree --format json).
 */
#include "util/util.h"
#include "present/html.h"
#include "present/out_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP_LCAS 15

static _Thread_local const td_tree_lca *sort_lcas;

/* By |test - control|, largest first; ties in the order found. */
static int cmp_moved(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const td_tree_lca *x = &sort_lcas[i], *y = &sort_lcas[j];
    double p = fabs(x->us[1] - x->us[0]), q = fabs(y->us[1] - y->us[0]);
    if (p != q)
        return p > q ? -1 : 1;
    return (i > j) - (i < j);
}

static void text(FILE *f, const char *s)
{
    td_html_text(f, s ? s : "", s ? strlen(s) : 0);
}

/* The input dims cell, as compare --match tree's table has it: the
 * control's, "a | b" when the sides differ, "-" when neither has them; each
 * side's own (compact JSON, "" for none) in data attributes. */
static void dims_cell(FILE *f, const td_tree_lca *r)
{
    const char *a = r->input_dims[0] ? r->input_dims[0] : "-";
    const char *b = r->input_dims[1] ? r->input_dims[1] : "-";
    fputs("<td class=\"dims\" data-control-input-dims=\"", f);
    text(f, r->input_dims[0]);
    fputs("\" data-test-input-dims=\"", f);
    text(f, r->input_dims[1]);
    fputs("\">", f);
    text(f, a);
    if (strcmp(a, b) != 0) {
        fputs(" | ", f);
        text(f, b);
    }
    fputs("</td>", f);
}

static void sides(FILE *f, const td_tree_match *m, const char *const label[2])
{
    fputs("<ul class=\"sub\" id=\"tree-summary\">\n", f);
    for (int s = 0; s < 2; s++) {
        const td_tree_summary *t = td_tree_match_summary(m, s);
        fprintf(f, "<li data-gpu-us=\"%.17g\" data-matched-us=\"%.17g\">", t->total_us,
                t->matched_us);
        text(f, label[s]);
        fputs(": ", f);
        td_html_us(f, t->matched_us);
        fprintf(f, " of ");
        td_html_us(f, t->total_us);
        fprintf(f, " GPU time matched (%.1f%%); roots %llu, %llu matched</li>\n",
                t->total_us > 0 ? t->matched_us / t->total_us * 100 : 0,
                (unsigned long long)t->roots, (unsigned long long)t->roots_matched);
    }
    fputs("</ul>\n", f);
}

int td_report_tree_section(FILE *f, const td_report_input *in, td_error *err)
{
    const td_tree_match *m = in->tree;
    if (!m)
        return 0;
    const char *label[2] = {in->control_label ? in->control_label : "control",
                            in->test_label ? in->test_label : "test"};
    size_t n;
    const td_tree_lca *l = td_tree_match_lcas(m, &n);
    size_t *order = malloc((n + 1) * sizeof *order);
    if (!order)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_lcas = l;
    qsort(order, n, sizeof *order, cmp_moved);
    size_t top = n < TOP_LCAS ? n : TOP_LCAS;
    fputs("<h2 id=\"tree\">Matched by structure</h2>\n<p class=\"sub\">The same work found by "
          "aligning the two call trees (compare --match tree; docs/tree-match.md): each "
          "lowest common ancestor (LCA) with both sides' GPU time, the largest changes "
          "first. Open one for its path and kernels.</p>\n",
          f);
    sides(f, m, label);
    fputs("<table class=\"moved\" id=\"tree-lcas\"><thead><tr><th>LCA</th><th>", f);
    text(f, label[0]);
    fputs("</th><th>", f);
    text(f, label[1]);
    fputs("</th><th>change</th><th>input dims</th><th>GPU events</th></tr></thead><tbody>\n", f);
    for (size_t k = 0; k < top; k++) {
        const td_tree_lca *r = &l[order[k]];
        fprintf(f, "<tr data-row=\"%zu\" data-control-us=\"%.17g\" data-test-us=\"%.17g\">",
                order[k], r->us[0], r->us[1]);
        fputs("<td class=\"name\"><details><summary>", f);
        text(f, r->name);
        fputs("</summary><div class=\"tree-path\">", f);
        text(f, r->path);
        fputs("</div><table class=\"kernels\"><tbody>", f);
        for (int s = 0; s < 2; s++) {
            fputs("<tr><td>", f);
            text(f, label[s]);
            fputs("</td><td class=\"name\">", f);
            text(f, r->kernels[s] && *r->kernels[s] ? r->kernels[s] : "-");
            fputs("</td></tr>", f);
        }
        fputs("</tbody></table></details></td><td class=\"num\">", f);
        td_html_us(f, r->us[0]);
        fputs("</td><td class=\"num\">", f);
        td_html_us(f, r->us[1]);
        fputs("</td><td class=\"num\">", f);
        td_html_change(f, r->us[0], r->us[1]);
        fputs("</td>", f);
        dims_cell(f, r);
        fprintf(f, "<td class=\"num\">%llu &rarr; %llu</td></tr>\n",
                (unsigned long long)r->nkernels[0], (unsigned long long)r->nkernels[1]);
    }
    if (top < n)
        fprintf(f, "<tr><td colspan=\"6\">and %zu more LCAs (compare --match tree)</td></tr>\n",
                n - top);
    fputs("</tbody></table>\n", f);
    free(order);
    return 0;
}
