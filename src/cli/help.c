/* --help of each command and the top-level usage, made from the tables. */
#include "help.h"

#include <string.h>

/* Help texts start at this column at most; a longer option spelling puts its
 * help on the next line. */
enum { HELP_COLUMN_MAX = 36 };

void cli_choices_words(char *buf, size_t size, const char *choices)
{
    size_t n = 0, left = 0;
    for (const char *c = choices; *c; c++)
        left += *c == '|';
    buf[0] = '\0';
    for (const char *c = choices; *c && n < size;) {
        size_t k = strcspn(c, "|");
        const char *sep = c == choices ? "" : left ? ", " : " or ";
        n += (size_t)snprintf(buf + n, size - n, "%s%.*s", sep, (int)k, c);
        c += k;
        if (*c == '|') {
            c++;
            left--;
        }
    }
}

void cli_option_spelled(char *buf, size_t size, const cli_option *opt)
{
    const char *value = opt->choices ? opt->choices : opt->arg;
    if (opt->short_name)
        snprintf(buf, size, "-%c, --%s%s%s", opt->short_name, opt->name, value ? " " : "",
                 value ? value : "");
    else
        snprintf(buf, size, "--%s%s%s", opt->name, value ? " " : "", value ? value : "");
}

/* Indents every line of text after the first by col spaces. */
static void print_indented(FILE *f, const char *text, int col)
{
    for (const char *p = text; *p;) {
        size_t k = strcspn(p, "\n");
        fprintf(f, "%.*s\n", (int)k, p);
        p += k;
        if (*p == '\n' && *++p)
            fprintf(f, "%*s", col, "");
    }
}

static int help_column(const cli_command *cmd)
{
    int widest = 0;
    char s[128];
    for (const cli_option *opt = cli_options; opt->name; opt++) {
        if (!cli_option_takes(opt, cmd))
            continue;
        cli_option_spelled(s, sizeof s, opt);
        int n = 2 + (int)strlen(s) + 3;
        if (n > widest)
            widest = n;
    }
    return widest < HELP_COLUMN_MAX ? widest : HELP_COLUMN_MAX;
}

static void print_group(FILE *f, const cli_command *cmd, const char *group, int col)
{
    bool any = false;
    char s[128];
    for (const cli_option *opt = cli_options; opt->name; opt++) {
        if (!cli_option_takes(opt, cmd) || strcmp(opt->group, group) != 0)
            continue;
        if (!any)
            fprintf(f, "\n%s:\n", group);
        any = true;
        cli_option_spelled(s, sizeof s, opt);
        int n = fprintf(f, "  %s", s);
        if (n + 1 > col)
            fprintf(f, "\n%*s", col, "");
        else
            fprintf(f, "%*s", col - n, "");
        print_indented(f, opt->help, col);
    }
}

static void print_usage_line(FILE *f, const cli_command *cmd)
{
    fprintf(f, "usage: %s %s%s%s%s%s%s\n", g_prog, cmd->name, *cmd->positional ? " " : "",
            cmd->positional, cli_command_has_options(cmd) ? " [options]" : "",
            cmd->usage_tail ? " " : "", cmd->usage_tail ? cmd->usage_tail : "");
}

void cli_usage_command(FILE *f, const cli_command *cmd)
{
    print_usage_line(f, cmd);
    fprintf(f, "\n%s\n", cmd->description);
    int col = help_column(cmd);
    for (const char *const *g = cli_groups; *g; g++)
        print_group(f, cmd, *g, col);
    fprintf(f, "\nexample%s:\n", cmd->examples[1] ? "s" : "");
    for (const char *const *e = cmd->examples; *e; e++)
        fprintf(f, "  %s\n", *e);
}

void cli_usage_main(FILE *f)
{
    fprintf(f,
            "usage: %s <command> [options]\n\n"
            "Compare two sets of PyTorch profiler traces: a control run and a test run.\n\n"
            "example:\n"
            "  %s\n\n"
            "commands:\n",
            g_prog, cli_commands[0].examples[0]);
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "  %-11s %s\n", c->name, c->summary);
    fprintf(f,
            "\nA trace set is a directory of trace files (one per rank: .json, .json.gz, "
            ".json.zst;\nNsight Systems or rocpd .sqlite/.db exports, docs/profilers.md) "
            "or one trace file.\n'%s <command> --help' tells more.\n\n"
            "exit status: 0 ok, 1 bad data or I/O error, 2 bad usage, 3 regression found (check)\n",
            g_prog);
}
