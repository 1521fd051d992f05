/* The roofline chart (tracediff plot roofline; the report's "Why"
 * section): log-log, arithmetic intensity (FLOP/byte) against achieved
 * TFLOP/s. Each side's GPU gives a roof per peak its rows use: the memory
 * slope (bandwidth x intensity) up to the ridge, then flat at the peak.
 * One point per row and side; an arrow from control to test for the rows
 * with the most GPU time. One drawing, two pens (SVG text, or cairo for PNG
 * and PDF), as the trend chart. The SVG carries the axes' ranges and the
 * plot area in data- attributes, and each point and roof its numbers, so a
 * reader can check every coordinate. */
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

/* The frame: where intensities and rates fall (log10 ranges). */
typedef struct frame {
    double W, H, L, T, pw, ph;
    double xlo, xhi, ylo, yhi; /* log10 of the axes' ends */
} frame;

static double px(const frame *fr, double v)
{
    return fr->L + (log10(v) - fr->xlo) / (fr->xhi - fr->xlo) * fr->pw;
}

static double py(const frame *fr, double v)
{
    return fr->T + fr->ph - (log10(v) - fr->ylo) / (fr->yhi - fr->ylo) * fr->ph;
}

static bool pos(double v)
{
    return !isnan(v) && !isinf(v) && v > 0;
}

/* A row's point on a side: it has calls, FLOPs and bytes. */
static bool has_point(const td_rl_side *s)
{
    return s->count > 0 && pos(s->intensity) && pos(s->tflops);
}

/* The distinct peaks (TFLOP/s) a side's rows use, at most 8. */
static size_t side_peaks(const td_rl_row *w, size_t n, int s, double peaks[8])
{
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        double pk = w[i].side[s].peak_tflops;
        if (w[i].side[s].count == 0 || !pos(pk))
            continue;
        size_t k = 0;
        while (k < np && peaks[k] != pk)
            k++;
        if (k == np && np < 8)
            peaks[np++] = pk;
    }
    return np;
}

static frame frame_of(const td_roofline *r, const td_roofline_chart_opts *o)
{
    frame fr = {0};
    fr.W = o->width > 0 ? o->width : 860;
    fr.H = o->height > 0 ? o->height : 600;
    fr.L = 80;
    fr.T = 50;
    fr.pw = fr.W - fr.L - 250;
    fr.ph = fr.H - fr.T - 70;
    if (fr.pw < 100)
        fr.pw = 100;
    if (fr.ph < 100)
        fr.ph = 100;
    size_t n;
    const td_rl_row *w = td_roofline_rows(r, &n);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++) {
            const td_rl_side *d = &w[i].side[s];
            if (!has_point(d))
                continue;
            xmin = fmin(xmin, d->intensity);
            xmax = fmax(xmax, d->intensity);
            ymin = fmin(ymin, d->tflops);
            ymax = fmax(ymax, d->tflops);
        }
    for (int s = 0; s < 2; s++) {
        const td_gpu *g = td_roofline_gpu(r, s);
        double peaks[8];
        size_t np = side_peaks(w, n, s, peaks);
        for (size_t k = 0; g && k < np; k++) {
            double ridge = peaks[k] / (g->mem_bw_gbps / 1000);
            ymax = fmax(ymax, peaks[k]);
            if (pos(ridge))
                xmax = fmax(xmax, ridge);
        }
    }
    if (!(xmin <= xmax)) {
        xmin = 0.1;
        xmax = 100;
    }
    if (!(ymin <= ymax)) {
        ymin = 0.01;
        ymax = 100;
    }
    fr.xlo = floor(log10(xmin));
    fr.xhi = ceil(log10(xmax) + 1e-9);
    fr.ylo = floor(log10(ymin));
    fr.yhi = ceil(log10(ymax) + 1e-9);
    if (fr.xhi <= fr.xlo)
        fr.xhi = fr.xlo + 1;
    if (fr.yhi <= fr.ylo)
        fr.yhi = fr.ylo + 1;
    return fr;
}

static void tick_label(char *buf, size_t n, double e)
{
    double v = pow(10, e);
    if (e >= 0 && e < 6)
        snprintf(buf, n, "%.0f", v);
    else if (e < 0 && e > -4)
        snprintf(buf, n, "%.*f", (int)-e, v);
    else
        snprintf(buf, n, "1e%.0f", e);
}

