/* Charts as PNG and PDF: cairo replays the drawing list. */
#include "present/chart_draw.h"
#include "util/util.h"

#include <cairo-pdf.h>
#include <math.h>

void td_chart_set_font(cairo_t *cr, double size, int bold)
{
    cairo_select_font_face(cr, TD_CHART_FONT_CAIRO, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

static void draw_rgb(cairo_t *cr, uint32_t rgb)
{
    cairo_set_source_rgb(cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0,
                         (rgb & 0xFF) / 255.0);
}

static void draw_op(cairo_t *cr, const chart *c, const chart_op *o)
{
    cairo_text_extents_t e;
    switch (o->kind) {
    case OP_RECT:
        draw_rgb(cr, o->rgb);
        cairo_rectangle(cr, o->x, o->y, o->w, o->h);
        cairo_fill(cr);
        break;
    case OP_LINE:
        draw_rgb(cr, o->rgb);
        cairo_set_line_width(cr, o->size);
        cairo_move_to(cr, o->x, o->y);
        cairo_line_to(cr, o->x + o->w, o->y + o->h);
        cairo_stroke(cr);
        break;
    case OP_TEXT:
        draw_rgb(cr, o->rgb);
        td_chart_set_font(cr, o->size, o->bold);
        cairo_text_extents(cr, c->pool + o->str, &e);
        cairo_save(cr);
        cairo_translate(cr, o->x, o->y);
        cairo_rotate(cr, o->angle * M_PI / 180);
        cairo_move_to(cr, o->anchor == 1 ? -e.x_advance / 2 : o->anchor == 2 ? -e.x_advance : 0, 0);
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

int td_cairo_page_open(td_cairo_page *pg, FILE *f, double w, double h, int pdf, const char *title,
                       td_error *err)
{
    int rc = td_cairo_load(err);
    if (rc < 0)
        return rc;
    pg->pdf = pdf;
    pg->f = f;
    if (pdf)
        pg->s = cairo_pdf_surface_create_for_stream(to_file, f, w, h);
    else
        pg->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
    pg->cr = cairo_create(pg->s);
    if (pdf) {
        cairo_pdf_surface_set_metadata(pg->s, CAIRO_PDF_METADATA_TITLE, title);
        cairo_pdf_surface_set_metadata(pg->s, CAIRO_PDF_METADATA_CREATOR, "tracediff " TD_VERSION);
    }
    return 0;
}

int td_cairo_page_close(td_cairo_page *pg, const char *path, td_error *err)
{
    cairo_status_t st = cairo_status(pg->cr);
    cairo_destroy(pg->cr);
    if (st == CAIRO_STATUS_SUCCESS) {
        if (pg->pdf)
            cairo_surface_finish(pg->s);
        else
            st = cairo_surface_write_to_png_stream(pg->s, to_file, pg->f);
    }
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(pg->s);
    cairo_surface_destroy(pg->s);
    if (st != CAIRO_STATUS_SUCCESS)
        return td_fail(err, st == CAIRO_STATUS_WRITE_ERROR ? TD_EIO : TD_ENOMEM, path,
                       "cannot draw the chart: %s", cairo_status_to_string(st));
    return 0;
}

int td_chart_cairo_write(FILE *f, const chart *c, int pdf, const char *path, td_error *err)
{
    td_cairo_page pg;
    int rc = td_cairo_page_open(&pg, f, c->width, c->height, pdf, c->title, err);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < c->nops; i++)
        draw_op(pg.cr, c, &c->ops[i]);
    return td_cairo_page_close(&pg, path, err);
}
