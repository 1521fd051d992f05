/* Loaded files carried between processes (model/file_xfer.c) and whole
 * files loaded by child processes (model/file_procs.c): every field, string
 * and event of a file comes back as it was loaded; a child's failed load
 * comes back as its error; a task whose child died is run again; in list
 * order or another. */
#include "harness.h"
#include "model/model.h"
#include "model/file_procs.h"
#include "model/file_xfer.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A trace of rank `rank`, n events over `names` names, a third of them
 * kernels on streams launched by the host events before them, in 4 steps.
 * Names are shared by cpu_ops and cuda_runtime events (two categories on
 * the host side: each event's category is kept) and one ts is decimal (the
 * file is rounded: each event's rounding change is kept), so that a file
 * crosses with td_file.ev_cat and rdelta. */
static const char *write_rank(const char *name, size_t n, unsigned names, int rank)
{
    size_t cap = 260 * n + 4096, len = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    len += (size_t)snprintf(t + len, cap - len,
                            "{\"distributedInfo\": {\"rank\": %d}, \"deviceProperties\": "
                            "[{\"name\": \"GPU X\"}], \"traceEvents\": [\n",
                            rank);
    for (int s = 0; s < 4; s++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
                                "\"ProfilerStep#%d\", \"ts\": %zu, \"dur\": %zu},\n",
                                s + 1, (size_t)s * 10 * n, 10 * n);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int kernel = i % 3 == 2;
        len += (size_t)snprintf(
            t + len, cap - len,
            "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s%u\", \"ts\": %zu, \"dur\": %u, "
            "\"args\": {\"stream\": %d, \"correlation\": %zu}},\n",
            kernel  ? "kernel"
            : i % 3 ? "cuda_runtime"
                    : "cpu_op",
            kernel ? "k" : "op", (unsigned)((x >> 8) % names), 40 * i + (kernel ? 5 : 0),
            (unsigned)(x % 7) + 1, kernel ? 7 : -1, i % 3 ? i - (i % 3 == 2) : 0);
    }
    len +=
        (size_t)snprintf(t + len, cap - len, "{\"ph\": \"i\", \"name\": \"end\", \"ts\": 1.5}]}\n");
    const char *p = unit_write(name, t, len);
    free(t);
    return p;
}

static const char *write_trace(const char *name, size_t n, unsigned names)
{
    return write_rank(name, n, names, 0);
}

static int same_tab(const td_strtab *a, const td_strtab *b)
{
    if (!a || !b)
        return a == b;
    if (td_strtab_count(a) != td_strtab_count(b))
        return 0;
    for (size_t i = 0; i < td_strtab_count(a); i++) {
        size_t la, lb;
        const char *sa = td_strtab_get(a, (uint32_t)i, &la);
        const char *sb = td_strtab_get(b, (uint32_t)i, &lb);
        if (la != lb || memcmp(sa, sb, la) != 0 || td_strtab_find(b, sa, la) != (int64_t)i)
            return 0;
    }
    return 1;
}

static int same_array(const void *a, const void *b, size_t bytes)
{
    return bytes == 0 || (a && b && memcmp(a, b, bytes) == 0);
}

static int same_events(const td_file *a, const td_file *b)
{
    if (a->nev != b->nev || a->nevb != b->nevb)
        return 0;
    for (size_t i = 0; i < a->nev; i++) {
        const td_event *x = &a->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        const td_event *y = &b->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        if (memcmp(x, y, sizeof *x) != 0)
            return 0;
    }
    return 1;
}

