/*
 * Trace sets: a directory of per-rank trace files, or one file. Files of all
 * the sets being opened are read concurrently by a small pool.
 */
#include "util/pool.h"
#include "model/load.h"
#include "model/file_procs.h"
#include "model/prof_load.h"
#include "model/trace_split.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static bool trace_name(const char *name)
{
    return td_has_suffix(name, ".json") || td_has_suffix(name, ".json.gz") ||
           td_has_suffix(name, ".json.zst") || td_has_suffix(name, ".sqlite") ||
           td_has_suffix(name, ".sqlite3") || td_has_suffix(name, ".db");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    size_t k = a;
    if (a == 0 || dir[a - 1] != '/')
        p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}

/* What a directory entry that is not a regular file is, for the message. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO (named pipe)"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file";
}

/* The trace files of one set: paths (malloc'd) appended to *list. */
int td_trace_set_list(const char *path, char ***list, size_t *n, size_t *cap, td_error *err)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        if (errno == ELOOP)
            return td_fail(err, TD_EIO, path, "too many levels of symbolic links");
        return td_fail(err, TD_EIO, path, "%s", strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        char **l = td_grow(*list, cap, *n + 1, sizeof *l);
        if (!l || !(l[*n] = strdup(path)))
            return td_fail(err, TD_ENOMEM, path, "out of memory");
        *list = l;
        (*n)++;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d)
        return td_fail(err, TD_EIO, path, "cannot open directory: %s", strerror(errno));
    size_t first = *n;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !trace_name(de->d_name))
            continue;
        char *full = join(path, de->d_name);
        char **l = td_grow(*list, cap, *n + 1, sizeof *l);
        if (!full || !l) {
            free(full);
            rc = td_fail(err, TD_ENOMEM, path, "out of memory");
            break;
        }
        *list = l;
        /* Only regular files: opening a FIFO named like a trace would wait
         * for a writer forever, a device would be read without end. */
        struct stat fs;
        if (stat(full, &fs) == 0 && !S_ISREG(fs.st_mode)) {
            rc = td_fail(err, TD_EIO, full, "is %s, not a trace file", file_kind(fs.st_mode));
            free(full);
            break;
        }
        l[(*n)++] = full;
    }
    closedir(d);
    if (rc < 0)
        return rc;
    if (*n == first)
        return td_fail(err, TD_ETRACE, path,
                       "no trace files (*.json, *.json.gz, *.json.zst, *.sqlite, *.db) in "
                       "this directory");
    qsort(*list + first, *n - first, sizeof **list, cmp_str);
    return 0;
}

/* Inputs of fewer bytes load on threads: a fork and a memory file cost
 * about as much as reading a megabyte. */
#define PROCESS_MIN ((uint64_t)1 << 20)
/* Inputs of fewer bytes, when -j is not given, load on one thread: a second
 * one (its start, its own malloc arena and the pages it faults in) costs
 * more than it saves (two tracelens-bert files, 150 KB: 30 ms of CPU on two
 * threads, 23 ms on one, no longer in wall time). */
#define THREAD_MIN ((uint64_t)1 << 20)

typedef struct job {
    char *path;
    td_file *file;
    td_error err;
    int rc;
    td_split *split; /* a plain file read by several threads, or NULL */
} job;

/* One unit of work for the pool: piece `piece` of file `file`. */
typedef struct task {
    size_t file, piece;
} task;

typedef struct loadctx {
    job *jobs;
    task *tasks;
    const td_open_opts *opts;
    pthread_mutex_t lock;
    uint64_t done, total;
    bool ahead;       /* fewer loading threads than cores: plain files read ahead */
    uint64_t map_min; /* td_open_opts.map_min_bytes */
    /* Loading in processes: the bytes read by all of them, in shared memory;
     * only the parent calls the progress callback. */
    _Atomic uint64_t *shared_done;
    pid_t parent;
    const void *marker; /* td_open_opts.step_marker, compiled */
} loadctx;

