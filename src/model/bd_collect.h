/*
 * What the breakdown (compare/breakdown.c, docs/breakdown.md) needs of one
 * trace file, kept at load when td_open_opts.want_breakdown asks for it:
 * the gpu-side events with their times, streams, kernel types and the
 * times of their launches; the synchronize calls; the host steps and the
 * span of the file's events. The events are those the loader keeps
 * (spec §2), with HTA's rounding unless the file's own resolution is kept.
 */
#ifndef TD_BD_COLLECT_H
#define TD_BD_COLLECT_H

#include "model/model.h"

struct td_link; /* model/load.h */

td_bd_file *td_bd_new(void);
/* iterations.c, while it lists the steps: a host step, and a part's span. */
int td_bd_add_step(td_bd_file *bd, double start, double end, int64_t n);
void td_bd_span(td_bd_file *bd, double lo, double hi);
/* trace_load.c, once iterations are known: the records of f->bd from the
 * n link records (file order); round_ts as for the raw events (spec §2). */
int td_bd_collect(td_file *f, const struct td_link *links, size_t n, int round_ts, td_error *err);
/* The kernel type of a name (TD_BD_... bits; 0: OTHER). */
int td_bd_kernel_type(const char *s, size_t len);

#endif