/* b is a as loaded: what a diff, an info or a summary reads of a file. */
static void check_same_file(const td_file *a, const td_file *b)
{
    CHECK_STR(b->path, a->path);
    CHECK(!a->device_name == !b->device_name);
    if (a->device_name && b->device_name)
        CHECK_STR(b->device_name, a->device_name);
    CHECK(b->rank == a->rank && b->has_rank == a->has_rank);
    CHECK(b->file_bytes == a->file_bytes && b->json_bytes == a->json_bytes);
    CHECK(b->events_total == a->events_total && b->events_skipped == a->events_skipped);
    CHECK(b->steps == a->steps && b->events_cpu == a->events_cpu);
    CHECK(b->events_gpu == a->events_gpu && b->events_stream0 == a->events_stream0);
    CHECK(b->events_no_launch == a->events_no_launch);
    CHECK(b->rounded == a->rounded && b->bom == a->bom);
    CHECK(b->decimal_ts == a->decimal_ts && b->ns == a->ns && b->cats_by_side == a->cats_by_side);
    CHECK(!a->rdelta == !b->rdelta && !a->ev_cat == !b->ev_cat);
    CHECK(!a->rdelta || same_array(a->rdelta, b->rdelta, a->nev * sizeof *a->rdelta));
    CHECK(!a->ev_cat || same_array(a->ev_cat, b->ev_cat, a->nev * sizeof *a->ev_cat));
    CHECK(same_tab(a->names, b->names));
    CHECK(same_tab(a->cats, b->cats));
    CHECK(b->ncat_counts == a->ncat_counts);
    CHECK(same_array(a->cat_counts, b->cat_counts, a->ncat_counts * sizeof *a->cat_counts));
    CHECK(same_array(a->cat_dur, b->cat_dur, a->ncat_counts * sizeof *a->cat_dur));
    CHECK(b->nname_cats == a->nname_cats);
    CHECK(same_array(a->name_cats, b->name_cats, a->nname_cats * sizeof *a->name_cats));
    CHECK(b->niters == a->niters);
    CHECK(same_array(a->iters, b->iters, a->niters * sizeof *a->iters));
    CHECK(b->has_attr == a->has_attr && b->nattr == a->nattr);
    if (a->has_attr) {
        CHECK(same_array(a->attr_op, b->attr_op, a->nattr * sizeof *a->attr_op));
        CHECK(same_array(a->attr_top, b->attr_top, a->nattr * sizeof *a->attr_top));
        CHECK(same_array(a->attr_ann, b->attr_ann, a->nattr * sizeof *a->attr_ann));
    }
    CHECK(same_events(a, b));
}

/* f written and read back: into memory (an anonymous mapping, which the
 * copy then owns), or with `sent` through a memory file at an offset, as a
 * child sends it. NULL after reporting a failure. */
static td_file *round_trip(const td_file *f, int sent)
{
    size_t size = td_file_xfer_size(f);
    void *m = MAP_FAILED;
    if (sent) {
        size_t got = 0;
        FILE *tmp = tmpfile();
        int fd = tmp ? fileno(tmp) : -1;
        if (fd >= 0 && td_file_xfer_send(f, fd, 3 * 4096, &got) == 0 && got == size)
            m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 3 * 4096);
        if (tmp)
            fclose(tmp);
    } else {
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED)
            td_file_xfer_write(f, m, size);
    }
    if (m == MAP_FAILED) {
        unit_fail(__FILE__, __LINE__, "%s %zu bytes failed", sent ? "sending" : "mapping", size);
        return NULL;
    }
    td_file *g = NULL;
    if (td_file_xfer_read(&g, m, size) != 0) {
        unit_fail(__FILE__, __LINE__, "td_file_xfer_read refused its own bytes");
        munmap(m, size);
        return NULL;
    }
    return g;
}

TEST(test_file_procs__a_file_crosses_whole)
{
    /* Several blocks of events, the last one partly filled; with and
     * without attribution. */
    const char *path = write_trace("xfer.json", 3 * TD_BLOCK + 1234, 500);
    REQUIRE(path);
    for (int way = 0; way < 4; way++) {
        int attr = way & 1;
        td_file *f = NULL;
        td_error err = {0};
        REQUIRE(td_file_load(&f, path, NULL, attr, &err) == 0);
        CHECK(f->ev_cat && f->rdelta); /* both cross too */
        CHECK(f->nevb == 4 && f->has_attr == attr && f->events_gpu > 0);
        td_file *g = round_trip(f, way >> 1);
        if (g) {
            check_same_file(f, g);
            /* The copy's interner still takes new names after the old. */
            size_t n = td_strtab_count(g->names);
            CHECK(td_strtab_intern(g->names, "a new name", 10) == (int64_t)n);
            CHECK(td_strtab_intern(g->names, "op7", 3) == td_strtab_find(f->names, "op7", 3));
        }
        td_file_free(g);
        td_file_free(f);
    }
}