/* td_open_opts.map_min_bytes; when it is set, TD_MAP_MIN=N in the
 * environment replaces it (tests map small files with TD_MAP_MIN=1). */
static uint64_t map_min_of(const td_open_opts *opts)
{
    if (!opts || opts->map_min_bytes == 0)
        return 0;
    const char *force = getenv("TD_MAP_MIN");
    if (force && *force) {
        char *end;
        unsigned long long v = strtoull(force, &end, 10);
        if (*end == '\0' && v > 0)
            return (uint64_t)v;
    }
    return opts->map_min_bytes;
}

static void on_progress(void *ud, uint64_t delta)
{
    loadctx *c = ud;
    uint64_t all = 0;
    if (c->shared_done) { /* files in processes: counted by all, shown by one */
        all = atomic_fetch_add(c->shared_done, delta) + delta;
        if (getpid() != c->parent)
            return;
    }
    pthread_mutex_lock(&c->lock);
    c->done = c->shared_done ? all : c->done + delta;
    /* Pieces of a cut file read a little past their ends: never over 100%. */
    uint64_t done = c->total && c->done > c->total ? c->total : c->done;
    if (c->opts && c->opts->progress)
        c->opts->progress(c->opts->progress_ud, done, c->total);
    pthread_mutex_unlock(&c->lock);
}

/* --pid (td_open_opts.pids): an export's processes are told apart by
 * their pid (docs/profilers.md, "Processes"); a JSON trace is read whole,
 * so asking for some of its processes is an error naming it. */
static int load_pids(job *jb, const td_open_opts *o, const td_load_progress *prog, int flags,
                     const void *marker)
{
    td_prof_kind pk = td_prof_sniff(jb->path);
    for (size_t k = 1; jb->split && k < jb->split->n; k++)
        td_split_cancel(&jb->split->p[k]);
    if (pk == TD_PROF_NONE)
        return td_fail(&jb->err, TD_ETRACE, jb->path,
                       "--pid selects processes of Nsight Systems and rocpd SQLite exports; "
                       "this file is a JSON trace, read whole (leave --pid out)");
    td_pid_sel sel = {o->pids, o->npids};
    return td_prof_load(&jb->file, jb->path, pk, prog, flags, marker, &sel, &jb->err);
}

static int load_one(void *ud, size_t i)
{
    loadctx *c = ud;
    td_load_progress prog = {on_progress, c};
    job *jb = &c->jobs[c->tasks[i].file];
    int attr = c->opts && c->opts->want_attribution ? TD_LOAD_ATTR : 0;
    attr |= c->opts && c->opts->want_breakdown ? TD_LOAD_BD : 0;
    attr |= c->opts && c->opts->want_roofline ? TD_LOAD_ATTR | TD_LOAD_ROOF : 0;
    attr |= c->opts && c->opts->want_stacks ? TD_LOAD_ATTR | TD_LOAD_STACK : 0;
    attr |= c->opts && c->opts->want_tree ? TD_LOAD_TREE : 0;
    attr |= c->opts && c->opts->want_tree && c->opts->tree_python_frames ? TD_LOAD_TREE_PY : 0;
    if (c->tasks[i].piece > 0) {
        td_split_run(jb->split, c->tasks[i].piece, &prog, attr, c->map_min);
        return 0;
    }
    int flags = attr | (c->opts && c->opts->ns ? TD_LOAD_NS : 0) |
                (c->opts && c->opts->nsys_demangled ? TD_LOAD_DEMANGLED : 0);
    if (c->opts && c->opts->npids) {
        jb->rc = load_pids(jb, c->opts, &prog, flags, c->marker);
        return jb->rc;
    }
    jb->rc = td_file_load_split(&jb->file, jb->path, &prog, flags, jb->split, c->ahead, c->map_min,
                                c->marker, &jb->err);
    return jb->rc;
}

/* Which files are cut into pieces (-j more than the files need: one big
 * plain file read by several threads), and the pool's tasks: each file's
 * piece 0 then its other pieces, file after file. */
