/* tracediff roofline CONTROL TEST: per (op, input dims, input types), the
 * work, achieved rate and % of the GPU's roofline on each side, diffed
 * (docs/roofline.md). */
#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct rl_run {
    cli_opts *o;
    td_set *sets[2];
    td_roofline *r;
} rl_run;

static int open_sets(rl_run *r)
{
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.want_roofline = true;
    oo.want_attribution = true;
    return cli_open_pair(r->o, r->sets, &oo);
}

static const char *bound_name(td_rl_bound b)
{
    return b == TD_RL_COMPUTE ? "compute" : b == TD_RL_MEMORY ? "memory" : NULL;
}

/* A CSV cell: "" for NAN. */
static void ccell(FILE *f, double v)
{
    if (!isnan(v) && !isinf(v))
        fprintf(f, "%.17g", v == 0 ? 0 : v);
}

/* A CSV text cell, quoted. */
static void cstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_stats(FILE *f, const td_row_stats *s, td_samples mode)
{
    fprintf(f, ",%s,%llu,%llu", td_samples_name(mode), (unsigned long long)s->n[0],
            (unsigned long long)s->n[1]);
    double v[] = {s->mean[0],   s->mean[1],   s->stdev[0],   s->stdev[1],  s->median[0],
                  s->median[1], s->diff_mean, s->change_pct, s->ci_low,    s->ci_high,
                  s->p,         s->q,         s->hl_shift,   s->shift_low, s->shift_high};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        fputc(',', f);
        ccell(f, v[k]);
    }
    fprintf(f, ",%s,", td_verdict_name(s->verdict));
    if (s->reason)
        cstr(f, s->reason);
}

static void write_csv(FILE *f, const rl_run *r)
{
    size_t n;
    if (r->o->rl_by_class) {
        const td_rl_class_row *c = td_roofline_classes(r->r, &n);
        fputs("class,control_flops,test_flops,control_time_us,test_time_us,control_tflops,"
              "test_tflops,control_efficiency_pct,test_efficiency_pct,time_change_pct,"
              "rate_change_pct,efficiency_change_pts\n",
              f);
        for (size_t i = 0; i < n; i++) {
            fputs(td_rl_class_name(c[i].cls), f);
            double v[] = {c[i].flops[0],
                          c[i].flops[1],
                          c[i].time_us[0],
                          c[i].time_us[1],
                          c[i].tflops[0],
                          c[i].tflops[1],
                          c[i].efficiency_pct[0],
                          c[i].efficiency_pct[1],
                          c[i].time_change_pct,
                          c[i].rate_change_pct,
                          c[i].efficiency_change_pts};
            for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
                fputc(',', f);
                ccell(f, v[k]);
            }
            fputc('\n', f);
        }
        return;
    }
    static const char *const cols[] = {"count",     "flops",          "bytes",     "time_us",
                                       "tflops",    "tbps",           "intensity", "peak_tflops",
                                       "peak_tbps", "efficiency_pct", "bound"};
    fputs("op,input_dims,input_types,class,precision", f);
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
            fprintf(f, ",%s_%s", s ? "test" : "control", cols[k]);
    fputs(",time_change_pct,rate_change_pct,efficiency_change_pts,reading", f);
    bool st = td_roofline_samples(r->r) != TD_SAMPLES_AUTO;
    if (st)
        fputs(",samples,control_n,test_n,control_mean,test_mean,control_stdev,test_stdev,"
              "control_median,test_median,diff_mean,change_pct,ci_low,ci_high,p_value,q_value,"
              "shift_us,shift_low,shift_high,verdict,reason",
              f);
    fputc('\n', f);
    const td_rl_row *w = td_roofline_rows(r->r, &n);
    for (size_t i = 0; i < n; i++) {
        cstr(f, w[i].op);
        fputc(',', f);
        cstr(f, w[i].input_dims);
        fputc(',', f);
        cstr(f, w[i].input_types);
        fprintf(f, ",%s,%s", td_rl_class_name(w[i].cls), td_precision_name(w[i].precision));
        for (int s = 0; s < 2; s++) {
            const td_rl_side *d = &w[i].side[s];
            fprintf(f, ",%llu", (unsigned long long)d->count);
            double v[] = {d->flops,     d->bytes,       d->time_us,   d->tflops,        d->tbps,
                          d->intensity, d->peak_tflops, d->peak_tbps, d->efficiency_pct};
            for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
                fputc(',', f);
                ccell(f, v[k]);
            }
            fprintf(f, ",%s", bound_name(d->bound) ? bound_name(d->bound) : "");
        }
        fputc(',', f);
        ccell(f, w[i].time_change_pct);
        fputc(',', f);
        ccell(f, w[i].rate_change_pct);
        fputc(',', f);
        ccell(f, w[i].efficiency_change_pts);
        fputc(',', f);
        cstr(f, w[i].reading);
        if (st)
            csv_stats(f, &w[i].stats, td_roofline_samples(r->r));
        fputc('\n', f);
    }
}