TEST(test_file_procs__damaged_bytes_refused)
{
    const char *path = write_trace("xfer_small.json", 300, 20);
    REQUIRE(path);
    td_file *f = NULL;
    td_error err = {0};
    REQUIRE(td_file_load(&f, path, NULL, 0, &err) == 0);
    size_t size = td_file_xfer_size(f);
    unsigned char *m = malloc(size);
    REQUIRE(m);
    td_file_xfer_write(f, m, size);
    td_file *g = NULL;
    /* Cut short, and an interner whose slot names an id it lacks. */
    CHECK(td_file_xfer_read(&g, m, size - 8) == TD_ETRACE && !g);
    /* Blocks that do not hold the events, and more events than bytes (the
     * struct as sent follows the magic and the size). */
    td_file sent;
    memcpy(&sent, m + 16, sizeof sent);
    sent.nevb++;
    memcpy(m + 16, &sent, sizeof sent);
    CHECK(td_file_xfer_read(&g, m, size) == TD_ETRACE && !g);
    sent.nevb--;
    sent.nev = size;
    memcpy(m + 16, &sent, sizeof sent);
    CHECK(td_file_xfer_read(&g, m, size) == TD_ETRACE && !g);
    sent.nev = f->nev;
    memcpy(m + 16, &sent, sizeof sent);
    CHECK(td_file_xfer_read(&g, m, size) == 0 && g);
    if (g) { /* its events are in m, freed below: not its to free */
        g->ev_map = NULL;
        g->nevb = 0;
        td_file_free(g);
        g = NULL;
    }
    td_strtab_parts p;
    td_strtab_parts_of(f->names, &p);
    uint32_t *slots = malloc(p.nslots * sizeof *slots);
    REQUIRE(slots);
    memcpy(slots, p.slots, p.nslots * sizeof *slots);
    slots[0] = (uint32_t)p.n + 1;
    p.slots = slots;
    CHECK(td_strtab_from_parts(&p) == NULL);
    free(slots);
    free(m);
    td_file_free(f);
}

typedef struct tasks_ud {
    const char **paths;
    td_file **files;
    int *rc;
    td_error *err;
    pid_t parent;
    size_t die;    /* a child running this task dies */
    int *deaths;   /* shared: children that died so */
    int held_back; /* this process's first task waited for the children */
} tasks_ud;

static void run_task(void *ud, size_t i)
{
    tasks_ud *u = ud;
    if (i == u->die && getpid() != u->parent) {
        __atomic_fetch_add(u->deaths, 1, __ATOMIC_SEQ_CST);
        _exit(3);
    }
    if (getpid() == u->parent && !u->held_back) {
        u->held_back = 1; /* leave the children most tasks */
        usleep(50000);
    }
    u->rc[i] = td_file_load(&u->files[i], u->paths[i], NULL, 1, &u->err[i]);
}

static td_file_slot slot_of(void *ud, size_t i)
{
    tasks_ud *u = ud;
    return (td_file_slot){&u->files[i], &u->rc[i], &u->err[i]};
}

