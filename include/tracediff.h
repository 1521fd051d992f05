/*
 * tracediff: compare two sets of PyTorch profiler traces (control and test).
 *
 * The one public header. The library never prints and never exits: every
 * function returns 0 (or a count) on success and a negative TD_E... code on
 * failure, filling the caller's td_error with the file, the byte offset in the
 * decompressed JSON where that helps, and a message.
 *
 * Options structs (td_open_opts, td_compare_opts, ...) start with a size
 * field: initialise each with its TD_..._INIT macro, which sets size and
 * every default, then set the fields wanted:
 *
 *     td_compare_opts o = TD_COMPARE_OPTS_INIT;
 *     o.device = TD_DEVICE_GPU;
 *     o.short_names = true;
 *
 * The ABI rule: fields are only ever added at the end of a struct, so size
 * tells the library which version of it the caller was built with. A
 * struct smaller than the library's own (a program built against an older
 * header) is accepted, the fields beyond size taking their defaults; a size
 * of 0 (a struct not initialised), one that no version of the struct has,
 * or one larger than the library's own (a program built against a newer
 * header than the library it runs with) is refused with TD_EUSAGE and a
 * message naming the struct. A NULL options pointer means every default.
 * docs/api.md has the details.
 *
 * Ownership: a td_x returned through an out-parameter is freed with
 * td_x_free(); every td_x_free(NULL) is a no-op. Strings returned by accessor
 * functions belong to the object they came from and live as long as it does.
 */
#ifndef TRACEDIFF_H
#define TRACEDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TD_VERSION_MAJOR 0
#define TD_VERSION_MINOR 1
#define TD_VERSION_PATCH 0
#define TD_VERSION "0.1.0" /* MAJOR.MINOR.PATCH, as a string */

/* Every public declaration is exported from the shared libraries; the rest of
 * the library is built with -fvisibility=hidden. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define TD_API __attribute__((visibility("default")))
#else
#define TD_API
#endif

/* The version of the library linked (TD_VERSION is the header's). */
TD_API const char *td_version(void);

enum td_code {
    TD_OK = 0,
    TD_EIO = -1,    /* a file could not be opened, read, decompressed or written */
    TD_EPARSE = -2, /* a file is not valid JSON */
    TD_ETRACE = -3, /* valid JSON, but not a usable trace or trace set */
    TD_ENOMEM = -4, /* out of memory */
    TD_EUSAGE = -5  /* a bad argument: unknown rank, iteration, column, regex... */
};

typedef struct td_error {
    int code;
    char path[512];  /* the file (or directory) concerned, "" if none */
    uint64_t offset; /* byte offset in the decompressed JSON, when has_offset */
    bool has_offset;
    char msg[256];
} td_error;

/* A human-readable name for a TD_E... code. */
TD_API const char *td_strerror(int code);

/* ------------------------------------------------------------------------ */
/* Lists of ranks or iterations: "N", "N,M,...", "all", or (iterations)
 * "steady": every iteration but the lowest (the warm-up).                    */

typedef struct td_list {
    bool all;    /* "all" */
    bool steady; /* "steady": all but the lowest; only iterations take it */
    size_t n;    /* 0 and !all: the default (the lowest) */
    int64_t *v;  /* n values, owned; freed by td_list_clear */
} td_list;

#define TD_LIST_INIT                                                                               \
    {                                                                                              \
        false, false, 0, NULL                                                                      \
    }

/* Parse text into out (which must be zeroed or cleared). */
TD_API int td_list_parse(td_list *out, const char *text, td_error *err);
TD_API void td_list_clear(td_list *list);

/* ------------------------------------------------------------------------ */
/* Trace sets.                                                               */

typedef enum td_compression { TD_COMP_NONE = 0, TD_COMP_GZIP = 1, TD_COMP_ZSTD = 2 } td_compression;
/* "plain", "gzip" or "zstd", as tracediff info names them. */
TD_API const char *td_compression_name(td_compression c);

typedef struct td_open_opts {
    size_t size; /* sizeof(td_open_opts): set by TD_OPEN_OPTS_INIT */
    int threads; /* threads reading files, 0 = one per core (a big plain file may be cut) */
    /* Called from the loading threads, serialised, now and then with the
     * bytes of input read so far and the total size of the input files. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *progress_ud;
    /* Link each gpu-side event to the operator that launched it (docs/
     * attribution.md): needed by compare_opts.by != TD_BY_KERNEL, explain
     * and td_set_attr_stats. Costs a little time and 12 bytes per gpu
     * event; off by default. */
    bool want_attribution;
    /* Plain (uncompressed) files of at least this many bytes are mapped
     * into memory and scanned in place instead of read: no copy from the
     * page cache. 0 (the default) reads every file. A mapped file that
     * another process truncates while it is read raises SIGBUS in the
     * reading thread; the library installs no handler: a program setting
     * this handles SIGBUS itself, naming the file with td_mapped_file.
     * (In the child processes of `processes` below the library handles it:
     * that file's load fails with TD_EIO, naming the file and the byte.) */
    uint64_t map_min_bytes;
    /* Load whole files in child processes (fork) rather than threads, when
     * there are several to read on more than one thread and at least a
     * megabyte in all, most of it in plain files to be mapped (map_min_bytes
     * above): each child has an address space of its own, so the readers
     * never interrupt one another to flush their TLBs when mapped windows
     * are given back, and sends its files back through a memory file.
     * The results are the same; a file whose child failed is loaded again
     * in the calling process, and only the calling process calls
     * `progress` (with every process's bytes). For programs that may fork
     * (the tracediff command): call it with no other thread running. Not
     * used when a file is cut into pieces. TD_PROCESSES=0 in the
     * environment turns it off. Off by default. */
    bool processes;
    /* Keep the trace's own resolution (HTA_DISABLE_NS_ROUNDING=1): decimal
     * timestamps and durations are used as they are, in us with their
     * decimals, instead of rounded to whole microseconds as HTA does by
     * default (docs/numbers.md). The library does not read the environment:
     * td_env_ns() says what HTA would do. A summary holds one rule or the
     * other: opening one made under the other rule is TD_ETRACE (when its
     * traces had decimal timestamps, the only case where the rules differ). */
    bool ns;
    /* Nsight Systems exports (docs/profilers.md): kernels named by their
     * demangledName (the full signature) instead of their shortName. */
    bool nsys_demangled;
    /* Keep what td_breakdown_compute needs (below): the
     * gpu-side events' times and streams, launches, synchronize calls and
     * steps. Costs about 40 bytes per gpu event; off by default. Files are
     * then loaded in threads, never in processes. */
    bool want_breakdown;
    /* The events whose name this regular expression (PCRE2, as Python's
     * re.search) matches are the iterations instead of ProfilerStep#N:
     * host events only, numbered 0, 1, ... in time order in each file
     * (docs/breakdown.md). NULL: ProfilerStep. A bad expression is
     * TD_EUSAGE; one that matches nothing leaves the file whole-trace. */
    const char *step_marker;
    /* Keep what td_roofline_compute needs (below, docs/roofline.md): the
     * cpu ops' "Input Dims", "Input type" and "Concrete Inputs" (interned
     * once per distinct shape), their nesting and the times of the gpu-side
     * events. Implies want_attribution. Files are then read whole, in
     * threads, never cut into pieces or loaded in processes. Off by default. */
    bool want_roofline;
    /* Keep each gpu-side event's stack (docs/stacks.md): the python_function,
     * user_annotation and cpu_op events around its launch, as frames.
     * Needed by compare_opts.by TD_BY_MODULE and TD_BY_STACK. Implies
     * want_attribution. Files are then read whole, in threads. Off by
     * default. */
    bool want_stacks;
    /* Keep each trace's call tree for td_tree_match (docs/tree-match.md):
     * about 40 bytes per cpu op, launch and gpu event, from Kineto JSON
     * (not summaries or other profilers' outputs). Files are then read
     * whole, in threads. Off by default. */
    bool want_tree;
    /* Read only the events of these processes (pids[0..npids)) of each
     * Nsight Systems or rocpd export (docs/profilers.md, "Processes"): an
     * export may hold several. A file without one of them is TD_ETRACE,
     * naming the pids it holds; so is a JSON trace (read whole) and a
     * summary. npids 0 (the default) reads every process. */
    const int64_t *pids;
    size_t npids;
    /* With want_tree: the python_function events (Kineto's
     * with_stack=True) join the call trees as nodes, nested by time with
     * the cpu ops and launches (docs/tree-match.md, "Python frames").
     * Off by default. */
    bool tree_python_frames;
} td_open_opts;

#define TD_OPEN_OPTS_INIT                                                                          \
    {                                                                                              \
        sizeof(td_open_opts), 0, NULL, NULL, false, 0, false, false, false, false, NULL, false,    \
            false, false, NULL, 0, false                                                           \
    }

/* Whether HTA_DISABLE_NS_ROUNDING in the environment turns HTA's rounding
 * off, read as HTA reads it: exactly "1" does, anything else (unset, "0",
 * "true", "1 ") does not. */
TD_API bool td_env_ns(void);

/* The trace file mapped (td_open_opts.map_min_bytes) at addr by a load in
 * progress, with *offset (if not NULL) set to addr's byte offset in it; NULL
 * when addr is in no such mapping. Async-signal-safe: for a SIGBUS handler,
 * with the signal's si_addr. */
TD_API const char *td_mapped_file(const void *addr, uint64_t *offset);

typedef struct td_set td_set;

/* Open a trace set: a directory of trace files (one per rank) or one file. */
TD_API int td_set_open(td_set **out, const char *path, const td_open_opts *opts, td_error *err);

/* Open several sets at once, reading all their files concurrently.
 * On failure no set is returned (out[i] are all NULL). */
TD_API int td_sets_open(td_set **out, const char *const *paths, size_t n, const td_open_opts *opts,
                        td_error *err);

TD_API void td_set_free(td_set *set);

typedef struct td_file_info {
    const char *path;
    int64_t rank;
    td_compression compression;
    uint64_t file_bytes;       /* size on disk */
    uint64_t json_bytes;       /* size of the decompressed JSON */
    uint64_t events_total;     /* entries of traceEvents */
    uint64_t events_counted;   /* with cat and dur, cat != "Trace" (spec §2) */
    uint64_t events_cpu;       /* counted, stream == -1 */
    uint64_t events_gpu;       /* counted, stream != -1 */
    uint64_t events_stream0;   /* counted, device events on stream 0 (spec §3, extension) */
    uint64_t events_no_launch; /* counted, device events whose launch was not found */
    uint64_t events_skipped;   /* unusable entries (not objects, bad fields), see docs */
    uint64_t steps;            /* steps (ProfilerStep iterations), each once */
    bool rounded;              /* decimal timestamps rounded to microseconds */
    bool bom;                  /* starts with a UTF-8 byte order mark (skipped) */
    const char *device_name;   /* deviceProperties[0].name, or NULL */
    bool decimal_ts;           /* some ts was decimal: rounded unless ns */
    /* Another profiler's output (docs/profilers.md): what it is and the
     * version that wrote it ("Nsight Systems SQLite export 2024.6.2.25"),
     * its rank its place in the set; NULL for Kineto JSON. */
    const char *format;
} td_file_info;

