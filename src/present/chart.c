/*
 * Grouped bar charts (spec §8): per name, control, test and their difference.
 *
 * One layout computes every shape, text and position once, as a flat list of
 * drawing operations; two small back ends replay that list: an SVG writer
 * (plain text, so that each bar group can carry a <title> with the full name
 * and data- attributes with the numbers, which cairo's SVG surface cannot
 * emit) and cairo for PNG and PDF. So the formats agree on every number and
 * coordinate, and text is measured once, with cairo, for all of them.
 */
#include "present/chart_draw.h"
#include "util/util.h"
#include "present/out_common.h"
#include "util/utf8_text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_TITLE 18.0
#define FS_LEGEND 13.0
#define FS_TICK 12.0
#define FS_AXIS 13.0
#define FS_LABEL 12.0
#define LABEL_ROOM 280.0 /* longest x label, px: about 40 characters */
#define LABEL_ANGLE (-45.0)
#define PLOT_H 300.0 /* control and test */
#define DIFF_H 150.0 /* the difference, on its own axis */
#define PANEL_GAP 22.0
#define PLOT_TOP 84.0
#define MIN_PLOT_W 360.0
#define MARGIN 24.0

#define RGB_TEXT 0x222222u
#define RGB_AXIS 0x444444u
#define RGB_GRID 0xE4E4E4u
#define RGB_BACK 0xFFFFFFu
#define RGB_MUTED 0x777777u

/* control, test, difference: the same in every chart and in the report. */
static const uint32_t bar_rgb[3] = {0x4E79A7u, 0xF28E2Bu, 0xB07AA1u};

typedef struct chart_in {
    td_chart_kind kind;
    const td_diff *diff;
    const size_t *rows;
    size_t nrows;
    const char *label[2];
    const char *subtitle; /* or NULL */
    int width, height;    /* asked for; 0 = fit */
} chart_in;

/* ------------------------------------------------------------------------ */
/* Building blocks.                                                           */

static chart_op *op_add(chart *c, op_kind kind)
{
    if (c->nops == c->cap) {
        chart_op *p = td_grow(c->ops, &c->cap, c->nops + 1, sizeof *p);
        if (!p) {
            c->oom = 1;
            return NULL;
        }
        c->ops = p;
    }
    chart_op *o = &c->ops[c->nops++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    return o;
}

static int pool_reserve(chart *c, size_t more)
{
    if (c->plen + more <= c->pcap)
        return 0;
    char *p = td_grow(c->pool, &c->pcap, c->plen + more, 1);
    if (!p) {
        c->oom = 1;
        return -1;
    }
    c->pool = p;
    return 0;
}

/* Appends the displayable form of s; returns its offset (length in *len). */
static size_t pool_text(chart *c, const char *s, size_t len, size_t *out_len)
{
    size_t off = c->plen;
    *out_len = 0;
    /* Each byte becomes at most three (U+FFFD), plus the NUL. */
    if (pool_reserve(c, len * 3 + 1) < 0)
        return 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = td_text_next(s, len, &i);
        c->plen += td_utf8_encode(c->pool + c->plen, cp);
    }
    c->pool[c->plen++] = '\0';
    *out_len = c->plen - off - 1;
    return off;
}

static size_t pool_str(chart *c, const char *s, size_t *out_len)
{
    return pool_text(c, s, strlen(s), out_len);
}

/* Advance width of NUL-terminated, valid UTF-8 text. */
static double measure(chart *c, const char *s, double size, int bold)
{
    cairo_text_extents_t e;
    td_chart_set_font(c->mcr, size, bold);
    cairo_text_extents(c->mcr, s, &e);
    if (cairo_status(c->mcr) != CAIRO_STATUS_SUCCESS)
        return 0.6 * size * (double)strlen(s); /* no fonts at all: a fair guess */
    return e.x_advance;
}

/* Width of the first n bytes of s (valid UTF-8 cut at a code point). */
static double measure_n(chart *c, char *s, size_t n, double size)
{
    char keep = s[n];
    s[n] = '\0';
    double w = measure(c, s, size, 0);
    s[n] = keep;
    return w;
}

#define NO_FOCUS ((size_t)-1)

