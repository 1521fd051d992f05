/* tracediff ops CONTROL TEST: HTA's ops_diff lists (added, deleted,
 * increased, decreased, unchanged), always by full name. */
#include "options.h"

#include <string.h>
#include <unistd.h>

/* Code points of UTF-8 text. */
static size_t text_cols(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* Bytes of the first (from_end: last) cols code points of s. */
static size_t cols_bytes(const char *s, size_t len, size_t cols, bool from_end)
{
    size_t b = 0, c = 0;
    while (b < len && c <= cols) {
        unsigned char ch = (unsigned char)s[from_end ? len - 1 - b : b];
        if ((ch & 0xC0) != 0x80 && c++ == cols)
            break;
        b++;
    }
    return b;
}

/* A name in at most width columns, cut as the compare table cuts it: at the
 * start for a Python frame or a name ending in an address (file, line and
 * address stay), else at the end (a kernel's template arguments stay). */
static void print_name(FILE *f, const td_row *r, size_t width)
{
    fputs("  ", f);
    /* As the tables show names: escapes for controls (docs/errors.md). */
    const char *name = cli_visible_n(r->name, r->name_len);
    size_t len = strlen(name);
    size_t cols = text_cols(name, len);
    if (width < 12 || cols <= width) {
        fputs(name, f);
        fputc('\n', f);
        return;
    }
    bool tail = false;
    for (size_t i = 0; i + 4 <= len && !tail; i++)
        tail = memcmp(name + i, ".py(", 4) == 0;
    for (size_t i = len > 24 ? len - 24 : 0; i + 2 <= len && !tail; i++)
        tail = memcmp(name + i, "0x", 2) == 0;
    const char *ell = cli_unicode_ok() ? "\xE2\x80\xA6" : "...";
    size_t keep = width - (cli_unicode_ok() ? 1 : 3);
    if (tail) {
        size_t tb = cols_bytes(name, len, keep, true);
        fputs(ell, f);
        fwrite(name + len - tb, 1, tb, f);
    } else {
        fwrite(name, 1, cols_bytes(name, len, keep, false), f);
        fputs(ell, f);
    }
    fputc('\n', f);
}

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

static void ops_table(FILE *f, const td_diff *d, bool color, size_t width)
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
                print_name(f, &rows[i], width - 2);
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
    else
        ops_table(out.f, p->diff, out.f == stdout && cli_color_ok(stdout),
                  (size_t)cli_term_width(tty));
    return out_commit(&out);
}

int cmd_ops(cli_pair *p, const char **pos)
{
    (void)pos;
    return ops_run(p);
}
