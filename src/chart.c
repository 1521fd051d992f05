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
#include "internal.h"
#include "out_common.h"
#include "utf8_text.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Cairo measures and draws with the first; browsers pick from the second a
 * face of about the same width, so SVG labels fit the room measured here. */
#define FONT_CAIRO "DejaVu Sans"
#define FONT_SVG "DejaVu Sans, Verdana, Geneva, sans-serif"

#define FS_TITLE 18.0
#define FS_LEGEND 13.0
#define FS_TICK 12.0
#define FS_AXIS 13.0
#define FS_LABEL 12.0
#define LABEL_ROOM 250.0 /* longest x label, px: about 40 characters */
#define LABEL_ANGLE (-45.0)
#define PLOT_H 340.0
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

typedef enum op_kind { OP_RECT, OP_LINE, OP_TEXT, OP_GROUP, OP_GROUP_END } op_kind;

typedef struct chart_op {
    op_kind kind;
    uint32_t rgb;
    double x, y, w, h; /* rect: corner, size; line: (x, y) to (x + w, y + h); text: anchor */
    double size;       /* text: font size; line: width */
    double angle;      /* text: rotation in degrees, clockwise as SVG counts */
    int anchor;        /* text: 0 start, 1 middle, 2 end */
    int bold;
    size_t str, len;   /* text; or the tooltip of a rect or group (len 0: none) */
    double v[3];       /* group: control, test, difference */
} chart_op;

typedef struct chart {
    double width, height;
    chart_op *ops;
    size_t nops, cap;
    char *pool; /* every string, sanitised and NUL-terminated for cairo */
    size_t plen, pcap;
    cairo_surface_t *msurf; /* for measuring text */
    cairo_t *mcr;
    const char *title;
    int oom;
} chart;

typedef struct chart_in {
    td_chart_kind kind;
    const td_diff *diff;
    const size_t *rows;
    size_t nrows;
    const char *label[2];
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

static void set_font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, FONT_CAIRO, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* Advance width of NUL-terminated, valid UTF-8 text. */
static double measure(chart *c, const char *s, double size, int bold)
{
    cairo_text_extents_t e;
    set_font(c->mcr, size, bold);
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

/* Appends s shortened to at most room px: the head and the tail of the name
 * around an ellipsis, since kernel names that share a long prefix often
 * differ only in their template or argument lists near the end. */
static size_t pool_fit(chart *c, const char *s, size_t len, double size, double room,
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
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)t[i] & 0xC0) != 0x80)
            b[npts++] = i;
    b[npts] = n;
    static const char ell[] = "\xE2\x80\xA6";
    double ew = measure(c, ell, size, 0);
    double head_room = (room - ew) * 0.62;
    /* Longest head that fits its share, then the longest tail for the rest. */
    size_t lo = 0, hi = npts;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (measure_n(c, t, b[mid], size) <= head_room)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t head = lo;
    double tail_room = room - ew - measure_n(c, t, b[head], size);
    lo = 0;
    hi = npts - head;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (measure(c, t + b[npts - mid], size, 0) <= tail_room)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t tail = lo;
    /* The head and tail read better without the space at the cut. */
    size_t hb = b[head], ts = b[npts - tail];
    while (hb > 0 && t[hb - 1] == ' ')
        hb--;
    while (ts < n && t[ts] == ' ')
        ts++;
    c->plen = off; /* replace the full copy */
    if (pool_reserve(c, hb + 3 + (n - ts) + 1) == 0) {
        memcpy(c->pool + c->plen, t, hb);
        memcpy(c->pool + c->plen + hb, ell, 3);
        memcpy(c->pool + c->plen + hb + 3, t + ts, n - ts);
        c->plen += hb + 3 + (n - ts);
        c->pool[c->plen++] = '\0';
        *out_len = c->plen - off - 1;
        *width = measure(c, c->pool + off, size, 0);
    }
    free(t);
    free(b);
    return off;
}

static void add_text(chart *c, double x, double y, size_t str, size_t len, double size,
                     int anchor, double angle, int bold, uint32_t rgb)
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
    while (a->decimals < 6 && fabs(st * pow(10, a->decimals) -
                                   round(st * pow(10, a->decimals))) > 1e-6)
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
    snprintf(buf, cap, "%s%.*f%s", x < 0 ? "\xE2\x88\x92" : "", a->decimals, fabs(x),
             a->suffix);
}

