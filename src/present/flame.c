/*
 * The differential flame graph (docs/stacks.md): the rows of a diff by
 * stack ("frame;frame;...;kernel") merged into a tree of frames, each
 * with both sides' times, laid out as an icicle (root on top, children
 * left to right by name) and written as SVG or drawn with cairo.
 */
#include "present/chart_draw.h"
#include "util/utf8_text.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROW_H 16.0
#define TOP 52.0
#define MARGIN 10.0
#define FONT 11.0
#define CHAR_W 6.2 /* a label's room per character at FONT, DejaVu Sans */
#define MIN_W 0.1  /* narrower frames (and what they hold) are not drawn */

typedef struct fnode {
    const char *name;
    size_t len;
    double t[2];
    long first, next; /* children, siblings: node indices, -1 none */
    int depth;
} fnode;

typedef struct flame {
    fnode *n;
    size_t nn, cap;
    int maxdepth;
    const td_flame_opts *o;
    double width, height, scale;
    int side; /* the side widths follow */
    double min_change;
} flame;

static long node_add(flame *fl, long parent, const char *name, size_t len)
{
    for (long c = parent >= 0 ? fl->n[parent].first : -1; c >= 0; c = fl->n[c].next)
        if (fl->n[c].len == len && memcmp(fl->n[c].name, name, len) == 0)
            return c;
    fnode *nn = td_grow(fl->n, &fl->cap, fl->nn + 1, sizeof *nn);
    if (!nn)
        return -1;
    fl->n = nn;
    long id = (long)fl->nn++;
    int depth = parent >= 0 ? fl->n[parent].depth + 1 : 0;
    fl->n[id] = (fnode){name, len, {0, 0}, -1, -1, depth};
    if (parent >= 0) {
        fl->n[id].next = fl->n[parent].first;
        fl->n[parent].first = id;
    }
    if (depth > fl->maxdepth)
        fl->maxdepth = depth;
    return id;
}