/* Longest run of code points from index from that fits room px: the end. */
static size_t fit_run(chart *c, char *t, const size_t *b, size_t from, size_t npts, double size,
                      double room)
{
    size_t lo = from, hi = npts;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (measure_n(c, t + b[from], b[mid] - b[from], size) <= room)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Appends the spans of t (byte ranges) joined by ellipses, without the
 * spaces at the cuts, which only look like gaps. */
static void put_spans(chart *c, const char *t, size_t n, const size_t (*span)[2], int nspans)
{
    static const char ell[] = "\xE2\x80\xA6";
    for (int k = 0; k < nspans; k++) {
        size_t s0 = span[k][0], s1 = span[k][1];
        while (k > 0 && s0 < s1 && t[s0] == ' ')
            s0++;
        while (s1 < n && s1 > s0 && t[s1 - 1] == ' ')
            s1--;
        if (pool_reserve(c, (s1 - s0) + 7) < 0)
            return;
        if (k > 0) {
            memcpy(c->pool + c->plen, ell, 3);
            c->plen += 3;
        }
        memcpy(c->pool + c->plen, t + s0, s1 - s0);
        c->plen += s1 - s0;
    }
    if (span[nspans - 1][1] < n) {
        memcpy(c->pool + c->plen, ell, 3);
        c->plen += 3;
    }
}

/* Appends s shortened to at most room px. With no focus, the head and the
 * tail of the name around an ellipsis: names that share a long prefix often
 * differ near the end. With a focus (the byte where this name parts from a
 * look-alike), the head and the text from just before the focus. */
static size_t pool_fit(chart *c, const char *s, size_t len, double size, double room, size_t focus,
                       size_t *out_len, double *width)
{
    size_t off = pool_text(c, s, len, out_len);
    if (c->oom)
        return 0;
    double w = measure(c, c->pool + off, size, 0);
    *width = w;
    if (w <= room)
        return off;
    /* Code point boundaries of the sanitised copy. */
    size_t n = *out_len, npts = 0;
    char *t = malloc(n + 1);
    size_t *b = malloc((n + 1) * sizeof *b);
    if (!t || !b) {
        free(t);
        free(b);
        c->oom = 1;
        return 0;
    }
    memcpy(t, c->pool + off, n + 1);
    size_t fp = npts;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)t[i] & 0xC0) != 0x80) {
            if (focus != NO_FOCUS && i <= focus)
                fp = npts;
            b[npts++] = i;
        }
    b[npts] = n;
    if (focus == NO_FOCUS)
        fp = npts;
    double ew = measure(c, "\xE2\x80\xA6", size, 0);
    size_t span[2][2];
    int nspans;
    size_t end = fit_run(c, t, b, 0, npts, size, room - ew);
    if (focus != NO_FOCUS && end >= fp + 6) {
        /* The difference shows in a plain cut. */
        span[0][0] = 0;
        span[0][1] = b[end];
        nspans = 1;
    } else if (focus != NO_FOCUS) {
        size_t head = fit_run(c, t, b, 0, npts, size, (room - 2 * ew) * 0.3);
        size_t from = fp > head + 4 ? fp - 4 : head;
        double rest = room - 2 * ew - measure_n(c, t, b[head], size);
        size_t stop = fit_run(c, t, b, from, npts, size, rest);
        span[0][0] = 0;
        span[0][1] = b[head];
        span[1][0] = b[from];
        span[1][1] = b[stop];
        nspans = 2;
    } else {
        size_t head = fit_run(c, t, b, 0, npts, size, (room - ew) * 0.62);
        double rest = room - ew - measure_n(c, t, b[head], size);
        /* The longest tail that fits the rest. */
        size_t lo = head, hi = npts;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (measure(c, t + b[mid], size, 0) <= rest)
                hi = mid;
            else
                lo = mid + 1;
        }
        span[0][0] = 0;
        span[0][1] = b[head];
        span[1][0] = b[lo];
        span[1][1] = n;
        nspans = 2;
    }
    c->plen = off; /* replaces the full copy */
    put_spans(c, t, n, (const size_t(*)[2])span, nspans);
    if (!c->oom && pool_reserve(c, 1) == 0) {
        c->pool[c->plen++] = '\0';
        *out_len = c->plen - off - 1;
        *width = measure(c, c->pool + off, size, 0);
    }
    free(t);
    free(b);
    return off;
}

static void add_text(chart *c, double x, double y, size_t str, size_t len, double size, int anchor,
                     double angle, int bold, uint32_t rgb)
{
    chart_op *o = op_add(c, OP_TEXT);
    if (!o)
        return;
    o->x = x;
    o->y = y;
    o->str = str;
    o->len = len;
    o->size = size;
    o->anchor = anchor;
    o->angle = angle;
    o->bold = bold;
    o->rgb = rgb;
}