TEST(test_file_procs__tasks_on_processes)
{
    enum { N = 7 };
    const char *paths[N];
    char name[64];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "procs%d.json", i);
        paths[i] = i == 3 ? "no/such/trace.json" : write_trace(name, 2000 + 5000 * (size_t)i, 50);
        REQUIRE(paths[i]);
    }
    td_file *files[N] = {0};
    int rc[N];
    td_error err[N];
    memset(err, 0, sizeof err);
    /* Each task dies once in a child in turn: every slot ends as a load
     * here would fill it. */
    int *deaths =
        mmap(NULL, sizeof *deaths, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(deaths != MAP_FAILED);
    *deaths = 0;
    for (size_t die = 0; die <= N; die++) {
        tasks_ud u = {paths, files, rc, err, getpid(), die, deaths, 0};
        /* In list order, or last first (this process takes the first). */
        size_t reversed[N];
        for (size_t k = 0; k < N; k++)
            reversed[k] = N - 1 - k;
        td_file_tasks t = {N, run_task, slot_of, &u, die % 2 ? reversed : NULL};
        for (int i = 0; i < N; i++)
            rc[i] = 99;
        REQUIRE(td_file_tasks_fork(&t, 3) == 0);
        for (int i = 0; i < N; i++) {
            td_file *want = NULL;
            td_error werr = {0};
            int wrc = td_file_load(&want, paths[i], NULL, 1, &werr);
            CHECK_INT(rc[i], wrc);
            if (wrc < 0) {
                CHECK(files[i] == NULL);
                CHECK_STR(err[i].msg, werr.msg);
                CHECK_STR(err[i].path, werr.path);
            } else if (CHECK(files[i] != NULL)) {
                check_same_file(want, files[i]);
            }
            td_file_free(want);
            td_file_free(files[i]);
            files[i] = NULL;
        }
    }
    CHECK(*deaths > 0); /* the path of a child that died was taken */
    munmap(deaths, sizeof *deaths);
}

typedef struct seen_progress {
    pid_t pid;
    int calls, others, backwards;
    uint64_t last, total;
} seen_progress;

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    seen_progress *p = ud;
    p->calls++;
    p->others += getpid() != p->pid; /* a child's call would not reach here */
    p->backwards += done < p->last;
    p->last = done;
    p->total = total;
}

/* td_sets_open with td_open_opts.processes: the sets a threads-only open
 * gives, with the files past the first read by children (their events in
 * place in the memory file), and progress counted over every process's
 * bytes, reported by this one alone. */
TEST(test_file_procs__sets_opened_in_processes)
{
    char name[64];
    const char *paths[2];
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "procs_set%d/rank%d.json", i, i);
        REQUIRE(write_rank(name, 3000 + 2000 * (size_t)i, 40, 0));
        snprintf(name, sizeof name, "procs_set%d/rank%d.json", i, i + 2);
        paths[i] = write_rank(name, 7000 + 20000 * (size_t)i, 40, 1);
        REQUIRE(paths[i]);
    }
    char dirs[2][4200];
    for (int i = 0; i < 2; i++) {
        snprintf(dirs[i], sizeof dirs[i], "%s", paths[i]);
        *strrchr(dirs[i], '/') = '\0';
    }
    const char *sets[2] = {dirs[0], dirs[1]};
    td_set *a[2] = {NULL, NULL}, *b[2] = {NULL, NULL};
    td_error err = {0};
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 3;
    oo.map_min_bytes = 1;
    if (td_sets_open(a, sets, 2, &oo, &err) != 0)
        fprintf(stderr, "%s %s\n", err.path, err.msg);
    REQUIRE(a[0] && a[1]);
    /* A child that starts late may find every file taken: try again. */
    size_t in_place = 0;
    for (int attempt = 0; attempt < 5 && in_place == 0; attempt++) {
        seen_progress p = {getpid(), 0, 0, 0, 0, 0};
        oo.processes = true;
        oo.progress = on_progress;
        oo.progress_ud = &p;
        for (int s = 0; s < 2; s++)
            td_set_free(b[s]);
        CHECK(td_sets_open(b, sets, 2, &oo, &err) == 0);
        CHECK(p.calls > 0 && p.others == 0 && p.backwards == 0);
        CHECK(p.total > 0 && p.last == p.total);
        for (int s = 0; s < 2 && b[0] && b[1]; s++) {
            CHECK(a[s]->nfiles == 2 && b[s]->nfiles == 2);
            for (size_t i = 0; i < a[s]->nfiles && i < b[s]->nfiles; i++) {
                check_same_file(a[s]->files[i], b[s]->files[i]);
                in_place += b[s]->files[i]->ev_map != NULL;
            }
        }
    }
    CHECK(in_place >= 1 && in_place <= 3); /* the largest is read here */
    for (int s = 0; s < 2; s++) {
        td_set_free(a[s]);
        td_set_free(b[s]);
    }
}
