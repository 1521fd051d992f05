/*
 * The work of one op call (docs/roofline.md, spec/roofline.md): FLOPs and
 * bytes from its "Input Dims", "Input type" and "Concrete Inputs", as
 * TraceLens's PerfModel counts them, with the spec's three differences.
 * The inputs are the compact JSON the loader keeps (model/model.h, shapes).
 */
#include "util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_IN 16  /* inputs looked at */
#define MAX_DIM 12 /* dimensions of one input */

/* One input's dims: a flat list of integers (ok), or something else. */
typedef struct dims {
    int n;
    int64_t d[MAX_DIM];
    bool ok;
} dims;

typedef struct call {
    dims in[MAX_IN];
    int nin;
    bool dims_ok; /* "Input Dims" is a list */
    char type[MAX_IN][64];
    int ntype;
    char conc[MAX_IN][64];
    int nconc;
} call;

static const char *skip_ws(const char *p)
{
    while (*p == ' ')
        p++;
    return p;
}

/* Skips one compact JSON value at p; NULL when malformed. */
static const char *skip_value(const char *p, int depth)
{
    p = skip_ws(p);
    if (depth > 20)
        return NULL;
    if (*p == '[' || *p == '{') {
        char close = *p == '[' ? ']' : '}';
        p = skip_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                if (!(p = skip_value(p, depth + 1)) || *(p = skip_ws(p)) != ':')
                    return NULL;
                p++;
            }
            if (!(p = skip_value(p, depth + 1)))
                return NULL;
            p = skip_ws(p);
            if (*p == close)
                return p + 1;
            if (*p != ',')
                return NULL;
            p++;
        }
    }
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p == '"' ? p + 1 : NULL;
    }
    const char *q = p;
    while (*q && (isalnum((unsigned char)*q) || *q == '-' || *q == '+' || *q == '.'))
        q++;
    return q > p ? q : NULL;
}

/* A flat list of non-negative integers at p, into d; false otherwise. */
static bool parse_int_list(const char *p, const char *end, dims *d)
{
    d->n = 0;
    p = skip_ws(p);
    if (*p != '[')
        return false;
    p = skip_ws(p + 1);
    if (*p == ']')
        return true;
    while (p < end) {
        char *e;
        if (!isdigit((unsigned char)*p))
            return false;
        long long v = strtoll(p, &e, 10);
        if (e == p || d->n == MAX_DIM)
            return false;
        d->d[d->n++] = v;
        p = skip_ws(e);
        if (*p == ']')
            return true;
        if (*p != ',')
            return false;
        p = skip_ws(p + 1);
    }
    return false;
}

/* "Input Dims": each element a flat list (ok) or anything else (not ok). */
static bool parse_dims(const char *s, call *c)
{
    const char *p = skip_ws(s);
    if (*p != '[')
        return false;
    p = skip_ws(p + 1);
    if (*p == ']')
        return true;
    for (;;) {
        const char *e = skip_value(p, 0);
        if (!e)
            return false;
        if (c->nin < MAX_IN) {
            dims *d = &c->in[c->nin++];
            d->ok = parse_int_list(p, e, d);
        }
        p = skip_ws(e);
        if (*p == ']')
            return *skip_ws(p + 1) == '\0';
        if (*p != ',')
            return false;
        p = skip_ws(p + 1);
    }
}

/* A list of strings (non-strings become ""), at most MAX_IN of them. */
static bool parse_strings(const char *s, char out[][64], size_t width, int *n)
{
    *n = 0;
    if (!s || !*s)
        return false;
    const char *p = skip_ws(s);
    if (*p != '[')
        return false;
    p = skip_ws(p + 1);
    if (*p == ']')
        return true;
    for (;;) {
        const char *e = skip_value(p, 0);
        if (!e)
            return false;
        if (*n < MAX_IN) {
            char *o = (char *)out + (size_t)*n * width;
            size_t k = 0;
            if (*p == '"')
                for (const char *q = p + 1; q < e - 1 && k + 1 < width; q++)
                    o[k++] = *q;
            o[k] = '\0';
            (*n)++;
        }
        p = skip_ws(e);
        if (*p == ']')
            return true;
        if (*p != ',')
            return false;
        p = skip_ws(p + 1);
    }
}

