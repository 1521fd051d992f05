/* The trend line chart: one line per name, runs along x, in the look of the
 * bar charts (their font and palette). One drawing, two pens: SVG written as
 * text, or cairo for PNG and PDF, so every format shows the same chart. */
#include "util/util.h"
#include "present/chart_draw.h"
#include "present/pen.h"
#include "present/out_common.h"
#include "util/utf8_text.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void xml_text(FILE *f, const char *s)
{
    td_xml_text(f, s, strlen(s));
}

static const char *const palette[] = {"#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3",
                                      "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"};

/* The plot's frame: where values and runs fall. */
typedef struct frame {
    double W, H, L, R, T, B, pw, ph, lo, hi;
    size_t nr, nn;
    double step; /* between the value axis' ticks: 1, 2, 2.5 or 5 times a power of ten */
} frame;

static frame frame_of(const td_trend *t)
{
    frame fr = {960, 540, 90, 300, 50, 70, 0, 0, 0, 0, td_trend_nruns(t), td_trend_nnames(t)};
    for (size_t j = 0; j < fr.nn; j++)
        for (size_t r = 0; r < fr.nr; r++) {
            double v = td_trend_total(t, j, r);
            if (isfinite(v)) {
                fr.lo = v < fr.lo ? v : fr.lo;
                fr.hi = v > fr.hi ? v : fr.hi;
            }
        }
    if (fr.hi <= fr.lo)
        fr.hi = fr.lo + 1;
    /* The axis from and to round numbers, its ticks at round steps. */
    fr.step = td_nice_step(fr.hi - fr.lo, 5);
    fr.lo = floor(fr.lo / fr.step + 1e-9) * fr.step;
    fr.hi = ceil(fr.hi / fr.step - 1e-9) * fr.step;
    if (fr.hi <= fr.lo)
        fr.hi = fr.lo + fr.step;
    fr.pw = fr.W - fr.L - fr.R;
    fr.ph = fr.H - fr.T - fr.B;
    return fr;
}

static double run_x(const frame *fr, size_t r)
{
    return fr->nr > 1 ? fr->L + fr->pw * (double)r / (double)(fr->nr - 1) : fr->L + fr->pw / 2;
}

static double value_y(const frame *fr, double v)
{
    return fr->T + fr->ph - fr->ph * (v - fr->lo) / (fr->hi - fr->lo);
}

/* Background, title, the value axis' grid and labels, the runs' labels. */
static void draw_axes(td_pen *p, const frame *fr, const td_trend *t)
{
    FILE *f = p->f;
    if (!p->cr) {
        fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
        fprintf(f,
                "<text x=\"%.0f\" y=\"28\" font-size=\"18\" font-weight=\"bold\" "
                "text-anchor=\"middle\">Total Duration per Run</text>\n",
                fr->W / 2);
    } else {
        td_pen_rect(p, 0, 0, fr->W, fr->H, "#ffffff");
        td_pen_text(p, fr->W / 2, 28, 18, 1, 1, 0, "#000000", "Total Duration per Run");
    }
    long nt = lround((fr->hi - fr->lo) / fr->step);
    for (long k = 0; k <= nt; k++) {
        double v = fr->lo + fr->step * (double)k, y = value_y(fr, v);
        char num[40];
        td_fmt_human(num, sizeof num, fabs(v) < fr->step * 1e-9 ? 0 : v, true);
        if (p->cr) {
            td_pen_line(p, fr->L, y, fr->L + fr->pw, y, "#dddddd", 1);
            td_pen_text(p, fr->L - 6, y + 4, 11, 2, 0, 0, "#000000", num);
            continue;
        }
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                fr->L, y, fr->L + fr->pw, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                fr->L - 6, y + 4, num);
    }
    double my = fr->T + fr->ph / 2;
    if (p->cr)
        td_pen_text(p, 18, my, 12, 1, 0, 1, "#000000", "total duration (us)");
    else
        fprintf(f,
                "<text x=\"18\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 18 %.1f)\" "
                "text-anchor=\"middle\">total duration (us)</text>\n",
                my, my);
    for (size_t r = 0; r < fr->nr; r++) {
        if (p->cr) {
            td_pen_text(p, run_x(fr, r), fr->T + fr->ph + 18, 11, 1, 0, 0, "#000000",
                        td_trend_run(t, r));
            continue;
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">",
                run_x(fr, r), fr->T + fr->ph + 18);
        xml_text(f, td_trend_run(t, r));
        fputs("</text>\n", f);
    }
}

