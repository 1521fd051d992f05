/* tracediff summarize SET -o FILE.tdsum and tracediff runs FILE: summaries
 * (docs/summaries.md). */
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int summarize_run(const cli_opts *o, const char *set_path)
{
    if (!o->output) {
        cli_error("summarize: expected -o FILE.tdsum (see '%s summarize --help')", g_prog);
        return EXIT_USAGE;
    }
    if (strcmp(o->output, "-") == 0) {
        cli_error("summarize: -o needs a file (a summary is an SQLite file)");
        return EXIT_USAGE;
    }
    td_summary_opts so = TD_SUMMARY_OPTS_INIT;
    so.run = o->run_name;
    so.replace = o->replace;
    so.ranks = o->ranks;
    so.iters = o->iters;
    so.device = o->cmp.device;
    td_set *s = NULL;
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.processes = true;
    oo.want_attribution = true; /* kept, so that --by, explain, info and report work from it */
    oo.want_breakdown = true;   /* kept, so that breakdown works from it (docs/breakdown.md) */
    oo.want_stacks = true;      /* kept, for folded, --by module and the flame graph */
    oo.want_roofline = true;    /* kept, for roofline and --with-rate (docs/summaries.md) */
    td_error err = {0};
    int rc = cli_open_sets(o, &s, &set_path, 1, &oo);
    if (rc == 0)
        rc = td_summary_write(o->output, s, &so, &err) < 0 ? cli_td_error(&err) : EXIT_OK;
    td_set_free(s);
    return rc;
}

int cmd_summarize(cli_pair *p, const char **pos)
{
    return summarize_run(&p->o, pos[0]);
}

static void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    td_write_json_string(f, s, strlen(s));
    fputc('"', f);
}

static void csv_str(FILE *f, const char *s, bool safe)
{
    if (s)
        td_write_csv_field(f, s, strlen(s), safe);
}

static void write_runs(FILE *f, const char *fmt, const td_run_info *r, size_t n, bool safe)
{
    char cpu[40], gpu[40];
    if (strcmp(fmt, "json") == 0) {
        fputs("[", f);
        for (size_t i = 0; i < n; i++) {
            td_format_number(cpu, sizeof cpu, r[i].cpu_us);
            td_format_number(gpu, sizeof gpu, r[i].gpu_us);
            fputs(i ? ",\n {\"name\": " : "\n {\"name\": ", f);
            json_str(f, r[i].name);
            fputs(", \"created\": ", f);
            json_str(f, r[i].created);
            fputs(", \"tool_version\": ", f);
            json_str(f, r[i].tool_version);
            fputs(", \"source\": ", f);
            json_str(f, r[i].source);
            fprintf(f,
                    ", \"ranks\": %llu, \"iterations\": %llu, \"files\": %llu, "
                    "\"source_bytes\": %llu, \"json_bytes\": %llu, \"events\": %llu, "
                    "\"cpu_us\": %s, \"gpu_us\": %s, \"kept_ranks\": ",
                    (unsigned long long)r[i].nranks, (unsigned long long)r[i].niters,
                    (unsigned long long)r[i].nfiles, (unsigned long long)r[i].source_bytes,
                    (unsigned long long)r[i].json_bytes, (unsigned long long)r[i].events, cpu, gpu);
            json_str(f, r[i].kept_ranks);
            fputs(", \"kept_iterations\": ", f);
            json_str(f, r[i].kept_iterations);
            fputs(", \"kept_device\": ", f);
            json_str(f, r[i].kept_device);
            fputs("}", f);
        }
        fputs(n ? "\n]\n" : "]\n", f);
    } else if (strcmp(fmt, "csv") == 0) {
        fputs("name,created,ranks,iterations,source_bytes,events,cpu_us,gpu_us,source\n", f);
        for (size_t i = 0; i < n; i++) {
            td_format_number(cpu, sizeof cpu, r[i].cpu_us);
            td_format_number(gpu, sizeof gpu, r[i].gpu_us);
            csv_str(f, r[i].name, safe);
            fprintf(f, ",%s,%llu,%llu,%llu,%llu,%s,%s,", r[i].created,
                    (unsigned long long)r[i].nranks, (unsigned long long)r[i].niters,
                    (unsigned long long)r[i].source_bytes, (unsigned long long)r[i].events, cpu,
                    gpu);
            csv_str(f, r[i].source, safe);
            fputc('\n', f);
        }
    } else {
        fprintf(f, "%-24s  %-20s  %5s  %10s  %12s  %12s  %16s  %16s\n", "run", "created", "ranks",
                "iterations", "source_MB", "events", "cpu_us", "gpu_us");
        for (size_t i = 0; i < n; i++) {
            cli_put_cell(f, r[i].name, 24, 0);
            fputs("  ", f);
            cli_put_cell(f, r[i].created ? r[i].created : "", 20, 0);
            fprintf(f, "  %5llu  %10llu  %12.2f  %12llu  %16.0f  %16.0f\n",
                    (unsigned long long)r[i].nranks, (unsigned long long)r[i].niters,
                    r[i].source_bytes / 1e6, (unsigned long long)r[i].events, r[i].cpu_us,
                    r[i].gpu_us);
        }
    }
}

