/* What the terminal and the locale allow: colour, UTF-8, width. */
#define _GNU_SOURCE
#include "cli.h"

#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

bool cli_tty_off = false;

bool cli_isatty(int fd)
{
    return !cli_tty_off && isatty(fd);
}

bool cli_color_ok(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return cli_isatty(fileno(f));
}

bool cli_unicode_ok(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && strcmp(cs, "UTF-8") == 0;
}

int cli_term_width(bool tty)
{
    struct winsize ws;
    if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    if (c && atoi(c) > 20)
        return atoi(c);
    return tty ? 120 : 160;
}

/* Names and labels come from traces, summaries and the command line: the
 * tables show them through td_text_visible, so that no escape sequence, bell
 * or bidirectional control reaches the terminal (docs/errors.md). */
const char *cli_visible(const char *s)
{
    return cli_visible_n(s, strlen(s));
}

static char *ring[8];
static size_t caps[8];

/* The ring lives until exit; freeing it there keeps leak checkers exact. */
static void ring_free(void)
{
    for (unsigned k = 0; k < 8; k++) {
        free(ring[k]);
        ring[k] = NULL;
        caps[k] = 0;
    }
}

const char *cli_visible_n(const char *s, size_t len)
{
    static unsigned next;
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(ring_free);
    }
    unsigned k = next++ % 8;
    size_t need = td_text_visible(ring[k], caps[k], s, len, 0);
    if (need >= caps[k]) {
        char *b = realloc(ring[k], need + 1);
        if (!b)
            return "?";
        ring[k] = b;
        caps[k] = need + 1;
        td_text_visible(ring[k], caps[k], s, len, 0);
    }
    return ring[k];
}

/* Columns of UTF-8 text: one per code point, as the compare table counts. */
static size_t cols_of(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* The bytes of the first cols columns of s. */
static size_t bytes_of(const char *s, size_t cols)
{
    size_t b = 0, c = 0;
    for (; s[b]; b++) {
        if (((unsigned char)s[b] & 0xC0) != 0x80 && c++ == cols)
            break;
    }
    return b;
}

void cli_put_cell(FILE *f, const char *s, size_t width, unsigned how)
{
    const char *v = cli_visible(s);
    size_t cols = cols_of(v);
    if ((how & CLI_CELL_MIDDLE) && cols > width && width > 8) {
        /* the head and the tail, which names the file */
        size_t room = width - 3, head = room / 3, tail = room - head;
        fwrite(v, 1, bytes_of(v, head), f);
        fputs("...", f);
        fputs(v + bytes_of(v, cols - tail), f);
        cols = width;
        v = "";
    } else if ((how & CLI_CELL_CUT) && cols > width) {
        size_t keep = width > 3 ? width - 3 : 0;
        fwrite(v, 1, bytes_of(v, keep), f);
        fputs("...", f);
        cols = keep + 3;
        v = "";
    }
    if (how & CLI_CELL_RIGHT)
        fprintf(f, "%*s", (int)(cols < width ? width - cols : 0), "");
    fputs(v, f);
    if (!(how & CLI_CELL_RIGHT))
        fprintf(f, "%*s", (int)(cols < width ? width - cols : 0), "");
}
