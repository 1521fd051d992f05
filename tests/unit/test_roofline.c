/* The roofline's model (docs/roofline.md): FLOPs and bytes op by op on
 * hand-made inputs (src/compare/perf_model.c), the GPU table
 * (gpu_peaks.c), and a hand-made trace through td_roofline_compute. */
#include "harness.h"
#include "tracediff.h"

#include <math.h>
#include <string.h>

#define BF16 "\"c10::BFloat16\""
#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)) + 1e-12)

static int model(td_perf *p, const char *op, const char *d, const char *t, const char *c)
{
    return td_perf_model(p, op, d, t, c);
}

TEST(test_roofline__gemm_formulas)
{
    td_perf p;
    /* mm: M=3, K=5, N=7, float */
    CHECK_INT(model(&p, "aten::mm", "[[3,5],[5,7]]", "[\"float\",\"float\"]", NULL), 1);
    CHECK(NEAR(p.flops, 2.0 * 3 * 7 * 5));
    CHECK(NEAR(p.bytes, (15.0 + 35 + 21) * 4));
    CHECK(p.cls == TD_RL_GEMM && p.matrix && p.precision == TD_PREC_FP32);
    /* addmm: bias N, bf16 */
    CHECK_INT(model(&p, "aten::addmm", "[[7],[3,5],[5,7],[],[]]",
                    "[" BF16 "," BF16 "," BF16 ",\"Scalar\",\"Scalar\"]", NULL),
              1);
    CHECK(NEAR(p.flops, 2.0 * 3 * 7 * 5 + 21));
    CHECK(NEAR(p.bytes, (15.0 + 35 + 21 + 7) * 2));
    CHECK(p.precision == TD_PREC_BF16);
    /* bmm, baddbmm: a batch of 4 */
    CHECK_INT(model(&p, "aten::bmm", "[[4,3,5],[4,5,7]]", "[\"c10::Half\",\"c10::Half\"]", NULL),
              1);
    CHECK(NEAR(p.flops, 4 * 2.0 * 3 * 7 * 5));
    CHECK(NEAR(p.bytes, 4 * (15.0 + 35 + 21) * 2));
    CHECK(p.precision == TD_PREC_FP16);
    CHECK_INT(model(&p, "aten::baddbmm", "[[4,3,7],[4,3,5],[4,5,7],[],[]]",
                    "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL),
              1);
    CHECK(NEAR(p.flops, 4 * (2.0 * 3 * 7 * 5 + 21)));
    CHECK(NEAR(p.bytes, 4 * (15.0 + 35 + 21 + 7) * 4));
    /* _scaled_mm on fp8: 1-byte inputs, a 2-byte output */
    CHECK_INT(model(&p, "aten::_scaled_mm", "[[16,32],[32,8],[],[]]",
                    "[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\"]", NULL),
              1);
    CHECK(NEAR(p.flops, 2.0 * 16 * 8 * 32));
    CHECK(NEAR(p.bytes, (16.0 * 32 + 32 * 8) * 1 + 16 * 8 * 2));
    CHECK(p.precision == TD_PREC_FP8);
}

TEST(test_roofline__attention_causal_and_widths)
{
    td_perf p;
    const char *d = "[[2,8,128,64],[2,2,128,64],[2,2,128,32],[],[],[],[]]";
    const char *t = "[" BF16 "," BF16 "," BF16 ",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]";
    double full = 2.0 * 8 * (2.0 * 128 * 128 * 64 + 2.0 * 128 * 128 * 32);
    double el = 2.0 * 8 * 128 * 64 + 2.0 * 2 * 128 * 64 + 2.0 * 2 * 128 * 32 + 2.0 * 8 * 128 * 32;
    /* flash: is_causal is Concrete Inputs[4] */
    CHECK_INT(model(&p, "aten::_scaled_dot_product_flash_attention", d, t,
                    "[\"\",\"\",\"\",\"0.\",\"False\",\"False\",\"\"]"),
              1);
    CHECK(NEAR(p.flops, full));
    CHECK(NEAR(p.bytes, el * 2));
    CHECK(p.cls == TD_RL_ATTENTION && p.matrix);
    CHECK_INT(model(&p, "aten::_scaled_dot_product_flash_attention", d, t,
                    "[\"\",\"\",\"\",\"0.\",\"True\",\"False\",\"\"]"),
              1);
    CHECK(NEAR(p.flops, full / 2));
    /* efficient: is_causal is [6]; a "True" at [4] is not it */
    CHECK_INT(model(&p, "aten::_scaled_dot_product_efficient_attention", d, t,
                    "[\"\",\"\",\"\",\"\",\"True\",\"0.\",\"False\"]"),
              1);
    CHECK(NEAR(p.flops, full));
    CHECK_INT(model(&p, "aten::_scaled_dot_product_efficient_attention", d, t,
                    "[\"\",\"\",\"\",\"\",\"False\",\"0.\",\"True\"]"),
              1);
    CHECK(NEAR(p.flops, full / 2));
    /* the real width: float is 4 bytes (TraceLens: always 2) */
    CHECK_INT(model(&p, "aten::_scaled_dot_product_efficient_attention", d,
                    "[\"float\",\"float\",\"float\"]", NULL),
              1);
    CHECK(NEAR(p.bytes, el * 4));
    /* causal with N_q != N_kv: no model for these inputs */
    CHECK_INT(model(&p, "aten::_scaled_dot_product_flash_attention",
                    "[[1,1,16,8],[1,1,32,8],[1,1,32,8]]", t, "[\"\",\"\",\"\",\"0.\",\"True\"]"),
              -1);
}

TEST(test_roofline__conv_grouped_strided_bias)
{
    td_perf p;
    /* x (2,8,32,32), w (16,4,3,3): groups 2; stride 2, padding 1, dilation 1;
     * out per dim (32 + 2 - 2 - 1) / 2 + 1 = 16 */
    const char *d = "[[2,8,32,32],[16,4,3,3],[16],[],[],[],[],[],[]]";
    const char *t = "[\"float\",\"float\",\"float\",\"ScalarList\",\"ScalarList\","
                    "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"]";
    const char *c = "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"2\"]";
    CHECK_INT(model(&p, "aten::convolution", d, t, c), 1);
    double out = 2.0 * 16 * 16 * 16;
    CHECK(NEAR(p.flops, 2.0 * (4 * 3 * 3) * out));
    CHECK(NEAR(p.bytes, (2.0 * 8 * 32 * 32 + 16 * 4 * 3 * 3 + out + 16) * 4));
    CHECK(p.cls == TD_RL_CONV && p.matrix);
    /* no bias; dilation 2: (32 + 2 - 4 - 1) / 2 + 1 = 15 */
    CHECK_INT(model(&p, "aten::convolution", "[[2,8,32,32],[16,4,3,3],[],[],[],[],[],[],[]]", t,
                    "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[2, 2]\",\"False\",\"[0, 0]\",\"2\"]"),
              1);
    out = 2.0 * 16 * 15 * 15;
    CHECK(NEAR(p.bytes, (2.0 * 8 * 32 * 32 + 16 * 4 * 3 * 3 + out) * 4));
    /* groups that do not fit the channels */
    CHECK_INT(model(&p, "aten::convolution", d, t,
                    "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"4\"]"),
              -1);
    /* transposed: no model */
    CHECK_INT(model(&p, "aten::convolution", d, t,
                    "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"True\",\"[0, 0]\",\"2\"]"),
              -1);
}