/* A number for the table: "-" for NAN. */
static const char *fmt(char *buf, size_t n, const char *f, double v)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, f, v == 0 ? 0 : v);
    return buf;
}

static void put(FILE *f, bool md, const char *s, size_t w, bool right)
{
    if (md)
        fprintf(f, " %s |", s);
    else {
        fputc(' ', f);
        cli_put_cell(f, s, w, right ? CLI_CELL_RIGHT : 0);
    }
}

static void write_rows_text(FILE *f, const rl_run *r, bool md)
{
    size_t n;
    const td_rl_row *w = td_roofline_rows(r->r, &n);
    const char *c = cli_side_label(r->o, 0), *t = cli_side_label(r->o, 1);
    char h[8][48];
    snprintf(h[0], sizeof h[0], "%s us", c);
    snprintf(h[1], sizeof h[1], "%s us", t);
    snprintf(h[2], sizeof h[2], "%s TF/s", c);
    snprintf(h[3], sizeof h[3], "%s TF/s", t);
    snprintf(h[4], sizeof h[4], "%s eff", c);
    snprintf(h[5], sizeof h[5], "%s eff", t);
    bool st = td_roofline_samples(r->r) != TD_SAMPLES_AUTO;
    if (md) {
        fprintf(f,
                "| op | input dims | calls | %s | %s | change | %s | %s | rate | %s | %s | pts "
                "| bound | reading |%s\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
                "---:|---|---|%s\n",
                h[0], h[1], h[2], h[3], h[4], h[5], st ? " q | verdict |" : "",
                st ? "---:|---|" : "");
    } else {
        fprintf(f, "op\n    %-36s %9s %12s %12s %8s %10s %10s %8s %8s %8s %6s  %-17s %-22s%s\n",
                "input dims", "calls", h[0], h[1], "time", h[2], h[3], "rate", h[4], h[5], "pts",
                "bound", "reading", st ? " q        verdict" : "");
    }
    for (size_t i = 0; i < n; i++) {
        const td_rl_row *x = &w[i];
        char b[12][64], calls[48], bound[40];
        snprintf(calls, sizeof calls, "%llu/%llu", (unsigned long long)x->side[0].count,
                 (unsigned long long)x->side[1].count);
        snprintf(bound, sizeof bound, "%s>%s",
                 bound_name(x->side[0].bound) ? bound_name(x->side[0].bound) : "-",
                 bound_name(x->side[1].bound) ? bound_name(x->side[1].bound) : "-");
        if (md)
            fputs("|", f);
        if (md) {
            fprintf(f, " %s | %s |", cli_visible(x->op), cli_visible(x->input_dims));
        } else {
            fputs(cli_visible(x->op), f);
            fputs("\n    ", f);
            cli_put_cell(f, cli_visible(x->input_dims), 36, CLI_CELL_CUT);
        }
        put(f, md, calls, 9, true);
        put(f, md, fmt(b[0], 64, "%.1f", x->side[0].time_us), 12, true);
        put(f, md, fmt(b[1], 64, "%.1f", x->side[1].time_us), 12, true);
        put(f, md, fmt(b[2], 64, "%+.1f%%", x->time_change_pct), 8, true);
        put(f, md, fmt(b[3], 64, "%.2f", x->side[0].tflops), 10, true);
        put(f, md, fmt(b[4], 64, "%.2f", x->side[1].tflops), 10, true);
        put(f, md, fmt(b[5], 64, "%+.1f%%", x->rate_change_pct), 8, true);
        put(f, md, fmt(b[6], 64, "%.1f%%", x->side[0].efficiency_pct), 8, true);
        put(f, md, fmt(b[7], 64, "%.1f%%", x->side[1].efficiency_pct), 8, true);
        put(f, md, fmt(b[8], 64, "%+.1f", x->efficiency_change_pts), 6, true);
        if (md)
            fprintf(f, " %s | %s |", bound, x->reading);
        else
            fprintf(f, "  %-17s %-22s", bound, x->reading);
        if (st) {
            put(f, md, fmt(b[9], 64, "%.2g", x->stats.q), 8, true);
            if (md)
                fprintf(f, " %s |", td_verdict_name(x->stats.verdict));
            else
                fprintf(f, " %s", td_verdict_name(x->stats.verdict));
        }
        fputc('\n', f);
    }
}

