/* The types of the tables of commands and options, and the tables
 * (table.c): data that the parser (options.c), --help (help.c), the docs
 * (doc.c) and completions read. Which handler runs a command is not here
 * but in commands.c, so that the table depends on no command. */
#ifndef TD_CLI_TABLE_H
#define TD_CLI_TABLE_H

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
    CMD_ROOFLINE,
    CMD_COMPLETION,
    CMD_MAN,
    CMD_COUNT
} cli_command_id;

#define ON(c) (1u << (c))
/* The commands that read two sets and compare them. */
#define ON_PAIR                                                                                    \
    (ON(CMD_COMPARE) | ON(CMD_OPS) | ON(CMD_PLOT) | ON(CMD_REPORT) | ON(CMD_CHECK) |               \
     ON(CMD_EXPLAIN))

#define CLI_MAX_POSITIONAL 3

typedef struct cli_command {
    cli_command_id id;
    const char *name;
    const char *summary;     /* one line, for the command list */
    const char *positional;  /* "CONTROL TEST", as the usage line shows them */
    int npositional;         /* at most CLI_MAX_POSITIONAL */
    const char *missing;     /* names the positionals when some are missing */
    const char *choices;     /* "counts|duration": the first positional's values, or NULL */
    const char *usage_tail;  /* after "[options]" in the usage line ("-o FILE"), or NULL */
    const char *description; /* paragraphs for --help and the man page */
    const char *examples[4]; /* command lines on bundled files; NULL-terminated */
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

extern const cli_command cli_commands[]; /* ends with a NULL name */
extern const cli_option cli_options[];   /* ends with a NULL name */
extern const char *const cli_groups[];   /* headings in the order shown; NULL-terminated */

const cli_command *cli_command_find(const char *name);
const cli_command *cli_command_by_id(cli_command_id id);
bool cli_option_takes(const cli_option *opt, const cli_command *cmd);
bool cli_command_has_options(const cli_command *cmd);

/* table.c: value checks the setters share; each prints "OPT 'V': ..." when bad. */
int cli_value_count(const char *opt, const char *v, long lo, long hi, long *out);
int cli_value_list(td_list *l, const char *opt, const char *v);

#endif
