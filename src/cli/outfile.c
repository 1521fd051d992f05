/* Output files appear whole or not at all: written to a temporary file beside
 * the target and renamed into place. A device or a FIFO is written in place:
 * there is nothing to replace atomically, and renaming over it would destroy
 * it. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

const char *cli_default_format(const cli_opts *o, const char *tty_fmt, const char *pipe_fmt)
{
    if (o->format)
        return o->format;
    if (o->output && strcmp(o->output, "-") != 0) {
        if (ends_with(o->output, ".csv"))
            return "csv";
        if (ends_with(o->output, ".json"))
            return "json";
        if (ends_with(o->output, ".md"))
            return "markdown";
        if (ends_with(o->output, ".folded"))
            return "folded";
        if (ends_with(o->output, ".txt") && strcmp(tty_fmt, "table") == 0)
            return "table";
        return pipe_fmt;
    }
    return cli_isatty(STDOUT_FILENO) ? tty_fmt : pipe_fmt;
}

static int open_in_place(out_file *o, const char *path, const struct stat *st)
{
    if (S_ISDIR(st->st_mode)) {
        cli_error("%s: is a directory", path);
        return EXIT_DATA;
    }
    o->f = fopen(path, "w");
    if (!o->f) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return EXIT_DATA;
    }
    o->direct = true;
    return 0;
}

static int open_temporary(out_file *o, const char *path)
{
    size_t n = strlen(path);
    o->tmp = malloc(n + 16);
    if (!o->tmp) {
        cli_error("out of memory");
        return EXIT_DATA;
    }
    snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = td_temp_create(o->tmp);
    if (fd < 0) {
        cli_error("%s: cannot create: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return EXIT_DATA;
    }
    /* mkstemp makes 0600 files; an output file should be like any other. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        td_temp_forget(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        cli_error("%s: cannot create: %s", path, strerror(errno));
        return EXIT_DATA;
    }
    return 0;
}

int out_open(out_file *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return open_in_place(o, path, &st);
    return open_temporary(o, path);
}

static int commit_in_place(out_file *o)
{
    int bad = ferror(o->f) | (fclose(o->f) != 0);
    o->f = NULL;
    if (bad) {
        cli_error("%s: cannot write: %s", o->path, strerror(errno ? errno : EIO));
        return EXIT_DATA;
    }
    return 0;
}

static int commit_stdout(out_file *o)
{
    if (fflush(o->f) != 0 || ferror(o->f)) {
        cli_error("standard output: cannot write: %s", strerror(errno));
        return EXIT_DATA;
    }
    return 0;
}

int out_commit(out_file *o)
{
    if (o->direct)
        return commit_in_place(o);
    if (!o->tmp)
        return commit_stdout(o);
    int bad = ferror(o->f);
    if (fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    int rc = 0;
    if (bad || rename(o->tmp, o->path) != 0) {
        cli_error("%s: cannot write: %s", o->path, strerror(errno ? errno : EIO));
        unlink(o->tmp);
        rc = EXIT_DATA;
    }
    td_temp_forget(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return rc;
}

int out_fail(out_file *o, td_error *err)
{
    if (!err->path[0] && err->code == TD_EIO)
        snprintf(err->path, sizeof err->path, "%s",
                 o->path && strcmp(o->path, "-") != 0 ? o->path : "standard output");
    out_abort(o);
    return cli_td_error(err);
}

void out_abort(out_file *o)
{
    if (o->direct && o->f) {
        fclose(o->f);
        o->f = NULL;
        return;
    }
    if (o->tmp) {
        if (o->f)
            fclose(o->f);
        unlink(o->tmp);
        td_temp_forget(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    o->f = NULL;
}

/* SIGINT, SIGTERM, SIGHUP: the temporary files go (td_temp_remove_all is
 * async-signal-safe), then the signal's own action, so that the caller sees
 * the process die by it. A signal ignored when the program started (nohup,
 * a background job) stays ignored. */
static void on_stop(int sig)
{
    td_temp_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}