TEST(test_roofline__elementwise_broadcasting)
{
    td_perf p;
    /* (4,1,8) + (3,1): broadcast to (4,3,8) */
    CHECK_INT(model(&p, "aten::add", "[[4,1,8],[3,1],[]]", "[" BF16 "," BF16 ",\"Scalar\"]", NULL),
              1);
    CHECK(NEAR(p.flops, 96));
    CHECK(NEAR(p.bytes, 32.0 * 2 + 3 * 2 + 96 * 2));
    CHECK(p.cls == TD_RL_ELEMENTWISE && !p.matrix && p.precision == TD_PREC_BF16);
    /* a scalar operand: one element of its width */
    CHECK_INT(model(&p, "aten::mul", "[[10],[]]", "[\"float\",\"Scalar\"]", NULL), 1);
    CHECK(NEAR(p.flops, 10));
    CHECK(NEAR(p.bytes, 40.0 + 4 + 40));
    /* shapes that do not broadcast */
    CHECK_INT(model(&p, "aten::add", "[[4,3],[2,3]]", "[\"float\",\"float\"]", NULL), -1);
    /* unary; copy_ reads its source's width and writes its own */
    CHECK_INT(model(&p, "aten::silu", "[[5,6]]", "[" BF16 "]", NULL), 1);
    CHECK(NEAR(p.flops, 30) && NEAR(p.bytes, 30.0 * 2 + 30 * 2));
    CHECK_INT(model(&p, "aten::copy_", "[[5,6],[5,6],[]]", "[" BF16 ",\"float\",\"Scalar\"]", NULL),
              1);
    CHECK(NEAR(p.bytes, 30.0 * 4 + 30 * 2));
    /* pow(Tensor, Scalar) is unary, pow(Tensor, Tensor) binary */
    CHECK_INT(model(&p, "aten::pow", "[[6],[]]", "[\"float\",\"Scalar\"]", NULL), 1);
    CHECK(NEAR(p.bytes, 6.0 * 4 + 6 * 4));
    CHECK_INT(model(&p, "aten::pow", "[[6],[6]]", "[\"float\",\"float\"]", NULL), 1);
    CHECK(NEAR(p.bytes, 6.0 * 4 + 6 * 4 + 6 * 4));
}

