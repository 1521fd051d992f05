/* tracediff summarize SET -o FILE.tdsum and tracediff runs FILE: summaries
 * (docs/summaries.md). */
#include "cli.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage_summarize(FILE *f)
{
    fprintf(f,
            "usage: tracediff summarize SET -o FILE.tdsum [--run NAME] [--replace] [selection]\n\n"
            "Keeps what compare, ops, report and the statistics need from a trace set in an\n"
            "SQLite file (docs/summaries.md), which every command then takes in place of the\n"
            "set, as FILE.tdsum (its only run) or FILE.tdsum#RUN, with the same output.\n"
            "A new file is written whole; a run is added to an existing one in one\n"
            "transaction.\n\n"
            "  -o, --output FILE     the summary (created, or a run added to it)\n"
            "  --run NAME            the run's name (default: the set's folder name, or the\n"
            "                        file's name without .json[.gz|.zst])\n"
            "  --replace             replace a run of that name (else it is an error)\n"
            "selection (default: everything; a summary answers only what it keeps):\n"
            "  --rank R              R: N | N,M,... | all\n"
            "  --iteration I         I: N | N,M,... | all\n"
            "  --device all|cpu|gpu\n"
            "  -j, --jobs N          files read at once\n"
            "  -q, --quiet           no progress on stderr\n");
}

static int parse_list_opt(td_list *l, const char *opt, const char *v)
{
    td_error err = {0};
    td_list_clear(l);
    if (td_list_parse(l, v, &err) < 0) {
        cli_error("%s %s", opt, err.msg);
        return -1;
    }
    if (l->all) { /* "all": everything, as when left out */
        td_list_clear(l);
        memset(l, 0, sizeof *l);
    }
    return 0;
}

int cmd_summarize(int argc, char **argv)
{
    td_summary_opts so = {0};
    cli_opts o = {0};
    const char *set_path = NULL;
    int rc = EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool bad = false;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_summarize(stdout);
            rc = EXIT_OK;
            goto done;
        }
        if ((v = cli_value("--run", argc, argv, &i, &bad))) {
            so.run = v;
        } else if (bad) {
            goto done;
        } else if (strcmp(a, "--replace") == 0) {
            so.replace = 1;
        } else if ((v = cli_value("--rank", argc, argv, &i, &bad))) {
            if (parse_list_opt(&so.ranks, "--rank", v) < 0)
                goto done;
        } else if (bad) {
            goto done;
        } else if ((v = cli_value("--iteration", argc, argv, &i, &bad))) {
            if (parse_list_opt(&so.iters, "--iteration", v) < 0)
                goto done;
        } else if (bad) {
            goto done;
        } else if (a[0] == '-' && a[1]) {
            int r = cli_shared_option(&o, argc, argv, &i);
            if (r <= 0) {
                if (r == 0)
                    cli_error("summarize: unknown option '%s'", a);
                goto done;
            }
        } else if (set_path) {
            cli_error("summarize: unexpected argument '%s'", a);
            goto done;
        } else {
            set_path = a;
        }
    }
    if (!set_path || !o.output) {
        cli_error("summarize: expected a trace set and -o FILE (see '%s summarize --help')",
                  g_prog);
        goto done;
    }
    if (strcmp(o.output, "-") == 0) {
        cli_error("summarize: -o needs a file (a summary is an SQLite file)");
        goto done;
    }
    so.device = o.cmp.device;
    td_set *s = NULL;
    td_open_opts oo = {0};
    oo.threads = o.threads;
    td_error err = {0};
    if (td_set_open(&s, set_path, &oo, &err) < 0) {
        rc = cli_td_error(&err);
        goto done;
    }
    rc = td_summary_write(o.output, s, &so, &err) < 0 ? cli_td_error(&err) : EXIT_OK;
    td_set_free(s);
done:
    td_list_clear(&so.ranks);
    td_list_clear(&so.iters);
    cli_opts_free(&o);
    return rc;
}

static void usage_runs(FILE *f)
{
    fprintf(f, "usage: tracediff runs FILE.tdsum [--format table|csv|json] [-o FILE]\n\n"
               "The runs of a summary in the order they were added: name, when made, ranks,\n"
               "iterations, source size, events kept, total CPU and GPU time (us).\n");
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

static void csv_str(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_runs(FILE *f, const char *fmt, const td_run_info *r, size_t n)
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
                    (unsigned long long)r[i].json_bytes, (unsigned long long)r[i].events, cpu,
                    gpu);
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
            csv_str(f, r[i].name);
            fprintf(f, ",%s,%llu,%llu,%llu,%llu,%s,%s,", r[i].created,
                    (unsigned long long)r[i].nranks, (unsigned long long)r[i].niters,
                    (unsigned long long)r[i].source_bytes, (unsigned long long)r[i].events, cpu,
                    gpu);
            csv_str(f, r[i].source);
            fputc('\n', f);
        }
    } else {
        fprintf(f, "%-24s  %-20s  %5s  %10s  %12s  %12s  %16s  %16s\n", "run", "created", "ranks",
                "iterations", "source_MB", "events", "cpu_us", "gpu_us");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%-24s  %-20s  %5llu  %10llu  %12.2f  %12llu  %16.0f  %16.0f\n", r[i].name,
                    r[i].created, (unsigned long long)r[i].nranks,
                    (unsigned long long)r[i].niters, r[i].source_bytes / 1e6,
                    (unsigned long long)r[i].events, r[i].cpu_us, r[i].gpu_us);
    }
}

