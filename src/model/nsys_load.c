/*
 * SQLite exports of other profilers (docs/profilers.md): Nsight Systems'
 * (nsys export --type sqlite) and rocprofv3's rocpd databases. Their rows
 * become the events a Kineto trace of the same run holds (prof_load.h).
 *
 * Every schema seen in the wild reads: columns are looked up by name (their
 * number and order change between versions), and a table that is absent
 * means that nothing of its kind was recorded. The database is opened
 * read-only and immutable (an export is never written while read), with
 * SQLite's defensive settings, as summaries are (store/summary_read.c).
 */
#include "model/prof_load.h"
#include "read/reader.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char sqlite_magic[16] = "SQLite format 3";

static bool contains(const char *h, size_t n, const char *w)
{
    size_t m = strlen(w);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(h + i, w, m) == 0)
            return true;
    return false;
}

/* One JSON object per line, the first not a Kineto trace: nsys's JSON. */
static bool json_lines(const char *h, size_t n)
{
    size_t i = 0;
    while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
        i++;
    if (i >= n || h[i] != '{')
        return false;
    const char *nl = memchr(h + i, '\n', n - i);
    if (!nl)
        return false;
    size_t k = (size_t)(nl - h) + 1;
    while (k < n && (h[k] == ' ' || h[k] == '\t' || h[k] == '\r'))
        k++;
    if (k >= n || h[k] != '{' || k < 2)
        return false;
    size_t e = (size_t)(nl - h);
    while (e > i && (h[e - 1] == '\r' || h[e - 1] == ' '))
        e--;
    return e > i && h[e - 1] == '}' && !contains(h, e, "traceEvents");
}

/* rocprofiler's writer opens results.json with '{ "traceEvents":[{}'
 * (bin/sqlitedb.py, open_json): an empty first event, which no Kineto
 * trace has; white space allowed. */
static bool rocprof_v1(const char *h, size_t n)
{
    static const char *const tokens[] = {"{", "\"traceEvents\"", ":", "[", "{", "}"};
    size_t i = 0;
    for (size_t t = 0; t < sizeof tokens / sizeof *tokens; t++) {
        while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\r' || h[i] == '\n'))
            i++;
        size_t m = strlen(tokens[t]);
        if (i + m > n || memcmp(h + i, tokens[t], m) != 0)
            return false;
        i += m;
    }
    return contains(h, n, "\"process_name\"") || contains(h, n, "\"ph\":\"X\"");
}

/* A compressed file's first decompressed bytes: a results.json may be
 * stored gzip'ed or zstd'ed like any trace. */
static bool compressed_rocprof_v1(const char *path, const unsigned char *h, size_t n)
{
    bool gz = n >= 2 && h[0] == 0x1f && h[1] == 0x8b;
    bool zst = n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd;
    if (!gz && !zst)
        return false;
    td_reader *r = NULL;
    td_error e;
    if (td_reader_open(&r, path, &e) < 0)
        return false; /* the reader says why, later */
    td_reader_inline(r);
    char d[4096];
    size_t got = 0;
    long k;
    while (got < sizeof d && (k = td_reader_read(r, d + got, sizeof d - got, &e)) > 0)
        got += (size_t)k;
    td_reader_close(r);
    return rocprof_v1(d, got);
}

td_prof_kind td_prof_sniff(const char *path)
{
    if (td_has_suffix(path, ".nsys-rep") || td_has_suffix(path, ".qdrep"))
        return TD_PROF_NSYS_REP;
    /* Only a regular file is looked at first: a pipe's bytes, once read,
     * would be gone for the trace reader (and SQLite cannot read one). */
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return TD_PROF_NONE;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return TD_PROF_NONE; /* the reader says why */
    char h[4096];
    size_t n = fread(h, 1, sizeof h, fp);
    fclose(fp);
    if (n >= 16 && memcmp(h, sqlite_magic, 16) == 0)
        return TD_PROF_SQLITE;
    if (json_lines(h, n))
        return TD_PROF_NSYS_JSON;
    if (rocprof_v1(h, n) || compressed_rocprof_v1(path, (const unsigned char *)h, n))
        return TD_PROF_ROCPROF_V1;
    return TD_PROF_NONE;
}