static int flame_build(flame *fl, const td_diff *d, const td_flame_opts *o, td_error *err)
{
    memset(fl, 0, sizeof *fl);
    fl->o = o;
    fl->side = o->side == 1 ? 0 : 1;
    fl->min_change = o->has_min_change ? o->min_change : 1.0;
    if (strcmp(td_diff_key_name(d), "stack") != 0)
        return td_fail(err, TD_EUSAGE, "", "a flame graph needs a diff by stack (TD_BY_STACK)");
    if (node_add(fl, -1, "all", 3) < 0)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    const td_row *rows = td_diff_rows(d);
    for (size_t i = 0; i < td_diff_nrows(d); i++) {
        const td_row *r = &rows[i];
        double t[2] = {isfinite(r->duration[0]) && r->duration[0] > 0 ? r->duration[0] : 0,
                       isfinite(r->duration[1]) && r->duration[1] > 0 ? r->duration[1] : 0};
        fl->n[0].t[0] += t[0];
        fl->n[0].t[1] += t[1];
        long at = 0;
        for (size_t s = 0; s <= r->name_len;) {
            const char *semi = memchr(r->name + s, ';', r->name_len - s);
            size_t e = semi ? (size_t)(semi - r->name) : r->name_len;
            if ((at = node_add(fl, at, r->name + s, e - s)) < 0)
                return td_fail(err, TD_ENOMEM, "", "out of memory");
            fl->n[at].t[0] += t[0];
            fl->n[at].t[1] += t[1];
            s = e + 1;
        }
    }
    fl->width = o->width > 0 ? o->width : 1200;
    if (fl->width < 200)
        fl->width = 200;
    double total = fl->n[0].t[fl->side];
    fl->scale = total > 0 ? (fl->width - 2 * MARGIN) / total : 0;
    fl->height = TOP + (fl->maxdepth + 1) * ROW_H + 2 * MARGIN;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    const fnode *x = *(const fnode *const *)a, *y = *(const fnode *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The frame's fill, and whether it is hatched (only in test). */
static uint32_t frame_rgb(const flame *fl, const fnode *n, bool *hatch)
{
    *hatch = false;
    if (fl->o->side) { /* one side, plain: warm colours by name, as flamegraph.pl */
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n->len; i++)
            h = (h ^ (unsigned char)n->name[i]) * 16777619u;
        return (uint32_t)(205 + h % 50) << 16 | (uint32_t)(80 + (h >> 8) % 130) << 8 |
               (uint32_t)((h >> 16) % 55);
    }
    if (n->t[0] <= 0 && n->t[1] > 0) {
        *hatch = true;
        return 0xE03C31;
    }
    double ch = n->t[0] > 0 ? (n->t[1] - n->t[0]) / n->t[0] * 100 : 0;
    if (fabs(ch) < fl->min_change || ch == 0)
        return 0xC8C8C8;
    double s = fabs(ch) / 100;
    s = s > 1 ? 1 : s;
    uint32_t lo = (uint32_t)(210 - 170 * s);
    return ch > 0 ? 0xFF0000u | lo << 8 | lo : lo << 16 | lo << 8 | 0xFFu;
}

static void tooltip(char *buf, size_t cap, const flame *fl, const fnode *n, size_t *len)
{
    const char *cl = fl->o->control_label ? fl->o->control_label : "control";
    const char *tl = fl->o->test_label ? fl->o->test_label : "test";
    int k;
    if (fl->o->side) {
        double tot = fl->n[0].t[fl->side];
        k = snprintf(buf, cap, "\n%s: %.3f us (%.2f%%)", fl->side ? tl : cl, n->t[fl->side],
                     tot > 0 ? n->t[fl->side] / tot * 100 : 0);
    } else if (n->t[0] <= 0) {
        k = snprintf(buf, cap, "\n%s: 0 us\n%s: %.3f us\nchange: new", cl, tl, n->t[1]);
    } else {
        k = snprintf(buf, cap, "\n%s: %.3f us\n%s: %.3f us\nchange: %+.1f%%", cl, n->t[0], tl,
                     n->t[1], (n->t[1] - n->t[0]) / n->t[0] * 100);
    }
    *len = k > 0 ? ((size_t)k < cap ? (size_t)k : cap - 1) : 0;
}

/* How many bytes of the name fit in w px ("..." added when cut): 0 when
 * none; whole UTF-8 sequences only. */
static size_t label_fit(const fnode *n, double w, bool *cut)
{
    size_t room = w > 6 ? (size_t)((w - 6) / CHAR_W) : 0, chars = 0, i = 0;
    *cut = false;
    while (i < n->len) {
        size_t step = 1;
        while (i + step < n->len && ((unsigned char)n->name[i + step] & 0xC0) == 0x80)
            step++;
        if (chars + 1 > room) {
            *cut = true;
            break;
        }
        chars++;
        i += step;
    }
    if (*cut) {
        if (room < 4)
            return 0;
        /* room for "..." */
        size_t keep = room - 3, j = 0, c = 0;
        while (j < n->len && c < keep) {
            size_t step = 1;
            while (j + step < n->len && ((unsigned char)n->name[j + step] & 0xC0) == 0x80)
                step++;
            j += step;
            c++;
        }
        return j;
    }
    return i;
}

typedef struct painter {
    void (*frame)(void *ud, const flame *fl, const fnode *n, double x, double y, double w);
    void *ud;
} painter;

/* Children sorted by name, left to right, from x. */
static int lay_out(const flame *fl, long id, double x, const painter *p)
{
    const fnode *n = &fl->n[id];
    double w = n->t[fl->side] * fl->scale;
    if (w < MIN_W)
        return 0;
    p->frame(p->ud, fl, n, x, TOP + n->depth * ROW_H, w);
    size_t nk = 0;
    for (long c = n->first; c >= 0; c = fl->n[c].next)
        nk++;
    if (!nk)
        return 0;
    const fnode **kids = malloc(nk * sizeof *kids);
    if (!kids)
        return -1;
    nk = 0;
    for (long c = n->first; c >= 0; c = fl->n[c].next)
        kids[nk++] = &fl->n[c];
    qsort(kids, nk, sizeof *kids, cmp_name);
    int rc = 0;
    for (size_t k = 0; k < nk && rc == 0; k++) {
        rc = lay_out(fl, kids[k] - fl->n, x, p);
        x += kids[k]->t[fl->side] * fl->scale;
    }
    free(kids);
    return rc;
}

static const char *title_of(const flame *fl)
{
    return fl->o->side ? "Flame graph" : "Differential flame graph";
}

static void legend(char *buf, size_t cap, const flame *fl)
{
    const char *cl = fl->o->control_label ? fl->o->control_label : "control";
    const char *tl = fl->o->test_label ? fl->o->test_label : "test";
    if (fl->o->side)
        snprintf(buf, cap, "%s: width = GPU time (%.0f us)", fl->side ? tl : cl,
                 fl->n[0].t[fl->side]);
    else
        snprintf(buf, cap,
                 "width = %s GPU time (%.0f us); red slower, blue faster than %s (%.0f us), "
                 "grey within %g%%; hatched: only in %s",
                 tl, fl->n[0].t[1], cl, fl->n[0].t[0], fl->min_change, tl);
}

/* ---- SVG ---- */

static void svg_frame(void *ud, const flame *fl, const fnode *n, double x, double y, double w)
{
    FILE *f = ud;
    bool hatch, cut;
    uint32_t rgb = frame_rgb(fl, n, &hatch);
    char tip[256];
    size_t tl;
    tooltip(tip, sizeof tip, fl, n, &tl);
    fputs("<g class=\"frame\"><title>", f);
    td_xml_text(f, n->name, n->len);
    for (size_t i = 0; i < tl;) { /* a line break of the tooltip as XML keeps it */
        const char *nl = memchr(tip + i, '\n', tl - i);
        size_t e = nl ? (size_t)(nl - tip) : tl;
        td_xml_text(f, tip + i, e - i);
        if (nl)
            fputs("&#10;", f);
        i = e + 1;
    }
    fprintf(f,
            "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#%06X\"/>",
            x, y, w, ROW_H - 1, rgb);
    if (hatch)
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                "fill=\"url(#hatch)\"/>",
                x, y, w, ROW_H - 1);
    size_t fit = label_fit(n, w, &cut);
    if (fit) {
        fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + ROW_H - 4.5);
        td_xml_text(f, n->name, fit);
        if (cut)
            fputs("...", f);
        fputs("</text>", f);
    }
    fputs("</g>\n", f);
}

