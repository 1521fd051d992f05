/* model/: the data every layer above works on (curl's urldata.h plays this
 * part): events, files, trace sets, and the few helpers that read them. The
 * loader's own declarations are in model/load.h, private to model/. */
#ifndef TD_MODEL_H
#define TD_MODEL_H

#include "util/util.h"
#include "util/strtab.h"

/* Events are kept in blocks of TD_BLOCK: appending never copies, slack is at
 * most one block, and each block is compacted in place once iterations are
 * known (a 32-byte raw record becomes a 16-byte event). */
#define TD_BLOCK_SHIFT 14
#define TD_BLOCK ((size_t)1 << TD_BLOCK_SHIFT)

/* One loaded trace file: its compact events after iteration assignment. */
typedef struct td_event {
    double dur;
    uint32_t name; /* strtab id; bit 31: on the gpu side (stream != -1);
                    * bit 30: a device event on stream 0 (spec §3, extension) */
    int32_t iter;  /* index into the file's iters[], or TD_ITER_NONE */
} td_event;

#define TD_EV_GPU 0x80000000u
#define TD_EV_STREAM0 0x40000000u /* --hta-strict leaves it out (HTA's rule 3) */
#define TD_EV_NAME(e) ((e)->name & ~(TD_EV_GPU | TD_EV_STREAM0))

#define TD_NAME_BITS 26 /* distinct names per file: at most 2^26 */

#define TD_ITER_NONE (-1) /* host or device event that falls in no step */

/* The events of one (iteration, flags, name) of a file, when every one of
 * them is a whole number: a diff needs only their count and their total, which
 * is exact (docs/summaries.md, "Exactness"). A file read from a summary in the
 * sorted-int encoding has these, and its events are decoded only when a walk
 * asks for them (td_file_events). */
typedef struct td_event_group {
    uint64_t count;
    double total;     /* exact: a whole number below 2^53 */
    uint32_t name;    /* as td_event.name, flag bits included */
    int32_t iter;     /* as td_event.iter */
    uint32_t attr[3]; /* a gpu group's op, top op, annotation (has_attr) */
    uint32_t stk;     /* a gpu group's stack node (stk_of), or TD_ATTR_NONE */
} td_event_group;

/* One gpu-side event with a time, as the roofline reads it from a summary
 * (td_file.roof_list): its name with the flag bits, its iteration, its
 * interval in the trace's own resolution, the op call around its launch
 * (an index into op_name, or TD_ATTR_NONE) and its innermost op (as
 * attr_op). */
typedef struct td_roof_ev {
    double ts, end;
    uint32_t name;
    int32_t iter;
    uint32_t call, op;
} td_roof_ev;

