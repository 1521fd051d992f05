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
    double total;     /* compensated sum of its durations */
    size_t first;     /* its durations: durs[first .. first + count), ascending */
    uint32_t attr[3]; /* gpu groups of a file with attribution: op, top op, annotation */
} td_group;

typedef struct td_groups {
    td_group *g;
    size_t n;
    double *durs;
    int integral; /* every duration a whole number: the compact encoding applies */
    int has_attr; /* the file's attribution is kept: gpu groups are split by it */
    /* When not integral: the kept events in file order, group and dur. */
    size_t *seq;
    double *seq_durs;
    size_t nseq;
} td_groups;

/* file_pack.c: a file's kept events grouped, in (iteration, flags, name) order. */
int td_file_groups(td_groups *out, const td_file *f, const td_keep *keep, td_error *err);
void td_groups_free(td_groups *g);

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

#endif
