/*
 * The terminal table: aligned columns, names shortened with an ellipsis to
 * fit, colour for +/- and a bar per row for the change in duration (like the
 * colour bands of uftrace's diff). Knows nothing of terminals itself: the
 * caller says how wide, whether to colour, and whether Unicode is safe.
 */
#include "util/util.h"
#include "present/out_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAR_W 10
#define RED "\033[31m"
#define GREEN "\033[32m"
#define DIM "\033[2m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* Display width of UTF-8 text, counting a code point as one column. */
static size_t text_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

/* A name or label as the table shows it (td_text_visible): escapes for
 * controls, valid UTF-8, so that widths count what the terminal shows. The
 * buffer grows to the longest name; were it to fail, the name is cut. */
typedef struct shown {
    char *p;
    size_t cap;
    char small[256];
} shown;

static const char *visible(shown *v, const char *s, size_t len, size_t *n)
{
    if (!v->p) {
        v->p = v->small;
        v->cap = sizeof v->small;
    }
    size_t need = td_text_visible(v->p, v->cap, s, len, 0);
    if (need >= v->cap) {
        char *b = malloc(need + 1);
        if (b) {
            if (v->p != v->small)
                free(v->p);
            v->p = b;
            v->cap = need + 1;
        }
        need = td_text_visible(v->p, v->cap, s, len, 0);
    }
    *n = need < v->cap ? need : strlen(v->p);
    return v->p;
}

static void shown_free(shown *v)
{
    if (v->p != v->small)
        free(v->p);
}

/* Writes the code points [from, to) of s (visible text already). */
static void put_span(FILE *f, const char *s, size_t len, size_t from, size_t to)
{
    size_t cols = 0, i = 0;
    while (i < len && cols < to) {
        size_t l = 1;
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80)
            while (i + l < len && ((unsigned char)s[i + l] & 0xC0) == 0x80)
                l++;
        if (cols >= from)
            fwrite(s + i, 1, l, f);
        i += l;
        cols++;
    }
}

/* Writes a fitted name (td_fit_names), padded to w columns. */
static void put_name(FILE *f, const char *text, size_t w)
{
    size_t cols = td_text_cols(text, strlen(text));
    fputs(text, f);
    for (; cols < w; cols++)
        fputc(' ', f);
}

static void put_bar(FILE *f, double frac, int ascii, int color)
{
    /* Eighth blocks give a smooth bar in ten columns. */
    static const char *const eighths[] = {"",
                                          "\xE2\x96\x8F",
                                          "\xE2\x96\x8E",
                                          "\xE2\x96\x8D",
                                          "\xE2\x96\x8C",
                                          "\xE2\x96\x8B",
                                          "\xE2\x96\x8A",
                                          "\xE2\x96\x89"};
    double a = fabs(frac);
    if (a > 1)
        a = 1;
    int units = (int)lround(a * BAR_W * 8);
    int full = units / 8, part = units % 8;
    if (units)
        fputc(' ', f);
    /* Without colour the direction must survive: a sign before the bar
     * (the ASCII bar is made of signs already). */
    if (!color && !ascii && units)
        fputs(frac > 0 ? "+" : "\xE2\x88\x92", f);
    if (color && units)
        fputs(frac > 0 ? RED : GREEN, f);
    for (int k = 0; k < full; k++)
        fputs(ascii ? (frac > 0 ? "+" : "-") : "\xE2\x96\x88", f);
    if (part && !ascii)
        fputs(eighths[part], f);
    else if (part >= 4 && ascii)
        fputc(frac > 0 ? '+' : '-', f);
    if (color && units)
        fputs(RESET, f);
}

/* The change with its interval, and the verdict: red for slower, green for
 * faster, dim for noise. */
