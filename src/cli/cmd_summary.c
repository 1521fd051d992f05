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
