/* The table of commands that live in files of their own. */
#include "commands.h"

const cli_command cli_extra_commands[] = {
    {"plot", cmd_plot},
    {"report", cmd_report},
    {"summarize", cmd_summarize},
    {"runs", cmd_runs},
    {"trend", cmd_trend},
    {NULL, NULL},
};
