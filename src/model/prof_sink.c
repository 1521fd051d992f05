/*
 * The events of another profiler's output (prof_load.h), kept as the Kineto
 * loader keeps its own (trace_load.c): raw events in blocks, counted by
 * category and by the name's categories per side, then handed to
 * td_assign_iterations (and td_attribute) unchanged.
 */
#include "util/bigmem.h"
#include "model/prof_load.h"
#include "model/bd_collect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cat_names[TD_PC_COUNT] = {"kernel", "gpu_memcpy", "gpu_memset",
                                                   "cuda_runtime", "user_annotation"};

int td_prof_sink_init(td_prof_sink *s, const char *path, int flags, td_error *err)
{
    memset(s, 0, sizeof *s);
    s->err = err;
    s->want_attr = (flags & (TD_LOAD_ATTR | TD_LOAD_BD)) != 0;
    s->flags = flags;
    for (int c = 0; c < TD_PC_COUNT; c++)
        s->cat_id[c] = -1;
    td_file *f = calloc(1, sizeof *f);
    s->f = f;
    if (!f || !(f->path = strdup(path)) || !(f->names = td_strtab_new()) ||
        !(f->cats = td_strtab_new()))
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    /* Durations keep the export's nanoseconds: never HTA's rounding (that
     * rule is for Kineto's decimal timestamps), whatever --ns says. */
    f->ns = 1;
    f->cats_by_side = 1;
    f->rank = TD_RANK_BY_PLACE;
    f->rank_from = TD_RANK_FROM_PLACE;
    return 0;
}

void td_prof_sink_free(td_prof_sink *s)
{
    for (size_t b = 0; b < s->nblk; b++)
        td_big_free(s->blk[b]);
    free(s->blk);
    free(s->wide);
    free(s->links);
    td_threads_free(&s->thr);
    free(s->evcat);
    free(s->proc_pid);
    free(s->proc_events);
    td_file_free(s->f);
    memset(s, 0, sizeof *s);
}

static int oom(td_prof_sink *s)
{
    return td_fail(s->err, TD_ENOMEM, s->f->path, "out of memory");
}

static int append_raw(td_prof_sink *s, const td_raw_event *e)
{
    size_t slot = s->nraw & (TD_BLOCK - 1);
    if (slot == 0) {
        td_raw_event **nb = td_grow(s->blk, &s->blkcap, s->nblk + 1, sizeof *nb);
        if (!nb)
            return oom(s);
        s->blk = nb;
        nb[s->nblk] = s->nblk ? td_big_alloc(TD_BLOCK * sizeof(td_raw_event))
                              : td_big_alloc_lazy(TD_BLOCK * sizeof(td_raw_event));
        if (!nb[s->nblk])
            return oom(s);
        s->nblk++;
    }
    s->blk[s->nraw >> TD_BLOCK_SHIFT][slot] = *e;
    s->nraw++;
    return 0;
}

/* The category's count and time, the name's categories on its side, and
 * the event's own category (kept when some name has two on one side). */
static int sink_count_category(td_prof_sink *s, size_t cid, size_t nid, const td_raw_event *e)
{
    td_file *f = s->f;
    size_t index = s->nraw - 1;
    if (index >= s->evcatcap) {
        uint8_t *ec = td_grow(s->evcat, &s->evcatcap, index + 1, sizeof *ec);
        if (!ec)
            return oom(s);
        s->evcat = ec;
    }
    s->evcat[index] = (uint8_t)cid;
    if (cid >= f->ncat_counts) {
        size_t cap = f->ncat_counts, cap2 = f->ncat_counts;
        uint64_t *cc = td_grow(f->cat_counts, &cap, cid + 1, sizeof *cc);
        if (cc)
            f->cat_counts = cc;
        double *cd = cc ? td_grow(f->cat_dur, &cap2, cap, sizeof *cd) : NULL;
        if (!cd)
            return oom(s);
        f->cat_dur = cd;
        memset(cc + f->ncat_counts, 0, (cap - f->ncat_counts) * sizeof *cc);
        memset(cd + f->ncat_counts, 0, (cap - f->ncat_counts) * sizeof *cd);
        f->ncat_counts = cap;
    }
    if (nid >= f->nname_cats) {
        size_t cap = f->nname_cats;
        uint64_t *nc = td_grow(f->name_cats, &cap, nid + 1, sizeof *nc);
        if (!nc)
            return oom(s);
        memset(nc + f->nname_cats, 0, (cap - f->nname_cats) * sizeof *nc);
        f->name_cats = nc;
        f->nname_cats = cap;
    }
    f->cat_counts[cid]++;
    f->cat_dur[cid] += e->dur;
    bool gpu = (e->flags & TD_RAW_GPU) != 0;
    uint64_t side = gpu ? 0xFFFFFFFF00000000u : 0xFFFFFFFFu, bit = td_name_cat_bit(cid, gpu);
    if (f->name_cats[nid] & side & ~bit)
        s->cats_mixed = 1;
    f->name_cats[nid] |= bit;
    return 0;
}