static void put_verdict(FILE *f, const td_row_stats *rs, size_t chw, size_t vw, int color)
{
    char ch[64];
    td_stats_change_text(ch, sizeof ch, rs);
    td_verdict v = rs->verdict;
    const char *tint = !color                   ? ""
                       : v == TD_VERDICT_SLOWER ? RED BOLD
                       : v == TD_VERDICT_FASTER ? GREEN BOLD
                       : v == TD_VERDICT_NOISE  ? DIM
                                                : "";
    if (chw)
        fprintf(f, "  %s%*s%s", tint, (int)chw, ch, *tint ? RESET : "");
    fprintf(f, "  %s%-*s%s", tint, (int)vw, td_verdict_name(v), *tint ? RESET : "");
}

/* The columns a narrow terminal gives up, in this order, so that the name
 * column keeps at least 40% of the width (docs/numbers.md, "Narrow
 * terminals"): the bar, the count category (+/-), the sides' counts, the
 * interval of --stats, the difference of counts, the change in percent,
 * the sides' totals. The difference of totals and the verdict stay. */
enum {
    DROP_BAR,
    DROP_CATEGORY,
    DROP_COUNTS,
    DROP_INTERVAL,
    DROP_DIFF_COUNT,
    DROP_PERCENT,
    DROP_TOTALS,
    DROP_STAGES
};

typedef struct layout {
    bool col[TD_OUT_NCOLS - 1]; /* the value columns shown */
    bool interval, pct, bar;
} layout;

static void layout_at(layout *l, int stage, bool stats)
{
    for (int c = 0; c < TD_OUT_NCOLS - 1; c++)
        l->col[c] = true;
    l->bar = stage <= DROP_BAR;
    l->col[6] = stage < DROP_CATEGORY;
    l->col[0] = l->col[2] = stage < DROP_COUNTS;
    l->interval = stats && stage < DROP_INTERVAL;
    l->col[4] = stage < DROP_DIFF_COUNT;
    l->pct = stage < DROP_PERCENT;
    l->col[1] = l->col[3] = stage < DROP_TOTALS;
}

/* Columns taken by all but the name. */
static size_t layout_width(const layout *l, const size_t cw[TD_OUT_NCOLS - 1], bool stats,
                           size_t chw, size_t vw)
{
    size_t w = 0;
    for (int c = 0; c < TD_OUT_NCOLS - 1; c++)
        if (l->col[c])
            w += 2 + cw[c];
    if (l->interval)
        w += 2 + chw;
    if (stats)
        w += 2 + vw;
    if (l->pct)
        w += 2 + 7;
    if (l->bar)
        w += 2 + BAR_W; /* " ", a sign, the bar */
    return w;
}

/* The side labels over their columns. */
static void label_line(FILE *f, shown *v, const td_write_opts *o, size_t namew,
                       const size_t cw[TD_OUT_NCOLS - 1], const layout *l)
{
    const char *labels[3] = {td_label(o->control_label, 0), td_label(o->test_label, 1), "diff"};
    fprintf(f, "%s%-*s", o->color ? BOLD : "", (int)namew, "");
    for (int g = 0; g < 3; g++) {
        size_t span = 0;
        for (int c = 2 * g; c < 2 * g + 2; c++)
            if (l->col[c])
                span += span ? 2 + cw[c] : cw[c];
        if (!span)
            continue;
        size_t len;
        const char *t = visible(v, labels[g], strlen(labels[g]), &len);
        size_t tw = text_width(t, len);
        fprintf(f, "  %*s", (int)(tw < span ? span - tw : 0), "");
        put_span(f, t, len, 0, span);
    }
    fprintf(f, "%s\n", o->color ? RESET : "");
}

