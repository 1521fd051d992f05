/*
 * tracediff-mpi: the tracediff commands that read trace sets, run by every
 * process of an MPI job. Every process parses the command line with the
 * CLI's own tables, reads its share of the files (mpi_sets.c), and rank 0
 * runs the command's ordinary handler on the sets gathered to it. Only rank
 * 0 prints; the others' stdout and stderr go to /dev/null. With --batch FILE
 * one job runs many command lines, paying MPI's start-up once.
 */
#include "cli/options.h"
#include "mpi_sets.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* The commands run here: those that read trace sets. One line each. */
static const struct {
    cli_command_id id;
    unsigned flags; /* for td_set_pack_file */
    int nsets;      /* the sets among the positionals (after the choice); 0: all */
} commands[] = {
    {CMD_COMPARE, 0, 0},
    {CMD_OPS, 0, 0},
    {CMD_INFO, 0, 0},
    {CMD_PLOT, 0, 0},
    {CMD_REPORT, TD_PACK_BD, 0}, /* its headline is the breakdown */
    {CMD_CHECK, 0, 0},
    {CMD_EXPLAIN, 0, 2}, /* CONTROL TEST NAME */
    /* a summary records each file's hash, and keeps the breakdown's records */
    {CMD_SUMMARIZE, TD_PACK_SHA256 | TD_PACK_BD, 0},
    {CMD_BREAKDOWN, TD_PACK_BD, 0},
    {CMD_ROOFLINE, 0, 0},
};

static mpi_sets g_sets;
static bool g_whole;    /* the files travel whole (TD_PACK_CALLS) */
static unsigned g_more; /* the packs carry stacks, shapes: TD_PACK_STACKS, TD_PACK_ROOF */

/* cli_sets_open on rank 0: the sets built by all, else as the CLI opens them. */
static int open_built(td_set **out, const char *const *paths, size_t n, const td_open_opts *opts,
                      td_error *err)
{
    int rc = mpi_sets_take(&g_sets, out, paths, n, err);
    if (rc == 0 && opts &&
        (opts->step_marker || (opts->want_stacks && !(g_more & TD_PACK_STACKS)) ||
         opts->want_tree || (opts->want_roofline && !(g_more & TD_PACK_ROOF)) || opts->npids ||
         opts->nsys_demangled || (opts->want_breakdown && g_whole))) {
        /* The processes read every process of an export by its short kernel
         * names, without the marker, and packed no trees (nor stacks or
         * shapes when the command line did not show that they are read,
         * nor the breakdown's records when they sent whole files): read
         * again here, as asked. */
        for (size_t i = 0; i < n; i++) {
            td_set_free(out[i]);
            out[i] = NULL;
        }
        rc = 1;
    }
    if (rc != 1)
        return rc;
    /* No forked loaders in an MPI process: its transports may not survive
     * a fork. */
    td_open_opts own = *opts;
    own.processes = false;
    return td_sets_open(out, paths, n, &own, err);
}

static int find(const cli_command *cmd)
{
    for (size_t i = 0; cmd && i < sizeof commands / sizeof *commands; i++)
        if (commands[i].id == cmd->id)
            return (int)i;
    return -1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun [-n N] %s COMMAND ARGS... [options]\n"
            "       mpirun [-n N] %s --batch FILE    (one command line per line)\n\ncommands:",
            g_prog, g_prog);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, " %s", cli_command_by_id(commands[i].id)->name);
    fprintf(f, "\n\nThe commands and options are tracediff's (see 'tracediff COMMAND --help');\n"
               "the files of the sets are divided among the processes. See docs/cluster.md.\n");
}

/* Parses argv as tracediff would; returns CLI_RUN with the command found, or
 * the exit status (the same on every process). */
static int parse(int argc, char **argv, const cli_command **cmd, cli_opts *o, const char **pos)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
        printf("%s %s\n", g_prog, TD_VERSION);
        return EXIT_OK;
    }
    *cmd = cli_command_find(name);
    if (find(*cmd) < 0) {
        cli_error("'%s' is not a command of %s (see '%s --help')", name, g_prog, g_prog);
        return EXIT_USAGE;
    }
    return cli_parse(*cmd, o, pos, argc - 1, argv + 1);
}

/* Whether the command reads the op calls, which only whole files carry
 * (TD_PACK_CALLS): the statistics' call samples by op, top-op and
 * annotation (check always tests), and explain --inclusive. */
static bool needs_calls(const cli_command *cmd, const cli_opts *o)
{
    td_by by = o->cmp.by;
    bool by_calls = by == TD_BY_OP || by == TD_BY_TOP_OP || by == TD_BY_ANNOTATION;
    return (by_calls && (o->stats || cmd->id == CMD_CHECK)) ||
           (cmd->id == CMD_EXPLAIN && o->cmp.only_inclusive);
}

/* The stacks and shapes the command reads, which the processes pack with
 * the aggregates (as summaries keep them) rather than rank 0 reading the
 * sets again: --format folded, --by module, explain --by module, plot
 * flame and the report's flame graph; roofline, plot roofline,
 * --with-rate and the report's Why section. None when the files travel
 * whole, or rank 0 reads them again anyway (--step-marker, --match tree). */
