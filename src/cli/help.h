/* --help of each command and the top-level usage, made from the tables
 * (help.c); options.c prints them, doc.c and the completions spell options
 * the same way. */
#ifndef TD_CLI_HELP_H
#define TD_CLI_HELP_H

#include "table.h"

#include <stdio.h>

void cli_usage_main(FILE *f);
void cli_usage_command(FILE *f, const cli_command *cmd);
/* "--device all|cpu|gpu", "-j, --jobs N": how help and docs spell an option. */
void cli_option_spelled(char *buf, size_t size, const cli_option *opt);
/* "all, cpu or gpu" */
void cli_choices_words(char *buf, size_t size, const char *choices);

#endif