typedef struct td_file {
    char *path;
    int64_t rank;
    int has_rank;
    td_compression compression;
    uint64_t file_bytes, json_bytes;
    uint64_t events_total, events_skipped;
    int rounded;    /* decimal timestamps rounded to whole us (spec §2) */
    int decimal_ts; /* some ts was decimal (or missing): rounded unless ns */
    int ns;         /* loaded keeping the trace's own resolution (td_open_opts.ns) */
    int bom;        /* starts with a UTF-8 byte order mark (skipped) */
    char *device_name;
    td_strtab *names;
    td_strtab *cats;
    uint64_t *cat_counts; /* per cats id */
    size_t ncat_counts;
    /* per cats id: summed dur of its counted events, us, as compare has them
     * (rounded or not: rounded above); 0 if unknown */
    double *cat_dur;
    /* Per names id: the categories the name's events have. With
     * cats_by_side, split by side: td_name_cat_bit (a name's host events and
     * its gpu events each nearly always have one category, so the pair
     * (name, side) tells an event's category: --cat selects events); else
     * (an older summary) bit c for cats id c, ids >= 63 sharing bit 63.
     * NULL when unknown (an old summary). */
    uint64_t *name_cats;
    int cats_by_side;
    /* Per event (evb order), its cats id (255: 255 and above), when some
     * name has events of two categories on one side (a user_annotation and
     * a cpu_op both named aten::copy_): --cat then reads the event's own.
     * NULL otherwise, and in files read from summaries (their name_cats
     * are not cats_by_side then). */
    uint8_t *ev_cat;
    /* A rounded file loaded from its trace: per event (in evb order), the
     * rounded duration (0 when NAN) minus the trace's own, for the note that
     * says what the rounding changed (td_side_notes.round_moved_rows).
     * NULL otherwise (not rounded, or read from a summary). */
    float *rdelta;
    size_t nname_cats;
    td_event **evb; /* blocks of TD_BLOCK events; the last may be shorter */
    size_t nev, nevb;
    bool evb_big;   /* the blocks come from td_big_alloc (traces, summaries), else malloc */
    int64_t *iters; /* sorted distinct step numbers of this file */
    size_t niters;
    /* The steps' sweep (iterations.c): segment k is [step_at[k],
     * step_at[k + 1]) (the last unbounded), its host events in iteration
     * step_iter[k] (index into iters[], or TD_ITER_NONE). Kept for the
     * tree match's selection (td_file_step_iter); NULL in files read
     * from summaries. */
    double *step_at;
    int32_t *step_iter;
    size_t nstep_seg;
    uint64_t steps, events_cpu, events_gpu;
    /* The first start and the last end of the file's timed events, in the
     * durations' rule (rounded or not): the step time of a trace without
     * ProfilerStep (check --max-step-regression). has_span: known. */
    double span_lo, span_hi;
    int has_span;
    uint64_t events_stream0;    /* device events on stream 0 (HTA's rule 3) */
    uint64_t events_no_launch;  /* device events whose launch was not found */
    uint64_t events_no_launch0; /* ... of them on stream 0 */
    char sha256[65];            /* of the source file when known (read from a summary), else "" */
    /* Attribution (docs/attribution.md), computed at load when asked
     * (td_open_opts.want_attribution). Plain arrays so that a summary can
     * store and rebuild them: one entry per gpu-side event (TD_EV_GPU), the
     * k-th entry for the k-th such event in file order. attr_op holds the
     * names id of the innermost enclosing cpu_op of the launch, or
     * TD_ATTR_REASON(r) when unattributed; attr_top the outermost cpu_op
     * (or the same reason); attr_ann the innermost user_annotation that is
     * not a ProfilerStep, or TD_ATTR_NONE. A summary's arrays are built
     * with its events (td_file_events). */
    int has_attr;
    size_t nattr; /* == events_gpu when has_attr */
    uint32_t *attr_op, *attr_top, *attr_ann;
    /* Waiting for the device (attribution; docs/stats.md, "Waits"): per
     * names id, the total duration of the name's cpu_op events (wait_of)
     * and the part of it inside synchronize calls or launches of
     * device-to-host copies (wait_in). NULL when not measured (no
     * attribution, a summary). */
    double *wait_in, *wait_of;
    size_t nwait;
    /* The op calls around each launch (explain --inclusive): per gpu-side
     * event (as attr_op), the innermost op call (an index into op_name and
     * op_parent, or TD_ATTR_NONE); per op call its names id and the op call
     * around it (or TD_ATTR_NONE). NULL when not kept (a summary). */
    uint32_t *attr_call, *op_name, *op_parent;
    size_t nops;
    /* Per gpu-side event (as attr_call, and kept with it): which call of
     * its top op and which instance of its annotation launched it, as
     * opaque ids unique in the file (TD_ATTR_NONE: none). The statistics'
     * call samples by top op and annotation (docs/stats.md). */
    uint32_t *attr_topc, *attr_annc;
    td_event_group *groups; /* NULL unless read from a sorted-int summary */
    size_t ngroups;
    const unsigned char *lazy; /* the packed durations while evb is not decoded yet */
    size_t nlazy;
    unsigned char *lazy_mem; /* the allocation lazy points into */
    int lazy_heads;          /* lazy holds the group heads too (an older encoding) */
    int lazy_damaged;        /* lazy did not decode to the groups: TD_ETRACE */
    /* The hook that decodes lazy into evb (td_file_events calls it, once,
     * under a lock): set by whoever made the file lazily (store/ for a
     * summary), so that model/ needs nothing from above it. NULL when the
     * events are there from the start. */
    int (*fill)(struct td_file *f);
    char *origin; /* "FILE#RUN" of a summary's file, for messages; or NULL */
    void *ev_map; /* evb points into this mapping (file_xfer.c), or NULL */
    size_t ev_map_len;
    /* Another profiler's output (model/prof_load.h): what it is and which
     * version wrote it, for info; NULL for Kineto JSON and summaries. */
    char *format;
    struct td_bd_file *bd; /* what the breakdown needs (model/bd_collect.h), or NULL */
    /* A summary's file without bd: why (TD_BD_LOST_...), for the message. */
    uint8_t bd_lost;
    /* The roofline's inputs (TD_LOAD_ROOF, docs/roofline.md), else NULL:
     * shapes interns each distinct "Input Dims" US "Input type" US
     * "Concrete Inputs" of a cpu op (US = 0x1f; each the compact JSON of the
     * member, "" when absent); op_shape[c] is op call c's (as op_name),
     * TD_ATTR_NONE without shapes. roof_ts / roof_end: per gpu-side event
     * (as attr_op), its interval in the trace's own resolution, NAN unless
     * it is a kernel, memcpy or memset with a time (TD_LINK_KCAT). */
    td_strtab *shapes;
    uint32_t *op_shape;
    double *roof_ts, *roof_end;
    size_t nroof;
    /* Stacks (TD_LOAD_STACK, docs/stacks.md), else NULL: the frames of
     * the file as a tree of nodes, each a CPU event's name under its
     * parent's (stk_parent: TD_ATTR_NONE for a root; stk_name: a names id,
     * or TD_STK_CUT for the frame that stands for the frames beyond
     * TD_STK_MAX_DEPTH); per gpu-side event (as attr_op), the node of the
     * innermost CPU event around its launch (TD_ATTR_NONE: none). stk_cut
     * counts the CPU events folded into a cut frame. */
    uint32_t *stk_of, *stk_parent, *stk_name;
    size_t nstk;
    uint64_t stk_cut;
    /* Per cpu-side event (not TD_EV_GPU; the k-th for the k-th such event
     * in file order, nstk_cpu == events_cpu): the node of the innermost
     * frame around it other than itself (TD_ATTR_NONE: none), its stack
     * for --device cpu being that node's frames, then its own name. */
    uint32_t *stk_cpu;
    size_t nstk_cpu;
    struct td_tree *tree; /* the call tree (TD_LOAD_TREE, docs/tree-match.md), or NULL */
    /* The processes of another profiler's output (docs/profilers.md,
     * "Processes"), by pid: each one's events as the export holds them
     * (before --pid selects), and its name (proc_names: one NUL-terminated
     * name per process, in proc_pid's order, "" when not recorded; NULL
     * when the format records none). nprocs 0 for Kineto JSON and
     * summaries. */
    int64_t *proc_pid;
    uint64_t *proc_events;
    char *proc_names;
    size_t nprocs, proc_names_len;
    int rank_from; /* an export's rank: TD_RANK_FROM_* (prof_load.h) */
    /* A summary's file (docs/summaries.md, "Stacks and shapes"): the
     * roofline's events in file order, in place of roof_ts, roof_end and
     * attr_call (op_name, op_parent, op_shape and shapes hold only the
     * calls they name), or NULL. roof_lost, stk_lost: why a summary's file
     * has no roofline inputs or no stacks (TD_BD_LOST_...), 0 when it has
     * them or is no summary's. */
    td_roof_ev *roof_list;
    size_t nroof_list;
    uint8_t roof_lost, stk_lost;
    /* A summary's roofline section, kept packed until a command reads the
     * roofline (td_file_roof decodes it into roof_list, op_name, op_parent,
     * op_shape and shapes through roof_fill, set by store/); NULL once
     * decoded, or when there is none. roof_damaged: it did not decode. */
    unsigned char *roof_lazy;
    size_t nroof_lazy;
    int (*roof_fill)(struct td_file *f);
    int roof_damaged;
    /* The same for a summary's breakdown section: kept packed until a
     * command reads the breakdown (td_file_bd decodes it into bd through
     * bd_fill); NULL once decoded, or when there is none. */
    unsigned char *bd_lazy;
    size_t nbd_lazy;
    int (*bd_fill)(struct td_file *f);
    int bd_damaged;
} td_file;