static int runs_run(const cli_opts *o, const char *path)
{
    const char *fmt = o->format ? o->format : cli_isatty(STDOUT_FILENO) ? "table" : "csv";
    td_error err = {0};
    td_run_info *runs = NULL;
    long n = td_summary_runs(&runs, path, &err);
    if (n < 0)
        return cli_td_error(&err);
    size_t unchecked = 0;
    for (long i = 0; i < n; i++)
        unchecked += runs[i].unchecked;
    if (unchecked && !o->quiet)
        cli_note("%s: %zu of its %ld runs were written without checksums (by an older "
                 "tracediff): damage to them cannot be detected",
                 path, unchecked, n);
    out_file out;
    int rc = out_open(&out, o->output);
    if (rc == 0) {
        write_runs(out.f, fmt, runs, (size_t)n, o->csv_safe);
        rc = out_commit(&out);
    }
    td_run_infos_free(runs, (size_t)n);
    return rc;
}

int cmd_runs(cli_pair *p, const char **pos)
{
    return runs_run(&p->o, pos[0]);
}

static char **split_runs(const char *v, size_t *n)
{
    size_t k = 1;
    for (const char *p = v; *p; p++)
        k += *p == ',';
    char **out = calloc(k + 1, sizeof *out);
    char *copy = strdup(v);
    if (!out || !copy) {
        free(out);
        free(copy);
        return NULL;
    }
    *n = 0;
    for (char *s = strtok(copy, ","); s; s = strtok(NULL, ","))
        out[(*n)++] = s;
    if (*n == 0)
        free(copy);
    return out;
}