static void add_rect(chart *c, double x, double y, double w, double h, uint32_t rgb)
{
    chart_op *o = op_add(c, OP_RECT);
    if (!o)
        return;
    o->x = x;
    o->y = y;
    o->w = w;
    o->h = h;
    o->rgb = rgb;
}

/* Lines one pixel wide sit on half pixels so that they stay crisp. */
static double crisp(double v)
{
    return floor(v) + 0.5;
}

static void add_line(chart *c, double x1, double y1, double x2, double y2, uint32_t rgb)
{
    chart_op *o = op_add(c, OP_LINE);
    if (!o)
        return;
    o->x = x1;
    o->y = y1;
    o->w = x2 - x1;
    o->h = y2 - y1;
    o->size = 1;
    o->rgb = rgb;
}

/* ------------------------------------------------------------------------ */
/* The y axis: a range that holds zero and every value, cut in nice steps.   */

typedef struct axis {
    double lo, hi, step;
    long nticks;
    double scale;       /* tick labels divided by this ... */
    const char *suffix; /* ... and followed by this */
    int decimals;
} axis;

static void axis_make(axis *a, double lo, double hi, int integer)
{
    if (lo > 0)
        lo = 0;
    if (hi < 0)
        hi = 0;
    if (hi - lo <= 0)
        hi = lo + 1;
    double raw = (hi - lo) / 5;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    double s = m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10;
    a->step = s * p;
    /* Counts have no fractional ticks. */
    if (integer && a->step != floor(a->step))
        a->step = a->step < 1 ? 1 : floor(a->step);
    a->lo = floor(lo / a->step + 1e-9) * a->step;
    a->hi = ceil(hi / a->step - 1e-9) * a->step;
    a->nticks = lround((a->hi - a->lo) / a->step) + 1;
    double big = fmax(fabs(a->lo), fabs(a->hi));
    a->scale = big >= 1e10 ? 1e9 : big >= 1e7 ? 1e6 : big >= 1e4 ? 1e3 : 1;
    a->suffix = a->scale == 1e9 ? "G" : a->scale == 1e6 ? "M" : a->scale == 1e3 ? "k" : "";
    double st = a->step / a->scale;
    a->decimals = 0;
    while (a->decimals < 6 &&
           fabs(st * pow(10, a->decimals) - round(st * pow(10, a->decimals))) > 1e-6)
        a->decimals++;
}

static void axis_label(char *buf, size_t cap, const axis *a, double v)
{
    double x = v / a->scale;
    if (fabs(x) < 1e-9 * (a->step / a->scale)) {
        snprintf(buf, cap, "0");
        return;
    }
    /* A true minus sign: the hyphen reads as a dash next to the axis. */
    snprintf(buf, cap, "%s%.*f%s", x < 0 ? "\xE2\x88\x92" : "", a->decimals, fabs(x), a->suffix);
}

/* ------------------------------------------------------------------------ */
/* Layout.                                                                    */

/* With per_iteration, counts divided by each side's samples, as the CSV
 * prints them (durations are divided already). */
static double row_value(const td_diff *d, const td_row *r, td_chart_kind kind, int which)
{
    if (kind == TD_CHART_COUNTS)
        return which == 2 ? td_row_diff_count(d, r) : td_row_count(d, r, which);
    return which == 2 ? r->diff_duration : r->duration[which];
}

/* Per row: the text under its bars. The short name when no other plotted
 * row has the same one, else the full name; either cut to LABEL_ROOM. */
typedef struct label {
    size_t str, len;
    double w;
    int full;     /* cut from the full name, not the short one */
    size_t focus; /* the byte it was last re-cut around (0: none) */
} label;

static size_t common_prefix(const char *a, size_t la, const char *b, size_t lb)
{
    size_t k = 0;
    while (k < la && k < lb && a[k] == b[k])
        k++;
    return k;
}

/* Displayable copy of s, as pool_text makes it; malloc'd. */
static char *clean_copy(const char *s, size_t len, size_t *out_len)
{
    char *t = malloc(len * 3 + 1);
    size_t n = 0;
    if (!t)
        return NULL;
    for (size_t i = 0; i < len;)
        n += td_utf8_encode(t + n, td_text_next(s, len, &i));
    t[n] = '\0';
    *out_len = n;
    return t;
}

