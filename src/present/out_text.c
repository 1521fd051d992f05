/*
 * Text writers over one table of columns: CSV (RFC 4180 quoting), JSON,
 * Markdown, and the ops_diff lists. Numbers print as integers when they are
 * whole, else in the shortest form that reads back to the same double.
 */
#include "util/util.h"
#include "present/out_common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v in decimal at buf (room for 21 bytes), as "%lld" writes it; the end. */
static char *fmt_i64(char *buf, int64_t v)
{
    char tmp[24], *t = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--t = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--t = '-';
    size_t n = (size_t)(tmp + sizeof tmp - t);
    memcpy(buf, t, n);
    buf[n] = '\0';
    return buf + n;
}

void td_fmt_num(char *buf, size_t cap, double x)
{
    if (x == 0) {
        snprintf(buf, cap, "0");
        return;
    }
    if (!isfinite(x)) { /* as pandas writes them; no "-nan" */
        snprintf(buf, cap, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
        return;
    }
    if (x == floor(x) && fabs(x) < 1e17) { /* exact in an int64: "%.0f" */
        if (cap >= 21)
            fmt_i64(buf, (int64_t)x);
        else
            snprintf(buf, cap, "%.0f", x);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

/* Inserts a ',' every three digits of the integer part of the number in
 * buf (in place; cap is buf's size). */
static void group_thousands(char *buf, size_t cap)
{
    char *digits = buf + (buf[0] == '-' || buf[0] == '+');
    size_t n = strspn(digits, "0123456789");
    size_t commas = n > 3 ? (n - 1) / 3 : 0;
    size_t len = strlen(buf);
    if (!commas || len + commas + 1 > cap)
        return;
    /* from the end: the fraction moves whole, the digits with commas */
    char *end = buf + len;
    memmove(digits + n + commas, digits + n, (size_t)(end - (digits + n)) + 1);
    char *w = digits + n + commas;
    for (size_t k = 0; k < n; k++) {
        *--w = digits[n - 1 - k];
        if (k % 3 == 2 && k + 1 < n)
            *--w = ',';
    }
}

/* Drops the zeros at the end of a fraction, and the point when nothing is
 * left after it. */
static void trim_zeros(char *buf)
{
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *e = buf + strlen(buf);
    while (e > dot + 1 && e[-1] == '0')
        *--e = '\0';
    if (e == dot + 1)
        *dot = '\0';
}

void td_fmt_human(char *buf, size_t cap, double x, bool group)
{
    if (!isfinite(x) || x == 0) {
        td_fmt_num(buf, cap, x);
        return;
    }
    double a = fabs(x);
    if (x == floor(x) || a >= 1e15)
        snprintf(buf, cap, "%.0f", x);
    else if (a >= 100)
        snprintf(buf, cap, "%.1f", x);
    else if (a >= 1)
        snprintf(buf, cap, "%.2f", x);
    else {
        /* three significant digits, written out */
        int dec = 2 - (int)floor(log10(a));
        if (dec > 20)
            dec = 20;
        snprintf(buf, cap, "%.*f", dec, x);
    }
    trim_zeros(buf);
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, cap, "0");
    if (group)
        group_thousands(buf, cap);
}

void td_fmt_pq(char *buf, size_t cap, double p)
{
    if (isnan(p))
        snprintf(buf, cap, "%s", "");
    else if (p == 0)
        snprintf(buf, cap, "%s", "<1e-300"); /* below what a double holds */
    else if (p < 0.001) {
        char m[32];
        snprintf(m, sizeof m, "%.0e", p); /* "3e-20" */
        char *e = strchr(m, 'e');
        if (e && (e[1] == '-' || e[1] == '+')) {
            char *d = e + 2;
            while (d[0] == '0' && d[1])
                memmove(d, d + 1, strlen(d));
        }
        snprintf(buf, cap, "%s", m);
    } else {
        snprintf(buf, cap, "%.3f", p); /* 0.012, 0.5 */
        trim_zeros(buf);
    }
}

void td_row_cells_human(char cells[TD_OUT_NCOLS - 1][40], const td_diff *d, const td_row *r)
{
    td_row_cells(cells, d, r);
    double v[6] = {td_row_count(d, r, 0), r->duration[0],          td_row_count(d, r, 1),
                   r->duration[1],        td_row_diff_count(d, r), r->diff_duration};
    for (int c = 0; c < 6; c++)
        td_fmt_human(cells[c], 40, v[c], true);
}

int td_write_begin(td_write_opts *o, const td_write_opts *opts, td_error *err)
{
    return TD_OPTS_TAKE(o, opts, td_write_opts, TD_WRITE_OPTS_INIT, err);
}

int td_write_end(FILE *f, td_error *err)
{
    errno = 0;
    int e = fflush(f) != 0 ? errno : 0;
    if (!ferror(f))
        return 0;
    return td_fail(err, TD_EIO, "", "cannot write: %s", strerror(e ? e : errno ? errno : EIO));
}

char *td_visible_dup(const char *s, size_t len, unsigned flags)
{
    size_t need = td_text_visible(NULL, 0, s, len, flags);
    char *v = malloc(need + 1);
    if (v)
        td_text_visible(v, need + 1, s, len, flags);
    return v;
}

void td_put_visible(FILE *f, const char *s, size_t len, unsigned flags, size_t max)
{
    char *v = td_visible_dup(s, len, flags);
    if (!v) {
        fputs("?", f);
        return;
    }
    size_t b = 0, cols = 0;
    for (; v[b]; b++)
        if (((unsigned char)v[b] & 0xC0) != 0x80 && max && cols++ == max)
            break;
    fwrite(v, 1, b, f);
    if (v[b])
        fputs("...", f);
    free(v);
}

const char *td_label(const char *l, int side)
{
    return l ? l : side ? "test" : "control";
}

void td_column_names(const char *names[TD_OUT_NCOLS], char bufs[4][160], const td_diff *d,
                     const td_write_opts *o)
{
    const char *cl = td_label(o ? o->control_label : NULL, 0);
    const char *tl = td_label(o ? o->test_label : NULL, 1);
    snprintf(bufs[0], 160, "%s_counts", cl);
    snprintf(bufs[1], 160, "%s_total_duration", cl);
    snprintf(bufs[2], 160, "%s_counts", tl);
    snprintf(bufs[3], 160, "%s_total_duration", tl);
    names[0] = td_diff_key_name(d);
    names[1] = bufs[0];
    names[2] = bufs[1];
    names[3] = bufs[2];
    names[4] = bufs[3];
    names[5] = "diff_counts";
    names[6] = "diff_duration";
    names[7] = "counts_change_categories";
}

void td_row_cells(char cells[TD_OUT_NCOLS - 1][40], const td_diff *d, const td_row *r)
{
    if (td_diff_divisor(d, 0) == 1 && td_diff_divisor(d, 1) == 1) {
        if (r->counts[0] <= INT64_MAX && r->counts[1] <= INT64_MAX) {
            fmt_i64(cells[0], (int64_t)r->counts[0]);
            fmt_i64(cells[2], (int64_t)r->counts[1]);
        } else {
            snprintf(cells[0], 40, "%llu", (unsigned long long)r->counts[0]);
            snprintf(cells[2], 40, "%llu", (unsigned long long)r->counts[1]);
        }
        fmt_i64(cells[4], (int64_t)r->diff_counts);
    } else { /* --per-iteration: counts per sample, with decimals */
        td_fmt_num(cells[0], 40, td_row_count(d, r, 0));
        td_fmt_num(cells[2], 40, td_row_count(d, r, 1));
        td_fmt_num(cells[4], 40, td_row_diff_count(d, r));
    }
    td_fmt_num(cells[1], 40, r->duration[0]);
    td_fmt_num(cells[3], 40, r->duration[1]);
    td_fmt_num(cells[5], 40, r->diff_duration);
    cells[6][0] = r->category;
    cells[6][1] = '\0';
}

size_t td_view_count(const td_diff *d, const td_write_opts *o)
{
    return o && o->rows ? o->nrows : td_diff_nrows(d);
}

const td_row *td_view_row(const td_diff *d, const td_write_opts *o, size_t i)
{
    return &td_diff_rows(d)[o && o->rows ? o->rows[i] : i];
}

size_t td_view_index(const td_diff *d, const td_write_opts *o, size_t i)
{
    (void)d;
    return o && o->rows ? o->rows[i] : i;
}

static void td_stats_column_names(const char *names[TD_STATS_NCOLS], char bufs[TD_STATS_NCOLS][160],
                                  const td_write_opts *o)
{
    /* Per side: n, mean, stdev, median, then min and max. */
    static const char *const suffix[] = {"n", "mean", "stdev", "median"};
    const char *lab[2] = {td_label(o ? o->control_label : NULL, 0),
                          td_label(o ? o->test_label : NULL, 1)};
    int c = 0;
    names[c++] = "samples";
    for (int k = 0; k < 4; k++)
        for (int side = 0; side < 2; side++) {
            snprintf(bufs[c], 160, "%s_%s", lab[side], suffix[k]);
            names[c] = bufs[c];
            c++;
        }
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++) {
            snprintf(bufs[c], 160, "%s_%s", lab[side], k ? "max" : "min");
            names[c] = bufs[c];
            c++;
        }
    static const char *const rest[] = {"diff_mean", "change_pct", "ci_low",  "ci_high",
                                       "p_value",   "q_value",    "verdict", "shift_us",
                                       "shift_low", "shift_high", "reason"};
    for (int k = 0; k < 11; k++)
        names[c++] = rest[k];
}

static void num_cell(char *buf, double x)
{
    if (isnan(x))
        buf[0] = '\0';
    else
        td_fmt_num(buf, 40, x);
}

/* Cells of row index r as text: numbers in full ("" when undefined), the
 * samples mode and the verdict as words. */
static void td_stats_cells(char cells[TD_STATS_NCOLS][40], const td_stats *st, size_t r)
{
    const td_row_stats *rs = &td_stats_rows(st)[r];
    int c = 0;
    snprintf(cells[c++], 40, "%s", td_samples_name(td_stats_samples(st)));
    snprintf(cells[c++], 40, "%llu", (unsigned long long)rs->n[0]);
    snprintf(cells[c++], 40, "%llu", (unsigned long long)rs->n[1]);
    const double v[] = {rs->mean[0],   rs->mean[1],   rs->stdev[0],  rs->stdev[1],
                        rs->median[0], rs->median[1], rs->min[0],    rs->max[0],
                        rs->min[1],    rs->max[1],    rs->diff_mean, rs->change_pct,
                        rs->ci_low,    rs->ci_high,   rs->p,         rs->q};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        num_cell(cells[c++], v[k]);
    snprintf(cells[c++], 40, "%s", td_verdict_name(rs->verdict));
    num_cell(cells[c++], rs->hl_shift);
    num_cell(cells[c++], rs->shift_low);
    num_cell(cells[c++], rs->shift_high);
    snprintf(cells[c++], 40, "%s", rs->reason ? rs->reason : "");
}

/* Which cells are words rather than numbers. */
static int td_stats_cell_is_text(int c)
{
    return c == 0 || c == 19 || c == TD_STATS_NCOLS - 1;
}

const char *td_stats_change_title(const td_stats *st)
{
    return td_stats_samples(st) == TD_SAMPLES_CALL ? "median change [shift]"
                                                   : "mean change [interval]";
}

void td_stats_change_text(char *buf, size_t cap, const td_row_stats *rs)
{
    double m = rs->mean[0];
    if (!isnan(rs->hl_shift) || !isnan(rs->shift_low)) { /* call mode */
        double md = rs->median[0];
        if (!(md != 0) || isnan(md) || isnan(rs->median[1])) {
            snprintf(buf, cap, "%s", "");
            return;
        }
        snprintf(buf, cap, "%+.1f%% [%+.1f, %+.1f]", 100 * (rs->median[1] - md) / md,
                 100 * rs->shift_low / md, 100 * rs->shift_high / md);
        return;
    }
    if (isnan(rs->change_pct) || !(m != 0)) {
        snprintf(buf, cap, "%s", "");
        return;
    }
    if (isnan(rs->ci_low))
        snprintf(buf, cap, "%+.1f%%", rs->change_pct);
    else
        snprintf(buf, cap, "%+.1f%% [%+.1f, %+.1f]", rs->change_pct, 100 * rs->ci_low / m,
                 100 * rs->ci_high / m);
}

/* What a spreadsheet takes for the start of a formula (OWASP's list). */
static bool formula_start(const char *s, size_t len)
{
    return len && strchr("=+-@\t\r", s[0]) != NULL && s[0] != '\0';
}

static void csv_field(FILE *f, const char *s, size_t len, bool safe)
{
    bool quote = false, prefix = safe && formula_start(s, len);
    for (size_t i = 0; i < len && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        if (prefix)
            fputc('\'', f);
        fwrite(s, 1, len, f);
        return;
    }
    fputs(prefix ? "\"'" : "\"", f);
    size_t from = 0; /* runs between quotes in one write each, a quote doubled */
    const char *q;
    while ((q = memchr(s + from, '"', len - from))) {
        size_t end = (size_t)(q - s) + 1; /* through the quote */
        fwrite(s + from, 1, end - from, f);
        fputc('"', f);
        from = end;
    }
    fwrite(s + from, 1, len - from, f);
    fputc('"', f);
}

void td_write_csv_field(FILE *f, const char *s, size_t len, bool safe)
{
    csv_field(f, s, len, safe);
}

/* ",cell" at p; the end. */
static char *cell_after_comma(char *p, const char *cell)
{
    size_t n = strnlen(cell, 39);
    *p++ = ',';
    memcpy(p, cell, n);
    return p + n;
}

/* --with-rate: the columns' names (the side labels as the stats' take
 * them) and a row's cells ("" where no model applies). */
#define RATE_NCOLS 4
static void rate_names(char names[RATE_NCOLS][160], const td_write_opts *o)
{
    const char *c = o->control_label ? o->control_label : "control";
    const char *t = o->test_label ? o->test_label : "test";
    snprintf(names[0], 160, "%s_flops_per_call", c);
    snprintf(names[1], 160, "%s_flops_per_call", t);
    snprintf(names[2], 160, "%s_tflops", c);
    snprintf(names[3], 160, "%s_tflops", t);
}

static void rate_values(double v[RATE_NCOLS], const td_write_opts *o, size_t r)
{
    const td_op_rate *x = &o->rates[r];
    v[0] = x->flops[0];
    v[1] = x->flops[1];
    v[2] = x->tflops[0];
    v[3] = x->tflops[1];
}

static void write_csv(FILE *f, const td_diff *d, const td_write_opts *o)
{
    const char *names[TD_OUT_NCOLS];
    char bufs[4][160];
    td_column_names(names, bufs, d, o);
    for (int c = 0; c < TD_OUT_NCOLS; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, names[c], strlen(names[c]), o->csv_safe);
    }
    const td_stats *st = o ? o->stats : NULL;
    const char *snames[TD_STATS_NCOLS];
    char sbufs[TD_STATS_NCOLS][160];
    if (st) {
        td_stats_column_names(snames, sbufs, o);
        for (int c = 0; c < TD_STATS_NCOLS; c++) {
            fputc(',', f);
            csv_field(f, snames[c], strlen(snames[c]), o->csv_safe);
        }
    }
    char rnames[RATE_NCOLS][160];
    if (o->rates) {
        rate_names(rnames, o);
        for (int c = 0; c < RATE_NCOLS; c++) {
            fputc(',', f);
            csv_field(f, rnames[c], strlen(rnames[c]), o->csv_safe);
        }
    }
    fputc('\n', f);
    size_t n = td_view_count(d, o);
    for (size_t i = 0; i < n; i++) {
        const td_row *r = td_view_row(d, o, i);
        char cells[TD_OUT_NCOLS - 1][40];
        td_row_cells(cells, d, r);
        csv_field(f, r->name, r->name_len, o->csv_safe);
        /* the rest of the row in one write: each cell below 40 bytes */
        char line[(TD_OUT_NCOLS + TD_STATS_NCOLS + RATE_NCOLS) * 41 + 2], *lp = line;
        for (int c = 0; c < TD_OUT_NCOLS - 1; c++)
            lp = cell_after_comma(lp, cells[c]);
        if (st) {
            char sc[TD_STATS_NCOLS][40];
            td_stats_cells(sc, st, td_view_index(d, o, i));
            for (int c = 0; c < TD_STATS_NCOLS; c++)
                lp = cell_after_comma(lp, sc[c]);
        }
        if (o->rates) {
            double v[RATE_NCOLS];
            rate_values(v, o, td_view_index(d, o, i));
            for (int c = 0; c < RATE_NCOLS; c++) {
                char cell[40] = "";
                if (!isnan(v[c]) && !isinf(v[c]))
                    snprintf(cell, sizeof cell, "%.17g", v[c]);
                lp = cell_after_comma(lp, cell);
            }
        }
        *lp++ = '\n';
        fwrite(line, 1, (size_t)(lp - line), f);
    }
}