/* ------------------------------------------------------------------------ */
/* Layout.                                                                    */

static double row_value(const td_row *r, td_chart_kind kind, int which)
{
    if (kind == TD_CHART_COUNTS)
        return which == 2 ? (double)r->diff_counts : (double)r->counts[which];
    return which == 2 ? r->diff_duration : r->duration[which];
}

/* Per row: the text under its bars. The short name when no other plotted
 * row has the same one, else the full name; either cut to LABEL_ROOM. */
typedef struct label {
    size_t str, len;
    double w;
} label;

static int make_labels(chart *c, const chart_in *in, label *lab)
{
    const td_row *rows = td_diff_rows(in->diff);
    char **sn = calloc(in->nrows + 1, sizeof *sn);
    size_t *sl = calloc(in->nrows + 1, sizeof *sl);
    int rc = 0;
    if (!sn || !sl) {
        rc = TD_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < in->nrows; i++) {
        const td_row *r = &rows[in->rows[i]];
        if (td_short_name(&sn[i], &sl[i], r->name, r->name_len) < 0) {
            rc = TD_ENOMEM;
            goto done;
        }
    }
    for (size_t i = 0; i < in->nrows; i++) {
        const td_row *r = &rows[in->rows[i]];
        int unique = 1;
        for (size_t j = 0; j < in->nrows && unique; j++)
            if (j != i && sl[j] == sl[i] && memcmp(sn[j], sn[i], sl[i]) == 0)
                unique = 0;
        const char *s = unique ? sn[i] : r->name;
        size_t n = unique ? sl[i] : r->name_len;
        lab[i].str = pool_fit(c, s, n, FS_LABEL, LABEL_ROOM, &lab[i].len, &lab[i].w);
        if (c->oom) {
            rc = TD_ENOMEM;
            goto done;
        }
    }
done:
    if (sn)
        for (size_t i = 0; i < in->nrows; i++)
            free(sn[i]);
    free(sn);
    free(sl);
    return rc;
}

typedef struct geom {
    double left, top, bottom, gw;
    axis ax;
} geom;

static double y_of(const geom *g, double v)
{
    return g->bottom - (v - g->ax.lo) / (g->ax.hi - g->ax.lo) * (g->bottom - g->top);
}

static void emit_legend(chart *c, const chart_in *in, double cx, double y)
{
    size_t str[3], len[3];
    double w[3], total = 0;
    static const double sw = 12, gap = 6, sep = 22;
    for (int k = 0; k < 3; k++) {
        const char *s = k < 2 ? in->label[k] : "difference";
        str[k] = pool_fit(c, s, strlen(s), FS_LEGEND, 220, &len[k], &w[k]);
        if (c->oom)
            return;
        /* pool_fit measured at the regular weight, and so is the legend. */
        total += sw + gap + w[k] + (k < 2 ? sep : 0);
    }
    double x = cx - total / 2;
    for (int k = 0; k < 3; k++) {
        add_rect(c, x, y - sw + 1, sw, sw, bar_rgb[k]);
        add_text(c, x + sw + gap, y, str[k], len[k], FS_LEGEND, 0, 0, 0, RGB_TEXT);
        x += sw + gap + w[k] + sep;
    }
}

static double legend_width(chart *c, const chart_in *in)
{
    double total = 0;
    size_t len;
    double w;
    const char *texts[3] = {in->label[0], in->label[1], "difference"};
    size_t mark = c->plen;
    for (int k = 0; k < 3; k++) {
        pool_fit(c, texts[k], strlen(texts[k]), FS_LEGEND, 220, &len, &w);
        total += 12 + 6 + w + (k < 2 ? 22 : 0);
    }
    c->plen = mark; /* measured only */
    return total;
}

