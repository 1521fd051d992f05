/*
 * Reading summaries: a run of a summary back into the td_set that loading
 * its traces made (opened read-only), and the list of runs.
 */
#include "model/prof_load.h"
#include "store.h"
#include "util/utf8_text.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char sqlite_magic[16] = "SQLite format 3";

/* 1: a regular file starting with SQLite's header; 0: a regular file that
 * does not; -1: not a regular file (or missing). */
static int sniff(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char h[16];
    size_t n = fread(h, 1, 16, f);
    fclose(f);
    return n == 16 && memcmp(h, sqlite_magic, 16) == 0;
}

int td_summary_check_header(const char *path, int must_exist, td_error *err);
int td_summary_check_header(const char *path, int must_exist, td_error *err)
{
    int k = sniff(path);
    if (k == 1)
        return 0;
    if (k < 0 && !must_exist)
        return 0;
    /* a missing file says so, as a missing trace set does */
    struct stat st;
    if (k < 0 && stat(path, &st) < 0)
        return td_fail(err, TD_EIO, path, "%s", strerror(errno));
    return td_fail(err, TD_ETRACE, path,
                   "no SQLite header: not a tracediff summary, or a damaged summary");
}

int td_summary_split(const char *path, char **file, char **run, td_error *err)
{
    *file = *run = NULL;
    int k = sniff(path);
    /* An Nsight Systems or rocpd export is a trace (model/prof_load.h); so
     * is a damaged SQLite file not named .tdsum: the trace reader says what
     * is wrong with it. */
    if (k == 1 && (td_has_suffix(path, ".tdsum") ? td_prof_sqlite_kind(path) > 0
                                                 : td_prof_sqlite_kind(path) != 0))
        return 0;
    if (k == 1) {
        if (!(*file = strdup(path)))
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        return 1;
    }
    if (k == 0 && td_has_suffix(path, ".tdsum"))
        return td_fail(err, TD_ETRACE, path,
                       "no SQLite header: not a tracediff summary, or a damaged summary");
    if (k == 0)
        return 0;
    /* FILE#RUN: the first '#' whose left part is a summary. */
    for (const char *h = strchr(path, '#'); h; h = strchr(h + 1, '#')) {
        char *f = strndup(path, (size_t)(h - path));
        if (!f)
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        int s = sniff(f);
        if (s == 1) {
            *file = f;
            if (!(*run = strdup(h + 1))) {
                free(f);
                *file = NULL;
                return td_fail(err, TD_ENOMEM, path, "out of memory");
            }
            return 1;
        }
        if (s == 0 && td_has_suffix(f, ".tdsum")) {
            int rc = td_fail(err, TD_ETRACE, f,
                             "no SQLite header: not a tracediff summary, or a damaged summary");
            free(f);
            return rc;
        }
        free(f);
    }
    return 0;
}

static int sql_fail(td_error *err, sqlite3 *db, const char *path, const char *what)
{
    const char *m = db ? sqlite3_errmsg(db) : "cannot open";
    int code = db ? sqlite3_errcode(db) : SQLITE_CANTOPEN;
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_FORMAT ||
        code == SQLITE_MISMATCH)
        return td_fail(err, TD_ETRACE, path, "damaged summary: %s: %s", what, m);
    if (code == SQLITE_INTERRUPT)
        return td_fail(err, TD_ETRACE, path,
                       "damaged summary: %s: the query did more work than the file's size "
                       "allows",
                       what);
    return td_fail(err, TD_ETRACE, path, "%s: %s", what, m);
}

/* A summary may come from anyone, and nothing in it runs as code here:
 * SQLite refuses its triggers, and its views unless views (readers query
 * tables only; a writer keeps ops_named), lets its schema call innocuous
 * functions only, and turns off the SQL that can corrupt a file
 * (docs/summaries.md, "A summary is input"). 0, or -1 when this SQLite
 * cannot. */
int td_summary_harden(sqlite3 *db, int views);
int td_summary_harden(sqlite3 *db, int views)
{
    int bad = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    bad |= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    bad |= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
    if (!views)
        bad |= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    return bad ? -1 : 0;
}

/* Whether sql, one statement's text as sqlite_schema keeps it, is one of
 * the statements of the schema text all (statements ending ";\n" or at the
 * end). */
