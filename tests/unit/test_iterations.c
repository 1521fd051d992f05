/* Spec §3: step numbers (td_step_number, src/iterations.c). */
#include "harness.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void check_step(const char *file, int line, const char *name, int want_rc, int64_t want)
{
    int64_t v = -12345;
    int rc = td_step_number(name, strlen(name), &v);
    if (rc != want_rc)
        unit_fail(file, line, "\"%s\": %d, expected %d", name, rc, want_rc);
    else if (rc == 1 && v != want)
        unit_fail(file, line, "\"%s\": step %lld, expected %lld", name, (long long)v,
                  (long long)want);
}
#define STEP(name, n) check_step(__FILE__, __LINE__, (name), 1, (n))
#define NOT_STEP(name) check_step(__FILE__, __LINE__, (name), 0, 0)

TEST(test_iterations__step_number_plain)
{
    STEP("ProfilerStep#12", 12);
    STEP("ProfilerStep#0", 0);
    STEP("ProfilerStep#007", 7);
}

TEST(test_iterations__step_number_with_spaces)
{
    STEP("ProfilerStep # 7", 7);
    STEP("ProfilerStep\t#\n9", 9);
    STEP("ProfilerStep#3 (extra)", 3);
}

TEST(test_iterations__step_number_missing)
{
    NOT_STEP("ProfilerStep");
    NOT_STEP("ProfilerStep#");
    NOT_STEP("ProfilerStep#x1");
    NOT_STEP("ProfilerStep 5");
    NOT_STEP("Profiler Step#5");
    NOT_STEP("aten::mm");
    NOT_STEP("");
}

TEST(test_iterations__step_number_must_start_the_name)
{
    NOT_STEP("xProfilerStep#5");
    /* ...but the number is searched anywhere after that. */
    STEP("ProfilerStep ProfilerStep#5", 5);
}

TEST(test_iterations__step_number_int64_limits)
{
    STEP("ProfilerStep#9223372036854775807", INT64_MAX);
    /* Beyond 63 bits: not a step (docs/errors.md), never a wrapped number. */
    NOT_STEP("ProfilerStep#9223372036854775808");
    NOT_STEP("ProfilerStep#99999999999999999999");
    STEP("ProfilerStep#00000000000000000000000000042", 42);
}

TEST(test_iterations__step_number_reads_only_len_bytes)
{
    int64_t v = 0;
    CHECK_INT(td_step_number("ProfilerStep#12", 14, &v), 1);
    CHECK_INT(v, 1);
    CHECK_INT(td_step_number("ProfilerStep#12", 13, &v), 0);
}

/* Spec §3 rule 2 whatever the correlation ids look like: a counter (the
 * usual case), runs of ids apart, ids spread out, ids wider than 32 bits,
 * ids from 0. Each of 3000 launches (steps of 500) has its kernel later in
 * the file; the kernels must get their launch's step, and kernels whose id
 * has no launch (below, above, and between the ids) none. */
enum { CORR_LAUNCHES = 3000, CORR_PER_STEP = 500 };

static int64_t corr_layout(int layout, int64_t k)
{
    switch (layout) {
    case 0:
        return 1000 + k; /* a counter */
    case 1:
        return 5 + (k % 1000) + (k / 1000) * 100000; /* runs apart */
    case 2:
        return (k + 1) * 100003; /* spread out */
    case 3:
        return ((int64_t)1 << 40) + k; /* wider than 32 bits */
    default:
        return k; /* from 0 */
    }
}

static void appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp)
        abort(); /* the lines written here are short */
    if (*len + (size_t)n + 1 > *cap) {
        *cap = (*len + (size_t)n + 1) * 2;
        char *nb = realloc(*buf, *cap);
        if (!nb)
            abort();
        *buf = nb;
    }
    memcpy(*buf + *len, tmp, (size_t)n + 1);
    *len += (size_t)n;
}

/* The launches of layout's ids, and a relaunch of the first. */
static void append_launches(char **t, size_t *len, size_t *cap, int layout, int nsteps)
{
    for (int k = 0; k < CORR_LAUNCHES; k++)
        appendf(t, len, cap,
                "{\"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": %d, "
                "\"dur\": 1, \"args\": {\"correlation\": %lld}},\n",
                (k / CORR_PER_STEP) * 1000000 + 10 + k % CORR_PER_STEP,
                (long long)corr_layout(layout, k));
    /* A relaunch of id 0 in the last step: the last launch in the file wins. */
    appendf(t, len, cap,
            "{\"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": %d, "
            "\"dur\": 1, \"args\": {\"correlation\": %lld}},\n",
            (nsteps - 1) * 1000000 + 900, (long long)corr_layout(layout, 0));
}