/* Process k (< td_set_file_processes) of file i of a set: its pid, its
 * name ("" when not recorded) and the events the file holds of it (all of
 * them, whether --pid read them or not). */
typedef struct td_process_info {
    int64_t pid;
    const char *name;
    uint64_t events;
} td_process_info;

TD_API const char *td_set_path(const td_set *set);
/* Where the set was read from: "FILE#RUN" for a summary, else its path. */
TD_API const char *td_set_origin(const td_set *set);
/* Whether the set is a summary run written without checksums (by a
 * tracediff before summary schema 3): damage to it cannot be detected
 * (docs/summaries.md, "Checksums"). False for traces. */
TD_API bool td_set_unchecked(const td_set *set);
TD_API size_t td_set_nfiles(const td_set *set);
/* Files are ordered by rank. */
TD_API int td_set_file_info(const td_set *set, size_t i, td_file_info *out);
/* Another profiler's output (td_file_info.format): where file i's rank
 * comes from, "MPI_RANKS" (nsys recorded it under MPI), "file order", or
 * "file order (MPI_RANKS names several ranks: --pid picks one)"; NULL for
 * Kineto JSON and summaries. And how many processes its events come from
 * (0 for those). Functions, not td_file_info fields: that struct is the
 * caller's, of the size its header gave. */
TD_API const char *td_set_file_rank_from(const td_set *set, size_t i);
TD_API size_t td_set_file_processes(const td_set *set, size_t i);
TD_API int td_set_file_process(const td_set *set, size_t i, size_t k, td_process_info *out);

/* Whether the set's durations keep the trace's own resolution (opened with
 * td_open_opts.ns, or a summary made so), else HTA's whole-us rounding. */
TD_API bool td_set_ns(const td_set *set);

/* Sorted, distinct ranks and iterations of the set. Returns how many there
 * are; writes at most cap of them to out (out may be NULL when cap is 0). */
TD_API size_t td_set_ranks(const td_set *set, int64_t *out, size_t cap);
TD_API size_t td_set_iterations(const td_set *set, int64_t *out, size_t cap);

/* Counted events per category name ("cpu_op", "kernel", ...) over all files:
 * calls fn once per category, in name order. */
TD_API void td_set_categories(const td_set *set, void (*fn)(void *ud, const char *cat, uint64_t n),
                              void *ud);

/* The same with each category's summed duration (us) over all files; dur is
 * NAN when unknown (a set read from an older summary). */
TD_API void td_set_category_times(const td_set *set,
                                  void (*fn)(void *ud, const char *cat, uint64_t n, double dur),
                                  void *ud);

/* ------------------------------------------------------------------------ */
/* Summaries (docs/summaries.md): a trace set's aggregates in SQLite. One
 * file holds many runs. td_set_open and td_sets_open take "FILE.tdsum" (its
 * only run) and "FILE.tdsum#RUN" wherever they take a trace set; a summary is
 * told by its SQLite header, not by its name.                              */

typedef enum td_device { TD_DEVICE_ALL = 0, TD_DEVICE_CPU = 1, TD_DEVICE_GPU = 2 } td_device;
/* "all", "cpu" or "gpu", as --device spells them. */
TD_API const char *td_device_name(td_device d);

/* One event of a set, as td_set_events hands it to its callback (valid
 * during the call only). */
typedef struct td_event_info {
    size_t file;       /* its file's index in the set (td_set_file_info) */
    int64_t rank;      /* its file's rank */
    int64_t iteration; /* its ProfilerStep number; -1 for a set with none */
    double dur;        /* us, under the set's duration rule (td_set_ns) */
    const char *name;  /* NUL-terminated, as in the trace */
    uint32_t name_id;  /* the name's id in its file: equal ids, equal names */
    const char *cat;   /* its category; "" when not known (an older summary) */
    bool gpu;          /* a device event (stream != -1), else a host event */
    bool stream0;      /* a device event on stream 0 */
} td_event_info;

/* Calls fn for each event of set, in file order (files by rank), that a side
 * of a comparison would count: its file's rank among ranks[nranks], its
 * iteration among iters[niters] (a set with no ProfilerStep: every event,
 * iteration -1, whatever iters holds), its side as device says. No rank or
 * iteration is checked against the set: one it lacks selects nothing. A
 * negative return from fn stops the walk and is returned; else 0, or a
 * negative TD_E... code (a summary's events that cannot be decoded). */
TD_API int td_set_events(const td_set *set, const int64_t *ranks, size_t nranks,
                         const int64_t *iters, size_t niters, td_device device,
                         int (*fn)(void *ud, const td_event_info *ev), void *ud, td_error *err);

/* PRAGMA user_version of the summaries written; 1 to 4 are read too (4: packed
 * files keep the GPU stacks and the roofline's inputs; 5: the CPU stacks too). */
#define TD_SUMMARY_SCHEMA 5

typedef struct td_summary_opts {
    size_t size;     /* sizeof(td_summary_opts): set by TD_SUMMARY_OPTS_INIT */
    const char *run; /* NULL: the set's folder name, or the file's name
                      * without .json[.gz|.zst] for a one-file set */
    bool replace;    /* a run of that name is replaced, else TD_EUSAGE */
    td_list ranks;   /* what to keep: n == 0 and !all means every one */
    td_list iters;
    td_device device;    /* ALL, or keep only CPU or only GPU events */
    const char *created; /* NULL: now, as UTC "YYYY-MM-DDTHH:MM:SSZ" */
} td_summary_opts;

#define TD_SUMMARY_OPTS_INIT                                                                       \
    {                                                                                              \
        sizeof(td_summary_opts), NULL, false, TD_LIST_INIT, TD_LIST_INIT, TD_DEVICE_ALL, NULL      \
    }

/* Adds set as one run to the summary at path: a new file is written beside
 * it and renamed into place; an existing summary gets the run in one
 * transaction. A crash leaves the file as it was. */
TD_API int td_summary_write(const char *path, const td_set *set, const td_summary_opts *opts,
                            td_error *err);
/* The run name td_summary_write gives set when opts->run is NULL: the set's
 * folder name, or its one file's name without .json[.gz|.zst]. malloc'd;
 * NULL when out of memory. */
TD_API char *td_summary_default_run(const td_set *set);

typedef struct td_run_info {
    char *name, *created, *tool_version, *source;
    char *kept_ranks, *kept_iterations; /* NULL: all */
    char *kept_device;                  /* "all", "cpu" or "gpu" */
    uint64_t nranks, niters, nfiles, source_bytes, json_bytes, events;
    double cpu_us, gpu_us; /* total durations of the kept events */
    bool unchecked;        /* written without checksums (td_set_unchecked) */
} td_run_info;

/* The runs of a summary in the order they were added. *out is freed with
 * td_run_infos_free. Returns the number of runs or < 0. */
TD_API long td_summary_runs(td_run_info **out, const char *path, td_error *err);
TD_API void td_run_infos_free(td_run_info *runs, size_t n);

/* The user's own name rules (docs/numbers.md, "Your own rules"): each
 * "REGEX=REPLACEMENT" (PCRE2; the first '=' not written \= ends REGEX; the
 * replacement may use $1, ${name}), applied in the order added to every
 * occurrence in each name, before td_compare_opts.normalize_names and
 * short_names. Names the rules make equal share a row. */
typedef struct td_renames td_renames;
/* Adds one rule to *rules (made on the first call). TD_EUSAGE names the rule
 * when it is not REGEX=REPLACEMENT, its expression does not compile or its
 * replacement names a group the expression lacks. */
TD_API int td_renames_add(td_renames **rules, const char *rule, td_error *err);
TD_API void td_renames_free(td_renames *rules);
TD_API size_t td_renames_count(const td_renames *rules);
/* name (len bytes) with the rules applied: *out malloc'd (the caller frees)
 * when a rule changed it, else NULL; *out_len the result's length either
 * way. 0 or TD_ENOMEM. */
TD_API int td_renames_apply(const td_renames *rules, char **out, size_t *out_len, const char *name,
                            size_t len);

/* Total duration per name per run of a summary (every kept event of each
 * run: all its ranks, iterations and streams), runs in the order they were
 * added. Names are ordered by the size of their change from the first run to
 * the last (largest first, then by name).                                  */
typedef struct td_trend_opts {
    size_t size; /* sizeof(td_trend_opts): set by TD_TREND_OPTS_INIT */
    td_device device;
    size_t top;              /* 0 = every name */
    const char *names;       /* PCRE2 regex searched in the name, or NULL */
    const char *const *runs; /* these runs, in this order; NULL = all */
    size_t nruns;
    /* Names grouped as a comparison groups them (td_compare_opts): the
     * user's rules, then the built-in folding, then the short names; names
     * made equal are one line, their counts and totals added. `names`
     * searches the grouped name. */
    const td_renames *renames;
    bool normalize_names;
    bool short_names;
} td_trend_opts;

#define TD_TREND_OPTS_INIT                                                                         \
    {                                                                                              \
        sizeof(td_trend_opts), TD_DEVICE_ALL, 0, NULL, NULL, 0, NULL, false, false                 \
    }

typedef struct td_trend td_trend;
TD_API int td_trend_compute(td_trend **out, const char *path, const td_trend_opts *opts,
                            td_error *err);
TD_API void td_trend_free(td_trend *t);
TD_API size_t td_trend_nruns(const td_trend *t);
TD_API const char *td_trend_run(const td_trend *t, size_t run);
TD_API size_t td_trend_nnames(const td_trend *t);
TD_API const char *td_trend_name(const td_trend *t, size_t name);
TD_API double td_trend_total(const td_trend *t, size_t name, size_t run); /* 0 when absent */
TD_API uint64_t td_trend_count(const td_trend *t, size_t name, size_t run);
/* How many names of the first run are shown under another name (the
 * grouping of td_trend_opts: rules, folding, short names). */
TD_API uint64_t td_trend_folded(const td_trend *t);

/* A line chart of a trend (one line per name, runs along x): SVG, PNG or PDF
 * by the name's extension (.svg, .png, .pdf); the file appears whole or not
 * at all. */
TD_API int td_trend_chart_write(const char *path, const td_trend *t, td_error *err);

/* ------------------------------------------------------------------------ */
/* Sets built from files read elsewhere (tracediff-mpi: every process reads
 * some files, one process compares). A file travels as its aggregates, the
 * packed file of docs/summaries.md; the set built from them gives the same
 * numbers as td_sets_open on the files.                                    */

/* The trace files td_sets_open reads for path, in the order it reads them:
 * *out is a malloc'd array of *n malloc'd paths (the caller frees each and
 * the array with free()). Returns 0, or 1 when path is a summary (nothing
 * listed: td_set_open reads it whole), or < 0 with err filled as td_sets_open
 * fills it. */