static bool among_statements(const char *sql, const char *all)
{
    size_t n = strlen(sql);
    for (const char *p = all; *p;) {
        const char *end = strstr(p, ";\n");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && memcmp(p, sql, n) == 0)
            return true;
        p += len + (end ? 2 : 0);
    }
    return false;
}

/* Every object of the file is one of tracediff's, as this version or an
 * older one wrote it (tables, their automatic indexes, ops_by_run,
 * ops_named; checksums from schema 3 on), and they are all there: anything
 * else is refused before any query reads a row (docs/summaries.md, "A
 * summary is input"). SQLite's statistics tables (ANALYZE) are let be. */
int td_summary_check_objects(sqlite3 *db, const char *path, int version, td_error *err)
{
    static const char *const autoindexes[] = {"meta", "runs", "files", "iterations", "names"};
    sqlite3_stmt *q = NULL;
    int rc, nobj = 0, nauto = 0, nsums = 0;
    if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema", -1, &q,
                           NULL) != SQLITE_OK)
        return sql_fail(err, db, path, "reading its schema");
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(q, 0);
        const char *name = (const char *)sqlite3_column_text(q, 1);
        const char *tbl = (const char *)sqlite3_column_text(q, 2);
        const char *sql = (const char *)sqlite3_column_text(q, 3);
        bool ok = false;
        if (!type || !name || !tbl) {
            ok = false;
        } else if (!sql && strcmp(type, "index") == 0 &&
                   strncmp(name, "sqlite_autoindex_", 17) == 0) {
            for (size_t i = 0; i < sizeof autoindexes / sizeof *autoindexes && !ok; i++) {
                char want[64];
                snprintf(want, sizeof want, "sqlite_autoindex_%s_1", autoindexes[i]);
                ok = strcmp(name, want) == 0 && strcmp(tbl, autoindexes[i]) == 0;
            }
            nauto += ok;
        } else if (strcmp(type, "table") == 0 && strncmp(name, "sqlite_stat", 11) == 0) {
            ok = true;
            nobj--; /* not one of ours */
        } else if (sql && strcmp(name, "checksums") == 0) {
            ok = strcmp(type, "table") == 0 && strcmp(sql, td_summary_checksums_sql) == 0;
            nsums += ok;
            nobj--;
        } else if (sql && (strcmp(type, "table") == 0 || strcmp(type, "index") == 0 ||
                           strcmp(type, "view") == 0)) {
            ok = among_statements(sql, td_summary_schema_sql);
        }
        if (!ok) {
            rc = td_fail(err, TD_ETRACE, path,
                         "damaged summary: it holds %s '%s', which tracediff does not write "
                         "(nothing of it was run)",
                         type ? type : "an object", name ? name : "?");
            sqlite3_finalize(q);
            return rc;
        }
        nobj++;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return sql_fail(err, db, path, "reading its schema");
    /* meta, runs, files, iterations, names, ops, ops_by_run, ops_named */
    if (nobj - nauto != 8 || nauto != 5 || (version >= 3 && nsums != 1))
        return td_fail(err, TD_ETRACE, path,
                       "damaged summary: some of its tables or indexes are missing");
    return 0;
}

/* The work of the queries on one connection is bounded by the file's size:
 * a damaged file whose pages loop fails instead of running on. SQLite calls
 * back every 1000 virtual-machine steps; reading a 512-byte share of a page
 * takes far fewer than the 200,000 allowed for it (every reader query is
 * linear in the rows it reads). */
static int over_budget(void *ud)
{
    uint64_t *left = ud;
    if (*left == 0)
        return 1;
    (*left)--;
    return 0;
}

static void bound_work(sqlite3 *db, const char *path)
{
    static _Thread_local uint64_t budget; /* one open connection per thread at a time */
    struct stat st;
    uint64_t pages = stat(path, &st) == 0 ? (uint64_t)st.st_size / 512 + 1 : 1;
    budget = 10000 + pages * 200;
    sqlite3_progress_handler(db, 1000, over_budget, &budget);
}

