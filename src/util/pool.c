/* A tiny thread pool: n independent jobs, taken in order by up to T threads. */
#include "util/util.h"
#include "util/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct pool {
    td_job_fn fn;
    void *ud;
    size_t n;
    atomic_size_t next;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        p->fn(p->ud, i);
    }
}

int td_ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int td_pool_threads(size_t n, int threads)
{
    if (threads <= 0)
        threads = td_ncores();
    if ((size_t)threads > n)
        threads = (int)n;
    return threads > 256 ? 256 : threads;
}

void td_pool_run(size_t n, int threads, td_job_fn fn, void *ud)
{
    pool p = {fn, ud, n, 0};
    threads = td_pool_threads(n, threads);
    pthread_t tid[256];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tid[started], NULL, worker, &p) != 0)
            break;
        started++;
    }
    worker(&p);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