static void write_classes_text(FILE *f, const rl_run *r, bool md)
{
    size_t n;
    const td_rl_class_row *c = td_roofline_classes(r->r, &n);
    const char *cl = cli_side_label(r->o, 0), *tl = cli_side_label(r->o, 1);
    if (md)
        fprintf(f,
                "| class | %s GFLOP | %s GFLOP | %s us | %s us | time | %s TF/s | %s TF/s | "
                "rate | %s eff | %s eff | pts |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
                "---:|---:|---:|\n",
                cl, tl, cl, tl, cl, tl, cl, tl);
    else
        fprintf(f, "%-12s %12s %12s %12s %12s %8s %10s %10s %8s %8s %8s %6s\n", "class",
                "ctl GFLOP", "test GFLOP", "ctl us", "test us", "time", "ctl TF/s", "test TF/s",
                "rate", "ctl eff", "test eff", "pts");
    for (size_t i = 0; i < n; i++) {
        char b[11][64];
        if (md)
            fputs("|", f);
        put(f, md, td_rl_class_name(c[i].cls), 11, false);
        put(f, md, fmt(b[0], 64, "%.3f", c[i].flops[0] / 1e9), 12, true);
        put(f, md, fmt(b[1], 64, "%.3f", c[i].flops[1] / 1e9), 12, true);
        put(f, md, fmt(b[2], 64, "%.1f", c[i].time_us[0]), 12, true);
        put(f, md, fmt(b[3], 64, "%.1f", c[i].time_us[1]), 12, true);
        put(f, md, fmt(b[4], 64, "%+.1f%%", c[i].time_change_pct), 8, true);
        put(f, md, fmt(b[5], 64, "%.2f", c[i].tflops[0]), 10, true);
        put(f, md, fmt(b[6], 64, "%.2f", c[i].tflops[1]), 10, true);
        put(f, md, fmt(b[7], 64, "%+.1f%%", c[i].rate_change_pct), 8, true);
        put(f, md, fmt(b[8], 64, "%.1f%%", c[i].efficiency_pct[0]), 8, true);
        put(f, md, fmt(b[9], 64, "%.1f%%", c[i].efficiency_pct[1]), 8, true);
        put(f, md, fmt(b[10], 64, "%+.1f", c[i].efficiency_change_pts), 6, true);
        fputc('\n', f);
    }
}

static void write_text(FILE *f, const rl_run *r, bool md)
{
    for (int s = 0; s < 2; s++) {
        const td_gpu *g = td_roofline_gpu(r->r, s);
        const char *dev = td_roofline_device(r->r, s);
        fprintf(f, "%s%-8s %s  GPU: %s%s%s%s\n", md ? "- " : "", cli_side_label(r->o, s),
                cli_visible(td_set_path(r->sets[s])), g ? g->name : "unknown", dev ? " (" : "",
                dev ? cli_visible(dev) : "", dev ? ")" : "");
    }
    fputc('\n', f);
    if (r->o->rl_by_class)
        write_classes_text(f, r, md);
    else
        write_rows_text(f, r, md);
    fputs(md ? "\n" : "\ncoverage: the share of GPU busy time in modelled ops\n", f);
    for (int s = 0; s < 2; s++) {
        const td_rl_coverage *c = td_roofline_coverage(r->r, s);
        char b[64];
        fprintf(f, "%s%s: %s of %.1f us modelled", md ? "- " : "  ", cli_side_label(r->o, s),
                fmt(b, sizeof b, "%.1f%%", c->modelled_pct), c->busy_us);
        for (size_t i = 0; i < c->ntop; i++)
            fprintf(f, "%s%s %.1f us", i ? ", " : "; unmodelled: ", cli_visible(c->top[i].op),
                    c->top[i].time_us);
        fputc('\n', f);
    }
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; td_roofline_note(r->r, s, i); i++)
            fprintf(f, "%snote: %s: %s\n", md ? "\n" : "", cli_side_label(r->o, s),
                    td_roofline_note(r->r, s, i));
}

