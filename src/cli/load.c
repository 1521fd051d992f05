/* Loading a pair of trace sets, computing their diff and the rows to show,
 * with the notes a comparison owes the user. */
#include "cli.h"

#include <stdlib.h>

cli_open_fn cli_sets_open = td_sets_open;

const char *cli_side_label(const cli_opts *o, int side)
{
    return side ? (o->test_label ? o->test_label : "test")
                : (o->control_label ? o->control_label : "control");
}

static int load_pair(cli_opts *o, td_set **control, td_set **test)
{
    td_set *sets[2] = {NULL, NULL};
    const char *paths[2] = {o->control, o->test};
    cli_progress pr;
    td_open_opts oo = {0};
    oo.threads = o->threads;
    cli_progress_attach(&pr, &oo, o->quiet);
    td_error err = {0};
    int rc = cli_sets_open(sets, paths, 2, &oo, &err);
    cli_progress_clear(&pr);
    if (rc < 0)
        return cli_td_error(&err);
    *control = sets[0];
    *test = sets[1];
    return 0;
}

static void note_files(const td_set *s)
{
    for (size_t i = 0; i < td_set_nfiles(s); i++) {
        td_file_info fi;
        td_set_file_info(s, i, &fi);
        if (fi.events_skipped)
            cli_note("%s: %llu %s of traceEvents skipped (not objects, or a name, cat, "
                     "ts or dur of the wrong type)",
                     fi.path, (unsigned long long)fi.events_skipped,
                     fi.events_skipped == 1 ? "entry" : "entries");
        if (fi.bom)
            cli_note("%s: starts with a UTF-8 byte order mark (skipped; the JSON after it is read "
                     "as usual)",
                     fi.path);
    }
}

static void note_side(const cli_opts *o, const td_set *s, const td_diff *d, int side)
{
    const td_side_notes *n = td_diff_notes(d, side);
    const char *label = cli_side_label(o, side);
    if (n->whole_trace)
        cli_note("%s (%s) has no ProfilerStep: comparing the whole trace", label,
                 td_set_path(s));
    if (n->no_launch)
        cli_note("%s: %llu GPU %s with no launch found (no iteration) left out; "
                 "see docs/numbers.md",
                 label, (unsigned long long)n->no_launch, n->no_launch == 1 ? "event" : "events");
    if (n->strict_dropped)
        cli_note("%s: --hta-strict: %llu GPU %s on stream 0 left out, as HTA does (the default "
                 "gives them their launch's iteration); see docs/numbers.md",
                 label, (unsigned long long)n->strict_dropped,
                 n->strict_dropped == 1 ? "event" : "events");
    note_files(s);
}

/* --sort names a column, which depends on the labels: read it now. */
static int resolve_sort(cli_opts *o)
{
    if (!o->sort_text)
        return 0;
    int c = td_column_parse(o->sort_text, o->control_label, o->test_label);
    if (c < 0) {
        cli_error("--sort '%s': no such column (try name, diff_duration, diff_counts, "
                  "abs_diff_duration, %s_counts, ...)",
                  o->sort_text, o->control_label ? o->control_label : "control");
        return EXIT_USAGE;
    }
    o->view.sort = c;
    o->view.has_sort = 1;
    return 0;
}

static int diff_and_view(cli_pair *p)
{
    cli_opts *o = &p->o;
    td_error err = {0};
    int rc = resolve_sort(o);
    if (rc)
        return rc;
    if (td_diff_compute(&p->diff, p->control, p->test, &o->cmp, &err) < 0)
        return cli_td_error(&err);
    if (!o->quiet) {
        note_side(o, p->control, p->diff, 0);
        note_side(o, p->test, p->diff, 1);
    }
    long n = td_view_make(&p->rows, p->diff, &o->view, &err);
    if (n < 0)
        return cli_td_error(&err);
    p->nrows = (size_t)n;
    return 0;
}

int cli_pair_run(cli_pair *p)
{
    int rc = load_pair(&p->o, &p->control, &p->test);
    return rc ? rc : diff_and_view(p);
}

void cli_pair_free(cli_pair *p)
{
    free(p->rows);
    td_diff_free(p->diff);
    td_set_free(p->control);
    td_set_free(p->test);
    cli_opts_free(&p->o);
}
