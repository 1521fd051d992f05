/*
 * Writing summaries: one run of a trace set into SQLite (schema in
 * docs/summaries.md). A new file is built under a temporary name and renamed
 * into place; a run added to an existing file goes in one transaction.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char td_summary_schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE runs(\n"
    "  run_id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,\n"
    "  created TEXT NOT NULL,\n"
    "  tool_version TEXT NOT NULL,\n"
    "  source TEXT NOT NULL,\n"
    "  ranks TEXT NOT NULL,\n"
    "  iterations TEXT NOT NULL,\n"
    "  kept_ranks TEXT,\n"
    "  kept_iterations TEXT,\n"
    "  kept_device TEXT NOT NULL,\n"
    "  files INTEGER NOT NULL,\n"
    "  source_bytes INTEGER NOT NULL,\n"
    "  json_bytes INTEGER NOT NULL,\n"
    "  events INTEGER NOT NULL,\n"
    "  cpu_us REAL NOT NULL,\n"
    "  gpu_us REAL NOT NULL);\n"
    "CREATE TABLE files(\n"
    "  run_id INTEGER NOT NULL,\n"
    "  rank INTEGER NOT NULL,\n"
    "  path TEXT NOT NULL,\n"
    "  file_bytes INTEGER NOT NULL,\n"
    "  json_bytes INTEGER NOT NULL,\n"
    "  compression TEXT NOT NULL,\n"
    "  sha256 TEXT,\n"
    "  events_total INTEGER NOT NULL,\n"
    "  events_counted INTEGER NOT NULL,\n"
    "  events_cpu INTEGER NOT NULL,\n"
    "  events_gpu INTEGER NOT NULL,\n"
    "  events_skipped INTEGER NOT NULL,\n"
    "  steps INTEGER NOT NULL,\n"
    "  device_name TEXT,\n"
    "  encoding TEXT NOT NULL,\n"
    "  packed BLOB NOT NULL,\n"
    "  PRIMARY KEY (run_id, rank));\n"
    "CREATE TABLE iterations(\n"
    "  run_id INTEGER NOT NULL,\n"
    "  rank INTEGER NOT NULL,\n"
    "  iteration INTEGER NOT NULL,\n"
    "  PRIMARY KEY (run_id, rank, iteration));\n"
    "CREATE TABLE names(\n"
    "  run_id INTEGER NOT NULL,\n"
    "  name_id INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  PRIMARY KEY (run_id, name_id));\n"
    "CREATE TABLE ops(\n"
    "  run_id INTEGER NOT NULL,\n"
    "  rank INTEGER NOT NULL,\n"
    "  iteration INTEGER,\n"
    "  device TEXT NOT NULL,\n"
    "  stream0 INTEGER NOT NULL,\n"
    "  name_id INTEGER NOT NULL,\n"
    "  count INTEGER NOT NULL,\n"
    "  total_us REAL NOT NULL);\n"
    "CREATE INDEX ops_by_run ON ops(run_id, name_id);\n"
    "CREATE VIEW ops_named AS\n"
    "  SELECT r.name AS run, o.rank, o.iteration, o.device, o.stream0, n.name, o.count,\n"
    "         o.total_us\n"
    "  FROM ops o JOIN names n USING (run_id, name_id) JOIN runs r USING (run_id);\n";

static int sql_fail(td_error *err, sqlite3 *db, const char *path, const char *what)
{
    return td_fail(err, TD_EIO, path, "%s: %s", what, db ? sqlite3_errmsg(db) : "no database");
}

static int exec(sqlite3 *db, const char *sql, const char *path, td_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        td_fail(err, TD_EIO, path, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return TD_EIO;
    }
    return 0;
}

/* ---- small text helpers ---- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static int text_add(text *t, const char *fmt, long long v)
{
    char tmp[32];
    int k = snprintf(tmp, sizeof tmp, fmt, v);
    char *s = td_grow(t->s, &t->cap, t->n + (size_t)k + 1, 1);
    if (!s)
        return -1;
    t->s = s;
    memcpy(s + t->n, tmp, (size_t)k + 1);
    t->n += (size_t)k;
    return 0;
}

static char *join_list(const int64_t *v, size_t n)
{
    text t = {0};
    if (text_add(&t, "%s", 0) < 0) /* placeholder for the empty list */
        return NULL;
    t.n = 0;
    t.s[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (text_add(&t, i ? ",%lld" : "%lld", (long long)v[i]) < 0) {
            free(t.s);
            return NULL;
        }
    return t.s;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* The default run name: the set's folder name, or the one file's name
 * without its trace extension. */
static char *default_run(const td_set *s)
{
    const char *p = s->path;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && p[b - 1] != '/')
        b--;
    char *name = malloc(n - b + 1);
    if (!name)
        return NULL;
    memcpy(name, p + b, n - b);
    name[n - b] = '\0';
    struct stat st;
    if (stat(s->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        static const char *const ext[] = {".json.gz", ".json.zst", ".json"};
        for (size_t i = 0; i < 3; i++)
            if (has_suffix(name, ext[i]) && strlen(name) > strlen(ext[i])) {
                name[strlen(name) - strlen(ext[i])] = '\0';
                break;
            }
    }
    return name;
}

int td_file_sha256(char out[65], const char *path, td_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return td_fail(err, TD_EIO, path, "cannot read it again to hash it: %s", strerror(errno));
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf) {
        close(fd);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    td_sha256 c;
    td_sha256_init(&c);
    ssize_t k;
    while ((k = read(fd, buf, CHUNK)) > 0)
        td_sha256_update(&c, buf, (size_t)k);
    int e = errno;
    free(buf);
    close(fd);
    if (k < 0)
        return td_fail(err, TD_EIO, path, "read failed: %s", strerror(e));
    td_sha256_hex(&c, out);
    return 0;
}

typedef struct hash_job {
    const td_file *f;
    char hex[65];
    td_error err;
    int rc;
} hash_job;

static int hash_one(void *ud, size_t i)
{
    hash_job *j = (hash_job *)ud + i;
    if (j->f->sha256[0]) {
        memcpy(j->hex, j->f->sha256, 65);
        return 0;
    }
    return j->rc = td_file_sha256(j->hex, j->f->path, &j->err);
}

static bool in_list(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

static const char *comp_name(td_compression c)
{
    return c == TD_COMP_GZIP ? "gzip" : c == TD_COMP_ZSTD ? "zstd" : "plain";
}

/* ---- the run ---- */

typedef struct writer {
    sqlite3 *db;
    const char *path; /* the summary, for messages */
    td_error *err;
    int64_t run_id;
    td_strtab *names; /* run-wide name ids */
    size_t names_written;
} writer;

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int step_done(writer *w, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return sql_fail(w->err, w->db, w->path, what);
    return 0;
}

typedef struct run_totals {
    uint64_t events;
    double cpu[2], gpu[2]; /* Neumaier sum and correction */
} run_totals;

static void neumaier(double *acc, double x)
{
    if (isnan(x))
        return;
    double s = acc[0], t = s + x;
    double c = fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
    if (isfinite(c))
        acc[1] += c;
    acc[0] = t;
}

static int write_file(writer *w, sqlite3_stmt *const *st, const td_file *f, const td_keep *keep,
                      const char *sha, run_totals *tot)
{
    td_groups g;
    td_buf b = {0};
    int rc = td_file_groups(&g, f, keep, w->err);
    if (rc < 0)
        return rc;
    if ((rc = td_file_pack(&b, f, &g, w->err)) < 0)
        goto done;
    uint64_t kept = 0;
    for (size_t i = 0; i < g.n; i++)
        kept += g.g[i].count;
    for (size_t i = 0; i < g.n; i++)
        for (size_t j = 0; j < g.g[i].count; j++)
            neumaier(g.g[i].flags & TD_GROUP_GPU ? tot->gpu : tot->cpu,
                     g.durs[g.g[i].first + j]);
    tot->events += kept;
    /* files */
    sqlite3_stmt *s = st[0];
    sqlite3_bind_int64(s, 1, w->run_id);
    sqlite3_bind_int64(s, 2, f->rank);
    bind_text(s, 3, f->path);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)f->file_bytes);
    sqlite3_bind_int64(s, 5, (sqlite3_int64)f->json_bytes);
    bind_text(s, 6, comp_name(f->compression));
    bind_text(s, 7, sha[0] ? sha : NULL);
    sqlite3_bind_int64(s, 8, (sqlite3_int64)f->events_total);
    sqlite3_bind_int64(s, 9, (sqlite3_int64)kept);
    sqlite3_bind_int64(s, 10, (sqlite3_int64)f->events_cpu);
    sqlite3_bind_int64(s, 11, (sqlite3_int64)f->events_gpu);
    sqlite3_bind_int64(s, 12, (sqlite3_int64)f->events_skipped);
    sqlite3_bind_int64(s, 13, (sqlite3_int64)f->steps);
    bind_text(s, 14, f->device_name);
    bind_text(s, 15, g.integral ? "sorted-int" : "raw");
    sqlite3_bind_blob64(s, 16, b.p, b.n, SQLITE_STATIC);
    if ((rc = step_done(w, s, "writing files")) < 0)
        goto done;
    /* iterations */
    for (size_t i = 0; i < f->niters; i++) {
        if (keep->iters && !in_list(keep->iters, keep->niters, f->iters[i]))
            continue;
        sqlite3_bind_int64(st[1], 1, w->run_id);
        sqlite3_bind_int64(st[1], 2, f->rank);
        sqlite3_bind_int64(st[1], 3, f->iters[i]);
        if ((rc = step_done(w, st[1], "writing iterations")) < 0)
            goto done;
    }
    /* names and ops */
    for (size_t i = 0; i < g.n; i++) {
        const td_group *x = &g.g[i];
        size_t len;
        const char *nm = td_strtab_get(f->names, x->name, &len);
        int64_t id = td_strtab_intern(w->names, nm, len);
        if (id < 0) {
            rc = td_fail(w->err, TD_ENOMEM, w->path, "out of memory");
            goto done;
        }
        if ((size_t)id == w->names_written) {
            sqlite3_bind_int64(st[2], 1, w->run_id);
            sqlite3_bind_int64(st[2], 2, id);
            sqlite3_bind_text64(st[2], 3, nm, len, SQLITE_STATIC, SQLITE_UTF8);
            if ((rc = step_done(w, st[2], "writing names")) < 0)
                goto done;
            w->names_written++;
        }
        s = st[3];
        sqlite3_bind_int64(s, 1, w->run_id);
        sqlite3_bind_int64(s, 2, f->rank);
        if (x->iter >= 0)
            sqlite3_bind_int64(s, 3, f->iters[x->iter]);
        else
            sqlite3_bind_null(s, 3);
        bind_text(s, 4, x->flags & TD_GROUP_GPU ? "gpu" : "cpu");
        sqlite3_bind_int(s, 5, (x->flags & TD_GROUP_STREAM0) != 0);
        sqlite3_bind_int64(s, 6, id);
        sqlite3_bind_int64(s, 7, (sqlite3_int64)x->count);
        sqlite3_bind_double(s, 8, x->total);
        if ((rc = step_done(w, s, "writing ops")) < 0)
            goto done;
    }
done:
    td_buf_free(&b);
    td_groups_free(&g);
    return rc;
}

