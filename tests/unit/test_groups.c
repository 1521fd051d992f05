/* A file's kept events grouped for packing (td_file_groups): groups in
 * (iteration, flags, name, attribution) order, each group's durations
 * ascending with equal ones (0 and -0 among them) in file order, totals
 * compensated over that order, and, when a duration is not a whole number,
 * every kept event in file order with its group. Checked against a plain
 * reading of the events, on traces whose groups come by the thousand, on
 * one with -0 durations, and on one with NaN durations (files rounded for
 * a decimal ts, events without ts). */
#include "harness.h"
#include "model/model.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A trace of n counted events over `names` names: whole durations (kind
 * 0), 0, -0 and 1.5 (1), or a rounded file, a quarter of its events
 * without ts (2). */
static const char *write_trace(const char *name, size_t n, unsigned names, int kind)
{
    size_t cap = 200 * n + 1024, len = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", "
                            "\"name\": \"ProfilerStep#1\", \"ts\": %s, \"dur\": 900000},\n",
                            kind == 2 ? "0.5" : "0");
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char dur[32], ts[40];
        if (kind == 0)
            snprintf(dur, sizeof dur, "%u", (unsigned)(x % 50));
        else if (kind == 1) /* -0 and 0 in the same groups, and halves */
            snprintf(dur, sizeof dur, "%s",
                     (const char *[]){"0", "-0.0", "1.5", "0.0", "-0.0"}[x % 5]);
        else
            snprintf(dur, sizeof dur, "%u.25", (unsigned)(x % 9));
        if (kind == 2 && i % 4 == 0)
            ts[0] = '\0'; /* no ts: NaN once the file is rounded */
        else
            snprintf(ts, sizeof ts, "\"ts\": %zu, ", 10 + i);
        len += (size_t)snprintf(
            t + len, cap - len,
            "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"n%u\", %s\"dur\": %s, "
            "\"args\": {\"stream\": %d}},\n",
            i % 3 ? "cpu_op" : "kernel", (unsigned)((x >> 8) % names), ts, dur, i % 3 ? -1 : 7);
    }
    len +=
        (size_t)snprintf(t + len, cap - len, "{\"ph\": \"i\", \"name\": \"end\", \"ts\": 1}]}\n");
    const char *p = unit_write(name, t, len);
    free(t);
    return p;
}

static uint64_t key_of(const td_event *e)
{
    return (uint64_t)(uint32_t)(e->iter + 1) << 32 | e->name;
}

/* a before b in the grouping's order (not for NaN). */
static int before(double a, double b)
{
    return a < b;
}

/* The key of a group's events. */
static uint64_t group_key(const td_group *x)
{
    uint32_t nm = x->name | (x->flags & TD_GROUP_GPU ? TD_EV_GPU : 0) |
                  (x->flags & TD_GROUP_STREAM0 ? TD_EV_STREAM0 : 0);
    return (uint64_t)(uint32_t)(x->iter + 1) << 32 | nm;
}

static void check_groups(const char *path, int has_nan)
{
    td_file *f = NULL;
    td_error err = {0};
    REQUIRE(td_file_load(&f, path, NULL, 0, &err) == 0);
    REQUIRE(td_file_events(f) == 0);
    td_groups g;
    REQUIRE(td_file_groups(&g, f, NULL, &err) == 0);
    /* Every event is kept (no selection): counts add up, groups in order. */
    size_t total = 0;
    for (size_t r = 0; r < g.n; r++) {
        const td_group *x = &g.g[r];
        CHECK(x->first == total);
        total += (size_t)x->count;
        if (r) /* no attribution here: one group a key */
            CHECK(group_key(&g.g[r - 1]) < group_key(x));
    }
    CHECK(total == f->nev);
    /* Each group's durations: the events of its key in file order, sorted
     * stably (equal durations keep file order, -0 beside 0 as read). */
    double *want = malloc((f->nev + 1) * sizeof *want);
    REQUIRE(want != NULL);
    size_t bad = 0, nans = 0;
    for (size_t r = 0; r < g.n; r++) {
        const td_group *x = &g.g[r];
        uint64_t key = group_key(x);
        size_t m = 0;
        for (size_t i = 0; i < f->nev; i++) {
            const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
            if (key_of(e) == key)
                want[m++] = e->dur;
        }
        CHECK(m == x->count);
        if (m != x->count)
            continue;
        for (size_t i = 1; i < m; i++) /* insertion: stable */
            for (size_t j = i;
                 j > 0 && !isnan(want[j]) && !isnan(want[j - 1]) && before(want[j], want[j - 1]);
                 j--) {
                double t = want[j];
                want[j] = want[j - 1];
                want[j - 1] = t;
            }
        double s = 0, c = 0;
        for (size_t i = 0; i < m; i++) {
            double got = g.durs[x->first + i];
            nans += isnan(got) != 0;
            if (!has_nan)
                bad += memcmp(&got, &want[i], sizeof got) != 0; /* -0 and 0 told apart */
            if (i && !isnan(got) && !isnan(g.durs[x->first + i - 1]))
                CHECK(!before(got, g.durs[x->first + i - 1]));
            double t = s + got;
            if (isnan(got))
                continue;
            double cc = fabs(s) >= fabs(got) ? (s - t) + got : (got - t) + s;
            if (isfinite(cc))
                c += cc;
            s = t;
        }
        CHECK_DBL(x->total, s + c);
    }
    CHECK_INT(bad, 0);
    CHECK(has_nan ? nans > 0 : nans == 0);
    /* Not whole numbers: every event in file order, with its group. */
    if (!g.integral) {
        CHECK(g.nseq == f->nev);
        for (size_t i = 0; i < g.nseq && i < f->nev; i++) {
            const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
            const td_group *x = &g.g[g.seq[i]];
            CHECK(memcmp(&g.seq_durs[i], &e->dur, sizeof e->dur) == 0);
            CHECK(x->name == TD_EV_NAME(e));
        }
    }
    free(want);
    td_groups_free(&g);
    td_file_free(f);
}

TEST(test_groups__thousands_of_groups_whole_durations)
{
    const char *p = write_trace("groups/many.json", 60000, 3000, 0);
    REQUIRE(p != NULL);
    check_groups(p, 0);
}

TEST(test_groups__minus_zero_beside_zero_keeps_file_order)
{
    const char *p = write_trace("groups/zeros.json", 5000, 40, 1);
    REQUIRE(p != NULL);
    check_groups(p, 0);
}

TEST(test_groups__nan_durations_of_a_rounded_file)
{
    const char *p = write_trace("groups/nan.json", 3000, 30, 2);
    REQUIRE(p != NULL);
    check_groups(p, 1);
}