static void draw_axes(td_pen *p, const frame *fr)
{
    char buf[32];
    double x0 = fr->L, y0 = fr->T + fr->ph;
    for (double e = fr->xlo; e <= fr->xhi + 1e-9; e++) {
        double x = fr->L + (e - fr->xlo) / (fr->xhi - fr->xlo) * fr->pw;
        td_pen_line(p, x, fr->T, x, y0, "#E5E5E5", 1);
        tick_label(buf, sizeof buf, e);
        td_pen_text(p, x, y0 + 16, 11, 1, 0, 0, "#000000", buf);
    }
    for (double e = fr->ylo; e <= fr->yhi + 1e-9; e++) {
        double y = y0 - (e - fr->ylo) / (fr->yhi - fr->ylo) * fr->ph;
        td_pen_line(p, x0, y, x0 + fr->pw, y, "#E5E5E5", 1);
        tick_label(buf, sizeof buf, e);
        td_pen_text(p, x0 - 6, y + 4, 11, 2, 0, 0, "#000000", buf);
    }
    td_pen_line(p, x0, y0, x0 + fr->pw, y0, "#000000", 1);
    td_pen_line(p, x0, fr->T, x0, y0, "#000000", 1);
    td_pen_text(p, fr->L + fr->pw / 2, y0 + 40, 12, 1, 0, 0, "#000000",
                "arithmetic intensity (FLOP/byte)");
    td_pen_text(p, fr->L - 50, fr->T + fr->ph / 2, 12, 1, 0, 1, "#000000", "achieved TFLOP/s");
    td_pen_text(p, fr->L, 24, 15, 0, 0, 0, "#000000",
                "Roofline: achieved TFLOP/s against intensity");
}

/* A side's roof at one peak: the slope from the left edge to the ridge
 * (clipped to the frame), then flat to the right edge; dashed for test. */
static void draw_roof(td_pen *p, const frame *fr, const td_gpu *g, double peak, int side,
                      const char *col, const char *label)
{
    double bw = g->mem_bw_gbps / 1000; /* TB/s: TFLOP/s = intensity x bw */
    double ridge = peak / bw;
    double xl = pow(10, fr->xlo), xr = pow(10, fr->xhi), yb = pow(10, fr->ylo);
    double xs = fmax(xl, yb / bw); /* where the slope enters the frame */
    double pts[3][2] = {
        {px(fr, xs), py(fr, xs * bw)}, {px(fr, ridge), py(fr, peak)}, {px(fr, xr), py(fr, peak)}};
    if (!p->cr) {
        fprintf(p->f, "<polyline class=\"roof\" data-side=\"%s\" data-gpu=\"",
                side ? "test" : "control");
        td_xml_text(p->f, g->name, strlen(g->name));
        fprintf(p->f, "\" data-peak-tflops=\"%.17g\" data-peak-tbps=\"%.17g\" points=\"", peak, bw);
        for (int k = 0; k < 3; k++)
            fprintf(p->f, "%s%.2f,%.2f", k ? " " : "", pts[k][0], pts[k][1]);
        fprintf(p->f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", col,
                side ? " stroke-dasharray=\"6 4\"" : "");
    } else {
        td_pen_color(p->cr, col);
        cairo_set_line_width(p->cr, 2);
        for (int k = 0; k < 2; k++) {
            double ax = pts[k][0], ay = pts[k][1], bx = pts[k + 1][0], by = pts[k + 1][1];
            double len = hypot(bx - ax, by - ay);
            if (!side || len <= 0) {
                cairo_move_to(p->cr, ax, ay);
                cairo_line_to(p->cr, bx, by);
                continue;
            }
            for (double t = 0; t < len; t += 10) { /* 6 on, 4 off */
                double t2 = fmin(t + 6, len);
                cairo_move_to(p->cr, ax + (bx - ax) * t / len, ay + (by - ay) * t / len);
                cairo_line_to(p->cr, ax + (bx - ax) * t2 / len, ay + (by - ay) * t2 / len);
            }
        }
        cairo_stroke(p->cr);
    }
    td_pen_text(p, pts[2][0] - 4, pts[2][1] + (side ? 12 : -4), 10, 2, 0, 0, col, label);
}

