/* tracediff compare CONTROL TEST --match tree: the same work matched by
 * the two call trees, a row per lowest common ancestor (LCA) with both
 * sides' GPU time and kernels, and each side's summary
 * (docs/tree-match.md). */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct trow {
    const char *lca, *path;
    double us[2];
    uint64_t n[2], nlca;
    const char *kernels[2];
    const td_row_stats *st;         /* --stats */
    const char *dims[2], *types[2]; /* input dims and types, NULL: none */
} trow;

static double change_pct(const trow *r)
{
    return r->us[0] > 0 ? (r->us[1] - r->us[0]) / r->us[0] * 100.0 : NAN;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const trow *)a)->lca, ((const trow *)b)->lca);
}

static int cmp_abs(const void *a, const void *b)
{
    const trow *x = a, *y = b;
    double p = fabs(x->us[1] - x->us[0]), q = fabs(y->us[1] - y->us[0]);
    if (p != q)
        return p > q ? -1 : 1;
    return 0;
}

/* The rows: one per LCA (per LCA key across the units with --stats), or
 * per LCA name (--by lca-name). */
static trow *make_rows(const cli_opts *o, const td_tree_match *m, const td_tree_stats *ts,
                       size_t *n)
{
    size_t nl;
    const td_tree_lca *l = ts ? td_tree_stats_lcas(ts, &nl) : td_tree_match_lcas(m, &nl);
    const td_row_stats *st = ts ? td_stats_rows(td_tree_stats_stats(ts)) : NULL;
    trow *r = calloc(nl + 1, sizeof *r);
    if (!r)
        return NULL;
    for (size_t i = 0; i < nl; i++)
        r[i] = (trow){l[i].name,
                      l[i].path,
                      {l[i].us[0], l[i].us[1]},
                      {l[i].nkernels[0], l[i].nkernels[1]},
                      1,
                      {l[i].kernels[0], l[i].kernels[1]},
                      st ? &st[i] : NULL,
                      {l[i].input_dims[0], l[i].input_dims[1]},
                      {l[i].input_types[0], l[i].input_types[1]}};
    *n = nl;
    if (!o->tree_by_name)
        return r;
    qsort(r, nl, sizeof *r, cmp_name);
    size_t u = 0;
    for (size_t i = 0; i < nl; i++) {
        if (u && strcmp(r[u - 1].lca, r[i].lca) == 0) {
            for (int s = 0; s < 2; s++) {
                r[u - 1].us[s] += r[i].us[s];
                r[u - 1].n[s] += r[i].n[s];
            }
            r[u - 1].nlca++;
        } else {
            r[u] = r[i];
            r[u].path = NULL;
            r[u].kernels[0] = r[u].kernels[1] = NULL;
            r[u].dims[0] = r[u].dims[1] = r[u].types[0] = r[u].types[1] = NULL;
            u++;
        }
    }
    *n = u;
    return r;
}

static void csv_text(FILE *f, const char *s, bool safe)
{
    fputc('"', f);
    if (safe && s && strchr("=+-@", *s))
        fputc('\'', f);
    while (s && *s) { /* runs between quotes written whole */
        size_t n = strcspn(s, "\"");
        fwrite(s, 1, n, f);
        s += n;
        if (*s == '"') {
            fputs("\"\"", f);
            s++;
        }
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v == 0 ? 0 : v);
}

/* compare --stats's fields (docs/stats.md), after the row's own. */
static const char *const stat_names[] = {
    "samples",       "control_n",  "test_n",         "control_mean", "test_mean",
    "control_stdev", "test_stdev", "control_median", "test_median",  "control_min",
    "control_max",   "test_min",   "test_max",       "diff_mean",    "mean_change_pct",
    "ci_low",        "ci_high",    "p_value",        "q_value",      "verdict",
    "reason"};
#define NSTAT (sizeof stat_names / sizeof *stat_names)

/* Field k of st: a number (*txt NULL) or words. */
static double stat_field(const td_row_stats *st, size_t k, const char **txt)
{
    *txt = NULL;
    switch (k) {
    case 0:
        *txt = td_samples_name(TD_SAMPLES_ITERATION);
        return 0;
    case 1:
    case 2:
        return (double)st->n[k - 1];
    case 19:
        *txt = td_verdict_name(st->verdict);
        return 0;
    case 20:
        *txt = st->reason ? st->reason : "";
        return 0;
    default: {
        const double v[] = {st->mean[0],   st->mean[1],   st->stdev[0],  st->stdev[1],
                            st->median[0], st->median[1], st->min[0],    st->max[0],
                            st->min[1],    st->max[1],    st->diff_mean, st->change_pct,
                            st->ci_low,    st->ci_high,   st->p,         st->q};
        return v[k - 3];
    }
    }
}

