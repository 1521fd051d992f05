/*
 * Rows by op, top op, annotation or kernel class (docs/attribution.md): the
 * gpu-side events of the selection, keyed through the file's attribution
 * arrays. An event with no key goes to the row TD_UNATTRIBUTED, so the rows
 * add up to the gpu total of the same selection. With opts->only (explain),
 * only the gpu events of one op are kept, keyed by kernel name, and the
 * host events of that name give the op's own CPU time.
 */
#include "model/model.h"
#include "compare/row_builder.h"
#include "model/selection.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int td_attr_check(builder *b, const td_set *control, const td_set *test,
                  const td_compare_opts *opts, td_error *err)
{
    const td_set *sets[2] = {control, test};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sets[s]->nfiles; i++)
            if (!sets[s]->files[i]->has_attr)
                return td_fail(err, TD_EUSAGE, sets[s]->files[i]->path,
                               "loaded without its GPU time's ops, which rows by op, top-op, "
                               "annotation or module and explain need");
    bool stk = opts->by == TD_BY_STACK || opts->by == TD_BY_MODULE ||
               (opts->only && opts->only_by == TD_BY_MODULE);
    for (int s = 0; stk && s < 2; s++)
        for (size_t i = 0; i < sets[s]->nfiles; i++) {
            const td_file *f = sets[s]->files[i];
            /* a summary written before summaries kept the CPU stacks (schema 4) */
            if (f->stk_of && opts->device == TD_DEVICE_CPU && !f->stk_cpu)
                return td_fail(err, TD_EUSAGE, f->origin ? f->origin : f->path,
                               "no CPU stacks: this summary was written before summaries kept "
                               "them: re-summarize its traces (tracediff summarize) for rows by "
                               "%s with --device cpu",
                               opts->by == TD_BY_STACK ? "stack" : "module");
            if (f->stk_of)
                continue;
            if (f->stk_lost == TD_BD_LOST_OLD)
                return td_fail(err, TD_EUSAGE, f->origin ? f->origin : f->path,
                               "no stacks: this summary was written before summaries kept "
                               "them: re-summarize its traces (tracediff summarize) for rows "
                               "by %s",
                               opts->by == TD_BY_STACK ? "stack" : "module");
            if (f->format)
                return td_fail(err, TD_EUSAGE, f->path,
                               "no stacks: rows by %s need the Python stacks of a PyTorch "
                               "profiler trace, and this file (%s) has none",
                               opts->by == TD_BY_STACK ? "stack" : "module", f->format);
            return td_fail(err, TD_EUSAGE, f->origin ? f->origin : f->path,
                           "no stacks: rows by %s need the file loaded with its stacks",
                           opts->by == TD_BY_STACK ? "stack" : "module");
        }
    if (opts->only && opts->only_by != TD_BY_OP && opts->only_by != TD_BY_TOP_OP &&
        opts->only_by != TD_BY_ANNOTATION && opts->only_by != TD_BY_MODULE)
        return td_fail(err, TD_EUSAGE, "", "explain works by op, top-op, annotation or module");
    if (opts->only && opts->only_inclusive && opts->only_by != TD_BY_OP)
        return td_fail(err, TD_EUSAGE, "", "inclusive explains an op (by op), not %s",
                       opts->only_by == TD_BY_TOP_OP   ? "a top op"
                       : opts->only_by == TD_BY_MODULE ? "a module"
                                                       : "an annotation");
    for (int s = 0; opts->only && opts->only_inclusive && s < 2; s++)
        for (size_t i = 0; i < sets[s]->nfiles; i++)
            if (!sets[s]->files[i]->attr_call)
                return td_fail(err, TD_EUSAGE, sets[s]->files[i]->path,
                               "inclusive needs the op calls, which a summary does not keep: "
                               "give the trace files");
    b->classes = opts->classes;
    if (opts->by == TD_BY_CLASS && !b->classes) {
        int rc = td_classes_default(&b->own_classes, err);
        if (rc < 0)
            return rc;
        b->classes = b->own_classes;
    }
    return 0;
}

/* The attribution of gpu event k by how (TD_BY_OP, _TOP_OP, _ANNOTATION):
 * a names id, or TD_ATTR_NONE / a reason. */