static int plan_tasks(loadctx *ctx, size_t n, const uint64_t *size, int threads, td_error *err)
{
    if (threads <= 0)
        threads = td_ncores();
    size_t ntask = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = td_split_count(size[i], ctx->total, threads);
        if (ctx->opts &&
            (ctx->opts->want_roofline || ctx->opts->want_stacks || ctx->opts->want_tree))
            k = 1; /* shapes, python frames and trees are read by one reader (trace_load.c) */
        int rc = td_split_plan(&ctx->jobs[i].split, ctx->jobs[i].path, k, err);
        if (rc < 0)
            return rc;
        ntask += td_split_pieces(ctx->jobs[i].split);
    }
    ctx->tasks = malloc((ntask + 1) * sizeof *ctx->tasks);
    if (!ctx->tasks)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    size_t t = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < td_split_pieces(ctx->jobs[i].split); k++)
            ctx->tasks[t++] = (task){i, k};
    return (int)t;
}

static int cmp_file_rank(const void *a, const void *b)
{
    const td_file *x = *(td_file *const *)a, *y = *(td_file *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Takes ownership of files[0..n) (freed by the set, or here on failure). */
int td_set_assemble(td_set **out, const char *path, td_file **files, size_t n, td_error *err)
{
    td_set *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        for (size_t i = 0; i < n; i++)
            td_file_free(files[i]);
        free(files);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    s->files = files;
    s->nfiles = n;
    /* Other profilers' outputs say no rank: theirs is the file's place in
     * the set (docs/profilers.md, "Ranks"; TD_RANK_BY_PLACE). */
    for (size_t i = 0; i < n; i++)
        if (!files[i]->has_rank && files[i]->rank == TD_RANK_BY_PLACE)
            files[i]->rank = (int64_t)i;
    qsort(files, n, sizeof *files, cmp_file_rank);
    for (size_t i = 1; i < n; i++) {
        if (files[i]->rank == files[i - 1]->rank) {
            td_fail(err, TD_ETRACE, path, "two files claim rank %lld: %s and %s",
                    (long long)files[i]->rank, base_name(files[i - 1]->path),
                    base_name(files[i]->path));
            td_set_free(s);
            return TD_ETRACE;
        }
    }
    size_t ni = 0;
    for (size_t i = 0; i < n; i++)
        ni += files[i]->niters;
    s->ranks = malloc((n + 1) * sizeof *s->ranks);
    s->iters = malloc((ni + 1) * sizeof *s->iters);
    if (!s->ranks || !s->iters) {
        td_set_free(s);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        s->ranks[i] = files[i]->rank;
        if (files[i]->niters) /* none: iters may be NULL (a file sent back by a child) */
            memcpy(s->iters + s->niters, files[i]->iters, files[i]->niters * sizeof *s->iters);
        s->niters += files[i]->niters;
    }
    s->nranks = n;
    qsort(s->iters, s->niters, sizeof *s->iters, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < s->niters; i++)
        if (u == 0 || s->iters[i] != s->iters[u - 1])
            s->iters[u++] = s->iters[i];
    s->niters = u;
    *out = s;
    return 0;
}

static td_file_slot job_slot(void *ud, size_t i)
{
    loadctx *c = ud;
    job *jb = &c->jobs[c->tasks[i].file];
    return (td_file_slot){&jb->file, &jb->rc, &jb->err};
}

static void run_task(void *ud, size_t i)
{
    load_one(ud, i);
}

/* A file that starts as gzip or zstd does (content decides, as the reader
 * does): it is read, not mapped. */
static bool compressed(const char *path)
{
    unsigned char m[4] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = pread(fd, m, sizeof m, 0);
    close(fd);
    return (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) ||
           (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd);
}

/* Whether mapped plain files hold most of the bytes: what processes spare
 * is the TLB flushes of mapped windows given back; compressed files are
 * read, and there threads of one process switch more cheaply. Looks at
 * files until either kind holds half the bytes. */
static bool mostly_mapped(char **list, const uint64_t *size, size_t n, uint64_t total,
                          uint64_t map_min)
{
    uint64_t mapped = 0, other = 0;
    for (size_t i = 0; i < n && mapped * 2 < total && other * 2 <= total; i++) {
        if (map_min && size[i] >= map_min && !compressed(list[i]))
            mapped += size[i];
        else
            other += size[i];
    }
    return mapped * 2 >= total;
}

/* td_open_opts.processes, and whether the plan suits it: whole files (no
 * piece of a cut file: the pieces merge in one address space), more than
 * one worker (of threads, the count load_all decided), a megabyte or more,
 * most of it in mapped plain files. TD_PROCESSES=0 in the environment turns
 * it off; =1 turns it on for any files (tests). */
static bool use_processes(const loadctx *c, size_t ntask, int threads, char **list,
                          const uint64_t *size, size_t n)
{
    const td_open_opts *opts = c->opts;
    const char *force = getenv("TD_PROCESSES");
    /* The breakdown's records (model/bd_collect.h) stay in this process. */
    if (!opts || !opts->processes || opts->want_breakdown || opts->want_roofline ||
        opts->want_stacks || opts->want_tree || (force && strcmp(force, "0") == 0))
        return false;
    if (ntask != n || td_pool_threads(ntask, threads) < 2)
        return false;
    if (force && strcmp(force, "1") == 0)
        return true;
    return c->total >= PROCESS_MIN && mostly_mapped(list, size, n, c->total, c->map_min);
}

/* The tasks on processes, progress counted in shared memory: 0, or -1
 * when no process could be started (nothing run). */
static int forked(loadctx *c, const td_file_tasks *ft, int workers)
{
    void *m = mmap(NULL, sizeof *c->shared_done, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED)
        return -1;
    c->shared_done = m;
    c->parent = getpid();
    int rc = td_file_tasks_fork(ft, workers);
    if (rc == 0)
        on_progress(c, 0); /* the children's last bytes, counted after ours */
    c->shared_done = NULL;
    munmap(m, sizeof *c->shared_done);
    return rc;
}

typedef struct sized {
    uint64_t size;
    size_t i;
} sized;

static int cmp_larger(const void *a, const void *b)
{
    const sized *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The files largest first (in list order among equals), the order in
 * which processes take them: a worker left with a big file last would
 * hold up the end. NULL when out of memory (list order then). */
static size_t *largest_first(const uint64_t *size, size_t n)
{
    sized *s = malloc((n + 1) * sizeof *s);
    size_t *order = malloc((n + 1) * sizeof *order);
    if (s && order) {
        for (size_t i = 0; i < n; i++)
            s[i] = (sized){size[i], i};
        qsort(s, n, sizeof *s, cmp_larger);
        for (size_t i = 0; i < n; i++)
            order[i] = s[i].i;
    } else {
        free(order);
        order = NULL;
    }
    free(s);
    return order;
}

/* Loads the n files of list into jobs on the pool: 0, or < 0 when the work
 * could not even be planned (a file's own error is in its job). */
static int load_all(job *jobs, char **list, size_t n, const td_open_opts *opts, td_error *err)
{
    loadctx ctx = {jobs, NULL, opts, PTHREAD_MUTEX_INITIALIZER, 0, 0, false, map_min_of(opts),
                   NULL, 0,    NULL};
    void *marker = NULL;
    int mrc = td_step_marker_compile(&marker, opts ? opts->step_marker : NULL, err);
    if (mrc < 0)
        return mrc;
    ctx.marker = marker;
    uint64_t *size = calloc(n + 1, sizeof *size);
    if (!size) {
        td_step_marker_free(marker);
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        jobs[i].path = list[i];
        struct stat st;
        if (stat(list[i], &st) == 0 && S_ISREG(st.st_mode))
            ctx.total += size[i] = (uint64_t)st.st_size;
    }
    int threads = opts ? opts->threads : 0;
    bool small = threads <= 0 && ctx.total < THREAD_MIN;
    if (small)
        threads = 1;
    int ntask = plan_tasks(&ctx, n, size, threads, err);
    bool procs = ntask >= 0 && use_processes(&ctx, (size_t)ntask, threads, list, size, n);
    size_t *order = procs ? largest_first(size, n) : NULL; /* tasks are files */
    free(size);
    /* A core the pool leaves idle reads plain files ahead of their scanners
     * (as a compressed file's thread decompresses ahead); with every core
     * scanning, or inputs small enough for one (THREAD_MIN), that thread
     * would only add switching. */
    ctx.ahead = !small && ntask >= 0 && td_pool_threads((size_t)ntask, threads) < td_ncores();
    td_file_tasks ft = {(size_t)ntask, run_task, job_slot, &ctx, order};
    if (procs && forked(&ctx, &ft, td_pool_threads((size_t)ntask, threads)) == 0)
        ; /* loaded by processes */
    else if (ntask >= 0)
        td_pool_run((size_t)ntask, threads, load_one, &ctx);
    free(order);
    td_links_trim();
    td_step_marker_free(marker);
    pthread_mutex_destroy(&ctx.lock);
    free(ctx.tasks);
    for (size_t i = 0; i < n; i++) {
        td_split_free(jobs[i].split);
        jobs[i].split = NULL;
    }
    return ntask < 0 ? ntask : 0;
}

int td_trace_sets_open(td_set **out, const char *const *paths, size_t nsets,
                       const td_open_opts *opts, td_error *err)
{
    char **list = NULL;
    size_t n = 0, cap = 0;
    size_t *bounds = calloc(nsets + 1, sizeof *bounds);
    job *jobs = NULL;
    int rc = 0;
    for (size_t s = 0; s < nsets; s++)
        out[s] = NULL;
    if (!bounds)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    for (size_t s = 0; s < nsets && rc == 0; s++) {
        bounds[s] = n;
        rc = td_trace_set_list(paths[s], &list, &n, &cap, err);
    }
    bounds[nsets] = n;
    if (rc < 0)
        goto done;
    jobs = calloc(n + 1, sizeof *jobs);
    if (!jobs) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    if ((rc = load_all(jobs, list, n, opts, err)) < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].rc < 0) {
            if (err)
                *err = jobs[i].err;
            rc = jobs[i].rc;
            break;
        }
    }
    for (size_t s = 0; s < nsets && rc == 0; s++) {
        size_t m = bounds[s + 1] - bounds[s];
        td_file **files = malloc((m + 1) * sizeof *files);
        if (!files) {
            rc = td_fail(err, TD_ENOMEM, paths[s], "out of memory");
            break;
        }
        for (size_t i = 0; i < m; i++) {
            files[i] = jobs[bounds[s] + i].file;
            jobs[bounds[s] + i].file = NULL;
        }
        rc = td_set_assemble(&out[s], paths[s], files, m, err);
    }
    if (rc < 0)
        for (size_t s = 0; s < nsets; s++) {
            td_set_free(out[s]);
            out[s] = NULL;
        }
done:
    for (size_t i = 0; i < n; i++) {
        if (jobs)
            td_file_free(jobs[i].file);
        free(list[i]);
    }
    free(list);
    free(jobs);
    free(bounds);
    return rc;
}

void td_set_free(td_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        td_file_free(s->files[i]);
    free(s->files);
    free(s->ranks);
    free(s->iters);
    free(s->have_iters);
    free(s->origin);
    free(s->path);
    free(s);
}

const char *td_set_path(const td_set *s)
{
    return s->path;
}

const char *td_set_origin(const td_set *s)
{
    return s->origin ? s->origin : s->path;
}

bool td_set_unchecked(const td_set *s)
{
    return s->unchecked != 0;
}

size_t td_set_nfiles(const td_set *s)
{
    return s->nfiles;
}

int td_set_file_info(const td_set *s, size_t i, td_file_info *o)
{
    if (i >= s->nfiles)
        return TD_EUSAGE;
    const td_file *f = s->files[i];
    memset(o, 0, sizeof *o);
    o->path = f->path;
    o->rank = f->rank;
    o->compression = f->compression;
    o->file_bytes = f->file_bytes;
    o->json_bytes = f->json_bytes;
    o->events_total = f->events_total;
    o->events_counted = f->nev;
    o->events_cpu = f->events_cpu;
    o->events_gpu = f->events_gpu;
    o->events_stream0 = f->events_stream0;
    o->events_no_launch = f->events_no_launch;
    o->events_skipped = f->events_skipped;
    /* Each step once: the GPU copy of a ProfilerStep annotation (on the
     * device's timeline) is the same step as its CPU annotation. */
    o->steps = f->niters < f->steps ? f->niters : f->steps;
    o->rounded = f->rounded;
    o->bom = f->bom;
    o->device_name = f->device_name;
    o->decimal_ts = f->decimal_ts;
    o->format = f->format;
    return 0;
}

const char *td_set_file_rank_from(const td_set *s, size_t i)
{
    if (i >= s->nfiles || !s->files[i]->format)
        return NULL;
    static const char *const from[] = {
        [TD_RANK_FROM_PLACE] = "file order",
        [TD_RANK_FROM_MPI] = "MPI_RANKS",
        [TD_RANK_FROM_PLACE_MANY] = "file order (MPI_RANKS names several ranks: --pid picks one)"};
    int r = s->files[i]->rank_from;
    return r > 0 && r <= TD_RANK_FROM_PLACE_MANY ? from[r] : "file order";
}

size_t td_set_file_processes(const td_set *s, size_t i)
{
    return i < s->nfiles ? s->files[i]->nprocs : 0;
}

int td_set_file_process(const td_set *s, size_t i, size_t k, td_process_info *o)
{
    if (i >= s->nfiles || k >= s->files[i]->nprocs)
        return TD_EUSAGE;
    const td_file *f = s->files[i];
    o->pid = f->proc_pid[k];
    o->events = f->proc_events[k];
    o->name = "";
    const char *p = f->proc_names, *end = p ? p + f->proc_names_len : NULL;
    for (size_t n = 0; p && p < end; n++) {
        if (n == k) {
            o->name = p;
            break;
        }
        p += strnlen(p, (size_t)(end - p)) + 1;
    }
    return 0;
}

bool td_set_ns(const td_set *s)
{
    return s->nfiles > 0 && s->files[0]->ns;
}

bool td_env_ns(void)
{
    const char *v = getenv("HTA_DISABLE_NS_ROUNDING");
    return v && strcmp(v, "1") == 0;
}

int td_set_check_rule(const td_set *s, bool ns, td_error *err)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        if (!f->decimal_ts || (f->ns != 0) == ns)
            continue;
        const char *where = s->origin ? s->origin : f->path;
        if (ns)
            return td_fail(err, TD_ETRACE, where,
                           "this summary holds durations rounded to whole us (made without "
                           "--ns): summarize the traces again with --ns to compare with --ns");
        return td_fail(err, TD_ETRACE, where,
                       "this summary holds the traces' own durations (made with --ns): "
                       "compare with --ns, or summarize the traces again without it");
    }
    return 0;
}