int td_write_csv(FILE *f, const td_diff *d, const td_write_opts *opts, td_error *err)
{
    td_write_opts o;
    int rc = td_write_begin(&o, opts, err);
    if (rc < 0)
        return rc;
    write_csv(f, d, &o);
    return td_write_end(f, err);
}

void td_json_put_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, "%.17g", v == 0 ? 0 : v);
}

void td_json_put_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int td_write_json_string(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c == '\r') {
            fputs("\\r", f);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else if (c == 0xED && i + 2 < len && ((unsigned char)s[i + 1] & 0xE0) == 0xA0) {
            /* A lone surrogate kept from the input: write it back escaped. */
            unsigned cp =
                0xD000 | (((unsigned char)s[i + 1] & 0x3F) << 6) | ((unsigned char)s[i + 2] & 0x3F);
            fprintf(f, "\\u%04x", cp);
            i += 2;
        } else {
            fputc(c, f);
        }
    }
    return ferror(f) ? TD_EIO : 0;
}

static void json_stats(FILE *f, const td_write_opts *o, size_t r)
{
    const char *names[TD_STATS_NCOLS];
    char bufs[TD_STATS_NCOLS][160], cells[TD_STATS_NCOLS][40];
    td_stats_column_names(names, bufs, o);
    td_stats_cells(cells, o->stats, r);
    for (int c = 0; c < TD_STATS_NCOLS; c++) {
        fputs(", \"", f);
        td_write_json_string(f, names[c], strlen(names[c]));
        const char *v = cells[c];
        if (td_stats_cell_is_text(c))
            fprintf(f, "\": \"%s\"", v);
        else if (!v[0] || strcmp(v, "nan") == 0)
            fputs("\": null", f);
        else if (strcmp(v, "inf") == 0 || strcmp(v, "-inf") == 0)
            fprintf(f, "\": %s", v[0] == '-' ? "-1e999" : "1e999");
        else
            fprintf(f, "\": %s", v);
    }
}

