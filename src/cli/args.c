/* Positional arguments plus the shared options, for commands in files of their own. */
#include "cli.h"
#include "commands.h"

#include <string.h>

int cli_parse_args(cli_opts *o, int argc, char **argv, void (*usage)(FILE *), int npos,
                   const char **pos, const char *what)
{
    int got = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return EXIT_OK + 1;
        }
        /* "-" alone is a value (stdout), not an option. */
        if (a[0] == '-' && a[1] != '\0') {
            int r = cli_shared_option(o, argc, argv, &i);
            if (r < 0)
                return EXIT_USAGE + 1;
            if (r == 0) {
                cli_error("%s: unknown option '%s' (see '%s %s --help')", argv[0], a, g_prog,
                          argv[0]);
                return EXIT_USAGE + 1;
            }
            continue;
        }
        if (got >= npos) {
            cli_error("%s: unexpected argument '%s'", argv[0], a);
            return EXIT_USAGE + 1;
        }
        pos[got++] = a;
    }
    if (got < npos) {
        cli_error("%s: expected %s (see '%s %s --help')", argv[0], what, g_prog, argv[0]);
        return EXIT_USAGE + 1;
    }
    return 0;
}

/* The same options as compare's help lists (main.c keeps its copy private). */
const char cli_usage_selection[] =
    "selection:\n"
    "  --control-rank R, --test-rank R        R: N | N,M,... | all (default: the lowest rank)\n"
    "  --control-iteration I, --test-iteration I\n"
    "                                         I: N | N,M,... | all (default: the lowest)\n"
    "  --device all|cpu|gpu                   cpu: stream -1; gpu: every other stream\n"
    "  --short-names                          group by short names (no templates, arguments)\n"
    "  --hta-strict                           HTA's own numbers: GPU events on stream 0 get no\n"
    "                                         iteration (default: their launch's; docs/numbers.md)\n"
    "  --control-label NAME, --test-label NAME  side labels (legend, columns)\n"
    "  -j, --jobs N                           files read at once (default: one per core)\n"
    "  -q, --quiet                            no notes on stderr\n";