TEST(test_roofline__layer_norm)
{
    td_perf p;
    CHECK_INT(model(&p, "aten::layer_norm", "[[2,10,16],[],[16],[16],[],[]]",
                    "[" BF16 ",\"ScalarList\"," BF16 "," BF16 ",\"Scalar\",\"Scalar\"]",
                    "[\"\",\"[16]\",\"\",\"\",\"1e-05\",\"True\"]"),
              1);
    CHECK(NEAR(p.flops, 5.0 * 320 + 6 * 16));
    CHECK(NEAR(p.bytes, 2.0 * 320 * 2 + 6 * 16 * 2));
    CHECK(p.cls == TD_RL_NORM);
    /* no weight: the normalized shape from Concrete Inputs */
    CHECK_INT(model(&p, "aten::layer_norm", "[[2,10,16],[],[],[],[],[]]",
                    "[\"float\",\"ScalarList\",\"\",\"\",\"Scalar\",\"Scalar\"]",
                    "[\"\",\"[10, 16]\",\"\",\"\",\"1e-05\",\"True\"]"),
              1);
    CHECK(NEAR(p.flops, 5.0 * 320 + 6 * 160));
}

TEST(test_roofline__dtypes_and_bad_inputs)
{
    td_perf p;
    /* fp8 and fp4 widths and precisions */
    CHECK_INT(model(&p, "aten::neg", "[[8]]", "[\"c10::Float8_e5m2\"]", NULL), 1);
    CHECK(NEAR(p.bytes, 16) && p.precision == TD_PREC_FP8);
    CHECK_INT(model(&p, "aten::neg", "[[8]]", "[\"c10::Float4_e2m1fn_x2\"]", NULL), 1);
    CHECK(NEAR(p.bytes, 16) && p.precision == TD_PREC_FP4);
    CHECK_INT(model(&p, "aten::neg", "[[8]]", "[\"double\"]", NULL), 1);
    CHECK(NEAR(p.bytes, 128) && p.precision == TD_PREC_FP64);
    /* an unknown type: FLOPs known, bytes and precision not */
    CHECK_INT(model(&p, "aten::mm", "[[3,5],[5,7]]", "[\"bool\",\"bool\"]", NULL), 1);
    CHECK(NEAR(p.flops, 210) && isnan(p.bytes) && p.precision == TD_PREC_UNKNOWN);
    CHECK_INT(model(&p, "aten::add", "[[3],[3]]", "[\"float\",\"\"]", NULL), 1);
    CHECK(isnan(p.bytes) && p.precision == TD_PREC_FP32);
    /* malformed dims: a model, but not for these inputs */
    CHECK_INT(model(&p, "aten::mm", "[[3,\"x\"],[5,7]]", "[\"float\",\"float\"]", NULL), -1);
    CHECK(p.problem && strstr(p.problem, "malformed"));
    CHECK_INT(model(&p, "aten::mm", "[[3,5]]", "[\"float\"]", NULL), -1);
    CHECK_INT(model(&p, "aten::mm", "[[3,5],[5,7]", "[\"float\"]", NULL), -1);
    CHECK_INT(model(&p, "aten::mm", "{}", "[]", NULL), -1);
    CHECK_INT(model(&p, "aten::mm", "", "", NULL), -1);
    CHECK_INT(model(&p, "aten::bmm", "[[-4,3,5],[4,5,7]]", "[\"float\"]", NULL), -1);
    /* ops without a model pass their time down */
    CHECK_INT(model(&p, "aten::linear", "[[3,5],[7,5],[7]]", "[\"float\"]", NULL), 0);
    CHECK_INT(model(&p, "aten::matmul", "[[3,5],[5,7]]", "[\"float\"]", NULL), 0);
    CHECK_INT(model(&p, "aten::scaled_dot_product_attention", "[]", "[]", NULL), 0);
    CHECK_INT(model(&p, "aten::softmax", "[[3]]", "[\"float\"]", NULL), 0);
}

