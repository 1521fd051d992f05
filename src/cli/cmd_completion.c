/* tracediff completion bash|zsh: a completion script made from the tables:
 * commands, each command's options, the values of options with choices,
 * the first positional's choices (plot counts|duration), and file names. */
#include "options.h"

#include <string.h>

/* "all|cpu|gpu" as "all cpu gpu" */
static void print_words(FILE *f, const char *choices)
{
    for (const char *c = choices; *c; c++)
        fputc(*c == '|' ? ' ' : *c, f);
}

static bool takes_files(const cli_command *c)
{
    return c->npositional > (c->choices ? 1 : 0);
}

/* bash */

static void bash_value_cases(FILE *f, const cli_command *c)
{
    for (const cli_option *opt = cli_options; opt->name; opt++) {
        if (!cli_option_takes(opt, c) || !opt->arg)
            continue;
        fputs("        ", f);
        if (opt->short_name)
            fprintf(f, "-%c|", opt->short_name);
        fprintf(f, "--%s) ", opt->name);
        if (opt->choices) {
            fputs("COMPREPLY=($(compgen -W \"", f);
            print_words(f, opt->choices);
            fputs("\" -- \"$cur\"));;\n", f);
        } else if (strcmp(opt->arg, "FILE") == 0) {
            fputs("_tracediff_files;;\n", f);
        } else {
            fputs(";;\n", f);
        }
    }
}

static void bash_command(FILE *f, const cli_command *c)
{
    fprintf(f, "    %s)\n        case $prev in\n", c->name);
    bash_value_cases(f, c);
    fputs("        *) value=0;;\n        esac\n        opts=\"--help", f);
    for (const cli_option *opt = cli_options; opt->name; opt++)
        if (cli_option_takes(opt, c)) {
            if (opt->short_name)
                fprintf(f, " -%c", opt->short_name);
            fprintf(f, " --%s", opt->name);
        }
    fputs("\"\n        first=\"", f);
    if (c->choices)
        print_words(f, c->choices);
    fprintf(f, "\"\n        files=%d\n        ;;\n", takes_files(c));
}

static void completion_bash(FILE *f)
{
    fputs("# bash completion for tracediff, made by 'tracediff completion bash'.\n"
          "# Load it with: source <(tracediff completion bash)\n"
          "_tracediff_files()\n{\n"
          "    compopt -o filenames 2>/dev/null\n"
          "    COMPREPLY=($(compgen -f -- \"$cur\"))\n}\n\n"
          "_tracediff()\n{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local opts first files value=1\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          f);
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "%s ", c->name);
    fputs("--help --version\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case ${COMP_WORDS[1]} in\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++)
        bash_command(f, c);
    fputs("    *) return;;\n"
          "    esac\n"
          "    [ \"$value\" = 1 ] && return\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    elif [ -n \"$first\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
          "        COMPREPLY=($(compgen -W \"$first\" -- \"$cur\"))\n"
          "    elif [ \"$files\" = 1 ]; then\n"
          "        _tracediff_files\n"
          "    fi\n"
          "}\n"
          "complete -F _tracediff tracediff\n",
          f);
}

/* zsh */

/* The first line of the help, quoted for a '...' _arguments spec. */
static void zsh_help(FILE *f, const char *help)
{
    for (const char *p = help; *p && *p != '\n'; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else if (*p == '[' || *p == ']' || *p == ':')
            fprintf(f, "\\%c", *p);
        else
            fputc(*p, f);
    }
}

static void zsh_value(FILE *f, const cli_option *opt)
{
    if (!opt->arg)
        return;
    fprintf(f, ":%s:", opt->arg);
    if (opt->choices) {
        fputc('(', f);
        print_words(f, opt->choices);
        fputc(')', f);
    } else if (strcmp(opt->arg, "FILE") == 0) {
        fputs("_files", f);
    } else {
        fputc(' ', f);
    }
}

static void zsh_spec(FILE *f, const cli_option *opt, bool is_short)
{
    fputs("            '", f);
    if (is_short)
        fprintf(f, "-%c%s[", opt->short_name, opt->arg ? "+" : "");
    else
        fprintf(f, "--%s%s[", opt->name, opt->arg ? "=" : "");
    zsh_help(f, opt->help);
    fputc(']', f);
    zsh_value(f, opt);
    fputs("' \\\n", f);
}

static void zsh_command(FILE *f, const cli_command *c)
{
    fprintf(f,
            "    %s)\n        _arguments -s -S \\\n"
            "            '(- *)'{-h,--help}'[what the command does, its options]' \\\n",
            c->name);
    for (const cli_option *opt = cli_options; opt->name; opt++) {
        if (!cli_option_takes(opt, c))
            continue;
        if (opt->short_name)
            zsh_spec(f, opt, true);
        zsh_spec(f, opt, false);
    }
    if (c->choices) {
        fputs("            '1:argument:(", f);
        print_words(f, c->choices);
        fputs(")' \\\n", f);
    }
    if (takes_files(c))
        fputs("            '*:trace set:_files' \\\n", f);
    fputs("            && return\n        ;;\n", f);
}

static void completion_zsh(FILE *f)
{
    fputs("#compdef tracediff\n"
          "# zsh completion for tracediff, made by 'tracediff completion zsh'.\n"
          "# Put it in a directory of $fpath as _tracediff, or: source <(tracediff completion "
          "zsh)\n"
          "_tracediff()\n{\n"
          "    local -a commands\n"
          "    commands=(\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(f, "        '%s:", c->name);
        zsh_help(f, c->summary);
        fputs("'\n", f);
    }
    fputs("    )\n"
          "    if (( CURRENT == 2 )); then\n"
          "        _describe -t commands 'tracediff command' commands\n"
          "        return\n"
          "    fi\n"
          "    local cmd=$words[2]\n"
          "    shift words\n"
          "    (( CURRENT-- ))\n"
          "    case $cmd in\n",
          f);
    for (const cli_command *c = cli_commands; c->name; c++)
        zsh_command(f, c);
    fputs("    esac\n"
          "    return 1\n"
          "}\n"
          "if [ \"$funcstack[1]\" = _tracediff ]; then\n"
          "    _tracediff \"$@\"\n"
          "else\n"
          "    compdef _tracediff tracediff\n"
          "fi\n",
          f);
}

int cmd_completion(cli_pair *p, const char **pos)
{
    (void)p;
    const char *shell = pos[0];
    if (strcmp(shell, "bash") == 0)
        completion_bash(stdout);
    else if (strcmp(shell, "zsh") == 0)
        completion_zsh(stdout);
    else {
        cli_error("completion: '%s': expected bash or zsh", shell);
        return EXIT_USAGE;
    }
    out_file out = {0};
    out_open(&out, NULL);
    return out_commit(&out);
}
