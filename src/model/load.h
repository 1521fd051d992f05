/* Private to model/: what the trace loader shares with iterations.c,
 * attribution.c, trace_split.c and trace_set.c. */
#ifndef TD_MODEL_LOAD_H
#define TD_MODEL_LOAD_H

#include "model/model.h"

/* trace_split.c: one plain file read by several threads (model/trace_split.h).
 * td_split_plan makes *out NULL when the file is not worth cutting or
 * cannot be (compressed, no event boundary found, not a trace). */
typedef struct td_split td_split;
int td_split_plan(td_split **out, const char *path, size_t pieces, td_error *err);
size_t td_split_pieces(const td_split *sp);
void td_split_free(td_split *sp);
/* How many pieces to cut a file of size bytes into, out of total bytes read
 * by threads threads (TD_SPLIT=N in the environment forces N, for tests). */
size_t td_split_count(uint64_t size, uint64_t total, int threads);
/* trace_load.c: piece 0 (the whole file when sp is NULL) and piece i >= 1.
 * ahead: a plain file not cut is read by a thread of its own beside the
 * scanner (for when a core would otherwise idle). map_min: a plain file of
 * at least that many bytes is mapped instead (td_reader_map; 0: never). */
/* marker: the compiled td_open_opts.step_marker (a pcre2_code), or NULL. */
int td_file_load_split(td_file **out, const char *path, const td_load_progress *prog, int flags,
                       td_split *sp, bool ahead, uint64_t map_min, const void *marker,
                       td_error *err);
/* want_attr: TD_LOAD_ATTR and TD_LOAD_BD bits (the links each needs). */
void td_split_run(td_split *sp, size_t i, const td_load_progress *prog, int want_attr,
                  uint64_t map_min);

/* The events attribution needs, kept beside the raw events only while a
 * file loads (when attribution is asked for): cpu ops, user annotations,
 * host sides of a correlation (launches) and gpu-side events. */
enum {
    TD_LINK_OP = 1,
    TD_LINK_ANN = 2,
    TD_LINK_LAUNCH = 4,
    TD_LINK_GPU = 8,
    TD_LINK_HOST = 16, /* a gpu-side event that is a host event (spec §3.1) */
    TD_LINK_KCAT = 32, /* a kernel, memset or memcpy by its cat (docs/breakdown.md) */
    TD_LINK_PY = 64,   /* a python_function (TD_LOAD_STACK) */
    TD_LINK_CPU = 128  /* any host-side event (not stream != -1), TD_LOAD_STACK only:
                        * the CPU stacks of --device cpu (docs/stacks.md) */
};
/* 40 bytes: the links are most of the attribution pass's memory traffic
 * (each record's first write is a cache miss), so nothing a folded compare
 * does not read is kept here: a cpu op's shapes id (roofline, tree) is in
 * an array beside the links, only when shapes are read (td_tree_build).
 * thr: the event's thread, (pid, tid), as a number: while the file is read
 * in order of first appearance (td_threads), then, once read, its rank in
 * (pid, tid) order (td_threads_rank), so that comparing numbers compares
 * threads as pid, then tid. stream: args.stream, or -1, held to the int32
 * range (the breakdown keeps it as an int32, and reads its sign). */
typedef struct td_link {
    double ts, dur;
    int64_t corr;
    int32_t stream;
    uint32_t thr;
    uint32_t name; /* names id */
    uint32_t kind; /* TD_LINK_... bits */
} td_link;
/* args.stream as a link keeps it. */
static inline int32_t td_link_stream(int64_t stream)
{
    return stream > INT32_MAX ? INT32_MAX : stream < INT32_MIN ? INT32_MIN : (int32_t)stream;
}

/* link_mem.c: the threads of a file's links, numbered as they come. */
typedef struct td_threads {
    int64_t *id; /* pid, tid of thread k at 2k, 2k + 1 */
    size_t n, cap;
    uint32_t *slot; /* hash slots: thread number + 1, 0 empty */
    size_t mask;
    int64_t last_pid, last_tid; /* the last thread asked for, and its number */
    uint32_t last;
} td_threads;
/* The number of thread (pid, tid); UINT32_MAX when out of memory. */
uint32_t td_thread_slow(td_threads *t, int64_t pid, int64_t tid);
static inline uint32_t td_thread(td_threads *t, int64_t pid, int64_t tid)
{
    if (t->n && pid == t->last_pid && tid == t->last_tid)
        return t->last;
    return td_thread_slow(t, pid, tid);
}
/* Renumbers the n links' threads by their rank in (pid, tid) order; 0, or
 * -1 when out of memory. */
int td_threads_rank(td_threads *t, td_link *links, size_t n);
void td_threads_free(td_threads *t);

/* link_mem.c: the link records of a file being read, grown to hold need of
 * them (*cap: how many it holds now, at least need); NULL when out of
 * memory (links intact). Freed by td_links_free, never by free(). */