/* Kernels after their launches, as profilers write them, or before them
 * (kernels_first): a kernel's iteration is known only once every launch of
 * the file is. */
static void check_corr_layout(int layout, bool kernels_first)
{
    size_t len = 0, cap = 0;
    char *t = NULL;
    appendf(&t, &len, &cap, "{\"traceEvents\": [");
    int nsteps = CORR_LAUNCHES / CORR_PER_STEP;
    for (int s = 0; s < nsteps; s++)
        appendf(&t, &len, &cap,
                "{\"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"ts\": %d, "
                "\"dur\": 1000000},\n",
                10 + s, s * 1000000);
    if (!kernels_first)
        append_launches(&t, &len, &cap, layout, nsteps);
    for (int k = 0; k < CORR_LAUNCHES; k++)
        appendf(&t, &len, &cap,
                "{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": %d, \"dur\": 2, "
                "\"args\": {\"stream\": 7, \"correlation\": %lld}},\n",
                k * 10, (long long)corr_layout(layout, k));
    /* Ids no launch has: beyond both ends, between (when there are gaps). */
    bool gaps = layout == 1 || layout == 2;
    int64_t first = corr_layout(layout, 0);
    int64_t none[] = {corr_layout(layout, CORR_LAUNCHES + 5),
                      first >= 3 ? first - 3 : corr_layout(layout, CORR_LAUNCHES + 100),
                      gaps ? corr_layout(layout, 999) + 5000 : corr_layout(layout, 90000),
                      INT64_MAX};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        appendf(&t, &len, &cap,
                "{\"cat\": \"kernel\", \"name\": \"orphan\", \"ts\": 5, \"dur\": 2, "
                "\"args\": {\"stream\": %d, \"correlation\": %lld}}%s\n",
                (int)(i % 2) * 7, (long long)none[i],
                i + 1 < sizeof none / sizeof *none || kernels_first ? "," : "");
    if (kernels_first) {
        append_launches(&t, &len, &cap, layout, nsteps);
        len -= 2; /* the last launch's ",\n" */
    }
    appendf(&t, &len, &cap, "]}");
    char name[32];
    snprintf(name, sizeof name, "corr_layout%d%s.json", layout, kernels_first ? "k" : "");
    const char *path = unit_write(name, t, len);
    free(t);
    td_file *f = NULL;
    td_error err = {0};
    if (td_file_load(&f, path, NULL, 0, &err) != 0) {
        unit_fail(__FILE__, __LINE__, "layout %d: %s", layout, err.msg);
        return;
    }
    CHECK_INT(f->niters, (size_t)nsteps);
    size_t first_kernel = (size_t)nsteps + (kernels_first ? 0 : CORR_LAUNCHES + 1), wrong = 0;
    for (int k = 0; k < CORR_LAUNCHES; k++) {
        size_t i = first_kernel + (size_t)k;
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        int32_t want = k == 0 ? nsteps - 1 : k / CORR_PER_STEP;
        if (e->iter != want && wrong++ < 3)
            unit_fail(__FILE__, __LINE__, "layout %d: kernel %d in iteration %d, expected %d",
                      layout, k, e->iter, want);
    }
    for (size_t o = 0; o < sizeof none / sizeof *none; o++) {
        size_t i = first_kernel + CORR_LAUNCHES + o;
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        if (e->iter != TD_ITER_NONE)
            unit_fail(__FILE__, __LINE__, "layout %d: orphan %zu in iteration %d", layout, o,
                      e->iter);
    }
    CHECK_INT(f->events_no_launch, sizeof none / sizeof *none);
    CHECK_INT(f->events_no_launch0, 2); /* the orphans on stream 0 */
    /* Every event's name is one of the file's, with no bit but its flags. */
    size_t bad = 0;
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        bad += TD_EV_NAME(e) >= td_strtab_count(f->names);
    }
    CHECK_INT(bad, 0);
    td_file_free(f);
}

TEST(test_iterations__launches_found_whatever_the_ids)
{
    for (int layout = 0; layout < 5; layout++) {
        check_corr_layout(layout, false);
        check_corr_layout(layout, true);
    }
}
