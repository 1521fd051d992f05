/* Loading a pair of trace sets, computing their diff and the rows to show,
 * with the notes a comparison owes the user. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
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
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.processes = true;
    oo.want_attribution = o->want_attr || o->cmp.by != TD_BY_KERNEL;
    oo.want_breakdown = o->want_bd;
    oo.want_tree = o->match_tree; /* report --match tree */
    oo.tree_python_frames = o->tree_python_frames;
    oo.want_roofline = o->with_rate || o->want_roofline;
    oo.want_stacks = o->want_stacks || o->cmp.by == TD_BY_MODULE || o->cmp.by == TD_BY_STACK;
    if (o->classes_path && !o->classes) {
        td_error cerr = {0};
        if (td_classes_load(&o->classes, o->classes_path, &cerr) < 0)
            return cli_td_error(&cerr);
        o->cmp.classes = o->classes;
    }
    int rc = cli_open_pair(o, sets, &oo);
    *control = sets[0];
    *test = sets[1];
    return rc;
}

int cli_marker_check(const cli_opts *o, td_set *const *sets, size_t n)
{
    for (size_t i = 0; o->step_marker && i < n; i++) {
        if (td_set_iterations(sets[i], NULL, 0) > 0)
            continue;
        cli_error("%s (%s): --step-marker '%s' matches no event",
                  n == 2 ? cli_side_label(o, (int)i) : "set", td_set_path(sets[i]), o->step_marker);
        return EXIT_DATA;
    }
    return 0;
}

/* The library's notes on one side (td_diff_side_note), each a "note:" line. */
static void note_side(const cli_opts *o, const td_set *s, const td_diff *d, int side)
{
    const char *label = cli_side_label(o, side);
    /* The set's own notes come first (td_diff_side_note: the six of
     * td_side_notes it words), then its files'; a summary written without
     * checksums is said between the two, for the CLI only. */
    const td_side_notes *sn = td_diff_notes(d, side);
    size_t own = sn ? (size_t)sn->whole_trace + (sn->unattributed != 0) + (sn->no_launch != 0) +
                          (sn->strict_dropped != 0) + sn->no_modules + (sn->stack_cut != 0)
                    : 0;
    char small[1024];
    for (size_t i = 0;; i++) {
        if (i == own && td_set_unchecked(s))
            cli_note("%s (%s) was written without checksums (by an older tracediff): damage to "
                     "it cannot be detected; summarize the traces again to add them",
                     label, td_set_origin(s));
        size_t n = td_diff_side_note(d, side, s, label, i, small, sizeof small);
        if (!n)
            break;
        char *text = n < sizeof small ? small : malloc(n + 1);
        if (text != small && text)
            td_diff_side_note(d, side, s, label, i, text, n + 1);
        cli_note("%s", text ? text : small);
        if (text != small)
            free(text);
    }
}

/* --sort names a column, which depends on the labels: read it now. */
static int resolve_sort(cli_opts *o)
{
    if (!o->sort_text)
        return 0;
    int c = td_column_parse(o->sort_text, o->control_label, o->test_label);
    if ((c == TD_COL_Q || c == TD_COL_CHANGE) && !o->stats) {
        cli_error("--sort %s: needs --stats", o->sort_text);
        return EXIT_USAGE;
    }
    if (c < 0) {
        const char *cl = o->control_label ? o->control_label : "control";
        const char *tl = o->test_label ? o->test_label : "test";
        char side[4][160];
        snprintf(side[0], sizeof side[0], "%s_counts", cl);
        snprintf(side[1], sizeof side[1], "%s_total_duration", cl);
        snprintf(side[2], sizeof side[2], "%s_counts", tl);
        snprintf(side[3], sizeof side[3], "%s_total_duration", tl);
        const char *cands[] = {"name",
                               "short_name",
                               "diff_duration",
                               "diff_counts",
                               "abs_diff_duration",
                               "abs_diff_counts",
                               "counts_change_categories",
                               "q",
                               "change",
                               side[0],
                               side[1],
                               side[2],
                               side[3]};
        const char *near = cli_suggest(o->sort_text, cands, sizeof cands / sizeof *cands);
        if (near)
            cli_error("--sort '%s': no such column; did you mean '%s'?", o->sort_text, near);
        else
            cli_error("--sort '%s': no such column (try name, diff_duration, diff_counts, "
                      "abs_diff_duration, %s_counts, ...)",
                      o->sort_text, cl);
        return EXIT_USAGE;
    }
    o->view.sort = c;
    o->view.has_sort = 1;
    return 0;
}

/* Not an error: the rows say n/a. Shown even with -q. */
static void stats_warning(const cli_opts *o, const td_stats *st)
{
    if (!td_stats_too_few(st))
        return;
    size_t c = td_stats_side_samples(st, 0), t = td_stats_side_samples(st, 1);
    int side = c < 2 ? 0 : 1;
    size_t k = side ? t : c;
    const char *opt = side ? "test" : "control";
    fprintf(stderr,
            "%s: warning: --samples iteration: %s has %zu (rank, iteration) sample%s (need 2 a "
            "side): every row is n/a; select more with --%s-iteration all (or N,M,...) or "
            "--%s-rank all, or use --samples call\n",
            g_prog, cli_visible(cli_side_label(o, side)), k, k == 1 ? "" : "s", opt, opt);
}

/* Totals of 6 iterations against 1 are not comparable: say how to fix it. */
static void samples_hint(const cli_opts *o, const td_diff *d)
{
    size_t n[2];
    for (int side = 0; side < 2; side++) {
        const td_side_notes *sn = td_diff_notes(d, side);
        n[side] = sn->nranks * (sn->whole_trace ? 1 : sn->niters);
    }
    if (n[0] == n[1] || o->cmp.per_iteration)
        return;
    cli_note("%s selects %zu (rank, iteration) sample%s and %s %zu: totals are not comparable%s",
             cli_side_label(o, 0), n[0], n[0] == 1 ? "" : "s", cli_side_label(o, 1), n[1],
             o->per_iteration_ok ? "; --per-iteration divides by them" : "");
}

