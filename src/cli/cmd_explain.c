/* tracediff explain CONTROL TEST NAME: the kernels one op launched on each
 * side, diffed, beside the op's own CPU time (docs/attribution.md). */
#include "options.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fmt_num(char *b, size_t cap, double x)
{
    td_format_number(b, cap, x);
}

/* The key: "op", "top_op", "annotation" or "module". */
static const char *key_name(const cli_pair *p)
{
    td_by by = p->o.cmp.only_by;
    return by == TD_BY_ANNOTATION ? "annotation"
           : by == TD_BY_TOP_OP   ? "top_op"
           : by == TD_BY_MODULE   ? "module"
                                  : "op";
}

/* A module has no call of its own that the rows could use (docs/stacks.md):
 * its block is the GPU time and the GPU events under it, no CPU time. */
static bool by_module(const cli_pair *p)
{
    return p->o.cmp.only_by == TD_BY_MODULE;
}

static uint64_t gpu_events(const cli_pair *p, int side)
{
    uint64_t n = 0;
    for (size_t i = 0; i < td_diff_nrows(p->diff); i++)
        n += td_diff_rows(p->diff)[i].counts[side];
    return n;
}

/* One line of the CPU/GPU time block; label is ASCII but for "µs". */
static void time_line(FILE *f, const char *what, double c, double t)
{
    char a[40], b[40], d[40];
    fmt_num(a, sizeof a, c);
    fmt_num(b, sizeof b, t);
    fmt_num(d, sizeof d, t - c);
    fprintf(f, "%s µs   %14s %14s %14s\n", what, a, b, d);
}

static int explain_table(FILE *f, const cli_pair *p, const char *name, td_write_opts *w,
                         td_error *err)
{
    const td_side_notes *c = td_diff_notes(p->diff, 0), *t = td_diff_notes(p->diff, 1);
    const char *cl = p->o.control_label ? p->o.control_label : "control";
    const char *tl = p->o.test_label ? p->o.test_label : "test";
    fprintf(f, "%s %s\n\n", key_name(p), cli_visible(name));
    fprintf(f, "%-14s ", "");
    cli_put_cell(f, cl, 14, CLI_CELL_RIGHT);
    fputc(' ', f);
    cli_put_cell(f, tl, 14, CLI_CELL_RIGHT);
    fprintf(f, " %14s\n", "diff");
    if (by_module(p)) {
        time_line(f, "GPU time", c->only_gpu_time, t->only_gpu_time);
        fprintf(f, "%-14s %14llu %14llu\n\n", "GPU events", (unsigned long long)gpu_events(p, 0),
                (unsigned long long)gpu_events(p, 1));
        return td_write_table(f, p->diff, w, err);
    }
    time_line(f, "CPU time", c->only_cpu_time, t->only_cpu_time);
    time_line(f, "GPU time", c->only_gpu_time, t->only_gpu_time);
    fprintf(f, "%-14s %14llu %14llu\n\n", "calls", (unsigned long long)c->only_cpu_count,
            (unsigned long long)t->only_cpu_count);
    return td_write_table(f, p->diff, w, err);
}

/* The CSV rows, then one row "(CPU time)": the op's own events. */
static int explain_csv(FILE *f, const cli_pair *p, td_write_opts *w, td_error *err)
{
    const td_side_notes *c = td_diff_notes(p->diff, 0), *t = td_diff_notes(p->diff, 1);
    int rc = td_write_csv(f, p->diff, w, err);
    if (rc < 0 || by_module(p))
        return rc;
    char a[40], b[40], d[40];
    fmt_num(a, sizeof a, c->only_cpu_time);
    fmt_num(b, sizeof b, t->only_cpu_time);
    fmt_num(d, sizeof d, t->only_cpu_time - c->only_cpu_time);
    long long dc = (long long)t->only_cpu_count - (long long)c->only_cpu_count;
    fprintf(f, "(CPU time),%llu,%s,%llu,%s,%lld,%s,%c\n", (unsigned long long)c->only_cpu_count, a,
            (unsigned long long)t->only_cpu_count, b, dc, d,
            dc > 0   ? '+'
            : dc < 0 ? '-'
                     : '=');
    return 0;
}

static int explain_json(FILE *f, const cli_pair *p, const char *name, td_write_opts *w,
                        td_error *err)
{
    const td_side_notes *n[2] = {td_diff_notes(p->diff, 0), td_diff_notes(p->diff, 1)};
    fprintf(f, "{\"%s\": \"", key_name(p));
    td_write_json_string(f, name, strlen(name));
    fputs("\"", f);
    static const char *const side[2] = {"control", "test"};
    for (int s = 0; s < 2; s++) {
        char a[40], b[40];
        fmt_num(a, sizeof a, n[s]->only_cpu_time);
        fmt_num(b, sizeof b, n[s]->only_gpu_time);
        if (by_module(p))
            fprintf(f, ", \"%s\": {\"gpu_events\": %llu, \"gpu_time\": %s}", side[s],
                    (unsigned long long)gpu_events(p, s), b);
        else
            fprintf(f, ", \"%s\": {\"calls\": %llu, \"cpu_time\": %s, \"gpu_time\": %s}", side[s],
                    (unsigned long long)n[s]->only_cpu_count, a, b);
    }
    fputs(", \"kernels\": ", f);
    int rc = td_write_json(f, p->diff, w, err);
    fputs("}\n", f);
    return rc;
}

