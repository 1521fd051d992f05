/* Which handler runs each command: apart from the table (table.c), which
 * every handler reads through the parser, so that the table depends on no
 * command and the calls between the CLI's files run one way. */
#include "options.h"

typedef int (*cli_run_fn)(const cli_command *cmd, int argc, char **argv);

static const cli_run_fn handlers[CMD_COUNT] = {
    [CMD_COMPARE] = cmd_compare,
    [CMD_OPS] = cmd_ops,
    [CMD_INFO] = cmd_info,
    [CMD_PLOT] = cmd_plot,
    [CMD_REPORT] = cmd_report,
    [CMD_SUMMARIZE] = cmd_summarize,
    [CMD_RUNS] = cmd_runs,
    [CMD_TREND] = cmd_trend,
    [CMD_CHECK] = cmd_check,
    [CMD_EXPLAIN] = cmd_explain,
    [CMD_BREAKDOWN] = cmd_breakdown,
    [CMD_ROOFLINE] = cmd_roofline,
    [CMD_COMPLETION] = cmd_completion,
    [CMD_MAN] = cmd_man,
};

int cli_command_run(const cli_command *cmd, int argc, char **argv)
{
    return handlers[cmd->id](cmd, argc, argv);
}