static const char *const insert_sql[] = {
    "INSERT INTO files VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO iterations VALUES (?,?,?)",
    "INSERT INTO names VALUES (?,?,?)",
    "INSERT INTO ops VALUES (?,?,?,?,?,?,?,?)",
};

/* The run, inside the caller's transaction. */
static int write_run(writer *w, const td_set *set, const char *run, const td_summary_opts *o,
                     const int64_t *ranks, size_t nranks, const int64_t *iters, size_t niters,
                     char (*hashes)[65])
{
    td_error *err = w->err;
    sqlite3_stmt *st[4] = {0};
    char *all_ranks = join_list(set->ranks, set->nranks);
    char *all_iters = join_list(set->iters, set->niters);
    char *kr = ranks ? join_list(ranks, nranks) : NULL;
    char *ki = iters ? join_list(iters, niters) : NULL;
    int rc = 0;
    if (!all_ranks || !all_iters || (ranks && !kr) || (iters && !ki) ||
        !(w->names = td_strtab_new())) {
        rc = td_fail(err, TD_ENOMEM, w->path, "out of memory");
        goto done;
    }
    char created[32];
    if (o->created) {
        snprintf(created, sizeof created, "%s", o->created);
    } else {
        time_t now = time(NULL);
        struct tm tmv;
        gmtime_r(&now, &tmv);
        strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    }
    uint64_t sbytes = 0, jbytes = 0;
    size_t nfiles = 0;
    for (size_t i = 0; i < set->nfiles; i++) {
        if (ranks && !in_list(ranks, nranks, set->files[i]->rank))
            continue;
        sbytes += set->files[i]->file_bytes;
        jbytes += set->files[i]->json_bytes;
        nfiles++;
    }
    sqlite3_stmt *rs = NULL;
    if (sqlite3_prepare_v2(w->db,
                           "INSERT INTO runs (name, created, tool_version, source, ranks, "
                           "iterations, kept_ranks, kept_iterations, kept_device, files, "
                           "source_bytes, json_bytes, events, cpu_us, gpu_us) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,0,0)",
                           -1, &rs, NULL) != SQLITE_OK) {
        rc = sql_fail(err, w->db, w->path, "writing runs");
        goto done;
    }
    static const char *const dev[] = {"all", "cpu", "gpu"};
    bind_text(rs, 1, run);
    bind_text(rs, 2, created);
    bind_text(rs, 3, TD_VERSION);
    bind_text(rs, 4, set->path);
    bind_text(rs, 5, all_ranks);
    bind_text(rs, 6, all_iters);
    bind_text(rs, 7, kr);
    bind_text(rs, 8, ki);
    bind_text(rs, 9, dev[o->device >= 0 && o->device <= 2 ? o->device : 0]);
    sqlite3_bind_int64(rs, 10, (sqlite3_int64)nfiles);
    sqlite3_bind_int64(rs, 11, (sqlite3_int64)sbytes);
    sqlite3_bind_int64(rs, 12, (sqlite3_int64)jbytes);
    rc = step_done(w, rs, "writing runs");
    sqlite3_finalize(rs);
    if (rc < 0)
        goto done;
    w->run_id = sqlite3_last_insert_rowid(w->db);
    for (size_t i = 0; i < 4; i++)
        if (sqlite3_prepare_v2(w->db, insert_sql[i], -1, &st[i], NULL) != SQLITE_OK) {
            rc = sql_fail(err, w->db, w->path, "preparing");
            goto done;
        }
    td_keep keep = {iters, niters, o->device};
    run_totals tot = {0};
    for (size_t i = 0; i < set->nfiles; i++) {
        const td_file *f = set->files[i];
        if (ranks && !in_list(ranks, nranks, f->rank))
            continue;
        if ((rc = write_file(w, st, f, &keep, hashes[i], &tot)) < 0)
            goto done;
    }
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE runs SET events = %llu WHERE run_id = %lld",
             (unsigned long long)tot.events, (long long)w->run_id);
    if ((rc = exec(w->db, sql, w->path, err)) < 0)
        goto done;
    if (sqlite3_prepare_v2(w->db, "UPDATE runs SET cpu_us = ?, gpu_us = ? WHERE run_id = ?", -1,
                           &rs, NULL) != SQLITE_OK) {
        rc = sql_fail(err, w->db, w->path, "writing runs");
        goto done;
    }
    sqlite3_bind_double(rs, 1, tot.cpu[0] + tot.cpu[1]);
    sqlite3_bind_double(rs, 2, tot.gpu[0] + tot.gpu[1]);
    sqlite3_bind_int64(rs, 3, w->run_id);
    rc = step_done(w, rs, "writing runs");
    sqlite3_finalize(rs);
