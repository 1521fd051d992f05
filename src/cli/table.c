/* The one table of commands and the one table of options. The parser, every
 * --help, the top-level usage, the man page, the README's usage block and the
 * shell completions are made from them; nothing about an option is written
 * anywhere else.
 *
 * To add an option:
 *   1. a field for its value in cli_opts (cli.h);
 *   2. a setter below (one line for a flag or a string; use cli_value_count,
 *      cli_value_list, or your own check that prints "--opt 'V': expected ...");
 *   3. one entry in cli_options[]: name, short name (or 0), the value's name
 *      (NULL for a flag), its choices ("iteration|call": the parser refuses
 *      anything else, completions offer them), its group, the commands that
 *      take it (ON(CMD_X) | ..., ON_PAIR for every comparing command), help;
 *   4. the code that uses the value, in the command's cmd_*.c;
 *   5. regenerate the docs: python3 tests/cli_doc_test.py build/tracediff --regen
 *      (docs/tracediff.1 and the README's usage block), and the .t files of
 *      the --help texts: python3 tests/cli_test.py build/tracediff --only help --regen.
 * An option whose help differs between commands (--format, -o) has one entry
 * per wording, with disjoint command masks.
 *
 * To add a command: an id in cli_command_id (options.h), an entry in
 * cli_commands[] with at least one example on bundled files, a cmd_<name>.c
 * with its handler (declared in options.h, run from commands.c), and the command in the masks of
 * the options it takes.
 * A new group heading goes in cli_groups[].
 */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

#define TRACE_SET_NOTE                                                                             \
    "A trace set is a directory of trace files (one per rank: .json, .json.gz,\n"                  \
    ".json.zst; Nsight Systems or rocpd .sqlite/.db exports) or one trace file."

