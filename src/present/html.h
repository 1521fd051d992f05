/* present/html.c: HTML text and number cells for the report's files. */
#ifndef TD_PRESENT_HTML_H
#define TD_PRESENT_HTML_H

#include <stddef.h>
#include <stdio.h>

/* len bytes of s as HTML text (td_xml_text: made safe, then escaped). */
void td_html_text(FILE *f, const char *s, size_t len);
/* A JSON string safe inside <script>: no '<', '>' or '&', no control
 * characters and no line separators, which older JavaScript engines took
 * for line ends (the report's table data, its flame graph). */
void td_html_js_str(FILE *f, const char *s, size_t len);
/* v microseconds with thousands separators: "1,234&#8239;us". */
void td_html_us(FILE *f, double v);
/* The change from c to t: "+1,234 us (+12.5%)", coloured by sign (more is
 * worse); a drop to nothing is a warning, not an improvement. */
void td_html_change(FILE *f, double c, double t);

#endif