#define TD_STK_CUT 0xFFFFFEFFu /* the "[…]" frame */
#define TD_STK_MAX_DEPTH 1000  /* frames of CPU events in a stack, the cut frame included */

/* The call tree of one trace file (TD_LOAD_TREE; docs/tree-match.md): the
 * cpu ops and launches (host events with a correlation id) nested by time
 * per (pid, tid), and the kernels, memcpys and memsets linked to their
 * launch by correlation. Compact arrays indexed by node: host nodes first
 * (in time order), then the gpu nodes. Children are in time order. */
enum { TD_TREE_OP = 1, TD_TREE_LAUNCH = 2, TD_TREE_GPU = 4, TD_TREE_PATH = 8, TD_TREE_PY = 16 };
typedef struct td_tree {
    size_t n, nhost;
    uint32_t *name;   /* names id */
    uint32_t *parent; /* TD_ATTR_NONE: none (a root, or left out of the nesting) */
    uint8_t *kind;    /* TD_TREE_ bits; TD_TREE_PATH: a gpu node or an ancestor of one */
    double *ts, *end; /* the trace's own times, us */
    uint32_t *child0; /* node i's children: child[child0[i] .. child0[i + 1]) */
    uint32_t *child;
    uint32_t *roots; /* the top of each tree holding a root cpu op, in time order */
    size_t nroots;
    /* Counts for the notes: host events left out by the 1 us overhang rule,
     * gpu events (kernel, memcpy, memset) with no launch found. */
    uint64_t dropped, no_launch;
    /* Per host node: a cpu op's f->shapes id ("Input Dims" US "Input type"
     * US "Concrete Inputs"), TD_ATTR_NONE without shapes or for another kind. */
    uint32_t *shape;
} td_tree;

