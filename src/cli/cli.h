/* The command-line program's shared pieces: exit codes, messages, the parsed
 * options, loading a pair, output files. The option and command tables are in
 * options.h; each file's job is in its name (msg.c, term.c, options.c,
 * progress.c, load.c, outfile.c, cmd_*.c). */
#ifndef TD_CLI_H
#define TD_CLI_H

#include "tracediff.h"

#include <stdbool.h>
#include <stdio.h>

/* A handler returns one of these; main() exits with it. */
enum {
    EXIT_OK = 0,         /* done */
    EXIT_DATA = 1,       /* bad data or an I/O error */
    EXIT_USAGE = 2,      /* bad usage: an unknown option, a bad value */
    EXIT_REGRESSION = 3, /* reserved for 'check': a regression was found */
};

/* What the options of a command line say. Fields start as CLI_OPTS_INIT
 * makes them (zero, the library's options structs by their _INIT macros,
 * check's --max-regression 5), meaning "defaults"; the setters of the option
 * table (table.c) fill them. */
typedef struct cli_opts {
    const char *control, *test;
    td_compare_opts cmp;
    const char *control_label, *test_label;
    td_view_opts view;
    const char *sort_text;
    const char *format;
    const char *output;
    int threads;
    bool quiet;
    bool ns;             /* --ns or HTA_DISABLE_NS_ROUNDING=1: the traces' own resolution */
    bool nsys_demangled; /* --nsys-names demangled */
    td_list pids;        /* --pid PID[,PID...] (td_open_opts.pids) */
    /* One set's selection (summarize) and the history commands (trend). */
    td_list ranks, iters;
    const char *run_name;
    bool replace;
    const char *names, *runs;
    bool stats;                 /* --stats (check: always) */
    td_stats_opts sopt;         /* --samples, --alpha, --min-change */
    double max_regression;      /* check: percent (default 5) */
    double min_us;              /* check: ignore names whose control total is under this */
    const char *junit;          /* check: JUnit XML file */
    bool gate_waits;            /* check: waits fail the check too */
    bool allow_new;             /* check: names only in test are not regressions */
    double max_step_regression; /* check: percent, when has_max_step_regression */
    bool has_max_step_regression;
    bool want_attr;           /* load with attribution (explain, report, info) */
    bool want_bd;             /* load with the breakdown's records (report's headline) */
    const char *classes_path; /* --classes FILE */
    td_classes *classes;      /* loaded from classes_path */
    bool rank_hint;           /* compare: point to breakdown --per-rank when ranks differ */
    bool explain_names;       /* compare: print what --normalize-names folds */
    bool by_abs_default;      /* compare: no --sort, rows by |diff_duration| (table, markdown) */
    bool table_out;           /* the output is the terminal table (it shows the notes itself) */
    bool default_output;      /* report: no -o, written to tracediff-report.html */
    bool per_iteration_ok;    /* the table gives the command --per-iteration (for the hint) */
    int chart_width, chart_height; /* plot, report --width, --height (0: fit) */
    bool csv_safe;                 /* --csv-safe: text cells that look like formulas get a ' */
    td_breakdown_opts bd;          /* breakdown: --hta-scope, --straggler (selection: cmp's) */
    bool per_rank;                 /* breakdown --per-rank */
    const char *step_marker;       /* --step-marker REGEX (td_open_opts.step_marker) */
    td_roofline_opts rl;           /* roofline: --control-gpu, --test-gpu (selection: cmp's) */
    bool rl_by_class;              /* roofline --by class */
    bool with_rate;                /* compare --by op --with-rate */
    bool want_roofline;            /* load with shapes (--with-rate, report's "Why") */
    int side;                      /* --side: 0 both, 1 control, 2 test */
    bool want_stacks;              /* load with stacks (--by module, --format folded) */
    bool match_tree;               /* compare --match tree (docs/tree-match.md) */
    bool tree_by_name;             /* compare --match tree --by lca-name */
    bool tree_python_frames;       /* --match tree --python-frames */
    td_renames *renames;           /* --rename rules (cmp.renames points here) */
} cli_opts;

#define CLI_OPTS_INIT                                                                              \
    {                                                                                              \
        .cmp = TD_COMPARE_OPTS_INIT, .view = TD_VIEW_OPTS_INIT, .sopt = TD_STATS_OPTS_INIT,        \
        .bd = TD_BREAKDOWN_OPTS_INIT, .rl = TD_ROOFLINE_OPTS_INIT, .max_regression = 5             \
    }

void cli_opts_free(cli_opts *o);

/* msg.c: every message on stderr starts with the program's name. */
extern const char *g_prog;
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg.c: the Levenshtein distance of a and b, each cut to its first cut
 * bytes (at most CLI_EDIT_MAX): the library's td_edit_distance. */
#define CLI_EDIT_MAX TD_EDIT_MAX
size_t cli_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cut);
/* msg.c: the candidate nearest to word by edit distance when it is near
 * enough to be a typo, else NULL ("did you mean ..."). */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);
/* The same among "a|b|c" choices: a pointer to the choice inside choices
 * (its length: strcspn(s, "|")), or NULL. */
const char *cli_suggest_choice(const char *word, const char *choices);
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a library error as one line; returns the exit status for it. */
int cli_td_error(const td_error *err);

/* mapped.c: plain trace files of at least CLI_MAP_MIN bytes are mapped
 * (td_open_opts.map_min_bytes) once cli_map_files has installed the SIGBUS
 * handler that names a file truncated while it is read; cli_map_min is what
 * the commands pass (0 until then: tracediff-mpi reads every file). */
