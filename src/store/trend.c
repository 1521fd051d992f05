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
    double *total; /* [name * nruns + run] */
    uint64_t *count;
    size_t *order; /* names shown, in order */
    size_t nshown;
    uint64_t folded; /* names of the summary shown under another name */
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

size_t td_trend_nruns(const td_trend *t)
{
    return t->nruns;
}
const char *td_trend_run(const td_trend *t, size_t r)
{
    return t->runs[r];
}
size_t td_trend_nnames(const td_trend *t)
{
    return t->nshown;
}
const char *td_trend_name(const td_trend *t, size_t j)
{
    return td_strtab_get(t->names, (uint32_t)t->order[j], NULL);
}
double td_trend_total(const td_trend *t, size_t j, size_t r)
{
    return t->total[t->order[j] * t->nruns + r];
}
uint64_t td_trend_folded(const td_trend *t)
{
    return t->folded;
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

/* --names: the compiled pattern and its match data (*re NULL: no filter). */
static int compile_names(pcre2_code **re, pcre2_match_data **md, const char *names,
                         const char *path, td_error *err)
{
    if (!names)
        return 0;
    int ec;
    PCRE2_SIZE eo;
    *re = pcre2_compile((PCRE2_SPTR)names, PCRE2_ZERO_TERMINATED,
                        PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
    if (!*re)
        return td_fail(err, TD_EUSAGE, "", "--names '%s': not a valid regex (at %zu)", names,
                       (size_t)eo);
    if (!(*md = pcre2_match_data_create_from_pattern(*re, NULL)))
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    return 0;
}

/* Every run of the file, in order: names and ids (*names malloc'd). */
typedef struct run_list {
    char **names;
    int64_t *ids;
    size_t n;
} run_list;

static void run_list_free(run_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    free(l->ids);
}

static int read_runs(run_list *l, sqlite3 *db, const char *path, td_error *err)
{
    sqlite3_stmt *q = NULL;
    size_t c1 = 0, c2 = 0;
    if (sqlite3_prepare_v2(db, "SELECT run_id, name FROM runs ORDER BY run_id", -1, &q, NULL) !=
        SQLITE_OK)
        return td_fail(err, TD_ETRACE, path, "reading it: %s", sqlite3_errmsg(db));
    int rc = 0, s = SQLITE_DONE;
    while (rc == 0 && (s = sqlite3_step(q)) == SQLITE_ROW) {
        /* the type first: sqlite3_column_text converts a blob to text */
        if (sqlite3_column_type(q, 1) == SQLITE_NULL) {
            rc = td_fail(err, TD_ETRACE, path, "damaged summary: run %zu has no name", l->n + 1);
            break;
        }
        if (!td_summary_run_name_ok(q, 1)) {
            rc = td_fail(err, TD_ETRACE, path,
                         "damaged summary: the name of run %zu is not UTF-8 text without NUL",
                         l->n + 1);
            break;
        }
        const char *nm = (const char *)sqlite3_column_text(q, 1);
        char **na = td_grow(l->names, &c1, l->n + 1, sizeof *na);
        if (na)
            l->names = na;
        int64_t *ni = td_grow(l->ids, &c2, l->n + 1, sizeof *ni);
        if (ni)
            l->ids = ni;
        if (!na || !ni || !nm || !(l->names[l->n] = strdup(nm)))
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
        else
            l->ids[l->n++] = sqlite3_column_int64(q, 0);
    }
    if (rc == 0 && s != SQLITE_DONE)
        rc = td_fail(err, TD_ETRACE, path, "reading it: %s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
    /* what a trend reads of each run: its row, names and ops */
    for (size_t i = 0; i < l->n && rc == 0; i++) {
        char *where = malloc(strlen(path) + strlen(l->names[i]) + 2);
        if (!where)
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        sprintf(where, "%s#%s", path, l->names[i]);
        int v = td_summary_verify(db, where, l->ids[i], TD_SUM_DERIVED, NULL, err);
        free(where);
        rc = v < 0 ? v : 0;
    }
    return rc;
}

/* The runs to show (o->runs, or all in file order) into t->runs and ids. */
static int pick_runs(td_trend *t, int64_t **ids, const run_list *all, const td_trend_opts *o,
                     const char *path, td_error *err)
{
    size_t want = o->runs ? o->nruns : all->n;
    t->runs = calloc(want + 1, sizeof *t->runs);
    *ids = calloc(want + 1, sizeof **ids);
    if (!t->runs || !*ids)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    for (size_t i = 0; i < want; i++) {
        size_t k = i;
        if (o->runs) {
            for (k = 0; k < all->n && strcmp(all->names[k], o->runs[i]) != 0; k++)
                ;
            if (k == all->n)
                return td_fail(err, TD_ETRACE, path, "no run named '%s'", o->runs[i]);
        }
        if (!(t->runs[t->nruns++] = strdup(all->names[k])))
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        (*ids)[i] = all->ids[k];
    }
    if (want == 0)
        return td_fail(err, TD_ETRACE, path, "holds no runs");
    return 0;
}

/* The id of a name in t, growing total and count (zeroed) to hold it. */
static int64_t name_slot(td_trend *t, size_t *cap, const char *nm, size_t len)
{
    int64_t id = td_strtab_intern(t->names, nm, len);
    if (id < 0 || (size_t)id < t->nnames)
        return id;
    size_t c = *cap, need = ((size_t)id + 1) * t->nruns;
    double *nt = td_grow(t->total, &c, need, sizeof *nt);
    if (!nt)
        return -1;
    t->total = nt;
    c = *cap;
    uint64_t *nc = td_grow(t->count, &c, need, sizeof *nc);
    if (!nc)
        return -1;
    t->count = nc;
    memset(t->total + t->nnames * t->nruns, 0, (c - t->nnames * t->nruns) * sizeof *t->total);
    memset(t->count + t->nnames * t->nruns, 0, (c - t->nnames * t->nruns) * sizeof *t->count);
    *cap = c;
    t->nnames = (size_t)id + 1;
    return id;
}

/* Per run and name (those --names matches): the count and total of the
 * device's ops, summed by SQLite. */
static int read_totals(td_trend *t, sqlite3 *db, const int64_t *ids, const td_trend_opts *o,
                       pcre2_code *re, pcre2_match_data *md, const char *path, td_error *err)
{
    sqlite3_stmt *q = NULL;
    size_t cap = 0;
    int rc = 0, s = SQLITE_DONE;
    if (sqlite3_prepare_v2(db,
                           "SELECT n.name, sum(o.count), sum(o.total_us) FROM ops o "
                           "JOIN names n USING (run_id, name_id) WHERE o.run_id = ?1 AND "
                           "(?2 = 'all' OR o.device = ?2) GROUP BY n.name",
                           -1, &q, NULL) != SQLITE_OK)
        return td_fail(err, TD_ETRACE, path, "reading it: %s", sqlite3_errmsg(db));
    for (size_t r = 0; r < t->nruns && rc == 0 && s == SQLITE_DONE; r++) {
        sqlite3_bind_int64(q, 1, ids[r]);
        sqlite3_bind_text(q, 2, td_device_name(o->device), -1, SQLITE_STATIC);
        while (rc == 0 && (s = sqlite3_step(q)) == SQLITE_ROW) {
            const char *nm = (const char *)sqlite3_column_blob(q, 0);
            size_t len = (size_t)sqlite3_column_bytes(q, 0), own = len;
            char *key = NULL;
            if (td_name_key(&key, &len, nm ? nm : "", len, o->short_names, o->normalize_names,
                            o->renames) < 0) {
                rc = td_fail(err, TD_ENOMEM, path, "out of memory");
                break;
            }
            if (key) {
                t->folded += r == 0 && (len != own || memcmp(key, nm ? nm : "", len) != 0);
                nm = key;
            }
            if (re && pcre2_match(re, (PCRE2_SPTR)(nm ? nm : ""), len, 0, 0, md, NULL) < 0) {
                free(key);
                continue;
            }
            int64_t id = name_slot(t, &cap, nm ? nm : "", len);
            free(key);
            if (id < 0) {
                rc = td_fail(err, TD_ENOMEM, path, "out of memory");
                break;
            }
            /* Names grouped into one add up. */
            t->count[(size_t)id * t->nruns + r] += (uint64_t)sqlite3_column_int64(q, 1);
            t->total[(size_t)id * t->nruns + r] += sqlite3_column_double(q, 2);
        }
        sqlite3_reset(q);
    }
    if (rc == 0 && s != SQLITE_DONE)
        rc = td_fail(err, TD_ETRACE, path, "reading it: %s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
    return rc;
}

/* The names by their change from the first run to the last, the largest
 * first; o->top of them shown. */
static int order_names(td_trend *t, const td_trend_opts *o)
{
    if (!(t->order = malloc((t->nnames + 1) * sizeof *t->order)))
        return -1;
    for (size_t j = 0; j < t->nnames; j++)
        t->order[j] = j;
    sort_t = t;
    qsort(t->order, t->nnames, sizeof *t->order, cmp_change);
    t->nshown = o->top && o->top < t->nnames ? o->top : t->nnames;
    return 0;
}

int td_trend_compute(td_trend **out, const char *path, const td_trend_opts *opts, td_error *err)
{
    *out = NULL;
    td_trend_opts oc;
    int rc = TD_OPTS_TAKE(&oc, opts, td_trend_opts, TD_TREND_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    const td_trend_opts *o = &oc;
    sqlite3 *db = NULL;
    pcre2_code *re = NULL;
    pcre2_match_data *md = NULL;
    int64_t *ids = NULL;
    run_list all = {0};
    td_trend *t = calloc(1, sizeof *t);
    if (!t || !(t->names = td_strtab_new()))
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    else if ((rc = compile_names(&re, &md, o->names, path, err)) == 0 &&
             (rc = td_summary_open_ro(&db, path, err)) == 0 &&
             (rc = read_runs(&all, db, path, err)) == 0 &&
             (rc = pick_runs(t, &ids, &all, o, path, err)) == 0 &&
             (rc = read_totals(t, db, ids, o, re, md, path, err)) == 0 && order_names(t, o) < 0)
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    sqlite3_close(db);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    run_list_free(&all);
    free(ids);
    if (rc < 0)
        td_trend_free(t);
    else
        *out = t;
    return rc;
}