int td_flame_svg(FILE *f, const td_diff *d, const td_flame_opts *opts, td_error *err)
{
    td_flame_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_flame_opts, TD_FLAME_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    flame fl;
    if ((rc = flame_build(&fl, d, &o, err)) < 0) {
        free(fl.n);
        return rc;
    }
    char leg[512];
    legend(leg, sizeof leg, &fl);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"td-flame\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" font-size=\"%.0f\" "
            "role=\"img\" aria-label=\"%s\">\n",
            fl.width, fl.height, fl.width, fl.height, TD_CHART_FONT_SVG, FONT, title_of(&fl));
    fputs("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" "
          "stroke=\"#FFFFFF\" stroke-width=\"2\"/></pattern></defs>\n",
          f);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#FFFFFF\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
            MARGIN, title_of(&fl));
    fprintf(f, "<text x=\"%.0f\" y=\"33\">", MARGIN);
    if (o.subtitle && *o.subtitle) {
        td_xml_text(f, o.subtitle, strlen(o.subtitle));
        fputs(" \xC2\xB7 ", f);
    }
    td_xml_text(f, leg, strlen(leg));
    fputs("</text>\n", f);
    painter p = {svg_frame, f};
    rc = lay_out(&fl, 0, MARGIN, &p);
    fputs("</svg>\n", f);
    free(fl.n);
    if (rc < 0)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    return ferror(f) ? td_fail(err, TD_EIO, "", "cannot write the flame graph") : 0;
}