/* Whether db's meta table says it is a tracediff summary. */
static bool says_summary(sqlite3 *db)
{
    sqlite3_stmt *q = NULL;
    bool yes = false;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'format'", -1, &q, NULL) ==
            SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(q, 0);
        yes = v && strcmp((const char *)v, "tracediff summary") == 0;
    }
    sqlite3_finalize(q);
    return yes;
}

/* Opens a summary read-only and checks its schema version. A run added by a
 * process that was killed leaves a hot journal that only a writer can roll
 * back: then the file is opened once for writing to do so. */
int td_summary_open_ro(sqlite3 **out, const char *path, td_error *err);
int td_summary_open_ro(sqlite3 **out, const char *path, td_error *err)
{
    *out = NULL;
    sqlite3 *db = NULL;
    if (td_summary_check_header(path, 1, err) < 0)
        return TD_ETRACE;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
            td_summary_harden(db, 0) < 0) {
            int rc = sql_fail(err, db, path, "cannot open it");
            sqlite3_close(db);
            return rc;
        }
        sqlite3_busy_timeout(db, 10000);
        sqlite3_stmt *q = NULL;
        int v = -1, prc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL);
        int src = prc == SQLITE_OK ? sqlite3_step(q) : prc;
        bool got = src == SQLITE_ROW;
        if (got)
            v = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
        int ext = sqlite3_extended_errcode(db);
        if (!got && attempt == 0 && ext == SQLITE_READONLY_ROLLBACK) {
            sqlite3_close(db);
            sqlite3 *rw = NULL;
            if (sqlite3_open_v2(path, &rw, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
                td_summary_harden(rw, 0) == 0)
                sqlite3_exec(rw, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
            sqlite3_close(rw);
            continue;
        }
        if (!got) {
            int rc = sql_fail(err, db, path, "not a readable summary");
            sqlite3_close(db);
            return rc;
        }
        if (v <= 0 || v > TD_SUMMARY_SCHEMA) {
            if (v <= 0 && says_summary(db))
                td_fail(err, TD_ETRACE, path,
                        "damaged summary: its schema version is %d (tracediff writes 1 to %d)", v,
                        TD_SUMMARY_SCHEMA);
            else if (v <= 0)
                td_fail(err, TD_ETRACE, path,
                        "an SQLite file, but not a tracediff summary, nor an Nsight Systems "
                        "export or a rocpd database");
            else
                td_fail(err, TD_ETRACE, path,
                        "a summary of a newer schema (version %d; this tracediff reads up to "
                        "%d): use a newer tracediff",
                        v, TD_SUMMARY_SCHEMA);
            sqlite3_close(db);
            return TD_ETRACE;
        }
        if (td_summary_check_objects(db, path, v, err) < 0) {
            sqlite3_close(db);
            return TD_ETRACE;
        }
        bound_work(db, path);
        sqlite3_exec(db, "PRAGMA cell_size_check = ON", NULL, NULL, NULL);
        /* Pages read through a mapping of the file: no copy into SQLite's
         * page cache on the way to the packed bytes. */
        sqlite3_exec(db, "PRAGMA mmap_size = 1073741824", NULL, NULL, NULL);
        /* One read transaction for every query of this reader (each would
         * otherwise lock and unlock the file, and check it again); it ends
         * with sqlite3_close. */
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        *out = db;
        return 0;
    }
    return td_fail(err, TD_ETRACE, path, "cannot open it");
}

bool td_summary_run_name_ok(sqlite3_stmt *q, int col)
{
    if (sqlite3_column_type(q, col) != SQLITE_TEXT)
        return false;
    const char *s = (const char *)sqlite3_column_text(q, col);
    int n = sqlite3_column_bytes(q, col);
    return s && n >= 0 && !memchr(s, 0, (size_t)n) && td_utf8_valid(s, (size_t)n, false);
}

/* "a, b, c" of the run names, for messages; -1 when a name is not one
 * tracediff writes (td_summary_run_name_ok), else 0. */
static int list_runs(sqlite3 *db, char *buf, size_t cap)
{
    sqlite3_stmt *q = NULL;
    size_t n = 0;
    int rc = 0;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT name FROM runs ORDER BY run_id", -1, &q, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (sqlite3_column_type(q, 0) != SQLITE_NULL && !td_summary_run_name_ok(q, 0))
            rc = -1;
        if (n + 8 >= cap)
            continue;
        const char *nm = (const char *)sqlite3_column_text(q, 0);
        int k = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", nm ? nm : "(null)");
        n = k < 0 ? n : n + (size_t)k >= cap ? cap - 1 : n + (size_t)k;
    }
    sqlite3_finalize(q);
    return rc;
}

