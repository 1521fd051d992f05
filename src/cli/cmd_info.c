/* tracediff info SET: what a trace set holds. */
#include "options.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

static void print_list(FILE *f, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
}

static void print_cat_time(void *ud, const char *cat, uint64_t n, double dur)
{
    if (n == 0)
        return;
    char d[40] = "?";
    if (!isnan(dur)) /* whole us, or (--ns) to the ns */
        snprintf(d, sizeof d, dur == floor(dur) ? "%.0f" : "%.3f", dur);
    fputs("  ", ud);
    cli_put_cell(ud, cat, 28, 0);
    fprintf(ud, " %12llu %16s\n", (unsigned long long)n, d);
}

static void attr_table(FILE *f, const td_attr_stats *a)
{
    fprintf(f, "\nGPU time by launching op (all events; docs/attribution.md)\n");
    char t[40];
    td_format_number(t, sizeof t, a->gpu_time);
    fprintf(f, "  %-40s %12llu %14s us\n", "gpu events", (unsigned long long)a->gpu_events, t);
    td_format_number(t, sizeof t, a->attributed_time);
    fprintf(f, "  %-40s %12llu %14s us\n", "attributed to an op", (unsigned long long)a->attributed,
            t);
    for (int r = 0; r < TD_ATTR_NREASONS; r++) {
        if (!a->count[r])
            continue;
        char what[64];
        snprintf(what, sizeof what, "unattributed: %s", td_attr_reason_name(r));
        td_format_number(t, sizeof t, a->time[r]);
        fprintf(f, "  %-40s %12llu %14s us\n", what, (unsigned long long)a->count[r], t);
    }
}

static bool pid_asked(const td_list *pids, int64_t pid)
{
    for (size_t i = 0; i < pids->n; i++)
        if (pids->v[i] == pid)
            return true;
    return false;
}

/* Another profiler's output: what wrote it, where its rank comes from, and
 * its processes (docs/profilers.md, "Ranks" and "Processes"). */
static void info_export(FILE *f, const td_set *s, size_t i, const td_file_info *fi,
                        const td_list *pids)
{
    const char *from = "the file's place in the set", *rf = td_set_file_rank_from(s, i);
    if (rf && strcmp(rf, "MPI_RANKS") == 0)
        from = "recorded by nsys under MPI (MPI_RANKS)";
    else if (rf && strcmp(rf, "file order") != 0)
        from = "the file's place in the set: MPI_RANKS names several ranks, --pid picks one";
    fprintf(f, "%*s%s (rank: %s)\n", 94, "", cli_visible(fi->format), from);
    for (size_t k = 0; k < td_set_file_processes(s, i); k++) {
        td_process_info p;
        if (td_set_file_process(s, i, k, &p) < 0)
            break;
        fprintf(f, "%*sprocess %lld%s%s: %llu %s%s\n", 94, "", (long long)p.pid, *p.name ? " " : "",
                cli_visible(p.name), (unsigned long long)p.events,
                p.events == 1 ? "event" : "events",
                pids->n && pid_asked(pids, p.pid) ? " (--pid)" : "");
    }
}

