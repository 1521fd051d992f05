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
