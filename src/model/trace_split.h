/*
 * One plain trace file read by several threads: its traceEvents array cut at
 * event boundaries into pieces (docs/architecture.md, "One file on several
 * cores").
 *
 * A cut is only a guess until it is verified: piece i starts at a byte that
 * looks like the start of an event ("}, {" and a key), but only the reader
 * of the bytes before it knows whether it is one. Piece 0 reads the file
 * from its start as the serial reader does; whenever its walk of traceEvents
 * reaches an event that starts exactly at piece i's cut, the cut is proven,
 * and piece i's events (read meanwhile by another thread, from there until
 * the next proven-looking cut or the array's end) are appended in file order;
 * piece 0 then goes on from where piece i stopped. A cut that piece 0 steps
 * over (it fell inside a string or a nested value) is dropped, and whatever
 * was read from it thrown away: the result is always the serial one.
 */
#ifndef TD_TRACE_SPLIT_H
#define TD_TRACE_SPLIT_H

#include "model/load.h"

#include <pthread.h>
#include <stdatomic.h>

enum { PIECE_FREE, PIECE_RUNNING, PIECE_DONE, PIECE_CANCELLED };
/* How a piece stopped: at the array's closing ']' (end is its offset), at
 * the next cut (end is that event's offset), at an error (rc, err), or
 * without having read anything usable (it could not start: piece 0 reads
 * its bytes itself). */
enum { PIECE_END_NONE, PIECE_END_ARRAY, PIECE_END_CUT, PIECE_END_ERROR };

/* What one piece read, in its own ids (names, cats), until it is merged. */
typedef struct td_piece {
    uint64_t start; /* offset of the '{' the piece starts at */
    atomic_int state;
    td_raw_event **blk;
    size_t nraw, nblk;
    uint32_t *cat;      /* cats id of each raw event */
    td_wide_corr *wide; /* indexes relative to the piece */
    size_t nwide;
    td_link *links;
    size_t nlinks;
    td_threads thr; /* the links' threads (their numbers in the piece) */
    td_strtab *names, *cats;
    uint64_t elements, skipped;
    int round_ts;
    int end_kind;
    uint64_t end;
    int rc;
    td_error err;
} td_piece;

struct td_split {
    char *path;
    int depth;   /* of the traceEvents array: 2 in an object, 1 when it is the top */
    size_t n;    /* pieces, piece 0 (which has no td_piece) included */
    td_piece *p; /* p[1] .. p[n - 1]; p[0] unused */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Piece 0, having reached p's cut: returns 0 when p had not started (it is
 * cancelled; piece 0 reads on itself), 1 once p has finished. */
int td_split_claim(td_split *sp, td_piece *p);
/* A piece piece 0 has gone past: nobody starts it now. */
void td_split_cancel(td_piece *p);
/* Frees what a piece read (after merging or when it is thrown away). */
void td_piece_clear(td_piece *p);
/* The worker side: p is done (its results filled in). */
void td_split_finish(td_split *sp, td_piece *p);

#endif