static int make_labels(chart *c, const chart_in *in, label *lab)
{
    const td_row *rows = td_diff_rows(in->diff);
    size_t n = in->nrows;
    char **sn = calloc(n + 1, sizeof *sn), **full = calloc(n + 1, sizeof *full);
    size_t *sl = calloc(n + 1, sizeof *sl), *fl = calloc(n + 1, sizeof *fl);
    int rc = TD_ENOMEM;
    if (!sn || !full || !sl || !fl)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[in->rows[i]];
        if (td_short_name(&sn[i], &sl[i], r->name, r->name_len) < 0 ||
            !(full[i] = clean_copy(r->name, r->name_len, &fl[i])))
            goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[in->rows[i]];
        /* Where this name parts from the nearest look-alike, if it has one. */
        size_t focus = NO_FOCUS;
        for (size_t j = 0; j < n; j++) {
            if (j == i || sl[j] != sl[i] || memcmp(sn[j], sn[i], sl[i]) != 0)
                continue;
            size_t k = common_prefix(full[i], fl[i], full[j], fl[j]);
            if (focus == NO_FOCUS || k > focus)
                focus = k;
        }
        if (focus == NO_FOCUS)
            lab[i].str =
                pool_fit(c, sn[i], sl[i], FS_LABEL, LABEL_ROOM, NO_FOCUS, &lab[i].len, &lab[i].w);
        else {
            lab[i].str = pool_fit(c, r->name, r->name_len, FS_LABEL, LABEL_ROOM, focus, &lab[i].len,
                                  &lab[i].w);
            lab[i].full = 1;
        }
        if (c->oom)
            goto done;
    }
    /* Two names may still be cut to the same label (distinct short names
     * that share their head and tail): those are cut again around the place
     * where they part from each other, until no two labels are equal. */
    for (int round = 0; round < 4; round++) {
        int again = 0;
        for (size_t i = 0; i < n; i++) {
            size_t focus = NO_FOCUS;
            const char *si = lab[i].full ? full[i] : sn[i];
            size_t li = lab[i].full ? fl[i] : sl[i];
            for (size_t j = 0; j < n; j++) {
                if (j == i || lab[j].len != lab[i].len ||
                    memcmp(c->pool + lab[j].str, c->pool + lab[i].str, lab[i].len) != 0)
                    continue;
                const char *sj = lab[j].full ? full[j] : sn[j];
                size_t lj = lab[j].full ? fl[j] : sl[j];
                size_t k = common_prefix(si, li, sj, lj);
                if (focus == NO_FOCUS || k > focus)
                    focus = k;
            }
            if (focus == NO_FOCUS || focus == lab[i].focus)
                continue;
            lab[i].focus = focus;
            lab[i].str = pool_fit(c, si, li, FS_LABEL, LABEL_ROOM, focus, &lab[i].len, &lab[i].w);
            if (c->oom)
                goto done;
            again = 1;
        }
        if (!again)
            break;
    }
    rc = 0;
done:
    for (size_t i = 0; i < n && sn && full; i++) {
        free(sn[i]);
        free(full[i]);
    }
    free(sn);
    free(full);
    free(sl);
    free(fl);
    return rc;
}

/* The chart has two panels over the same bar groups, each with its own y
 * axis: control and test on top, their difference below, so that a small
 * difference next to large totals is still drawn to a readable scale. */
typedef struct panel {
    double top, bottom;
    axis ax;
    char (*ticks)[48];
} panel;

typedef struct geom {
    double left, gw, plot_w, tick_w;
    panel p[2]; /* [0] control and test, [1] the difference */
} geom;

static double y_of(const panel *p, double v)
{
    return p->bottom - (v - p->ax.lo) / (p->ax.hi - p->ax.lo) * (p->bottom - p->top);
}

/* "difference (test − control)", with the side labels. */
static void diff_legend_text(char *buf, size_t cap, const chart_in *in)
{
    snprintf(buf, cap, "difference (%s \xE2\x88\x92 %s)", in->label[1], in->label[0]);
}

