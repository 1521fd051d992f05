/* Lists of ranks and iterations: td_list_parse, and resolving them against
 * a set (src/selection.c). */
#include "harness.h"
#include "model/selection.h"
#include "tracediff.h"

#include <stdlib.h>

TEST(test_selection__single_number)
{
    td_list l = {0};
    td_error err = {0};
    REQUIRE(td_list_parse(&l, "7", &err) == 0);
    CHECK(!l.all);
    CHECK_INT(l.n, 1);
    CHECK_INT(l.v[0], 7);
    td_list_clear(&l);
}

TEST(test_selection__several_numbers_in_order_given)
{
    td_list l = {0};
    td_error err = {0};
    REQUIRE(td_list_parse(&l, "3,1,-2,+4", &err) == 0);
    CHECK_INT(l.n, 4);
    CHECK_INT(l.v[0], 3);
    CHECK_INT(l.v[1], 1);
    CHECK_INT(l.v[2], -2);
    CHECK_INT(l.v[3], 4);
    td_list_clear(&l);
}

TEST(test_selection__all)
{
    td_list l = {0};
    td_error err = {0};
    REQUIRE(td_list_parse(&l, "all", &err) == 0);
    CHECK(l.all);
    CHECK_INT(l.n, 0);
    td_list_clear(&l);
}

TEST(test_selection__int64_limits_accepted)
{
    td_list l = {0};
    td_error err = {0};
    REQUIRE(td_list_parse(&l, "9223372036854775807,-9223372036854775808", &err) == 0);
    CHECK(l.v[0] == INT64_MAX);
    CHECK(l.v[1] == INT64_MIN);
    td_list_clear(&l);
}

static void check_refused(const char *file, int line, const char *text, const char *msg)
{
    td_list l = {0};
    td_error err = {0};
    /* A list already holding values is cleared by a failed parse. */
    td_list_parse(&l, "5,6", &err);
    int rc = td_list_parse(&l, text, &err);
    if (rc != TD_EUSAGE || err.code != TD_EUSAGE)
        unit_fail(file, line, "\"%s\": rc %d, expected TD_EUSAGE", text, rc);
    else if (strcmp(err.msg, msg) != 0)
        unit_fail(file, line, "\"%s\": message \"%s\", expected \"%s\"", text, err.msg, msg);
    if (l.n || l.v || l.all)
        unit_fail(file, line, "\"%s\": the list is not empty after a refusal", text);
    td_list_clear(&l);
}
#define REFUSED(text, msg) check_refused(__FILE__, __LINE__, (text), (msg))

TEST(test_selection__bad_input_refused_with_its_text)
{
    REFUSED("", "empty list: expected N, N,M,... or all");
    REFUSED("1,,2", "'1,,2': expected N, N,M,... or all");
    REFUSED("1,", "'1,': expected N, N,M,... or all");
    REFUSED(",1", "',1': expected N, N,M,... or all");
    REFUSED("a", "'a': expected N, N,M,... or all");
    REFUSED(" 1", "' 1': expected N, N,M,... or all");
    REFUSED("1 ", "'1 ': expected N, N,M,... or all");
    REFUSED("0x10", "'0x10': expected N, N,M,... or all");
    REFUSED("1.5", "'1.5': expected N, N,M,... or all");
    REFUSED("ALL", "'ALL': expected N, N,M,... or all");
    REFUSED("--1", "'--1': expected N, N,M,... or all");
}

TEST(test_selection__overflow_refused)
{
    REFUSED("9223372036854775808", "'9223372036854775808': number out of range");
    REFUSED("1,-9223372036854775809", "'1,-9223372036854775809': number out of range");
    REFUSED("99999999999999999999999999", "'99999999999999999999999999': number out of range");
}

TEST(test_selection__resolve_default_is_lowest)
{
    const int64_t have[] = {2, 5, 9};
    td_list want = {0};
    int64_t *v = NULL;
    size_t n = 0;
    td_error err = {0};
    REQUIRE(td_resolve(&v, &n, &want, have, 3, "rank", "control", &err) == 0);
    CHECK_INT(n, 1);
    CHECK_INT(v[0], 2);
    free(v);
}

TEST(test_selection__resolve_unknown_lists_what_exists)
{
    const int64_t have[] = {1, 2, 3, 5, 7, 8};
    td_list want = {0};
    int64_t *v = NULL;
    size_t n = 0;
    td_error err = {0};
    REQUIRE(td_list_parse(&want, "4", &err) == 0);
    CHECK_INT(td_resolve(&v, &n, &want, have, 6, "iteration", "test", &err), TD_EUSAGE);
    CHECK_STR(err.msg, "no such iteration 4; test has 1..3, 5, 7, 8");
    CHECK(v == NULL);
    CHECK_INT(td_resolve(&v, &n, &want, have, 0, "rank", "control", &err), TD_EUSAGE);
    CHECK_STR(err.msg, "no such rank 4: control has none");
    td_list_clear(&want);
}
