/* tracediff breakdown CONTROL TEST: where the step time went, per side and
 * rank, the diff of the sides and the waterfall (docs/breakdown.md). */
#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bd_run {
    cli_opts *o;
    td_set *sets[2];
    td_breakdown *b;
} bd_run;

static int open_sets(bd_run *r)
{
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.want_breakdown = true;
    return cli_open_pair(r->o, r->sets, &oo);
}

/* CSV and text cells: "" (csv) or "n/a" for NAN. */
static void cell(FILE *f, double v, bool csv, const char *fmt)
{
    if (isnan(v))
        fputs(csv ? "" : "n/a", f);
    else
        fprintf(f, csv ? "%.17g" : fmt, v == 0 ? 0 : v);
}

static void write_csv(FILE *f, const bd_run *r)
{
    size_t n, nb;
    fputs("section,name,control,test,diff,change_pct,p,q,verdict\n", f);
    const td_bd_row *rows = td_breakdown_rows(r->b, &n);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "diff,\"%s\",", rows[i].name);
        cell(f, rows[i].value[0], true, "");
        fputc(',', f);
        cell(f, rows[i].value[1], true, "");
        fputc(',', f);
        cell(f, rows[i].diff, true, "");
        fputc(',', f);
        cell(f, rows[i].pct, true, "");
        fputc(',', f);
        cell(f, rows[i].stats.n[0] ? rows[i].stats.p : NAN, true, "");
        fputc(',', f);
        cell(f, rows[i].stats.n[0] ? rows[i].stats.q : NAN, true, "");
        fprintf(f, ",%s\n", rows[i].stats.n[0] ? td_verdict_name(rows[i].stats.verdict) : "");
    }
    const td_bd_bar *bars = td_breakdown_waterfall(r->b, &nb);
    for (size_t i = 0; i < nb; i++) {
        fprintf(f, "waterfall,\"%s\",", bars[i].component);
        cell(f, bars[i].value[0], true, "");
        fputc(',', f);
        cell(f, bars[i].value[1], true, "");
        fputc(',', f);
        cell(f, bars[i].diff, true, "");
        fputs(",,,,\n", f);
    }
}

static void write_csv_ranks(FILE *f, const bd_run *r)
{
    fputs("side,rank,iterations,step_us,busy_us,idle_us,exposed_comm_us,slowest,straggler\n", f);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < td_breakdown_nranks(r->b, s); i++) {
            const td_bd_rank *k = td_breakdown_rank(r->b, s, i);
            fprintf(f, "%s,%lld,%zu,", s ? "test" : "control", (long long)k->rank, k->niters);
            cell(f, k->m[TD_BD_STEP], true, "");
            fputc(',', f);
            cell(f, k->has_gpu ? k->m[TD_BD_BUSY] : NAN, true, "");
            fputc(',', f);
            cell(f, k->has_gpu ? k->m[TD_BD_IDLE] : NAN, true, "");
            fputc(',', f);
            cell(f, k->has_gpu ? k->m[TD_BD_EXPOSED_COMM] : NAN, true, "");
            fprintf(f, ",%d,%d\n", k->slowest, k->straggler);
        }
}

static void side_header(FILE *f, const bd_run *r, td_side s)
{
    cli_put_cell(f, cli_side_label(r->o, s), 8, 0);
    fprintf(f, " %s  rank%s ", cli_visible(td_set_path(r->sets[s])),
            td_breakdown_nranks(r->b, s) == 1 ? "" : "s");
    for (size_t i = 0; i < td_breakdown_nranks(r->b, s); i++)
        fprintf(f, "%s%lld", i ? "," : "", (long long)td_breakdown_rank(r->b, s, i)->rank);
    fprintf(f, "  %zu (rank, iteration) sample%s\n", td_breakdown_samples(r->b, s),
            td_breakdown_samples(r->b, s) == 1 ? "" : "s");
}

/* The width of the name column: the longest name shown. */
static size_t name_width(const bd_run *r)
{
    size_t n, nb, w = 26;
    const td_bd_row *rows = td_breakdown_rows(r->b, &n);
    const td_bd_bar *bars = td_breakdown_waterfall(r->b, &nb);
    for (size_t i = 0; i < n; i++)
        w = strlen(rows[i].name) > w ? strlen(rows[i].name) : w;
    for (size_t i = 0; i < nb; i++)
        w = strlen(bars[i].component) + 2 > w ? strlen(bars[i].component) + 2 : w;
    return w;
}

