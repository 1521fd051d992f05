/*
 * The comparison (spec §4-§7): select events per side, group them by name or
 * short name, join the two sides, and categorise.
 */
#include "compare/compare.h"
#include "compare/row_builder.h"
#include "model/selection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct td_diff {
    td_strtab *names;
    td_row *rows;
    size_t nrows;
    td_side_notes notes[2];
    int64_t *sel_ranks[2], *sel_iters[2];
    int short_names;
    size_t noisy;      /* td_diff_noisy_names */
    double per[2];     /* td_diff_divisor; 0 means 1 (td_diff_from_rows) */
    size_t *row_of_id; /* names id -> index in rows */
    td_by by;
};

static bool td_in_list(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

typedef struct file_walk {
    builder *b;
    const td_file *f;
    int side;
    int64_t *map; /* file name id -> row id, -1 until seen */
} file_walk;

#define ROW_LEFT_OUT (-2) /* a name of a category left out (--cat) */

/* The row of a file's name id, made on first sight; ROW_LEFT_OUT, or < 0
 * (TD_ENOMEM) when out of memory. */
static int64_t row_of(file_walk *w, uint32_t name)
{
    int64_t r = w->map[name];
    if (r == ROW_LEFT_OUT)
        return r;
    if (r < 0) {
        size_t len;
        const char *s = td_strtab_get(w->f->names, name, &len);
        if ((r = td_builder_row(w->b, s, len, false)) < 0)
            return TD_ENOMEM;
        w->map[name] = r;
    }
    return r;
}

static int add_event(void *ud, const td_event *e, long iter_pos)
{
    (void)iter_pos;
    file_walk *w = ud;
    int64_t r = row_of(w, TD_EV_NAME(e));
    if (r == ROW_LEFT_OUT)
        return 0;
    if (r < 0)
        return TD_ENOMEM;
    w->b->acc[r].counts[w->side]++;
    td_acc_add_dur(&w->b->acc[r], w->side, e->dur);
    return 0;
}

/* A group of whole-number durations at once: while a row's sum is a whole
 * number below 2^53 its compensation stays 0, so adding the group's exact
 * total gives the bits that adding its events one by one gives. */
static int add_group(void *ud, const td_event_group *g, long iter_pos)
{
    (void)iter_pos;
    file_walk *w = ud;
    int64_t r = row_of(w, g->name & ~(TD_EV_GPU | TD_EV_STREAM0));
    if (r == ROW_LEFT_OUT)
        return 0;
    if (r < 0)
        return TD_ENOMEM;
    w->b->acc[r].counts[w->side] += g->count;
    td_acc_add_dur(&w->b->acc[r], w->side, g->total);
    return 0;
}

/* What HTA's rounding did to the events of a rounded file that the walk
 * took (their rows are in w->map): a second walk, by index, for td_file.rdelta. */
static int add_rounding(file_walk *w, td_side_notes *sn, const td_pick *pick)
{
    const td_file *f = w->f;
    long stack_pos[64];
    long *pos = td_pick_positions(f, pick, stack_pos);
    if (!pos)
        return TD_ENOMEM;
    uint64_t mask = td_cats_mask(f, pick->cats, pick->cats_exclude);
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        long ip;
        if (!td_pick_takes(pick, pos, e->name, e->iter, &ip) ||
            !td_event_cat_kept(f, mask, e->name, i))
            continue;
        int64_t r = w->map[TD_EV_NAME(e)];
        if (r >= 0)
            td_acc_rounding(&w->b->acc[r], w->side, f, i, e, sn);
    }
    if (pos != stack_pos)
        free(pos);
    return 0;
}

static int add_file(builder *b, td_side_notes *sn, int side, const td_file *f, const td_pick *pick,
                    const td_compare_opts *o, td_error *err)
{
    size_t nn = td_strtab_count(f->names);
    file_walk w = {b, f, side, malloc((nn + 1) * sizeof *w.map)};
    int rc = TD_ENOMEM;
    uint64_t mask = td_cat_mask(f, o);
    if (w.map) {
        for (size_t i = 0; i < nn; i++) {
            bool mixed = false;
            w.map[i] = td_name_kept(f, mask, (uint32_t)i, &mixed) ? -1 : -2;
        }
        rc = f->groups ? td_pick_walk_groups(f, pick, add_group, &w)
                       : td_pick_walk(f, pick, add_event, &w);
    }
    if (rc == 0 && f->rounded && !f->groups)
        rc = add_rounding(&w, sn, pick);
    free(w.map);
    if (rc < 0)
        return td_events_fail(err, rc, f);
    return 0;
}

