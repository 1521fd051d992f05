/* tracediff check CONTROL TEST: the CI gate. Exit 3 when a name got slower. */
#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gate {
    const cli_opts *o;
    const td_diff *d;
    const td_stats *st;
    size_t *names;   /* rows compared (control total >= --min-us) */
    size_t nnames;
    size_t *regs;    /* regressions among them, most significant first */
    size_t nregs;
    size_t nfaster;
} gate;

static bool is_regression(const gate *g, size_t r)
{
    const td_row_stats *rs = &td_stats_rows(g->st)[r];
    if (rs->verdict != TD_VERDICT_SLOWER)
        return false;
    /* A control mean of 0 is an infinite change. */
    return isnan(rs->change_pct) || rs->change_pct >= g->o->max_regression;
}

static const td_row_stats *g_rows; /* for qsort: regressions by q, then change */

static int by_q(const void *a, const void *b)
{
    const td_row_stats *x = &g_rows[*(const size_t *)a], *y = &g_rows[*(const size_t *)b];
    if (x->q != y->q)
        return x->q < y->q ? -1 : 1;
    if (x->change_pct != y->change_pct)
        return x->change_pct > y->change_pct ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int gate_make(gate *g)
{
    size_t n = td_diff_nrows(g->d);
    const td_row *rows = td_diff_rows(g->d);
    const td_row_stats *rs = td_stats_rows(g->st);
    g->names = malloc((n + 1) * sizeof *g->names);
    g->regs = malloc((n + 1) * sizeof *g->regs);
    if (!g->names || !g->regs)
        return -1;
    for (size_t r = 0; r < n; r++) {
        if (rows[r].duration[0] < g->o->min_us)
            continue;
        g->names[g->nnames++] = r;
        if (is_regression(g, r))
            g->regs[g->nregs++] = r;
        else if (rs[r].verdict == TD_VERDICT_FASTER)
            g->nfaster++;
    }
    g_rows = rs;
    qsort(g->regs, g->nregs, sizeof *g->regs, by_q);
    return 0;
}

static void put_name(FILE *f, const td_row *r, size_t max)
{
    for (size_t b = 0; b < r->name_len && b < max; b++) {
        unsigned char ch = (unsigned char)r->name[b];
        fputc(ch < 0x20 ? '?' : ch, f);
    }
    if (r->name_len > max)
        fputs("...", f);
}

static void fmt(char *buf, size_t cap, double x)
{
    if (isnan(x))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.4g", x);
}

static void summary_line(FILE *f, const gate *g)
{
    const cli_opts *o = g->o;
    fprintf(f, "%s: %zu regression%s among %zu names (slower by >= %g%%, q <= %g); %zu faster; "
               "samples per %s (%zu control, %zu test)\n",
            g->nregs ? "FAIL" : "ok", g->nregs, g->nregs == 1 ? "" : "s", g->nnames,
            o->max_regression, td_stats_alpha(g->st), g->nfaster,
            td_samples_name(td_stats_samples(g->st)), td_stats_side_samples(g->st, 0),
            td_stats_side_samples(g->st, 1));
}

static void write_table(FILE *f, const gate *g)
{
    summary_line(f, g);
    if (!g->nregs)
        return;
    fprintf(f, "\n%-28s  %10s  %12s  %12s  %s\n", "change [interval]", "q", "control mean",
            "test mean", "name");
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < g->nregs; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[g->regs[k]];
        char ch[64], q[32], cm[32], tm[32];
        double m = rs->mean[0];
        if (!isnan(rs->ci_low) && m != 0)
            snprintf(ch, sizeof ch, "%+.1f%% [%+.1f, %+.1f]", rs->change_pct,
                     100 * rs->ci_low / m, 100 * rs->ci_high / m);
        else
            snprintf(ch, sizeof ch, "%+.1f%%", rs->change_pct);
        fmt(q, sizeof q, rs->q);
        fmt(cm, sizeof cm, rs->mean[0]);
        fmt(tm, sizeof tm, rs->mean[1]);
        fprintf(f, "%-28s  %10s  %12s  %12s  ", ch, q, cm, tm);
        put_name(f, &rows[g->regs[k]], 200);
        fputc('\n', f);
    }
}

