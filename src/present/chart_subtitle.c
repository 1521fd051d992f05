/* What a chart compares, in one line under its title: both sides with their
 * ranks and iterations, the device, and how the rows are keyed and scaled. */
#include "util/util.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct sbuf {
    char *p;
    size_t cap, len;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    if (b->len + 1 >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len = b->len + (size_t)n < b->cap ? b->len + (size_t)n : b->cap - 1;
}

static void put_list(sbuf *b, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(b, "%s%lld", i ? "," : "", (long long)v[i]);
}

/* "control (rank 0, iterations 5–10)" */
static void side_text(sbuf *b, const td_diff *d, int side, const char *label)
{
    const td_side_notes *n = td_diff_notes(d, side);
    put(b, "%s (rank%s ", label, n->nranks == 1 ? "" : "s");
    put_list(b, n->ranks, n->nranks);
    if (n->whole_trace)
        put(b, ", whole trace)");
    else if (n->niters > 2 && n->iters[n->niters - 1] - n->iters[0] == (int64_t)n->niters - 1)
        put(b, ", iterations %lld\xE2\x80\x93%lld)", (long long)n->iters[0],
            (long long)n->iters[n->niters - 1]);
    else {
        put(b, ", iteration%s ", n->niters == 1 ? "" : "s");
        put_list(b, n->iters, n->niters);
        put(b, ")");
    }
}

size_t td_chart_subtitle(char *buf, size_t cap, const td_diff *diff, const td_compare_opts *opts,
                         const char *control_label, const char *test_label)
{
    sbuf b = {buf, cap, 0};
    if (!cap)
        return 0;
    buf[0] = '\0';
    /* The caller's struct may be an older, shorter one (its size says):
     * read through a full copy. A size that is not valid writes nothing. */
    td_compare_opts own;
    if (TD_OPTS_TAKE(&own, opts, td_compare_opts, TD_COMPARE_OPTS_INIT, NULL) < 0)
        return 0;
    opts = &own;
    side_text(&b, diff, 0, control_label ? control_label : "control");
    put(&b, " vs ");
    side_text(&b, diff, 1, test_label ? test_label : "test");
    td_device dev = opts->by != TD_BY_KERNEL ? TD_DEVICE_GPU : opts->device;
    put(&b, " \xC2\xB7 %s",
        dev == TD_DEVICE_CPU   ? "cpu"
        : dev == TD_DEVICE_GPU ? "gpu"
                               : "cpu and gpu");
    if (opts->by != TD_BY_KERNEL)
        put(&b, ", by %s", td_diff_key_name(diff));
    if (opts->short_names)
        put(&b, ", short names");
    if (opts->normalize_names)
        put(&b, ", normalized names");
    if (opts->per_iteration)
        put(&b, ", per (rank, iteration)");
    return b.len;
}
