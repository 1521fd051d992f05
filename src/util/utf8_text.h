/* Names as displayable text: the SVG, HTML and cairo writers need valid
 * UTF-8 without control characters, whatever bytes a trace held. */
#ifndef TD_UTF8_TEXT_H
#define TD_UTF8_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The code point at s[*i], advancing *i by at least one byte; malformed
 * UTF-8 (overlong forms, surrogates, cut short) is U+FFFD, one byte long. */
uint32_t td_utf8_decode(const char *s, size_t len, size_t *i);

/* The code point at s[*i] (advancing *i by at least one byte), made safe to
 * show: malformed UTF-8, surrogates and noncharacters become U+FFFD, and
 * control characters '?', as the terminal table writes them. */
uint32_t td_text_next(const char *s, size_t len, size_t *i);

/* Whether len bytes of s are well-formed UTF-8 (NUL included): no stray or
 * missing continuation bytes, no overlong forms, nothing past U+10FFFF. A
 * surrogate's 3-byte form passes only with wtf8, as the JSON reader keeps a
 * lone \uD800 escape in a trace's names that way. */
bool td_utf8_valid(const char *s, size_t len, bool wtf8);

/* Encodes cp as UTF-8 into out; returns the byte count (1 to 4). */
size_t td_utf8_encode(char out[4], uint32_t cp);

/* len bytes of s as XML 1.0 and HTML text, inside elements and quoted
 * attributes alike: made safe by td_text_next, then & < > " ' escaped. The
 * one escaper of the SVG charts, the trend chart, the HTML report and the
 * JUnit file of `check`. */
void td_xml_text(FILE *f, const char *s, size_t len);

#endif
