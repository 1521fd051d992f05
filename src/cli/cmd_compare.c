/* tracediff compare CONTROL TEST: per name, counts and total durations of
 * both sides and their differences, as a table, CSV, JSON or Markdown. */
#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void table_opts(td_write_opts *w, FILE *f)
{
    bool tty = f == stdout && cli_isatty(STDOUT_FILENO);
    w->width = cli_term_width(tty);
    w->color = f == stdout && cli_color_ok(stdout);
    w->ascii = !cli_unicode_ok();
    w->rules = tty;
}

/* "control  PATH  rank 0  iteration 6  61 events": the path cut in the
 * middle when the line would not fit the width. */
static void print_side_header(FILE *f, const cli_opts *o, const td_diff *d, int side,
                              const char *path, size_t width)
{
    const td_side_notes *n = td_diff_notes(d, side);
    char *rest = NULL;
    size_t rest_len = 0;
    FILE *m = open_memstream(&rest, &rest_len);
    if (!m)
        return;
    fprintf(m, "  rank%s ", n->nranks == 1 ? "" : "s");
    for (size_t i = 0; i < n->nranks; i++)
        fprintf(m, "%s%lld", i ? "," : "", (long long)n->ranks[i]);
    if (n->whole_trace)
        fprintf(m, "  whole trace (no ProfilerStep)");
    else {
        fprintf(m, "  iteration%s ", n->niters == 1 ? "" : "s");
        for (size_t i = 0; i < n->niters; i++)
            fprintf(m, "%s%lld", i ? "," : "", (long long)n->iters[i]);
    }
    fprintf(m, "  %llu %s", (unsigned long long)n->events, n->events == 1 ? "event" : "events");
    fclose(m);
    cli_put_cell(f, cli_side_label(o, side), 8, 0);
    fputc(' ', f);
    size_t used = 9 + strlen(rest);
    size_t pw = width > used + 12 ? width - used : 12;
    const char *v = cli_visible(path);
    size_t cols = 0;
    for (const char *c = v; *c; c++)
        cols += ((unsigned char)*c & 0xC0) != 0x80;
    cli_put_cell(f, path, cols < pw ? cols : pw, CLI_CELL_MIDDLE);
    fprintf(f, "%s\n", rest);
    free(rest);
}

static int write_table(FILE *f, const cli_pair *p, td_write_opts *w, td_error *err)
{
    const cli_opts *o = &p->o;
    table_opts(w, f);
    print_side_header(f, o, p->diff, 0, o->control, (size_t)w->width);
    print_side_header(f, o, p->diff, 1, o->test, (size_t)w->width);
    bool by = o->cmp.by != TD_BY_KERNEL; /* --by implies the gpu side */
    fprintf(f, "device   %s%s%s%s%s\n", td_device_name(by ? TD_DEVICE_GPU : o->cmp.device),
            by ? "  by " : "", by ? td_diff_key_name(p->diff) : "",
            o->cmp.short_names ? "  (short names)" : "",
            o->cmp.normalize_names ? "  (normalized names)" : "");
    if (o->cmp.per_iteration)
        fprintf(f,
                "per      (rank, iteration) sample: counts and durations divided by %g "
                "(control) and %g (test)\n",
                td_diff_divisor(p->diff, 0), td_diff_divisor(p->diff, 1));
    if (o->by_abs_default)
        fputs("rows     by |diff_duration|, largest first (--sort to change)\n", f);
    size_t noisy = td_diff_noisy_names(p->diff);
    if (noisy)
        fprintf(f,
                "note     %zu names differ only by addresses or line numbers; "
                "--normalize-names folds them\n",
                noisy);
    if (p->stats) {
        char a[160], b[80];
        snprintf(a, sizeof a,
                 "stats    samples per %s (%zu control, %zu test (rank, iteration) samples)",
                 td_samples_name(td_stats_samples(p->stats)), td_stats_side_samples(p->stats, 0),
                 td_stats_side_samples(p->stats, 1));
        snprintf(b, sizeof b, "alpha %g  min change %g%%", td_stats_alpha(p->stats),
                 td_stats_min_change(p->stats));
        /* on a second line when both do not fit the width */
        if (strlen(a) + 2 + strlen(b) <= (size_t)w->width)
            fprintf(f, "%s  %s\n", a, b);
        else
            fprintf(f, "%s\n         %s\n", a, b);
    }
    fputc('\n', f);
    return td_write_table(f, p->diff, w, err);
}