static uint32_t attr_of(const td_file *f, size_t k, td_by how)
{
    if (k >= f->nattr)
        return TD_ATTR_NONE;
    return how == TD_BY_OP ? f->attr_op[k] : how == TD_BY_TOP_OP ? f->attr_top[k] : f->attr_ann[k];
}

typedef struct file_ctx {
    builder *b;
    const td_file *f;
    const td_compare_opts *o;
    int64_t *row;     /* names id -> row (by kernel, op... or class of it) */
    int8_t *only_hit; /* names id -> is opts->only: -1 not yet known */
    int64_t unattr;   /* the TD_UNATTRIBUTED row, or -1 */
    td_stk_rows *stk; /* by stack or module */
} file_ctx;

static bool only_match(file_ctx *c, uint32_t id)
{
    if (c->only_hit[id] < 0) {
        size_t len;
        const char *s = td_strtab_get(c->f->names, id, &len);
        char *sh = NULL;
        size_t sl = len;
        if (c->b->short_names && td_short_name(&sh, &sl, s, len) == 0)
            s = sh;
        c->only_hit[id] = sl == strlen(c->o->only) && memcmp(s, c->o->only, sl) == 0;
        free(sh);
    }
    return c->only_hit[id] == 1;
}

/* The row of a gpu event with names id name and attribution key (a names
 * id, TD_ATTR_NONE or a reason); -1 when out of memory. */
static int64_t row_of(file_ctx *c, uint32_t name, uint32_t key, bool *unattr)
{
    td_by by = c->o->only ? TD_BY_KERNEL : c->o->by;
    uint32_t id = by == TD_BY_KERNEL || by == TD_BY_CLASS ? name : key;
    *unattr = id >= TD_ATTR_REASON_BASE;
    if (*unattr) {
        if (c->unattr < 0)
            c->unattr = td_builder_row(c->b, TD_UNATTRIBUTED, strlen(TD_UNATTRIBUTED), true);
        return c->unattr;
    }
    if (c->row[id] >= 0)
        return c->row[id];
    size_t len;
    const char *s = td_strtab_get(c->f->names, id, &len);
    if (by == TD_BY_CLASS) {
        const char *cls = td_classes_match(c->b->classes, s, len);
        c->row[id] = td_builder_row(c->b, cls, strlen(cls), true);
    } else {
        c->row[id] = td_builder_row(c->b, s, len, false);
    }
    return c->row[id];
}

static int64_t no_row(void *ud, const char *s, size_t len)
{
    (void)ud;
    (void)s;
    (void)len;
    return -1;
}

/* Whether gpu event k was launched inside a call of opts->only, at any
 * depth (explain --inclusive). */
static bool inside_only(file_ctx *c, size_t k)
{
    const td_file *f = c->f;
    if (k >= f->nattr || !f->attr_call)
        return false;
    size_t depth = 0; /* a forest, but bounded all the same */
    for (uint32_t call = f->attr_call[k];
         call != TD_ATTR_NONE && call < f->nops && depth++ < f->nops; call = f->op_parent[call])
        if (only_match(c, f->op_name[call]))
            return true;
    return false;
}

/* One gpu event into row r of a side. */
static void add_to_row(file_ctx *c, int side, int64_t r, const td_event *e, size_t i,
                       td_side_notes *sn)
{
    acc *a = &c->b->acc[r];
    a->counts[side]++;
    td_acc_add_dur(a, side, e->dur);
    td_acc_rounding(a, side, c->f, i, e, sn);
}

/* A selected gpu event by stack or module: its rows (none: unattributed). */
static int add_stack_event(file_ctx *c, int side, const td_event *e, size_t i, size_t k,
                           td_side_notes *sn)
{
    const int64_t *rows;
    bool cut, unattr;
    long nr = td_stk_rows_of(c->stk, TD_EV_NAME(e), k, &rows, &cut);
    if (nr < 0)
        return TD_ENOMEM;
    sn->stack_cut += cut;
    if (nr == 0) {
        int64_t un = row_of(c, 0, TD_ATTR_REASON(0), &unattr);
        if (un < 0)
            return TD_ENOMEM;
        if (!isnan(e->dur) && !sn->cpu_stacks) { /* the note is of gpu events */
            sn->unattributed++;
            sn->unattributed_time += e->dur;
        }
        add_to_row(c, side, un, e, i, sn);
        return 0;
    }
    for (long j = 0; j < nr; j++)
        add_to_row(c, side, rows[j], e, i, sn);
    return 0;
}