/* ---- PNG and PDF ---- */

static void set_rgb(cairo_t *cr, uint32_t rgb)
{
    cairo_set_source_rgb(cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0,
                         (rgb & 0xFF) / 255.0);
}

static void cairo_text_n(cairo_t *cr, const char *s, size_t len, bool dots)
{
    char small[512];
    size_t n = len < sizeof small - 4 ? len : sizeof small - 4;
    memcpy(small, s, n);
    if (dots)
        memcpy(small + n, "...", 4);
    else
        small[n] = '\0';
    cairo_show_text(cr, small);
}

static void cairo_frame(void *ud, const flame *fl, const fnode *n, double x, double y, double w)
{
    cairo_t *cr = ud;
    bool hatch, cut;
    set_rgb(cr, frame_rgb(fl, n, &hatch));
    cairo_rectangle(cr, x, y, w, ROW_H - 1);
    cairo_fill(cr);
    if (hatch) {
        cairo_save(cr);
        cairo_rectangle(cr, x, y, w, ROW_H - 1);
        cairo_clip(cr);
        set_rgb(cr, 0xFFFFFF);
        cairo_set_line_width(cr, 1.5);
        for (double hx = x - ROW_H; hx < x + w; hx += 6) {
            cairo_move_to(cr, hx, y + ROW_H);
            cairo_line_to(cr, hx + ROW_H, y);
        }
        cairo_stroke(cr);
        cairo_restore(cr);
    }
    size_t fit = label_fit(n, w, &cut);
    if (fit) {
        set_rgb(cr, 0x000000);
        cairo_move_to(cr, x + 3, y + ROW_H - 4.5);
        cairo_text_n(cr, n->name, fit, cut);
    }
}

int td_flame_cairo(FILE *f, const td_diff *d, const td_flame_opts *opts, bool pdf, const char *path,
                   td_error *err)
{
    td_flame_opts o;
    int rc = TD_OPTS_TAKE(&o, opts, td_flame_opts, TD_FLAME_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    flame fl;
    if ((rc = flame_build(&fl, d, &o, err)) < 0) {
        free(fl.n);
        return rc;
    }
    if (fl.height > 32000) {
        free(fl.n);
        return td_fail(err, TD_EUSAGE, path,
                       "the stacks are too deep for one image (%d frames): "
                       "draw SVG",
                       fl.maxdepth);
    }
    td_cairo_page pg;
    if ((rc = td_cairo_page_open(&pg, f, fl.width, fl.height, pdf, title_of(&fl), err)) < 0) {
        free(fl.n);
        return rc;
    }
    set_rgb(pg.cr, 0xFFFFFF);
    cairo_rectangle(pg.cr, 0, 0, fl.width, fl.height);
    cairo_fill(pg.cr);
    char leg[1024];
    legend(leg, sizeof leg, &fl);
    set_rgb(pg.cr, 0x000000);
    td_chart_set_font(pg.cr, 15, 1);
    cairo_move_to(pg.cr, MARGIN, 18);
    cairo_show_text(pg.cr, title_of(&fl));
    td_chart_set_font(pg.cr, FONT, 0);
    cairo_move_to(pg.cr, MARGIN, 33);
    if (o.subtitle && *o.subtitle) {
        cairo_show_text(pg.cr, o.subtitle);
        cairo_show_text(pg.cr, " \xC2\xB7 ");
    }
    cairo_show_text(pg.cr, leg);
    painter p = {cairo_frame, pg.cr};
    int lrc = lay_out(&fl, 0, MARGIN, &p);
    free(fl.n);
    rc = td_cairo_page_close(&pg, path, err);
    if (rc == 0 && lrc < 0)
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    return rc;
}
