/*
 * Fuzz target: one packed trace file, the bytes a summary keeps in
 * files.packed (docs/summaries.md, "The packed file"; src/store/file_pack.c),
 * and everything downstream of it. A summary is input like any other: it
 * may come from anywhere, and these bytes are read without SQLite's help.
 *
 * The input is the packed bytes as they are. Properties:
 * - unpacking gives a file or an error with a message, never a crash, and
 *   not "out of memory" on a small input;
 * - a file that unpacks holds only what the model promises: every event's
 *   name id below the file's names, its iteration an index of the file's
 *   iterations (or none), the iterations sorted and distinct, one
 *   attribution entry per gpu event and each a names id, a reason or none;
 *   damaged durations are TD_ETRACE with a message naming the summary;
 * - its stacks (schema 4 on): every parent before its node, every frame
 *   a names id or the cut frame, one node per gpu event, each a node or
 *   none, and (schema 5 on) one per cpu event, each a node or none; its
 *   roofline section, decoded when first asked for, gives a damaged
 *   summary's error or events: names, iterations, calls and ops of the
 *   file, finite times; its op calls: names, parents and shapes of the file;
 *   its breakdown section, decoded when first asked for, a damaged
 *   summary's error or events with iterations of the file and times;
 * - the one-file set compared with itself, by kernel, op, top op,
 *   annotation, class, module and stack, its roofline, and its attribution
 *   statistics, run without error and with equal counts on both sides;
 * - the file packs again, and that unpacks to as many events.
 */
#include "fuzz_util.h"
#include "model/model.h"
#include "store/store.h"

#include <math.h>

