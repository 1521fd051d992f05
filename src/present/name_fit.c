/*
 * Names fitted to a column of the terminal: cut in the middle, the head and
 * the distinguishing tail kept around an ellipsis, and never two equal
 * shown names in one table (docs/numbers.md, "Narrow terminals"). Widths
 * count code points of visible text (td_text_visible).
 */
#include "present/out_common.h"

#include <stdlib.h>
#include <string.h>

/* Byte offset of code point k of s (len bytes); len when k is past the end. */
static size_t cp_at(const char *s, size_t len, size_t k)
{
    size_t cols = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (cols == k)
                return i;
            cols++;
        }
    return len;
}

size_t td_text_cols(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

/* The code points [0, head), an ellipsis, [mid0, mid1) and an ellipsis when
 * mid1 > mid0, then [from, cols): a malloc'd string. */
static char *cut(const char *s, size_t len, size_t head, size_t mid0, size_t mid1, size_t from,
                 int ascii)
{
    const char *ell = ascii ? "..." : "\xE2\x80\xA6";
    size_t el = strlen(ell);
    size_t h = cp_at(s, len, head), m0 = cp_at(s, len, mid0), m1 = cp_at(s, len, mid1);
    size_t t = cp_at(s, len, from);
    char *out = malloc(h + (m1 > m0 ? m1 - m0 + el : 0) + (len - t) + el + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    memcpy(out + o, s, h);
    o += h;
    memcpy(out + o, ell, el);
    o += el;
    if (m1 > m0) {
        memcpy(out + o, s + m0, m1 - m0);
        o += m1 - m0;
        memcpy(out + o, ell, el);
        o += el;
    }
    memcpy(out + o, s + t, len - t);
    o += len - t;
    out[o] = '\0';
    return out;
}

/* The default cut: a little less than half the room for the head (where a
 * kernel's name and namespace are), the rest for the tail (a Python
 * frame's line, a template's last arguments, a kernel's tile sizes). */
static char *middle(const char *s, size_t w, int ascii)
{
    size_t len = strlen(s), cols = td_text_cols(s, len), el = ascii ? 3 : 1;
    if (cols <= w)
        return strdup(s);
    size_t room = w > el ? w - el : 0;
    size_t head = room * 2 / 5;
    return cut(s, len, head, 0, 0, cols - (room - head), ascii);
}

/* A shown name and its row, sorted so that equal shown names meet. */
typedef struct fit_key {
    const char *s;
    size_t i;
} fit_key;

static int by_shown(const void *a, const void *b)
{
    const fit_key *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Code points two names share at their start and at their end. */
static size_t common_head(const char *a, const char *b)
{
    size_t i = 0, cols = 0;
    for (; a[i] && a[i] == b[i]; i++)
        if (((unsigned char)a[i] & 0xC0) != 0x80)
            cols++;
    return cols;
}

static size_t common_tail(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), cols = 0;
    while (la && lb && a[la - 1] == b[lb - 1]) {
        la--;
        lb--;
        if (((unsigned char)a[la] & 0xC0) != 0x80)
            cols++;
    }
    return cols;
}

/* Re-cuts the names of one group whose shown names are equal, so that the
 * place where they part shows: the head reaches past the common start, or
 * the tail past the common end, or else a second ellipsis frames a window
 * around the place where they part. */
static void recut(char *const *names, char **shown, const size_t *g, size_t ng, size_t w, int ascii)
{
    size_t el = ascii ? 3 : 1;
    size_t room = w > el ? w - el : 0;
    size_t ph = (size_t)-1, pt = (size_t)-1;
    for (size_t a = 0; a < ng; a++)
        for (size_t b = a + 1; b < ng; b++) {
            size_t h = common_head(names[g[a]], names[g[b]]);
            size_t t = common_tail(names[g[a]], names[g[b]]);
            if (h < ph)
                ph = h;
            if (t < pt)
                pt = t;
        }
    for (size_t a = 0; a < ng; a++) {
        const char *s = names[g[a]];
        size_t len = strlen(s), cols = td_text_cols(s, len);
        if (cols <= w)
            continue; /* shown whole: the others must move */
        char *n = NULL;
        if (ph + 1 + 4 <= room) {
            size_t head = ph + 1 + 3 < room ? ph + 1 + 3 : room;
            n = cut(s, len, head, 0, 0, cols - (room - head), ascii);
        } else if (pt + 1 + 4 <= room) {
            size_t tail = pt + 1 + 3 < room ? pt + 1 + 3 : room;
            n = cut(s, len, room - tail, 0, 0, cols - tail, ascii);
        } else if (w >= 2 * el + 3) {
            /* head … window … tail, the window from just before ph */
            size_t inner = w - 2 * el;
            size_t head = inner / 4, tail = inner / 4, win = inner - head - tail;
            size_t back = win > 4 ? 4 : win - 1; /* ph inside the window */
            size_t m0 = ph > back ? ph - back : 0;
            if (m0 < head)
                m0 = head;
            if (m0 + win > cols - tail)
                m0 = cols - tail - win;
            n = cut(s, len, head, m0, m0 + win, cols - tail, ascii);
        }
        if (n) {
            free(shown[g[a]]);
            shown[g[a]] = n;
        }
    }
}

void td_fit_names_free(char **shown, size_t n)
{
    for (size_t i = 0; shown && i < n; i++)
        free(shown[i]);
    free(shown);
}

char **td_fit_names(char *const *names, size_t n, size_t w, int ascii)
{
    char **shown = calloc(n ? n : 1, sizeof *shown);
    fit_key *ix = malloc((n ? n : 1) * sizeof *ix);
    size_t *g = malloc((n ? n : 1) * sizeof *g);
    if (!shown || !ix || !g)
        goto oom;
    for (size_t i = 0; i < n; i++)
        if (!(shown[i] = middle(names[i], w, ascii)))
            goto oom;
    /* A few rounds: a re-cut group may still hold pairs that part later. */
    for (int round = 0; round < 6; round++) {
        for (size_t i = 0; i < n; i++)
            ix[i] = (fit_key){shown[i], i};
        qsort(ix, n, sizeof *ix, by_shown);
        int dup = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            while (j < n && strcmp(ix[i].s, ix[j].s) == 0)
                j++;
            if (j - i > 1) {
                size_t ng = 0;
                for (size_t k = i; k < j; k++)
                    g[ng++] = ix[k].i;
                recut(names, shown, g, ng, w, ascii);
                dup = 1;
            }
            i = j;
        }
        if (!dup)
            break;
    }
    free(ix);
    free(g);
    return shown;
oom:
    free(ix);
    free(g);
    td_fit_names_free(shown, n);
    return NULL;
}