void td_tree_free(td_tree *t);

/* What the breakdown needs of one file (td_file.bd, TD_LOAD_BD): filled by
 * model/bd_collect.c, read by compare/breakdown.c, freed with the file. */
/* Kernel types (docs/breakdown.md, "Kernel types"): bits; 0 is OTHER. */
enum { TD_KT_COMP = 1, TD_KT_COMM = 2, TD_KT_MEM = 4 };

/* td_bd_ev.flags */
enum {
    TD_BDF_KERNEL = 1, /* its cat is a kernel, memset or memcpy one (idle by cause) */
    TD_BDF_GPUDEF = 2  /* HTA's "GPU event": stream >= 0 and correlation >= 0, or a
                        * name Event Sync / Context Sync (its scope filter) */
};

/* One event with stream != -1 (G). */
typedef struct td_bd_ev {
    double ts, end;
    double launch; /* ts of the host side of its correlation id, NAN when none */
    int32_t iter;  /* index into the file's iters[], or TD_ITER_NONE */
    int32_t stream;
    uint8_t type, flags;
} td_bd_ev;

/* A host call's interval. */
typedef struct td_bd_call {
    double ts, end;
} td_bd_call;

/* A host ProfilerStep event. */
typedef struct td_bd_step {
    double start, end;
    int64_t n;
} td_bd_step;

typedef struct td_bd_file {
    td_bd_ev *ev; /* in file order */
    size_t nev;
    td_bd_call *sync; /* synchronize calls (td_is_sync_name), file order */
    size_t nsync;
    td_bd_step *steps;
    size_t nsteps, stepcap;
    double span_lo, span_hi; /* first ts and last end of the file's events */
} td_bd_file;