static void emit_groups(chart *c, const chart_in *in, const geom *g, const label *lab)
{
    const td_row *rows = td_diff_rows(in->diff);
    const char *unit = in->kind == TD_CHART_DURATION ? " us" : "";
    double inner = g->gw * 0.78, bw = inner / 3, y0 = y_of(g, 0);
    for (size_t i = 0; i < in->nrows && !c->oom; i++) {
        const td_row *r = &rows[in->rows[i]];
        double gx = g->left + (double)i * g->gw;
        chart_op *o = op_add(c, OP_GROUP);
        if (!o)
            return;
        for (int k = 0; k < 3; k++)
            o->v[k] = row_value(r, in->kind, k);
        size_t len, str = pool_text(c, r->name, r->name_len, &len);
        o->str = str;
        o->len = len;
        for (int k = 0; k < 3; k++) {
            double v = row_value(r, in->kind, k), yv = y_of(g, v);
            double top = fmin(y0, yv), h = fabs(yv - y0);
            /* A value too small to see still shows as a hairline. */
            if (v != 0 && h < 1) {
                h = 1;
                top = v > 0 ? y0 - 1 : y0;
            }
            char num[48], tip[300];
            td_fmt_num(num, sizeof num, v);
            snprintf(tip, sizeof tip, "%s: %s%s%s", k < 2 ? in->label[k] : "difference",
                     k == 2 && v > 0 ? "+" : "", num, unit);
            str = pool_str(c, tip, &len);
            add_rect(c, gx + (g->gw - inner) / 2 + k * bw, top, bw, h, bar_rgb[k]);
            if (c->oom)
                return;
            c->ops[c->nops - 1].str = str;
            c->ops[c->nops - 1].len = len;
        }
        /* End-anchored and turned, each label hangs down-left from its bars;
         * the shift centres the glyphs (not the baseline) under the group. */
        double lx = gx + g->gw / 2 + FS_LABEL * 0.3, ly = g->bottom + 10;
        add_text(c, lx, ly, lab[i].str, lab[i].len, FS_LABEL, 2, LABEL_ANGLE, 0, RGB_TEXT);
        op_add(c, OP_GROUP_END);
    }
}