/* Event i of the file; k counts the events of its side (gpu or cpu)
 * before it. */
static int add_event(file_ctx *c, int side, const td_event *e, size_t i, size_t k,
                     td_side_notes *sn)
{
    const td_compare_opts *o = c->o;
    uint32_t name = TD_EV_NAME(e);
    if (td_cpu_stacks(o)) /* --device cpu by stack or module: the cpu-side events */
        return (e->name & TD_EV_GPU) ? 0 : add_stack_event(c, side, e, i, k, sn);
    if (!(e->name & TD_EV_GPU)) {
        if (o->only && o->only_by != TD_BY_MODULE && only_match(c, name) && !isnan(e->dur)) {
            sn->only_cpu_count++;
            sn->only_cpu_time += e->dur;
        }
        return 0;
    }
    if (o->only && o->only_by == TD_BY_MODULE) {
        int in = td_stk_in_module(c->stk, k, o->only, strlen(o->only));
        if (in <= 0)
            return in;
    } else if (o->only && o->only_inclusive) {
        if (!inside_only(c, k))
            return 0;
    } else if (o->only) {
        uint32_t a = attr_of(c->f, k, o->only_by);
        if (a >= TD_ATTR_REASON_BASE || !only_match(c, a))
            return 0;
    }
    if (o->by == TD_BY_STACK || o->by == TD_BY_MODULE)
        return add_stack_event(c, side, e, i, k, sn);
    bool unattr;
    uint32_t key = o->by == TD_BY_KERNEL || o->by == TD_BY_CLASS ? 0 : attr_of(c->f, k, o->by);
    int64_t r = row_of(c, name, key, &unattr);
    if (r < 0)
        return TD_ENOMEM;
    if (unattr && !isnan(e->dur)) {
        sn->unattributed++;
        sn->unattributed_time += e->dur;
    }
    if (o->only && !isnan(e->dur))
        sn->only_gpu_time += e->dur;
    c->b->acc[r].counts[side]++;
    td_acc_add_dur(&c->b->acc[r], side, e->dur);
    td_acc_rounding(&c->b->acc[r], side, c->f, i, e, sn);
    return 0;
}

int td_add_file_attr(builder *b, int side, const td_file *f, td_side_notes *sn,
                     const td_compare_opts *opts, td_error *err)
{
    int rc = TD_ENOMEM;
    int erc = td_file_events(f); /* a summary's events, decoded when first needed */
    if (erc < 0)
        return td_events_fail(err, erc, f);
    size_t nn = td_strtab_count(f->names);
    file_ctx c = {b, f, opts, malloc((nn + 1) * sizeof *c.row), malloc(nn + 1), -1, NULL};
    /* The side's iterations and the stream-0 rule, as every walk picks
     * them; both devices, for the cpu ops' notes. The walk is written out
     * (not td_pick_walk) because attribution is indexed by the gpu-side
     * events before each one, selected or not. */
    td_pick pick = td_pick_of(sn, opts);
    pick.device = TD_DEVICE_ALL;
    long stack_pos[64];
    long *pos = td_pick_positions(f, &pick, stack_pos);
    if (!c.row || !c.only_hit || !pos)
        goto done;
    if ((opts->by == TD_BY_STACK || opts->by == TD_BY_MODULE) && !opts->only &&
        td_stk_rows_new(&c.stk, b, NULL, NULL, f, opts) < 0)
        goto done;
    /* explain --by module: the module paths only, no rows made from them */
    if (opts->only && opts->only_by == TD_BY_MODULE &&
        td_stk_rows_new(&c.stk, NULL, no_row, NULL, f, opts) < 0)
        goto done;
    for (size_t i = 0; i < nn; i++) {
        c.row[i] = -1;
        c.only_hit[i] = -1;
    }
    size_t k = 0, ck = 0;
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        size_t gk = (e->name & TD_EV_GPU) ? k++ : ck++;
        long ip;
        if (!td_pick_takes(&pick, pos, e->name, e->iter, &ip))
            continue;
        if ((rc = add_event(&c, side, e, i, gk, sn)) < 0)
            goto done;
    }
    rc = 0;
done:
    td_stk_rows_free(c.stk);
    free(c.row);
    free(c.only_hit);
    if (pos && pos != stack_pos)
        free(pos);
    if (rc < 0)
        return td_fail(err, rc, f->path, "out of memory");
    return 0;
}
