/* tracediff man: the manual page, or the README's usage block, or the
 * option table, all made from the tables (doc.c). */
#include "options.h"

#include <string.h>

int cmd_man(cli_pair *p, const char **pos)
{
    (void)pos;
    const char *fmt = p->o.format ? p->o.format : "roff";
    if (strcmp(fmt, "usage") == 0)
        cli_doc_usage(stdout);
    else if (strcmp(fmt, "tsv") == 0)
        cli_doc_tsv(stdout);
    else
        cli_doc_man(stdout);
    out_file out = {0};
    out_open(&out, NULL);
    return out_commit(&out);
}
