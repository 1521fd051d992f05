/*
 * Kernel classes (docs/attribution.md): an ordered table of (class, regex)
 * rules matched against a kernel's name, first match wins, "other" when
 * none does. The built-in table is below; a user's rules file replaces it.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "util/util.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The order matters: communication kernels often name a reduction, flash
 * attention kernels name a GEMM, cuDNN names its batch-norm kernels "cudnn",
 * convolution kernels name an implicit GEMM. Kept in step with the table in
 * docs/attribution.md. */
static const char *const builtin[][2] = {
    {"communication", "nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|"
                      "sendrecv|broadcast|cross_device_reduce"},
    {"attention", "flash|fmha|sdpa|attn|attention|scaled_dot_product|mha_fwd|mha_bwd"},
    {"normalization", "norm|bn_fw|bn_bw"},
    {"convolution", "conv|winograd|cudnn|miopen|implicit_convolve|igemm|implicit_gemm"},
    {"gemm", "gemm|matmul|cutlass|cublas|hipblaslt|rocblas|Cijk_|xmma|wgmma|gemv|splitk|"
             "triton_tem_fused.*mm|\\bbmm|_mm_|^mm_"},
    {"memcpy", "memcpy|^dma"},
    {"memset", "memset"},
    {"embedding", "embedding|embs_|index_?select|bounds_check_indices|gather|scatter"},
    {"optimizer", "multi_tensor_apply|adam|sgd|adagrad|lamb_"},
    {"reduction", "reduce|reduction|softmax|cub::|triton_red_|triton_per_|argmax|argmin|"
                  "\\bsum_|mean_|scan_kernel"},
    {"elementwise", "elementwise|vectorized|pointwise|triton_poi_|copy_kernel|fill_kernel|"
                    "activation|gelu|relu|silu|dropout|index_kernel|cat_?array|tanh|sigmoid|"
                    "copy"},
};

typedef struct rule {
    char *cls, *pattern;
    pcre2_code *code;
} rule;

struct td_classes {
    rule *r;
    size_t n, cap;
    pcre2_match_data *md;
};

void td_classes_free(td_classes *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->r[i].cls);
        free(c->r[i].pattern);
        pcre2_code_free(c->r[i].code);
    }
    free(c->r);
    pcre2_match_data_free(c->md);
    free(c);
}

/* Appends a rule; on a bad pattern, msg says why. */
static int add_rule(td_classes *c, const char *cls, size_t cl, const char *pat, char *msg,
                    size_t cap)
{
    int ec;
    PCRE2_SIZE eo;
    pcre2_code *code =
        pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
                      PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
    if (!code) {
        char why[160];
        pcre2_get_error_message(ec, (PCRE2_UCHAR *)why, sizeof why);
        snprintf(msg, cap, "bad regex at offset %zu: %s", (size_t)eo, why);
        return TD_EUSAGE;
    }
    rule *nr = td_grow(c->r, &c->cap, c->n + 1, sizeof *nr);
    if (!nr) {
        pcre2_code_free(code);
        snprintf(msg, cap, "out of memory");
        return TD_ENOMEM;
    }
    c->r = nr;
    rule *r = &c->r[c->n];
    r->cls = strndup(cls, cl);
    r->pattern = strdup(pat);
    r->code = code;
    c->n++;
    if (!r->cls || !r->pattern) {
        snprintf(msg, cap, "out of memory");
        return TD_ENOMEM;
    }
    return 0;
}

static td_classes *classes_new(void)
{
    td_classes *c = calloc(1, sizeof *c);
    if (c && !(c->md = pcre2_match_data_create(1, NULL))) {
        free(c);
        return NULL;
    }
    return c;
}

int td_classes_default(td_classes **out, td_error *err)
{
    *out = NULL;
    td_classes *c = classes_new();
    if (!c)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    char msg[200];
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        int rc = add_rule(c, builtin[i][0], strlen(builtin[i][0]), builtin[i][1], msg, sizeof msg);
        if (rc < 0) {
            td_classes_free(c);
            return td_fail(err, rc, "", "built-in class rule %zu: %s", i + 1, msg);
        }
    }
    *out = c;
    return 0;
}

/* One line of a rules file (without its newline). */
static int parse_line(td_classes *c, char *line, const char *path, size_t lineno, td_error *err)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len == 0 || line[0] == '#')
        return 0;
    char *tab = strchr(line, '\t');
    if (!tab || tab == line || tab[1] == '\0')
        return td_fail(err, TD_EUSAGE, path, "line %zu: expected class<TAB>regex", lineno);
    char msg[200];
    int rc = add_rule(c, line, (size_t)(tab - line), tab + 1, msg, sizeof msg);
    if (rc < 0)
        return td_fail(err, rc, path, "line %zu: %s", lineno, msg);
    return 0;
}

int td_classes_load(td_classes **out, const char *path, td_error *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return td_fail(err, TD_EIO, path, "%s", strerror(errno));
    td_classes *c = classes_new();
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int rc = c ? 0 : td_fail(err, TD_ENOMEM, path, "out of memory");
    while (rc == 0 && getline(&line, &cap, fp) >= 0) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        rc = parse_line(c, line, path, lineno, err);
    }
    if (rc == 0 && ferror(fp))
        rc = td_fail(err, TD_EIO, path, "read error");
    if (rc == 0 && c->n == 0)
        rc = td_fail(err, TD_EUSAGE, path, "no rules (expected class<TAB>regex lines)");
    free(line);
    fclose(fp);
    if (rc < 0) {
        td_classes_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

size_t td_classes_count(const td_classes *c)
{
    return c->n;
}

void td_classes_rule(const td_classes *c, size_t i, const char **cls, const char **pattern)
{
    *cls = c->r[i].cls;
    *pattern = c->r[i].pattern;
}

const char *td_classes_match(const td_classes *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->n; i++)
        if (pcre2_match(c->r[i].code, (PCRE2_SPTR)name, len, 0, 0, c->md, NULL) >= 0)
            return c->r[i].cls;
    return "other";
}