/* file:PATH?immutable=1, the path percent-encoded where a URI needs it. */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + 32);
    if (!u)
        return NULL;
    size_t k = 0;
    memcpy(u, "file:", 5);
    k = 5;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c == '?' || c == '#' || c == '%' || c <= ' ' || c >= 0x7f) {
            k += (size_t)sprintf(u + k, "%%%02X", c);
        } else {
            u[k++] = (char)c;
        }
    }
    strcpy(u + k, "?immutable=1");
    return u;
}

static int db_fail(td_error *err, sqlite3 *db, const char *path, const char *what)
{
    int code = db ? sqlite3_errcode(db) : SQLITE_CANTOPEN;
    const char *m = db ? sqlite3_errmsg(db) : "cannot open";
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
        return td_fail(err, TD_ETRACE, path, "%s: the SQLite file is damaged (%s)", what, m);
    return td_fail(err, TD_ETRACE, path, "%s: %s", what, m);
}

/* The size SQLite's header gives the database (page size x pages), or 0
 * when the header does not vouch for its page count. */
static uint64_t header_size(const unsigned char *h)
{
    uint32_t ps = ((uint32_t)h[16] << 8) | h[17];
    uint64_t page = ps == 1 ? 65536 : ps;
    uint32_t pages =
        ((uint32_t)h[28] << 24) | ((uint32_t)h[29] << 16) | ((uint32_t)h[30] << 8) | h[31];
    if (memcmp(h + 24, h + 92, 4) != 0 || pages == 0 || page < 512)
        return 0;
    return page * pages;
}

/* A file cut short (a copy interrupted) is told before SQLite reads zeros
 * where pages should be. */
static int check_whole(const char *path, td_error *err)
{
    unsigned char h[100];
    struct stat st;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return td_fail(err, TD_EIO, path, "%s", strerror(errno));
    size_t n = fread(h, 1, sizeof h, fp);
    int bad = fstat(fileno(fp), &st);
    fclose(fp);
    if (bad)
        return td_fail(err, TD_EIO, path, "%s", strerror(errno));
    if (n < sizeof h)
        return td_fail(err, TD_ETRACE, path, "truncated SQLite file (%zu bytes)", n);
    uint64_t want = header_size(h);
    if (want && (uint64_t)st.st_size < want)
        return td_fail(err, TD_ETRACE, path,
                       "truncated SQLite file: %llu bytes of the %llu its header gives",
                       (unsigned long long)st.st_size, (unsigned long long)want);
    return 0;
}