TD_API int td_set_list_files(char ***out, size_t *n, const char *path, td_error *err);

#define TD_PACK_SHA256 1 /* also hash the file's bytes (what td_summary_write records) */
#define TD_PACK_NS 2     /* keep the trace's own resolution (td_open_opts.ns) */
#define TD_PACK_BD 4     /* keep what the breakdown needs (td_open_opts.want_breakdown) */
/* The whole loaded file with its op calls (what the statistics' call samples
 * by op, top-op and annotation, and explain --inclusive, read), instead of
 * its aggregates: larger, and read back only by a process of the same build
 * of the library. TD_PACK_SHA256 and TD_PACK_BD do not apply. */
#define TD_PACK_CALLS 8
/* Keep the stacks (td_open_opts.want_stacks: --format folded, --by module,
 * the flame graph) and the roofline's inputs (want_roofline), as summaries
 * keep them. TD_PACK_CALLS packs neither. */
#define TD_PACK_STACKS 16
#define TD_PACK_ROOF 32

/* Loads one trace file and packs its aggregates into *out (malloc'd, *n
 * bytes; the caller frees it with free()). Only one file's events are in
 * memory at a time. flags: 0 or any of TD_PACK_SHA256, TD_PACK_NS, TD_PACK_BD,
 * TD_PACK_CALLS, TD_PACK_STACKS and TD_PACK_ROOF. Errors are td_sets_open's. */
TD_API int td_set_pack_file(unsigned char **out, size_t *n, const char *path, unsigned flags,
                            td_error *err);

/* The set td_sets_open would make of path from its files, given as the bytes
 * td_set_pack_file made of each (n of them, any order; bufs and lens stay
 * the caller's). Freed with td_set_free. */
TD_API int td_set_from_packed(td_set **out, const char *path, const unsigned char *const *bufs,
                              const size_t *lens, size_t n, td_error *err);

/* ------------------------------------------------------------------------ */
/* The comparison (spec §4-§7).                                              */

/* What a row is (docs/attribution.md). Every value but TD_BY_KERNEL groups
 * the gpu side only (device is taken as TD_DEVICE_GPU) and needs the sets
 * opened with want_attribution. GPU events with no key are counted in the
 * row TD_UNATTRIBUTED, so the rows add up to the gpu total. */
typedef enum td_by {
    TD_BY_KERNEL = 0,     /* the event's own name: today's comparison */
    TD_BY_OP = 1,         /* the innermost cpu_op around the launch */
    TD_BY_TOP_OP = 2,     /* the outermost cpu_op around the launch */
    TD_BY_ANNOTATION = 3, /* the innermost user_annotation (not a ProfilerStep) */
    TD_BY_CLASS = 4,      /* the kernel class of the event's name */
    /* The nn.Module path of the launch's stack (docs/stacks.md): a module
     * holds its children's time (inclusive) unless exclusive; GPU events
     * under no module are TD_UNATTRIBUTED. Needs want_stacks. When a side
     * has no nn.Module events the rows are by top op instead
     * (td_side_notes.no_modules). */
    TD_BY_MODULE = 5,
    /* The whole stack: frames of the CPU events around the launch,
     * outermost first, then the event's own name, joined by ';' (Brendan
     * Gregg's folded stacks; docs/stacks.md). Needs want_stacks. */
    TD_BY_STACK = 6
} td_by;

#define TD_UNATTRIBUTED "(unattributed)"
/* The frame that stands for those beyond TD_STACK_MAX_DEPTH (docs/stacks.md). */
#define TD_STACK_CUT_FRAME "[\xe2\x80\xa6]"
#define TD_STACK_MAX_DEPTH 1000

/* Kernel classes: an ordered table of (class, regex) rules, first match
 * wins; a name no rule matches is "other". */
typedef struct td_classes td_classes;
/* The built-in table (docs/attribution.md). */
TD_API int td_classes_default(td_classes **out, td_error *err);
/* A rules file: one "class<TAB>regex" per line; blank lines and lines
 * starting with '#' are skipped. Regexes are PCRE2, caseless. Errors name
 * the file and line. */
TD_API int td_classes_load(td_classes **out, const char *path, td_error *err);
TD_API void td_classes_free(td_classes *c);
TD_API size_t td_classes_count(const td_classes *c);
/* Rule i: its class and pattern. */
TD_API void td_classes_rule(const td_classes *c, size_t i, const char **cls, const char **pattern);
/* The class of a name ("other" when no rule matches). */
TD_API const char *td_classes_match(const td_classes *c, const char *name, size_t len);

/* Why a gpu event is unattributed (docs/attribution.md). */
typedef enum td_attr_reason {
    TD_ATTR_HOST_EVENT = 0, /* a host event on a gpu stream */
    TD_ATTR_NO_CORR = 1,    /* no correlation id */
    TD_ATTR_NO_LAUNCH = 2,  /* no launch found */
    TD_ATTR_NO_OP = 3,      /* the launch is outside any op */
    TD_ATTR_NREASONS = 4
} td_attr_reason;
TD_API const char *td_attr_reason_name(td_attr_reason reason);

typedef struct td_attr_stats {
    bool available;      /* the set was opened with want_attribution */
    uint64_t gpu_events; /* gpu-side events of all files */
    double gpu_time;     /* their total duration, us */
    uint64_t attributed;
    double attributed_time;
    uint64_t count[TD_ATTR_NREASONS]; /* unattributed, per reason */
    double time[TD_ATTR_NREASONS];
} td_attr_stats;

/* Attribution over every file and event of the set (no selection). 0, or
 * TD_ETRACE when a summary's packed durations are damaged, TD_ENOMEM. */
TD_API int td_set_attr_stats(const td_set *set, td_attr_stats *out);

typedef struct td_compare_opts {
    size_t size;                       /* sizeof(td_compare_opts): set by TD_COMPARE_OPTS_INIT */
    td_list control_ranks, test_ranks; /* default: lowest rank of the set */
    td_list control_iters, test_iters; /* default: lowest iteration of the set */
    td_device device;
    bool short_names;
    bool hta_strict;           /* HTA's own rule: stream-0 device events get no iteration */
    td_by by;                  /* rows by kernel (default), op, top op, annotation, class */
    const td_classes *classes; /* TD_BY_CLASS: NULL = the built-in table */
    /* explain: only gpu events whose op (only_by TD_BY_OP, TD_BY_TOP_OP or
     * TD_BY_ANNOTATION) is named only; the notes then carry the CPU time of
     * the host events of that name. NULL = no filter. */
    const char *only;
    td_by only_by;
    /* Group names that differ only by noise (td_normalize_name, TD_NORM_ALL)
     * into one row; with short_names, normalized first, then shortened. */
    bool normalize_names;
    /* Divide each side's counts and durations by its number of selected
     * (rank, iteration) samples (td_diff_divisor), so that sides with
     * different numbers of iterations compare fairly. */
    bool per_iteration;
    /* Only events of these categories ("cpu_op,kernel"; NULL = all), or with
     * exclude_categories every category but these. The filter goes by event:
     * a kernel and a cpu_op of the same name are told apart (by the side of
     * the event, host or gpu: docs/numbers.md). */
    const char *categories;
    bool exclude_categories;
    /* explain (with only, only_by TD_BY_OP): also the gpu events launched
     * inside the op's children, at any depth (needs sets read from traces
     * with attribution: a summary does not keep the op calls). */
    bool only_inclusive;
    /* by TD_BY_MODULE: a module's own time only, not its children's. */
    bool exclusive;
    /* The user's name rules (td_renames_add), applied before the above
     * folding; NULL = none. The caller keeps it alive while it is used. */
    const td_renames *renames;
} td_compare_opts;

#define TD_COMPARE_OPTS_INIT                                                                       \
    {                                                                                              \
        sizeof(td_compare_opts), TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT,           \
            TD_DEVICE_ALL, false, false, TD_BY_KERNEL, NULL, NULL, TD_BY_KERNEL, false, false,     \
            NULL, false, false, false, NULL                                                        \
    }

/* The two sides of a comparison: index of td_row.counts, .duration, ... */
typedef enum td_side { TD_CONTROL = 0, TD_TEST = 1 } td_side;

typedef struct td_row {
    const char *name; /* full or short name; may hold NUL bytes: use name_len */
    size_t name_len;
    uint64_t counts[2];   /* [TD_CONTROL], [TD_TEST] */
    double duration[2];   /* total duration, us */
    int64_t diff_counts;  /* test - control */
    double diff_duration; /* test - control */
    char category;        /* '+', '-' or '=' (of diff_counts) */
} td_row;

typedef struct td_side_notes {
    bool whole_trace;        /* no ProfilerStep in the set: every event compared */
    uint64_t no_launch;      /* selected ranks' device events with no launch found */
    uint64_t strict_dropped; /* --hta-strict: stream-0 device events left out */
    uint64_t events;         /* events selected */
    uint64_t unattributed;   /* by != kernel: selected gpu events with no key */
    double unattributed_time;
    uint64_t only_cpu_count; /* opts.only: host events of that name selected */
    double only_cpu_time;    /* ... their total duration, us */
    double only_gpu_time;    /* opts.only: the gpu time attributed to it */
    uint64_t cat_mixed;      /* always 0: --cat selects events, nothing is kept whole */
    size_t nranks, niters;   /* the resolved selection */
    const int64_t *ranks;
    const int64_t *iters;
    /* HTA's rounding (no ns) in the selected events: how many got a
     * negative duration from it (a sub-us event that crosses no whole us),
     * and how many rows' totals of this side it moved by more than 5% of
     * the trace's own total (0 when a summary cannot tell: it keeps only
     * the rounded durations). docs/numbers.md, "Decimal timestamps". */
    uint64_t round_negative;
    uint64_t round_moved_rows;
    /* by TD_BY_MODULE or TD_BY_STACK (docs/stacks.md): selected gpu events
     * whose stack was cut at TD_STACK_MAX_DEPTH frames; no_modules: the
     * side's files have no nn.Module events (the rows are by top op). */
    uint64_t stack_cut;
    bool no_modules;
    /* by module or stack with --device cpu: the stacks are the cpu-side
     * events' (stack_cut counts them; under no module they go to the row
     * TD_UNATTRIBUTED, and no_modules keeps the rows by module). */
    bool cpu_stacks;
} td_side_notes;

typedef struct td_diff td_diff;

TD_API int td_diff_compute(td_diff **out, const td_set *control, const td_set *test,
                           const td_compare_opts *opts, td_error *err);
TD_API void td_diff_free(td_diff *diff);

/* Rows sorted by name (bytewise). */
TD_API size_t td_diff_nrows(const td_diff *diff);
TD_API const td_row *td_diff_rows(const td_diff *diff);
TD_API const td_side_notes *td_diff_notes(const td_diff *diff, td_side side);
TD_API bool td_diff_short_names(const td_diff *diff);
/* The one note owed when HTA's rounding of decimal timestamps (the default,
 * not ns) changed the numbers: some selected event's duration became
 * negative, or some row's total of a side moved by more than 5% of the
 * traces' own (td_side_notes.round_negative, round_moved_rows, both sides
 * added). Written to buf (NUL-terminated, cut to cap); returns its length,
 * 0 (and "") when there is nothing to say. */