/* "1,2,3" into *out (malloc'd, or NULL when empty); -1 when text is not
 * such a list. */
static int parse_list(int64_t **out, size_t *n, const char *text)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    const char *p = text;
    while (p && *p) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || (*end && *end != ','))
            return -1;
        int64_t *o = td_grow(*out, &cap, *n + 1, sizeof *o);
        if (!o)
            return -1;
        *out = o;
        o[(*n)++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

/* A run's row of the runs table, as open_set needs it. */
typedef struct run_row {
    int64_t id;
    char *where; /* "FILE#RUN", for messages */
    char *source, *ranks, *iters, *kept_ranks, *kept_iters;
    int device;
} run_row;

static void run_row_free(run_row *r)
{
    free(r->where);
    free(r->source);
    free(r->ranks);
    free(r->iters);
    free(r->kept_ranks);
    free(r->kept_iters);
}

static char *text_dup(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    return t ? strdup((const char *)t) : NULL;
}

/* Whether columns [from, to) of q's row all hold a value: a summary that
 * tracediff wrote has no NULL where this says none. */
static bool all_set(sqlite3_stmt *q, int from, int to)
{
    for (int i = from; i < to; i++)
        if (sqlite3_column_type(q, i) == SQLITE_NULL)
            return false;
    return true;
}

/* The row of q's current run into r. */
static int take_run_row(run_row *r, sqlite3_stmt *q, const char *file, td_error *err)
{
    r->id = sqlite3_column_int64(q, 0);
    if (!all_set(q, 1, 5))
        return td_fail(err, TD_ETRACE, file,
                       "damaged summary: a run without its name, source, ranks or iterations");
    const char *nm = (const char *)sqlite3_column_text(q, 1);
    size_t wl = strlen(file) + strlen(nm ? nm : "") + 2;
    r->where = malloc(wl);
    r->source = text_dup(q, 2);
    r->ranks = text_dup(q, 3);
    r->iters = text_dup(q, 4);
    r->kept_ranks = text_dup(q, 5);
    r->kept_iters = text_dup(q, 6);
    const char *dv = (const char *)sqlite3_column_text(q, 7);
    r->device = dv && strcmp(dv, "cpu") == 0   ? TD_DEVICE_CPU
                : dv && strcmp(dv, "gpu") == 0 ? TD_DEVICE_GPU
                                               : TD_DEVICE_ALL;
    if (!r->where || !r->source || !r->ranks || !r->iters)
        return td_fail(err, TD_ENOMEM, file, "out of memory");
    snprintf(r->where, wl, "%s#%s", file, nm ? nm : "");
    return 0;
}

/* The run named run, or the file's only run when run is NULL. */
static int find_run(run_row *r, sqlite3 *db, const char *file, const char *run, td_error *err)
{
    char names[200];
    if (list_runs(db, names, sizeof names) < 0)
        return td_fail(err, TD_ETRACE, file,
                       "damaged summary: a run's name is not UTF-8 text without NUL");
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT run_id, name, source, ranks, iterations, kept_ranks, "
                           "kept_iterations, kept_device FROM runs "
                           "WHERE ?1 IS NULL OR name = ?1 ORDER BY run_id",
                           -1, &q, NULL) != SQLITE_OK)
        return sql_fail(err, db, file, "reading runs");
    if (run)
        sqlite3_bind_text(q, 1, run, -1, SQLITE_STATIC);
    int nrun = 0, rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        if (nrun++ == 0 && (rc = take_run_row(r, q, file, err)) < 0) {
            sqlite3_finalize(q);
            return rc;
        }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return sql_fail(err, db, file, "reading runs");
    if (nrun == 0 && run)
        return td_fail(err, TD_ETRACE, file, "no run named '%s' (runs: %s)", run,
                       names[0] ? names : "none");
    if (nrun > 1 && run)
        return td_fail(err, TD_ETRACE, file, "damaged summary: %d runs are named '%s'", nrun, run);
    if (nrun != 1)
        return td_fail(err, TD_ETRACE, file,
                       nrun ? "holds %d runs: name one as FILE#RUN (runs: %s)" : "holds %d runs%s",
                       nrun, names);
    return 0;
}