/* Bytes per element of a type (spec, "Bytes per element"); 0: unknown. */
static int type_bytes(const char *t)
{
    static const struct {
        const char *name;
        int b;
    } tab[] = {{"double", 8},
               {"long int", 8},
               {"float", 4},
               {"int", 4},
               {"scalar", 4},
               {"c10::half", 2},
               {"c10::bfloat16", 2},
               {"c10::float8_e4m3fn", 1},
               {"c10::float8_e4m3fnuz", 1},
               {"c10::float8_e5m2", 1},
               {"c10::float8_e8m0fnu", 1},
               {"unsigned char", 1},
               {"signed char", 1},
               {"c10::float4_e2m1fn_x2", 1}};
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (strcasecmp(t, tab[i].name) == 0)
            return tab[i].b;
    return 0;
}

static td_precision type_precision(const char *t)
{
    if (strcasecmp(t, "double") == 0)
        return TD_PREC_FP64;
    if (strcasecmp(t, "float") == 0)
        return TD_PREC_FP32;
    if (strcasecmp(t, "c10::half") == 0)
        return TD_PREC_FP16;
    if (strcasecmp(t, "c10::bfloat16") == 0)
        return TD_PREC_BF16;
    if (strncasecmp(t, "c10::float8_", 12) == 0)
        return TD_PREC_FP8;
    if (strcasecmp(t, "c10::float4_e2m1fn_x2") == 0)
        return TD_PREC_FP4;
    return TD_PREC_UNKNOWN;
}

/* b(T[i]) as a double: NAN when unknown, so that the bytes are. */
static double bw(const call *c, int i)
{
    int b = i < c->ntype ? type_bytes(c->type[i]) : 0;
    return b ? (double)b : NAN;
}

static double prod(const dims *d, int from)
{
    double p = 1;
    for (int i = from; i < d->n; i++)
        p *= (double)d->d[i];
    return p;
}

/* A concrete input read as a boolean: "True" is true (spec: "False" is false). */
static bool conc_true(const call *c, int i)
{
    return i < c->nconc && strcmp(c->conc[i], "True") == 0;
}

/* A concrete input "[a, b]" (or "a"): its integers into v (n of them);
 * false when it is not such a list. */
static bool conc_ints(const call *c, int i, int64_t *v, int *n)
{
    *n = 0;
    if (i >= c->nconc || !c->conc[i][0])
        return false;
    const char *p = c->conc[i];
    while (*p) {
        while (*p == '[' || *p == ' ' || *p == ',' || *p == ']' || *p == '(' || *p == ')')
            p++;
        if (!*p)
            break;
        char *e;
        long long x = strtoll(p, &e, 10);
        if (e == p || *n == MAX_DIM)
            return false;
        v[(*n)++] = x;
        p = e;
    }
    return *n > 0;
}

static bool in_ok(const call *c, int i, int ndim)
{
    return i < c->nin && c->in[i].ok && (ndim < 0 || c->in[i].n == ndim);
}

static int fail(td_perf *o, const char *why)
{
    o->problem = why;
    return -1;
}

static const char *const GEMM_NAMES[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
                                         "aten::_scaled_mm"};
static const char *const SDPA_NAMES[] = {"aten::_scaled_dot_product_flash_attention",
                                         "aten::_scaled_dot_product_efficient_attention",
                                         "aten::_scaled_dot_product_cudnn_attention"};
