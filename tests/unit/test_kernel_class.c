/* Kernel classes (docs/attribution.md): src/compare/kernel_class.c. */
#include "harness.h"
#include "tracediff.h"

#include <string.h>

static const char *class_of(const td_classes *c, const char *name)
{
    return td_classes_match(c, name, strlen(name));
}

TEST(test_kernel_class__builtin_table_on_real_names)
{
    td_error err = {0};
    td_classes *c = NULL;
    CHECK(td_classes_default(&c, &err) == 0);
    if (!c)
        return;
    CHECK_STR(class_of(c, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long)"),
              "communication");
    CHECK_STR(class_of(c, "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64> >()"),
              "attention");
    CHECK_STR(class_of(c, "attn_fwd"), "attention");
    CHECK_STR(class_of(c, "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x128"), "gemm");
    CHECK_STR(class_of(c, "volta_sgemm_128x64_tn"), "gemm");
    CHECK_STR(class_of(c, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64>(Params)"),
              "gemm");
    CHECK_STR(class_of(c, "Memcpy HtoD (Pageable -> Device)"), "memcpy");
    CHECK_STR(class_of(c, "Memset (Device)"), "memset");
    CHECK_STR(class_of(c, "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
                          "<float, float>(int, float)"),
              "normalization");
    CHECK_STR(class_of(c, "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true>()"),
              "normalization");
    CHECK_STR(class_of(c, "void at::native::reduce_kernel<512, 1, ReduceOp<float> >()"),
              "reduction");
    CHECK_STR(class_of(c, "triton_poi_fused_add_0"), "elementwise");
    CHECK_STR(class_of(c, "void split_embedding_codegen_forward_unweighted_kernel<float>()"),
              "embedding");
    CHECK_STR(class_of(c, "some_unknown_kernel"), "other");
    td_classes_free(c);
}

TEST(test_kernel_class__rules_file_errors_name_the_line)
{
    td_error err = {0};
    td_classes *c = NULL;
    CHECK(td_classes_load(&c, "/nonexistent/classes.tsv", &err) == TD_EIO);
    CHECK_STR(err.path, "/nonexistent/classes.tsv");
    CHECK(c == NULL);
    td_classes_free(NULL);
}
