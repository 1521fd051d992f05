/*
 * The JSON scanner's window (see json_scan.h): reading more input into it,
 * moving or swapping it, errors with their offsets, the next token, a
 * literal, and the byte classes every file of the scanner reads.
 *
 * The hot loops work on raw pointers into the window and fall back to
 * td_json_fill() only at its edge, so the common case (a token wholly inside
 * the window) costs a table lookup per byte and nothing else.
 */
#include "read/json_window_internal.h"

unsigned char td_json_str_stop[256];
unsigned char td_json_is_ws[256];
unsigned char td_json_num_char[256];
unsigned char td_json_ends_scalar[256];

void td_json_tables_init(void)
{
    for (int c = 0; c < 256; c++) {
        td_json_str_stop[c] = (c < 0x20 || c == '"' || c == '\\' || c >= 0x80);
        td_json_is_ws[c] = (c == ' ' || c == '\t' || c == '\n' || c == '\r');
        td_json_num_char[c] = td_json_num_byte((unsigned char)c);
        td_json_ends_scalar[c] = td_json_is_ws[c] || c == '"' || c == '{' || c == '}' || c == '[' ||
                                 c == ']' || c == ':' || c == ',';
    }
}

void td_json_set_swap(td_json *j, td_json_swap_fn swap)
{
    j->swap = swap;
}

void td_json_free(td_json *j)
{
    free(j->own);
    free(j->scratch);
    j->buf = j->own = j->scratch = NULL;
}

uint64_t td_json_offset(const td_json *j)
{
    return j->base + j->pos;
}

static int verror(td_json *j, uint64_t at, const char *fmt, va_list ap)
{
    char msg[200];
    /* The first error wins: after a read error, what the scanner then makes
     * of the missing bytes must not hide it. */
    if (j->failed)
        return j->err ? j->err->code : TD_EPARSE;
    vsnprintf(msg, sizeof msg, fmt, ap);
    j->failed = 1;
    if (j->ctx)
        return td_fail_at(j->err, TD_EPARSE, j->path, at, "%s in %s", msg, j->ctx);
    return td_fail_at(j->err, TD_EPARSE, j->path, at, "%s", msg);
}

int td_json_error(td_json *j, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(j, td_json_offset(j), fmt, ap);
    va_end(ap);
    return rc;
}
int td_json_error_at(td_json *j, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(j, j->base + pos, fmt, ap);
    va_end(ap);
    return rc;
}

/* Positions after the bytes before from left the window. */
static void window_moved(td_json *j, size_t from)
{
    j->ilen = 0; /* the index is of bytes that moved */
    j->base += from;
    j->pos -= from;
    j->end -= from;
    if (j->keep != NO_KEEP)
        j->keep -= from;
}

/* The source's next buffer as the window, the bytes from from on carried
 * over: 1 when it is, 0 at the end, < 0 on error, 2 when the source cannot
 * (the window is then the scanner's own again). */
static int swap_window(td_json *j, size_t from)
{
    size_t left = j->end - from;
    char *nb;
    long n = j->swap(j->ud, j->buf + from, left, &nb, j->err);
    if (n == TD_READER_NO_SWAP) {
        if (j->buf == j->own)
            return 2;
        if (j->owncap < left + WINDOW / 2) {
            size_t ncap = j->owncap;
            while (ncap < left + WINDOW / 2)
                ncap *= 2;
            char *o = realloc(j->own, ncap);
            if (!o)
                return td_fail(j->err, TD_ENOMEM, j->path, "out of memory");
            j->own = o;
            j->owncap = ncap;
        }
        memcpy(j->own, j->buf + from, left);
        j->swap(j->ud, NULL, 0, NULL, NULL); /* the source's buffer is let go */
        window_moved(j, from);
        j->buf = j->own;
        j->cap = j->owncap;
        return 2;
    }
    if (n <= 0)
        return (int)n;
    window_moved(j, from);
    j->buf = nb;
    j->end = left + (size_t)n;
    j->cap = j->end;
    return 1;
}

/* Makes at least need bytes available from pos (fewer only at the end of
 * input). Bytes from j->keep on are preserved; positions may move. Returns
 * the bytes available or < 0 on a read error. */