static const char *const UNARY_NAMES[] = {
    "aten::copy_", "aten::clamp_min", "aten::clamp_min_", "aten::sigmoid", "aten::sigmoid_",
    "aten::rsqrt", "aten::silu",      "aten::silu_",      "aten::neg",     "aten::pow",
    "aten::exp",   "aten::log",       "aten::sqrt",       "aten::tanh",    "aten::relu",
    "aten::relu_", "aten::abs",       "aten::reciprocal", "aten::sin",     "aten::cos",
    "aten::clamp", "aten::clamp_"};
static const char *const BINARY_NAMES[] = {
    "aten::add", "aten::add_", "aten::sub",     "aten::sub_",    "aten::mul", "aten::mul_",
    "aten::div", "aten::div_", "aten::maximum", "aten::minimum", "aten::pow_"};
static const char *const NORM_NAMES[] = {"aten::layer_norm", "aten::native_layer_norm"};

#define IN_LIST(name, list) in_list(name, list, sizeof list / sizeof *list)

static int in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return (int)i;
    return -1;
}

static int gemm(td_perf *o, const call *c, int which)
{
    o->cls = TD_RL_GEMM;
    o->matrix = true;
    double M, N, K, Bt = 1, bias = 0;
    int a;                          /* the first matrix */
    if (which == 0 || which == 4) { /* mm, _scaled_mm */
        if (!in_ok(c, 0, 2) || !in_ok(c, 1, 2))
            return fail(o, "malformed Input Dims");
        a = 0;
        M = (double)c->in[0].d[0];
        K = (double)c->in[0].d[1];
        N = (double)c->in[1].d[1];
    } else if (which == 1) { /* addmm */
        if (!in_ok(c, 1, 2) || !in_ok(c, 2, 2))
            return fail(o, "malformed Input Dims");
        a = 1;
        M = (double)c->in[1].d[0];
        K = (double)c->in[1].d[1];
        N = (double)c->in[2].d[1];
        bias = 1;
    } else if (which == 2) { /* bmm */
        if (!in_ok(c, 0, 3) || !in_ok(c, 1, 3))
            return fail(o, "malformed Input Dims");
        a = 0;
        Bt = (double)c->in[0].d[0];
        M = (double)c->in[0].d[1];
        K = (double)c->in[0].d[2];
        N = (double)c->in[1].d[2];
    } else { /* baddbmm */
        if (!in_ok(c, 1, 3) || !in_ok(c, 2, 3))
            return fail(o, "malformed Input Dims");
        a = 1;
        Bt = (double)c->in[1].d[0];
        M = (double)c->in[1].d[1];
        K = (double)c->in[1].d[2];
        N = (double)c->in[2].d[2];
        bias = 1;
    }
    double b = bw(c, a);
    o->flops = Bt * (2 * M * N * K + bias * M * N);
    if (which == 4) /* fp8 in, 16-bit out */
        o->bytes = (M * K + K * N) * b + M * N * (b == 1 ? 2 : b);
    else
        o->bytes = Bt * (M * K + K * N + M * N + bias * N) * b;
    o->precision = a < c->ntype ? type_precision(c->type[a]) : TD_PREC_UNKNOWN;
    return 1;
}

static int sdpa(td_perf *o, const call *c, int which)
{
    o->cls = TD_RL_ATTENTION;
    o->matrix = true;
    if (!in_ok(c, 0, 4) || !in_ok(c, 1, 4) || !in_ok(c, 2, 4))
        return fail(o, "malformed Input Dims");
    const int64_t *q = c->in[0].d, *k = c->in[1].d, *v = c->in[2].d;
    double B = (double)q[0], Hq = (double)q[1], Nq = (double)q[2], dqk = (double)q[3];
    double Hkv = (double)k[1], Nkv = (double)k[2], dv = (double)v[3];
    bool causal = conc_true(c, which == 0 ? 4 : 6);
    if (causal && Nq != Nkv)
        return fail(o, "causal attention with N_q != N_kv");
    o->flops = B * Hq * (2 * Nq * Nkv * dqk + 2 * Nq * Nkv * dv) / (causal ? 2 : 1);
    double el = B * Hq * Nq * dqk + B * Hkv * Nkv * dqk + B * Hkv * Nkv * dv + B * Hq * Nq * dv;
    o->bytes = el * bw(c, 0);
    o->precision = c->ntype ? type_precision(c->type[0]) : TD_PREC_UNKNOWN;
    return 1;
}

