#ifndef TD_SELECTION_H
#define TD_SELECTION_H

#include "model/model.h"

#include <stdlib.h>

/* The values of want among have (sorted): all of them for "all", the lowest
 * for the default, else each listed value, which must be in have. *out is
 * malloc'd. what/side name them in the error ("iteration", "control"). */
int td_resolve(int64_t **out, size_t *nout, const td_list *want, const int64_t *have, size_t nhave,
               const char *what, const char *side, td_error *err);

/* Which events of one file a side of a comparison selects (spec §4): the
 * resolved ranks and iterations of the side, the device, and --hta-strict.
 * The diff and the statistics both walk events through td_pick_walk, so
 * they count exactly the same events. */
typedef struct td_pick {
    const int64_t *iters; /* the side's selected iteration numbers */
    size_t niters;
    int whole_trace; /* no ProfilerStep: every event, whatever its iteration */
    td_device device;
    bool strict; /* --hta-strict: stream-0 device events left out */
    /* --cat: only events of these categories (or with cats_exclude, of every
     * other one); NULL: every event. */
    const char *cats;
    bool cats_exclude;
} td_pick;

/* Called per selected event, in file order, with the position of the
 * event's iteration in pick->iters (-1 for a whole-trace side). A negative
 * return stops the walk and is returned. */
typedef int (*td_pick_fn)(void *ud, const td_event *e, long iter_pos);

/* Per iteration index of f: its position in p->iters, or -1. pos holds
 * f->niters; *pos is stack when they fit, else malloc'd (NULL: no memory). */
static inline long *td_pick_positions(const td_file *f, const td_pick *p, long stack[64])
{
    long *pos = f->niters <= 64 ? stack : malloc(f->niters * sizeof *pos);
    for (size_t i = 0; pos && i < f->niters; i++) {
        pos[i] = -1;
        for (size_t k = 0; k < p->niters; k++)
            if (p->iters[k] == f->iters[i])
                pos[i] = (long)k;
    }
    return pos;
}

/* Whether the pick selects an event of this name (flag bits included) and
 * iteration; *ip: the iteration's position in p->iters (-1: whole trace). */
static inline bool td_pick_takes(const td_pick *p, const long *pos, uint32_t name, int32_t iter,
                                 long *ip)
{
    bool gpu = (name & TD_EV_GPU) != 0;
    *ip = -1;
    if ((p->device == TD_DEVICE_CPU && gpu) || (p->device == TD_DEVICE_GPU && !gpu))
        return false;
    if (p->whole_trace)
        return true;
    return !(iter < 0 || (*ip = pos[iter]) < 0 || (p->strict && (name & TD_EV_STREAM0)));
}

/* Walks the selected events of f (whose rank the caller has selected).
 * Inline so that each caller's callback is inlined into the loop. */
static inline int td_pick_walk(const td_file *f, const td_pick *p, td_pick_fn fn, void *ud)
{
    long stack_pos[64];
    int erc = td_file_events(f);
    if (erc < 0)
        return erc;
    long *pos = td_pick_positions(f, p, stack_pos);
    if (!pos)
        return TD_ENOMEM;
    int rc = 0;
    uint64_t mask = td_cats_mask(f, p->cats, p->cats_exclude);
    for (size_t i = 0; i < f->nev; i++) {
        const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        long ip;
        if (td_pick_takes(p, pos, e->name, e->iter, &ip) &&
            td_event_cat_kept(f, mask, e->name, i) && (rc = fn(ud, e, ip)) < 0)
            break;
    }
    if (pos != stack_pos)
        free(pos);
    return rc;
}

/* Called per selected group of a file that has them (f->groups). */
typedef int (*td_pick_group_fn)(void *ud, const td_event_group *g, long iter_pos);

/* Walks the selected groups of f: the same events as td_pick_walk, a group
 * at a time. Only for a file with groups, whose totals are exact. */
static inline int td_pick_walk_groups(const td_file *f, const td_pick *p, td_pick_group_fn fn,
                                      void *ud)
{
    long stack_pos[64];
    long *pos = td_pick_positions(f, p, stack_pos);
    if (!pos)
        return TD_ENOMEM;
    int rc = 0;
    uint64_t mask = td_cats_mask(f, p->cats, p->cats_exclude);
    for (size_t i = 0; i < f->ngroups; i++) {
        const td_event_group *g = &f->groups[i];
        long ip;
        if (td_pick_takes(p, pos, g->name, g->iter, &ip) &&
            td_event_cat_kept(f, mask, g->name, 0) && (rc = fn(ud, g, ip)) < 0)
            break;
    }
    if (pos != stack_pos)
        free(pos);
    return rc;
}

/* The pick of one side of a diff, from its resolved selection. */
static inline td_pick td_pick_of(const td_side_notes *sn, const td_compare_opts *o)
{
    td_pick p = {sn->iters,          sn->niters,    sn->whole_trace,      o->device,
                 o->hta_strict != 0, o->categories, o->exclude_categories};
    return p;
}

#endif