static int keep_link(td_prof_sink *s, td_prof_cat cat, const td_raw_event *e, double ts,
                     int64_t corr, int64_t pid, int64_t tid)
{
    uint32_t kind = 0;
    if (cat == TD_PC_ANNOTATION)
        kind = TD_LINK_ANN;
    else if (e->flags & TD_RAW_CORR_HOST)
        kind = TD_LINK_LAUNCH;
    /* Every gpu-side event has a link of its own, even when it is also an
     * annotation or a launch: attribution pairs the links with the file's
     * gpu-side events in order, and one missing would shift the rest. */
    if (e->flags & TD_RAW_GPU)
        kind |= TD_LINK_GPU;
    if (!kind)
        return 0;
    td_link *nl = td_grow(s->links, &s->linkcap, s->nlinks + 1, sizeof *nl);
    if (!nl)
        return oom(s);
    s->links = nl;
    uint32_t thr = td_thread(&s->thr, pid, tid);
    if (thr == UINT32_MAX)
        return oom(s);
    nl[s->nlinks++] = (td_link){ts, e->dur, corr, 0, thr, e->name, kind};
    return 0;
}

static int sink_store_correlation(td_prof_sink *s, td_raw_event *e, int64_t corr)
{
    if (corr >= INT32_MIN + 1 && corr <= INT32_MAX) {
        e->corr = (int32_t)corr;
        return 0;
    }
    e->corr = TD_CORR_WIDE;
    td_wide_corr *nw = td_grow(s->wide, &s->widecap, s->nwide + 1, sizeof *nw);
    if (!nw)
        return oom(s);
    s->wide = nw;
    nw[s->nwide++] = (td_wide_corr){s->nraw, corr};
    return 0;
}

int64_t td_prof_sink_name(td_prof_sink *s, const char *name, size_t len)
{
    int64_t nid = td_strtab_intern(s->f->names, name, len);
    if (nid < 0)
        return oom(s);
    return nid;
}

static int count_process(td_prof_sink *s, int64_t pid);

int td_prof_sink_add(td_prof_sink *s, td_prof_cat cat, const char *name, size_t len, double ts,
                     double dur, int64_t stream, int64_t corr, int64_t pid, int64_t tid)
{
    if (!td_pid_selected(&s->sel, pid)) /* counted, not read (--pid) */
        return count_process(s, pid);
    int64_t nid = td_prof_sink_name(s, name, len);
    if (nid < 0)
        return (int)nid;
    return td_prof_sink_add_id(s, cat, nid, ts, dur, stream, corr, pid, tid);
}

bool td_pid_selected(const td_pid_sel *sel, int64_t pid)
{
    if (!sel || sel->npids == 0)
        return true;
    for (size_t i = 0; i < sel->npids; i++)
        if (sel->pids[i] == pid)
            return true;
    return false;
}

/* Counts an event of process pid (a few processes, met in runs: the last
 * one is looked at first). */
static int count_process(td_prof_sink *s, int64_t pid)
{
    if (s->proc_last < s->nprocs && s->proc_pid[s->proc_last] == pid) {
        s->proc_events[s->proc_last]++;
        return 0;
    }
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->proc_pid[i] == pid) {
            s->proc_events[i]++;
            s->proc_last = i;
            return 0;
        }
    size_t cap = s->proccap;
    int64_t *np = td_grow(s->proc_pid, &cap, s->nprocs + 1, sizeof *np);
    if (!np)
        return oom(s);
    s->proc_pid = np;
    uint64_t *ne = td_grow(s->proc_events, &s->proccap, s->nprocs + 1, sizeof *ne);
    if (!ne)
        return oom(s);
    s->proc_events = ne;
    s->proc_pid[s->nprocs] = pid;
    s->proc_events[s->nprocs] = 1;
    s->proc_last = s->nprocs++;
    return 0;
}

static void sort_processes(td_prof_sink *s)
{
    for (size_t i = 1; i < s->nprocs; i++) { /* a handful: insertion */
        int64_t p = s->proc_pid[i];
        uint64_t e = s->proc_events[i];
        size_t k = i;
        for (; k > 0 && s->proc_pid[k - 1] > p; k--) {
            s->proc_pid[k] = s->proc_pid[k - 1];
            s->proc_events[k] = s->proc_events[k - 1];
        }
        s->proc_pid[k] = p;
        s->proc_events[k] = e;
    }
    s->proc_last = 0;
}

