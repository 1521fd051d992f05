/* The trend line chart: one line per name, runs along x, as SVG in the look
 * of the bar charts (their font and palette). */
#include "internal.h"
#include "present/chart_draw.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}

static const char *const palette[] = {"#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3",
                                      "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"};

static void write_svg(FILE *f, const td_trend *t)
{
    size_t nr = td_trend_nruns(t), nn = td_trend_nnames(t);
    const double W = 960, H = 540, L = 90, R = 300, T = 50, B = 70;
    double lo = 0, hi = 0;
    for (size_t j = 0; j < nn; j++)
        for (size_t r = 0; r < nr; r++) {
            double v = td_trend_total(t, j, r);
            if (isfinite(v)) {
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    if (hi <= lo)
        hi = lo + 1;
    double pw = W - L - R, ph = H - T - B;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\" role=\"img\" "
               "aria-label=\"Total duration per run\">\n",
            W, H, W, H, TD_CHART_FONT_SVG);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"28\" font-size=\"18\" font-weight=\"bold\" "
               "text-anchor=\"middle\">Total Duration per Run</text>\n", W / 2);
    for (int k = 0; k <= 5; k++) {
        double v = lo + (hi - lo) * k / 5, y = T + ph - ph * k / 5;
        char num[40];
        td_format_number(num, sizeof num, round(v));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                L, y, L + pw, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
                L - 6, y + 4, num);
    }
    fprintf(f, "<text x=\"18\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 18 %.1f)\" "
               "text-anchor=\"middle\">total duration (us)</text>\n", T + ph / 2, T + ph / 2);
    for (size_t r = 0; r < nr; r++) {
        double x = nr > 1 ? L + pw * (double)r / (double)(nr - 1) : L + pw / 2;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">", x,
                T + ph + 18);
        xml_text(f, td_trend_run(t, r));
        fputs("</text>\n", f);
    }
    for (size_t j = 0; j < nn; j++) {
        const char *col = palette[j % 10];
        fputs("<g class=\"line\"><title>", f);
        xml_text(f, td_trend_name(t, j));
        fprintf(f, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                col);
        for (size_t r = 0; r < nr; r++) {
            double x = nr > 1 ? L + pw * (double)r / (double)(nr - 1) : L + pw / 2;
            double y = T + ph - ph * (td_trend_total(t, j, r) - lo) / (hi - lo);
            fprintf(f, "%s%.1f,%.1f", r ? " " : "", x, y);
        }
        fputs("\"/>\n", f);
        for (size_t r = 0; r < nr; r++) {
            double x = nr > 1 ? L + pw * (double)r / (double)(nr - 1) : L + pw / 2;
            double y = T + ph - ph * (td_trend_total(t, j, r) - lo) / (hi - lo);
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x, y, col);
        }
        fputs("</g>\n", f);
        double ly = T + 10 + 18.0 * (double)j;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                W - R + 20, ly - 10, col);
        char label[64];
        const char *nm = td_trend_name(t, j);
        snprintf(label, sizeof label, "%s%s", nm, strlen(nm) > 40 ? "" : "");
        if (strlen(nm) > 40)
            memcpy(label + 37, "...", 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", W - R + 38, ly);
        xml_text(f, label);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
}

int td_trend_chart_write(const char *path, const td_trend *t, td_error *err)
{
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".svg") != 0)
        return td_fail(err, TD_EUSAGE, path, "a trend chart is SVG: name it .svg");
    char *tmp = malloc(n + 32);
    if (!tmp)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    snprintf(tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int rc = td_fail(err, TD_EIO, path, "cannot write: %s", strerror(errno));
        free(tmp);
        return rc;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    write_svg(f, t);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) < 0) {
        unlink(tmp);
        free(tmp);
        return td_fail(err, TD_EIO, path, "write failed");
    }
    free(tmp);
    return 0;
}
