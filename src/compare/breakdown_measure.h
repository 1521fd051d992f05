/*
 * The breakdown's measurements (docs/breakdown.md) of one set of gpu-side
 * records: compare/breakdown_measure.c; the sides, the diff and the
 * waterfall: compare/breakdown.c.
 */
#ifndef TD_COMPARE_BREAKDOWN_MEASURE_H
#define TD_COMPARE_BREAKDOWN_MEASURE_H

#include "compare/compare.h"
#include "model/bd_collect.h"

/* HTA's consecutive_kernel_delay: a shorter gap between two kernels of a
 * stream is kernel_wait. */
#define TD_BD_KERNEL_DELAY 30.0

/* What measure fills: r->m (but step, sync and outside, the caller's),
 * r->labels, r->has_gpu, r->has_comm; with streams, *streams (malloc'd,
 * by stream number) and *nstreams. ev: pointers into one file's records,
 * in file order (sorted here). 0 or -1 when out of memory. */
int td_bd_measure(const td_bd_ev **ev, size_t n, td_bd_rank *r, td_bd_stream **streams,
                  size_t *nstreams);

#endif
