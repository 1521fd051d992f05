/* Trends: total duration per name per run of a summary. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "store.h"

#include <math.h>
#include <pcre2.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

struct td_trend {
    char **runs;
    size_t nruns;
    td_strtab *names;
    size_t nnames;
    double *total;   /* [name * nruns + run] */
    uint64_t *count;
    size_t *order;   /* names shown, in order */
    size_t nshown;
};

void td_trend_free(td_trend *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nruns; i++)
        free(t->runs[i]);
    free(t->runs);
    td_strtab_free(t->names);
    free(t->total);
    free(t->count);
    free(t->order);
    free(t);
}

size_t td_trend_nruns(const td_trend *t) { return t->nruns; }
const char *td_trend_run(const td_trend *t, size_t r) { return t->runs[r]; }
size_t td_trend_nnames(const td_trend *t) { return t->nshown; }
const char *td_trend_name(const td_trend *t, size_t j)
{
    return td_strtab_get(t->names, (uint32_t)t->order[j], NULL);
}
double td_trend_total(const td_trend *t, size_t j, size_t r)
{
    return t->total[t->order[j] * t->nruns + r];
}
uint64_t td_trend_count(const td_trend *t, size_t j, size_t r)
{
    return t->count[t->order[j] * t->nruns + r];
}

static const td_trend *sort_t;
static int cmp_change(const void *a, const void *b)
{
    const td_trend *t = sort_t;
    size_t x = *(const size_t *)a, y = *(const size_t *)b, n = t->nruns;
    double cx = fabs(t->total[x * n + n - 1] - t->total[x * n]);
    double cy = fabs(t->total[y * n + n - 1] - t->total[y * n]);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(td_strtab_get(t->names, (uint32_t)x, NULL),
                  td_strtab_get(t->names, (uint32_t)y, NULL));
}

int td_summary_open_ro(sqlite3 **out, const char *path, td_error *err);

