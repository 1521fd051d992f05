/* The public API's manners: the size check of every options struct
 * (tracediff.h, "Options structs"; docs/api.md) and writers that report a
 * failed write through td_error. */
#include "harness.h"
#include "unit_traces.h"

#include <stdlib.h>

static const char trace[] = "{\"traceEvents\": ["
                            "{\"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 2},"
                            "{\"cat\": \"cpu_op\", \"name\": \"b\", \"ts\": 4, \"dur\": 3},"
                            "{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5, \"dur\": 1}"
                            "]}";

static td_set *api_set(void)
{
    return unit_open(unit_write_str("api/one.json", trace));
}

/* The message of a refused size names the struct and what to do. */
static void check_refused(int rc, const td_error *err, const char *want)
{
    CHECK_INT(rc, TD_EUSAGE);
    CHECK_INT(err->code, TD_EUSAGE);
    if (!strstr(err->msg, want))
        unit_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", err->msg, want);
}

TEST(test_api__zero_size_is_refused_with_the_initialiser_named)
{
    td_set *s = api_set();
    REQUIRE(s);
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.size = 0;
    td_diff *d = (td_diff *)&co; /* must come back NULL */
    td_error err = {0};
    check_refused(td_diff_compute(&d, s, s, &co, &err), &err,
                  "td_compare_opts.size is 0: the struct was not initialised (use "
                  "TD_COMPARE_OPTS_INIT)");
    CHECK(d == NULL);
    td_set_free(s);
}

TEST(test_api__larger_or_odd_sizes_are_refused)
{
    td_set *s = api_set();
    REQUIRE(s);
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    td_diff *d = NULL;
    td_error err = {0};
    co.size = sizeof co + sizeof(size_t); /* a newer header's struct */
    check_refused(td_diff_compute(&d, s, s, &co, &err), &err,
                  "larger than this library's td_compare_opts");
    CHECK(strstr(err.msg, "built against a newer tracediff.h") != NULL);
    co.size = (size_t)1 << 40; /* garbage */
    check_refused(td_diff_compute(&d, s, s, &co, &err), &err, "larger than");
    co.size = sizeof co - 1; /* no version of the struct has that size */
    check_refused(td_diff_compute(&d, s, s, &co, &err), &err,
                  "the size of no version of td_compare_opts");
    co.size = sizeof(size_t); /* the size field alone */
    check_refused(td_diff_compute(&d, s, s, &co, &err), &err, "the size of no version");
    CHECK(d == NULL);
    td_set_free(s);
}

TEST(test_api__an_older_size_takes_defaults_for_the_missing_tail)
{
    td_set *s = api_set();
    REQUIRE(s);
    td_error err = {0};
    td_diff *all = NULL, *none = NULL, *old = NULL;
    REQUIRE(td_diff_compute(&all, s, s, NULL, &err) == 0);
    /* With the whole struct, a category filter keeps the kernel alone... */
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.categories = "kernel";
    REQUIRE(td_diff_compute(&none, s, s, &co, &err) == 0);
    CHECK_INT(td_diff_nrows(none), 1);
    /* ...is not read from a struct that ends before it (a program built
     * when td_compare_opts ended there): its default, no filter, applies. */
    co.size = offsetof(td_compare_opts, categories);
    co.exclude_categories = true;
    REQUIRE(td_diff_compute(&old, s, s, &co, &err) == 0);
    CHECK_INT(td_diff_nrows(old), td_diff_nrows(all));
    CHECK_INT(td_diff_nrows(old), 3);
    /* The fields inside the older size are still read. */
    co.short_names = true;
    td_diff_free(old);
    REQUIRE(td_diff_compute(&old, s, s, &co, &err) == 0);
    CHECK(td_diff_short_names(old));
    td_diff_free(all);
    td_diff_free(none);
    td_diff_free(old);
    td_set_free(s);
}