static int write_rows_with(FILE *f, const cli_pair *p, const char *fmt, const td_op_rate *rates,
                           td_error *err);

/* --with-rate on the table: the view's rows that have a model, below it. */
static void table_rates(FILE *f, const cli_pair *p, const td_write_opts *w)
{
    const td_row *rows = td_diff_rows(p->diff);
    size_t n = p->rows ? p->nrows : td_diff_nrows(p->diff), shown = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = p->rows ? p->rows[i] : i;
        const td_op_rate *x = &w->rates[k];
        if (isnan(x->flops[0]) && isnan(x->flops[1]))
            continue;
        if (!shown++)
            fprintf(f,
                    "\nwork and rate (roofline's rows of each op, docs/roofline.md)\n%-40s "
                    "%14s %14s %10s %10s\n",
                    "op", "ctl GFLOP/call", "test GFLOP/call", "ctl TF/s", "test TF/s");
        char b[4][32];
        double v[4] = {x->flops[0] / 1e9, x->flops[1] / 1e9, x->tflops[0], x->tflops[1]};
        for (int c = 0; c < 4; c++)
            if (isnan(v[c]))
                snprintf(b[c], sizeof b[c], "-");
            else
                snprintf(b[c], sizeof b[c], c < 2 ? "%.4g" : "%.3f", v[c]);
        cli_put_cell(f, cli_visible(rows[k].name), 40, CLI_CELL_CUT);
        fprintf(f, " %14s %14s %10s %10s\n", b[0], b[1], b[2], b[3]);
    }
    if (!shown)
        fputs("\nwork and rate: no row has a model (docs/roofline.md)\n", f);
}

/* --with-rate: roofline's rows over the same selection, per op name. */
static int op_rates(const cli_pair *p, td_op_rate **rates, td_error *err)
{
    const cli_opts *o = &p->o;
    td_roofline_opts ro = o->rl;
    ro.control_ranks = o->cmp.control_ranks;
    ro.test_ranks = o->cmp.test_ranks;
    ro.control_iters = o->cmp.control_iters;
    ro.test_iters = o->cmp.test_iters;
    ro.stats = false;
    td_roofline *r = NULL;
    int rc = td_roofline_compute(&r, p->control, p->test, &ro, err);
    if (rc == 0)
        rc = td_roofline_op_rates(rates, r, p->diff, err);
    td_roofline_free(r);
    return rc;
}

static int write_rows(FILE *f, const cli_pair *p, const char *fmt, td_error *err)
{
    td_op_rate *rates = NULL;
    if (p->o.with_rate && op_rates(p, &rates, err) < 0)
        return -1;
    int rc = write_rows_with(f, p, fmt, rates, err);
    free(rates);
    return rc;
}

static int write_rows_with(FILE *f, const cli_pair *p, const char *fmt, const td_op_rate *rates,
                           td_error *err)
{
    const cli_opts *o = &p->o;
    td_write_opts w = TD_WRITE_OPTS_INIT;
    w.rates = rates;
    w.control_label = o->control_label;
    w.csv_safe = o->csv_safe;
    w.test_label = o->test_label;
    w.rows = p->rows;
    w.nrows = p->nrows;
    w.stats = p->stats;
    if (strcmp(fmt, "csv") == 0)
        return td_write_csv(f, p->diff, &w, err);
    if (strcmp(fmt, "json") == 0)
        return td_write_json(f, p->diff, &w, err);
    if (strcmp(fmt, "markdown") == 0) {
        if (o->by_abs_default)
            fputs("Rows by |diff_duration|, largest first.\n\n", f);
        return td_write_markdown(f, p->diff, &w, err);
    }
    int rc = write_table(f, p, &w, err);
    if (rc == 0 && rates)
        table_rates(f, p, &w);
    return rc;
}

/* A folded name and the names it holds, with their counts per side. */
typedef struct fold {
    char *key;
    size_t len;
    size_t row;
} fold;

static int cmp_fold(const void *a, const void *b)
{
    const fold *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, n);
    if (!c)
        c = (x->len > y->len) - (x->len < y->len);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

