/* Shared CLI plumbing: options, messages, progress, atomic output files. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *g_prog = "tracediff";

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s", g_prog, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("note: ", fmt, ap);
    va_end(ap);
}

int cli_td_error(const td_error *e)
{
    if (e->path[0] && e->has_offset)
        cli_error("%s: byte %llu: %s", e->path, (unsigned long long)e->offset, e->msg);
    else if (e->path[0])
        cli_error("%s: %s", e->path, e->msg);
    else
        cli_error("%s", e->msg[0] ? e->msg : td_strerror(e->code));
    return e->code == TD_EUSAGE ? EXIT_USAGE : EXIT_DATA;
}

const char *cli_value(const char *name, int argc, char **argv, int *i, bool *bad)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0') {
        /* Short options take their value attached too: -j4, -oout.csv. */
        if (n == 2 && name[0] == '-' && name[1] != '-')
            return a + n;
        return NULL;
    }
    if (*i + 1 >= argc) {
        cli_error("%s needs a value", name);
        *bad = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_list(td_list *l, const char *opt, const char *v)
{
    td_error err = {0};
    if (td_list_parse(l, v, &err) < 0) {
        cli_error("%s %s", opt, err.msg);
        return -1;
    }
    return 0;
}

static int parse_count(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        cli_error("%s '%s': expected a whole number from %ld to %ld", opt, v, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_shared_option(cli_opts *o, int argc, char **argv, int *i)
{
    bool bad = false;
    const char *v;
    static const struct {
        const char *name;
        size_t off;
    } lists[] = {
        {"--control-rank", offsetof(cli_opts, cmp.control_ranks)},
        {"--test-rank", offsetof(cli_opts, cmp.test_ranks)},
        {"--control-iteration", offsetof(cli_opts, cmp.control_iters)},
        {"--test-iteration", offsetof(cli_opts, cmp.test_iters)},
    };
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
        if ((v = cli_value(lists[k].name, argc, argv, i, &bad)))
            return parse_list((td_list *)((char *)o + lists[k].off), lists[k].name, v) < 0 ? -1
                                                                                            : 1;
        if (bad)
            return -1;
    }
    if ((v = cli_value("--device", argc, argv, i, &bad))) {
        if (strcmp(v, "all") == 0)
            o->cmp.device = TD_DEVICE_ALL;
        else if (strcmp(v, "cpu") == 0)
            o->cmp.device = TD_DEVICE_CPU;
        else if (strcmp(v, "gpu") == 0)
            o->cmp.device = TD_DEVICE_GPU;
        else {
            cli_error("--device '%s': expected all, cpu or gpu", v);
            return -1;
        }
        return 1;
    }
    if (strcmp(argv[*i], "--short-names") == 0) {
        o->cmp.short_names = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--hta-strict") == 0) {
        o->cmp.hta_strict = 1;
        return 1;
    }
    if ((v = cli_value("--control-label", argc, argv, i, &bad))) {
        o->control_label = v;
        return 1;
    }
    if ((v = cli_value("--test-label", argc, argv, i, &bad))) {
        o->test_label = v;
        return 1;
    }
    if ((v = cli_value("--sort", argc, argv, i, &bad))) {
        o->sort_text = v;
        return 1;
    }
    if (strcmp(argv[*i], "--ascending") == 0) {
        o->view.ascending = 1;
        return 1;
    }
    if ((v = cli_value("--top", argc, argv, i, &bad))) {
        long x;
        if (parse_count("--top", v, 1, 100000000, &x) < 0)
            return -1;
        o->view.top = (size_t)x;
        return 1;
    }
    if ((v = cli_value("--include", argc, argv, i, &bad))) {
        o->view.include = v;
        return 1;
    }
    if ((v = cli_value("--exclude", argc, argv, i, &bad))) {
        o->view.exclude = v;
        return 1;
    }
    if ((v = cli_value("--format", argc, argv, i, &bad))) {
        o->format = v;
        return 1;
    }
    if ((v = cli_value("--output", argc, argv, i, &bad)) ||
        (!bad && (v = cli_value("-o", argc, argv, i, &bad)))) {
        o->output = v;
        return 1;
    }
    if ((v = cli_value("--jobs", argc, argv, i, &bad)) ||
        (!bad && (v = cli_value("-j", argc, argv, i, &bad)))) {
        long x;
        if (parse_count("-j", v, 1, 256, &x) < 0)
            return -1;
        o->threads = (int)x;
        return 1;
    }
    if (strcmp(argv[*i], "--quiet") == 0 || strcmp(argv[*i], "-q") == 0) {
        o->quiet = true;
        return 1;
    }
    return bad ? -1 : 0;
}

void cli_opts_free(cli_opts *o)
{
    td_list_clear(&o->cmp.control_ranks);
    td_list_clear(&o->cmp.test_ranks);
    td_list_clear(&o->cmp.control_iters);
    td_list_clear(&o->cmp.test_iters);
}

/* Progress on stderr, only when it is a terminal, at most ten times a second. */
typedef struct progress {
    double last;
    bool shown;
} progress;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    progress *p = ud;
    double t = now();
    if (t - p->last < 0.1)
        return;
    p->last = t;
    p->shown = true;
    if (total)
        fprintf(stderr, "\r%s: reading %3.0f%% (%.1f of %.1f MB)", g_prog,
                100.0 * (double)done / (double)total, (double)done / 1e6, (double)total / 1e6);
    else
        fprintf(stderr, "\r%s: reading %.1f MB", g_prog, (double)done / 1e6);
    fflush(stderr);
}

int cli_load_pair(cli_opts *o, td_set **control, td_set **test)
{
    td_set *sets[2] = {NULL, NULL};
    const char *paths[2] = {o->control, o->test};
    progress pr = {now(), false};
    td_open_opts oo = {0};
    oo.threads = o->threads;
    if (!o->quiet && isatty(STDERR_FILENO)) {
        oo.progress = on_progress;
        oo.progress_ud = &pr;
    }
    td_error err = {0};
    int rc = td_sets_open(sets, paths, 2, &oo, &err);
    if (pr.shown)
        fprintf(stderr, "\r\033[K");
    if (rc < 0)
        return cli_td_error(&err);
    *control = sets[0];
    *test = sets[1];
    return 0;
}

static void note_side(const cli_opts *o, const td_set *s, const td_diff *d, int side)
{
    const td_side_notes *n = td_diff_notes(d, side);
    const char *label = side ? (o->test_label ? o->test_label : "test")
                             : (o->control_label ? o->control_label : "control");
    if (n->whole_trace)
        cli_note("%s (%s) has no ProfilerStep: comparing the whole trace", label,
                 td_set_path(s));
    if (n->no_launch)
        cli_note("%s: %llu GPU %s with no launch found (no iteration) left out; "
                 "see docs/numbers.md",
                 label, (unsigned long long)n->no_launch, n->no_launch == 1 ? "event" : "events");
    if (n->strict_dropped)
        cli_note("%s: --hta-strict: %llu GPU %s on stream 0 left out, as HTA does (the default "
                 "gives them their launch's iteration); see docs/numbers.md",
                 label, (unsigned long long)n->strict_dropped,
                 n->strict_dropped == 1 ? "event" : "events");
    for (size_t i = 0; i < td_set_nfiles(s); i++) {
        td_file_info fi;
        td_set_file_info(s, i, &fi);
        if (fi.events_skipped)
            cli_note("%s: %llu %s of traceEvents skipped (not objects, or a name, cat, "
                     "ts or dur of the wrong type)",
                     fi.path, (unsigned long long)fi.events_skipped,
                     fi.events_skipped == 1 ? "entry" : "entries");
        if (fi.bom)
            cli_note("%s: starts with a UTF-8 byte order mark (skipped; the JSON after it is read "
                     "as usual)",
                     fi.path);
    }
}

int cli_diff(cli_opts *o, td_set *control, td_set *test, td_diff **diff, size_t **rows,
             size_t *nrows)
{
    td_error err = {0};
    *diff = NULL;
    *rows = NULL;
    if (o->sort_text) {
        int c = td_column_parse(o->sort_text, o->control_label, o->test_label);
        if (c < 0) {
            cli_error("--sort '%s': no such column (try name, diff_duration, diff_counts, "
                      "abs_diff_duration, %s_counts, ...)",
                      o->sort_text, o->control_label ? o->control_label : "control");
            return EXIT_USAGE;
        }
        o->view.sort = c;
        o->view.has_sort = 1;
    }
    if (td_diff_compute(diff, control, test, &o->cmp, &err) < 0)
        return cli_td_error(&err);
    if (!o->quiet) {
        note_side(o, control, *diff, 0);
        note_side(o, test, *diff, 1);
    }
    long n = td_view_make(rows, *diff, &o->view, &err);
    if (n < 0) {
        td_diff_free(*diff);
        *diff = NULL;
        return cli_td_error(&err);
    }
    *nrows = (size_t)n;
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
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or a pipe (-o /dev/null, -o /dev/stdout, a FIFO): there
         * is nothing to replace atomically, and renaming over it would
         * destroy it. Write to it directly. */
        if (S_ISDIR(st.st_mode)) {
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
    size_t n = strlen(path);
    o->tmp = malloc(n + 16);
    if (!o->tmp) {
        cli_error("out of memory");
        return EXIT_DATA;
    }
    snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
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
        free(o->tmp);
        cli_error("%s: cannot create: %s", path, strerror(errno));
        return EXIT_DATA;
    }
    return 0;
}

int out_commit(out_file *o)
{
    if (o->direct) {
        int bad = ferror(o->f) | (fclose(o->f) != 0);
        o->f = NULL;
        if (bad) {
            cli_error("%s: cannot write: %s", o->path, strerror(errno ? errno : EIO));
            return EXIT_DATA;
        }
        return 0;
    }
    if (!o->tmp) {
        if (fflush(o->f) != 0 || ferror(o->f)) {
            cli_error("cannot write the output: %s", strerror(errno));
            return EXIT_DATA;
        }
        return 0;
    }
    int bad = ferror(o->f);
    if (fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        cli_error("%s: cannot write: %s", o->path, strerror(errno ? errno : EIO));
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return EXIT_DATA;
    }
    free(o->tmp);
    o->tmp = NULL;
    return 0;
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
        free(o->tmp);
        o->tmp = NULL;
    }
    o->f = NULL;
}

bool cli_color_ok(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fileno(f));
}

bool cli_unicode_ok(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && strcmp(cs, "UTF-8") == 0;
}

int cli_term_width(bool tty)
{
    struct winsize ws;
    if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    if (c && atoi(c) > 20)
        return atoi(c);
    return tty ? 120 : 160;
}

int cli_pair_run(cli_pair *p)
{
    int rc = cli_load_pair(&p->o, &p->control, &p->test);
    if (rc == 0)
        rc = cli_diff(&p->o, p->control, p->test, &p->diff, &p->rows, &p->nrows);
    return rc;
}

void cli_pair_free(cli_pair *p)
{
    free(p->rows);
    td_diff_free(p->diff);
    td_set_free(p->control);
    td_set_free(p->test);
    cli_opts_free(&p->o);
}