size_t td_set_ranks(const td_set *s, int64_t *out, size_t cap)
{
    for (size_t i = 0; i < s->nranks && i < cap; i++)
        out[i] = s->ranks[i];
    return s->nranks;
}

size_t td_set_iterations(const td_set *s, int64_t *out, size_t cap)
{
    for (size_t i = 0; i < s->niters && i < cap; i++)
        out[i] = s->iters[i];
    return s->niters;
}

typedef struct cat_sum {
    uint64_t n;
    double dur; /* NAN once some file does not know it */
} cat_sum;

/* Calls fn for the categories of all in name order. */
static void cat_emit(td_strtab *all, const cat_sum *sum,
                     void (*fn)(void *ud, const char *cat, uint64_t n, double dur), void *ud)
{
    size_t n = td_strtab_count(all);
    const char **names = malloc((n + 1) * sizeof *names);
    size_t *ord = malloc((n + 1) * sizeof *ord);
    if (names && ord) {
        for (size_t c = 0; c < n; c++) {
            names[c] = td_strtab_get(all, (uint32_t)c, NULL);
            ord[c] = c;
        }
        for (size_t a = 1; a < n; a++) {
            size_t v = ord[a], b = a;
            while (b > 0 && strcmp(names[ord[b - 1]], names[v]) > 0) {
                ord[b] = ord[b - 1];
                b--;
            }
            ord[b] = v;
        }
        for (size_t c = 0; c < n; c++)
            fn(ud, names[ord[c]], sum[ord[c]].n, sum[ord[c]].dur);
    }
    free(ord);
    free(names);
}