done:
    for (size_t i = 0; i < 4; i++)
        sqlite3_finalize(st[i]);
    td_strtab_free(w->names);
    w->names = NULL;
    free(all_ranks);
    free(all_iters);
    free(kr);
    free(ki);
    return rc;
}

int td_summary_check_header(const char *path, int must_exist, td_error *err);

static int create_schema(sqlite3 *db, const char *path, td_error *err)
{
    char sql[100];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", TD_SUMMARY_SCHEMA);
    int rc = exec(db, "PRAGMA page_size = 4096", path, err);
    if (rc == 0)
        rc = exec(db, td_summary_schema_sql, path, err);
    if (rc == 0)
        rc = exec(db,
                  "INSERT INTO meta VALUES ('format', 'tracediff summary'), "
                  "('created_by', 'tracediff " TD_VERSION "')",
                  path, err);
    if (rc == 0)
        rc = exec(db, sql, path, err);
    return rc;
}

/* Fails unless db's schema is one this version writes into. */
static int check_schema(sqlite3 *db, const char *path, td_error *err);

int td_summary_write(const char *path, const td_set *set, const td_summary_opts *opts,
                     td_error *err)
{
    td_summary_opts zero = {0};
    const td_summary_opts *o = opts ? opts : &zero;
    int64_t *ranks = NULL, *iters = NULL;
    size_t nranks = 0, niters = 0;
    char *run = NULL, *tmp = NULL;
    char (*hashes)[65] = NULL;
    hash_job *jobs = NULL;
    sqlite3 *db = NULL;
    int rc = 0;
    /* What to keep. */
    if (o->ranks.n) {
        if (!(ranks = malloc(o->ranks.n * sizeof *ranks)))
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        for (size_t i = 0; i < o->ranks.n; i++) {
            if (!in_list(set->ranks, set->nranks, o->ranks.v[i])) {
                rc = td_fail(err, TD_EUSAGE, set->path, "no rank %lld in this set",
                             (long long)o->ranks.v[i]);
                goto done;
            }
            ranks[nranks++] = o->ranks.v[i];
        }
    }
    if (o->iters.n) {
        if (set->niters == 0) {
            rc = td_fail(err, TD_EUSAGE, set->path,
                         "no ProfilerStep in this set: leave the iterations out");
            goto done;
        }
        if (!(iters = malloc(o->iters.n * sizeof *iters))) {
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < o->iters.n; i++) {
            if (!in_list(set->iters, set->niters, o->iters.v[i])) {
                rc = td_fail(err, TD_EUSAGE, set->path, "no iteration %lld in this set",
                             (long long)o->iters.v[i]);
                goto done;
            }
            iters[niters++] = o->iters.v[i];
        }
    }
    if (!(run = o->run ? strdup(o->run) : default_run(set))) {
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
        goto done;
    }
    if (!run[0] || strchr(run, '#')) {
        rc = td_fail(err, TD_EUSAGE, path, "run name '%s': expected a non-empty name without '#'",
                     run);
        goto done;
    }
    /* The source files' hashes (before anything is written). */
    hashes = calloc(set->nfiles + 1, sizeof *hashes);
    jobs = calloc(set->nfiles + 1, sizeof *jobs);
    if (!hashes || !jobs) {
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < set->nfiles; i++)
        jobs[i].f = set->files[i];
    td_pool_run(set->nfiles, 0, hash_one, jobs);
    for (size_t i = 0; i < set->nfiles; i++) {
        if (jobs[i].rc < 0) {
            if (err)
                *err = jobs[i].err;
            rc = jobs[i].rc;
            goto done;
        }
        memcpy(hashes[i], jobs[i].hex, 65);
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    writer w = {0};
    w.path = path;
    w.err = err;
    if (!exists) {
        size_t n = strlen(path);
        if (!(tmp = malloc(n + 32))) {
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
            goto done;
        }
        snprintf(tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
        unlink(tmp);
        if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
            SQLITE_OK) {
            rc = sql_fail(err, db, path, "cannot create it");
            goto done;
        }
        w.db = db;
        if ((rc = exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", path, err)) <
                0 ||
            (rc = exec(db, "BEGIN", path, err)) < 0 || (rc = create_schema(db, path, err)) < 0 ||
            (rc = write_run(&w, set, run, o, ranks, nranks, iters, niters, hashes)) < 0 ||
            (rc = exec(db, "COMMIT", path, err)) < 0)
            goto done;
        if (sqlite3_close(db) != SQLITE_OK) {
            rc = sql_fail(err, db, path, "closing");
            goto done;
        }
        db = NULL;
        int fd = open(tmp, O_RDONLY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
        if (rename(tmp, path) < 0) {
            rc = td_fail(err, TD_EIO, path, "cannot rename the new file into place: %s",
                         strerror(errno));
            goto done;
        }
        free(tmp);
        tmp = NULL;
    } else {
        if ((rc = td_summary_check_header(path, 1, err)) < 0)
            goto done;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
            rc = sql_fail(err, db, path, "cannot open it for writing");
            goto done;
        }
        w.db = db;
        sqlite3_busy_timeout(db, 10000);
        if ((rc = exec(db, "BEGIN IMMEDIATE", path, err)) < 0 ||
            (rc = check_schema(db, path, err)) < 0)
            goto done;
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(db, "SELECT run_id FROM runs WHERE name = ?", -1, &q, NULL) !=
            SQLITE_OK) {
            rc = sql_fail(err, db, path, "reading runs");
            goto done;
        }
        bind_text(q, 1, run);
        int64_t old = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
        sqlite3_finalize(q);
        if (old >= 0 && !o->replace) {
            rc = td_fail(err, TD_EUSAGE, path,
                         "it already holds a run named '%s' (--replace replaces it, --run NAME "
                         "names another)",
                         run);
            goto done;
        }
        if (old >= 0) {
            char sql[400];
            snprintf(sql, sizeof sql,
                     "DELETE FROM files WHERE run_id = %lld; DELETE FROM iterations WHERE "
                     "run_id = %lld; DELETE FROM names WHERE run_id = %lld; DELETE FROM ops "
                     "WHERE run_id = %lld; DELETE FROM runs WHERE run_id = %lld;",
                     (long long)old, (long long)old, (long long)old, (long long)old,
                     (long long)old);
            if ((rc = exec(db, sql, path, err)) < 0)
                goto done;
        }
        if ((rc = write_run(&w, set, run, o, ranks, nranks, iters, niters, hashes)) < 0 ||
            (rc = exec(db, "COMMIT", path, err)) < 0)
            goto done;
    }
done:
    if (db) {
        if (rc < 0)
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
    }
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    free(jobs);
    free(hashes);
    free(run);
    free(ranks);
    free(iters);
    return rc;
}

static int check_schema(sqlite3 *db, const char *path, td_error *err)
{
    sqlite3_stmt *q = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    if (v < 0)
        return sql_fail(err, db, path, "reading its schema version");
    if (v == 0)
        return td_fail(err, TD_ETRACE, path, "an SQLite file, but not a tracediff summary");
    if (v > TD_SUMMARY_SCHEMA)
        return td_fail(err, TD_ETRACE, path,
                       "a summary of a newer schema (version %d; this tracediff knows up to "
                       "%d): use a newer tracediff",
                       v, TD_SUMMARY_SCHEMA);
    return 0;
}