static void write_csv(FILE *f, const cli_opts *o, const trow *r, size_t n)
{
    if (o->tree_by_name)
        fputs("lca,lcas,control_us,test_us,change_pct,control_count,test_count", f);
    else
        fputs("lca,path,control_us,test_us,change_pct,control_count,test_count,"
              "control_kernels,test_kernels,control_input_dims,test_input_dims,"
              "control_input_types,test_input_types",
              f);
    for (size_t k = 0; o->stats && k < NSTAT; k++)
        fprintf(f, ",%s", stat_names[k]);
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        csv_text(f, r[i].lca, o->csv_safe);
        if (o->tree_by_name)
            fprintf(f, ",%llu", (unsigned long long)r[i].nlca);
        else {
            fputc(',', f);
            csv_text(f, r[i].path, o->csv_safe);
        }
        for (int s = 0; s < 2; s++) {
            fputc(',', f);
            csv_num(f, r[i].us[s]);
        }
        fputc(',', f);
        csv_num(f, change_pct(&r[i]));
        fprintf(f, ",%llu,%llu", (unsigned long long)r[i].n[0], (unsigned long long)r[i].n[1]);
        if (!o->tree_by_name) {
            const char *const *cols[3] = {r[i].kernels, r[i].dims, r[i].types};
            for (int c = 0; c < 3; c++)
                for (int s = 0; s < 2; s++) {
                    fputc(',', f);
                    csv_text(f, cols[c][s] ? cols[c][s] : "", o->csv_safe);
                }
        }
        for (size_t k = 0; r[i].st && k < NSTAT; k++) {
            const char *txt;
            double v = stat_field(r[i].st, k, &txt);
            fputc(',', f);
            if (txt)
                fputs(txt, f);
            else
                csv_num(f, v);
        }
        fputc('\n', f);
    }
}

static void json_summary(FILE *f, const td_tree_summary *s)
{
    fputs("{\"gpu_us\": ", f);
    td_json_put_num(f, s->total_us);
    fputs(", \"matched_us\": ", f);
    td_json_put_num(f, s->matched_us);
    fputs(", \"unmatched_us\": {\"one_sided\": ", f);
    td_json_put_num(f, s->one_sided_us);
    fputs(", \"no_launch\": ", f);
    td_json_put_num(f, s->no_launch_us);
    fputs(", \"outside_tree\": ", f);
    td_json_put_num(f, s->outside_us);
    fprintf(f, "}, \"roots\": %llu, \"roots_matched\": %llu, \"left_out\": %llu}",
            (unsigned long long)s->roots, (unsigned long long)s->roots_matched,
            (unsigned long long)s->dropped);
}

static void write_json(FILE *f, const cli_opts *o, const td_tree_match *m, const trow *r, size_t n)
{
    fputs("{\"rows\": [", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n  {\"lca\": " : "\n  {\"lca\": ", f);
        td_json_put_str(f, r[i].lca);
        if (o->tree_by_name)
            fprintf(f, ", \"lcas\": %llu", (unsigned long long)r[i].nlca);
        else {
            fputs(", \"path\": ", f);
            td_json_put_str(f, r[i].path);
        }
        fputs(", \"control_us\": ", f);
        td_json_put_num(f, r[i].us[0]);
        fputs(", \"test_us\": ", f);
        td_json_put_num(f, r[i].us[1]);
        fputs(", \"change_pct\": ", f);
        td_json_put_num(f, change_pct(&r[i]));
        fprintf(f, ", \"control_count\": %llu, \"test_count\": %llu", (unsigned long long)r[i].n[0],
                (unsigned long long)r[i].n[1]);
        if (!o->tree_by_name) {
            fputs(", \"control_kernels\": ", f);
            td_json_put_str(f, r[i].kernels[0]);
            fputs(", \"test_kernels\": ", f);
            td_json_put_str(f, r[i].kernels[1]);
            fputs(", \"control_input_dims\": ", f);
            td_json_put_str(f, r[i].dims[0]);
            fputs(", \"test_input_dims\": ", f);
            td_json_put_str(f, r[i].dims[1]);
            fputs(", \"control_input_types\": ", f);
            td_json_put_str(f, r[i].types[0]);
            fputs(", \"test_input_types\": ", f);
            td_json_put_str(f, r[i].types[1]);
        }
        for (size_t k = 0; r[i].st && k < NSTAT; k++) {
            const char *txt;
            double v = stat_field(r[i].st, k, &txt);
            fprintf(f, ", \"%s\": ", stat_names[k]);
            if (txt)
                td_json_put_str(f, txt);
            else
                td_json_put_num(f, v);
        }
        fputs("}", f);
    }
    fputs("],\n \"summary\": {\"control\": ", f);
    json_summary(f, td_tree_match_summary(m, TD_CONTROL));
    fputs(", \"test\": ", f);
    json_summary(f, td_tree_match_summary(m, TD_TEST));
    fputs("},\n \"notes\": [", f);
    for (size_t i = 0; td_tree_match_note(m, i); i++) {
        fputs(i ? ", " : "", f);
        td_json_put_str(f, td_tree_match_note(m, i));
    }
    fputs("]}\n", f);
}

