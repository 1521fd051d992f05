/* Commands beyond compare and ops, each in a file of its own. */
#ifndef TD_COMMANDS_H
#define TD_COMMANDS_H

#include "cli.h"

#include <stdio.h>

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
} cli_command;

/* Terminated by a { NULL, NULL } entry; defined in commands.c. */
extern const cli_command cli_extra_commands[];

int cmd_info(int argc, char **argv, void (*usage)(FILE *));
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_summarize(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_trend(int argc, char **argv);

/* args.c: npos positional arguments (what names them in the error) and the
 * shared options. Returns 0, or an exit status + 1 (1: --help was shown). */

/* The selection options, as the help of each comparing command lists them. */
extern const char cli_usage_selection[];

#endif
