/* What people read: numbers as they write them (td_fmt_human, td_fmt_pq)
 * and names fitted to a column (td_fit_names), src/present. */
#include "harness.h"
#include "present/out_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void check_human(const char *file, int line, double x, bool group, const char *want)
{
    char buf[64];
    td_fmt_human(buf, sizeof buf, x, group);
    if (strcmp(buf, want) != 0)
        unit_fail(file, line, "%.17g written as \"%s\", expected \"%s\"", x, buf, want);
}
#define HUMAN(x, want) check_human(__FILE__, __LINE__, (x), true, (want))

static void check_pq(const char *file, int line, double x, const char *want)
{
    char buf[64];
    td_fmt_pq(buf, sizeof buf, x);
    if (strcmp(buf, want) != 0)
        unit_fail(file, line, "%.17g written as \"%s\", expected \"%s\"", x, buf, want);
}
#define PQ(x, want) check_pq(__FILE__, __LINE__, (x), (want))

TEST(test_human__decimals_as_people_write_them)
{
    /* the examples of the per-iteration table */
    HUMAN(0.16666666666666666, "0.167");
    HUMAN(2639.5999999999985, "2,639.6");
    HUMAN(11940.123, "11,940.1");
    HUMAN(12.345678, "12.35");
    HUMAN(0.5, "0.5");
    HUMAN(-0.001234567, "-0.00123");
    HUMAN(0.000012345, "0.0000123");
    HUMAN(99.999, "100");
    HUMAN(-2.5, "-2.5");
    HUMAN(0, "0");
    HUMAN(-0.0, "0");
}

TEST(test_human__thousands_grouped_no_exponent)
{
    HUMAN(1000, "1,000");
    HUMAN(999, "999");
    HUMAN(-1234567, "-1,234,567");
    HUMAN(100298, "100,298");
    HUMAN(1e20, "100,000,000,000,000,000,000");
    check_human(__FILE__, __LINE__, 1234567, false, "1234567");
    check_human(__FILE__, __LINE__, 2639.6, false, "2639.6");
    char buf[64];
    for (int k = 0; k < 40; k++) {
        double x = pow(10, k / 2.0 - 6) * (k % 3 ? 1 : -1);
        td_fmt_human(buf, sizeof buf, x, true);
        CHECK(strchr(buf, 'e') == NULL);
    }
}

TEST(test_human__p_and_q_values)
{
    PQ(3e-20, "3e-20");
    PQ(0.0004, "4e-4");
    PQ(0.012, "0.012");
    PQ(0.5, "0.5");
    PQ(1, "1");
    PQ(0.001, "0.001");
    PQ(0, "<1e-300");
    PQ(NAN, "");
}

static size_t cols(const char *s)
{
    return td_text_cols(s, strlen(s));
}

TEST(test_human__names_cut_in_the_middle_never_equal)
{
    /* Kernels that share their head and their tail, and one short name. */
    char *names[] = {
        strdup("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB0_"
               "AFC1_AFEM1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG16_4_4"),
        strdup("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x256_MI16x16x1_SN_LDSB1_"
               "AFC1_AFEM1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG16_4_4"),
        strdup("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
               "c10::BFloat16>, std::array<char*, 3ul> >(int, std::array<char*, 3ul>)"),
        strdup("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<"
               "c10::BFloat16>, std::array<char*, 3ul> >(int, std::array<char*, 3ul>)"),
        strdup("attn_fwd"),
    };
    size_t n = sizeof names / sizeof *names;
    for (size_t w = 12; w <= 60; w += 6)
        for (int ascii = 0; ascii < 2; ascii++) {
            char **shown = td_fit_names(names, n, w, ascii);
            REQUIRE(shown);
            for (size_t i = 0; i < n; i++) {
                CHECK(cols(shown[i]) <= w);
                if (cols(names[i]) <= w)
                    CHECK_STR(shown[i], names[i]);
                else /* the head kept */
                    CHECK(shown[i][0] == names[i][0]);
                for (size_t j = 0; j < i; j++)
                    if (strcmp(shown[i], shown[j]) == 0)
                        unit_fail(__FILE__, __LINE__, "width %zu: rows %zu and %zu both \"%s\"", w,
                                  j, i, shown[i]);
            }
            td_fit_names_free(shown, n);
        }
    /* a plain cut keeps the distinguishing tail */
    char **shown = td_fit_names(names, 1, 40, 0);
    REQUIRE(shown);
    size_t len = strlen(shown[0]);
    CHECK(len > 8 && strcmp(shown[0] + len - 8, "WG16_4_4") == 0);
    td_fit_names_free(shown, 1);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}
