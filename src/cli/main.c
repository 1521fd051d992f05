/* tracediff: the command-line program. Options, messages, exit codes. */
#define _GNU_SOURCE
#include "cli.h"
#include "commands.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_main[] =
    "usage: tracediff <command> [options]\n"
    "\n"
    "Compare two sets of PyTorch profiler traces: a control run and a test run.\n"
    "\n"
    "commands:\n"
    "  compare CONTROL TEST   per-name counts and total durations of both sides, and the diff\n"
    "  ops     CONTROL TEST   the names added, deleted, increased, decreased, unchanged\n"
    "  info    SET            ranks, iterations, files and event counts of one trace set\n"
    "  plot    counts|duration CONTROL TEST -o FILE   a grouped bar chart (.svg, .png, .pdf)\n"
    "  report  CONTROL TEST -o FILE.html             one self-contained HTML report\n"
    "  summarize SET -o FILE.tdsum [--run NAME]      keep a set's numbers in a summary\n"
    "  runs    FILE.tdsum     the runs a summary holds\n"
    "  trend   FILE.tdsum     total duration per name across its runs\n"
    "\n"
    "A trace set is a directory of trace files (one per rank: .json, .json.gz, .json.zst)\n"
    "or one trace file, or a summary: FILE.tdsum or FILE.tdsum#RUN.\n"
    "'tracediff <command> --help' tells more.\n"
    "\n"
    "exit status: 0 ok, 1 bad data or I/O error, 2 bad usage\n";

static const char usage_selection[] =
    "selection:\n"
    "  --control-rank R, --test-rank R        R: N | N,M,... | all (default: the lowest rank)\n"
    "  --control-iteration I, --test-iteration I\n"
    "                                         I: N | N,M,... | all (default: the lowest)\n"
    "  --device all|cpu|gpu                   cpu: stream -1; gpu: every other stream\n"
    "  --short-names                          group by short names (no templates, arguments)\n"
    "  --hta-strict                           HTA's own numbers: GPU events on stream 0 get no\n"
    "                                         iteration (default: their launch's; docs/numbers.md)\n"
    "  --control-label NAME, --test-label NAME  side labels and column prefixes\n"
    "  -j, --jobs N                           files read at once (default: one per core)\n"
    "  -q, --quiet                            no notes on stderr\n";

static const char usage_view[] =
    "rows:\n"
    "  --sort COLUMN [--ascending]   name, diff_duration, diff_counts, abs_diff_duration,\n"
    "                                abs_diff_counts, control_counts, test_total_duration, ...\n"
    "                                (numbers sort descending unless --ascending)\n"
    "  --top N                       the first N rows after sorting\n"
    "  --include REGEX, --exclude REGEX   keep or drop names (regex as in Python, PCRE2)\n";

static void usage_compare(FILE *f)
{
    fprintf(f, "usage: tracediff compare CONTROL TEST [options]\n\n"
               "Per name (or short name): counts and total durations (us) of each side,\n"
               "their differences, and +/-/= by count. Rows are sorted by name unless --sort.\n\n"
               "%s\n%s\n"
               "output:\n"
               "  --format table|csv|json|markdown   (default: table on a terminal, else csv;\n"
               "                                     with -o, from the file's extension)\n"
               "  -o, --output FILE                  written whole or not at all\n",
            usage_selection, usage_view);
}

static void usage_ops(FILE *f)
{
    fprintf(f, "usage: tracediff ops CONTROL TEST [options]\n\n"
               "The five ops_diff lists by full name: added, deleted, increased, decreased,\n"
               "unchanged (each sorted by name). --short-names does not apply here.\n\n"
               "%s\n"
               "output:\n"
               "  --format table|json   (default: table on a terminal, else json)\n"
               "  -o, --output FILE\n",
            usage_selection);
}

