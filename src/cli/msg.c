/* Messages on stderr: errors, notes, and the library's errors as one line. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *g_prog = "tracediff";

/* A message names files, labels and names as they were given, shown as the
 * tables show them (cli_visible), line by line. */
static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    char small[1024], *text = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (text = malloc((size_t)n + 1)) != NULL)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!text)
        text = small;
    fprintf(stderr, "%s: %s", g_prog, kind);
    for (const char *line = text;;) {
        const char *end = strchr(line, '\n');
        fputs(cli_visible_n(line, end ? (size_t)(end - line) : strlen(line)), stderr);
        if (!end)
            break;
        fputc('\n', stderr);
        line = end + 1;
    }
    fputc('\n', stderr);
    if (text != small)
        free(text);
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

size_t cli_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cut)
{
    return td_edit_distance(a, la, b, lb, cut);
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        size_t d = cli_edit_distance(word, strlen(word), cands[i], strlen(cands[i]), 64);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    /* close enough to be a typo: 1 edit in short words, a third of longer ones */
    size_t len = strlen(word), most = len <= 4 ? 1 : len / 3 > 2 ? len / 3 : 2;
    return best && bd > 0 && bd <= most ? best : NULL;
}

const char *cli_suggest_choice(const char *word, const char *choices)
{
    const char *cands[32];
    char words[32][32];
    size_t n = 0;
    for (const char *c = choices; *c && n < 32;) {
        size_t w = strcspn(c, "|");
        snprintf(words[n], sizeof words[n], "%.*s", (int)w, c);
        cands[n] = words[n];
        n++;
        c += w + (c[w] == '|');
    }
    const char *s = cli_suggest(word, cands, n);
    /* the choice, in choices itself (which outlives this call) */
    if (!s)
        return NULL;
    size_t sl = strlen(s);
    for (const char *c = choices; *c;) {
        size_t w = strcspn(c, "|");
        if (w == sl && strncmp(c, s, w) == 0)
            return c;
        c += w + (c[w] == '|');
    }
    return NULL;
}