static unsigned pack_more(const cli_command *cmd, const cli_opts *o, const char *choice)
{
    if (needs_calls(cmd, o) || o->step_marker || o->match_tree)
        return 0;
    bool report = cmd->id == CMD_REPORT, plot = cmd->id == CMD_PLOT && choice;
    bool stacks = report || o->cmp.by == TD_BY_MODULE || o->cmp.by == TD_BY_STACK ||
                  (o->format && !strcmp(o->format, "folded")) || (plot && !strcmp(choice, "flame"));
    bool roof =
        report || cmd->id == CMD_ROOFLINE || o->with_rate || (plot && !strcmp(choice, "roofline"));
    return (stacks ? TD_PACK_STACKS : 0) | (roof ? TD_PACK_ROOF : 0);
}

static int run(int argc, char **argv, int me)
{
    const cli_command *cmd = NULL;
    cli_opts o = CLI_OPTS_INIT;
    const char *pos[4] = {0};
    int rc = parse(argc, argv, &cmd, &o, pos);
    if (rc == CLI_RUN) {
        /* The sets are the positionals after the choice (plot's counts|duration). */
        int first = cmd->choices ? 1 : 0, k = find(cmd);
        int nsets = commands[k].nsets ? commands[k].nsets : cmd->npositional - first;
        g_whole = needs_calls(cmd, &o);
        g_more = pack_more(cmd, &o, first ? pos[0] : NULL);
        mpi_sets_build(&g_sets, pos + first, (size_t)nsets,
                       commands[k].flags | (o.ns ? TD_PACK_NS : 0) | (g_whole ? TD_PACK_CALLS : 0) |
                           g_more,
                       MPI_COMM_WORLD);
        rc = EXIT_OK;
        if (me == 0) {
            cli_sets_open = open_built;
            rc = cli_command_run(cmd, argc - 1, argv + 1);
        }
        mpi_sets_free(&g_sets);
    }
    cli_opts_free(&o);
    return rc;
}

/* --batch FILE: rank 0 reads it and sends it to every process. NULL (on
 * every process) when it cannot be read. */
static char *batch_text(const char *path, int me)
{
    enum { MAX_BATCH = 16 << 20 };
    int64_t n = -1;
    char *text = NULL;
    FILE *f = me == 0 ? fopen(path, "rb") : NULL;
    if (me == 0 && !f)
        cli_error("%s: %s", path, strerror(errno));
    if (f && (text = malloc(MAX_BATCH + 1)) != NULL) {
        size_t k = fread(text, 1, MAX_BATCH + 1, f);
        if (ferror(f) || k > MAX_BATCH)
            cli_error("%s: %s", path, ferror(f) ? "read failed" : "more than 16 MB of commands");
        else
            n = (int64_t)k;
    }
    if (f)
        fclose(f);
    MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (n >= 0 && me != 0 && !(text = malloc((size_t)n + 1)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (n >= 0) {
        MPI_Bcast(text, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
        text[n] = '\0';
    } else {
        free(text);
        text = NULL;
    }
    return text;
}

/* Runs every line of a batch as a command line (words split at spaces and
 * tabs, no quoting; empty lines and lines starting with # skipped), all of
 * them whatever fails. Returns the first failing line's status, else 0. */
static int run_batch(const char *path, int me)
{
    enum { MAX_WORDS = 126 };
    char *text = batch_text(path, me), *lines, *words;
    if (!text)
        return EXIT_DATA;
    int status = EXIT_OK;
    for (char *l = strtok_r(text, "\n", &lines); l; l = strtok_r(NULL, "\n", &lines)) {
        char *argv[MAX_WORDS + 2] = {(char *)g_prog};
        int argc = 1, rc;
        for (char *w = strtok_r(l, " \t\r", &words); w; w = strtok_r(NULL, " \t\r", &words))
            argv[argc < MAX_WORDS ? argc++ : argc] = w;
        if (argc == 1 || argv[1][0] == '#')
            continue;
        if (argc == MAX_WORDS) {
            cli_error("%s: a line of more than %d words", path, MAX_WORDS - 2);
            rc = EXIT_USAGE;
        } else {
            rc = run(argc, argv, me);
        }
        fflush(stdout);
        if (rc && !status)
            status = rc;
    }
    free(text);
    return status;
}

int main(int argc, char **argv)
{
    cli_heap_huge(); /* before MPI_Init allocates */
    MPI_Init(&argc, &argv);
    /* After MPI_Init, which may install handlers of its own: a stop
     * (mpirun passes SIGINT/SIGTERM on to every process) removes rank 0's
     * temporary output files, as the CLI's does. */
    cli_catch_signals();
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me != 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    setlocale(LC_CTYPE, "");
    g_prog = "tracediff-mpi";
    cli_tty_off = true; /* mpirun gives rank 0 a pseudo-terminal: not the user's */
    int rc =
        argc == 3 && strcmp(argv[1], "--batch") == 0 ? run_batch(argv[2], me) : run(argc, argv, me);
    /* Every process ends with rank 0's status. */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