static int db_open(sqlite3 **out, const char *path, td_error *err)
{
    *out = NULL;
    char *uri = immutable_uri(path);
    if (!uri)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    sqlite3 *db = NULL;
    /* One thread uses the connection: no mutexes. */
    int src = sqlite3_open_v2(uri, &db,
                              SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    if (src != SQLITE_OK) {
        int rc = db_fail(err, db, path, "cannot open it");
        sqlite3_close(db);
        return rc;
    }
    /* Nothing in the file runs as code: no triggers, innocuous functions
     * only; views stay (rocpd's stable names are views). */
    int bad = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    bad |= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    bad |= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    if (bad) {
        sqlite3_close(db);
        return td_fail(err, TD_ETRACE, path, "this SQLite cannot open it safely");
    }
    *out = db;
    return 0;
}

/* 1 when the table or view exists, 0 when not, < 0 on error. */
static int has_object(sqlite3 *db, const char *name)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(
            db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &q,
            NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* 1 nsys, 2 rocpd, 0 neither, -1 unreadable. */
static int db_kind(sqlite3 *db)
{
    int strings = has_object(db, "StringIds");
    if (strings < 0)
        return -1;
    if (strings) {
        static const char *const nsys[] = {
            "CUPTI_ACTIVITY_KIND_KERNEL", "NVTX_EVENTS",      "CUPTI_ACTIVITY_KIND_RUNTIME",
            "EXPORT_META_DATA",           "META_DATA_EXPORT", "TARGET_INFO_GPU"};
        for (size_t i = 0; i < sizeof nsys / sizeof *nsys; i++) {
            int k = has_object(db, nsys[i]);
            if (k)
                return k < 0 ? -1 : 1;
        }
    }
    int meta = has_object(db, "rocpd_metadata");
    if (meta < 0)
        return -1;
    if (meta) {
        int k = has_object(db, "kernels");
        return k < 0 ? -1 : 2;
    }
    return 0;
}

int td_prof_sqlite_kind(const char *path)
{
    sqlite3 *db = NULL;
    td_error e;
    if (check_whole(path, &e) < 0 || db_open(&db, path, &e) < 0)
        return -1;
    int k = db_kind(db);
    sqlite3_close(db);
    return k;
}

/* ------------------------------------------------------------------------ */
/* Columns by name. */

#define MAXCOL 16

/* The columns of table t that a query needs, by name: want[i] (NULL ends
 * the list; a name ending in '?' is optional). *sql gets
 * "SELECT c1, c2, ... FROM t" with NULL for an optional column that is
 * absent. 0, or TD_ETRACE naming the missing column. */
static int select_cols(sqlite3 *db, const char *path, const char *t, const char *const *want,
                       char **sql, td_error *err)
{
    *sql = NULL;
    size_t cap = 256 + strlen(t);
    for (size_t i = 0; want[i]; i++)
        cap += strlen(want[i]) + 8;
    char *s = malloc(cap), q[256];
    if (!s)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    size_t k = (size_t)snprintf(s, cap, "SELECT ");
    for (size_t i = 0; want[i]; i++) {
        size_t wl = strlen(want[i]);
        bool optional = want[i][wl - 1] == '?';
        if (optional)
            wl--;
        snprintf(q, sizeof q, "SELECT 1 FROM pragma_table_info('%s') WHERE name = '%.*s'", t,
                 (int)wl, want[i]);
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
        rc = rc == SQLITE_OK ? sqlite3_step(st) : rc;
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            free(s);
            return db_fail(err, db, path, t);
        }
        const char *sep = i ? ", " : "";
        if (rc == SQLITE_ROW) {
            k += (size_t)snprintf(s + k, cap - k, "%s\"%.*s\"", sep, (int)wl, want[i]);
        } else if (optional) {
            k += (size_t)snprintf(s + k, cap - k, "%sNULL", sep);
        } else {
            free(s);
            return td_fail(err, TD_ETRACE, path, "table %s has no column %.*s", t, (int)wl,
                           want[i]);
        }
    }
    snprintf(s + k, cap - k, " FROM \"%s\"", t);
    *sql = s;
    return 0;
}

/* Strings of StringIds by id. */
typedef struct strings {
    sqlite3_stmt *q;
} strings;

/* The names id each StringIds id became (+ 1; 0 not yet), for the ids
 * below CACHE_MAX: a table names a few hundred strings a million times,
 * each looked up and interned once. */
#define CACHE_MAX ((int64_t)1 << 22)
typedef struct name_cache {
    int64_t *id1;
    size_t cap;
} name_cache;

static const char *string_of(strings *st, int64_t id, size_t *len)
{
    sqlite3_reset(st->q);
    sqlite3_bind_int64(st->q, 1, id);
    if (sqlite3_step(st->q) != SQLITE_ROW || sqlite3_column_type(st->q, 0) == SQLITE_NULL)
        return NULL;
    const char *s = (const char *)sqlite3_column_text(st->q, 0);
    *len = (size_t)sqlite3_column_bytes(st->q, 0);
    return s;
}

typedef struct nsys_ctx {
    sqlite3 *db;
    const char *path;
    td_error *err;
    td_prof_sink *sink;
    strings str;
    bool demangled;
} nsys_ctx;

static size_t api_name_len(const char *s, size_t len);

/* The names id of StringIds id sid (runtime API names without their
 * version when api): >= 0; -1 when StringIds lacks it; < -1 on error. */
static int64_t cached_name(nsys_ctx *c, name_cache *nc, int64_t sid, bool api)
{
    bool cacheable = sid >= 0 && sid < CACHE_MAX;
    if (cacheable && (size_t)sid < nc->cap && nc->id1[sid])
        return nc->id1[sid] - 1;
    size_t len = 0;
    const char *s = string_of(&c->str, sid, &len);
    if (!s)
        return -1;
    int64_t nid = td_prof_sink_name(c->sink, s, api ? api_name_len(s, len) : len);
    if (nid < 0 || !cacheable)
        return nid < 0 ? TD_ENOMEM : nid;
    if ((size_t)sid >= nc->cap) {
        size_t old = nc->cap;
        int64_t *n1 = td_grow(nc->id1, &nc->cap, (size_t)sid + 1, sizeof *n1);
        if (!n1)
            return td_fail(c->err, TD_ENOMEM, c->path, "out of memory");
        memset(n1 + old, 0, (nc->cap - old) * sizeof *n1);
        nc->id1 = n1;
    }
    nc->id1[sid] = nid + 1;
    return nid;
}

static int step_fail(nsys_ctx *c, const char *table)
{
    return db_fail(c->err, c->db, c->path, table);
}

/* Prepares the SELECT of the wanted columns of table t: 0 and *q, or 1 when
 * the table is absent (nothing of its kind recorded), or < 0. */
static int prepare_table(nsys_ctx *c, const char *t, const char *const *want, const char *tail,
                         sqlite3_stmt **q)
{
    *q = NULL;
    int k = has_object(c->db, t);
    if (k < 0)
        return step_fail(c, t);
    if (k == 0)
        return 1;
    char *sql = NULL;
    int rc = select_cols(c->db, c->path, t, want, &sql, c->err);
    if (rc < 0)
        return rc;
    size_t n = strlen(sql) + (tail ? strlen(tail) : 0) + 1;
    char *full = malloc(n);
    if (!full) {
        free(sql);
        return td_fail(c->err, TD_ENOMEM, c->path, "out of memory");
    }
    snprintf(full, n, "%s%s", sql, tail ? tail : "");
    free(sql);
    rc = sqlite3_prepare_v2(c->db, full, -1, q, NULL);
    free(full);
    return rc == SQLITE_OK ? 0 : step_fail(c, t);
}

/* ns -> us, keeping the decimals (docs/profilers.md, "Times"). */
static double us(int64_t ns)
{
    return (double)ns / 1000.0;
}

/* Adds one event from a row's start and end (ns); rows without both are
 * counted as skipped, never dropped silently. */
static int add_timed(nsys_ctx *c, td_prof_cat cat, sqlite3_stmt *q, int col_start, const char *s,
                     size_t len, int64_t stream, int64_t corr, int64_t pid, int64_t tid)
{
    if (!s || sqlite3_column_type(q, col_start) == SQLITE_NULL ||
        sqlite3_column_type(q, col_start + 1) == SQLITE_NULL) {
        c->sink->f->events_total++;
        c->sink->f->events_skipped++;
        return 0;
    }
    int64_t a = sqlite3_column_int64(q, col_start), b = sqlite3_column_int64(q, col_start + 1);
    return td_prof_sink_add(c->sink, cat, s, len, us(a), us(b - a), stream, corr, pid, tid);
}

/* add_timed for a names id (cached_name: < 0 when the row has no name). */
static int add_timed_id(nsys_ctx *c, td_prof_cat cat, sqlite3_stmt *q, int64_t nid, int64_t stream,
                        int64_t corr, int64_t pid, int64_t tid)
{
    if (nid < -1)
        return (int)nid;
    if (nid < 0 || sqlite3_column_type(q, 0) == SQLITE_NULL ||
        sqlite3_column_type(q, 1) == SQLITE_NULL) {
        c->sink->f->events_total++;
        c->sink->f->events_skipped++;
        return 0;
    }
    int64_t a = sqlite3_column_int64(q, 0), b = sqlite3_column_int64(q, 1);
    return td_prof_sink_add_id(c->sink, cat, nid, us(a), us(b - a), stream, corr, pid, tid);
}

/* nsys's globalTid / globalPid: the pid in bits 24-47, the tid in 0-23. */
static int64_t pid_of(int64_t g)
{
    return (g >> 24) & 0xFFFFFF;
}

/* ------------------------------------------------------------------------ */
/* Nsight Systems */

static int nsys_kernels(nsys_ctx *c)
{
    const char *name_col = c->demangled ? "demangledName" : "shortName";
    const char *want[] = {"start",  "end",        "streamId", "correlationId",
                          name_col, "globalPid?", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "CUPTI_ACTIVITY_KIND_KERNEL", want, NULL, &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    name_cache nc = {0};
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t nid = cached_name(c, &nc, sqlite3_column_int64(q, 4), false);
        int64_t pid = pid_of(sqlite3_column_int64(q, 5));
        c->sink->gpu_rows++;
        if ((rc = add_timed_id(c, TD_PC_KERNEL, q, nid, sqlite3_column_int64(q, 2),
                               sqlite3_column_int64(q, 3), pid, -1)) < 0)
            break;
    }
    free(nc.id1);
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = step_fail(c, "CUPTI_ACTIVITY_KIND_KERNEL");
    sqlite3_finalize(q);
    return rc;
}

/* Kineto's names for copy kinds and memory kinds (CUPTI's strings). */
static const char *copy_kind(int64_t k)
{
    static const char *const kinds[] = {"Unknown", "HtoD",     "DtoH",     "HtoA",    "AtoH",
                                        "AtoA",    "AtoD",     "DtoA",     "DtoD",    "HtoH",
                                        "PtoP",    "UVM HtoD", "UVM DtoH", "UVM DtoD"};
    return k >= 0 && k < (int64_t)(sizeof kinds / sizeof *kinds) ? kinds[k] : "Unknown";
}

/* nsys's ENUM_CUDA_MEM_KIND (its own numbering, not CUPTI's). */
static const char *mem_kind(int64_t k)
{
    static const char *const kinds[] = {"Pageable", "Pinned",        "Device",         "Array",
                                        "Managed",  "Device Static", "Managed Static", "Unknown"};
    return k >= 0 && k < (int64_t)(sizeof kinds / sizeof *kinds) ? kinds[k] : "Unknown";
}

static int nsys_copies(nsys_ctx *c)
{
    const char *want[] = {"start",         "end",        "streamId",
                          "correlationId", "copyKind",   "srcKind?",
                          "dstKind?",      "globalPid?", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "CUPTI_ACTIVITY_KIND_MEMCPY", want, NULL, &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    char name[96];
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int n;
        const char *kind = copy_kind(sqlite3_column_int64(q, 4));
        if (sqlite3_column_type(q, 5) == SQLITE_NULL || sqlite3_column_type(q, 6) == SQLITE_NULL)
            n = snprintf(name, sizeof name, "Memcpy %s", kind);
        else
            n = snprintf(name, sizeof name, "Memcpy %s (%s -> %s)", kind,
                         mem_kind(sqlite3_column_int64(q, 5)),
                         mem_kind(sqlite3_column_int64(q, 6)));
        c->sink->gpu_rows++;
        if ((rc = add_timed(c, TD_PC_MEMCPY, q, 0, name, (size_t)n, sqlite3_column_int64(q, 2),
                            sqlite3_column_int64(q, 3), pid_of(sqlite3_column_int64(q, 7)), -1)) <
            0)
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = step_fail(c, "CUPTI_ACTIVITY_KIND_MEMCPY");
    sqlite3_finalize(q);
    return rc;
}

static int nsys_memsets(nsys_ctx *c)
{
    const char *want[] = {"start",    "end",        "streamId", "correlationId",
                          "memKind?", "globalPid?", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "CUPTI_ACTIVITY_KIND_MEMSET", want, NULL, &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    char name[64];
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int n =
            sqlite3_column_type(q, 4) == SQLITE_NULL
                ? snprintf(name, sizeof name, "Memset")
                : snprintf(name, sizeof name, "Memset (%s)", mem_kind(sqlite3_column_int64(q, 4)));
        c->sink->gpu_rows++;
        if ((rc = add_timed(c, TD_PC_MEMSET, q, 0, name, (size_t)n, sqlite3_column_int64(q, 2),
                            sqlite3_column_int64(q, 3), pid_of(sqlite3_column_int64(q, 5)), -1)) <
            0)
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = step_fail(c, "CUPTI_ACTIVITY_KIND_MEMSET");
    sqlite3_finalize(q);
    return rc;
}

/* "cudaLaunchKernel_v7000" is Kineto's "cudaLaunchKernel": nsys keeps the
 * API version CUPTI's callback names carry. */
static size_t api_name_len(const char *s, size_t len)
{
    size_t k = len;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k < len && k >= 3 && s[k - 1] == 'v' && s[k - 2] == '_')
        return k - 2;
    return len;
}

static int nsys_runtime(nsys_ctx *c)
{
    const char *want[] = {"start", "end", "correlationId", "nameId", "globalTid?", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "CUPTI_ACTIVITY_KIND_RUNTIME", want, NULL, &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    name_cache nc = {0};
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t nid = cached_name(c, &nc, sqlite3_column_int64(q, 3), true);
        int64_t g = sqlite3_column_int64(q, 4);
        if ((rc = add_timed_id(c, TD_PC_RUNTIME, q, nid, -1, sqlite3_column_int64(q, 2), pid_of(g),
                               g & 0xFFFFFF)) < 0)
            break;
    }
    free(nc.id1);
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = step_fail(c, "CUPTI_ACTIVITY_KIND_RUNTIME");
    sqlite3_finalize(q);
    return rc;
}

/* NVTX push/pop and start/end ranges (event types 59 and 60; marks and
 * ranges never closed have no duration). Text inline, or behind textId. */
static int nsys_nvtx(nsys_ctx *c)
{
    const char *want[] = {"start", "end", "eventType", "text?", "textId?", "globalTid?", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "NVTX_EVENTS", want, " WHERE \"eventType\" IN (59, 60)", &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        size_t len = 0;
        const char *s = NULL;
        if (sqlite3_column_type(q, 3) != SQLITE_NULL) {
            s = (const char *)sqlite3_column_text(q, 3);
            len = (size_t)sqlite3_column_bytes(q, 3);
        } else if (sqlite3_column_type(q, 4) != SQLITE_NULL) {
            s = string_of(&c->str, sqlite3_column_int64(q, 4), &len);
        }
        if (!s) { /* an unnamed range: nsys shows it so */
            s = "(unnamed)";
            len = 9;
        }
        c->sink->ann_rows++;
        int64_t g = sqlite3_column_int64(q, 5);
        if ((rc = add_timed(c, TD_PC_ANNOTATION, q, 0, s, len, -1, -1, pid_of(g), g & 0xFFFFFF)) <
            0)
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = step_fail(c, "NVTX_EVENTS");
    sqlite3_finalize(q);
    return rc;
}

/* One text value of a (name, value) table, malloc'd; NULL when absent. */
static char *meta_value(sqlite3 *db, const char *table, const char *keycol, const char *valcol,
                        const char *key)
{
    if (has_object(db, table) != 1)
        return NULL;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT \"%s\" FROM \"%s\" WHERE \"%s\" = ?", valcol, table, keycol);
    sqlite3_stmt *q = NULL;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
            v = strdup((const char *)sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
    return v;
}

static int set_format(td_file *f, const char *tool, const char *version, td_error *err)
{
    size_t n = strlen(tool) + (version ? strlen(version) : 0) + 32;
    f->format = malloc(n);
    if (!f->format)
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    snprintf(f->format, n, "%s %s", tool, version ? version : "(version not recorded)");
    return 0;
}

static int nsys_meta(nsys_ctx *c)
{
    td_file *f = c->sink->f;
    char *v = meta_value(c->db, "META_DATA_EXPORT", "name", "value", "EXPORT_PRODUCT_VERSION");
    if (!v)
        v = meta_value(c->db, "EXPORT_META_DATA", "name", "value", "EXPORT_PRODUCT_VERSION");
    int rc = set_format(f, "Nsight Systems SQLite export", v, c->err);
    free(v);
    if (rc == 0 && has_object(c->db, "TARGET_INFO_GPU") == 1) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(c->db, "SELECT name FROM TARGET_INFO_GPU LIMIT 1", -1, &q, NULL) ==
                SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
            f->device_name = strdup((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    return rc;
}

/* The rank nsys recorded for an export made under MPI (--trace=mpi):
 * MPI_RANKS maps each of the ranks' threads (globalTid) to its rank (the
 * Nsight Systems SQLite schema reference; its own mpi_event_trace report
 * joins it so). One rank among the processes read is the file's rank;
 * several (an export of more than one rank: --pid picks one) leave the
 * file's place in the set, and info says why. */
static int nsys_rank(nsys_ctx *c)
{
    const char *want[] = {"globalTid", "rank", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "MPI_RANKS", want, NULL, &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    int64_t rank = 0;
    int seen = 0; /* 0 none, 1 one rank, 2 several */
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (sqlite3_column_type(q, 1) == SQLITE_NULL ||
            !td_pid_selected(&c->sink->sel, pid_of(sqlite3_column_int64(q, 0))))
            continue;
        int64_t r = sqlite3_column_int64(q, 1);
        if (seen == 0)
            rank = r;
        seen = seen == 0 || (seen == 1 && r == rank) ? 1 : 2;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return step_fail(c, "MPI_RANKS");
    td_file *f = c->sink->f;
    if (seen == 1 && rank >= 0) {
        f->rank = rank;
        f->has_rank = 1;
        f->rank_from = TD_RANK_FROM_MPI;
    } else if (seen == 2) {
        f->rank_from = TD_RANK_FROM_PLACE_MANY;
    }
    return 0;
}

/* The name of each process read, from PROCESSES (pid, name) when nsys
 * recorded it: one NUL-terminated name per process, "" when absent. */
static int nsys_process_names(nsys_ctx *c)
{
    td_prof_sink *s = c->sink;
    if (s->nprocs == 0 || has_object(c->db, "PROCESSES") != 1)
        return 0;
    const char *want[] = {"name", NULL};
    sqlite3_stmt *q;
    int rc = prepare_table(c, "PROCESSES", want, " WHERE \"pid\" = ? LIMIT 1", &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    size_t cap = 0, n = 0;
    char *names = NULL;
    for (size_t i = 0; i < s->nprocs && rc >= 0; i++) {
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, s->proc_pid[i]);
        const char *v = "";
        size_t len = 0;
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
            v = (const char *)sqlite3_column_text(q, 0);
            len = strnlen(v, (size_t)sqlite3_column_bytes(q, 0));
        }
        char *nn = td_grow(names, &cap, n + len + 1, 1);
        if (!nn) {
            rc = td_fail(c->err, TD_ENOMEM, c->path, "out of memory");
            break;
        }
        names = nn;
        memcpy(names + n, v, len);
        names[n + len] = '\0';
        n += len + 1;
    }
    sqlite3_finalize(q);
    if (rc < 0) {
        free(names);
        return rc;
    }
    s->f->proc_names = names;
    s->f->proc_names_len = n;
    return 0;
}

static int nsys_read(nsys_ctx *c)
{
    if (sqlite3_prepare_v2(c->db, "SELECT value FROM StringIds WHERE id = ?", -1, &c->str.q,
                           NULL) != SQLITE_OK)
        return step_fail(c, "StringIds");
    int rc;
    if ((rc = nsys_meta(c)) < 0 || (rc = nsys_runtime(c)) < 0 || (rc = nsys_nvtx(c)) < 0 ||
        (rc = nsys_kernels(c)) < 0 || (rc = nsys_copies(c)) < 0 || (rc = nsys_memsets(c)) < 0 ||
        (rc = td_prof_sink_check_pids(c->sink)) < 0 || (rc = nsys_rank(c)) < 0 ||
        (rc = nsys_process_names(c)) < 0)
        return rc;
    if (c->sink->gpu_rows == 0 && c->sink->ann_rows == 0)
        return td_fail(c->err, TD_ETRACE, c->path,
                       "this Nsight Systems export holds no GPU activity and no NVTX ranges: "
                       "nothing to compare (profile with --trace=cuda,nvtx)");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* rocpd (rocprofv3's database): its views, never the UUID-suffixed tables. */

static int rocpd_view(nsys_ctx *c, const char *view, td_prof_cat cat, const char *const *want,
                      const char *tail)
{
    sqlite3_stmt *q;
    int rc = prepare_table(c, view, want, tail, &q);
    if (rc != 0)
        return rc > 0 ? 0 : rc;
    /* Columns: name, start, end, stream, correlation, pid, tid. */
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(q, 0);
        size_t len = (size_t)sqlite3_column_bytes(q, 0);
        int64_t stream = -1;
        if (cat != TD_PC_RUNTIME && cat != TD_PC_ANNOTATION)
            stream = sqlite3_column_type(q, 3) == SQLITE_NULL ? 0 : sqlite3_column_int64(q, 3);
        int64_t corr = sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 4);
        if (cat == TD_PC_ANNOTATION)
            corr = -1;
        if (cat == TD_PC_ANNOTATION)
            c->sink->ann_rows++;
        else if (cat != TD_PC_RUNTIME)
            c->sink->gpu_rows++;
        if ((rc = add_timed(c, cat, q, 1, s, len, stream, corr, sqlite3_column_int64(q, 5),
                            sqlite3_column_int64(q, 6))) < 0)
            break;
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = step_fail(c, view);
    sqlite3_finalize(q);
    return rc;
}

static int rocpd_read(nsys_ctx *c)
{
    char *v = meta_value(c->db, "rocpd_metadata", "tag", "value", "schema_version");
    int rc = set_format(c->sink->f, "rocprofv3 rocpd SQLite, schema", v, c->err);
    free(v);
    if (rc < 0)
        return rc;
    /* The views' columns as rocprofv3 documents them (data_views.sql): the
     * kernel's display name is "name"; a few releases said kernel_name. */
    static const char *const cols[] = {"name", "start", "end", "stream_id?", "correlation_id?",
                                       "pid?", "tid?",  NULL};
    static const char *const kcols_old[] = {"kernel_name",     "start", "end",  "stream_id?",
                                            "correlation_id?", "pid?",  "tid?", NULL};
    sqlite3_stmt *probe = NULL;
    bool has_name = sqlite3_prepare_v2(c->db, "SELECT \"name\" FROM kernels LIMIT 0", -1, &probe,
                                       NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    if ((rc = rocpd_view(c, "kernels", TD_PC_KERNEL, has_name ? cols : kcols_old, NULL)) < 0 ||
        (rc = rocpd_view(c, "memory_copies", TD_PC_MEMCPY, cols, NULL)) < 0 ||
        (rc = rocpd_view(c, "regions", TD_PC_RUNTIME, cols,
                         " WHERE \"category\" LIKE 'HIP_%API%'")) < 0 ||
        (rc = rocpd_view(c, "regions", TD_PC_ANNOTATION, cols,
                         " WHERE \"category\" LIKE 'MARKER_%'")) < 0 ||
        (rc = td_prof_sink_check_pids(c->sink)) < 0)
        return rc;
    if (c->sink->gpu_rows == 0 && c->sink->ann_rows == 0)
        return td_fail(c->err, TD_ETRACE, c->path,
                       "this rocpd database holds no GPU activity and no markers: nothing to "
                       "compare");
    return 0;
}

/* ------------------------------------------------------------------------ */

static int sqlite_load(td_prof_sink *sink, const char *path, int flags, td_error *err)
{
    int rc = check_whole(path, err);
    if (rc < 0)
        return rc;
    nsys_ctx c = {.path = path, .err = err, .sink = sink};
    c.demangled = (flags & TD_LOAD_DEMANGLED) != 0;
    if ((rc = db_open(&c.db, path, err)) < 0)
        return rc;
    int kind = db_kind(c.db);
    if (kind < 0)
        rc = db_fail(err, c.db, path, "cannot read it");
    else if (kind == 0)
        rc = td_fail(err, TD_ETRACE, path,
                     "a SQLite database that is neither an Nsight Systems export nor a rocpd "
                     "database (nor a tracediff summary: those go by themselves, not in a "
                     "folder of traces)");
    else
        rc = kind == 1 ? nsys_read(&c) : rocpd_read(&c);
    sqlite3_finalize(c.str.q);
    sqlite3_close(c.db);
    return rc;
}

int td_prof_load(td_file **out, const char *path, td_prof_kind kind, const td_load_progress *prog,
                 int flags, const void *marker, const td_pid_sel *pids, td_error *err)
{
    *out = NULL;
    if (kind == TD_PROF_NSYS_REP)
        return td_fail(err, TD_ETRACE, path,
                       "an Nsight Systems report (binary): export it first with "
                       "`nsys export --type sqlite %s` and compare the .sqlite file",
                       path);
    if (kind == TD_PROF_NSYS_JSON)
        return td_fail(err, TD_ETRACE, path,
                       "one JSON object per line (Nsight Systems' JSON export?): not supported; "
                       "export SQLite instead (`nsys export --type sqlite REPORT`)");
    td_prof_sink sink;
    int rc = td_prof_sink_init(&sink, path, flags, err);
    sink.marker = marker;
    if (pids)
        sink.sel = *pids;
    struct stat st;
    if (rc == 0 && stat(path, &st) == 0)
        sink.f->file_bytes = (uint64_t)st.st_size;
    if (rc == 0)
        rc = kind == TD_PROF_ROCPROF_V1 ? td_rocprof_v1_read(&sink, path, err)
                                        : sqlite_load(&sink, path, flags, err);
    if (rc < 0) {
        td_prof_sink_free(&sink);
        return rc;
    }
    if (prog && prog->fn)
        prog->fn(prog->ud, sink.f->file_bytes);
    return td_prof_sink_finish(&sink, out);
}
