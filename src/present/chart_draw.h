/* The drawing list of a chart: chart.c lays it out once, chart_svg.c and
 * chart_cairo.c replay it, so every format shows the same numbers at the
 * same places. */
#ifndef TD_CHART_DRAW_H
#define TD_CHART_DRAW_H

#include "present/cairo_dl.h"
#include "tracediff.h"

#include <stdint.h>
#include <stdio.h>

/* Cairo measures and draws with the first; browsers pick from the second a
 * face of about the same width, so SVG labels fit the room measured here. */
#define TD_CHART_FONT_CAIRO "DejaVu Sans"
#define TD_CHART_FONT_SVG "DejaVu Sans, Verdana, Geneva, sans-serif"

typedef enum op_kind { OP_RECT, OP_LINE, OP_TEXT, OP_GROUP, OP_GROUP_END } op_kind;

typedef struct chart_op {
    op_kind kind;
    uint32_t rgb;
    double x, y, w, h; /* rect: corner, size; line: (x, y) to (x + w, y + h); text: anchor */
    double size;       /* text: font size; line: width */
    double angle;      /* text: rotation in degrees, clockwise as SVG counts */
    int anchor;        /* text: 0 start, 1 middle, 2 end */
    int bold;
    size_t str, len; /* text; or the tooltip of a rect or group (len 0: none) */
    double v[3];     /* group: control, test, difference */
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
    size_t *all_rows; /* the view when the caller gave none */
    int oom;
} chart;

/* The chart's SVG element; TD_EIO when the stream failed. */
int td_chart_svg_write(FILE *f, const chart *c, td_chart_kind kind);
/* PNG (pdf = 0) or PDF to f; path only names the file in errors. */
int td_chart_cairo_write(FILE *f, const chart *c, int pdf, const char *path, td_error *err);

/* A PNG or PDF page of w x h px for any drawing (charts, the trend chart):
 * open (loads cairo; a PDF's title metadata is title), draw on pg.cr, then
 * close, which writes the PNG or finishes the PDF into f and says whether
 * cairo or the stream failed (path names the file in errors). */
typedef struct td_cairo_page {
    cairo_surface_t *s;
    cairo_t *cr;
    FILE *f;
    int pdf;
} td_cairo_page;
int td_cairo_page_open(td_cairo_page *pg, FILE *f, double w, double h, int pdf, const char *title,
                       td_error *err);
int td_cairo_page_close(td_cairo_page *pg, const char *path, td_error *err);
void td_chart_set_font(cairo_t *cr, double size, int bold);

#endif