TD_API size_t td_diff_rounding_note(const td_diff *diff, char *buf, size_t cap);
/* The notes a comparison owes its reader about one side, worded once for
 * every front end (the CLI's "note:" lines, the report's notes): note i
 * (from 0) of the side whose set is set and whose label is label. In order:
 * no ProfilerStep (the whole trace compared), GPU events not attributed to
 * an op, GPU events with no launch found, --hta-strict's stream-0 events
 * left out, a side without nn.Module events (by module), GPU events whose
 * stack was cut (docs/stacks.md), then per file of set its traceEvents entries skipped and a
 * UTF-8 byte order mark. Written to buf as snprintf does (NUL-terminated,
 * cut to cap; plain text: escape it for HTML); returns the note's whole
 * length, 0 (and "") when there is no note i: a side's notes are 0, 1, ...
 * up to the first 0. */
TD_API size_t td_diff_side_note(const td_diff *diff, td_side side, const td_set *set,
                                const char *label, size_t i, char *buf, size_t cap);
/* Rows of a diff computed without normalize_names whose names differ from
 * another row's only by addresses or Python line numbers (step numbers are
 * not counted): the rows --normalize-names would fold together. */
TD_API size_t td_diff_noisy_names(const td_diff *diff);
/* What a side's numbers were divided by: its (rank, iteration) samples with
 * per_iteration (ranks alone for a whole-trace side), else 1. The rows'
 * durations are divided already; counts stay whole (the writers divide them
 * and print decimals), diff_counts is their whole difference, and category
 * follows the divided counts. */
TD_API double td_diff_divisor(const td_diff *diff, td_side side);
/* A row's count of a side divided by td_diff_divisor, and the difference
 * of the divided counts (test - control). */
TD_API double td_row_count(const td_diff *diff, const td_row *row, td_side side);
TD_API double td_row_diff_count(const td_diff *diff, const td_row *row);

/* What td_normalize_name folds (docs/numbers.md, "Normalized names"). */
enum {
    TD_NORM_ADDRESSES = 1, /* "0x" + 6 or more hex digits -> "0x…" */
    TD_NORM_LINES = 2,     /* ".py(" digits ")" -> ".py(…)" */
    TD_NORM_STEPS = 4,     /* a ProfilerStep#N name -> "ProfilerStep#…" */
    TD_NORM_GRAPHS = 8,    /* "CompiledFxGraph " + a hash -> "CompiledFxGraph …" */
    TD_NORM_TRITON = 16,   /* "triton_..._N" -> "triton_..._…" */
    TD_NORM_ALL = 31
};
/* The name with the noise of what (0 = TD_NORM_ALL) replaced by an ellipsis
 * (U+2026). Writes a malloc'd buffer to *out (caller frees). */
TD_API int td_normalize_name(char **out, size_t *out_len, const char *name, size_t len,
                             unsigned what);

/* A diff made from rows the caller already has (a table edited elsewhere, a
 * DataFrame), for the writers and charts. The names are copied; diff_counts,
 * diff_duration and category are computed from counts and duration; the rows
 * keep the given order. The notes are empty. */
TD_API int td_diff_from_rows(td_diff **out, const td_row *rows, size_t n, bool short_names,
                             td_error *err);
/* The key column's title: "name", "short_name", "op", "top_op",
 * "annotation" or "class". */
TD_API const char *td_diff_key_name(const td_diff *diff);

/* ops_diff (spec §7) of one row: which of the five lists it belongs to. */
typedef enum td_op_category {
    TD_OP_NONE = -1,
    TD_OP_ADDED = 0,
    TD_OP_DELETED,
    TD_OP_INCREASED,
    TD_OP_DECREASED,
    TD_OP_UNCHANGED,
    TD_OP_NCATEGORIES
} td_op_category;

TD_API td_op_category td_row_op_category(const td_row *row);
TD_API const char *td_op_category_name(td_op_category c); /* "added", ... */

/* ------------------------------------------------------------------------ */
/* Statistics: is a change real? (docs/stats.md)                            */

typedef enum td_samples {
    TD_SAMPLES_AUTO = 0,      /* iteration when both sides have >= 3 samples, else call */
    TD_SAMPLES_ITERATION = 1, /* one sample per selected (rank, iteration): the name's total */
    TD_SAMPLES_CALL = 2       /* one sample per call (event) of the name */
} td_samples;

typedef struct td_stats_opts {
    size_t size; /* sizeof(td_stats_opts): set by TD_STATS_OPTS_INIT */
    td_samples samples;
    double alpha;      /* false discovery rate for the q-values; 0 = 0.05 */
    double min_change; /* percent; a smaller |change| is noise; used when has_min_change,
                        * else 1 */
    bool has_min_change;
} td_stats_opts;

#define TD_STATS_OPTS_INIT                                                                         \
    {                                                                                              \
        sizeof(td_stats_opts), TD_SAMPLES_AUTO, 0.0, 0.0, false                                    \
    }

typedef enum td_verdict {
    TD_VERDICT_NA = 0, /* a side has fewer than 2 samples */
    TD_VERDICT_NOISE,  /* q > alpha, or |change| < min_change */
    TD_VERDICT_SLOWER, /* q <= alpha and change >= min_change */
    TD_VERDICT_FASTER, /* q <= alpha and change <= -min_change */
    TD_VERDICT_ADDED,  /* only the test side has the name */
    TD_VERDICT_REMOVED /* only the control side has the name */
} td_verdict;

TD_API const char *td_verdict_name(td_verdict v); /* "n/a", "noise", "slower", ... */
TD_API const char *td_samples_name(td_samples s); /* "auto", "iteration", "call" */

/* Statistics of one row (undefined numbers are NAN). */
typedef struct td_row_stats {
    uint64_t n[2];            /* samples per side */
    double mean[2], stdev[2]; /* stdev: sample standard deviation (n - 1) */
    double median[2], min[2], max[2];
    double diff_mean;  /* test mean - control mean */
    double change_pct; /* 100 * diff_mean / control mean, in either mode */
    /* iteration: Welch's 1 - alpha interval for diff_mean; NAN in call mode */
    double ci_low, ci_high;
    double hl_shift; /* call mode: the Hodges-Lehmann shift, else NAN */
    double p, q;     /* two-sided p-value; Benjamini-Hochberg q-value */
    td_verdict verdict;
    /* Why the row has no test (verdict n/a), in words; NULL when it has one
     * or is added/removed. */
    const char *reason;
    /* call mode: the distribution-free 1 - alpha interval of hl_shift
     * (NAN in iteration mode) */
    double shift_low, shift_high;
} td_row_stats;

typedef struct td_stats td_stats;

/* Statistics for every row of diff, which must have been computed from the
 * same sets and opts: the samples come from exactly the events the diff
 * counted. Deterministic: independent of thread count and file order. */
TD_API int td_stats_compute(td_stats **out, const td_diff *diff, const td_set *control,
                            const td_set *test, const td_compare_opts *opts,
                            const td_stats_opts *sopts, td_error *err);
TD_API void td_stats_free(td_stats *st);

/* Parallel to td_diff_rows(). */
TD_API const td_row_stats *td_stats_rows(const td_stats *st);
TD_API td_samples td_stats_samples(const td_stats *st); /* the mode used (never AUTO) */
TD_API double td_stats_alpha(const td_stats *st);
TD_API double td_stats_min_change(const td_stats *st);
/* (rank, iteration) samples of a side: iterations times ranks (ranks alone
 * for a whole-trace side), whatever the mode. */
TD_API size_t td_stats_side_samples(const td_stats *st, td_side side);
/* True when iteration mode left some side with fewer than 2 samples
 * (every row is then n/a): the caller should say how to select more. */
TD_API bool td_stats_too_few(const td_stats *st);

/* ------------------------------------------------------------------------ */
/* The CI gate (tracediff check; docs/stats.md): the names that got
 * significantly slower. Shared by the CLI and the Python module, so that
 * both report the same regressions.                                        */

typedef struct td_check_opts {
    size_t size;           /* sizeof(td_check_opts): set by TD_CHECK_OPTS_INIT */
    double max_regression; /* percent: the smallest slowdown that fails; used when
                            * has_max_regression, else 5 */
    bool has_max_regression;
    double min_us; /* names whose control total is under this are not compared */
    /* The sets and options the diff was computed from. With them, waits
     * are measured (see gate_waits) and max_step_regression applies;
     * NULL: neither (only synchronize calls are known as waits, by name). */
    const td_set *control, *test;
    const td_compare_opts *compare;
    /* Waits (synchronize calls, and ops at least 80% of whose time is
     * inside synchronize calls or device-to-host copies: time the CPU spent
     * waiting for the device) are reported apart and do not fail the check,
     * unless gate_waits. */
    bool gate_waits;
    /* A name only in test, with a total of at least min_us (and above 0),
     * is a regression ("new") unless allow_new. */
    bool allow_new;
    /* Percent: fail when the step time (ProfilerStep durations; without
     * ProfilerStep, the trace's span: first start to last end) or the GPU
     * time (the selected GPU events' total) per (rank, iteration) grew by
     * more; with >= 3 samples a side, only when Welch's test also finds it
     * (p <= alpha). Used when has_max_step_regression (needs the sets). */
    double max_step_regression;
    bool has_max_step_regression;
    /* Only these rows are compared (indices into td_diff_rows(): a view of
     * include/exclude patterns); NULL = every row. */
    const size_t *rows;
    size_t nrows;
} td_check_opts;

#define TD_CHECK_OPTS_INIT                                                                         \
    {                                                                                              \
        sizeof(td_check_opts), 5.0, false, 0.0, NULL, NULL, NULL, false, false, 0.0, false, NULL,  \
            0                                                                                      \
    }

typedef struct td_check td_check;

/* The gate over a diff and its statistics (td_stats_compute), which must
 * outlive the check. A regression: verdict slower and a change of at least
 * max_regression (or an infinite one: control mean 0). */
TD_API int td_check_compute(td_check **out, const td_diff *diff, const td_stats *stats,
                            const td_check_opts *opts, td_error *err);
TD_API void td_check_free(td_check *check);
TD_API int td_check_passed(const td_check *check); /* no regression */
/* Whether the rows are folded names (td_compare_opts.normalize_names). */
TD_API bool td_check_names_folded(const td_check *check);
TD_API const td_diff *td_check_diff(const td_check *check);
TD_API const td_stats *td_check_stats(const td_check *check);
TD_API double td_check_max_regression(const td_check *check);
TD_API double td_check_min_us(const td_check *check);
/* The rows compared (control total >= min_us), by name, and the regressions
 * among them, most significant first (q, then the larger change): indices
 * into td_diff_rows(), through *rows (may be NULL). Return how many. */
