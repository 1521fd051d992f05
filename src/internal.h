/* Internal declarations shared by the library's modules. */
#ifndef TD_INTERNAL_H
#define TD_INTERNAL_H

#include "tracediff.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>

/* error.c */
int td_fail(td_error *err, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int td_fail_at(td_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The ABI check of an options struct (tracediff.h, "Options structs"):
 * *dst (own bytes, alignment align) becomes *dflt with the caller's first
 * opts->size bytes copied over it, and dst's size becomes own; NULL opts
 * gives *dflt. A size of 0, below sizeof(size_t) + 1, not a multiple of
 * align or above own is refused: TD_EUSAGE naming type and its _INIT macro. */
int td_opts_take(void *dst, const void *opts, const void *dflt, size_t own, size_t align,
                 const char *type, td_error *err);
/* TD_OPTS_TAKE(&copy, opts, td_x_opts, TD_X_OPTS_INIT, err) */
#define TD_OPTS_TAKE(dst, opts, type, init, err)                                                   \
    td_opts_take(dst, opts, &(const type)init, sizeof(type), _Alignof(type), #type, err)

/* Growable arrays of plain data. */
void *td_grow(void *ptr, size_t *cap, size_t need, size_t elem);

/* bigmem.c: a buffer that will be written at once (its pages are mapped up
 * front when it is large); free it with td_big_free, never free(). */
void *td_big_alloc(size_t n);
/* The same kind of block, its pages mapped as they are first touched: for
 * one that may stay mostly unused (the first block of a small file's events). */
void *td_big_alloc_lazy(size_t n);
void td_big_free(void *p);
/* Gives back the end of a td_big_alloc block beyond its first n bytes;
 * returns the block (moved when it came from malloc), or NULL, p intact. */
void *td_big_shrink(void *p, size_t n);

/* strtab.c: an interner mapping byte strings to dense ids. */
typedef struct td_strtab td_strtab;
td_strtab *td_strtab_new(void);
void td_strtab_free(td_strtab *t);
/* Returns the id (>= 0) or -1 when out of memory. */
int64_t td_strtab_intern(td_strtab *t, const char *s, size_t len);
/* Like intern, but never adds: -1 when absent. */
int64_t td_strtab_find(const td_strtab *t, const char *s, size_t len);
size_t td_strtab_count(const td_strtab *t);
const char *td_strtab_get(const td_strtab *t, uint32_t id, size_t *len);
uint64_t td_hash_bytes(const char *s, size_t len);
/* An interner's arrays, to copy one between processes (model/file_xfer.c)
 * without hashing its strings again. */
typedef struct td_strtab_parts {
    const char *arena; /* the strings, each followed by '\0' */
    size_t alen;
    const uint64_t *off, *hash; /* per id */
    const uint32_t *len;
    size_t n;
    const uint32_t *slots; /* id + 1, 0 = empty */
    size_t nslots;         /* a power of two */
} td_strtab_parts;
void td_strtab_parts_of(const td_strtab *t, td_strtab_parts *p);
/* A new interner holding copies of p's arrays; NULL when out of memory or
 * when p is not consistent. */
td_strtab *td_strtab_from_parts(const td_strtab_parts *p);

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
} td_event_group;

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
    uint64_t steps, events_cpu, events_gpu;
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
    td_event_group *groups; /* NULL unless read from a sorted-int summary */
    size_t ngroups;
    const unsigned char *lazy; /* the packed durations while evb is not decoded yet */
    size_t nlazy;
    unsigned char *lazy_mem; /* the allocation lazy points into */
    int lazy_heads;          /* lazy holds the group heads too (an older encoding) */
    int lazy_damaged;        /* lazy did not decode to the groups: TD_ETRACE */
    char *origin;            /* "FILE#RUN" of a summary's file, for messages; or NULL */
    void *ev_map;            /* evb points into this mapping (file_xfer.c), or NULL */
    size_t ev_map_len;
    /* Another profiler's output (model/prof_load.h): what it is and which
     * version wrote it, for info; NULL for Kineto JSON and summaries. */
    char *format;
    struct td_bd_file *bd; /* what the breakdown needs (model/bd_collect.h), or NULL */
} td_file;

#define TD_ATTR_NONE 0xFFFFFFFFu
#define TD_ATTR_REASON_BASE 0xFFFFFF00u
#define TD_ATTR_REASON(r) (TD_ATTR_REASON_BASE | (uint32_t)(r))
#define TD_ATTR_IS_REASON(v) ((v) >= TD_ATTR_REASON_BASE && (v) != TD_ATTR_NONE)

void td_file_free(td_file *f);
/* store/file_pack.c: makes f->evb hold f's nev events (decoding them from
 * f->lazy the first time; safe to call from several threads). 0, TD_ENOMEM,
 * or TD_ETRACE when a summary's durations are damaged (td_events_fail). */
int td_file_events(const td_file *f);
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
#define TD_LOAD_BD 4 /* td_open_opts.want_breakdown: model/bd_collect.h */
int td_file_load(td_file **out, const char *path, const td_load_progress *prog, int flags,
                 td_error *err);

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
    TD_LINK_KCAT = 32  /* a kernel, memset or memcpy by its cat (docs/breakdown.md) */
};
typedef struct td_link {
    double ts, dur;
    int64_t pid, tid, corr;
    uint32_t name;  /* names id */
    uint32_t kind;  /* TD_LINK_... bits */
    int64_t stream; /* args.stream, or -1 */
} td_link;

/* attribution.c: fills f->attr_* and f->wait_* from the n link records
 * (file order); round_ts as for the raw events (spec §2). */
