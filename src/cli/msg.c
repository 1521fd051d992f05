/* Messages on stderr: errors, notes, and the library's errors as one line. */
#include "cli.h"

#include <stdarg.h>

const char *g_prog = "tracediff";

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s", g_prog, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("note: ", fmt, ap);
    va_end(ap);
}

int cli_td_error(const td_error *e)
{
    if (e->path[0] && e->has_offset)
        cli_error("%s: byte %llu: %s", e->path, (unsigned long long)e->offset, e->msg);
    else if (e->path[0])
        cli_error("%s: %s", e->path, e->msg);
    else
        cli_error("%s", e->msg[0] ? e->msg : td_strerror(e->code));
    return e->code == TD_EUSAGE ? EXIT_USAGE : EXIT_DATA;
}
