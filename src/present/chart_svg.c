/* Charts as SVG text: each bar group a <g> with its full name in a <title>
 * and its numbers in data- attributes, which cairo's SVG surface cannot
 * write. */
#include "present/chart_draw.h"
#include "present/out_common.h"
#include "util/utf8_text.h"

#include <string.h>

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

static void svg_title(FILE *f, const chart *c, const chart_op *o)
{
    fputs("<title>", f);
    td_xml_text(f, c->pool + o->str, o->len);
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
        td_xml_text(f, c->pool + o->str, o->len);
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

int td_chart_svg_write(FILE *f, const chart *c, td_chart_kind kind)
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
    fprintf(f, "\" font-family=\"%s\" role=\"img\" aria-label=\"%s\">\n", TD_CHART_FONT_SVG,
            c->title);
    for (size_t i = 0; i < c->nops; i++)
        svg_op(f, c, &c->ops[i]);
    fputs("</svg>\n", f);
    return ferror(f) ? TD_EIO : 0;
}