static void write_table(FILE *f, const td_diff *d, const td_write_opts *o)
{
    int ascii = o->ascii, color = o->color;
    shown v = {0};
    size_t width = o->width > 0 ? (size_t)o->width : 120;
    size_t n = td_view_count(d, o);
    /* Width of each numeric column: the widest cell or its title. */
    const char *us = ascii ? "total us" : "total \xC2\xB5s";
    const char *const hdr[TD_OUT_NCOLS - 1] = {"count", us, "count", us, "count", us, "+/-"};
    size_t cw[TD_OUT_NCOLS - 1];
    for (int c = 0; c < TD_OUT_NCOLS - 1; c++)
        cw[c] = text_width(hdr[c], strlen(hdr[c]));
    char **names = calloc(n + 1, sizeof *names);
    size_t namew = 4;
    for (size_t i = 0; i < n; i++) {
        const td_row *r = td_view_row(d, o, i);
        char cells[TD_OUT_NCOLS - 1][40];
        td_row_cells_human(cells, d, r);
        for (int c = 0; c < TD_OUT_NCOLS - 1; c++)
            if (strlen(cells[c]) > cw[c])
                cw[c] = strlen(cells[c]);
        if (names)
            names[i] = td_visible_dup(r->name, r->name_len, 0);
        const char *nm = names && names[i] ? names[i] : "?";
        size_t tw = text_width(nm, strlen(nm));
        if (tw > namew)
            namew = tw;
    }
    const td_stats *st = o->stats;
    const char *chtitle = st ? td_stats_change_title(st) : "";
    size_t chw = strlen(chtitle), vw = strlen("verdict");
    for (size_t i = 0; st && i < n; i++) {
        char ch[64];
        td_stats_change_text(ch, sizeof ch, &td_stats_rows(st)[td_view_index(d, o, i)]);
        if (strlen(ch) > chw)
            chw = strlen(ch);
    }
    /* The first layout that leaves the name its whole length or 40% of
     * the width; the name gets what is left. */
    size_t least = (width * 2 + 4) / 5;
    if (least < 8)
        least = 8;
    layout l;
    size_t fixed = 0;
    for (int stage = 0; stage < DROP_STAGES; stage++) {
        layout_at(&l, stage, st != NULL);
        fixed = layout_width(&l, cw, st != NULL, chw, vw);
        size_t room = width > fixed ? width - fixed : 0;
        if (room >= namew || room >= least)
            break;
    }
    size_t room = width > fixed ? width - fixed : 0;
    if (namew > room)
        namew = room > 8 ? room : 8;
    char **fit = NULL;
    for (size_t i = 0; names && i < n; i++)
        if (!names[i])
            names[i] = strdup("?");
    if (names)
        fit = td_fit_names(names, n, namew, ascii);
    label_line(f, &v, o, namew, cw, &l);
    fprintf(f, "%s", color ? BOLD : "");
    char *key = td_visible_dup(td_diff_key_name(d), strlen(td_diff_key_name(d)), 0);
    char **kfit = key ? td_fit_names(&key, 1, namew, ascii) : NULL;
    put_name(f, kfit ? kfit[0] : "name", namew);
    td_fit_names_free(kfit, 1);
    free(key);
    size_t line = namew;
    for (int c = 0; c < TD_OUT_NCOLS - 1; c++) {
        if (!l.col[c])
            continue;
        size_t tw = text_width(hdr[c], strlen(hdr[c]));
        fprintf(f, "  %*s%s", (int)(cw[c] - tw), "", hdr[c]);
        line += 2 + cw[c];
    }
    if (l.interval) {
        fprintf(f, "  %*s", (int)chw, chtitle);
        line += 2 + chw;
    }
    if (st) {
        fprintf(f, "  %-*s", (int)vw, "verdict");
        line += 2 + vw;
    }
    if (l.pct) {
        fprintf(f, "  %7s", "change");
        line += 2 + 7;
    }
    fprintf(f, "%s\n", color ? RESET : "");
    if (l.bar)
        line += 2 + BAR_W;
    if (o->rules) {
        for (size_t k = 0; k < line && k < width; k++)
            fputs(ascii ? "-" : "\xE2\x94\x80", f);
        fputc('\n', f);
    }
    for (size_t i = 0; i < n; i++) {
        const td_row *r = td_view_row(d, o, i);
        char cells[TD_OUT_NCOLS - 1][40];
        td_row_cells_human(cells, d, r);
        put_name(f, fit && fit[i] ? fit[i] : "?", namew);
        /* Coloured by the change of duration (slower red), not of count. */
        const char *col = !color                 ? ""
                          : r->diff_duration > 0 ? RED
                          : r->diff_duration < 0 ? GREEN
                                                 : "";
        for (int c = 0; c < TD_OUT_NCOLS - 1; c++) {
            if (!l.col[c])
                continue;
            bool tint = c >= 4 && *col;
            fprintf(f, "  %s%*s%s", tint ? col : "", (int)cw[c], cells[c], tint ? RESET : "");
        }
        if (st)
            put_verdict(f, &td_stats_rows(st)[td_view_index(d, o, i)], l.interval ? chw : 0, vw,
                        color);
        /* Relative to the control's time; a full bar is a change of 100%
         * or more. Rows only one side has say so instead of a percentage. */
        double rel = 0;
        char change[16] = "";
        if (r->counts[0] == 0 && r->counts[1] > 0) {
            strcpy(change, "new");
            rel = 1;
        } else if (r->counts[1] == 0 && r->counts[0] > 0) {
            strcpy(change, "gone");
            rel = -1;
        } else if (r->duration[0] != 0) {
            rel = r->diff_duration / fabs(r->duration[0]);
            if (fabs(rel) < 99.995)
                snprintf(change, sizeof change, "%+.0f%%", rel * 100);
            else
                strcpy(change, rel > 0 ? ">+9999%" : "<-9999%");
        }
        if (l.pct)
            fprintf(f, "  %7s", change);
        if (l.bar)
            put_bar(f, rel, ascii, color);
        fputc('\n', f);
    }
    td_fit_names_free(fit, n);
    td_fit_names_free(names, n);
    shown_free(&v);
}

