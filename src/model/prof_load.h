/*
 * Other profilers' outputs as trace files (docs/profilers.md): Nsight
 * Systems SQLite exports, rocprofv3's rocpd SQLite databases and its JSON.
 * Each reader turns its rows into the events the Kineto loader makes
 * (trace_load.c): the same categories (kernel, gpu_memcpy, gpu_memset,
 * cuda_runtime, user_annotation), streams and correlation ids, so that
 * everything after loading is the same.
 */
#ifndef TD_MODEL_PROF_LOAD_H
#define TD_MODEL_PROF_LOAD_H

#include "model/load.h"

/* The rank of a loaded file whose rank is its place in its set (has_rank
 * 0): td_set_assemble gives it. A value, not a flag, so that it survives a
 * file packed for another process (tracediff-mpi). */
#define TD_RANK_BY_PLACE (-1)

/* Where an export's rank comes from (td_file.rank_from): its place in the
 * set, nsys's MPI_RANKS table (one rank among the processes read), or its
 * place because MPI_RANKS names several ranks for them. 0 for Kineto JSON
 * (its rank is its own distributedInfo). */
enum { TD_RANK_FROM_TRACE = 0, TD_RANK_FROM_PLACE, TD_RANK_FROM_MPI, TD_RANK_FROM_PLACE_MANY };

/* --pid (td_open_opts.pids): the processes an export's events are read
 * from; npids 0 reads them all. */
typedef struct td_pid_sel {
    const int64_t *pids;
    size_t npids;
} td_pid_sel;

/* What a file's first bytes (and, for those, its name) say it is. */
typedef enum td_prof_kind {
    TD_PROF_NONE = 0,   /* anything else: read as Kineto JSON */
    TD_PROF_SQLITE,     /* SQLite's header: an export, or not (td_prof_sqlite_kind) */
    TD_PROF_NSYS_REP,   /* .nsys-rep / .qdrep: Nsight Systems' own binary report */
    TD_PROF_NSYS_JSON,  /* nsys export --type json (one JSON object per line) */
    TD_PROF_ROCPROF_V1, /* rocprof v1/v2's results.json (rocprof_v1.c) */
} td_prof_kind;

td_prof_kind td_prof_sniff(const char *path);

/* For a file with SQLite's header: 1 an Nsight Systems export, 2 a rocpd
 * database, 0 neither (a summary, or any other database), -1 when it cannot
 * be opened or read (it is then not taken for an export). */
int td_prof_sqlite_kind(const char *path);

/* Loads a file td_prof_sniff did not call TD_PROF_NONE (td_file_load does
 * so by itself); flags as for td_file_load, plus TD_LOAD_DEMANGLED. */
int td_prof_load(td_file **out, const char *path, td_prof_kind kind, const td_load_progress *prog,
                 int flags, const void *marker, const td_pid_sel *pids, td_error *err);

/* Kernel names from demangledName instead of shortName (nsys;
 * td_open_opts.nsys_demangled). A bit of its own, above td_file_load's
 * (model.h: TD_LOAD_*): it was once 4, TD_LOAD_BD's, so that breakdown read
 * demangled names and --nsys-names demangled collected breakdown data. */
#define TD_LOAD_DEMANGLED 0x100
_Static_assert((TD_LOAD_DEMANGLED & (TD_LOAD_ATTR | TD_LOAD_NS | TD_LOAD_BD | TD_LOAD_ROOF |
                                     TD_LOAD_STACK | TD_LOAD_TREE)) == 0,
               "TD_LOAD_DEMANGLED shares a bit with td_file_load's flags");

/* The events of one file as a reader finds them (prof_sink.c): interned,
 * counted by category and kept as raw events, then given iterations and,
 * when asked, attribution, as trace_load.c does. */
typedef enum td_prof_cat {
    TD_PC_KERNEL,
    TD_PC_MEMCPY,
    TD_PC_MEMSET,
    TD_PC_RUNTIME,
    TD_PC_ANNOTATION,
    TD_PC_COUNT
} td_prof_cat;

typedef struct td_prof_sink {
    td_file *f;
    td_error *err;
    int want_attr;               /* links kept: for attribution or the breakdown */
    int flags;                   /* TD_LOAD_ */
    const void *marker;          /* --step-marker (td_assign_iterations), or NULL */
    int64_t cat_id[TD_PC_COUNT]; /* cats ids, interned at first use; -1 before */
    td_raw_event **blk;
    size_t nraw, nblk, blkcap;
    td_wide_corr *wide;
    size_t nwide, widecap;
    td_link *links;
    size_t nlinks, linkcap;
    td_threads thr; /* the links' threads */
    uint8_t *evcat;
    size_t evcatcap;
    int cats_mixed;
    uint64_t gpu_rows, ann_rows; /* what the export recorded */
    td_pid_sel sel;              /* --pid, or none */
    int64_t *proc_pid;           /* the processes met, with their events */
    uint64_t *proc_events;
    size_t nprocs, proccap, proc_last;
} td_prof_sink;

/* A new file record for path (names, cats) and an empty sink for it. */
int td_prof_sink_init(td_prof_sink *s, const char *path, int flags, td_error *err);
/* One event: times in us, stream -1 on the host, corr -1 when none. */
int td_prof_sink_add(td_prof_sink *s, td_prof_cat cat, const char *name, size_t len, double ts,
                     double dur, int64_t stream, int64_t corr, int64_t pid, int64_t tid);
/* The same with the names id of the event's name (td_prof_sink_name: a
 * reader that meets one name many times interns it once). */
int td_prof_sink_add_id(td_prof_sink *s, td_prof_cat cat, int64_t nid, double ts, double dur,
                        int64_t stream, int64_t corr, int64_t pid, int64_t tid);
/* The names id of a name (interned), or TD_ENOMEM. */
int64_t td_prof_sink_name(td_prof_sink *s, const char *name, size_t len);
/* Whether pid is among those --pid selects (all when none). */
bool td_pid_selected(const td_pid_sel *sel, int64_t pid);
/* After the last event: the processes in pid order, and TD_ETRACE naming
 * the file and the pids it holds when --pid names one it does not. */
int td_prof_sink_check_pids(td_prof_sink *s);
/* Iterations (and attribution): *out takes the file; the sink is freed. */
int td_prof_sink_finish(td_prof_sink *s, td_file **out);
void td_prof_sink_free(td_prof_sink *s);

/* rocprof_json.c: the rest of a rocprofv3 JSON file, the scanner at the
 * value of its top-level "rocprofiler-sdk-tool" member. */
struct td_json;
int td_rocprof_json_read(struct td_json *j, td_prof_sink *s);

/* rocprof_v1.c: rocprof v1/v2's results.json into the sink. */
int td_rocprof_v1_read(td_prof_sink *s, const char *path, td_error *err);

#endif