int td_prof_sink_check_pids(td_prof_sink *s)
{
    sort_processes(s);
    for (size_t i = 0; i < s->sel.npids; i++) {
        bool found = false;
        for (size_t k = 0; k < s->nprocs && !found; k++)
            found = s->proc_pid[k] == s->sel.pids[i];
        if (found)
            continue;
        char list[256];
        size_t n = 0;
        list[0] = '\0';
        for (size_t k = 0; k < s->nprocs && n < sizeof list - 24; k++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%lld", k ? ", " : "",
                                  (long long)s->proc_pid[k]);
        if (s->nprocs && n >= sizeof list - 24)
            snprintf(list + n, sizeof list - n, ", ...");
        return td_fail(s->err, TD_ETRACE, s->f->path,
                       "--pid %lld: no such process in this file (its processes: %s)",
                       (long long)s->sel.pids[i], s->nprocs ? list : "none recorded");
    }
    return 0;
}

int td_prof_sink_add_id(td_prof_sink *s, td_prof_cat cat, int64_t nid, double ts, double dur,
                        int64_t stream, int64_t corr, int64_t pid, int64_t tid)
{
    td_file *f = s->f;
    int prc = count_process(s, pid);
    if (prc < 0)
        return prc;
    if (!td_pid_selected(&s->sel, pid))
        return 0; /* another process's: not read (--pid) */
    if (s->cat_id[cat] < 0 &&
        (s->cat_id[cat] = td_strtab_intern(f->cats, cat_names[cat], strlen(cat_names[cat]))) < 0)
        return oom(s);
    if (nid >= ((int64_t)1 << TD_NAME_BITS))
        return td_fail(s->err, TD_ETRACE, f->path, "more than %lld distinct names in one file",
                       (long long)1 << TD_NAME_BITS);
    td_raw_event e = {.u.ts = ts, .dur = dur, .name = (uint32_t)nid, .flags = TD_RAW_HAS_TS};
    /* Spec §3, as for a Kineto event with args.stream and args.correlation. */
    if (stream < 0)
        e.flags |= TD_RAW_HOST;
    else if (stream == 0)
        e.flags |= TD_RAW_STREAM0;
    if (stream != -1)
        e.flags |= TD_RAW_GPU;
    if (corr != -1 && stream < 0)
        e.flags |= TD_RAW_CORR_HOST;
    int rc = sink_store_correlation(s, &e, corr);
    if (rc < 0)
        return rc;
    if (s->want_attr && (rc = keep_link(s, cat, &e, ts, corr, pid, tid)) < 0)
        return rc;
    if ((rc = append_raw(s, &e)) < 0)
        return rc;
    f->events_total++;
    return sink_count_category(s, (size_t)s->cat_id[cat], (size_t)nid, &e);
}

int td_prof_sink_finish(td_prof_sink *s, td_file **out)
{
    td_file *f = s->f;
    *out = NULL;
    if (s->cats_mixed) {
        f->ev_cat = s->evcat;
        s->evcat = NULL;
    }
    sort_processes(s);
    f->proc_pid = s->proc_pid;
    f->proc_events = s->proc_events;
    f->nprocs = s->nprocs;
    s->proc_pid = NULL;
    s->proc_events = NULL;
    if ((s->flags & TD_LOAD_BD) && !(f->bd = td_bd_new()))
        return td_fail(s->err, TD_ENOMEM, f->path, "out of memory");
    int rc = td_assign_iterations(f, s->blk, s->nraw, s->wide, s->nwide, 0, 1, s->marker, s->err);
    s->nblk = 0; /* taken over (compacted or freed) */
    if (rc == 0 && td_threads_rank(&s->thr, s->links, s->nlinks) < 0)
        rc = oom(s);
    if (rc == 0 && (s->flags & TD_LOAD_BD))
        rc = td_bd_collect(f, s->links, s->nlinks, 0, s->err);
    if (rc == 0 && (s->flags & TD_LOAD_ROOF)) /* GPU times; no shapes in these formats */
        rc = td_roof_times(f, s->links, s->nlinks, true, s->err);
    if (rc == 0 && (s->flags & TD_LOAD_ATTR))
        rc = td_attribute(f, s->links, NULL, s->nlinks, 0, false, s->err);
    if (rc == 0) {
        *out = f;
        s->f = NULL;
    }
    td_prof_sink_free(s);
    return rc;
}
