/* Views over the diff rows: filter by regex, sort by a column, cut to top N. */
#include "internal.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char *const col_suffix[TD_NCOLUMNS] = {
    "name", "counts", "total_duration", "counts", "total_duration", "diff_counts",
    "diff_duration", "counts_change_categories", "abs_diff_counts", "abs_diff_duration"};

int td_column_parse(const char *text, const char *cl, const char *tl)
{
    if (!text)
        return TD_EUSAGE;
    cl = cl ? cl : "control";
    tl = tl ? tl : "test";
    if (strcmp(text, "short_name") == 0)
        return TD_COL_NAME;
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

static double col_value(const td_row *r, int col)
{
    switch (col) {
    case TD_COL_CONTROL_COUNTS: return (double)r->counts[0];
    case TD_COL_CONTROL_DURATION: return r->duration[0];
    case TD_COL_TEST_COUNTS: return (double)r->counts[1];
    case TD_COL_TEST_DURATION: return r->duration[1];
    case TD_COL_DIFF_COUNTS: return (double)r->diff_counts;
    case TD_COL_DIFF_DURATION: return r->diff_duration;
    case TD_COL_CATEGORY: return r->category == '+' ? 1 : r->category == '-' ? -1 : 0;
    case TD_COL_ABS_DIFF_COUNTS: return fabs((double)r->diff_counts);
    case TD_COL_ABS_DIFF_DURATION: return fabs(r->diff_duration);
    default: return 0;
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
    double key;
    const td_row *row;
    size_t idx;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
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

/* regexec needs a NUL-terminated string; names may hold NUL bytes (from
 * \u0000), which then end the text the regex sees. */
static int match(const regex_t *re, const td_row *r)
{
    return regexec(re, r->name, 0, NULL, 0) == 0;
}

long td_view_make(size_t **out, const td_diff *d, const td_view_opts *o, td_error *err)
{
    *out = NULL;
    td_view_opts zero = {0};
    if (!o)
        o = &zero;
    regex_t inc, exc;
    int have_inc = 0, have_exc = 0;
    long rc;
    if (o->include) {
        if (regcomp(&inc, o->include, REG_EXTENDED | REG_NOSUB) != 0)
            return td_fail(err, TD_EUSAGE, "", "--include '%s': not a valid regular expression",
                           o->include);
        have_inc = 1;
    }
    if (o->exclude) {
        if (regcomp(&exc, o->exclude, REG_EXTENDED | REG_NOSUB) != 0) {
            if (have_inc)
                regfree(&inc);
            return td_fail(err, TD_EUSAGE, "", "--exclude '%s': not a valid regular expression",
                           o->exclude);
        }
        have_exc = 1;
    }
    size_t n = td_diff_nrows(d);
    const td_row *rows = td_diff_rows(d);
    keyed *k = malloc((n + 1) * sizeof *k);
    size_t *idx = malloc((n + 1) * sizeof *idx);
    if (!k || !idx) {
        free(k);
        free(idx);
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[i];
        if (o->exclude_steps && is_step_row(r))
            continue;
        if (have_inc && !match(&inc, r))
            continue;
        if (have_exc && match(&exc, r))
            continue;
        k[m].row = r;
        k[m].idx = i;
        /* Descending (the default for numbers) sorts the negated key. */
        double v = o->has_sort ? col_value(r, o->sort) : 0;
        k[m].key = o->ascending ? v : -v;
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
    free(k);
    *out = idx;
    rc = (long)m;
done:
    if (have_inc)
        regfree(&inc);
    if (have_exc)
        regfree(&exc);
    return rc;
}
