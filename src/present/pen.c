/* The pen of the charts drawn by code (pen.h): each mark as SVG text or
 * painted with cairo. */
#include "present/pen.h"
#include "util/utf8_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void td_pen_color(cairo_t *cr, const char *hex)
{
    unsigned long v = strtoul(hex + 1, NULL, 16);
    cairo_set_source_rgb(cr, ((v >> 16) & 0xFF) / 255.0, ((v >> 8) & 0xFF) / 255.0,
                         (v & 0xFF) / 255.0);
}

/* s as text cairo accepts: valid UTF-8, no control characters. */
static void safe_text(char *out, size_t cap, const char *s)
{
    size_t len = strlen(s), i = 0, n = 0;
    while (i < len && n + 5 <= cap)
        n += td_utf8_encode(out + n, td_text_next(s, len, &i));
    out[n] = '\0';
}

void td_pen_text(const td_pen *p, double x, double y, double size, int anchor, int bold,
                 int vertical, const char *col, const char *s)
{
    if (!p->cr) {
        fprintf(p->f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%g\"", x, y, size);
        if (bold)
            fputs(" font-weight=\"bold\"", p->f);
        if (strcmp(col, "#000000") != 0)
            fprintf(p->f, " fill=\"%s\"", col);
        if (anchor)
            fprintf(p->f, " text-anchor=\"%s\"", anchor == 1 ? "middle" : "end");
        if (vertical)
            fprintf(p->f, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
        fputc('>', p->f);
        td_xml_text(p->f, s, strlen(s));
        fputs("</text>\n", p->f);
        return;
    }
    char buf[512];
    cairo_text_extents_t e;
    cairo_t *cr = p->cr;
    safe_text(buf, sizeof buf, s);
    td_pen_color(cr, col);
    td_chart_set_font(cr, size, bold);
    cairo_text_extents(cr, buf, &e);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (vertical)
        cairo_rotate(cr, -M_PI / 2);
    cairo_move_to(cr, anchor == 1 ? -e.x_advance / 2 : anchor == 2 ? -e.x_advance : 0, 0);
    cairo_show_text(cr, buf);
    cairo_restore(cr);
}

static void line(const td_pen *p, double x1, double y1, double x2, double y2, const char *col,
                 double width, bool dashed)
{
    if (!p->cr) {
        fprintf(p->f,
                "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                "stroke-width=\"%g\"%s/>\n",
                x1, y1, x2, y2, col, width, dashed ? " stroke-dasharray=\"4 3\"" : "");
        return;
    }
    static const double dash[2] = {4, 3};
    td_pen_color(p->cr, col);
    cairo_set_line_width(p->cr, width);
    cairo_set_dash(p->cr, dash, dashed ? 2 : 0, 0);
    cairo_new_path(p->cr);
    cairo_move_to(p->cr, x1, y1);
    cairo_line_to(p->cr, x2, y2);
    cairo_stroke(p->cr);
    cairo_set_dash(p->cr, NULL, 0, 0);
}

void td_pen_line(const td_pen *p, double x1, double y1, double x2, double y2, const char *col,
                 double width)
{
    line(p, x1, y1, x2, y2, col, width, false);
}

void td_pen_dash(const td_pen *p, double x1, double y1, double x2, double y2, const char *col,
                 double width)
{
    line(p, x1, y1, x2, y2, col, width, true);
}

void td_pen_rect(const td_pen *p, double x, double y, double w, double h, const char *col)
{
    if (!p->cr) {
        fprintf(p->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                x, y, w, h, col);
        return;
    }
    td_pen_color(p->cr, col);
    cairo_new_path(p->cr);
    cairo_rectangle(p->cr, x, y, w, h);
    cairo_fill(p->cr);
}

double td_nice_step(double span, int parts)
{
    double raw = span / parts, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}
