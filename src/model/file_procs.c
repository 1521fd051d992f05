/*
 * Files loaded in child processes. Threads of one process share its page
 * tables: each page given back behind a mapped file's window, and each
 * unmapping, interrupts every other core running the process to flush its
 * TLB (about 470 interrupts in loading the 4x pair of BENCHMARKS.md). A
 * child process of its own has its own address space, so the readers never
 * interrupt one another; what crosses back is only the loaded file, a few
 * percent of its JSON, written once into a memory file (memfd) and mapped
 * here in place.
 *
 * The children take tasks from a counter in shared memory, as the threads of
 * util/pool.c do, and write each result's state into a shared slot. A child
 * never returns into the caller's code: it leaves with _exit, so neither
 * atexit handlers nor stdio buffers run twice.
 */
#define _GNU_SOURCE /* memfd_create */
#include "model/file_procs.h"
#include "model/file_xfer.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { SLOT_FREE, SLOT_TAKEN, SLOT_SENT, SLOT_FAILED, SLOT_HERE };

typedef struct slot_state {
    _Atomic int state;
    int worker;        /* the child that took it (1...) */
    uint64_t off, len; /* SLOT_SENT: its bytes in the worker's memory file */
    int rc;            /* SLOT_FAILED: the load's own error */
    td_error err;
} slot_state;

typedef struct shared {
    atomic_size_t next;
    slot_state slot[];
} shared;

#define MAX_WORKERS 256

static size_t page_round(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

/* Writes a loaded file at *end of the memory file fd: 0, or -1 (its task
 * is then left to the parent). Written, not mapped: a page written whole
 * is not cleared first, and nothing is mapped or unmapped here. */
static int send_file(const td_file *f, int fd, uint64_t *end, slot_state *s)
{
    size_t size;
    if (td_file_xfer_send(f, fd, *end, &size) < 0)
        return -1;
    s->off = *end;
    s->len = size;
    *end += page_round(size);
    return 0;
}

/* The task at place k of the order. */
static size_t task_at(const td_file_tasks *t, size_t k)
{
    return t->order ? t->order[k] : k;
}

/* A child's slot being loaded, for its SIGBUS handler. */
static slot_state *volatile g_loading;

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = 0;
    while (src[n] && n + 1 < cap) {
        dst[n] = src[n];
        n++;
    }
    dst[n] = '\0';
}

/* A mapped file truncated under the child: the error the program's own
 * handler would report, as the task's result (async-signal-safe: plain
 * stores and _exit). Any other SIGBUS ends the child, leaving its task to
 * the parent. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    uint64_t off = 0;
    const char *path = td_mapped_file(si->si_addr, &off);
    slot_state *s = g_loading;
    if (!path || !s) {
        signal(sig, SIG_DFL);
        return; /* the access faults again, and the default action ends us */
    }
    s->err.code = s->rc = TD_EIO;
    copy_text(s->err.path, sizeof s->err.path, path);
    copy_text(s->err.msg, sizeof s->err.msg, "the file was truncated while it was read");
    s->err.offset = off;
    s->err.has_offset = true;
    atomic_store(&s->state, SLOT_FAILED);
    _exit(0);
}

static _Noreturn void child(const td_file_tasks *t, shared *sh, int worker, int fd)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    uint64_t end = 0;
    for (;;) {
        size_t k = atomic_fetch_add(&sh->next, 1);
        if (k >= t->n)
            break;
        size_t i = task_at(t, k);
        slot_state *s = &sh->slot[i];
        s->worker = worker;
        atomic_store(&s->state, SLOT_TAKEN);
        g_loading = s;
        t->run(t->ud, i);
        g_loading = NULL;
        td_file_slot out = t->slot(t->ud, i);
        if (*out.rc < 0) {
            s->rc = *out.rc;
            s->err = *out.err;
            atomic_store(&s->state, SLOT_FAILED);
        } else if (send_file(*out.file, fd, &end, s) == 0) {
            atomic_store(&s->state, SLOT_SENT);
        }
        td_file_free(*out.file);
        *out.file = NULL;
    }
    _exit(0);
}

/* The file of a sent slot, mapped from its child's memory file. */
static int receive(const slot_state *s, int fd, td_file **out)
{
    void *m = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, (off_t)s->off);
    if (m == MAP_FAILED)
        return -1;
    if (td_file_xfer_read(out, m, s->len) < 0) {
        munmap(m, s->len);
        return -1;
    }
    return 0;
}

/* Slot i's result in place, when its child has sent or failed it (or, with
 * `all`, whatever became of it: what no child finished is run here). */
static void take_slot(const td_file_tasks *t, slot_state *s, size_t i, const int *fds, bool all)
{
    td_file_slot out = t->slot(t->ud, i);
    switch (atomic_load(&s->state)) {
    case SLOT_HERE:
        return;
    case SLOT_FAILED:
        *out.rc = s->rc;
        *out.err = s->err;
        break;
    case SLOT_SENT:
        if (receive(s, fds[s->worker], out.file) == 0) {
            *out.rc = 0;
            break;
        }
        if (!all)
            return;
        t->run(t->ud, i);
        break;
    default:
        if (!all)
            return;
        t->run(t->ud, i);
    }
    atomic_store(&s->state, SLOT_HERE);
}

/* This process's share: the first task (taken before the children
 * started), then tasks from the counter, and between them the files the
 * children have sent so far, so that few are left to take in at the end,
 * when the other cores are idle. */
static void run_here(const td_file_tasks *t, shared *sh, const int *fds)
{
    size_t seen = 1; /* tasks before this place are taken in */
    for (size_t k = 0; k < t->n; k = atomic_fetch_add(&sh->next, 1)) {
        size_t i = task_at(t, k);
        atomic_store(&sh->slot[i].state, SLOT_HERE);
        t->run(t->ud, i);
        for (; seen < k; seen++) {
            size_t j = task_at(t, seen);
            int st = atomic_load(&sh->slot[j].state);
            if (st == SLOT_FREE || st == SLOT_TAKEN) /* a child's, not done yet */
                break;
            take_slot(t, &sh->slot[j], j, fds, false);
        }
    }
}

int td_file_tasks_fork(const td_file_tasks *t, int workers)
{
    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    size_t bytes = sizeof(shared) + t->n * sizeof(slot_state);
    shared *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return -1;
    /* The first task is this process's own: it has no file to send, so it
     * takes the largest, and the children never hold up the end with it. */
    atomic_store(&sh->next, 1);
    int fds[MAX_WORKERS];
    pid_t pids[MAX_WORKERS];
    int started = 1;
    for (int w = 1; w < workers; w++) {
        if ((fds[w] = memfd_create("tracediff-load", MFD_CLOEXEC)) < 0)
            break;
        if ((pids[w] = fork()) < 0) {
            close(fds[w]);
            break;
        }
        if (pids[w] == 0)
            child(t, sh, w, fds[w]);
        started++;
    }
    if (started == 1) {
        munmap(sh, bytes);
        return -1;
    }
    run_here(t, sh, fds);
    for (int w = 1; w < started; w++) {
        int st;
        while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR)
            ;
    }
    for (size_t i = 0; i < t->n; i++)
        take_slot(t, &sh->slot[i], i, fds, true);
    for (int w = 1; w < started; w++)
        close(fds[w]);
    munmap(sh, bytes);
    return 0;
}