static void draw_point(td_pen *p, const frame *fr, const td_rl_row *w, int s, const char *col)
{
    const td_rl_side *d = &w->side[s];
    double x = px(fr, d->intensity), y = py(fr, d->tflops);
    if (!p->cr) {
        fprintf(p->f, "<circle class=\"point\" data-side=\"%s\" data-op=\"",
                s ? "test" : "control");
        td_xml_text(p->f, w->op, strlen(w->op));
        fputs("\" data-input-dims=\"", p->f);
        td_xml_text(p->f, w->input_dims, strlen(w->input_dims));
        fputs("\" data-input-types=\"", p->f);
        td_xml_text(p->f, w->input_types, strlen(w->input_types));
        fprintf(p->f,
                "\" data-intensity=\"%.17g\" data-tflops=\"%.17g\" cx=\"%.2f\" cy=\"%.2f\" "
                "r=\"4\" fill=\"%s\" fill-opacity=\"0.75\"><title>",
                d->intensity, d->tflops, x, y, col);
        char t[160];
        snprintf(t, sizeof t, " %s: %.3g FLOP/B, %.3g TFLOP/s, %.1f us", s ? "test" : "control",
                 d->intensity, d->tflops, d->time_us);
        td_xml_text(p->f, w->op, strlen(w->op));
        fputc(' ', p->f);
        td_xml_text(p->f, w->input_dims, strlen(w->input_dims));
        td_xml_text(p->f, t, strlen(t));
        fputs("</title></circle>\n", p->f);
        return;
    }
    td_pen_color(p->cr, col);
    cairo_new_sub_path(p->cr);
    cairo_arc(p->cr, x, y, 4, 0, 2 * M_PI);
    cairo_fill(p->cr);
}

static void draw_arrow(td_pen *p, const frame *fr, const td_rl_row *w, size_t rank)
{
    const td_rl_side *c = &w->side[0], *t = &w->side[1];
    double x1 = px(fr, c->intensity), y1 = py(fr, c->tflops);
    double x2 = px(fr, t->intensity), y2 = py(fr, t->tflops);
    double len = hypot(x2 - x1, y2 - y1);
    if (!p->cr) {
        fprintf(p->f, "<g class=\"arrow\" data-rank=\"%zu\" data-op=\"", rank);
        td_xml_text(p->f, w->op, strlen(w->op));
        fputs("\" data-input-dims=\"", p->f);
        td_xml_text(p->f, w->input_dims, strlen(w->input_dims));
        fputs("\">\n", p->f);
    }
    if (len > 6) {
        double ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        double bx = x2 - ux * 8, by = y2 - uy * 8;
        td_pen_line(p, x1, y1, bx, by, "#555555", 1.2);
        if (!p->cr) {
            fprintf(p->f, "<polygon points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f\" fill=\"#555555\"/>\n",
                    x2, y2, bx - uy * 4, by + ux * 4, bx + uy * 4, by - ux * 4);
        } else {
            td_pen_color(p->cr, "#555555");
            cairo_move_to(p->cr, x2, y2);
            cairo_line_to(p->cr, bx - uy * 4, by + ux * 4);
            cairo_line_to(p->cr, bx + uy * 4, by - ux * 4);
            cairo_fill(p->cr);
        }
    }
    char num[24];
    snprintf(num, sizeof num, "%zu", rank);
    td_pen_text(p, x2 + 6, y2 - 6, 10, 0, 0, 0, "#333333", num);
    if (!p->cr)
        fputs("</g>\n", p->f);
}

static double total_time(const td_rl_row *w)
{
    double t = 0;
    for (int s = 0; s < 2; s++)
        if (w->side[s].count > 0 && !isnan(w->side[s].time_us))
            t += w->side[s].time_us;
    return t;
}

typedef struct ranked {
    size_t i;
    double t;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->t != y->t)
        return x->t > y->t ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static void draw_legend(td_pen *p, const frame *fr, const td_roofline *r,
                        const td_roofline_chart_opts *o, const ranked *top, size_t ntop)
{
    double x = fr->L + fr->pw + 20, y = fr->T + 10;
    const char *labels[2] = {o->control_label ? o->control_label : "control",
                             o->test_label ? o->test_label : "test"};
    for (int s = 0; s < 2; s++) {
        const char *col = s ? COL_TEST : COL_CONTROL;
        const td_gpu *g = td_roofline_gpu(r, s);
        char buf[200];
        if (!p->cr)
            fprintf(p->f,
                    "<circle class=\"legend\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"%s\"/>\n",
                    x + 5, y - 4, col);
        else {
            td_pen_color(p->cr, col);
            cairo_new_sub_path(p->cr);
            cairo_arc(p->cr, x + 5, y - 4, 4, 0, 2 * M_PI);
            cairo_fill(p->cr);
        }
        td_pen_text(p, x + 14, y, 12, 0, 0, 0, "#000000", labels[s]);
        snprintf(buf, sizeof buf, "roof: %s%s", g ? g->name : "unknown GPU", s ? " (dashed)" : "");
        td_pen_text(p, x + 14, y + 15, 10, 0, 0, 0, "#555555", buf);
        y += 38;
    }
    if (ntop) {
        td_pen_text(p, x, y, 11, 0, 0, 0, "#000000", "arrows: control to test,");
        td_pen_text(p, x, y + 14, 11, 0, 0, 0, "#000000", "the rows with most GPU time");
        y += 32;
    }
    size_t n;
    const td_rl_row *w = td_roofline_rows(r, &n);
    for (size_t k = 0; k < ntop; k++) {
        char buf[120];
        const td_rl_row *x_ = &w[top[k].i];
        snprintf(buf, sizeof buf, "%zu %.30s", k + 1, x_->op);
        td_pen_text(p, x, y, 10, 0, 0, 0, "#333333", buf);
        y += 13;
    }
}

