/* Writers: numbers and names as they are written (src/out_text.c). */
#include "unit_traces.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

static void check_fmt(const char *file, int line, double x, const char *want)
{
    char buf[64];
    td_format_number(buf, sizeof buf, x);
    if (strcmp(buf, want) != 0)
        unit_fail(file, line, "%.17g written as \"%s\", expected \"%s\"", x, buf, want);
}
#define FMT(x, want) check_fmt(__FILE__, __LINE__, (x), (want))

TEST(test_output__numbers_shortest_round_trip)
{
    FMT(0, "0");
    FMT(-0.0, "0");
    FMT(3, "3");
    FMT(-12, "-12");
    FMT(0.1, "0.1");
    FMT(2.75, "2.75");
    FMT(1e20, "1e+20");
    FMT(1712195495502094.5, "1712195495502094.5");
    FMT(5e-324, "4.94065645841247e-324"); /* reads back as 5e-324 */
}

TEST(test_output__whole_numbers_as_printf_writes_them)
{
    /* whole numbers below 1e17 take a path of their own: the bytes of "%.0f" */
    double xs[] = {1,
                   -1,
                   9,
                   10,
                   -10,
                   99999,
                   123456789012,
                   -9007199254740992.0,
                   9007199254740993.0 * 8,
                   99999999999999984.0,
                   -99999999999999984.0,
                   4503599627370496.0};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "%.0f", xs[i]);
        FMT(xs[i], want);
    }
    for (int64_t v = -100000; v <= 100000; v += 7) {
        char want[64];
        snprintf(want, sizeof want, "%lld", (long long)v);
        FMT((double)v, want);
    }
    char small[8]; /* too small for any whole number: cut as snprintf cuts */
    td_format_number(small, sizeof small, 123456789);
    CHECK_STR(small, "1234567");
}

TEST(test_output__non_finite_numbers_as_pandas_writes_them)
{
    FMT(INFINITY, "inf");
    FMT(-INFINITY, "-inf");
    FMT(NAN, "nan");
    FMT(-NAN, "nan");
}

static char *json_of(const td_diff *d, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    td_write_json(f, d, NULL, NULL);
    fclose(f);
    return buf;
}

TEST(test_output__json_has_no_bare_infinity_or_nan)
{
    td_set *s = unit_open(unit_write_str(
        "out_inf.json", "{\"traceEvents\": ["
                        "{\"cat\": \"c\", \"name\": \"i\", \"ts\": 1, \"dur\": 1e400},"
                        "{\"cat\": \"c\", \"name\": \"n\", \"ts\": 1, \"dur\": 1e400},"
                        "{\"cat\": \"c\", \"name\": \"n\", \"ts\": 1, \"dur\": -1e400}"
                        "]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    size_t len;
    char *j = json_of(d, &len);
    REQUIRE(j);
    CHECK(strstr(j, "\"control_total_duration\": 1e999") != NULL);
    CHECK(strstr(j, "\"diff_duration\": null") != NULL);
    CHECK(strstr(j, "inf") == NULL && strstr(j, "nan") == NULL);
    free(j);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_output__json_names_round_trip_nul_and_surrogates)
{
    td_set *s = unit_open(unit_write_str(
        "out_names.json", "{\"traceEvents\": ["
                          "{\"cat\": \"c\", \"name\": \"a\\u0000b\", \"ts\": 1, \"dur\": 1},"
                          "{\"cat\": \"c\", \"name\": \"x\\ud800\\\"\", \"ts\": 1, \"dur\": 1}"
                          "]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    size_t len;
    char *j = json_of(d, &len);
    REQUIRE(j);
    CHECK(strstr(j, "\"name\": \"a\\u0000b\"") != NULL);
    CHECK(strstr(j, "\"name\": \"x\\ud800\\\"\"") != NULL);
    free(j);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_output__csv_quotes_names_as_rfc4180)
{
    /* JSON names: "q" inside, a comma, quotes at both ends and doubled, a
     * newline; each written once, quoted, every quote doubled */
    td_set *s = unit_open(unit_write_str(
        "out_csv.json", "{\"traceEvents\": ["
                        "{\"cat\": \"c\", \"name\": \"f<\\\"q\\\">\", \"ts\": 1, \"dur\": 1},"
                        "{\"cat\": \"c\", \"name\": \"g(a, b)\", \"ts\": 1, \"dur\": 2},"
                        "{\"cat\": \"c\", \"name\": \"\\\"\\\"h\\\"\", \"ts\": 1, \"dur\": 3},"
                        "{\"cat\": \"c\", \"name\": \"i\\nj\", \"ts\": 1, \"dur\": 4}"
                        "]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    td_write_csv(f, d, NULL, NULL);
    fclose(f);
    REQUIRE(buf);
    CHECK(strstr(buf, "\n\"f<\"\"q\"\">\",1,1,1,1,0,0,=\n") != NULL);
    CHECK(strstr(buf, "\n\"g(a, b)\",1,2,1,2,0,0,=\n") != NULL);
    CHECK(strstr(buf, "\n\"\"\"\"\"h\"\"\",1,3,1,3,0,0,=\n") != NULL);
    CHECK(strstr(buf, "\n\"i\nj\",1,4,1,4,0,0,=\n") != NULL);
    free(buf);
    td_diff_free(d);
    td_set_free(s);
}

/* td_chart_subtitle reads the options through their size: an older,
 * shorter struct is read as far as it goes, a size that is not valid gives
 * an empty line. */
TEST(test_output__subtitle_reads_options_by_their_size)
{
    td_set *s = unit_open(unit_write_str(
        "subtitle.json", "{\"traceEvents\": ["
                         "{\"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"ts\": 0, "
                         "\"dur\": 100},"
                         "{\"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 2}]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    char buf[256];
    td_compare_opts o = TD_COMPARE_OPTS_INIT;
    o.short_names = true;
    o.normalize_names = true;
    o.per_iteration = true;
    size_t n = td_chart_subtitle(buf, sizeof buf, d, &o, "a", "b");
    CHECK_INT(n, strlen(buf));
    CHECK(strstr(buf, ", short names") != NULL);
    CHECK(strstr(buf, ", normalized names") != NULL);
    CHECK(strstr(buf, ", per (rank, iteration)") != NULL);

    o.size = offsetof(td_compare_opts, only); /* a caller built before `only` */
    td_chart_subtitle(buf, sizeof buf, d, &o, "a", "b");
    CHECK(strstr(buf, ", short names") != NULL);
    CHECK(strstr(buf, ", normalized names") == NULL);
    CHECK(strstr(buf, ", per (rank, iteration)") == NULL);

    o.size = 0;
    CHECK_INT(td_chart_subtitle(buf, sizeof buf, d, &o, "a", "b"), 0);
    CHECK_STR(buf, "");
    o.size = sizeof o + 8;
    CHECK_INT(td_chart_subtitle(buf, sizeof buf, d, &o, "a", "b"), 0);
    td_diff_free(d);
    td_set_free(s);
}