static void check_file(const td_file *f)
{
    size_t nnames = td_strtab_count(f->names);
    for (size_t i = 1; i < f->niters; i++)
        FUZZ_CHECK(f->iters[i - 1] < f->iters[i], "iterations %zu and %zu not ascending", i - 1, i);
    size_t ngpu = 0;
    for (size_t k = 0; k < f->nev; k++) {
        const td_event *e = &f->evb[k >> TD_BLOCK_SHIFT][k & (TD_BLOCK - 1)];
        FUZZ_CHECK(TD_EV_NAME(e) < nnames, "event %zu: name id %u of %zu names", k,
                   (unsigned)TD_EV_NAME(e), nnames);
        FUZZ_CHECK(e->iter == TD_ITER_NONE || (e->iter >= 0 && (size_t)e->iter < f->niters),
                   "event %zu: iteration index %d of %zu", k, (int)e->iter, f->niters);
        ngpu += (e->name & TD_EV_GPU) != 0;
    }
    for (size_t i = 0; i < f->nstk; i++) {
        FUZZ_CHECK(f->stk_parent[i] == TD_ATTR_NONE || f->stk_parent[i] < i,
                   "stack node %zu: parent %u", i, (unsigned)f->stk_parent[i]);
        FUZZ_CHECK(f->stk_name[i] == TD_STK_CUT || f->stk_name[i] < nnames,
                   "stack node %zu: name %u of %zu", i, (unsigned)f->stk_name[i], nnames);
    }
    for (size_t k = 0; f->stk_cpu && k < f->nstk_cpu; k++)
        FUZZ_CHECK(f->stk_cpu[k] == TD_ATTR_NONE || f->stk_cpu[k] < f->nstk,
                   "cpu event %zu: stack node %u of %zu", k, (unsigned)f->stk_cpu[k], f->nstk);
    /* the roofline's section is decoded when first asked for */
    int rrc = td_file_roof(f);
    FUZZ_CHECK(rrc == 0 || rrc == TD_ETRACE, "the roofline's section: rc %d", rrc);
    size_t nshapes = f->shapes ? td_strtab_count(f->shapes) : 0;
    for (size_t c = 0; f->roof_list && c < f->nops; c++) {
        FUZZ_CHECK(f->op_name[c] < nnames, "op call %zu: name %u", c, (unsigned)f->op_name[c]);
        FUZZ_CHECK(f->op_parent[c] == TD_ATTR_NONE || f->op_parent[c] < f->nops,
                   "op call %zu: parent %u of %zu", c, (unsigned)f->op_parent[c], f->nops);
        FUZZ_CHECK(!f->op_shape || f->op_shape[c] == TD_ATTR_NONE || f->op_shape[c] < nshapes,
                   "op call %zu: shape %u of %zu", c, (unsigned)f->op_shape[c], nshapes);
    }
    for (size_t k = 0; k < f->nroof_list; k++) {
        const td_roof_ev *x = &f->roof_list[k];
        FUZZ_CHECK(TD_EV_NAME(x) < nnames && (x->name & TD_EV_GPU), "roofline event %zu: name", k);
        FUZZ_CHECK(x->iter == TD_ITER_NONE || (x->iter >= 0 && (size_t)x->iter < f->niters),
                   "roofline event %zu: iteration %d", k, (int)x->iter);
        FUZZ_CHECK(x->call == TD_ATTR_NONE || x->call < f->nops, "roofline event %zu: call %u", k,
                   (unsigned)x->call);
        FUZZ_CHECK(isfinite(x->ts) && isfinite(x->end), "roofline event %zu: times", k);
    }
    /* the breakdown's section, decoded when first asked for, too */
    int brc = td_file_bd(f);
    FUZZ_CHECK(brc == 0 || brc == TD_ETRACE, "the breakdown's section: rc %d", brc);
    FUZZ_CHECK(brc == 0 || !f->bd, "a breakdown kept after it did not decode");
    for (size_t k = 0; f->bd && k < f->bd->nev; k++) {
        const td_bd_ev *x = &f->bd->ev[k];
        FUZZ_CHECK(x->iter == TD_ITER_NONE || (x->iter >= 0 && (size_t)x->iter < f->niters),
                   "breakdown event %zu: iteration %d", k, (int)x->iter);
        FUZZ_CHECK(!isnan(x->ts) && !isnan(x->end), "breakdown event %zu: times", k);
    }
    if (!f->has_attr)
        return;
    FUZZ_CHECK(f->nattr == ngpu, "%zu attribution entries for %zu gpu events", f->nattr, ngpu);
    FUZZ_CHECK(!f->stk_of || f->nstk == 0 || f->stk_parent, "stack nodes without a tree");
    for (size_t k = 0; f->stk_of && k < f->nattr; k++)
        FUZZ_CHECK(f->stk_of[k] == TD_ATTR_NONE || f->stk_of[k] < f->nstk,
                   "gpu event %zu: stack node %u of %zu", k, (unsigned)f->stk_of[k], f->nstk);
    for (size_t k = 0; k < f->nattr; k++) {
        uint32_t v[3] = {f->attr_op[k], f->attr_top[k], f->attr_ann[k]};
        for (int j = 0; j < 3; j++)
            FUZZ_CHECK(v[j] < nnames || v[j] == TD_ATTR_NONE ||
                           (TD_ATTR_IS_REASON(v[j]) && (v[j] & 0xFF) < (uint32_t)TD_ATTR_NREASONS),
                       "gpu event %zu: attribution %u of %zu names", k, (unsigned)v[j], nnames);
    }
}

static void compare_self(const td_set *s, td_by by, uint64_t bits)
{
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.by = by;
    co.device = (td_device)(bits % 3);
    co.hta_strict = (bits >> 2) & 1;
    co.short_names = (bits >> 3) & 1;
    co.normalize_names = (bits >> 4) & 1;
    if ((bits >> 5) & 1)
        co.control_iters.all = co.test_iters.all = true;
    if ((bits >> 6) & 1)
        co.control_ranks.all = co.test_ranks.all = true;
    td_diff *d = NULL;
    td_error err = {0};
    if (td_diff_compute(&d, s, s, &co, &err) < 0) {
        FUZZ_CHECK(err.msg[0], "td_diff_compute failed without a message");
        FUZZ_CHECK(err.code != TD_ENOMEM, "out of memory on a small input: %s", err.msg);
        return;
    }
    const td_row *rows = td_diff_rows(d);
    for (size_t i = 0; i < td_diff_nrows(d); i++)
        FUZZ_CHECK(rows[i].counts[0] == rows[i].counts[1], "a set differs from itself in counts");
    td_diff_free(d);
}

