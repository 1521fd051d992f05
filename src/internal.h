/* Internal declarations shared by the library's modules. */
#ifndef TD_INTERNAL_H
#define TD_INTERNAL_H

#include "tracediff.h"

#include <stdarg.h>
#include <stdbool.h>

/* error.c */
int td_fail(td_error *err, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int td_fail_at(td_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Growable arrays of plain data. */
void *td_grow(void *ptr, size_t *cap, size_t need, size_t elem);

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

/* One loaded trace file: its compact events after iteration assignment. */
typedef struct td_event {
    double dur;
    uint32_t name; /* strtab id */
    int32_t iter;  /* index into the file's iters[], or TD_ITER_NONE / TD_ITER_UNASSIGNED */
    uint8_t gpu;   /* stream != -1 */
    uint8_t pad[7];
} td_event;

#define TD_ITER_NONE (-1)       /* host or device event that falls in no step */
#define TD_ITER_UNASSIGNED (-2) /* spec §3.3: never selected by iteration */

typedef struct td_file {
    char *path;
    int64_t rank;
    int has_rank;
    td_compression compression;
    uint64_t file_bytes, json_bytes;
    uint64_t events_total, events_skipped;
    int rounded;
    char *device_name;
    td_strtab *names;
    td_strtab *cats;
    uint64_t *cat_counts; /* per cats id */
    size_t ncat_counts;
    td_event *ev;
    size_t nev;
    int64_t *iters; /* sorted distinct step numbers of this file */
    size_t niters;
    uint64_t steps, events_cpu, events_gpu, events_unassigned;
} td_file;

void td_file_free(td_file *f);

/* trace_load.c: read and parse one trace file. */
typedef struct td_load_progress {
    void (*fn)(void *ud, uint64_t delta);
    void *ud;
} td_load_progress;
int td_file_load(td_file **out, const char *path, const td_load_progress *prog, td_error *err);

/* The raw per-event record kept while one file loads (before iterations). */
typedef struct td_raw_event {
    double ts, dur;
    int64_t stream, corr;
    uint32_t name;
    uint8_t cpu_op; /* cat == "cpu_op" */
    uint8_t index0; /* first entry of traceEvents */
    uint8_t has_ts;
    uint8_t pad;
} td_raw_event;

/* iterations.c: spec §2 rounding and §3 iteration numbers. On success fills
 * f->ev, f->iters and the counters from raw (which it rounds in place but
 * does not free). */
int td_assign_iterations(td_file *f, td_raw_event *raw, size_t n, int round_ts,
                         td_error *err);
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
};

/* byte_reader.c: a streaming source of decompressed bytes. */
typedef struct td_reader td_reader;
int td_reader_open(td_reader **out, const char *path, td_error *err);
/* Reads up to cap bytes; returns the count, 0 at the end, < 0 on error. */
long td_reader_read(td_reader *r, char *buf, size_t cap, td_error *err);
td_compression td_reader_compression(const td_reader *r);
uint64_t td_reader_file_bytes(const td_reader *r);
/* Compressed bytes consumed so far (for progress). */
uint64_t td_reader_consumed(const td_reader *r);
void td_reader_close(td_reader *r);

/* pool.c: run n jobs on up to threads threads. */
typedef int (*td_job_fn)(void *ud, size_t i);
void td_pool_run(size_t n, int threads, td_job_fn fn, void *ud);
int td_ncores(void);

#endif