static void usage_info(FILE *f)
{
    fprintf(f, "usage: tracediff info SET [--format table|json] [-j N] [-o FILE]\n\n"
               "Ranks, iterations, files, sizes and event counts by category of one set.\n");
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static const char *default_format(const cli_opts *o, const char *tty_fmt, const char *pipe_fmt)
{
    if (o->format)
        return o->format;
    if (o->output && strcmp(o->output, "-") != 0) {
        if (ends_with(o->output, ".csv"))
            return "csv";
        if (ends_with(o->output, ".json"))
            return "json";
        if (ends_with(o->output, ".md"))
            return "markdown";
        return pipe_fmt;
    }
    return isatty(STDOUT_FILENO) ? tty_fmt : pipe_fmt;
}

static void table_opts(td_write_opts *w, const cli_opts *o, FILE *f)
{
    bool tty = f == stdout && isatty(STDOUT_FILENO);
    w->width = cli_term_width(tty);
    w->color = f == stdout && cli_color_ok(stdout);
    w->ascii = !cli_unicode_ok();
    (void)o;
}

static void print_side_header(FILE *f, const cli_opts *o, const td_diff *d, int side,
                              const char *path)
{
    const td_side_notes *n = td_diff_notes(d, side);
    const char *label = side ? (o->test_label ? o->test_label : "test")
                             : (o->control_label ? o->control_label : "control");
    fprintf(f, "%-8s %s  rank%s ", label, path, n->nranks == 1 ? "" : "s");
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

static int cmd_compare(int argc, char **argv)
{
    cli_pair p = {0};
    cli_opts *o = &p.o;
    const char *pos[2];
    out_file out = {0};
    int rc = cli_parse_args(o, argc, argv, usage_compare, 2, pos, "CONTROL and TEST");
    if (rc)
        goto done;
    o->control = pos[0];
    o->test = pos[1];
    const char *fmt = default_format(o, "table", "csv");
    if (strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json") &&
        strcmp(fmt, "markdown")) {
        cli_error("--format '%s': expected table, csv, json or markdown", fmt);
        rc = EXIT_USAGE + 1;
        goto done;
    }
    if ((rc = cli_pair_run(&p)) != 0) {
        rc++;
        goto done;
    }
    if ((rc = out_open(&out, o->output)) != 0) {
        rc++;
        goto done;
    }
    td_write_opts w = {o->control_label, o->test_label, p.rows, p.nrows, 0, 0, 0};
    int wr;
    if (strcmp(fmt, "csv") == 0)
        wr = td_write_csv(out.f, p.diff, &w);
    else if (strcmp(fmt, "json") == 0)
        wr = td_write_json(out.f, p.diff, &w);
    else if (strcmp(fmt, "markdown") == 0)
        wr = td_write_markdown(out.f, p.diff, &w);
    else {
        table_opts(&w, o, out.f);
        print_side_header(out.f, o, p.diff, 0, o->control);
        print_side_header(out.f, o, p.diff, 1, o->test);
        fprintf(out.f, "device   %s%s\n\n",
                o->cmp.device == TD_DEVICE_CPU ? "cpu" : o->cmp.device == TD_DEVICE_GPU ? "gpu"
                                                                                      : "all",
                o->cmp.short_names ? "  (short names)" : "");
        wr = td_write_table(out.f, p.diff, &w);
    }
    if (wr < 0) {
        out_abort(&out);
        cli_error("%s: write failed", o->output ? o->output : "stdout");
        rc = EXIT_DATA + 1;
        goto done;
    }
    rc = out_commit(&out) + 1;
done:
    cli_pair_free(&p);
    return rc - 1;
}

static void ops_table(FILE *f, const td_diff *d, bool color)
{
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    static const char *const tint[] = {"\033[32m", "\033[31m", "\033[33m", "\033[36m", ""};
    for (int c = 0; c < TD_OP_NCATEGORIES; c++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += td_row_op_category(&rows[i]) == (td_op_category)c;
        fprintf(f, "%s%s (%zu)%s\n", color ? tint[c] : "", td_op_category_name((td_op_category)c),
                k, color && *tint[c] ? "\033[0m" : "");
        for (size_t i = 0; i < n; i++) {
            if (td_row_op_category(&rows[i]) != (td_op_category)c)
                continue;
            fputs("  ", f);
            for (size_t b = 0; b < rows[i].name_len; b++) {
                unsigned char ch = (unsigned char)rows[i].name[b];
                fputc(ch < 0x20 ? '?' : ch, f);
            }
            fputc('\n', f);
        }
    }
}

static int cmd_ops(int argc, char **argv)
{
    cli_pair p = {0};
    cli_opts *o = &p.o;
    const char *pos[2];
    out_file out = {0};
    int rc = cli_parse_args(o, argc, argv, usage_ops, 2, pos, "CONTROL and TEST");
    if (rc)
        goto done;
    o->control = pos[0];
    o->test = pos[1];
    o->cmp.short_names = 0; /* spec §7: always by full name */
    const char *fmt = default_format(o, "table", "json");
    if (strcmp(fmt, "table") && strcmp(fmt, "json")) {
        cli_error("--format '%s': expected table or json", fmt);
        rc = EXIT_USAGE + 1;
        goto done;
    }
    if ((rc = cli_pair_run(&p)) != 0) {
        rc++;
        goto done;
    }
    if ((rc = out_open(&out, o->output)) != 0) {
        rc++;
        goto done;
    }
    if (strcmp(fmt, "json") == 0)
        td_write_ops_json(out.f, p.diff);
    else
        ops_table(out.f, p.diff, out.f == stdout && cli_color_ok(stdout));
    rc = out_commit(&out) + 1;
done:
    cli_pair_free(&p);
    return rc - 1;
}

int main(int argc, char **argv)
{
    /* Only the character type follows the environment: numbers are always
     * read and written with a '.' whatever the locale. */
    setlocale(LC_CTYPE, "");
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("tracediff %s\n", TD_VERSION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "ops") == 0)
        return cmd_ops(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1, usage_info);
    for (const cli_command *k = cli_extra_commands; k->name; k++)
        if (strcmp(cmd, k->name) == 0)
            return k->run(argc - 1, argv + 1);
    cli_error("unknown command '%s' (see '%s --help')", cmd, g_prog);
    return EXIT_USAGE;
}
