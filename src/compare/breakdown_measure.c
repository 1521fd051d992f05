/*
 * The numbers of one set of gpu-side records (docs/breakdown.md): interval
 * unions of all of them and of each kernel type, a sweep of the three
 * types' unions for the labels, and per stream the gaps between kernels.
 */
#include "compare/breakdown_measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* By ts, then file order (the pointers are into one array). */
static int cmp_ts(const void *a, const void *b)
{
    const td_bd_ev *x = *(const td_bd_ev *const *)a, *y = *(const td_bd_ev *const *)b;
    if (x->ts != y->ts)
        return (x->ts > y->ts) - (x->ts < y->ts);
    return (x > y) - (x < y);
}

/* By stream, then ts, then file order. */
static int cmp_stream_ts(const void *a, const void *b)
{
    const td_bd_ev *x = *(const td_bd_ev *const *)a, *y = *(const td_bd_ev *const *)b;
    if (x->stream != y->stream)
        return (x->stream > y->stream) - (x->stream < y->stream);
    return cmp_ts(a, b);
}

typedef struct span {
    double lo, hi;
} span;

/* The union of the events of type bits want (0: every event), sorted by ts,
 * as disjoint intervals appended to *out; returns its length. A new group
 * starts when ts > the largest end so far. Gaps between groups are idle:
 * *host_wait (when not NULL) sums those ended by an event launched after
 * the gap began. */
static double union_of(const td_bd_ev **ev, size_t n, int want, span *out, size_t *nout,
                       double *host_wait)
{
    double total = 0, lo = 0, hi = 0;
    bool open = false;
    *nout = 0;
    for (size_t i = 0; i < n; i++) {
        const td_bd_ev *e = ev[i];
        if (want && !(e->type & want))
            continue;
        if (open && e->ts <= hi) {
            hi = e->end > hi ? e->end : hi;
            continue;
        }
        if (open) {
            total += hi - lo;
            out[(*nout)++] = (span){lo, hi};
            if (host_wait && e->launch > hi)
                *host_wait += e->ts - hi;
        }
        lo = e->ts;
        hi = e->end;
        open = true;
    }
    if (open) {
        total += hi - lo;
        out[(*nout)++] = (span){lo, hi};
    }
    return total;
}

typedef struct edge {
    double at;
    int bit; /* + starts, - ends */
} edge;

static int cmp_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

/* The time of each label: a sweep over the three types' unions. */
static int sweep_labels(span *const u[3], const size_t nu[3], double labels[TD_BD_NLABELS])
{
    size_t ne = 2 * (nu[0] + nu[1] + nu[2]), k = 0;
    edge *e = malloc((ne + 1) * sizeof *e);
    if (!e)
        return -1;
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < nu[t]; i++) {
            e[k++] = (edge){u[t][i].lo, 1 << t};
            e[k++] = (edge){u[t][i].hi, -(1 << t)};
        }
    qsort(e, ne, sizeof *e, cmp_edge);
    int active = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && active)
            labels[active] += e[i].at - e[i - 1].at;
        active += e[i].bit; /* each type's intervals are disjoint: bits */
    }
    free(e);
    return 0;
}

/* HTA's idle time breakdown: per stream, the gaps between its kernels. */
static int idle_by_stream(const td_bd_ev **ev, size_t n, td_bd_stream **out, size_t *nout)
{
    const td_bd_ev **k = malloc((n + 1) * sizeof *k);
    td_bd_stream *st = malloc((n + 1) * sizeof *st);
    if (!k || !st) {
        free(k);
        free(st);
        return -1;
    }
    size_t nk = 0, ns = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i]->flags & TD_BDF_KERNEL)
            k[nk++] = ev[i];
    qsort(k, nk, sizeof *k, cmp_stream_ts);
    for (size_t i = 0; i < nk; i++) {
        if (i == 0 || k[i]->stream != k[i - 1]->stream) {
            st[ns++] = (td_bd_stream){k[i]->stream, 0, 0, 0};
            continue;
        }
        double prev_end = k[i - 1]->end, gap = k[i]->ts - prev_end;
        td_bd_stream *s = &st[ns - 1];
        if (k[i]->launch > prev_end)
            s->host_wait += gap;
        else if (gap < TD_BD_KERNEL_DELAY)
            s->kernel_wait += gap;
        else
            s->other += gap;
    }
    free(k);
    *out = st;
    *nout = ns;
    return 0;
}

/* The temporal breakdown from the unions (the caller adds step, sync and
 * outside). */
static void temporal(td_bd_rank *r, double lo, double hi, double busy, double compute, double comm,
                     double host_wait)
{
    double *m = r->m;
    const double *lb = r->labels;
    m[TD_BD_KERNEL_TIME] = hi - lo;
    m[TD_BD_BUSY] = busy;
    m[TD_BD_IDLE] = m[TD_BD_KERNEL_TIME] - busy;
    m[TD_BD_COMPUTE] = compute;
    m[TD_BD_NON_COMPUTE] = m[TD_BD_KERNEL_TIME] - compute - m[TD_BD_IDLE];
    m[TD_BD_COMM] = comm;
    m[TD_BD_COMM_COMP] = lb[TD_KT_COMP | TD_KT_COMM] + lb[TD_KT_COMP | TD_KT_COMM | TD_KT_MEM];
    m[TD_BD_EXPOSED_COMM] = comm - m[TD_BD_COMM_COMP];
    m[TD_BD_EXPOSED_MEM] = lb[TD_KT_MEM];
    m[TD_BD_EXPOSED_OTHER] = busy - compute - m[TD_BD_EXPOSED_COMM] - m[TD_BD_EXPOSED_MEM];
    m[TD_BD_IDLE_HOST_WAIT] = host_wait;
    m[TD_BD_IDLE_OTHER] = m[TD_BD_IDLE] - host_wait;
}

int td_bd_measure(const td_bd_ev **ev, size_t n, td_bd_rank *r, td_bd_stream **streams,
                  size_t *nstreams)
{
    memset(r->labels, 0, sizeof r->labels);
    r->has_gpu = n > 0;
    r->has_comm = false;
    if (streams) {
        *streams = NULL;
        *nstreams = 0;
    }
    if (n == 0) {
        for (int k = TD_BD_KERNEL_TIME; k <= TD_BD_IDLE_OTHER; k++)
            r->m[k] = 0;
        r->m[TD_BD_COMM] = r->m[TD_BD_COMM_COMP] = 0;
        return 0;
    }
    qsort(ev, n, sizeof *ev, cmp_ts);
    span *buf = malloc(4 * (n + 1) * sizeof *buf);
    if (!buf)
        return -1;
    span *u[3] = {buf + (n + 1), buf + 2 * (n + 1), buf + 3 * (n + 1)};
    size_t nall, nu[3];
    double hw = 0, lo = ev[0]->ts, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        hi = ev[i]->end > hi ? ev[i]->end : hi;
    double busy = union_of(ev, n, 0, buf, &nall, &hw);
    double comp = union_of(ev, n, TD_KT_COMP, u[0], &nu[0], NULL);
    double comm = union_of(ev, n, TD_KT_COMM, u[1], &nu[1], NULL);
    union_of(ev, n, TD_KT_MEM, u[2], &nu[2], NULL);
    r->has_comm = nu[1] > 0;
    int rc = sweep_labels(u, nu, r->labels);
    free(buf);
    if (rc < 0)
        return -1;
    temporal(r, lo, hi, busy, comp, comm, hw);
    if (streams)
        return idle_by_stream(ev, n, streams, nstreams);
    return 0;
}
