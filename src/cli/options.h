/* The tables of commands and options (table.c) and what is made from them:
 * the parser (options.c), --help and the top-level usage (help.c), the man
 * page and README usage block (doc.c), shell completions (cmd_completion.c). */
#ifndef TD_CLI_OPTIONS_H
#define TD_CLI_OPTIONS_H

#include "cli.h"

/* One bit per command, for the options' `commands` masks. */
typedef enum cli_command_id {
    CMD_COMPARE,
    CMD_OPS,
    CMD_INFO,
    CMD_PLOT,
    CMD_REPORT,
    CMD_SUMMARIZE,
    CMD_RUNS,
    CMD_TREND,
    CMD_CHECK,
    CMD_EXPLAIN,
    CMD_BREAKDOWN,
    CMD_COMPLETION,
    CMD_MAN,
    CMD_COUNT
} cli_command_id;

#define ON(c) (1u << (c))
/* The commands that read two sets and compare them. */
#define ON_PAIR                                                                                    \
    (ON(CMD_COMPARE) | ON(CMD_OPS) | ON(CMD_PLOT) | ON(CMD_REPORT) | ON(CMD_CHECK) |               \
     ON(CMD_EXPLAIN))

typedef struct cli_command {
    cli_command_id id;
    const char *name;
    const char *summary;    /* one line, for the command list */
    const char *positional; /* "CONTROL TEST", as the usage line shows them */
    int npositional;
    const char *missing;     /* names the positionals when some are missing */
    const char *choices;     /* "counts|duration": the first positional's values, or NULL */
    const char *usage_tail;  /* after "[options]" in the usage line ("-o FILE"), or NULL */
    const char *description; /* paragraphs for --help and the man page */
    const char *examples[4]; /* command lines on bundled files; NULL-terminated */
    /* Parses its own command line (argv[0] is the command's name); returns
     * the exit status. */
    int (*run)(const struct cli_command *cmd, int argc, char **argv);
} cli_command;

typedef struct cli_option {
    const char *name;    /* long name without "--" */
    char short_name;     /* 'o' for -o, or 0 */
    const char *arg;     /* the value's name in help ("N", "FILE"), or NULL for a flag */
    const char *choices; /* "all|cpu|gpu": the only values accepted, or NULL */
    const char *group;   /* the heading it is listed under: "selection", "rows", "output" */
    unsigned commands;   /* ON(CMD_...) | ...: the commands that take it */
    const char *help;    /* '\n' starts a continuation line */
    /* Stores the value (NULL for a flag) in o. Returns 0, or -1 after
     * printing why the value is bad. */
    int (*set)(cli_opts *o, const char *value);
} cli_option;

/* The handlers, one cmd_<name>.c each. */
int cmd_compare(const cli_command *cmd, int argc, char **argv);
int cmd_ops(const cli_command *cmd, int argc, char **argv);
int cmd_info(const cli_command *cmd, int argc, char **argv);
int cmd_plot(const cli_command *cmd, int argc, char **argv);
int cmd_report(const cli_command *cmd, int argc, char **argv);
int cmd_summarize(const cli_command *cmd, int argc, char **argv);
int cmd_runs(const cli_command *cmd, int argc, char **argv);
int cmd_trend(const cli_command *cmd, int argc, char **argv);
int cmd_check(const cli_command *cmd, int argc, char **argv);
int cmd_explain(const cli_command *cmd, int argc, char **argv);
int cmd_breakdown(const cli_command *cmd, int argc, char **argv);
int cmd_completion(const cli_command *cmd, int argc, char **argv);
int cmd_man(const cli_command *cmd, int argc, char **argv);

extern const cli_command cli_commands[]; /* ends with a NULL name */
extern const cli_option cli_options[];   /* ends with a NULL name */
extern const char *const cli_groups[];   /* headings in the order shown; NULL-terminated */

const cli_command *cli_command_find(const char *name);
const cli_command *cli_command_by_id(cli_command_id id);
bool cli_option_takes(const cli_option *opt, const cli_command *cmd);
bool cli_command_has_options(const cli_command *cmd);

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

/* Value checks the setters share; each prints "OPT 'V': ..." when bad. */
int cli_value_count(const char *opt, const char *v, long lo, long hi, long *out);
int cli_value_list(td_list *l, const char *opt, const char *v);

/* help.c */
void cli_usage_main(FILE *f);
void cli_usage_command(FILE *f, const cli_command *cmd);
/* "--device all|cpu|gpu", "-j, --jobs N": how help and docs spell an option. */
void cli_option_spelled(char *buf, size_t size, const cli_option *opt);
/* "all, cpu or gpu" */
void cli_choices_words(char *buf, size_t size, const char *choices);

/* doc.c: the man page, the README's usage block and a tab-separated dump of
 * the option table, all from the tables. */
void cli_doc_man(FILE *f);
void cli_doc_usage(FILE *f);
void cli_doc_tsv(FILE *f);

#endif
