/* tracediff ops CONTROL TEST: HTA's ops_diff lists (added, deleted,
 * increased, decreased, unchanged), always by full name. */
#include "options.h"

#include <string.h>
#include <unistd.h>

/* One line per name: category,name (RFC 4180 quoting), lists in order. */
static void ops_csv(FILE *f, const td_diff *d, bool safe)
{
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    fputs("category,name\n", f);
    for (int c = 0; c < TD_OP_NCATEGORIES; c++)
        for (size_t i = 0; i < n; i++) {
            if (td_row_op_category(&rows[i]) != (td_op_category)c)
                continue;
            fprintf(f, "%s,", td_op_category_name((td_op_category)c));
            td_write_csv_field(f, rows[i].name, rows[i].name_len, safe);
            fputc('\n', f);
        }
}

static int ops_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    o->cmp.short_names = false; /* spec §7: always by full name */
    /* -o x.md names a format ops does not write. */
    const char *fmt = cli_default_format(o, "table", "csv");
    if (strcmp(fmt, "table") && strcmp(fmt, "json") && strcmp(fmt, "csv")) {
        cli_error("--format '%s': expected table, csv or json", fmt);
        return EXIT_USAGE;
    }
    out_file out = {0};
    int rc = cli_pair_run(p);
    if (rc == 0)
        rc = out_open(&out, o->output);
    if (rc)
        return rc;
    bool tty = out.f == stdout && isatty(STDOUT_FILENO);
    td_error err = {0};
    if (strcmp(fmt, "json") == 0) {
        if (td_write_ops_json(out.f, p->diff, &err) < 0)
            return out_fail(&out, &err);
    } else if (strcmp(fmt, "csv") == 0)
        ops_csv(out.f, p->diff, p->o.csv_safe);
    else {
        /* Names fitted as the compare table fits them (td_write_ops_table). */
        td_write_opts w = TD_WRITE_OPTS_INIT;
        w.width = cli_term_width(tty);
        w.color = out.f == stdout && cli_color_ok(stdout);
        w.ascii = !cli_unicode_ok();
        if (td_write_ops_table(out.f, p->diff, &w, &err) < 0)
            return out_fail(&out, &err);
    }
    return out_commit(&out);
}

int cmd_ops(cli_pair *p, const char **pos)
{
    (void)pos;
    return ops_run(p);
}
