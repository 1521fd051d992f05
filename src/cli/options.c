/* The one option parser: a loop over argv driven by the option table.
 * Spellings: --name VALUE, --name=VALUE, -x VALUE, -xVALUE, -x=VALUE; a flag
 * takes no value. "-" alone is a positional argument (stdout, stdin). */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

/* Choices are lower case words; a value matches one in any case ("GPU"). */
static bool is_choice(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        size_t k = strcspn(c, "|");
        if (k == n && strncasecmp(c, v, n) == 0)
            return true;
        c += k + (c[k] == '|');
    }
    return false;
}

static const cli_option *find_long(const cli_command *cmd, const char *name, size_t len)
{
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (cli_option_takes(opt, cmd) && strlen(opt->name) == len &&
            strncmp(opt->name, name, len) == 0)
            return opt;
    return NULL;
}

static const cli_option *find_short(const cli_command *cmd, char c)
{
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (cli_option_takes(opt, cmd) && opt->short_name == c)
            return opt;
    return NULL;
}

/* The option at argv[*i], and where its attached value starts (after '=' or,
 * for a short option, right after the letter); NULL attached: none. */
static const cli_option *match(const cli_command *cmd, const char *a, const char **attached)
{
    *attached = NULL;
    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        const cli_option *opt = find_long(cmd, a + 2, len);
        if (eq)
            *attached = eq + 1;
        return opt;
    }
    const cli_option *opt = find_short(cmd, a[1]);
    if (a[2])
        *attached = a[2] == '=' ? a + 3 : a + 2;
    return opt;
}

static int store(const cli_option *opt, cli_opts *o, const char *v)
{
    if (opt->choices) {
        if (!is_choice(opt->choices, v)) {
            char words[256];
            cli_choices_words(words, sizeof words, opt->choices);
            const char *near = cli_suggest_choice(v, opt->choices);
            if (near)
                cli_error("--%s '%s': expected %s; did you mean '%.*s'?", opt->name, v, words,
                          (int)strcspn(near, "|"), near);
            else
                cli_error("--%s '%s': expected %s", opt->name, v, words);
            return -1;
        }
        /* v is in argv, which C lets a program change: fold it to the
         * table's spelling, so setters and later strcmp()s see one form. */
        for (char *p = (char *)v; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    }
    return opt->set(o, v) < 0 ? -1 : 1;
}

int cli_option_parse(const cli_command *cmd, cli_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    if (a[0] != '-' || a[1] == '\0')
        return 0;
    const cli_option *opt = match(cmd, a, &v);
    if (!opt)
        return 0;
    if (!opt->arg) /* a flag: "--quiet=yes" or "-qx" is not one */
        return v ? 0 : (opt->set(o, NULL) < 0 ? -1 : 1);
    if (!v) {
        if (*i + 1 >= argc) {
            cli_error("%s needs a value", a);
            return -1;
        }
        v = argv[++*i];
    }
    return store(opt, o, v);
}

/* "--short-names" (or "--name=...") is only some other command's option. */
static bool other_commands_take(const cli_command *cmd, const char *a)
{
    if (a[1] != '-')
        return false;
    size_t len = strcspn(a + 2, "=");
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (strlen(opt->name) == len && strncmp(opt->name, a + 2, len) == 0 &&
            cli_option_takes(opt, cmd))
            return false;
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (strlen(opt->name) == len && strncmp(opt->name, a + 2, len) == 0)
            return true;
    return false;
}

static bool is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* "unknown option '--devce'", with the nearest option of cmd when it is
 * near enough to be a typo. */
static void unknown_option(const cli_command *cmd, const char *a)
{
    const char *cands[256];
    size_t n = 0;
    for (const cli_option *opt = cli_options; opt->name && n < 256; opt++)
        if (cli_option_takes(opt, cmd))
            cands[n++] = opt->name;
    const char *word = a + (a[1] == '-' ? 2 : 1);
    char w[128];
    snprintf(w, sizeof w, "%.*s", (int)strcspn(word, "="), word);
    const char *near = a[1] == '-' ? cli_suggest(w, cands, n) : NULL;
    if (near)
        cli_error("%s: unknown option '%s'; did you mean '--%s'? (see '%s %s --help')", cmd->name,
                  a, near, g_prog, cmd->name);
    else
        cli_error("%s: unknown option '%s' (see '%s %s --help')", cmd->name, a, g_prog, cmd->name);
}

/* Whether the option table gives cmd the option called name. */
static bool command_takes(const cli_command *cmd, const char *name)
{
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (strcmp(opt->name, name) == 0 && cli_option_takes(opt, cmd))
            return true;
    return false;
}

/* -o FILE.EXT without --format: EXT must name a format the command writes
 * (else the file would silently hold another one). A name without an
 * extension, "-" and --format are left alone; plot checks its own. */
static int check_output_ext(const cli_command *cmd, const cli_opts *o)
{
    if (!o->output || o->format || strcmp(o->output, "-") == 0 || cmd->id == CMD_PLOT ||
        cmd->id == CMD_SUMMARIZE || cmd->id == CMD_MAN || cmd->id == CMD_COMPLETION)
        return 0;
    const char *base = strrchr(o->output, '/');
    base = base ? base + 1 : o->output;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return 0;
    const char *choices = "";
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (strcmp(opt->name, "format") == 0 && cli_option_takes(opt, cmd) && opt->choices)
            choices = opt->choices;
    static const char *const by_format[][2] = {{"table", ".txt"},
                                               {"csv", ".csv"},
                                               {"json", ".json"},
                                               {"markdown", ".md"},
                                               {"folded", ".folded"}};
    const char *known[8];
    int n = 0;
    for (size_t k = 0; k < sizeof by_format / sizeof *by_format; k++) {
        size_t fl = strlen(by_format[k][0]);
        for (const char *c = choices; *c;) {
            size_t w = strcspn(c, "|");
            if (w == fl && strncmp(c, by_format[k][0], w) == 0)
                known[n++] = by_format[k][1];
            c += w + (c[w] == '|');
        }
    }
    if (cmd->id == CMD_REPORT) {
        known[n++] = ".html";
        known[n++] = ".htm";
    }
    if (cmd->id == CMD_TREND) {
        known[n++] = ".svg";
        known[n++] = ".png";
        known[n++] = ".pdf";
    }
    if (n == 0)
        return 0;
    char list[128] = "";
    for (int k = 0; k < n; k++) {
        if (strcasecmp(dot, known[k]) == 0)
            return 0;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 k == 0       ? ""
                 : k == n - 1 ? " or "
                              : ", ",
                 known[k]);
    }
    cli_error("%s: %s: no %s writer for '%s': name the file %s, or give --format", cmd->name,
              o->output, cmd->name, dot, list);
    return -1;
}