/* Every entry point that takes an options struct checks it. */
TEST(test_api__every_entry_point_checks_the_size)
{
    td_set *s = api_set();
    REQUIRE(s);
    td_error err = {0};
    td_diff *d = NULL;
    REQUIRE(td_diff_compute(&d, s, s, NULL, &err) == 0);

    char sum[512], svg[512]; /* never written: the check comes first */
    snprintf(sum, sizeof sum, "%s/api_never.tdsum", unit_tmpdir());
    snprintf(svg, sizeof svg, "%s/api_never.svg", unit_tmpdir());
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.size = 0;
    td_set *s2 = NULL;
    check_refused(td_set_open(&s2, td_set_path(s), &oo, &err), &err, "td_open_opts.size is 0");
    CHECK(s2 == NULL);

    td_summary_opts so = TD_SUMMARY_OPTS_INIT;
    so.size = 3;
    check_refused(td_summary_write(sum, s, &so, &err), &err, "td_summary_opts.size is 3");

    td_trend_opts to = TD_TREND_OPTS_INIT;
    to.size = 0;
    td_trend *t = NULL;
    check_refused(td_trend_compute(&t, sum, &to, &err), &err, "TD_TREND_OPTS_INIT");

    td_stats_opts sto = TD_STATS_OPTS_INIT;
    sto.size = 0;
    td_stats *st = NULL;
    check_refused(td_stats_compute(&st, d, s, s, NULL, &sto, &err), &err,
                  "td_stats_opts.size is 0");

    td_view_opts vo = TD_VIEW_OPTS_INIT;
    vo.size = 0;
    size_t *rows = NULL;
    check_refused((int)td_view_make(&rows, d, &vo, &err), &err, "td_view_opts.size is 0");

    td_write_opts wo = TD_WRITE_OPTS_INIT;
    wo.size = 0;
    FILE *f = fopen("/dev/null", "w");
    REQUIRE(f);
    check_refused(td_write_csv(f, d, &wo, &err), &err, "td_write_opts.size is 0");
    check_refused(td_write_json(f, d, &wo, &err), &err, "td_write_opts.size is 0");
    check_refused(td_write_markdown(f, d, &wo, &err), &err, "td_write_opts.size is 0");
    check_refused(td_write_table(f, d, &wo, &err), &err, "td_write_opts.size is 0");

    td_chart_opts cho = TD_CHART_OPTS_INIT;
    cho.size = 0;
    check_refused(td_chart_svg_opts(f, TD_CHART_COUNTS, d, NULL, 0, &cho, &err), &err,
                  "td_chart_opts.size is 0");
    check_refused(td_chart_write_opts(svg, TD_CHART_COUNTS, d, NULL, 0, &cho, &err), &err,
                  "td_chart_opts.size is 0");

    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    td_report_input ri = TD_REPORT_INPUT_INIT;
    ri.control = ri.test = s;
    ri.opts = &co;
    ri.diff = d;
    ri.size = 0;
    check_refused(td_report_write_html(f, &ri, &err), &err, "td_report_input.size is 0");
    ri.size = sizeof ri;
    co.size = 0;
    check_refused(td_report_write_html(f, &ri, &err), &err, "td_compare_opts.size is 0");
    co.size = sizeof co;
    vo.size = 0;
    ri.chart_view[1] = &vo;
    check_refused(td_report_write_html(f, &ri, &err), &err, "td_view_opts.size is 0");
    fclose(f);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_api__writers_report_a_full_disk)
{
    td_set *s = api_set();
    REQUIRE(s);
    td_error err = {0};
    td_diff *d = NULL;
    REQUIRE(td_diff_compute(&d, s, s, NULL, &err) == 0);
    FILE *f = fopen("/dev/full", "w");
    REQUIRE(f);
    int (*const writers[])(FILE *, const td_diff *, const td_write_opts *, td_error *) = {
        td_write_csv, td_write_json, td_write_markdown, td_write_table};
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        memset(&err, 0, sizeof err);
        CHECK_INT(writers[i](f, d, NULL, &err), TD_EIO);
        CHECK_STR(err.msg, "cannot write: No space left on device");
        CHECK_STR(err.path, "");
        clearerr(f);
    }
    memset(&err, 0, sizeof err);
    CHECK_INT(td_write_ops_json(f, d, &err), TD_EIO);
    CHECK_STR(err.msg, "cannot write: No space left on device");
    fclose(f);
    /* A writer that succeeds leaves err alone and returns 0. */
    f = fopen("/dev/null", "w");
    REQUIRE(f);
    memset(&err, 0, sizeof err);
    CHECK_INT(td_write_csv(f, d, NULL, &err), 0);
    CHECK_INT(err.code, 0);
    fclose(f);
    td_diff_free(d);
    td_set_free(s);
}

/* The library names its own version: the header's string, which spells the
 * header's numbers. */
TEST(test_api__the_library_version_is_the_headers)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", TD_VERSION_MAJOR, TD_VERSION_MINOR, TD_VERSION_PATCH);
    CHECK_STR(TD_VERSION, want);
    CHECK_STR(td_version(), want);
}
