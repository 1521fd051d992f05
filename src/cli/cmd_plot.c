/* tracediff plot counts|duration|flame|breakdown CONTROL TEST -o FILE: a grouped
 * bar chart, a flame graph or the breakdown's chart. */
#include "options.h"

#include <string.h>
#include <strings.h>

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

/* What can be checked is checked before minutes of reading. */
static int check_output(const cli_opts *o, bool *svg)
{
    if (!o->output) {
        cli_error("plot: -o FILE is required (.svg, .png or .pdf)");
        return EXIT_USAGE;
    }
    *svg = strcmp(o->output, "-") == 0 || has_suffix(o->output, ".svg");
    if (!*svg && !has_suffix(o->output, ".png") && !has_suffix(o->output, ".pdf")) {
        cli_error("plot: %s: name the file .svg, .png or .pdf", o->output);
        return EXIT_USAGE;
    }
    if (o->format) {
        cli_error("plot: --format does not apply: the format follows -o's extension");
        return EXIT_USAGE;
    }
    return 0;
}

/* -1: a flame graph (docs/stacks.md), -3: the breakdown's chart
 * (docs/breakdown.md), not a bar chart. */
static int parse_kind(const char *word, td_chart_kind *kind)
{
    if (strcmp(word, "flame") == 0)
        *kind = (td_chart_kind)-1;
    else if (strcmp(word, "breakdown") == 0)
        *kind = (td_chart_kind)-3;
    else if (strcmp(word, "roofline") == 0)
        *kind = (td_chart_kind)-2;
    else if (strcmp(word, "counts") == 0)
        *kind = TD_CHART_COUNTS;
    else if (strcmp(word, "duration") == 0)
        *kind = TD_CHART_DURATION;
    else {
        cli_error("plot: '%s': expected counts, duration, flame, roofline or breakdown", word);
        return EXIT_USAGE;
    }
    return 0;
}

static void chart_opts(td_chart_opts *co, char *sub, size_t cap, const cli_pair *p)
{
    td_chart_subtitle(sub, cap, p->diff, &p->o.cmp, p->o.control_label, p->o.test_label);
    co->control_label = p->o.control_label;
    co->test_label = p->o.test_label;
    co->subtitle = sub;
    co->width = p->o.chart_width;
    co->height = p->o.chart_height;
}

static int write_svg(const cli_pair *p, td_chart_kind kind)
{
    const cli_opts *o = &p->o;
    out_file out = {0};
    td_error err = {0};
    int rc = out_open(&out, o->output);
    if (rc)
        return rc;
    char sub[512];
    td_chart_opts co = TD_CHART_OPTS_INIT;
    chart_opts(&co, sub, sizeof sub, p);
    if (td_chart_svg_opts(out.f, kind, p->diff, p->rows, p->nrows, &co, &err) < 0)
        return out_fail(&out, &err);
    return out_commit(&out);
}

/* plot flame: the pair by stack, drawn whole (no view). */
static int flame_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    bool svg;
    int rc = check_output(o, &svg);
    if (rc)
        return rc;
    if (o->cmp.by != TD_BY_KERNEL) {
        cli_error("plot flame draws the stacks: not with --by");
        return EXIT_USAGE;
    }
    o->cmp.by = TD_BY_STACK;
    o->want_stacks = true;
    if ((rc = cli_pair_run(p)) != 0)
        return rc;
    char sub[512];
    td_chart_subtitle(sub, sizeof sub, p->diff, &o->cmp, o->control_label, o->test_label);
    td_flame_opts fo = TD_FLAME_OPTS_INIT;
    fo.control_label = o->control_label;
    fo.test_label = o->test_label;
    fo.subtitle = sub;
    fo.side = o->side;
    fo.min_change = o->sopt.min_change;
    fo.has_min_change = o->sopt.has_min_change;
    fo.width = o->chart_width;
    out_file out = {0};
    td_error err = {0};
    if ((rc = out_open(&out, o->output)) != 0)
        return rc;
    if ((svg ? td_flame_svg(out.f, p->diff, &fo, &err)
             : td_flame_cairo(out.f, p->diff, &fo, has_suffix(o->output, ".pdf"), o->output,
                              &err)) < 0)
        return out_fail(&out, &err);
    return out_commit(&out);
}

/* plot breakdown: what shapes the bar charts' rows does not apply. */
static int breakdown_run(cli_pair *p)
{
    const cli_opts *o = &p->o;
    bool svg;
    int rc = check_output(o, &svg);
    if (rc)
        return rc;
    const char *bad = o->side                              ? "--side"
                      : o->sort_text                       ? "--sort"
                      : o->view.top                        ? "--top"
                      : o->view.include || o->view.exclude ? "--include/--exclude"
                      : o->cmp.by != TD_BY_KERNEL          ? "--by"
                      : o->cmp.device == TD_DEVICE_CPU     ? "--device"
                                                           : NULL;
    if (bad) {
        cli_error("plot breakdown: %s does not apply (the chart has the breakdown's components, "
                  "not rows)",
                  bad);
        return EXIT_USAGE;
    }
    return cli_breakdown_plot(p, svg ? 0 : has_suffix(o->output, ".pdf") ? 2 : 1);
}

static int plot_run(cli_pair *p, td_chart_kind kind)
{
    if ((int)kind == -1)
        return flame_run(p);
    if ((int)kind == -2) {
        bool svg;
        int rc = check_output(&p->o, &svg);
        return rc ? rc : cli_roofline_plot(p, svg);
    }
    if ((int)kind == -3)
        return breakdown_run(p);
    if (p->o.per_rank || p->o.bd.hta_scope || p->o.bd.straggler_pct > 0) {
        cli_error("plot: --per-rank, --hta-scope and --straggler are for plot breakdown");
        return EXIT_USAGE;
    }
    if (p->o.side) {
        cli_error("plot: --side is for plot flame");
        return EXIT_USAGE;
    }
    cli_opts *o = &p->o;
    bool svg;
    int rc = check_output(o, &svg);
    if (rc)
        return rc;
    if (!o->sort_text && !o->view.top && !o->view.include) {
        bool asc = o->view.ascending;
        td_chart_default_view(&o->view, kind);
        o->view.ascending = asc;
    }
    if ((rc = cli_pair_run(p)) != 0)
        return rc;
    if (svg)
        return write_svg(p, kind);
    td_error err = {0};
    char sub[512];
    td_chart_opts co = TD_CHART_OPTS_INIT;
    chart_opts(&co, sub, sizeof sub, p);
    if (td_chart_write_opts(o->output, kind, p->diff, p->rows, p->nrows, &co, &err) < 0)
        return cli_td_error(&err);
    return EXIT_OK;
}

int cmd_plot(cli_pair *p, const char **pos)
{
    td_chart_kind kind = TD_CHART_COUNTS;
    int rc = parse_kind(pos[0], &kind);
    return rc ? rc : plot_run(p, kind);
}