static void put_text(FILE *f, const char *s, size_t len)
{
    char small[512];
    size_t need = td_text_visible(small, sizeof small, s, len, 0);
    char *big = need >= sizeof small ? malloc(need + 1) : NULL;
    if (big)
        td_text_visible(big, need + 1, s, len, 0);
    fputs(big ? big : small, f);
    free(big);
}

/* The rules (docs/numbers.md, "Normalized names") that change some name of
 * a folded group, as a list of words. */
static void print_rules(FILE *f, const td_row *rows, const fold *g, size_t n)
{
    static const struct {
        unsigned flag;
        const char *word;
    } rules[] = {{TD_NORM_ADDRESSES, "addresses"},
                 {TD_NORM_LINES, "line numbers"},
                 {TD_NORM_STEPS, "step numbers"},
                 {TD_NORM_GRAPHS, "graph hashes"},
                 {TD_NORM_TRITON, "Triton numbers"}};
    int said = 0;
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++) {
        bool used = false;
        for (size_t i = 0; i < n && !used; i++) {
            const td_row *r = &rows[g[i].row];
            char *t = NULL;
            size_t tl = 0;
            if (td_normalize_name(&t, &tl, r->name, r->name_len, rules[k].flag) == 0)
                used = tl != r->name_len || memcmp(t, r->name, tl) != 0;
            free(t);
        }
        if (used)
            fprintf(f, "%s%s", said++ ? ", " : "", rules[k].word);
    }
}

/* --explain-names: the rows of a diff by full name, grouped as
 * --normalize-names would group them; only groups of two or more. */
static int explain_names(FILE *f, const cli_pair *p)
{
    const td_row *rows = td_diff_rows(p->diff);
    size_t n = td_diff_nrows(p->diff), groups = 0, held = 0;
    fold *fo = calloc(n + 1, sizeof *fo);
    int rc = fo ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        fo[i].row = i;
        rc = td_normalize_name(&fo[i].key, &fo[i].len, rows[i].name, rows[i].name_len, 0);
    }
    if (rc == 0)
        qsort(fo, n, sizeof *fo, cmp_fold);
    for (size_t i = 0, j; rc == 0 && i < n; i = j) {
        for (j = i + 1;
             j < n && fo[j].len == fo[i].len && !memcmp(fo[j].key, fo[i].key, fo[i].len);)
            j++;
        if (j - i < 2)
            continue;
        groups++;
        held += j - i;
        put_text(f, fo[i].key, fo[i].len);
        fprintf(f, "  (%zu names; folded by ", j - i);
        print_rules(f, rows, fo + i, j - i);
        fputs(")\n", f);
        for (size_t k = i; k < j; k++) {
            const td_row *r = &rows[fo[k].row];
            fprintf(f, "  \xE2\x86\x90 ");
            put_text(f, r->name, r->name_len);
            fprintf(f, "  (%s %llu, %s %llu)\n", cli_side_label(&p->o, 0),
                    (unsigned long long)r->counts[0], cli_side_label(&p->o, 1),
                    (unsigned long long)r->counts[1]);
        }
    }
    if (rc == 0)
        fprintf(f, "%zu folded %s hold %zu of %zu names\n", groups, groups == 1 ? "name" : "names",
                held, n);
    for (size_t i = 0; fo && i < n; i++)
        free(fo[i].key);
    free(fo);
    return rc;
}

/* --format folded (docs/stacks.md): one side's stacks, a line each, its
 * total rounded to whole us; rows by name, so the lines come sorted. */
static int write_folded(FILE *f, const td_diff *d, int side)
{
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].counts[side])
            continue;
        double v = rows[i].duration[side];
        fwrite(rows[i].name, 1, rows[i].name_len, f);
        fprintf(f, " %lld\n", (long long)llround(v > 0 ? v : 0));
    }
    return ferror(f) ? -1 : 0;
}

