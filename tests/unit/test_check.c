/* The CI gate (td_check_*): which rows are regressions, in which order, and
 * what the reports say. */
#include "harness.h"
#include "unit_traces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 20 calls a name in one step: the names of a side with their base
 * durations (each call adds i % 3, so the sides' samples never tie). */
static char *trace_of(const char *const *names, const int *base, size_t n)
{
    size_t cap = 64 + n * 20 * 120, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"user_annotation\","
                            "\"name\":\"ProfilerStep#1\",\"ts\":0,\"dur\":1000000}");
    for (size_t k = 0; k < n; k++)
        for (int i = 0; i < 20; i++)
            len +=
                (size_t)snprintf(t + len, cap - len,
                                 ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\","
                                 "\"ts\":%d,\"dur\":%d}",
                                 names[k], (int)(k * 20000 + (size_t)i * 500 + 1), base[k] + i % 3);
    snprintf(t + len, cap - len, "]}");
    return t;
}

static const char *row_name(const td_diff *d, size_t r)
{
    return td_diff_rows(d)[r].name;
}

TEST(test_check__regressions_by_q_then_change)
{
    static const char *const names[] = {"a", "b", "c", "d"};
    static const int ctl[] = {100, 200, 100, 10}, tst[] = {200, 100, 103, 15};
    char *c = trace_of(names, ctl, 4), *t = trace_of(names, tst, 4);
    td_set *sets[2] = {unit_open(unit_write_str("check/control.json", c)),
                       unit_open(unit_write_str("check/test.json", t))};
    free(c);
    free(t);
    REQUIRE(sets[0] && sets[1]);
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    td_stats_opts so = TD_STATS_OPTS_INIT;
    so.samples = TD_SAMPLES_CALL;
    td_diff *d = NULL;
    td_stats *st = NULL;
    td_check *ck = NULL;
    td_error err = {0};
    REQUIRE(td_diff_compute(&d, sets[0], sets[1], &co, &err) == 0);
    REQUIRE(td_stats_compute(&st, d, sets[0], sets[1], &co, &so, &err) == 0);
    /* Default 5%: a (+99%) and d (+45%) fail, equal q, larger change
     * first; c (+3%) is slower but under the bar; b is faster; the
     * ProfilerStep row is unchanged. */
    REQUIRE(td_check_compute(&ck, d, st, NULL, &err) == 0);
    const size_t *regs, *names_cmp;
    CHECK_INT(td_check_regressions(ck, &regs), 2);
    CHECK_STR(row_name(d, regs[0]), "a");
    CHECK_STR(row_name(d, regs[1]), "d");
    CHECK_INT(td_check_compared(ck, &names_cmp), 5);
    CHECK_STR(row_name(d, names_cmp[0]), "ProfilerStep#1");
    CHECK_INT(td_check_nfaster(ck), 1);
    CHECK(!td_check_passed(ck));
    CHECK_DBL(td_check_max_regression(ck), 5);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    CHECK_INT(td_check_write(f, ck, TD_CHECK_JUNIT, &err), 0);
    fclose(f);
    CHECK(strstr(buf, "<testsuites tests=\"5\" failures=\"2\">") != NULL);
    CHECK(strstr(buf, "name=\"a\">\n    <failure message=\"slower by 99.") != NULL);
    free(buf);
    td_check_free(ck);
    /* 1%: c fails too, last; min_us 250 leaves d out (control total ~220 us). */
    td_check_opts o = TD_CHECK_OPTS_INIT;
    o.max_regression = 1;
    o.has_max_regression = true;
    o.min_us = 250;
    REQUIRE(td_check_compute(&ck, d, st, &o, &err) == 0);
    CHECK_INT(td_check_regressions(ck, &regs), 2);
    CHECK_STR(row_name(d, regs[0]), "a");
    CHECK_STR(row_name(d, regs[1]), "c");
    CHECK_INT(td_check_compared(ck, NULL), 4);
    td_check_free(ck);
    o.min_us = -1;
    CHECK_INT(td_check_compute(&ck, d, st, &o, &err), TD_EUSAGE);
    CHECK(ck == NULL);
    CHECK_INT(td_check_compute(&ck, d, NULL, NULL, &err), TD_EUSAGE);
    td_stats_free(st);
    td_diff_free(d);
    td_set_free(sets[0]);
    td_set_free(sets[1]);
}
