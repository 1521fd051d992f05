/* The breakdown's chart (tracediff plot breakdown, docs/breakdown.md): the
 * waterfall from control's step time to test's through each component's
 * change, or with per_rank one stacked bar per rank and side, its
 * components adding up to the rank's step time. Values are means per
 * (rank, iteration), as `breakdown` prints them. One drawing, two pens
 * (pen.h). The SVG carries the value axis' range and the plot area in
 * data- attributes, and every bar its values, so that a reader can check
 * each coordinate against `breakdown --format json`. */
#include "present/chart_draw.h"
#include "present/out_common.h"
#include "present/pen.h"
#include "util/utf8_text.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COL_CONTROL "#4C72B0"
#define COL_TEST "#DD8452"
#define COL_UP "#C44E52"
#define COL_DOWN "#55A868"
#define COL_FLAT "#8C8C8C"
#define COL_GRID "#DDDDDD"
#define COL_SUB "#555555"

/* The components of a step, in the waterfall's order (its bars are named
 * so too: td_breakdown_waterfall), with their colours in the stacked bars. */
enum { NCOMP = 7 };
static const struct {
    int metric; /* td_bd_metric */
    const char *rgb;
} comp[NCOMP] = {{TD_BD_COMPUTE, "#4C72B0"},        {TD_BD_EXPOSED_COMM, "#DD8452"},
                 {TD_BD_EXPOSED_MEM, "#55A868"},    {TD_BD_EXPOSED_OTHER, "#8172B3"},
                 {TD_BD_IDLE_HOST_WAIT, "#C44E52"}, {TD_BD_IDLE_OTHER, "#E8A5A6"},
                 {TD_BD_OUTSIDE_GPU, "#8C8C8C"}};

typedef struct frame {
    double W, H, L, R, T, B, pw, ph;
    double lo, hi, step; /* the value axis, in display units */
    double scale;        /* us per display unit: 1 or 1000 */
    const char *unit;    /* "us" or "ms" */
} frame;

static double y_of(const frame *fr, double us)
{
    return fr->T + fr->ph - fr->ph * (us / fr->scale - fr->lo) / (fr->hi - fr->lo);
}

/* The value axis from lo_us to hi_us (us), in ms from 10 ms on. */
static void frame_axis(frame *fr, double lo_us, double hi_us)
{
    /* A sliver below zero (a remainder of a few us from rounding) is drawn
     * at zero's line rather than given an axis step of its own. */
    if (lo_us < 0 && -lo_us < 0.01 * hi_us)
        lo_us = 0;
    double big = fmax(fabs(lo_us), fabs(hi_us));
    fr->scale = big >= 10000 ? 1000 : 1;
    fr->unit = big >= 10000 ? "ms" : "us";
    double lo = fmin(0, lo_us / fr->scale), hi = fmax(0, hi_us / fr->scale);
    if (hi <= lo)
        hi = lo + 1;
    fr->step = td_nice_step((hi - lo) * 1.05, 5);
    fr->lo = floor(lo / fr->step + 1e-9) * fr->step;
    fr->hi = ceil(hi * 1.05 / fr->step - 1e-9) * fr->step;
    if (fr->hi <= fr->lo)
        fr->hi = fr->lo + fr->step;
}

static void frame_size(frame *fr, const td_bd_chart_opts *o, double top)
{
    fr->W = o->width > 0 ? o->width : 960;
    fr->H = o->height > 0 ? o->height : 540;
    fr->L = 90;
    fr->R = 30;
    fr->T = top;
    fr->B = 80;
    fr->pw = fr->W - fr->L - fr->R;
    fr->ph = fr->H - fr->T - fr->B;
}

static const char *label_of(const char *label, int side)
{
    return label && *label ? label : side ? "test" : "control";
}