void td_bd_file_free(td_bd_file *bd); /* model/file.c */

#define TD_ATTR_NONE 0xFFFFFFFFu
#define TD_ATTR_REASON_BASE 0xFFFFFF00u
#define TD_ATTR_REASON(r) (TD_ATTR_REASON_BASE | (uint32_t)(r))
#define TD_ATTR_IS_REASON(v) ((v) >= TD_ATTR_REASON_BASE && (v) != TD_ATTR_NONE)

/* model/file.c: a file's events. */
void td_file_free(td_file *f);
/* Makes f->evb hold f's nev events: when f was made lazily, by calling its
 * f->fill hook the first time (safe to call from several threads). 0,
 * TD_ENOMEM, or TD_ETRACE when a summary's durations are damaged
 * (td_events_fail). */
int td_file_events(const td_file *f);
/* Makes a summary's file hold its roofline section (roof_list and the
 * calls and shapes it names), decoding it the first time (safe to call
 * from several threads). 0, TD_ENOMEM, or TD_ETRACE when the section is
 * damaged (td_roof_fail). */
int td_file_roof(const td_file *f);
/* A summary's file: its breakdown section decoded into bd, once (as
 * td_file_roof); 0, or TD_ETRACE / TD_ENOMEM (td_roof_fail words either). */
int td_file_bd(const td_file *f);
int td_roof_fail(td_error *err, int rc, const td_file *f);
/* td_file_events' failure rc as an error naming the summary; returns rc. */
int td_events_fail(td_error *err, int rc, const td_file *f);

/* trace_load.c: read and parse one trace file. */
typedef struct td_load_progress {
    void (*fn)(void *ud, uint64_t delta);
    void *ud;
} td_load_progress;
/* td_file_load flags: attribution (td_open_opts.want_attribution), the
 * trace's own resolution (td_open_opts.ns). */
#define TD_LOAD_ATTR 1
#define TD_LOAD_NS 2
/* td_file.bd_lost: a packed file (a summary's) written before summaries
 * kept the breakdown's records, one whose summary kept a selection of it,
 * or one packed from a file loaded without them. */
enum { TD_BD_LOST_OLD = 1, TD_BD_LOST_SELECTION = 2, TD_BD_LOST_UNLOADED = 3 };
#define TD_LOAD_BD 4     /* td_open_opts.want_breakdown: model/bd_collect.h */
#define TD_LOAD_ROOF 8   /* td_open_opts.want_roofline: shapes, op_shape, roof_ts (with ATTR) */
#define TD_LOAD_STACK 32 /* td_open_opts.want_stacks: stk_* (with ATTR) */
#define TD_LOAD_TREE 64  /* td_open_opts.want_tree: f->tree (the links attribution reads) */
/* td_open_opts.tree_python_frames: python_function nodes in f->tree (with TREE) */
#define TD_LOAD_TREE_PY 128
int td_file_load(td_file **out, const char *path, const td_load_progress *prog, int flags,
                 td_error *err);

/* attribution.c: a call that waits for the device: cuda/hip/cu...Synchronize. */
bool td_is_sync_name(const char *s, size_t len);

/* name_norm.c: the key a diff (or a trend) groups a name under (the user's rules rn
 * applied, then normalized, then shortened, as asked). *out is NULL when
 * the key is the name itself, else malloc'd (caller frees); *out_len is
 * the key's length either way. */
int td_name_key(char **out, size_t *out_len, const char *s, size_t len, int short_names,
                int normalize, const td_renames *rn);

/* The iteration (index into f->iters) a host event starting at ts is in,
 * by the rule the loader gave the file's events (iterations.c), or
 * TD_ITER_NONE. */
int32_t td_file_step_iter(const td_file *f, double ts);

/* Parse N of "ProfilerStep#N"; returns 1 when the name is a step with a number. */
int td_step_number(const char *name, size_t len, int64_t *out);

