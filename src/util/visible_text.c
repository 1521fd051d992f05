/*
 * Names as the tables show them (docs/errors.md, "Hostile names"): a name
 * or a label comes from a trace, a summary or the command line, and a
 * terminal obeys what it prints. Whatever could move the cursor, retitle the
 * window, ring the bell, reorder the line or start an escape sequence is
 * shown as an escape instead; the one place every table writer asks.
 */
#include "util/util.h"
#include "util/utf8_text.h"

#include <stdio.h>
#include <string.h>

#define REPLACEMENT 0xFFFDu

/* C0 and C1 controls (U+009B, the 8-bit CSI, among them) and DEL. */
static bool is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* The bidirectional formatting characters: embeddings, overrides, isolates
 * and marks, which reorder what follows them on the line. */
static bool is_bidi(uint32_t cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
           cp == 0x200F || cp == 0x061C;
}

/* The text so far: o bytes long, the first w of them in out (whole
 * characters and escapes only, with room for the NUL). */
typedef struct sink {
    char *out;
    size_t cap, o, w;
} sink;

static void put(sink *k, const char *t, size_t n)
{
    if (k->w == k->o && k->o + n < k->cap) {
        memcpy(k->out + k->o, t, n);
        k->w += n;
    }
    k->o += n;
}

size_t td_text_visible(char *out, size_t cap, const char *s, size_t len, unsigned flags)
{
    sink k = {out, cap, 0, 0};
    char buf[12];
    for (size_t i = 0; i < len;) {
        uint32_t cp = td_utf8_decode(s, len, &i);
        if (is_control(cp)) {
            put(&k, buf, (size_t)snprintf(buf, sizeof buf, "\\x%02x", (unsigned)cp));
        } else if (is_bidi(cp)) {
            put(&k, buf, (size_t)snprintf(buf, sizeof buf, "\\u%04x", (unsigned)cp));
        } else if (cp == '|' && (flags & TD_TEXT_MARKDOWN)) {
            put(&k, "\\|", 2);
        } else {
            if ((cp & 0xFFFEu) == 0xFFFEu || (cp >= 0xFDD0 && cp <= 0xFDEF))
                cp = REPLACEMENT;
            put(&k, buf, td_utf8_encode(buf, cp));
        }
    }
    if (cap)
        out[k.w] = '\0';
    return k.o;
}
