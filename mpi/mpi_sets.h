/* The sets of one command, built by every process of an MPI job together:
 * files divided by size, each process loading and packing its own, the
 * packed files gathered to rank 0, which assembles the sets. */
#ifndef TD_MPI_SETS_H
#define TD_MPI_SETS_H

#include "tracediff.h"

#include <mpi.h>

typedef struct mpi_sets {
    size_t n;                 /* the sets asked for */
    const char *const *paths; /* their paths (the caller's) */
    td_set **sets;            /* rank 0: the sets, until taken */
    int rc;                   /* rank 0: what td_sets_open would have returned */
    td_error err;             /* ... and its error */
    int taken;                /* handed over already */
    unsigned flags;           /* mpi_sets_build's */
} mpi_sets;

/* Collective over comm: every process calls it with the same paths and
 * flags (TD_PACK_SHA256, TD_PACK_NS). Summaries among the paths are opened by
 * rank 0 alone (with td_open_opts.ns as TD_PACK_NS says). Errors are kept for rank 0 to report
 * through mpi_sets_take; every process returns 0 when the sets were built, else the error's code.
 */
int mpi_sets_build(mpi_sets *ms, const char *const *paths, size_t n, unsigned flags, MPI_Comm comm);

/* td_sets_open's contract on rank 0: hands over the sets built (or their
 * error) when paths are the ones they were built for; 1 when they are not
 * (nothing done). */
int mpi_sets_take(mpi_sets *ms, td_set **out, const char *const *paths, size_t n, td_error *err);

void mpi_sets_free(mpi_sets *ms);

#endif