static int conv(td_perf *o, const call *c)
{
    o->cls = TD_RL_CONV;
    o->matrix = true;
    if (!in_ok(c, 0, -1) || !in_ok(c, 1, -1) || c->in[0].n < 3 || c->in[1].n != c->in[0].n)
        return fail(o, "malformed Input Dims");
    if (conc_true(c, 6))
        return fail(o, "transposed convolution (no model)");
    const dims *x = &c->in[0], *w = &c->in[1];
    int sp = x->n - 2;
    int64_t st[MAX_DIM], pa[MAX_DIM], di[MAX_DIM], g[MAX_DIM];
    int ns, np, nd, ng;
    if (!conc_ints(c, 3, st, &ns) || !conc_ints(c, 4, pa, &np) || !conc_ints(c, 5, di, &nd))
        return fail(o, "no stride, padding or dilation in Concrete Inputs");
    int64_t groups = conc_ints(c, 8, g, &ng) ? g[0] : 1;
    if (groups < 1 || w->d[1] * groups != x->d[1])
        return fail(o, "groups do not fit the shapes");
    double out = (double)x->d[0] * (double)w->d[0];
    for (int i = 0; i < sp; i++) {
        int64_t s = st[ns == 1 ? 0 : i < ns ? i : ns - 1];
        int64_t p = pa[np == 1 ? 0 : i < np ? i : np - 1];
        int64_t d = di[nd == 1 ? 0 : i < nd ? i : nd - 1];
        if (s < 1)
            return fail(o, "malformed Concrete Inputs");
        int64_t len = (x->d[2 + i] + 2 * p - d * (w->d[2 + i] - 1) - 1) / s + 1;
        if (len < 1)
            return fail(o, "malformed Input Dims");
        out *= (double)len;
    }
    double bias = in_ok(c, 2, -1) && c->in[2].n > 0 ? prod(&c->in[2], 0) : 0;
    o->flops = 2 * prod(w, 1) * out;
    o->bytes = (prod(x, 0) + prod(w, 0) + out + bias) * bw(c, 0);
    o->precision = c->ntype ? type_precision(c->type[0]) : TD_PREC_UNKNOWN;
    return 1;
}

/* numpy broadcasting of a and b into n elements; false when they do not. */
static bool broadcast(const dims *a, const dims *b, double *n)
{
    int m = a->n > b->n ? a->n : b->n;
    *n = 1;
    for (int i = 0; i < m; i++) {
        int64_t x = i < a->n ? a->d[a->n - 1 - i] : 1, y = i < b->n ? b->d[b->n - 1 - i] : 1;
        if (x != y && x != 1 && y != 1)
            return false;
        *n *= (double)(x > y ? x : y == 1 ? x : y);
    }
    return true;
}

static int elementwise(td_perf *o, const call *c, const char *op, bool binary)
{
    o->cls = TD_RL_ELEMENTWISE;
    o->matrix = false;
    if (!in_ok(c, 0, -1))
        return fail(o, "malformed Input Dims");
    double n1 = prod(&c->in[0], 0);
    bool copy = strcmp(op, "aten::copy_") == 0;
    /* pow(Tensor, Scalar) is unary; pow(Tensor, Tensor) binary. */
    if (strcmp(op, "aten::pow") == 0 && in_ok(c, 1, -1) && c->in[1].n > 0)
        binary = true;
    if (!binary) {
        int in = copy && c->ntype > 1 ? 1 : 0;
        o->flops = n1;
        o->bytes = n1 * bw(c, in) + n1 * bw(c, 0);
    } else {
        if (!in_ok(c, 1, -1))
            return fail(o, "malformed Input Dims");
        double n2 = prod(&c->in[1], 0), n;
        if (!broadcast(&c->in[0], &c->in[1], &n))
            return fail(o, "shapes that do not broadcast");
        double b2 = bw(c, 1);
        o->flops = n;
        o->bytes = n1 * bw(c, 0) + n2 * b2 + n * bw(c, 0);
    }
    o->precision = c->ntype ? type_precision(c->type[0]) : TD_PREC_UNKNOWN;
    return 1;
}