/* Background, title, subtitle, the value axis' grid and labels. */
static void draw_frame(const td_pen *p, const frame *fr, const td_bd_chart_opts *o,
                       const char *title, const char *what)
{
    td_pen_rect(p, 0, 0, fr->W, fr->H, "#FFFFFF");
    td_pen_text(p, fr->W / 2, 26, 17, 1, 1, 0, "#000000", title);
    char sub[640];
    snprintf(sub, sizeof sub, "%s%s%s vs %s, %s", o->subtitle && *o->subtitle ? o->subtitle : "",
             o->subtitle && *o->subtitle ? " \xC2\xB7 " : "", label_of(o->control_label, 0),
             label_of(o->test_label, 1), what);
    td_pen_text(p, fr->W / 2, 45, 12, 1, 0, 0, COL_SUB, sub);
    long nt = lround((fr->hi - fr->lo) / fr->step);
    for (long k = 0; k <= nt; k++) {
        double v = fr->lo + fr->step * (double)k;
        double y = fr->T + fr->ph - fr->ph * (v - fr->lo) / (fr->hi - fr->lo);
        char num[48];
        td_fmt_human(num, sizeof num, fabs(v) < fr->step * 1e-9 ? 0 : v, true);
        td_pen_line(p, fr->L, y, fr->L + fr->pw, y,
                    fabs(v) < fr->step * 1e-9 ? "#999999" : COL_GRID, 1);
        td_pen_text(p, fr->L - 6, y + 4, 11, 2, 0, 0, "#000000", num);
    }
    char axis[64];
    snprintf(axis, sizeof axis, "time per iteration (%s)", fr->unit);
    td_pen_text(p, 20, fr->T + fr->ph / 2, 12, 1, 0, 1, "#000000", axis);
}

/* A name under a bar, on two lines when it is wider than room: cut at the
 * space nearest its middle. */
static void draw_name(const td_pen *p, double x, double y, double room, const char *s)
{
    size_t n = strlen(s);
    if ((double)n * 6.2 <= room || !strchr(s, ' ')) {
        td_pen_text(p, x, y, 11, 1, 0, 0, "#000000", s);
        return;
    }
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] == ' ' &&
            (best == 0 || labs((long)i - (long)n / 2) < labs((long)best - (long)n / 2)))
            best = i;
    char a[128], b[128];
    snprintf(a, sizeof a, "%.*s", (int)best, s);
    snprintf(b, sizeof b, "%s", s + best + 1);
    td_pen_text(p, x, y, 11, 1, 0, 0, "#000000", a);
    td_pen_text(p, x, y + 13, 11, 1, 0, 0, "#000000", b);
}

/* One bar from a to b (us), its tooltip and values in SVG. */
static void draw_bar(const td_pen *p, const frame *fr, double x, double w, double a, double b,
                     const char *col, const char *cls, const char *name, const char *tip,
                     const char *attrs)
{
    double ya = y_of(fr, a), yb = y_of(fr, b);
    if (!p->cr) {
        fprintf(p->f, "<g class=\"%s\" data-component=\"", cls);
        td_xml_text(p->f, name, strlen(name));
        fprintf(p->f, "\" data-from-us=\"%.17g\" data-to-us=\"%.17g\"%s><title>", a, b, attrs);
        td_xml_text(p->f, tip, strlen(tip));
        fputs("</title>", p->f);
    }
    td_pen_rect(p, x, fmin(ya, yb), w, fmax(fabs(yb - ya), 0.5), col);
    if (!p->cr)
        fputs("</g>\n", p->f);
}

static void fmt_value(char *buf, size_t cap, const frame *fr, double us, bool sign)
{
    char num[48];
    td_fmt_human(num, sizeof num, fabs(us) / fr->scale, true);
    const char *pre = us < 0                          ? (sign ? "\xE2\x88\x92" : "-")
                      : sign && strcmp(num, "0") != 0 ? "+"
                                                      : "";
    snprintf(buf, cap, "%s%s", pre, num);
}

static double step_mean(const td_breakdown *b, int side)
{
    size_t n;
    const td_bd_row *rows = td_breakdown_rows(b, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, "step_us") == 0)
            return rows[i].value[side];
    return NAN;
}