#define CLI_MAP_MIN ((uint64_t)1 << 20)
extern uint64_t cli_map_min;
void cli_map_files(void);

/* heap.c: asks for the heap in 2 MiB pages (one fault each instead of 512)
 * before anything is allocated; 1 when it did. */
int cli_heap_huge(void);

/* term.c: what stdout and the locale allow. cli_isatty is isatty unless a
 * front end set cli_tty_off: under mpirun a process's stdout is a
 * pseudo-terminal whatever mpirun's own is, so tracediff-mpi writes as the
 * CLI writes to a pipe. */
extern bool cli_tty_off;
bool cli_isatty(int fd);
bool cli_color_ok(FILE *f); /* a terminal, NO_COLOR unset, TERM not dumb */
bool cli_unicode_ok(void);
/* The terminal's width when tty, else COLUMNS when set, else 120 (tty) or 160. */
int cli_term_width(bool tty);
/* s as the tables show it (td_text_visible: escapes for controls and
 * bidirectional marks); the buffer is reused after 8 more calls. */
const char *cli_visible(const char *s);
const char *cli_visible_n(const char *s, size_t len);
/* s as a table cell of width columns (code points), padded on the right,
 * or on the left with CLI_CELL_RIGHT; cut with "..." with CLI_CELL_CUT. */
#define CLI_CELL_RIGHT 1u
#define CLI_CELL_CUT 2u
#define CLI_CELL_MIDDLE 4u /* cut in the middle, the tail kept */
void cli_put_cell(FILE *f, const char *s, size_t width, unsigned how);

/* progress.c: a progress line on stderr while reading, only on a terminal. */
typedef struct cli_progress {
    double last;
    bool shown;
} cli_progress;
/* Sets oo's progress callback when stderr is a terminal and !quiet. */
void cli_progress_attach(cli_progress *p, td_open_opts *oo, bool quiet);
/* Erases the line, if one was shown. */
void cli_progress_clear(cli_progress *p);

/* load.c: how every command opens its sets: td_sets_open, unless a front
 * end put its own in place (tracediff-mpi hands over the sets it built from
 * files read by many processes). Same contract as td_sets_open. */
typedef int (*cli_open_fn)(td_set **out, const char *const *paths, size_t n,
                           const td_open_opts *opts, td_error *err);
extern cli_open_fn cli_sets_open;

/* load.c: what a comparing command holds: its options, both sets, the diff
 * and the rows picked for display. */
typedef struct cli_pair {
    cli_opts o;
    td_set *control, *test;
    td_diff *diff;
    td_stats *stats; /* when o.stats */
    size_t *rows, nrows;
} cli_pair;

#define CLI_PAIR_INIT                                                                              \
    {                                                                                              \
        .o = CLI_OPTS_INIT                                                                         \
    }

/* Loads both sides (o.control, o.test) and computes the diff, with o.stats
 * its statistics, and its view; prints any error, the notes and the
 * statistics' warning; returns 0 or an exit status. */
int cli_pair_run(cli_pair *p);
/* With --step-marker: EXIT_DATA, naming the side and the expression, when a
 * set has no iteration (the marker matched nothing); else 0. */
int cli_marker_check(const cli_opts *o, td_set *const *sets, size_t n);
/* Opens the n sets at paths into sets with oo's wants and the options every
 * command shares (--ns, --nsys-demangled, -j, --step-marker), progress
 * shown; prints any error; returns 0 or an exit status (the sets opened,
 * to be freed, when only --step-marker failed). */
int cli_open_sets(const cli_opts *o, td_set **sets, const char *const *paths, size_t n,
                  td_open_opts *oo);
/* cli_open_sets of both sides (o.control, o.test). */
int cli_open_pair(const cli_opts *o, td_set *sets[2], td_open_opts *oo);
/* tree_out.c: compare --match tree, from the parsed options; the exit status. */
int cli_tree_compare(cli_opts *o);
/* explain NAME --match tree: the LCAs of that name (or that path), the exit status. */
int cli_tree_explain(cli_opts *o, const char *name);
void cli_pair_free(cli_pair *p);
/* The side's label: --control-label / --test-label, else "control" / "test". */
const char *cli_side_label(const cli_opts *o, int side);
/* The --by value of by: "kernel", "op", "top-op", "annotation", "class". */
const char *cli_by_name(td_by by);

/* outfile.c: output files appear whole or not at all: written to a temporary
 * file beside the target and renamed into place. Devices and FIFOs are
 * written in place. */
typedef struct out_file {
    FILE *f;
    char *tmp;
    const char *path;
    bool direct; /* not a regular file (a device, a pipe): written in place */
} out_file;
int out_open(out_file *o, const char *path); /* NULL or "-": stdout; 0 or an exit status */
/* A library writer failed on o: prints err, naming o's file when the writer
 * could not (it has only the FILE *), drops the file; returns the exit status. */
int out_fail(out_file *o, td_error *err);
int out_commit(out_file *o); /* returns 0 or an exit status */
void out_abort(out_file *o);
/* Installs the handler that removes every temporary output file on SIGINT,
 * SIGTERM or SIGHUP, then dies by the signal (docs/errors.md). */
void cli_catch_signals(void);
/* --format, else the one -o's extension names (.csv, .json, .md; others:
 * pipe_fmt), else tty_fmt on a terminal and pipe_fmt otherwise. */
const char *cli_default_format(const cli_opts *o, const char *tty_fmt, const char *pipe_fmt);

#endif
