/* Cairo, loaded when the first chart is drawn: a command that draws nothing
 * (most of them) starts without cairo's twenty shared libraries, which take
 * longer to map than a summary takes to compare.
 *
 * Include this instead of <cairo.h>. The code calls cairo_* as usual: each
 * name below is a macro for the pointer found by td_cairo_load(), which a
 * writer calls before its first cairo call. A cairo function used without
 * being listed here fails the link (the library does not link cairo), so
 * the list cannot fall behind the code. */
#ifndef TD_CAIRO_DL_H
#define TD_CAIRO_DL_H

#include "tracediff.h"

#include <cairo-pdf.h>
#include <cairo.h>

#define TD_CAIRO_FUNCS(X)                                                                          \
    X(cairo_arc)                                                                                   \
    X(cairo_clip)                                                                                  \
    X(cairo_create)                                                                                \
    X(cairo_destroy)                                                                               \
    X(cairo_fill)                                                                                  \
    X(cairo_image_surface_create)                                                                  \
    X(cairo_line_to)                                                                               \
    X(cairo_move_to)                                                                               \
    X(cairo_new_path)                                                                              \
    X(cairo_new_sub_path)                                                                          \
    X(cairo_pdf_surface_create_for_stream)                                                         \
    X(cairo_pdf_surface_set_metadata)                                                              \
    X(cairo_rectangle)                                                                             \
    X(cairo_restore)                                                                               \
    X(cairo_rotate)                                                                                \
    X(cairo_save)                                                                                  \
    X(cairo_select_font_face)                                                                      \
    X(cairo_set_dash)                                                                              \
    X(cairo_set_font_size)                                                                         \
    X(cairo_set_line_width)                                                                        \
    X(cairo_set_source_rgb)                                                                        \
    X(cairo_show_text)                                                                             \
    X(cairo_status)                                                                                \
    X(cairo_status_to_string)                                                                      \
    X(cairo_stroke)                                                                                \
    X(cairo_surface_destroy)                                                                       \
    X(cairo_surface_finish)                                                                        \
    X(cairo_surface_status)                                                                        \
    X(cairo_surface_write_to_png_stream)                                                           \
    X(cairo_text_extents)                                                                          \
    X(cairo_translate)

#define TD_CAIRO_MEMBER(f) __typeof__(f) *f;
typedef struct td_cairo_api {
    TD_CAIRO_FUNCS(TD_CAIRO_MEMBER)
} td_cairo_api;
#undef TD_CAIRO_MEMBER

extern td_cairo_api td_cairo;

/* Loads cairo once (thread-safe); 0, or a td_error saying what is missing. */
int td_cairo_load(td_error *err);

#ifndef TD_CAIRO_DL_IMPL
#define cairo_arc (*td_cairo.cairo_arc)
#define cairo_clip (*td_cairo.cairo_clip)
#define cairo_create (*td_cairo.cairo_create)
#define cairo_destroy (*td_cairo.cairo_destroy)
#define cairo_fill (*td_cairo.cairo_fill)
#define cairo_image_surface_create (*td_cairo.cairo_image_surface_create)
#define cairo_line_to (*td_cairo.cairo_line_to)
#define cairo_move_to (*td_cairo.cairo_move_to)
#define cairo_new_path (*td_cairo.cairo_new_path)
#define cairo_new_sub_path (*td_cairo.cairo_new_sub_path)
#define cairo_pdf_surface_create_for_stream (*td_cairo.cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata (*td_cairo.cairo_pdf_surface_set_metadata)
#define cairo_rectangle (*td_cairo.cairo_rectangle)
#define cairo_restore (*td_cairo.cairo_restore)
#define cairo_rotate (*td_cairo.cairo_rotate)
#define cairo_save (*td_cairo.cairo_save)
#define cairo_select_font_face (*td_cairo.cairo_select_font_face)
#define cairo_set_dash (*td_cairo.cairo_set_dash)
#define cairo_set_font_size (*td_cairo.cairo_set_font_size)
#define cairo_set_line_width (*td_cairo.cairo_set_line_width)
#define cairo_set_source_rgb (*td_cairo.cairo_set_source_rgb)
#define cairo_show_text (*td_cairo.cairo_show_text)
#define cairo_status (*td_cairo.cairo_status)
#define cairo_status_to_string (*td_cairo.cairo_status_to_string)
#define cairo_stroke (*td_cairo.cairo_stroke)
#define cairo_surface_destroy (*td_cairo.cairo_surface_destroy)
#define cairo_surface_finish (*td_cairo.cairo_surface_finish)
#define cairo_surface_status (*td_cairo.cairo_surface_status)
#define cairo_surface_write_to_png_stream (*td_cairo.cairo_surface_write_to_png_stream)
#define cairo_text_extents (*td_cairo.cairo_text_extents)
#define cairo_translate (*td_cairo.cairo_translate)
#endif

#endif