/* The folded files: -o CONTROL,TEST, or one side (--side) to -o or stdout. */
static int folded_out(cli_pair *p)
{
    const cli_opts *o = &p->o;
    char *paths[2] = {NULL, NULL};
    const char *comma = o->output ? strchr(o->output, ',') : NULL;
    if (o->side && comma) {
        cli_error("--side %s writes one file: give -o one name", o->side == 1 ? "control" : "test");
        return EXIT_USAGE;
    }
    if (!o->side && !comma) {
        cli_error("--format folded writes a file per side: -o CONTROL.folded,TEST.folded, or "
                  "--side control|test for one");
        return EXIT_USAGE;
    }
    if (comma) {
        paths[0] = strndup(o->output, (size_t)(comma - o->output));
        paths[1] = strdup(comma + 1);
        if (!paths[0] || !paths[1] || !*paths[0] || !*paths[1]) {
            free(paths[0]);
            free(paths[1]);
            cli_error("-o CONTROL,TEST: two file names");
            return EXIT_USAGE;
        }
    }
    out_file out[2] = {{0}, {0}};
    int rc = 0, nout = o->side ? 1 : 2;
    for (int k = 0; rc == 0 && k < nout; k++)
        rc = out_open(&out[k], o->side ? o->output : paths[k]);
    for (int k = 0; rc == 0 && k < nout; k++) {
        if (write_folded(out[k].f, p->diff, o->side ? o->side - 1 : k) < 0) {
            cli_error("%s: write error", o->side ? (o->output ? o->output : "stdout") : paths[k]);
            rc = EXIT_DATA;
        }
    }
    for (int k = 0; k < nout; k++) {
        if (!out[k].f)
            continue;
        if (rc)
            out_abort(&out[k]);
        else
            rc = out_commit(&out[k]);
    }
    if (rc && nout == 2 && out[0].f && !out[1].f)
        (void)0; /* the first was committed only when both were written */
    free(paths[0]);
    free(paths[1]);
    return rc;
}

static int folded_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    const char *bad = o->cmp.by != TD_BY_KERNEL ? "--by"
                      : o->stats                ? "--stats"
                      : o->explain_names        ? "--explain-names"
                                                : NULL;
    if (bad) {
        cli_error("--format folded writes the stacks: not with %s", bad);
        return EXIT_USAGE;
    }
    o->cmp.by = TD_BY_STACK;
    o->want_stacks = true;
    int rc = cli_pair_run(p);
    return rc ? rc : folded_out(p);
}

static void default_order(cli_opts *o, const char *fmt)
{
    /* The table and markdown are read by people: largest change first.
     * CSV and JSON keep HTA's order (by name) for scripts. */
    if (o->sort_text || o->explain_names)
        return;
    if (strcmp(fmt, "table") && strcmp(fmt, "markdown"))
        return;
    o->view.sort = TD_COL_ABS_DIFF_DURATION;
    o->view.has_sort = true;
    o->by_abs_default = true;
}

static int compare_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    /* --format was checked by the parser; the extension gives only known ones. */
    const char *fmt = cli_default_format(o, "table", "csv");
    if (strcmp(fmt, "folded") == 0)
        return folded_run(p);
    if (o->side) {
        cli_error("--side is for --format folded");
        return EXIT_USAGE;
    }
    if (o->with_rate && o->cmp.by != TD_BY_OP) {
        cli_error("--with-rate needs --by op (the model is per op)");
        return EXIT_USAGE;
    }
    default_order(o, fmt);
    o->table_out = strcmp(fmt, "table") == 0;
    o->rank_hint = true;
    if (o->explain_names)
        o->cmp.normalize_names = false;
    out_file out = {0};
    int rc = cli_pair_run(p);
    if (rc == 0)
        rc = out_open(&out, o->output);
    if (rc)
        return rc;
    td_error err = {0};
    if (!o->explain_names && write_rows(out.f, p, fmt, &err) < 0)
        return out_fail(&out, &err);
    if (o->explain_names && explain_names(out.f, p) < 0) {
        out_abort(&out);
        cli_error("out of memory");
        return EXIT_DATA;
    }
    return out_commit(&out);
}

int cmd_compare(cli_pair *p, const char **pos)
{
    (void)pos;
    if (p->o.tree_by_name && !p->o.match_tree) {
        cli_error("--by lca-name needs --match tree");
        return EXIT_USAGE;
    }
    if (p->o.tree_python_frames && !p->o.match_tree) {
        cli_error("--python-frames needs --match tree");
        return EXIT_USAGE;
    }
    return p->o.match_tree ? cli_tree_compare(&p->o) : compare_run(p);
}
