/* Strict UTF-8 decoding for the writers that must emit valid text. */
#include "util/utf8_text.h"

#define REPLACEMENT 0xFFFDu

static uint32_t decode(const unsigned char *s, size_t len, size_t *i)
{
    unsigned char c = s[*i];
    uint32_t cp, min;
    size_t n;
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        cp = c & 0x1Fu;
        n = 1;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        cp = c & 0x0Fu;
        n = 2;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        cp = c & 0x07u;
        n = 3;
        min = 0x10000;
    } else {
        (*i)++;
        return REPLACEMENT;
    }
    if (*i + n >= len) {
        /* Cut short by the end of the name. */
        (*i)++;
        return REPLACEMENT;
    }
    for (size_t k = 1; k <= n; k++) {
        unsigned char b = s[*i + k];
        if ((b & 0xC0) != 0x80) {
            (*i)++;
            return REPLACEMENT;
        }
        cp = (cp << 6) | (b & 0x3Fu);
    }
    /* Overlong forms and surrogates are malformed; skip one byte only, so
     * what follows is decoded on its own. */
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        (*i)++;
        return REPLACEMENT;
    }
    *i += n + 1;
    return cp;
}

uint32_t td_utf8_decode(const char *s, size_t len, size_t *i)
{
    return decode((const unsigned char *)s, len, i);
}

bool td_utf8_valid(const char *s, size_t len, bool wtf8)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t at = i;
        /* a lone surrogate: ED A0..BF 80..BF */
        if (wtf8 && u[i] == 0xED && i + 2 < len && u[i + 1] >= 0xA0 && u[i + 1] <= 0xBF &&
            (u[i + 2] & 0xC0) == 0x80) {
            i += 3;
            continue;
        }
        /* decode gives U+FFFD for one malformed byte; a real U+FFFD takes 3 */
        if (decode(u, len, &i) == REPLACEMENT && i - at == 1)
            return false;
    }
    return true;
}

uint32_t td_text_next(const char *s, size_t len, size_t *i)
{
    uint32_t cp = decode((const unsigned char *)s, len, i);
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
        return '?';
    /* Not allowed in XML even as character references. */
    if ((cp & 0xFFFEu) == 0xFFFEu || (cp >= 0xFDD0 && cp <= 0xFDEF))
        return REPLACEMENT;
    return cp;
}

size_t td_utf8_encode(char out[4], uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

void td_xml_text(FILE *f, const char *s, size_t len)
{
    char buf[4];
    for (size_t i = 0; i < len;) {
        uint32_t cp = td_text_next(s, len, &i);
        switch (cp) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fwrite(buf, 1, td_utf8_encode(buf, cp), f);
        }
    }
}
