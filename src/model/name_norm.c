/*
 * Names that differ only by noise (docs/numbers.md, "Normalized names"):
 * memory addresses, Python source line numbers, step numbers, Inductor's
 * graph hashes and Triton kernels' trailing numbers are replaced by an
 * ellipsis (td_normalize_name), so that such names group into one row or
 * one line of a trend. td_name_key makes the key they group under: the
 * user's rules (rename.c), this folding, then the short name, as asked. The
 * diff and the statistics both group by it, so they count the same events
 * under the same row.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xE2\x80\xA6"

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the noise at s[i] (what to replace by "…", after the kept
 * prefix of keep bytes), or 0 when none starts there. */
static size_t noise_at(const char *s, size_t len, size_t i, unsigned what, size_t *keep)
{
    /* 0x + at least 6 hex digits: an address ("at 0x7f3a2c01b2e0"). */
    if ((what & TD_NORM_ADDRESSES) && s[i] == '0' && i + 1 < len &&
        (s[i + 1] == 'x' || s[i + 1] == 'X') && (i == 0 || !is_hex(s[i - 1]))) {
        size_t k = i + 2;
        while (k < len && is_hex(s[k]))
            k++;
        if (k - (i + 2) >= 6) {
            *keep = 2;
            return k - i;
        }
    }
    /* ".py(" + digits + ")": a source line in a python_function name. */
    if ((what & TD_NORM_LINES) && s[i] == '.' && i + 4 < len && memcmp(s + i, ".py(", 4) == 0) {
        size_t k = i + 4;
        while (k < len && is_digit(s[k]))
            k++;
        if (k > i + 4 && k < len && s[k] == ')') {
            *keep = 4;
            return k - i; /* the ')' stays */
        }
    }
    /* "CompiledFxGraph " + a hash of 6 or more letters and digits: the
     * graph Inductor (or AOTAutograd) compiled, whose hash changes with
     * the PyTorch version, the inputs' shapes and the code. */
    if ((what & TD_NORM_GRAPHS) && s[i] == 'C' && len - i > 16 &&
        memcmp(s + i, "CompiledFxGraph ", 16) == 0) {
        size_t k = i + 16;
        while (k < len && (is_digit(s[k]) || (s[k] >= 'a' && s[k] <= 'z')))
            k++;
        if (k - (i + 16) >= 6) {
            *keep = 16;
            return k - i;
        }
    }
    return 0;
}

/* A Triton kernel Inductor generated, "triton_<kind>_..._<N>": the length
 * of its trailing number (after the last '_'), else 0. */
static size_t triton_suffix(const char *s, size_t len)
{
    if (len < 9 || memcmp(s, "triton_", 7) != 0)
        return 0;
    size_t k = len;
    while (k > 7 && is_digit(s[k - 1]))
        k--;
    return k < len && s[k - 1] == '_' ? len - k : 0;
}

int td_normalize_name(char **out, size_t *out_len, const char *s, size_t len, unsigned what)
{
    *out = NULL;
    *out_len = 0;
    if (!what)
        what = TD_NORM_ALL;
    /* Noise of k >= 5 bytes becomes at most k + 2: 2 * len + 8 bounds the result. */
    char *b = malloc(2 * len + 8);
    if (!b)
        return TD_ENOMEM;
    size_t n = 0;
    int64_t step;
    if ((what & TD_NORM_STEPS) && td_step_number(s, len, &step)) {
        memcpy(b, "ProfilerStep#" ELLIPSIS, 16);
        *out = b;
        *out_len = 16;
        return 0;
    }
    size_t tri = (what & TD_NORM_TRITON) ? triton_suffix(s, len) : 0;
    len -= tri;
    for (size_t i = 0; i < len;) {
        size_t keep = 0, k = noise_at(s, len, i, what, &keep);
        if (k) {
            memcpy(b + n, s + i, keep);
            n += keep;
            memcpy(b + n, ELLIPSIS, 3);
            n += 3;
            i += k;
        } else {
            b[n++] = s[i++];
        }
    }
    if (tri) {
        memcpy(b + n, ELLIPSIS, 3);
        n += 3;
    }
    *out = b;
    *out_len = n;
    return 0;
}

int td_name_key(char **out, size_t *out_len, const char *s, size_t len, int short_names,
                int normalize, const td_renames *rn)
{
    *out = NULL;
    *out_len = len;
    char *renamed = NULL;
    if (rn) {
        if (td_renames_apply(rn, &renamed, &len, s, len) < 0)
            return TD_ENOMEM;
        if (renamed)
            s = renamed;
    }
    char *norm = renamed;
    size_t nl = len;
    if (normalize) {
        if (td_normalize_name(&norm, &nl, s, len, TD_NORM_ALL) < 0) {
            free(renamed);
            return TD_ENOMEM;
        }
        if (norm) {
            free(renamed);
            s = norm;
            len = nl;
        } else {
            norm = renamed;
        }
    }
    if (!short_names) {
        *out = norm;
        *out_len = nl;
        return 0;
    }
    int rc = td_short_name(out, out_len, s, len);
    free(norm);
    return rc;
}
