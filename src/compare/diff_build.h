/* The diff's row builder, shared by diff.c (rows by kernel name) and by_op.c
 * (rows by op, top op, annotation or kernel class). */
#ifndef TD_DIFF_BUILD_H
#define TD_DIFF_BUILD_H

#include "model/model.h"

typedef struct acc {
    uint64_t counts[2];
    double sum[2], comp[2]; /* Neumaier-compensated sums, as pandas does */
    double rdelta[2];       /* HTA's rounding: rounded minus the traces' own (td_file.rdelta) */
} acc;

typedef struct builder {
    td_strtab *names;
    acc *acc;
    size_t cap;
    int short_names;
    int normalize;             /* --normalize-names (name_fold.c) */
    const td_classes *classes; /* TD_BY_CLASS */
    td_classes *own_classes;   /* the built-in table, when opts gave none */
} builder;

void td_acc_add_dur(acc *a, int side, double x);
/* What HTA's rounding did to event i of f (selected, counted in a): its
 * negative durations and its change to a's total (td_side_notes.round_*). */
static inline void td_acc_rounding(acc *a, int side, const td_file *f, size_t i, const td_event *e,
                                   td_side_notes *sn)
{
    if (!f->rounded)
        return;
    sn->round_negative += e->dur < 0;
    if (f->rdelta)
        a->rdelta[side] += f->rdelta[i];
}
/* The row of name s (short-named unless whole, or short names are off);
 * -1 when out of memory. */
int64_t td_builder_row(builder *b, const char *s, size_t len, bool whole);

/* by_op.c: checks that attribution is there, readies the class table. */
int td_attr_check(builder *b, const td_set *control, const td_set *test,
                  const td_compare_opts *opts, td_error *err);
/* The gpu events of one file, keyed by op, top op, annotation or class. */
int td_add_file_attr(builder *b, int side, const td_file *f, td_side_notes *sn,
                     const td_compare_opts *opts, td_error *err);

#endif
