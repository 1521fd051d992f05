/* Which handler runs each command: apart from the table (table.c), which
 * every handler reads through the parser, so that the table depends on no
 * command and the calls between the CLI's files run one way. */
#include "options.h"

#include <string.h>

typedef int (*cli_run_fn)(cli_pair *p, const char **pos);

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

/* The positionals the usage line names CONTROL and TEST are the sides. */
static void sides(const cli_command *cmd, const char **pos, cli_opts *o)
{
    const char *w = cmd->positional;
    for (int k = 0; w && *w && k < cmd->npositional; k++) {
        size_t n = strcspn(w, " ");
        if (n == 7 && memcmp(w, "CONTROL", n) == 0)
            o->control = pos[k];
        else if (n == 4 && memcmp(w, "TEST", n) == 0)
            o->test = pos[k];
        w += n + (w[n] == ' ');
    }
}

int cli_command_run(const cli_command *cmd, int argc, char **argv)
{
    cli_pair p = CLI_PAIR_INIT;
    const char *pos[CLI_MAX_POSITIONAL] = {NULL};
    int rc = cli_parse(cmd, &p.o, pos, argc, argv);
    if (rc == CLI_RUN) {
        sides(cmd, pos, &p.o);
        rc = handlers[cmd->id](&p, pos);
    }
    cli_pair_free(&p);
    return rc;
}