static void write_json(FILE *f, const td_diff *d, const td_write_opts *o)
{
    const char *names[TD_OUT_NCOLS];
    char bufs[4][160];
    td_column_names(names, bufs, d, o);
    size_t n = td_view_count(d, o);
    fputs("[", f);
    for (size_t i = 0; i < n; i++) {
        const td_row *r = td_view_row(d, o, i);
        char cells[TD_OUT_NCOLS - 1][40];
        td_row_cells(cells, d, r);
        fputs(i ? ",\n {\"" : "\n {\"", f);
        td_write_json_string(f, names[0], strlen(names[0]));
        fputs("\": \"", f);
        td_write_json_string(f, r->name, r->name_len);
        fputc('"', f);
        for (int c = 1; c < TD_OUT_NCOLS; c++) {
            fputs(", \"", f);
            td_write_json_string(f, names[c], strlen(names[c]));
            const char *v = cells[c - 1];
            /* JSON has no infinities or NaN: 1e999 reads back as infinity
             * in JSON readers (Python's too); NaN has no number at all. */
            if (strcmp(v, "inf") == 0 || strcmp(v, "-inf") == 0)
                v = v[0] == '-' ? "-1e999" : "1e999";
            else if (strcmp(v, "nan") == 0)
                v = "null";
            if (c == TD_OUT_NCOLS - 1)
                fprintf(f, "\": \"%s\"", v);
            else
                fprintf(f, "\": %s", v);
        }
        if (o && o->stats)
            json_stats(f, o, td_view_index(d, o, i));
        if (o && o->rates) {
            char rn[RATE_NCOLS][160];
            double v[RATE_NCOLS];
            rate_names(rn, o);
            rate_values(v, o, td_view_index(d, o, i));
            for (int c = 0; c < RATE_NCOLS; c++) {
                fputs(", \"", f);
                td_write_json_string(f, rn[c], strlen(rn[c]));
                fputs("\": ", f);
                td_json_put_num(f, v[c]);
            }
        }
        fputc('}', f);
    }
    fputs(n ? "\n]\n" : "]\n", f);
}

