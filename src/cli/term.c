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
