/* HTML text and number cells shared by the report's files (report_html.c,
 * report_attr.c): escaping, "1,234 us", a coloured change. */
#include "present/html.h"
#include "util/utf8_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void td_html_text(FILE *f, const char *s, size_t len)
{
    td_xml_text(f, s, len);
}

/* A number with thousands separators; decimals only for small values. */
static void fmt_grouped(char *out, size_t cap, double v)
{
    char tmp[64];
    double a = fabs(v);
    snprintf(tmp, sizeof tmp, "%.*f", a >= 100 || a == floor(a) ? 0 : a >= 1 ? 1 : 3, a);
    char *dot = strchr(tmp, '.');
    size_t ilen = dot ? (size_t)(dot - tmp) : strlen(tmp), o = 0;
    if (v < 0 && o + 1 < cap)
        out[o++] = '-';
    for (size_t i = 0; i < ilen && o + 2 < cap; i++) {
        if (i && (ilen - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = tmp[i];
    }
    snprintf(out + o, cap - o, "%s", dot ? dot : "");
}

void td_html_us(FILE *f, double v)
{
    char buf[80];
    fmt_grouped(buf, sizeof buf, v);
    fprintf(f, "%s&#8239;us", buf);
}

/* A change in time: more is worse (red), less is better (green). A drop to
 * nothing is no improvement but a sign that the side lost its data (events
 * left out, another selection): shown as a warning, never in green. */
void td_html_change(FILE *f, double c, double t)
{
    double d = t - c;
    char buf[80];
    fmt_grouped(buf, sizeof buf, d);
    bool vanished = c != 0 && t == 0;
    fprintf(f, "<span class=\"%s\">%s%s&#8239;us",
            vanished ? "warn"
            : d > 0  ? "pos"
            : d < 0  ? "neg"
                     : "",
            d > 0 ? "+" : "", buf);
    if (vanished)
        fputs(" (none on this side: see the notes)", f);
    else if (c != 0)
        fprintf(f, " (%+.1f%%)", 100.0 * d / c);
    else if (t != 0)
        fputs(" (new)", f);
    fputs("</span>", f);
}

void td_html_js_str(FILE *f, const char *s, size_t len)
{
    char buf[4];
    fputc('"', f);
    for (size_t i = 0; i < len;) {
        uint32_t cp = td_text_next(s, len, &i);
        if (cp == '"' || cp == '\\')
            fprintf(f, "\\%c", (char)cp);
        else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029)
            fprintf(f, "\\u%04x", (unsigned)cp);
        else {
            size_t n = td_utf8_encode(buf, cp);
            fwrite(buf, 1, n, f);
        }
    }
    fputc('"', f);
}
