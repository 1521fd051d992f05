/* Spec §2: decimal timestamps are rounded to whole microseconds, per file:
 * end = floor(ts + dur), ts = ceil(ts), dur = end - ts (src/iterations.c). */
#include "unit_traces.h"

#include <math.h>

TEST(test_rounding__decimal_ts_rounds_every_event_of_the_file)
{
    const char *p = unit_write_str(
        "round1.json",
        "{\"traceEvents\": ["
        "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 10.5, \"dur\": 2.3}," /* 11..12: 1 */
        "{\"cat\": \"c\", \"name\": \"b\", \"ts\": 10.2, \"dur\": 0.5}," /* 11..10: -1 */
        "{\"cat\": \"c\", \"name\": \"w\", \"ts\": 20, \"dur\": 2.5},"   /* 20..22: 2 */
        "{\"cat\": \"c\", \"name\": \"n\", \"ts\": -3.5, \"dur\": 1}"    /* -3..-3: 0 */
        "]}");
    td_set *s = unit_open(p);
    REQUIRE(s);
    td_file_info fi;
    REQUIRE(td_set_file_info(s, 0, &fi) == 0);
    CHECK(fi.rounded);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_DBL(UNIT_ROW(d, "a")->duration[0], 1);
    CHECK_DBL(UNIT_ROW(d, "b")->duration[0], -1);
    CHECK_DBL(UNIT_ROW(d, "w")->duration[0], 2);
    CHECK_DBL(UNIT_ROW(d, "n")->duration[0], 0);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_rounding__whole_ts_leaves_decimal_dur_alone)
{
    const char *p =
        unit_write_str("round2.json", "{\"traceEvents\": ["
                                      "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 10, \"dur\": 2.5},"
                                      "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 30, \"dur\": 0.25}"
                                      "]}");
    td_set *s = unit_open(p);
    REQUIRE(s);
    td_file_info fi;
    td_set_file_info(s, 0, &fi);
    CHECK(!fi.rounded);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_DBL(UNIT_ROW(d, "a")->duration[0], 2.75);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_rounding__nanosecond_timestamps_in_double)
{
    /* The values of real ns-resolution traces, computed in IEEE double. */
    const char *p = unit_write_str(
        "round3.json",
        "{\"traceEvents\": ["
        "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 1712195495502094.5, \"dur\": 2.25},"
        "{\"cat\": \"c\", \"name\": \"b\", \"ts\": 1712195495519689.0, \"dur\": 63.813}"
        "]}");
    td_set *s = unit_open(p);
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    double ts = 1712195495502094.5, dur = 2.25;
    CHECK_DBL(UNIT_ROW(d, "a")->duration[0], floor(ts + dur) - ceil(ts));
    CHECK_DBL(UNIT_ROW(d, "a")->duration[0], 1); /* ...2096.75 - ...2095 */
    CHECK_DBL(UNIT_ROW(d, "b")->duration[0], 63);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_rounding__missing_ts_rounds_the_file_and_counts_without_duration)
{
    /* An event without ts makes the ts column decimal in pandas: the file is
     * rounded, and that event's duration is missing (counted, not summed). */
    const char *p =
        unit_write_str("round4.json", "{\"traceEvents\": ["
                                      "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 10, \"dur\": 2.5},"
                                      "{\"cat\": \"c\", \"name\": \"a\", \"dur\": 7}"
                                      "]}");
    td_set *s = unit_open(p);
    REQUIRE(s);
    td_file_info fi;
    td_set_file_info(s, 0, &fi);
    CHECK(fi.rounded);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    const td_row *a = UNIT_ROW(d, "a");
    REQUIRE(a);
    CHECK_INT(a->counts[0], 2);
    CHECK_DBL(a->duration[0], 2);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_rounding__rounded_bounds_decide_the_iteration)
{
    /* Step 0.5 + 10 becomes [1, 10); an event at 0.7 rounds up into it, one
     * at 10.2 rounds up out of it. */
    const char *p = unit_write_str(
        "round5.json", "{\"traceEvents\": ["
                       "{\"cat\": \"u\", \"name\": \"ProfilerStep#4\", \"ts\": 0.5, \"dur\": 10},"
                       "{\"cat\": \"cpu_op\", \"name\": \"in\", \"ts\": 0.7, \"dur\": 1},"
                       "{\"cat\": \"cpu_op\", \"name\": \"out\", \"ts\": 10.2, \"dur\": 1}"
                       "]}");
    td_set *s = unit_open(p);
    REQUIRE(s);
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    td_diff *d = NULL;
    td_error err = {0};
    REQUIRE(td_diff_compute(&d, s, s, &co, &err) == 0);
    CHECK(UNIT_ROW(d, "in") != NULL);
    CHECK(UNIT_ROW(d, "out") == NULL);
    CHECK_DBL(UNIT_ROW(d, "ProfilerStep#4")->duration[0], 9);
    td_diff_free(d);
    td_set_free(s);
}

/* --ns (td_open_opts.ns): the same file, nothing rounded; the note's counts
 * without it; a name of two categories on one side keeps each event's. */
TEST(test_rounding__ns_keeps_the_traces_own_and_the_note_counts)
{
    const char *p = unit_write_str(
        "round_ns.json",
        "{\"traceEvents\": ["
        "{\"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 10.5, \"dur\": 2.3},"
        "{\"cat\": \"cpu_op\", \"name\": \"b\", \"ts\": 10.2, \"dur\": 0.5},"
        "{\"cat\": \"user_annotation\", \"name\": \"b\", \"ts\": 30.1, \"dur\": 4.25}"
        "]}");
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.ns = true;
    td_set *s = NULL;
    td_error err = {0};
    REQUIRE(td_set_open(&s, p, &oo, &err) == 0);
    td_file_info fi;
    REQUIRE(td_set_file_info(s, 0, &fi) == 0);
    CHECK(!fi.rounded && fi.decimal_ts && td_set_ns(s));
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_DBL(UNIT_ROW(d, "a")->duration[0], 2.3);
    CHECK_DBL(UNIT_ROW(d, "b")->duration[0], 0.5 + 4.25);
    char note[256];
    CHECK(td_diff_rounding_note(d, note, sizeof note) == 0 && note[0] == '\0');
    td_diff_free(d);
    /* --cat by event: b's annotation alone, though b is also a cpu_op. */
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.categories = "user_annotation";
    REQUIRE(td_diff_compute(&d, s, s, &co, &err) == 0);
    CHECK(td_diff_nrows(d) == 1);
    CHECK_DBL(UNIT_ROW(d, "b")->duration[0], 4.25);
    CHECK(UNIT_ROW(d, "b")->counts[0] == 1);
    td_diff_free(d);
    td_set_free(s);

    /* HTA's rule: a 1, b -1 (the cpu_op) + 3 (the annotation). The cpu_op b
     * turned negative; both rows moved by more than 5% on each side. */
    s = unit_open(p);
    REQUIRE(s);
    CHECK(!td_set_ns(s));
    d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_DBL(UNIT_ROW(d, "b")->duration[0], 2);
    const td_side_notes *n = td_diff_notes(d, TD_CONTROL);
    CHECK(n->round_negative == 1 && n->round_moved_rows == 2);
    CHECK(td_diff_rounding_note(d, note, sizeof note) > 0);
    CHECK(strstr(note, "made 2 event durations negative and moved 4 row totals") != NULL);
    CHECK(strstr(note, "--ns") != NULL);
    td_diff_free(d);
    td_set_free(s);
}