static int chart_layout(chart *c, const chart_in *in, td_error *err)
{
    label *lab = calloc(in->nrows + 1, sizeof *lab);
    char (*ticks)[48] = NULL;
    int rc = 0;
    if (!lab) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    if ((rc = make_labels(c, in, lab)) < 0) {
        td_fail(err, rc, "", "out of memory");
        goto done;
    }
    const td_row *rows = td_diff_rows(in->diff);
    double lo = 0, hi = 0;
    for (size_t i = 0; i < in->nrows; i++)
        for (int k = 0; k < 3; k++) {
            double v = row_value(&rows[in->rows[i]], in->kind, k);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    geom g;
    axis_make(&g.ax, lo, hi, in->kind == TD_CHART_COUNTS);
    ticks = calloc((size_t)g.ax.nticks, sizeof *ticks);
    if (!ticks) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    double tick_w = 0;
    for (long t = 0; t < g.ax.nticks; t++) {
        axis_label(ticks[t], sizeof ticks[t], &g.ax, g.ax.lo + (double)t * g.ax.step);
        tick_w = fmax(tick_w, measure(c, ticks[t], FS_TICK, 0));
    }

    /* Horizontal: room for the axis title and tick labels, and for the first
     * labels, which hang left of their bars. */
    size_t n = in->nrows;
    g.gw = n ? fmin(96, fmax(26, 560.0 / (double)n)) : 0;
    if (n && g.gw * (double)n < MIN_PLOT_W)
        g.gw = fmin(120, MIN_PLOT_W / (double)n);
    double plot_w = n ? g.gw * (double)n : MIN_PLOT_W;
    double cs = cos(LABEL_ANGLE * M_PI / 180), sn = -sin(LABEL_ANGLE * M_PI / 180);
    double left = 8 + FS_AXIS + 10 + tick_w + 9, max_lw = 0;
    for (size_t i = 0; i < n; i++) {
        double reach = lab[i].w * cs - ((double)i + 0.5) * g.gw - FS_LABEL * 0.3 + 8;
        left = fmax(left, reach);
        max_lw = fmax(max_lw, lab[i].w);
    }
    g.left = ceil(left);
    g.top = PLOT_TOP;
    g.bottom = PLOT_TOP + PLOT_H;
    size_t tlen;
    const char *title = c->title;
    double title_w = measure(c, title, FS_TITLE, 1);
    double legend_w = legend_width(c, in);
    c->width = ceil(fmax(g.left + plot_w + MARGIN, fmax(title_w, legend_w) + 2 * MARGIN));
    c->height = ceil(g.bottom + 10 + max_lw * sn + FS_LABEL * cs + 14);

    /* Drawn back to front. */
    add_rect(c, 0, 0, c->width, c->height, RGB_BACK);
    size_t ts = pool_str(c, title, &tlen);
    add_text(c, c->width / 2, 34, ts, tlen, FS_TITLE, 1, 0, 1, RGB_TEXT);
    emit_legend(c, in, c->width / 2, 60);
    for (long t = 0; t < g.ax.nticks; t++) {
        double y = crisp(y_of(&g, g.ax.lo + (double)t * g.ax.step));
        add_line(c, g.left, y, g.left + plot_w, y, RGB_GRID);
        add_line(c, g.left - 5, y, g.left, y, RGB_AXIS);
        size_t s, l;
        s = pool_str(c, ticks[t], &l);
        add_text(c, g.left - 8, y + FS_TICK * 0.35, s, l, FS_TICK, 2, 0, 0, RGB_TEXT);
    }
    const char *yt = in->kind == TD_CHART_COUNTS ? "Count" : "Total Duration (us)";
    size_t ys = pool_str(c, yt, &tlen);
    add_text(c, 8 + FS_AXIS, (g.top + g.bottom) / 2, ys, tlen, FS_AXIS, 1, -90, 0, RGB_TEXT);
    emit_groups(c, in, &g, lab);
    double y0 = crisp(y_of(&g, 0));
    add_line(c, g.left, y0, g.left + plot_w, y0, RGB_AXIS);
    add_line(c, crisp(g.left), g.top, crisp(g.left), g.bottom, RGB_AXIS);
    if (n == 0) {
        size_t s = pool_str(c, "no rows to show", &tlen);
        add_text(c, g.left + plot_w / 2, (g.top + g.bottom) / 2, s, tlen, FS_AXIS, 1, 0, 0,
                 RGB_MUTED);
    }
    if (c->oom)
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
done:
    free(lab);
    free(ticks);
    return rc;
}

static void chart_free(chart *c)
{
    free(c->ops);
    free(c->pool);
    if (c->mcr)
        cairo_destroy(c->mcr);
    if (c->msurf)
        cairo_surface_destroy(c->msurf);
}

static int chart_build(chart *c, const chart_in *in, td_error *err)
{
    memset(c, 0, sizeof *c);
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
    c->msurf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    c->mcr = cairo_create(c->msurf);
    if (cairo_status(c->mcr) != CAIRO_STATUS_SUCCESS)
        return td_fail(err, TD_ENOMEM, "", "cannot set up cairo: %s",
                       cairo_status_to_string(cairo_status(c->mcr)));
    return chart_layout(c, in, err);
}

/* ------------------------------------------------------------------------ */
/* SVG.                                                                       */

static void svg_num(FILE *f, double x)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.2f", x);
    /* Trailing zeros only weigh the file down. */
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf);
        while (e > dot + 1 && e[-1] == '0')
            *--e = '\0';
        if (e == dot + 1)
            *dot = '\0';
    }
    fputs(strcmp(buf, "-0") == 0 ? "0" : buf, f);
}

static void svg_escape(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(s[i], f);
        }
    }
}

static void svg_title(FILE *f, const chart *c, const chart_op *o)
{
    fputs("<title>", f);
    svg_escape(f, c->pool + o->str, o->len);
    fputs("</title>", f);
}