TD_API size_t td_check_compared(const td_check *check, const size_t **rows);
TD_API size_t td_check_regressions(const td_check *check, const size_t **rows);
TD_API size_t td_check_nfaster(const td_check *check); /* compared rows that got faster */
/* Rows that are waits (see td_check_opts.gate_waits), by name, when they
 * do not gate; and how many of them would have been regressions. */
TD_API size_t td_check_waits(const td_check *check, const size_t **rows);
TD_API size_t td_check_wait_regressions(const td_check *check);
/* Whether a row is a regression, a wait that would be one, or new. */
TD_API bool td_check_row_failed(const td_check *check, size_t row);
TD_API bool td_check_row_new(const td_check *check, size_t row);
/* True when every sample is a call and a side has one (rank, iteration):
 * run-to-run noise is not measured, and a regression needs the name's
 * total to have grown by max_regression as well. */
TD_API bool td_check_one_run(const td_check *check);
/* True when some file kept no timing of its ops (read from a summary, or
 * by tracediff-mpi, whose files travel as summaries do): only the
 * synchronize calls are waits then, found by name. */
TD_API bool td_check_waits_by_name(const td_check *check);

/* The step gate (td_check_opts.max_step_regression), per (rank, iteration)
 * sample. A side without ProfilerStep is compared whole: its step time is
 * the span of each rank's trace (span), NAN when that is not known (a
 * summary written before spans were kept). */
typedef struct td_check_step {
    bool asked;             /* has_max_step_regression */
    size_t n[2];            /* samples per side */
    double step_mean[2];    /* mean step time, us (NAN: not known) */
    double gpu_mean[2];     /* mean GPU time, us */
    double step_change_pct; /* 100 * (test - control) / control */
    double gpu_change_pct;
    double step_p, gpu_p; /* Welch's p with >= 3 samples a side, else NAN */
    bool step_failed, gpu_failed;
    bool span[2]; /* the side's step time is its trace span (no ProfilerStep) */
} td_check_step;
TD_API const td_check_step *td_check_step_result(const td_check *check);

typedef enum td_check_format {
    TD_CHECK_TEXT = 0,     /* a summary line, then a table of the regressions */
    TD_CHECK_MARKDOWN = 1, /* for a pull-request comment */
    TD_CHECK_JSON = 2,     /* the summary and the regressions' numbers */
    TD_CHECK_JUNIT = 3     /* JUnit XML: a testcase per compared name, a failure per regression */
} td_check_format;

/* The check's report to a FILE* the caller opened (libtracediff-render). */
TD_API int td_check_write(FILE *f, const td_check *check, td_check_format format, td_error *err);

/* ------------------------------------------------------------------------ */
/* Views: sorting, filtering and cutting the rows for display.               */

typedef enum td_column {
    TD_COL_NAME = 0,
    TD_COL_CONTROL_COUNTS,
    TD_COL_CONTROL_DURATION,
    TD_COL_TEST_COUNTS,
    TD_COL_TEST_DURATION,
    TD_COL_DIFF_COUNTS,
    TD_COL_DIFF_DURATION,
    TD_COL_CATEGORY,
    TD_COL_ABS_DIFF_COUNTS,
    TD_COL_ABS_DIFF_DURATION,
    TD_NCOLUMNS,
    /* Need statistics (td_view_opts.stats): */
    TD_COL_Q = 100, /* q-value; ascending by default, rows without one last */
    TD_COL_CHANGE   /* change_pct; rows without one last */
} td_column;

/* Column by its spec name ("diff_duration"), with the side labels applied
 * ("control_counts" or "<label>_counts"); also "abs_diff_counts" and
 * "abs_diff_duration"; "q" and "change" (TD_COL_Q, TD_COL_CHANGE). Returns the
 * column or TD_EUSAGE. */
TD_API int td_column_parse(const char *text, const char *control_label, const char *test_label);

typedef struct td_view_opts {
    size_t size;    /* sizeof(td_view_opts): set by TD_VIEW_OPTS_INIT */
    td_column sort; /* used when has_sort */
    bool has_sort;
    bool ascending;      /* default descending for numbers, ascending for name */
    size_t top;          /* 0 = all */
    const char *include; /* PCRE2 regex searched in the name, or NULL */
    const char *exclude;
    bool exclude_steps;    /* drop ProfilerStep rows */
    const td_stats *stats; /* for TD_COL_Q and TD_COL_CHANGE */
} td_view_opts;

#define TD_VIEW_OPTS_INIT                                                                          \
    {                                                                                              \
        sizeof(td_view_opts), TD_COL_NAME, false, false, 0, NULL, NULL, false, NULL                \
    }

/* Indices into td_diff_rows() after filter, sort and cut. *out is malloc'd:
 * the caller frees it with free(). Returns the number of indices or < 0:
 * TD_EUSAGE for a pattern that does not compile, or whose matching passes
 * the backtracking limits on some name (the message says which). */
TD_API long td_view_make(size_t **out, const td_diff *diff, const td_view_opts *opts,
                         td_error *err);

/* The Levenshtein distance of a and b, each cut to its first cut bytes (at
 * most TD_EDIT_MAX): the measure of "did you mean" and of td_diff_closest. */
#define TD_EDIT_MAX 256
TD_API size_t td_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cut);
/* The rows of diff whose names are nearest to name by edit distance (names
 * cut to TD_EDIT_MAX bytes), nearest first, ties in row order, the
 * TD_UNATTRIBUTED row left out: up to k row indices written to out; returns
 * how many, or TD_ENOMEM. What `explain` lists for a name it does not find. */
TD_API long td_diff_closest(const td_diff *diff, const char *name, size_t *out, size_t k);

/* ------------------------------------------------------------------------ */
/* Writers. They write to a FILE* the caller opened; they never print
 * anywhere else. Labels are the side labels ("control", "test"). Each
 * flushes f at the end: a failed write returns TD_EIO with err's message
 * "cannot write: " and the system's reason (err's path is "": the writer
 * does not know f's name, the caller does).                                */

typedef struct td_write_opts {
    size_t size;               /* sizeof(td_write_opts): set by TD_WRITE_OPTS_INIT */
    const char *control_label; /* NULL = "control" */
    const char *test_label;    /* NULL = "test" */
    const size_t *rows;        /* a view, or NULL for every row in order */
    size_t nrows;
    /* The terminal table only: */
    int width;  /* columns to fit (0 = 120) */
    bool color; /* ANSI colours for +/- */
    bool ascii; /* no Unicode: "..." and '#' bars */
    bool rules; /* a rule under the header (for a terminal, not a pipe) */
    /* Statistics of the diff (td_stats_compute), or NULL: the writers then
     * add their columns (CSV, JSON, Markdown, the table's verdict). */
    const td_stats *stats;
    /* CSV only: a text cell (a name, a label) that starts with '=', '+',
     * '-', '@', TAB or CR gets a leading '\'', so that a spreadsheet shows it
     * rather than evaluating it as a formula. Numbers are never prefixed.
     * Off by default: CSV is exact for programs (td_write_csv_field). */
    bool csv_safe;
    /* compare --by op --with-rate: per diff row (parallel to td_diff_rows),
     * FLOPs per call and TFLOP/s per side (td_roofline_op_rates), or NULL:
     * CSV, JSON and Markdown then add those columns. */
    const struct td_op_rate *rates;
} td_write_opts;

#define TD_WRITE_OPTS_INIT                                                                         \
    {                                                                                              \
        sizeof(td_write_opts), NULL, NULL, NULL, 0, 0, false, false, false, NULL, false, NULL      \
    }

TD_API int td_write_csv(FILE *f, const td_diff *diff, const td_write_opts *opts, td_error *err);
TD_API int td_write_json(FILE *f, const td_diff *diff, const td_write_opts *opts, td_error *err);
TD_API int td_write_markdown(FILE *f, const td_diff *diff, const td_write_opts *opts,
                             td_error *err);
/* One CSV text cell: quoted as RFC 4180 says when it holds a comma, a
 * quote or a line end; with safe, prefixed with '\'' when it starts with
 * '=', '+', '-', '@', TAB or CR (td_write_opts.csv_safe). */
TD_API void td_write_csv_field(FILE *f, const char *s, size_t len, bool safe);
/* Aligned columns for a terminal: long names shortened with an ellipsis to
 * fit the width, and a bar per row showing the change in duration. */
TD_API int td_write_table(FILE *f, const td_diff *diff, const td_write_opts *opts, td_error *err);
/* The five ops_diff lists for a terminal, each under its title and count,
 * in the diff's row order: names fitted to the width as the table fits
 * them (cut in the middle, the tail kept, no two equal shown names). Uses
 * opts' width, color and ascii. */
TD_API int td_write_ops_table(FILE *f, const td_diff *diff, const td_write_opts *opts,
                              td_error *err);
/* The five ops_diff lists as a JSON object of arrays, each sorted by name. */
TD_API int td_write_ops_json(FILE *f, const td_diff *diff, td_error *err);

/* Short name of a kernel or operator name (spec §6). Writes the result to a
 * malloc'd buffer in *out (caller frees) and its length to *out_len. */
TD_API int td_short_name(char **out, size_t *out_len, const char *name, size_t len);

/* A number as the writers print it: whole numbers without a fraction, else
 * the shortest text that reads back to the same double. */
TD_API void td_format_number(char *buf, size_t cap, double x);

/* Text as the tables show it (docs/errors.md, "Hostile names"): C0 and C1
 * controls (U+009B among them) and DEL as "\x1b", the bidirectional
 * controls (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C) as "\u202e",
 * malformed UTF-8 and noncharacters as U+FFFD; with TD_TEXT_MARKDOWN also
 * '|' as "\|". Writes at most cap bytes into out, NUL included, cut only
 * between characters; returns the length of the whole text (as snprintf). */
#define TD_TEXT_MARKDOWN 1u
TD_API size_t td_text_visible(char *out, size_t cap, const char *s, size_t len, unsigned flags);

/* Temporary output files (docs/errors.md): every file the library or the
 * program writes under a temporary name is known here until it is renamed
 * into place or removed, so that a signal handler can remove them all.
 * td_temp_create is mkstemp(tmpl) with the name registered before a signal
 * can see the file; td_temp_track registers a name the caller will create
 * itself; td_temp_forget drops a name (after its rename or unlink). Up to
 * 16 names at once; past that a name is not tracked (returns -1 or 0). */
TD_API int td_temp_create(char *tmpl);
TD_API int td_temp_track(const char *path);
TD_API void td_temp_forget(const char *path);
/* Removes every tracked file: async-signal-safe (unlink only), for a
 * handler of SIGINT, SIGTERM or SIGHUP that then re-raises the signal. */
TD_API void td_temp_remove_all(void);

/* Escape a byte string as the inside of a JSON string literal (no quotes).
 * A piece of a larger output: returns TD_EIO when f has an error, without
 * flushing; the caller reports the output's failure as a whole. */