int td_summary_verify(sqlite3 *db, const char *where, int64_t run_id, unsigned what,
                      const uint64_t *files_sum, td_error *err)
{
    int64_t from;
    sqlite3_stmt *q = NULL;
    int has = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'checksums'", -1,
                           &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        has = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    if (td_sum_checked_from(&from, db) < 0)
        return sql_fail(err, db, where, "reading meta");
    if (!has)
        return from == INT64_MAX
                   ? 0
                   : td_fail(err, TD_ETRACE, where, "damaged summary: its checksums are missing");
    td_run_sums want, have;
    int got = td_sum_stored(&want, db, run_id);
    if (got == -1)
        return sql_fail(err, db, where, "reading checksums");
    if (got == -2)
        return td_fail(err, TD_ETRACE, where,
                       "damaged summary: its checksums row is not one tracediff writes");
    if (got == 0)
        return run_id < from ? 0
                             : td_fail(err, TD_ETRACE, where,
                                       "damaged summary: the run has no checksums row");
    unsigned read = files_sum ? (what & ~(unsigned)TD_SUM_FILES) : what;
    if (td_sum_run(&have, db, run_id, read) < 0)
        return sql_fail(err, db, where, "reading the run to check it");
    if (files_sum)
        have.files = *files_sum;
    const char *bad = have.run != want.run                                ? "its runs row"
                      : (what & TD_SUM_FILES) && have.files != want.files ? "its files rows"
                      : (what & TD_SUM_DERIVED) && have.derived != want.derived
                          ? "its iterations, names or ops rows"
                          : NULL;
    if (bad)
        return td_fail(err, TD_ETRACE, where,
                       "damaged summary: %s do%s not match the checksums written with them (%s)",
                       bad, strcmp(bad, "its runs row") == 0 ? "es" : "", TD_SUM_ALGORITHM);
    return 1;
}

/* The packed bytes of files row id, read once into a buffer of their own. */
static int read_packed(unsigned char **out, size_t *len, sqlite3 *db, sqlite3_int64 id,
                       const char *file, td_error *err)
{
    sqlite3_blob *b = NULL;
    *out = NULL;
    if (sqlite3_blob_open(db, "main", "files", "packed", id, 0, &b) != SQLITE_OK) {
        sqlite3_blob_close(b);
        return sql_fail(err, db, file, "reading files");
    }
    int n = sqlite3_blob_bytes(b);
    unsigned char *p = td_big_alloc((size_t)n + 1);
    if (!p) {
        sqlite3_blob_close(b);
        return td_fail(err, TD_ENOMEM, file, "out of memory");
    }
    if (sqlite3_blob_read(b, p, n, 0) != SQLITE_OK) {
        td_big_free(p);
        sqlite3_blob_close(b);
        return sql_fail(err, db, file, "reading files");
    }
    sqlite3_blob_close(b);
    *out = p;
    *len = (size_t)n;
    return 0;
}

/* The run's files, unpacked, in rank order: *files malloc'd, *n of them;
 * *sum: the sum of their rows' checksums (summary_sum.c). */
static int read_files(td_file ***files, size_t *n, uint64_t *sum, sqlite3 *db, const char *file,
                      const run_row *r, td_error *err)
{
    sqlite3_stmt *q = NULL;
    size_t cap = 0;
    int rc;
    if (sqlite3_prepare_v2(db,
                           "SELECT rowid, sha256, " TD_SUM_FILE_COLS
                           " FROM files WHERE run_id = ? ORDER BY rank",
                           -1, &q, NULL) != SQLITE_OK)
        return sql_fail(err, db, file, "reading files");
    sqlite3_bind_int64(q, 1, r->id);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        unsigned char *p = NULL;
        size_t len = 0;
        td_file **nf = td_grow(*files, &cap, *n + 1, sizeof *nf);
        if (!nf) {
            rc = td_fail(err, TD_ENOMEM, file, "out of memory");
            break;
        }
        *files = nf;
        if ((rc = read_packed(&p, &len, db, sqlite3_column_int64(q, 0), file, err)) < 0)
            break;
        *sum += td_sum_file_row(q, 2, p, len);
        if ((rc = td_file_unpack_owned(&nf[*n], p, len, r->where, err)) < 0)
            break;
        const char *h = (const char *)sqlite3_column_text(q, 1);
        if (h && strlen(h) == 64 && strspn(h, "0123456789abcdef") == 64)
            memcpy(nf[*n]->sha256, h, 65);
        (*n)++;
    }
    sqlite3_finalize(q);
    if (rc < 0)
        return rc;
    if (rc != SQLITE_DONE)
        return sql_fail(err, db, file, "reading files");
    if (*n == 0)
        return td_fail(err, TD_ETRACE, r->where, "this run holds no files");
    return 0;
}

