/* The roofline as JSON (tracediff roofline --format json; the Python
 * module's roofline()): its rows (or classes), each side's coverage, the
 * GPUs and the notes (docs/roofline.md). */
#include "present/out_common.h"

#include <math.h>
#include <stdio.h>

static const char *bound_name(td_rl_bound b)
{
    return b == TD_RL_COMPUTE ? "compute" : b == TD_RL_MEMORY ? "memory" : NULL;
}

static void json_side(FILE *f, const td_rl_side *s)
{
    fprintf(f, "{\"count\": %llu, \"flops\": ", (unsigned long long)s->count);
    td_json_put_num(f, s->flops);
    fputs(", \"bytes\": ", f);
    td_json_put_num(f, s->bytes);
    fputs(", \"time_us\": ", f);
    td_json_put_num(f, s->time_us);
    fputs(", \"tflops\": ", f);
    td_json_put_num(f, s->tflops);
    fputs(", \"tbps\": ", f);
    td_json_put_num(f, s->tbps);
    fputs(", \"intensity\": ", f);
    td_json_put_num(f, s->intensity);
    fputs(", \"peak_tflops\": ", f);
    td_json_put_num(f, s->peak_tflops);
    fputs(", \"peak_tbps\": ", f);
    td_json_put_num(f, s->peak_tbps);
    fputs(", \"efficiency_pct\": ", f);
    td_json_put_num(f, s->efficiency_pct);
    fputs(", \"bound\": ", f);
    td_json_put_str(f, bound_name(s->bound));
    fputs("}", f);
}

/* --stats: the row's statistics, with compare --stats's names. */
static void json_stats(FILE *f, const td_row_stats *st, td_samples mode)
{
    fputs(", \"stats\": {\"samples\": ", f);
    td_json_put_str(f, td_samples_name(mode));
    fprintf(f, ", \"control_n\": %llu, \"test_n\": %llu", (unsigned long long)st->n[0],
            (unsigned long long)st->n[1]);
    const char *k[] = {"control_mean", "test_mean", "control_stdev", "test_stdev", "control_median",
                       "test_median",  "diff_mean", "change_pct",    "ci_low",     "ci_high",
                       "p_value",      "q_value",   "shift_us",      "shift_low",  "shift_high"};
    double v[] = {st->mean[0],   st->mean[1],   st->stdev[0],   st->stdev[1],  st->median[0],
                  st->median[1], st->diff_mean, st->change_pct, st->ci_low,    st->ci_high,
                  st->p,         st->q,         st->hl_shift,   st->shift_low, st->shift_high};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        fprintf(f, ", \"%s\": ", k[i]);
        td_json_put_num(f, v[i]);
    }
    fputs(", \"verdict\": ", f);
    td_json_put_str(f, td_verdict_name(st->verdict));
    fputs(", \"reason\": ", f);
    td_json_put_str(f, st->reason);
    fputs("}", f);
}

static void json_coverage(FILE *f, const td_rl_coverage *c)
{
    fputs("{\"modelled_pct\": ", f);
    td_json_put_num(f, c->modelled_pct);
    fputs(", \"busy_us\": ", f);
    td_json_put_num(f, c->busy_us);
    fputs(", \"modelled_us\": ", f);
    td_json_put_num(f, c->modelled_us);
    fputs(", \"unmodelled_us\": ", f);
    td_json_put_num(f, c->unmodelled_us);
    fputs(", \"unmodelled\": [", f);
    for (size_t i = 0; i < c->ntop; i++) {
        fputs(i ? ", {\"op\": " : "{\"op\": ", f);
        td_json_put_str(f, c->top[i].op);
        fputs(", \"time_us\": ", f);
        td_json_put_num(f, c->top[i].time_us);
        fputs("}", f);
    }
    fputs("]}", f);
}

int td_roofline_write_json(FILE *f, const td_roofline *r, bool by_class, td_error *err)
{
    size_t n;
    if (by_class) {
        const td_rl_class_row *c = td_roofline_classes(r, &n);
        fputs("{\"classes\": [", f);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ",\n  {\"class\": " : "\n  {\"class\": ", f);
            td_json_put_str(f, td_rl_class_name(c[i].cls));
            for (int s = 0; s < 2; s++) {
                fprintf(f, ", \"%s\": {\"flops\": ", s ? "test" : "control");
                td_json_put_num(f, c[i].flops[s]);
                fputs(", \"time_us\": ", f);
                td_json_put_num(f, c[i].time_us[s]);
                fputs(", \"tflops\": ", f);
                td_json_put_num(f, c[i].tflops[s]);
                fputs(", \"efficiency_pct\": ", f);
                td_json_put_num(f, c[i].efficiency_pct[s]);
                fputs("}", f);
            }
            fputs(", \"time_change_pct\": ", f);
            td_json_put_num(f, c[i].time_change_pct);
            fputs(", \"rate_change_pct\": ", f);
            td_json_put_num(f, c[i].rate_change_pct);
            fputs(", \"efficiency_change_pts\": ", f);
            td_json_put_num(f, c[i].efficiency_change_pts);
            fputs("}", f);
        }
    } else {
        const td_rl_row *w = td_roofline_rows(r, &n);
        fputs("{\"rows\": [", f);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ",\n  {\"op\": " : "\n  {\"op\": ", f);
            td_json_put_str(f, w[i].op);
            /* dims and types: the trace's own JSON, compact (model.h) */
            fprintf(f, ", \"input_dims\": %s, \"input_types\": %s, \"class\": ",
                    w[i].input_dims[0] ? w[i].input_dims : "null",
                    w[i].input_types[0] ? w[i].input_types : "null");
            td_json_put_str(f, td_rl_class_name(w[i].cls));
            fputs(", \"control\": ", f);
            json_side(f, &w[i].side[0]);
            fputs(", \"test\": ", f);
            json_side(f, &w[i].side[1]);
            fputs(", \"time_change_pct\": ", f);
            td_json_put_num(f, w[i].time_change_pct);
            fputs(", \"rate_change_pct\": ", f);
            td_json_put_num(f, w[i].rate_change_pct);
            fputs(", \"efficiency_change_pts\": ", f);
            td_json_put_num(f, w[i].efficiency_change_pts);
            fputs(", \"reading\": ", f);
            td_json_put_str(f, w[i].reading);
            if (td_roofline_samples(r) != TD_SAMPLES_AUTO)
                json_stats(f, &w[i].stats, td_roofline_samples(r));
            fputs("}", f);
        }
    }
    fputs("],\n \"coverage\": {\"control\": ", f);
    json_coverage(f, td_roofline_coverage(r, TD_CONTROL));
    fputs(", \"test\": ", f);
    json_coverage(f, td_roofline_coverage(r, TD_TEST));
    fputs("},\n \"gpus\": {", f);
    for (int s = 0; s < 2; s++) {
        const td_gpu *g = td_roofline_gpu(r, s);
        fprintf(f, "%s\"%s\": ", s ? ", " : "", s ? "test" : "control");
        td_json_put_str(f, g ? g->name : NULL);
    }
    fputs("},\n \"notes\": {", f);
    for (int s = 0; s < 2; s++) {
        fprintf(f, "%s\"%s\": [", s ? ", " : "", s ? "test" : "control");
        for (size_t i = 0; td_roofline_note(r, s, i); i++) {
            fputs(i ? ", " : "", f);
            td_json_put_str(f, td_roofline_note(r, s, i));
        }
        fputs("]", f);
    }
    fputs("}}\n", f);
    return td_write_end(f, err);
}
