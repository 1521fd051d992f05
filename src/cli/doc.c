/* Documents made from the tables: the man page (roff), the README's usage
 * block, and the option table as tab-separated lines. tests/cli_doc_test.py
 * compares the committed copies with what this file prints. */
#include "options.h"

#include <string.h>

/* Text for roff: backslashes and dashes escaped, no line starting with a
 * control character; '\n' stays a line break in the source. */
static void roff_text(FILE *f, const char *s)
{
    bool line_start = true;
    for (; *s; s++) {
        if (line_start && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        line_start = *s == '\n';
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* Paragraphs of a description: a blank line starts a new one. */
static void roff_paragraphs(FILE *f, const char *s)
{
    for (const char *p = s; *p;) {
        const char *end = strstr(p, "\n\n");
        size_t k = end ? (size_t)(end - p) : strlen(p);
        char buf[2048];
        snprintf(buf, sizeof buf, "%.*s", (int)k, p);
        fputs(".PP\n", f);
        roff_text(f, buf);
        fputc('\n', f);
        p += k;
        while (*p == '\n')
            p++;
    }
}

static void commands_taking(FILE *f, const cli_option *opt, const char *sep)
{
    bool first = true;
    for (const cli_command *c = cli_commands; c->name; c++)
        if (cli_option_takes(opt, c)) {
            fprintf(f, "%s%s", first ? "" : sep, c->name);
            first = false;
        }
}

static void man_synopsis(FILE *f)
{
    fputs(".SH SYNOPSIS\n.nf\n", f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "\\fB%s %s\\fR%s", g_prog, c->name, *c->positional ? " " : "");
        roff_text(f, c->positional);
        if (cli_command_has_options(c))
            fputs(" [\\fIoptions\\fR]", f);
        if (c->usage_tail) {
            fputc(' ', f);
            roff_text(f, c->usage_tail);
        }
        fputc('\n', f);
    }
    fprintf(f, "\\fB%s \\-\\-help\\fR | \\fB\\-\\-version\\fR\n.fi\n", g_prog);
}

static void man_commands(FILE *f)
{
    fputs(".SH COMMANDS\n", f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, ".SS %s ", c->name);
        roff_text(f, c->positional);
        fputc('\n', f);
        roff_paragraphs(f, c->description);
        fputs(".PP\nExamples:\n.RS\n.nf\n", f);
        for (const char *const *e = c->examples; *e; e++) {
            roff_text(f, *e);
            fputc('\n', f);
        }
        fputs(".fi\n.RE\n", f);
    }
}

static void man_option(FILE *f, const cli_option *opt)
{
    const char *value = opt->choices ? opt->choices : opt->arg;
    fputs(".TP\n", f);
    if (opt->short_name)
        fprintf(f, "\\fB\\-%c\\fR, ", opt->short_name);
    fputs("\\fB", f);
    roff_text(f, "--");
    roff_text(f, opt->name);
    fputs("\\fR", f);
    if (value) {
        fputs(" \\fI", f);
        roff_text(f, value);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    roff_text(f, opt->help);
    fputs("\n(", f);
    commands_taking(f, opt, ", ");
    fputs(")\n", f);
}

static void man_options(FILE *f)
{
    fputs(".SH OPTIONS\n"
          ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\n"
          "what the command does, its options and examples (every command)\n",
          f);
    for (const char *const *g = cli_groups; *g; g++) {
        fprintf(f, ".SS %s\n", *g);
        for (const cli_option *opt = cli_options; opt->name; opt++)
            if (strcmp(opt->group, *g) == 0)
                man_option(f, opt);
    }
}

void cli_doc_man(FILE *f)
{
    fprintf(f,
            ".\\\" The manual page of tracediff, made by 'tracediff man' from its option\n"
            ".\\\" table (src/cli/table.c). Do not edit: regenerate.\n"
            ".TH TRACEDIFF 1 \"\" \"%s %s\" \"User Commands\"\n"
            ".SH NAME\n%s \\- compare two sets of PyTorch profiler traces\n",
            g_prog, TD_VERSION, g_prog);
    man_synopsis(f);
    fputs(".SH DESCRIPTION\n", f);
    roff_paragraphs(f, "Compares two sets of PyTorch profiler traces, a control run and a test\n"
                       "run, and shows which CPU operators and GPU kernels were added, removed,\n"
                       "became more or less frequent, and how much time each gained or lost.\n"
                       "The numbers are those of the TraceDiff class of Holistic Trace Analysis\n"
                       "(HTA).\n\n"
                       "A trace set (CONTROL, TEST, SET) is a directory holding one trace file\n"
                       "per rank (.json, .json.gz or .json.zst), or a single trace file.");
    man_commands(f);
    man_options(f);
    fputs(".SH DURATIONS\n", f);
    roff_paragraphs(f, "Durations are in microseconds. A file whose timestamps have decimals is\n"
                       "rounded as HTA rounds it: end = floor(ts + dur), ts = ceil(ts),\n"
                       "dur = end - ts. An event with ts 100.3 and dur 0.4 counts -1 us; one\n"
                       "with ts 100.6 and dur 1.7 counts 1 us. When that made a selected\n"
                       "duration negative or moved a row's total by more than 5%, a note on\n"
                       "stderr says how many, and the report lists it.\n\n"
                       "--ns keeps the traces' own resolution: the same events count 0.4 and\n"
                       "1.7 us. Every command that reads traces takes it, info's totals\n"
                       "follow the same rule as compare's, and a summary records the rule it\n"
                       "was made with: comparing it under the other is an error (exit 1)\n"
                       "that says to summarize the traces again.\n\n"
                       "--cat selects events, not names: on a torch.compile trace whose Triton\n"
                       "kernel has a cpu_op of the same name, --cat kernel keeps the kernel\n"
                       "alone, and --cat kernel --device cpu is empty (exit 0).");
    fputs(".SH ENVIRONMENT\n.TP\nHTA_DISABLE_NS_ROUNDING\n"
          "exactly 1: as \\-\\-ns (HTA's own switch, read as HTA reads it)\n",
          f);
    fputs(".SH EXIT STATUS\n.TP\n0\ndone\n.TP\n1\nbad data or an I/O error\n.TP\n2\n"
          "bad usage: an unknown option, rank, iteration, column or format\n.TP\n3\n"
          "a regression was found (reserved for \\fBcheck\\fR)\n",
          f);
    fputs(".SH SIGNALS\n", f);
    roff_paragraphs(f, "On SIGINT, SIGTERM or SIGHUP, the temporary files of the outputs being\n"
                       "written are removed, and the process dies by the signal: an output file\n"
                       "is written whole or not at all.");
    fputs(".SH NOTES\n", f);
    roff_paragraphs(f, "Names and labels come from traces, summaries and the command line: the\n"
                       "tables and messages show control characters and bidirectional controls\n"
                       "as escapes (\\x1b, \\u202e), Markdown escapes | as well, and the\n"
                       "HTML report escapes markup. CSV and JSON give the names exactly; with\n"
                       "--csv-safe, CSV text cells that a spreadsheet would take for a formula\n"
                       "get a leading '. Set directories are read for regular files only.");
    fputs(".SH SEE ALSO\nREADME.md, docs/numbers.md and docs/errors.md in the source tree.\n", f);
}

/* The command mask more than half of a group's options share, or 0. */
static unsigned usual_mask(const char *group)
{
    int total = 0;
    for (const cli_option *a = cli_options; a->name; a++)
        total += strcmp(a->group, group) == 0;
    for (const cli_option *a = cli_options; a->name; a++) {
        int same = 0;
        for (const cli_option *b = cli_options; b->name; b++)
            same += strcmp(b->group, group) == 0 && b->commands == a->commands;
        if (strcmp(a->group, group) == 0 && 2 * same > total)
            return a->commands;
    }
    return 0;
}

static void usage_option(FILE *f, const cli_option *opt, bool tagged)
{
    enum { COL = 36 };
    char s[128];
    cli_option_spelled(s, sizeof s, opt);
    int n = fprintf(f, "  %s", s);
    if (n + 1 > COL)
        fprintf(f, "\n%*s", COL, "");
    else
        fprintf(f, "%*s", COL - n, "");
    if (tagged) {
        char tag[256];
        size_t k = 0;
        for (const cli_command *c = cli_commands; c->name && k < sizeof tag; c++)
            if (cli_option_takes(opt, c))
                k += (size_t)snprintf(tag + k, sizeof tag - k, "%s%s", k ? ", " : "[", c->name);
        fprintf(f, "%s]", tag);
        /* A long first line: the help goes under the tag. */
        if (COL + strlen(tag) + 2 + strcspn(opt->help, "\n") > 100)
            fprintf(f, "\n%*s", COL, "");
        else
            fputc(' ', f);
    }
    for (const char *p = opt->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", COL, "");
    }
    fputc('\n', f);
}

static void usage_group(FILE *f, const char *group)
{
    unsigned usual = usual_mask(group);
    fprintf(f, "\n%s", group);
    if (usual) {
        cli_option heading = {.commands = usual};
        fputs(" (", f);
        commands_taking(f, &heading, ", ");
        fputc(')', f);
    }
    fputs(":\n", f);
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (strcmp(opt->group, group) == 0)
            usage_option(f, opt, opt->commands != usual);
}

/* The synopsis lines and every option by group; options that not every
 * command of the group takes say which do. */
void cli_doc_usage(FILE *f)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "%s %-10s %s%s%s%s%s\n", g_prog, c->name, c->positional,
                *c->positional && cli_command_has_options(c) ? " " : "",
                cli_command_has_options(c) ? "[options]" : "", c->usage_tail ? " " : "",
                c->usage_tail ? c->usage_tail : "");
    for (const char *const *g = cli_groups; *g; g++)
        usage_group(f, *g);
}

void cli_doc_tsv(FILE *f)
{
    fputs("command\tgroup\tlong\tshort\targ\tchoices\thelp\n", f);
    for (const cli_command *c = cli_commands; c->name; c++)
        for (const cli_option *opt = cli_options; opt->name; opt++) {
            if (!cli_option_takes(opt, c))
                continue;
            fprintf(f, "%s\t%s\t--%s\t", c->name, opt->group, opt->name);
            if (opt->short_name)
                fprintf(f, "-%c", opt->short_name);
            fprintf(f, "\t%s\t%s\t", opt->arg ? opt->arg : "", opt->choices ? opt->choices : "");
            for (const char *p = opt->help; *p; p++)
                fputc(*p == '\n' ? ' ' : *p, f);
            fputc('\n', f);
        }
}