td_link *td_links_grow(td_link *links, size_t *cap, size_t need);
void td_links_free(td_link *links);
/* A buffer of n bytes, its contents undefined, for arrays written whole
 * while a file is attributed: from malloc when small, else with its pages
 * in place (kept for the next file); NULL when out of memory. Freed by
 * td_scratch_free, never by free(). */
void *td_scratch_alloc(size_t n);
void td_scratch_free(void *p);
/* The freed arrays td_links_free and td_scratch_free keep for the next
 * file, given back (when a set's files are read). */
void td_links_trim(void);

/* attribution.c, TD_LOAD_ROOF, before td_attribute: f->roof_ts and
 * f->roof_end from the gpu-side links (their own times, never rounded):
 * those of TD_LINK_KCAT, or every one with any_gpu (another profiler's
 * file, whose gpu-side events are all kernels, memcpys and memsets). */
int td_roof_times(td_file *f, const td_link *links, size_t n, bool any_gpu, td_error *err);

/* tree.c, TD_LOAD_TREE: f->tree from the n link records (file order); py:
 * the python_function links are nodes too (TD_LOAD_TREE_PY). shape: link
 * i's f->shapes id at i (TD_ATTR_NONE: none), or NULL when none was read. */
int td_tree_build(td_file *f, const td_link *links, const uint32_t *shape, size_t n, bool py,
                  td_error *err);

/* attribution.c: fills f->attr_* and f->wait_* from the n link records
 * (file order); round_ts as for the raw events (spec §2); shape as for
 * td_tree_build (f->op_shape from it). */
int td_attribute(td_file *f, td_link *links, const uint32_t *shape, size_t n, int round_ts,
                 bool stacks, td_error *err);

/* stack_tree.c: the frames of a file's stacks (td_file.stk_*) as they are
 * made: a node per distinct (parent node, name), the depth capped at
 * TD_STK_MAX_DEPTH by a TD_STK_CUT frame. */
typedef struct td_stk_tree {
    td_file *f;
    uint32_t *depth; /* per node */
    size_t cap;
    uint64_t *key; /* hash slots: (parent + 1) << 32 | name, 0 empty */
    uint32_t *val;
    size_t slots;
} td_stk_tree;
int td_stk_init(td_stk_tree *t, td_file *f);
/* The node of name under parent (TD_ATTR_NONE: a root): UINT32_MAX when out of memory. */
uint32_t td_stk_node(td_stk_tree *t, uint32_t parent, uint32_t name);
void td_stk_done(td_stk_tree *t);

/* The raw per-event record kept while one file loads (before iterations).
 * 24 bytes: it is most of a file's peak memory. */
#define TD_CORR_WIDE INT32_MIN /* the id does not fit: see td_wide_corr */

typedef struct td_raw_event {
    union {
        double ts;         /* while loading */
        int64_t host_iter; /* once host iterations are known */
    } u;
    double dur;
    uint32_t name : TD_NAME_BITS;
    uint32_t flags : 6; /* TD_RAW_... */
    int32_t corr;       /* the correlation id, or TD_CORR_WIDE */
} td_raw_event;

/* Correlation ids beyond 32 bits, by event index (ascending). CUPTI's ids are
 * 32-bit, so this is nearly always empty. */
typedef struct td_wide_corr {
    uint64_t index;
    int64_t corr;
} td_wide_corr;

enum {
    TD_RAW_HOST = 1,      /* spec §3.1: stream < 0, or stream 0 and cat cpu_op;
                           * every other event is a device event (§3.2) */
    TD_RAW_STREAM0 = 2,   /* a device event on stream 0 (§3, extension) */
    TD_RAW_GPU = 4,       /* stream != -1 (spec §4, device gpu) */
    TD_RAW_CORR_HOST = 8, /* the host side of its correlation id */
    TD_RAW_INDEX0 = 16,   /* the first entry of traceEvents */
    TD_RAW_HAS_TS = 32
};

/* iterations.c: spec §2 rounding and §3 iteration numbers. Takes the n raw
 * events in blocks (blocks[k] holds TD_BLOCK of them, the last fewer),
 * compacts them in place into f->evb and frees what it does not keep; fills
 * f->iters and the counters. blocks itself stays the caller's. Its passes
 * over the events run on up to threads threads, each over a run of whole
 * blocks; the result is the same for any number. */
int td_assign_iterations(td_file *f, td_raw_event **blocks, size_t n, const td_wide_corr *wide,
                         size_t nwide, int round_ts, int threads, const void *marker,
                         td_error *err);
/* The compiled step marker (td_open_opts.step_marker): *out NULL for NULL;
 * TD_EUSAGE naming a bad expression. Freed by td_step_marker_free. */
int td_step_marker_compile(void **out, const char *re, td_error *err);
void td_step_marker_free(void *marker);

#endif
