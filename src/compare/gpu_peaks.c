/*
 * GPUs and their peaks (docs/roofline.md, "GPUs"): the vendors' datasheet
 * figures, dense (no sparsity), per unit and precision; the match of a
 * trace's deviceProperties name; a user's file in TraceLens's arch format.
 */
#include "util/util.h"
#include "read/json_scan.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define X NAN
/* {matrix fp64, fp32, fp16, bf16, fp8, fp4}, {vector ...}. */
static const td_gpu TABLE[] = {
    {"V100 SXM2",
     900,
     {{7.8, 15.7, 125, X, X, X}, {7.8, 15.7, X, X, X, X}},
     "NVIDIA Tesla V100 GPU datasheet (V100 SXM2)"},
    {"A100 PCIe 40GB",
     1555,
     {{19.5, 19.5, 312, 312, X, X}, {9.7, 19.5, X, X, X, X}},
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"A100 PCIe 80GB",
     1935,
     {{19.5, 19.5, 312, 312, X, X}, {9.7, 19.5, X, X, X, X}},
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"A100 SXM 40GB",
     1555,
     {{19.5, 19.5, 312, 312, X, X}, {9.7, 19.5, X, X, X, X}},
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"A100 SXM 80GB",
     2039,
     {{19.5, 19.5, 312, 312, X, X}, {9.7, 19.5, X, X, X, X}},
     "NVIDIA A100 Tensor Core GPU datasheet"},
    {"H100 PCIe",
     2000,
     {{51, 51, 756.5, 756.5, 1513, X}, {26, 51, X, X, X, X}},
     "NVIDIA H100 Tensor Core GPU datasheet"},
    {"H100 SXM",
     3350,
     {{67, 67, 989.5, 989.5, 1979, X}, {34, 67, X, X, X, X}},
     "NVIDIA H100 Tensor Core GPU datasheet"},
    {"H200",
     4800,
     {{67, 67, 989.5, 989.5, 1979, X}, {34, 67, X, X, X, X}},
     "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM)"},
    {"B200",
     7700,
     {{37, 75, 2250, 2250, 4500, 9000}, {37, 75, X, X, X, X}},
     "NVIDIA HGX B200 datasheet (per GPU, dense: half the sparse figures)"},
    {"L40S",
     864,
     {{X, 91.6, 362.05, 362.05, 733, X}, {X, 91.6, X, X, X, X}},
     "NVIDIA L40S GPU datasheet"},
    /* Per GCD: PyTorch sees each of the package's two dies as a device. */
    {"MI250X",
     1638.4,
     {{47.85, 47.85, 191.5, 191.5, X, X}, {23.95, 23.95, X, X, X, X}},
     "AMD Instinct MI250X accelerator specifications (per GCD: half the package's figures)"},
    {"MI300X",
     5300,
     {{163.4, 163.4, 1307.4, 1307.4, 2614.9, X}, {81.7, 163.4, X, X, X, X}},
     "AMD Instinct MI300X accelerator data sheet"},
    {"MI325X",
     6000,
     {{163.4, 163.4, 1307.4, 1307.4, 2614.9, X}, {81.7, 163.4, X, X, X, X}},
     "AMD Instinct MI325X accelerator data sheet"},
    {"MI355X",
     8000,
     {{78.6, 157.3, 2516.6, 2516.6, 5033.2, 10066.3}, {78.6, 157.3, X, X, X, X}},
     "AMD Instinct MI355X GPU specifications"},
};
#undef X

#define NTABLE (sizeof TABLE / sizeof *TABLE)

const td_gpu *td_gpu_table(size_t *n)
{
    *n = NTABLE;
    return TABLE;
}

static bool has(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (strncasecmp(s, w, n) == 0)
            return true;
    return false;
}

static const td_gpu *by_name(const char *name)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (strcmp(TABLE[i].name, name) == 0)
            return &TABLE[i];
    return NULL;
}

const td_gpu *td_gpu_detect(const char *d)
{
    if (!d)
        return NULL;
    if (has(d, "A100")) {
        bool pcie = has(d, "PCIe"), big = has(d, "80GB") || has(d, "80 GB");
        return by_name(pcie ? (big ? "A100 PCIe 80GB" : "A100 PCIe 40GB")
                            : (big ? "A100 SXM 80GB" : "A100 SXM 40GB"));
    }
    if (has(d, "H100"))
        return has(d, "NVL") ? NULL : by_name(has(d, "PCIe") ? "H100 PCIe" : "H100 SXM");
    static const char *const plain[] = {"V100",   "H200",   "B200",   "L40S",
                                        "MI250X", "MI300X", "MI325X", "MI355X"};
    static const char *const entry[] = {"V100 SXM2", "H200",   "B200",   "L40S",
                                        "MI250X",    "MI300X", "MI325X", "MI355X"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (has(d, plain[i]))
            return by_name(entry[i]);
    return NULL;
}

/* A name as the user types it: case, spaces, '-' and '_' do not matter. */
static bool same_name(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '-' || *a == '_')
            a++;
        while (*b == ' ' || *b == '-' || *b == '_')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        if (tolower((unsigned char)*a++) != tolower((unsigned char)*b++))
            return false;
    }
}

