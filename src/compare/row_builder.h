/* The diff's row builder (row_builder.c), shared by diff.c (rows by kernel
 * name) and by_op.c (rows by op, top op, annotation or kernel class). */
#ifndef TD_COMPARE_ROW_BUILDER_H
#define TD_COMPARE_ROW_BUILDER_H

#include "compare/compare.h"

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
    const td_renames *renames; /* --rename (rename.c) */
    const td_classes *classes; /* TD_BY_CLASS */
    td_classes *own_classes;   /* the built-in table, when opts gave none */
} builder;

/* row_builder.c: adds x to a side's compensated sum (NAN: skipped). */
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
/* row_builder.c: the row of name s (short-named unless whole, or short names are off);
 * -1 when out of memory. */
int64_t td_builder_row(builder *b, const char *s, size_t len, bool whole);

#endif
