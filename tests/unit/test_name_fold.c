/* The folding rules of --normalize-names (docs/numbers.md, "Normalized
 * names") on names taken from real traces. */
#include "harness.h"
#include "tracediff.h"

#include <stdlib.h>
#include <string.h>

static void check_fold(const char *file, int line, const char *name, unsigned what,
                       const char *want)
{
    char *out = NULL;
    size_t n = 0;
    if (td_normalize_name(&out, &n, name, strlen(name), what) < 0 || !out) {
        unit_fail(file, line, "no memory");
        return;
    }
    if (n != strlen(want) || memcmp(out, want, n) != 0)
        unit_fail(file, line, "\"%s\" folded to \"%.*s\", expected \"%s\"", name, (int)n, out,
                  want);
    free(out);
}
#define FOLD(name, what, want) check_fold(__FILE__, __LINE__, (name), (what), (want))

TEST(test_name_fold__addresses_lines_steps)
{
    FOLD("<built-in method __contains__ of frozenset object at 0x7499c00090e0>", 0,
         "<built-in method __contains__ of frozenset object at 0x\xE2\x80\xA6>");
    FOLD("torch/nn/modules/module.py(1743): _call_impl", 0,
         "torch/nn/modules/module.py(\xE2\x80\xA6): _call_impl");
    FOLD("ProfilerStep#21", 0, "ProfilerStep#\xE2\x80\xA6");
    FOLD("at 0x7f3a", TD_NORM_ALL, "at 0x7f3a"); /* fewer than 6 hex digits */
}

TEST(test_name_fold__inductor_graph_hashes)
{
    /* torch.compile's record_function around a compiled graph */
    FOLD("## Call CompiledFxGraph f4ii27ddxnzsb4wz2ymfyrhvwrn6cgpiuq2utnmyaeibmqo6x7pz ##", 0,
         "## Call CompiledFxGraph \xE2\x80\xA6 ##");
    FOLD("## Call CompiledFxGraph f4ii27ddxnzsb4wz2ymfyrhvwrn6cgpiuq2utnmyaeibmqo6x7pz ##",
         TD_NORM_LINES,
         "## Call CompiledFxGraph f4ii27ddxnzsb4wz2ymfyrhvwrn6cgpiuq2utnmyaeibmqo6x7pz ##");
    FOLD("CompiledFxGraph abc", TD_NORM_GRAPHS, "CompiledFxGraph abc"); /* too short a hash */
}

TEST(test_name_fold__triton_kernel_numbers)
{
    /* hta-triton's trace: Inductor numbers the kernels of a graph */
    FOLD("triton_poi_fused_add_cos_sin_0", 0, "triton_poi_fused_add_cos_sin_\xE2\x80\xA6");
    FOLD("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_12", TD_NORM_TRITON,
         "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_\xE2\x80\xA6");
    FOLD("triton_poi_fused_add_cos_sin_0", TD_NORM_ADDRESSES, "triton_poi_fused_add_cos_sin_0");
    FOLD("my_triton_kernel_3", 0, "my_triton_kernel_3");     /* not Inductor's */
    FOLD("triton_poi_fused_add", 0, "triton_poi_fused_add"); /* no number */
}

/* --rename's rules (docs/numbers.md, "Your own rules"). */
static void check_rename(const char *file, int line, const char *const *rules, size_t n,
                         const char *name, const char *want)
{
    td_renames *r = NULL;
    td_error err = {0};
    for (size_t i = 0; i < n; i++)
        if (td_renames_add(&r, rules[i], &err) < 0) {
            unit_fail(file, line, "rule '%s' refused: %s", rules[i], err.msg);
            td_renames_free(r);
            return;
        }
    char *out = NULL;
    size_t len = 0;
    if (td_renames_apply(r, &out, &len, name, strlen(name)) < 0)
        unit_fail(file, line, "no memory");
    else if (!want && out)
        unit_fail(file, line, "\"%s\" renamed to \"%.*s\", expected unchanged", name, (int)len,
                  out);
    else if (want && (!out || len != strlen(want) || memcmp(out, want, len) != 0))
        unit_fail(file, line, "\"%s\" renamed to \"%.*s\", expected \"%s\"", name,
                  out ? (int)len : 0, out ? out : "", want);
    else if (!want && len != strlen(name))
        unit_fail(file, line, "unchanged \"%s\" with length %zu", name, len);
    free(out);
    td_renames_free(r);
}
#define RENAME(rules, name, want)                                                                  \
    check_rename(__FILE__, __LINE__, rules, sizeof rules / sizeof *rules, (name), (want))

TEST(test_name_fold__rename_rules)
{
    const char *family[] = {"^(ampere|volta)_sgemm_\\w+$=sgemm"};
    RENAME(family, "volta_sgemm_128x64_nn", "sgemm");
    RENAME(family, "ampere_sgemm_32x32_sliced1x4_nt", "sgemm");
    RENAME(family, "void gemv2T_kernel", NULL);
    /* in order: the second rule sees the first one's result */
    const char *two[] = {"Memcpy (\\w+) \\(.*\\)=Memcpy $1", "Memcpy (HtoD|DtoH)=Memcpy host"};
    RENAME(two, "Memcpy HtoD (Pinned -> Device)", "Memcpy host");
    RENAME(two, "Memcpy DtoD (Device -> Device)", "Memcpy DtoD");
    /* every occurrence; '=' in the expression as \= */
    const char *eq[] = {"a\\=b=X"};
    RENAME(eq, "a=b, a=b", "X, X");
    /* a result far longer than the name (the output grows) */
    const char *grow[] = {"x=0123456789012345678901234567890123456789"};
    RENAME(grow, "xxxxx",
           "01234567890123456789012345678901234567890123456789012345678901234567890123456789"
           "01234567890123456789012345678901234567890123456789012345678901234567890123456789"
           "0123456789012345678901234567890123456789");
    /* an expression that matches the empty string everywhere */
    const char *empty[] = {"z*=-"};
    RENAME(empty, "ab", "-a-b-");
    /* named groups, $$ and UTF-8 */
    const char *named[] = {"(?<op>\\w+)::(?<fn>\\w+)=${fn}@$op$$"};
    RENAME(named, "aten::mm", "mm@aten$");
    const char *utf[] = {"\xC3\xA9t\xC3\xA9=summer"};
    RENAME(utf, "l'\xC3\xA9t\xC3\xA9", "l'summer");
}

TEST(test_name_fold__rename_refuses)
{
    static const char *const bad[] = {"noequals",     "=x",   "a(=b",  "foo=$3",
                                      "(?<x>a)=${y}", "x=a$", "x=${1", "x=${1a}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        td_renames *r = NULL;
        td_error err = {0};
        int rc = td_renames_add(&r, bad[i], &err);
        CHECK(rc == TD_EUSAGE);
        CHECK(strstr(err.msg, bad[i]) != NULL);
        CHECK(td_renames_count(r) == 0);
        td_renames_free(r);
    }
}
