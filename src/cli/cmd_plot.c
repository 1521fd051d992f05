/* tracediff plot counts|duration CONTROL TEST -o FILE: a grouped bar chart. */
#include "cli.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void usage_plot(FILE *f)
{
    fprintf(f,
            "usage: tracediff plot counts|duration CONTROL TEST [options] -o FILE\n\n"
            "A grouped bar chart, per name: control, test and their difference (test -\n"
            "control, drawn below the zero line when negative). 'counts' draws the counts\n"
            "(\"Ops Count Comparison\"), 'duration' the total durations (\"Ops Duration\n"
            "Comparison\", us). Names are shown short when that is unambiguous; in SVG\n"
            "each group's tooltip holds the full name.\n\n"
            "%s\n"
            "rows:\n"
            "  default: the 10 largest changes by absolute difference (abs_diff_counts or\n"
            "  abs_diff_duration), ProfilerStep rows left out. Any of --sort, --top or\n"
            "  --include replaces that default with exactly what is asked for.\n"
            "  --sort COLUMN [--ascending]   name, diff_duration, abs_diff_counts, ...\n"
            "  --top N                       the first N rows after sorting\n"
            "  --include REGEX, --exclude REGEX   keep or drop names (regex as in Python, PCRE2)\n"
            "  at most %d rows in one chart\n\n"
            "output:\n"
            "  -o, --output FILE   .svg, .png or .pdf (from the extension); written whole\n"
            "                      or not at all. '-o -' writes SVG to stdout.\n",
            cli_usage_selection, TD_CHART_MAX_ROWS);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

int cmd_plot(int argc, char **argv)
{
    cli_pair p = {0};
    cli_opts *o = &p.o;
    const char *pos[3];
    out_file out = {0};
    td_chart_kind kind = TD_CHART_COUNTS;
    int rc = cli_parse_args(o, argc, argv, usage_plot, 3, pos,
                            "counts or duration, CONTROL and TEST");
    if (rc)
        goto done;
    if (strcmp(pos[0], "counts") == 0)
        kind = TD_CHART_COUNTS;
    else if (strcmp(pos[0], "duration") == 0)
        kind = TD_CHART_DURATION;
    else {
        cli_error("plot: '%s': expected counts or duration", pos[0]);
        rc = EXIT_USAGE + 1;
        goto done;
    }
    o->control = pos[1];
    o->test = pos[2];
    /* Check what can be checked before minutes of reading. */
    bool to_stdout = o->output && strcmp(o->output, "-") == 0;
    if (!o->output) {
        cli_error("plot: -o FILE is required (.svg, .png or .pdf)");
        rc = EXIT_USAGE + 1;
        goto done;
    }
    bool svg = to_stdout || has_suffix(o->output, ".svg");
    if (!svg && !has_suffix(o->output, ".png") && !has_suffix(o->output, ".pdf")) {
        cli_error("plot: %s: name the file .svg, .png or .pdf", o->output);
        rc = EXIT_USAGE + 1;
        goto done;
    }
    if (o->format) {
        cli_error("plot: --format does not apply: the format follows -o's extension");
        rc = EXIT_USAGE + 1;
        goto done;
    }
    if (!o->sort_text && !o->view.top && !o->view.include) {
        int asc = o->view.ascending;
        td_chart_default_view(&o->view, kind);
        o->view.ascending = asc;
    }
    if ((rc = cli_pair_run(&p)) != 0) {
        rc++;
        goto done;
    }
    td_error err = {0};
    if (svg) {
        if ((rc = out_open(&out, o->output)) != 0) {
            rc++;
            goto done;
        }
        if (td_chart_svg(out.f, kind, p.diff, p.rows, p.nrows, o->control_label, o->test_label, &err) < 0) {
            out_abort(&out);
            rc = cli_td_error(&err) + 1;
            goto done;
        }
        rc = out_commit(&out) + 1;
    } else {
        if (td_chart_write(o->output, kind, p.diff, p.rows, p.nrows, o->control_label, o->test_label,
                           &err) < 0) {
            rc = cli_td_error(&err) + 1;
            goto done;
        }
        rc = EXIT_OK + 1;
    }
done:
    cli_pair_free(&p);
    return rc - 1;
}
