/* tracediff: find the command in the table (table.c) and run it. */
#include "options.h"

#include <locale.h>
#include <string.h>

static bool is_any(const char *a, const char *x, const char *y, const char *z)
{
    return strcmp(a, x) == 0 || strcmp(a, y) == 0 || (z && strcmp(a, z) == 0);
}

int main(int argc, char **argv)
{
    cli_heap_huge();
    /* Only the character type follows the environment: numbers are always
     * read and written with a '.' whatever the locale. */
    setlocale(LC_CTYPE, "");
    if (argc < 2) {
        cli_usage_main(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (is_any(name, "--help", "-h", "help")) {
        cli_usage_main(stdout);
        return EXIT_OK;
    }
    if (is_any(name, "--version", "-V", NULL)) {
        printf("%s %s\n", g_prog, TD_VERSION);
        return EXIT_OK;
    }
    const cli_command *cmd = cli_command_find(name);
    if (!cmd) {
        const char *cands[CMD_COUNT];
        size_t n = 0;
        for (const cli_command *c = cli_commands; c->name && n < CMD_COUNT; c++)
            cands[n++] = c->name;
        const char *near = cli_suggest(name, cands, n);
        if (near)
            cli_error("unknown command '%s'; did you mean '%s'? (see '%s --help')", name, near,
                      g_prog);
        else
            cli_error("unknown command '%s' (see '%s --help')", name, g_prog);
        return EXIT_USAGE;
    }
    cli_map_files();
    cli_catch_signals();
    return cli_command_run(cmd, argc - 1, argv + 1);
}
