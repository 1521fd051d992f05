/* tracediff plot counts|duration CONTROL TEST -o FILE: a grouped bar chart. */
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

static int parse_kind(const char *word, td_chart_kind *kind)
{
    if (strcmp(word, "counts") == 0)
        *kind = TD_CHART_COUNTS;
    else if (strcmp(word, "duration") == 0)
        *kind = TD_CHART_DURATION;
    else {
        cli_error("plot: '%s': expected counts or duration", word);
        return EXIT_USAGE;
    }
    return 0;
}

/* "control (rank 0, iteration 5)": a side as the subtitle names it. */
static size_t side_text(char *buf, size_t cap, const cli_pair *p, int side)
{
    const td_side_notes *n = td_diff_notes(p->diff, side);
    size_t k = (size_t)snprintf(buf, cap, "%s (rank%s ", cli_side_label(&p->o, side),
                                n->nranks == 1 ? "" : "s");
    for (size_t i = 0; i < n->nranks && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "", (long long)n->ranks[i]);
    if (k < cap && n->whole_trace)
        k += (size_t)snprintf(buf + k, cap - k, ", whole trace)");
    else if (k < cap && n->niters > 2 &&
             n->iters[n->niters - 1] - n->iters[0] == (int64_t)n->niters - 1)
        k += (size_t)snprintf(buf + k, cap - k, ", iterations %lld\xE2\x80\x93%lld)",
                              (long long)n->iters[0], (long long)n->iters[n->niters - 1]);
    else if (k < cap) {
        k += (size_t)snprintf(buf + k, cap - k, ", iteration%s ", n->niters == 1 ? "" : "s");
        for (size_t i = 0; i < n->niters && k < cap; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                                  (long long)n->iters[i]);
        if (k < cap)
            k += (size_t)snprintf(buf + k, cap - k, ")");
    }
    return k < cap ? k : cap - 1;
}

/* "h100 (rank 0, iteration 6) vs mi300 (rank 0, iteration 6) · gpu" */
static void subtitle(char *buf, size_t cap, const cli_pair *p)
{
    size_t k = side_text(buf, cap, p, 0);
    k += (size_t)snprintf(buf + k, cap - k, " vs ");
    if (k < cap)
        k += side_text(buf + k, cap - k, p, 1);
    td_device d = p->o.cmp.device;
    if (k < cap)
        snprintf(buf + k, cap - k, " \xC2\xB7 %s%s",
                 d == TD_DEVICE_CPU ? "cpu" : d == TD_DEVICE_GPU ? "gpu" : "cpu and gpu",
                 p->o.cmp.short_names ? ", short names" : "");
}

static void chart_opts(td_chart_opts *co, char *sub, size_t cap, const cli_pair *p)
{
    subtitle(sub, cap, p);
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

static int plot_run(cli_pair *p, td_chart_kind kind)
{
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

int cmd_plot(const cli_command *cmd, int argc, char **argv)
{
    cli_pair p = CLI_PAIR_INIT;
    const char *pos[3];
    td_chart_kind kind = TD_CHART_COUNTS;
    int rc = cli_parse(cmd, &p.o, pos, argc, argv);
    if (rc == CLI_RUN && (rc = parse_kind(pos[0], &kind)) == 0) {
        p.o.control = pos[1];
        p.o.test = pos[2];
        rc = plot_run(&p, kind);
    }
    cli_pair_free(&p);
    return rc;
}