static void text_row(FILE *f, bool md, size_t width, const char *name, const double v[3],
                     double pct, const char *verdict)
{
    if (md) {
        fprintf(f, "| %s | ", name);
        for (int i = 0; i < 3; i++) {
            cell(f, v[i], false, i == 2 ? "%+.1f" : "%.1f");
            fputs(" | ", f);
        }
        cell(f, pct, false, "%+.1f%%");
        fprintf(f, " | %s |\n", verdict);
        return;
    }
    char buf[4][40];
    for (int i = 0; i < 3; i++)
        snprintf(buf[i], sizeof buf[i],
                 isnan(v[i]) ? "n/a"
                 : i == 2    ? "%+.1f"
                             : "%.1f",
                 v[i] == 0 ? 0 : v[i]);
    buf[3][0] = '\0';
    if (!isnan(pct))
        snprintf(buf[3], sizeof buf[3], "%+.1f%%", pct);
    cli_put_cell(f, name, width, 0);
    fprintf(f, " %14s %14s %14s %9s  %s\n", buf[0], buf[1], buf[2], buf[3], verdict);
}

static void write_diff_text(FILE *f, const bd_run *r, bool md)
{
    size_t n, nb, w = name_width(r);
    const char *c = cli_side_label(r->o, 0), *t = cli_side_label(r->o, 1);
    if (md)
        fprintf(f,
                "| per (rank, iteration), us | %s | %s | diff | change | verdict |\n"
                "|---|---:|---:|---:|---:|---|\n",
                c, t);
    else
        fprintf(f, "\n%-*s %14s %14s %14s %9s  %s\n", (int)w, "per (rank, iteration), us", c, t,
                "diff", "change", "verdict");
    const td_bd_row *rows = td_breakdown_rows(r->b, &n);
    for (size_t i = 0; i < n; i++) {
        if (isnan(rows[i].value[0]) && isnan(rows[i].value[1]) &&
            strncmp(rows[i].name, "kernel_type:", 12) == 0)
            continue;
        double v[3] = {rows[i].value[0], rows[i].value[1], rows[i].diff};
        text_row(f, md, w, rows[i].name, v, rows[i].pct,
                 rows[i].stats.n[0] ? td_verdict_name(rows[i].stats.verdict) : "");
    }
    if (md)
        fputs("\n| waterfall | control | test | diff | change | |\n|---|---:|---:|---:|---:|---|\n",
              f);
    else
        fputs("\nwaterfall: control's step time, each component's change, test's step time\n", f);
    const td_bd_bar *bars = td_breakdown_waterfall(r->b, &nb);
    const td_bd_row *step = &rows[TD_BD_STEP];
    double sv[3] = {step->value[0], NAN, NAN};
    text_row(f, md, w, "control step time", sv, NAN, "");
    for (size_t i = 0; i < nb; i++) {
        char name[80];
        snprintf(name, sizeof name, md ? "%s" : "  %s", bars[i].component);
        double v[3] = {bars[i].value[0], bars[i].value[1], bars[i].diff};
        text_row(f, md, w, name, v,
                 bars[i].value[0] != 0 ? 100 * bars[i].diff / bars[i].value[0] : NAN, "");
    }
    double tv[3] = {step->value[0], step->value[1], step->diff};
    text_row(f, md, w, "test step time", tv, step->pct, "");
}

static void write_ranks_text(FILE *f, const bd_run *r, bool md)
{
    const char *hdr = md ? "| side | rank | iterations | step | busy | idle | exposed comm | |\n"
                           "|---|---:|---:|---:|---:|---:|---:|---|\n"
                         : "\nside      rank  iterations    step/iter    busy/iter    idle/iter"
                           "  exposed comm\n";
    fputs(hdr, f);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < td_breakdown_nranks(r->b, s); i++) {
            const td_bd_rank *k = td_breakdown_rank(r->b, s, i);
            double d = k->niters ? (double)k->niters : NAN;
            double v[4] = {k->m[TD_BD_STEP] / d, k->has_gpu ? k->m[TD_BD_BUSY] / d : NAN,
                           k->has_gpu ? k->m[TD_BD_IDLE] / d : NAN,
                           k->has_gpu ? k->m[TD_BD_EXPOSED_COMM] / d : NAN};
            const char *mark = k->slowest && k->straggler ? "slowest, straggler"
                               : k->slowest               ? "slowest"
                               : k->straggler             ? "straggler"
                                                          : "";
            fprintf(f, md ? "| %s | %lld | %zu" : "%-8s %5lld %11zu", cli_side_label(r->o, s),
                    (long long)k->rank, k->niters);
            for (int j = 0; j < 4; j++) {
                fputs(md ? " | " : "  ", f);
                if (isnan(v[j]))
                    fprintf(f, md ? "n/a" : "%11s", "n/a");
                else
                    fprintf(f, md ? "%.1f" : "%11.1f", v[j]);
            }
            fprintf(f, md ? " | %s |\n" : "  %s\n", mark);
        }
}