int td_trend_compute(td_trend **out, const char *path, const td_trend_opts *opts, td_error *err)
{
    *out = NULL;
    td_trend_opts zero = {0};
    const td_trend_opts *o = opts ? opts : &zero;
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;
    int64_t *ids = NULL;
    size_t cap = 0;
    td_trend *t = calloc(1, sizeof *t);
    int rc;
    if (!t || !(t->names = td_strtab_new())) {
        td_trend_free(t);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    if (o->names) {
        int ec;
        PCRE2_SIZE eo;
        re = pcre2_compile((PCRE2_SPTR)o->names, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                           &ec, &eo, NULL);
        if (!re) {
            rc = td_fail(err, TD_EUSAGE, "", "--names '%s': not a valid regex (at %zu)", o->names,
                         (size_t)eo);
            goto done;
        }
        if (!(md = pcre2_match_data_create_from_pattern(re, NULL))) {
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
            goto done;
        }
    }
    if ((rc = td_summary_open_ro(&db, path, err)) < 0)
        goto done;
    /* The runs, in file order or as asked. */
    if (sqlite3_prepare_v2(db, "SELECT run_id, name FROM runs ORDER BY run_id", -1, &q, NULL) !=
        SQLITE_OK)
        goto sqlfail;
    char **all = NULL;
    int64_t *all_ids = NULL;
    size_t nall = 0, c1 = 0, c2 = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        char **na = td_grow(all, &c1, nall + 1, sizeof *na);
        if (na)
            all = na;
        int64_t *ni = td_grow(all_ids, &c2, nall + 1, sizeof *ni);
        if (ni)
            all_ids = ni;
        if (!na || !ni || !(all[nall] = strdup((const char *)sqlite3_column_text(q, 1)))) {
            for (size_t i = 0; i < nall; i++)
                free(all[i]);
            free(all);
            free(all_ids);
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
            goto done;
        }
        all_ids[nall++] = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    q = NULL;
    size_t want = o->runs ? o->nruns : nall;
    t->runs = calloc(want + 1, sizeof *t->runs);
    ids = calloc(want + 1, sizeof *ids);
    rc = 0;
    for (size_t i = 0; t->runs && ids && i < want && rc == 0; i++) {
        size_t k = i;
        if (o->runs) {
            for (k = 0; k < nall && strcmp(all[k], o->runs[i]) != 0; k++)
                ;
            if (k == nall)
                rc = td_fail(err, TD_ETRACE, path, "no run named '%s'", o->runs[i]);
        }
        if (rc == 0) {
            t->runs[t->nruns++] = strdup(all[k]);
            ids[i] = all_ids[k];
        }
    }
    for (size_t i = 0; i < nall; i++)
        free(all[i]);
    free(all);
    free(all_ids);
    if (!t->runs || !ids)
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    if (rc == 0 && want == 0)
        rc = td_fail(err, TD_ETRACE, path, "holds no runs");
    if (rc < 0)
        goto done;
    if (sqlite3_prepare_v2(db,
                           "SELECT n.name, sum(o.count), sum(o.total_us) FROM ops o "
                           "JOIN names n USING (run_id, name_id) WHERE o.run_id = ?1 AND "
                           "(?2 = 'all' OR o.device = ?2) GROUP BY n.name",
                           -1, &q, NULL) != SQLITE_OK)
        goto sqlfail;
    static const char *const dev[] = {"all", "cpu", "gpu"};
    for (size_t r = 0; r < t->nruns; r++) {
        sqlite3_bind_int64(q, 1, ids[r]);
        sqlite3_bind_text(q, 2, dev[o->device >= 0 && o->device <= 2 ? o->device : 0], -1,
                          SQLITE_STATIC);
        int s;
        while ((s = sqlite3_step(q)) == SQLITE_ROW) {
            const char *nm = (const char *)sqlite3_column_blob(q, 0);
            size_t len = (size_t)sqlite3_column_bytes(q, 0);
            if (re && pcre2_match(re, (PCRE2_SPTR)(nm ? nm : ""), len, 0, 0, md, NULL) < 0)
                continue;
            int64_t id = td_strtab_intern(t->names, nm ? nm : "", len);
            if (id < 0)
                goto nomem;
            if ((size_t)id >= t->nnames) {
                size_t c = cap, need = ((size_t)id + 1) * t->nruns;
                double *nt = td_grow(t->total, &c, need, sizeof *nt);
                if (!nt)
                    goto nomem;
                t->total = nt;
                c = cap;
                uint64_t *nc = td_grow(t->count, &c, need, sizeof *nc);
                if (!nc)
                    goto nomem;
                t->count = nc;
                memset(t->total + t->nnames * t->nruns, 0,
                       (c - t->nnames * t->nruns) * sizeof *t->total);
                memset(t->count + t->nnames * t->nruns, 0,
                       (c - t->nnames * t->nruns) * sizeof *t->count);
                cap = c;
                t->nnames = (size_t)id + 1;
            }
            t->count[(size_t)id * t->nruns + r] = (uint64_t)sqlite3_column_int64(q, 1);
            t->total[(size_t)id * t->nruns + r] = sqlite3_column_double(q, 2);
        }
        if (s != SQLITE_DONE)
            goto sqlfail;
        sqlite3_reset(q);
    }
    if (!(t->order = malloc((t->nnames + 1) * sizeof *t->order)))
        goto nomem;
    for (size_t j = 0; j < t->nnames; j++)
        t->order[j] = j;
    sort_t = t;
    qsort(t->order, t->nnames, sizeof *t->order, cmp_change);
    t->nshown = o->top && o->top < t->nnames ? o->top : t->nnames;
    rc = 0;
    goto done;
nomem:
    rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    goto done;
sqlfail:
    rc = td_fail(err, TD_ETRACE, path, "reading it: %s", sqlite3_errmsg(db));
done:
    sqlite3_finalize(q);
    sqlite3_close(db);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    free(ids);
    if (rc < 0)
        td_trend_free(t);
    else
        *out = t;
    return rc;
}
