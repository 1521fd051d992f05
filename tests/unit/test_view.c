/* Views: filters by regex, sort, top (src/view.c). */
#include "unit_traces.h"

#include <stdlib.h>
#include <time.h>

static td_set *view_set(void)
{
    return unit_open(unit_write_str(
        "view.json", "{\"traceEvents\": ["
                     "{\"cat\": \"c\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 3},"
                     "{\"cat\": \"c\", \"name\": \"aten::add\", \"ts\": 1, \"dur\": 1},"
                     "{\"cat\": \"c\", \"name\": \"a++\", \"ts\": 1, \"dur\": 2},"
                     "{\"cat\": \"c\", \"name\": \"x{2}\", \"ts\": 1, \"dur\": 2}"
                     "]}"));
}

/* The number of rows the include regex keeps, or the error code. */
static long kept(const td_diff *d, const char *include, td_error *err)
{
    td_view_opts vo = TD_VIEW_OPTS_INIT;
    vo.include = include;
    size_t *rows = NULL;
    long n = td_view_make(&rows, d, &vo, err);
    free(rows);
    return n;
}

TEST(test_view__include_regex_filters)
{
    td_set *s = view_set();
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    td_error err = {0};
    CHECK_INT(kept(d, "^aten::", &err), 2);
    CHECK_INT(kept(d, "aten::(mm|add)+$", &err), 2);
    CHECK_INT(kept(d, "[+]{2}", &err), 1);
    CHECK_INT(kept(d, "a\\+\\+", &err), 1);
    CHECK_INT(kept(d, "x[{]2[}]", &err), 1);
    CHECK_INT(kept(d, "[[:alpha:]]{3,}::", &err), 2);
    /* Perl/Python syntax: classes, flags, lazy parts, look-ahead, back-references. */
    CHECK_INT(kept(d, "\\d", &err), 1);
    CHECK_INT(kept(d, "(?i)ATEN::M", &err), 1);
    CHECK_INT(kept(d, "^\\w+::(?!mm)", &err), 1);
    CHECK_INT(kept(d, "^a.*?d", &err), 1);
    CHECK_INT(kept(d, "(m)\\1", &err), 1);
    CHECK_INT(kept(d, "(", &err), TD_EUSAGE);
    CHECK_STR(err.msg, "--include '(': not a valid regular expression: missing closing "
                       "parenthesis (at byte 1)");
    CHECK_INT(kept(d, "a**", &err), TD_EUSAGE);
    CHECK_STR(err.msg, "--include 'a**': not a valid regular expression: quantifier does "
                       "not follow a repeatable item (at byte 2)");
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_view__regex_sees_whole_name_and_odd_bytes)
{
    /* A NUL byte inside a name does not end it; a lone surrogate (kept as
     * its 3-byte form, not valid UTF-8) neither breaks the match nor is
     * taken for a character. */
    td_set *s = unit_open(unit_write_str(
        "view_odd.json", "{\"traceEvents\": ["
                         "{\"cat\": \"c\", \"name\": \"a\\u0000b\", \"ts\": 1, \"dur\": 3},"
                         "{\"cat\": \"c\", \"name\": \"x\\ud800y\", \"ts\": 1, \"dur\": 1},"
                         "{\"cat\": \"c\", \"name\": \"caf\\u00e9\", \"ts\": 1, \"dur\": 1}"
                         "]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    td_error err = {0};
    CHECK_INT(kept(d, "b$", &err), 1);
    CHECK_INT(kept(d, "^a\\x00b$", &err), 1);
    CHECK_INT(kept(d, "y$", &err), 1);
    CHECK_INT(kept(d, "^x.y$", &err), 0);  /* the surrogate is no character */
    CHECK_INT(kept(d, "^caf.$", &err), 1); /* é is one character */
    CHECK_INT(kept(d, "^caf\\w$", &err), 1);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_view__hostile_regexes_fail_fast)
{
    /* Patterns that make a regex compiler copy parts exponentially, or a
     * backtracking matcher run for hours: each one either works or is
     * refused with a message, and all of them together in well under a
     * second. */
    static const char *const hostile[] = {
        "i++++++++++++++++++++++++++++++++++++++++++++++++++",
        "((((((((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+",
        "(a{300}){300}",
        "((a{40}){40}){40}",
        "((((a{65535}){65535}){65535}){65535})",
        "(x|(y{1000}){1000})",
        "()++++++++++++++++++++++++++++++",
        "a*+++++++++++",
        "e{,5}{,5}{1,5}+",
        "h((((){25805})))",
        "((a*)){300}",
        "(a|aa)+$",
        "^(a+)+$",
        "(.*)*\\1Q",
    };
    static char json[4096];
    char *p = json;
    p += sprintf(p, "{\"traceEvents\": [{\"cat\": \"c\", \"name\": \"");
    memset(p, 'a', 3000);
    p += 3000;
    sprintf(p, "!\", \"ts\": 1, \"dur\": 3}]}");
    td_set *s = unit_open(unit_write_str("view_hostile.json", json));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    clock_t t0 = clock();
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        td_error err = {0};
        long n = kept(d, hostile[i], &err);
        CHECK(n == 0 || n == 1 || n == TD_EUSAGE);
        if (n == TD_EUSAGE)
            CHECK(strstr(err.msg, hostile[i]) != NULL);
    }
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
    /* Catastrophic backtracking is cut off with a message, not waited for. */
    td_error err = {0};
    CHECK_INT(kept(d, "^(a|aa)+$", &err), TD_EUSAGE);
    CHECK_STR(err.msg, "--include '^(a|aa)+$': the regex engine gave up on a name of 3001 "
                       "bytes: match limit exceeded; write the pattern with less backtracking");
    /* A huge compiled form is refused at compile time. */
    CHECK_INT(kept(d, "((((a{65535}){65535}){65535}){65535})", &err), TD_EUSAGE);
    CHECK(strstr(err.msg, "regular expression is too large") != NULL);
    /* --exclude goes through the same limits. */
    td_view_opts vo = TD_VIEW_OPTS_INIT;
    vo.exclude = "^(a|aa)+$";
    size_t *rows = NULL;
    CHECK_INT(td_view_make(&rows, d, &vo, &err), TD_EUSAGE);
    CHECK(rows == NULL);
    CHECK(strncmp(err.msg, "--exclude '^(a|aa)+$': the regex engine gave up", 47) == 0);
    td_diff_free(d);
    td_set_free(s);
}
