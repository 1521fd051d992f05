/* Views over the diff rows: filter by regex, sort by a column, cut to top N. */
#include "util/util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_suffix[TD_NCOLUMNS] = {"name",
                                                    "counts",
                                                    "total_duration",
                                                    "counts",
                                                    "total_duration",
                                                    "diff_counts",
                                                    "diff_duration",
                                                    "counts_change_categories",
                                                    "abs_diff_counts",
                                                    "abs_diff_duration"};

int td_column_parse(const char *text, const char *cl, const char *tl)
{
    if (!text)
        return TD_EUSAGE;
    cl = cl ? cl : "control";
    tl = tl ? tl : "test";
    if (strcmp(text, "short_name") == 0 || strcmp(text, "op") == 0 || strcmp(text, "top_op") == 0 ||
        strcmp(text, "annotation") == 0 || strcmp(text, "class") == 0)
        return TD_COL_NAME;
    if (strcmp(text, "q") == 0 || strcmp(text, "q_value") == 0)
        return TD_COL_Q;
    if (strcmp(text, "change") == 0 || strcmp(text, "change_pct") == 0)
        return TD_COL_CHANGE;
    for (int c = 0; c < TD_NCOLUMNS; c++) {
        const char *label = NULL;
        if (c == TD_COL_CONTROL_COUNTS || c == TD_COL_CONTROL_DURATION)
            label = cl;
        else if (c == TD_COL_TEST_COUNTS || c == TD_COL_TEST_DURATION)
            label = tl;
        if (!label) {
            if (strcmp(text, col_suffix[c]) == 0)
                return c;
            continue;
        }
        size_t ln = strlen(label);
        if (strncmp(text, label, ln) == 0 && text[ln] == '_' &&
            strcmp(text + ln + 1, col_suffix[c]) == 0)
            return c;
    }
    return TD_EUSAGE;
}

static double col_value(const td_diff *d, const td_row *r, int col, const td_stats *st, size_t i)
{
    switch (col) {
    case TD_COL_Q:
        return st ? td_stats_rows(st)[i].q : NAN;
    case TD_COL_CHANGE:
        return st ? td_stats_rows(st)[i].change_pct : NAN;
    case TD_COL_CONTROL_COUNTS:
        return td_row_count(d, r, 0);
    case TD_COL_CONTROL_DURATION:
        return r->duration[0];
    case TD_COL_TEST_COUNTS:
        return td_row_count(d, r, 1);
    case TD_COL_TEST_DURATION:
        return r->duration[1];
    case TD_COL_DIFF_COUNTS:
        return td_row_diff_count(d, r);
    case TD_COL_DIFF_DURATION:
        return r->diff_duration;
    case TD_COL_CATEGORY:
        return r->category == '+' ? 1 : r->category == '-' ? -1 : 0;
    case TD_COL_ABS_DIFF_COUNTS:
        return fabs(td_row_diff_count(d, r));
    case TD_COL_ABS_DIFF_DURATION:
        return fabs(r->diff_duration);
    default:
        return 0;
    }
}

