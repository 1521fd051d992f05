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

/* Kernel types (docs/breakdown.md, "Kernel types"): bits; 0 is OTHER. */
enum { TD_KT_COMP = 1, TD_KT_COMM = 2, TD_KT_MEM = 4 };

/* td_bd_ev.flags */
enum {
    TD_BDF_KERNEL = 1, /* its cat is a kernel, memset or memcpy one (idle by cause) */
    TD_BDF_GPUDEF = 2  /* HTA's "GPU event": stream >= 0 and correlation >= 0, or a
                        * name Event Sync / Context Sync (its scope filter) */
};

/* One event with stream != -1 (G). */
typedef struct td_bd_ev {
    double ts, end;
    double launch; /* ts of the host side of its correlation id, NAN when none */
    int32_t iter;  /* index into the file's iters[], or TD_ITER_NONE */
    int32_t stream;
    uint8_t type, flags;
} td_bd_ev;

/* A host call's interval. */
typedef struct td_bd_call {
    double ts, end;
} td_bd_call;

/* A host ProfilerStep event. */
typedef struct td_bd_step {
    double start, end;
    int64_t n;
} td_bd_step;

typedef struct td_bd_file {
    td_bd_ev *ev; /* in file order */
    size_t nev;
    td_bd_call *sync; /* synchronize calls (td_is_sync_name), file order */
    size_t nsync;
    td_bd_step *steps;
    size_t nsteps, stepcap;
    double span_lo, span_hi; /* first ts and last end of the file's events */
} td_bd_file;

td_bd_file *td_bd_new(void);
void td_bd_file_free(td_bd_file *bd); /* model/file.c */
/* iterations.c, while it lists the steps: a host step, and a part's span. */
int td_bd_add_step(td_bd_file *bd, double start, double end, int64_t n);
void td_bd_span(td_bd_file *bd, double lo, double hi);
/* trace_load.c, once iterations are known: the records of f->bd from the
 * n link records (file order); round_ts as for the raw events (spec §2). */
int td_bd_collect(td_file *f, const struct td_link *links, size_t n, int round_ts, td_error *err);
/* The kernel type of a name (TD_BD_... bits; 0: OTHER). */
int td_bd_kernel_type(const char *s, size_t len);

#endif
