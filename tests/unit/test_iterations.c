/* Spec §3: step numbers (td_step_number, src/iterations.c). */
#include "harness.h"
#include "util/bigmem.h"
#include "model/load.h"

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

/* td_assign_iterations over several threads (a file cut into pieces): each
 * takes a run of whole blocks, and the result must be the one thread's,
 * whatever the ids look like (paged, hashed, wider than 32 bits), with
 * decimal times rounded, steps anywhere in the file, and an id launched in
 * the first part and again in the last: the last launch wins. */
enum { FIX_EVENTS = 3 * TD_BLOCK + 1234, FIX_STEPS = 6, FIX_KERNEL = 5 };
#define FIX_MIDDLE ((size_t)FIX_EVENTS / 2 + 11)
#define FIX_RELAUNCH ((size_t)FIX_EVENTS - 3)

typedef struct fixture {
    td_raw_event **blocks;
    td_wide_corr *wide;
    size_t nwide;
} fixture;

static uint64_t fix_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The correlation id of launch k in layout: a counter, spread out, wide. */
static int64_t fix_corr(int layout, uint64_t k)
{
    return layout == 0   ? 5000 + (int64_t)k
           : layout == 1 ? (int64_t)(k + 1) * 700001 % 2000000011
                         : ((int64_t)1 << 40) + (int64_t)k * 3;
}

static void fix_set_corr(fixture *x, td_raw_event *e, size_t i, int64_t corr)
{
    if (corr >= INT32_MIN + 1 && corr <= INT32_MAX) {
        e->corr = (int32_t)corr;
        return;
    }
    e->corr = TD_CORR_WIDE;
    x->wide[x->nwide].index = i;
    x->wide[x->nwide++].corr = corr;
}

/* FIX_EVENTS raw events: steps, host ops, launches and kernels. */
static td_file *fix_file(fixture *x, int layout, int round_ts)
{
    td_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup("fixture")) || !(f->names = td_strtab_new()) ||
        !(f->cats = td_strtab_new()))
        abort();
    char nm[32];
    for (int s = 0; s < FIX_STEPS; s++) {
        snprintf(nm, sizeof nm, "ProfilerStep#%d", 40 + s);
        td_strtab_intern(f->names, nm, strlen(nm)); /* ids 0 .. FIX_STEPS - 1 */
    }
    uint32_t op = (uint32_t)td_strtab_intern(f->names, "aten::mm", 8);
    uint32_t launch = (uint32_t)td_strtab_intern(f->names, "cudaLaunchKernel", 16);
    uint32_t kernel = (uint32_t)td_strtab_intern(f->names, "gemm", 4);
    size_t nb = (FIX_EVENTS + TD_BLOCK - 1) / TD_BLOCK;
    x->blocks = calloc(nb, sizeof *x->blocks);
    x->wide = calloc(FIX_EVENTS, sizeof *x->wide);
    x->nwide = 0;
    if (!x->blocks || !x->wide)
        abort();
    for (size_t b = 0; b < nb; b++)
        if (!(x->blocks[b] = td_big_alloc(TD_BLOCK * sizeof(td_raw_event))))
            abort();
    uint64_t seed = 12345 + (uint64_t)layout, launches = 0;
    for (size_t i = 0; i < FIX_EVENTS; i++) {
        td_raw_event *e = &x->blocks[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        memset(e, 0, sizeof *e);
        double frac = round_ts ? (double)(fix_rand(&seed) % 1000) / 1000 : 0;
        e->u.ts = (double)(fix_rand(&seed) % (FIX_STEPS * 1000 + 500)) + frac;
        e->dur = (double)(fix_rand(&seed) % 50) + frac;
        e->flags = TD_RAW_HAS_TS;
        uint64_t kind = fix_rand(&seed) % 16;
        if (i == FIX_KERNEL || i == FIX_MIDDLE || i == FIX_RELAUNCH) {
            /* A kernel of the file's second launch, early; that id launched
             * again in the middle of the file and at its end, in the last
             * step: the kernel belongs there. */
            e->name = i == FIX_KERNEL ? kernel : launch;
            e->flags |= i == FIX_KERNEL ? TD_RAW_GPU : TD_RAW_HOST | TD_RAW_CORR_HOST;
            if (i != FIX_KERNEL)
                e->u.ts = (i == FIX_RELAUNCH ? FIX_STEPS - 1 : 2) * 1000 + 10;
            fix_set_corr(x, e, i, fix_corr(layout, 1));
        } else if (i % (FIX_EVENTS / FIX_STEPS) == 7) { /* a step, in no order */
            size_t s = (i / (FIX_EVENTS / FIX_STEPS) * 5) % FIX_STEPS;
            e->name = (uint32_t)s;
            e->u.ts = (double)s * 1000 + frac;
            e->dur = 1000;
            e->flags |= TD_RAW_HOST;
        } else if (kind < 5) {
            e->name = op;
            e->flags |= TD_RAW_HOST;
            if (kind == 0 && round_ts)
                e->flags = TD_RAW_HOST; /* no ts: NaN once rounded */
        } else if (kind < 10 || i == 0) {
            e->name = launch;
            e->flags |= TD_RAW_HOST | TD_RAW_CORR_HOST | (i == 0 ? TD_RAW_INDEX0 : 0);
            fix_set_corr(x, e, i, fix_corr(layout, launches++));
        } else {
            e->name = kernel;
            e->flags |= TD_RAW_GPU | (kind == 15 ? TD_RAW_STREAM0 : 0);
            /* Mostly a launch made before, sometimes one made later or none. */
            uint64_t k = launches ? fix_rand(&seed) % (launches + launches / 8 + 50) : 0;
            fix_set_corr(x, e, i, fix_corr(layout, k));
        }
    }
    return f;
}