static void write_text(FILE *f, const bd_run *r, bool md)
{
    if (!md) {
        side_header(f, r, TD_CONTROL);
        side_header(f, r, TD_TEST);
    }
    if (r->o->per_rank)
        write_ranks_text(f, r, md);
    else
        write_diff_text(f, r, md);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; td_breakdown_note(r->b, s, i); i++)
            fprintf(f, "%snote: %s: %s\n", md ? "\n" : "", cli_side_label(r->o, s),
                    td_breakdown_note(r->b, s, i));
}

static int bd_write(bd_run *r)
{
    const char *fmt = cli_default_format(r->o, "table", "csv");
    out_file out = {0};
    int rc = out_open(&out, r->o->output);
    if (rc != 0)
        return rc;
    td_error err = {0};
    if (strcmp(fmt, "json") == 0) {
        if (td_breakdown_write_json(out.f, r->b, r->sets[0], r->sets[1], cli_side_label(r->o, 0),
                                    cli_side_label(r->o, 1), &err) < 0)
            return out_fail(&out, &err);
    } else if (strcmp(fmt, "csv") == 0 && r->o->per_rank)
        write_csv_ranks(out.f, r);
    else if (strcmp(fmt, "csv") == 0)
        write_csv(out.f, r);
    else
        write_text(out.f, r, strcmp(fmt, "markdown") == 0);
    return out_commit(&out);
}

/* Opens both sets and computes the breakdown into r->b. */
static int bd_compute(bd_run *r)
{
    int rc = open_sets(r);
    if (rc != 0)
        return rc;
    cli_opts *o = r->o;
    o->bd.control_ranks = o->cmp.control_ranks; /* shared: freed with cmp */
    o->bd.test_ranks = o->cmp.test_ranks;
    o->bd.control_iters = o->cmp.control_iters;
    o->bd.test_iters = o->cmp.test_iters;
    td_error err = {0};
    if (td_breakdown_compute(&r->b, r->sets[0], r->sets[1], &o->bd, &err) < 0)
        return cli_td_error(&err);
    if (!o->quiet)
        for (int s = 0; s < 2; s++)
            if (!td_breakdown_has_gpu(r->b, s))
                cli_note("%s (%s): no GPU events: the GPU numbers do not apply",
                         cli_side_label(o, s), td_set_path(r->sets[s]));
    return 0;
}

static void bd_free(bd_run *r)
{
    td_breakdown_free(r->b);
    td_set_free(r->sets[0]);
    td_set_free(r->sets[1]);
}

/* plot breakdown: the waterfall, or a stacked bar per rank and side. */
int cli_breakdown_plot(cli_pair *p, int fmt)
{
    bd_run r = {&p->o, {NULL, NULL}, NULL};
    int rc = bd_compute(&r);
    if (rc == 0) {
        const cli_opts *o = &p->o;
        td_bd_chart_opts co = TD_BD_CHART_OPTS_INIT;
        co.control_label = cli_side_label(o, 0);
        co.test_label = cli_side_label(o, 1);
        co.per_rank = o->per_rank;
        co.width = o->chart_width;
        co.height = o->chart_height;
        out_file out = {0};
        td_error err = {0};
        if ((rc = out_open(&out, o->output)) == 0)
            rc = td_breakdown_chart(out.f, r.b, &co, fmt, o->output, &err) < 0
                     ? out_fail(&out, &err)
                     : out_commit(&out);
    }
    bd_free(&r);
    return rc;
}

int cmd_breakdown(cli_pair *p, const char **pos)
{
    (void)pos;
    bd_run r = {&p->o, {NULL, NULL}, NULL};
    int rc = bd_compute(&r);
    if (rc == 0)
        rc = bd_write(&r);
    bd_free(&r);
    return rc;
}
