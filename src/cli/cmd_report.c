/* tracediff report CONTROL TEST -o FILE.html: everything in one offline page. */
#include "cli.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>

static void usage_report(FILE *f)
{
    fprintf(f,
            "usage: tracediff report CONTROL TEST [options] -o FILE.html\n\n"
            "One self-contained HTML file (no network; opens from disk): both sides (paths,\n"
            "ranks, iterations, GPUs, events per file), headline numbers (total GPU time\n"
            "and step time per side, and their change), both charts, the full table\n"
            "(sortable by any column, filterable by name), the five ops_diff lists and the\n"
            "notes. Open it at FILE.html#sort=diff_duration&dir=desc to start sorted.\n\n"
            "%s\n"
            "chart rows:\n"
            "  default: the 10 largest changes of each chart, ProfilerStep rows left out;\n"
            "  --sort, --top, --include and --exclude pick them as for 'plot'. The table\n"
            "  always holds every row.\n\n"
            "output:\n"
            "  -o, --output FILE   written whole or not at all ('-': stdout)\n",
            cli_usage_selection);
}

int cmd_report(int argc, char **argv)
{
    cli_pair p = {0};
    cli_opts *o = &p.o;
    const char *pos[2];
    out_file out = {0};
    int rc = cli_parse_args(o, argc, argv, usage_report, 2, pos, "CONTROL and TEST");
    if (rc)
        goto done;
    o->control = pos[0];
    o->test = pos[1];
    if (!o->output) {
        cli_error("report: -o FILE is required (e.g. -o report.html)");
        rc = EXIT_USAGE + 1;
        goto done;
    }
    if (o->format && strcmp(o->format, "html") != 0) {
        cli_error("--format '%s': a report is html", o->format);
        rc = EXIT_USAGE + 1;
        goto done;
    }
    bool custom = o->sort_text || o->view.top || o->view.include;
    if ((rc = cli_pair_run(&p)) != 0) {
        rc++;
        goto done;
    }
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
    td_report_input in = {p.control,        p.test,         &o->cmp,           p.diff,
                          o->control_label, o->test_label, {pick[0], pick[1]}};
    if ((rc = out_open(&out, o->output)) != 0) {
        rc++;
        goto done;
    }
    td_error err = {0};
    if (td_report_write_html(out.f, &in, &err) < 0) {
        out_abort(&out);
        rc = cli_td_error(&err) + 1;
        goto done;
    }
    rc = out_commit(&out) + 1;
done:
    cli_pair_free(&p);
    return rc - 1;
}