/* Lays out (draw = 1) or only measures (draw = 0) the legend; its width. */
static double legend(chart *c, const chart_in *in, double cx, double y, int draw)
{
    static const double sw = 12, gap = 6, sep = 22;
    char dl[600];
    diff_legend_text(dl, sizeof dl, in);
    const char *texts[3] = {in->label[0], in->label[1], dl};
    size_t str[3], len[3], mark = c->plen;
    double w[3], total = 0;
    for (int k = 0; k < 3; k++) {
        str[k] = pool_fit(c, texts[k], strlen(texts[k]), FS_LEGEND, k < 2 ? 220 : 460, NO_FOCUS,
                          &len[k], &w[k]);
        if (c->oom)
            return 0;
        /* pool_fit measured at the regular weight, and so is the legend. */
        total += sw + gap + w[k] + (k < 2 ? sep : 0);
    }
    if (!draw) {
        c->plen = mark; /* measured only */
        return total;
    }
    double x = cx - total / 2;
    for (int k = 0; k < 3; k++) {
        add_rect(c, x, y - sw + 1, sw, sw, bar_rgb[k]);
        add_text(c, x + sw + gap, y, str[k], len[k], FS_LEGEND, 0, 0, 0, RGB_TEXT);
        x += sw + gap + w[k] + sep;
    }
    return total;
}

/* One bar: from zero to v on panel p, a hairline when too small to see. */
static void add_bar(chart *c, const panel *p, double x, double w, double v, uint32_t rgb)
{
    double y0 = y_of(p, 0), yv = y_of(p, v);
    double top = fmin(y0, yv), h = fabs(yv - y0);
    if (v != 0 && h < 1) {
        h = 1;
        top = v > 0 ? y0 - 1 : y0;
    }
    add_rect(c, x, top, w, h, rgb);
}

static void emit_group(chart *c, const chart_in *in, const geom *g, const td_row *r, double gx)
{
    const char *unit = in->kind == TD_CHART_DURATION ? " us" : "";
    double inner = g->gw * 0.78, bw = inner / 2;
    for (int k = 0; k < 3; k++) {
        double v = row_value(in->diff, r, in->kind, k);
        char num[48], tip[300];
        td_fmt_num(num, sizeof num, v);
        snprintf(tip, sizeof tip, "%s: %s%s%s", k < 2 ? in->label[k] : "difference",
                 k == 2 && v > 0 ? "+" : "", num, unit);
        size_t len, str = pool_str(c, tip, &len);
        /* Control and test side by side on top; the difference centred below. */
        double x = k < 2 ? gx + (g->gw - inner) / 2 + k * bw : gx + (g->gw - bw) / 2;
        add_bar(c, &g->p[k < 2 ? 0 : 1], x, bw, v, bar_rgb[k]);
        if (c->oom)
            return;
        c->ops[c->nops - 1].str = str;
        c->ops[c->nops - 1].len = len;
    }
}

static void emit_groups(chart *c, const chart_in *in, const geom *g, const label *lab)
{
    const td_row *rows = td_diff_rows(in->diff);
    for (size_t i = 0; i < in->nrows && !c->oom; i++) {
        const td_row *r = &rows[in->rows[i]];
        double gx = g->left + (double)i * g->gw;
        chart_op *o = op_add(c, OP_GROUP);
        if (!o)
            return;
        for (int k = 0; k < 3; k++)
            o->v[k] = row_value(in->diff, r, in->kind, k);
        size_t len, str = pool_text(c, r->name, r->name_len, &len);
        o->str = str;
        o->len = len;
        emit_group(c, in, g, r, gx);
        /* End-anchored and turned, each label hangs down-left from its bars;
         * the shift centres the glyphs (not the baseline) under the group. */
        double lx = gx + g->gw / 2 + FS_LABEL * 0.3, ly = g->p[1].bottom + 10;
        add_text(c, lx, ly, lab[i].str, lab[i].len, FS_LABEL, 2, LABEL_ANGLE, 0, RGB_TEXT);
        op_add(c, OP_GROUP_END);
    }
}

/* --width and --height larger than the chart needs: the plot area grows
 * (wider bar groups, taller panels, each by its share); smaller ones keep
 * what the labels need. */
static void fit_size(chart *c, const chart_in *in, geom *g)
{
    if (in->width > c->width && in->nrows) {
        g->plot_w += in->width - c->width;
        g->gw = g->plot_w / (double)in->nrows;
        c->width = in->width;
    }
    if (in->height > c->height) {
        double more = in->height - c->height, share = PLOT_H / (PLOT_H + DIFF_H);
        g->p[0].bottom += more * share;
        g->p[1].top += more * share;
        g->p[1].bottom += more;
        c->height = in->height;
    }
}

/* The title, the subtitle (what is compared) and the legend. */
static void emit_head(chart *c, const chart_in *in, double sub)
{
    size_t len, s = pool_str(c, c->title, &len);
    add_text(c, c->width / 2, 34, s, len, FS_TITLE, 1, 0, 1, RGB_TEXT);
    if (in->subtitle) {
        s = pool_str(c, in->subtitle, &len);
        add_text(c, c->width / 2, 56, s, len, FS_LEGEND, 1, 0, 0, RGB_MUTED);
    }
    legend(c, in, c->width / 2, 60 + sub, 1);
}