static void svg_op(FILE *f, const chart *c, const chart_op *o)
{
    char num[48];
    switch (o->kind) {
    case OP_RECT:
        fputs("<rect x=\"", f);
        svg_num(f, o->x);
        fputs("\" y=\"", f);
        svg_num(f, o->y);
        fputs("\" width=\"", f);
        svg_num(f, o->w);
        fputs("\" height=\"", f);
        svg_num(f, o->h);
        fprintf(f, "\" fill=\"#%06X\"", o->rgb);
        if (o->len) {
            fputc('>', f);
            svg_title(f, c, o);
            fputs("</rect>\n", f);
        } else {
            fputs("/>\n", f);
        }
        break;
    case OP_LINE:
        fputs("<line x1=\"", f);
        svg_num(f, o->x);
        fputs("\" y1=\"", f);
        svg_num(f, o->y);
        fputs("\" x2=\"", f);
        svg_num(f, o->x + o->w);
        fputs("\" y2=\"", f);
        svg_num(f, o->y + o->h);
        fprintf(f, "\" stroke=\"#%06X\" stroke-width=\"", o->rgb);
        svg_num(f, o->size);
        fputs("\"/>\n", f);
        break;
    case OP_TEXT:
        fputs("<text x=\"", f);
        svg_num(f, o->x);
        fputs("\" y=\"", f);
        svg_num(f, o->y);
        fputs("\" font-size=\"", f);
        svg_num(f, o->size);
        fprintf(f, "\" fill=\"#%06X\"", o->rgb);
        if (o->anchor)
            fprintf(f, " text-anchor=\"%s\"", o->anchor == 1 ? "middle" : "end");
        if (o->bold)
            fputs(" font-weight=\"bold\"", f);
        if (o->angle != 0) {
            fputs(" transform=\"rotate(", f);
            svg_num(f, o->angle);
            fputc(' ', f);
            svg_num(f, o->x);
            fputc(' ', f);
            svg_num(f, o->y);
            fputs(")\"", f);
        }
        fputc('>', f);
        svg_escape(f, c->pool + o->str, o->len);
        fputs("</text>\n", f);
        break;
    case OP_GROUP:
        /* The numbers exactly as the CSV writer prints them. */
        fputs("<g class=\"bar-group\"", f);
        static const char *const attr[3] = {"data-control", "data-test", "data-diff"};
        for (int k = 0; k < 3; k++) {
            td_fmt_num(num, sizeof num, o->v[k]);
            fprintf(f, " %s=\"%s\"", attr[k], num);
        }
        fputc('>', f);
        svg_title(f, c, o);
        fputc('\n', f);
        break;
    case OP_GROUP_END:
        fputs("</g>\n", f);
        break;
    }
}

static int svg_write(FILE *f, const chart *c, td_chart_kind kind)
{
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"td-chart\"", f);
    fprintf(f, " data-kind=\"%s\" width=\"", kind == TD_CHART_COUNTS ? "counts" : "duration");
    svg_num(f, c->width);
    fputs("\" height=\"", f);
    svg_num(f, c->height);
    fputs("\" viewBox=\"0 0 ", f);
    svg_num(f, c->width);
    fputc(' ', f);
    svg_num(f, c->height);
    fprintf(f, "\" font-family=\"%s\" role=\"img\" aria-label=\"%s\">\n", FONT_SVG, c->title);
    for (size_t i = 0; i < c->nops; i++)
        svg_op(f, c, &c->ops[i]);
    fputs("</svg>\n", f);
    return ferror(f) ? TD_EIO : 0;
}

/* ------------------------------------------------------------------------ */
/* Cairo: PNG and PDF.                                                        */

static void cairo_rgb(cairo_t *cr, uint32_t rgb)
{
    cairo_set_source_rgb(cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0,
                         (rgb & 0xFF) / 255.0);
}

static void cairo_op(cairo_t *cr, const chart *c, const chart_op *o)
{
    cairo_text_extents_t e;
    switch (o->kind) {
    case OP_RECT:
        cairo_rgb(cr, o->rgb);
        cairo_rectangle(cr, o->x, o->y, o->w, o->h);
        cairo_fill(cr);
        break;
    case OP_LINE:
        cairo_rgb(cr, o->rgb);
        cairo_set_line_width(cr, o->size);
        cairo_move_to(cr, o->x, o->y);
        cairo_line_to(cr, o->x + o->w, o->y + o->h);
        cairo_stroke(cr);
        break;
    case OP_TEXT:
        cairo_rgb(cr, o->rgb);
        set_font(cr, o->size, o->bold);
        cairo_text_extents(cr, c->pool + o->str, &e);
        cairo_save(cr);
        cairo_translate(cr, o->x, o->y);
        cairo_rotate(cr, o->angle * M_PI / 180);
        cairo_move_to(cr, o->anchor == 1 ? -e.x_advance / 2 : o->anchor == 2 ? -e.x_advance : 0,
                      0);
        cairo_show_text(cr, c->pool + o->str);
        cairo_restore(cr);
        break;
    case OP_GROUP:
    case OP_GROUP_END:
        break;
    }
}

