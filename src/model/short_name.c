/* Short names (spec §6): drop argument lists, template arguments, return types. */
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

int td_short_name(char **out, size_t *out_len, const char *name, size_t len)
{
    *out = NULL;
    char *st = malloc(len + 1);
    if (!st)
        return TD_ENOMEM;
    bool keep = starts(name, len, "Memcpy") || starts(name, len, "Memset") ||
                starts(name, len, "hipMemcpy") || starts(name, len, "hipMemset") ||
                starts(name, len, "dma") || (!memchr(name, '<', len) && !memchr(name, '(', len));
    if (keep) {
        memcpy(st, name, len);
        st[len] = '\0';
        *out = st;
        *out_len = len;
        return 0;
    }
    /* The stack is the output buffer itself: a push appends, a pop cuts. */
    size_t top = 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (c == '-' && i + 1 < len && name[i + 1] == '>') {
            i++; /* every "->" is removed first */
            continue;
        }
        if (c == '>' || c == ')') {
            char open = c == '>' ? '<' : '(';
            while (top > 0 && st[top - 1] != open)
                top--;
            if (top > 0)
                top--; /* the opener itself */
            continue;
        }
        st[top++] = c;
    }
    size_t start = top;
    while (start > 0 && st[start - 1] != ' ')
        start--;
    memmove(st, st + start, top - start);
    st[top - start] = '\0';
    *out = st;
    *out_len = top - start;
    return 0;
}