/* compare of sets with several ranks, one rank (or different ranks) a side:
 * breakdown --per-rank shows every rank at once, instead of a loop over
 * --test-rank N. */
static void rank_hint(const cli_pair *p)
{
    const td_side_notes *n[2] = {td_diff_notes(p->diff, 0), td_diff_notes(p->diff, 1)};
    size_t files[2] = {td_set_nfiles(p->control), td_set_nfiles(p->test)};
    bool differ = n[0]->nranks != n[1]->nranks;
    for (size_t i = 0; !differ && i < n[0]->nranks; i++)
        differ = n[0]->ranks[i] != n[1]->ranks[i];
    bool some = n[0]->nranks < files[0] || n[1]->nranks < files[1];
    if ((!differ && !some) || (files[0] < 2 && files[1] < 2))
        return;
    cli_note("%s compares %zu of %zu rank%s and %s %zu of %zu%s; 'tracediff breakdown "
             "--per-rank CONTROL TEST' shows every rank, the slowest and stragglers marked",
             cli_side_label(&p->o, 0), n[0]->nranks, files[0], files[0] == 1 ? "" : "s",
             cli_side_label(&p->o, 1), n[1]->nranks, files[1], differ ? " (different ranks)" : "");
}

/* --include and --exclude compiled on no rows: a bad pattern is refused
 * before any trace is read. */
static int check_patterns(const cli_opts *o)
{
    if (!o->view.include && !o->view.exclude)
        return 0;
    td_view_opts v = o->view;
    v.has_sort = false; /* its column may need statistics, made later */
    v.stats = NULL;
    td_diff *d = NULL;
    size_t *rows = NULL;
    td_error err = {0};
    int rc = td_diff_from_rows(&d, NULL, 0, false, &err) < 0 || td_view_make(&rows, d, &v, &err) < 0
                 ? cli_td_error(&err)
                 : 0;
    free(rows);
    td_diff_free(d);
    return rc;
}

/* Every option that can be checked without the traces is checked before
 * any is opened: a typo costs no load, and is reported as the usage error
 * it is even when a trace is missing too. */
static int check_usage(cli_opts *o)
{
    int rc = resolve_sort(o);
    if (rc)
        return rc;
    if (o->cmp.by != TD_BY_KERNEL && o->cmp.by != TD_BY_MODULE && o->cmp.by != TD_BY_STACK &&
        o->cmp.device == TD_DEVICE_CPU) {
        cli_error("--by %s groups GPU events by what launched them: --device cpu does not "
                  "apply (leave it out)",
                  cli_by_name(o->cmp.by));
        return EXIT_USAGE;
    }
    return check_patterns(o);
}

static int diff_and_view(cli_pair *p)
{
    cli_opts *o = &p->o;
    td_error err = {0};
    if (td_diff_compute(&p->diff, p->control, p->test, &o->cmp, &err) < 0)
        return cli_td_error(&err);
    if (!o->quiet) {
        note_side(o, p->control, p->diff, 0);
        note_side(o, p->test, p->diff, 1);
        samples_hint(o, p->diff);
        if (o->rank_hint)
            rank_hint(p);
        char note[256];
        if (td_diff_rounding_note(p->diff, note, sizeof note))
            cli_note("%s", note);
        size_t noisy = td_diff_noisy_names(p->diff);
        if (noisy && !o->table_out && !o->explain_names)
            cli_note("%zu names differ only by addresses or line numbers; --normalize-names "
                     "folds them (--explain-names shows how)",
                     noisy);
    }
    if (o->stats) {
        if (td_stats_compute(&p->stats, p->diff, p->control, p->test, &o->cmp, &o->sopt, &err) < 0)
            return cli_td_error(&err);
        o->view.stats = p->stats;
        stats_warning(o, p->stats);
    }
    long n = td_view_make(&p->rows, p->diff, &o->view, &err);
    if (n < 0)
        return cli_td_error(&err);
    p->nrows = (size_t)n;
    return 0;
}

int cli_pair_run(cli_pair *p)
{
    int rc = check_usage(&p->o);
    if (rc == 0)
        rc = load_pair(&p->o, &p->control, &p->test);
    return rc ? rc : diff_and_view(p);
}

void cli_pair_free(cli_pair *p)
{
    free(p->rows);
    td_stats_free(p->stats);
    td_diff_free(p->diff);
    td_set_free(p->control);
    td_set_free(p->test);
    cli_opts_free(&p->o);
}

int cli_open_sets(const cli_opts *o, td_set **sets, const char *const *paths, size_t n,
                  td_open_opts *oo)
{
    cli_progress pr;
    oo->ns = o->ns;
    oo->nsys_demangled = o->nsys_demangled;
    oo->pids = o->pids.v;
    oo->npids = o->pids.n;
    oo->threads = o->threads;
    oo->map_min_bytes = cli_map_min;
    oo->step_marker = o->step_marker;
    cli_progress_attach(&pr, oo, o->quiet);
    td_error err = {0};
    int rc = cli_sets_open(sets, paths, n, oo, &err);
    cli_progress_clear(&pr);
    return rc < 0 ? cli_td_error(&err) : cli_marker_check(o, sets, n);
}

int cli_open_pair(const cli_opts *o, td_set *sets[2], td_open_opts *oo)
{
    const char *const paths[2] = {o->control, o->test};
    return cli_open_sets(o, sets, paths, 2, oo);
}
