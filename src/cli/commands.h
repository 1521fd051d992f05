/* Commands beyond compare and ops, each in a file of its own. */
#ifndef TD_COMMANDS_H
#define TD_COMMANDS_H

#include <stdio.h>

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
} cli_command;

/* Terminated by a { NULL, NULL } entry; defined in commands.c. */
extern const cli_command cli_extra_commands[];

int cmd_info(int argc, char **argv, void (*usage)(FILE *));

#endif