/* The five ops_diff lists, each under its title with its count, one name a
 * line indented by two columns. The names are fitted as the compare table
 * fits them (td_fit_names: cut in the middle, the tail kept, never two equal
 * shown names in the whole output), to the width less the indent. */
static void write_ops_table(FILE *f, const td_diff *d, const td_write_opts *o)
{
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    size_t width = o->width > 0 ? (size_t)o->width : 120;
    size_t namew = width > 2 + 8 ? width - 2 : 8;
    static const char *const tint[] = {"\033[32m", "\033[31m", "\033[33m", "\033[36m", ""};
    char **names = calloc(n + 1, sizeof *names);
    for (size_t i = 0; names && i < n; i++)
        if (!(names[i] = td_visible_dup(rows[i].name, rows[i].name_len, 0)))
            names[i] = strdup("?");
    char **fit = NULL;
    if (names) {
        bool all = true;
        for (size_t i = 0; i < n; i++)
            all = all && names[i];
        if (all)
            fit = td_fit_names(names, n, namew, o->ascii);
    }
    for (int c = 0; c < TD_OP_NCATEGORIES; c++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += td_row_op_category(&rows[i]) == (td_op_category)c;
        fprintf(f, "%s%s (%zu)%s\n", o->color ? tint[c] : "",
                td_op_category_name((td_op_category)c), k, o->color && *tint[c] ? RESET : "");
        for (size_t i = 0; i < n; i++)
            if (td_row_op_category(&rows[i]) == (td_op_category)c)
                fprintf(f, "  %s\n", fit && fit[i] ? fit[i] : "?");
    }
    td_fit_names_free(fit, n);
    td_fit_names_free(names, n);
}

int td_write_ops_table(FILE *f, const td_diff *d, const td_write_opts *opts, td_error *err)
{
    td_write_opts o;
    int rc = td_write_begin(&o, opts, err);
    if (rc < 0)
        return rc;
    write_ops_table(f, d, &o);
    return td_write_end(f, err);
}

int td_write_table(FILE *f, const td_diff *d, const td_write_opts *opts, td_error *err)
{
    td_write_opts o;
    int rc = td_write_begin(&o, opts, err);
    if (rc < 0)
        return rc;
    write_table(f, d, &o);
    return td_write_end(f, err);
}