int td_attribute(td_file *f, td_link *links, size_t n, int round_ts, td_error *err);
/* A call that waits for the device: cuda/hip/cu...Synchronize. */
bool td_is_sync_name(const char *s, size_t len);

/* The raw per-event record kept while one file loads (before iterations).
 * 24 bytes: it is most of a file's peak memory. */
#define TD_NAME_BITS 26        /* distinct names per file: at most 2^26 */
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

/* byte_reader.c: a streaming source of decompressed bytes. */
typedef struct td_reader td_reader;
int td_reader_open(td_reader **out, const char *path, td_error *err);
/* Reads up to cap bytes; returns the count, 0 at the end, < 0 on error. */
long td_reader_read(td_reader *r, char *buf, size_t cap, td_error *err);
/* Plain input read ahead by a thread of its own, as compressed input is,
 * so that reading overlaps scanning (before the first read; no seek after). */
void td_reader_read_ahead(td_reader *r);
/* A plain regular file of at least min_bytes (> 0) mapped into memory
 * instead of read (before any read but the one telling the format apart;
 * it wins over td_reader_read_ahead): 1 when it is, 0 when it is read as
 * usual (compressed, small, not a regular file, the mapping failed). Its
 * windows come from td_reader_swap without a copy; td_mapped_file names it. */
int td_reader_map(td_reader *r, uint64_t min_bytes);
/* Input read by a thread (compressed, or read ahead) or mapped, without a copy: the
 * next chunk becomes the caller's window. Returns the count n of new bytes, with *buf pointing at
 * the nleft bytes of left (copied) followed by them; 0 at the end and < 0
 * on error (*buf untouched; the window held stays valid); TD_READER_NO_SWAP
 * when it cannot (input read in the caller's thread, or nleft too large): then, if the caller's
 * window is a chunk, it copies what it keeps elsewhere and calls
 * td_reader_swap(r, NULL, 0, NULL, NULL) to let the chunk go, before
 * td_reader_read. A window from here stays valid until the next call, or
 * td_reader_close. */
#define TD_READER_NO_SWAP LONG_MAX
long td_reader_swap(td_reader *r, const char *left, size_t nleft, char **buf, td_error *err);
td_compression td_reader_compression(const td_reader *r);
uint64_t td_reader_file_bytes(const td_reader *r);
/* Compressed bytes consumed so far (for progress). */
uint64_t td_reader_consumed(const td_reader *r);
/* Plain files only: the next read starts at byte off. TD_EUSAGE for
 * compressed input (it cannot be entered in the middle). */
int td_reader_seek(td_reader *r, uint64_t off, td_error *err);
void td_reader_close(td_reader *r);

/* diff.c: the row of a key (a full or short name, as the diff groups by),
 * or -1 when no row has it. */
long td_diff_find_row(const td_diff *d, const char *s, size_t len);

/* name_fold.c: the key a diff groups a name under (normalized, then
 * shortened, as asked). *out is NULL when the key is the name itself, else
 * malloc'd (caller frees); *out_len is the key's length either way. */
int td_name_key(char **out, size_t *out_len, const char *s, size_t len, int short_names,
                int normalize);

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
/* name_fold.c: the same for a comparison's opts (td_compare_opts.categories). */
uint64_t td_cat_mask(const td_file *f, const td_compare_opts *o);
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

/* pool.c: run n jobs on up to threads threads. */
typedef int (*td_job_fn)(void *ud, size_t i);
void td_pool_run(size_t n, int threads, td_job_fn fn, void *ud);
/* How many threads td_pool_run(n, threads, ...) runs. */
int td_pool_threads(size_t n, int threads);
int td_ncores(void);

/* sha256.c: FIPS 180-4 SHA-256 (as sha256sum prints it), by libcrypto when
 * it can be loaded, else portably. A context begun is ended by
 * td_sha256_hex or td_sha256_free. */
typedef struct td_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t nbuf;
    void *evp;  /* libcrypto's context, or NULL */
    int failed; /* libcrypto failed midway: no hash */
} td_sha256;
void td_sha256_init(td_sha256 *c);
void td_sha256_update(td_sha256 *c, const void *data, size_t n);
int td_sha256_hex(td_sha256 *c, char out[65]); /* finishes c; -1 if libcrypto failed */
void td_sha256_free(td_sha256 *c);             /* ends c without a hash */
const char *td_sha256_backend(void);           /* "libcrypto" or "builtin" */

/* stats_tests.c: the tests behind td_stats_compute (NAN when undefined). */
typedef struct td_test_result {
    double p;
    double stat;            /* Welch: t; Mann-Whitney: U of the second sample */
    double df;              /* Welch only */
    double ci_low, ci_high; /* Welch: 1 - alpha interval for mean(b) - mean(a) */
} td_test_result;
/* Welch's unequal-variance t-test, two-sided, of b against a. */
td_test_result td_welch(const double *a, size_t na, const double *b, size_t nb, double alpha);
/* Mann-Whitney U, two-sided, normal approximation with tie and continuity
 * corrections. a and b must be sorted ascending. */
td_test_result td_mann_whitney(const double *a, size_t na, const double *b, size_t nb);
/* Hodges-Lehmann shift of b against a (stat: the median of the na * nb
 * differences b_j - a_i) and its distribution-free 1 - alpha interval (the
 * C-th smallest and largest difference, C from the normal approximation of
 * U). a and b must be sorted ascending. Needs no memory: O((na + nb) * 64). */
td_test_result td_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
                                 double alpha);
/* Benjamini-Hochberg q-values of n p-values (NAN p: NAN q, not counted).
 * Returns 0 or TD_ENOMEM. */
int td_bh_qvalues(double *q, const double *p, size_t n);

#endif
