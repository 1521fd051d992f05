/* Spec §3: step numbers (td_step_number, src/iterations.c). */
#include "harness.h"
#include "internal.h"

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