static void svg_open(const td_pen *p, const frame *fr, const char *cls, const char *title)
{
    if (p->cr)
        return;
    fprintf(p->f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" role=\"img\" "
            "aria-label=\"%s\" data-unit=\"%s\" data-scale=\"%g\" data-lo=\"%.17g\" "
            "data-hi=\"%.17g\" data-top=\"%.17g\" data-height=\"%.17g\">\n",
            cls, fr->W, fr->H, fr->W, fr->H, TD_CHART_FONT_SVG, title, fr->unit, fr->scale, fr->lo,
            fr->hi, fr->T, fr->ph);
}

/* The waterfall: control's step, each component's change floating from
 * the running total, test's step. */
static void waterfall(const td_pen *p, const td_breakdown *b, const td_bd_chart_opts *o)
{
    size_t nb;
    const td_bd_bar *bars = td_breakdown_waterfall(b, &nb);
    double step[2] = {step_mean(b, 0), step_mean(b, 1)};
    bool whole = isfinite(step[0]) && isfinite(step[1]);
    for (size_t i = 0; i < nb; i++)
        whole = whole && isfinite(bars[i].diff);
    double lo = 0, hi = 0, run = step[0];
    for (int s = 0; s < 2; s++)
        if (isfinite(step[s])) {
            lo = fmin(lo, step[s]);
            hi = fmax(hi, step[s]);
        }
    for (size_t i = 0; whole && i < nb; i++) {
        run += bars[i].diff;
        lo = fmin(lo, run);
        hi = fmax(hi, run);
    }
    frame fr;
    frame_size(&fr, o, 70);
    frame_axis(&fr, lo, hi);
    const char *title = "Where the step time went";
    svg_open(p, &fr, "td-breakdown", title);
    draw_frame(p, &fr, o, title, "mean per (rank, iteration)");
    size_t nslots = whole ? nb + 2 : 2;
    double slot = fr.pw / (double)nslots, w = fmin(64, slot * 0.62);
    char tip[512], val[64], attrs[160];
    run = step[0];
    for (size_t k = 0; k < nslots; k++) {
        double cx = fr.L + slot * ((double)k + 0.5), x = cx - w / 2;
        bool first = k == 0, last = k + 1 == nslots;
        if (first || last) {
            int s = last;
            if (!isfinite(step[s]))
                continue;
            char name[160];
            snprintf(name, sizeof name, "%s step",
                     label_of(s ? o->test_label : o->control_label, s));
            fmt_value(val, sizeof val, &fr, step[s], false);
            snprintf(tip, sizeof tip, "%s: %s %s", name, val, fr.unit);
            snprintf(attrs, sizeof attrs, " data-side=\"%s\"", s ? "test" : "control");
            draw_bar(p, &fr, x, w, 0, step[s], s ? COL_TEST : COL_CONTROL, "step", name, tip,
                     attrs);
            td_pen_text(p, cx, y_of(&fr, fmax(0, step[s])) - 5, 11, 1, 1, 0, "#000000", val);
            draw_name(p, cx, fr.T + fr.ph + 16, slot, name);
            if (!last && whole)
                td_pen_dash(p, x + w, y_of(&fr, step[0]), x + slot, y_of(&fr, step[0]), "#999999",
                            1);
            continue;
        }
        const td_bd_bar *bar = &bars[k - 1];
        double from = run, to = run + bar->diff;
        run = to;
        const char *col = bar->diff > 0 ? COL_UP : bar->diff < 0 ? COL_DOWN : COL_FLAT;
        char cv[64], tv[64];
        fmt_value(val, sizeof val, &fr, bar->diff, true);
        fmt_value(cv, sizeof cv, &fr, bar->value[0], false);
        fmt_value(tv, sizeof tv, &fr, bar->value[1], false);
        snprintf(tip, sizeof tip, "%s: %s %s (%s: %s, %s: %s)", bar->component, val, fr.unit,
                 label_of(o->control_label, 0), cv, label_of(o->test_label, 1), tv);
        snprintf(attrs, sizeof attrs, " data-diff-us=\"%.17g\"", bar->diff);
        draw_bar(p, &fr, x, w, from, to, col, "change", bar->component, tip, attrs);
        td_pen_text(p, cx, y_of(&fr, fmax(from, to)) - 5, 11, 1, 0, 0, "#000000", val);
        draw_name(p, cx, fr.T + fr.ph + 16, slot, bar->component);
        td_pen_dash(p, x + w, y_of(&fr, to), x + slot, y_of(&fr, to), "#999999", 1);
    }
    if (!whole)
        td_pen_text(p, fr.L + fr.pw / 2, fr.T + fr.ph / 2, 13, 1, 0, 0, COL_SUB,
                    "no components: they need GPU events on both sides");
}