static cairo_status_t to_file(void *ud, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, ud) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int cairo_write(FILE *f, const chart *c, int pdf, const char *path, td_error *err)
{
    cairo_surface_t *s;
    if (pdf)
        s = cairo_pdf_surface_create_for_stream(to_file, f, c->width, c->height);
    else
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)c->width, (int)c->height);
    cairo_t *cr = cairo_create(s);
    if (pdf) {
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, c->title);
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "tracediff " TD_VERSION);
    }
    for (size_t i = 0; i < c->nops; i++)
        cairo_op(cr, c, &c->ops[i]);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (st == CAIRO_STATUS_SUCCESS) {
        if (pdf)
            cairo_surface_finish(s);
        else
            st = cairo_surface_write_to_png_stream(s, to_file, f);
    }
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS)
        return td_fail(err, st == CAIRO_STATUS_WRITE_ERROR ? TD_EIO : TD_ENOMEM, path,
                       "cannot draw the chart: %s", cairo_status_to_string(st));
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Entry points.                                                              */

void td_chart_default_view(td_view_opts *o, td_chart_kind kind)
{
    o->sort = kind == TD_CHART_COUNTS ? TD_COL_ABS_DIFF_COUNTS : TD_COL_ABS_DIFF_DURATION;
    o->has_sort = 1;
    o->ascending = 0;
    o->top = 10;
    o->exclude_steps = 1;
}

static void chart_in_set(chart_in *in, td_chart_kind kind, const td_diff *diff,
                         const size_t *rows, size_t nrows, const char *cl, const char *tl)
{
    in->kind = kind;
    in->diff = diff;
    in->rows = rows;
    in->nrows = nrows;
    in->label[0] = cl ? cl : "control";
    in->label[1] = tl ? tl : "test";
}

int td_chart_svg(FILE *f, td_chart_kind kind, const td_diff *diff, const size_t *rows,
                 size_t nrows, const char *control_label, const char *test_label, td_error *err)
{
    chart c;
    chart_in in;
    chart_in_set(&in, kind, diff, rows, nrows, control_label, test_label);
    int rc = chart_build(&c, &in, err);
    if (rc == 0 && (rc = svg_write(f, &c, kind)) < 0)
        td_fail(err, rc, "", "cannot write the chart: %s", strerror(errno));
    chart_free(&c);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

int td_chart_write(const char *path, td_chart_kind kind, const td_diff *diff,
                   const size_t *rows, size_t nrows, const char *control_label,
                   const char *test_label, td_error *err)
{
    int fmt = ends_with(path, ".svg") ? 0 : ends_with(path, ".png") ? 1
              : ends_with(path, ".pdf") ? 2 : -1;
    if (fmt < 0)
        return td_fail(err, TD_EUSAGE, path, "unknown chart format: name it .svg, .png or .pdf");
    chart c;
    chart_in in;
    chart_in_set(&in, kind, diff, rows, nrows, control_label, test_label);
    FILE *f = NULL;
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    int rc = chart_build(&c, &in, err);
    if (rc < 0)
        goto done;
    if (!tmp) {
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
        goto done;
    }
    /* Drawn beside the target and renamed into place: whole or not at all. */
    snprintf(tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
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
    if (fmt == 0)
        rc = svg_write(f, &c, kind) < 0 ? td_fail(err, TD_EIO, path, "cannot write: %s",
                                                  strerror(errno))
                                        : 0;
    else
        rc = cairo_write(f, &c, fmt == 2, path, err);
    int bad = ferror(f);
    if (fclose(f) != 0)
        bad = 1;
    f = NULL;
    if (rc == 0 && bad)
        rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno ? errno : EIO));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno));
done:
    if (rc < 0 && tmp)
        unlink(tmp);
    free(tmp);
    chart_free(&c);
    return rc;
}
