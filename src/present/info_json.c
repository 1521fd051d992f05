/* What a trace set holds, as JSON (tracediff info --format json; the
 * Python module's info()): its iterations, files, categories with their
 * counts and times, and the attribution of its GPU time. */
#include "present/out_common.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cat_ctx {
    FILE *f;
    int n;
} cat_ctx;

/* "categories": each category's counted events. */
static void print_cat(void *ud, const char *cat, uint64_t n)
{
    cat_ctx *c = ud;
    if (n == 0)
        return; /* seen only on events that are not counted (no dur, or "Trace") */
    fprintf(c->f, "%s\"", c->n++ ? ", " : "");
    td_write_json_string(c->f, cat, strlen(cat));
    fprintf(c->f, "\": %llu", (unsigned long long)n);
}

/* "category_us": each category's total duration, as compare sums them. */
static void print_cat_json_time(void *ud, const char *cat, uint64_t n, double dur)
{
    cat_ctx *c = ud;
    if (n == 0)
        return;
    char d[40] = "null";
    if (!isnan(dur))
        td_format_number(d, sizeof d, dur);
    fprintf(c->f, "%s\"", c->n++ ? ", " : "");
    td_write_json_string(c->f, cat, strlen(cat));
    fprintf(c->f, "\": %s", d);
}

static void print_list(FILE *f, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
}

/* GPU time attribution (docs/attribution.md): how much has no op, and why. */
static void attr_json(FILE *f, const td_attr_stats *a)
{
    char t[40];
    td_format_number(t, sizeof t, a->gpu_time);
    fprintf(f, ", \"attribution\": {\"gpu_events\": %llu, \"gpu_time\": %s, ",
            (unsigned long long)a->gpu_events, t);
    td_format_number(t, sizeof t, a->attributed_time);
    fprintf(f, "\"attributed\": %llu, \"attributed_time\": %s, \"unattributed\": {",
            (unsigned long long)a->attributed, t);
    for (int r = 0; r < TD_ATTR_NREASONS; r++) {
        td_format_number(t, sizeof t, a->time[r]);
        fprintf(f, "%s\"%s\": {\"count\": %llu, \"time\": %s}", r ? ", " : "",
                td_attr_reason_name(r), (unsigned long long)a->count[r], t);
    }
    fputs("}}", f);
}

int td_info_write_json(FILE *f, const td_set *s, const td_attr_stats *a, td_error *err)
{
    int64_t stack[64], *iters = stack;
    size_t ni = td_set_iterations(s, NULL, 0);
    if (ni > 64 && !(iters = malloc(ni * sizeof *iters)))
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    td_set_iterations(s, iters, ni);
    fputs("{\"path\": \"", f);
    td_write_json_string(f, td_set_path(s), strlen(td_set_path(s)));
    /* The rule of every duration below (docs/numbers.md, "Decimal
     * timestamps"): compare's, with or without --ns alike. */
    fprintf(f, "\", \"durations\": \"%s\", \"iterations\": [", td_set_ns(s) ? "ns" : "hta-rounded");
    print_list(f, iters, ni);
    fputs("], \"files\": [", f);
    for (size_t i = 0; i < td_set_nfiles(s); i++) {
        td_file_info fi;
        td_set_file_info(s, i, &fi);
        fputs(i ? ",\n  {\"path\": \"" : "\n  {\"path\": \"", f);
        td_write_json_string(f, fi.path, strlen(fi.path));
        fprintf(f,
                "\", \"rank\": %lld, \"compression\": \"%s\", \"file_bytes\": %llu, "
                "\"json_bytes\": %llu, \"events_total\": %llu, \"events_counted\": %llu, "
                "\"events_cpu\": %llu, \"events_gpu\": %llu, \"events_stream0\": %llu, "
                "\"events_no_launch\": %llu, "
                "\"events_skipped\": %llu, \"steps\": %llu, \"rounded\": %s, "
                "\"decimal_timestamps\": %s, \"device\": ",
                (long long)fi.rank, td_compression_name(fi.compression),
                (unsigned long long)fi.file_bytes, (unsigned long long)fi.json_bytes,
                (unsigned long long)fi.events_total, (unsigned long long)fi.events_counted,
                (unsigned long long)fi.events_cpu, (unsigned long long)fi.events_gpu,
                (unsigned long long)fi.events_stream0, (unsigned long long)fi.events_no_launch,
                (unsigned long long)fi.events_skipped, (unsigned long long)fi.steps,
                fi.rounded ? "true" : "false", fi.decimal_ts ? "true" : "false");
        if (fi.device_name) {
            fputc('"', f);
            td_write_json_string(f, fi.device_name, strlen(fi.device_name));
            fputc('"', f);
        } else {
            fputs("null", f);
        }
        if (fi.format) { /* another profiler's output (docs/profilers.md) */
            fputs(", \"format\": \"", f);
            td_write_json_string(f, fi.format, strlen(fi.format));
            fputs("\", \"rank_from\": \"", f);
            const char *rf = td_set_file_rank_from(s, i);
            td_write_json_string(f, rf, strlen(rf));
            fputs("\", \"processes\": [", f);
            for (size_t k = 0; k < td_set_file_processes(s, i); k++) {
                td_process_info p;
                if (td_set_file_process(s, i, k, &p) < 0)
                    break;
                fprintf(f, "%s{\"pid\": %lld, \"name\": \"", k ? ", " : "", (long long)p.pid);
                td_write_json_string(f, p.name, strlen(p.name));
                fprintf(f, "\", \"events\": %llu}", (unsigned long long)p.events);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("\n], \"categories\": {", f);
    cat_ctx cc = {f, 0};
    td_set_categories(s, print_cat, &cc);
    fputs("}, \"category_us\": {", f);
    cat_ctx ct = {f, 0};
    td_set_category_times(s, print_cat_json_time, &ct);
    fputs("}", f);
    attr_json(f, a);
    fputs("}\n", f);
    if (iters != stack)
        free(iters);
    return td_write_end(f, err);
}
