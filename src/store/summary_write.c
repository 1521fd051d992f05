/*
 * Writing summaries: one run of a trace set into SQLite (schema in
 * docs/summaries.md). A new file is built under a temporary name and linked
 * into place only if no file appeared meanwhile (else its run is appended to
 * the file that did); a run added to an existing file goes in one transaction.
 */
#include "store.h"
#include "util/utf8_text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

/* tracediff.h: the set's folder name, or its one file's name without its
 * trace extension. */
char *td_summary_default_run(const td_set *s)
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
            if (td_has_suffix(name, ext[i]) && strlen(name) > strlen(ext[i])) {
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
    struct stat st;
    td_sha256 c;
    td_sha256_init_sized(&c, fstat(fd, &st) == 0 ? (uint64_t)st.st_size : TD_SHA256_LIB_MIN);
    ssize_t k;
    while ((k = read(fd, buf, CHUNK)) > 0)
        td_sha256_update(&c, buf, (size_t)k);
    int e = errno;
    free(buf);
    close(fd);
    if (k < 0) {
        td_sha256_free(&c);
        return td_fail(err, TD_EIO, path, "read failed: %s", strerror(e));
    }
    if (td_sha256_hex(&c, out) < 0)
        return td_fail(err, TD_EIO, path, "libcrypto could not hash it");
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

/* The run's counted events and CPU / GPU totals, from a file's groups. */
static uint64_t add_totals(run_totals *tot, const td_groups *g)
{
    uint64_t kept = 0;
    for (size_t i = 0; i < g->n; i++) {
        kept += g->g[i].count;
        for (size_t j = 0; j < g->g[i].count; j++)
            neumaier(g->g[i].flags & TD_GROUP_GPU ? tot->gpu : tot->cpu,
                     g->durs[g->g[i].first + j]);
    }
    tot->events += kept;
    return kept;
}

static int insert_file_row(writer *w, sqlite3_stmt *s, const td_file *f, const char *sha,
                           uint64_t kept, const td_groups *g, const td_buf *b)
{
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
    bind_text(s, 15, g->integral ? "sorted-int" : "raw");
    sqlite3_bind_blob64(s, 16, b->p, b->n, SQLITE_STATIC);
    return step_done(w, s, "writing files");
}

static int insert_iterations(writer *w, sqlite3_stmt *s, const td_file *f, const td_keep *keep)
{
    for (size_t i = 0; i < f->niters; i++) {
        if (keep->iters && !in_list(keep->iters, keep->niters, f->iters[i]))
            continue;
        sqlite3_bind_int64(s, 1, w->run_id);
        sqlite3_bind_int64(s, 2, f->rank);
        sqlite3_bind_int64(s, 3, f->iters[i]);
        int rc = step_done(w, s, "writing iterations");
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The run-wide id of a name, inserting it into names when it is new. */
static int64_t run_name_id(writer *w, sqlite3_stmt *s, const char *nm, size_t len)
{
    int64_t id = td_strtab_intern(w->names, nm, len);
    if (id < 0)
        return td_fail(w->err, TD_ENOMEM, w->path, "out of memory");
    if ((size_t)id < w->names_written)
        return id;
    sqlite3_bind_int64(s, 1, w->run_id);
    sqlite3_bind_int64(s, 2, id);
    sqlite3_bind_text64(s, 3, nm, len, SQLITE_STATIC, SQLITE_UTF8);
    int rc = step_done(w, s, "writing names");
    if (rc < 0)
        return rc;
    w->names_written++;
    return id;
}

static bool same_op_key(const td_group *a, const td_group *b)
{
    return a->iter == b->iter && a->flags == b->flags && a->name == b->name;
}

/* One ops row per (iteration, device, stream 0, name): groups that differ
 * only by their attribution are adjacent and add up (and the names the
 * groups bring). */
static int insert_op_rows(writer *w, sqlite3_stmt *name_st, sqlite3_stmt *s, const td_file *f,
                          const td_groups *g, const double *total)
{
    for (size_t i = 0, r = 0; i < g->n; i++, r++) {
        td_group merged = g->g[i];
        while (i + 1 < g->n && same_op_key(&g->g[i + 1], &merged)) {
            merged.count += g->g[i + 1].count;
            i++;
        }
        merged.total = total[r];
        const td_group *x = &merged;
        size_t len;
        const char *nm = td_strtab_get(f->names, x->name, &len);
        int64_t id = run_name_id(w, name_st, nm, len);
        if (id < 0)
            return (int)id;
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
        int rc = step_done(w, s, "writing ops");
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* One ops row per (iteration, device, stream 0, name): groups that differ
 * only by their attribution are adjacent and make one row. */
static int insert_ops(writer *w, sqlite3_stmt *name_st, sqlite3_stmt *s, const td_file *f,
                      const td_groups *g)
{
    size_t *row = malloc((g->n + 1) * sizeof *row), nrows = 0;
    double *total = malloc((g->n + 1) * sizeof *total);
    for (size_t i = 0; row && i < g->n; i++)
        row[i] = i && same_op_key(&g->g[i], &g->g[i - 1]) ? nrows - 1 : nrows++;
    int rc = !row || !total || td_groups_row_totals(g, row, nrows, total) < 0
                 ? td_fail(w->err, TD_ENOMEM, w->path, "out of memory")
                 : insert_op_rows(w, name_st, s, f, g, total);
    free(row);
    free(total);
    return rc;
}

/* One file of the run: its row with the packed aggregates, its iterations,
 * names and ops. st: the statements of insert_sql. */
static int write_file(writer *w, sqlite3_stmt *const *st, const td_file *f, const td_keep *keep,
                      const char *sha, run_totals *tot)
{
    td_groups g;
    td_buf b = {0};
    int rc = td_file_groups(&g, f, keep, w->err);
    if (rc < 0)
        return rc;
    if ((rc = td_file_pack(&b, f, &g, w->err)) == 0) {
        uint64_t kept = add_totals(tot, &g);
        rc = insert_file_row(w, st[0], f, sha, kept, &g, &b);
    }
    if (rc == 0)
        rc = insert_iterations(w, st[1], f, keep);
    if (rc == 0)
        rc = insert_ops(w, st[2], st[3], f, &g);
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

/* What a run keeps: the ranks and iterations (NULL: all) and the device. */
typedef struct run_keep {
    const int64_t *ranks, *iters;
    size_t nranks, niters;
} run_keep;

static void created_now(char out[32], const td_summary_opts *o)
{
    if (o->created) {
        snprintf(out, 32, "%s", o->created);
        return;
    }
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tmv);
}

/* The runs row (events and totals 0 until the files are in); sets w->run_id. */
static int insert_run_row(writer *w, const td_set *set, const char *run, const td_summary_opts *o,
                          const run_keep *k)
{
    char *all_ranks = join_list(set->ranks, set->nranks);
    char *all_iters = join_list(set->iters, set->niters);
    char *kr = k->ranks ? join_list(k->ranks, k->nranks) : NULL;
    char *ki = k->iters ? join_list(k->iters, k->niters) : NULL;
    sqlite3_stmt *rs = NULL;
    int rc;
    if (!all_ranks || !all_iters || (k->ranks && !kr) || (k->iters && !ki)) {
        rc = td_fail(w->err, TD_ENOMEM, w->path, "out of memory");
    } else if (sqlite3_prepare_v2(w->db,
                                  "INSERT INTO runs (name, created, tool_version, source, ranks, "
                                  "iterations, kept_ranks, kept_iterations, kept_device, files, "
                                  "source_bytes, json_bytes, events, cpu_us, gpu_us) "
                                  "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,0,0)",
                                  -1, &rs, NULL) != SQLITE_OK) {
        rc = sql_fail(w->err, w->db, w->path, "writing runs");
    } else {
        static const char *const dev[] = {"all", "cpu", "gpu"};
        uint64_t sbytes = 0, jbytes = 0, nfiles = 0;
        for (size_t i = 0; i < set->nfiles; i++) {
            if (k->ranks && !in_list(k->ranks, k->nranks, set->files[i]->rank))
                continue;
            sbytes += set->files[i]->file_bytes;
            jbytes += set->files[i]->json_bytes;
            nfiles++;
        }
        char created[32];
        created_now(created, o);
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
        w->run_id = sqlite3_last_insert_rowid(w->db);
    }
    sqlite3_finalize(rs);
    free(all_ranks);
    free(all_iters);
    free(kr);
    free(ki);
    return rc;
}

/* The run's events and CPU / GPU totals, once its files are in. */
static int update_run_totals(writer *w, const run_totals *tot)
{
    sqlite3_stmt *rs = NULL;
    if (sqlite3_prepare_v2(w->db,
                           "UPDATE runs SET events = ?, cpu_us = ?, gpu_us = ? WHERE run_id = ?",
                           -1, &rs, NULL) != SQLITE_OK)
        return sql_fail(w->err, w->db, w->path, "writing runs");
    sqlite3_bind_int64(rs, 1, (sqlite3_int64)tot->events);
    sqlite3_bind_double(rs, 2, tot->cpu[0] + tot->cpu[1]);
    sqlite3_bind_double(rs, 3, tot->gpu[0] + tot->gpu[1]);
    sqlite3_bind_int64(rs, 4, w->run_id);
    int rc = step_done(w, rs, "writing runs");
    sqlite3_finalize(rs);
    return rc;
}

/* Every kept file of the set into the run. */
static int write_files(writer *w, const td_set *set, const td_summary_opts *o, const run_keep *k,
                       char (*hashes)[65], run_totals *tot)
{
    sqlite3_stmt *st[4] = {0};
    int rc = 0;
    for (size_t i = 0; i < 4 && rc == 0; i++)
        if (sqlite3_prepare_v2(w->db, insert_sql[i], -1, &st[i], NULL) != SQLITE_OK)
            rc = sql_fail(w->err, w->db, w->path, "preparing");
    td_keep keep = {k->iters, k->niters, o->device};
    for (size_t i = 0; i < set->nfiles && rc == 0; i++) {
        const td_file *f = set->files[i];
        if (!k->ranks || in_list(k->ranks, k->nranks, f->rank))
            rc = write_file(w, st, f, &keep, hashes[i], tot);
    }
    for (size_t i = 0; i < 4; i++)
        sqlite3_finalize(st[i]);
    return rc;
}

/* The run's checksums (summary_sum.c), from its rows as written; a file
 * of an older schema gains the table, and notes from which run on every run
 * has them. */
static int write_checksums(writer *w)
{
    sqlite3_stmt *q = NULL;
    int have = 0;
    if (sqlite3_prepare_v2(w->db,
                           "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                           "name = 'checksums'",
                           -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        have = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    int rc = have ? 0 : exec(w->db, td_summary_checksums_sql, w->path, w->err);
    if (rc < 0)
        return rc;
    char sql[120];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO meta VALUES ('checksums_from', '%lld')",
             (long long)w->run_id);
    if ((rc = exec(w->db, sql, w->path, w->err)) < 0)
        return rc;
    if (td_sum_write(w->db, w->run_id) < 0)
        return sql_fail(w->err, w->db, w->path, "writing checksums");
    return 0;
}

/* The run, inside the caller's transaction. */
static int write_run(writer *w, const td_set *set, const char *run, const td_summary_opts *o,
                     const run_keep *k, char (*hashes)[65])
{
    run_totals tot = {0};
    if (!(w->names = td_strtab_new()))
        return td_fail(w->err, TD_ENOMEM, w->path, "out of memory");
    w->names_written = 0;
    int rc = insert_run_row(w, set, run, o, k);
    if (rc == 0)
        rc = write_files(w, set, o, k, hashes, &tot);
    if (rc == 0)
        rc = update_run_totals(w, &tot);
    if (rc == 0)
        rc = write_checksums(w);
    td_strtab_free(w->names);
    w->names = NULL;
    return rc;
}

int td_summary_check_header(const char *path, int must_exist, td_error *err);
int td_summary_harden(sqlite3 *db, int views);

/* Marks db as of the schema this version writes. */
static int set_schema_version(sqlite3 *db, const char *path, td_error *err)
{
    char sql[40];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", TD_SUMMARY_SCHEMA);
    return exec(db, sql, path, err);
}

static int create_schema(sqlite3 *db, const char *path, td_error *err)
{
    int rc = exec(db, "PRAGMA page_size = 4096", path, err);
    if (rc == 0)
        rc = exec(db, td_summary_schema_sql, path, err);
    if (rc == 0)
        rc = exec(db, td_summary_checksums_sql, path, err);
    if (rc == 0)
        rc = exec(db,
                  "INSERT INTO meta VALUES ('format', 'tracediff summary'), "
                  "('created_by', 'tracediff " TD_VERSION "')",
                  path, err);
    if (rc == 0)
        rc = set_schema_version(db, path, err);
    return rc;
}

/* Fails unless db's schema is one this version writes into; else its
 * version (an older one is raised when a run is added). */
static int check_schema(sqlite3 *db, const char *path, td_error *err);

/* The values of want, each of which must be among the set's have; *out NULL
 * when want is empty (keep all). what: "rank" or "iteration". */
static int resolve_kept(int64_t **out, size_t *n, const td_list *want, const int64_t *have,
                        size_t nhave, const char *what, const td_set *set, const char *path,
                        td_error *err)
{
    *out = NULL;
    *n = 0;
    if (!want->n)
        return 0;
    if (!(*out = malloc(want->n * sizeof **out)))
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    for (size_t i = 0; i < want->n; i++) {
        if (!in_list(have, nhave, want->v[i]))
            return td_fail(err, TD_EUSAGE, set->path, "no %s %lld in this set", what,
                           (long long)want->v[i]);
        (*out)[(*n)++] = want->v[i];
    }
    return 0;
}

/* The run's name: given or the default, checked. */
static int name_run(char **run, const td_set *set, const td_summary_opts *o, const char *path,
                    td_error *err)
{
    if (!(*run = o->run ? strdup(o->run) : td_summary_default_run(set)))
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    if (!(*run)[0] || strchr(*run, '#'))
        return td_fail(err, TD_EUSAGE, path, "run name '%s': expected a non-empty name without '#'",
                       *run);
    /* o->run is a C string, so it holds no NUL; a name that is not UTF-8
     * (a folder's name in another encoding) would be read back as damage */
    if (!td_utf8_valid(*run, strlen(*run), false))
        return td_fail(err, TD_EUSAGE, path,
                       "run name: not valid UTF-8 (name the run with --run NAME)");
    return 0;
}

/* The source files' SHA-256, hashed concurrently (before anything is
 * written); *hashes is malloc'd, one per file of the set. */
static int hash_sources(char (**hashes)[65], const td_set *set, const char *path, td_error *err)
{
    *hashes = calloc(set->nfiles + 1, sizeof **hashes);
    hash_job *jobs = calloc(set->nfiles + 1, sizeof *jobs);
    int rc = 0;
    if (!*hashes || !jobs)
        rc = td_fail(err, TD_ENOMEM, path, "out of memory");
    for (size_t i = 0; rc == 0 && i < set->nfiles; i++)
        jobs[i].f = set->files[i];
    if (rc == 0)
        td_pool_run(set->nfiles, 0, hash_one, jobs);
    for (size_t i = 0; rc == 0 && i < set->nfiles; i++) {
        if (jobs[i].rc < 0) {
            if (err)
                *err = jobs[i].err;
            rc = jobs[i].rc;
        } else {
            memcpy((*hashes)[i], jobs[i].hex, 65);
        }
    }
    free(jobs);
    return rc;
}

/* Puts the complete file tmp in place as path unless a file already is
 * there: 1 when one was (tmp is left alone), 0 when tmp is now path. link()
 * refuses an existing target atomically; where a filesystem has no hard
 * links, renameat2(RENAME_NOREPLACE) does the same. */
static int place_new_file(const char *tmp, const char *path, td_error *err)
{
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    int e = errno;
#ifdef SYS_renameat2
    if (e == EPERM || e == EOPNOTSUPP || e == ENOSYS || e == EMLINK) {
        if (syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, 1 /* RENAME_NOREPLACE */) == 0)
            return 0;
        e = errno;
    }
#endif
    if (e == EEXIST)
        return 1;
    return td_fail(err, TD_EIO, path, "cannot put the new file in place: %s", strerror(e));
}

/* A new summary: built under a temporary name beside path (*tmp, removed by
 * the caller on failure), then put in place unless another writer's file got
 * there first: then 1, and the caller appends the run to that file. */
static int write_new_file(writer *w, char **tmp, const td_set *set, const char *run,
                          const td_summary_opts *o, const run_keep *k, char (*hashes)[65])
{
    const char *path = w->path;
    size_t n = strlen(path);
    if (!(*tmp = malloc(n + 32)))
        return td_fail(w->err, TD_ENOMEM, path, "out of memory");
    snprintf(*tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
    unlink(*tmp);
    td_temp_track(*tmp); /* removed by the CLI's signal handler */
    if (sqlite3_open_v2(*tmp, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK)
        return sql_fail(w->err, w->db, path, "cannot create it");
    int rc;
    if ((rc = exec(w->db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", path, w->err)) <
            0 ||
        (rc = exec(w->db, "BEGIN", path, w->err)) < 0 ||
        (rc = create_schema(w->db, path, w->err)) < 0 ||
        (rc = write_run(w, set, run, o, k, hashes)) < 0 ||
        (rc = exec(w->db, "COMMIT", path, w->err)) < 0)
        return rc;
    if (sqlite3_close(w->db) != SQLITE_OK)
        return sql_fail(w->err, w->db, path, "closing");
    w->db = NULL;
    int fd = open(*tmp, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    if ((rc = place_new_file(*tmp, path, w->err)) != 0)
        return rc; /* 1: the caller removes *tmp and appends */
    td_temp_forget(*tmp);
    free(*tmp);
    *tmp = NULL;
    return 0;
}

/* The run named run in the open transaction: -1 when there is none, else its
 * id, deleted when o->replace says so. */
static int drop_same_name(writer *w, const char *run, const td_summary_opts *o)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(w->db, "SELECT run_id FROM runs WHERE name = ?", -1, &q, NULL) !=
        SQLITE_OK)
        return sql_fail(w->err, w->db, w->path, "reading runs");
    bind_text(q, 1, run);
    int64_t old = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
    sqlite3_finalize(q);
    if (old < 0)
        return 0;
    if (!o->replace)
        return td_fail(w->err, TD_EUSAGE, w->path,
                       "it already holds a run named '%s' (--replace replaces it, --run NAME "
                       "names another)",
                       run);
    char sql[400];
    snprintf(sql, sizeof sql,
             "DELETE FROM files WHERE run_id = %lld; DELETE FROM iterations WHERE "
             "run_id = %lld; DELETE FROM names WHERE run_id = %lld; DELETE FROM ops "
             "WHERE run_id = %lld; DELETE FROM runs WHERE run_id = %lld;",
             (long long)old, (long long)old, (long long)old, (long long)old, (long long)old);
    int rc = exec(w->db, sql, w->path, w->err);
    if (rc == 0) {
        snprintf(sql, sizeof sql,
                 "DELETE FROM checksums WHERE run_id = %lld AND EXISTS (SELECT 1 FROM "
                 "sqlite_schema WHERE name = 'checksums')",
                 (long long)old);
        sqlite3_exec(w->db, sql, NULL, NULL, NULL); /* an older file has no such table */
    }
    return rc;
}

/* A test hook: TD_TEST_PAUSE_IN_APPEND=FILE makes an append, once its run is
 * written but not committed, write its changed pages into the summary (the
 * worst moment for a crash: only the journal holds the old pages), create
 * FILE and wait until FILE is removed. tests/summary_test.py kills it there. */
static void test_pause_in_append(sqlite3 *db)
{
    const char *f = getenv("TD_TEST_PAUSE_IN_APPEND");
    if (!f || !*f)
        return;
    sqlite3_db_cacheflush(db);
    int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    close(fd);
    struct stat st;
    for (int i = 0; i < 6000 && stat(f, &st) == 0; i++) /* at most a minute */
        usleep(10000);
}

/* A run added to an existing summary, in one transaction. */
static int append_to_file(writer *w, const td_set *set, const char *run, const td_summary_opts *o,
                          const run_keep *k, char (*hashes)[65])
{
    const char *path = w->path;
    int rc, version = 0;
    if ((rc = td_summary_check_header(path, 1, w->err)) < 0)
        return rc;
    if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        td_summary_harden(w->db, 1) < 0)
        return sql_fail(w->err, w->db, path, "cannot open it for writing");
    sqlite3_busy_timeout(w->db, 10000);
    if ((rc = exec(w->db, "BEGIN IMMEDIATE", path, w->err)) < 0 ||
        (rc = version = check_schema(w->db, path, w->err)) < 0 ||
        (rc = td_summary_check_objects(w->db, path, version, w->err)) < 0 ||
        (rc = drop_same_name(w, run, o)) < 0 || (rc = write_run(w, set, run, o, k, hashes)) < 0)
        return rc;
    /* the new run's encoding: older readers must refuse the file */
    if (version < TD_SUMMARY_SCHEMA && (rc = set_schema_version(w->db, path, w->err)) < 0)
        return rc;
    test_pause_in_append(w->db);
    return exec(w->db, "COMMIT", path, w->err);
}

int td_summary_write(const char *path, const td_set *set, const td_summary_opts *opts,
                     td_error *err)
{
    td_summary_opts oc;
    int rc = TD_OPTS_TAKE(&oc, opts, td_summary_opts, TD_SUMMARY_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    const td_summary_opts *o = &oc;
    int64_t *ranks = NULL, *iters = NULL;
    size_t nranks = 0, niters = 0;
    char *run = NULL, *tmp = NULL;
    char(*hashes)[65] = NULL;
    writer w = {0};
    w.path = path;
    w.err = err;
    rc = resolve_kept(&ranks, &nranks, &o->ranks, set->ranks, set->nranks, "rank", set, path, err);
    if (rc == 0 && o->iters.n && set->niters == 0)
        rc = td_fail(err, TD_EUSAGE, set->path,
                     "no ProfilerStep in this set: leave the iterations out");
    if (rc == 0)
        rc = resolve_kept(&iters, &niters, &o->iters, set->iters, set->niters, "iteration", set,
                          path, err);
    if (rc == 0)
        rc = name_run(&run, set, o, path, err);
    if (rc == 0)
        rc = hash_sources(&hashes, set, path, err);
    run_keep k = {ranks, iters, nranks, niters};
    struct stat st;
    if (rc == 0)
        rc = stat(path, &st) != 0 ? write_new_file(&w, &tmp, set, run, o, &k, hashes) : 1;
    if (rc == 1 && tmp) {
        /* another writer created path meanwhile: its run stays, ours joins it */
        unlink(tmp);
        td_temp_forget(tmp);
        free(tmp);
        tmp = NULL;
    }
    if (rc == 1)
        rc = append_to_file(&w, set, run, o, &k, hashes);
    if (w.db) {
        if (rc < 0)
            sqlite3_exec(w.db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(w.db);
    }
    if (tmp) {
        unlink(tmp);
        td_temp_forget(tmp);
        free(tmp);
    }
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
    return v;
}
