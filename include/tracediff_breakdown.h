/*
 * Where the step time went: the breakdown of each side's step and its diff
 * (docs/breakdown.md). Part of the public API: included by tracediff.h.
 */
#ifndef TRACEDIFF_BREAKDOWN_H
#define TRACEDIFF_BREAKDOWN_H

#include "tracediff.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The numbers of a rank (totals over its selection, us) and of a side. */
typedef enum td_bd_metric {
    TD_BD_STEP = 0,       /* selected steps' durations, or the span without steps */
    TD_BD_KERNEL_TIME,    /* last end - first ts of the gpu events */
    TD_BD_BUSY,           /* |U(G)| */
    TD_BD_IDLE,           /* kernel_time - busy */
    TD_BD_COMPUTE,        /* |U(COMPUTATION)| */
    TD_BD_NON_COMPUTE,    /* kernel_time - compute - idle */
    TD_BD_EXPOSED_COMM,   /* |U(COMM)| - |U(COMM) n U(COMP)| */
    TD_BD_EXPOSED_MEM,    /* memory under neither computation nor communication */
    TD_BD_EXPOSED_OTHER,  /* busy under none of the three types */
    TD_BD_IDLE_HOST_WAIT, /* idle gaps ended by an event launched after they began */
    TD_BD_IDLE_OTHER,     /* idle - idle_host_wait */
    TD_BD_OUTSIDE_GPU,    /* step - kernel_time: CPU overhead not hidden */
    TD_BD_SYNC_WAIT,      /* host time inside synchronize calls */
    TD_BD_COMM,           /* |U(COMM)| */
    TD_BD_COMM_COMP,      /* |U(COMM) n U(COMP)| */
    TD_BD_NMETRICS
} td_bd_metric;

/* "step_us", "kernel_time_us", ... (the JSON keys); NULL out of range. */
TD_API const char *td_bd_metric_name(td_bd_metric m);

/* Kernel-type labels: bits 1 COMPUTATION, 2 COMMUNICATION, 4 MEMORY;
 * "COMPUTATION overlapping COMMUNICATION" for 3, ...; NULL for 0 or > 7. */
#define TD_BD_NLABELS 8
TD_API const char *td_bd_label_name(unsigned bits);

typedef struct td_bd_stream {
    int64_t stream;
    double host_wait, kernel_wait, other; /* summed gaps, us (HTA's idle time breakdown) */
} td_bd_stream;

typedef struct td_bd_rank {
    int64_t rank;
    size_t niters;  /* (rank, iteration) samples it holds: 1 for a whole trace */
    bool has_gpu;   /* some event with a stream was selected */
    bool has_comm;  /* some COMMUNICATION event was selected */
    bool slowest;   /* the largest step of its side */
    bool straggler; /* step more than straggler_pct above the side's median */
    double m[TD_BD_NMETRICS];
    double labels[TD_BD_NLABELS]; /* time per kernel-type label, us */
    const td_bd_stream *streams;  /* by stream number */
    size_t nstreams;
} td_bd_rank;

/* One number of the diff: each side's mean per (rank, iteration), the
 * ranks' means averaged (comm_comp_overlap: 100 |U(COMM) n U(COMP)| /
 * |U(COMM)| over the side's ranks). stats.n is 0 without statistics. */
typedef struct td_bd_row {
    const char *name; /* "step_us", ..., or "comm_comp_overlap_pct" */
    double value[2];  /* NAN when it does not apply (no gpu, no communication) */
    double diff, pct; /* test - control; 100 diff / control (NAN at 0) */
    td_row_stats stats;
} td_bd_row;

/* One bar of the waterfall: the side's mean per (rank, iteration). */
typedef struct td_bd_bar {
    const char *component;
    double value[2];
    double diff;
} td_bd_bar;

typedef struct td_breakdown_opts {
    size_t size; /* sizeof(td_breakdown_opts): set by TD_BREAKDOWN_OPTS_INIT */
    /* As td_compare_opts, but the defaults differ: every rank, and the
     * steady iterations of a side with >= 2 steps, else its whole trace. */
    td_list control_ranks, test_ranks, control_iters, test_iters;
    /* HTA's TraceAnalysis scope instead of the selection: the last step and
     * what it launched dropped when the set has >= 2 steps (docs/breakdown.md). */
    bool hta_scope;
    double straggler_pct; /* 0 = 5 */
} td_breakdown_opts;

#define TD_BREAKDOWN_OPTS_INIT                                                                     \
    {                                                                                              \
        sizeof(td_breakdown_opts), TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, false,  \
            0.0                                                                                    \
    }

typedef struct td_breakdown td_breakdown;

/* Both sides' sets must have been opened with td_open_opts.want_breakdown
 * (from traces: a summary does not keep what it needs; TD_EUSAGE). */
TD_API int td_breakdown_compute(td_breakdown **out, const td_set *control, const td_set *test,
                                const td_breakdown_opts *opts, td_error *err);
TD_API void td_breakdown_free(td_breakdown *b);
TD_API size_t td_breakdown_nranks(const td_breakdown *b, td_side side);
TD_API const td_bd_rank *td_breakdown_rank(const td_breakdown *b, td_side side, size_t i);
/* Whether some rank of the side has gpu events. */
TD_API bool td_breakdown_has_gpu(const td_breakdown *b, td_side side);
/* The side's (rank, iteration) samples; statistics need >= 3 on each side. */
TD_API size_t td_breakdown_samples(const td_breakdown *b, td_side side);
TD_API const td_bd_row *td_breakdown_rows(const td_breakdown *b, size_t *n);
/* The bars from control's step to test's: their diffs add up to the step's
 * diff; the last, "CPU overhead not hidden", is the remainder. */
TD_API const td_bd_bar *td_breakdown_waterfall(const td_breakdown *b, size_t *n);
/* Notes on a side (why a number is missing or odd), NULL after the last. */
TD_API const char *td_breakdown_note(const td_breakdown *b, td_side side, size_t i);

#ifdef __cplusplus
}
#endif

#endif