TD_API int td_write_json_string(FILE *f, const char *s, size_t len);
/* JSON values, as the command documents write them (breakdown, roofline,
 * and the CLI's own): a number, null when undefined (NaN, infinite), -0 as
 * 0, else the shortest exact form; a string (NULL: null) with quotes,
 * backslashes and control characters escaped as \uXXXX. */
TD_API void td_json_put_num(FILE *f, double v);
TD_API void td_json_put_str(FILE *f, const char *s);

/* ------------------------------------------------------------------------ */
/* Charts (spec §8) and the HTML report.                                     */

typedef enum td_chart_kind { TD_CHART_COUNTS = 0, TD_CHART_DURATION = 1 } td_chart_kind;

/* The most rows one chart shows (wider, and a PNG outgrows cairo's limit). */
#define TD_CHART_MAX_ROWS 1000

/* Sets the rows a chart shows by default: the 10 largest absolute changes
 * (abs_diff_counts or abs_diff_duration), ProfilerStep rows left out. The
 * include and exclude patterns are left as they are. */
TD_API void td_chart_default_view(td_view_opts *o, td_chart_kind kind);

/* A grouped bar chart ("Ops Count Comparison" or "Ops Duration Comparison"):
 * per row of the view rows (indices into td_diff_rows(), drawn in that
 * order; NULL = every row) three bars, control, test and their difference.
 * Labels NULL = "control", "test". The format follows path's extension:
 * .svg, .png or .pdf. The file appears whole or not at all (written beside
 * it, then renamed). At most TD_CHART_MAX_ROWS rows, else TD_EUSAGE. */
TD_API int td_chart_write(const char *path, td_chart_kind kind, const td_diff *diff,
                          const size_t *rows, size_t nrows, const char *control_label,
                          const char *test_label, td_error *err);

/* The same chart as one SVG element (no XML declaration, so it can be
 * embedded in HTML). Each bar group is a <g class="bar-group"> with the full
 * name in its <title> and the numbers in data-control, data-test and
 * data-diff, written as the CSV writer writes them. */
TD_API int td_chart_svg(FILE *f, td_chart_kind kind, const td_diff *diff, const size_t *rows,
                        size_t nrows, const char *control_label, const char *test_label,
                        td_error *err);

/* The same charts with more said: a subtitle line under the title (what is
 * compared: labels, ranks, iterations, device) and a size in pixels. A size
 * larger than the chart needs grows the plot area; a smaller one keeps the
 * room the labels need. */
typedef struct td_chart_opts {
    size_t size;               /* sizeof(td_chart_opts): set by TD_CHART_OPTS_INIT */
    const char *control_label; /* NULL = "control" */
    const char *test_label;    /* NULL = "test" */
    const char *subtitle;      /* NULL or "" = none */
    int width, height;         /* px; 0 = fit the labels */
} td_chart_opts;

#define TD_CHART_OPTS_INIT                                                                         \
    {                                                                                              \
        sizeof(td_chart_opts), NULL, NULL, NULL, 0, 0                                              \
    }

TD_API int td_chart_write_opts(const char *path, td_chart_kind kind, const td_diff *diff,
                               const size_t *rows, size_t nrows, const td_chart_opts *opts,
                               td_error *err);
TD_API int td_chart_svg_opts(FILE *f, td_chart_kind kind, const td_diff *diff, const size_t *rows,
                             size_t nrows, const td_chart_opts *opts, td_error *err);

/* The subtitle plot and the report give their charts: "control (rank 0,
 * iterations 5–10) vs test (rank 0, iteration 5) · gpu", then ", by op",
 * ", short names", ", normalized names", ", per (rank, iteration)" as opts
 * (the options diff was computed with; NULL = defaults) say. Written to buf
 * (NUL-terminated, cut to cap); returns its length. opts with a size that
 * is not valid (see "Options structs") give an empty line. */
TD_API size_t td_chart_subtitle(char *buf, size_t cap, const td_diff *diff,
                                const td_compare_opts *opts, const char *control_label,
                                const char *test_label);

/* A differential flame graph (docs/stacks.md) of a diff computed with
 * by TD_BY_STACK: an icicle, the root on top, each frame as wide as its
 * test time and coloured by its change (red slower, blue faster, grey
 * within min_change), frames only in test hatched; every frame's <title>
 * (SVG) gives both times and the change. side 1 (control) or 2 (test)
 * draws that side alone, plain. */
typedef struct td_flame_opts {
    size_t size;               /* sizeof(td_flame_opts): set by TD_FLAME_OPTS_INIT */
    const char *control_label; /* NULL = "control" */
    const char *test_label;    /* NULL = "test" */
    const char *subtitle;      /* NULL or "" = none */
    int side;                  /* 0: the difference; 1: control; 2: test */
    double min_change;         /* percent, when has_min_change (else 1%) */
    bool has_min_change;
    int width; /* px; 0 = 1200 */
} td_flame_opts;

#define TD_FLAME_OPTS_INIT                                                                         \
    {                                                                                              \
        sizeof(td_flame_opts), NULL, NULL, NULL, 0, 0, false, 0                                    \
    }

/* The flame graph as one SVG element; TD_EUSAGE when diff is not by stack. */
TD_API int td_flame_svg(FILE *f, const td_diff *diff, const td_flame_opts *opts, td_error *err);
/* The same as PNG (pdf false) or PDF, drawn with cairo into f; path only
 * names the file in errors. */
TD_API int td_flame_cairo(FILE *f, const td_diff *diff, const td_flame_opts *opts, bool pdf,
                          const char *path, td_error *err);

typedef struct td_report_input {
    size_t size; /* sizeof(td_report_input): TD_REPORT_INPUT_INIT */
    const td_set *control, *test;
    const td_compare_opts *opts; /* the selection diff was computed with */
    const td_diff *diff;         /* every row of it goes into the table */
    const char *control_label;   /* NULL = "control" */
    const char *test_label;      /* NULL = "test" */
    /* Rows of each chart, by td_chart_kind; NULL = td_chart_default_view. */
    const td_view_opts *chart_view[2];
    /* Statistics of diff (td_stats_compute), or NULL: the table then gains
     * change, its interval, q and the verdict, and noise rows are muted. */
    const td_stats *stats;
    /* Each chart's size in pixels, as td_chart_opts; 0 = fit the labels. The
     * charts carry td_chart_subtitle's line under their titles. */
    int chart_width, chart_height;
    /* The headline's step time and waterfall (td_breakdown_compute of the
     * same sets), or NULL: the step time of the ProfilerStep rows. */
    const struct td_breakdown *breakdown; /* td_breakdown, below */
    /* The tree match of the same selection (td_tree_match_select), or NULL:
     * the "Matched by structure" section (docs/tree-match.md). */
    const struct td_tree_match *tree;
    /* The flame section's grey: a frame whose |change| is under min_change
     * percent (when has_min_change; else stats' min change, else 1%). */
    double min_change;
    bool has_min_change;
} td_report_input;

#define TD_REPORT_INPUT_INIT                                                                       \
    {                                                                                              \
        sizeof(td_report_input), NULL, NULL, NULL, NULL, NULL, NULL, {NULL, NULL}, NULL, 0, 0,     \
            NULL, NULL, 0, false                                                                   \
    }

/* One self-contained HTML page (inline CSS, JS and SVG; nothing fetched):
 * both sides, headline numbers, both charts, the full sortable table, the
 * five ops_diff lists and the notes. Computes the extra comparisons it needs
 * (GPU only, CPU only for step times, full names for ops_diff). */
TD_API int td_report_write_html(FILE *f, const td_report_input *in, td_error *err);

/* ------------------------------------------------------------------------ */
/* Where the step time went: the breakdown of each side's step and its diff
 * (docs/breakdown.md).                                                      */

/* The numbers of a rank (totals over its selection, us) and of a side. */
typedef enum td_bd_metric {
    TD_BD_STEP = 0,       /* selected steps' durations, or the span without steps */
    TD_BD_KERNEL_TIME,    /* last end - first ts of the gpu events */
    TD_BD_BUSY,           /* |U(G)| */
    TD_BD_IDLE,           /* kernel_time - busy */
    TD_BD_COMPUTE,        /* |U(COMPUTATION)| */
    TD_BD_NON_COMPUTE,    /* kernel_time - compute - idle */
    TD_BD_EXPOSED_COMM,   /* |U(COMM)| - |U(COMM) n U(COMP)| */
    TD_BD_EXPOSED_MEM,    /* memory under neither computation nor communication */
    TD_BD_EXPOSED_OTHER,  /* busy under none of the three types */
    TD_BD_IDLE_HOST_WAIT, /* idle gaps ended by an event launched after they began */
    TD_BD_IDLE_OTHER,     /* idle - idle_host_wait */
    TD_BD_OUTSIDE_GPU,    /* step - kernel_time: CPU overhead not hidden */
    TD_BD_SYNC_WAIT,      /* host time inside synchronize calls */
    TD_BD_COMM,           /* |U(COMM)| */
    TD_BD_COMM_COMP,      /* |U(COMM) n U(COMP)| */
    TD_BD_NMETRICS
} td_bd_metric;

/* "step_us", "kernel_time_us", ... (the JSON keys); NULL out of range. */
TD_API const char *td_bd_metric_name(td_bd_metric m);

/* Kernel-type labels: bits 1 COMPUTATION, 2 COMMUNICATION, 4 MEMORY;
 * "COMPUTATION overlapping COMMUNICATION" for 3, ...; NULL for 0 or > 7. */
#define TD_BD_NLABELS 8
TD_API const char *td_bd_label_name(unsigned bits);

typedef struct td_bd_stream {
    int64_t stream;
    double host_wait, kernel_wait, other; /* summed gaps, us (HTA's idle time breakdown) */
} td_bd_stream;

typedef struct td_bd_rank {
    int64_t rank;
    size_t niters;  /* (rank, iteration) samples it holds: 1 for a whole trace */
    bool has_gpu;   /* some event with a stream was selected */
    bool has_comm;  /* some COMMUNICATION event was selected */
    bool slowest;   /* the largest step of its side */
    bool straggler; /* step more than straggler_pct above the side's median */
    double m[TD_BD_NMETRICS];
    double labels[TD_BD_NLABELS]; /* time per kernel-type label, us */
    const td_bd_stream *streams;  /* by stream number */
    size_t nstreams;
} td_bd_rank;

/* One number of the diff: each side's mean per (rank, iteration), the
 * ranks' means averaged (comm_comp_overlap: 100 |U(COMM) n U(COMP)| /
 * |U(COMM)| over the side's ranks). stats.n is 0 without statistics. */
typedef struct td_bd_row {
    const char *name; /* "step_us", ..., or "comm_comp_overlap_pct" */
    double value[2];  /* NAN when it does not apply (no gpu, no communication) */
    double diff, pct; /* test - control; 100 diff / control (NAN at 0) */
    td_row_stats stats;
} td_bd_row;

/* One bar of the waterfall: the side's mean per (rank, iteration). */
typedef struct td_bd_bar {
    const char *component;
    double value[2];
    double diff;
} td_bd_bar;

