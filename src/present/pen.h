/* One drawing, two pens: the charts drawn by code (the trend chart, the
 * breakdown's waterfall) draw each mark once, through a pen that writes it
 * as SVG text (cr NULL) or paints it with cairo (PNG, PDF), so every format
 * shows the same chart. */
#ifndef TD_PRESENT_PEN_H
#define TD_PRESENT_PEN_H

#include "present/chart_draw.h"

#include <stdio.h>

typedef struct td_pen {
    FILE *f;     /* SVG: the stream */
    cairo_t *cr; /* PNG, PDF: the page's context; NULL for SVG */
} td_pen;

/* "#RRGGBB" as cairo's source colour. */
void td_pen_color(cairo_t *cr, const char *hex);
/* s at (x, y) in colour col: anchor 0 start, 1 middle, 2 end; vertical
 * turns it a quarter counterclockwise about (x, y). */
void td_pen_text(const td_pen *p, double x, double y, double size, int anchor, int bold,
                 int vertical, const char *col, const char *s);
void td_pen_line(const td_pen *p, double x1, double y1, double x2, double y2, const char *col,
                 double width);
/* The same line, dashed (4 on, 3 off). */
void td_pen_dash(const td_pen *p, double x1, double y1, double x2, double y2, const char *col,
                 double width);
void td_pen_rect(const td_pen *p, double x, double y, double w, double h, const char *col);
/* A round step (1, 2, 2.5 or 5 times a power of ten) that cuts span in
 * about parts. */
double td_nice_step(double span, int parts);

#endif
