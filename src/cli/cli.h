/* The command-line program's shared pieces: options, messages, output files. */
#ifndef TD_CLI_H
#define TD_CLI_H

#include "tracediff.h"

#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

/* Options every comparing command shares. */
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
} cli_opts;

extern const char *g_prog;

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a library error as one line; returns the exit status for it. */
int cli_td_error(const td_error *err);

/* Parses one option of the shared set at argv[*i] (advancing *i past its
 * value). Returns 1 if it was one, 0 if not ours, -1 after printing a usage
 * error. */
int cli_shared_option(cli_opts *o, int argc, char **argv, int *i);
/* Value of "--name VALUE" or "--name=VALUE" at argv[*i]; NULL if argv[*i] is
 * not that option. Prints an error and sets *bad when the value is missing. */
const char *cli_value(const char *name, int argc, char **argv, int *i, bool *bad);

/* Loads control and test together; prints any error; returns 0 or an exit status. */
int cli_load_pair(cli_opts *o, td_set **control, td_set **test);
/* Computes the diff and resolves the view; prints notes on stderr. */
int cli_diff(cli_opts *o, td_set *control, td_set *test, td_diff **diff, size_t **rows,
             size_t *nrows);
void cli_opts_free(cli_opts *o);

/* Parses "<command> POS... [options]": returns 0, or an exit status + 1 (so
 * that 1 means "done, exit 0", as after --help). what names the positional
 * arguments in the message when some are missing. */
int cli_parse_args(cli_opts *o, int argc, char **argv, void (*usage)(FILE *), int npos,
                   const char **pos, const char *what);

/* What a comparing command holds: its options, both sets, the diff and the
 * rows picked for display. */
typedef struct cli_pair {
    cli_opts o;
    td_set *control, *test;
    td_diff *diff;
    size_t *rows, nrows;
} cli_pair;

/* Loads both sides (o.control, o.test) and computes the diff and its view;
 * prints any error; returns 0 or an exit status. */
int cli_pair_run(cli_pair *p);
void cli_pair_free(cli_pair *p);

/* Output files appear whole or not at all: write to a temporary file beside
 * the target and rename it into place. */
typedef struct out_file {
    FILE *f;
    char *tmp;
    const char *path;
    bool direct; /* not a regular file (a device, a pipe): written in place */
} out_file;
int out_open(out_file *o, const char *path); /* NULL or "-": stdout */
int out_commit(out_file *o);                 /* returns 0 or an exit status */
void out_abort(out_file *o);

bool cli_color_ok(FILE *f); /* a terminal and NO_COLOR unset */
bool cli_unicode_ok(void);
/* The terminal's width when tty, else COLUMNS when set, else 120 (tty) or 160. */
int cli_term_width(bool tty);

#endif
