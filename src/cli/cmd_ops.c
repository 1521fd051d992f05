/* tracediff ops CONTROL TEST: HTA's ops_diff lists (added, deleted,
 * increased, decreased, unchanged), always by full name. */
#include "options.h"

#include <string.h>

static void print_name(FILE *f, const td_row *r)
{
    fputs("  ", f);
    for (size_t b = 0; b < r->name_len; b++) {
        unsigned char ch = (unsigned char)r->name[b];
        fputc(ch < 0x20 ? '?' : ch, f);
    }
    fputc('\n', f);
}

static void ops_table(FILE *f, const td_diff *d, bool color)
{
    const td_row *rows = td_diff_rows(d);
    size_t n = td_diff_nrows(d);
    static const char *const tint[] = {"\033[32m", "\033[31m", "\033[33m", "\033[36m", ""};
    for (int c = 0; c < TD_OP_NCATEGORIES; c++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += td_row_op_category(&rows[i]) == (td_op_category)c;
        fprintf(f, "%s%s (%zu)%s\n", color ? tint[c] : "", td_op_category_name((td_op_category)c),
                k, color && *tint[c] ? "\033[0m" : "");
        for (size_t i = 0; i < n; i++)
            if (td_row_op_category(&rows[i]) == (td_op_category)c)
                print_name(f, &rows[i]);
    }
}

static int ops_run(cli_pair *p)
{
    cli_opts *o = &p->o;
    o->cmp.short_names = 0; /* spec §7: always by full name */
    /* -o x.csv or x.md names a format ops does not write. */
    const char *fmt = cli_default_format(o, "table", "json");
    if (strcmp(fmt, "table") && strcmp(fmt, "json")) {
        cli_error("--format '%s': expected table or json", fmt);
        return EXIT_USAGE;
    }
    out_file out = {0};
    int rc = cli_pair_run(p);
    if (rc == 0)
        rc = out_open(&out, o->output);
    if (rc)
        return rc;
    if (strcmp(fmt, "json") == 0)
        td_write_ops_json(out.f, p->diff);
    else
        ops_table(out.f, p->diff, out.f == stdout && cli_color_ok(stdout));
    return out_commit(&out);
}

int cmd_ops(const cli_command *cmd, int argc, char **argv)
{
    cli_pair p = {0};
    const char *pos[2];
    int rc = cli_parse(cmd, &p.o, pos, argc, argv);
    if (rc == CLI_RUN) {
        p.o.control = pos[0];
        p.o.test = pos[1];
        rc = ops_run(&p);
    }
    cli_pair_free(&p);
    return rc;
}