int cmd_runs(int argc, char **argv)
{
    cli_opts o = {0};
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_runs(stdout);
            return EXIT_OK;
        }
        if (a[0] == '-' && a[1]) {
            int r = cli_shared_option(&o, argc, argv, &i);
            if (r <= 0) {
                if (r == 0)
                    cli_error("runs: unknown option '%s'", a);
                cli_opts_free(&o);
                return EXIT_USAGE;
            }
            continue;
        }
        if (path) {
            cli_error("runs: unexpected argument '%s'", a);
            cli_opts_free(&o);
            return EXIT_USAGE;
        }
        path = a;
    }
    cli_opts_free(&o);
    if (!path) {
        cli_error("runs: expected a summary (see '%s runs --help')", g_prog);
        return EXIT_USAGE;
    }
    const char *fmt = o.format ? o.format : isatty(STDOUT_FILENO) ? "table" : "csv";
    if (strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
        cli_error("--format '%s': expected table, csv or json", fmt);
        return EXIT_USAGE;
    }
    td_error err = {0};
    td_run_info *runs = NULL;
    long n = td_summary_runs(&runs, path, &err);
    if (n < 0)
        return cli_td_error(&err);
    out_file out;
    int rc = out_open(&out, o.output);
    if (rc == 0) {
        write_runs(out.f, fmt, runs, (size_t)n);
        rc = out_commit(&out);
    }
    td_run_infos_free(runs, (size_t)n);
    return rc;
}

static void usage_trend(FILE *f)
{
    fprintf(f,
            "usage: tracediff trend FILE.tdsum [--device all|cpu|gpu] [--top N] [--names REGEX]\n"
            "                       [--runs a,b,c] [--format table|csv|json] [-o FILE[.svg]]\n\n"
            "Total duration (us) per name in each run of a summary, runs in the order they\n"
            "were added (or as --runs lists them), with the change from the first run. Names\n"
            "are ordered by their change from the first run to the last, largest first.\n"
            "Totals cover every kept event of a run (all ranks, iterations and streams).\n"
            "-o FILE.svg draws a line chart (one line per name; default --top 10).\n");
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

static void trend_write(FILE *f, const char *fmt, const td_trend *t)
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
                csv_str(f, td_trend_name(t, j));
                fputc(',', f);
                csv_str(f, td_trend_run(t, r));
                fprintf(f, ",%llu,%s,%s\n", (unsigned long long)td_trend_count(t, j, r), a, b);
            }
    } else {
        fprintf(f, "%-50s", "name");
        for (size_t r = 0; r < nr; r++)
            fprintf(f, "  %24.24s", td_trend_run(t, r));
        fputc('\n', f);
        for (size_t j = 0; j < nn; j++) {
            const char *nm = td_trend_name(t, j);
            if (strlen(nm) > 50)
                fprintf(f, "%-.47s...", nm);
            else
                fprintf(f, "%-50s", nm);
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

int cmd_trend(int argc, char **argv)
{
    cli_opts o = {0};
    const char *path = NULL, *names = NULL, *runs = NULL;
    int rc = EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool bad = false;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_trend(stdout);
            rc = EXIT_OK;
            goto done;
        }
        if ((v = cli_value("--names", argc, argv, &i, &bad))) {
            names = v;
        } else if (bad) {
            goto done;
        } else if ((v = cli_value("--runs", argc, argv, &i, &bad))) {
            runs = v;
        } else if (bad) {
            goto done;
        } else if (a[0] == '-' && a[1]) {
            int r = cli_shared_option(&o, argc, argv, &i);
            if (r <= 0) {
                if (r == 0)
                    cli_error("trend: unknown option '%s'", a);
                goto done;
            }
        } else if (path) {
            cli_error("trend: unexpected argument '%s'", a);
            goto done;
        } else {
            path = a;
        }
    }
    if (!path) {
        cli_error("trend: expected a summary (see '%s trend --help')", g_prog);
        goto done;
    }
    bool chart = o.output && strlen(o.output) > 4 && (!o.format) &&
                 (strcmp(o.output + strlen(o.output) - 4, ".svg") == 0 ||
                  strcmp(o.output + strlen(o.output) - 4, ".png") == 0 ||
                  strcmp(o.output + strlen(o.output) - 4, ".pdf") == 0);
    const char *fmt = o.format ? o.format : isatty(STDOUT_FILENO) ? "table" : "csv";
    if (!chart && strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
        cli_error("--format '%s': expected table, csv or json", fmt);
        goto done;
    }
    td_trend_opts to = {0};
    to.device = o.cmp.device;
    to.top = o.view.top ? o.view.top : chart ? 10 : 0;
    to.names = names;
    char **rl = NULL;
    if (runs) {
        if (!(rl = split_runs(runs, &to.nruns))) {
            cli_error("out of memory");
            rc = EXIT_DATA;
            goto done;
        }
        to.runs = (const char *const *)rl;
    }
    td_error err = {0};
    td_trend *t = NULL;
    if (td_trend_compute(&t, path, &to, &err) < 0) {
        rc = cli_td_error(&err);
    } else if (chart) {
        rc = td_trend_chart_write(o.output, t, &err) < 0 ? cli_td_error(&err) : EXIT_OK;
    } else {
        out_file out;
        rc = out_open(&out, o.output);
        if (rc == 0) {
            trend_write(out.f, fmt, t);
            rc = out_commit(&out);
        }
    }
    td_trend_free(t);
    if (rl) {
        if (to.nruns)
            free(rl[0]);
        free(rl);
    }
done:
    cli_opts_free(&o);
    return rc;
}