/* Name j's line and its points. */
static void draw_line(td_pen *p, const frame *fr, const td_trend *t, size_t j, const char *col)
{
    FILE *f = p->f;
    if (p->cr) {
        cairo_t *cr = p->cr;
        td_pen_color(cr, col);
        cairo_set_line_width(cr, 2);
        cairo_new_path(cr); /* text leaves a current point: start afresh */
        for (size_t r = 0; r < fr->nr; r++)
            cairo_line_to(cr, run_x(fr, r), value_y(fr, td_trend_total(t, j, r)));
        cairo_stroke(cr);
        for (size_t r = 0; r < fr->nr; r++) {
            cairo_new_sub_path(cr);
            cairo_arc(cr, run_x(fr, r), value_y(fr, td_trend_total(t, j, r)), 3, 0, 2 * M_PI);
        }
        cairo_fill(cr);
        return;
    }
    fputs("<g class=\"line\"><title>", f);
    xml_text(f, td_trend_name(t, j));
    fprintf(f, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (size_t r = 0; r < fr->nr; r++)
        fprintf(f, "%s%.1f,%.1f", r ? " " : "", run_x(fr, r), value_y(fr, td_trend_total(t, j, r)));
    fputs("\"/>\n", f);
    for (size_t r = 0; r < fr->nr; r++)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", run_x(fr, r),
                value_y(fr, td_trend_total(t, j, r)), col);
    fputs("</g>\n", f);
}

/* Name j's entry in the legend, its name cut to 40 bytes. */
static void draw_legend_entry(td_pen *p, const frame *fr, const td_trend *t, size_t j,
                              const char *col)
{
    double ly = fr->T + 10 + 18.0 * (double)j;
    char label[64];
    const char *nm = td_trend_name(t, j);
    snprintf(label, sizeof label, "%s", nm);
    if (strlen(nm) > 40)
        memcpy(label + 37, "...", 4);
    if (p->cr) {
        td_pen_rect(p, fr->W - fr->R + 20, ly - 10, 12, 12, col);
        td_pen_text(p, fr->W - fr->R + 38, ly, 11, 0, 0, 0, "#000000", label);
        return;
    }
    fprintf(p->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
            fr->W - fr->R + 20, ly - 10, col);
    fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", fr->W - fr->R + 38, ly);
    xml_text(p->f, label);
    fputs("</text>\n", p->f);
}

static void draw_chart(td_pen *p, const td_trend *t)
{
    frame fr = frame_of(t);
    if (!p->cr)
        fprintf(p->f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" role=\"img\" "
                "aria-label=\"Total duration per run\">\n",
                fr.W, fr.H, fr.W, fr.H, TD_CHART_FONT_SVG);
    draw_axes(p, &fr, t);
    for (size_t j = 0; j < fr.nn; j++) {
        draw_line(p, &fr, t, j, palette[j % 10]);
        draw_legend_entry(p, &fr, t, j, palette[j % 10]);
    }
    if (!p->cr)
        fputs("</svg>\n", p->f);
}

/* The chart as PNG (pdf = 0) or PDF to f. */
static int write_cairo(FILE *f, const td_trend *t, int pdf, const char *path, td_error *err)
{
    frame fr = frame_of(t);
    td_cairo_page pg;
    int rc = td_cairo_page_open(&pg, f, fr.W, fr.H, pdf, "Total Duration per Run", err);
    if (rc < 0)
        return rc;
    td_pen p = {f, pg.cr};
    if (cairo_status(pg.cr) == CAIRO_STATUS_SUCCESS)
        draw_chart(&p, t);
    return td_cairo_page_close(&pg, path, err);
}

int td_trend_chart_write(const char *path, const td_trend *t, td_error *err)
{
    size_t n = strlen(path);
    int kind = td_has_suffix(path, ".svg")   ? 0
               : td_has_suffix(path, ".png") ? 1
               : td_has_suffix(path, ".pdf") ? 2
                                             : -1;
    if (kind < 0)
        return td_fail(err, TD_EUSAGE, path, "a trend chart is .svg, .png or .pdf");
    char *tmp = malloc(n + 32);
    if (!tmp)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    /* Beside the target, renamed into place: whole or not at all. */
    snprintf(tmp, n + 32, "%s.tmp.XXXXXX", path);
    int fd = td_temp_create(tmp);
    FILE *f = fd < 0 ? NULL : fdopen(fd, kind ? "wb" : "w");
    if (!f) {
        int rc = td_fail(err, TD_EIO, path, "cannot create: %s", strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
            td_temp_forget(tmp);
        }
        free(tmp);
        return rc;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    int rc = 0;
    if (kind == 0) {
        td_pen p = {f, NULL};
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
        draw_chart(&p, t);
    } else {
        rc = write_cairo(f, t, kind == 2, path, err);
    }
    /* The flush repeats a failed write: errno says why (ENOSPC). */
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !bad)
        bad = errno ? errno : EIO;
    if (rc == 0 && bad)
        rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(bad));
    if (rc == 0 && rename(tmp, path) < 0)
        rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno));
    if (rc < 0)
        unlink(tmp);
    td_temp_forget(tmp);
    free(tmp);
    return rc;
}