static bool ascending(const int64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i - 1] >= v[i])
            return false;
    return true;
}

/* Whether every value of a (ascending) is in b (ascending). */
static bool within(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && b[j] < a[i])
            j++;
        if (j == nb || b[j] != a[i])
            return false;
    }
    return true;
}

/* The run's files against what it says of its source: every file's rank
 * and iterations among the source's, and a file for every rank unless
 * ranks were picked (the files are in rank order, td_set_assemble). */
static bool files_agree(const td_set *s, bool ranks_picked)
{
    size_t j = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        while (j < s->nranks && s->ranks[j] < f->rank)
            j++;
        if (j == s->nranks || s->ranks[j] != f->rank || !ascending(f->iters, f->niters) ||
            !within(f->iters, f->niters, s->iters, s->niters))
            return false;
    }
    return ranks_picked || s->nfiles == s->nranks;
}

/* What the set knows of its source (every rank and iteration, whatever was
 * kept, each list ascending) and what it holds. */
static int describe_source(td_set *s, run_row *r, td_error *err)
{
    int64_t *v;
    size_t nv;
    if (parse_list(&v, &nv, r->ranks) < 0 || nv == 0 || !ascending(v, nv)) {
        free(v);
        return td_fail(err, TD_ETRACE, r->where, "damaged summary: bad ranks");
    }
    free(s->ranks);
    s->ranks = v;
    s->nranks = nv;
    if (parse_list(&v, &nv, r->iters) < 0 || !ascending(v, nv)) {
        free(v);
        return td_fail(err, TD_ETRACE, r->where, "damaged summary: bad iterations");
    }
    free(s->iters);
    s->iters = v;
    s->niters = nv;
    s->have_device = r->device;
    s->partial = r->kept_ranks || r->kept_iters || r->device != TD_DEVICE_ALL;
    if (r->kept_iters && parse_list(&s->have_iters, &s->nhave_iters, r->kept_iters) < 0)
        return td_fail(err, TD_ETRACE, r->where, "damaged summary: bad kept iterations");
    if (!files_agree(s, r->kept_ranks != NULL))
        return td_fail(err, TD_ETRACE, r->where,
                       "damaged summary: its files do not match the ranks and iterations of "
                       "the run");
    s->origin = r->where;
    r->where = NULL;
    return 0;
}

int td_summary_open_set(td_set **out, const char *file, const char *run, td_error *err)
{
    *out = NULL;
    sqlite3 *db = NULL;
    td_file **files = NULL;
    size_t nfiles = 0;
    run_row r = {0};
    td_set *s = NULL;
    int rc = td_summary_open_ro(&db, file, err);
    if (rc < 0)
        return rc;
    uint64_t sum = 0;
    int checked = 0;
    if ((rc = find_run(&r, db, file, run, err)) == 0 &&
        (rc = read_files(&files, &nfiles, &sum, db, file, &r, err)) == 0 &&
        (rc = checked = td_summary_verify(db, r.where, r.id, TD_SUM_FILES, &sum, err)) >= 0) {
        rc = td_set_assemble(&s, r.source, files, nfiles, err); /* takes the files */
        files = NULL;
        nfiles = 0;
        if (rc == 0)
            s->unchecked = !checked;
    }
    if (rc == 0 && (rc = describe_source(s, &r, err)) < 0) {
        td_set_free(s);
        s = NULL;
    }
    *out = s;
    sqlite3_close(db);
    for (size_t i = 0; i < nfiles; i++)
        td_file_free(files[i]);
    free(files);
    run_row_free(&r);
    return rc;
}