static void info_table(FILE *f, const td_set *s, const int64_t *iters, size_t ni,
                       const td_attr_stats *a, const td_list *pids)
{
    fprintf(f, "set         %s\n", cli_visible(td_set_path(s)));
    fprintf(f, "files       %zu\n", td_set_nfiles(s));
    fprintf(f, "steps       ");
    bool run = ni > 1 && iters[ni - 1] - iters[0] == (int64_t)ni - 1;
    if (run) /* consecutive: the range and how many */
        fprintf(f, "%lld\xE2\x80\x93%lld (%zu)", (long long)iters[0], (long long)iters[ni - 1], ni);
    else if (ni)
        print_list(f, iters, ni);
    else
        fputs("none (no ProfilerStep: compared as whole traces)", f);
    bool decimal = false;
    for (size_t i = 0; i < td_set_nfiles(s); i++) {
        td_file_info fi;
        td_set_file_info(s, i, &fi);
        decimal |= fi.decimal_ts;
    }
    fprintf(f, "\ndurations   %s\n\n",
            td_set_ns(s) ? "the traces' own, in us with their decimals (--ns)"
            : decimal    ? "decimal timestamps rounded to whole us, as HTA does (--ns keeps "
                           "the traces' own)"
                         : "whole us, as the traces write them (no decimal timestamps)");
    fprintf(f, "%6s  %-5s  %10s  %11s  %10s  %10s  %9s  %9s  %6s  %s\n", "rank", "comp", "file_MB",
            "json_MB", "events", "counted", "cpu", "gpu", "steps", "file / device");
    for (size_t i = 0; i < td_set_nfiles(s); i++) {
        td_file_info fi;
        td_set_file_info(s, i, &fi);
        fprintf(f, "%6lld  %-5s  %10.2f  %11.2f  %10llu  %10llu  %9llu  %9llu  %6llu  %s\n",
                (long long)fi.rank, td_compression_name(fi.compression), fi.file_bytes / 1e6,
                fi.json_bytes / 1e6, (unsigned long long)fi.events_total,
                (unsigned long long)fi.events_counted, (unsigned long long)fi.events_cpu,
                (unsigned long long)fi.events_gpu, (unsigned long long)fi.steps,
                cli_visible(fi.path));
        if (fi.device_name)
            fprintf(f, "%*s%s\n", 94, "", cli_visible(fi.device_name));
        if (fi.format)
            info_export(f, s, i, &fi, pids);
        if (fi.rounded)
            fprintf(f, "%*s(decimal timestamps: rounded to whole microseconds)\n", 94, "");
        else if (fi.decimal_ts)
            fprintf(f, "%*s(decimal timestamps: kept, --ns)\n", 94, "");
        if (fi.events_stream0)
            fprintf(f,
                    "%*s(%llu GPU %s on stream 0: their launch's iteration; none with "
                    "--hta-strict)\n",
                    94, "", (unsigned long long)fi.events_stream0,
                    fi.events_stream0 == 1 ? "event" : "events");
        if (fi.events_no_launch)
            fprintf(f, "%*s(%llu GPU %s with no launch found: no iteration)\n", 94, "",
                    (unsigned long long)fi.events_no_launch,
                    fi.events_no_launch == 1 ? "event" : "events");
        if (fi.events_skipped)
            fprintf(f, "%*s(%llu unusable entries skipped)\n", 94, "",
                    (unsigned long long)fi.events_skipped);
    }
    fputs("\ncounted events by category (compare --cat LIST keeps some; durations as "
          "compare has them)\n",
          f);
    fprintf(f, "  %-28s %12s %16s\n", "category", "events", "total us");
    td_set_category_times(s, print_cat_time, f);
    attr_table(f, a);
}

static int info_write(const cli_opts *o, const td_set *s, const char *fmt)
{
    size_t ni = td_set_iterations(s, NULL, 0);
    int64_t *iters = malloc((ni + 1) * sizeof *iters);
    if (!iters) {
        cli_error("out of memory");
        return EXIT_DATA;
    }
    td_set_iterations(s, iters, ni);
    td_attr_stats a;
    int arc = td_set_attr_stats(s, &a); /* decodes a summary's events: may fail */
    if (arc < 0) {
        free(iters);
        cli_error("%s: %s", td_set_origin(s),
                  arc == TD_ETRACE ? "damaged summary: packed durations do not decode"
                                   : "out of memory");
        return EXIT_DATA;
    }
    out_file out;
    int rc = out_open(&out, o->output);
    if (rc == 0) {
        td_error err = {0};
        if (strcmp(fmt, "json") == 0 && td_info_write_json(out.f, s, &a, &err) < 0)
            rc = out_fail(&out, &err);
        else if (strcmp(fmt, "json") == 0)
            rc = out_commit(&out);
        else {
            info_table(out.f, s, iters, ni, &a, &o->pids);
            rc = out_commit(&out);
        }
    }
    free(iters);
    return rc;
}

static int info_run(const cli_opts *o, const char *path)
{
    const char *fmt = o->format ? o->format : "table"; /* checked by the parser */
    td_set *s = NULL;
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.processes = true;
    oo.want_attribution = true; /* unattributed GPU time, and why */
    int rc = cli_open_sets(o, &s, &path, 1, &oo);
    if (rc == 0)
        rc = info_write(o, s, fmt);
    td_set_free(s);
    return rc;
}

int cmd_info(cli_pair *p, const char **pos)
{
    return info_run(&p->o, pos[0]);
}