typedef struct td_breakdown_opts {
    size_t size; /* sizeof(td_breakdown_opts): set by TD_BREAKDOWN_OPTS_INIT */
    /* As td_compare_opts, but the defaults differ: every rank, and the
     * steady iterations of a side with >= 2 steps, else its whole trace. */
    td_list control_ranks, test_ranks, control_iters, test_iters;
    /* HTA's TraceAnalysis scope instead of the selection: the last step and
     * what it launched dropped when the set has >= 2 steps (docs/breakdown.md). */
    bool hta_scope;
    double straggler_pct; /* 0 = 5 */
} td_breakdown_opts;

#define TD_BREAKDOWN_OPTS_INIT                                                                     \
    {                                                                                              \
        sizeof(td_breakdown_opts), TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, false,  \
            0.0                                                                                    \
    }

typedef struct td_breakdown td_breakdown;

/* Both sides' sets must have been opened with td_open_opts.want_breakdown
 * (TD_EUSAGE), or be summaries that keep what it needs (TD_ETRACE for one
 * written by an older version or keeping a selection: docs/summaries.md). */
TD_API int td_breakdown_compute(td_breakdown **out, const td_set *control, const td_set *test,
                                const td_breakdown_opts *opts, td_error *err);
TD_API void td_breakdown_free(td_breakdown *b);
TD_API size_t td_breakdown_nranks(const td_breakdown *b, td_side side);
TD_API const td_bd_rank *td_breakdown_rank(const td_breakdown *b, td_side side, size_t i);
/* Whether some rank of the side has gpu events. */
TD_API bool td_breakdown_has_gpu(const td_breakdown *b, td_side side);
/* The side's (rank, iteration) samples; statistics need >= 3 on each side. */
TD_API size_t td_breakdown_samples(const td_breakdown *b, td_side side);
TD_API const td_bd_row *td_breakdown_rows(const td_breakdown *b, size_t *n);
/* The bars from control's step to test's: their diffs add up to the step's
 * diff; the last, "CPU overhead not hidden", is the remainder. */
TD_API const td_bd_bar *td_breakdown_waterfall(const td_breakdown *b, size_t *n);
/* Notes on a side (why a number is missing or odd), NULL after the last. */
TD_API const char *td_breakdown_note(const td_breakdown *b, td_side side, size_t i);
/* libtracediff-render: what set holds, as `tracediff info --format json`
 * writes it: path, duration rule, iterations, files, categories and their
 * times, and a (td_set_attr_stats of the set) as "attribution". */
TD_API int td_info_write_json(FILE *f, const td_set *set, const td_attr_stats *a, td_error *err);
/* libtracediff-render: the breakdown as `tracediff breakdown --format json`
 * writes it (docs/breakdown.md): per side its label (NULL: "control",
 * "test"), path, ranks and notes; the diff; the waterfall. */
TD_API int td_breakdown_write_json(FILE *f, const td_breakdown *b, const td_set *control,
                                   const td_set *test, const char *control_label,
                                   const char *test_label, td_error *err);

typedef struct td_bd_chart_opts {
    size_t size;               /* sizeof(td_bd_chart_opts): set by TD_BD_CHART_OPTS_INIT */
    const char *control_label; /* NULL = "control" */
    const char *test_label;    /* NULL = "test" */
    const char *subtitle;      /* NULL or "" = none; put before the labels */
    bool per_rank;             /* a stacked bar per rank and side instead of the waterfall */
    int width, height;         /* px; 0 = 960 x 540 */
} td_bd_chart_opts;

#define TD_BD_CHART_OPTS_INIT                                                                      \
    {                                                                                              \
        sizeof(td_bd_chart_opts), NULL, NULL, NULL, false, 0, 0                                    \
    }

/* libtracediff-render: the breakdown's chart (docs/breakdown.md): the
 * waterfall from control's step time to test's, or with per_rank a bar per
 * rank and side stacked by component; as SVG (fmt 0), PNG (1) or PDF (2,
 * drawn with cairo, loaded on demand) into f. path only names the file in
 * errors. */
TD_API int td_breakdown_chart(FILE *f, const td_breakdown *b, const td_bd_chart_opts *opts, int fmt,
                              const char *path, td_error *err);

/* ------------------------------------------------------------------------- */
/* Work, rate and the roofline per op (docs/roofline.md).                    */

/* Classes of modelled ops. */
typedef enum td_rl_class {
    TD_RL_GEMM,
    TD_RL_ATTENTION,
    TD_RL_CONV,
    TD_RL_ELEMENTWISE,
    TD_RL_REDUCTION,
    TD_RL_NORM,
    TD_RL_NCLASSES
} td_rl_class;

/* Precisions (an op's is its first input's type); TD_PREC_UNKNOWN: none. */
typedef enum td_precision {
    TD_PREC_UNKNOWN = -1,
    TD_PREC_FP64,
    TD_PREC_FP32,
    TD_PREC_FP16,
    TD_PREC_BF16,
    TD_PREC_FP8,
    TD_PREC_FP4,
    TD_PREC_N
} td_precision;

TD_API const char *td_rl_class_name(td_rl_class c);
TD_API const char *td_precision_name(td_precision p);

/* What the model says of one call. */
typedef struct td_perf {
    td_rl_class cls;
    double flops, bytes;    /* bytes NAN when a type's width is unknown */
    td_precision precision; /* TD_PREC_UNKNOWN: the first input's type has no width */
    bool matrix;            /* matrix units (GEMM, conv, attention), else vector units */
    const char *problem;    /* when td_perf_model returns -1: why, as a phrase */
} td_perf;

/* The model of op (its name) on a call's "Input Dims", "Input type" and
 * "Concrete Inputs" (compact JSON, as the trace has them; NULL or "" when
 * absent): 1 with *out filled, 0 when the op has no model (its time goes to
 * the modelled ops inside it), -1 when it has one but these inputs do not
 * fit it (out->problem says why). */
TD_API int td_perf_model(td_perf *out, const char *op, const char *dims, const char *types,
                         const char *concrete);

/* A GPU's peaks: dense TFLOP/s per unit (0: matrix, 1: vector) and
 * precision, NAN where the source gives none; memory bandwidth in GB/s. */
typedef struct td_gpu {
    char name[64];
    double mem_bw_gbps;
    double tflops[2][TD_PREC_N];
    const char *source; /* the public datasheet, or NULL for a user's file */
} td_gpu;

/* The built-in table (docs/roofline.md, "GPUs"). */
TD_API const td_gpu *td_gpu_table(size_t *n);
/* The table's entry of a deviceProperties name ("NVIDIA H100 80GB HBM3",
 * "AMD Instinct MI300X VF"), or NULL. */
TD_API const td_gpu *td_gpu_detect(const char *device_name);
/* spec: a name of the table (or a device name it matches), or a file in
 * TraceLens's arch format ({"name", "mem_bw_gbps", "max_achievable_tflops":
 * {"matrix_bf16": ..., "vector_fp32": ...}}). TD_EUSAGE listing the known
 * names when it is neither; TD_EIO / TD_ETRACE naming a bad file. */
TD_API int td_gpu_resolve(td_gpu *out, const char *spec, td_error *err);

typedef enum td_rl_bound { TD_RL_BOUND_UNKNOWN, TD_RL_COMPUTE, TD_RL_MEMORY } td_rl_bound;

/* One side of a row: per call FLOPs and bytes; totals over the calls. NAN
 * where unknown (no calls, no bytes, no GPU peaks). */
typedef struct td_rl_side {
    uint64_t count;
    double flops, bytes; /* per call (the mean when the calls differ) */
    double time_us;      /* the summed GPU time of the calls */
    double tflops, tbps, intensity;
    double peak_tflops, peak_tbps;
    double efficiency_pct; /* roofline time / measured time */
    td_rl_bound bound;
} td_rl_side;

typedef struct td_rl_row {
    const char *op, *input_dims, *input_types; /* dims and types: compact JSON */
    td_rl_class cls;
    td_precision precision;
    td_rl_side side[2];
    double time_change_pct, rate_change_pct, efficiency_change_pts;
    const char *reading; /* docs/roofline.md, "Readings" */
    /* With td_roofline_opts.stats: the row's samples (its time per (rank,
     * iteration), or per call) and verdict, as compare --stats; else zero. */
    td_row_stats stats;
} td_rl_row;

typedef struct td_rl_unmodelled {
    const char *op; /* the innermost op around the GPU events, or "(no op)" */
    double time_us;
} td_rl_unmodelled;

/* A side's coverage: busy = modelled + unmodelled, GPU time as |U| of its
 * kernels, memcpys and memsets. */
typedef struct td_rl_coverage {
    double busy_us, modelled_us, unmodelled_us, modelled_pct;
    const td_rl_unmodelled *top; /* by time, largest first */
    size_t ntop;
} td_rl_coverage;

/* --by class: one per class with a modelled call on some side. */
typedef struct td_rl_class_row {
    td_rl_class cls;
    double flops[2], time_us[2], tflops[2], efficiency_pct[2];
    double time_change_pct, rate_change_pct, efficiency_change_pts;
} td_rl_class_row;

typedef struct td_roofline_opts {
    size_t size; /* sizeof(td_roofline_opts): set by TD_ROOFLINE_OPTS_INIT */
    /* As td_compare_opts (the lowest rank and iteration by default). */
    td_list control_ranks, test_ranks, control_iters, test_iters;
    /* The sides' GPUs (td_gpu_resolve), or NULL: read from the traces. */
    const char *control_gpu, *test_gpu;
    size_t top_unmodelled; /* 0 = 5 */
    /* Per row statistics and a verdict (td_rl_row.stats; docs/roofline.md). */
    bool stats;
    td_stats_opts sopts;
} td_roofline_opts;

#define TD_ROOFLINE_OPTS_INIT                                                                      \
    {                                                                                              \
        sizeof(td_roofline_opts), TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, TD_LIST_INIT, NULL,    \
            NULL, 0, false, TD_STATS_OPTS_INIT                                                     \
    }

typedef struct td_roofline td_roofline;

/* Both sets opened with td_open_opts.want_roofline, or summaries (schema 4
 * on; an older one: TD_EUSAGE saying to re-summarize). */
TD_API int td_roofline_compute(td_roofline **out, const td_set *control, const td_set *test,
                               const td_roofline_opts *opts, td_error *err);
TD_API void td_roofline_free(td_roofline *r);
/* Sorted by |time change|, largest first. */
TD_API const td_rl_row *td_roofline_rows(const td_roofline *r, size_t *n);
TD_API const td_rl_class_row *td_roofline_classes(const td_roofline *r, size_t *n);
TD_API const td_rl_coverage *td_roofline_coverage(const td_roofline *r, td_side side);
/* The side's GPU, NULL when unknown (no roofline columns then). */
TD_API const td_gpu *td_roofline_gpu(const td_roofline *r, td_side side);
/* The device name the side's traces give, or NULL. */
TD_API const char *td_roofline_device(const td_roofline *r, td_side side);
/* With opts.stats: the sample mode used (never AUTO), else TD_SAMPLES_AUTO;
 * and a side's (rank, iteration) samples. */