long td_json_fill(td_json *j, size_t need)
{
    if (j->failed) /* never read again after an error */
        return j->err ? j->err->code : TD_EIO;
    while (j->end - j->pos < need && !j->eof) {
        size_t from = (j->keep != NO_KEEP && j->keep < j->pos) ? j->keep : j->pos;
        if (j->swap) {
            int r = swap_window(j, from);
            if (r < 0) {
                j->failed = 1;
                return r;
            }
            if (r == 0)
                j->eof = true;
            if (r != 2)
                continue;
            from = (j->keep != NO_KEEP && j->keep < j->pos) ? j->keep : j->pos;
        }
        if (from > 0) {
            memmove(j->buf, j->buf + from, j->end - from);
            window_moved(j, from);
        }
        if (j->buf == j->own && j->cap < WINDOW && j->base + j->end >= WINDOW_START) {
            char *nb = realloc(j->buf, WINDOW);
            if (!nb) {
                j->failed = 1;
                return td_fail(j->err, TD_ENOMEM, j->path, "out of memory");
            }
            j->buf = j->own = nb;
            j->cap = j->owncap = WINDOW;
        }
        if (j->end == j->cap || j->cap - j->end < WINDOW / 4) {
            if (j->end > j->cap / 2) {
                size_t ncap = j->cap * 2;
                char *nb = realloc(j->buf, ncap);
                if (!nb) {
                    j->failed = 1;
                    return td_fail(j->err, TD_ENOMEM, j->path, "out of memory");
                }
                j->buf = j->own = nb;
                j->cap = j->owncap = ncap;
            }
        }
        long n = j->read(j->ud, j->buf + j->end, j->cap - j->end, j->err);
        if (n < 0) {
            j->failed = 1;
            return n;
        }
        if (n == 0)
            j->eof = true;
        j->end += (size_t)n;
    }
    return (long)(j->end - j->pos);
}

int td_json_skip_bom(td_json *j)
{
    long n = td_json_fill(j, 3);
    if (n < 0)
        return (int)n;
    if (n >= 3 && memcmp(j->buf + j->pos, "\xEF\xBB\xBF", 3) == 0) {
        j->pos += 3;
        return 1;
    }
    return 0;
}

int td_json_peek_slow(td_json *j)
{
    size_t q = index_next(j, j->inw, j->pos);
    if (q != NOPOS) {
        j->pos = q;
        return (unsigned char)j->buf[q];
    }
    for (;;) {
        const unsigned char *p = (const unsigned char *)j->buf + j->pos;
        const unsigned char *e = (const unsigned char *)j->buf + j->end;
        p = skip_ws(p, e);
        j->pos = (size_t)((const char *)p - j->buf);
        if (p < e)
            return *p;
        long n = td_json_fill(j, 1);
        if (n < 0)
            return -2;
        if (n == 0)
            return -1;
    }
}

int td_json_expect_byte(td_json *j, int want, const char *what)
{
    int c = td_json_peek(j);
    if (c == want) {
        j->pos++;
        return 0;
    }
    if (c < -1)
        return TD_EIO;
    if (c == -1)
        return td_json_error(j, "unexpected end of input, expected %s", what);
    return td_json_error(j, "expected %s", what);
}
int td_json_literal(td_json *j)
{
    long n = td_json_fill(j, 5);
    if (n < 0)
        return (int)n;
    const char *p = j->buf + j->pos;
    size_t avail = (size_t)n;
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t l = strlen(words[k]);
        if (avail >= l && memcmp(p, words[k], l) == 0) {
            j->pos += l;
            return 0;
        }
    }
    if ((avail >= 3 && memcmp(p, "NaN", 3) == 0) || (avail >= 3 && memcmp(p, "Inf", 3) == 0) ||
        (avail >= 4 && memcmp(p, "-Inf", 4) == 0))
        return td_json_error(j, "NaN and Infinity are not JSON");
    if (avail >= 2 && p[0] == '/' && (p[1] == '/' || p[1] == '*'))
        return td_json_error(j, "comments are not JSON");
    if (avail >= 1 && p[0] == '\'')
        return td_json_error(j, "single quotes are not JSON");
    return td_json_error(j, "unexpected character");
}

int td_json_assume(td_json *j, bool object)
{
    return push(j, object);
}

void td_json_restart(td_json *j, uint64_t off)
{
    j->base = off;
    j->pos = j->end = 0;
    j->eof = false;
    j->keep = NO_KEEP;
    j->ib = j->ilen = 0;
}