int cli_value_count(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        cli_error("%s '%s': expected a whole number from %ld to %ld", opt, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_value_list(td_list *l, const char *opt, const char *v)
{
    td_error err = {0};
    if (td_list_parse(l, v, &err) < 0) {
        cli_error("%s %s", opt, err.msg);
        return -1;
    }
    return 0;
}

const char *cli_by_name(td_by by)
{
    static const char *const names[] = {"kernel", "op",     "top-op", "annotation",
                                        "class",  "module", "stack"};
    return by >= TD_BY_KERNEL && by <= TD_BY_STACK ? names[by] : "?";
}

const cli_command cli_commands[] = {
    {CMD_COMPARE,
     "compare",
     "per-name counts and total durations of both sides, and the diff",
     "CONTROL TEST",
     2,
     "CONTROL and TEST",
     NULL,
     NULL,
     "Per name (or short name): counts and total durations (us) of each side,\n"
     "their differences, and +/-/= by count. Rows: the table and markdown by the\n"
     "absolute change in duration, largest first; CSV and JSON by name (HTA's\n"
     "order); --sort sets the order of every format.\n\n" TRACE_SET_NOTE,
     {"tracediff compare examples/control examples/test --sort abs_diff_duration --top 10",
      "tracediff compare examples/control examples/test --device gpu --short-names -o diff.csv",
      NULL}},
    {CMD_OPS,
     "ops",
     "the names added, deleted, increased, decreased, unchanged",
     "CONTROL TEST",
     2,
     "CONTROL and TEST",
     NULL,
     NULL,
     "The five ops_diff lists by full name: added, deleted, increased, decreased,\n"
     "unchanged (each sorted by name). --short-names does not apply here.\n\n"
     "On a terminal, a list per category fitted to its width (long names cut as\n"
     "compare's table cuts them); piped, CSV with one line per name (category,name; full\n"
     "names); --format json, HTA's ops_diff as an object of five arrays.",
     {"tracediff ops examples/control examples/test",
      "tracediff ops examples/control examples/test --device cpu --format json", NULL}},
    {CMD_INFO,
     "info",
     "ranks, iterations, files and event counts of one trace set",
     "SET",
     1,
     "a trace set",
     NULL,
     NULL,
     "Ranks, iterations, files, sizes and event counts by category of one set.\n\n" TRACE_SET_NOTE,
     {"tracediff info examples/control", "tracediff info examples/test --format json", NULL}},
    {CMD_PLOT,
     "plot",
     "bar charts of counts or durations, a flame graph, the roofline, the breakdown (.svg, .png, "
     ".pdf)",
     "counts|duration|flame|roofline|breakdown CONTROL TEST",
     3,
     "counts, duration, flame, roofline or breakdown, CONTROL and TEST",
     "counts|duration|flame|roofline|breakdown",
     "-o FILE",
     "A grouped bar chart, per name: control and test, and below them, on an axis\n"
     "of its own so that small changes stay visible, their difference (test -\n"
     "control, below that zero line when negative). 'counts' draws the counts\n"
     "(\"Ops Count Comparison\"), 'duration' the total durations (\"Ops Duration\n"
     "Comparison\", us). Names are shown short when that is unambiguous; in SVG\n"
     "each group's tooltip holds the full name.\n"
     "\n"
     "Rows: by default the 10 largest changes by absolute difference\n"
     "(abs_diff_counts or abs_diff_duration), ProfilerStep rows left out. Any of\n"
     "--sort, --top or --include replaces that default with exactly what is asked\n"
     "for. At most " STR(TD_CHART_MAX_ROWS) " rows in one chart.\n"
                                            "\n"
                                            "'flame' draws a differential flame graph of the GPU "
                                            "stacks (docs/stacks.md):\n"
                                            "an icicle, each frame as wide as its test time, red "
                                            "when slower than in\n"
                                            "control, blue when faster, grey within --min-change, "
                                            "hatched when only in\n"
                                            "test; each frame's tooltip gives both times and the "
                                            "change. --side draws\n"
                                            "one side alone.\n"
                                            "\n"
                                            "'roofline' draws roofline's rows (docs/roofline.md) "
                                            "on log-log axes:\n"
                                            "intensity (FLOP/byte) against achieved TFLOP/s, each "
                                            "side's roofs (memory\n"
                                            "slope, then flat at each peak its rows use; test "
                                            "dashed), a point per row\n"
                                            "and side, and an arrow from control to test for the "
                                            "--top rows (default\n"
                                            "10) with the most GPU time. It takes roofline's "
                                            "--control-gpu/--test-gpu.\n"
                                            "\n"
                                            "'breakdown' draws where the step time went "
                                            "(docs/breakdown.md): the\n"
                                            "waterfall from control's step time to test's "
                                            "through each component's\n"
                                            "change, as `tracediff breakdown` computes it (same "
                                            "selection and\n"
                                            "defaults); with --per-rank a bar per rank and side, "
                                            "stacked by component,\n"
                                            "the slowest rank and stragglers marked.",
     {"tracediff plot duration examples/control examples/test -o duration.svg",
      "tracediff plot counts examples/control examples/test --device gpu --top 20 -o counts.png",
      "tracediff plot breakdown examples/control examples/test -o breakdown.svg", NULL}},
    {CMD_REPORT,
     "report",
     "one self-contained HTML report",
     "CONTROL TEST",
     2,
     "CONTROL and TEST",
     NULL,
     "[-o FILE.html]",
     "One self-contained HTML file (no network; opens from disk): both sides (paths,\n"
     "ranks, iterations, GPUs, events per file), headline numbers (total GPU time\n"
     "and step time per side, and their change), both charts, the full table\n"
     "(sortable by any column, filterable by name), the five ops_diff lists and the\n"
     "notes. Open it at FILE.html#sort=diff_duration&dir=desc to start sorted.\n"
     "\n"
     "Chart rows: by default the 10 largest changes of each chart, ProfilerStep\n"
     "rows left out; --sort, --top, --include and --exclude pick them as for\n"
     "'plot'. The table always holds every row.",
     {"tracediff report examples/control examples/test -o report.html", NULL}},
    {CMD_SUMMARIZE,
     "summarize",
     "keep a trace set's aggregates in a summary (SQLite)",
     "SET",
     1,
     "a trace set",
     NULL,
     "-o FILE.tdsum",
     "Keeps what compare, ops, report and the statistics need from a trace set in an\n"
     "SQLite file (docs/summaries.md), which every command then takes in place of the\n"
     "set, as FILE.tdsum (its only run) or FILE.tdsum#RUN, with the same output.\n"
     "A new file is written whole; a run is added to an existing one in one\n"
     "transaction. The selection options keep less (default: everything); a\n"
     "summary answers only what it keeps.\n\n" TRACE_SET_NOTE,
     {"tracediff summarize examples/control -o history.tdsum --run baseline",
      "tracediff compare history.tdsum#baseline examples/test", NULL}},
    {CMD_RUNS,
     "runs",
     "the runs kept in a summary",
     "FILE.tdsum",
     1,
     "a summary",
     NULL,
     NULL,
     "The runs of a summary in the order they were added: name, when made, ranks,\n"
     "iterations, source size, events kept, total CPU and GPU time (us).",
     {"tracediff runs history.tdsum", "tracediff runs history.tdsum --format json", NULL}},
    {CMD_TREND,
     "trend",
     "each name's total duration across the runs of a summary",
     "FILE.tdsum",
     1,
     "a summary",
     NULL,
     NULL,
     "Total duration (us) per name in each run of a summary, runs in the order they\n"
     "were added (or as --runs lists them), with the change from the first run. Names\n"
     "are ordered by their change from the first run to the last, largest first.\n"
     "Totals cover every kept event of a run (all ranks, iterations and streams).\n"
     "-o FILE.svg, .png or .pdf draws a line chart (one line per name; default --top 10).",
     {"tracediff trend history.tdsum --device gpu --top 5",
      "tracediff trend history.tdsum --names 'gemm|attn' -o trend.svg", NULL}},
    {CMD_CHECK,
     "check",
     "CI gate: exit 3 when a name got significantly slower",
     "CONTROL TEST",
     2,
     "CONTROL and TEST",
     NULL,
     NULL,
     "Compares both sides with statistics (as compare --stats; docs/stats.md) and\n"
     "fails when some name is a regression: verdict 'slower' (q <= alpha and the\n"
     "mean grew by at least --min-change) and a change of at least\n"
     "--max-regression, or a name only in test with a total of at least --min-us\n"
     "(new; --allow-new turns it off).\n\n"
     "Waits (synchronize calls, and ops at least 80% of whose time is inside them\n"
     "or device-to-host copies, as measured) are listed apart and do not fail\n"
     "(--gate-waits). With per-call samples and one (rank, iteration) a side, run-\n"
     "to-run noise is not measured: the output says so, and a name fails only when\n"
     "its total grew by --max-regression as well. --max-step-regression P% also\n"
     "gates the step time and the GPU time per (rank, iteration). Worked examples:\n"
     "docs/stats.md.\n\n"
     "Exit status: 0 no regression, 1 bad data (an unreadable trace, an empty\n"
     "selection), 2 bad usage, 3 at least one regression.",
     {"tracediff check examples/control examples/test",
      "tracediff check examples/control examples/test --format markdown --junit check.xml", NULL}},
    {CMD_EXPLAIN,
     "explain",
     "the kernels one op launched on each side, and its CPU time",
     "CONTROL TEST NAME",
     3,
     "CONTROL, TEST and NAME",
     NULL,
     NULL,
     "The GPU events one op launched (NAME: a cpu_op name such as aten::mm), per\n"
     "kernel name on each side, with counts, total GPU time (us) and the diff; and\n"
     "the op's own CPU time (its events' total duration in the selection) beside\n"
     "its GPU time. The GPU side only. --by top-op or annotation: NAME is an\n"
     "outermost op or a user annotation. csv: a last row (CPU time). Kernels are\n"
     "sorted by |change of duration| unless --sort. A NAME in neither selection is\n"
     "an error (exit 1) naming the closest names. See docs/attribution.md.\n\n" TRACE_SET_NOTE,
     {"tracediff explain examples/control examples/test aten::mm --sort abs_diff_duration",
      "tracediff explain examples/control examples/test aten::mm --format json", NULL}},
    {CMD_BREAKDOWN,
     "breakdown",
     "where the step time went: GPU busy, idle, overlap; diffed, as a waterfall",
     "CONTROL TEST",
     2,
     "CONTROL and TEST",
     NULL,
     NULL,
     "Per side and rank, over the selection: the step time (the selected\n"
     "ProfilerStep durations, or the trace's span without steps), the GPU's\n"
     "kernel time, busy, idle, compute and non-compute time, the time per kernel\n"
     "type and overlap, exposed communication and HTA's communication-computation\n"
     "overlap, idle time by cause per stream, and the host's time in synchronize\n"
     "calls (HTA's TraceAnalysis numbers: docs/breakdown.md). Then the diff of the\n"
     "sides' means per (rank, iteration), with Welch's test when each side has 3\n"
     "or more samples, and a waterfall from control's step time to test's whose\n"
     "components add up to the change. Default selection: every rank, and the\n"
     "steady iterations of a side with 2 or more steps, else its whole trace.\n\n" TRACE_SET_NOTE,
     {"tracediff breakdown examples/control examples/test",
      "tracediff breakdown examples/control examples/test --hta-scope --format json", NULL}},
    {CMD_ROOFLINE,
     "roofline",
     "per op and shape: work, achieved rate, % of the GPU's roofline; diffed",
     "CONTROL TEST",
     2,
     "CONTROL and TEST",
     NULL,
     NULL,
     "For traces recorded with record_shapes=True: one row per (op, input dims,\n"
     "input types) that has a model (GEMM, attention, convolution, elementwise,\n"
     "layer norm: TraceLens's formulas), matched across the sides. Per side: calls,\n"
     "FLOPs and bytes per call, GPU time (|U| of the kernels of the op and the ops\n"
     "below it), achieved TFLOP/s and TB/s, intensity, the GPU's peak and bandwidth,\n"
     "efficiency (% of the roofline) and bound; then the change of time, rate and\n"
     "efficiency and a reading (more work, same work at a lower rate, became\n"
     "memory-bound, ...). Rows sorted by |time change|. Below: each side's coverage\n"
     "(the share of GPU busy time in modelled ops) and its largest unmodelled ops.\n"
     "The GPUs come from the traces' deviceProperties or --control-gpu/--test-gpu.\n"
     "See docs/roofline.md.\n\n" TRACE_SET_NOTE,
     {"tracediff roofline control/ test/ --control-iteration all --test-iteration all",
      "tracediff roofline control/ test/ --test-gpu MI300X --by class --format json", NULL}},
    {CMD_COMPLETION,
     "completion",
     "a shell completion script (bash or zsh) on stdout",
     "bash|zsh",
     1,
     "bash or zsh",
     "bash|zsh",
     NULL,
     "Prints a script that completes commands, options, the values of options\n"
     "that take a few words (--device, --format), and file names.",
     {"source <(tracediff completion bash)",
      "tracediff completion bash > ~/.local/share/bash-completion/completions/tracediff",
      "tracediff completion zsh > ~/.zfunc/_tracediff", NULL}},
    {CMD_MAN,
     "man",
     "this program's manual page (roff) on stdout",
     "",
     0,
     "",
     NULL,
     NULL,
     "Prints the manual page, made from the same tables as every --help;\n"
     "--format usage prints the option list of README.md, --format tsv the option\n"
     "table, one option and command a line (for scripts and tests).",
     {"tracediff man > tracediff.1 && man ./tracediff.1", NULL}},
    {CMD_COUNT, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, {NULL}},
};

const char *const cli_groups[] = {"selection", "statistics", "gate", "rows", "output", NULL};

/* Setters: store a value, or say why it is bad. */

/* "steady" (all but the lowest) is for iterations only. */
static int rank_list(td_list *l, const char *opt, const char *v)
{
    if (cli_value_list(l, opt, v) < 0)
        return -1;
    if (l->steady) {
        cli_error("%s '%s': expected N, N,M,... or all (steady is for iterations)", opt, v);
        return -1;
    }
    return 0;
}

static int set_control_rank(cli_opts *o, const char *v)
{
    return rank_list(&o->cmp.control_ranks, "--control-rank", v);
}

static int set_test_rank(cli_opts *o, const char *v)
{
    return rank_list(&o->cmp.test_ranks, "--test-rank", v);
}

static int set_control_iteration(cli_opts *o, const char *v)
{
    return cli_value_list(&o->cmp.control_iters, "--control-iteration", v);
}

static int set_test_iteration(cli_opts *o, const char *v)
{
    return cli_value_list(&o->cmp.test_iters, "--test-iteration", v);
}

static int set_device(cli_opts *o, const char *v)
{
    /* The parser has checked v against the choices. */
    o->cmp.device = strcmp(v, "cpu") == 0   ? TD_DEVICE_CPU
                    : strcmp(v, "gpu") == 0 ? TD_DEVICE_GPU
                                            : TD_DEVICE_ALL;
    return 0;
}

static int set_short_names(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.short_names = 1;
    return 0;
}

static int set_per_iteration(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.per_iteration = 1;
    return 0;
}

static int set_cat(cli_opts *o, const char *v)
{
    if (!*v || strspn(v, ",") == strlen(v) || o->cmp.exclude_categories) {
        cli_error("--cat '%s': expected categories, e.g. cpu_op,kernel (see 'tracediff info'; "
                  "not with --no-python)",
                  v);
        return -1;
    }
    o->cmp.categories = v;
    return 0;
}

static int set_no_python(cli_opts *o, const char *v)
{
    (void)v;
    if (o->cmp.categories && !o->cmp.exclude_categories) {
        cli_error("--no-python: not with --cat (list the categories to keep instead)");
        return -1;
    }
    o->cmp.categories = "python_function";
    o->cmp.exclude_categories = 1;
    return 0;
}

static int set_normalize_names(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.normalize_names = 1;
    return 0;
}

static int set_rename(cli_opts *o, const char *v)
{
    td_error err = {0};
    if (td_renames_add(&o->renames, v, &err) < 0) {
        cli_error("%s", err.msg);
        return -1;
    }
    o->cmp.renames = o->renames;
    return 0;
}

static int set_no_normalize_names(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.normalize_names = 0;
    return 0;
}

static int set_explain_names(cli_opts *o, const char *v)
{
    (void)v;
    o->explain_names = true;
    return 0;
}

static int set_hta_strict(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.hta_strict = 1;
    return 0;
}

static int set_ns(cli_opts *o, const char *v)
{
    (void)v;
    o->ns = true;
    return 0;
}

static int set_nsys_names(cli_opts *o, const char *v)
{
    o->nsys_demangled = strcmp(v, "demangled") == 0;
    return 0;
}

static int set_pids(cli_opts *o, const char *v)
{
    td_list_clear(&o->pids);
    memset(&o->pids, 0, sizeof o->pids);
    if (cli_value_list(&o->pids, "--pid", v) < 0)
        return -1;
    bool bad = o->pids.all || o->pids.steady || o->pids.n == 0;
    for (size_t i = 0; i < o->pids.n; i++)
        bad |= o->pids.v[i] < 0;
    if (bad) {
        cli_error("--pid '%s': expected PID or PID,PID,... (process ids, as info lists them)", v);
        return -1;
    }
    return 0;
}

static int set_control_label(cli_opts *o, const char *v)
{
    o->control_label = v;
    return 0;
}

static int set_test_label(cli_opts *o, const char *v)
{
    o->test_label = v;
    return 0;
}

static int set_jobs(cli_opts *o, const char *v)
{
    long x;
    if (cli_value_count("-j", v, 1, 256, &x) < 0)
        return -1;
    o->threads = (int)x;
    return 0;
}

static int set_quiet(cli_opts *o, const char *v)
{
    (void)v;
    o->quiet = true;
    return 0;
}

static int set_csv_safe(cli_opts *o, const char *v)
{
    (void)v;
    o->csv_safe = true;
    return 0;
}

/* "all" keeps everything, as when left out. */
static int set_one_list(td_list *l, const char *opt, const char *v)
{
    if (rank_list(l, opt, v) < 0)
        return -1;
    if (l->all) {
        td_list_clear(l);
        memset(l, 0, sizeof *l);
    }
    return 0;
}

static int set_rank(cli_opts *o, const char *v)
{
    return set_one_list(&o->ranks, "--rank", v);
}

static int set_iteration(cli_opts *o, const char *v)
{
    return set_one_list(&o->iters, "--iteration", v);
}

static int set_run(cli_opts *o, const char *v)
{
    o->run_name = v;
    return 0;
}

static int set_replace(cli_opts *o, const char *v)
{
    (void)v;
    o->replace = true;
    return 0;
}

static int set_names(cli_opts *o, const char *v)
{
    o->names = v;
    return 0;
}

static int set_runs(cli_opts *o, const char *v)
{
    o->runs = v;
    return 0;
}

static int set_by(cli_opts *o, const char *v)
{
    /* The parser has checked v against the choices. */
    o->tree_by_name = strcmp(v, "lca-name") == 0;
    for (int k = TD_BY_KERNEL; k <= TD_BY_MODULE; k++)
        if (strcmp(v, cli_by_name((td_by)k)) == 0)
            o->cmp.by = (td_by)k;
    return 0;
}

static int set_exclusive(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.exclusive = true;
    return 0;
}

static int set_side(cli_opts *o, const char *v)
{
    o->side = strcmp(v, "test") == 0 ? 2 : 1; /* the parser has checked the choices */
    return 0;
}

static int set_classes(cli_opts *o, const char *v)
{
    o->classes_path = v; /* read when the sets are (load.c) */
    return 0;
}

static int set_sort(cli_opts *o, const char *v)
{
    o->sort_text = v; /* a column name once the labels are known (load.c) */
    return 0;
}

static int set_ascending(cli_opts *o, const char *v)
{
    (void)v;
    o->view.ascending = 1;
    return 0;
}

static int set_top(cli_opts *o, const char *v)
{
    long x;
    if (cli_value_count("--top", v, 1, 100000000, &x) < 0)
        return -1;
    o->view.top = (size_t)x;
    return 0;
}

static int set_include(cli_opts *o, const char *v)
{
    o->view.include = v;
    return 0;
}

static int set_exclude(cli_opts *o, const char *v)
{
    o->view.exclude = v;
    return 0;
}

static int set_format(cli_opts *o, const char *v)
{
    o->format = v;
    return 0;
}

static int set_output(cli_opts *o, const char *v)
{
    o->output = v;
    return 0;
}

static int set_real(const char *opt, const char *v, bool percent, double lo, bool lo_open,
                    double hi, const char *expect, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (percent && end != v && *end == '%')
        end++;
    if (errno || end == v || *end || !isfinite(x) || x < lo || (lo_open && x == lo) || x >= hi) {
        cli_error("%s '%s': expected %s", opt, v, expect);
        return -1;
    }
    *out = x;
    return 0;
}

static int set_with_rate(cli_opts *o, const char *v)
{
    (void)v;
    o->with_rate = true;
    return 0;
}

static int set_stats(cli_opts *o, const char *v)
{
    (void)v;
    o->stats = true;
    return 0;
}

static int set_samples(cli_opts *o, const char *v)
{
    o->sopt.samples = strcmp(v, "iteration") == 0 ? TD_SAMPLES_ITERATION
                      : strcmp(v, "call") == 0    ? TD_SAMPLES_CALL
                                                  : TD_SAMPLES_AUTO;
    return 0;
}

static int set_alpha(cli_opts *o, const char *v)
{
    return set_real("--alpha", v, false, 0, true, 1, "a number above 0 and below 1, e.g. 0.05",
                    &o->sopt.alpha);
}

static int set_min_change(cli_opts *o, const char *v)
{
    o->sopt.has_min_change = 1;
    return set_real("--min-change", v, true, 0, false, 1e9, "a percentage of 0 or more, e.g. 1%",
                    &o->sopt.min_change);
}

static int set_max_regression(cli_opts *o, const char *v)
{
    return set_real("--max-regression", v, true, 0, false, 1e9,
                    "a percentage of 0 or more, e.g. 5%", &o->max_regression);
}

static int set_min_us(cli_opts *o, const char *v)
{
    return set_real("--min-us", v, false, 0, false, 1e300, "microseconds, 0 or more", &o->min_us);
}

static int set_width(cli_opts *o, const char *v)
{
    long x;
    if (cli_value_count("--width", v, 100, 20000, &x) < 0)
        return -1;
    o->chart_width = (int)x;
    return 0;
}

static int set_height(cli_opts *o, const char *v)
{
    long x;
    if (cli_value_count("--height", v, 100, 20000, &x) < 0)
        return -1;
    o->chart_height = (int)x;
    return 0;
}

static int set_inclusive(cli_opts *o, const char *v)
{
    (void)v;
    o->cmp.only_inclusive = true;
    return 0;
}

static int set_gate_waits(cli_opts *o, const char *v)
{
    (void)v;
    o->gate_waits = true;
    return 0;
}

static int set_allow_new(cli_opts *o, const char *v)
{
    (void)v;
    o->allow_new = true;
    return 0;
}

static int set_max_step_regression(cli_opts *o, const char *v)
{
    o->has_max_step_regression = true;
    return set_real("--max-step-regression", v, true, 0, false, 1e9,
                    "a percentage of 0 or more, e.g. 5%", &o->max_step_regression);
}

static int set_junit(cli_opts *o, const char *v)
{
    o->junit = v;
    return 0;
}

static int set_step_marker(cli_opts *o, const char *v)
{
    o->step_marker = v;
    return 0;
}

static int set_hta_scope(cli_opts *o, const char *v)
{
    (void)v;
    o->bd.hta_scope = true;
    return 0;
}

static int set_per_rank(cli_opts *o, const char *v)
{
    (void)v;
    o->per_rank = true;
    return 0;
}

static int set_straggler(cli_opts *o, const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end != v && *end == '%')
        end++;
    if (end == v || *end || errno || !(x > 0) || !isfinite(x)) {
        cli_error("--straggler '%s': expected a percentage above 0 (5 or 5%%)", v);
        return -1;
    }
    o->bd.straggler_pct = x;
    return 0;
}

static int set_python_frames(cli_opts *o, const char *v)
{
    (void)v;
    o->tree_python_frames = true;
    return 0;
}

static int set_match(cli_opts *o, const char *v)
{
    o->match_tree = strcmp(v, "tree") == 0; /* checked against the choices */
    return 0;
}

static int set_rl_by(cli_opts *o, const char *v)
{
    o->rl_by_class = strcmp(v, "class") == 0; /* checked against the choices */
    return 0;
}

static int set_control_gpu(cli_opts *o, const char *v)
{
    o->rl.control_gpu = v;
    return 0;
}

static int set_test_gpu(cli_opts *o, const char *v)
{
    o->rl.test_gpu = v;
    return 0;
}

#define ON_ROWS (ON(CMD_COMPARE) | ON(CMD_PLOT) | ON(CMD_REPORT) | ON(CMD_EXPLAIN))
#define ON_BY (ON(CMD_COMPARE) | ON(CMD_OPS) | ON(CMD_PLOT) | ON(CMD_CHECK))
#define ON_READ (ON_PAIR | ON(CMD_INFO) | ON(CMD_SUMMARIZE) | ON(CMD_BREAKDOWN) | ON(CMD_ROOFLINE))

const cli_option cli_options[] = {
    /* selection */
    {"control-rank", 0, "R", NULL, "selection", ON_PAIR | ON(CMD_ROOFLINE),
     "control's ranks: N | N,M,... | all (default: the lowest rank)", set_control_rank},
    {"test-rank", 0, "R", NULL, "selection", ON_PAIR | ON(CMD_ROOFLINE),
     "test's ranks: N | N,M,... | all (default: the lowest rank)", set_test_rank},
    {"control-iteration", 0, "I", NULL, "selection", ON_PAIR | ON(CMD_ROOFLINE),
     "control's iterations: N | N,M,... | all | steady (all\n"
     "but the lowest: no warm-up) (default: the lowest)",
     set_control_iteration},
    {"test-iteration", 0, "I", NULL, "selection", ON_PAIR | ON(CMD_ROOFLINE),
     "test's iterations: N | N,M,... | all | steady (all but\n"
     "the lowest: no warm-up) (default: the lowest)",
     set_test_iteration},
    {"control-rank", 0, "R", NULL, "selection", ON(CMD_BREAKDOWN),
     "control's ranks: N | N,M,... | all (default: all)", set_control_rank},
    {"test-rank", 0, "R", NULL, "selection", ON(CMD_BREAKDOWN),
     "test's ranks: N | N,M,... | all (default: all)", set_test_rank},
    {"control-iteration", 0, "I", NULL, "selection", ON(CMD_BREAKDOWN),
     "control's iterations: N | N,M,... | all | steady\n"
     "(default: steady with 2 or more steps, else the whole trace)",
     set_control_iteration},
    {"test-iteration", 0, "I", NULL, "selection", ON(CMD_BREAKDOWN),
     "test's iterations: N | N,M,... | all | steady\n"
     "(default: steady with 2 or more steps, else the whole trace)",
     set_test_iteration},
    {"hta-scope", 0, NULL, NULL, "selection", ON(CMD_BREAKDOWN) | ON(CMD_PLOT),
     "HTA's TraceAnalysis scope instead of the selection: every\n"
     "rank, the last step dropped when the set has 2 or more",
     set_hta_scope},
    {"per-iteration", 0, NULL, NULL, "selection",
     ON(CMD_COMPARE) | ON(CMD_OPS) | ON(CMD_PLOT) | ON(CMD_REPORT),
     "divide each side's counts and durations by its selected\n"
     "(rank, iteration) samples: 6 iterations against 1 compare\n"
     "fairly (counts then print with decimals)",
     set_per_iteration},
    {"rank", 0, "R", NULL, "selection", ON(CMD_SUMMARIZE),
     "the ranks to keep: N | N,M,... | all (default: all)", set_rank},
    {"iteration", 0, "I", NULL, "selection", ON(CMD_SUMMARIZE),
     "the iterations to keep: N | N,M,... | all (default: all)", set_iteration},
    {"run", 0, "NAME", NULL, "selection", ON(CMD_SUMMARIZE),
     "the run's name (default: the set's folder name, or the\n"
     "file's name without .json[.gz|.zst])",
     set_run},
    {"replace", 0, NULL, NULL, "selection", ON(CMD_SUMMARIZE),
     "replace a run of that name (else it is an error)", set_replace},
    {"runs", 0, "A,B,...", NULL, "selection", ON(CMD_TREND),
     "these runs, in this order (default: all, as added)", set_runs},
    {"names", 0, "REGEX", NULL, "selection", ON(CMD_TREND),
     "only the names REGEX matches (regex as in Python, PCRE2)", set_names},
    {"device", 0, "DEVICE", "all|cpu|gpu", "selection", ON_PAIR | ON(CMD_SUMMARIZE) | ON(CMD_TREND),
     "cpu: stream -1; gpu: every other stream (default: all)", set_device},
    {"short-names", 0, NULL, NULL, "selection", (ON_PAIR & ~ON(CMD_OPS)) | ON(CMD_TREND),
     "group by short names (no templates, arguments)", set_short_names},
    {"cat", 0, "LIST", NULL, "selection", ON_PAIR,
     "only events of these categories: cpu_op,kernel,...\n"
     "('tracediff info SET' lists them with counts and time)",
     set_cat},
    {"no-python", 0, NULL, NULL, "selection", ON_PAIR, "every category but python_function",
     set_no_python},
    {"normalize-names", 0, NULL, NULL, "selection", ON_PAIR | ON(CMD_TREND),
     "one row for names that differ only by addresses (0x and\n"
     "6+ hex digits), Python line numbers (file.py(N)), step\n"
     "numbers (ProfilerStep#N), Inductor graph hashes\n"
     "(CompiledFxGraph HASH) or Triton kernels' numbers\n"
     "(triton_..._N), each shown as an ellipsis; applied before\n"
     "--short-names (docs/numbers.md). The default of plot,\n"
     "report, check and trend",
     set_normalize_names},
    {"rename", 0, "REGEX=REPL", NULL, "selection", ON_PAIR | ON(CMD_TREND),
     "your own rule: every match of REGEX in a name becomes REPL\n"
     "($1, ${name}: its groups), so that names made equal share\n"
     "a row; repeatable, applied in order before\n"
     "--normalize-names and --short-names (a '=' in REGEX is\n"
     "written \\=; docs/numbers.md)",
     set_rename},
    {"no-normalize-names", 0, NULL, NULL, "selection",
     ON(CMD_PLOT) | ON(CMD_REPORT) | ON(CMD_CHECK) | ON(CMD_TREND),
     "every name its own row, as HTA groups them (the default\n"
     "of compare, ops and explain)",
     set_no_normalize_names},
    {"explain-names", 0, NULL, NULL, "selection", ON(CMD_COMPARE),
     "print what --normalize-names folds (each folded name, the\n"
     "rules that fold it and the names it holds, with counts)\n"
     "instead of the rows",
     set_explain_names},
    {"hta-strict", 0, NULL, NULL, "selection", ON_PAIR,
     "HTA's own numbers: GPU events on stream 0 get no\n"
     "iteration (default: their launch's; docs/numbers.md)",
     set_hta_strict},
    {"ns", 0, NULL, NULL, "selection", ON_READ,
     "the traces' own resolution: durations in us with their\n"
     "decimals, nothing rounded (default: decimal timestamps are\n"
     "rounded to whole us as HTA does; HTA_DISABLE_NS_ROUNDING=1\n"
     "in the environment does the same; docs/numbers.md)",
     set_ns},
    {"nsys-names", 0, "WHICH", "short|demangled", "selection", ON_READ,
     "kernel names of Nsight Systems exports: nsys's shortName\n"
     "(default) or the demangled signature (docs/profilers.md)",
     set_nsys_names},
    {"pid", 0, "PID[,PID...]", NULL, "selection", ON_READ,
     "the events of these processes only, in each Nsight Systems\n"
     "or rocpd export (info lists a file's processes;\n"
     "docs/profilers.md)",
     set_pids},
    {"step-marker", 0, "REGEX", NULL, "selection", ON_READ,
     "the events whose name REGEX matches (PCRE2) are the\n"
     "iterations, numbered 0, 1, ... in time order, instead of\n"
     "ProfilerStep#N (a train_step annotation, an NVTX range)",
     set_step_marker},
    {"control-label", 0, "NAME", NULL, "selection", ON_PAIR | ON(CMD_BREAKDOWN) | ON(CMD_ROOFLINE),
     "control's label: headers, legends, column prefixes", set_control_label},
    {"test-label", 0, "NAME", NULL, "selection", ON_PAIR | ON(CMD_BREAKDOWN) | ON(CMD_ROOFLINE),
     "test's label: headers, legends, column prefixes", set_test_label},
    {"jobs", 'j', "N", NULL, "selection", ON_READ,
     "threads (or processes) reading the traces (default: one per core; one for under 1 MB of "
     "files)",
     set_jobs},
    {"quiet", 'q', NULL, NULL, "selection", (1u << CMD_COUNT) - 1, "no notes on stderr", set_quiet},
    /* statistics */
    {"stats", 0, NULL, NULL, "statistics", ON(CMD_ROOFLINE),
     "add samples (each row's GPU time per (rank, iteration),\n"
     "or per call), p- and q-values and a verdict per row, as\n"
     "compare --stats (docs/roofline.md)",
     set_stats},
    {"stats", 0, NULL, NULL, "statistics", ON(CMD_COMPARE) | ON(CMD_REPORT),
     "add samples, p- and q-values and a verdict per name\n"
     "(slower, faster, noise, added, removed, n/a; docs/stats.md;\n"
     "with --match tree per LCA: docs/tree-match.md)",
     set_stats},
    {"samples", 0, "MODE", "iteration|call|auto", "statistics",
     ON(CMD_COMPARE) | ON(CMD_REPORT) | ON(CMD_CHECK) | ON(CMD_ROOFLINE),
     "iteration: one sample per selected (rank, iteration),\n"
     "the name's total there (Welch's t-test); call: one per\n"
     "call (Mann-Whitney U; with --by op, top-op or\n"
     "annotation one per op call or annotation instance, its\n"
     "GPU time). auto (default): iteration when both sides\n"
     "have at least 3 such samples, else call",
     set_samples},
    {"alpha", 0, "A", NULL, "statistics",
     ON(CMD_COMPARE) | ON(CMD_REPORT) | ON(CMD_CHECK) | ON(CMD_ROOFLINE),
     "false discovery rate for the q-values (default 0.05)", set_alpha},
    {"min-change", 0, "P%", NULL, "statistics",
     ON(CMD_COMPARE) | ON(CMD_REPORT) | ON(CMD_CHECK) | ON(CMD_ROOFLINE),
     "a smaller change of the mean is noise (default 1%);\n"
     "report: also the flame graph's grey band",
     set_min_change},
    /* gate */
    {"max-regression", 0, "P%", NULL, "gate", ON(CMD_CHECK),
     "the smallest slowdown that fails the check (default 5%)", set_max_regression},
    {"min-us", 0, "U", NULL, "gate", ON(CMD_CHECK),
     "ignore names whose control total in the selection is\nunder U us (default 0)", set_min_us},
    {"gate-waits", 0, NULL, NULL, "gate", ON(CMD_CHECK),
     "let waits fail the check too: synchronize calls and ops\n"
     "mostly inside them or device-to-host copies (default:\n"
     "listed apart, never failing; docs/stats.md)",
     set_gate_waits},
    {"allow-new", 0, NULL, NULL, "gate", ON(CMD_CHECK),
     "a name only in test is not a regression (default: it is,\n"
     "when its total is at least --min-us)",
     set_allow_new},
    {"max-step-regression", 0, "P%", NULL, "gate", ON(CMD_CHECK),
     "also fail when the step time (ProfilerStep; without it,\n"
     "the trace's span) or the GPU time per (rank, iteration)\n"
     "grew by more than P% (significantly, with 3 or more\n"
     "samples a side)",
     set_max_step_regression},
    {"junit", 0, "FILE", NULL, "gate", ON(CMD_CHECK),
     "JUnit XML: a testcase per compared name, a <failure>\nper regression (written whole or "
     "not at all)",
     set_junit},
    /* rows */
    {"sort", 0, "COLUMN", NULL, "rows", ON_ROWS,
     "name, diff_duration, diff_counts, abs_diff_duration,\n"
     "abs_diff_counts, control_counts, test_total_duration, ...\n"
     "(numbers sort descending unless --ascending);\n"
     "with --stats also q (smallest first) and change",
     set_sort},
    {"by", 0, "KEY", "kernel|op|top-op|annotation|class|module", "rows",
     ON(CMD_OPS) | ON(CMD_PLOT) | ON(CMD_CHECK),
     "rows by the GPU event's own name (kernel, the default),\n"
     "the cpu op that launched it (innermost or outermost),\n"
     "its user annotation, its kernel class, or the nn.Module\n"
     "path of its stack. Implies the GPU side (--device gpu),\n"
     "but module: --device cpu gives the CPU events' modules;\n"
     "GPU time with no op is the row (unattributed). See\n"
     "docs/attribution.md and docs/stacks.md",
     set_by},
    {"by", 0, "KEY", "kernel|op|top-op|annotation|class|module|lca-name", "rows", ON(CMD_COMPARE),
     "rows by the GPU event's own name (kernel, the default),\n"
     "the cpu op that launched it (innermost or outermost),\n"
     "its user annotation, its kernel class, or the nn.Module\n"
     "path of its stack. Implies the GPU side (--device gpu),\n"
     "but module: --device cpu gives the CPU events' modules;\n"
     "GPU time with no op is the row (unattributed). See\n"
     "docs/attribution.md and docs/stacks.md. lca-name: with\n"
     "--match tree, totals per LCA name (docs/tree-match.md)",
     set_by},
    {"exclusive", 0, NULL, NULL, "rows", ON_BY | ON(CMD_EXPLAIN),
     "--by module: a module's own GPU time (default: with its\n"
     "children's, so that the outermost module holds it all)",
     set_exclusive},
    {"match", 0, "HOW", "name|tree", "rows", ON(CMD_COMPARE) | ON(CMD_REPORT) | ON(CMD_EXPLAIN),
     "name: rows by name (default); tree: the same work\n"
     "matched by the two call trees, a row per lowest common\n"
     "ancestor with both sides' kernels, of the selected ranks\n"
     "and iterations; with --stats one sample per (rank,\n"
     "iteration) per LCA; report: adds \"Matched by structure\";\n"
     "explain NAME: the LCAs of that name or path\n"
     "(docs/tree-match.md)",
     set_match},
    {"python-frames", 0, NULL, NULL, "rows", ON(CMD_COMPARE) | ON(CMD_REPORT) | ON(CMD_EXPLAIN),
     "with --match tree: the python_function frames (traces\n"
     "recorded with with_stack=True) join the call trees, so\n"
     "LCAs and paths can be Python functions, as TraceLens\n"
     "does with them (docs/tree-match.md, \"Python frames\")",
     set_python_frames},
    {"inclusive", 0, NULL, NULL, "rows", ON(CMD_EXPLAIN),
     "also the kernels launched inside the op's children, at\n"
     "any depth (aten::linear: its GEMMs; needs trace files)",
     set_inclusive},
    {"by", 0, "KEY", "op|top-op|annotation|module", "rows", ON(CMD_EXPLAIN),
     "NAME is an innermost op (default), an outermost op,\na user annotation, or an nn.Module "
     "path (as\n'compare --by module' shows it)",
     set_by},
    {"classes", 0, "FILE", NULL, "rows", ON_BY,
     "--by class rules: class<TAB>regex lines, first match\nwins (default: docs/attribution.md)",
     set_classes},
    {"ascending", 0, NULL, NULL, "rows", ON_ROWS, "sort from the smallest number", set_ascending},
    {"top", 0, "N", NULL, "rows", ON_ROWS, "the first N rows after sorting", set_top},
    {"with-rate", 0, NULL, NULL, "rows", ON(CMD_COMPARE),
     "with --by op: FLOPs per call and achieved TFLOP/s per side\n"
     "where roofline's model applies (record_shapes=True traces;\n"
     "docs/roofline.md)",
     set_with_rate},
    {"top", 0, "N", NULL, "rows", ON(CMD_TREND),
     "the N names that changed most (default: all; 10 in a chart)", set_top},
    {"by", 0, "KEY", "op|class", "rows", ON(CMD_ROOFLINE),
     "op: a row per (op, input dims, input types) (default);\n"
     "class: GEMM, attention, conv, elementwise, norm",
     set_rl_by},
    {"control-gpu", 0, "GPU", NULL, "rows", ON(CMD_ROOFLINE) | ON(CMD_PLOT),
     "control's GPU: a name of the table (docs/roofline.md) or a\n"
     "FILE.json in TraceLens's arch format (default: the trace's)",
     set_control_gpu},
    {"test-gpu", 0, "GPU", NULL, "rows", ON(CMD_ROOFLINE) | ON(CMD_PLOT),
     "test's GPU: a name of the table or a FILE.json (default: the\n"
     "trace's)",
     set_test_gpu},
    {"per-rank", 0, NULL, NULL, "rows", ON(CMD_BREAKDOWN) | ON(CMD_PLOT),
     "one row per rank and side: step, busy, idle, exposed\n"
     "communication; the slowest rank and stragglers marked",
     set_per_rank},
    {"straggler", 0, "P%", NULL, "rows", ON(CMD_BREAKDOWN) | ON(CMD_PLOT),
     "a rank whose step is more than P% above its side's\n"
     "median is a straggler (default 5%)",
     set_straggler},
    {"include", 0, "REGEX", NULL, "rows", ON_ROWS | ON(CMD_CHECK),
     "keep the names REGEX matches (regex as in Python, PCRE2)", set_include},
    {"exclude", 0, "REGEX", NULL, "rows", ON_ROWS | ON(CMD_CHECK),
     "drop the names REGEX matches (regex as in Python, PCRE2)", set_exclude},
    /* output */
    {"format", 0, "FORMAT", "table|csv|json|markdown|folded", "output", ON(CMD_COMPARE),
     "default: table on a terminal, else csv;\nwith -o, from the file's extension. folded: "
     "each side's\nGPU stacks as folded lines (CPU stacks with --device cpu;\ndocs/stacks.md)",
     set_format},
    {"side", 0, "SIDE", "control|test", "output", ON(CMD_COMPARE),
     "--format folded: write this side's stacks only (to -o, or\n"
     "stdout); without it -o names both files: CONTROL,TEST",
     set_side},
    {"side", 0, "SIDE", "control|test", "output", ON(CMD_PLOT),
     "plot flame: draw this side alone, plain (default: the\n"
     "difference, width = test time, colour = change)",
     set_side},
    {"min-change", 0, "P%", NULL, "output", ON(CMD_PLOT),
     "plot flame: a frame whose time changed less is grey\n(default 1%)", set_min_change},
    {"format", 0, "FORMAT", "table|csv|json|markdown", "output",
     ON(CMD_BREAKDOWN) | ON(CMD_ROOFLINE),
     "default: table on a terminal, else csv;\nwith -o, from the file's extension", set_format},
    {"format", 0, "FORMAT", "table|csv|json", "output", ON(CMD_OPS),
     "default: table on a terminal, else csv (category,name)", set_format},
    {"format", 0, "FORMAT", "table|json", "output", ON(CMD_INFO), "default: table", set_format},
    {"format", 0, "FORMAT", "table|csv|json", "output", ON(CMD_EXPLAIN),
     "default: table on a terminal, else csv", set_format},
    /* No choices: a report's own message says why another format is refused. */
    {"format", 0, "html", NULL, "output", ON(CMD_REPORT), "the only one (and the default)",
     set_format},
    {"format", 0, "FORMAT", NULL, "output", ON(CMD_PLOT),
     "refused: the format follows -o's extension", set_format},
    {"format", 0, "FORMAT", "table|csv|json", "output", ON(CMD_RUNS) | ON(CMD_TREND),
     "default: table on a terminal, else csv", set_format},
    {"format", 0, "FORMAT", "table|markdown|json", "output", ON(CMD_CHECK),
     "default: table; markdown is for a pull-request comment", set_format},
    {"format", 0, "FORMAT", "roff|usage|tsv", "output", ON(CMD_MAN),
     "roff: the man page (default); usage: README's option\nlist; tsv: the option table",
     set_format},
    {"csv-safe", 0, NULL, NULL, "output",
     ON(CMD_COMPARE) | ON(CMD_OPS) | ON(CMD_EXPLAIN) | ON(CMD_RUNS) | ON(CMD_TREND),
     "CSV for a spreadsheet: a text cell starting with = + - @,\n"
     "TAB or CR gets a leading ' (numbers never do)",
     set_csv_safe},
    {"width", 0, "PX", NULL, "output", ON(CMD_PLOT) | ON(CMD_REPORT),
     "a chart's width in pixels (default: what the labels\n"
     "need; a larger width widens the bars, a smaller one is\n"
     "raised to what the labels need)",
     set_width},
    {"height", 0, "PX", NULL, "output", ON(CMD_PLOT) | ON(CMD_REPORT),
     "a chart's height in pixels (default: fit; larger\n"
     "heightens both panels)",
     set_height},
    {"output", 'o', "FILE", NULL, "output", ON(CMD_SUMMARIZE),
     "required: the summary (created, or a run added to it)", set_output},
    {"output", 'o', "FILE", NULL, "output", ON(CMD_TREND),
     "FILE.svg, .png or .pdf draws a line chart; .txt, .csv or\n"
     ".json gets the table, CSV or JSON ('-': stdout)",
     set_output},
    {"output", 'o', "FILE", NULL, "output",
     ON(CMD_COMPARE) | ON(CMD_OPS) | ON(CMD_INFO) | ON(CMD_RUNS) | ON(CMD_CHECK) | ON(CMD_EXPLAIN) |
         ON(CMD_BREAKDOWN) | ON(CMD_ROOFLINE),
     "written whole or not at all ('-': stdout); the format from\n"
     "the extension (.txt table, .csv, .json, .md markdown) unless\n"
     "--format says; another extension is refused",
     set_output},
    {"output", 'o', "FILE", NULL, "output", ON(CMD_PLOT),
     "required: .svg, .png or .pdf (from the extension); written\n"
     "whole or not at all. '-o -' writes SVG to stdout",
     set_output},
    {"output", 'o', "FILE", NULL, "output", ON(CMD_REPORT),
     ".html or .htm (default: tracediff-report.html in the current\n"
     "folder); written whole or not at all ('-': stdout)",
     set_output},
    {NULL, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

const cli_command *cli_command_find(const char *name)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

const cli_command *cli_command_by_id(cli_command_id id)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        if (c->id == id)
            return c;
    return NULL;
}

bool cli_option_takes(const cli_option *opt, const cli_command *cmd)
{
    return (opt->commands & ON(cmd->id)) != 0;
}

bool cli_command_has_options(const cli_command *cmd)
{
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (cli_option_takes(opt, cmd))
            return true;
    return false;
}