/* The roofline of the set against itself: rows or an error with a message
 * (a file without the roofline's inputs), equal counts on both sides. */
static void roofline_self(const td_set *s, uint64_t bits)
{
    td_roofline_opts ro = TD_ROOFLINE_OPTS_INIT;
    ro.stats = bits & 1;
    if ((bits >> 1) & 1)
        ro.control_iters.all = ro.test_iters.all = true;
    td_roofline *r = NULL;
    td_error err = {0};
    if (td_roofline_compute(&r, s, s, &ro, &err) < 0) {
        FUZZ_CHECK(err.msg[0], "td_roofline_compute failed without a message");
        FUZZ_CHECK(err.code != TD_ENOMEM, "out of memory on a small input: %s", err.msg);
        return;
    }
    size_t n;
    const td_rl_row *rows = td_roofline_rows(r, &n);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(rows[i].side[0].count == rows[i].side[1].count,
                   "a set differs from itself in calls");
    td_roofline_free(r);
}

/* The file packed again (every event kept) unpacks to as many events. */
static void repack(const td_file *f)
{
    td_groups g;
    td_buf b = {0};
    td_error err = {0};
    td_keep keep = {NULL, 0, TD_DEVICE_ALL};
    if (td_file_groups(&g, f, &keep, &err) < 0)
        return;
    if (td_file_pack(&b, f, &g, &err) == 0) {
        td_file *again = NULL;
        int rc = td_file_unpack(&again, b.p, b.n, "repacked", &err);
        FUZZ_CHECK(rc == 0, "a file that unpacked does not unpack once packed again: %s", err.msg);
        FUZZ_CHECK(td_file_events(again) == 0, "repacked durations do not decode");
        FUZZ_CHECK(again->nev == f->nev, "%zu events, %zu after packing again", again->nev, f->nev);
        td_file_free(again);
    }
    td_buf_free(&b);
    td_groups_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t bits = fuzz_hash(data, size);
    td_file *f = NULL;
    td_error err = {0};
    int rc = td_file_unpack(&f, data, size, "h.tdsum#run", &err);
    if (rc < 0) {
        FUZZ_CHECK(f == NULL, "a file returned with an error");
        FUZZ_CHECK(err.code == rc && err.msg[0], "error %d without a message", rc);
        FUZZ_CHECK(rc != TD_ENOMEM, "out of memory on a small input: %s", err.msg);
        return 0;
    }
    rc = td_file_events(f);
    if (rc < 0) {
        FUZZ_CHECK(rc == TD_ETRACE, "td_file_events: %d", rc);
        td_events_fail(&err, rc, f);
        FUZZ_CHECK(strstr(err.msg, "damaged summary"), "'%s'", err.msg);
        td_file_free(f);
        return 0;
    }
    check_file(f);
    repack(f);
    td_file **files = malloc(sizeof *files);
    if (!files)
        abort();
    files[0] = f;
    td_set *s = NULL;
    if (td_set_assemble(&s, "h.tdsum#run", files, 1, &err) < 0)
        return 0; /* the set took the file */
    static const td_by by[] = {TD_BY_KERNEL, TD_BY_OP,     TD_BY_TOP_OP, TD_BY_ANNOTATION,
                               TD_BY_CLASS,  TD_BY_MODULE, TD_BY_STACK};
    for (size_t i = 0; i < sizeof by / sizeof by[0]; i++)
        compare_self(s, by[i], bits >> (7 * (i % 5)));
    roofline_self(s, bits);
    td_attr_stats st;
    FUZZ_CHECK(td_set_attr_stats(s, &st) == 0, "td_set_attr_stats failed");
    td_set_free(s);
    return 0;
}