static void draw_chart(td_pen *p, const td_roofline *r, const td_roofline_chart_opts *o)
{
    frame fr = frame_of(r, o);
    if (!p->cr) {
        fprintf(p->f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"td-roofline\" "
                "data-kind=\"roofline\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                "font-family=\"%s\" role=\"img\" aria-label=\"Roofline\" data-plot=\"%.2f %.2f "
                "%.2f %.2f\" data-log-x=\"%.0f %.0f\" data-log-y=\"%.0f %.0f\">\n",
                fr.W, fr.H, fr.W, fr.H, TD_CHART_FONT_SVG, fr.L, fr.T, fr.pw, fr.ph, fr.xlo, fr.xhi,
                fr.ylo, fr.yhi);
        fprintf(p->f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#FFFFFF\"/>\n", fr.W, fr.H);
    } else {
        cairo_set_source_rgb(p->cr, 1, 1, 1);
        cairo_rectangle(p->cr, 0, 0, fr.W, fr.H);
        cairo_fill(p->cr);
    }
    draw_axes(p, &fr);
    size_t n;
    const td_rl_row *w = td_roofline_rows(r, &n);
    for (int s = 0; s < 2; s++) {
        const td_gpu *g = td_roofline_gpu(r, s);
        double peaks[8];
        size_t np = side_peaks(w, n, s, peaks);
        for (size_t k = 0; g && pos(g->mem_bw_gbps) && k < np; k++) {
            char label[96];
            snprintf(label, sizeof label, "%.28s %g", g->name, peaks[k]);
            draw_roof(p, &fr, g, peaks[k], s, s ? COL_TEST : COL_CONTROL, label);
        }
    }
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++)
            if (has_point(&w[i].side[s]))
                draw_point(p, &fr, &w[i], s, s ? COL_TEST : COL_CONTROL);
    ranked *rk = malloc((n + 1) * sizeof *rk);
    size_t nr = 0, top = o->top ? o->top : 10;
    for (size_t i = 0; rk && i < n; i++)
        if (has_point(&w[i].side[0]) && has_point(&w[i].side[1]))
            rk[nr++] = (ranked){i, total_time(&w[i])};
    if (rk)
        qsort(rk, nr, sizeof *rk, cmp_ranked);
    if (nr > top)
        nr = top;
    for (size_t k = 0; k < nr; k++)
        draw_arrow(p, &fr, &w[rk[k].i], k + 1);
    draw_legend(p, &fr, r, o, rk, nr);
    free(rk);
    if (!p->cr)
        fputs("</svg>\n", p->f);
}

int td_roofline_svg(FILE *f, const td_roofline *r, const td_roofline_chart_opts *opts,
                    td_error *err)
{
    td_roofline_chart_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_roofline_chart_opts, TD_ROOFLINE_CHART_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    td_pen p = {f, NULL};
    draw_chart(&p, r, &o);
    return td_write_end(f, err);
}

int td_roofline_cairo(FILE *f, const td_roofline *r, const td_roofline_chart_opts *opts, bool pdf,
                      const char *path, td_error *err)
{
    td_roofline_chart_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_roofline_chart_opts, TD_ROOFLINE_CHART_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    frame fr = frame_of(r, &o);
    td_cairo_page pg;
    if ((rc = td_cairo_page_open(&pg, f, fr.W, fr.H, pdf, "Roofline", err)) < 0)
        return rc;
    td_pen p = {f, pg.cr};
    if (cairo_status(pg.cr) == CAIRO_STATUS_SUCCESS)
        draw_chart(&p, r, &o);
    return td_cairo_page_close(&pg, path, err);
}