/* A rank's stacked segments per iteration, summed upward (>= 0) and
 * downward (< 0); a rank without GPU events is its step alone. */
static void rank_extent(const td_bd_rank *r, double *up, double *down)
{
    double it = r->niters ? (double)r->niters : 1;
    *up = *down = 0;
    if (!r->has_gpu) {
        *up = r->m[TD_BD_STEP] / it;
        return;
    }
    for (int c = 0; c < NCOMP; c++) {
        double v = r->m[comp[c].metric] / it;
        if (isfinite(v))
            *(v >= 0 ? up : down) += v;
    }
}

/* The legend of the components: a row under the subtitle. */
static void legend(const td_pen *p, const frame *fr, const td_breakdown *b)
{
    size_t nbars;
    const td_bd_bar *bars = td_breakdown_waterfall(b, &nbars);
    double lx = fr->L;
    for (int c = 0; c < NCOMP && (size_t)c < nbars; c++) {
        td_pen_rect(p, lx, 58, 11, 11, comp[c].rgb);
        td_pen_text(p, lx + 15, 68, 11, 0, 0, 0, "#000000", bars[c].component);
        lx += 15 + 6.2 * (double)strlen(bars[c].component) + 16;
    }
}

/* Rank r's bar centred at cx, w wide; returns the top of its segments. */
static double rank_bar(const td_pen *p, const frame *fr, const td_breakdown *b, const td_bd_rank *r,
                       int s, const char *side, double cx, double w)
{
    size_t nbars;
    const td_bd_bar *bars = td_breakdown_waterfall(b, &nbars);
    double it = r->niters ? (double)r->niters : 1, x = cx - w / 2, up = 0, down = 0;
    char tip[512], val[64], attrs[200];
    snprintf(attrs, sizeof attrs, " data-side=\"%s\" data-rank=\"%lld\"", s ? "test" : "control",
             (long long)r->rank);
    if (!r->has_gpu) {
        up = r->m[TD_BD_STEP] / it;
        fmt_value(val, sizeof val, fr, up, false);
        snprintf(tip, sizeof tip, "%s, rank %lld: step %s %s, no GPU events", side,
                 (long long)r->rank, val, fr->unit);
        draw_bar(p, fr, x, w, 0, up, COL_FLAT, "segment", "step", tip, attrs);
        return up;
    }
    for (int c = 0; c < NCOMP; c++) {
        double v = r->m[comp[c].metric] / it;
        if (!isfinite(v) || v == 0)
            continue;
        double *at = v >= 0 ? &up : &down, from = *at;
        *at += v;
        const char *name = (size_t)c < nbars ? bars[c].component : "";
        fmt_value(val, sizeof val, fr, v, false);
        snprintf(tip, sizeof tip, "%s, rank %lld: %s %s %s", side, (long long)r->rank, name, val,
                 fr->unit);
        draw_bar(p, fr, x, w, from, *at, comp[c].rgb, "segment", name, tip, attrs);
    }
    return up;
}

/* One stacked bar per rank and side; the slowest rank of a side and its
 * stragglers marked above their bars. */