int td_write_json(FILE *f, const td_diff *d, const td_write_opts *opts, td_error *err)
{
    td_write_opts o;
    int rc = td_write_begin(&o, opts, err);
    if (rc < 0)
        return rc;
    write_json(f, d, &o);
    return td_write_end(f, err);
}

static void md_name(FILE *f, const char *s, size_t len)
{
    /* A code span keeps <...> from being read as HTML; '|' must still be
     * escaped inside a table, and a newline would end the row: both, and
     * every control, as td_text_visible shows them. */
    bool tick = memchr(s, '`', len) != NULL;
    fputs(tick ? "`` " : "`", f);
    td_put_visible(f, s, len, TD_TEXT_MARKDOWN, 0);
    fputs(tick ? " ``" : "`", f);
}

static void write_markdown(FILE *f, const td_diff *d, const td_write_opts *o)
{
    const char *names[TD_OUT_NCOLS];
    char bufs[4][160];
    td_column_names(names, bufs, d, o);
    const td_stats *st = o ? o->stats : NULL;
    fputc('|', f);
    for (int c = 0; c < TD_OUT_NCOLS; c++) {
        fputc(' ', f); /* the labels are the user's text */
        td_put_visible(f, names[c], strlen(names[c]), TD_TEXT_MARKDOWN, 0);
        fputs(" |", f);
    }
    if (st)
        fputs(" change (interval) | q | verdict |", f);
    char rn[RATE_NCOLS][160];
    if (o->rates) {
        rate_names(rn, o);
        for (int c = 0; c < RATE_NCOLS; c++) {
            fputc(' ', f);
            td_put_visible(f, rn[c], strlen(rn[c]), TD_TEXT_MARKDOWN, 0);
            fputs(" |", f);
        }
    }
    fputs("\n|:---|", f);
    for (int c = 1; c < TD_OUT_NCOLS; c++)
        fputs(c == TD_OUT_NCOLS - 1 ? ":---:|" : "---:|", f);
    if (st)
        fputs("---:|---:|:---|", f);
    if (o->rates)
        fputs("---:|---:|---:|---:|", f);
    fputc('\n', f);
    size_t n = td_view_count(d, o);
    for (size_t i = 0; i < n; i++) {
        const td_row *r = td_view_row(d, o, i);
        char cells[TD_OUT_NCOLS - 1][40];
        td_row_cells_human(cells, d, r);
        fputs("| ", f);
        md_name(f, r->name, r->name_len);
        for (int c = 0; c < TD_OUT_NCOLS - 1; c++)
            fprintf(f, " | %s", cells[c]);
        if (st) {
            const td_row_stats *rs = &td_stats_rows(st)[td_view_index(d, o, i)];
            char ch[64], q[32] = "";
            td_stats_change_text(ch, sizeof ch, rs);
            td_fmt_pq(q, sizeof q, rs->q);
            td_verdict v = rs->verdict;
            fprintf(f, " | %s | %s | %s%s%s", ch, q,
                    v == TD_VERDICT_SLOWER || v == TD_VERDICT_FASTER ? "**" : "",
                    td_verdict_name(v),
                    v == TD_VERDICT_SLOWER || v == TD_VERDICT_FASTER ? "**" : "");
        }
        if (o->rates) {
            double v[RATE_NCOLS];
            rate_values(v, o, td_view_index(d, o, i));
            for (int c = 0; c < RATE_NCOLS; c++) {
                if (isnan(v[c]) || isinf(v[c]))
                    fputs(" | ", f);
                else
                    fprintf(f, c < 2 ? " | %.4g" : " | %.3f", v[c]);
            }
        }
        fputs(" |\n", f);
    }
}

int td_write_markdown(FILE *f, const td_diff *d, const td_write_opts *opts, td_error *err)
{
    td_write_opts o;
    int rc = td_write_begin(&o, opts, err);
    if (rc < 0)
        return rc;
    write_markdown(f, d, &o);
    return td_write_end(f, err);
}

int td_write_ops_json(FILE *f, const td_diff *d, td_error *err)
{
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    fputs("{", f);
    for (int c = 0; c < TD_OP_NCATEGORIES; c++) {
        fprintf(f, "%s\n \"%s\": [", c ? "," : "", td_op_category_name((td_op_category)c));
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (td_row_op_category(&rows[i]) != (td_op_category)c)
                continue;
            fputs(k++ ? ",\n  \"" : "\n  \"", f);
            td_write_json_string(f, rows[i].name, rows[i].name_len);
            fputc('"', f);
        }
        fputs(k ? "\n ]" : "]", f);
    }
    fputs("\n}\n", f);
    return td_write_end(f, err);
}

void td_format_number(char *buf, size_t cap, double x)
{
    td_fmt_num(buf, cap, x);
}
