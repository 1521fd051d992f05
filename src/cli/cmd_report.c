/* tracediff report CONTROL TEST -o FILE.html: everything in one offline page. */
#include "options.h"

#include <string.h>

static int check_output(cli_opts *o)
{
    if (!o->output) {
        o->output = "tracediff-report.html";
        o->default_output = true;
    }
    if (o->format && strcmp(o->format, "html") != 0) {
        cli_error("--format '%s': a report is html", o->format);
        return EXIT_USAGE;
    }
    return 0;
}

/* The headline's breakdown (docs/breakdown.md) over the report's rank and
 * iteration choices (its own defaults where none are given). A set that
 * cannot give one (a summary written before summaries kept it): a note, and
 * the headline gives the ProfilerStep rows as before. */
static int report_breakdown(cli_pair *p, td_breakdown **out)
{
    cli_opts *o = &p->o;
    td_breakdown_opts bo = TD_BREAKDOWN_OPTS_INIT;
    bo.control_ranks = o->cmp.control_ranks;
    bo.test_ranks = o->cmp.test_ranks;
    bo.control_iters = o->cmp.control_iters;
    bo.test_iters = o->cmp.test_iters;
    td_error err = {0};
    *out = NULL;
    if (td_breakdown_compute(out, p->control, p->test, &bo, &err) == 0)
        return 0;
    if (err.code == TD_ENOMEM)
        return cli_td_error(&err);
    if (!o->quiet)
        cli_note("report: no breakdown in the headline (%s%s%s): it gives the ProfilerStep rows",
                 err.path, err.path[0] ? ": " : "", err.msg);
    return 0;
}

static int write_report(const cli_pair *p, const td_view_opts *const pick[2],
                        const td_breakdown *bd, const td_tree_match *tm)
{
    const cli_opts *o = &p->o;
    td_report_input in = TD_REPORT_INPUT_INIT;
    in.control = p->control;
    in.test = p->test;
    in.opts = &o->cmp;
    in.diff = p->diff;
    in.control_label = o->control_label;
    in.test_label = o->test_label;
    in.chart_view[0] = pick[0];
    in.chart_view[1] = pick[1];
    in.stats = p->stats;
    in.chart_width = o->chart_width;
    in.chart_height = o->chart_height;
    in.breakdown = bd;
    in.tree = tm;
    in.min_change = o->sopt.min_change; /* the flame section's grey */
    in.has_min_change = o->sopt.has_min_change;
    out_file out = {0};
    int rc = out_open(&out, o->output);
    if (rc)
        return rc;
    td_error err = {0};
    if (td_report_write_html(out.f, &in, &err) < 0)
        return out_fail(&out, &err);
    return out_commit(&out);
}

static int report_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    int rc = check_output(o);
    if (rc)
        return rc;
    o->want_attr = true;     /* the "Where the GPU time moved" section */
    o->want_bd = true;       /* the headline's step time and waterfall */
    o->want_stacks = true;   /* the "Where, by stack" flame graph */
    o->want_roofline = true; /* the "Why" section */
    bool custom = o->sort_text || o->view.top || o->view.include;
    if ((rc = cli_pair_run(p)) != 0)
        return rc;
    /* Each chart's default sorts by its own column; the user's pick applies to both. */
    td_view_opts views[2];
    const td_view_opts *pick[2] = {&o->view, &o->view};
    if (!custom)
        for (int k = 0; k < 2; k++) {
            views[k] = o->view;
            td_chart_default_view(&views[k], (td_chart_kind)k);
            views[k].ascending = o->view.ascending;
            pick[k] = &views[k];
        }
    td_breakdown *bd = NULL;
    if ((rc = report_breakdown(p, &bd)) != 0)
        return rc;
    td_tree_match *tm = NULL; /* --match tree: "Matched by structure" */
    td_error err = {0};
    if (o->match_tree && td_tree_match_select(&tm, p->control, p->test, &o->cmp, 0, &err) < 0)
        rc = cli_td_error(&err);
    for (size_t i = 0; rc == 0 && tm && td_tree_match_note(tm, i) && !o->quiet; i++)
        cli_note("--match tree: %s", td_tree_match_note(tm, i));
    if (rc == 0 && (rc = write_report(p, pick, bd, tm)) == 0 && o->default_output)
        fprintf(stderr, "%s: wrote %s\n", g_prog, cli_visible(o->output));
    td_tree_match_free(tm);
    td_breakdown_free(bd);
    return rc;
}

int cmd_report(cli_pair *p, const char **pos)
{
    (void)pos;
    if (p->o.tree_python_frames && !p->o.match_tree) {
        cli_error("--python-frames needs --match tree");
        return EXIT_USAGE;
    }
    return report_run(p);
}