struct td_set {
    char *path;
    td_file **files; /* ordered by rank */
    size_t nfiles;
    int64_t *ranks;
    size_t nranks;
    int64_t *iters;
    size_t niters;
    /* A summary made from a selection holds only part of its source set
     * (ranks and iters above are the source's): what it holds, for
     * td_set_check_selection. Zero for trace sets. */
    int partial;
    int64_t *have_iters; /* NULL: every iteration */
    size_t nhave_iters;
    int have_device; /* td_device stored: ALL, CPU or GPU */
    char *origin;    /* the summary file, for messages; NULL for traces */
    int unchecked;   /* a summary run written without checksums (before schema 3) */
};

/* trace_set.c: opens sets of trace files (no summaries: see store/). */
int td_trace_sets_open(td_set **out, const char *const *paths, size_t n, const td_open_opts *opts,
                       td_error *err);
/* The trace files of one trace set (a directory, sorted by name, or one
 * file): malloc'd paths appended to *list (*n of them, *cap allocated). */
int td_trace_set_list(const char *path, char ***list, size_t *n, size_t *cap, td_error *err);
/* Makes a set of files (taking them, freed on failure too): sorted by rank,
 * ranks and iterations filled in. */
int td_set_assemble(td_set **out, const char *path, td_file **files, size_t n, td_error *err);
/* 0 when the durations of set s follow the rule asked for (ns: the
 * traces' own resolution, else HTA's rounding), else TD_ETRACE naming the
 * summary and how to make it again (the data is not what was asked for). Only files with decimal
 * timestamps count: for the others both rules give the same numbers. */
int td_set_check_rule(const td_set *s, bool ns, td_error *err);
/* 0 when the set holds what a selection needs (always for trace sets), else
 * TD_EUSAGE naming what a partial summary lacks. */
int td_set_check_selection(const td_set *s, const int64_t *ranks, size_t nranks,
                           const int64_t *iters, size_t niters, int device, td_error *err);

/* The bit of f->name_cats (cats_by_side) of category id c on a side: bits
 * 0-31 the host side, 32-63 the gpu side; ids >= 31 share a side's last bit. */
static inline uint64_t td_name_cat_bit(size_t c, bool gpu)
{
    return (uint64_t)1 << ((gpu ? 32 : 0) + (c < 31 ? c : 31));
}

/* selection.c: the bits of f->name_cats that a category filter (a
 * comma-separated list, or every category but those with exclude) keeps;
 * every bit when cats is NULL (no filter). */
uint64_t td_cats_mask(const td_file *f, const char *cats, bool exclude);
/* Whether some event of a name of f passes mask: a name none of whose
 * events is kept can be skipped whole. The events themselves are selected
 * by td_pick_walk (model/selection.h), side by side. *mixed is never set
 * (the filter no longer goes by name). */
static inline bool td_name_kept(const td_file *f, uint64_t mask, uint32_t name, bool *mixed)
{
    (void)mixed;
    if (mask == UINT64_MAX || !f->name_cats || name >= f->nname_cats)
        return true;
    return (f->name_cats[name] & mask) != 0;
}

/* Whether event i of f, of a name (flag bits included), passes mask: by
 * its own category (ev_cat), else by the categories of the name on the
 * event's side (one, unless an older summary). For groups, i is unused. */
static inline bool td_event_cat_kept(const td_file *f, uint64_t mask, uint32_t name, size_t i)
{
    uint32_t id = name & ~(TD_EV_GPU | TD_EV_STREAM0);
    if (mask == UINT64_MAX)
        return true;
    if (f->ev_cat)
        return (td_name_cat_bit(f->ev_cat[i], (name & TD_EV_GPU) != 0) & mask) != 0;
    if (!f->name_cats || id >= f->nname_cats)
        return true;
    uint64_t c = f->name_cats[id];
    if (f->cats_by_side)
        c &= (name & TD_EV_GPU) ? 0xFFFFFFFF00000000u : 0xFFFFFFFFu;
    return (c & mask) != 0;
}

#endif