/* A panel's axis from its values (which: the bars it holds) and its tick
 * labels; the widest of them widens g->tick_w. */
static int panel_axis(chart *c, const chart_in *in, geom *g, int which)
{
    panel *p = &g->p[which];
    const td_row *rows = td_diff_rows(in->diff);
    double lo = 0, hi = 0;
    for (size_t i = 0; i < in->nrows; i++)
        for (int k = which ? 2 : 0; k < (which ? 3 : 2); k++) {
            double v = row_value(in->diff, &rows[in->rows[i]], in->kind, k);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    /* Counts divided per iteration have fractions. */
    int whole = in->kind == TD_CHART_COUNTS && td_diff_divisor(in->diff, 0) == 1 &&
                td_diff_divisor(in->diff, 1) == 1;
    axis_make(&p->ax, lo, hi, whole);
    if (!(p->ticks = calloc((size_t)p->ax.nticks, sizeof *p->ticks)))
        return -1;
    for (long t = 0; t < p->ax.nticks; t++) {
        axis_label(p->ticks[t], sizeof p->ticks[t], &p->ax, p->ax.lo + (double)t * p->ax.step);
        g->tick_w = fmax(g->tick_w, measure(c, p->ticks[t], FS_TICK, 0));
    }
    return 0;
}

/* A panel's grid, ticks, tick labels and title, its zero line and y axis. */
static void emit_panel(chart *c, const geom *g, const panel *p, const char *title)
{
    size_t s, l;
    for (long t = 0; t < p->ax.nticks; t++) {
        double y = crisp(y_of(p, p->ax.lo + (double)t * p->ax.step));
        add_line(c, g->left, y, g->left + g->plot_w, y, RGB_GRID);
        add_line(c, g->left - 5, y, g->left, y, RGB_AXIS);
        s = pool_str(c, p->ticks[t], &l);
        add_text(c, g->left - 8, y + FS_TICK * 0.35, s, l, FS_TICK, 2, 0, 0, RGB_TEXT);
    }
    /* Turned a quarter left, the glyphs rise leftwards from the baseline: it
     * sits just left of the widest tick label. */
    s = pool_str(c, title, &l);
    add_text(c, g->left - 8 - g->tick_w - 8, (p->top + p->bottom) / 2, s, l, FS_AXIS, 1, -90, 0,
             RGB_TEXT);
}

static void emit_axes(chart *c, const geom *g)
{
    for (int k = 0; k < 2; k++) {
        const panel *p = &g->p[k];
        double y0 = crisp(y_of(p, 0));
        add_line(c, g->left, y0, g->left + g->plot_w, y0, RGB_AXIS);
        add_line(c, crisp(g->left), p->top, crisp(g->left), p->bottom, RGB_AXIS);
    }
}

/* Width and height: room for the axis titles and tick labels, for the first
 * labels, which hang left of their bars, and for the title and legend. */
static void place(chart *c, const chart_in *in, geom *g, const label *lab, double sub)
{
    size_t n = in->nrows;
    g->gw = n ? fmin(96, fmax(26, 520.0 / (double)n)) : 0;
    if (n && g->gw * (double)n < MIN_PLOT_W)
        g->gw = fmin(120, MIN_PLOT_W / (double)n);
    g->plot_w = n ? g->gw * (double)n : MIN_PLOT_W;
    double cs = cos(LABEL_ANGLE * M_PI / 180), sn = -sin(LABEL_ANGLE * M_PI / 180);
    double left = 8 + FS_AXIS + 10 + g->tick_w + 9, max_lw = 0;
    for (size_t i = 0; i < n; i++) {
        double reach = lab[i].w * cs - ((double)i + 0.5) * g->gw - FS_LABEL * 0.3 + 8;
        left = fmax(left, reach);
        max_lw = fmax(max_lw, lab[i].w);
    }
    g->left = ceil(left);
    g->p[0].top = PLOT_TOP + sub;
    g->p[0].bottom = g->p[0].top + PLOT_H;
    g->p[1].top = g->p[0].bottom + PANEL_GAP;
    g->p[1].bottom = g->p[1].top + DIFF_H;
    double head_w = fmax(measure(c, c->title, FS_TITLE, 1), legend(c, in, 0, 0, 0));
    if (in->subtitle)
        head_w = fmax(head_w, measure(c, in->subtitle, FS_LEGEND, 0));
    c->width = ceil(fmax(g->left + g->plot_w + MARGIN, head_w + 2 * MARGIN));
    c->height = ceil(g->p[1].bottom + 10 + max_lw * sn + FS_LABEL * cs + 14);
    fit_size(c, in, g);
}

static int chart_layout(chart *c, const chart_in *in, td_error *err)
{
    label *lab = calloc(in->nrows + 1, sizeof *lab);
    geom g = {0};
    int rc = 0;
    if (!lab || panel_axis(c, in, &g, 0) < 0 || panel_axis(c, in, &g, 1) < 0) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    if ((rc = make_labels(c, in, lab)) < 0) {
        td_fail(err, rc, "", "out of memory");
        goto done;
    }
    double sub = in->subtitle ? 20 : 0;
    place(c, in, &g, lab, sub);

    /* Drawn back to front. */
    add_rect(c, 0, 0, c->width, c->height, RGB_BACK);
    emit_head(c, in, sub);
    int counts = in->kind == TD_CHART_COUNTS;
    emit_panel(c, &g, &g.p[0], counts ? "Count" : "Total Duration (us)");
    emit_panel(c, &g, &g.p[1], counts ? "Difference" : "Difference (us)");
    emit_groups(c, in, &g, lab);
    emit_axes(c, &g);
    if (in->nrows == 0) {
        size_t tlen, s = pool_str(c, "no rows to show", &tlen);
        add_text(c, g.left + g.plot_w / 2, (g.p[0].top + g.p[0].bottom) / 2, s, tlen, FS_AXIS, 1, 0,
                 0, RGB_MUTED);
    }
    if (c->oom)
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
done:
    free(lab);
    free(g.p[0].ticks);
    free(g.p[1].ticks);
    return rc;
}

static void chart_free(chart *c)
{
    free(c->all_rows);
    free(c->ops);
    free(c->pool);
    if (c->mcr)
        cairo_destroy(c->mcr);
    if (c->msurf)
        cairo_surface_destroy(c->msurf);
}

static int chart_build(chart *c, chart_in *in, td_error *err)
{
    memset(c, 0, sizeof *c);
    if (!in->rows) {
        /* As the writers read it: no view, every row in name order. */
        in->nrows = td_diff_nrows(in->diff);
        if (in->nrows <= TD_CHART_MAX_ROWS) {
            if (!(c->all_rows = malloc((in->nrows + 1) * sizeof *c->all_rows)))
                return td_fail(err, TD_ENOMEM, "", "out of memory");
            for (size_t i = 0; i < in->nrows; i++)
                c->all_rows[i] = i;
            in->rows = c->all_rows;
        }
    }
    if (in->nrows > TD_CHART_MAX_ROWS)
        return td_fail(err, TD_EUSAGE, "",
                       "%zu rows: a chart shows at most %d (pick fewer with --top or --include)",
                       in->nrows, TD_CHART_MAX_ROWS);
    size_t nall = td_diff_nrows(in->diff);
    for (size_t i = 0; i < in->nrows; i++)
        if (in->rows[i] >= nall)
            return td_fail(err, TD_EUSAGE, "", "chart row %zu is not a row of the diff",
                           in->rows[i]);
    c->title = in->kind == TD_CHART_COUNTS ? "Ops Count Comparison" : "Ops Duration Comparison";
    int rc = td_cairo_load(err);
    if (rc < 0)
        return rc;
    c->msurf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    c->mcr = cairo_create(c->msurf);
    if (cairo_status(c->mcr) != CAIRO_STATUS_SUCCESS)
        return td_fail(err, TD_ENOMEM, "", "cannot set up cairo: %s",
                       cairo_status_to_string(cairo_status(c->mcr)));
    return chart_layout(c, in, err);
}

/* ------------------------------------------------------------------------ */
/* Entry points.                                                              */

void td_chart_default_view(td_view_opts *o, td_chart_kind kind)
{
    o->sort = kind == TD_CHART_COUNTS ? TD_COL_ABS_DIFF_COUNTS : TD_COL_ABS_DIFF_DURATION;
    o->has_sort = true;
    o->ascending = false;
    o->top = 10;
    o->exclude_steps = true;
}

/* What a chart shows, from the caller's options (checked: tracediff.h,
 * "Options structs"). */
static int chart_in_set(chart_in *in, td_chart_kind kind, const td_diff *diff, const size_t *rows,
                        size_t nrows, const td_chart_opts *opts, td_error *err)
{
    td_chart_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_chart_opts, TD_CHART_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    in->kind = kind;
    in->diff = diff;
    in->rows = rows;
    in->nrows = nrows;
    in->label[0] = o.control_label ? o.control_label : "control";
    in->label[1] = o.test_label ? o.test_label : "test";
    in->subtitle = o.subtitle && *o.subtitle ? o.subtitle : NULL;
    in->width = o.width;
    in->height = o.height;
    return 0;
}

int td_chart_svg(FILE *f, td_chart_kind kind, const td_diff *diff, const size_t *rows, size_t nrows,
                 const char *control_label, const char *test_label, td_error *err)
{
    td_chart_opts o = TD_CHART_OPTS_INIT;
    o.control_label = control_label;
    o.test_label = test_label;
    return td_chart_svg_opts(f, kind, diff, rows, nrows, &o, err);
}

int td_chart_svg_opts(FILE *f, td_chart_kind kind, const td_diff *diff, const size_t *rows,
                      size_t nrows, const td_chart_opts *o, td_error *err)
{
    chart c;
    chart_in in = {0};
    int rc = chart_in_set(&in, kind, diff, rows, nrows, o, err);
    if (rc < 0)
        return rc;
    rc = chart_build(&c, &in, err);
    if (rc == 0 && (rc = td_chart_svg_write(f, &c, kind)) < 0)
        td_fail(err, rc, "", "cannot write the chart: %s", strerror(errno));
    chart_free(&c);
    return rc;
}

int td_chart_write(const char *path, td_chart_kind kind, const td_diff *diff, const size_t *rows,
                   size_t nrows, const char *control_label, const char *test_label, td_error *err)
{
    td_chart_opts o = TD_CHART_OPTS_INIT;
    o.control_label = control_label;
    o.test_label = test_label;
    return td_chart_write_opts(path, kind, diff, rows, nrows, &o, err);
}

int td_chart_write_opts(const char *path, td_chart_kind kind, const td_diff *diff,
                        const size_t *rows, size_t nrows, const td_chart_opts *o, td_error *err)
{
    int fmt = td_has_ext(path, ".svg")   ? 0
              : td_has_ext(path, ".png") ? 1
              : td_has_ext(path, ".pdf") ? 2
                                         : -1;
    if (fmt < 0)
        return td_fail(err, TD_EUSAGE, path, "unknown chart format: name it .svg, .png or .pdf");
    chart c;
    chart_in in = {0};
    int rc = chart_in_set(&in, kind, diff, rows, nrows, o, err);
    if (rc < 0)
        return rc;
    FILE *f = NULL;
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (tmp)
        tmp[0] = '\0';
    rc = chart_build(&c, &in, err);
    if (rc < 0)
        goto done;
    if (!tmp) {
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
        goto done;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* A device or a pipe: renaming over it would destroy it. */
        free(tmp);
        tmp = NULL;
        if (!(f = fopen(path, "wb"))) {
            rc = td_fail(err, TD_EIO, path, "cannot open: %s", strerror(errno));
            goto done;
        }
        goto draw;
    }
    /* Drawn beside the target and renamed into place: whole or not at all. */
    snprintf(tmp, n, "%s.tmp.XXXXXX", path);
    int fd = td_temp_create(tmp); /* removed by the CLI on a signal */
    if (fd < 0) {
        rc = td_fail(err, TD_EIO, path, "cannot create: %s", strerror(errno));
        free(tmp);
        tmp = NULL;
        goto done;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    if (!(f = fdopen(fd, "wb"))) {
        close(fd);
        rc = td_fail(err, TD_EIO, path, "cannot create: %s", strerror(errno));
        goto done;
    }
draw:
    if (fmt == 0)
        rc = td_chart_svg_write(f, &c, kind) < 0
                 ? td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno))
                 : 0;
    else
        rc = td_chart_cairo_write(f, &c, fmt == 2, path, err);
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    f = NULL;
    if (rc == 0 && bad)
        rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno ? errno : EIO));
    if (rc == 0 && tmp && rename(tmp, path) != 0)
        rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno));
done:
    if (rc < 0 && tmp && tmp[0])
        unlink(tmp);
    if (tmp && tmp[0])
        td_temp_forget(tmp);
    free(tmp);
    chart_free(&c);
    return rc;
}