void td_set_category_times(const td_set *s,
                           void (*fn)(void *ud, const char *cat, uint64_t n, double dur), void *ud)
{
    td_strtab *all = td_strtab_new();
    cat_sum *sum = NULL;
    size_t cap = 0;
    if (!all)
        return;
    for (size_t i = 0; i < s->nfiles; i++) {
        const td_file *f = s->files[i];
        for (size_t c = 0; c < td_strtab_count(f->cats) && c < f->ncat_counts; c++) {
            size_t len;
            const char *name = td_strtab_get(f->cats, (uint32_t)c, &len);
            int64_t id = td_strtab_intern(all, name, len);
            if (id < 0)
                goto done;
            size_t old = cap;
            cat_sum *ns = td_grow(sum, &cap, (size_t)id + 1, sizeof *ns);
            if (!ns)
                goto done;
            memset(ns + old, 0, (cap - old) * sizeof *ns);
            sum = ns;
            sum[id].n += f->cat_counts[c];
            sum[id].dur += f->cat_dur ? f->cat_dur[c] : NAN;
        }
    }
    cat_emit(all, sum, fn, ud);
done:
    free(sum);
    td_strtab_free(all);
}

typedef struct cat_count_fn {
    void (*fn)(void *ud, const char *cat, uint64_t n);
    void *ud;
} cat_count_fn;