static int explain_write(cli_pair *p, const char *fmt, const char *name)
{
    out_file out = {0};
    int rc = out_open(&out, p->o.output);
    if (rc != 0)
        return rc;
    td_write_opts w = TD_WRITE_OPTS_INIT;
    w.control_label = p->o.control_label;
    w.csv_safe = p->o.csv_safe;
    w.test_label = p->o.test_label;
    w.rows = p->rows;
    w.nrows = p->nrows;
    td_error err = {0};
    if (strcmp(fmt, "csv") == 0)
        rc = explain_csv(out.f, p, &w, &err);
    else if (strcmp(fmt, "json") == 0)
        rc = explain_json(out.f, p, name, &w, &err);
    else {
        bool tty = out.f == stdout && isatty(STDOUT_FILENO);
        w.width = cli_term_width(tty);
        w.color = out.f == stdout && cli_color_ok(stdout);
        w.ascii = !cli_unicode_ok();
        w.rules = tty;
        rc = explain_table(out.f, p, name, &w, &err);
    }
    return rc < 0 ? out_fail(&out, &err) : out_commit(&out);
}

/* NAME is in neither selection: an error listing the closest keys (edit
 * distance) of a diff by the same key, with the sides they are on. */
static int unknown_name(cli_pair *p, const char *name)
{
    td_compare_opts cmp = p->o.cmp;
    cmp.only = NULL;
    cmp.by = cmp.only_by;
    td_diff *d = NULL;
    td_error err = {0};
    if (td_diff_compute(&d, p->control, p->test, &cmp, &err) < 0)
        return cli_td_error(&err);
    const td_row *rows = td_diff_rows(d);
    for (size_t r = 0, n = td_diff_nrows(d); r < n; r++)
        if (rows[r].name_len == strlen(name) && memcmp(rows[r].name, name, rows[r].name_len) == 0) {
            /* --by module --exclusive: a module whose GPU time is all its children's */
            cli_error("explain: %s '%s' has no GPU events of its own in either selection "
                      "(without --exclusive: with its children's)",
                      cli_by_name(p->o.cmp.only_by), name);
            td_diff_free(d);
            return EXIT_DATA;
        }
    size_t near[5];
    long m = td_diff_closest(d, name, near, 5);
    if (m < 0) {
        td_diff_free(d);
        cli_error("out of memory");
        return EXIT_DATA;
    }
    char list[1024] = "";
    size_t len = 0;
    for (long k = 0; k < m; k++) {
        const td_row *r = &rows[near[k]];
        const char *side = r->counts[0] && r->counts[1] ? "both"
                           : r->counts[0]               ? cli_side_label(&p->o, 0)
                                                        : cli_side_label(&p->o, 1);
        int w = snprintf(list + len, sizeof list - len, "%s%.*s (%s)", k ? ", " : "",
                         (int)(r->name_len > 200 ? 200 : r->name_len), r->name, side);
        if (w < 0 || (size_t)w >= sizeof list - len)
            break;
        len += (size_t)w;
    }
    cli_error("explain: no %s named '%s' in either selection%s%s (names as 'compare --by %s' "
              "shows them)",
              cli_by_name(p->o.cmp.only_by), name, m ? "; closest: " : "", list,
              cli_by_name(p->o.cmp.only_by));
    td_diff_free(d);
    return EXIT_DATA;
}

static int explain_run(cli_pair *p, const char *name)
{
    cli_opts *o = &p->o;
    /* --format was checked by the parser; the extension may name another. */
    const char *fmt = cli_default_format(o, "table", "csv");
    if (strcmp(fmt, "table") && strcmp(fmt, "csv") && strcmp(fmt, "json")) {
        cli_error("--format '%s': expected table, csv or json", fmt);
        return EXIT_USAGE;
    }
    if (o->match_tree)
        return cli_tree_explain(o, name);
    if (o->tree_python_frames) {
        cli_error("--python-frames needs --match tree");
        return EXIT_USAGE;
    }
    o->want_attr = true;
    o->cmp.only = name;
    o->cmp.only_by = o->cmp.by == TD_BY_KERNEL ? TD_BY_OP : o->cmp.by;
    o->cmp.by = TD_BY_KERNEL;
    o->want_stacks = o->cmp.only_by == TD_BY_MODULE;
    if (!o->sort_text) { /* the kernels that moved most first */
        o->view.sort = TD_COL_ABS_DIFF_DURATION;
        o->view.has_sort = true;
    }
    int rc = cli_pair_run(p);
    if (rc)
        return rc;
    const td_side_notes *c = td_diff_notes(p->diff, 0), *t = td_diff_notes(p->diff, 1);
    if (td_diff_nrows(p->diff) == 0 && c->only_cpu_count == 0 && t->only_cpu_count == 0)
        return unknown_name(p, name);
    return explain_write(p, fmt, name);
}

int cmd_explain(cli_pair *p, const char **pos)
{
    return explain_run(p, pos[2]);
}
