/* A progress line on stderr while reading: only when stderr is a terminal, at
 * most ten times a second, erased at the end. */
#include "cli.h"

#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    cli_progress *p = ud;
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

void cli_progress_attach(cli_progress *p, td_open_opts *oo, bool quiet)
{
    p->last = now();
    p->shown = false;
    if (quiet || !cli_isatty(STDERR_FILENO))
        return;
    oo->progress = on_progress;
    oo->progress_ud = p;
}

void cli_progress_clear(cli_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r\033[K");
    p->shown = false;
}
