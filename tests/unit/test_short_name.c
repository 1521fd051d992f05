/* Short names (spec §6): src/short_name.c. */
#include "harness.h"
#include "tracediff.h"

#include <stdlib.h>

static void check_short(const char *file, int line, const char *name, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    if (td_short_name(&out, &len, name, strlen(name)) != 0) {
        unit_fail(file, line, "td_short_name failed on \"%s\"", name);
        return;
    }
    if (len != strlen(want) || strcmp(out, want) != 0)
        unit_fail(file, line, "short name of \"%s\" is \"%s\", expected \"%s\"", name, out, want);
    free(out);
}
#define SHORT(name, want) check_short(__FILE__, __LINE__, (name), (want))

TEST(test_short_name__nested_templates)
{
    SHORT("void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, "
          "at::detail::Array<char*, 2> >(int, at::native::AbsFunctor<float>, "
          "at::detail::Array<char*, 2>)",
          "at::native::vectorized_elementwise_kernel");
    SHORT("void f<(anonymous namespace)::K<int> >(int)", "f");
    SHORT("cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>("
          "cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4::Params)",
          "cutlass::Kernel");
}

TEST(test_short_name__arrow_removed_before_brackets)
{
    /* "->" is not a closing '>': it goes first, whole. */
    SHORT("a->b(c)", "ab");
    SHORT("std::vector<int>::operator->()", "std::vector::operator");
}

TEST(test_short_name__lambda_keeps_text_after_last_space)
{
    SHORT("{lambda(int)#1}::operator()(int) const", "const");
    SHORT("{lambda(int)#1}::operator()(int)", "{lambda#1}::operator");
}

TEST(test_short_name__unmatched_closer_pops_everything)
{
    SHORT("a(b))c", "c");
    SHORT("f(x)>g", "g");
    SHORT("x>y(z", "y(z");
}

TEST(test_short_name__unmatched_opener_stays)
{
    SHORT("foo(", "foo(");
    SHORT("a<b<c>", "a<b");
}

TEST(test_short_name__memcpy_memset_dma_kept_whole)
{
    SHORT("Memcpy HtoD (Pageable -> Device)", "Memcpy HtoD (Pageable -> Device)");
    SHORT("Memset (Device)", "Memset (Device)");
    SHORT("hipMemcpyWithStream(void*, void const*)", "hipMemcpyWithStream(void*, void const*)");
    SHORT("hipMemsetAsync(x)", "hipMemsetAsync(x)");
    SHORT("dma_copy<int>(x)", "dma_copy<int>(x)");
}

TEST(test_short_name__no_brackets_kept_whole_with_spaces)
{
    SHORT("aten::add ", "aten::add ");
    SHORT("Optimizer.step#SGD.step", "Optimizer.step#SGD.step");
    SHORT("", "");
}

TEST(test_short_name__return_types_and_qualifiers)
{
    SHORT("void foo<int>(float)", "foo");
    SHORT("std::vector<int> bar(int) const", "const");
    SHORT("void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, "
          "false>(float*, float const*, int, int, int, bool const*, int, bool)",
          "::softmax_warp_forward");
    SHORT("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
          "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}

TEST(test_short_name__nul_bytes_are_ordinary_bytes)
{
    char *out = NULL;
    size_t len = 0;
    REQUIRE(td_short_name(&out, &len, "a\0b<c>(d)", 9) == 0);
    CHECK_MEM(out, len, "a\0b", 3);
    CHECK(out[len] == '\0');
    free(out);
}
