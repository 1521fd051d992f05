/* util/pool.c: a pool of threads running numbered jobs. */
#ifndef TD_UTIL_POOL_H
#define TD_UTIL_POOL_H

#include <stddef.h>

/* pool.c: run n jobs on up to threads threads. */
typedef int (*td_job_fn)(void *ud, size_t i);
void td_pool_run(size_t n, int threads, td_job_fn fn, void *ud);
/* How many threads td_pool_run(n, threads, ...) runs. */
int td_pool_threads(size_t n, int threads);
int td_ncores(void);

#endif