static void md_cell_name(FILE *f, const td_row *r)
{
    fputc('`', f);
    for (size_t b = 0; b < r->name_len && b < 300; b++) {
        unsigned char c = (unsigned char)r->name[b];
        if (c == '|')
            fputs("\\|", f);
        else if (c == '`' || c < 0x20)
            fputc(c == '`' ? '\'' : ' ', f);
        else
            fputc(c, f);
    }
    fputs(r->name_len > 300 ? "...`" : "`", f);
}

static void write_markdown(FILE *f, const gate *g)
{
    const cli_opts *o = g->o;
    fprintf(f, "### tracediff check: %s\n\n",
            g->nregs ? "regressions found" : "no regression");
    fprintf(f, "%zu regression%s among %zu names (slower by at least %g%%, q <= %g), %zu "
               "faster. Samples per %s: %zu control, %zu test.\n",
            g->nregs, g->nregs == 1 ? "" : "s", g->nnames, o->max_regression,
            td_stats_alpha(g->st), g->nfaster, td_samples_name(td_stats_samples(g->st)),
            td_stats_side_samples(g->st, 0), td_stats_side_samples(g->st, 1));
    if (!g->nregs)
        return;
    fputs("\n| name | change | interval | q | control mean (us) | test mean (us) |\n"
          "|:---|---:|---:|---:|---:|---:|\n",
          f);
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < g->nregs; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[g->regs[k]];
        char q[32], cm[32], tm[32], iv[64] = "";
        double m = rs->mean[0];
        if (!isnan(rs->ci_low) && m != 0)
            snprintf(iv, sizeof iv, "[%+.1f%%, %+.1f%%]", 100 * rs->ci_low / m,
                     100 * rs->ci_high / m);
        fmt(q, sizeof q, rs->q);
        fmt(cm, sizeof cm, rs->mean[0]);
        fmt(tm, sizeof tm, rs->mean[1]);
        fputs("| ", f);
        md_cell_name(f, &rows[g->regs[k]]);
        fprintf(f, " | **%+.1f%%** | %s | %s | %s | %s |\n", rs->change_pct, iv, q, cm, tm);
    }
}

static void json_num(FILE *f, const char *key, double x)
{
    char b[40];
    td_format_number(b, sizeof b, x);
    fprintf(f, ", \"%s\": %s", key, isfinite(x) ? b : "null");
}

static void write_json(FILE *f, const gate *g)
{
    fprintf(f, "{\"result\": \"%s\", \"regressions\": %zu, \"compared\": %zu, \"faster\": %zu",
            g->nregs ? "regression" : "ok", g->nregs, g->nnames, g->nfaster);
    fprintf(f, ", \"samples\": \"%s\"", td_samples_name(td_stats_samples(g->st)));
    json_num(f, "alpha", td_stats_alpha(g->st));
    json_num(f, "min_change", td_stats_min_change(g->st));
    json_num(f, "max_regression", g->o->max_regression);
    json_num(f, "min_us", g->o->min_us);
    fputs(",\n \"rows\": [", f);
    const td_row *rows = td_diff_rows(g->d);
    for (size_t k = 0; k < g->nregs; k++) {
        const td_row_stats *rs = &td_stats_rows(g->st)[g->regs[k]];
        const td_row *r = &rows[g->regs[k]];
        fputs(k ? ",\n  {\"name\": \"" : "\n  {\"name\": \"", f);
        td_write_json_string(f, r->name, r->name_len);
        fputc('"', f);
        fprintf(f, ", \"control_n\": %llu, \"test_n\": %llu", (unsigned long long)rs->n[0],
                (unsigned long long)rs->n[1]);
        json_num(f, "control_mean", rs->mean[0]);
        json_num(f, "test_mean", rs->mean[1]);
        json_num(f, "change_pct", rs->change_pct);
        json_num(f, "ci_low", rs->ci_low);
        json_num(f, "ci_high", rs->ci_high);
        json_num(f, "p_value", rs->p);
        json_num(f, "q_value", rs->q);
        fputs(", \"verdict\": \"slower\"}", f);
    }
    fputs(g->nregs ? "\n ]}\n" : "]}\n", f);
}

/* XML 1.0 text: the five escapes, and '?' for the control characters XML
 * cannot hold at all. */