static int name_cmp(const td_row *x, const td_row *y)
{
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* qsort has no context argument in C11: sort (key, row) pairs instead. */
typedef struct keyed {
    double key; /* NaN (no q, no change) sorts last whatever the direction */
    const td_row *row;
    size_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (isnan(x->key) != isnan(y->key))
        return isnan(x->key) ? 1 : -1;
    if (x->key != y->key && !isnan(x->key))
        return x->key < y->key ? -1 : 1;
    /* Ties by name, always ascending, so output is stable and readable. */
    int c = name_cmp(x->row, y->row);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_keyed_name(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = name_cmp(x->row, y->row);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static bool is_step_row(const td_row *r)
{
    return r->name_len >= 12 && memcmp(r->name, "ProfilerStep", 12) == 0;
}

/* A compiled --include or --exclude pattern. */
typedef struct view_re {
    pcre2_code *code;
    pcre2_match_data *md;
    pcre2_match_context *mc;
    const char *opt, *pattern; /* for messages */
} view_re;

/* PCRE2 (Perl-compatible, as Python's re) compiles in one bounded pass
 * over the pattern: repetitions are not expanded by copying without end
 * (the compiled form is capped, nesting too), so no pattern takes long or
 * much memory to compile, unlike glibc's regcomp. Matching backtracks; these
 * limits make a pathological pattern ("(a+)+$" on a long name) fail with a
 * message in a few milliseconds instead of running for hours. */
#define RE_MAX_PATTERN 65536u   /* bytes */
#define RE_MATCH_LIMIT 1000000u /* backtracking steps per name */
#define RE_DEPTH_LIMIT 100000u  /* nested backtracking points per name */
#define RE_HEAP_LIMIT 65536u    /* KiB of backtracking memory per name */

static void re_free(view_re *r)
{
    pcre2_match_context_free(r->mc);
    pcre2_match_data_free(r->md);
    pcre2_code_free(r->code);
    memset(r, 0, sizeof *r);
}

/* PCRE2's own words for an error code. */
static const char *re_why(int code, PCRE2_UCHAR *why, size_t n)
{
    if (pcre2_get_error_message(code, why, n) < 0)
        snprintf((char *)why, n, "error %d", code);
    return (const char *)why;
}

static int re_compile(view_re *r, const char *pattern, const char *opt, td_error *err)
{
    memset(r, 0, sizeof *r);
    r->opt = opt;
    r->pattern = pattern;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (!cc)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    pcre2_set_max_pattern_length(cc, RE_MAX_PATTERN);
    int code;
    PCRE2_SIZE at;
    /* Names are UTF-8 (the scanner checks them), but escaped lone
     * surrogates are kept as their 3-byte forms: match those too. */
    r->code = pcre2_compile(
        (PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
        PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C, &code, &at, cc);
    pcre2_compile_context_free(cc);
    if (!r->code) {
        if (code == PCRE2_ERROR_NOMEMORY)
            return td_fail(err, TD_ENOMEM, "", "out of memory");
        PCRE2_UCHAR why[160];
        return td_fail(err, TD_EUSAGE, "",
                       "%s '%s': not a valid regular expression: %s (at byte %zu)", opt, pattern,
                       re_why(code, why, sizeof why), (size_t)at);
    }
    r->md = pcre2_match_data_create(1, NULL);
    r->mc = pcre2_match_context_create(NULL);
    if (!r->md || !r->mc) {
        re_free(r);
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    pcre2_set_match_limit(r->mc, RE_MATCH_LIMIT);
    pcre2_set_depth_limit(r->mc, RE_DEPTH_LIMIT);
    pcre2_set_heap_limit(r->mc, RE_HEAP_LIMIT);
    return 0;
}

/* 1 when the pattern matches somewhere in the whole name (NUL bytes
 * included), 0 when not, < 0 when the matcher gave up. */
static int re_match(const view_re *r, const td_row *row, td_error *err)
{
    int rc = pcre2_match(r->code, (PCRE2_SPTR)row->name, row->name_len, 0, 0, r->md, r->mc);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_NOMEMORY)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    PCRE2_UCHAR why[160];
    return td_fail(err, TD_EUSAGE, "",
                   "%s '%s': the regex engine gave up on a name of %zu bytes: %s; write the "
                   "pattern with less backtracking",
                   r->opt, r->pattern, row->name_len, re_why(rc, why, sizeof why));
}

/* 1 when the row passes --include and --exclude (either may be unset), 0
 * when not, < 0 when the matcher gave up. */
static int re_keep(const view_re *inc, const view_re *exc, const td_row *row, td_error *err)
{
    int hit = inc->code ? re_match(inc, row, err) : 1;
    if (hit <= 0)
        return hit;
    hit = exc->code ? re_match(exc, row, err) : 0;
    return hit < 0 ? hit : !hit;
}

long td_view_make(size_t **out, const td_diff *d, const td_view_opts *o, td_error *err)
{
    *out = NULL;
    td_view_opts oc;
    long rc = TD_OPTS_TAKE(&oc, o, td_view_opts, TD_VIEW_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    o = &oc;
    view_re inc = {0}, exc = {0};
    keyed *k = NULL;
    size_t *idx = NULL;
    if (o->include && (rc = re_compile(&inc, o->include, "--include", err)) < 0)
        goto done;
    if (o->exclude && (rc = re_compile(&exc, o->exclude, "--exclude", err)) < 0)
        goto done;
    size_t n = td_diff_nrows(d);
    const td_row *rows = td_diff_rows(d);
    k = malloc((n + 1) * sizeof *k);
    idx = malloc((n + 1) * sizeof *idx);
    if (!k || !idx) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[i];
        if (o->exclude_steps && is_step_row(r))
            continue;
        int keep = re_keep(&inc, &exc, r, err);
        if (keep < 0) {
            rc = keep;
            goto done;
        }
        if (!keep)
            continue;
        k[m].row = r;
        k[m].idx = i;
        /* Descending (the default for numbers) sorts the negated key. */
        double v = o->has_sort ? col_value(d, r, o->sort, o->stats, i) : 0;
        /* q sorts most significant first unless --ascending turns it. */
        bool up = o->sort == TD_COL_Q ? !o->ascending : o->ascending;
        k[m].key = up ? v : -v;
        m++;
    }
    if (o->has_sort) {
        bool by_name = o->sort == TD_COL_NAME;
        qsort(k, m, sizeof *k, by_name ? cmp_keyed_name : cmp_keyed);
    }
    if (o->top && m > o->top)
        m = o->top;
    for (size_t i = 0; i < m; i++)
        idx[i] = k[i].idx;
    *out = idx;
    idx = NULL;
    rc = (long)m;
done:
    free(k);
    free(idx);
    re_free(&inc);
    re_free(&exc);
    return rc;
}

size_t td_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cut)
{
    size_t prev[TD_EDIT_MAX + 1], cur[TD_EDIT_MAX + 1];
    cut = cut < TD_EDIT_MAX ? cut : TD_EDIT_MAX;
    la = la > cut ? cut : la;
    lb = lb > cut ? cut : lb;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

typedef struct near {
    size_t dist, row;
} near;

static int by_dist(const void *x, const void *y)
{
    const near *a = x, *b = y;
    if (a->dist != b->dist)
        return a->dist < b->dist ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

long td_diff_closest(const td_diff *diff, const char *name, size_t *out, size_t k)
{
    size_t n = td_diff_nrows(diff), m = 0;
    const td_row *rows = td_diff_rows(diff);
    near *v = malloc((n + 1) * sizeof *v);
    if (!v)
        return TD_ENOMEM;
    size_t len = strlen(name);
    for (size_t r = 0; r < n; r++)
        if (strcmp(rows[r].name, TD_UNATTRIBUTED) != 0)
            v[m++] =
                (near){td_edit_distance(name, len, rows[r].name, rows[r].name_len, TD_EDIT_MAX), r};
    qsort(v, m, sizeof *v, by_dist);
    size_t got = m < k ? m : k;
    for (size_t i = 0; i < got; i++)
        out[i] = v[i].row;
    free(v);
    return (long)got;
}
