/* What is made from the tables of commands and options (table.h):
 * the parser (options.c), --help and the top-level usage (help.c), the man
 * page and README usage block (doc.c), shell completions (cmd_completion.c). */
#ifndef TD_CLI_OPTIONS_H
#define TD_CLI_OPTIONS_H

#include "help.h"
#include "table.h"

/* The handlers, one cmd_<name>.c each, run by cli_command_run once the
 * command line is parsed into p->o (the positionals named CONTROL and TEST
 * in the usage line are p->o.control and p->o.test) and pos (the
 * positionals, as the usage line names them). They return the exit status;
 * p is freed after them (cli_pair_free). */
int cmd_compare(cli_pair *p, const char **pos);
int cmd_ops(cli_pair *p, const char **pos);
int cmd_info(cli_pair *p, const char **pos);
int cmd_plot(cli_pair *p, const char **pos);
int cmd_report(cli_pair *p, const char **pos);
int cmd_summarize(cli_pair *p, const char **pos);
int cmd_runs(cli_pair *p, const char **pos);
int cmd_trend(cli_pair *p, const char **pos);
int cmd_check(cli_pair *p, const char **pos);
int cmd_explain(cli_pair *p, const char **pos);
int cmd_breakdown(cli_pair *p, const char **pos);
/* plot breakdown: the breakdown's chart to -o (checked by the caller) as
 * SVG (fmt 0), PNG (1) or PDF (2). */
int cli_breakdown_plot(cli_pair *p, int fmt);
int cmd_roofline(cli_pair *p, const char **pos);
/* plot roofline: the chart of roofline's rows to -o (checked by the caller). */
int cli_roofline_plot(cli_pair *p, bool svg);
int cmd_completion(cli_pair *p, const char **pos);
int cmd_man(cli_pair *p, const char **pos);

/* commands.c: parses the command line (argv[0] is the command's name) and
 * runs cmd's handler; returns the exit status. */
int cli_command_run(const cli_command *cmd, int argc, char **argv);

/* options.c: the parser. cli_parse reads "<command> POSITIONAL... [options]"
 * into o and pos (cmd->npositional entries). Returns CLI_RUN when the command
 * should go on, else the exit status to return at once (EXIT_OK after --help,
 * EXIT_USAGE after a message). */
enum { CLI_RUN = -1 };
int cli_parse(const cli_command *cmd, cli_opts *o, const char **pos, int argc, char **argv);
/* Parses the option at argv[*i] if cmd takes it, advancing *i past its value.
 * Returns 1 if it was one, 0 if cmd has no such option, -1 after printing a
 * usage error. Never exits (the args fuzz target drives it). */
int cli_option_parse(const cli_command *cmd, cli_opts *o, int argc, char **argv, int *i);

/* doc.c: the man page, the README's usage block and a tab-separated dump of
 * the option table, all from the tables. */
void cli_doc_man(FILE *f);
void cli_doc_usage(FILE *f);
void cli_doc_tsv(FILE *f);

#endif