TEST(test_roofline__gpu_table)
{
    size_t n;
    const td_gpu *t = td_gpu_table(&n);
    CHECK(n >= 14);
    for (size_t i = 0; i < n; i++)
        CHECK(t[i].source && t[i].mem_bw_gbps > 0 && t[i].tflops[1][TD_PREC_FP32] > 0);
    static const char *const names[][2] = {{"NVIDIA H100 80GB HBM3", "H100 SXM"},
                                           {"NVIDIA H100 PCIe", "H100 PCIe"},
                                           {"AMD Instinct MI300X VF", "MI300X"},
                                           {"AMD Instinct MI300X", "MI300X"},
                                           {"NVIDIA B200", "B200"},
                                           {"NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"},
                                           {"NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"},
                                           {"NVIDIA A100-SXM4-40GB", "A100 SXM 40GB"},
                                           {"NVIDIA H200", "H200"},
                                           {"NVIDIA L40S", "L40S"},
                                           {"Tesla V100-SXM2-32GB", "V100 SXM2"},
                                           {"AMD Instinct MI325X", "MI325X"},
                                           {"AMD Instinct MI355X", "MI355X"},
                                           {"AMD Instinct MI250X", "MI250X"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const td_gpu *g = td_gpu_detect(names[i][0]);
        CHECK(g != NULL);
        if (g)
            CHECK_STR(g->name, names[i][1]);
    }
    CHECK(td_gpu_detect("AMD Radeon Graphics") == NULL);
    CHECK(td_gpu_detect(NULL) == NULL);
    td_gpu g;
    td_error err = {0};
    CHECK_INT(td_gpu_resolve(&g, "h100-sxm", &err), 0);
    CHECK_STR(g.name, "H100 SXM");
    CHECK_INT(td_gpu_resolve(&g, "Z9000", &err), TD_EUSAGE);
    CHECK(strstr(err.msg, "MI355X") != NULL);
    const char *arch = unit_write_str("arch.json", "{\"name\": \"mine\", \"mem_bw_gbps\": 1000, "
                                                   "\"max_achievable_tflops\": {\"matrix_bf16\": "
                                                   "500, \"vector_fp32\": 50, \"other\": 1}}");
    CHECK_INT(td_gpu_resolve(&g, arch, &err), 0);
    CHECK_STR(g.name, "mine");
    CHECK(g.mem_bw_gbps == 1000 && g.tflops[0][TD_PREC_BF16] == 500 &&
          g.tflops[1][TD_PREC_FP32] == 50 && isnan(g.tflops[0][TD_PREC_FP16]));
    const char *bad = unit_write_str("bad_arch.json", "{\"name\": \"x\"}");
    CHECK(td_gpu_resolve(&g, bad, &err) < 0);
}

/* A hand-made trace: linear (no model) around addmm, whose two kernels
 * overlap; layer_norm around native_layer_norm; gelu (no model). */
static const char TRACE[] =
    "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}],\n"
    "\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":0,"
    "\"dur\":100,\"args\":{\"Input Dims\":[[4,8],[16,8],[16]],\"Input type\":[\"c10::BFloat16\","
    "\"c10::BFloat16\",\"c10::BFloat16\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":10,"
    "\"dur\":50,\"args\":{\"Input Dims\":[[16],[4,8],[8,16],[],[]],\"Input type\":[\"c10::BFloat16"
    "\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"],\"Concrete Inputs\":[\"\",\"\","
    "\"\",\"1\",\"1\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":20,\"dur\":5,\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":30,\"dur\":5,\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":10,"
    "\"args\":{\"stream\":7,\"correlation\":1,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":8,\"ts\":205,\"dur\":10,"
    "\"args\":{\"stream\":8,\"correlation\":2,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::layer_norm\",\"pid\":1,\"tid\":1,\"ts\":110,"
    "\"dur\":50,\"args\":{\"Input Dims\":[[4,16],[],[16],[16],[],[]],\"Input type\":[\"c10::"
    "BFloat16\",\"ScalarList\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\",\"Scalar\"],"
    "\"Concrete Inputs\":[\"\",\"[16]\",\"\",\"\",\"1e-05\",\"True\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::native_layer_norm\",\"pid\":1,\"tid\":1,"
    "\"ts\":115,\"dur\":40,\"args\":{\"Input Dims\":[[4,16],[],[16],[16],[]],\"Input type\":["
    "\"c10::BFloat16\",\"ScalarList\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":120,\"dur\":5,\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":7,"
    "\"args\":{\"stream\":7,\"correlation\":3,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::gelu\",\"pid\":1,\"tid\":1,\"ts\":170,"
    "\"dur\":20,\"args\":{\"Input Dims\":[[4,16],[]],\"Input type\":[\"c10::BFloat16\",\"\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":175,\"dur\":5,\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":7,\"ts\":320,\"dur\":3,"
    "\"args\":{\"stream\":7,\"correlation\":4,\"device\":0}}\n"
    "]}\n";

