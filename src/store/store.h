/* Summaries: shared declarations of src/store/. */
#ifndef TD_STORE_H
#define TD_STORE_H

#include "model/model.h"
#include "util/bigmem.h"
#include "util/pool.h"
#include "util/sha256.h"

/* A growable byte buffer. */
typedef struct td_buf {
    unsigned char *p;
    size_t n, cap;
} td_buf;
void td_buf_free(td_buf *b);

/* What of a file is kept: iterations (values; NULL = all, and then events in
 * no iteration are kept too) and the device. */
typedef struct td_keep {
    const int64_t *iters;
    size_t niters;
    int device; /* td_device */
} td_keep;

/* One group of a file's events: same iteration, flags and name. */
enum { TD_GROUP_GPU = 1, TD_GROUP_STREAM0 = 2 };
typedef struct td_group {
    int32_t iter;   /* index into the file's iters[], or TD_ITER_NONE */
    uint32_t flags; /* TD_GROUP_... */
    uint32_t name;  /* names id */
    uint64_t count;
    double total; /* compensated sum of its durations */
    size_t first; /* its durations: durs[first .. first + count), ascending */
    /* gpu groups of a file with attribution: op, top op, annotation, and
     * the stack node (stk_of) when the file has stacks (has_stk); a cpu
     * group's attr[3] is its stack node (stk_cpu) with has_stk_cpu */
    uint32_t attr[4];
} td_group;

typedef struct td_groups {
    td_group *g;
    size_t n;
    double *durs;
    int integral;    /* every duration a whole number: the compact encoding applies */
    int has_attr;    /* the file's attribution is kept: gpu groups are split by it */
    int has_stk;     /* ... and its stacks: gpu groups are split by their node too */
    int has_stk_cpu; /* ... and the cpu events' stacks: cpu groups are split by node */
    int keep_all;    /* every iteration and device kept: the breakdown's records are packed */
    /* What was kept (the roofline's events are selected by it): per
     * iteration of the file, kept or not; every iteration (events in none
     * too) when all_iters; the device (td_device). */
    bool *iter_on;
    int all_iters, device;
    /* When not integral: the kept events in file order, group and dur. */
    size_t *seq;
    double *seq_durs;
    size_t nseq;
} td_groups;

/* file_pack.c: a file's kept events grouped, in (iteration, flags, name) order. */
int td_file_groups(td_groups *out, const td_file *f, const td_keep *keep, td_error *err);
void td_groups_free(td_groups *g);
/* Per SQL ops row (row[i]: the row of group i, rows below nrows), the total
 * of its groups' durations as compare totals the trace's events: added in
 * file order, compensated (the groups' own totals are sums in ascending
 * order, which can differ in the last digit when durations are not whole
 * numbers). -1: out of memory. */
int td_groups_row_totals(const td_groups *g, const size_t *row, size_t nrows, double *total);

/* One file's aggregates as bytes and back (docs/summaries.md, "packed").
 * Independent of SQLite: a process can pack its files and send them on. */
int td_file_pack(td_buf *out, const td_file *f, const td_groups *g, td_error *err);
/* where names the source of the bytes in errors. */
int td_file_unpack(td_file **out, const unsigned char *p, size_t n, const char *where,
                   td_error *err);
/* The same from td_big_alloc bytes that the file takes over (freed on failure
 * too): a summary's durations then stay where they were read, uncopied. */
int td_file_unpack_owned(td_file **out, unsigned char *p, size_t n, const char *where,
                         td_error *err);

/* summary_write.c: SHA-256 of a file's bytes on disk, lowercase hex. */
int td_file_sha256(char out[65], const char *path, td_error *err);

/* summary_read.c: "FILE#RUN" or "FILE" when FILE is a summary. Returns 1 and
 * fills *file (malloc'd) and *run (malloc'd or NULL) when path names a
 * summary, 0 when not, < 0 on error. */
int td_summary_split(const char *path, char **file, char **run, td_error *err);
int td_summary_open_set(td_set **out, const char *file, const char *run, td_error *err);

/* summary_read.c: whether column col of q's row is a run name as tracediff
 * writes one: text, valid UTF-8, no NUL (a C string would end at the NUL, so
 * "test\0x" would show, and be taken, as "test"). Call it before
 * sqlite3_column_text on that column, which turns a blob into text. */
struct sqlite3_stmt;
bool td_summary_run_name_ok(struct sqlite3_stmt *q, int col);

/* summary_schema.c: the schema's statements (docs/summaries.md), and the
 * checksums table of schema 3 on. */
extern const char td_summary_schema_sql[];
extern const char td_summary_checksums_sql[];

/* summary_sum.c: the checksums of a run (docs/summaries.md, "Checksums"). */
#define TD_SUM_ALGORITHM "crc64-ecma"
/* The columns each checksum covers, in their order. */
#define TD_SUM_RUN_COLS                                                                            \
    "name, created, tool_version, source, ranks, iterations, kept_ranks, kept_iterations, "        \
    "kept_device, files, source_bytes, json_bytes, events, cpu_us, gpu_us"
#define TD_SUM_FILE_COLS                                                                           \
    "rank, path, file_bytes, json_bytes, compression, sha256, events_total, events_counted, "      \
    "events_cpu, events_gpu, events_skipped, steps, device_name, encoding"
#define TD_SUM_FILE_NCOLS 14
typedef struct td_run_sums {
    uint64_t run, files, derived;
} td_run_sums;
/* The CRC of one files row: TD_SUM_FILE_COLS at columns first.. of q's row,
 * then its packed bytes. */
uint64_t td_sum_file_row(struct sqlite3_stmt *q, int first, const unsigned char *packed, size_t n);
struct sqlite3;
/* The sums of run run_id as its rows are now: its runs row, and with
 * TD_SUM_FILES its files rows, with TD_SUM_DERIVED its iterations, names and
 * ops rows (else 0); < 0 on an SQLite error. */
enum { TD_SUM_FILES = 1, TD_SUM_DERIVED = 2 };
int td_sum_run(td_run_sums *out, struct sqlite3 *db, int64_t run_id, unsigned what);
int td_sum_derived(uint64_t *out, struct sqlite3 *db, int64_t run_id);
/* The sums stored for run_id: 1, 0 when it has none, -2 when its row is
 * not one this version writes, -1 on an SQLite error. */
int td_sum_stored(td_run_sums *out, struct sqlite3 *db, int64_t run_id);
/* Writes run_id's checksums row from its rows as they are; < 0 on error. */
int td_sum_write(struct sqlite3 *db, int64_t run_id);
/* The first run id written with checksums (meta 'checksums_from'): runs
 * from it on must have them; INT64_MAX when the file has none. */
int td_sum_checked_from(int64_t *out, struct sqlite3 *db);

/* summary_read.c: 0 when db holds tracediff's tables, indexes and view
 * (of schema version, and nothing else), else TD_ETRACE naming what. */
int td_summary_check_objects(struct sqlite3 *db, const char *path, int version, td_error *err);

/* summary_read.c: whether run run_id of db matches its checksums: 1 when it
 * does, 0 when it was written without them (before schema 3), < 0 (err
 * filled, naming where) when it does not. what: TD_SUM_FILES and
 * TD_SUM_DERIVED as for td_sum_run; files_sum, when not NULL, is the files'
 * sum as the caller read them (then TD_SUM_FILES is not read again). */
int td_summary_verify(struct sqlite3 *db, const char *where, int64_t run_id, unsigned what,
                      const uint64_t *files_sum, td_error *err);

#endif
