/* Views: filters by regex, sort, top (src/view.c). */
#include "unit_traces.h"

#include <stdlib.h>
#include <time.h>

static td_set *view_set(void)
{
    return unit_open(unit_write_str("view.json",
        "{\"traceEvents\": ["
        "{\"cat\": \"c\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 3},"
        "{\"cat\": \"c\", \"name\": \"aten::add\", \"ts\": 1, \"dur\": 1},"
        "{\"cat\": \"c\", \"name\": \"a++\", \"ts\": 1, \"dur\": 2},"
        "{\"cat\": \"c\", \"name\": \"x{2}\", \"ts\": 1, \"dur\": 2}"
        "]}"));
}

/* The number of rows the include regex keeps, or the error code. */
static long kept(const td_diff *d, const char *include, td_error *err)
{
    td_view_opts vo = {0};
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
    CHECK_INT(kept(d, "(", &err), TD_EUSAGE);
    CHECK_STR(err.msg, "--include '(': not a valid regular expression");
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_view__regexes_too_big_to_compile_refused_fast)
{
    /* glibc's regcomp needs 2^n copies for these, or the square of many
     * optional parts: minutes and gigabytes. */
    static const char *const bad[] = {
        "i++++++++++++++++++++++++++++++++++++++++++++++++++",
        "((((((((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+",
        "(a{300}){300}",
        "((a{40}){40}){40}",
        "(x|(y{1000}){1000})",
        "()++++++++++++++++++++++++++++++",      /* an empty group is a node too */
        "++++++++++++++++++++++++++++++++",      /* nothing to repeat: still copied */
        "x(a++++++++++++++++++++++++++++",       /* unclosed: copied before the error */
        "a*+++++++++++",                          /* 2048 optional parts: 14 GB at 14 '+' */
        "]++++++++++++)*++++++++++|",             /* 1024 optional x 5120: found by the fuzzer */
        "]++++++++\xA1*+++++++++++--sort+\t||",  /* found by the fuzzer */
        "a{0,257}",
        "e{,5}{,5}{1,5}+",                        /* 80 s: four deep, found by the fuzzer */
        "((((a)+)+)+)+",
        "y{,5}{,5}{,}{,5}{1,5}U",                 /* "{,}" is "{0,}" to glibc */
        "(){,3}{5}{3,}",                          /* an empty group: as deep as "a*" */
        "(a|){,5}{,5}{1,4}",
        "]{4,16151}::",                           /* 16147 optional copies: 2 GB */
        "a{1,258}",
    };
    td_set *s = view_set();
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    clock_t t0 = clock();
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        td_error err = {0};
        char want[300];
        snprintf(want, sizeof want,
                 "--include '%s': too big for the regex engine once its repetitions are expanded",
                 bad[i]);
        CHECK_INT(kept(d, bad[i], &err), TD_EUSAGE);
        CHECK_STR(err.msg, want);
    }
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
    /* Repetitions that are not repeated themselves stay allowed. */
    td_error err = {0};
    CHECK_INT(kept(d, "a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p+q+r+s+t+u+v+w+x+y+z+", &err), 0);
    CHECK_INT(kept(d, "a{1000}", &err), 0);
    CHECK_INT(kept(d, "(a*)*(b?)?", &err), 4); /* matches the empty string */
    CHECK_INT(kept(d, "a*++", &err), 4);
    CHECK_INT(kept(d, "a{0,256}", &err), 4);
    CHECK_INT(kept(d, "((a+)+)+", &err), 3);
    CHECK_INT(kept(d, "(e?){1,30}+", &err), 4);
    td_diff_free(d);
    td_set_free(s);
}