static void cat_count_only(void *ud, const char *cat, uint64_t n, double dur)
{
    (void)dur;
    cat_count_fn *c = ud;
    c->fn(c->ud, cat, n);
}

void td_set_categories(const td_set *s, void (*fn)(void *ud, const char *cat, uint64_t n), void *ud)
{
    cat_count_fn c = {fn, ud};
    td_set_category_times(s, cat_count_only, &c);
}

int td_set_check_selection(const td_set *s, const int64_t *ranks, size_t nranks,
                           const int64_t *iters, size_t niters, int device, td_error *err)
{
    if (!s->partial)
        return 0;
    const char *where = s->origin ? s->origin : s->path;
    for (size_t i = 0; i < nranks; i++) {
        size_t k = 0;
        while (k < s->nfiles && s->files[k]->rank != ranks[i])
            k++;
        if (k == s->nfiles)
            return td_fail(err, TD_ETRACE, where,
                           "rank %lld was not summarized (summarize it again with that rank)",
                           (long long)ranks[i]);
    }
    for (size_t i = 0; s->have_iters && i < niters; i++) {
        size_t k = 0;
        while (k < s->nhave_iters && s->have_iters[k] != iters[i])
            k++;
        if (k == s->nhave_iters)
            return td_fail(err, TD_ETRACE, where,
                           "iteration %lld was not summarized (summarize it again with that "
                           "iteration)",
                           (long long)iters[i]);
    }
    if (s->have_device != TD_DEVICE_ALL && device != s->have_device)
        return td_fail(err, TD_ETRACE, where,
                       "only %s events were summarized (summarize it again with --device all)",
                       td_device_name(s->have_device));
    return 0;
}