TD_API td_samples td_roofline_samples(const td_roofline *r);
TD_API size_t td_roofline_side_samples(const td_roofline *r, td_side side);
/* Whether some selected trace of the side has input shapes. */
TD_API bool td_roofline_has_shapes(const td_roofline *r, td_side side);
/* Notes on a side, NULL after the last. */
TD_API const char *td_roofline_note(const td_roofline *r, td_side side, size_t i);
/* libtracediff-render: the roofline as `tracediff roofline --format json`
 * writes it: "rows" (or with by_class "classes"), "coverage", "gpus",
 * "notes". */
TD_API int td_roofline_write_json(FILE *f, const td_roofline *r, bool by_class, td_error *err);

/* A row of compare --by op with its work and rate: the roofline's rows of
 * that op name summed per side (docs/roofline.md, "compare --with-rate");
 * NAN when no row has that name on the side. */
typedef struct td_op_rate {
    double flops[2];  /* per call: the rows' FLOPs over their calls */
    double tflops[2]; /* the rows' FLOPs over their GPU time */
} td_op_rate;
/* *out: nrows of diff entries (free()), each diff row by its name. */
TD_API int td_roofline_op_rates(td_op_rate **out, const td_roofline *r, const td_diff *diff,
                                td_error *err);

/* libtracediff-render: the roofline chart (tracediff plot roofline;
 * docs/roofline.md): log-log intensity against TFLOP/s, each side's roofs
 * (memory slope, then flat at each peak its rows use), a point per row and
 * side, an arrow control -> test for the top rows by GPU time. */
typedef struct td_roofline_chart_opts {
    size_t size;                            /* set by TD_ROOFLINE_CHART_OPTS_INIT */
    const char *control_label, *test_label; /* NULL: "control", "test" */
    size_t top;                             /* arrows; 0 = 10 */
    int width, height;                      /* pixels; 0 = 860 x 600 */
} td_roofline_chart_opts;

#define TD_ROOFLINE_CHART_OPTS_INIT                                                                \
    {                                                                                              \
        sizeof(td_roofline_chart_opts), NULL, NULL, 0, 0, 0                                        \
    }

/* One SVG element. */
TD_API int td_roofline_svg(FILE *f, const td_roofline *r, const td_roofline_chart_opts *opts,
                           td_error *err);
/* PNG, or PDF when pdf; path names the file in errors. */
TD_API int td_roofline_cairo(FILE *f, const td_roofline *r, const td_roofline_chart_opts *opts,
                             bool pdf, const char *path, td_error *err);

/* ------------------------------------------------------------------------ */
/* The same work matched across stacks by the call trees (docs/tree-match.md) */
/* ------------------------------------------------------------------------ */

/* One lowest common ancestor: a matched node (or pair of roots) with gpu
 * work on the path that did not match, or a matched kernel pair. */
typedef struct td_tree_lca {
    const char *name;       /* the node's name, "a | b" when the sides differ */
    const char *path;       /* its matched ancestors, ">"-joined, "#k" for the k-th of a name */
    double us[2];           /* |U| of the lca's gpu events per side, us */
    uint64_t nkernels[2];   /* its gpu events per side */
    const char *kernels[2]; /* "name (count); ..." per side, by count then name */
    /* Per side, the "Input Dims" and "Input type" of the LCA's cpu op (of
     * the nearest cpu op above it for a launch or kernel pair) as the trace
     * writes them (compact JSON; record_shapes=True), or NULL when the
     * trace has none there. */
    const char *input_dims[2], *input_types[2];
} td_tree_lca;

/* Per side: the gpu time (|U| of every kernel, memcpy and memset) and its
 * parts, which add up to it: in LCAs with gpu events on both sides, in
 * one-sided LCAs and roots, with no launch found, under host events left
 * out of the nesting or outside any root cpu op. Each part is the time
 * covered by its events and by none of an earlier part's. */
typedef struct td_tree_summary {
    double total_us, matched_us, one_sided_us, no_launch_us, outside_us;
    uint64_t roots, roots_matched, dropped, capped;
} td_tree_summary;

#define TD_TREE_ROOTS_BY_POSITION 1 /* pair the roots i-th to i-th (TraceLens's rule) */

typedef struct td_tree_match td_tree_match;
/* Both sets opened with td_open_opts.want_tree, from traces (a summary
 * keeps no tree: TD_EUSAGE). flags: TD_TREE_ bits above. The result holds
 * its own strings: the sets may be freed before it. */
TD_API int td_tree_match_run(td_tree_match **out, const td_set *control, const td_set *test,
                             int flags, td_error *err);
TD_API void td_tree_match_free(td_tree_match *m);
/* In the order found (a depth-first walk of the merged tree). */
TD_API const td_tree_lca *td_tree_match_lcas(const td_tree_match *m, size_t *n);
TD_API const td_tree_summary *td_tree_match_summary(const td_tree_match *m, td_side side);
/* Notes, NULL after the last. */
TD_API const char *td_tree_match_note(const td_tree_match *m, size_t i);
/* As td_tree_match_run, of the ranks and iterations sel selects
 * (control_ranks, test_ranks, control_iters, test_iters; compare's rules
 * and defaults: the lowest rank and iteration); NULL: every one. Roots are
 * taken by the iteration their start is in, gpu events by their launch's
 * (docs/tree-match.md, "Ranks and iterations"). */
TD_API int td_tree_match_select(td_tree_match **out, const td_set *control, const td_set *test,
                                const td_compare_opts *sel, int flags, td_error *err);

/* Per-LCA statistics (docs/tree-match.md, "--stats"): the i-th selected
 * (rank, iteration) of each side matched alone with the other's i-th,
 * LCAs keyed by (path, name) across them; each key's time in each unit is
 * a sample (0 where the unit has none), tested as compare --stats does in
 * iteration mode. A side with fewer units lends its (i mod n)-th as the
 * reference of the other's i-th and takes no sample from it. */
typedef struct td_tree_stats td_tree_stats;
TD_API int td_tree_match_stats(td_tree_stats **out, const td_set *control, const td_set *test,
                               const td_compare_opts *sel, int flags, const td_stats_opts *sopts,
                               td_error *err);
TD_API void td_tree_stats_free(td_tree_stats *ts);
/* One row per key, in the order first found: us and nkernels summed over
 * the side's units; kernels: those of the first unit holding the key. */
TD_API const td_tree_lca *td_tree_stats_lcas(const td_tree_stats *ts, size_t *n);
/* Parallel to the rows (td_stats_rows, td_stats_too_few, ...). */
TD_API const td_stats *td_tree_stats_stats(const td_tree_stats *ts);
/* The side's (rank, iteration) units: its samples per row. */
TD_API size_t td_tree_stats_units(const td_tree_stats *ts, td_side side);

/* ------------------------------------------------------------------------ */
/* A trace file's rows as HTA's Trace frame holds them (docs/python.md,
 * LabeledTrace.extract_ops): the file is read again, as a stream, and only
 * the rows asked for are handed over; the model above keeps none of this.
 * HTA keeps an event of traceEvents as a row when it has a "cat" (not
 * "Trace") and a "dur"; its rules for stream, index_correlation and
 * iteration are followed here.                                              */

typedef enum td_jv_kind {
    TD_JV_NONE = 0, /* absent or null */
    TD_JV_INT,      /* i */
    TD_JV_FLOAT,    /* d */
    TD_JV_STR,      /* s (len bytes, decoded) */
    TD_JV_JSON,     /* an array, object, true or false: s holds it as compact JSON */
    TD_JV_NKINDS
} td_jv_kind;

/* A JSON value as read (valid during the callback only). */
typedef struct td_jv {
    td_jv_kind kind;
    int64_t i;
    double d;
    const char *s;
    size_t len;
} td_jv;

/* The event keys HTA makes columns of, beside cat and name. */
enum { TD_ROW_PID, TD_ROW_TID, TD_ROW_TS, TD_ROW_DUR, TD_ROW_NKEYS };

/* What a column holds: how many values of each kind, and the range of its
 * integers. */
typedef struct td_row_col {
    uint64_t n[TD_JV_NKINDS];
    int64_t min, max; /* of the TD_JV_INT values; min > max when none */
} td_row_col;

typedef struct td_event_row {
    int64_t index; /* the event's position in traceEvents, from 0 */
    const char *cat, *name;
    size_t cat_len, name_len;
    td_jv key[TD_ROW_NKEYS]; /* pid, tid, ts, dur: ts and dur after HTA's
                              * rounding when it applies (td_event_rows.rounded) */
    td_jv end;               /* ts + dur */
    int64_t stream;          /* args.stream as HTA reads it: -1 when not a number */
    int64_t index_correlation;
    int64_t iteration;    /* -1: none */
    bool iteration_unset; /* HTA leaves it unset (NaN): a device event on stream 0 */
    const td_jv *args;    /* the asked args (td_file_event_rows' args), NONE when absent */
    int64_t row;          /* its position among the file's rows kept, from 0 */
} td_event_row;

typedef struct td_event_rows {
    /* Over every event of traceEvents: the kinds of pid, tid, ts and dur
     * (the ranges over the rows kept). */
    td_row_col key[TD_ROW_NKEYS];
    /* Over the rows kept: the asked args (nargs of them, the caller's
     * array), the index, stream, index_correlation and iteration ranges,
     * and how many rows' iteration is unset. */
    td_row_col *args;
    td_row_col index, stream, index_correlation, iteration;
    uint64_t iteration_unset;
    uint64_t kept, events; /* rows kept, events in traceEvents */
    /* HTA's rounding of decimal timestamps applied (ts had a decimal or a
     * missing value in some event and ns was false): HTA then places end
     * right after the event keys. */
    bool rounded;
    bool has_args; /* some event has "args" */
    /* The order in which cat, name, pid, tid, ts and dur first appear in
     * the events (0 = first; -1 never), and the first other key HTA would
     * make a column of, "" if none. */
    int order[6];
    char other_key[64];
} td_event_rows;

/* Reads path (a Kineto JSON trace, plain or compressed) twice as a stream
 * and calls fn for each row HTA keeps whose iteration is among
 * iters[niters] (niters == 0: every row) and whose side is device's
 * (stream -1: CPU, else GPU), in file order. ns: keep decimal timestamps
 * (HTA_DISABLE_NS_ROUNDING=1), else HTA's rounding. args[nargs]: the raw
 * names of the args to hand over (out->args must hold nargs). Memory: the
 * rows' own values one at a time, the ProfilerSteps, and one entry per
 * correlation id. A negative return from fn stops and is returned. Errors
 * name the file and, for parse errors, the byte offset. */
TD_API int td_file_event_rows(const char *path, bool ns, const char *const *args, size_t nargs,
                              const int64_t *iters, size_t niters, td_device device,
                              int (*fn)(void *ud, const td_event_row *row), void *ud,
                              td_event_rows *out, td_error *err);

#ifdef __cplusplus
}
#endif

#endif