static int rl_write(rl_run *r)
{
    const char *f = cli_default_format(r->o, "table", "csv");
    out_file out = {0};
    int rc = out_open(&out, r->o->output);
    if (rc != 0)
        return rc;
    td_error err = {0};
    if (strcmp(f, "json") == 0) {
        if (td_roofline_write_json(out.f, r->r, r->o->rl_by_class, &err) < 0)
            return out_fail(&out, &err);
    } else if (strcmp(f, "csv") == 0)
        write_csv(out.f, r);
    else
        write_text(out.f, r, strcmp(f, "markdown") == 0);
    return out_commit(&out);
}

/* The sides opened and the roofline computed; its notes said on stderr
 * unless the output shows them (text). */
static int rl_compute(rl_run *r, bool text)
{
    cli_opts *o = r->o;
    /* A bad GPU name is a usage error: said before any trace is read. */
    const char *gpus[2] = {o->rl.control_gpu, o->rl.test_gpu};
    for (int s = 0; s < 2; s++) {
        td_gpu g;
        td_error err = {0};
        if (gpus[s] && td_gpu_resolve(&g, gpus[s], &err) < 0)
            return cli_td_error(&err);
    }
    int rc = open_sets(r);
    if (rc != 0)
        return rc;
    o->rl.control_ranks = o->cmp.control_ranks; /* shared: freed with cmp */
    o->rl.test_ranks = o->cmp.test_ranks;
    o->rl.control_iters = o->cmp.control_iters;
    o->rl.test_iters = o->cmp.test_iters;
    o->rl.stats = o->stats;
    o->rl.sopts = o->sopt;
    td_error err = {0};
    if (td_roofline_compute(&r->r, r->sets[0], r->sets[1], &o->rl, &err) < 0)
        return cli_td_error(&err);
    if (!o->quiet && !text)
        for (int s = 0; s < 2; s++)
            for (size_t i = 0; td_roofline_note(r->r, s, i); i++)
                cli_note("%s: %s", cli_side_label(o, s), td_roofline_note(r->r, s, i));
    return 0;
}

static int rl_main(rl_run *r)
{
    const char *f = cli_default_format(r->o, "table", "csv");
    int rc = rl_compute(r, strcmp(f, "table") == 0 || strcmp(f, "markdown") == 0);
    return rc ? rc : rl_write(r);
}

int cli_roofline_plot(cli_pair *p, bool svg)
{
    rl_run r = {&p->o, {NULL, NULL}, NULL};
    int rc = rl_compute(&r, false);
    if (rc == 0) {
        td_roofline_chart_opts co = TD_ROOFLINE_CHART_OPTS_INIT;
        co.control_label = cli_side_label(r.o, 0);
        co.test_label = cli_side_label(r.o, 1);
        co.top = r.o->view.top;
        co.width = r.o->chart_width;
        co.height = r.o->chart_height;
        out_file out = {0};
        td_error err = {0};
        if ((rc = out_open(&out, r.o->output)) == 0) {
            const char *path = r.o->output;
            size_t n = strlen(path);
            bool pdf = n > 4 && strcasecmp(path + n - 4, ".pdf") == 0;
            if ((svg ? td_roofline_svg(out.f, r.r, &co, &err)
                     : td_roofline_cairo(out.f, r.r, &co, pdf, path, &err)) < 0)
                rc = out_fail(&out, &err);
            else
                rc = out_commit(&out);
        }
    }
    td_roofline_free(r.r);
    td_set_free(r.sets[0]);
    td_set_free(r.sets[1]);
    return rc;
}

int cmd_roofline(cli_pair *p, const char **pos)
{
    (void)pos;
    rl_run r = {&p->o, {NULL, NULL}, NULL};
    int rc = rl_main(&r);
    td_roofline_free(r.r);
    td_set_free(r.sets[0]);
    td_set_free(r.sets[1]);
    return rc;
}