int cli_parse(const cli_command *cmd, cli_opts *o, const char **pos, int argc, char **argv)
{
    int got = 0;
    o->per_iteration_ok = command_takes(cmd, "per-iteration");
    /* Where no reference binds the output, the signal first: plot, report,
     * check and trend fold names that differ only by noise unless told not
     * to (--no-normalize-names); compare, ops and explain stay HTA's. */
    if (cmd->id == CMD_PLOT || cmd->id == CMD_REPORT || cmd->id == CMD_CHECK ||
        cmd->id == CMD_TREND)
        o->cmp.normalize_names = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            cli_usage_command(stdout, cmd);
            return EXIT_OK;
        }
        if (a[0] == '-' && a[1] != '\0') {
            int r = cli_option_parse(cmd, o, argc, argv, &i);
            if (r == 0 && other_commands_take(cmd, a))
                cli_error("%s: %s does not apply to %s (see '%s %s --help')", cmd->name, a,
                          cmd->name, g_prog, cmd->name);
            else if (r == 0)
                unknown_option(cmd, a);
            if (r <= 0)
                return EXIT_USAGE;
            continue;
        }
        if (got >= cmd->npositional) {
            cli_error("%s: unexpected argument '%s'", cmd->name, a);
            return EXIT_USAGE;
        }
        pos[got++] = a;
    }
    if (got < cmd->npositional) {
        cli_error("%s: expected %s (see '%s %s --help')", cmd->name, cmd->missing, g_prog,
                  cmd->name);
        return EXIT_USAGE;
    }
    if (check_output_ext(cmd, o) < 0)
        return EXIT_USAGE;
    /* HTA's own switch, read as HTA reads it (exactly "1"). */
    if (td_env_ns())
        o->ns = true;
    return CLI_RUN;
}

void cli_opts_free(cli_opts *o)
{
    td_list_clear(&o->cmp.control_ranks);
    td_list_clear(&o->cmp.test_ranks);
    td_list_clear(&o->cmp.control_iters);
    td_list_clear(&o->cmp.test_iters);
    td_list_clear(&o->ranks);
    td_list_clear(&o->iters);
    td_list_clear(&o->pids);
    td_classes_free(o->classes);
    o->classes = NULL;
    td_renames_free(o->renames);
    o->renames = NULL;
    o->cmp.renames = NULL;
}