static void xml_text(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '&')
            fputs("&amp;", f);
        else if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c == '\'')
            fputs("&apos;", f);
        else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            fputc('?', f);
        else if (c == 0xEF && i + 2 < len && (unsigned char)s[i + 1] == 0xBF &&
                 ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF)) {
            fputc('?', f); /* U+FFFE, U+FFFF */
            i += 2;
        } else if (c == 0xED && i + 1 < len && ((unsigned char)s[i + 1] & 0xE0) == 0xA0) {
            fputc('?', f); /* a lone surrogate kept from the input */
            i += 2;
        } else
            fputc(c, f);
    }
}

static int write_junit(const gate *g, const char *path)
{
    out_file out = {0};
    int rc = out_open(&out, path);
    if (rc)
        return rc;
    FILE *f = out.f;
    bool *reg = calloc(td_diff_nrows(g->d) + 1, sizeof *reg);
    if (!reg) {
        out_abort(&out);
        cli_error("out of memory");
        return EXIT_DATA;
    }
    for (size_t k = 0; k < g->nregs; k++)
        reg[g->regs[k]] = true;
    const td_row *rows = td_diff_rows(g->d);
    const td_row_stats *rs = td_stats_rows(g->st);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites tests=\"%zu\" failures=\"%zu\">\n"
               "<testsuite name=\"tracediff check\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
            g->nnames, g->nregs, g->nnames, g->nregs);
    for (size_t i = 0; i < g->nnames; i++) {
        size_t r = g->names[i];
        fputs("  <testcase classname=\"tracediff\" name=\"", f);
        xml_text(f, rows[r].name, rows[r].name_len);
        fputc('"', f);
        if (!reg[r]) {
            fputs("/>\n", f);
            continue;
        }
        char q[32], cm[32], tm[32];
        fmt(q, sizeof q, rs[r].q);
        fmt(cm, sizeof cm, rs[r].mean[0]);
        fmt(tm, sizeof tm, rs[r].mean[1]);
        fprintf(f, ">\n    <failure message=\"slower by %.1f%% (q = %s)\" type=\"regression\">"
                   "mean %s us -&gt; %s us, %s samples (%llu control, %llu test)</failure>\n"
                   "  </testcase>\n",
                rs[r].change_pct, q, cm, tm, td_samples_name(td_stats_samples(g->st)),
                (unsigned long long)rs[r].n[0], (unsigned long long)rs[r].n[1]);
    }
    fputs("</testsuite>\n</testsuites>\n", f);
    free(reg);
    return out_commit(&out);
}

static bool empty_side(const cli_pair *p, int *side)
{
    for (int s = 0; s < 2; s++)
        if (td_diff_notes(p->diff, s)->events == 0) {
            *side = s;
            return true;
        }
    return false;
}

static int check_run(cli_pair *p, gate *g)
{
    cli_opts *o = &p->o;
    const char *fmt = o->format ? o->format : "table"; /* the parser checked it */
    out_file out = {0};
    int rc = cli_pair_run(p);
    if (rc)
        return rc;
    int side;
    if (empty_side(p, &side)) {
        cli_error("%s: the selection has no events (check --%s-rank, --%s-iteration, --device)",
                  side ? o->test : o->control, side ? "test" : "control",
                  side ? "test" : "control");
        return EXIT_DATA;
    }
    g->o = o;
    g->d = p->diff;
    g->st = p->stats;
    if (gate_make(g) < 0) {
        cli_error("out of memory");
        return EXIT_DATA;
    }
    if (o->junit && (rc = write_junit(g, o->junit)) != 0)
        return rc;
    if ((rc = out_open(&out, o->output)) != 0)
        return rc;
    if (strcmp(fmt, "json") == 0)
        write_json(out.f, g);
    else if (strcmp(fmt, "markdown") == 0)
        write_markdown(out.f, g);
    else
        write_table(out.f, g);
    if ((rc = out_commit(&out)) != 0)
        return rc;
    return g->nregs ? EXIT_REGRESSION : EXIT_OK;
}

int cmd_check(const cli_command *cmd, int argc, char **argv)
{
    cli_pair p = CLI_PAIR_INIT;
    gate g = {0};
    const char *pos[2];
    p.o.max_regression = 5;
    int rc = cli_parse(cmd, &p.o, pos, argc, argv);
    if (rc == CLI_RUN) {
        p.o.control = pos[0];
        p.o.test = pos[1];
        p.o.stats = true;
        rc = check_run(&p, &g);
    }
    free(g.names);
    free(g.regs);
    cli_pair_free(&p);
    return rc;
}