static td_file *fix_assign(int layout, int round_ts, int threads)
{
    fixture x;
    td_file *f = fix_file(&x, layout, round_ts);
    td_error err = {0};
    int rc = td_assign_iterations(f, x.blocks, FIX_EVENTS, x.wide, x.nwide, round_ts, threads, NULL,
                                  &err);
    if (rc != 0)
        unit_fail(__FILE__, __LINE__, "layout %d, %d threads: %s", layout, threads, err.msg);
    free(x.blocks);
    free(x.wide);
    return f;
}

static const td_event *fix_event(const td_file *f, size_t i)
{
    return &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
}

TEST(test_iterations__same_on_any_number_of_threads)
{
    for (int layout = 0; layout < 3; layout++) {
        for (int round_ts = 0; round_ts < 2; round_ts++) {
            td_file *one = fix_assign(layout, round_ts, 1);
            CHECK_INT(one->niters, FIX_STEPS);
            CHECK(one->events_no_launch > 0);
            CHECK_INT(fix_event(one, FIX_KERNEL)->iter, FIX_STEPS - 1);
            for (int threads = 2; threads <= 5; threads++) {
                td_file *many = fix_assign(layout, round_ts, threads);
                REQUIRE(many->nev == one->nev);
                CHECK_INT(many->niters, one->niters);
                CHECK(memcmp(many->iters, one->iters, one->niters * sizeof *one->iters) == 0);
                CHECK_INT(many->steps, one->steps);
                CHECK_INT(many->events_cpu, one->events_cpu);
                CHECK_INT(many->events_gpu, one->events_gpu);
                CHECK_INT(many->events_stream0, one->events_stream0);
                CHECK_INT(many->events_no_launch, one->events_no_launch);
                CHECK_INT(many->events_no_launch0, one->events_no_launch0);
                size_t differ = 0;
                for (size_t i = 0; i < one->nev; i++)
                    differ += memcmp(fix_event(one, i), fix_event(many, i), sizeof(td_event)) != 0;
                if (differ)
                    unit_fail(__FILE__, __LINE__,
                              "layout %d, round %d, %d threads: %zu events differ", layout,
                              round_ts, threads, differ);
                td_file_free(many);
            }
            td_file_free(one);
        }
    }
}