static const char *fmt_us(char *b, size_t n, double v, bool ns)
{
    if (!isfinite(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, ns ? "%.3f" : "%.1f", v);
    return b;
}

static void cell(FILE *f, bool md, const char *s, size_t w, bool right)
{
    if (md) {
        fputc(' ', f);
        for (const char *p = s; p && *p; p++) {
            if (*p == '|')
                fputc('\\', f);
            fputc(*p, f);
        }
        fputs(" |", f);
        return;
    }
    cli_put_cell(f, s, w, (right ? CLI_CELL_RIGHT : 0) | CLI_CELL_CUT);
    fputc(' ', f);
}

static void write_summary_text(FILE *f, const cli_opts *o, const td_tree_match *m, bool md)
{
    bool ns = o->ns;
    fputs(md ? "\n"
             : "\nsummary: GPU time (|U| of kernels, memcpys, memsets) = matched + unmatched\n",
          f);
    for (int s = 0; s < 2; s++) {
        const td_tree_summary *t = td_tree_match_summary(m, s);
        char b[5][64];
        double pct = t->total_us > 0 ? t->matched_us / t->total_us * 100 : 0;
        fprintf(f,
                "%s%s: %s us GPU, %s us matched (%.1f%%); unmatched: %s us one-sided, %s us no "
                "launch found, %s us outside the trees; roots %llu (%llu matched)\n",
                md ? "- " : "  ", cli_side_label(o, s), fmt_us(b[0], 64, t->total_us, ns),
                fmt_us(b[1], 64, t->matched_us, ns), pct, fmt_us(b[2], 64, t->one_sided_us, ns),
                fmt_us(b[3], 64, t->no_launch_us, ns), fmt_us(b[4], 64, t->outside_us, ns),
                (unsigned long long)t->roots, (unsigned long long)t->roots_matched);
    }
    for (size_t i = 0; td_tree_match_note(m, i); i++)
        fprintf(f, "%snote: %s\n", md ? "\n" : "", td_tree_match_note(m, i));
}

#define DIMS_W 24 /* the table's input dims column */

/* The input dims cell: the control's, "a | b" when the sides differ, "-"
 * when neither side has them; NULL when out of memory. */
static char *dims_cell(const trow *r)
{
    const char *a = r->dims[0] ? r->dims[0] : "-", *b = r->dims[1] ? r->dims[1] : "-";
    bool same = strcmp(a, b) == 0;
    size_t la = strlen(a), lb = strlen(b);
    char *c = malloc(la + lb + 4);
    if (!c)
        return NULL;
    memcpy(c, a, la + 1);
    if (!same) {
        memcpy(c + la, " | ", 3);
        memcpy(c + la + 3, b, lb + 1);
    }
    return c;
}

static void write_header_text(FILE *f, const cli_opts *o, bool md)
{
    for (int s = 0; s < 2; s++)
        fprintf(f, "%s%-8s %s\n", md ? "- " : "", cli_side_label(o, s),
                cli_visible(s ? o->test : o->control));
    fprintf(f, "%smatch    by call tree (docs/tree-match.md)%s\n\n", md ? "- " : "",
            o->tree_by_name ? ", totals per LCA name" : "");
    const char *h1 = o->tree_by_name ? "lcas" : "path";
    if (md) {
        fprintf(f,
                "| lca | %s | %s us | %s us | change |%s %s%s | %s |\n"
                "|---|---|---:|---:|---:|%s%s---|---|\n",
                h1, cli_side_label(o, 0), cli_side_label(o, 1), o->stats ? " q | verdict |" : "",
                o->tree_by_name ? "" : "input dims | ",
                o->tree_by_name ? "control count" : "control kernels",
                o->tree_by_name ? "test count" : "test kernels", o->stats ? "---:|---|" : "",
                o->tree_by_name ? "" : "---|");
        return;
    }
    cell(f, md, "lca", 40, false);
    cell(f, md, h1, o->tree_by_name ? 6 : 40, false);
    cell(f, md, cli_side_label(o, 0), 12, true);
    cell(f, md, cli_side_label(o, 1), 12, true);
    cell(f, md, "change", 8, true);
    if (o->stats) {
        cell(f, md, "q", 8, true);
        cell(f, md, "verdict", 8, false);
    }
    if (!o->tree_by_name)
        cell(f, md, "input dims", DIMS_W, false);
    cell(f, md, o->tree_by_name ? "control n" : "control kernels", 30, false);
    fputs(o->tree_by_name ? "test n\n" : "test kernels\n", f);
}

static void write_text(FILE *f, const cli_opts *o, const td_tree_match *m, trow *r, size_t n,
                       bool md)
{
    bool ns = o->ns;
    write_header_text(f, o, md);
    qsort(r, n, sizeof *r, cmp_abs);
    size_t top = o->view.top && o->view.top < n ? o->view.top : n;
    for (size_t i = 0; i < top; i++) {
        char b[4][64];
        if (md)
            fputc('|', f);
        cell(f, md, r[i].lca, 40, false);
        if (o->tree_by_name) {
            snprintf(b[3], sizeof b[3], "%llu", (unsigned long long)r[i].nlca);
            cell(f, md, b[3], 6, false);
        } else
            cell(f, md, r[i].path, 40, false);
        cell(f, md, fmt_us(b[0], 64, r[i].us[0], ns), 12, true);
        cell(f, md, fmt_us(b[1], 64, r[i].us[1], ns), 12, true);
        double c = change_pct(&r[i]);
        if (isfinite(c))
            snprintf(b[2], sizeof b[2], "%+.1f%%", c);
        else
            snprintf(b[2], sizeof b[2], "-");
        cell(f, md, b[2], 8, true);
        if (r[i].st) {
            char q[32];
            if (isnan(r[i].st->q))
                snprintf(q, sizeof q, "-");
            else
                snprintf(q, sizeof q, "%.3g", r[i].st->q);
            cell(f, md, q, 8, true);
            cell(f, md, td_verdict_name(r[i].st->verdict), 8, false);
        }
        if (!o->tree_by_name) {
            char *d = dims_cell(&r[i]);
            cell(f, md, d ? d : "-", DIMS_W, false);
            free(d);
        }
        if (o->tree_by_name) {
            char k0[32], k1[32];
            snprintf(k0, sizeof k0, "%llu", (unsigned long long)r[i].n[0]);
            snprintf(k1, sizeof k1, "%llu", (unsigned long long)r[i].n[1]);
            cell(f, md, k0, 30, false);
            if (md)
                cell(f, md, k1, 0, false);
            else
                fputs(k1, f);
        } else {
            cell(f, md, r[i].kernels[0], 30, false);
            if (md)
                cell(f, md, r[i].kernels[1], 0, false);
            else
                fputs(cli_visible(r[i].kernels[1]), f);
        }
        fputc('\n', f);
    }
    if (top < n)
        fprintf(f, "(%zu more rows)\n", n - top);
    write_summary_text(f, o, m, md);
}

int cli_tree_compare(cli_opts *o)
{
    if (o->stats && o->tree_by_name) {
        cli_error("--stats: per LCA, not per LCA name (leave --by lca-name out)");
        return EXIT_USAGE;
    }
    td_set *sets[2] = {NULL, NULL};
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.want_tree = true;
    oo.tree_python_frames = o->tree_python_frames;
    int rc = cli_open_pair(o, sets, &oo);
    td_tree_match *m = NULL;
    td_tree_stats *ts = NULL;
    trow *rows = NULL;
    if (rc == 0) {
        td_error err = {0};
        if (td_tree_match_select(&m, sets[0], sets[1], &o->cmp, 0, &err) < 0 ||
            (o->stats &&
             td_tree_match_stats(&ts, sets[0], sets[1], &o->cmp, 0, &o->sopt, &err) < 0))
            rc = cli_td_error(&err);
    }
    if (rc == 0 && ts && td_stats_too_few(td_tree_stats_stats(ts)) && !o->quiet)
        cli_note("--stats: a side has fewer than 2 (rank, iteration) samples (control %zu, test "
                 "%zu): every verdict is n/a; select more with --control-iteration all "
                 "--test-iteration all (or the rank options)",
                 td_tree_stats_units(ts, TD_CONTROL), td_tree_stats_units(ts, TD_TEST));
    size_t n = 0;
    if (rc == 0 && !(rows = make_rows(o, m, ts, &n))) {
        cli_error("out of memory");
        rc = EXIT_DATA;
    }
    if (rc == 0) {
        const char *fmt = cli_default_format(o, "table", "csv");
        bool text = strcmp(fmt, "table") == 0 || strcmp(fmt, "markdown") == 0;
        if (!o->quiet && !text)
            for (size_t i = 0; td_tree_match_note(m, i); i++)
                cli_note("%s", td_tree_match_note(m, i));
        out_file out = {0};
        rc = out_open(&out, o->output);
        if (rc == 0) {
            if (strcmp(fmt, "json") == 0)
                write_json(out.f, o, m, rows, n);
            else if (strcmp(fmt, "csv") == 0)
                write_csv(out.f, o, rows, n);
            else
                write_text(out.f, o, m, rows, n, strcmp(fmt, "markdown") == 0);
            rc = out_commit(&out);
        }
    }
    free(rows);
    td_tree_stats_free(ts);
    td_tree_match_free(m);
    td_set_free(sets[0]);
    td_set_free(sets[1]);
    return rc;
}

/* ---- explain NAME --match tree ---- */

static bool explain_takes(const td_tree_lca *l, const char *name)
{
    return strcmp(l->name, name) == 0 || strcmp(l->path, name) == 0;
}

typedef struct near_lca {
    size_t dist, i;
} near_lca;

static int cmp_near(const void *a, const void *b)
{
    const near_lca *x = a, *y = b;
    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* NAME is no LCA's name or path: the closest names, as explain's own error. */
static int explain_unknown(const td_tree_lca *l, size_t n, const char *name)
{
    near_lca *v = malloc((n + 1) * sizeof *v);
    if (!v) {
        cli_error("out of memory");
        return EXIT_DATA;
    }
    for (size_t i = 0; i < n; i++)
        v[i] =
            (near_lca){cli_edit_distance(name, strlen(name), l[i].name, strlen(l[i].name), 256), i};
    qsort(v, n, sizeof *v, cmp_near);
    char list[1024] = "";
    size_t len = 0, shown[5], ns = 0;
    for (size_t k = 0; k < n && ns < 5; k++) {
        bool seen = false;
        for (size_t q = 0; q < ns && !seen; q++)
            seen = strcmp(l[shown[q]].name, l[v[k].i].name) == 0;
        if (seen)
            continue;
        int w = snprintf(list + len, sizeof list - len, "%s%.200s", ns ? ", " : "", l[v[k].i].name);
        if (w < 0 || (size_t)w >= sizeof list - len)
            break;
        len += (size_t)w;
        shown[ns++] = v[k].i;
    }
    free(v);
    cli_error("explain --match tree: no LCA named '%s' and no such path%s%s (names and paths as "
              "'compare --match tree' shows them)",
              name, ns ? "; closest: " : "", list);
    return EXIT_DATA;
}

static void explain_text(FILE *f, const cli_opts *o, const td_tree_lca *l, size_t n,
                         const char *name, const double tot[2], size_t hits)
{
    char a[64], b[64], d[64];
    fprintf(f, "lca %s (%zu LCA%s; docs/tree-match.md)\n\n", cli_visible(name), hits,
            hits == 1 ? "" : "s");
    fprintf(f, "%-14s ", "");
    cli_put_cell(f, cli_side_label(o, 0), 14, CLI_CELL_RIGHT);
    fputc(' ', f);
    cli_put_cell(f, cli_side_label(o, 1), 14, CLI_CELL_RIGHT);
    fprintf(f, " %14s\n", "diff");
    fprintf(f, "%-14s %14s %14s %14s\n\n", "GPU time us", fmt_us(a, 64, tot[0], o->ns),
            fmt_us(b, 64, tot[1], o->ns), fmt_us(d, 64, tot[1] - tot[0], o->ns));
    for (size_t i = 0; i < n; i++) {
        if (!explain_takes(&l[i], name))
            continue;
        fprintf(f, "path  %s\n", cli_visible(l[i].path));
        if (strcmp(l[i].name, name) != 0)
            fprintf(f, "lca   %s\n", cli_visible(l[i].name));
        for (int s = 0; s < 2; s++)
            fprintf(f, "  %-8s %12s us  %llu GPU events: %s\n", cli_side_label(o, s),
                    fmt_us(a, 64, l[i].us[s], o->ns), (unsigned long long)l[i].nkernels[s],
                    l[i].kernels[s] && *l[i].kernels[s] ? cli_visible(l[i].kernels[s]) : "-");
        for (int s = 0; s < 2; s++)
            if (l[i].input_dims[s])
                fprintf(f, "  %-8s input dims %s, types %s\n", cli_side_label(o, s),
                        cli_visible(l[i].input_dims[s]),
                        l[i].input_types[s] ? cli_visible(l[i].input_types[s]) : "-");
        fputc('\n', f);
    }
}

static void explain_json(FILE *f, const td_tree_lca *l, size_t n, const char *name,
                         const double tot[2], const uint64_t cnt[2])
{
    fputs("{\"lca\": ", f);
    td_json_put_str(f, name);
    static const char *const side[2] = {"control", "test"};
    for (int s = 0; s < 2; s++) {
        fprintf(f, ", \"%s\": {\"gpu_us\": ", side[s]);
        td_json_put_num(f, tot[s]);
        fprintf(f, ", \"count\": %llu}", (unsigned long long)cnt[s]);
    }
    fputs(", \"rows\": [", f);
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (!explain_takes(&l[i], name))
            continue;
        fputs(first ? "\n  {\"lca\": " : ",\n  {\"lca\": ", f);
        first = false;
        td_json_put_str(f, l[i].name);
        fputs(", \"path\": ", f);
        td_json_put_str(f, l[i].path);
        for (int s = 0; s < 2; s++) {
            fprintf(f, ", \"%s_us\": ", side[s]);
            td_json_put_num(f, l[i].us[s]);
        }
        fprintf(f, ", \"control_count\": %llu, \"test_count\": %llu",
                (unsigned long long)l[i].nkernels[0], (unsigned long long)l[i].nkernels[1]);
        fputs(", \"control_kernels\": ", f);
        td_json_put_str(f, l[i].kernels[0]);
        fputs(", \"test_kernels\": ", f);
        td_json_put_str(f, l[i].kernels[1]);
        for (int s = 0; s < 2; s++) {
            fprintf(f, ", \"%s_input_dims\": ", side[s]);
            td_json_put_str(f, l[i].input_dims[s]);
        }
        for (int s = 0; s < 2; s++) {
            fprintf(f, ", \"%s_input_types\": ", side[s]);
            td_json_put_str(f, l[i].input_types[s]);
        }
        fputs("}", f);
    }
    fputs("]}\n", f);
}

int cli_tree_explain(cli_opts *o, const char *name)
{
    const char *fmt = cli_default_format(o, "table", "json");
    if (strcmp(fmt, "table") != 0 && strcmp(fmt, "json") != 0) {
        cli_error("--format '%s': explain --match tree writes table or json", fmt);
        return EXIT_USAGE;
    }
    td_set *sets[2] = {NULL, NULL};
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.want_tree = true;
    oo.tree_python_frames = o->tree_python_frames;
    int rc = cli_open_pair(o, sets, &oo);
    td_tree_match *m = NULL;
    if (rc == 0) {
        td_error err = {0};
        if (td_tree_match_select(&m, sets[0], sets[1], &o->cmp, 0, &err) < 0)
            rc = cli_td_error(&err);
    }
    size_t n = 0, hits = 0;
    const td_tree_lca *l = rc == 0 ? td_tree_match_lcas(m, &n) : NULL;
    double tot[2] = {0, 0};
    uint64_t cnt[2] = {0, 0};
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (explain_takes(&l[i], name)) {
            hits++;
            for (int s = 0; s < 2; s++) {
                tot[s] += l[i].us[s];
                cnt[s] += l[i].nkernels[s];
            }
        }
    if (rc == 0 && !hits)
        rc = explain_unknown(l, n, name);
    if (rc == 0) {
        out_file out = {0};
        rc = out_open(&out, o->output);
        if (rc == 0) {
            if (strcmp(fmt, "json") == 0)
                explain_json(out.f, l, n, name, tot, cnt);
            else
                explain_text(out.f, o, l, n, name, tot, hits);
            rc = out_commit(&out);
        }
    }
    td_tree_match_free(m);
    td_set_free(sets[0]);
    td_set_free(sets[1]);
    return rc;
}