static int layer_norm(td_perf *o, const call *c)
{
    o->cls = TD_RL_NORM;
    o->matrix = false;
    if (!in_ok(c, 0, -1))
        return fail(o, "malformed Input Dims");
    double N = prod(&c->in[0], 0), C;
    int64_t v[MAX_DIM];
    int nv;
    if (in_ok(c, 2, -1) && c->in[2].n > 0)
        C = prod(&c->in[2], 0);
    else if (conc_ints(c, 1, v, &nv)) {
        C = 1;
        for (int i = 0; i < nv; i++)
            C *= (double)v[i];
    } else {
        return fail(o, "no normalized shape");
    }
    double b = bw(c, 0);
    o->flops = 5 * N + 6 * C;
    o->bytes = 2 * N * b + 6 * C * b;
    o->precision = c->ntype ? type_precision(c->type[0]) : TD_PREC_UNKNOWN;
    return 1;
}

int td_perf_model(td_perf *out, const char *op, const char *dims_json, const char *types,
                  const char *concrete)
{
    memset(out, 0, sizeof *out);
    out->bytes = NAN;
    out->precision = TD_PREC_UNKNOWN;
    int g = IN_LIST(op, GEMM_NAMES), a = IN_LIST(op, SDPA_NAMES);
    bool cv = strcmp(op, "aten::convolution") == 0, un = IN_LIST(op, UNARY_NAMES) >= 0,
         bi = IN_LIST(op, BINARY_NAMES) >= 0, ln = IN_LIST(op, NORM_NAMES) >= 0;
    if (g < 0 && a < 0 && !cv && !un && !bi && !ln)
        return 0;
    out->cls = g >= 0   ? TD_RL_GEMM
               : a >= 0 ? TD_RL_ATTENTION
               : cv     ? TD_RL_CONV
               : ln     ? TD_RL_NORM
                        : TD_RL_ELEMENTWISE;
    call *c = calloc(1, sizeof *c);
    if (!c)
        return fail(out, "out of memory");
    int rc;
    if (!dims_json || !*dims_json) {
        rc = fail(out, "no Input Dims");
    } else if (!parse_dims(dims_json, c)) {
        rc = fail(out, "malformed Input Dims");
    } else {
        parse_strings(types, c->type, sizeof c->type[0], &c->ntype);
        parse_strings(concrete, c->conc, sizeof c->conc[0], &c->nconc);
        rc = g >= 0   ? gemm(out, c, g)
             : a >= 0 ? sdpa(out, c, a)
             : cv     ? conv(out, c)
             : ln     ? layer_norm(out, c)
                      : elementwise(out, c, op, bi);
    }
    free(c);
    if (rc > 0 && !(out->flops >= 0 && isfinite(out->flops)))
        rc = fail(out, "malformed Input Dims");
    return rc;
}

const char *td_rl_class_name(td_rl_class c)
{
    static const char *const names[TD_RL_NCLASSES] = {"GEMM",        "attention", "conv",
                                                      "elementwise", "reduction", "norm"};
    return (int)c >= 0 && c < TD_RL_NCLASSES ? names[c] : "unknown";
}

const char *td_precision_name(td_precision p)
{
    static const char *const names[TD_PREC_N] = {"fp64", "fp32", "fp16", "bf16", "fp8", "fp4"};
    return (int)p >= 0 && p < TD_PREC_N ? names[p] : "unknown";
}