static void per_rank(const td_pen *p, const td_breakdown *b, const td_bd_chart_opts *o)
{
    size_t n[2] = {td_breakdown_nranks(b, 0), td_breakdown_nranks(b, 1)};
    double lo = 0, hi = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < n[s]; i++) {
            double up, down;
            rank_extent(td_breakdown_rank(b, s, i), &up, &down);
            if (isfinite(up))
                hi = fmax(hi, up);
            lo = fmin(lo, down);
        }
    frame fr;
    frame_size(&fr, o, 92);
    frame_axis(&fr, lo, hi);
    const char *title = "Where the step time went, per rank";
    svg_open(p, &fr, "td-breakdown per-rank", title);
    draw_frame(p, &fr, o, title, "mean per iteration of each rank");
    legend(p, &fr, b);
    size_t nslots = n[0] + n[1] + (n[0] && n[1]);
    if (nslots == 0)
        return;
    double slot = fr.pw / (double)nslots, w = fmax(1, fmin(48, slot * 0.7));
    size_t every = slot >= 22 ? 1 : (size_t)ceil(22 / slot);
    for (int s = 0; s < 2; s++) {
        size_t base = s ? n[0] + (n[0] > 0) : 0;
        const char *side = label_of(s ? o->test_label : o->control_label, s);
        for (size_t i = 0; i < n[s]; i++) {
            const td_bd_rank *r = td_breakdown_rank(b, s, i);
            double cx = fr.L + slot * ((double)(base + i) + 0.5);
            double top = rank_bar(p, &fr, b, r, s, side, cx, w);
            if ((r->slowest && n[s] > 1) || r->straggler)
                td_pen_text(p, cx, y_of(&fr, top) - 5, 10, 1, 1, 0,
                            r->straggler ? COL_UP : "#000000",
                            r->straggler ? "straggler" : "slowest");
            if (i % every == 0) {
                char rk[32];
                snprintf(rk, sizeof rk, "%lld", (long long)r->rank);
                td_pen_text(p, cx, fr.T + fr.ph + 15, 10, 1, 0, 0, "#000000", rk);
            }
        }
        if (n[s]) {
            double x0 = fr.L + slot * (double)base, x1 = x0 + slot * (double)n[s];
            td_pen_line(p, x0 + 2, fr.T + fr.ph + 22, x1 - 2, fr.T + fr.ph + 22, "#999999", 1);
            char lab[200];
            snprintf(lab, sizeof lab, "%s (rank)", side);
            td_pen_text(p, (x0 + x1) / 2, fr.T + fr.ph + 37, 12, 1, 1, 0,
                        s ? COL_TEST : COL_CONTROL, lab);
        }
    }
}

static void draw(const td_pen *p, const td_breakdown *b, const td_bd_chart_opts *o)
{
    if (o->per_rank)
        per_rank(p, b, o);
    else
        waterfall(p, b, o);
    if (!p->cr)
        fputs("</svg>\n", p->f);
}

int td_breakdown_chart(FILE *f, const td_breakdown *b, const td_bd_chart_opts *opts, int fmt,
                       const char *path, td_error *err)
{
    td_bd_chart_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_bd_chart_opts, TD_BD_CHART_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    if (fmt < 0 || fmt > 2)
        return td_fail(err, TD_EUSAGE, path ? path : "", "a chart is SVG, PNG or PDF");
    if (fmt == 0) {
        td_pen p = {f, NULL};
        draw(&p, b, &o);
        return ferror(f) ? td_fail(err, TD_EIO, path ? path : "", "cannot write the chart") : 0;
    }
    frame fr;
    frame_size(&fr, &o, 0);
    td_cairo_page pg;
    if ((rc = td_cairo_page_open(
             &pg, f, fr.W, fr.H, fmt == 2,
             o.per_rank ? "Where the step time went, per rank" : "Where the step time went", err)) <
        0)
        return rc;
    td_pen p = {f, pg.cr};
    if (cairo_status(pg.cr) == CAIRO_STATUS_SUCCESS)
        draw(&p, b, &o);
    return td_cairo_page_close(&pg, path ? path : "", err);
}
