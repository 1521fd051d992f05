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

/* glibc's regcomp copies a subexpression once more for each '+' or interval
 * applied to it, so "a++++...", "((a+)+)+..." or "(a{300}){300}" grow as
 * 2^n or as the product of the counts; and each part that can match nothing
 * ("a*", "a?", "a{0,9}") costs memory in proportion to the whole (epsilon
 * closures): "a*++++++++++++++" takes minutes and 14 GB. And repetitions
 * nested four deep take exponential time with few copies: "e{,5}{,5}{1,5}+"
 * takes 80 s. Copies and depth are bounded here, before compiling. */
#define RE_MAX_COPIES (1u << 15)
#define RE_MAX_NULLABLE 256u
#define RE_MAX_COST (1u << 18) /* optional parts x all parts */
#define RE_MAX_DEPTH 3            /* "((a+)+)+" at most */

static uint64_t re_add(uint64_t a, uint64_t b)
{
    return a + b > RE_MAX_COPIES ? RE_MAX_COPIES + 1 : a + b;
}

static uint64_t re_mul(uint64_t a, uint64_t b)
{
    return b && a > RE_MAX_COPIES / b ? RE_MAX_COPIES + 1 : a * b;
}

/* The last byte of the bracket expression opening at p (or of re). */
static const char *re_bracket_end(const char *p)
{
    const char *q = p + 1;
    if (*q == '^')
        q++;
    if (*q == ']')
        q++;
    while (*q && *q != ']') {
        if (*q == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
            char c = q[1];
            q += 2;
            while (*q && !(q[0] == c && q[1] == ']'))
                q++;
            q += *q ? 2 : 0;
            continue;
        }
        q++;
    }
    return *q ? q : q - 1;
}

/* The copy count of a repetition at p ('*', '+', '?' or an interval), with
 * *end its last byte and *opt how many of the copies are optional (glibc
 * makes "a+" "aa*" and "a{2,5}" "aa(a(a(a)?)?)?"); 0 if p is not one. */
static uint64_t re_repeat(const char *p, const char **end, uint64_t *opt)
{
    *end = p;
    *opt = 1;
    if (*p == '*' || *p == '?')
        return 1;
    if (*p == '+')
        return 2;
    if (*p != '{')
        return 0;
    uint64_t n = 0, m = 0;
    bool dn = false, dm = false, comma = false;
    const char *q = p + 1;
    for (; *q >= '0' && *q <= '9'; q++, dn = true)
        n = re_add(re_mul(n, 10), (uint64_t)(*q - '0'));
    if (*q == ',')
        for (comma = true, q++; *q >= '0' && *q <= '9'; q++, dm = true)
            m = re_add(re_mul(m, 10), (uint64_t)(*q - '0'));
    if ((!dn && !comma) || *q != '}')
        return 0; /* "{", "{}", "{x": glibc reads them as text or refuses them */
    *end = q;
    if (comma && !dm) { /* {n,} and {,}: n copies and a star */
        *opt = 1;
        return re_add(n, 1);
    }
    if (!dm || m < n)
        m = n; /* {n}; {n,m} with m < n is refused by regcomp */
    *opt = m - n;
    return m ? m : 1;
}