TEST(test_roofline__hand_made_trace)
{
    const char *path = unit_write_str("roof/trace.json", TRACE);
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.want_roofline = true;
    oo.threads = 1;
    td_set *s = NULL;
    td_error err = {0};
    REQUIRE(td_set_open(&s, path, &oo, &err) == 0);
    td_roofline *r = NULL;
    td_roofline_opts ro = TD_ROOFLINE_OPTS_INIT;
    ro.test_gpu = "MI300X";
    REQUIRE(td_roofline_compute(&r, s, s, &ro, &err) == 0);
    size_t n;
    const td_rl_row *rows = td_roofline_rows(r, &n);
    CHECK_INT(n, 2); /* addmm and layer_norm: not linear, native_layer_norm, gelu */
    for (size_t i = 0; i < n; i++) {
        const td_rl_row *w = &rows[i];
        if (strcmp(w->op, "aten::addmm") == 0) {
            CHECK_STR(w->input_dims, "[[16],[4,8],[8,16],[],[]]");
            CHECK(w->side[0].count == 1 && w->side[0].time_us == 15); /* |U|: overlap once */
            CHECK(NEAR(w->side[0].flops, 2.0 * 4 * 16 * 8 + 64));
            CHECK(NEAR(w->side[0].bytes, (32.0 + 128 + 64 + 16) * 2));
            CHECK(NEAR(w->side[0].peak_tflops, 989.5) && NEAR(w->side[1].peak_tflops, 1307.4));
            CHECK(w->side[0].bound == TD_RL_MEMORY);
            double rt = w->side[0].bytes / (3350 * 1e3);
            CHECK(NEAR(w->side[0].efficiency_pct, 100 * rt / 15));
            CHECK_STR(w->reading, "same");
        } else {
            CHECK_STR(w->op, "aten::layer_norm");
            CHECK(w->side[0].count == 1 && w->side[0].time_us == 7);
            CHECK(NEAR(w->side[0].flops, 5.0 * 64 + 6 * 16));
        }
    }
    const td_rl_coverage *c = td_roofline_coverage(r, TD_CONTROL);
    CHECK(c->busy_us == 25 && c->modelled_us == 22 && c->unmodelled_us == 3);
    CHECK(c->ntop == 1 && strcmp(c->top[0].op, "aten::gelu") == 0 && c->top[0].time_us == 3);
    CHECK_STR(td_roofline_gpu(r, TD_CONTROL)->name, "H100 SXM");
    CHECK_STR(td_roofline_gpu(r, TD_TEST)->name, "MI300X");
    CHECK_STR(td_roofline_device(r, TD_CONTROL), "NVIDIA H100 80GB HBM3");
    td_roofline_free(r);
    /* A set opened without want_roofline is refused. */
    td_set *plain = NULL;
    td_open_opts po = TD_OPEN_OPTS_INIT;
    REQUIRE(td_set_open(&plain, path, &po, &err) == 0);
    CHECK_INT(td_roofline_compute(&r, plain, plain, NULL, &err), TD_EUSAGE);
    td_set_free(plain);
    td_set_free(s);
}