static char *col_dup(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    return t ? strdup((const char *)t) : NULL;
}

/* Run n's row of q (td_summary_runs' query) into r, checked against its
 * checksums: every number listed comes from the run's rows. */
static int take_run_info(td_run_info *r, sqlite3_stmt *q, sqlite3 *db, const char *path, size_t n,
                         td_error *err)
{
    if (!all_set(q, 0, 4) || sqlite3_column_type(q, 6) == SQLITE_NULL)
        return td_fail(err, TD_ETRACE, path,
                       "damaged summary: run %zu lacks its name, date, version, source or device",
                       n);
    if (!td_summary_run_name_ok(q, 0))
        return td_fail(err, TD_ETRACE, path,
                       "damaged summary: the name of run %zu is not UTF-8 text without NUL", n);
    r->name = col_dup(q, 0);
    r->created = col_dup(q, 1);
    r->tool_version = col_dup(q, 2);
    r->source = col_dup(q, 3);
    r->kept_ranks = col_dup(q, 4);
    r->kept_iterations = col_dup(q, 5);
    r->kept_device = col_dup(q, 6);
    r->nranks = (uint64_t)sqlite3_column_int64(q, 7);
    r->niters = (uint64_t)sqlite3_column_int64(q, 8);
    r->nfiles = (uint64_t)sqlite3_column_int64(q, 9);
    r->source_bytes = (uint64_t)sqlite3_column_int64(q, 10);
    r->json_bytes = (uint64_t)sqlite3_column_int64(q, 11);
    r->events = (uint64_t)sqlite3_column_int64(q, 12);
    r->cpu_us = sqlite3_column_double(q, 13);
    r->gpu_us = sqlite3_column_double(q, 14);
    char *where = r->name ? malloc(strlen(path) + strlen(r->name) + 2) : NULL;
    if (!where || !r->created || !r->tool_version || !r->source || !r->kept_device) {
        free(where);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    sprintf(where, "%s#%s", path, r->name);
    int checked = td_summary_verify(db, where, sqlite3_column_int64(q, 15),
                                    TD_SUM_FILES | TD_SUM_DERIVED, NULL, err);
    free(where);
    r->unchecked = checked == 0;
    return checked < 0 ? checked : 0;
}

long td_summary_runs(td_run_info **out, const char *path, td_error *err)
{
    *out = NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    td_run_info *v = NULL;
    size_t n = 0, cap = 0;
    int rc = td_summary_open_ro(&db, path, err);
    if (rc < 0)
        return rc;
    if (sqlite3_prepare_v2(
            db,
            "SELECT name, created, tool_version, source, kept_ranks, kept_iterations, "
            "kept_device, (SELECT count(DISTINCT rank) FROM files f WHERE f.run_id = r.run_id), "
            "(SELECT count(DISTINCT iteration) FROM iterations i WHERE i.run_id = r.run_id), "
            "files, source_bytes, json_bytes, events, cpu_us, gpu_us, run_id FROM runs r "
            "ORDER BY run_id",
            -1, &q, NULL) != SQLITE_OK) {
        rc = sql_fail(err, db, path, "reading runs");
        goto done;
    }
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        td_run_info *nv = td_grow(v, &cap, n + 1, sizeof *nv);
        if (!nv) {
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
            goto done;
        }
        v = nv;
        td_run_info *r = &v[n++];
        memset(r, 0, sizeof *r);
        if ((rc = take_run_info(r, q, db, path, n, err)) < 0)
            goto done;
    }
    if (rc != SQLITE_DONE) {
        rc = sql_fail(err, db, path, "reading runs");
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(q);
    sqlite3_close(db);
    if (rc < 0) {
        td_run_infos_free(v, n);
        return rc;
    }
    *out = v;
    return (long)n;
}

void td_run_infos_free(td_run_info *runs, size_t n)
{
    for (size_t i = 0; runs && i < n; i++) {
        td_run_info *r = &runs[i];
        free(r->name);
        free(r->created);
        free(r->tool_version);
        free(r->source);
        free(r->kept_ranks);
        free(r->kept_iterations);
        free(r->kept_device);
    }
    free(runs);
}