static long file_read(void *ud, char *buf, size_t cap, td_error *err)
{
    FILE *f = ud;
    size_t n = fread(buf, 1, cap, f);
    if (n == 0 && ferror(f))
        return td_fail(err, TD_EIO, "", "read error");
    return (long)n;
}

/* "matrix_bf16" -> unit and precision; false for keys we do not use. */
static bool arch_key(const char *k, size_t kl, int *unit, int *prec)
{
    static const char *const p[] = {"fp64", "fp32", "fp16", "bf16", "fp8", "fp4"};
    if (kl > 7 && memcmp(k, "matrix_", 7) == 0)
        *unit = 0, k += 7, kl -= 7;
    else if (kl > 7 && memcmp(k, "vector_", 7) == 0)
        *unit = 1, k += 7, kl -= 7;
    else
        return false;
    for (int i = 0; i < TD_PREC_N; i++)
        if (kl == strlen(p[i]) && memcmp(k, p[i], kl) == 0) {
            *prec = i;
            return true;
        }
    return false;
}

static int arch_number(td_json *j, const char *path, const char *what, double *out)
{
    int c = td_json_peek(j);
    if (c != '-' && !(c >= '0' && c <= '9'))
        return td_fail_at(j->err, TD_ETRACE, path, td_json_offset(j), "%s is not a number", what);
    td_json_num n;
    int rc = td_json_number(j, &n);
    if (rc == 0 && !(n.d > 0))
        return td_fail_at(j->err, TD_ETRACE, path, td_json_offset(j), "%s is not positive", what);
    *out = n.d;
    return rc;
}

static int arch_peaks(td_json *j, td_gpu *g, const char *path)
{
    if (td_json_peek(j) != '{')
        return td_fail_at(j->err, TD_ETRACE, path, td_json_offset(j),
                          "max_achievable_tflops is not an object");
    int rc = td_json_obj_begin(j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        int unit, prec;
        if (!arch_key(k, kl, &unit, &prec)) {
            rc = td_json_skip(j);
            continue;
        }
        rc = arch_number(j, path, "a peak of max_achievable_tflops", &g->tflops[unit][prec]);
    }
    return rc;
}

static int read_arch(td_gpu *g, const char *path, td_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return td_fail(err, TD_EIO, path, "cannot open: %s", strerror(errno));
    td_json j;
    memset(g, 0, sizeof *g);
    g->mem_bw_gbps = NAN;
    for (int u = 0; u < 2; u++)
        for (int p = 0; p < TD_PREC_N; p++)
            g->tflops[u][p] = NAN;
    int rc = td_json_init(&j, file_read, f, path, err);
    if (rc == 0 && td_json_peek(&j) != '{')
        rc = td_fail_at(err, TD_ETRACE, path, 0, "not a GPU file: the top level is not an object");
    if (rc == 0)
        rc = td_json_obj_begin(&j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(&j, &first, &k, &kl)) > 0) {
        if (kl == 4 && memcmp(k, "name", 4) == 0 && td_json_peek(&j) == '"') {
            const char *s;
            size_t sl;
            if ((rc = td_json_string(&j, &s, &sl)) == 0)
                snprintf(g->name, sizeof g->name, "%.*s", (int)sl, s);
        } else if (kl == 11 && memcmp(k, "mem_bw_gbps", 11) == 0) {
            rc = arch_number(&j, path, "mem_bw_gbps", &g->mem_bw_gbps);
        } else if (kl == 21 && memcmp(k, "max_achievable_tflops", 21) == 0) {
            rc = arch_peaks(&j, g, path);
        } else {
            rc = td_json_skip(&j);
        }
    }
    if (rc >= 0)
        rc = td_json_end(&j);
    td_json_free(&j);
    fclose(f);
    if (rc >= 0 && isnan(g->mem_bw_gbps))
        rc = td_fail(err, TD_ETRACE, path, "not a GPU file: no mem_bw_gbps");
    if (rc >= 0 && !g->name[0])
        snprintf(g->name, sizeof g->name, "%s", path);
    return rc < 0 ? rc : 0;
}

int td_gpu_resolve(td_gpu *out, const char *spec, td_error *err)
{
    for (size_t i = 0; i < NTABLE; i++)
        if (same_name(spec, TABLE[i].name)) {
            *out = TABLE[i];
            return 0;
        }
    size_t n = strlen(spec);
    if (n > 5 && strcasecmp(spec + n - 5, ".json") == 0)
        return read_arch(out, spec, err);
    const td_gpu *g = td_gpu_detect(spec);
    if (g) {
        *out = *g;
        return 0;
    }
    char known[512];
    size_t at = 0;
    for (size_t i = 0; i < NTABLE && at < sizeof known; i++)
        at += (size_t)snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "", TABLE[i].name);
    return td_fail(err, TD_EUSAGE, "",
                   "unknown GPU '%s' (known: %s; or a FILE.json in TraceLens's arch format)", spec,
                   known);
}
