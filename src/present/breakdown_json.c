/* The breakdown as JSON (tracediff breakdown --format json; the Python
 * module's breakdown()): per side its ranks and notes, the diff of the
 * sides' means and the waterfall (docs/breakdown.md). */
#include "present/out_common.h"

#include <math.h>
#include <stdio.h>

static void json_rank(FILE *f, const td_bd_rank *k)
{
    static const td_bd_metric keys[] = {TD_BD_KERNEL_TIME, TD_BD_BUSY,        TD_BD_IDLE,
                                        TD_BD_COMPUTE,     TD_BD_NON_COMPUTE, TD_BD_EXPOSED_COMM};
    fprintf(f, "{\"rank\": %lld, \"iterations\": %zu, \"step_us\": ", (long long)k->rank,
            k->niters);
    td_json_put_num(f, k->m[TD_BD_STEP]);
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        fprintf(f, ", \"%s\": ", td_bd_metric_name(keys[i]));
        td_json_put_num(f, k->has_gpu ? k->m[keys[i]] : NAN);
    }
    fputs(", \"comm_comp_overlap_pct\": ", f);
    td_json_put_num(f, k->has_comm ? round(10000 * k->m[TD_BD_COMM_COMP] / k->m[TD_BD_COMM]) / 100
                                   : NAN);
    fputs(", \"kernel_types\": {", f);
    for (unsigned b = 1, first = 1; b < TD_BD_NLABELS; b++) {
        if (k->labels[b] == 0)
            continue;
        fprintf(f, "%s", first ? "" : ", ");
        td_json_put_str(f, td_bd_label_name(b));
        fputs(": ", f);
        td_json_put_num(f, k->labels[b]);
        first = 0;
    }
    fputs("}, \"idle_by_stream\": [", f);
    for (size_t i = 0; i < k->nstreams; i++) {
        const td_bd_stream *s = &k->streams[i];
        fprintf(f, "%s{\"stream\": %lld, \"host_wait_us\": ", i ? ", " : "", (long long)s->stream);
        td_json_put_num(f, s->host_wait);
        fputs(", \"kernel_wait_us\": ", f);
        td_json_put_num(f, s->kernel_wait);
        fputs(", \"other_us\": ", f);
        td_json_put_num(f, s->other);
        fputs("}", f);
    }
    fputs("], \"sync_wait_us\": ", f);
    td_json_put_num(f, k->m[TD_BD_SYNC_WAIT]);
    fprintf(f, ", \"slowest\": %s, \"straggler\": %s", k->slowest ? "true" : "false",
            k->straggler ? "true" : "false");
    fputs(", \"notes\": [", f);
    int nn = 0;
    if (!k->has_gpu)
        fprintf(f, "%s\"no GPU events\"", nn++ ? ", " : "");
    else if (!k->has_comm)
        fprintf(f, "%s\"no COMMUNICATION events: no overlap\"", nn++ ? ", " : "");
    if (k->has_gpu && k->m[TD_BD_NON_COMPUTE] < 0)
        fprintf(f,
                "%s\"negative non_compute: sub-us events got negative durations from "
                "rounding\"",
                nn++ ? ", " : "");
    fputs("]}", f);
}

static void json_side(FILE *f, const td_breakdown *b, const td_set *set, const char *label,
                      td_side s)
{
    fputs("{\"label\": ", f);
    td_json_put_str(f, label);
    fputs(", \"path\": ", f);
    td_json_put_str(f, td_set_path(set));
    fprintf(f, ", \"samples\": %zu, \"ranks\": [", td_breakdown_samples(b, s));
    for (size_t i = 0; i < td_breakdown_nranks(b, s); i++) {
        fputs(i ? ", " : "", f);
        json_rank(f, td_breakdown_rank(b, s, i));
    }
    fputs("], \"notes\": [", f);
    for (size_t i = 0; td_breakdown_note(b, s, i); i++) {
        fputs(i ? ", " : "", f);
        td_json_put_str(f, td_breakdown_note(b, s, i));
    }
    fputs("]}", f);
}

static void json_row(FILE *f, const td_bd_row *row)
{
    fputs("{\"control\": ", f);
    td_json_put_num(f, row->value[0]);
    fputs(", \"test\": ", f);
    td_json_put_num(f, row->value[1]);
    fputs(", \"diff\": ", f);
    td_json_put_num(f, row->diff);
    fputs(", \"pct\": ", f);
    td_json_put_num(f, row->pct);
    if (row->stats.n[0]) {
        fprintf(f, ", \"n_control\": %llu, \"n_test\": %llu, \"p\": ",
                (unsigned long long)row->stats.n[0], (unsigned long long)row->stats.n[1]);
        td_json_put_num(f, row->stats.p);
        fputs(", \"q\": ", f);
        td_json_put_num(f, row->stats.q);
        fprintf(f, ", \"verdict\": \"%s\"", td_verdict_name(row->stats.verdict));
    }
    fputs("}", f);
}

int td_breakdown_write_json(FILE *f, const td_breakdown *b, const td_set *control,
                            const td_set *test, const char *control_label, const char *test_label,
                            td_error *err)
{
    fputs("{\"control\": ", f);
    json_side(f, b, control, control_label ? control_label : "control", TD_CONTROL);
    fputs(",\n \"test\": ", f);
    json_side(f, b, test, test_label ? test_label : "test", TD_TEST);
    fputs(",\n \"diff\": {", f);
    size_t n, nb;
    const td_bd_row *rows = td_breakdown_rows(b, &n);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        td_json_put_str(f, rows[i].name);
        fputs(": ", f);
        json_row(f, &rows[i]);
    }
    fputs("},\n \"waterfall\": [", f);
    const td_bd_bar *bars = td_breakdown_waterfall(b, &nb);
    for (size_t i = 0; i < nb; i++) {
        fputs(i ? ",\n  {\"component\": " : "\n  {\"component\": ", f);
        td_json_put_str(f, bars[i].component);
        fputs(", \"control_us\": ", f);
        td_json_put_num(f, bars[i].value[0]);
        fputs(", \"test_us\": ", f);
        td_json_put_num(f, bars[i].value[1]);
        fputs(", \"diff_us\": ", f);
        td_json_put_num(f, bars[i].diff);
        fputs("}", f);
    }
    fputs("]}\n", f);
    return td_write_end(f, err);
}