/* Whether compiling the POSIX extended regex re would cost too much. */
static bool re_too_big(const char *re)
{
    enum { DEPTH = 64 };
    /* Per open group: copies of the items done and of the last item, and
     * how many of those can match nothing. */
    uint64_t sum[DEPTH + 1], last[DEPTH + 1], nsum[DEPTH + 1], nlast[DEPTH + 1];
    int rmax[DEPTH + 1], rlast[DEPTH + 1]; /* repetitions nested, likewise */
    /* The current branch of the group is empty so far; some branch was. An
     * empty group ("()", "(a|)") matches nothing already, as "a*" does: it
     * counts as one repetition deep. */
    bool bempty[DEPTH + 1], gempty[DEPTH + 1];
    int d = 0;
    sum[0] = last[0] = nsum[0] = nlast[0] = 0;
    rmax[0] = rlast[0] = 0;
    bempty[0] = true;
    gempty[0] = false;
    for (const char *p = re; *p; p++) {
        const char *end;
        uint64_t opt;
        uint64_t f = re_repeat(p, &end, &opt);
        if (f && last[d]) {
            nlast[d] = re_add(re_mul(nlast[d], f), re_mul(last[d], opt));
            last[d] = re_mul(last[d], f);
            if (++rlast[d] > RE_MAX_DEPTH)
                return true;
            p = end;
        } else if (*p == '(') {
            if (d == DEPTH)
                return true;
            d++;
            sum[d] = last[d] = nsum[d] = nlast[d] = 0;
            rmax[d] = rlast[d] = 0;
            bempty[d] = true;
            gempty[d] = false;
        } else if (*p == ')' && d > 0) {
            uint64_t g = re_add(re_add(sum[d], last[d]), 1); /* "()" is a node too */
            uint64_t ng = re_add(nsum[d], nlast[d]);
            int rg = rmax[d] > rlast[d] ? rmax[d] : rlast[d];
            if ((bempty[d] || gempty[d]) && rg < 1)
                rg = 1;
            d--;
            bempty[d] = false;
            sum[d] = re_add(sum[d], last[d]);
            nsum[d] = re_add(nsum[d], nlast[d]);
            rmax[d] = rmax[d] > rlast[d] ? rmax[d] : rlast[d];
            last[d] = g;
            nlast[d] = ng;
            rlast[d] = rg;
        } else { /* an atom or '|'; also a repetition with nothing before it */
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '[')
                p = re_bracket_end(p);
            sum[d] = re_add(sum[d], last[d]);
            nsum[d] = re_add(nsum[d], nlast[d]);
            rmax[d] = rmax[d] > rlast[d] ? rmax[d] : rlast[d];
            last[d] = *p != '|';
            nlast[d] = 0;
            rlast[d] = 0;
            if (*p == '|')
                gempty[d] = gempty[d] || bempty[d];
            bempty[d] = *p == '|';
        }
    }
    for (; d > 0; d--) { /* groups left open: an error, but after the copies */
        sum[d - 1] = re_add(re_add(sum[d - 1], last[d - 1]), re_add(sum[d], last[d]));
        nsum[d - 1] = re_add(re_add(nsum[d - 1], nlast[d - 1]), re_add(nsum[d], nlast[d]));
        last[d - 1] = nlast[d - 1] = 0;
    }
    uint64_t all = re_add(sum[0], last[0]), optional = re_add(nsum[0], nlast[0]);
    return all > RE_MAX_COPIES || optional > RE_MAX_NULLABLE || all * optional > RE_MAX_COST;
}

/* A plain bound on top of the estimate: no interval counts above 1000 (names
 * are matched, not parsed), at most 32 repetition
 * operators and 256 bytes. What the estimate misses, this still stops. */
static bool re_over_limits(const char *re)
{
    size_t ops = 0, len = strlen(re);
    if (len > 256)
        return true;
    for (const char *p = re; *p; p++) {
        if (*p == '*' || *p == '+' || *p == '?' || *p == '{')
            ops++;
        if (*p == '{') {
            unsigned long v = 0;
            for (const char *q = p + 1; *q && *q != '}'; q++) {
                if (*q >= '0' && *q <= '9') {
                    v = v * 10 + (unsigned long)(*q - '0');
                    if (v > 1000)
                        return true;
                } else {
                    v = 0;
                }
            }
        }
    }
    return ops > 32;
}

static int compile(regex_t *re, const char *pattern, const char *opt, td_error *err)
{
    if (re_over_limits(pattern) || re_too_big(pattern))
        return td_fail(err, TD_EUSAGE, "",
                       "%s '%s': too big for the regex engine once its repetitions are "
                       "expanded",
                       opt, pattern);
    if (regcomp(re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return td_fail(err, TD_EUSAGE, "", "%s '%s': not a valid regular expression", opt,
                       pattern);
    return 0;
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
        if ((rc = compile(&inc, o->include, "--include", err)) < 0)
            return rc;
        have_inc = 1;
    }
    if (o->exclude) {
        if ((rc = compile(&exc, o->exclude, "--exclude", err)) < 0) {
            if (have_inc)
                regfree(&inc);
            return rc;
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