static int cmp_row(const void *a, const void *b)
{
    const td_row *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

/* --cat: whether some counted event of either set has category word. */
static bool known_category(const td_set *const sets[2], const char *w, size_t len)
{
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < sets[side]->nfiles; i++) {
            const td_file *f = sets[side]->files[i];
            for (size_t c = 0; c < td_strtab_count(f->cats) && c < f->ncat_counts; c++) {
                size_t n;
                const char *s = td_strtab_get(f->cats, (uint32_t)c, &n);
                if (f->cat_counts[c] && n == len && memcmp(s, w, len) == 0)
                    return true;
            }
        }
    return false;
}

typedef struct cat_text {
    char buf[1024];
    size_t len;
    int n;
} cat_text;

static void cat_append(cat_text *t, const char *s, size_t len)
{
    int k = snprintf(t->buf + t->len, sizeof t->buf - t->len, "%s%.*s", t->n++ ? ", " : "",
                     (int)len, s);
    if (k > 0)
        t->len = t->len + (size_t)k < sizeof t->buf ? t->len + (size_t)k : sizeof t->buf - 1;
}

/* The categories of both sets, each once, in name order (as info lists them). */
static void cat_known(void *ud, const char *cat, uint64_t n)
{
    cat_text *t = ud;
    size_t len = strlen(cat);
    if (!n)
        return;
    /* Both sets' lists come sorted: skip what the first one gave. */
    for (const char *p = t->buf; (p = strstr(p, cat)) != NULL; p += len)
        if ((p == t->buf || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
            return;
    cat_append(t, cat, len);
}

/* A --cat word that no event of either side has is a typo, not an empty
 * selection: say so, with the categories there are. */
static int check_categories(const td_set *const sets[2], const td_compare_opts *o, td_error *err)
{
    if (!o->categories || o->exclude_categories)
        return 0;
    cat_text bad = {{0}, 0, 0}, known = {{0}, 0, 0};
    for (const char *w = o->categories; *w;) {
        size_t k = strcspn(w, ",");
        if (k && !known_category(sets, w, k))
            cat_append(&bad, w, k);
        w += k + (w[k] == ',');
    }
    if (!bad.n)
        return 0;
    td_set_categories(sets[0], cat_known, &known);
    td_set_categories(sets[1], cat_known, &known);
    return td_fail(err, TD_EUSAGE, "",
                   "--cat: no event of either side has the categor%s %s "
                   "(they have: %s)",
                   bad.n == 1 ? "y" : "ies", bad.buf, known.n ? known.buf : "none");
}

static int resolve_side(td_diff *d, int side, const td_set *s, const td_list *ranks,
                        const td_list *iters, const char *label, td_error *err)
{
    td_side_notes *sn = &d->notes[side];
    int rc = td_resolve(&d->sel_ranks[side], &sn->nranks, ranks, s->ranks, s->nranks, "rank", label,
                        err);
    if (rc < 0)
        return rc;
    sn->ranks = d->sel_ranks[side];
    if (s->niters == 0) {
        /* Spec §9: no ProfilerStep anywhere: compare the whole traces. */
        if (iters->steady)
            return td_fail(err, TD_EUSAGE, "", "steady: %s has no ProfilerStep", label);
        if (iters->n > 0) {
            return td_fail(err, TD_EUSAGE, "",
                           "no such iteration %lld: %s has no ProfilerStep (leave the "
                           "iteration out to compare whole traces)",
                           (long long)iters->v[0], label);
        }
        sn->whole_trace = 1;
        return 0;
    }
    rc = td_resolve(&d->sel_iters[side], &sn->niters, iters, s->iters, s->niters, "iteration",
                    label, err);
    sn->iters = d->sel_iters[side];
    return rc;
}

/* The selected files of one side into the builder, with the side's notes. */
static int add_side(builder *b, td_diff *d, int side, const td_set *s, const td_compare_opts *opts,
                    bool attr, td_error *err)
{
    td_side_notes *sn = &d->notes[side];
    td_device device = attr && !td_cpu_stacks(opts) ? TD_DEVICE_GPU : opts->device;
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        if (!td_in_list(sn->ranks, sn->nranks, f->rank))
            continue;
        /* Device events are all on the gpu side: a cpu-only comparison
         * would not have selected them anyway. */
        if (!sn->whole_trace && device != TD_DEVICE_CPU) {
            sn->no_launch += f->events_no_launch;
            if (opts->hta_strict) { /* every stream-0 event is dropped: say it once */
                sn->no_launch -= f->events_no_launch0;
                sn->strict_dropped += f->events_stream0;
            }
        }
        td_pick pick = td_pick_of(sn, opts);
        if (opts->categories && (!f->name_cats || !f->cats_by_side))
            return td_fail(err, TD_ETRACE, f->origin ? f->origin : f->path,
                           "this summary does not keep each event's category%s: --cat and "
                           "--no-python need the trace files",
                           f->name_cats ? " (some name has events of two categories)" : "");
        int rc = attr ? td_add_file_attr(b, side, f, sn, opts, err)
                      : add_file(b, sn, side, f, &pick, opts, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The rows of the diff, sorted by name, from the builder's sums; the names
 * move to the diff. */
static int make_rows(td_diff *d, builder *b)
{
    size_t n = td_strtab_count(b->names);
    d->rows = calloc(n + 1, sizeof *d->rows);
    if (!d->rows)
        return -1;
    for (size_t i = 0; i < n; i++) {
        td_row *r = &d->rows[i];
        const acc *a = &b->acc[i];
        r->name = td_strtab_get(b->names, (uint32_t)i, &r->name_len);
        for (int side = 0; side < 2; side++) {
            r->counts[side] = a->counts[side];
            r->duration[side] = (a->sum[side] + a->comp[side]) / d->per[side];
            d->notes[side].events += a->counts[side];
            /* Spec §2's rounding moved this total by more than 5% of the
             * traces' own (or made it from nothing). */
            double own = a->sum[side] + a->comp[side] - a->rdelta[side];
            if (a->rdelta[side] != 0 && fabs(a->rdelta[side]) > 0.05 * fabs(own))
                d->notes[side].round_moved_rows++;
        }
        r->diff_counts = (int64_t)(r->counts[1] - r->counts[0]);
        r->diff_duration = r->duration[1] - r->duration[0];
        double dc = td_row_diff_count(d, r);
        r->category = dc > 0 ? '+' : dc < 0 ? '-' : '=';
    }
    qsort(d->rows, n, sizeof *d->rows, cmp_row);
    d->nrows = n;
    d->names = b->names;
    b->names = NULL;
    if (!(d->row_of_id = malloc((n + 1) * sizeof *d->row_of_id)))
        return -1;
    for (size_t i = 0; i < n; i++)
        d->row_of_id[td_strtab_find(d->names, d->rows[i].name, d->rows[i].name_len)] = i;
    return 0;
}

/* How many rows share their address- and line-folded name with another row. */
static int count_noisy(td_diff *d)
{
    td_strtab *keys = td_strtab_new();
    int64_t *key_of = malloc((d->nrows + 1) * sizeof *key_of);
    size_t *seen = calloc(d->nrows + 1, sizeof *seen);
    int rc = keys && key_of && seen ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < d->nrows; i++) {
        char *k;
        size_t kl;
        if (td_normalize_name(&k, &kl, d->rows[i].name, d->rows[i].name_len,
                              TD_NORM_ADDRESSES | TD_NORM_LINES) < 0 ||
            (key_of[i] = td_strtab_intern(keys, k, kl)) < 0)
            rc = -1;
        else
            seen[key_of[i]]++;
        free(k);
    }
    for (size_t i = 0; rc == 0 && i < d->nrows; i++)
        d->noisy += seen[key_of[i]] > 1;
    if (keys)
        td_strtab_free(keys);
    free(key_of);
    free(seen);
    return rc;
}

/* Whether a side has no nn.Module frame in any file (each such side's
 * notes say so): the rows by module fall back to top op. */
static bool module_fallback(td_diff *d, const td_set *const *sets)
{
    bool any = false;
    for (int side = 0; side < 2; side++) {
        bool has = false;
        for (size_t i = 0; i < sets[side]->nfiles && !has; i++)
            has = td_stk_has_modules(sets[side]->files[i]);
        d->notes[side].no_modules = !has;
        any |= !has;
    }
    return any;
}

int td_diff_compute(td_diff **out, const td_set *control, const td_set *test,
                    const td_compare_opts *opts, td_error *err)
{
    *out = NULL;
    td_compare_opts oc;
    int rc = TD_OPTS_TAKE(&oc, opts, td_compare_opts, TD_COMPARE_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    opts = &oc;
    td_diff *d = calloc(1, sizeof *d);
    builder b = {0};
    rc = TD_ENOMEM;
    if (!d || !(b.names = td_strtab_new()))
        goto fail_nomem;
    d->short_names = b.short_names = opts->short_names;
    d->by = opts->by;
    bool attr = opts->by != TD_BY_KERNEL || opts->only;
    if (attr && (rc = td_attr_check(&b, control, test, opts, err)) < 0)
        goto fail;
    b.normalize = opts->normalize_names;
    b.renames = opts->renames;
    const td_set *sets[2] = {control, test};
    if ((rc = resolve_side(d, 0, control, &opts->control_ranks, &opts->control_iters, "control",
                           err)) < 0 ||
        (rc = resolve_side(d, 1, test, &opts->test_ranks, &opts->test_iters, "test", err)) < 0)
        goto fail;
    if ((rc = check_categories(sets, opts, err)) < 0)
        goto fail;
    for (int side = 0; side < 2; side++)
        d->notes[side].cpu_stacks = td_cpu_stacks(opts);
    /* With --device cpu there is no top op to fall back to: the rows stay
     * by module, the time under none in TD_UNATTRIBUTED. */
    if (opts->by == TD_BY_MODULE && module_fallback(d, sets) && !td_cpu_stacks(opts))
        d->by = oc.by = TD_BY_TOP_OP; /* docs/stacks.md: with a note per side lacking them */
    for (int side = 0; side < 2; side++) {
        const td_side_notes *sn = &d->notes[side];
        if ((rc = td_set_check_selection(side ? test : control, sn->ranks, sn->nranks, sn->iters,
                                         sn->niters, opts->device, err)) < 0)
            goto fail;
    }
    for (int side = 0; side < 2; side++) {
        const td_side_notes *sn = &d->notes[side];
        d->per[side] = opts->per_iteration && sn->nranks
                           ? (double)(sn->nranks * (sn->whole_trace ? 1 : sn->niters))
                           : 1;
        if ((rc = add_side(&b, d, side, sets[side], opts, attr, err)) < 0)
            goto fail;
    }
    if (make_rows(d, &b) < 0 || (!b.normalize && count_noisy(d) < 0))
        goto fail_nomem;
    free(b.acc);
    td_classes_free(b.own_classes);
    *out = d;
    return 0;
fail_nomem:
    rc = td_fail(err, TD_ENOMEM, "", "out of memory");
fail:
    td_strtab_free(b.names);
    free(b.acc);
    td_classes_free(b.own_classes);
    td_diff_free(d);
    return rc;
}

void td_diff_free(td_diff *d)
{
    if (!d)
        return;
    if (d->names)
        td_strtab_free(d->names);
    free(d->rows);
    free(d->row_of_id);
    for (int s = 0; s < 2; s++) {
        free(d->sel_ranks[s]);
        free(d->sel_iters[s]);
    }
    free(d);
}

long td_diff_find_row(const td_diff *d, const char *s, size_t len)
{
    int64_t id = td_strtab_find(d->names, s, len);
    return id < 0 ? -1 : (long)d->row_of_id[id];
}

size_t td_diff_nrows(const td_diff *d)
{
    return d->nrows;
}

const td_row *td_diff_rows(const td_diff *d)
{
    return d->rows;
}

const td_side_notes *td_diff_notes(const td_diff *d, td_side side)
{
    return &d->notes[side ? 1 : 0];
}

size_t td_diff_rounding_note(const td_diff *d, char *buf, size_t cap)
{
    uint64_t neg = d->notes[0].round_negative + d->notes[1].round_negative;
    uint64_t moved = d->notes[0].round_moved_rows + d->notes[1].round_moved_rows;
    char a[96] = "", b[96] = "";
    if (cap)
        buf[0] = '\0';
    if (!neg && !moved)
        return 0;
    if (neg)
        snprintf(a, sizeof a, "made %llu event duration%s negative", (unsigned long long)neg,
                 neg == 1 ? "" : "s");
    if (moved)
        snprintf(b, sizeof b, "%smoved %llu row total%s by more than 5%%", neg ? " and " : "",
                 (unsigned long long)moved, moved == 1 ? "" : "s");
    int n = snprintf(buf, cap,
                     "HTA's rounding of decimal timestamps to whole us %s%s; --ns keeps the "
                     "traces' own durations",
                     a, b);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

bool td_diff_short_names(const td_diff *d)
{
    return d->short_names;
}

td_by td_diff_by_of(const td_diff *d)
{
    return d->by;
}

const char *td_diff_key_name(const td_diff *d)
{
    static const char *const keys[] = {"name",  "op",     "top_op", "annotation",
                                       "class", "module", "stack"};
    if (d->by == TD_BY_KERNEL || d->by > TD_BY_STACK)
        return d->short_names ? "short_name" : "name";
    return keys[d->by];
}

size_t td_diff_noisy_names(const td_diff *d)
{
    return d->noisy;
}

double td_diff_divisor(const td_diff *d, td_side side)
{
    double p = d->per[side ? 1 : 0];
    return p > 0 ? p : 1;
}

double td_row_count(const td_diff *d, const td_row *r, td_side side)
{
    side = side ? 1 : 0;
    return (double)r->counts[side] / td_diff_divisor(d, side);
}

double td_row_diff_count(const td_diff *d, const td_row *r)
{
    if (td_diff_divisor(d, 0) == 1 && td_diff_divisor(d, 1) == 1)
        return (double)r->diff_counts;
    return td_row_count(d, r, 1) - td_row_count(d, r, 0);
}

td_op_category td_row_op_category(const td_row *r)
{
    uint64_t c = r->counts[0], t = r->counts[1];
    if (c == 0 && t > 0)
        return TD_OP_ADDED;
    if (c > 0 && t == 0)
        return TD_OP_DELETED;
    /* category follows the counts as divided (--per-iteration), and is the
     * sign of diff_counts otherwise. */
    if (c > 0 && r->category == '+')
        return TD_OP_INCREASED;
    if (t > 0 && r->category == '-')
        return TD_OP_DECREASED;
    if (t > 0 && r->category == '=')
        return TD_OP_UNCHANGED;
    return TD_OP_NONE;
}

const char *td_op_category_name(td_op_category c)
{
    static const char *const names[] = {"added", "deleted", "increased", "decreased", "unchanged"};
    return c >= 0 && c < TD_OP_NCATEGORIES ? names[c] : "none";
}

int td_diff_from_rows(td_diff **out, const td_row *rows, size_t n, bool short_names, td_error *err)
{
    *out = NULL;
    td_diff *d = calloc(1, sizeof *d);
    if (!d || !(d->names = td_strtab_new()) || !(d->rows = calloc(n + 1, sizeof *d->rows)))
        goto nomem;
    for (size_t i = 0; i < n; i++) {
        int64_t id = td_strtab_intern(d->names, rows[i].name, rows[i].name_len);
        if (id < 0)
            goto nomem;
        td_row *r = &d->rows[i];
        *r = rows[i];
        r->name = NULL;
        r->name_len = (size_t)id; /* the id until every name is in: the table may move */
    }
    for (size_t i = 0; i < n; i++) {
        td_row *r = &d->rows[i];
        r->name = td_strtab_get(d->names, (uint32_t)r->name_len, &r->name_len);
        r->diff_counts = (int64_t)(r->counts[1] - r->counts[0]);
        r->diff_duration = r->duration[1] - r->duration[0];
        r->category = r->diff_counts > 0 ? '+' : r->diff_counts < 0 ? '-' : '=';
    }
    d->nrows = n;
    d->short_names = short_names;
    *out = d;
    return 0;
nomem:
    td_diff_free(d);
    return td_fail(err, TD_ENOMEM, "", "out of memory");
}