static void trend_write(FILE *f, const char *fmt, const td_trend *t, bool safe)
{
    size_t nr = td_trend_nruns(t), nn = td_trend_nnames(t);
    char a[40], b[40];
    if (strcmp(fmt, "json") == 0) {
        fputs("{\"runs\": [", f);
        for (size_t r = 0; r < nr; r++) {
            fputs(r ? ", " : "", f);
            json_str(f, td_trend_run(t, r));
        }
        fputs("], \"names\": [", f);
        for (size_t j = 0; j < nn; j++) {
            fputs(j ? ",\n {\"name\": " : "\n {\"name\": ", f);
            json_str(f, td_trend_name(t, j));
            fputs(", \"counts\": [", f);
            for (size_t r = 0; r < nr; r++)
                fprintf(f, "%s%llu", r ? ", " : "", (unsigned long long)td_trend_count(t, j, r));
            fputs("], \"total_us\": [", f);
            for (size_t r = 0; r < nr; r++) {
                td_format_number(a, sizeof a, td_trend_total(t, j, r));
                fprintf(f, "%s%s", r ? ", " : "", a);
            }
            fputs("], \"change_us\": [", f);
            for (size_t r = 0; r < nr; r++) {
                td_format_number(a, sizeof a, td_trend_total(t, j, r) - td_trend_total(t, j, 0));
                fprintf(f, "%s%s", r ? ", " : "", a);
            }
            fputs("]}", f);
        }
        fputs(nn ? "\n]}\n" : "]}\n", f);
    } else if (strcmp(fmt, "csv") == 0) {
        fputs("name,run,counts,total_us,change_us\n", f);
        for (size_t j = 0; j < nn; j++)
            for (size_t r = 0; r < nr; r++) {
                td_format_number(a, sizeof a, td_trend_total(t, j, r));
                td_format_number(b, sizeof b, td_trend_total(t, j, r) - td_trend_total(t, j, 0));
                csv_str(f, td_trend_name(t, j), safe);
                fputc(',', f);
                csv_str(f, td_trend_run(t, r), safe);
                fprintf(f, ",%llu,%s,%s\n", (unsigned long long)td_trend_count(t, j, r), a, b);
            }
    } else {
        fprintf(f, "%-50s", "name");
        for (size_t r = 0; r < nr; r++) {
            fputs("  ", f);
            cli_put_cell(f, td_trend_run(t, r), 24, CLI_CELL_RIGHT | CLI_CELL_CUT);
        }
        fputc('\n', f);
        for (size_t j = 0; j < nn; j++) {
            cli_put_cell(f, td_trend_name(t, j), 50, CLI_CELL_CUT);
            for (size_t r = 0; r < nr; r++) {
                double v = td_trend_total(t, j, r), d = v - td_trend_total(t, j, 0);
                if (r == 0)
                    fprintf(f, "  %24.0f", v);
                else
                    fprintf(f, "  %13.0f (%+9.0f)", v, d);
            }
            fputc('\n', f);
        }
    }
}

static bool chart_name(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n <= 4)
        return false;
    const char *ext = path + n - 4;
    return strcmp(ext, ".svg") == 0 || strcmp(ext, ".png") == 0 || strcmp(ext, ".pdf") == 0;
}

static int trend_out(const cli_opts *o, const td_trend *t, bool chart)
{
    td_error err = {0};
    if (chart)
        return td_trend_chart_write(o->output, t, &err) < 0 ? cli_td_error(&err) : EXIT_OK;
    const char *fmt = o->format ? o->format : cli_isatty(STDOUT_FILENO) ? "table" : "csv";
    out_file out;
    int rc = out_open(&out, o->output);
    if (rc == 0) {
        trend_write(out.f, fmt, t, o->csv_safe);
        rc = out_commit(&out);
    }
    return rc;
}

static int trend_run(const cli_opts *o, const char *path)
{
    bool chart = !o->format && chart_name(o->output);
    td_trend_opts to = TD_TREND_OPTS_INIT;
    to.device = o->cmp.device;
    to.top = o->view.top ? o->view.top : chart ? 10 : 0;
    to.names = o->names;
    to.renames = o->renames;
    to.normalize_names = o->cmp.normalize_names;
    to.short_names = o->cmp.short_names;
    char **rl = NULL;
    if (o->runs) {
        if (!(rl = split_runs(o->runs, &to.nruns))) {
            cli_error("out of memory");
            return EXIT_DATA;
        }
        to.runs = (const char *const *)rl;
    }
    td_error err = {0};
    td_trend *t = NULL;
    int rc = td_trend_compute(&t, path, &to, &err) < 0 ? cli_td_error(&err) : EXIT_OK;
    if (rc == EXIT_OK && to.normalize_names && td_trend_folded(t) && !o->quiet)
        cli_note("names are grouped as --normalize-names folds them (%llu names of the first "
                 "run under another name; --no-normalize-names keeps every name apart)",
                 (unsigned long long)td_trend_folded(t));
    if (rc == EXIT_OK)
        rc = trend_out(o, t, chart);
    td_trend_free(t);
    if (rl) {
        if (to.nruns)
            free(rl[0]);
        free(rl);
    }
    return rc;
}

int cmd_trend(cli_pair *p, const char **pos)
{
    return trend_run(&p->o, pos[0]);
}
