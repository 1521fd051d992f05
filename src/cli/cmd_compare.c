/* tracediff compare CONTROL TEST: per name, counts and total durations of
 * both sides and their differences, as a table, CSV, JSON or Markdown. */
#include "options.h"

#include <string.h>
#include <unistd.h>

static void table_opts(td_write_opts *w, FILE *f)
{
    bool tty = f == stdout && cli_isatty(STDOUT_FILENO);
    w->width = cli_term_width(tty);
    w->color = f == stdout && cli_color_ok(stdout);
    w->ascii = !cli_unicode_ok();
    w->rules = tty;
}

static void print_side_header(FILE *f, const cli_opts *o, const td_diff *d, int side,
                              const char *path)
{
    const td_side_notes *n = td_diff_notes(d, side);
    fprintf(f, "%-8s %s  rank%s ", cli_side_label(o, side), path, n->nranks == 1 ? "" : "s");
    for (size_t i = 0; i < n->nranks; i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)n->ranks[i]);
    if (n->whole_trace)
        fprintf(f, "  whole trace (no ProfilerStep)");
    else {
        fprintf(f, "  iteration%s ", n->niters == 1 ? "" : "s");
        for (size_t i = 0; i < n->niters; i++)
            fprintf(f, "%s%lld", i ? "," : "", (long long)n->iters[i]);
    }
    fprintf(f, "  %llu %s\n", (unsigned long long)n->events, n->events == 1 ? "event" : "events");
}

static const char *device_name(td_device d)
{
    return d == TD_DEVICE_CPU ? "cpu" : d == TD_DEVICE_GPU ? "gpu" : "all";
}

static int write_table(FILE *f, const cli_pair *p, td_write_opts *w)
{
    const cli_opts *o = &p->o;
    table_opts(w, f);
    print_side_header(f, o, p->diff, 0, o->control);
    print_side_header(f, o, p->diff, 1, o->test);
    bool by = o->cmp.by != TD_BY_KERNEL; /* --by implies the gpu side */
    fprintf(f, "device   %s%s%s%s\n", device_name(by ? TD_DEVICE_GPU : o->cmp.device),
            by ? "  by " : "", by ? td_diff_key_name(p->diff) : "",
            o->cmp.short_names ? "  (short names)" : "");
    if (p->stats)
        fprintf(f, "stats    samples per %s (%zu control, %zu test (rank, iteration) samples)  "
                   "alpha %g  min change %g%%\n",
                td_samples_name(td_stats_samples(p->stats)), td_stats_side_samples(p->stats, 0),
                td_stats_side_samples(p->stats, 1), td_stats_alpha(p->stats),
                td_stats_min_change(p->stats));
    fputc('\n', f);
    return td_write_table(f, p->diff, w);
}

static int write_rows(FILE *f, const cli_pair *p, const char *fmt)
{
    const cli_opts *o = &p->o;
    td_write_opts w = {.control_label = o->control_label, .test_label = o->test_label,
                       .rows = p->rows, .nrows = p->nrows, .stats = p->stats};
    if (strcmp(fmt, "csv") == 0)
        return td_write_csv(f, p->diff, &w);
    if (strcmp(fmt, "json") == 0)
        return td_write_json(f, p->diff, &w);
    if (strcmp(fmt, "markdown") == 0)
        return td_write_markdown(f, p->diff, &w);
    return write_table(f, p, &w);
}

static int compare_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    /* --format was checked by the parser; the extension gives only known ones. */
    const char *fmt = cli_default_format(o, "table", "csv");
    out_file out = {0};
    int rc = cli_pair_run(p);
    if (rc == 0)
        rc = out_open(&out, o->output);
    if (rc)
        return rc;
    if (write_rows(out.f, p, fmt) < 0) {
        out_abort(&out);
        cli_error("%s: write failed", o->output ? o->output : "stdout");
        return EXIT_DATA;
    }
    return out_commit(&out);
}

int cmd_compare(const cli_command *cmd, int argc, char **argv)
{
    cli_pair p = {0};
    const char *pos[2];
    int rc = cli_parse(cmd, &p.o, pos, argc, argv);
    if (rc == CLI_RUN) {
        p.o.control = pos[0];
        p.o.test = pos[1];
        rc = compare_run(&p);
    }
    cli_pair_free(&p);
    return rc;
}
